"""Exact scores for Connect-k games: the value and the game's length with perfect play, in one search.

:class:`ScoreSearcher` drives :mod:`kinarow.engine.gravity_kernel` (its docstring has the bit layout and the
score convention) for the games it serves (:func:`score_search_fit`): gravity on a rectangular board, the normal
goal, one stone a turn, at most 128 bits with a spare row (one machine word up to 64 bits, two past that). A
score ``s`` from the side to move means: a win
whose last stone is stone number ``cells + 1 - s`` of the game (``s > 0``), a loss ending on stone
``cells + 1 + s`` (``s < 0``), or a draw (``s = 0``).

>>> from kinarow import Game
>>> searcher = ScoreSearcher(Game("4x4k3:gravity"))
>>> searcher.score(Game("4x4k3:gravity").start()).last_move
9
"""

from __future__ import annotations

import mmap
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from kinarow import bitboards as W
from kinarow.engine import gravity_kernel as GK
from kinarow.engine.compiling import SCORE_SEARCH, prepare
from kinarow.errors import KinarowError, raise_if_interrupted
from kinarow.game import NORMAL, Game
from kinarow.position import Position
from kinarow.proofs.tree import StrategyTree
from kinarow.search.engine import answer, check_player, mover_value, refuse_walk, value_to_keep, walk_by_moves
from kinarow.values import FITS, Bound, Fit, Player, Value

if TYPE_CHECKING:
    from kinarow.search.book import Book, ShippedBook

#: bytes of one table entry (two uint64 words; three on boards past 64 bits)
ENTRY_BYTES = 16
#: bits of column layout (width x (height + 1)) the kernel takes in one word, and in two
ONE_WORD_BITS, TWO_WORD_BITS = 64, 128


def score_search_fit(game: Game) -> Fit:
    """Whether the score kernel serves ``game``, and why not (one phrase) when it does not."""
    if not game.gravity:
        return Fit.no("it needs gravity")
    if game.topology != "rect" or game.hex:
        return Fit.no("it needs a rectangular board that does not wrap")
    if game.goal != NORMAL:
        return Fit.no("it needs the normal goal")
    if (game.p, game.q) != (1, 1):
        return Fit.no("it needs one stone a turn")
    if game.exact:
        return Fit.no("it needs the free-style rule (a line longer than k wins too)")
    if game.m > GK.MAX_COLS:
        return Fit.no(f"it needs at most {GK.MAX_COLS} columns (this board has {game.m})")
    if layout_bits(game) > TWO_WORD_BITS:
        return Fit.no(f"it needs width x (height + 1) <= {TWO_WORD_BITS} (this board needs {layout_bits(game)})")
    return FITS


def layout_bits(game: Game) -> int:
    """The bits of the kernel's layout of ``game``: a column of ``n`` cells and one spare bit each."""
    return game.m * (game.n + 1)


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


def table_array(entries: int, width: int = 2) -> np.ndarray:
    """A zeroed ``(entries, width)`` ``uint64`` table, on 2 MB pages where the system grants them (Linux's transparent
    huge pages when asked for): the search reads the table at random, and with 4 KB pages most reads of a large
    table also miss the processor's page cache (c4 offers 2 MB pages for the same reason)."""
    nbytes = entries * 8 * width
    if nbytes >= 2**21 and hasattr(mmap, "MADV_HUGEPAGE"):
        try:
            memory = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)  # zero-filled
            memory.madvise(mmap.MADV_HUGEPAGE)
            return np.frombuffer(memory, np.uint64).reshape(entries, width)
        except (OSError, ValueError, AttributeError):
            pass
    return np.zeros((entries, width), np.uint64)


def kernel_words(game: Game, position: Position) -> tuple[int, int, int]:
    """(the side to move's stones, every stone, stones down) of ``position`` (of ``game``) in the kernel's
    layout (:mod:`kinarow.engine.gravity_kernel`)."""
    n, h = game.n, game.n + 1
    p1, p2 = position.key()
    col = (1 << n) - 1
    out = [0, 0]
    for i, bits in enumerate((p1, p2)):
        for x in range(game.m):
            out[i] |= ((bits >> (x * n)) & col) << (x * h)
    cur = out[0] if position.to_move == 1 else out[1]
    return cur, out[0] | out[1], position.stones


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
    def sign(self) -> int:
        """1, 0 or -1: the side to move wins, draws or loses (the general kernel's ``WIN``, ``DRAW``, ``LOSS``)."""
        return (self.score > 0) - (self.score < 0)

    @property
    def mover_wins(self) -> bool:
        return self.score > 0


@runtime_checkable
class OpeningBook(Protocol):
    """What :class:`ScoreSearcher` reads of an opening book: :class:`kinarow.search.book.Book` is one. The book
    module builds books with this search, so the search names the book by what it asks of it, and imports
    nothing of the book module."""

    game: Game
    depth: int

    def lookup_words(self, cur: int, mask: int) -> int | None: ...

    def move_words(self, cur: int, mask: int) -> int | None: ...

    def from_parents(self, cur: int, mask: int) -> tuple[int | None, int | None]: ...


class ScoreSearcher:
    """The score kernel bound to one game, with its transposition table (kept between questions), and an opening
    book (:mod:`kinarow.search.book`) it answers from before it searches, when given one."""

    @property
    def book(self) -> Book | ShippedBook | None:
        """The opening book consulted before each search (None: search every position)."""
        return self._book

    @book.setter
    def book(self, book: Book | ShippedBook | None) -> None:
        if book is not None:
            if not isinstance(book, OpeningBook) or book.game != self.game:
                what = f"a book of {book.game}" if isinstance(book, OpeningBook) else type(book).__name__
                raise KinarowError(f"this searcher is bound to {self.game}; it cannot use {what}")
        self._book = book

    def __init__(self, game: Game | str, *, tt_mb: float = 64, book: Book | ShippedBook | None = None,
                 words: int | None = None) -> None:
        game = Game(game)
        fit = score_search_fit(game)
        if not fit:
            raise KinarowError(f"the Connect-k score search cannot take {game}: {fit.reason}")
        least = 1 if layout_bits(game) <= ONE_WORD_BITS else 2
        if words is None:
            words = least
        if isinstance(words, bool) or words not in (1, 2) or words < least:
            raise KinarowError(f"words must be {' or '.join(str(w) for w in (1, 2) if w >= least)} for {game} "
                               f"({layout_bits(game)} bits of layout), not {words!r}")
        self.game = game
        #: machine words a board takes in the kernel: 1 (at most 64 bits of layout) or 2 (at most 128)
        self.board_words = words
        self.book = book
        #: why the last search stopped before its answer (None when it answered)
        self.stopped: str | None = None
        #: the nodes :meth:`best_move` searched (the children it scored)
        self.move_nodes = 0
        # the last search's root and the column it found scoring at least so much: (cur, mask, column, at least)
        self._root_move: tuple[int, int, int, int] | None = None
        m, n = game.m, game.n
        h = n + 1
        columns = [((1 << n) - 1) << (x * h) for x in range(m)]
        board = sum(columns)
        bottom = sum(1 << (x * h) for x in range(m))
        if words == 1:
            colmask = np.array(columns, np.uint64)
        else:
            colmask = np.array([[c & 0xFFFFFFFFFFFFFFFF, c >> 64] for c in columns], np.uint64).reshape(m, 2)
        steps = np.array([1, h, h + 1, h - 1], np.int64)
        # the rows (spare row included) whose parity differs from the height's: see the follow-up bound
        off_rows = sum(1 << (x * h + y) for x in range(m) for y in range(h) if (y - n) % 2)
        odd_rows = sum(1 << (x * h + y) for x in range(m) for y in range(0, n, 2))  # odd rows, from 1
        self.tables = (
            int(game.k),
            int(game.cells),
            W.to_board(board, words),
            W.to_board(bottom, words),
            steps,
            colmask,
            W.to_board(off_rows, words),
            W.to_board(odd_rows, words),
        )
        entry_bytes = ENTRY_BYTES if words == 1 else ENTRY_BYTES + 8
        entries = 2 * _prime_at_most(max(1009, int(tt_mb * 2**20 / entry_bytes / 2)))  # two-slot buckets
        self.tt = table_array(entries, 1 + words)
        self.ctrl = np.zeros(GK.N_GCTRL, np.int64)
        self.ctrl[GK.G_GEN] = 1
        centre = (m - 1) / 2
        self.order = np.array(sorted(range(m), key=lambda x: (abs(x - centre), x)), np.int64)
        self._prepared = False  # is the kernel loaded (or compiled) for this searcher's calls?

    def prepare(self) -> float:
        """Load the score kernel from numba's cache now, or compile it, said first
        (:func:`kinarow.engine.compiling.prepare`), once for this searcher; the seconds a compile took."""
        if self._prepared:
            return 0.0
        self._prepared = True
        empty = W.to_board(0, self.board_words)
        return prepare(SCORE_SEARCH, GK.solve_score, empty, empty, 0, False, self.tables, self.tt,
                       self.ctrl, self.order, np.zeros(1, np.uint64), GK.ABORT_SCORE)

    def forget(self) -> None:
        """Start a new generation of the table: what earlier questions found is no longer used (so that a
        question's answer and node count do not depend on what was asked before)."""
        self.ctrl[GK.G_GEN] += 1
        if self.ctrl[GK.G_GEN] >= 1 << 32:
            self.tt[:] = 0
            self.ctrl[GK.G_GEN] = 1

    def words(self, position: Position) -> tuple[int, int, int]:
        """(the side to move's stones, every stone, stones down) in the kernel's layout."""
        if position.game != self.game:
            raise KinarowError(f"this searcher is bound to {self.game}; it cannot search a position of {position.game}")
        return kernel_words(self.game, position)

    def score(
        self,
        position: Position,
        *,
        weak: bool = False,
        max_nodes: int | None = None,
        deadline: float | None = None,
        on_tick: Callable[[int], None] | None = None,
        threads: int = 1,
    ) -> Score | None:
        """The exact score of ``position`` (``weak``: only its sign, as -1, 0 or 1), or None when the node
        budget or the deadline ran out or Ctrl-C came first (:attr:`stopped` says which). The game must not be
        over at ``position``.

        A position the :attr:`book` holds is answered from it at once (0 nodes); one stone deeper, a weak search
        uses what the book says through the position's parents (:meth:`kinarow.search.book.Book.from_parents`):
        a loss at once when a parent's kept move leads to it, a draw by one test that names a drawing move, and
        when a parent bounds it to a draw or better, one test ("a win?") instead of two. With ``threads`` > 1 that many
        searches of the same position run at once, sharing the table and the list of positions being searched (a
        move another thread is searching is put off to the end, see the kernel's ``negamax``); the first to finish
        answers and the others stop. (Each thread's table writes are checked on reading, see
        :mod:`kinarow.engine.gravity_kernel`.) ``max_nodes`` bounds each thread.
        """
        cur, mask, t = self.words(position)
        if self._book is not None and t <= self._book.depth:
            found = self._book.lookup_words(cur, mask)
            if found is not None:
                self.stopped = None
                self.ctrl[GK.G_NODES] = 0
                return Score(found if not weak else (found > 0) - (found < 0), t, self.game.cells, 0, 0.0)
        known = None
        if self._book is not None and weak and t == self._book.depth + 1:
            floor, value = self._book.from_parents(cur, mask)
            if value is not None and value < 0:  # lost: every move keeps that, no search
                self.stopped = None
                self.ctrl[GK.G_NODES] = 0
                return Score(value, t, self.game.cells, 0, 0.0)
            if value == 0:
                known = 0  # a draw: one test ("a draw or better?") names a drawing move on the way
            elif floor is not None and floor >= 0:
                known = 1  # a draw or better: the test "a win?" alone decides (a draw when it fails)
        return self.score_words(cur, mask, t, weak=weak, max_nodes=max_nodes, deadline=deadline, on_tick=on_tick,
                                threads=threads, known=known)

    def score_words(
        self,
        cur: int,
        mask: int,
        t: int,
        *,
        weak: bool = False,
        max_nodes: int | None = None,
        deadline: float | None = None,
        on_tick: Callable[[int], None] | None = None,
        threads: int = 1,
        known: int | None = None,
    ) -> Score | None:
        """:meth:`score` of the position given in the kernel's layout (:meth:`words`: ``cur`` the side to
        move's stones, ``mask`` every stone, ``t`` their number), by search (the book is not consulted).
        ``known``: the score (its sign when ``weak``) when the book gave it already: one null-window test then
        finds a move that reaches it (see :meth:`best_move`)."""
        self.stopped = "node limit"
        self._root_move = None
        ctrls = [self.ctrl] + [self.ctrl.copy() for _ in range(threads - 1)]
        for ctrl in ctrls:
            ctrl[[GK.G_NODES, GK.G_STOP, GK.G_ABORTED, GK.G_PROBED]] = 0
            ctrl[GK.G_MAX_NODES] = max_nodes or 0
        out: list[int] = []
        errors: list[BaseException] = []
        busy = np.zeros(1 << GK.BUSY_BITS if threads > 1 else 1, np.uint64)  # shared: see the kernel's negamax
        known_score = GK.ABORT_SCORE if known is None else int(known)
        cur_board, mask_board = W.to_board(int(cur), self.board_words), W.to_board(int(mask), self.board_words)
        self.prepare()  # before the clock
        start = time.perf_counter()

        def work(i: int) -> None:
            order = self.order
            try:
                v = int(
                    GK.solve_score(
                        cur_board, mask_board, t, weak, self.tables, self.tt, ctrls[i], order, busy,
                        known_score,
                    )
                )
            except BaseException as err:  # pragma: no cover - surfaced below
                errors.append(err)
                return
            if v != GK.ABORT_SCORE:
                out.append(v)
                for other in ctrls:
                    other[GK.G_STOP] = 1  # the answer is in: the other threads stop

        def nodes() -> int:
            return sum(int(c[GK.G_NODES]) for c in ctrls)

        if deadline is None and on_tick is None and threads == 1:
            work(0)  # many short questions: no thread each
        else:
            workers = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(threads)]
            for worker in workers:
                worker.start()
            try:
                while any(w.is_alive() for w in workers):
                    workers[0].join(0.05)
                    raise_if_interrupted()
                    if on_tick is not None:
                        on_tick(nodes())
                    if deadline is not None and time.perf_counter() >= deadline and not out:
                        for ctrl in ctrls:
                            ctrl[GK.G_STOP] = 1
                        self.stopped = "time limit"
            except KeyboardInterrupt:
                for ctrl in ctrls:
                    ctrl[GK.G_STOP] = 1
                self.stopped = "interrupted"
            for worker in workers:
                worker.join()
        if errors:
            raise errors[0]
        # the root's move: each thread's column was shown (through the shared table) to score at least what it
        # says, and a thread whose root was cut by the table's entry names none; the best claim serves
        named = [(int(c[GK.G_MOVE_SCORE]), int(c[GK.G_MOVE])) for c in ctrls if c[GK.G_MOVE] >= 0]
        if out and named:
            at_least, column = max(named)
            self._root_move = (cur, mask, column, at_least)
        seconds = time.perf_counter() - start
        total = nodes()
        self.ctrl[GK.G_NODES] = total
        if not out:
            return None
        self.stopped = None
        return Score(out[0], t, self.game.cells, total, seconds)

    def best_move(
        self,
        position: Position,
        score: Score,
        *,
        weak: bool = False,
        max_nodes: int | None = None,
        deadline: float | None = None,
        on_tick: Callable[[int], None] | None = None,
        threads: int = 1,
    ) -> int | None:
        """A move (a cell of ``position``'s game) that keeps ``score``: the winner's fastest win, the loser's
        slowest loss, or a drawing move (``weak``: ``score`` is a weak search's sign, and the move keeps the
        value only). None if ``score`` is not the position's, or when a child's search ran out of ``max_nodes``
        (each) or passed ``deadline`` (:attr:`stopped` then says which). A score read from the book needs the
        children searched, so the budget matters there."""
        self.stopped = None
        self.move_nodes = 0
        found = self._found_move(position, score, weak)
        if found is not None:
            return found
        if weak and score.score < 0:  # every move keeps a loss: one the opponent cannot answer with a win at once
            return self.safe_move(position)
        cur, mask, t = self.words(position)
        book = self._book
        deepest = book is not None and t == book.depth
        if book is not None and deepest and weak:  # the book may keep a move that keeps the value
            kept, column = book.lookup_words(cur, mask), book.move_words(cur, mask)
            if kept is not None and column is not None and (kept > 0) - (kept < 0) == score.score:
                return self._in_column(position, column)
        if deepest and (self._root_move is None or self._root_move[:2] != (cur, mask)):
            # the score came from the book, which lacks the children: one test of the position ("at least this
            # score?") names a move reaching it, where searching the children would take one search each
            got = self.score_words(cur, mask, t, weak=weak, max_nodes=max_nodes, deadline=deadline, on_tick=on_tick,
                                   known=score.score, threads=threads)
            self.move_nodes += int(self.ctrl[GK.G_NODES])
            if got is None:
                return None
            found = self._found_move(position, score, weak)
            if found is not None:
                return found
        for cell in self.moves_in_order(position):
            child = position.copy()
            child.play(cell)
            if child.is_over:
                if child.result == "draw":
                    if score.score == 0:
                        return cell
                elif score.score > 0 and (weak or score.last_move == child.stones):
                    return cell
                continue
            got = self.score(child, weak=weak, max_nodes=max_nodes, deadline=deadline, on_tick=on_tick,
                             threads=threads)
            self.move_nodes += int(self.ctrl[GK.G_NODES])
            if got is None:
                return None
            if -got.score == score.score:
                return cell
        self.stopped = None
        return None

    def _found_move(self, position: Position, score: Score, weak: bool) -> int | None:
        """The move the search of ``position`` found keeping ``score`` on its way (a column shown to score at least
        as much at the root), or None."""
        cur, mask, t = self.words(position)
        if not weak and score.score == -(self.game.cells - t - 1):  # every move loses to the opponent's next stone
            return self.central_first(position)[0]
        column = self.root_column(cur, mask, score.score, weak=weak)
        return None if column is None else self._in_column(position, column)

    def root_column(self, cur: int, mask: int, score: int, *, weak: bool = True) -> int | None:
        """The column that the last search of the position ``cur``, ``mask`` (the kernel's layout) showed at its
        root to keep ``score`` (``weak``: its value, a win, draw or loss), or None."""
        if self._root_move is None or self._root_move[:2] != (cur, mask):
            return None
        column, at_least = self._root_move[2:]
        if not weak:
            return column if at_least >= score else None
        keeps = at_least > 0 if score > 0 else (at_least >= 0 if score == 0 else True)
        return column if keeps else None

    def _in_column(self, position: Position, column: int) -> int | None:
        """The legal move of ``position`` in ``column`` (None if the column is full)."""
        n = self.game.n
        return next((cell for cell in position.legal_moves() if cell // n == column), None)

    def safe_move(self, position: Position) -> int:
        """A legal move (central columns first) after which the opponent cannot win at once, or the most central
        move when every move allows that: what to play when the search runs out of time."""
        moves = self.central_first(position)
        for cell in moves:
            child = position.copy()
            child.play(cell)
            if child.is_over or not any(_wins_at_once(child, reply) for reply in child.legal_moves()):
                return cell
        return moves[0]

    # -- the engine contract (kinarow.search.engine.Engine) ----------------------------------------------------
    def value(self, position: Position, *, max_nodes: int | None = None, time_limit: float | None = None) -> Value:
        """The value of ``position`` by a weak score search (its sign; the book first, when there is one);
        ``Value.UNKNOWN`` when the budgets ran out first."""
        self.words(position)  # a position of this game
        if position.result is not None:
            return position.result
        score = self.score(position, weak=True, max_nodes=max_nodes, deadline=_deadline(time_limit))
        return Value.UNKNOWN if score is None else mover_value(position, score.sign)

    def wins(self, position: Position, player: Player, *, max_nodes: int | None = None,
             time_limit: float | None = None) -> Value | Bound:
        """Can ``player`` force a win from ``position``? Read from its :meth:`value` (one search gives both
        sides' answers): the player's win, :func:`~kinarow.values.cannot_win`, or ``Value.UNKNOWN``."""
        player = check_player(player)
        value = self.value(position, max_nodes=max_nodes, time_limit=time_limit)
        return answer(position, player, None if value is Value.UNKNOWN else value.winner is player)

    def move(self, position: Position, value: Value | None = None, *, max_nodes: int | None = None,
             time_limit: float | None = None) -> int | None:
        """A move that keeps ``value`` (the value of ``position``; searched first when not given) by
        :meth:`best_move` of its sign; None when the budgets ran out first or the game is over."""
        self.words(position)
        kept = value_to_keep(self, position, value, max_nodes=max_nodes, time_limit=time_limit)
        if kept is None:
            return None
        winner = kept.winner
        sign = 0 if winner is None else 1 if winner.stone == position.to_move else -1
        score = Score(sign, position.stones, self.game.cells, 0, 0.0)
        return self.best_move(position, score, weak=True, max_nodes=max_nodes, deadline=_deadline(time_limit))

    def walk(self, position: Position, winner: Player, *,
             on_tick: Callable[[int], None] | None = None) -> StrategyTree:
        """The strategy of ``winner`` from ``position``, which it wins: a move keeping the win (:meth:`move`) at
        each of its turns, every reply followed, written as a walk; ``on_tick(nodes)`` hears the nodes of the
        searches after each move. A position ``winner`` does not win is refused in one sentence."""
        winner = check_player(winner, "the winner")
        refuse_walk(position, winner, self.wins(position, winner))
        win = Value.win(self.game.goal, winner.stone)
        nodes = [0]

        def choose(pos: Position) -> int:
            cell = self.move(pos, win)
            nodes[0] += int(self.ctrl[GK.G_NODES]) + self.move_nodes
            if on_tick is not None:
                on_tick(nodes[0])
            if cell is None:  # pragma: no cover - no budget is given, and every position chosen is a win
                raise KinarowError(f"internal error: no move keeps the win after {pos.move_text()}")
            return cell

        return walk_by_moves(position, winner, choose)

    def moves_in_order(self, position: Position) -> list[int]:
        """The legal moves, central columns first."""
        return self.central_first(position)

    @staticmethod
    def central_first(position: Position) -> list[int]:
        """The legal moves of ``position`` (a gravity game's), central columns first (the left one of two)."""
        n, centre = position.game.n, (position.game.m - 1) / 2
        return sorted(position.legal_moves(), key=lambda c: (abs(c // n - centre), c // n))


def _deadline(time_limit: float | None) -> float | None:
    """The clock time at which ``time_limit`` seconds from now run out; None for no limit."""
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, int | float) or not 0 < time_limit < float("inf"):
        raise KinarowError(f"time_limit must be a positive, finite number of seconds, not {time_limit!r}")
    return time.perf_counter() + time_limit


def _wins_at_once(position: Position, cell: int) -> bool:
    """Does the side to move at ``position`` win by playing ``cell``?"""
    child = position.copy()
    child.play(cell)
    return child.is_over and child.result != "draw"
