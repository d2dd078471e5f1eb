"""``verify(strategy, game)``: play a strategy against every reply of the opponent.

>>> from kinarow import Game
>>> from kinarow.strategies import get
>>> v = verify(get("take-even"), Game("4x2k3:gravity,misere"))
>>> v.outcome, v.player
(<Outcome.WIN: 'win'>, <Player.SECOND: 'second'>)

The walk visits each position where the opponent is to move once
(transpositions are merged by an exact key) and answers

* ``win``: every line of play ends with the strategist winning;
* ``draw``: every line ends in a win or a draw (draw-or-better);
* ``fails``: some line ends in a loss, or reaches a position where the rule
  names no legal move; :attr:`Verified.counterexample` is the first such line;
* ``unknown``: the position budget ran out (or Ctrl-C) before an answer.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from kinarow.engine import verify_kernel as VK
from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position
from kinarow.strategies import Strategy, get
from kinarow.values import Outcome, Player, read

DEFAULT_MAX_POSITIONS = 3_000_000
_OUTCOMES = {VK.WIN: Outcome.WIN, VK.DRAW: Outcome.DRAW, VK.LOSS: Outcome.FAILS, VK.FAIL: Outcome.FAILS}


@dataclass
class Verified:
    """The result of :func:`verify`; ``outcome`` is ``win``, ``draw``, ``fails`` or ``unknown``."""

    strategy: str
    game: str
    player: Player
    outcome: Outcome
    positions: int
    seconds: float
    counterexample: str | None = None
    reason: str | None = None
    longest: int | None = None  # the most stones on the board when a game ends (a complete walk only)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "strategy": self.strategy,
            "game": self.game,
            "player": self.player,
            "outcome": self.outcome,
            "positions": self.positions,
            "seconds": round(self.seconds, 6),
        }
        if self.longest is not None:
            out["longest"] = self.longest
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample
        if self.reason is not None:
            out["reason"] = self.reason
        return out

    def describe(self) -> str:
        who = f"the {self.player} player"
        if self.outcome == Outcome.WIN:
            return f"Verified: {self.strategy} wins for {who} in {self.game} against every reply."
        if self.outcome == Outcome.DRAW:
            return f"Verified: {self.strategy} draws or better for {who} in {self.game} against every reply."
        if self.outcome == Outcome.FAILS:
            return f"Fails: {self.strategy} for {who} in {self.game} {self.reason}."
        return f"Unknown: the verification of {self.strategy} in {self.game} stopped ({self.reason})."


def verify(
    strategy: Strategy | str,
    game: Game | str,
    player: int | Player | str | None = None,
    *,
    max_positions: int | None = None,
    on_tick: Callable[[int], None] | None = None,
) -> Verified:
    """Play ``strategy`` for ``player`` (default: the one it is defined for) against every reply in ``game``.

    Each argument is checked as :func:`kinarow.solve` checks its own: ``player`` is 1, 2, ``"first"`` or
    ``"second"``; ``max_positions`` a whole number from 1 to 10**18; ``on_tick`` a function of the count.
    """
    from kinarow.limits import check_count, said

    if not isinstance(strategy, (Strategy, str)):
        raise KinarowError(f"the strategy must be a Strategy or the name of one, not {said(strategy)}")
    strat = get(strategy) if isinstance(strategy, str) else strategy
    game = Game(game)
    if isinstance(player, str):
        player = read(Player, player, "the player").stone
    elif player is not None and (isinstance(player, bool) or not isinstance(player, int) or player not in (1, 2)):
        raise KinarowError(f"the player must be 1, 2, 'first' or 'second', not {said(player)}")
    me = strat.check_applies(game, player)
    counted = check_count(max_positions, "max_positions")
    limit = DEFAULT_MAX_POSITIONS if counted is None else counted
    if on_tick is not None and not callable(on_tick):
        raise KinarowError(f"on_tick must be a function of the position count, not {said(on_tick)}")
    m, n, k = game.m, game.n, game.k
    kw = VK.key_words(m, n)
    board = np.zeros(m * n, np.int8)
    heights = np.zeros(m, np.int64)
    moves = np.zeros(m * n + 1, np.int64)
    key = np.zeros(kw, np.uint64)
    _reset(board, heights, key, n)
    _warm_up()
    ctrl = np.zeros(VK.N_CTRL, np.int64)
    cex = np.zeros(m * n + 1, np.int64)
    cyl = game.topology == "cylinder"
    out: list[int] = []
    errors: list[BaseException] = []
    start = time.perf_counter()

    def work() -> None:
        try:
            tt = np.zeros((1 << 12, kw + 2), np.uint64)
            ctrl[VK.C_LIMIT] = limit
            ctrl[VK.C_CEX_LEN] = -1
            ctrl[VK.C_MAX_ROWS] = limit
            out.append(int(VK.verify(m, n, k, cyl, True, strat.code, me, board, heights, moves, key, tt, ctrl, cex)))
        except BaseException as err:  # pragma: no cover - surfaced below
            errors.append(err)

    interrupted = False
    if on_tick is None:
        work()
    else:
        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        try:
            while worker.is_alive():
                worker.join(0.1)
                on_tick(int(ctrl[VK.C_POSITIONS]))
        except KeyboardInterrupt:
            ctrl[VK.C_STOP] = 1
            worker.join()
            interrupted = True
    if errors:
        raise errors[0]
    seconds = time.perf_counter() - start
    value = out[0] if out else VK.ABORT
    who = Player.of(me)
    positions = int(ctrl[VK.C_POSITIONS])
    if value == VK.ABORT:
        if interrupted or ctrl[VK.C_STOP]:
            reason = "interrupted"
        elif ctrl[VK.C_TT_FULL]:
            reason = "the transposition table is full"
        else:
            reason = f"more than {limit:,} positions"
        return Verified(strat.name, str(game), who, Outcome.UNKNOWN, positions, seconds, None, reason)
    result = Verified(strat.name, str(game), who, _OUTCOMES[value], positions, seconds)
    if value in (VK.WIN, VK.DRAW):
        result.longest = int(ctrl[VK.C_LONGEST])
    if value in (VK.LOSS, VK.FAIL):
        line = [int(c) for c in cex[: max(int(ctrl[VK.C_CEX_LEN]), 0)]]
        pos = game.start()
        for c in line:
            pos.play(c)
        result.counterexample = pos.move_text()
        result.reason = _failure_reason(strat, pos, value, me)
    return result


_warm = False


def _warm_up() -> None:
    """Load the compiled kernel (numba's cache) once per process, so that it is not counted as verification time."""
    global _warm
    if _warm:
        return
    board = np.zeros(2, np.int8)
    heights = np.zeros(1, np.int64)
    moves = np.zeros(3, np.int64)
    key = np.zeros(1, np.uint64)
    _reset(board, heights, key, 2)
    ctrl = np.zeros(VK.N_CTRL, np.int64)
    ctrl[VK.C_CEX_LEN] = -1
    ctrl[VK.C_MAX_ROWS] = 10
    tt = np.zeros((16, 3), np.uint64)
    VK.verify(1, 2, 3, False, True, 1, 2, board, heights, moves, key, tt, ctrl, np.zeros(3, np.int64))
    _warm = True


def _reset(board: np.ndarray, heights: np.ndarray, key: np.ndarray, n: int) -> None:
    board[:] = 0
    heights[:] = 0
    key[:] = 0
    for x in range(heights.shape[0]):
        pos = x * (n + 1)
        key[pos >> 6] |= np.uint64(1) << np.uint64(pos & 63)


def _failure_reason(strat: Strategy, pos: Position, value: int, me: int) -> str:
    after = f"after {pos.move_text()}" if pos.moves else "on the empty board"
    if value == VK.FAIL:
        return f"names no legal move {after}"
    return f"loses: {after} the game is over ({pos.result})"
