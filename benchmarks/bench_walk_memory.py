"""The draw-proof walk's memory (:class:`kinarow.search.draw.Memory`): load time, peak memory, lookup cost.

Run from the repository root::

    python benchmarks/bench_walk_memory.py                       # 4 million random 36-cell keys
    python benchmarks/bench_walk_memory.py --entries 16000000 --json
    python benchmarks/bench_walk_memory.py --memory WALKS/9x4k4/first_cannot_win.start.job0.npz --cells 36

The machine is printed first (on stderr). Each measurement runs in a child process so that its peak resident memory
is its own. Printed: entries, the seconds to load the saved memory, the
child's peak resident memory, and the microseconds a lookup costs (of keys
that are there and keys that are not), for the memory as it loads (packed
codes on boards of up to 40 cells) and, for comparison, read into a dict.
A synthetic memory has random keys of a board's cell values (0, 1, 2) with
moves, leaves and "expanded" entries mixed; ``--memory`` measures a saved
walk instead.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench_engine import machine  # run from the repository root: benchmarks/ is on the path
from kinarow.search.draw import EXPANDED, Memory

LOOKUPS = 100_000


def _synthetic(path: Path, entries: int, cells: int) -> None:
    rng = np.random.default_rng(1)
    memory = Memory(cells)
    memory.pairing_id((0b11, 0b1100))
    keys = rng.integers(0, 3, (entries, cells), dtype=np.uint8)
    values = rng.choice(np.array([EXPANDED, 0, 1, cells], np.int64), entries)
    memory.known.update(zip((bytes(k) for k in keys), values.tolist(), strict=True))
    memory.save(path)


def _peak_gib() -> float:
    """This process's peak resident memory (VmHWM: unlike ru_maxrss it does not carry the parent's peak
    over the exec that started this child)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 2**20  # KiB -> GiB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def _measure(path: str, cells: int, as_dict: bool, queue: multiprocessing.Queue) -> None:
    start = time.perf_counter()
    memory = Memory.load(Path(path), cells)
    if as_dict:  # what the walk held before the entries were packed
        table = dict(memory.items())
        del memory
        get = table.get
        present = list(itertools.islice(table, LOOKUPS))
    else:
        get = memory.get
        present = [k for k, _ in itertools.islice(memory.items(), LOOKUPS)]
    seconds = time.perf_counter() - start
    rng = np.random.default_rng(2)
    absent = [bytes(k) for k in rng.integers(0, 3, (LOOKUPS, cells), dtype=np.uint8)]
    timings = []
    for keys in (present, absent):
        t = time.perf_counter()
        for key in keys:
            get(key)
        timings.append((time.perf_counter() - t) / len(keys) * 1e6)
    peak = _peak_gib()
    queue.put({"as": "dict" if as_dict else "memory", "load_s": round(seconds, 1), "peak_gib": round(peak, 2),
               "hit_us": round(timings[0], 2), "miss_us": round(timings[1], 2)})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=4_000_000, help="entries of the synthetic memory")
    parser.add_argument("--cells", type=int, default=36, help="cells of the board (default 36: 9x4)")
    parser.add_argument("--memory", default=None, help="a saved walk memory (.npz) to measure instead")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    about = machine()
    print(f"# {about['cpu']}, {about['cores']} cores; Python {about['python']}, numpy {about['numpy']}",
          file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.memory) if args.memory else Path(tmp) / "synthetic.npz"
        if not args.memory:
            _synthetic(path, args.entries, args.cells)
        rows = []
        context = multiprocessing.get_context("spawn")
        for as_dict in (False, True):
            queue = context.Queue()
            child = context.Process(target=_measure, args=(str(path), args.cells, as_dict, queue))
            child.start()
            row = queue.get()
            child.join()
            row["entries"] = Memory.count(path)
            rows.append(row)
    for row in rows:
        if args.json:
            print(json.dumps(row))
        else:
            print(f"{row['as']:<7} {row['entries']:>12,} entries  load {row['load_s']:>6.1f} s  "
                  f"peak {row['peak_gib']:>5.2f} GiB  lookup {row['hit_us']:.2f} us (there), "
                  f"{row['miss_us']:.2f} us (not there)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
