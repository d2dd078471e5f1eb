"""``kinarow analyse``: every legal move's value and the move on which the game then ends (a heat map with --svg).

The work is :func:`kinarow.search.analyse.analyse`; this module parses the options and renders the answer:
a board with each move's mark (``W9``: the player to move wins on move 9, ``D``: a draw, ``L10``: it loses
on move 10), over the columns under gravity. ``kinarow play`` shows the same with its ``hint`` command.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, TextIO

from kinarow.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    MOVES_HELP,
    SYMBOLS,
    add_picture_options,
    check_pictures,
    player_label,
    positive_float,
    positive_int,
    progress,
    save_pictures,
    tt_help,
)
from kinarow.errors import interrupted
from kinarow.game import Game
from kinarow.limits import MAX_TT_MB
from kinarow.position import Position

if TYPE_CHECKING:
    from kinarow.search.analyse import Analysis


def legend(position: Position, analysis: Analysis) -> str:
    """What the marks say, for the player to move."""
    who = player_label(position.to_move)
    unknown = " (? not solved within the limits)" if any(m.outcome == "unknown" for m in analysis.moves_list) else ""
    return f"Each move of {who}: Wn wins on move n, D draws, Ln loses on move n{unknown}."


def marks_text(position: Position, analysis: Analysis) -> str:
    """The board with each legal move's mark: in its cell, or over its column under gravity."""
    game, geometry = position.game, position.geometry
    marks = {m.cell: m.label for m in analysis.moves_list}
    columns = [geometry.name(geometry.cell(x, 0))[:-1] for x in range(game.m)]
    width = max([len(text) for text in marks.values()] + [len(name) for name in columns] + [1])
    margin = " " * (len(str(game.n)) + 1)
    lines = []
    if game.gravity:
        over = {geometry.xy(cell)[0]: text for cell, text in marks.items()}
        lines.append((margin + " ".join(over.get(x, "").ljust(width) for x in range(game.m))).rstrip())
    for y in reversed(range(game.n)):
        row = []
        for x in range(game.m):
            cell = geometry.cell(x, y)
            stone = position.board[cell]
            text = SYMBOLS[stone] if stone else marks.get(cell, ".") if not game.gravity else "."
            row.append(text.ljust(width))
        lines.append((f"{str(y + 1).rjust(len(str(game.n)))} " + " ".join(row)).rstrip())
    lines.append((margin + " ".join(name.ljust(width) for name in columns)).rstrip())
    return "\n".join(lines)


def print_analysis(position: Position, analysis: Analysis, out: TextIO, *, figures: bool = True) -> None:
    """The analysis as text: the value in words, the best moves and the marks on the board; with ``figures``
    also the game, the moves, the player to move, the nodes and the seconds."""
    print(analysis.describe(), file=out)
    rows: list[tuple[str, str]] = []
    if figures:
        rows.append(("game", analysis.game))
        if analysis.moves:
            rows.append(("after", analysis.moves))
        rows.append(("to move", player_label(position.to_move)))
    best = [m.move.rstrip("0123456789") if position.game.gravity else m.move for m in analysis.best]
    if best:
        rows.append(("best moves" if len(best) > 1 else "best move", ", ".join(best)))
    if analysis.stopped:
        rows.append(("stopped", analysis.stopped))
    if figures:
        rows += [("nodes", f"{analysis.nodes:,}"), ("seconds", f"{analysis.seconds:.3f}")]
    width = max((len(key) for key, _ in rows), default=0) + 1
    for key, value in rows:
        print(f"{key + ':':<{width}} {value}", file=out)
    print(legend(position, analysis), file=out)
    print(marks_text(position, analysis), file=out)


def picture(position: Position, analysis: Analysis) -> str:
    """The heat map of the analysis as SVG (:func:`kinarow.svg.heat_map`)."""
    from kinarow import svg

    who = player_label(position.to_move)
    rows = [("win", f"Wn: {who} wins on move n"), ("draw", "D: a draw"), ("loss", f"Ln: {who} loses on move n")]
    if any(m.outcome == "unknown" for m in analysis.moves_list):
        rows.append(("unknown", "?: not solved within the limits"))
    marks = {m.cell: (m.outcome, m.label) for m in analysis.moves_list}
    return svg.heat_map(position, marks, legend=rows, title=f"{position.game}: {who} to move")


def cmd_analyse(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow import svg
    from kinarow.search.analyse import analyse

    max_nodes = positive_int("--max-nodes", args.max_nodes)
    time_limit = positive_float("--time-limit", args.time_limit)
    tt_mb = positive_float("--tt-mb", args.tt_mb, upper=MAX_TT_MB)
    check_pictures(args)
    game = Game(args.game)
    if args.svg is not None or args.png is not None:
        svg.check_picture_size(game)  # before the search
    position = game.position(args.moves)
    with progress(f"analysing every move of {game}", err) as tick:
        analysis = analyse(position, time_limit=time_limit, tt_mb=tt_mb, max_nodes=max_nodes, on_tick=tick)
    if args.json:
        print(json.dumps(analysis.to_dict()), file=out)
    else:
        print_analysis(position, analysis, out)
    save_pictures(lambda: picture(position, analysis), args, err if args.json else out)
    if analysis.stopped == "interrupted":
        print(f"{interrupted()}: the analysis stopped before every move had its value.", file=err)
        return EXIT_INTERRUPTED
    return EXIT_OK


def add_commands(commands: Any) -> None:
    p = commands.add_parser(
        "analyse", help="every legal move's value and the move on which the game then ends, with perfect play"
    )
    p.add_argument("game", metavar="GAME", help="game string, e.g. 4x4k3 or 5x4k4:gravity")
    p.add_argument("--moves", default=None, help=MOVES_HELP)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument(
        "--time-limit", metavar="S", default=None, help="stop after S seconds (the moves not solved are 'unknown')"
    )
    p.add_argument("--max-nodes", metavar="N", default=None,
                   help="stop a move's search after about N nodes (that move and the rest are 'unknown')")
    p.add_argument("--tt-mb", metavar="MB", default=None, help=tt_help())
    add_picture_options(p)
    p.set_defaults(run=cmd_analyse)
