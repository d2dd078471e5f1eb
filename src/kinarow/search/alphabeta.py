"""The alpha-beta search: :class:`Searcher`, the driver of the numba kernel (:mod:`kinarow.engine.kernel`) bound
to one game with its transposition table, and the strategies it writes as walks (:func:`extract_strategy`, a
win's; :func:`non_losing_strategy`, a strategy that does not lose).

A Searcher also fronts the Connect-k score search (:class:`kinarow.search.connect.ScoreSearcher`) for the games
that kernel serves. :func:`kinarow.search.solve.solve` routes a value question here or to another search; the
certificate writers (:mod:`kinarow.search.certify`, :mod:`kinarow.search.draw`) ask it for walks.

>>> from kinarow import Game
>>> Searcher(Game("3x3k3")).best_move(Game("3x3k3").start())[0]  # the kernel's value for the side to move
0
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

import numpy as np

from kinarow import bitboards as W
from kinarow.engine import kernel as K
from kinarow.engine.compiling import SEARCH, prepare
from kinarow.engine.tables import MAX_CELLS, WIDE_CELLS, KernelTables, check_solvable, kernel_tables
from kinarow.errors import ClaimMismatchError, KinarowError, SolverLimitError, run_stoppable
from kinarow.game import Game
from kinarow.limits import (
    KNOWLEDGE_LEVELS,
    check_count,
    check_flag,
    check_knowledge,
    check_seconds,
    check_threads,
    check_tt_mb,
    default_tt_mb,
    said,
)
from kinarow.position import Position
from kinarow.proofs import blocking_fit
from kinarow.proofs.tree import NOT_LOSE, StrategyTree
from kinarow.proofs.tree import WIN as WIN_OUTCOME
from kinarow.search import connect
from kinarow.search.engine import answer, check_player, mover_value, over_answer, refuse_walk, walk_tree
from kinarow.values import Bound, Fit, Goal, Player, Value

#: how a result's ``knowledge_note`` begins when the knowledge asked for does not apply to the game
KNOWLEDGE_OFF = "knowledge is off: "
#: node budgets of one knowledge test inside the search (pairing search, Maker-Breaker search)
PAIR_BUDGET = 64
MB_BUDGET = 64
ROOT_BUDGET = 1 << 15  # paid once per search (the empty 4x4 board needs 13,595 nodes)
MB_MAX_CELLS = 10  # the Maker-Breaker test runs (below the root) only when the live groups hold few empty cells

_P = ParamSpec("_P")
_T = TypeVar("_T")
_S = TypeVar("_S", bound="Searcher")


def one_at_a_time(method: Callable[Concatenate[_S, _P], _T]) -> Callable[Concatenate[_S, _P], _T]:
    """A Searcher's question asked under its :attr:`Searcher.lock`: a call from another thread waits for it."""

    @functools.wraps(method)
    def held(self: _S, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        with self.lock:
            return method(self, *args, **kwargs)

    return held


def alpha_beta_cells(game: Game) -> int:
    """The most cells of a board of ``game`` that :class:`Searcher` searches: 64 (one word) where the proof search
    takes the game (free placement, one stone a turn, a normal or Maker-Breaker goal: past 64 cells it serves
    them, with the knowledge alpha-beta lacks in two words), else 128 (two words)."""
    return MAX_CELLS if blocking_fit(game, exact=True) else WIDE_CELLS


def check_searchable(game: Game, most: int = WIDE_CELLS) -> None:
    """Raise :class:`SolverLimitError` unless :class:`Searcher` can answer values and moves of ``game``: boards
    of at most 128 cells (two words a board past 64), and the gravity boards the Connect-k score search holds
    (up to 128 bits of layout). ``most`` lowers the first limit (the web page keeps its engine to one word)."""
    if connect.score_search_fit(game):
        return
    check_solvable(game, alpha_beta_cells(game))
    if game.cells > most:
        raise SolverLimitError(f"{game} has {game.cells} cells; the engine here searches boards of at most "
                               f"{most} cells")


class Searcher:
    """A search kernel bound to one game (a :class:`Game` or a game string), with its transposition table.

    Keep one Searcher to ask many questions about the same game: the table
    carries what earlier searches found.

    A Searcher answers one question at a time. Its kernel's counters, stop
    flag and best-move line are one set, so two searches at once would
    corrupt each other's answers; its questions (:meth:`search`,
    :meth:`value`, :meth:`wins`, :meth:`move`, :meth:`walk`,
    :meth:`strategy_walk`, :meth:`game_length`, ...) and
    :func:`kinarow.search.solve.solve` given it therefore hold its
    :attr:`lock`, and a call from another thread waits until the one running
    has finished (serialised, not refused). Threads that want to search at
    the same time need a Searcher each. Code that calls :meth:`new_root`
    and then a kernel step such as :meth:`forces_win` holds :attr:`lock`
    across both (it is re-entrant).
    """

    def __init__(
        self, game: Game | str, *, tt_mb: float | None = None, symmetry: bool = True, knowledge: str = "none",
        threads: int = 1, words: int | None = None,
    ) -> None:
        game = Game(game)  # a game string works too
        knowledge = check_knowledge(knowledge)
        #: held by each question (re-entrant): one search at a time on the kernel's one set of arrays
        self.lock = threading.RLock()
        #: searches of one position the Connect-k score search runs at once, sharing its table (the engine's
        #: moves in ``kinarow play`` and on the web page; see :func:`kinarow.limits.engine_threads`)
        self.threads = check_threads(threads)
        symmetry = check_flag(symmetry, "symmetry")
        tt_mb = check_tt_mb(tt_mb)
        if tt_mb is None:
            tt_mb = default_tt_mb(game)
        self.game = game
        self.tt_mb = tt_mb
        self._scores: connect.ScoreSearcher | None = None
        #: why the latest :meth:`strategy_walk` stopped before its end: ``time limit``, ``node limit``, ``asked``
        #: (its ``should_stop``), or None when it finished; and the nodes of its win tests
        self.walk_stopped: str | None = None
        self.walk_nodes = 0
        self._score_guess: int | None = None  # the score search's move when time ran out (:attr:`guess`)
        self.symmetry = symmetry  # part of the results store's key (symmetry changes the best move found)
        # a gravity board of more than 64 cells that the score search holds (9x8, 11x6, 13x4, ...): its values and
        # moves come from the score search alone, and the general kernel's arrays are not made (see :attr:`state`)
        self.score_only = game.cells > MAX_CELLS and bool(connect.score_search_fit(game))
        if not self.score_only:
            check_solvable(game, alpha_beta_cells(game))  # the board's size in one sentence, before any array
        #: words a board in the kernel: one up to 64 cells, two up to 128 (``words=2`` on a small board: the
        #: two-word form, which the tests compare with the one-word form)
        self.words = words or W.words_for_cells(game.cells)
        self._tables: KernelTables | None = None
        self._state: K.SearchState | None = None
        self._bundles: tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]] | None = None
        self.deepening_step = 8  # measured: 5x4k4 850k nodes with steps of 2, 325k with 8; 6x6k4 544k vs 661k
        self.knowledge = knowledge
        self.knowledge_note = (knowledge_fit(game).reason or None) if knowledge != "none" else None
        if self.score_only:
            return
        self._tables = kernel_tables(game, symmetry, words=self.words)
        # a table row: both keys (a board each) and the entry word, padded to an even count (kernel.new_state)
        entries = max(2, int(tt_mb * 2**20 / (8 * (2 * self.words + 2))))
        if self.words > 1 and knowledge != "none" and self.knowledge_note is None:
            self.knowledge_note = ("the blocking searches of the alpha-beta kernel hold boards of at most "
                                   f"{MAX_CELLS} cells")
        # knowledge: blocking proofs (pairings, matching sets) where they are sound
        level = KNOWLEDGE_LEVELS.index(knowledge) if self.knowledge_note is None else 0
        kparams = np.array([level, PAIR_BUDGET, MB_BUDGET, ROOT_BUDGET, MB_MAX_CELLS, pair_max(game)], np.int64)
        #: the kernel's working arrays (transposition table, counters, history, buffers, generation)
        self._state = K.new_state(
            game.cells, int(self._tables.masks.shape[0]), 1 << (entries.bit_length() - 1), kparams,
            16 if level == K.KNOW_MATCHING else 0, self.words,
        )
        # the bundles as plain tuples, which numba types faster at each call (the same arrays)
        self._bundles = (tuple(self.tables), tuple(self.state))
        self._warm_up()

    @property
    def tables(self) -> KernelTables:
        """The general kernel's tables of the game (groups, symmetries, move order)."""
        if self._tables is None:
            raise self._score_only_error()
        return self._tables

    @property
    def state(self) -> K.SearchState:
        """The general kernel's working arrays (transposition table, counters, history, buffers, generation).
        A board of more than 64 cells served by the score search has none: the general kernel's questions (win
        tests, walks, game lengths) are refused there in one sentence."""
        if self._state is None:
            raise self._score_only_error()
        return self._state

    def _score_only_error(self) -> SolverLimitError:
        game = self.game
        return SolverLimitError(
            f"{game} has {game.cells} cells: the Connect-k score search gives its values and moves (solve, play, "
            f"analyse, the web page), but win tests, strategy walks and game lengths of the general kernel take "
            f"boards of at most {MAX_CELLS} cells")

    @property
    def tt(self) -> np.ndarray:
        """The transposition table (``(size, 4)`` uint64; layout in :mod:`kinarow.engine.kernel`)."""
        return self.state.tt

    @property
    def ctrl(self) -> np.ndarray:
        """The kernel's counters and flags (``kernel.C_*``: nodes, stop flag, node budget, ...)."""
        return self.state.ctrl

    @property
    def pv(self) -> np.ndarray:
        """The best move the last search found at each stone count (-1: none)."""
        return self.state.pv

    @property
    def generation(self) -> int:
        """The generation of the latest win test (a depth-limited result is reused only within it)."""
        return int(self.state.gen[0])

    @generation.setter
    def generation(self, value: int) -> None:
        self.state.gen[0] = value

    @property
    def guess(self) -> int | None:
        """The latest exact-value search's move that lost to nothing in its deepest finished test of the
        opponent's win, or None: the move to play when time runs out (:meth:`choose_move`)."""
        if connect.score_search_fit(self.game):
            return self._score_guess
        g = int(self.state.ctrl[K.C_GUESS])
        return g if g >= 0 else None

    def check_position(self, position: Position) -> None:
        """A KinarowError unless ``position`` is a position of this searcher's game (another game's stones
        read with this game's tables would give a wrong answer)."""
        if not isinstance(position, Position) or position.game != self.game:
            what = f"a position of {position.game}" if isinstance(position, Position) else said(position)
            raise KinarowError(f"this Searcher is bound to {self.game}; it cannot search {what}")

    def prefault(self) -> None:
        """Touch every page of the transposition table now.

        A fresh table is mapped lazily, so otherwise the first searches pay the
        operating system's page faults; benchmarks call this before their clock.
        """
        raw = self.tt.reshape(-1).view(np.uint8)
        raw[::4096] = raw[::4096].copy()  # writes each page's first byte back unchanged

    def _warm_up(self) -> None:
        """Load the compiled kernel (numba's cache) now, or compile it, said first
        (:func:`~kinarow.engine.compiling.prepare`), so that neither is counted as search time."""
        assert self._bundles is not None
        prepare(SEARCH, K.deepen, self._board(0), self._board(0), 0, K.SIDE_BOTH, self.deepening_step,
                *self._bundles)
        self.ctrl[:] = 0
        self.ctrl[K.C_STOP] = 1
        self._deepen(0, 0, 0, K.SIDE_BOTH)  # stops at its first node
        self.ctrl[:] = 0
        self.ctrl[K.C_GUESS] = -1

    def forget_history(self) -> None:
        """Clear the move-ordering history before a new root (the table is kept).

        The history counts which cells cut off the search under the roots asked
        so far; carried to an unrelated root it misleads the move order. On 13
        (10,4,4) jobs after 1. e2 asked one after another of one Searcher, the
        carried history cost 115.4 M nodes where clearing it cost 17.7 M.
        """
        self.state.hist[:] = 0

    def new_root(self, max_nodes: int | None = None) -> None:
        """Start a question about a new root: counters and stop flag cleared, the node budget set, and no
        move-ordering history (:meth:`forget_history`); the table is kept."""
        self.ctrl[:] = 0
        self.ctrl[K.C_MAX_NODES] = check_count(max_nodes, "max_nodes") or 0
        self.ctrl[K.C_GUESS] = -1
        self.forget_history()

    def _board(self, cells: int) -> Any:
        """The stones ``cells`` (bit c = cell c) as a board of the kernel's form (:attr:`words`)."""
        return W.to_board(cells, self.words)

    def _deepen(self, p1: int, p2: int, t: int, sides: int) -> int:
        """The kernel's deepening win tests (:func:`kinarow.engine.kernel.deepen`) of ``sides`` from (p1, p2)."""
        if self._bundles is None:
            raise self._score_only_error()
        return int(K.deepen(self._board(p1), self._board(p2), t, sides, self.deepening_step, *self._bundles))

    def _run(self, p1: int, p2: int, t: int) -> int:
        """Exact value by two win tests, "can the side to move win?" and "can its opponent win?", deepening
        together (so a short win for either side is found before the other side's long refutation). Callers
        start the root with :meth:`new_root`.
        """
        return self._deepen(p1, p2, t, K.SIDE_BOTH)

    @one_at_a_time
    def forces_win(self, position: Position, player: int) -> bool | None:
        """Can ``player`` (1 or 2) force a win from ``position``? None when stopped (``ctrl[C_STOP]``) or out
        of nodes first.

        That player's deepening win tests only (the same tests that :meth:`search` interleaves for an exact
        value): a "no" is a bound, not the exact value. Starts no new root: call :meth:`new_root` first (the
        caller may run this in a thread and stop it through ``ctrl``).
        """
        p1, p2 = position.key()
        mover = player == position.to_move
        v = self._deepen(p1, p2, position.stones, K.SIDE_MOVER if mover else K.SIDE_OPPONENT)
        if v == K.ABORT:
            return None
        return v == (K.WIN if mover else K.LOSS)

    @one_at_a_time
    def search(
        self,
        position: Position,
        *,
        max_nodes: int | None = None,
        deadline: float | None = None,
        on_tick: Callable[[int], None] | None = None,
    ) -> tuple[int, int | None, int, str | None]:
        """Search ``position``; returns (kernel value, best cell, nodes, why it stopped).

        The kernel runs in a worker thread (it releases the GIL) so that a time
        limit, a progress callback and Ctrl-C are served from this thread.
        """
        self.check_position(position)
        if self.scores is not None:
            return self._score_search(position, max_nodes=max_nodes, deadline=deadline, on_tick=on_tick)
        p1, p2 = position.key()
        t = position.stones
        self.new_root(max_nodes)
        value, stopped = self._watch(lambda: self._run(p1, p2, t), deadline, on_tick)
        nodes = int(self.ctrl[K.C_NODES])
        if value == K.ABORT:
            return value, None, nodes, stopped or "node limit"
        best = int(self.pv[t])
        return value, (best if best >= 0 else None), nodes, None

    def _watch(
        self, work: Callable[[], int], deadline: float | None, on_tick: Callable[[int], None] | None
    ) -> tuple[int, str | None]:
        """Run ``work`` (kernel calls, which release the GIL) in a worker thread while this thread serves the
        time limit, the progress callback and Ctrl-C; returns (what ``work`` returned, or ABORT, and why it
        was stopped: ``time limit``, ``interrupted`` or None)."""
        ctrl = self.ctrl
        stopped: list[str] = []

        def stop() -> None:
            ctrl[K.C_STOP] = 1

        def poll() -> None:
            if on_tick is not None:
                on_tick(int(ctrl[K.C_NODES]))
            if deadline is not None and time.perf_counter() >= deadline:
                stop()
                stopped[:] = ["time limit"]

        try:
            return run_stoppable(work, stop, poll), (stopped[0] if stopped else None)
        except KeyboardInterrupt:
            return K.ABORT, "interrupted"

    @property
    def scores(self) -> connect.ScoreSearcher | None:
        """The Connect-k score kernel's searcher that :meth:`search` uses for this game (None when the score
        kernel does not serve it: :func:`kinarow.search.connect.score_search_fit`), made at first use, with the
        opening book shipped for the game (unless ``$KINAROW_BOOK`` is ``off``)."""
        if not connect.score_search_fit(self.game):
            return None
        if self._scores is None:
            from kinarow.search import book

            opening = book.shipped_opening(self.game) if book.wanted(None) else None
            self._scores = connect.ScoreSearcher(self.game, tt_mb=self.tt_mb, book=opening)
        return self._scores

    def _score_search(
        self,
        position: Position,
        *,
        max_nodes: int | None,
        deadline: float | None,
        on_tick: Callable[[int], None] | None,
    ) -> tuple[int, int | None, int, str | None]:
        """:meth:`search` by the score kernel: (kernel value, best cell, nodes, why it stopped)."""
        scores = self.scores
        assert scores is not None
        scores.forget()
        score = scores.score(position, weak=True, max_nodes=max_nodes, deadline=deadline, on_tick=on_tick,
                             threads=self.threads)
        nodes = int(scores.ctrl[connect.GK.G_NODES])
        if score is None:
            self._score_guess = scores.safe_move(position)
            return K.ABORT, None, nodes, scores.stopped
        best = scores.best_move(position, score, weak=True, max_nodes=max_nodes, deadline=deadline, on_tick=on_tick,
                                threads=self.threads)
        nodes += scores.move_nodes
        if best is None and scores.stopped:  # the value is known (e.g. from the book), its best move is not yet
            self._score_guess = scores.safe_move(position)
            return score.sign, None, nodes, scores.stopped
        return score.sign, best, nodes, None

    @one_at_a_time
    def best_move(self, position: Position) -> tuple[int, int | None]:
        """(kernel value, best cell) without budget; for strategy extraction and play.

        Runs in the calling thread (no worker thread per call), so it suits many
        short questions; Ctrl-C is served between calls.
        """
        self.check_position(position)
        p1, p2 = position.key()
        t = position.stones
        self.new_root()
        value = self._run(p1, p2, t)
        best = int(self.pv[t])
        return value, (best if best >= 0 else None)

    @one_at_a_time
    def choose_move(self, position: Position, seconds: float) -> tuple[Value, int]:
        """A move within about ``seconds``: (the position's value, a cell keeping it) if solved, else
        (``Value.UNKNOWN``, the best guess).

        The guess is a move that loses to nothing the search could see before
        time ran out (the deepest finished test of the opponent's win).
        """
        seconds = check_seconds(seconds, "seconds") or 0.0
        value, best, _, stopped = self.search(position, deadline=time.perf_counter() + seconds)
        if not stopped and best is not None:
            return mover_value(position, value), best
        if stopped == "interrupted":
            raise KeyboardInterrupt
        guess = self.guess
        legal = position.legal_moves()
        return Value.UNKNOWN, (guess if guess in legal else legal[0])

    # -- the engine contract (kinarow.search.engine.Engine) ----------------------------------------------------
    @one_at_a_time
    def value(self, position: Position, *, max_nodes: int | None = None, time_limit: float | None = None) -> Value:
        """The value of ``position`` by :meth:`search` (both sides' win tests deepening together; a Connect-k
        game's by the score search); ``Value.UNKNOWN`` when the budgets ran out first."""
        self.check_position(position)
        if position.result is not None:
            return position.result
        kernel_value, _, _, _ = self.search(position, max_nodes=max_nodes, deadline=_deadline(time_limit))
        return Value.UNKNOWN if kernel_value == K.ABORT else mover_value(position, kernel_value)

    @one_at_a_time
    def wins(self, position: Position, player: Player, *, max_nodes: int | None = None,
             time_limit: float | None = None) -> Value | Bound:
        """Can ``player`` force a win from ``position``? That player's deepening win tests only (the draw-proof
        walk's safety test asks thousands of these): its win, :func:`~kinarow.values.cannot_win`, or
        ``Value.UNKNOWN`` when the budgets ran out first. Starts a new root (:meth:`new_root`)."""
        self.check_position(position)
        player = check_player(player)
        if position.result is not None:
            return over_answer(position, player)
        deadline = _deadline(time_limit)
        self.new_root(max_nodes)
        mover = player.stone == position.to_move
        p1, p2 = position.key()
        # the deepening win tests of :meth:`forces_win`, watched for the time limit when there is one
        v = self._timed(lambda: self._deepen(p1, p2, position.stones, K.SIDE_MOVER if mover else K.SIDE_OPPONENT),
                        deadline)
        return answer(position, player, None if v == K.ABORT else v == (K.WIN if mover else K.LOSS))

    @one_at_a_time
    def move(self, position: Position, value: Value | None = None, *, max_nodes: int | None = None,
             time_limit: float | None = None) -> int | None:
        """A move that keeps ``value`` (the value of ``position``; searched first when not given). The winner's
        move is found by its win test alone, as the strategy extraction asks it; another by :meth:`search`. None
        when the budgets ran out first or the game is over; a win ``value`` that the side to move does not have
        is refused in one sentence."""
        self.check_position(position)
        if position.is_over:
            return None
        deadline = _deadline(time_limit)
        if self.score_only or value is None or value.winner is None or value.winner.stone != position.to_move:
            _, best, _, _ = self.search(position, max_nodes=max_nodes, deadline=deadline)
            return best
        p1, p2 = position.key()
        t = position.stones
        self.new_root(max_nodes)
        v = self._timed(lambda: self._deepen(p1, p2, t, K.SIDE_MOVER), deadline)
        if v == K.ABORT:
            return None
        if v != K.WIN:
            raise KinarowError(f"{value.winner_words} cannot force a win after {position.move_text() or 'the start'},"
                               f" so no move keeps the value {value}")
        best = int(self.pv[t])
        return best if best >= 0 else None

    def _timed(self, work: Callable[[], int], deadline: float | None) -> int:
        """``work`` (kernel calls) in the calling thread, or watched for ``deadline`` by :meth:`_watch`."""
        return work() if deadline is None else self._watch(work, deadline, None)[0]

    @one_at_a_time
    def walk(self, position: Position, winner: Player, *,
             on_tick: Callable[[int], None] | None = None) -> StrategyTree:
        """The strategy of ``winner`` from ``position``, which it wins, as the compiled walk of its win tests
        (:meth:`strategy_walk`); a position it does not win is refused in one sentence."""
        self.check_position(position)
        winner = check_player(winner, "the winner")
        refuse_walk(position, winner, self.wins(position, winner))
        moves = self.strategy_walk(position, winner.stone, on_tick=on_tick)
        assert moves is not None  # nothing asks it to stop; Ctrl-C is raised
        return walk_tree(position, winner, moves)

    @one_at_a_time
    def game_length(
        self,
        position: Position,
        winner: int,
        *,
        max_nodes: int | None = None,
        deadline: float | None = None,
        on_tick: Callable[[int], None] | None = None,
    ) -> tuple[int | None, int, str | None]:
        """The number of the stone (counting from the first of the game) on which the game ends when ``winner``
        (1 or 2), who can force a win from ``position``, ends it as soon as it can and the loser as late as it
        can; returns (that number or None when stopped first, nodes, why it stopped).

        The game ends on a stone of the winner (in misère play, of the loser). For each such stone L in turn, a
        win test of the winner whose horizon is the position after L - 1 stones says whether the winner can end
        the game by stone L: at the horizon only a stone that completes a group at once is seen, so the test
        succeeds exactly when the game can be made to end by stone L, and the first L that succeeds is the
        answer. The table is cleared first (a win stored by a longer horizon would pass for a shorter one); the
        tests then reuse each other's wins, since their horizons only grow. A Maker-Breaker game that Breaker
        wins ends when the board is full, with no search.
        """
        self.check_position(position)
        game = position.game
        if position.is_over or winner not in (1, 2):
            raise KinarowError("a game length is asked of a position still in play, for player 1 or 2")
        if game.goal == Goal.MAKER_BREAKER and winner == 2:
            return game.cells, 0, None
        ender = 3 - winner if game.goal == Goal.MISERE else winner
        p1, p2 = (self._board(bits) for bits in position.key())
        t = position.stones
        for_opponent = winner != position.to_move
        wins = K.LOSS if for_opponent else K.WIN
        self.tt[:] = 0
        self.new_root(max_nodes)

        def work() -> int:
            for last in range(t + 1, game.cells + 1):
                if game.turn_state(last - 1)[0] != ender:
                    continue
                value, _ = K.win_test(p1, p2, t, last - 1, for_opponent, self.tables, self.state)
                if value == K.ABORT:
                    return -1
                if value == wins:
                    return last
            return 0

        last, stopped = self._watch(work, deadline, on_tick)
        nodes = int(self.ctrl[K.C_NODES])
        if last < 0 or last == K.ABORT:
            return None, nodes, stopped or "node limit"
        if last == 0:
            raise KinarowError(f"{Value.win(game.goal, winner).winner_words} cannot force a win after "
                               f"{position.move_text() or 'the start'}, so the game has no length to find")
        return last, nodes, None

    @one_at_a_time
    def strategy_walk(
        self,
        position: Position,
        winner: int,
        should_stop: Callable[[], bool] | None = None,
        on_tick: Callable[[int], None] | None = None,
        outcome: str = WIN_OUTCOME,
        *,
        max_nodes: int | None = None,
        deadline: float | None = None,
    ) -> bytes | None:
        """The winner's prescribed moves from ``position`` as a walk (version 3: cell numbers, one byte each, in
        the checker's replay order; the moves :func:`kinarow.proofs.tree.follow` with :meth:`move` would
        give), found by the compiled kernel; None if ``should_stop()`` turned true first, or the budgets ran out:
        ``max_nodes`` nodes of its win tests together (the kernel's own count, checked every 1,024 nodes) or the
        clock time ``deadline`` (``time.perf_counter()``); :attr:`walk_stopped` then says which. Ctrl-C (and
        SIGTERM) stops the walk within a fraction of a second and is raised again. ``on_tick(nodes)`` hears the
        win tests' nodes so far, a few times a second and once at the end.

        ``outcome="not-lose"`` walks a strategy of ``winner`` that does not lose (a draw at worst) instead: at
        its turns a move that the opponent's win tests cannot refute. ``position`` must not be lost for it.
        """
        from kinarow.engine import extract_kernel as X
        from kinarow.proofs import tree_kernel as TK

        game, tb = self.game, self.tables
        if position.is_over:
            return b""
        rules, plan, xctrl = X.walk_inputs(game)
        self.ctrl[:] = 0
        self.check_position(position)
        xctrl[X.X_MAX_NODES] = check_count(max_nodes, "max_nodes") or 0
        p1, p2 = position.key()
        why: list[str] = []
        self.walk_stopped, self.walk_nodes = None, 0

        def stop() -> None:
            xctrl[X.X_STOP] = 1
            self.ctrl[K.C_STOP] = 1

        def check() -> None:
            if should_stop is not None and should_stop():
                why.append("asked")
                stop()
            if deadline is not None and time.perf_counter() >= deadline:
                why.append("time limit")
                stop()

        def poll() -> None:
            check()
            if on_tick is not None:
                on_tick(int(xctrl[X.X_NODES] + self.ctrl[K.C_NODES]))

        check()  # asked already, or no time left: the walk stops at its first question
        try:
            status, out = run_stoppable(
                lambda: X.extract(self._board(p1), self._board(p2), position.stones, winner, rules, plan,
                                  self.deepening_step, np.zeros(1 << 12, np.uint8), xctrl, tb, self.state,
                                  TK.CLAIM_CODES[outcome]), stop, poll)
        finally:
            self.ctrl[K.C_STOP] = 0
        self.walk_nodes = int(xctrl[X.X_NODES])
        if on_tick is not None:
            on_tick(self.walk_nodes)  # the final count, however short the walk
        if status == X.STOPPED:
            out_of_nodes = xctrl[X.X_MAX_NODES] > 0 and self.walk_nodes >= xctrl[X.X_MAX_NODES]
            self.walk_stopped = why[0] if why else "node limit" if out_of_nodes else "asked"
            return None
        moves = out[: int(xctrl[X.X_ROWS])]
        if status == X.NO_WIN:
            if outcome != WIN_OUTCOME:
                raise KinarowError(f"the {winner_of(game, winner, K.WIN)} player can lose after "
                                   f"{position.move_text() or 'the start'}, so it has no strategy that does not lose")
            # the value named this winner, and its walk finds no win: the value does not hold, wherever it came
            # from (a damaged book or store; or, were the kernel wrong, an internal error all the same)
            raise ClaimMismatchError(f"the search answered '{winner_of(game, winner, K.WIN)}' but its strategy "
                                     f"cannot be written: the winner has no winning move in a position after "
                                     f"{position.move_text() or 'the start'} ({len(moves)} moves prescribed before "
                                     "it); nothing is written")
        return moves.tobytes()

    @one_at_a_time
    def strategy_choices(
        self,
        position: Position,
        winner: int,
        should_stop: Callable[[], bool] | None = None,
        on_tick: Callable[[int], None] | None = None,
    ) -> dict[str, str] | None:
        """The winner's prescribed moves from ``position`` keyed by board (:meth:`strategy_walk` read into
        boards); None if ``should_stop()`` turned true first."""
        if position.is_over:
            return {}
        walk = self.strategy_walk(position, winner, should_stop, on_tick)
        if walk is None:
            return None
        return strategy_from_walk(position, winner, walk).expanded().choices


def _deadline(time_limit: float | None) -> float | None:
    """The clock time at which ``time_limit`` seconds (checked) from now run out; None for no limit."""
    seconds = check_seconds(time_limit, "time_limit")
    return None if seconds is None else time.perf_counter() + seconds


def strategy_from_walk(position: Position, winner: int, walk: bytes, outcome: str = WIN_OUTCOME) -> StrategyTree:
    """The strategy certificate of ``winner`` (1 or 2) from ``position``, given as a walk."""
    game = position.game
    return StrategyTree(str(game), [position.name(c) for c in position.moves], winner_of(game, winner, K.WIN),
                        walk=walk, outcome=outcome)


def non_losing_strategy(position: Position, player: int, searcher: Searcher | None = None,
                        on_tick: Callable[[int], None] | None = None,
                        should_stop: Callable[[], bool] | None = None) -> StrategyTree | None:
    """A strategy of ``player`` (1 or 2) from ``position`` that does not lose (a draw at worst), as a walk
    (``outcome`` "not-lose"; boards of at most 64 cells). ``searcher`` (with no knowledge, made here when not
    given) answers the win tests; ``on_tick(nodes)`` hears their nodes. A position ``player`` can lose is
    refused in one sentence. None if ``should_stop()`` turned true first (not when it is not given)."""
    game = position.game
    if game.cells > MAX_CELLS:
        raise KinarowError(f"a strategy that does not lose is written as a walk, on boards of at most {MAX_CELLS} "
                           f"cells; {game} has {game.cells}")
    if searcher is None:
        searcher = Searcher(game, knowledge="none")
    searcher.check_position(position)
    with searcher.lock:  # the new root and its test, one question
        searcher.new_root()
        loses = searcher.forces_win(position, 3 - player)
    if loses:
        raise KinarowError(f"the {winner_of(game, player, K.WIN)} player can lose after "
                           f"{position.move_text() or 'the start'}, so it has no strategy that does not lose")
    walk = searcher.strategy_walk(position, player, should_stop, on_tick=on_tick, outcome=NOT_LOSE)
    if walk is None:
        assert should_stop is not None  # nothing else asks it to stop; Ctrl-C is raised
        return None
    return strategy_from_walk(position, player, walk, NOT_LOSE)


def pair_max(game: Game) -> int:
    """The most groups that one pair of cells lies in (a pairing bound used to skip hopeless tests)."""
    count: dict[tuple[int, int], int] = {}
    for g in game.geometry.groups:
        for i, a in enumerate(g):
            for b in g[i + 1 :]:
                key = (a, b) if a < b else (b, a)
                count[key] = count.get(key, 0) + 1
    return max(count.values(), default=1)


def knowledge_fit(game: Game) -> Fit:
    """Whether pairings and matching sets can cut the search of ``game``; when they cannot, the reason is the
    result's ``knowledge_note`` (it begins with :data:`KNOWLEDGE_OFF`)."""
    fit = blocking_fit(game)
    return fit if fit else Fit.no(KNOWLEDGE_OFF + fit.reason)


def winner_of(game: Game, to_move: int, kernel_value: int) -> Value:
    """Translate a kernel value (from the side to move) into ``Value.FIRST``/``SECOND``/``DRAW``/..."""
    if kernel_value == K.DRAW:
        return Value.DRAW
    return Value.win(game.goal, to_move if kernel_value == K.WIN else 3 - to_move)

class StrategyStoppedError(KinarowError):
    """:func:`extract_strategy` ran out of its budgets before the strategy was written; ``stopped`` says which
    (``time limit`` or ``node limit``) and ``nodes`` how many nodes the walk's win tests had searched."""

    def __init__(self, stopped: str, nodes: int) -> None:
        super().__init__(f"the winning strategy was not written: the {stopped} ran out after {nodes:,} nodes")
        self.stopped = stopped
        self.nodes = nodes


def extract_strategy(
    position: Position, searcher: Searcher, on_tick: Callable[[int], None] | None = None, *, walk: bool = False,
    value: int | None = None, max_nodes: int | None = None, deadline: float | None = None,
) -> StrategyTree:
    """The winner's strategy from ``position`` (which must be a win for someone).

    At each of the winner's turns the kernel names a winning move; at each of
    the loser's turns every legal reply is followed. Transpositions are merged.
    ``on_tick(nodes)`` hears the nodes of the win tests so far. With
    ``walk=True`` the strategy stays a walk (version 3), as the kernel finds
    it: no board is kept, which is what lets a large strategy fit in memory.

    ``value`` is the position's kernel value for the side to move when it is known (a search that just found
    it); else :meth:`Searcher.search` finds it first. ``max_nodes`` (the walk's win tests together; the value's
    search has its own) and ``deadline`` (``time.perf_counter()``, for both) bound the work: when one runs out
    first, :class:`StrategyStoppedError` says which, within a fraction of a second. Ctrl-C and SIGTERM stop it
    as fast and are raised (KeyboardInterrupt).
    """
    with searcher.lock:  # the value and the walk of one question
        if value is None:
            value, _, nodes, stopped = searcher.search(position, max_nodes=max_nodes, deadline=deadline,
                                                       on_tick=on_tick)
            if stopped == "interrupted":
                raise KeyboardInterrupt
            if stopped or value == K.ABORT:
                raise StrategyStoppedError(stopped or "node limit", nodes)
        if value == K.DRAW:
            raise KinarowError("the position is a draw; there is no winning strategy to extract")
        winner = position.to_move if value == K.WIN else 3 - position.to_move
        moves = searcher.strategy_walk(position, winner, on_tick=on_tick, max_nodes=max_nodes, deadline=deadline)
        if moves is None:  # nothing else asks it to stop; Ctrl-C is raised
            raise StrategyStoppedError(searcher.walk_stopped or "node limit", searcher.walk_nodes)
    tree = strategy_from_walk(position, winner, moves)
    return tree if walk else tree.expanded()
