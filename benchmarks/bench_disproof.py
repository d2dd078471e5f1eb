"""Blocking trees written from the proof search's table (:mod:`kinarow.search.disproof`): size, time, check.

Run from the repository root::

    python benchmarks/bench_disproof.py                                   # 5x5k4 6x6k5 7x7k5 from the start
    python benchmarks/bench_disproof.py --games 8x8k5 --moves "g8 d5 h3"  # one position (a frontier job)
    python benchmarks/bench_disproof.py --games 8x8k5 --jobs checkpoints/8x8k5.sqlite \\
        --checkpoint runs/8x8k5-tree.npz --out 8x8k5.draw.json.gz --attacker-pairings-only \\
        --seed certificates                                               # resumable
    python benchmarks/bench_disproof.py --games 8x8k5 --checkpoint runs/8x8k5-tree.npz --parts certificates

For each game (after ``--moves``): the first player's blocking tree (the
attacker is the player to move, or ``--attacker``) written from the proof
search, with its positions, pairing leaves, the searches asked again and the
seconds; the certificate is then checked by :mod:`kinarow.proofs.draw` (its
compiled walk) and its gzipped size given. With ``--jobs`` (the SQLite file of a one-sided parallel
solve) the defender's moves before the jobs' positions are the jobs' (the
first player's question only; strategy stealing gives the second half on the
empty board). ``--checkpoint`` keeps the tree written so far: saved every
minute and on SIGTERM or ``--time-limit``; the same command resumes, and
prints the share of the jobs' positions settled. ``--parts DIR`` writes nothing
new: for each first move whose tree the checkpoint finishes, it writes that
part as a certificate of its own (``GAME.MOVE.draw.json.gz``: after the move
the first player cannot win), once the checker accepts it; a part already in DIR
is kept. ``--seed DIR`` starts a checkpoint that is not on disk from the parts
in DIR (read back by :func:`kinarow.search.disproof.read_tree`), so that a run
resumes from the shipped parts when its checkpoint is gone.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

GAMES = ("5x5k4", "6x6k5", "7x7k5")


def _stop(signum: int, frame: Any) -> None:
    from kinarow.search.draw import StoppedError

    raise StoppedError("stopped by SIGTERM")


def _tick(settled: int) -> None:
    print(f"  {settled:,} positions settled", file=sys.stderr, flush=True)


def measure(text: str, moves: str, attacker: int | None, jobs: str | None, checkpoint: str | None,
            time_limit: float | None, out: str | None, tt_mb: float, defender_pairings: bool,
            workers: int = 1) -> dict[str, Any]:
    from kinarow import Game
    from kinarow.proofs import check_data, envelope
    from kinarow.proofs.draw import FORMAT, HALVES, STEALING, VERSION, claim_for, stealing_fit
    from kinarow.search.disproof import extract_tree, job_hints, settled_share
    from kinarow.search.draw import StoppedError

    game = Game(text)
    position = game.position(moves)
    attacker = attacker or position.to_move
    hint = None if jobs is None else job_hints(position, attacker, jobs)
    row: dict[str, Any] = {"game": text, "moves": moves, "attacker": attacker}
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    start, cpu = time.perf_counter(), time.process_time()
    try:
        half, stats, work = extract_tree(position, attacker, checkpoint=checkpoint, deadline=deadline, hint=hint,
                                         tt_mb=tt_mb, defender_pairings=defender_pairings, tick=_tick,
                                         workers=workers)
    except StoppedError as stopped:
        row.update(stopped=str(stopped), seconds=round(time.perf_counter() - start, 1),
                   cpu=round(time.process_time() - cpu, 1))
        if checkpoint is not None and hint is not None:
            done, total = settled_share(position, attacker, checkpoint, hint)
            row["jobs_settled"] = f"{done} / {total}"
        return row
    row.update(positions=stats.positions, leaves=stats.leaves, pairings=stats.pairings, reasked=work.reasked,
               child_asks=work.child_asks, nodes_reasked=work.nodes, seconds=round(time.perf_counter() - start, 1),
               cpu=round(time.process_time() - cpu, 1))
    names = [position.name(c) for c in position.moves]
    halves = {HALVES[attacker]: half}
    if attacker == 1 and stealing_fit(game, names):
        halves[HALVES[2]] = {"method": STEALING}
    data = {**envelope(FORMAT, VERSION, str(game), names, claim_for(game, {1 if n == HALVES[1] else 2
                                                                           for n in halves})), **halves}
    blob = gzip.compress(json.dumps(data).encode())
    row["gzip_bytes"] = len(blob)
    start = time.perf_counter()
    verdict = check_data(data, compiled=True)
    row.update(check=verdict.ok, check_seconds=round(time.perf_counter() - start, 1))
    if not verdict.ok:
        row["reason"] = verdict.reason
    if out is not None and verdict.ok:
        Path(out).write_bytes(blob)
    return row


def seed_checkpoint(text: str, folder: str, checkpoint: str) -> int:
    """Start a checkpoint from the parts in ``folder`` (the trees of finished first moves): how many."""
    from kinarow import Game
    from kinarow.proofs.draw import HALVES
    from kinarow.search.disproof import read_tree
    from kinarow.search.draw import Memory

    game = Game(text)
    memory = Memory(game.cells)
    files = sorted(Path(folder).glob(f"{text}.*.draw.json.gz"))
    for file in files:
        data = json.loads(gzip.decompress(file.read_bytes()))
        memory.merge(read_tree(game.position(" ".join(data["moves"])), 1, data[HALVES[1]]))
    memory.save(Path(checkpoint))
    return len(files)


def write_parts(text: str, checkpoint: str, folder: str) -> list[dict[str, Any]]:
    from kinarow import Game
    from kinarow.proofs import check_data, envelope
    from kinarow.proofs.draw import FORMAT, HALVES, VERSION, claim_for
    from kinarow.search.disproof import tree_parts

    game = Game(text)
    rows = []
    for after, half, stats in tree_parts(game.start(), 1, checkpoint, skip=lambda moves: Path(
            folder, f"{text}.{'-'.join(moves)}.draw.json.gz").exists()):
        names = [after.name(c) for c in after.moves]
        data = {**envelope(FORMAT, VERSION, str(game), names, claim_for(game, {1})), HALVES[1]: half}
        start = time.perf_counter()
        verdict = check_data(data, compiled=True)
        row = {"game": text, "moves": " ".join(names), "positions": stats.positions, "leaves": stats.leaves,
               "check": verdict.ok, "check_seconds": round(time.perf_counter() - start, 1)}
        if verdict.ok:
            blob = gzip.compress(json.dumps(data).encode())
            Path(folder, f"{text}.{'-'.join(names)}.draw.json.gz").write_bytes(blob)
            row["gzip_bytes"] = len(blob)
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES))
    parser.add_argument("--moves", default="", help="the position (moves from the start)")
    parser.add_argument("--attacker", type=int, choices=(1, 2), default=None)
    parser.add_argument("--jobs", default=None, help="SQLite file of a one-sided parallel solve's finished jobs")
    parser.add_argument("--checkpoint", default=None, help=".npz file keeping the tree written so far")
    parser.add_argument("--time-limit", type=float, default=None)
    parser.add_argument("--out", default=None, help="write the checked certificate here (gzipped JSON)")
    parser.add_argument("--tt-mb", type=float, default=256)
    parser.add_argument("--workers", type=int, default=1,
                        help="processes for the units of a tree over --jobs (one unit a position three moves on)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--seed", default=None, metavar="DIR",
                        help="a --checkpoint not on disk starts from the parts (finished first moves) in DIR")
    parser.add_argument("--parts", default=None, metavar="DIR",
                        help="write the finished first moves' trees of --checkpoint as certificates in DIR")
    parser.add_argument("--attacker-pairings-only", action="store_true",
                        help="test for pairing leaves only where the attacker is to move (faster on 8x8k5)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _stop)
    if args.parts is not None:
        if args.checkpoint is None:
            parser.error("--parts reads the trees of a --checkpoint")
        rows = [row for g in args.games for row in write_parts(g, args.checkpoint, args.parts)]
        print("\n".join(" ".join(f"{k}={v}" for k, v in row.items()) for row in rows))
        return 0
    if args.seed is not None and args.checkpoint is not None and not Path(args.checkpoint).exists():
        print(f"checkpoint started from {seed_checkpoint(args.games[0], args.seed, args.checkpoint)} parts",
              file=sys.stderr)
    rows = [measure(g, args.moves, args.attacker, args.jobs, args.checkpoint, args.time_limit, args.out, args.tt_mb,
                    not args.attacker_pairings_only, args.workers) for g in args.games]
    if args.json:
        print(json.dumps({"machine": os.uname().machine, "rows": rows}))
    else:
        for row in rows:
            print(" ".join(f"{k}={v}" for k, v in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
