"""The move a strategy certificate prescribes at given positions.

Run from the repository root::

    python benchmarks/strategy_moves.py certificates/16x4k4.strategy.json.gz "e2 e3" "e2 e1" "e2 d4"

Why: a job run of a wider board asks, for each reply to the first move, "can the first player win?", and the
proof search may follow a first-player move that is far harder to prove than another. The certificates of
narrower widths with the same first move name a move that won there; asked directly as a deeper job, such a
move was proved on (19,4,4) in seconds where the search's own choice had run for hours (docs/results.md,
"How each width was found"). A line is given as moves from the empty board; the cells are named as on the certificate's
board, so a line of a wider board reads the same when its stones lie within the narrower board's columns.

The script replays the certificate in the checker's order (every reply of the loser, transpositions once,
:func:`kinarow.proofs.tree.follow`) and stops once every line asked is reached; it reads walks (version 3) and
keyed files, not walks with shared replies (version 4). A line the strategy never reaches (a winner's move
other than the certificate's, or past the end of the game) is reported as such.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import sys
from pathlib import Path

from kinarow import Game
from kinarow.errors import KinarowError
from kinarow.position import Position
from kinarow.proofs.tree import StrategyTree, board_key, follow


class _AllReachedError(Exception):
    pass


def prescribed(tree: StrategyTree, lines: list[str]) -> dict[str, str | None]:
    """The certificate's move (a cell name) at the position after each line, None where it never moves there."""
    game = Game(tree.game)
    if tree.shared is not None:
        raise KinarowError("this reads walks (version 3) and keyed files; a walk with shared replies (version 4) "
                           "replays sets of replies at once")
    targets: dict[str, str] = {}
    for line in lines:
        pos = game.start()
        pos.play_moves(line)
        targets[board_key(pos)] = line
    found: dict[str, str | None] = dict.fromkeys(lines)
    start = game.position(" ".join(tree.moves))
    winner = 1 if str(tree.winner) == "first" else 2
    moves = iter(tree.walk) if tree.walk is not None else None

    def choose(pos: Position) -> int:
        key = board_key(pos)
        cell = next(moves) if moves is not None else pos.game.geometry.parse_cell(tree.choices[key])
        line = targets.get(key)
        if line is not None:
            found[line] = pos.name(cell)
            if all(v is not None for v in found.values()):
                raise _AllReachedError
        return cell

    with contextlib.suppress(_AllReachedError):
        follow(start, winner, choose)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("certificate", type=Path, help="a strategy certificate (kinarow.strategy)")
    parser.add_argument("lines", nargs="+", metavar="LINE", help="moves from the empty board, e.g. 'e2 e3'")
    args = parser.parse_args(argv)
    try:
        opener = gzip.open if args.certificate.suffix == ".gz" else open
        with opener(args.certificate, "rt") as handle:
            tree = StrategyTree.from_json(json.load(handle))
        for line, move in prescribed(tree, args.lines).items():
            print(f"{line}: {move if move is not None else 'not reached by the strategy'}")
    except (OSError, ValueError, KinarowError) as error:
        print(f"strategy_moves: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
