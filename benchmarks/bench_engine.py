"""Solve times and nodes/second of the exact solver, and a race against the plain method.

Run from the repository root::

    python benchmarks/bench_engine.py              # every game, 120 s budget each
    python benchmarks/bench_engine.py --quick      # a subset that takes seconds
    python benchmarks/bench_engine.py --json       # machine-readable results

Each game is solved from the empty board with a time budget (``--max-seconds``);
a game that runs out of time is reported with value ``unknown`` and the nodes it
searched. The numba kernels are loaded and run once on a tiny game before any
timing, so compile and cache-load time are not counted. The search seconds are
those reported by :func:`kinarow.solve` with a fresh :class:`kinarow.Searcher`
(built, and its table's pages touched, before the clock starts), so each game
starts from an empty table and no search pays for the table's page faults.

The side-by-side part solves (4,4,4) by the plain method of Tung & Lau
(memoised minimax over the base-3 encoding, no symmetry, no pruning beyond a
found win; ``benchmarks/baseline.py``, compiled with numba too) and by
:func:`kinarow.solve`, and prints the ratio of their times.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numba
import numpy as np

from baseline import plain_minimax  # benchmarks/baseline.py, beside this script
from kinarow import Game, Searcher, solve

GAMES: tuple[str, ...] = (
    "3x3k3",
    "4x4k4",
    "5x4k4",
    "4x3k3",
    "5x5k4p2q2",
    "6x6k4",
    "6x6k4p2q1",
    "4x4k4:gravity",
    "5x4k4:gravity",
    "6x5k4:gravity",
    "6x6k4:gravity",
    "7x6k4:gravity",
)
QUICK_GAMES: tuple[str, ...] = ("3x3k3", "4x4k4", "5x4k4", "4x3k3", "4x4k4:gravity", "5x4k4:gravity", "6x5k4:gravity")

#: Targets of the engine issue.
UNDER_A_SECOND = ("4x4k4", "5x4k4")
RATIO_TARGET = 100.0
C4_NPS_TARGET = 3_000_000
PLAIN_NAMES = {1: "first", 0: "draw", -1: "second"}


@dataclass
class GameRun:
    game: str
    value: str
    nodes: int
    seconds: float
    nodes_per_second: float
    best_move: str | None
    stopped: str | None


def machine() -> dict[str, Any]:
    """CPU model, core count and the versions that matter for the figures."""
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": np.__version__,
        "platform": platform.platform(),
    }


def warm_up() -> None:
    """Load (or compile) every numba kernel once so that no timing includes it."""
    solve("3x3k3")
    solve("4x4k3:gravity")
    plain_minimax("3x3k3")


def run_game(game: str, max_seconds: float, tt_mb: float | None) -> GameRun:
    searcher = Searcher(Game(game), tt_mb=tt_mb)
    searcher.prefault()
    result = solve(game, time_limit=max_seconds, searcher=searcher)
    return GameRun(
        game=game,
        value=result.value,
        nodes=result.nodes,
        seconds=result.seconds,
        nodes_per_second=result.nodes_per_second,
        best_move=result.best_move,
        stopped=result.stopped,
    )


def side_by_side(game: str, tt_mb: float | None, repeat: int) -> dict[str, Any]:
    """The plain method and the solver on the same game: values, nodes, best-of-``repeat`` times and the ratio.

    Both times are whole calls (the plain method's memo and the solver's table
    are set up inside them); the best of ``repeat`` runs damps the noise of a
    busy machine and of memory the operating system hands out for the first time.
    """
    plain_times: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        plain_value, plain_nodes = plain_minimax(game)
        plain_times.append(time.perf_counter() - start)
    solve_times: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = solve(game, tt_mb=tt_mb)
        solve_times.append(time.perf_counter() - start)
    plain_seconds, solve_seconds = min(plain_times), min(solve_times)
    return {
        "game": game,
        "repeat": repeat,
        "plain_value": PLAIN_NAMES[plain_value],
        "plain_nodes": plain_nodes,
        "plain_seconds": plain_seconds,
        "solve_value": result.value,
        "solve_nodes": result.nodes,
        "solve_seconds": solve_seconds,
        "ratio": plain_seconds / solve_seconds if solve_seconds > 0 else float("inf"),
        "agree": PLAIN_NAMES[plain_value] == result.value,
    }


HEADER = f"{'game':<16} {'value':<8} {'nodes':>14} {'seconds':>9} {'nodes/s':>12}  note"


def print_header() -> None:
    print(HEADER)
    print("-" * len(HEADER))


def print_row(r: GameRun) -> None:
    note = f"stopped: {r.stopped}" if r.stopped else (f"best {r.best_move}" if r.best_move else "")
    print(f"{r.game:<16} {r.value:<8} {r.nodes:>14,} {r.seconds:>9.3f} {r.nodes_per_second:>12,.0f}  {note}")


def targets(runs: list[GameRun], race: dict[str, Any]) -> list[dict[str, Any]]:
    by_game = {r.game: r for r in runs}
    out: list[dict[str, Any]] = []
    for game in UNDER_A_SECOND:
        r = by_game.get(game)
        if r is not None:
            met = r.value != "unknown" and r.seconds < 1.0
            out.append({"target": f"{game} in under a second of search", "measured": f"{r.seconds:.3f} s", "met": met})
    out.append(
        {
            "target": f"{race['game']} at least {RATIO_TARGET:.0f}x faster than the plain method",
            "measured": f"{race['ratio']:.1f}x",
            "met": race["ratio"] >= RATIO_TARGET,
        }
    )
    c4 = [r for r in runs if r.game.endswith(":gravity") and r.nodes > 0]
    if c4:
        # measured on the Connect-4 run with the most nodes, where set-up costs vanish
        big = max(c4, key=lambda r: r.nodes)
        out.append(
            {
                "target": f"at least {C4_NPS_TARGET:,} nodes/s on Connect-4 boards (one core)",
                "measured": f"{big.nodes_per_second:,.0f} nodes/s on {big.game} ({big.nodes:,} nodes)",
                "met": big.nodes_per_second >= C4_NPS_TARGET,
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-seconds", type=float, default=120.0, help="time budget per game (default 120)")
    parser.add_argument("--quick", action="store_true", help="only the games that take seconds")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument(
        "--tt-mb", type=float, default=None, help="transposition table size in MiB (default: sized to the game)"
    )
    parser.add_argument("--games", nargs="+", metavar="GAME", help="solve these games instead of the default list")
    parser.add_argument("--plain", default="4x4k4", help="game for the side-by-side with the plain method")
    parser.add_argument("--repeat", type=int, default=2, help="side-by-side runs of each method; the best counts")
    args = parser.parse_args(argv)

    info = machine()
    if not args.json:
        print(f"machine: {info['cpu']}, {info['cores']} cores; {info['platform']}")
        print(f"python {info['python']}, numba {info['numba']}, numpy {info['numpy']}")
        table = "sized to the game" if args.tt_mb is None else f"{args.tt_mb:g} MiB"
        print(f"budget: {args.max_seconds:g} s per game; table {table}; search seconds exclude compilation")
        print()
    warm_up()

    games = args.games or (QUICK_GAMES if args.quick else GAMES)
    runs: list[GameRun] = []
    for game in games:
        run = run_game(game, args.max_seconds, args.tt_mb)
        runs.append(run)
        if not args.json:
            if len(runs) == 1:
                print_header()
            print_row(run)
            sys.stdout.flush()

    race = side_by_side(args.plain, args.tt_mb, args.repeat)
    checks = targets(runs, race)
    if args.json:
        print(
            json.dumps(
                {
                    "machine": info,
                    "max_seconds": args.max_seconds,
                    "games": [asdict(r) for r in runs],
                    "plain_vs_solve": race,
                    "targets": checks,
                },
                indent=2,
            )
        )
        return 0
    print()
    print(f"side by side on {race['game']} (whole call each, best of {race['repeat']}, after warm-up):")
    print(f"  plain method  {race['plain_value']:<7} {race['plain_nodes']:>14,} nodes {race['plain_seconds']:>9.3f} s")
    print(f"  kinarow.solve {race['solve_value']:<7} {race['solve_nodes']:>14,} nodes {race['solve_seconds']:>9.3f} s")
    print(f"  ratio {race['ratio']:.1f}x" + ("" if race["agree"] else "   VALUES DISAGREE"))
    print()
    print("targets:")
    for c in checks:
        print(f"  [{'met' if c['met'] else 'NOT met':>7}] {c['target']}: {c['measured']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
