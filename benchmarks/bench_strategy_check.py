"""Winning strategies as certificates: search, extraction, size, and the two checkers.

Run from the repository root::

    python benchmarks/bench_strategy_check.py                 # 6x5k4 and 7x5k4 (first-player wins)
    python benchmarks/bench_strategy_check.py 4x4k3 6x5k4 --json

The machine is printed first (on stderr). For each game: the search alone
(nodes, seconds), the search with the winner's strategy extracted, the
strategy's prescribed moves (wins on the spot are left to the checker) and
JSON size, and the seconds of :func:`kinarow.proofs.tree.check` compiled
(warm; the first call of a fresh install also compiles it) and walked in
Python, with the positions each checked; then the same strategy as a walk
(format version 3): its size and its compiled check.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from bench_engine import machine  # run from the repository root: benchmarks/ is on the path
from kinarow import solve
from kinarow.proofs.tree import check


def measure(game: str) -> dict[str, object]:
    start = time.perf_counter()
    plain = solve(game, tt_mb=256)
    search_s = time.perf_counter() - start
    start = time.perf_counter()
    result = solve(game, tt_mb=256, strategy=True)
    with_strategy_s = time.perf_counter() - start
    tree = result.strategy
    assert tree is not None, f"{game} is not a win for either player"
    check(tree, compiled=True)  # compile (or load the cached kernel) before timing
    start = time.perf_counter()
    compiled = check(tree, compiled=True)
    compiled_s = time.perf_counter() - start
    start = time.perf_counter()
    walked = check(tree, compiled=False)
    python_s = time.perf_counter() - start
    assert compiled.ok and walked.ok and compiled.details["positions_checked"] == walked.details["positions_checked"]
    walk = tree.compacted()
    start = time.perf_counter()
    walk_check = check(walk, compiled=True)
    walk_s = time.perf_counter() - start
    assert walk_check.ok and walk_check.details["positions_checked"] == compiled.details["positions_checked"]
    return {"game": game, "value": plain.value, "nodes": plain.nodes, "search_s": round(search_s, 2),
            "search_and_strategy_s": round(with_strategy_s, 2), "prescribed_moves": tree.size,
            "json_bytes": len(tree.dumps()), "positions_checked": compiled.details["positions_checked"],
            "check_compiled_s": round(compiled_s, 3), "check_python_s": round(python_s, 2),
            "speedup": round(python_s / max(compiled_s, 1e-9), 1), "walk_bytes": len(walk.dumps()),
            "walk_moves": walk.size, "check_walk_compiled_s": round(walk_s, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=["6x5k4", "7x5k4"])
    parser.add_argument("--json", action="store_true", help="one JSON object per game")
    args = parser.parse_args()
    print(machine(), file=sys.stderr)
    for game in args.games:
        row = measure(game)
        if args.json:
            print(json.dumps(row))
        else:
            print(f"{row['game']}: {row['value']}, {row['nodes']:,} nodes in {row['search_s']} s; with the strategy "
                  f"{row['search_and_strategy_s']} s; {row['prescribed_moves']:,} prescribed moves "
                  f"({row['json_bytes']:,} bytes of JSON); check of {row['positions_checked']:,} positions: "
                  f"compiled {row['check_compiled_s']} s, Python {row['check_python_s']} s ({row['speedup']}x); "
                  f"as a walk {row['walk_bytes']:,} bytes, compiled check {row['check_walk_compiled_s']} s")


if __name__ == "__main__":
    main()
