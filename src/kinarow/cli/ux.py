"""What users see and keep, for the command line: the results store, proofs, pictures, progress, ``serve``.

The commands in :mod:`kinarow.cli` call the helpers here (a few lines each);
:func:`add_commands` adds ``kinarow serve``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from kinarow.errors import KinarowError
from kinarow.position import Position
from kinarow.proofs.tree import StrategyTree, board_key

if TYPE_CHECKING:
    from kinarow.search.solve import Result
    from kinarow.store import Store

STRATEGY_FORMAT = "kinarow.strategy"
PAIRING_FORMAT = "kinarow.pairing"


# -- the results store -------------------------------------------------------------------
def add_store_options(parser: argparse.ArgumentParser) -> None:
    """``--store FILE`` and ``--no-store`` on a command."""
    parser.add_argument(
        "--store", metavar="FILE", default=None,
        help="results store (SQLite) to answer from and save to (default: $KINAROW_STORE or the user cache)",
    )
    parser.add_argument("--no-store", action="store_true", help="neither read nor write the results store")


def open_store(args: argparse.Namespace) -> Store | None:
    """The store a command's ``--store`` / ``--no-store`` options ask for (None for --no-store)."""
    from kinarow.store import StoreError
    from kinarow.store import open_store as open_

    if getattr(args, "no_store", False):
        return None
    chosen = getattr(args, "store", None)
    try:
        return open_(chosen)
    except StoreError:
        if chosen is not None:
            raise
        return None  # the default store is a convenience: an unwritable cache directory must not stop the work


def stored_result(store: Store, position: Position, *, need_strategy: bool) -> tuple[Result, float] | None:
    """A result the store already holds for ``position`` (with its strategy when asked) and when it was stored."""
    from kinarow.search.solve import Result

    game, key = str(position.game), board_key(position)
    found = store.get_result(game, key)
    if found is None or found.get("value") in (None, "unknown"):
        return None
    strategy = None
    if need_strategy and found["value"] != "draw":
        data = store.get_certificate(STRATEGY_FORMAT, game, key)
        if data is None:
            return None
        strategy = StrategyTree.from_json(data)
        strategy.moves = [position.name(c) for c in position.moves]
    certificate = None
    if found.get("root_proof"):  # knowledge settled the value at the root: show the same proof as the search did
        from kinarow.proofs.matching import FORMAT as MATCHING_FORMAT
        from kinarow.proofs.matching import MatchingProof

        data = store.get_certificate(MATCHING_FORMAT, game, key)
        certificate = MatchingProof.from_json(data) if data is not None else None
    to_move = "first" if position.to_move == 1 else "second"
    note, cuts = found.get("knowledge_note"), found.get("knowledge_cuts")  # None in answers of older versions
    result = Result(game, position.move_text(), found["value"], int(found.get("nodes", 0)),
                    float(found.get("seconds", 0.0)), found.get("best_move"), to_move, strategy=strategy,
                    knowledge=str(found.get("knowledge", "none")), knowledge_note=str(note) if note else None,
                    certificate=certificate, knowledge_cuts=None if cuts is None else int(cuts))
    return result, float(found.get("stored_at", 0.0))


def as_walk(result: Result, walk: bool) -> Result:
    """``result`` with its strategy written as a walk (version 3) when ``walk`` asks for it, else keyed by board."""
    if result.strategy is None:
        return result
    if not walk:
        result.strategy = result.strategy.expanded()
        return result
    from kinarow.game import Game
    from kinarow.proofs.tree import WALK_CELLS

    cells = Game(result.game).cells
    if cells > WALK_CELLS:
        raise KinarowError(f"--walk writes strategies for boards of at most {WALK_CELLS} cells; {result.game} has "
                           f"{cells}; leave --walk out to write the keyed form")
    result.strategy = result.strategy.compacted()
    return result


def save_result(store: Store, position: Position, result: Result) -> None:
    """Keep an exact result (and its strategy certificate) in the store."""
    if position.is_over or result.stopped or result.value == "unknown":
        return
    game, key = str(position.game), board_key(position)
    store.put_result(game, key, {"value": result.value, "best_move": result.best_move, "nodes": result.nodes,
                                 "seconds": round(result.seconds, 6), "moves": result.moves,
                                 "knowledge": result.knowledge, "knowledge_cuts": result.knowledge_cuts,
                                 "knowledge_note": result.knowledge_note,
                                 "root_proof": result.certificate is not None})
    if result.strategy is not None:
        store.put_certificate(STRATEGY_FORMAT, game, key, result.strategy.to_json())
    if result.certificate is not None:
        from kinarow.proofs.matching import FORMAT as MATCHING_FORMAT

        store.put_certificate(MATCHING_FORMAT, game, key, result.certificate.to_json())


def store_sentence(stored_at: float, store: Store) -> str:
    """'Answered at once from the results store ...' for a result that came from the store."""
    date = time.strftime("%Y-%m-%d %H:%M", time.localtime(stored_at)) if stored_at else "earlier"
    return (f"Answered at once from the results store {store.path}: the figures above are from the search of {date}; "
            "--no-store solves again.")


# -- proofs ------------------------------------------------------------------------------
def write_json(path: str, data: dict[str, Any]) -> None:
    """Write a certificate as compact JSON (gzip-compressed when the name ends in ``.gz``)."""
    text = json.dumps(data, separators=(",", ":")) + "\n"
    try:
        if path.endswith(".gz"):
            Path(path).write_bytes(gzip.compress(text.encode("utf-8"), 9))
        else:
            Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise KinarowError(f"cannot write the certificate to '{path}': {error.strerror or error}") from None


def proof_certificate(position: Position, result: Result, store: Store | None,
                      tick: Callable[[int], None] | None = None) -> tuple[dict[str, Any] | None, str]:
    """The certificate for a solved position's value, and a sentence saying what it proves (or why there is none).

    A win is proved by the winner's strategy tree; a draw by a good pairing at
    the position when one exists (it shows the first player cannot win; on the
    empty board of a normal game with one stone a turn, strategy stealing shows
    the second player cannot win either), else by a draw proof of blocking
    trees (:mod:`kinarow.drawproof`). Other values have no certificate yet.
    """
    if result.strategy is not None:
        return result.strategy.to_json(), f"the winning strategy of the {result.strategy.winner} player " \
            f"({result.strategy.described})"
    if result.value == "unknown":
        return None, "the value is unknown, so there is nothing to prove"
    if position.is_over:
        return None, "the game is already over"
    if result.certificate is not None:  # knowledge settled the value at the root (matching sets)
        return result.certificate.to_json(), f"matching sets showing {result.certificate.conclusion()}"
    if result.value != "draw":
        return None, f"no certificate is available yet for a {result.value} win here"
    from kinarow.knowledge import pairing

    game = position.game
    why_not = pairing.applicable(game)
    if why_not is not None:
        return None, f"no certificate is available yet for a draw of {game}: pairings do not apply ({why_not})"
    key = board_key(position)
    data = store.get_certificate(PAIRING_FORMAT, str(game), key) if store is not None else None
    if data is None:
        found = pairing.find(position)
        if found.exists and found.pairing is not None:
            data = found.pairing.to_json()
            if store is not None:
                store.put_certificate(PAIRING_FORMAT, str(game), key, data)
    if data is None:
        return _draw_tree(position, store, key, tick)
    data = {**data, "moves": [position.name(c) for c in position.moves]}
    stealing = not position.moves and game.goal == "normal" and (game.p, game.q) == (1, 1)
    other_half = (
        "; the second player cannot win either, by strategy stealing (an extra stone never hurts), so the draw "
        "is proved" if stealing else "; no certificate for the other half of the draw is available yet"
    )
    return data, f"a good pairing ({len(data['pairs'])} pairs), which proves the first player cannot win{other_half}"


def _draw_tree(position: Position, store: Store | None, key: str,
               tick: Callable[[int], None] | None) -> tuple[dict[str, Any] | None, str]:
    """A draw without a pairing: the blocking tree of each side (or strategy stealing for the second player)."""
    from kinarow.proofs.draw import FORMAT as DRAW_FORMAT
    from kinarow.proofs.draw import HALVES
    from kinarow.search.draw import draw_certificate
    from kinarow.search.solve import Searcher

    game = position.game
    data = store.get_certificate(DRAW_FORMAT, str(game), key) if store is not None else None
    if data is None:
        # the walk asks the solver many questions: a table of 1 GiB on boards where it pays
        searcher = Searcher(game, tt_mb=1024 if game.cells > 20 else None, knowledge="pairing")
        data, _ = draw_certificate(position, searcher, tick=tick)
        if store is not None:
            store.put_certificate(DRAW_FORMAT, str(game), key, data)
    halves = []
    for name in HALVES.values():
        half = data[name]
        halves.append("strategy stealing" if half["method"] == "strategy-stealing"
                      else f"a blocking tree of {len(half['tokens'].split()):,} positions")
    return data, f"a draw proof: the first player cannot win by {halves[0]}, the second by {halves[1]}"


def write_proof(position: Position, result: Result, path: str, store: Store | None,
                tick: Callable[[int], None] | None = None) -> str:
    """Write the certificate for ``result`` to ``path`` if there is one; return one sentence for the user."""
    data, what = proof_certificate(position, result, store, tick)
    if data is None:
        return f"No certificate written to {path}: {what}."
    write_json(path, data)
    return f"Proof written to {path}: {what}. Check it with 'kinarow check {path}'."


# -- pictures ----------------------------------------------------------------------------
def add_picture_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--svg", metavar="FILE", default=None, help="draw the picture as SVG into FILE")
    parser.add_argument("--png", metavar="FILE", default=None, help="draw it as PNG into FILE (needs cairosvg)")


def save_pictures(picture: Callable[[], str], args: argparse.Namespace, out: TextIO) -> None:
    """Write the SVG (and PNG) files the ``--svg`` / ``--png`` options ask for, and say so."""
    if args.svg is None and args.png is None:
        return
    from kinarow import svg

    text = picture()
    for path in (args.svg, args.png):
        if path is not None:
            svg.save(text, path, png=path == args.png)
            print(f"Picture written to {path}.", file=out)


# -- progress ------------------------------------------------------------------------------
@contextmanager
def progress_bar(
    label: str, total: int | None, stream: TextIO, done: int = 0
) -> Iterator[Callable[..., None] | None]:
    """A rich progress bar on ``stream`` when it is a terminal (``None`` otherwise).

    Call it with the count done, and with the total when that is learnt (or changes) on the way.
    """
    if not stream.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("(Ctrl-C stops; finished work is kept)"))
    with Progress(*columns, console=Console(file=stream), transient=True) as bar:
        task = bar.add_task(label, total=total, completed=done)

        def update(count: int, new_total: int | None = None) -> None:
            if new_total is None:
                bar.update(task, completed=count)
            else:
                bar.update(task, completed=count, total=new_total)

        yield update


@contextmanager
def spinner(label: str, stream: TextIO) -> Iterator[None]:
    """A spinner with the elapsed time on ``stream`` while one long step runs (on a terminal only)."""
    if not stream.isatty():
        yield
        return
    from rich.console import Console

    with Console(file=stream).status(f"{label} (Ctrl-C stops)"):
        yield


# -- serve ---------------------------------------------------------------------------------
def cmd_serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.cli import EXIT_OK, UsageError, _positive_float
    from kinarow.web.server import serve

    port = int(args.port)
    if not 0 <= port <= 65535:
        raise UsageError(f"--port must be a port number from 0 to 65535, not {args.port}")
    think = _positive_float("--think", args.think) or 3.0
    serve(host=args.host, port=port, think=think, store=open_store(args), out=out, open_browser=args.open)
    return EXIT_OK


def _port(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--port must be a whole number, not '{text}'") from None


def add_commands(commands: Any) -> None:
    p = commands.add_parser("serve", help="start the local web page: play, pairings, certificates drawn")
    p.add_argument("--port", metavar="P", type=_port, default=8765, help="port to listen on (default 8765; 0 = any)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1, this machine only)")
    p.add_argument("--think", metavar="S", default="3", help="seconds the engine may search per stone (default 3)")
    p.add_argument("--open", action="store_true", help="open the page in the default web browser")
    add_store_options(p)
    p.set_defaults(run=cmd_serve)
