"""The engine contract: the four questions every search of kinarow answers, by one name each.

An *engine* is a search bound to one game, with the table that carries what its
earlier questions found. Three implement :class:`Engine`:

* :class:`kinarow.search.solve.Searcher`: alpha-beta win tests over bitboards
  (boards of at most 64 cells, any rules; its exact values of Connect-k games
  come from the score search);
* :class:`kinarow.search.proof_search.ProofSearcher`: df-pn proof search (free
  placement, one stone a turn, the normal or Maker-Breaker goal, at most 128 cells);
* :class:`kinarow.search.connect.ScoreSearcher`: Connect-k exact scores (gravity
  on a rectangle, the normal goal, width x (height + 1) at most 64).

The questions, in the values of :mod:`kinarow.values` (no kernel encoding
crosses this line; a side is a :class:`~kinarow.values.Player`):

* :meth:`Engine.value` -- the value of a position with perfect play, a
  :class:`~kinarow.values.Value`; ``Value.UNKNOWN`` when the budgets ran out first.
* :meth:`Engine.wins` -- can ``player`` force a win from here? Yes is that
  player's win (``answer.winner is player``); no is
  :func:`~kinarow.values.cannot_win` (a :class:`~kinarow.values.Bound`, or the
  other player's win in Maker-Breaker); ``Value.UNKNOWN`` when the budgets ran
  out first.
* :meth:`Engine.move` -- a move (a cell) that keeps the value: a winning move
  for the winner, a drawing move in a draw, any move for the loser; None when
  the budgets ran out first.
* :meth:`Engine.walk` -- the winner's strategy from a position it wins, as a
  :class:`~kinarow.proofs.tree.StrategyTree` walk that the checker
  (:func:`kinarow.proofs.tree.check`) verifies without the search code.

The budgets (``max_nodes``, ``time_limit`` in seconds) bound each search an
answer takes. An engine that cannot answer a question for its game says so in
one sentence (:class:`~kinarow.errors.KinarowError`); whether an engine takes a
game at all is a :class:`~kinarow.values.Fit`
(:func:`kinarow.search.connect.score_search_fit`,
:func:`kinarow.search.proof_search.proof_search_fit`).

The engines' own methods stay for what only they do, with the statistics the
four answers leave out: ``Searcher.search`` and ``best_move`` (the kernel's
value and move, for the router and the strategy extraction), ``forces_win``
(a win test that starts no new root, run in a thread a job run stops),
``ProofSearcher.attacker_wins`` (an :class:`~kinarow.search.proof_search.Answer`
with the zone and the pairing counts) and ``keeping_move`` (with its nodes),
``ScoreSearcher.score`` (the exact score: the game's length too).

>>> from kinarow import Game
>>> from kinarow.search.solve import Searcher
>>> from kinarow.values import Player
>>> engine: Engine = Searcher("3x3k3")
>>> engine.value(Game("3x3k3").start()), engine.wins(Game("3x3k3").start(), Player.FIRST)
(<Value.DRAW: 'draw'>, <Bound.SECOND_OR_DRAW: 'second-or-draw'>)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position
from kinarow.proofs.tree import StrategyTree, follow
from kinarow.values import Bound, Player, Value, cannot_win


@runtime_checkable
class Engine(Protocol):
    """A search bound to one game that answers the four questions (see the module's docstring)."""

    game: Game

    def value(self, position: Position, *, max_nodes: int | None = None,
              time_limit: float | None = None) -> Value:
        """The value of ``position`` with perfect play; ``Value.UNKNOWN`` when the budgets ran out first."""
        ...

    def wins(self, position: Position, player: Player, *, max_nodes: int | None = None,
             time_limit: float | None = None) -> Value | Bound:
        """Can ``player`` force a win from ``position``? That player's win, :func:`~kinarow.values.cannot_win`,
        or ``Value.UNKNOWN`` when the budgets ran out first."""
        ...

    def move(self, position: Position, value: Value | None = None, *, max_nodes: int | None = None,
             time_limit: float | None = None) -> int | None:
        """A move of the side to move that keeps ``value`` (the value of ``position``; found first when not
        given); None when the budgets ran out first or the game is over."""
        ...

    def walk(self, position: Position, winner: Player, *,
             on_tick: Callable[[int], None] | None = None) -> StrategyTree:
        """The strategy of ``winner``, who wins from ``position``, as a walk; ``on_tick(nodes)`` hears the
        nodes of the searches it asks. A position ``winner`` does not win is refused in one sentence."""
        ...


def check_player(player: object, what: str = "the player") -> Player:
    """``player`` checked: a :class:`~kinarow.values.Player` (not a stone number), else one sentence."""
    if not isinstance(player, Player):
        raise KinarowError(f"{what} is Player.FIRST or Player.SECOND, not {player!r}")
    return player


def mover_value(position: Position, sign: int) -> Value:
    """The value of ``position`` from a kernel's answer for the side to move: 1 it wins, 0 a draw, -1 it loses
    (the alpha-beta kernel's ``WIN``, ``DRAW``, ``LOSS``; the sign of a Connect-k score)."""
    if sign == 0:
        return Value.DRAW
    mover = position.to_move
    return Value.win(position.game.goal, mover if sign > 0 else 3 - mover)


def answer(position: Position, player: Player, wins: bool | None) -> Value | Bound:
    """The answer of :meth:`Engine.wins` from a search's yes (True), no (False) or nothing (None): the kernel
    boundary, where the engines turn their own encodings into values."""
    if wins is None:
        return Value.UNKNOWN
    goal = position.game.goal
    return Value.win(goal, player.stone) if wins else cannot_win(goal, player)


def over_answer(position: Position, player: Player) -> Value | Bound:
    """:meth:`Engine.wins` of a position where the game is over: yes when ``player`` won it."""
    assert position.result is not None
    return answer(position, player, position.result.winner is player)


def refuse_walk(position: Position, winner: Player, said: Value | Bound) -> None:
    """Raise the sentence of a walk asked of a position ``winner`` does not win (``said``: its win question's
    answer); return when it does win."""
    if said.winner is winner:
        return
    who = Value.win(position.game.goal, winner.stone).winner_words
    where = position.move_text() or "the start"
    if said is Value.UNKNOWN:
        raise KinarowError(f"the search could not tell whether {who} wins after {where}, so it has no strategy "
                           "to walk")
    raise KinarowError(f"{who} cannot force a win after {where}, so there is no winning strategy to walk")


def value_to_keep(engine: Engine, position: Position, value: Value | None, *, max_nodes: int | None = None,
                  time_limit: float | None = None) -> Value | None:
    """The value a :meth:`Engine.move` keeps: ``value`` when it is given and known, else the engine's own answer
    within the budgets; None when the game is over or the answer stays unknown (there is then no move to give)."""
    if position.is_over:
        return None
    if value is None or value is Value.UNKNOWN:
        value = engine.value(position, max_nodes=max_nodes, time_limit=time_limit)
    return None if value is Value.UNKNOWN else value


def walk_tree(position: Position, winner: Player, walk: bytes) -> StrategyTree:
    """The winning strategy of ``winner`` from ``position`` given as a walk (version 3) of its moves."""
    game = position.game
    return StrategyTree(str(game), [position.name(c) for c in position.moves], Value.win(game.goal, winner.stone),
                        walk=walk)


def walk_by_moves(position: Position, winner: Player, choose: Callable[[Position], int]) -> StrategyTree:
    """The strategy of ``winner`` from ``position`` with ``choose(pos)`` naming its move at each of its turns
    and every reply of the other player followed, written as a walk (for an engine with no compiled walk of
    its own: boards of at most 64 cells)."""
    game = position.game
    choices = follow(position, winner.stone, choose)
    tree = StrategyTree(str(game), [position.name(c) for c in position.moves],
                        Value.win(game.goal, winner.stone), choices)
    return tree.compacted()
