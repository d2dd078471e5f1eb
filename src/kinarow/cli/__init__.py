"""The ``kinarow`` command line: solve, show, play and check k-in-a-row games.

Commands::

    kinarow solve GAME [--moves MOVES] [--json] [--max-nodes N] [--time-limit S] [--tt-mb MB] [--strategy FILE]
                  [--proof FILE] [--store FILE | --no-store]
                  [--knowledge none|pairing|matching]
                  [--workers N] [--cluster ADDRESS] [--jobs N] [--checkpoint FILE]   (cli_scale)
    kinarow settle [CASE ...] [--list] [--workers N] [--cluster ADDRESS] [--time-limit S] [--out DIR] [--json]
                   [--knowledge none|pairing|matching] [--checkpoint PATH]
                   [--draw-proof [--safety-budget NODES]]
    kinarow show GAME [--moves MOVES] [--svg FILE] [--png FILE]
    kinarow play GAME [--first | --second] [--think S] [--tt-mb MB] [--engine STRATEGY]
    kinarow verify STRATEGY GAME [--as first|second] [--json] [--max-positions N] [--out FILE]  (cli_misere)
    kinarow check FILE
    kinarow pairing GAME [--moves MOVES] [--proof FILE] [--svg FILE] [--png FILE] [--json] [--minimise]
    kinarow pairing-table [--max-side N] [--max-conflicts C] [--json] [--store FILE | --no-store] [--workers N]
    kinarow reproduce --list | NAME [--json] [--workers N]
    kinarow serve [--port P] [--host ADDRESS] [--think S] [--open]     (from kinarow.cli_ux)

Topic modules add their own commands: each module named in ``COMMAND_MODULES``
has a function ``add_commands(commands)`` that adds its sub-parsers (import
heavy code inside the command functions, not at module level).

Exit status: 0 on success; 1 when ``check`` rejects a certificate (or cannot
read it); 2 on bad input (a usage error, a bad game string or move, a bad
option value, a game too large for the solver); 130 when Ctrl-C stops a
search or a game.
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import json
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

import kinarow.papers as reproduce
from kinarow import __version__
from kinarow.cli import scale as cli_scale
from kinarow.errors import (
    KinarowError,
    MoveError,
    clear_interrupt,
    interrupted,
    note_interrupt,
    quiet_dropped_interrupt,
)
from kinarow.game import MAKER_BREAKER, Game
from kinarow.knowledge import pairing
from kinarow.position import PLAYER_NAMES, Position, split_turns
from kinarow.search.solve import (
    DEFAULT_KNOWLEDGE,
    DEFAULT_TT_MB,
    KNOWLEDGE_LEVELS,
    MAX_TT_MB,
    Result,
    Searcher,
    solve,
    winner_of,
)

if TYPE_CHECKING:
    from kinarow.store import Store

EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

SYMBOLS = {1: "X", 2: "O"}

PLAY_HELP = """\
Type a move and press Enter:
  a cell name such as b2 (column letter, then row number; a1 is bottom-left);
  under gravity a column letter (d) or number (4) is enough;
  when you place several stones in one turn, give them together (b2 c3 or b2,c3) or one at a time.
Commands: undo (take back your last turn and the engine's reply), help, quit (or Ctrl-D)."""


class UsageError(KinarowError):
    """A command-line option has a value the command cannot use."""


# -- option values ---------------------------------------------------------------------
def _positive_int(option: str, text: str | None) -> int | None:
    if text is None:
        return None
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"{option} must be a positive whole number, not '{text}'") from None
    if value < 1:
        raise UsageError(f"{option} must be a positive whole number, not {value}")
    return value


def _positive_float(option: str, text: str | None, *, upper: float | None = None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{option} must be a positive number, not '{text}'") from None
    if not value > 0 or value == float("inf"):
        raise UsageError(f"{option} must be a positive number, not {text}")
    if upper is not None and value > upper:
        raise UsageError(f"{option} = {text} is too large; the most allowed is {upper:g}")
    return value


# -- words -----------------------------------------------------------------------------
def player_label(player: int) -> str:
    """``Black (X)`` or ``White (O)``."""
    return f"{PLAYER_NAMES[player]} ({SYMBOLS[player]})"


def _result_player(game: Game, result: str) -> int | None:
    """The player a result names (1 or 2), or None for a draw."""
    if result == "draw":
        return None
    return 1 if result in ("first", "maker") else 2


def winner_words(game: Game, result: str) -> str:
    """'the first player (Black)', 'Breaker (White)', ... for a result naming a player."""
    player = 1 if result in ("first", "maker") else 2
    if game.goal == MAKER_BREAKER:
        return f"{'Maker' if player == 1 else 'Breaker'} ({PLAYER_NAMES[player]})"
    return f"the {'first' if player == 1 else 'second'} player ({PLAYER_NAMES[player]})"


def result_sentence(game: Game, result: str) -> str:
    """A finished game's result in words, e.g. 'Black (X) wins.'"""
    player = _result_player(game, result)
    if player is None:
        return "Draw: the board is full and nobody owns a group."
    role = ""
    if game.goal == MAKER_BREAKER:
        role = " as Maker" if player == 1 else " as Breaker"
    return f"{player_label(player)} wins{role}."


def turn_sentence(position: Position) -> str:
    """Whose turn it is and, under a (p, q) rule, how many stones they still place."""
    left = position.stones_left
    stones = "1 stone" if left == 1 else f"{left} stones"
    return f"{player_label(position.to_move)} to move; {stones} left this turn."


# -- progress ------------------------------------------------------------------------
@contextmanager
def _progress(label: str, stream: TextIO, unit: str = "nodes") -> Iterator[Callable[[int], None] | None]:
    """A live counter (of ``unit``) on ``stream`` when it is a terminal; ``None`` otherwise."""
    if not stream.isatty():
        yield None
        return
    from rich.console import Console

    console = Console(file=stream)
    start = time.perf_counter()
    with console.status(f"{label}: starting") as status:

        def tick(nodes: int) -> None:
            status.update(f"{label}: {nodes:,} {unit}, {time.perf_counter() - start:.1f} s (Ctrl-C stops)")

        yield tick


# -- solve -----------------------------------------------------------------------------
def cmd_solve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.status and not args.checkpoint:
        raise UsageError("--status lists the finished jobs of a checkpoint; give it with --checkpoint FILE")
    if cli_scale.wants_parallel(args):  # --workers N > 1, --cluster or --checkpoint: frontier jobs
        return cli_scale.cmd_solve_parallel(args, out, err)
    from kinarow.cli import ux as cli_ux

    max_nodes = _positive_int("--max-nodes", args.max_nodes)
    time_limit = _positive_float("--time-limit", args.time_limit)
    tt_mb = _positive_float("--tt-mb", args.tt_mb, upper=MAX_TT_MB)
    position = Game(args.game).position(args.moves)
    want_strategy = args.strategy is not None or args.proof is not None
    store = cli_ux.open_store(args)
    stored = cli_ux.stored_result(store, position, need_strategy=want_strategy) if store else None
    if stored is not None:
        result = stored[0]
    else:
        with _progress(f"solving {position.game}", err) as tick:
            result = solve(
                position,
                max_nodes=max_nodes,
                time_limit=time_limit,
                tt_mb=tt_mb,
                strategy=want_strategy,
                walk=args.walk,
                on_tick=tick,
                knowledge=args.knowledge,
            )
        if store is not None:
            cli_ux.save_result(store, position, result)
    result, note, proof_note = _write_certificates(args, position, result, store, err)
    if args.json:
        data = {**result.to_dict(), **_file_fields(args, result, proof_note)}
        data["from_store"] = stored is not None
        print(json.dumps(data), file=out)
        if note and result.strategy is None:
            print(note, file=err)
    else:
        _print_result(position, result, out)
        for line in (note, proof_note, cli_ux.store_sentence(stored[1], store) if stored and store else None):
            if line:
                print(line, file=out)
    if result.stopped == "interrupted":
        print(f"{interrupted()}: the search stopped before it had an answer.", file=err)
        return EXIT_INTERRUPTED
    return EXIT_OK


def _write_certificates(args: argparse.Namespace, position: Position, result: Result, store: Store | None,
                        err: TextIO) -> tuple[Result, str | None, str | None]:
    """``solve``'s ``--walk``, ``--strategy FILE`` and ``--proof FILE`` (one process or jobs): the result (its
    strategy a walk when asked) and the sentences saying what was written to each file."""
    from kinarow.cli import ux as cli_ux

    result = cli_ux.as_walk(result, args.walk)
    note = _write_strategy(result, args.strategy) if args.strategy is not None else None
    proof_note = None
    if args.proof is not None:
        with _progress("writing the certificate", err) as tick:
            proof_note = cli_ux.write_proof(position, result, args.proof, store, tick)
    return result, note, proof_note


def _file_fields(args: argparse.Namespace, result: Result, proof_note: str | None) -> dict[str, Any]:
    """The JSON fields of ``solve --json`` that say which certificate files were written."""
    data: dict[str, Any] = {}
    if args.strategy is not None:
        data["strategy_file"] = args.strategy if result.strategy is not None else None
        data["strategy_positions"] = result.strategy.size if result.strategy is not None else None
    if args.proof is not None:
        data["proof_file"] = args.proof if proof_note and proof_note.startswith("Proof written") else None
    return data


def _print_result(position: Position, result: Result, out: TextIO) -> None:
    game = position.game
    if position.is_over:
        print(f"The game is already over: {result_sentence(game, str(position.result))}", file=out)
    else:
        print(result.describe(), file=out)
    rows: list[tuple[str, str]] = [("game", result.game)]
    if result.moves:
        rows.append(("after", result.moves))
    if not position.is_over:
        rows.append(("to move", player_label(position.to_move)))
        if result.best_move is not None:
            rows.append(("best move", result.best_move))
    if result.stopped:
        rows.append(("stopped", f"{result.stopped}"))
    if not result.stopped:
        knowledge = result.knowledge
        if result.knowledge_note:
            knowledge += f" ({result.knowledge_note})"
        elif result.knowledge != "none" and result.knowledge_cuts is not None:
            knowledge += f", {result.knowledge_cuts:,} cut{'' if result.knowledge_cuts == 1 else 's'}"
        rows.append(("knowledge", knowledge))
    if result.certificate is not None:
        rows.append(("proof", f"{result.certificate.conclusion()}, by matching sets (no search)"))
    rows += [
        ("nodes", f"{result.nodes:,}"),
        ("seconds", f"{result.seconds:.3f}"),
        ("nodes/s", f"{result.nodes_per_second:,.0f}"),
    ]
    width = max(len(key) for key, _ in rows) + 1
    for key, value in rows:
        print(f"{key + ':':<{width}} {value}", file=out)


def _write_strategy(result: Result, path: str) -> str:
    """Write the winner's strategy to ``path``; return a sentence saying what happened."""
    if result.strategy is not None:
        from kinarow.cli import ux as cli_ux

        cli_ux.write_json(path, result.strategy.to_json())  # gzip-compressed when the name ends in .gz
        winner = winner_words(Game(result.game), result.strategy.winner)
        return f"Winning strategy of {winner} written to {path} ({result.strategy.described})."
    if result.value == "draw":
        return f"No strategy written to {path}: the game is a draw, so neither player has a winning strategy."
    if result.value == "unknown":
        return f"No strategy written to {path}: the value is unknown."
    return f"No strategy written to {path}: the game is already over."


# -- show ------------------------------------------------------------------------------
def cmd_show(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    position = Game(args.game).position(args.moves)
    print(f"game: {position.game}", file=out)
    if position.moves:
        print(f"moves: {position.move_text()}", file=out)
    print(position.text(), file=out)
    if position.is_over:
        print(f"Game over: {result_sentence(position.game, str(position.result))}", file=out)
    else:
        print(turn_sentence(position), file=out)
    from kinarow import svg
    from kinarow.cli import ux as cli_ux

    cli_ux.save_pictures(lambda: svg.board(position, title=str(position.game)), args, out)
    return EXIT_OK


# -- play ------------------------------------------------------------------------------
def cmd_play(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    tt_mb = _positive_float("--tt-mb", args.tt_mb, upper=MAX_TT_MB)
    think = _positive_float("--think", args.think) or 10.0
    game = Game(args.game)
    human = 2 if args.second else 1
    strategy = None
    if args.engine is not None:
        from kinarow.strategies import get

        strategy = get(args.engine)
        wanted = None if not (args.first or args.second) else 3 - human
        human = 3 - strategy.check_applies(game, wanted)
    searcher = Searcher(game, tt_mb=tt_mb) if strategy is None else None
    engine = 3 - human
    position = game.start()
    by = f" playing the {strategy.name} strategy" if strategy is not None else ""
    print(
        f"{game}: you are {player_label(human)}, kinarow is {player_label(engine)}{by}. Type 'help' for help.",
        file=out,
    )
    print(position.text(), file=out)
    while not position.is_over:
        if position.to_move == engine and strategy is not None:
            cell = strategy.move(position)
            how = f"by {strategy.name}"
            if cell is None:
                cell = position.legal_moves()[0]
                how = f"({strategy.name} prescribes nothing here, so the leftmost legal move)"
            position.play(cell)
            name = position.name(cell)
            print(f"kinarow plays column {name.rstrip('0123456789')} ({name}) {how}.", file=out)
            print(position.text(), file=out)
            continue
        if position.to_move == engine and searcher is not None:
            if not _engine_turn(position, searcher, engine, out, think):
                print("Interrupted: the engine's search was stopped; the game ends here.", file=err)
                return EXIT_INTERRUPTED
            print(position.text(), file=out)
            continue
        outcome = _human_input(position, human, out)
        if outcome == "quit":
            print("Game abandoned.", file=out)
            return EXIT_OK
        if outcome == "moved":
            print(position.text(), file=out)
    winner = _result_player(game, str(position.result))
    verdict = "" if winner is None else (" You win!" if winner == human else " kinarow wins.")
    print(f"Game over: {result_sentence(game, str(position.result))}{verdict}", file=out)
    return EXIT_OK


def _engine_turn(position: Position, searcher: Searcher, engine: int, out: TextIO, think: float) -> bool:
    """Play the engine's whole turn; False if its search was interrupted."""
    game = position.game
    placed: list[str] = []
    expectation: str | None = "draw"
    while not position.is_over and position.to_move == engine:
        try:
            value, cell = searcher.choose_move(position, think)
        except KeyboardInterrupt:
            return False
        expectation = None if value is None else winner_of(game, position.to_move, value)
        position.play(cell)
        name = position.name(cell)
        placed.append(f"column {name.rstrip('0123456789')} ({name})" if game.gravity else name)
    if expectation is None:
        outlook = f"the position is not solved within {think:g} s, so it plays a move that avoids every loss it saw"
    elif expectation == "draw":
        outlook = "it expects a draw"
    elif _result_player(game, expectation) == engine:
        outlook = "it expects to win"
    else:
        outlook = "it expects to lose against best play"
    print(f"kinarow plays {', '.join(placed)}; {outlook}.", file=out)
    return True


def _human_input(position: Position, human: int, out: TextIO) -> Literal["moved", "unchanged", "quit"]:
    """Read one line from the human and act on it; say whether the board changed or the human quit."""
    left = position.stones_left
    prompt = f"Your move as {player_label(human)}" + (f", {left} stones left this turn" if left > 1 else "") + ": "
    try:
        line = input(prompt)
    except EOFError:
        print(file=out)
        return "quit"
    command = line.strip().lower()
    if command in ("quit", "exit", "q"):
        return "quit"
    if command in ("help", "h", "?"):
        print(PLAY_HELP, file=out)
        return "unchanged"
    if command == "undo":
        return "moved" if _undo_exchange(position, human, out) else "unchanged"
    if not command:
        return "unchanged"
    tokens = [token for turn in split_turns(command) for token in turn]
    try:
        if not tokens:
            raise MoveError(f"'{line.strip()}' names no move; type a cell such as b2, or 'help'")
        if len(tokens) > left:
            stones = "1 stone" if left == 1 else f"{left} stones"
            raise MoveError(f"you have {stones} left this turn but gave {len(tokens)} moves")
        start = position.stones
        try:
            for token in tokens:
                position.play(position.parse_move(token))
        except KinarowError:
            while position.stones > start:
                position.undo()
            raise
    except KinarowError as error:
        print(f"{error}; try again.", file=out)
        return "unchanged"
    return "moved"


def _undo_exchange(position: Position, human: int, out: TextIO) -> bool:
    """Take back the engine's last turn and the human's turn before it."""
    if not any(position.board[c] == human for c in position.moves):
        print("There is no move of yours to take back.", file=out)
        return False
    while position.moves and position.board[position.moves[-1]] != human:
        position.undo()
    while position.moves and position.board[position.moves[-1]] == human:
        position.undo()
    print("Took back your last turn and the reply.", file=out)
    return True


# -- check -----------------------------------------------------------------------------
def cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.proofs import check_text

    path = args.file
    try:
        raw = Path(path).read_bytes()
        text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8")  # .json or .json.gz
    except (OSError, UnicodeDecodeError, EOFError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        print(f"kinarow: error: cannot read '{path}': {reason}", file=err)
        return EXIT_REJECTED
    try:
        with _progress(f"checking {path}", err, "positions proven") as tick:
            verdict = check_text(text, str(Path(path).parent), compiled=args.compiled, on_tick=tick)
    except KeyboardInterrupt:
        print(f"{interrupted()}: the check stopped before it had a verdict.", file=err)
        return EXIT_INTERRUPTED
    if not verdict.usable:
        print(f"kinarow: error: '{path}' is not a usable certificate: {verdict.reason}", file=err)
        return EXIT_REJECTED
    print(f"{'VALID' if verdict.ok else 'REJECTED'}: {verdict.reason}.", file=out)
    return EXIT_OK if verdict.ok else EXIT_REJECTED


def cmd_pairing(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow import svg
    from kinarow.cli import ux as cli_ux

    budget = _positive_int("--max-conflicts", args.max_conflicts)
    with cli_ux.spinner(f"deciding whether {args.game} has a good pairing", err):
        result = pairing.find(args.game, moves=args.moves, minimise=args.minimise, max_conflicts=budget)
    if args.out and result.pairing is not None:
        Path(args.out).write_text(json.dumps(result.pairing.to_json()) + "\n", encoding="utf-8")
    position = Game(args.game).position(args.moves)
    cells = [tuple(map(position.geometry.parse_cell, p)) for p in (result.pairing.pairs if result.pairing else [])]
    title = f"{result.game}: {'a good pairing' if result.exists else 'no good pairing'}"
    picture = lambda: svg.board(position, pairs=cells, title=title)  # noqa: E731
    if args.json:
        print(json.dumps(result.to_dict()), file=out)
        cli_ux.save_pictures(picture, args, err)
        return EXIT_OK
    after = f" after {result.moves}" if result.moves else ""
    if result.exists and result.pairing is not None:
        print(f"A good pairing exists for {result.game}{after}: the first player cannot win.", file=out)
        pairs = " ".join(f"{a}-{b}" for a, b in result.pairing.pairs)
        print(f"pairs ({len(result.pairing.pairs)}): {pairs}", file=out)
        print(f"unpaired:  {' '.join(result.unpaired) or '(none)'}", file=out)
        print(f"found by:  {result.method}", file=out)
    elif result.exists is None:
        print(f"Not settled for {result.game}{after}: {result.method}; try a larger --max-conflicts.", file=out)
    elif result.proved_by in (pairing.BY_THEOREM_10, pairing.BY_PROPOSITION_1):
        print(f"No good pairing exists for {result.game}{after}: {result.method}.", file=out)
    else:
        print(f"No good pairing exists for {result.game}{after} ({result.method}).", file=out)
    print(f"live groups: {result.live_groups}", file=out)
    print(f"seconds:   {result.seconds:.3f}", file=out)
    if args.out and result.pairing is not None:
        print(f"Pairing certificate written to {args.out}; check it with 'kinarow check {args.out}'.", file=out)
    elif args.out:
        print(f"No certificate written to {args.out}: there is no good pairing to write.", file=out)
    cli_ux.save_pictures(picture, args, out)
    return EXIT_OK


def cmd_pairing_table(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    side = _positive_int("--max-side", args.max_side) or 12
    budget = _positive_int("--max-conflicts", args.max_conflicts) or 1_000_000
    workers = _positive_int("--workers", args.workers) or 1
    from kinarow.cli import ux as cli_ux

    store = cli_ux.open_store(args)
    job = f"pairing-table/v2/max-conflicts={budget}"  # v2: rows with the bounds' columns
    boards = pairing.table_boards(side)
    saved = [pairing.TableRow(**row) for row in store.job_rows(job).values()
             if set(row) == set(pairing.TableRow.__dataclass_fields__)] if store else []
    done = {(r.m, r.n, r.k): r for r in saved if (r.m, r.n, r.k) in set(boards)}
    finished = [len(done)]
    with cli_ux.progress_bar("pairing table", len(boards), err, len(done)) as update:

        def on_row(row: pairing.TableRow) -> None:
            if store is not None:
                store.put_job_row(job, f"{row.m}x{row.n}k{row.k}", vars(row))
            finished[0] += 1
            if update is not None:
                update(finished[0])

        try:
            rows = pairing.existence_table(side, budget, done=done, on_row=on_row, workers=workers)
        except KeyboardInterrupt:
            kept = f"the finished rows are in the results store {store.path}; run the same command again to resume" \
                if store else "nothing was kept (--no-store)"
            print(f"{interrupted()} after {finished[0]} of {len(boards)} boards: {kept}.", file=err)
            return EXIT_INTERRUPTED
    if done and store is not None:
        print(f"{len(done)} of {len(boards)} rows came from the results store {store.path}; "
              f"{len(boards) - len(done)} were computed now.", file=err)
    if args.json:
        print(json.dumps([vars(r) for r in rows]), file=out)
    else:
        command = f"kinarow pairing-table --max-side {side} --max-conflicts {budget}"
        print(pairing.table_markdown(rows, command), file=out)
    return EXIT_OK


# -- reproduce -------------------------------------------------------------------------
def cmd_reproduce(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    workers = _positive_int("--workers", args.workers) or 1
    if args.list or args.name is None:
        if not reproduce.TARGETS:
            print("No reproduction targets yet.", file=out)
        for t in reproduce.TARGETS:
            print(f"{t.name:<24} {t.paper}: {t.figures}", file=out)
        return EXIT_OK
    options = {}
    if workers > 1 and reproduce.target(args.name).takes("workers"):
        options["workers"] = workers
    elif workers > 1:
        print(f"'{args.name}' runs in one process; --workers is not used by this target.", file=err)
    report = reproduce.run(args.name, **options)
    if args.json:
        print(json.dumps(report.to_dict()), file=out)
    else:
        print(report.text.rstrip(), file=out)
        if report.agrees:
            print("Every figure agrees with the paper.", file=out)
        else:
            print("Differences from the paper:", file=out)
            for line in report.differences:
                print(f"  - {line}", file=out)
    return EXIT_OK


# -- entry point -------------------------------------------------------------------------
# Modules that add commands of their own (see the module docstring); one per line.
COMMAND_MODULES: tuple[str, ...] = (
    "kinarow.cli.ux",
    "kinarow.cli.misere",
    "kinarow.cli.matching",
    "kinarow.cli.infinite",
    "kinarow.cli.scale",
)


def build_parser() -> argparse.ArgumentParser:
    from kinarow.cli import ux as cli_ux

    parser = argparse.ArgumentParser(
        prog="kinarow",
        description="Play, solve and prove k-in-a-row games (m,n,k-games, Connect-k, misere, Maker-Breaker).",
        epilog="A GAME is MxNkK[pPqQ][:flag,...], e.g. 3x3k3, 7x6k4:gravity, 6x6k4p2q1; "
        "flags: gravity, misere, maker-breaker, torus, cylinder, hex.",
    )
    parser.add_argument("--version", action="version", version=f"kinarow {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    tt_help = f"transposition table size in MiB (default: sized to the board, at most {DEFAULT_TT_MB})"
    moves_help = "moves played before, e.g. 'b2 a1' or '1. b2 ... a1' (under gravity column letters: 'd d c')"

    p = commands.add_parser("solve", help="solve a game or position with perfect play")
    p.add_argument("game", metavar="GAME", help="game string, e.g. 4x4k4 or 5x4k4:gravity")
    p.add_argument("--moves", default=None, help=moves_help)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument("--max-nodes", metavar="N", default=None, help="stop after about N nodes (value 'unknown')")
    p.add_argument("--time-limit", metavar="S", default=None, help="stop after S seconds (value 'unknown')")
    p.add_argument("--tt-mb", metavar="MB", default=None, help=tt_help)
    p.add_argument("--strategy", metavar="FILE", default=None, help="write the winner's strategy certificate to FILE")
    p.add_argument("--walk", action="store_true",
                   help="write a win's strategy (--strategy, --proof) as a walk: the moves in replay order without "
                   "board keys, often a hundred times smaller (format version 3; boards of at most 64 cells)")
    p.add_argument("--proof", "--certificate", metavar="FILE", default=None, dest="proof",
                   help="write the certificate of the value to FILE (a win: strategy; a draw settled by knowledge: "
                   "matching sets; another draw: a pairing when one exists)")
    cli_ux.add_store_options(p)
    p.add_argument(
        "--knowledge", choices=KNOWLEDGE_LEVELS, default=DEFAULT_KNOWLEDGE,
        help="cut nodes where a pairing or a matching set proves a player cannot win "
        f"(free placement, one stone a turn, normal or Maker-Breaker goal; default {DEFAULT_KNOWLEDGE})",
    )
    cli_scale.add_solve_options(p)
    p.set_defaults(run=cmd_solve)

    p = commands.add_parser("show", help="print the board after some moves")
    p.add_argument("game", metavar="GAME", help="game string, e.g. 3x3k3")
    p.add_argument("--moves", default=None, help=moves_help)
    cli_ux.add_picture_options(p)
    p.set_defaults(run=cmd_show)

    p = commands.add_parser("play", help="play against the solver in the terminal")
    p.add_argument("game", metavar="GAME", help="game string, e.g. 3x3k3 or 4x4k3:gravity")
    side = p.add_mutually_exclusive_group()
    side.add_argument("--first", action="store_true", help="you play Black and move first (the default)")
    side.add_argument("--second", action="store_true", help="you play White; the engine moves first")
    p.add_argument(
        "--think", metavar="S", default="10", help="seconds the engine may search per stone (default 10); "
        "when a position is not solved in time it plays a move that avoids every loss it saw"
    )
    p.add_argument("--tt-mb", metavar="MB", default=None, help=tt_help)
    p.add_argument(
        "--engine", metavar="STRATEGY", default=None,
        help="play against a strategy (e.g. take-even) instead of the solver; see 'kinarow verify'",
    )
    p.set_defaults(run=cmd_play)

    p = commands.add_parser("pairing", help="find a good Hales-Jewett pairing (SAT), or prove none exists")
    p.add_argument("game", metavar="GAME", help="game string, e.g. 5x5k5 or 7x7k6")
    p.add_argument("--moves", default=None, help=moves_help)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--minimise", action="store_true", help="use as few pairs as possible")
    p.add_argument("--out", "--proof", metavar="FILE", dest="out", default=None,
                   help="write the pairing certificate (JSON) to FILE")
    cli_ux.add_picture_options(p)
    p.add_argument("--max-conflicts", metavar="C", default=None, help="SAT conflicts before giving up (default: none)")
    p.set_defaults(run=cmd_pairing)

    p = commands.add_parser("pairing-table", help="which empty m x n boards have a good pairing, beside the bound")
    p.add_argument("--max-side", metavar="N", default="12", help="largest m and n (default 12)")
    p.add_argument("--max-conflicts", metavar="C", default="1000000", help="SAT conflicts per board before 'open'")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    cli_ux.add_store_options(p)
    p.add_argument("--workers", metavar="N", default=None, help="compute rows in N processes (default 1)")
    p.set_defaults(run=cmd_pairing_table)

    p = commands.add_parser("check", help="verify a certificate (any kind kinarow writes, JSON) with the rules only")
    p.add_argument("file", metavar="FILE",
                   help="certificate written by 'solve --proof', 'pairing --proof', ... (.json or .json.gz)")
    p.add_argument("--compiled", action="store_true",
                   help="replay a strategy with the compiled (numba) walk of the same rules, about 80x faster; "
                   "the default walk is plain Python and imports no numba")
    p.set_defaults(run=cmd_check)

    p = commands.add_parser("reproduce", help="reproduce a published table or figure and compare with the paper")
    p.add_argument("name", metavar="NAME", nargs="?", default=None, help="the target; --list names them all")
    p.add_argument("--list", action="store_true", help="list the targets with their papers")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--workers", metavar="N", default=None,
                   help="settle a table's cells in N processes (default 1); at most the idle cores, "
                   "since the solver's budget is seconds per board")
    p.set_defaults(run=cmd_reproduce)

    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).add_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    out, err = sys.stdout, sys.stderr
    clear_interrupt()
    # Ctrl-C, and SIGTERM (a kill, a batch system's stop), stop a command the same way: long work saves what
    # it finished and ends its workers. An ignored signal stays ignored, a handler someone else set stays
    # theirs, and handlers can only be set from the main thread.
    taken: dict[signal.Signals, object] = {}
    if threading.current_thread() is threading.main_thread():
        for number, default in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, signal.SIG_DFL)):
            if signal.getsignal(number) is default:
                taken[number] = default
                signal.signal(number, note_interrupt)
    hook = sys.unraisablehook
    if taken:
        sys.unraisablehook = quiet_dropped_interrupt
    try:
        return _run_command(args, out, err)
    finally:
        sys.unraisablehook = hook
        for number, default in taken.items():
            signal.signal(number, default)  # type: ignore[arg-type]


def _run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run the parsed command; errors become one sentence and an exit status."""
    try:
        code = int(args.run(args, out, err))
        out.flush()  # inside the try: a closed pipe is reported here, not at exit
        return code
    except KinarowError as error:
        message = " ".join(str(error).split())
        print(f"kinarow: error: {message}", file=err)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"\n{interrupted()}.", file=err)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (e.g. '| head'): stop quietly, as other tools do
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
