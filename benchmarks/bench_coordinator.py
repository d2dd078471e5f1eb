"""What the parallel solver's coordinator costs: its CPU beside the workers', and its start on a large checkpoint.

Run from the repository root::

    python benchmarks/bench_coordinator.py                      # (10,4,4) after 1. e2, 120 s, then the start
    python benchmarks/bench_coordinator.py --seconds 60 --stored 300 1500 --json

Two measurements, each in a fresh Python process:

* ``run``: :func:`kinarow.search.parallel.solve` on a large frontier (by default
  (10,4,4) after 1. e2 with ``jobs=2000``: about 28,000 frontier positions)
  on 2 local workers for ``--seconds``. Printed: the coordinator's CPU
  seconds (``RUSAGE_SELF``), the workers' (``RUSAGE_CHILDREN``), the nodes
  the workers searched and the frontier's size. On a 2-core machine every
  CPU second the coordinator spends is taken from a worker.
* ``start``: building the frontier over a checkpoint of N stored jobs, one
  stone below it (random positions, each stored as a first-player win), as
  a resumed solve does before its first job: ``Frontier(...).expand(jobs)``,
  which follows the stored jobs down. Printed: its seconds and the frontier's
  size.

No published figure is reproduced here; the figures are this project's own
(docs/benchmarks.md, "The coordinator's own cost").
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_engine import machine  # run from the repository root: benchmarks/ is on the path

RUN = """
import json, resource, sys, time
from kinarow.search import parallel
game, moves, jobs, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
start = time.perf_counter()
r = parallel.solve(game, moves=moves, workers=2, jobs=jobs, tt_mb=256, knowledge="pairing", time_limit=seconds)
wall = time.perf_counter() - start
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "nodes": r.nodes, "frontier": r.frontier_nodes, "jobs_solved": r.jobs_solved,
                  "coordinator_cpu": me.ru_utime + me.ru_stime, "workers_cpu": kids.ru_utime + kids.ru_stime}))
"""

START = """
import json, random, sys, time
from kinarow.search import parallel as par
from kinarow.game import Game
game, moves, jobs, n, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
fr = par.Frontier(Game(game).position(moves))
fr.expand(jobs)
rng = random.Random(1)
store = par.JobStore(path)
for node in rng.sample(fr.open_jobs(), n):
    pos = fr.position(node)
    pos.play(rng.choice(pos.legal_moves()))
    key, sym = fr.canonical(pos.board)
    store.put(game, key, " ".join(pos.name(sym[c]) for c in pos.moves), (1, 1), "first", 1, 0.0)
store.close()
t = time.perf_counter()
store = par.JobStore(path)
fr = par.Frontier(Game(game).position(moves), store)
fr.expand(jobs)
print(json.dumps({"seconds": time.perf_counter() - t, "frontier": len(fr.nodes)}))
"""


def child(code: str, *args: object) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--game", default="10x4k4")
    ap.add_argument("--moves", default="e2")
    ap.add_argument("--jobs", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=120.0, help="length of the run measurement")
    ap.add_argument("--stored", type=int, nargs="*", default=[300, 1500], help="checkpoint sizes for the start")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    print(json.dumps(machine()), file=sys.stderr)
    rows: list[dict[str, object]] = []
    if args.seconds > 0:
        r = child(RUN, args.game, args.moves, args.jobs, args.seconds)
        rows.append({"measure": "run", "game": args.game, "moves": args.moves, "jobs": args.jobs, **r})
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.stored:
            r = child(START, args.game, args.moves, args.jobs, n, Path(tmp) / f"s{n}.sqlite")
            rows.append({"measure": "start", "game": args.game, "moves": args.moves, "stored": n, **r})
    if args.json:
        print(json.dumps(rows))
        return
    for row in rows:
        if row["measure"] == "run":
            print(f"run   {row['game']} after {row['moves']}, jobs={row['jobs']}: {row['wall']:.1f} s wall, "
                  f"coordinator {row['coordinator_cpu']:.1f} CPU-s, workers {row['workers_cpu']:.1f} CPU-s, "
                  f"{row['nodes']:,} nodes, {row['frontier']:,} frontier positions, {row['jobs_solved']} jobs solved")
        else:
            print(f"start {row['game']} after {row['moves']}, {row['stored']:,} stored jobs: {row['seconds']:.1f} s, "
                  f"{row['frontier']:,} frontier positions")


if __name__ == "__main__":
    main()
