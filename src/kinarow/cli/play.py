"""``kinarow play``: a game against the solver (or a proven strategy) in the terminal."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TextIO

from kinarow.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    player_label,
    positive_float,
    positive_int,
    result_player,
    result_sentence,
    tt_help,
)
from kinarow.errors import KinarowError, MoveError, shown
from kinarow.game import Game
from kinarow.limits import MAX_THREADS, MAX_TT_MB, engine_threads
from kinarow.position import Position, read_moves
from kinarow.values import Value

if TYPE_CHECKING:
    from kinarow.search.alphabeta import Searcher

PLAY_HELP = """\
Type a move and press Enter:
  a cell name such as b2 (column letter, then row number; a1 is bottom-left);
  under gravity a column letter (d) or number (4) is enough;
  when you place several stones in one turn, give them together (b2 c3 or b2,c3) or one at a time.
Commands: undo (take back your last turn and the engine's reply, or the stones placed so far this turn),
hint (each move's value and the move on which the game then ends with perfect play),
help (or ?), quit (or exit, or Ctrl-D). Commands are whole words, so a single letter is always a column."""

#: the commands of the prompt: whole words (no column of a board of at most 702 columns has more than two
#: letters, so none of them is a column) and '?'
COMMANDS = {"quit": "quit", "exit": "quit", "help": "help", "?": "help", "undo": "undo", "hint": "hint"}


# -- play ------------------------------------------------------------------------------
def cmd_play(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.search.alphabeta import Searcher

    tt_mb = positive_float("--tt-mb", args.tt_mb, upper=MAX_TT_MB)
    think = positive_float("--think", args.think) or 10.0
    game = Game(args.game)
    human = 2 if args.second else 1
    strategy = None
    if args.engine is not None:
        from kinarow.strategies import get

        strategy = get(args.engine)
        wanted = None if not (args.first or args.second) else 3 - human
        human = 3 - strategy.check_applies(game, wanted)
    threads = positive_int("--threads", args.threads, upper=MAX_THREADS) or engine_threads()
    searcher = Searcher(game, tt_mb=tt_mb, threads=threads) if strategy is None else None
    engine = 3 - human
    position = game.start()
    hints: list[Searcher] = [searcher] if searcher is not None else []  # made at the first hint otherwise
    by = f" playing the {strategy.name} strategy" if strategy is not None else ""
    print(
        f"{game}: you are {player_label(human)}, kinarow is {player_label(engine)}{by}. Type 'help' for help.",
        file=out,
    )
    print(position.text(), file=out)
    while not position.is_over:
        if position.to_move == engine and strategy is not None:
            cell = strategy.move(position)
            how = f"by {strategy.name}"
            if cell is None:
                cell = position.legal_moves()[0]
                how = f"({strategy.name} prescribes nothing here, so the leftmost legal move)"
            position.play(cell)
            name = position.name(cell)
            print(f"kinarow plays column {name.rstrip('0123456789')} ({name}) {how}.", file=out)
            print(position.text(), file=out)
            continue
        if position.to_move == engine and searcher is not None:
            if not _engine_turn(position, searcher, engine, out, think):
                print("Interrupted: the engine's search was stopped; the game ends here.", file=err)
                return EXIT_INTERRUPTED
            print(position.text(), file=out)
            continue
        outcome = _human_input(position, human, out, lambda: _hint(position, hints, think, out))
        if outcome == "quit":
            print("Game abandoned.", file=out)
            return EXIT_OK
        if outcome == "moved":
            print(position.text(), file=out)
    assert position.result is not None
    winner = result_player(game, position.result)
    verdict = "" if winner is None else (" You win!" if winner == human else " kinarow wins.")
    print(f"Game over: {result_sentence(game, position.result)}{verdict}", file=out)
    return EXIT_OK


def _engine_turn(position: Position, searcher: Searcher, engine: int, out: TextIO, think: float) -> bool:
    """Play the engine's whole turn; False if its search was interrupted."""

    game = position.game
    placed: list[str] = []
    expectation: Value | None = Value.DRAW
    while not position.is_over and position.to_move == engine:
        try:
            value, cell = searcher.choose_move(position, think)
        except KeyboardInterrupt:
            return False
        expectation = None if value is Value.UNKNOWN else value
        position.play(cell)
        name = position.name(cell)
        placed.append(f"column {name.rstrip('0123456789')} ({name})" if game.gravity else name)
    if expectation is None:
        outlook = f"the position is not solved within {think:g} s, so it plays a move that avoids every loss it saw"
    elif expectation == Value.DRAW:
        outlook = "it expects a draw"
    elif result_player(game, expectation) == engine:
        outlook = "it expects to win"
    else:
        outlook = "it expects to lose against best play"
    print(f"kinarow plays {', '.join(placed)}; {outlook}.", file=out)
    return True


def _hint(position: Position, searchers: list[Searcher], think: float, out: TextIO) -> None:
    """``hint``: each legal move's value and the move on which the game then ends, found within ``think``
    seconds (the engine's searcher, or one made for the hints, kept in ``searchers``)."""
    from kinarow.cli.analyse import print_analysis
    from kinarow.search.alphabeta import Searcher
    from kinarow.search.analyse import analyse

    try:
        if not searchers:
            searchers.append(Searcher(position.game))
        analysis = analyse(position, time_limit=think, searcher=searchers[0])
    except KinarowError as error:
        print(f"No hint: {error}.", file=out)
        return
    print_analysis(position, analysis, out, figures=False)


def _human_input(
    position: Position, human: int, out: TextIO, hint: Callable[[], None]
) -> Literal["moved", "unchanged", "quit"]:
    """Read one line from the human and act on it (``hint()`` answers the hint command); say whether the board
    changed or the human quit."""
    left = position.stones_left
    prompt = f"Your move as {player_label(human)}" + (f", {left} stones left this turn" if left > 1 else "") + ": "
    try:
        line = input(prompt)
    except EOFError:
        print(file=out)
        return "quit"
    command = line.strip().lower()
    action = COMMANDS.get(command) if command.isascii() else None
    if action == "quit":
        return "quit"
    if action == "help":
        print(PLAY_HELP, file=out)
        return "unchanged"
    if action == "undo":
        return "moved" if _undo(position, human, out) else "unchanged"
    if action == "hint":
        hint()
        return "unchanged"
    if not command:
        return "unchanged"
    try:
        items = read_moves(line)
        tokens = [token for item in items if isinstance(item, list) for token in item]
        if not tokens:
            raise MoveError(f"{shown(line.strip())} names no move; type a cell such as b2, or 'help'")
        for token in tokens:  # every word must name a cell (or a column) before the stones are counted
            _readable(position, token)
        if len(tokens) > left:
            stones = "1 stone" if left == 1 else f"{left} stones"
            raise MoveError(f"you have {stones} left this turn but gave {len(tokens)} moves")
        if len(tokens) < len(items):  # move numbers given: play_moves checks them (and names the move on error)
            position.play_moves(line)
        else:
            start = position.stones
            try:
                for token in tokens:
                    cell = position.parse_move(token)
                    if cell in position.moves[start:]:  # empty when typed: the same cell given again
                        raise MoveError(f"{position.name(cell)} is given twice in one turn; each stone needs a "
                                        "cell of its own")
                    position.play(cell)
            except KinarowError:
                while position.stones > start:
                    position.undo()
                raise
    except KinarowError as error:
        print(f"{error}; try again.", file=out)
        return "unchanged"
    return "moved"


def _readable(position: Position, token: str) -> None:
    """A MoveError unless ``token`` names a cell (under gravity also a column) of the board, occupied or not."""
    geometry = position.geometry
    if position.game.gravity and token.isascii() and (token.isdigit() or token.isalpha()):
        geometry.parse_column(token)
    else:
        geometry.parse_cell(token)


def _undo(position: Position, human: int, out: TextIO) -> bool:
    """Take back the stones the human placed so far this turn; or else the engine's last turn and the human's
    turn before it. Says what was taken back."""
    if not any(position.board[c] == human for c in position.moves):
        print("There is no move of yours to take back.", file=out)
        return False
    if position.board[position.moves[-1]] == human:  # part of the human's turn is on the board
        taken = _take_back(position, human)
        print(f"Took back {_stones(taken)} you placed this turn ({', '.join(taken)}).", file=out)
        return True
    reply = _take_back(position, 3 - human)
    mine = _take_back(position, human)
    print(f"Took back your last turn ({', '.join(mine)}) and the reply ({', '.join(reply)}).", file=out)
    return True


def _take_back(position: Position, player: int) -> list[str]:
    """Undo the last stones while they are ``player``'s; their names in the order they were played."""
    taken: list[str] = []
    while position.moves and position.board[position.moves[-1]] == player:
        taken.append(position.name(position.undo()))
    return taken[::-1]


def _stones(names: list[str]) -> str:
    return "the stone" if len(names) == 1 else f"the {len(names)} stones"


def add_commands(commands: Any) -> None:
    p = commands.add_parser("play", help="play against the solver in the terminal")
    p.add_argument("game", metavar="GAME", help="game string, e.g. 3x3k3 or 4x4k3:gravity")
    side = p.add_mutually_exclusive_group()
    side.add_argument("--first", action="store_true", help="you play Black and move first (the default)")
    side.add_argument("--second", action="store_true", help="you play White; the engine moves first")
    p.add_argument(
        "--think", metavar="S", default="10", help="seconds the engine may search per stone (default 10); "
        "when a position is not solved in time it plays a move that avoids every loss it saw"
    )
    p.add_argument("--tt-mb", metavar="MB", default=None, help=tt_help())
    p.add_argument("--threads", metavar="N", default=None,
                   help="Connect-k (gravity) games: the engine runs N searches of each position at once, sharing its "
                   "table (default 2 on a machine of two cores or more, else 1)")
    p.add_argument(
        "--engine", metavar="STRATEGY", default=None,
        help="play against a strategy (e.g. take-even) instead of the solver; see 'kinarow verify'",
    )
    p.set_defaults(run=cmd_play)
