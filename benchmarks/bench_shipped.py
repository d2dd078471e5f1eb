"""The shipped certificates (``certificates/``): what each one proves and what its check costs.

Run from the repository root::

    python benchmarks/bench_shipped.py                       # every certificate in certificates/
    python benchmarks/bench_shipped.py connect4 9x4k4 --json # the files whose names start so

Each file is checked in a process of its own, as ``kinarow check --compiled``
does it (strategies, non-losing walks and blocking trees by the compiled
walks; ``--python-trees`` walks blocking trees in Python, as plain
``kinarow check`` does), so that its peak resident memory is its own. Printed per file: the claim, the
verdict, the positions checked, the wall seconds, positions a second and
the peak memory. The machine comes first (on stderr). The checks are one
process each: no worker pool.

Published values these files reproduce: (7,4,4) and (8,4,4) draws (known in
the literature), (7,7,5) draw (Hsu et al., Theoretical Computer Science,
2020), Connect Four a first-player win (Allen; Allis, 1988); (9,4,4) a
first-player win (a 2017 bachelor thesis; Tung & Lau conjectured a draw).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from bench_engine import machine  # run from the repository root: benchmarks/ is on the path

HERE = Path(__file__).resolve().parents[1] / "certificates"

# Run in the child: check one file and print its figures as one JSON line.
CHILD = """
import gzip, json, re, resource, sys, time
from kinarow.cli import main
path = sys.argv[1]
raw = open(path, "rb").read()
data = json.loads(gzip.decompress(raw) if raw[:2] == b"\\x1f\\x8b" else raw)
python_trees = sys.argv[2] == "1"
args = ["check", path] + ([] if python_trees and data.get("format") == "kinarow.draw" else ["--compiled"])
start = time.perf_counter()
import io, contextlib
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(args)
seconds = time.perf_counter() - start
text = out.getvalue().strip()
found = re.search(r"\\(([\\d,]+) (?:prescribed moves, ([\\d,]+) )?positions", text)
positions = int((found.group(2) or found.group(1)).replace(",", "")) if found else None
print(json.dumps({"file": path.rsplit("/", 1)[-1], "game": data.get("game"), "claim": data.get("claim"),
                  "verdict": text.split(":", 1)[0], "exit": code, "positions": positions,
                  "seconds": round(seconds, 2),
                  "positions_per_s": round(positions / seconds) if positions and seconds else None,
                  "peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))
"""


def measure(path: Path, python_trees: bool = False) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", CHILD, str(path), "1" if python_trees else "0"], capture_output=True,
                          text=True, check=False)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"file": path.name, "verdict": "error", "detail": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(lines[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="only the files whose names start with one of these")
    parser.add_argument("--json", action="store_true", help="one JSON object a line")
    parser.add_argument("--python-trees", action="store_true",
                        help="walk draw proofs (blocking trees, non-losing walks) in Python, as plain 'kinarow check'")
    args = parser.parse_args()
    files = sorted([*HERE.glob("*.strategy.json*"), *HERE.glob("*.draw.json*")])
    if args.names:
        files = [f for f in files if any(f.name.startswith(n) for n in args.names)]
    if not files:
        print("No certificate in certificates/ matches those names.", file=sys.stderr)
        return 2
    print(json.dumps(machine()), file=sys.stderr)
    if not args.json:
        print(f"{'file':<28} {'claim':<16} {'verdict':<8} {'positions':>13} {'seconds':>8} {'pos/s':>11} "
              f"{'peak MiB':>9}")
    failed = False
    for path in files:
        row = measure(path, args.python_trees)
        failed |= row.get("verdict") != "VALID"
        if args.json:
            print(json.dumps(row), flush=True)
            continue
        if row.get("verdict") == "error":
            print(f"{row['file']:<28} error: {row['detail']}", flush=True)
            continue
        print(f"{row['file']:<28} {row['claim']!s:<16} {row['verdict']:<8} {row['positions'] or 0:>13,} "
              f"{row['seconds']:>8.1f} {row['positions_per_s'] or 0:>11,} {row['peak_mib']:>9,}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
