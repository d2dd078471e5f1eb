"""What merging a winner's strategy from many parts costs: seconds and peak memory.

Run from the repository root::

    python benchmarks/bench_merge.py                    # the shipped (9,4,4) win and its mirror images
    python benchmarks/bench_merge.py --images 2 --json

A parallel solve proves a win from many leaf positions, each with its own
strategy found in its canonical frame, and merges them into one walk
(:mod:`kinarow.search.parallel.merge`). This benchmark does the same work on a
strategy whose size matters: the shipped (9,4,4) certificate (7.0 M
prescribed moves from the empty board). The empty board is its own image
under each of the board's symmetries, so each image of the strategy is a
winning strategy from it too; the benchmark merges the first ``--images``
of them, the identity given last so that the other images' moves are the
ones kept where they meet, as a solve merges leaves that meet:

* ``read``: the walk replayed into rows (one per move: the position's two
  bitboards and the move);
* ``map``: the rows carried through each symmetry;
* ``merge``: the rows joined (one per position) and replayed once from the
  start, which writes the merged walk.

Each measurement runs in a fresh Python process; printed are the seconds of
each step, the rows, the merged walk's moves and the process's peak memory.
The merged walk is checked by the compiled checker afterwards (not timed).

No published figure is reproduced here; the figures are this project's own
(docs/benchmarks.md, "Merging the leaves' strategies").
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from bench_engine import machine  # run from the repository root: benchmarks/ is on the path

MERGE = """
import json, resource, sys, time
from kinarow.cli.scale import read_json
from kinarow.game import Game
from kinarow.proofs.tree import StrategyTree, check
from kinarow.search.parallel.merge import mapped, merged_walk, rows_of_walk
path, images = sys.argv[1], int(sys.argv[2])
tree = StrategyTree.from_json(read_json(path))
game = Game(tree.game)
start = game.position(" ".join(tree.moves))
assert tree.walk is not None and start.stones == 0, "the benchmark wants a walk from the empty board"
t0 = time.perf_counter()
rows = rows_of_walk(start, 1 if tree.winner == "first" else 2, tree.walk)
t1 = time.perf_counter()
parts = [mapped(rows, sym) for sym in reversed(game.geometry.symmetries[:images])]  # the identity last
t2 = time.perf_counter()
walk = merged_walk(start, 1 if tree.winner == "first" else 2, parts)
t3 = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
ok = check(StrategyTree(tree.game, tree.moves, tree.winner, walk=walk), compiled=True).ok
print(json.dumps({"game": tree.game, "images": len(parts), "moves": len(tree.walk),
                  "rows": sum(len(k) for k, _ in parts), "merged_moves": len(walk), "read_s": t1 - t0,
                  "map_s": t2 - t1, "merge_s": t3 - t2, "peak_gib": peak, "checked": ok}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--certificate", default="certificates/9x4k4.strategy.json.gz",
                    help="a walk certificate (version 3) from the empty board")
    ap.add_argument("--images", type=int, nargs="+", default=[1, 2, 4],
                    help="how many images of the strategy to merge, one measurement each")
    ap.add_argument("--json", action="store_true", help="one JSON object per measurement")
    args = ap.parse_args()
    if not args.json:
        print(machine())
        print(f"{'game':8} {'images':>6} {'rows':>12} {'merged':>11} {'read s':>7} {'map s':>6} {'merge s':>8} "
              f"{'peak GiB':>8}  checked")
    for images in args.images:
        done = subprocess.run([sys.executable, "-c", MERGE, args.certificate, str(images)], capture_output=True,
                              text=True, check=False)
        if done.returncode != 0:
            print(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}",
                  file=sys.stderr)
            return 1
        row = json.loads(done.stdout)
        if args.json:
            print(json.dumps(row))
        else:
            print(f"{row['game']:8} {row['images']:>6} {row['rows']:>12,} {row['merged_moves']:>11,} "
                  f"{row['read_s']:>7.1f} {row['map_s']:>6.1f} {row['merge_s']:>8.1f} {row['peak_gib']:>8.2f}  "
                  f"{'VALID' if row['checked'] else 'NOT VALID'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
