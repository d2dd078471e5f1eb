"""The proof search on one, two and four machine words a board: what a wider board form costs a node.

Run from the repository root::

    python benchmarks/bench_board_words.py                         # 7x7k5 in 1/2/4 words, 11x11k4 in 2/4
    python benchmarks/bench_board_words.py --games 15x15k4 --words 4
    python benchmarks/bench_board_words.py --games 11x11k4 --words 2 4 --json

For each game and each form the board fits: the first player's question from the empty board (does the first
player win?), its answer, nodes, seconds and nodes a second, in one process with a fresh table each time; the
kernels are loaded (or compiled) before the clock. The same search in every form gives the same nodes -- the
tests assert that (tests/test_wide_boards.py); this prints what each form costs. Not a test: it prints figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from typing import Any

GAMES = ("7x7k5", "11x11k4")


def measure(text: str, words: int, tt_mb: float) -> dict[str, Any] | None:
    """One timed question, or None when the board needs more words than ``words``."""
    from kinarow import Game
    from kinarow.engine.tables import words_for
    from kinarow.search.proof_search import ProofSearcher

    game = Game(text)
    if words < words_for(game):
        return None
    searcher = ProofSearcher(game, tt_mb=tt_mb, words=words)
    searcher.attacker_wins(game.start(), 1, max_nodes=1)  # loads the kernel
    searcher.clear()
    start, cpu = time.perf_counter(), time.process_time()
    answer = searcher.attacker_wins(game.start(), 1)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"game": text, "words": words, "first_wins": answer.wins, "nodes": answer.nodes,
            "seconds": round(seconds, 3), "cpu": round(cpu, 3),
            "nodes_per_second": round(answer.nodes / seconds) if seconds > 0 else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES), help=f"games to ask (default: {' '.join(GAMES)})")
    parser.add_argument("--words", nargs="+", type=int, choices=(1, 2, 4), default=[1, 2, 4],
                        help="board forms to time (default: 1 2 4; a form too small for a board is skipped)")
    parser.add_argument("--tt-mb", type=float, default=1024.0, help="each search's table in MiB (default 1024)")
    parser.add_argument("--json", action="store_true", help="one JSON object a line instead of the table")
    args = parser.parse_args(argv)
    rows = [row for text in args.games for w in args.words if (row := measure(text, w, args.tt_mb)) is not None]
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; python {sys.version.split()[0]}")
    print(f"{'game':<10} {'words':>5} {'first wins':>10} {'nodes':>12} {'seconds':>8} {'cpu':>8} {'nodes/s':>10}")
    for r in rows:
        print(f"{r['game']:<10} {r['words']:>5} {r['first_wins']!s:>10} {r['nodes']:>12,} {r['seconds']:>8.2f} "
              f"{r['cpu']:>8.2f} {r['nodes_per_second'] or 0:>10,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
