"""Connect Four on small boards against the published table of outcomes and game lengths.

John Tromp computed who wins Connect Four (four in a row, gravity) with perfect play on every board of
width + height <= 15; Christophe Steininger's c4 README ("Results": "Outcome" and "Last Move") lists those
outcomes with the move on which the game ends (plies from 1; a draw ends on the last cell). This script solves
each board with width + height <= ``--max-sum`` strongly with kinarow's Connect-k score kernel (the opening book
off) and prints ours beside the published figures. It exits 1 if any finished board disagrees.

    python benchmarks/bench_connect_table.py [--max-sum 13] [--time-limit S] [--threads N] [--tt-mb MB]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

#: (width, height): (outcome, last move), as published (see the docstring); w + h <= 13
PUBLISHED = {
    (4, 4): ("draw", 16), (5, 4): ("draw", 20), (6, 4): ("second", 24), (7, 4): ("draw", 28),
    (8, 4): ("second", 32), (9, 4): ("second", 36), (4, 5): ("draw", 20), (5, 5): ("draw", 25),
    (6, 5): ("draw", 30), (7, 5): ("draw", 35), (8, 5): ("first", 39), (4, 6): ("draw", 24),
    (5, 6): ("draw", 30), (6, 6): ("second", 36), (7, 6): ("first", 41), (4, 7): ("draw", 28),
    (5, 7): ("draw", 35), (6, 7): ("first", 41), (4, 8): ("draw", 32), (5, 8): ("draw", 40),
    (4, 9): ("draw", 36),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-sum", type=int, default=13, help="boards with width + height up to this (default 13)")
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per board (default 600)")
    parser.add_argument("--threads", type=int, default=1, help="threads sharing one table (default 1)")
    parser.add_argument("--tt-mb", type=float, default=1024, help="table size in MB (default 1024)")
    args = parser.parse_args(argv)
    os.environ["KINAROW_BOOK"] = "off"  # measure the search
    from kinarow import solve

    solve("4x4k4:gravity")  # load the compiled kernel before the clock
    bad = 0
    print("| board | published | kinarow | nodes | seconds |")
    print("| --- | --- | --- | ---: | ---: |")
    for (w, h), (outcome, last) in sorted(PUBLISHED.items(), key=lambda item: (sum(item[0]), item[0])):
        if w + h > args.max_sum:
            continue
        start = time.perf_counter()
        result = solve(f"{w}x{h}k4:gravity", strong=True, time_limit=args.time_limit, tt_mb=args.tt_mb,
                       threads=args.threads)
        seconds = time.perf_counter() - start
        if result.value == "unknown":
            ours = f"unknown ({result.stopped})"
        else:
            ours_last = result.last_move if result.last_move is not None else w * h
            ours = f"{result.value}, move {ours_last}"
            if (str(result.value), ours_last) != (outcome, last):
                bad += 1
                ours += " DIFFERS"
        print(f"| {w}x{h} | {outcome}, move {last} | {ours} | {result.nodes:,} | {seconds:.2f} |", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
