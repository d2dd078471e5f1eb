"""Verification speed of the misère Connect-k strategies.

Run from the repository root::

    python benchmarks/bench_misere.py                  # both parts
    python benchmarks/bench_misere.py --max-positions 2000000 --json

Part 1: take-even verified on misère Connect Four (7x6, k = 4); goal under 1 s.
Part 2: every strategy on every board up to 12 x 12 (k = 2..6) where it applies,
each verification with a position budget; a board whose verification ran out
of budget is not retried on boards at least as wide and as tall (they can
only need more positions). Goal: all of it in under 60 s. The script prints
how many (strategy, board) pairs were verified, how many ran out of budget or
were skipped, and, for take-even, how many positions the skipped boards would
have needed (the count of column-height vectors with no k neighbouring
non-empty columns, which is what take-even's reachable positions are).

The kernel is compiled (or loaded from numba's cache) before any clock starts.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from functools import cache
from typing import Any

from kinarow import Game
from kinarow.strategies import applicable
from kinarow.strategies.verify import verify


def take_even_positions(w: int, h: int, k: int) -> int:
    """Positions take-even's walk visits on an empty w x h board (h even): height vectors, no k run in row 1."""
    levels = h // 2

    @cache
    def count(i: int, run: int) -> int:
        if i == w:
            return 1
        total = count(i + 1, 0)
        if run + 1 < k:
            total += levels * count(i + 1, run + 1)
        return total

    return count(0, 0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-positions", type=int, default=1_000_000, help="budget per verification")
    parser.add_argument("--max-side", type=int, default=12, help="largest width and height")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    verify("take-even", "4x2k3:gravity,misere")  # compile / load the kernel

    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}"
    start = time.perf_counter()
    c4 = verify("take-even", "7x6k4:gravity,misere")
    c4_seconds = time.perf_counter() - start

    start = time.perf_counter()
    verified = over = skipped = failed = 0
    total_positions = 0
    skipped_need = 0
    too_big: dict[tuple[str, int, int], list[tuple[int, int]]] = {}
    rows: list[dict[str, Any]] = []
    side = args.max_side
    for k in range(2, 7):
        for w in range(1, side + 1):
            for h in range(1, side + 1):
                game = Game(f"{w}x{h}k{k}:gravity,misere")
                for strategy, player in applicable(game):
                    key = (strategy.name, player, k)
                    if any(w0 <= w and h0 <= h and (h - h0) % 2 == 0 for w0, h0 in too_big.get(key, [])):
                        skipped += 1
                        if strategy.name == "take-even":
                            skipped_need += take_even_positions(w, h, k)
                        continue
                    v = verify(strategy, game, player, max_positions=args.max_positions)
                    total_positions += v.positions
                    rows.append(v.to_dict())
                    if v.outcome == "unknown":
                        over += 1
                        too_big.setdefault(key, []).append((w, h))
                        if strategy.name == "take-even":
                            skipped_need += take_even_positions(w, h, k)
                    elif v.outcome == "fails":
                        failed += 1
                    else:
                        verified += 1
    seconds = time.perf_counter() - start
    summary = {
        "machine": machine,
        "connect_four": {**c4.to_dict(), "wall_seconds": round(c4_seconds, 3), "goal_seconds": 1.0},
        "all_boards": {
            "max_side": side,
            "max_positions": args.max_positions,
            "verified": verified,
            "fails": failed,
            "over_budget": over,
            "skipped": skipped,
            "positions": total_positions,
            "seconds": round(seconds, 2),
            "goal_seconds": 60.0,
            "take_even_positions_not_walked": skipped_need,
        },
    }
    if args.json:
        print(json.dumps({**summary, "runs": rows}))
        return 0
    print(f"machine: {machine}")
    print(
        f"take-even on 7x6k4:gravity,misere: {c4.outcome}, {c4.positions:,} positions, longest game "
        f"{c4.longest} stones, {c4_seconds:.3f} s (goal: under 1 s)"
    )
    print(
        f"every strategy on every board up to {side}x{side}, k = 2..6, budget {args.max_positions:,} positions: "
        f"{verified} verified, {failed} fail, {over} over budget, {skipped} skipped as larger; "
        f"{total_positions:,} positions in {seconds:.1f} s (goal: all verified in under 60 s)"
    )
    if over or skipped:
        print(
            f"not walked: take-even alone would need {skipped_need:,} more positions on the boards over budget "
            "or skipped"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
