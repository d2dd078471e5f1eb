"""Connect Four against the published table of outcomes and game lengths, board by board, timed.

The published table (:mod:`kinarow.papers.connect4_data`: Tromp for w + h <= 15 and 8 x 8, Steininger's c4 for
w + h = 16) gives who wins each board with perfect play and on which stone the game ends. This script solves
each chosen board strongly, as ``kinarow solve WxHk4:gravity --strong`` does (the opening book off, a time limit
instead of ``kinarow reproduce connect4-table``'s node budget, every core by default), and prints kinarow's
answer beside the published one with its nodes and seconds. It exits 1 if any finished board disagrees.

    python benchmarks/bench_connect_table.py [--max-sum 13] [--boards 8x5 11x4 ...] [--time-limit S]
                                             [--threads N] [--tt-mb MB] [--jsonl FILE]

``--jsonl FILE`` appends one JSON line a board (board, published, kinarow's value and last move, nodes, seconds,
the date), so a long series of runs keeps what it finished.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-sum", type=int, default=13, help="boards with width + height up to this (default 13)")
    parser.add_argument("--boards", nargs="+", metavar="WxH", help="these boards of the table instead")
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per board (default 600)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="threads sharing one table (default: every core)")
    parser.add_argument("--tt-mb", type=float, default=1024, help="table size in MiB (default 1024)")
    parser.add_argument("--jsonl", metavar="FILE", help="append one JSON line a board to FILE")
    args = parser.parse_args(argv)
    os.environ["KINAROW_BOOK"] = "off"  # measure the search
    from kinarow import solve
    from kinarow.papers.connect4_data import PUBLISHED, boards

    if args.boards:
        chosen = []
        for text in args.boards:
            w, _, h = text.lower().partition("x")
            if not (w.isdigit() and h.isdigit()) or (int(w), int(h)) not in PUBLISHED:
                parser.error(f"--boards takes boards of the published table as WxH (e.g. 8x5), not {text!r}")
            chosen.append((int(w), int(h)))
    else:
        chosen = [wh for wh in boards() if sum(wh) <= args.max_sum]
    solve("4x4k4:gravity")  # load the compiled kernel before the clock
    bad = 0
    print("| board | published | kinarow | nodes | seconds |")
    print("| --- | --- | --- | ---: | ---: |")
    for w, h in chosen:
        outcome, last = PUBLISHED[(w, h)]
        start = time.perf_counter()
        result = solve(f"{w}x{h}k4:gravity", strong=True, time_limit=args.time_limit, tt_mb=args.tt_mb,
                       threads=args.threads)
        seconds = time.perf_counter() - start
        ours_last = None
        if result.value == "unknown":
            ours = f"unknown ({result.stopped})"
        else:
            ours_last = result.last_move if result.last_move is not None else w * h
            ours = f"{result.value}, move {ours_last}"
            if (str(result.value), ours_last) != (str(outcome), last):
                bad += 1
                ours += " DIFFERS"
        print(f"| {w}x{h} | {outcome}, move {last} | {ours} | {result.nodes:,} | {seconds:.2f} |", flush=True)
        if args.jsonl:
            row = {"board": f"{w}x{h}", "published": [str(outcome), last], "value": str(result.value),
                   "last_move": ours_last, "nodes": result.nodes, "seconds": round(seconds, 2),
                   "threads": args.threads, "tt_mb": args.tt_mb, "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                      time.gmtime())}
            with open(args.jsonl, "a", encoding="utf-8") as out:
                out.write(json.dumps(row) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
