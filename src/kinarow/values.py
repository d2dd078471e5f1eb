"""The words of the rules as typed values: game values, players and goals.

Each enum is a :class:`~enum.StrEnum` whose members *are* the strings the
package has always used (``Value.FIRST == "first"``), so JSON, the results
store and the command line see the same text as before, and code that still
compares with the plain strings keeps working while callers move over.

>>> Value.DRAW == "draw", str(Goal.MAKER_BREAKER), f"{Player.SECOND}"
(True, 'maker-breaker', 'second')
>>> Value("breaker") is Value.BREAKER
True
"""

from __future__ import annotations

from enum import StrEnum


class Value(StrEnum):
    """The value of a position with perfect play, as :class:`kinarow.search.solve.Result` reports it.

    ``FIRST``/``SECOND`` name the winner in normal and misère games, ``MAKER``/``BREAKER``
    in Maker-Breaker (where there is no draw); ``UNKNOWN`` means the search stopped first.
    """

    FIRST = "first"
    SECOND = "second"
    DRAW = "draw"
    MAKER = "maker"
    BREAKER = "breaker"
    UNKNOWN = "unknown"


class Player(StrEnum):
    """A player by turn order: the first player is Black (stone 1), the second White (stone 2)."""

    FIRST = "first"
    SECOND = "second"

    @property
    def stone(self) -> int:
        """The player's stone on the board: 1 for the first player, 2 for the second.

        >>> Player.SECOND.stone
        2
        """
        return 1 if self is Player.FIRST else 2


class Goal(StrEnum):
    """How completing a group decides a game (``Game.goal``)."""

    NORMAL = "normal"
    MISERE = "misere"
    MAKER_BREAKER = "maker-breaker"
