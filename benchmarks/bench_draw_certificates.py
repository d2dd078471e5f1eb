"""Draw proofs (``kinarow.draw``): how big the blocking trees are, how long they take to build and to check.

Run from the repository root::

    python benchmarks/bench_draw_certificates.py                     # the quick draws (well under a minute)
    python benchmarks/bench_draw_certificates.py --games 7x4k4 --out certificates --max-seconds 7200
    python benchmarks/bench_draw_certificates.py --json
    python benchmarks/bench_draw_certificates.py --games 9x4k4 --no-solve --safety-budget 1000000 --out DIR
    python benchmarks/bench_draw_certificates.py --games 8x4k4 --no-solve --safety-budget 1000000 \
        --workers 2 --checkpoint WALKS --out DIR      # resumable: run it again after a stop

For each game: the solver's value (``--knowledge pairing``), then the draw
proof built from it (:func:`kinarow.search.draw.draw_certificate`), then the
rules-only checker on the written file. With ``--no-solve`` the walk alone
settles the draw (with strategy stealing): each defender move is checked by
a win test of at most ``--safety-budget`` nodes, and an undecided move is
tried and backed up from if the first player wins below it. Printed per game: positions and
pairing leaves of the first player's blocking tree, distinct pairings, the
gzip-compressed size, build and check seconds (wall), and the peak resident
memory of the process. With ``--out DIR`` the certificate is kept as
``DIR/GAME.draw.json.gz``. With ``--workers N`` the first player's openings
are walked as jobs in N processes ("walked" counts the positions all jobs
settled, so it shows their overlap); peak memory is then the coordinator's.
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import resource
import sys
import time
from pathlib import Path
from typing import Any

GAMES: tuple[str, ...] = ("3x3k3", "4x4k4", "5x4k4", "6x4k4", "5x5k4", "6x6k5", "5x5k5:torus")


def measure(game_text: str, out: Path | None, max_seconds: float | None, solve_first: bool = True,
            safety_budget: int | None = None, workers: int = 1, checkpoint: Path | None = None) -> dict[str, Any]:
    from kinarow import Game, solve
    from kinarow.errors import KinarowError
    from kinarow.proofs import check_data
    from kinarow.search.alphabeta import Searcher
    from kinarow.search.draw import StoppedError, draw_certificate

    game = Game(game_text)
    row: dict[str, Any] = {"game": game_text, "workers": workers}
    start = time.perf_counter()
    tt_mb = (2048 if game.cells > 30 else 1024) if game.cells > 20 else None
    searcher = Searcher(game, tt_mb=tt_mb, knowledge="pairing")
    if solve_first:
        result = solve(game, searcher=searcher, time_limit=max_seconds)
        row.update(value=result.value, solve_nodes=result.nodes, solve_seconds=round(result.seconds, 2))
        if result.value != "draw":
            return row
    deadline = None if max_seconds is None else start + max_seconds

    def tick(n: int) -> None:
        if workers > 1:  # jobs finished
            print(f"  {game_text}: {n} opening jobs done, {time.perf_counter() - start:,.0f} s", file=sys.stderr,
                  flush=True)
        elif n % (1 << 16) == 0:
            print(f"  {game_text}: {n:,} positions, {time.perf_counter() - start:,.0f} s", file=sys.stderr, flush=True)

    built = time.perf_counter()
    try:
        data, stats = draw_certificate(game.start(), searcher, tick=tick, deadline=deadline,
                                       safety_budget=safety_budget, workers=workers, tt_mb=tt_mb,
                                       checkpoint=None if checkpoint is None else checkpoint / game_text)
    except StoppedError:
        row["certificate"] = f"not finished in {max_seconds:g} s"
        return row
    except KinarowError as error:  # the walk found no defence: the first player wins (not proved here)
        row["certificate"] = str(error)
        return row
    row["value"] = "draw"
    row["build_seconds"] = round(time.perf_counter() - built, 2)
    tree = stats.get("first_cannot_win")
    if tree is not None:
        row.update(positions=tree.positions, leaves=tree.leaves, pairings=tree.pairings,
                   defender_moves=tree.defender_moves, safety_tests=tree.safety_tests, walked=tree.walked,
                   resumed=tree.resumed)
    raw = gzip.compress(json.dumps(data, separators=(",", ":")).encode(), 9)
    row["gz_bytes"] = len(raw)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{game_text}.draw.json.gz").write_bytes(raw)
    checked = time.perf_counter()
    verdict = check_data(json.loads(gzip.decompress(raw)))
    row.update(check_ok=verdict.ok, check_seconds=round(time.perf_counter() - checked, 2))
    row["peak_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES))
    parser.add_argument("--out", default=None, help="keep each certificate as DIR/GAME.draw.json.gz")
    parser.add_argument("--max-seconds", type=float, default=None, help="per game, solve and build together")
    parser.add_argument("--no-solve", action="store_true",
                        help="build the proof without solving first (the walk itself settles the draw)")
    parser.add_argument("--safety-budget", type=int, default=None,
                        help="nodes per safety test; undecided moves are tried and backed up from (default: none)")
    parser.add_argument("--workers", type=int, default=1,
                        help="walk the first player's openings as jobs in N processes (default 1)")
    parser.add_argument("--checkpoint", default=None,
                        help="keep each walk's memory in DIR/GAME (a stopped run resumes from it)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}", file=sys.stderr)
    header = ("game", "workers", "value", "solve_seconds", "positions", "walked", "leaves", "pairings", "gz_bytes",
              "build_seconds", "check_seconds", "check_ok", "peak_mib")
    if not args.json:
        print(" | ".join(header))
    for game in args.games:
        row = measure(game, Path(args.out) if args.out else None, args.max_seconds, not args.no_solve,
                      args.safety_budget, args.workers, Path(args.checkpoint) if args.checkpoint else None)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(" | ".join(str(row.get(h, row.get("certificate", "-")) if h == "positions" else row.get(h, "-"))
                             for h in header), flush=True)


if __name__ == "__main__":
    main()
