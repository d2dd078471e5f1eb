"""kinarow: play, solve and prove k-in-a-row games."""

from kinarow.errors import GameSpecError, IllegalMoveError, KinarowError, MoveError, SolverLimitError
from kinarow.game import Game
from kinarow.position import Position
from kinarow.solve import Result, Searcher, solve
from kinarow.strategies.verify import Verified, verify

__all__ = [
    "Game",
    "GameSpecError",
    "IllegalMoveError",
    "KinarowError",
    "MoveError",
    "Position",
    "Result",
    "Searcher",
    "SolverLimitError",
    "Verified",
    "solve",
    "verify",
]
__version__ = "0.1.0"
