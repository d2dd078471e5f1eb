"""``analyse()``: every legal move's value and the move on which the game then ends, with perfect play.

Each child position is solved strongly (:func:`kinarow.search.solve.solve` with ``strong=True``) by one
:class:`~kinarow.search.solve.Searcher`: the value, and ``last_move``, the number of the stone (counting
every stone from the first of the game) on which the game ends when the winner ends it as soon as it can
and the loser as late as it can.

>>> from kinarow import Game
>>> found = analyse(Game("3x3k3").position("a1 b1 a2"))
>>> [(m.move, m.label) for m in found.moves_list]
[('a3', 'L7'), ('b2', 'L5'), ('b3', 'L5'), ('c1', 'L5'), ('c2', 'L5'), ('c3', 'L5')]
>>> found.describe()
'First player (Black) wins on move 7 with perfect play.'
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.limits import DEFAULT_KNOWLEDGE, check_knowledge, check_limits, default_tt_mb, said, ticks_after
from kinarow.position import Position
from kinarow.search import book as books
from kinarow.search import connect
from kinarow.search.alphabeta import Searcher
from kinarow.search.result import strong_sentence
from kinarow.search.solve import solve
from kinarow.values import Player, Value

#: A move's value for the player who makes it.
Outcome = Literal["win", "draw", "loss", "unknown"]
_RANK: dict[str, int] = {"win": 3, "draw": 2, "loss": 1, "unknown": 0}


@dataclass(frozen=True)
class MoveValue:
    """One legal move and the value of the position it leads to."""

    cell: int
    #: the cell's name (under gravity the cell where the stone lands)
    move: str
    #: the value after the move (who wins with perfect play), :data:`Value.UNKNOWN` when the search stopped first
    value: Value
    #: the value for the player who makes the move
    outcome: Outcome
    #: the number of the stone on which the game then ends with perfect play (None for a draw, or when unknown)
    last_move: int | None

    @property
    def label(self) -> str:
        """Short words for a table or a picture: ``W7`` (the mover wins on move 7), ``L8`` (loses on move 8),
        ``D`` (a draw), ``W`` / ``L`` when the length is not known, ``?`` when the value is not."""
        if self.outcome == "draw":
            return "D"
        if self.outcome == "unknown":
            return "?"
        return ("W" if self.outcome == "win" else "L") + ("" if self.last_move is None else str(self.last_move))

    def sort_key(self) -> tuple[int, int]:
        """Better moves for the mover sort first: wins (the shortest first), draws, losses (the longest first)."""
        length = self.last_move or 0
        return -_RANK[self.outcome], length if self.outcome == "win" else -length


@dataclass
class Analysis:
    """What :func:`analyse` found: each legal move of the position (in cell order) and its value."""

    game: str
    moves: str
    to_move: Player
    moves_list: list[MoveValue]
    nodes: int
    seconds: float
    #: why the analysis stopped before every move had its value and length (``time limit``, ``interrupted``)
    stopped: str | None = None

    @property
    def best(self) -> list[MoveValue]:
        """The moves that keep the best value for the mover (with the shortest win or the longest loss); empty
        unless every move's value and length are known."""
        if not self.complete:
            return []
        top = min(m.sort_key() for m in self.moves_list)
        return [m for m in self.moves_list if m.sort_key() == top]

    @property
    def complete(self) -> bool:
        """Does every move have its value (and, unless a draw, its length)?"""
        return all(m.outcome == "draw" or m.last_move is not None for m in self.moves_list)

    @property
    def value(self) -> Value:
        """The value of the position: the best move's (``unknown`` unless the analysis is complete)."""
        best = self.best
        return best[0].value if best else Value.UNKNOWN

    @property
    def last_move(self) -> int | None:
        """The move on which the game ends with perfect play from the position (None for a draw or unknown)."""
        best = self.best
        return best[0].last_move if best else None

    def describe(self) -> str:
        """The position's value in words, e.g. 'First player (Black) wins on move 7 with perfect play.'"""
        if self.value == Value.UNKNOWN:
            return f"Unknown: the analysis stopped ({self.stopped}) before every move had its value and length."
        return strong_sentence(self.value, self.last_move)

    def to_dict(self) -> dict[str, Any]:
        gravity = Game(self.game).gravity
        out: dict[str, Any] = {
            "game": self.game,
            "moves": self.moves,
            "to_move": self.to_move,
            "value": self.value,
            "last_move": self.last_move,
            "best_moves": [m.move for m in self.best],
            "analysis": [
                {
                    "move": m.move,
                    **({"column": m.move.rstrip("0123456789")} if gravity else {}),
                    "value": m.value,
                    "outcome": m.outcome,
                    "last_move": m.last_move,
                }
                for m in self.moves_list
            ],
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
        }
        if self.stopped:
            out["stopped"] = self.stopped
        return out


def outcome_for(value: Value, player: int) -> Outcome:
    """A value as the outcome for ``player`` (1 or 2)."""
    if value == Value.UNKNOWN:
        return "unknown"
    if value == Value.DRAW:
        return "draw"
    return "win" if value.stone == player else "loss"


def analyse(
    target: Game | Position | str,
    *,
    moves: str | None = None,
    time_limit: float | None = None,
    tt_mb: float | None = None,
    knowledge: str = DEFAULT_KNOWLEDGE,
    searcher: Searcher | None = None,
    max_nodes: int | None = None,
    on_tick: Callable[[int], None] | None = None,
) -> Analysis:
    """The value and game length after each legal move of a game's start (or of a position, after ``moves``).

    ``time_limit`` (seconds) bounds the whole analysis: the moves not solved in time are ``unknown`` (or known
    without their length) and :attr:`Analysis.stopped` says why; so does Ctrl-C (``interrupted``). One
    ``searcher`` of the game is used for every move (a new one when none is given). ``max_nodes`` bounds the
    search of each move (a move whose search runs out is ``unknown``, and the analysis stops there: ``node
    limit``); ``on_tick`` is called now and then with the nodes searched so far.
    """
    max_nodes, time_limit, tt_mb = check_limits(max_nodes, time_limit, tt_mb)
    knowledge = check_knowledge(knowledge)
    if isinstance(target, Position):
        position = target.copy()
    elif isinstance(target, (Game, str)):
        position = Game(target).start()
    else:
        raise KinarowError(f"analyse() takes a game or a position, not {said(target)}")
    if moves:
        position.play_moves(moves)
    if position.is_over:
        over = position.result
        how = "a draw" if over == Value.DRAW or over is None else f"won by {over.winner_words}"
        raise KinarowError(f"the game is over after {position.move_text()} ({how}); there is no move to analyse")
    if searcher is None:
        searcher = Searcher(position.game, tt_mb=tt_mb, knowledge=knowledge)
    elif not isinstance(searcher, Searcher) or searcher.game != position.game:
        bound = f"bound to {searcher.game}" if isinstance(searcher, Searcher) else said(searcher)
        raise KinarowError(f"the searcher given is {bound}; it must be a Searcher of {position.game}")
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    if connect.score_search_fit(position.game):  # the score kernel: one search a move gives value and length
        return _analyse_scores(position, deadline, tt_mb if tt_mb is not None else default_tt_mb(position.game),
                               max_nodes, on_tick)
    mover = position.to_move
    found: list[MoveValue] = []
    nodes = 0
    stopped: str | None = None
    for cell in position.legal_moves():
        value, last = Value.UNKNOWN, None
        left = None if deadline is None else deadline - time.perf_counter()
        if stopped is None and (left is None or left > 0):
            child = position.copy()
            child.play(cell)
            done = nodes
            result = solve(child, searcher=searcher, time_limit=left, strong=True, max_nodes=max_nodes,
                           on_tick=ticks_after(on_tick, done))
            nodes += result.nodes
            value = result.value if isinstance(result.value, Value) else Value.UNKNOWN
            last = result.last_move
            if result.stopped:
                stopped = result.stopped
        elif stopped is None:
            stopped = "time limit"
        found.append(MoveValue(cell, position.name(cell), value, outcome_for(value, mover), last))
    return Analysis(
        str(position.game),
        position.move_text(),
        Player.of(mover),
        found,
        nodes,
        time.perf_counter() - start,
        stopped,
    )


def _analyse_scores(
    position: Position,
    deadline: float | None,
    tt_mb: float,
    max_nodes: int | None = None,
    on_tick: Callable[[int], None] | None = None,
) -> Analysis:
    """:func:`analyse` by the Connect-k score kernel (:mod:`kinarow.search.connect`), one table for every move."""
    start = time.perf_counter()
    game, mover = position.game, position.to_move
    found: list[MoveValue] = []
    nodes = 0
    stopped: str | None = None
    searcher, lock = books.searcher_for(game, tt_mb)
    try:
        compiled = searcher.prepare()  # a first run's compile is neither analysis time nor spent from the time limit
        start += compiled
        if deadline is not None:
            deadline += compiled
        searcher.forget()
        for cell in position.legal_moves():
            child = position.copy()
            child.play(cell)
            value, last = Value.UNKNOWN, None
            if child.is_over:
                assert child.result is not None
                value, last = child.result, (child.stones if child.result != Value.DRAW else None)
            elif stopped is None and (deadline is None or time.perf_counter() < deadline):
                done = nodes
                got = searcher.score(child, deadline=deadline, max_nodes=max_nodes,
                                     on_tick=ticks_after(on_tick, done))
                nodes += int(searcher.ctrl[connect.GK.G_NODES])
                if got is None:
                    stopped = searcher.stopped
                else:
                    value = Value.DRAW if got.score == 0 else Value.win(
                        game.goal, child.to_move if got.score > 0 else 3 - child.to_move)
                    last = got.last_move
            elif stopped is None:
                stopped = "time limit"
            found.append(MoveValue(cell, position.name(cell), value, outcome_for(value, mover), last))
    finally:
        if lock is not None:
            lock.release()
    return Analysis(str(game), position.move_text(), Player.of(mover), found, nodes, time.perf_counter() - start,
                    stopped)
