"""Exact scores for Connect-k games: the value and the game's length with perfect play, in one search.

:class:`ScoreSearcher` drives :mod:`kinarow.engine.gravity_kernel` (its docstring has the bit layout and the
score convention) for the games it serves (:func:`serves`): gravity on a rectangular board, the normal
goal, one stone a turn, at most 64 bits with a spare row. A score ``s`` from the side to move means: a win
whose last stone is stone number ``cells + 1 - s`` of the game (``s > 0``), a loss ending on stone
``cells + 1 + s`` (``s < 0``), or a draw (``s = 0``).

>>> from kinarow import Game
>>> searcher = ScoreSearcher(Game("4x4k3:gravity"))
>>> searcher.score(Game("4x4k3:gravity").start()).last_move
5
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from kinarow.engine import gravity_kernel as GK
from kinarow.errors import KinarowError, raise_if_interrupted
from kinarow.game import NORMAL, Game
from kinarow.position import Position

#: bytes of one table entry (two uint64 words)
ENTRY_BYTES = 16


def serves(game: Game) -> str | None:
    """None when the score kernel serves ``game``, else why not (one phrase)."""
    if not game.gravity:
        return "it needs gravity"
    if game.topology != "rect" or game.hex:
        return "it needs a rectangular board that does not wrap"
    if game.goal != NORMAL:
        return "it needs the normal goal"
    if (game.p, game.q) != (1, 1):
        return "it needs one stone a turn"
    if game.m * (game.n + 1) > 64 or game.m > GK.MAX_COLS:
        return f"it needs width x (height + 1) <= 64 (this board needs {game.m * (game.n + 1)})"
    return None


def _prime_at_most(n: int) -> int:
    """The largest prime <= n (n >= 2)."""

    def is_prime(x: int) -> bool:
        if x < 2:
            return False
        i = 2
        while i * i <= x:
            if x % i == 0:
                return False
            i += 1
        return True

    while not is_prime(n):
        n -= 1
    return n


@dataclass(frozen=True)
class Score:
    """One position's exact score (:mod:`kinarow.search.connect`) and what it took."""

    score: int  #: from the side to move; 0 a draw
    stones: int  #: stones on the board
    cells: int
    nodes: int
    seconds: float

    @property
    def last_move(self) -> int | None:
        """The number of the stone that ends the game with perfect play (None for a draw)."""
        if self.score == 0:
            return None
        return self.cells + 1 - abs(self.score)

    @property
    def mover_wins(self) -> bool:
        return self.score > 0


class ScoreSearcher:
    """The score kernel bound to one game, with its transposition table (kept between questions)."""

    def __init__(self, game: Game | str, *, tt_mb: float = 64) -> None:
        game = Game(game)
        why = serves(game)
        if why is not None:
            raise KinarowError(f"the Connect-k score search cannot take {game}: {why}")
        self.game = game
        m, n = game.m, game.n
        h = n + 1
        board = bottom = 0
        colmask = np.zeros(m, np.uint64)
        for x in range(m):
            col = ((1 << n) - 1) << (x * h)
            colmask[x] = col
            board |= col
            bottom |= 1 << (x * h)
        steps = np.array([1, h, h + 1, h - 1], np.int64)
        # the rows (spare row included) whose parity differs from the height's: see the follow-up bound
        off_rows = sum(1 << (x * h + y) for x in range(m) for y in range(h) if (y - n) % 2)
        self.tables = (
            int(game.k),
            int(game.cells),
            np.uint64(board),
            np.uint64(bottom),
            steps,
            colmask,
            np.uint64(off_rows),
        )
        entries = _prime_at_most(max(1009, int(tt_mb * 2**20 / ENTRY_BYTES)))
        self.tt_key = np.zeros(entries, np.uint64)
        self.tt_val = np.zeros(entries, np.uint64)
        self.ctrl = np.zeros(GK.N_GCTRL, np.int64)
        centre = (m - 1) / 2
        self.order = np.array(sorted(range(m), key=lambda x: (abs(x - centre), x)), np.int64)

    def words(self, position: Position) -> tuple[int, int, int]:
        """(the side to move's stones, every stone, stones down) in the kernel's layout."""
        if position.game != self.game:
            raise KinarowError(f"this searcher is bound to {self.game}; it cannot search a position of {position.game}")
        n, h = self.game.n, self.game.n + 1
        p1, p2 = position.key()
        col = (1 << n) - 1
        out = [0, 0]
        for i, bits in enumerate((p1, p2)):
            for x in range(self.game.m):
                out[i] |= ((bits >> (x * n)) & col) << (x * h)
        cur = out[0] if position.to_move == 1 else out[1]
        return cur, out[0] | out[1], position.stones

    def score(
        self,
        position: Position,
        *,
        weak: bool = False,
        max_nodes: int | None = None,
        deadline: float | None = None,
        on_tick: Callable[[int], None] | None = None,
    ) -> Score | None:
        """The exact score of ``position`` (``weak``: only its sign, as -1, 0 or 1), or None when the node
        budget or the deadline ran out first. The game must not be over at ``position``."""
        cur, mask, t = self.words(position)
        ctrl = self.ctrl
        ctrl[:] = 0
        ctrl[GK.G_MAX_NODES] = max_nodes or 0
        out: list[int] = []
        errors: list[BaseException] = []
        args = (np.uint64(cur), np.uint64(mask), t, weak, self.tables, self.tt_key, self.tt_val, ctrl, self.order)
        start = time.perf_counter()

        def work() -> None:
            try:
                out.append(int(GK.solve_score(*args)))
            except BaseException as err:  # pragma: no cover - surfaced below
                errors.append(err)

        if deadline is None and on_tick is None:
            work()  # many short questions: no thread each
        else:
            worker = threading.Thread(target=work, daemon=True)
            worker.start()
            try:
                while worker.is_alive():
                    worker.join(0.05)
                    raise_if_interrupted()
                    if on_tick is not None:
                        on_tick(int(ctrl[GK.G_NODES]))
                    if deadline is not None and time.perf_counter() >= deadline:
                        ctrl[GK.G_STOP] = 1
            except KeyboardInterrupt:
                ctrl[GK.G_STOP] = 1
                worker.join()
                raise
            worker.join()
        if errors:
            raise errors[0]
        seconds = time.perf_counter() - start
        if not out or out[0] == GK.ABORT_SCORE:
            return None
        return Score(out[0], t, self.game.cells, int(ctrl[GK.G_NODES]), seconds)

    def best_move(self, position: Position, score: Score) -> int | None:
        """A move (a cell of ``position``'s game) that keeps ``score``: the winner's fastest win, the loser's
        slowest loss, or a drawing move. None when the score came from a weak search and no move is known."""
        for cell in self.moves_in_order(position):
            child = position.copy()
            child.play(cell)
            if child.is_over:
                if child.result == "draw":
                    if score.score == 0:
                        return cell
                elif score.score > 0 and score.last_move == child.stones:
                    return cell
                continue
            got = self.score(child)
            if got is not None and -got.score == score.score:
                return cell
        return None

    def moves_in_order(self, position: Position) -> list[int]:
        """The legal moves, central columns first."""
        legal = set(position.legal_moves())
        n = self.game.n
        out = []
        for x in self.order:
            for c in legal:
                if c // n == int(x):
                    out.append(c)
        return out
