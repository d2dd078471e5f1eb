"""The ``kinarow`` command line: solve, show, play and check k-in-a-row games.

Commands::

    kinarow solve GAME [--moves MOVES] [--json] [--strong] [--max-nodes N] [--time-limit S] [--tt-mb MB]
                  [--strategy FILE] [--proof FILE] [--store FILE | --no-store]
                  [--knowledge none|pairing|matching] [--search auto|proof|alpha-beta] [--table FILE]
                  [--workers N] [--cluster ADDRESS] [--jobs N] [--checkpoint FILE]   (scale)
    kinarow settle [CASE ...] [--list] [--workers N] [--cluster ADDRESS] [--time-limit S] [--out DIR] [--json]
                   [--knowledge none|pairing|matching] [--checkpoint PATH]
                   [--draw-proof [--safety-budget NODES]]
    kinarow analyse GAME [--moves MOVES] [--json] [--time-limit S] [--max-nodes N] [--tt-mb MB]
                    [--svg FILE] [--png FILE]
    kinarow show GAME [--moves MOVES] [--svg FILE] [--png FILE]
    kinarow play GAME [--first | --second] [--think S] [--tt-mb MB] [--engine STRATEGY]
    kinarow verify STRATEGY GAME [--as first|second] [--json] [--max-positions N] [--out FILE]  (misere)
    kinarow check FILE
    kinarow pairing GAME [--moves MOVES] [--proof FILE] [--svg FILE] [--png FILE] [--json] [--minimise]
    kinarow pairing-table [--max-side N] [--max-conflicts C] [--json] [--store FILE | --no-store] [--workers N]
                          [--proofs DIR]
    kinarow reproduce --list | NAME [--json] [--workers N] [--proof DIR]
    kinarow serve [--port P] [--host ADDRESS] [--think S] [--open]
    kinarow book build GAME --depth D [--out FILE] [--checkpoint FILE] [--tt-mb MB] [--threads N]
    kinarow book info FILE

This module is only the entry point. Each command group is a module named in
``COMMAND_MODULES`` with a function ``add_commands(commands)`` that adds its
sub-parsers (import heavy code inside the command functions, not at module
level); what they share (errors, exit codes, option values, sentences,
progress, store and picture options) is public in :mod:`kinarow.cli.common`,
which imports none of them.

Exit status: 0 on success; 1 when ``check`` rejects a certificate (or cannot
read it), or when the output cannot be written (a full disk); 2 on bad input
(a usage error, a bad game string or move, a bad option value, an output
file that cannot be written, a game too large for the solver); 130 when
Ctrl-C stops a search or a game (or the start-up).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys
import threading
from typing import Any, TextIO

from kinarow.cli.common import EXIT_INTERRUPTED, EXIT_OK, EXIT_REJECTED, EXIT_USAGE, compiles_said
from kinarow.errors import (
    START_INTERRUPTED,
    KinarowError,
    clear_interrupt,
    interrupted,
    note_interrupt,
    quiet_dropped_interrupt,
)

__all__ = ["COMMAND_MODULES", "build_parser", "main"]


# -- entry point -------------------------------------------------------------------------
# Modules that add commands of their own (see the module docstring); one per line.
COMMAND_MODULES: tuple[str, ...] = (
    "kinarow.cli.solve",
    "kinarow.cli.analyse",
    "kinarow.cli.play",
    "kinarow.cli.pairing",
    "kinarow.cli.check",
    "kinarow.cli.reproduce",
    "kinarow.cli.serve",
    "kinarow.cli.misere",
    "kinarow.cli.matching",
    "kinarow.cli.infinite",
    "kinarow.cli.scale",
    "kinarow.cli.prove",
    "kinarow.cli.book",
)


class _Version(argparse.Action):
    """``--version``: the installed version, read only when asked (reading the package metadata costs a start
    about 50 ms, which a command that loads no kernel would otherwise pay every time)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        import kinarow

        print(f"kinarow {kinarow.__version__}")  # on standard output, as argparse's own version action
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kinarow",
        description="Play, solve and prove k-in-a-row games (m,n,k-games, Connect-k, misere, Maker-Breaker).",
        epilog="A GAME is MxNkK[pPqQ][:flag,...], e.g. 3x3k3, 7x6k4:gravity, 6x6k4p2q1; "
        "flags: gravity, misere, maker-breaker, exact, torus, cylinder, hex.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).add_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    try:
        parser = build_parser()  # imports every command module
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        print(f"\n{START_INTERRUPTED}", file=sys.stderr)
        return EXIT_INTERRUPTED
    out, err = sys.stdout, sys.stderr
    kept = _printable(out, err)
    clear_interrupt()
    # Ctrl-C, and SIGTERM (a kill, a batch system's stop), stop a command the same way: long work saves what
    # it finished and ends its workers. An ignored signal stays ignored, a handler someone else set stays
    # theirs, and handlers can only be set from the main thread.
    taken: dict[signal.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for number, default in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, signal.SIG_DFL)):
            if signal.getsignal(number) is default:
                taken[number] = default
                signal.signal(number, note_interrupt)
    hook = sys.unraisablehook
    if taken:
        sys.unraisablehook = quiet_dropped_interrupt
    try:
        with compiles_said(err, kernels=getattr(args, "kernels", True)):  # a kernel family's first compile is said
            return _run_command(args, out, err)
    finally:
        sys.unraisablehook = hook
        for number, default in taken.items():
            signal.signal(number, default)
        for stream, errors in kept:
            with contextlib.suppress(Exception):
                stream.reconfigure(errors=errors)


def _printable(*streams: TextIO) -> list[tuple[Any, str]]:
    """Let every line print on a stream whose encoding cannot show all of it (``PYTHONIOENCODING=ascii``, a
    Latin-1 terminal): a character it lacks is written as an escape, ``\\u2603`` for a file named after a snowman,
    instead of stopping the command with a UnicodeEncodeError after its work is done. Returns each changed stream
    with its old error handler, to be set back when the command ends."""
    kept = []
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        errors = getattr(stream, "errors", None)
        if reconfigure is None or not isinstance(errors, str) or errors not in ("strict", "surrogateescape"):
            continue
        with contextlib.suppress(Exception):  # a stream that cannot change (closed, detached) prints as it would
            reconfigure(errors="backslashreplace")
            kept.append((stream, errors))
    return kept


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
        _drop_output()
        return EXIT_OK
    except OSError as error:  # the output cannot be written (a full disk: '> /dev/full'), or a file the command used
        if error.filename is not None:
            where = f"'{error.filename}'"  # a file the command read or wrote
        else:
            where = "the output"
            _drop_output()  # what is still buffered cannot be written either: do not fail again at exit
        verb = "use" if error.filename is not None else "write"
        print(f"kinarow: error: cannot {verb} {where}: {error.strerror or error}", file=err)
        return EXIT_REJECTED


def _drop_output() -> None:
    """Point standard output at the null device, so that what is still buffered for it goes nowhere quietly."""
    import os

    with contextlib.suppress(OSError, ValueError):  # no file descriptor (a captured stream): nothing to flush
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    raise SystemExit(main())
