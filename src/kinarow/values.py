"""The words of the rules as typed values: game values, players and goals.

Each enum is a :class:`~enum.StrEnum` whose members *are* the strings the
package has always used (``Value.FIRST == "first"``), so JSON, the results
store and the command line see the same text as before, and code that still
compares with the plain strings keeps working while callers move over.

>>> Value.DRAW == "draw", str(Goal.MAKER_BREAKER), f"{Player.SECOND}"
(True, 'maker-breaker', 'second')
>>> Value("breaker") is Value.BREAKER
True

Text read from outside (a certificate, the results store, a checkpoint) becomes
a member with :func:`read`, which turns a bad string into a
:class:`~kinarow.errors.KinarowError` of the caller's choice.

"Does this apply here?" (a search, a kernel, a kind of certificate, a piece of
knowledge) is answered by a :class:`Fit`: true when it applies, else false with
the reason in words.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from kinarow.errors import KinarowError


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

    @classmethod
    def win(cls, goal: Goal, stone: int) -> Value:
        """The value that a win for the player of ``stone`` (1 or 2) is called in a game of ``goal``.

        >>> Value.win(Goal.MAKER_BREAKER, 2), Value.win(Goal.MISERE, 1)
        (<Value.BREAKER: 'breaker'>, <Value.FIRST: 'first'>)
        """
        if goal == Goal.MAKER_BREAKER:
            return cls.MAKER if stone == 1 else cls.BREAKER
        return cls.FIRST if stone == 1 else cls.SECOND

    @property
    def stone(self) -> int | None:
        """The stone of the player this value says wins (1 or 2); None for a draw or an unknown value.

        >>> Value.MAKER.stone, Value.SECOND.stone, Value.DRAW.stone
        (1, 2, None)
        """
        return _STONES.get(self)

    @property
    def winner(self) -> Player | None:
        """The player this value says wins; None for a draw or an unknown value.

        >>> Value.BREAKER.winner, Value.DRAW.winner
        (<Player.SECOND: 'second'>, None)
        """
        stone = _STONES.get(self)
        return None if stone is None else Player.of(stone)

    @property
    def sentence(self) -> str:
        """The value in words, as every front end says it: ``Value.DRAW.sentence == 'Draw with perfect play.'``"""
        return SENTENCES[self]

    @property
    def winner_words(self) -> str:
        """The winner this value names, in words (a value that names a player).

        >>> Value.FIRST.winner_words, Value.BREAKER.winner_words
        ('the first player (Black)', 'Breaker (White)')
        """
        stone = self.stone
        if stone is None:
            raise ValueError(f"the value '{self}' names no winner")
        colour = Player.of(stone).colour
        if self in (Value.MAKER, Value.BREAKER):
            return f"{self.capitalize()} ({colour})"
        return f"the {self} player ({colour})"


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

    @property
    def colour(self) -> str:
        """``Black`` for the first player, ``White`` for the second."""
        return "Black" if self is Player.FIRST else "White"

    @classmethod
    def of(cls, stone: int) -> Player:
        """The player of ``stone`` (1 or 2).

        >>> Player.of(2)
        <Player.SECOND: 'second'>
        """
        return cls.FIRST if stone == 1 else cls.SECOND


class Goal(StrEnum):
    """How completing a group decides a game (``Game.goal``)."""

    NORMAL = "normal"
    MISERE = "misere"
    MAKER_BREAKER = "maker-breaker"


class Outcome(StrEnum):
    """What a strategy guarantees its player against every reply (:func:`kinarow.strategies.verify.verify`)."""

    WIN = "win"
    DRAW = "draw"  # a draw or better
    FAILS = "fails"
    UNKNOWN = "unknown"  # the walk stopped first


class Bound(StrEnum):
    """The answer to a one-sided question (the parallel solver's ``--question``): one player cannot force a
    win, and the value is a draw or a win for the other. Reported where an exact :class:`Value` would be."""

    FIRST_OR_DRAW = "first-or-draw"
    SECOND_OR_DRAW = "second-or-draw"

    @property
    def winner(self) -> None:
        """A bound names no winner (as :attr:`Value.winner` of a draw): so ``answer.winner`` reads the same of
        either kind of answer."""
        return None

    @property
    def sentence(self) -> str:
        """The bound in words."""
        return SENTENCES[self]


def cannot_win(goal: Goal, player: Player) -> Value | Bound:
    """The answer "``player`` cannot force a win" as a value: the other player's win in Maker-Breaker (which has
    no draw), else the bound "a draw or the other player's win".

    >>> cannot_win(Goal.NORMAL, Player.FIRST), cannot_win(Goal.MAKER_BREAKER, Player.SECOND)
    (<Bound.SECOND_OR_DRAW: 'second-or-draw'>, <Value.MAKER: 'maker'>)
    """
    if goal == Goal.MAKER_BREAKER:
        return Value.MAKER if player is Player.SECOND else Value.BREAKER
    return Bound.SECOND_OR_DRAW if player is Player.FIRST else Bound.FIRST_OR_DRAW


@dataclass(frozen=True)
class Fit:
    """Whether something (a search, a kernel, a certificate's argument) applies to a game or position: true
    when it does; false when it does not, with ``reason`` saying why in one phrase, ready to put in a sentence.

    >>> bool(FITS), FITS.reason
    (True, '')
    >>> no = Fit.no("it needs gravity")
    >>> bool(no), no.reason
    (False, 'it needs gravity')
    """

    #: why it does not apply ('' when it does)
    reason: str = ""

    def __bool__(self) -> bool:
        return not self.reason

    @classmethod
    def no(cls, reason: str) -> Fit:
        """It does not apply, because of ``reason`` (a phrase that is not empty)."""
        if not reason:
            raise ValueError("a Fit that does not apply needs a reason")
        return cls(reason)


#: it applies
FITS = Fit()


_STONES: dict[Value, int] = {Value.FIRST: 1, Value.MAKER: 1, Value.SECOND: 2, Value.BREAKER: 2}

#: Each value (and bound) in words: the one place the command line, the web page and the API take them from.
SENTENCES: dict[Value | Bound, str] = {
    Value.FIRST: "First player (Black) wins with perfect play.",
    Value.SECOND: "Second player (White) wins with perfect play.",
    Value.DRAW: "Draw with perfect play.",
    Value.MAKER: "Maker (first player) wins with perfect play.",
    Value.BREAKER: "Breaker (second player) wins with perfect play.",
    Value.UNKNOWN: "Unknown: the search stopped before it had an answer.",
    Bound.SECOND_OR_DRAW: "First player (Black) cannot force a win: a draw or a second-player win "
                          "(only that was asked).",
    Bound.FIRST_OR_DRAW: "Second player (White) cannot force a win: a draw or a first-player win "
                         "(only that was asked).",
}

E = TypeVar("E", Value, Player, Goal, Bound, Outcome)


def read(kind: type[E], text: object, what: str, error: type[KinarowError] = KinarowError,
         allowed: Iterable[E] | None = None) -> E:
    """``text`` (read from JSON or a file) as a member of ``kind``; a string that names none, or one outside
    ``allowed``, raises ``error`` with one sentence naming ``what`` was read and the strings allowed.

    >>> read(Value, "draw", "the claim")
    <Value.DRAW: 'draw'>
    >>> read(Player, "third", "the player")
    Traceback (most recent call last):
    ...
    kinarow.errors.KinarowError: the player must be 'first' or 'second', not 'third'
    """
    members = list(kind) if allowed is None else list(allowed)
    if isinstance(text, str):
        try:
            member = kind(text)
        except ValueError:
            pass
        else:
            if member in members:
                return member
    names = [f"'{m}'" for m in members]
    choices = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    shown = f"'{text}'" if isinstance(text, str) else repr(text)
    raise error(f"{what} must be {choices}, not {shown}")
