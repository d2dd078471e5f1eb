"""The proof search (df-pn with pairing leaves and relevance zones) against the exact solver, from the empty board.

Run from the repository root::

    python benchmarks/bench_proof_search.py                        # 5x5k4 6x6k4 6x6k5 7x6k5 7x7k5
    python benchmarks/bench_proof_search.py --games 7x7k5 --time-limit 60 --solve-seconds 0
    python benchmarks/bench_proof_search.py --no-zones --json

For each game: the value by :func:`kinarow.search.proof_search.prove` (the
first player's question, then the second player's; Maker-Breaker: Maker's
only) with the nodes and seconds of each question, then ``kinarow.solve``'s
value, nodes and seconds within ``--solve-seconds`` (0 skips it; "-" when it
did not finish). Seconds are wall-clock; ``cpu`` is the process's CPU seconds
of the proof search, steadier on a shared machine. Both use one process and a fresh table per game; the kernels
are loaded before the clock. Published: Hsu et al. (Theoretical Computer
Science 815, 2020) prove 7x7k5 a draw in about 2.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from typing import Any

GAMES = ("5x5k4", "6x6k4", "6x6k5", "7x6k5", "7x7k5")


def measure(
    text: str, time_limit: float, solve_seconds: float, zones: bool, knowledge: bool, tt_mb: float
) -> dict[str, Any]:
    from kinarow import Game, solve
    from kinarow.search.proof_search import ProofSearcher, prove

    game = Game(text)
    searcher = ProofSearcher(game, tt_mb=tt_mb, zones=zones, knowledge=knowledge)
    searcher.attacker_wins(game.start(), 1, max_nodes=1)  # loads the kernel
    searcher.clear()  # (writes every page of the table before the clock)
    cpu = time.process_time()
    proved = prove(game, searcher=searcher, time_limit=time_limit)
    cpu = time.process_time() - cpu
    row: dict[str, Any] = {
        "game": text,
        "value": str(proved.value),
        "nodes": proved.nodes,
        "seconds": round(proved.seconds, 3),
        "cpu_seconds": round(cpu, 3),
        "questions": [
            {
                "attacker": a.attacker,
                "wins": a.wins,
                "nodes": a.nodes,
                "seconds": round(a.seconds, 3),
                "pairing_leaves": a.pairing_leaves,
                "zone_pruned": a.zone_pruned,
            }
            for a in proved.answers
        ],
    }
    if solve_seconds > 0:
        result = solve(game, time_limit=solve_seconds, knowledge="pairing")
        row["solve_value"] = str(result.value)
        row["solve_nodes"] = result.nodes
        row["solve_seconds"] = round(result.seconds, 3)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES))
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per question (default 120)")
    parser.add_argument(
        "--solve-seconds", type=float, default=30.0, help="kinarow.solve's time limit per game; 0 skips it"
    )
    parser.add_argument("--no-zones", action="store_true", help="search without relevance zones")
    parser.add_argument("--no-pairings", action="store_true", help="search without pairing leaves")
    parser.add_argument("--tt-mb", type=float, default=256.0)
    parser.add_argument("--json", action="store_true", help="one JSON object per game")
    args = parser.parse_args()
    if not args.json:
        print(
            f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
            f"python {platform.python_version()}"
        )
        print(
            f"{'game':8} {'value':7} {'nodes':>10} {'seconds':>8} {'cpu':>6}   {'questions (player: wins? nodes s)':40}"
            f" {'solve':7} {'nodes':>11} {'seconds':>8}"
        )
    for text in args.games:
        row = measure(text, args.time_limit, args.solve_seconds, not args.no_zones, not args.no_pairings, args.tt_mb)
        if args.json:
            print(json.dumps(row), flush=True)
            continue
        asked = "; ".join(f"{q['attacker']}: {q['wins']} {q['nodes']:,} {q['seconds']:.2f}" for q in row["questions"])
        solved = "-"
        if "solve_value" in row:
            unknown = row["solve_value"] == "unknown"
            solved = (
                f"{'-' if unknown else row['solve_value']:7} {row['solve_nodes']:>11,} {row['solve_seconds']:>8.2f}"
            ) + (" (stopped)" if unknown else "")
        print(
            f"{text:8} {row['value']:7} {row['nodes']:>10,} {row['seconds']:>8.2f} {row['cpu_seconds']:>6.2f}   "
            f"{asked:40} {solved}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
