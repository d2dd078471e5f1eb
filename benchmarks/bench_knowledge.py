"""What set matching saves: whole boards solved with each knowledge level, and the matching-set search speed.

Run from the repository root::

    python benchmarks/bench_knowledge.py                 # the table (Markdown), 120 s budget per solve
    python benchmarks/bench_knowledge.py --max-seconds 30 --games 4x4k4 5x4k4
    python benchmarks/bench_knowledge.py --json
    python benchmarks/bench_knowledge.py --max-seconds 10 --plot nodes.svg   # also chart the node counts

For each game and each level (``none``: plain search; ``pairing``: a node is
cut when a Hales-Jewett pairing proves a player cannot win; ``matching``: also
when the Maker-Breaker game on the live groups is a Breaker win, i.e. a
matching set exists) it prints the value, nodes, seconds and knowledge cuts.
A fresh searcher is built per solve and the kernels are loaded before the
clock. A solve that runs out of time is reported as ``unknown``.

The second part times :func:`kinarow.knowledge.matching.find` on 12-marker hypergraphs
(the goal: a matching set in under a second). ``--plot FILE`` draws the node
counts per game and level as a bar chart (SVG, or PNG when FILE ends in .png):
docs/matching.md shows it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

from kinarow import Game, solve, svg
from kinarow.cli.common import UsageError, check_outputs
from kinarow.knowledge.matching import find
from kinarow.limits import KNOWLEDGE_LEVELS
from kinarow.search.alphabeta import Searcher

GAMES = ("3x3k3", "4x4k4", "5x4k4", "6x4k4", "5x5k4", "6x5k4", "4x4k3", "5x5k5", "6x6k5", "4x4k4:maker-breaker")
TWELVE = {
    "Zetters block (12 markers, 9 groups)": "d1,e1,f1,g1 c2,d2,e2,f2 b3,c3,d3,e3 d1,c2,b3 e1,d2,c3 f1,e2,d3 g1,f2,e3 "
    "d1,d2 f1,f2",
    "empty 4x4 board (16 markers, 10 groups)": "a1,a2,a3,a4 b1,b2,b3,b4 c1,c2,c3,c4 d1,d2,d3,d4 a1,b1,c1,d1 "
    "a2,b2,c2,d2 a3,b3,c3,d3 a4,b4,c4,d4 a1,b2,c3,d4 a4,b3,c2,d1",
}


def warm_up() -> None:
    for level in KNOWLEDGE_LEVELS:
        solve("3x3k3", knowledge=level)
    find("ab acd bce")


def run(games: tuple[str, ...], max_seconds: float) -> list[dict[str, object]]:
    rows = []
    for spec in games:
        for level in KNOWLEDGE_LEVELS:
            searcher = Searcher(Game(spec), knowledge=level)
            searcher.prefault()
            result = solve(spec, knowledge=level, searcher=searcher, time_limit=max_seconds)
            rows.append({"game": spec, "knowledge": level, "value": result.value, "nodes": result.nodes,
                         "seconds": round(result.seconds, 3), "cuts": result.knowledge_cuts})
            print(f"  {spec:<22} {level:<9} {result.value:<8} {result.nodes:>12,} {result.seconds:>9.3f} s",
                  file=sys.stderr, flush=True)
    return rows


def markdown(rows: list[dict[str, object]], max_seconds: float) -> str:
    out = [
        "| game | value | nodes: none | pairing | matching | seconds: none | pairing | matching |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    by_game: dict[str, dict[str, dict[str, object]]] = {}
    for r in rows:
        by_game.setdefault(str(r["game"]), {})[str(r["knowledge"])] = r
    for game, levels in by_game.items():
        values = {str(v["value"]) for v in levels.values()} - {"unknown"}
        value = values.pop() if len(values) == 1 else "/".join(sorted(values)) or "unknown"
        nodes = " | ".join(
            f"{levels[lv]['nodes']:,}" + ("*" if levels[lv]["value"] == "unknown" else "") for lv in KNOWLEDGE_LEVELS
        )
        secs = " | ".join(f"{levels[lv]['seconds']:.3f}" for lv in KNOWLEDGE_LEVELS)
        out.append(f"| {game} | {value} | {nodes} | {secs} |")
    out.append("")
    out.append(f"\\* no answer within {max_seconds:g} s (nodes searched until then).")
    return "\n".join(out)


def chart(rows: list[dict[str, object]], max_seconds: float) -> str:
    """The node counts of ``rows`` (as :func:`run` returns them) as an SVG bar chart: one group of bars per game,
    one bar per knowledge level, on a log scale; a game marked * had a solve stopped by the time limit."""
    by_game: dict[str, dict[str, dict[str, object]]] = {}
    for r in rows:
        by_game.setdefault(str(r["game"]), {})[str(r["knowledge"])] = r
    games = [g + (" *" if any(r["value"] == "unknown" for r in lv.values()) else "") for g, lv in by_game.items()]
    series = [(level, [float(lv[level]["nodes"]) if level in lv else None for lv in by_game.values()])  # type: ignore[arg-type]
              for level in KNOWLEDGE_LEVELS]
    note = f"* a solve stopped after {max_seconds:g} s: its bar is the nodes searched until then" if "*" in "".join(
        games) else ""
    return svg.bar_chart(svg.BarChart(games, series, title="Nodes to solve each board, by knowledge level",
                                      y_label="search nodes (log scale)", log=True, note=note))


def time_find() -> list[dict[str, object]]:
    rows = []
    for name, spec in TWELVE.items():
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            result = find(spec)
            best = min(best, time.perf_counter() - start)
        rows.append({"hypergraph": name, "breaker_wins": result.breaker_wins, "nodes": result.nodes,
                     "levels": result.matching_set.depth if result.matching_set else None, "seconds": round(best, 4)})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES))
    parser.add_argument("--max-seconds", type=float, default=120.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--plot", metavar="FILE", default=None, help="chart the node counts as SVG (or .png)")
    args = parser.parse_args()
    try:
        check_outputs(("--plot", args.plot))
    except UsageError as error:
        print(f"bench_knowledge.py: error: {error}", file=sys.stderr)
        return 2
    warm_up()
    rows = run(tuple(args.games), args.max_seconds)
    finds = time_find()
    if args.plot:
        svg.save(chart(rows, args.max_seconds), args.plot)
    if args.json:
        print(json.dumps({"solves": rows, "find": finds}))
        return 0
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; python "
          f"{platform.python_version()}")
    print(f"command: python benchmarks/bench_knowledge.py --max-seconds {args.max_seconds:g}"
          + (f" --games {' '.join(args.games)}" if tuple(args.games) != GAMES else ""))
    print()
    print(markdown(rows, args.max_seconds))
    print()
    print("matching-set search (kinarow.knowledge.matching.find, best of 3; goal: a 12-marker hypergraph under 1 s):")
    for r in finds:
        met = "met" if r["hypergraph"].startswith("Zetters") and float(r["seconds"]) < 1.0 else ""
        print(f"  {r['hypergraph']:<42} breaker wins: {r['breaker_wins']}, {r['levels']} levels, "
              f"{r['seconds']:.4f} s {met}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
