"""How long a command takes to start: with numba's cache empty (the first run after installing), and warm.

Run from the repository root::

    python benchmarks/bench_startup.py            # each command cold (best of 2) and warm (best of 3), then the
                                                  # first call of kinarow.solve against a warm one
    python benchmarks/bench_startup.py --quick    # one run of each
    python benchmarks/bench_startup.py --json     # one JSON object
    python benchmarks/bench_startup.py --games 4x4k4 --no-first-call   # one command, no first-call figures

Each command (``kinarow solve GAME --no-store``, one kernel family each: the alpha-beta search for 4x4k4, the
proof search for 7x7k5, the Connect-k score search for 6x6k4:gravity) runs in a fresh Python: *cold* with
``NUMBA_CACHE_DIR`` set to an empty temporary folder (so every kernel it uses is compiled), then *warm* with the
same folder (every kernel loaded from it). Both give the wall-clock seconds and the processor seconds of the
process (user and system), which a busy machine changes less, and the ``compiled`` row of the report.

The first call: a fresh Python (the cache warm) imports ``kinarow``, solves one 7x6 Connect Four position from
the reference file (``tests/data/connect4-7x6-scored.txt`` or ``../shared/data/``; random positions of 24 stones
when neither is there), then the next ones; it prints the seconds of the import of the search modules (numba's own
import among them), of the first call and the median of the later calls. Everything runs in child processes, so
``PYTHONPATH=OTHER/src python benchmarks/bench_startup.py`` measures another checkout's source.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: the temporary cache folders made by this run (removed at its end)
FOLDERS: list[str] = []
COMMANDS = ("4x4k4", "7x7k5", "6x6k4:gravity")
REFERENCE = "connect4-7x6-scored.txt"
#: the positions the first-call script solves (the first, then the others as warm calls)
FIRST_CALL_POSITIONS = 40

FIRST_CALL = """
import json, random, sys, time
clock = time.perf_counter
start = clock()
import kinarow
from kinarow import Game, solve
import kinarow.search.solve
imported = clock()
game = Game("7x6k4:gravity")
path = sys.argv[1]
if path:
    lines = [line.split() for line in open(path, encoding="utf-8") if line[:1].isdigit()]
    positions = [game.position(" ".join(moves)) for moves, _ in lines[: int(sys.argv[2])]]
else:
    rng = random.Random(7)
    positions = []
    while len(positions) < int(sys.argv[2]):
        p = game.start()
        while p.stones < 24 and not p.is_over:
            p.play(rng.choice(p.legal_moves()))
        if not p.is_over:
            positions.append(p)
first = clock()
solve(positions[0])
after_first = clock()
later = []
for p in positions[1:]:
    t = clock()
    solve(p)
    later.append(clock() - t)
later.sort()
print(json.dumps({"import": imported - start, "first": after_first - first, "warm": later[len(later) // 2],
                  "positions": len(positions)}))
"""


def reference_file() -> Path | None:
    for path in (ROOT / "tests" / "data" / REFERENCE, ROOT.parent / "shared" / "data" / REFERENCE):
        if path.is_file():
            return path
    return None


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(argv: list[str], cache: str) -> dict[str, Any]:
    """One run of ``argv`` in a fresh Python with numba's cache in ``cache``: wall and processor seconds, the
    report's rows and whether the compile was said."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    env.pop("NUMBA_DISABLE_JIT", None)
    cpu = child_cpu()
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr}")
    rows = dict(re.findall(r"^([a-z/ ]+):\s+(.*)$", done.stdout, re.MULTILINE))
    return {"wall": wall, "cpu": child_cpu() - cpu, "seconds": rows.get("seconds"), "compiled": rows.get("compiled"),
            "said": "compiling" in done.stderr}


def best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return min(runs, key=lambda r: r["wall"])


def measure_command(game: str, cold_runs: int, warm_runs: int) -> tuple[dict[str, Any], dict[str, Any], str]:
    """The best cold and warm run of ``kinarow solve GAME --no-store``; the folder of the last cold run's cache
    (warm) is returned too."""
    argv = [sys.executable, "-m", "kinarow", "solve", game, "--no-store"]
    colds, folder = [], ""
    for _ in range(cold_runs):
        folder = tempfile.mkdtemp(prefix="bench-startup-")
        FOLDERS.append(folder)
        colds.append(run(argv, folder))
    warms = [run(argv, folder) for _ in range(warm_runs)]
    return best(colds), best(warms) if warms else {}, folder


def first_call(cache: str, repeats: int) -> dict[str, Any]:
    path = reference_file()
    found = []
    for _ in range(repeats):
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        done = subprocess.run([sys.executable, "-c", FIRST_CALL, str(path or ""), str(FIRST_CALL_POSITIONS)],
                              capture_output=True, text=True, env=env, cwd=ROOT)
        if done.returncode != 0:
            raise SystemExit(f"the first-call script failed:\n{done.stderr}")
        found.append(json.loads(done.stdout))
    chosen = min(found, key=lambda r: r["first"])
    chosen["source"] = path.name if path is not None else "random positions of 24 stones"
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run of each (default: best of 2 cold, 3 warm)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--games", nargs="*", default=list(COMMANDS), help=f"the games (default: {' '.join(COMMANDS)})")
    parser.add_argument("--no-first-call", action="store_true", help="leave out the first call of kinarow.solve")
    args = parser.parse_args(argv)
    cold_runs, warm_runs = (1, 1) if args.quick else (2, 3)
    out: dict[str, Any] = {"machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
                                      f"Python {platform.python_version()}", "commands": {}}
    score_cache = None
    if not args.json:
        print(f"# {out['machine']}")
        print("| command | cold: wall s (cpu s) | said | compiled | warm: wall s (cpu s) | said | seconds (warm) |")
        print("| --- | ---: | --- | --- | ---: | --- | ---: |")
    for game in args.games:
        cold, warm, folder = measure_command(game, cold_runs, warm_runs)
        if ":gravity" in game:
            score_cache = folder
        out["commands"][game] = {"cold": cold, "warm": warm}
        if not args.json:
            print(f"| solve {game} | {cold['wall']:.1f} ({cold['cpu']:.1f}) | {'yes' if cold['said'] else 'no'} | "
                  f"{(cold['compiled'] or '-').split(',')[0]} | {warm['wall']:.2f} ({warm['cpu']:.2f}) | "
                  f"{'yes' if warm['said'] else 'no'} | {warm['seconds']} |", flush=True)
    if args.no_first_call:
        if args.json:
            print(json.dumps(out, indent=1))
        return 0
    if score_cache is None:  # the score kernel compiled once, for the first call's positions
        score_cache = measure_command("4x4k4:gravity", 1, 0)[2]
    found = first_call(score_cache, 1 if args.quick else 3)
    out["first_call"] = found
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print()
    print(f"kinarow.solve on 7x6 Connect Four ({found['positions']} positions of {found['source']}), "
          f"a fresh Python, the cache warm:")
    print(f"  import of the search modules (numba's among them): {found['import']:.3f} s")
    print(f"  first call:                                        {found['first']:.3f} s")
    print(f"  a later call (median):                             {found['warm']:.4f} s")
    print(f"  first call over a later one:                       {found['first'] - found['warm']:.3f} s")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        for made in FOLDERS:
            shutil.rmtree(made, ignore_errors=True)
