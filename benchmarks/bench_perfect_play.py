"""How long the engine takes to answer a 7x6 Connect Four position with perfect play, by stones on the board.

Run from the repository root::

    python benchmarks/bench_perfect_play.py                   # 4 random positions per stone count, 0 to 41
    python benchmarks/bench_perfect_play.py --per-stones 10 --max-stones 20
    python benchmarks/bench_perfect_play.py --book FILE       # with another book than the shipped one
    python benchmarks/bench_perfect_play.py --threads 1       # one search thread (default: as the engine, 2 on 2 cores)

The engine of ``kinarow play`` and of the web page is :meth:`kinarow.Searcher.choose_move`: the value of the
position (from the opening book when the book holds it, else by search) and a move that keeps it. The goal
(the Connect-k issue's "perfect play from move one"): every position answered within a second. For each
number of stones the script plays random legal moves from the empty board to a position still in play, asks
the engine for its move with a generous think time (``--think``, so that a slow answer is timed rather than
cut off), and prints the median and the largest time, how many answers came within a second, and how many
positions the book held. One :class:`~kinarow.Searcher` serves every question, as on the web page, with the
engine's threads (two on a machine of two cores or more; ``--threads``). The numba kernels are loaded before the
clock starts.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from pathlib import Path

import numba

from kinarow import Game, Position, Searcher
from kinarow.limits import engine_threads
from kinarow.search import book as books
from kinarow.values import Value

GAME = "7x6k4:gravity"


def random_position(game: Game, stones: int, rng: random.Random) -> Position:
    """A position with ``stones`` stones reached by random legal moves, the game still in play."""
    while True:
        position = game.start()
        for _ in range(stones):
            position.play(rng.choice(position.legal_moves()))
            if position.is_over:
                break
        if not position.is_over:
            return position


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-stones", type=int, default=4, help="positions per stone count (default 4)")
    parser.add_argument("--max-stones", type=int, default=41, help="the most stones (default 41)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the random positions (default 7)")
    parser.add_argument("--think", type=float, default=120.0, help="the engine's think time per move (default 120)")
    parser.add_argument("--book", metavar="FILE", help="use this book file instead of the shipped one")
    parser.add_argument("--threads", type=int, default=engine_threads(),
                        help=f"search threads of the engine (default {engine_threads()}, as kinarow play and the web "
                        "page on this machine)")
    args = parser.parse_args(argv)
    game = Game(GAME)
    if args.book:
        opening = books.load(Path(args.book), game)
        books._shipped[game] = opening  # the searchers of this process use it
    else:
        opening = books.shipped_book(game)
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"numba {numba.__version__}")
    print(f"# book: {opening.describe() if opening is not None else 'none'}")
    print(f"# engine: {args.threads} search thread{'s' if args.threads != 1 else ''}")
    rng = random.Random(args.seed)
    searcher = Searcher(game, threads=args.threads)
    searcher.choose_move(game.position("a b a b a b"), 10)  # load the kernels
    print("| stones | positions | in the book | median s | largest s | within 1 s |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    worst = 0.0
    late = 0
    for stones in range(0, min(args.max_stones, game.cells - 1) + 1):
        times: list[float] = []
        held = 0
        for _ in range(args.per_stones):
            position = random_position(game, stones, rng)
            held += opening is not None and opening.lookup(position) is not None
            start = time.perf_counter()
            value, _ = searcher.choose_move(position, args.think)
            times.append(time.perf_counter() - start)
            if times[-1] > 1.0:
                print(f"# {times[-1]:.2f} s: {position.move_text()}", file=sys.stderr)
            if value is Value.UNKNOWN:
                print(f"# not solved within {args.think:g} s: {position.moves}", file=sys.stderr)
        fast = sum(t <= 1.0 for t in times)
        late += len(times) - fast
        worst = max(worst, max(times))
        print(f"| {stones} | {len(times)} | {held} | {statistics.median(times):.3f} | {max(times):.3f} | "
              f"{fast}/{len(times)} |", flush=True)
    print(f"# largest {worst:.2f} s; {late} answers took more than a second")
    return 0


if __name__ == "__main__":
    sys.exit(main())
