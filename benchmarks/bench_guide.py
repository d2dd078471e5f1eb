"""A job run with and without a guide (``--guide``): nodes, wall time, splits, for the same win test.

Run from the repository root::

    python benchmarks/bench_guide.py             # (22,4,4) after 1. e2 e3, guided by (19,4,4): about 11 minutes
    python benchmarks/bench_guide.py --game 13x4k4 --moves e2 --guide checkpoints/10x4k4-e2.sqlite --max-seconds 1200

Each run is one worker, the proof search, ``question="first-wins"``, the position as one job (``--jobs 0``:
one job a reply, up to symmetry) and a fresh checkpoint in a temporary folder, in
a fresh Python process, one after the other (so the two see the same machine; nothing else should run beside
them). The guide is the checkpoint of the same game on a narrower width with the same first move
(``checkpoints/``): widths of the same residue modulo 3 open with the same move on boards four high. A run
that reaches ``--max-seconds`` reports ``unknown`` with the nodes searched.
Why it matters: docs/parallel.md, "Guided job runs".
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

_CHILD = """
import json, sys
from kinarow import Game
from kinarow.search import parallel
game, moves, guide, tt_mb, seconds, db, jobs = sys.argv[1:8]
position = Game(game).position(moves)
frontier = parallel.Frontier(position)
replies = set()
for cell in position.legal_moves():
    position.play(cell)
    replies.add(frontier.canonical(position.board)[0])
    position.undo()
result = parallel.solve(position, workers=1, jobs=int(jobs) or len(replies), search="proof",
                        question="first-wins", tt_mb=float(tt_mb), time_limit=float(seconds), checkpoint=db,
                        guide=guide or None)
print(json.dumps({"value": str(result.value), "nodes": result.nodes, "seconds": round(result.seconds, 1),
                  "splits": result.splits, "guided": result.guided, "jobs_solved": result.jobs_solved}))
"""


def measure(game: str, moves: str, guide: str | None, tt_mb: float, seconds: float, jobs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        db = os.path.join(folder, "run.sqlite")
        out = subprocess.run([sys.executable, "-c", _CHILD, game, moves, guide or "", str(tt_mb), str(seconds), db,
                              str(jobs)],
                             capture_output=True, text=True, check=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="22x4k4")
    parser.add_argument("--moves", default="e2 e3")
    parser.add_argument("--guide", default="checkpoints/19x4k4-e2.sqlite")
    parser.add_argument("--tt-mb", type=float, default=2048)
    parser.add_argument("--max-seconds", type=float, default=600)
    parser.add_argument("--jobs", type=int, default=1, help="1 (the default): the position itself, where the tested "
                        "player is to move; 0: one job a reply up to symmetry")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not Path(args.guide).is_file():
        print(f"bench_guide: the guide '{args.guide}' does not exist; run from the repository root", file=sys.stderr)
        return 2
    rows = []
    for label, guide in (("unguided", None), ("guided", args.guide)):
        row = {"run": label, **measure(args.game, args.moves, guide, args.tt_mb, args.max_seconds,
                                                args.jobs)}
        rows.append(row)
        if not args.json:
            print(f"{args.game} after {args.moves}, {label:<9} {row['value']:<14} {row['nodes']:>13,} nodes "
                  f"{row['seconds']:>8,.1f} s  {row['jobs_solved']:>4,} jobs answered, {row['splits']:,} splits "
                  f"({row['guided']:,} at the guide's move)",
                  flush=True)
    if args.json:
        print(json.dumps({"machine": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                          "game": args.game, "moves": args.moves, "guide": args.guide, "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
