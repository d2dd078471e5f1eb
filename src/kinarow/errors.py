"""Exceptions raised by kinarow.

Every error carries one sentence that names what was wrong and what is
allowed, so the command line can print it as it is and exit non-zero.
"""

from __future__ import annotations


class KinarowError(ValueError):
    """Base class of every error kinarow raises on bad input."""


class GameSpecError(KinarowError):
    """A game string could not be parsed or describes no valid game."""


class MoveError(KinarowError):
    """A move could not be read (bad cell name, bad notation)."""


class IllegalMoveError(MoveError):
    """A move was read but is not legal in the position (occupied, full column, game over)."""


class SolverLimitError(KinarowError):
    """The exact solver cannot handle this game (for example, too many cells)."""
