"""The position a blocking-proof finder (pairings, matching sets) works on, checked once for both."""

from __future__ import annotations

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position
from kinarow.proofs import blocking_fit

#: the most cells of a board whose pairings or matching sets are searched (64x64): building its groups (and the
#: SAT formula) grows with the board (702x702k5 took 17 s and 830 MB before any search); a larger board is refused
MAX_SEARCH_CELLS = 4096


def search_position(target: Game | Position | str, moves: str | None, what: str) -> Position:
    """A copy of ``target`` (a game's start, or a position) after ``moves``, for a search of ``what`` ("pairings",
    "matching sets"); one sentence when the board is too large or blocking proofs do not apply to the game."""
    position = target.copy() if isinstance(target, Position) else Game(target).start()
    if position.game.cells > MAX_SEARCH_CELLS:
        raise KinarowError(f"{position.game} has {position.game.cells:,} cells; {what} are searched on boards of "
                           f"at most {MAX_SEARCH_CELLS:,} cells (64x64)")
    fit = blocking_fit(position.game)
    if not fit:
        raise KinarowError(f"{what} need free placement, one stone a turn and a normal or Maker-Breaker goal: "
                           f"{fit.reason}")
    if moves:
        position.play_moves(moves)
    return position
