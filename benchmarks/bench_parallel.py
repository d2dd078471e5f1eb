"""One process against frontier jobs on 1 and 2 workers: value, nodes, wall time, nodes/second, peak memory.

Run from the repository root::

    python benchmarks/bench_parallel.py                 # the quick games (about a minute)
    python benchmarks/bench_parallel.py --games 6x6k4:gravity "7x6k4:gravity@d d" --max-seconds 600
    python benchmarks/bench_parallel.py --json

Each measurement runs in a fresh Python process, so that its peak resident
memory (``resource.getrusage``: the largest of the coordinator and its
workers) and its table start clean. Modes:

* ``solve``: :func:`kinarow.solve`, one process (its table sized to the game);
* ``jobs-1`` / ``jobs-2``: :func:`kinarow.search.parallel.solve` with 1 or 2 local
  worker processes (the same frontier, so the difference is the parallelism).

*Seconds* are wall seconds of the whole call (the frontier, the pool's start,
every job); *nodes* are summed over all jobs, including jobs stopped because
their answer was no longer needed, so *nodes/s* is the search rate of all
workers together. A game that runs out of ``--max-seconds`` is reported as
``unknown`` with the nodes searched.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

#: A game, or GAME@MOVES for a position.
GAMES: tuple[str, ...] = ("5x4k4", "6x6k4", "6x5k4:gravity", "7x5k4", "6x6k4:gravity@c d c", "6x6k4p2q1")
MODES: tuple[str, ...] = ("solve", "jobs-1", "jobs-2")


def measure(game: str, mode: str, max_seconds: float, tt_mb: float | None) -> dict[str, Any]:
    """One measurement in this process (called in a fresh child by :func:`run`)."""
    from kinarow import solve
    from kinarow.search import parallel

    solve("3x3k3")  # load the compiled kernel before the clock
    game, _, moves = game.partition("@")
    start = time.perf_counter()
    if mode == "solve":
        result = solve(game, moves=moves or None, time_limit=max_seconds, tt_mb=tt_mb)
        workers = 1
        jobs = 0
    else:
        workers = int(mode.split("-")[1])
        result = parallel.solve(game, moves=moves or None, workers=workers, time_limit=max_seconds, tt_mb=tt_mb)
        jobs = result.jobs_solved
    wall = time.perf_counter() - start
    peak_kb = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    )
    return {
        "game": f"{game}@{moves}" if moves else game,
        "mode": mode,
        "workers": workers,
        "value": result.value,
        "nodes": result.nodes,
        "seconds": round(wall, 3),
        "nodes_per_second": round(result.nodes / wall) if wall > 0 else 0,
        "peak_rss_mib": round(peak_kb / 1024, 1),
        "jobs_answered": jobs,
        "stopped": result.stopped,
    }


def run(game: str, mode: str, max_seconds: float, tt_mb: float | None) -> dict[str, Any]:
    """Measure in a fresh interpreter (clean memory figures)."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    argv = [sys.executable, __file__, "--one", game, mode, "--max-seconds", str(max_seconds)]
    if tt_mb is not None:
        argv += ["--tt-mb", str(tt_mb)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"measurement {game} {mode} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def machine() -> str:
    cpu = platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return f"{cpu}, {os.cpu_count()} cores; {platform.platform()}; python {platform.python_version()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", metavar="GAME", default=list(GAMES))
    parser.add_argument("--modes", nargs="+", metavar="MODE", default=list(MODES), help="solve, jobs-1, jobs-2, ...")
    parser.add_argument("--max-seconds", type=float, default=120.0, help="budget per measurement (default 120)")
    parser.add_argument("--tt-mb", type=float, default=None, help="table per process in MiB (default: by the game)")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--one", nargs=2, metavar=("GAME", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one[0], args.one[1], args.max_seconds, args.tt_mb)))
        return 0
    if not args.json:
        print(f"machine: {machine()}")
        print(f"budget {args.max_seconds:g} s per measurement; each in a fresh process")
        print()
        header = (
            f"{'game':<22} {'mode':<7} {'value':<8} {'nodes':>13} {'seconds':>8} {'nodes/s':>11} "
            f"{'peak MiB':>9} {'jobs':>5}"
        )
        print(header)
        print("-" * len(header))
    for game in args.games:
        for mode in args.modes:
            row = run(game, mode, args.max_seconds, args.tt_mb)
            if args.json:
                print(json.dumps(row))
            else:
                print(
                    f"{row['game']:<22} {row['mode']:<7} {row['value']:<8} {row['nodes']:>13,} {row['seconds']:>8.2f} "
                    f"{row['nodes_per_second']:>11,} {row['peak_rss_mib']:>9.1f} {row['jobs_answered']:>5}"
                )
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
