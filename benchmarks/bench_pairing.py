"""How long pairing existence takes, plain SAT encoding against the full one.

Run from the repository root::

    python benchmarks/bench_pairing.py            # the default boards, 3 runs each
    python benchmarks/bench_pairing.py --quick    # 8x8k6 only (the speed goal), 1 run
    python benchmarks/bench_pairing.py --json

The goal: pairing existence decided for 8x8k6 (no good pairing) in under 10 s.
Each board is decided by :func:`kinarow.knowledge.pairing.find` with the counting bounds,
the family constructions and the matching path switched off, so that SAT
always runs, in four encodings: ``plain`` (one variable per candidate pair, at
most one pair per cell, a pair inside every group), ``+cuts`` (Lemma 9 cuts
along every line), ``+sym`` (lex-leader symmetry breaking) and ``full`` (both).
Then once with everything on (``find`` as users call it), showing which step
settled the board. Times are wall-clock medians; on a machine shared with other
work they are inflated and noisy.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from typing import Any

from kinarow.knowledge.pairing import find

BOARDS = ["8x8k6", "9x8k6", "10x10k6", "7x7k6", "9x9k7", "10x10k7", "12x12k8"]
ENCODINGS: dict[str, dict[str, bool]] = {
    "plain": {"cuts": False, "symmetry": False},
    "+cuts": {"cuts": True, "symmetry": False},
    "+sym": {"cuts": False, "symmetry": True},
    "full": {"cuts": True, "symmetry": True},
}
SAT_ONLY = {"bounds": False, "constructions": False, "matching": False}


def run(boards: list[str], repeats: int, max_conflicts: int) -> list[dict[str, Any]]:
    rows = []
    for board in boards:
        row: dict[str, Any] = {"board": board}
        for name, options in ENCODINGS.items():
            times, answer = [], None
            for _ in range(repeats):
                result = find(board, max_conflicts=max_conflicts, **SAT_ONLY, **options)
                times.append(result.seconds)
                answer = result.exists
            row[name] = {"seconds": statistics.median(times), "exists": answer}
        start = time.perf_counter()
        result = find(board, max_conflicts=max_conflicts)
        row["find"] = {"seconds": time.perf_counter() - start, "exists": result.exists, "proved_by": result.proved_by}
        rows.append(row)
        print(_line(row), file=sys.stderr, flush=True)
    return rows


def _line(row: dict[str, Any]) -> str:
    word = {True: "yes", False: "no", None: "open"}
    cells = [f"{row['board']:<9}"]
    for name in ENCODINGS:
        cells.append(f"{row[name]['seconds']:8.2f} s {word[row[name]['exists']]:<4}")
    found = row["find"]
    cells.append(f"{found['seconds']:8.3f} s {word[found['exists']]:<4} ({found['proved_by']})")
    return " ".join(cells)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="8x8k6 only, one run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-conflicts", type=int, default=5_000_000, help="SAT budget per run ('open' beyond)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    boards = ["8x8k6"] if args.quick else BOARDS
    repeats = 1 if args.quick else args.repeats
    header = f"{'board':<9} " + " ".join(f"{name:>15}" for name in ENCODINGS) + "   find (all steps)"
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}", file=sys.stderr)
    print(header, file=sys.stderr)
    rows = run(boards, repeats, args.max_conflicts)
    if args.json:
        print(json.dumps(rows))
    goal = next((r for r in rows if r["board"] == "8x8k6"), None)
    if goal is not None:
        seconds = goal["full"]["seconds"]
        verdict = "met" if seconds < 10 and goal["full"]["exists"] is False else "NOT met"
        print(f"goal (8x8k6 decided in under 10 s): {verdict}, {seconds:.2f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
