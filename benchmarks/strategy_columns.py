"""Where a winning strategy plays: the columns of its prescribed moves, forced or free.

Run from the repository root::

    python benchmarks/strategy_columns.py certificates/9x4k4.strategy.json.gz certificates/14x4k4.strategy.json.gz
    python benchmarks/strategy_columns.py --columns-only certificates/17x4k4.strategy.json.gz

The question behind it (the (m,4,4) issue's "uniform argument"): is a width's winning strategy local, the
winner's moves staying inside a window of columns near its first move whatever the loser does elsewhere? If so,
one certificate on the window could cover every wider board. For each strategy certificate (a walk or a keyed
file of a rectangular board) the script counts the winner's prescribed moves by column, split into *forced*
moves (the loser holds every other cell of a group through the cell: the block of a threat to win at once) and *free*
ones (every other prescribed move). Wins on the spot are not prescribed, so not counted. It prints one row per
certificate: the moves, the free moves in the last quarter of the columns, and the rightmost column with a free
move. ``--columns-only`` counts every move of the walk by column without reading the positions (no forced/free
split; for walks of millions of moves, whose boards would not fit in memory).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from pathlib import Path

from kinarow import Game
from kinarow.errors import KinarowError
from kinarow.geometry import column_name
from kinarow.proofs.tree import StrategyTree


def read(path: Path) -> StrategyTree:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as handle:
        return StrategyTree.from_json(json.load(handle))


def counts(tree: StrategyTree, columns_only: bool) -> tuple[Counter[int], Counter[int]]:
    """(free, forced) prescribed moves by column number (``forced`` empty with ``columns_only``)."""
    game = Game(tree.game)
    geometry, rows = game.geometry, game.n
    free: Counter[int] = Counter()
    forced: Counter[int] = Counter()
    if columns_only:
        if tree.walk is None:
            raise KinarowError("--columns-only reads a walk (version 3); this certificate is keyed by board")
        free.update(cell // rows for cell in tree.walk)
        return free, forced
    loser = "o" if tree.winner == "first" else "x"
    through: dict[int, list[tuple[int, ...]]] = {}
    for group in geometry.groups:
        for cell in group:
            through.setdefault(cell, []).append(group)
    for key, name in tree.expanded().choices.items():
        cell = geometry.parse_cell(name)
        blocks = any(all(key[c] == loser for c in group if c != cell) for group in through[cell])
        (forced if blocks else free)[cell // rows] += 1
    return free, forced


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("certificates", nargs="+", type=Path, help="strategy certificates (.json or .json.gz)")
    parser.add_argument("--columns-only", action="store_true", help="count the walk's moves by column only")
    args = parser.parse_args(argv)
    what = "moves" if args.columns_only else "free moves"
    print(f"| certificate | prescribed | forced | free | {what} in the last quarter of the columns | rightmost |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for path in args.certificates:
        try:
            tree = read(path)
            game = Game(tree.game)
            if str(game.topology) != "rect" or game.hex:
                raise KinarowError(f"{game} is not a rectangular board")
            free, forced = counts(tree, args.columns_only)
        except (OSError, ValueError, KinarowError) as err:
            print(f"{path}: {err}", file=sys.stderr)
            return 2
        quarter = game.m - game.m // 4
        late = sum(n for column, n in free.items() if column >= quarter)
        total = sum(free.values()) + sum(forced.values())
        rightmost = column_name(max(free)) if free else "-"
        split = "-" if args.columns_only else f"{sum(forced.values()):,}"
        free_words = "-" if args.columns_only else f"{sum(free.values()):,}"
        print(f"| {path.name} | {total:,} | {split} | {free_words} | {late:,} ({late / max(total, 1):.0%}) "
              f"| {rightmost} of {column_name(game.m - 1)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
