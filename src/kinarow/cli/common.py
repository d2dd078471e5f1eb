"""What every command of the command line shares: errors and exit codes, option values, sentences, progress,
the results store's options, certificate files and pictures.

Command modules import from here; this module imports none of them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from kinarow.errors import KinarowError, shown
from kinarow.game import MAKER_BREAKER, Game
from kinarow.position import PLAYER_NAMES, Position
from kinarow.values import Value

if TYPE_CHECKING:
    from kinarow.engine.compiling import Family
    from kinarow.search.result import Result
    from kinarow.store import Store

EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

SYMBOLS = {1: "X", 2: "O"}

MOVES_HELP = "moves played before, e.g. 'b2 a1' or '1. b2 ... a1' (under gravity column letters: 'd d c')"


def tt_help() -> str:
    """The help of a ``--tt-mb`` option."""
    from kinarow.limits import DEFAULT_TT_MB

    return f"transposition table size in MiB (default: sized to the board, at most {DEFAULT_TT_MB})"


class UsageError(KinarowError):
    """A command-line option has a value the command cannot use."""


# -- option values ---------------------------------------------------------------------
#: the largest whole number an option takes (``--max-nodes``: the search counts nodes in 64 bits)
MAX_OPTION_INT = 10**18
_INT_RE = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FLOAT_RE = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)


def positive_int(option: str, text: str | None, *, upper: int = MAX_OPTION_INT) -> int | None:
    """The whole number ``text`` gives for ``option`` (None when not given); a UsageError unless it is 1 to
    ``upper`` (digits 0-9 only)."""
    if text is None:
        return None
    token = text.strip()
    most = "10**18" if upper == MAX_OPTION_INT else f"{upper:,}"
    if not _INT_RE.fullmatch(token):
        raise UsageError(f"{option} must be a positive whole number, not {shown(text)}")
    digits = token.lstrip("+-").lstrip("0")
    if token.startswith("-") or not digits:
        raise UsageError(f"{option} must be a positive whole number, not {shown(token)}")
    if len(digits) > len(str(upper)) or int(digits) > upper:
        raise UsageError(f"{option} = {shown(token)} is too large; the most allowed is {most}")
    return int(digits)


def positive_float(option: str, text: str | None, *, upper: float | None = None) -> float | None:
    """The number ``text`` gives for ``option`` (None when not given); a UsageError unless it is in (0, upper]
    (a decimal number in the digits 0-9: not nan, inf or 1_0)."""
    if text is None:
        return None
    token = text.strip()
    if not _FLOAT_RE.fullmatch(token):
        raise UsageError(f"{option} must be a positive number, not {shown(text)}")
    value = float(token)
    if not value > 0 or value == float("inf"):
        raise UsageError(f"{option} must be a positive number, not {shown(token)}")
    if upper is not None and value > upper:
        raise UsageError(f"{option} = {shown(token)} is too large; the most allowed is {upper:g}")
    return value


def table_option(text: str | None) -> float | None:
    """The MiB of a one-process search's ``--tt-mb`` (None when not given), refused in one sentence where this
    machine's available memory cannot hold it (:func:`kinarow.limits.check_memory`; the search's threads share
    the one table)."""
    from kinarow.limits import MAX_TT_MB, check_memory

    asked = positive_float("--tt-mb", text, upper=MAX_TT_MB)
    if asked is not None:
        check_memory(1, asked, "--tt-mb")
    return asked


# -- words -----------------------------------------------------------------------------
def player_label(player: int) -> str:
    """``Black (X)`` or ``White (O)``."""
    return f"{PLAYER_NAMES[player]} ({SYMBOLS[player]})"


def result_player(game: Game, result: Value) -> int | None:
    """The player a result names (1 or 2), or None for a draw."""
    return result.stone


def winner_words(game: Game, result: Value) -> str:
    """'the first player (Black)', 'Breaker (White)', ... for a result naming a player (:attr:`Value.winner_words`)."""
    return Value.win(game.goal, result.stone or 2).winner_words


def result_sentence(game: Game, result: Value) -> str:
    """A finished game's result in words, e.g. 'Black (X) wins.'"""
    player = result_player(game, result)
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
    import os

    from kinarow.store import ENV_VAR, StoreError
    from kinarow.store import open_store as open_

    if getattr(args, "no_store", False):
        return None
    chosen = getattr(args, "store", None)
    try:
        return open_(chosen)
    except StoreError as error:
        if chosen is not None:
            raise
        if os.environ.get(ENV_VAR):  # a store the user named, like --store: its problem is said, not skipped
            raise StoreError(f"{error} (named by ${ENV_VAR}; unset it, or give --store FILE or --no-store)") from None
        return None  # the default store is a convenience: an unwritable cache directory must not stop the work


def store_sentence(result: Result, store: Store) -> str:
    """'Answered at once from the results store ...' for a result that came from the store."""
    stored_at = result.stored_at or 0.0
    date = time.strftime("%Y-%m-%d %H:%M", time.localtime(stored_at)) if stored_at else "earlier"
    return (f"Answered at once from the results store {store.path}: the figures above are from the search of {date}; "
            "--no-store solves again.")


# -- output files ----------------------------------------------------------------------------------
def check_outputs(*options: tuple[str, str | None], inputs: Iterable[tuple[str, str | os.PathLike[str] | None]] = ()
                  ) -> None:
    """Before any work: a UsageError of one sentence unless each ``(option, path)`` given names a file that can be
    written (not a folder, in a folder that exists, writable), and no two name the same file, nor one of the
    command's ``inputs`` (``(option, path)`` of the files it reads or keeps: a checkpoint, the results store, a
    table, a guide; :func:`input_files`). Every command that writes files calls this first, so a long run never
    loses its result to a bad output path, nor its checkpoint to its own certificate."""
    given = [(option, path) for option, path in options if path is not None and path.strip()]
    read = [(option, os.fspath(path)) for option, path in inputs if path is not None and os.fspath(path).strip()]
    for i, (option, written) in enumerate(given):
        for other, other_path in [*given[:i], *read]:
            if same_file(written, other_path):
                kind = "which the command reads" if (other, other_path) in read else "which the command also writes"
                raise UsageError(f"{option} '{written}' is the same file as {other} '{other_path}', {kind}; give "
                                 f"{option} another file")
    for option, path in options:
        if path is None:
            continue
        target = Path(path)
        if not path.strip():
            raise UsageError(f"{option} needs the name of a file to write, not an empty one")
        if target.is_dir():
            raise UsageError(f"{option} '{path}' is a folder, not a file; give the name of a file to write")
        folder = target.parent
        if not folder.is_dir():
            raise UsageError(f"{option} '{path}' cannot be written: its folder '{folder}' does not exist")
        _probe(option, path, target)


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether the paths ``a`` and ``b`` name one file: the same file when both exist (links and other names of
    it included), else the same path once links and ``..`` are resolved."""
    with suppress(OSError):
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
    return os.path.realpath(a) == os.path.realpath(b)


def input_files(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """The files a command reads or keeps, named by its options (those it has of ``--checkpoint``, ``--store``
    (and ``$KINAROW_STORE``, unless ``--no-store``), ``--table`` (and the walks kept beside it), ``--guide`` and
    ``--load``), for :func:`check_outputs`: no output may be one of them."""
    found: list[tuple[str, str | None]] = []
    for option in ("checkpoint", "table", "guide", "load"):
        path = getattr(args, option, None)
        if isinstance(path, str):
            found.append((f"--{option}", path))
            if option == "table":
                found += [("--table", path + ".walk.npz"), ("--table", path + ".shared.npz")]
    if hasattr(args, "store") and not getattr(args, "no_store", False):
        from kinarow.store import ENV_VAR

        store = args.store or os.environ.get(ENV_VAR) or None
        if store:
            found.append(("--store" if args.store else f"${ENV_VAR}", os.path.expanduser(store)))
    return found


def check_output_folder(option: str, path: str | None) -> None:
    """Before any work: a UsageError of one sentence unless ``path`` is a folder files can be written in (or one
    that can be made: a writable folder above it exists)."""
    if path is None:
        return
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise UsageError(f"{option} {path} is a file; give a folder for the certificates and logs")
    existing = target
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{option} '{path}' cannot be made: '{existing}' is not a folder")
    import tempfile

    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as error:
        raise UsageError(f"{option} '{path}' cannot be written: {error.strerror or error} in '{existing}'") from None


def _probe(option: str, path: str, target: Path) -> None:
    """Open ``target`` for writing without changing it (append to a file that exists; create and remove one that
    does not): the only sure test that it can be written."""
    import os

    existed = target.exists()
    try:
        with open(target, "ab"):
            pass
    except OSError as error:
        raise UsageError(f"{option} '{path}' cannot be written: {error.strerror or error}") from None
    if not existed:
        with suppress(OSError):
            os.unlink(target)


# -- output files, written whole or not at all ------------------------------------------------------------
#: bytes handed to the operating system at a time by :func:`write_file`
WRITE_CHUNK = 1 << 20


def write_file(path: str | os.PathLike[str], data: bytes, what: str = "the file") -> None:
    """Write ``data`` to ``path`` atomically: into a temporary file in the same folder, flushed to the disk, then
    renamed over ``path`` (:func:`os.replace`), so that a full disk or a crash leaves the file that was there
    before, whole, and no truncated one. On failure the temporary file is removed and a KinarowError of one
    sentence names ``what`` could not be written and says the old file is kept.

    ``path`` names a link: the file it points to is replaced. A path that is not a regular file (``/dev/stdout``,
    a pipe) is written in place, as there is nothing to keep."""
    name = os.fspath(path)
    target = os.path.realpath(name)
    try:
        mode = os.stat(target).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        try:
            with open(target, "wb") as handle:
                handle.write(data)
        except OSError as error:
            raise KinarowError(f"cannot write {what} to '{name}': {error.strerror or error}") from None
        return
    folder = os.path.dirname(target) or "."
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".part", dir=folder)
    except OSError as error:
        raise KinarowError(f"cannot write {what} to '{name}': {error.strerror or error}") from None
    try:
        try:
            view = memoryview(data)
            for start in range(0, len(view), WRITE_CHUNK):
                chunk = view[start:start + WRITE_CHUNK]
                while chunk:
                    chunk = chunk[os.write(fd, chunk):]
            os.fchmod(fd, stat.S_IMODE(mode) if mode is not None else 0o666 & ~_umask())
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except BaseException as error:
        with suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            kept = " (the file that was there is kept)" if mode is not None else ""
            raise KinarowError(f"cannot write {what} to '{name}': {error.strerror or error}{kept}") from None
        raise
    with suppress(OSError):  # the rename itself on the disk (a folder cannot be opened on every system)
        folder_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(folder_fd)
        finally:
            os.close(folder_fd)


def _umask() -> int:
    """The process's file-creation mask (read by setting it, and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_text(path: str | os.PathLike[str], text: str, what: str = "the file") -> None:
    """:func:`write_file` of ``text`` as UTF-8 (gzip-compressed when the name ends in ``.gz``)."""
    data = text.encode("utf-8")
    write_file(path, gzip.compress(data, 9) if os.fspath(path).endswith(".gz") else data, what)


# -- certificate files ------------------------------------------------------------------------------
def write_json(path: str, data: Any, what: str = "the certificate") -> None:
    """Write a certificate as compact JSON (gzip-compressed when the name ends in ``.gz``), atomically
    (:func:`write_file`: a failed write keeps the file that was there)."""
    write_text(path, json.dumps(data, separators=(",", ":")) + "\n", what)


# -- pictures ----------------------------------------------------------------------------
def add_picture_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--svg", metavar="FILE", default=None, help="draw the picture as SVG into FILE")
    parser.add_argument("--png", metavar="FILE", default=None, help="draw it as PNG into FILE (needs cairosvg)")


def check_pictures(args: argparse.Namespace) -> None:
    """Before any work: the ``--svg`` / ``--png`` files can be written (:func:`check_outputs`)."""
    check_outputs(("--svg", getattr(args, "svg", None)), ("--png", getattr(args, "png", None)))


def save_pictures(picture: Callable[[], str], args: argparse.Namespace, out: TextIO) -> None:
    """Write the SVG (and PNG) files the ``--svg`` / ``--png`` options ask for, and say so."""
    if args.svg is None and args.png is None:
        return
    text = picture()
    for path in (args.svg, args.png):
        if path is not None:
            write_picture(text, path, png=path == args.png)
            print(f"Picture written to {path}.", file=out)


def write_picture(picture: str, path: str, *, png: bool | None = None) -> None:
    """Write the SVG text ``picture`` to ``path`` atomically (:func:`write_file`): PNG when ``png`` is true (or,
    by default, when the name ends in .png)."""
    from kinarow import svg

    if png is None:
        png = path.lower().endswith(".png")
    write_file(path, svg.to_png(picture) if png else picture.encode("utf-8"), "the picture")


# -- progress ------------------------------------------------------------------------------
#: the live status lines shown now on terminals (:func:`progress_steps`), which a compile notice borrows
_statuses: list[Any] = []


def compile_notices(stream: TextIO) -> Callable[[Family], AbstractContextManager[None]]:
    """The listener the command line gives :func:`kinarow.engine.compiling.listen`: before a kernel family is
    compiled (numba's cache does not hold it yet), one line on ``stream`` saying so; on a terminal a spinner
    with the seconds so far instead (the status line of the command's progress, when one is shown)."""

    def notice(family: Family) -> AbstractContextManager[None]:
        return _compile_notice(family, stream)

    return notice


@contextmanager
def _compile_notice(family: Family, stream: TextIO) -> Iterator[None]:
    line = f"kinarow: {family.sentence()}"
    if not stream.isatty():
        print(line, file=stream, flush=True)
        yield
        return
    import threading

    from rich.console import Console

    borrowed = _statuses[-1] if _statuses else None
    with nullcontext(borrowed) if borrowed is not None else Console(file=stream).status(line) as status:
        before = status.status
        status.update(line)
        done = threading.Event()
        start = time.perf_counter()

        def count() -> None:
            while not done.wait(0.5):
                status.update(f"{line} {time.perf_counter() - start:.0f} s")

        counter = threading.Thread(target=count, name="compile notice", daemon=True)
        counter.start()
        try:
            yield
        finally:
            done.set()
            counter.join()
            if borrowed is not None:
                status.update(before)


@contextmanager
def compiles_said(stream: TextIO, *, kernels: bool = True) -> Iterator[None]:
    """While the block runs, each kernel family compiled for the first time is said on ``stream``
    (:func:`compile_notices`). With ``kernels`` False (``kinarow check``, which runs no search kernel) nothing is
    set up, and nothing of ``engine/`` is loaded."""
    if not kernels:
        yield
        return
    from kinarow.engine.compiling import compile_seconds, listen

    previous = listen(compile_notices(stream))
    _command_starts.append(compile_seconds())
    try:
        yield
    finally:
        _command_starts.pop()
        listen(previous)


#: the process's compile seconds (:func:`kinarow.engine.compiling.compile_seconds`) when each command running began
_command_starts: list[float] = []


def compile_row() -> tuple[str, str] | None:
    """The report's row of the kernels compiled by the command running (None when numba's cache held them all,
    or no command runs): the report's ``seconds`` are the search's, after the compile."""
    if not _command_starts:
        return None
    from kinarow.engine.compiling import compile_seconds

    seconds = compile_seconds() - _command_starts[-1]
    if seconds <= 0:
        return None
    return "compiled", f"{seconds:.1f} s, once (numba's cache keeps the kernels; not in seconds)"


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


#: seconds between the progress lines of a long command whose output is not a terminal (a log)
LOG_SECONDS = 60.0


def log_lines(stream: TextIO, seconds: float = LOG_SECONDS) -> Callable[[str], None]:
    """``say(text)``: write ``text`` and the seconds since now as one line on ``stream``, at most once every
    ``seconds`` (the first after ``seconds``): the progress of long work written to a log."""
    start = time.perf_counter()
    last = [start]

    def say(text: str) -> None:
        now = time.perf_counter()
        if now - last[0] >= seconds:
            last[0] = now
            print(f"{text}, {now - start:,.0f} s", file=stream, flush=True)

    return say


@contextmanager
def progress_steps(stream: TextIO, *steps: tuple[str, str]) -> Iterator[tuple[Callable[[int], None] | None, ...]]:
    """One live counter on ``stream`` for work done in steps: a tick for each ``(label, unit)``, which shows
    that step's count; when ``stream`` is not a terminal, a line a minute (:func:`log_lines`)."""
    if not stream.isatty():
        say = log_lines(stream)

        def logger(label: str, unit: str) -> Callable[[int], None]:
            return lambda count: say(f"{label}: {count:,} {unit}")

        yield tuple(logger(label, unit) for label, unit in steps)
        return
    from rich.console import Console

    console = Console(file=stream)
    start = time.perf_counter()
    with console.status(f"{steps[0][0]}: starting") as status, _borrowable(status):

        def ticker(label: str, unit: str) -> Callable[[int], None]:
            def tick(count: int) -> None:
                status.update(f"{label}: {count:,} {unit}, {time.perf_counter() - start:.1f} s (Ctrl-C stops)")

            return tick

        yield tuple(ticker(label, unit) for label, unit in steps)


@contextmanager
def _borrowable(status: Any) -> Iterator[None]:
    """``status`` is the live status line while the block runs (:func:`compile_notices` borrows it)."""
    _statuses.append(status)
    try:
        yield
    finally:
        _statuses.remove(status)


@contextmanager
def progress(label: str, stream: TextIO, unit: str = "nodes") -> Iterator[Callable[[int], None] | None]:
    """A live counter (of ``unit``) on ``stream`` when it is a terminal; a line a minute otherwise."""
    with progress_steps(stream, (label, unit)) as (tick,):
        yield tick


# -- solve's results -------------------------------------------------------------------------
@contextmanager
def walk_option() -> Iterator[None]:
    """A strategy asked for as a walk on a board too large for one, said in the words of ``--walk``."""
    from kinarow.proofs.tree import WALK_CELLS
    from kinarow.search.certify import WalkTooLargeError

    try:
        yield
    except WalkTooLargeError as error:
        raise KinarowError(f"--walk writes strategies for boards of at most {WALK_CELLS} cells; {error.game} has "
                           f"{error.cells}; leave --walk out to write the keyed form") from None


def write_strategy(result: Result, path: str) -> str:
    """Write the winner's strategy to ``path``; return a sentence saying what happened."""
    if result.strategy is not None:
        write_json(path, result.strategy.to_json())  # gzip-compressed when the name ends in .gz
        winner = winner_words(Game(result.game), result.strategy.winner)
        return f"Winning strategy of {winner} written to {path} ({result.strategy.described})."
    stopped = getattr(result, "strategy_stopped", None)  # a job run: the value proved, its strategy not written
    if stopped:
        return (f"No strategy written to {path}: the value is proved, but writing the strategy stopped ({stopped}); "
                "run the same command again to write it.")
    if result.value == Value.DRAW:
        return f"No strategy written to {path}: the game is a draw, so neither player has a winning strategy."
    if result.value == Value.UNKNOWN:
        return f"No strategy written to {path}: the value is unknown."
    if not isinstance(result.value, Value):
        return f"No strategy written to {path}: the answer ({result.value}) is not a win."
    if result.to_move is None:
        return f"No strategy written to {path}: the game is already over."
    return f"No strategy written to {path}: no strategy came with this answer."


def write_proof(result: Result, path: str) -> str:
    """Write the certificate of ``result`` (its :attr:`proof`) to ``path`` if there is one; one sentence."""
    proof = result.proof
    if proof is None or proof.data is None:
        why = "no certificate was asked for" if proof is None else proof.what
        return f"No certificate written to {path}: {why}."
    write_json(path, proof.data)
    return f"Proof written to {path}: {proof.what}. Check it with 'kinarow check {path}'."


def write_files(args: argparse.Namespace, result: Result) -> tuple[str | None, str | None]:
    """``solve``'s ``--strategy FILE`` and ``--proof FILE`` (one process or jobs): the sentences saying what was
    written to each file."""
    note = write_strategy(result, args.strategy) if args.strategy is not None else None
    proof_note = write_proof(result, args.proof) if args.proof is not None else None
    return note, proof_note


def file_fields(args: argparse.Namespace, result: Result) -> dict[str, Any]:
    """The JSON fields of ``solve --json`` that say which certificate files were written."""
    data: dict[str, Any] = {}
    if args.strategy is not None:
        data["strategy_file"] = args.strategy if result.strategy is not None else None
        data["strategy_positions"] = result.strategy.size if result.strategy is not None else None
    if args.proof is not None:
        data["proof_file"] = args.proof if result.proof is not None and result.proof.exists else None
    return data


def print_result(position: Position, result: Result, out: TextIO) -> None:
    """``solve``'s answer as text: the value in words, then one row per figure."""
    from kinarow.search.alphabeta import KNOWLEDGE_OFF

    game = position.game
    if position.is_over:
        assert position.result is not None
        print(f"The game is already over: {result_sentence(game, position.result)}", file=out)
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
        if result.knowledge_note and result.knowledge_note.startswith(KNOWLEDGE_OFF):  # asked for; does not apply
            knowledge = f"off ({result.knowledge} does not apply: {result.knowledge_note.removeprefix(KNOWLEDGE_OFF)})"
        elif result.knowledge_note:
            knowledge += f" ({result.knowledge_note})"
        elif result.knowledge != "none" and result.knowledge_cuts is not None:
            knowledge += f", {result.knowledge_cuts:,} cut{'' if result.knowledge_cuts == 1 else 's'}"
        rows.append(("knowledge", knowledge))
    if result.search:
        rows.append(("search", result.search + (f", {result.threads} threads" if result.threads > 1 else "")))
    if result.certificate is not None:
        rows.append(("proof", f"{result.certificate.conclusion()}, by {result.certificate.method} (no search)"))
    rows += [
        ("nodes", f"{result.nodes:,}"),
        ("seconds", f"{result.seconds:.3f}"),
        ("nodes/s", f"{result.nodes_per_second:,.0f}"),
    ]
    compiled = compile_row()
    if compiled is not None:
        rows.append(compiled)
    width = max(len(key) for key, _ in rows) + 1
    for key, value in rows:
        print(f"{key + ':':<{width}} {value}", file=out)
