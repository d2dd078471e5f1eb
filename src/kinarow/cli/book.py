"""``kinarow book build``, ``kinarow book moves`` and ``kinarow book info``: opening books of Connect-k games
(:mod:`kinarow.search.book`)."""

from __future__ import annotations

import argparse
import os
from typing import Any, TextIO

from kinarow.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    UsageError,
    check_outputs,
    log_lines,
    positive_int,
    progress_bar,
    table_option,
)
from kinarow.errors import interrupted, shown
from kinarow.game import Game

#: the table size of a build when none is given (MiB)
BUILD_TT_MB = 256


def _depth(text: str, game: Game) -> int:
    token = text.strip()
    if not token.isascii() or not token.isdigit():
        raise UsageError(f"--depth must be a whole number of stones from 0 to {game.cells - 1}, not {shown(text)}")
    depth = int(token)
    if depth >= game.cells:
        raise UsageError(f"--depth must be a whole number of stones from 0 to {game.cells - 1}, not {shown(text)}")
    return depth


def table_mb(text: str | None) -> float:
    """The table of ``--tt-mb`` (:func:`~kinarow.cli.common.table_option`), else :data:`BUILD_TT_MB`, cut down
    where the memory is short (a default is fitted, never refused)."""
    from kinarow.limits import fitting_tt_mb

    return table_option(text) or fitting_tt_mb(1, BUILD_TT_MB)


def cmd_build(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.limits import MAX_THREADS, default_threads
    from kinarow.search import book as books

    game = Game(args.target)
    depth = _depth(args.depth, game)
    tt_mb = table_mb(args.tt_mb)
    threads = positive_int("--threads", args.threads, upper=MAX_THREADS) or default_threads()
    path = args.out or books.file_name(game)
    checkpoint = args.checkpoint or path + ".checkpoint.npz"
    check_outputs(("--out", path), ("--checkpoint", checkpoint))
    resumed = os.path.exists(checkpoint)
    say = log_lines(err)  # a line a minute when err is a log

    with progress_bar(f"searching the positions with {depth} stones", None, err) as bar:

        def tick(done: int, total: int) -> None:
            if bar is not None:
                bar(done, total)
            else:
                say(f"searched {done:,} of {total:,} positions with {depth} stones")

        report = books.build(game, depth, path, checkpoint=checkpoint, tt_mb=tt_mb, on_progress=tick,
                              threads=threads)
    if report.book is None:
        print(f"{interrupted()}: {report.searched:,} of {report.to_search:,} positions with {depth} stones are "
              f"searched and kept in {checkpoint}; run the same command to resume.", file=err)
        return EXIT_INTERRUPTED
    size = os.path.getsize(path)
    print(f"Book written to {path}: {report.book.describe()}; {size:,} bytes.", file=out)
    note = " (resumed from its checkpoint)" if resumed else ""
    print(f"This run searched {report.nodes:,} nodes in {report.seconds:,.1f} s{note}.", file=out)
    return EXIT_OK


def cmd_moves(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.limits import MAX_THREADS, default_threads
    from kinarow.search import book as books

    tt_mb = table_mb(args.tt_mb)
    threads = positive_int("--threads", args.threads, upper=MAX_THREADS) or default_threads()
    path = args.target
    book = books.load(path)  # one sentence if it is not a book, before anything starts
    check_outputs(("FILE", path))
    say = log_lines(err)

    with progress_bar("finding the moves of the deepest positions", None, err) as bar:

        def tick(done: int, total: int) -> None:
            if bar is not None:
                bar(done, total)
            else:
                say(f"{done:,} of {total:,} deepest positions have their move (or are lost)")

        report = books.add_moves(path, tt_mb=tt_mb, on_progress=tick, threads=threads, book=book)
    if report.stopped is not None:
        print(f"{interrupted()}: {report.finished:,} of {report.total:,} deepest positions have their move, kept "
              f"in {path}; run the same command to resume.", file=err)
        return EXIT_INTERRUPTED
    print(f"Book written to {path}: {report.book.describe()}; {os.path.getsize(path):,} bytes.", file=out)
    print(f"This run searched {report.nodes:,} nodes in {report.seconds:,.1f} s.", file=out)
    return EXIT_OK


def cmd_info(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import numpy as np

    from kinarow.search import book as books
    from kinarow.search.result import strong_sentence
    from kinarow.values import Value

    book = books.load(args.target)
    size = os.path.getsize(args.target)
    counts = np.bincount(book.stones(), minlength=book.depth + 1)
    start = book.lookup(book.game.start())
    rows = [
        ("game", str(book.game)),
        ("depth", f"every position with at most {book.depth} stones"),
        ("positions", f"{len(book):,} (one of each mirror pair)"),
        ("by stones", " ".join(f"{t}:{int(c):,}" for t, c in enumerate(counts))),
        ("size", f"{size:,} bytes"),
        ("moves", f"kept for {int(np.count_nonzero(book.moves != books.NO_MOVE)):,} of the "
                  f"{int(counts[book.depth]):,} deepest positions (none for a lost one)"),
        ("format", f"version {book.version}"),
    ]
    if start is not None:  # the first player moves at the start
        found = Value.DRAW if start == 0 else Value.win(book.game.goal, 1 if start > 0 else 2)
        rows.append(("start", strong_sentence(found, None if start == 0 else book.game.cells + 1 - abs(start))))
    width = max(len(key) for key, _ in rows) + 1
    for key, text in rows:
        print(f"{key + ':':<{width}} {text}", file=out)
    return EXIT_OK


def cmd_book(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.action in ("info", "moves"):
        options: list[tuple[str, Any]] = [("--depth", args.depth), ("--out", args.out),
                                          ("--checkpoint", args.checkpoint)]
        if args.action == "info":
            options += [("--tt-mb", args.tt_mb), ("--threads", args.threads)]
        given = [option for option, value in options if value is not None]
        if given:
            takes = "only a FILE" if args.action == "info" else "a FILE, --tt-mb and --threads"
            raise UsageError(f"{given[0]} is an option of 'kinarow book build'; 'kinarow book {args.action}' takes "
                             f"{takes}")
        return cmd_info(args, out, err) if args.action == "info" else cmd_moves(args, out, err)
    if args.depth is None:
        raise UsageError("'kinarow book build' needs --depth D, the most stones of a position in the book")
    return cmd_build(args, out, err)


def add_commands(commands: Any) -> None:
    p = commands.add_parser(
        "book", help="build or describe an opening book of a Connect-k game (exact scores of shallow positions)",
        description="'book build GAME --depth D' searches every position with D stones, scores the "
        "shallower ones from them and writes the book; Ctrl-C stops, keeping what is done in the checkpoint, and "
        "the same command resumes. 'book moves FILE' gives a book made without them the move that keeps the value "
        "of each deepest position (the file is its own checkpoint: Ctrl-C and the same command resume). "
        "'book info FILE' checks a book file and says what it holds.")
    p.add_argument("action", metavar="ACTION", choices=("build", "moves", "info"), help="build, moves or info")
    p.add_argument("target", metavar="GAME|FILE",
                   help="build: a gravity game, e.g. 7x6k4:gravity; moves, info: a book file")
    p.add_argument("--depth", metavar="D", default=None, help="build: the most stones of a position in the book")
    p.add_argument("--out", metavar="FILE", default=None, help="build: the book file (default: GAME.book.npz here)")
    p.add_argument("--checkpoint", metavar="FILE", default=None,
                   help="build: the file that keeps a stopped build's work (default: the book file + .checkpoint.npz)")
    p.add_argument("--tt-mb", metavar="MB", default=None,
                   help=f"build, moves: transposition table size in MiB (default {BUILD_TT_MB})")
    p.add_argument("--threads", metavar="N", default=None,
                   help="build, moves: N searches of each position at once, sharing the table (default: every core)")
    p.set_defaults(run=cmd_book)
