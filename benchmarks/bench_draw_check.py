"""Draw certificates' blocking trees: the compiled walk against the Python walk of the checker.

Run from the repository root::

    python benchmarks/bench_draw_check.py                          # 7x7k5 and the (8,8,5) part after 1. a1
    python benchmarks/bench_draw_check.py 8x8k5 --compiled-only     # the whole (8,8,5) tree, compiled alone
    python benchmarks/bench_draw_check.py 7x7k5 --json

Each name is a file ``certificates/NAME.draw.json.gz``. The machine is printed
first (on stderr). For each file: the positions its blocking trees prove,
and the seconds and positions a second of :func:`kinarow.proofs.check_data`
with ``compiled=True`` (warm: a first call compiles the kernel or loads it
from numba's cache) and with the Python walk. Both include reading the
pairings and tokens; the JSON is loaded before the clock starts.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Any

from bench_engine import machine  # run from the repository root: benchmarks/ is on the path
from kinarow.proofs import check_data

HERE = Path(__file__).resolve().parents[1] / "certificates"


def positions(details: dict[str, Any]) -> int:
    return sum(half["positions"] for name, half in details.items() if name.endswith("_cannot_win"))


def timed(data: dict[str, Any], compiled: bool) -> tuple[int, float]:
    start = time.perf_counter()
    verdict = check_data(data, compiled=compiled)
    seconds = time.perf_counter() - start
    assert verdict.ok, verdict.reason
    return positions(verdict.details), seconds


def measure(name: str, python: bool) -> dict[str, object]:
    data = json.loads(gzip.decompress((HERE / f"{name}.draw.json.gz").read_bytes()))
    check_data({**data, "first_cannot_win": {**data["first_cannot_win"], "tokens": ""}}, compiled=True)  # warm up
    proved, compiled_s = timed(data, True)
    row: dict[str, object] = {"file": name, "game": data["game"], "moves": data["moves"], "positions": proved,
                              "compiled_s": round(compiled_s, 2), "compiled_per_s": round(proved / compiled_s)}
    if python:
        walked, python_s = timed(data, False)
        assert walked == proved
        row.update(python_s=round(python_s, 1), python_per_s=round(proved / python_s),
                   speedup=round(python_s / compiled_s, 1))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=["7x7k5", "8x8k5.a1"])
    parser.add_argument("--compiled-only", action="store_true", help="skip the Python walk (minutes on a part)")
    parser.add_argument("--json", action="store_true", help="one JSON object per file")
    args = parser.parse_args()
    print(json.dumps(machine()), file=sys.stderr)
    for name in args.names:
        row = measure(name, not args.compiled_only)
        if args.json:
            print(json.dumps(row), flush=True)
            continue
        line = (f"{name}: {row['positions']:,} positions; compiled {row['compiled_s']} s "
                f"({row['compiled_per_s']:,}/s)")
        if "python_s" in row:
            line += f", Python {row['python_s']} s ({row['python_per_s']:,}/s): {row['speedup']}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
