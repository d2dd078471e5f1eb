"""Strategies as players: small rules that name a move in a position, or say they do not apply.

The misère Connect-k strategies of Steele & Larremore, "Misere Connect Four
is solved" (see ``docs/misere.md``); ``delayed-tally`` is our composition of
two of them for k = 2 and odd heights (the paper's item for that case):

========================  ==========================================  ===============
name                      where                                       player
========================  ==========================================  ===============
``take-even``             even height                                 second
``delayed-take-even``     odd height >= 3 (pair rule in row 1)        second (even width),
                                                                      first (odd width)
``pair-row``              height 1, k >= 3 (take-other, else right)   either
``tally``                 height 1, k = 2 (template and tally)        second
``canonical-boards``      height 1, k = 3 (appendix, boards A-E)      first
``delayed-tally``         odd height >= 3, k = 2 (tally in row 1)     second
``half-turn``             cylinders of even width, k = 2, odd         second
                          height >= 3 (the column half a turn round)
========================  ==========================================  ===============

>>> from kinarow import Game
>>> s = get("take-even")
>>> pos = Game("7x6k4:gravity,misere").position("d")
>>> pos.name(s.move(pos))
'd2'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kinarow.errors import KinarowError
from kinarow.game import MISERE, Game
from kinarow.position import Position
from kinarow.strategies import rules
from kinarow.values import Player


class StrategyError(KinarowError):
    """A strategy was named that does not exist, or used where it does not apply."""


@dataclass(frozen=True)
class Strategy:
    """A named rule: :meth:`move` gives the cell it plays, or None where it prescribes nothing."""

    name: str
    code: int
    summary: str

    def players(self, game: Game) -> tuple[int, ...]:
        """The players (1 first, 2 second) this strategy is defined for in ``game``; empty if none."""
        m, n, k = game.m, game.n, game.k
        if self.code == rules.TAKE_EVEN:
            return (2,) if n % 2 == 0 else ()
        if self.code == rules.DELAYED_TAKE_EVEN:
            return ((2,) if m % 2 == 0 else (1,)) if n % 2 == 1 and n >= 3 and k >= 3 else ()
        if self.code == rules.DELAYED_TALLY:
            return (2,) if n % 2 == 1 and n >= 3 and k == 2 and m >= 2 else ()
        if self.code == rules.PAIR_ROW:
            return (1, 2) if n == 1 and k >= 3 else ()
        if self.code == rules.TALLY:
            return (2,) if n == 1 and k == 2 else ()
        if self.code == rules.CANONICAL_BOARDS:
            return (1,) if n == 1 and k == 3 else ()
        if self.code == rules.HALF_TURN:
            return (2,) if game.topology == "cylinder" and m % 2 == 0 and k == 2 and n % 2 == 1 and n >= 3 else ()
        return ()

    def where(self) -> str:
        """Where the strategy applies, in words."""
        return WHERE[self.name]

    def check_applies(self, game: Game, player: int | None = None) -> int:
        """The player the strategy plays in ``game`` (``player`` if given); one clear sentence if it cannot."""
        if (not game.gravity or game.goal != MISERE or game.hex or game.topology == "torus" or game.exact
                or (game.p, game.q) != (1, 1)):
            raise StrategyError(
                f"strategy '{self.name}' plays misère Connect-k (flags gravity,misere, optionally cylinder), "
                f"not {game}"
            )
        allowed = self.players(game)
        if not allowed:
            raise StrategyError(f"strategy '{self.name}' does not apply to {game}; it is for {self.where()}")
        if player is None:
            return allowed[0]
        if player not in allowed:
            names = " or ".join(Player.of(p) for p in allowed)
            who = Player.of(player)
            raise StrategyError(f"strategy '{self.name}' plays the {names} player in {game}, not the {who}")
        return player

    def move(self, position: Position) -> int | None:
        """The cell this strategy plays for the side to move, or None if it prescribes no legal move."""
        if position.is_over:
            return None
        game = position.game
        board = np.array(position.board, np.int8)
        heights = np.array(position.heights, np.int64)
        moves = np.array([*position.moves, 0], np.int64)
        cell = int(
            rules.rule_move(
                self.code, board, heights, game.m, game.n, game.k, moves, position.stones, position.to_move
            )
        )
        return cell if cell in position.legal_moves() else None


WHERE = {
    "take-even": "even heights (the second player)",
    "delayed-take-even": "odd heights >= 3 with k >= 3 (the second player on even widths, the first on odd widths)",
    "delayed-tally": "odd heights >= 3 with k = 2 and width >= 2 (the second player)",
    "pair-row": "height 1 with k >= 3 (either player)",
    "tally": "height 1 with k = 2 (the second player)",
    "canonical-boards": "height 1 with k = 3 (the first player)",
    "half-turn": "cylinders of even width with k = 2 and odd heights >= 3 (the second player)",
}

STRATEGIES: tuple[Strategy, ...] = (
    Strategy("take-even", rules.TAKE_EVEN, "play directly on top of the opponent's last stone"),
    Strategy(
        "delayed-take-even",
        rules.DELAYED_TAKE_EVEN,
        "answer row-1 moves by the pair rule (the first player opens on the rightmost cell), others on top",
    ),
    Strategy("pair-row", rules.PAIR_ROW, "take the other cell of the opponent's pair, else the rightmost empty cell"),
    Strategy("tally", rules.TALLY, "k = 2: the template and tally prescriptions, then in-template moves"),
    Strategy("canonical-boards", rules.CANONICAL_BOARDS, "k = 3: the appendix's segment strategy over boards A-E"),
    Strategy("delayed-tally", rules.DELAYED_TALLY, "k = 2: answer row-1 moves by tally, others on top"),
    Strategy("half-turn", rules.HALF_TURN, "even-width cylinders: answer in the column half a turn round"),
)


def names() -> list[str]:
    """The names of every strategy."""
    return [s.name for s in STRATEGIES]


def get(name: str) -> Strategy:
    """The strategy called ``name``; one clear sentence if there is none."""
    for s in STRATEGIES:
        if s.name == name:
            return s
    raise StrategyError(f"there is no strategy called '{name}'; the strategies are: {', '.join(names())}")


def applicable(game: Game) -> list[tuple[Strategy, int]]:
    """Every (strategy, player) pair defined for ``game``."""
    return [(s, p) for s in STRATEGIES for p in s.players(game)]
