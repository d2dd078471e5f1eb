"""Wall time of a misère table on 1 and on N worker processes (``--workers``), and that the tables agree.

Run from the repository root::

    python benchmarks/bench_workers.py                 # k = 3..5, boards up to 10 x 10, 1 and 2 workers
    python benchmarks/bench_workers.py --side 12 --workers 1 2 --json

The table is ``kinarow.papers.steele_larremore.table`` (the machinery of ``kinarow reproduce
misere-table``) with budgets that depend on no clock: a position budget for
every verification and the solver only on boards of at most ``--solver-cells``
cells with a time limit far above what they need. So the tables must be
equal, and the script says whether they are. The first run starts after the
kernels are compiled (or loaded from numba's cache) in this process; the
worker processes load them from the cache when they start, and that start is
inside the clock (it is part of what ``--workers`` costs).

The speed-up can only be as large as the number of idle cores: on a machine
where other programs run, say so with the figure (the script prints the load).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from dataclasses import asdict
from typing import Any

from kinarow.papers.steele_larremore import Budget, table


def run(side: int, ks: list[int], workers: list[int], budget: Budget) -> dict[str, Any]:
    table([3], [4], [4], budget)  # compile / load the kernels before any clock starts
    rows = []
    first: list[dict[str, Any]] | None = None
    for n in workers:
        start = time.perf_counter()
        cells = table(ks, range(1, side + 1), range(1, side + 1), budget, workers=n)
        seconds = time.perf_counter() - start
        found = [{**asdict(c), "seconds": None} for c in cells]
        first = found if first is None else first
        rows.append({"workers": n, "seconds": round(seconds, 2), "cells": len(cells),
                     "settled": sum(c.value != "open" for c in cells), "same_as_first": found == first})
    base = rows[0]["seconds"]
    for row in rows:
        row["speedup"] = round(base / row["seconds"], 2)
    return {
        "side": side,
        "ks": ks,
        "budget": asdict(budget),
        "runs": rows,
        "cpus": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", type=int, default=10, help="widths and heights 1..SIDE (default 10)")
    parser.add_argument("--k", type=int, nargs="+", default=[3, 4, 5], help="values of k (default 3 4 5)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts (default 1 2)")
    parser.add_argument("--max-positions", type=int, default=200_000, help="positions per verification")
    parser.add_argument("--solver-cells", type=int, default=30, help="solve boards of at most this many cells")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    budget = Budget(max_positions=args.max_positions, solver_seconds=600.0, solver_cells=args.solver_cells,
                    cross_check_cells=24)
    result = run(args.side, args.k, args.workers, budget)
    if args.json:
        print(json.dumps(result))
        return
    print(f"misere table k = {args.k}, boards up to {args.side}x{args.side}: {result['runs'][0]['cells']} cells; "
          f"{args.max_positions:,} positions per verification, solver on boards of <= {args.solver_cells} cells")
    for row in result["runs"]:
        same = "same table" if row["same_as_first"] else "A DIFFERENT TABLE"
        print(f"  {row['workers']} worker(s): {row['seconds']:7.2f} s  speed-up {row['speedup']:.2f}  "
              f"({row['settled']} settled; {same})")
    load = result["load_average"]
    print(f"{result['cpus']} CPUs ({result['processor']}); load average at the end: "
          f"{', '.join(f'{x:.2f}' for x in load) if load else 'unknown'}")


if __name__ == "__main__":
    main()
