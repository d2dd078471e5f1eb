"""``solve()``: the game-theoretic value of a game or position.

>>> from kinarow import Game, solve
>>> solve(Game("3x3k3")).value
<Value.DRAW: 'draw'>
"""

from __future__ import annotations

import math
import numbers
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from kinarow.engine import kernel as K
from kinarow.engine.tables import MAX_CELLS, KernelTables, kernel_tables
from kinarow.errors import KinarowError, run_stoppable
from kinarow.game import Game, shown
from kinarow.position import Position
from kinarow.proofs import blocking_fit
from kinarow.proofs.tree import NOT_LOSE, StrategyTree
from kinarow.proofs.tree import WIN as WIN_OUTCOME
from kinarow.search import connect
from kinarow.search.engine import answer, check_player, mover_value, over_answer, refuse_walk, walk_tree
from kinarow.values import Bound, Fit, Goal, Player, Value

if TYPE_CHECKING:
    from kinarow.search.certify import Proof
    from kinarow.store import Store

KNOWLEDGE_LEVELS = ("none", "pairing", "matching")
DEFAULT_KNOWLEDGE = "matching"
#: how a result's ``knowledge_note`` begins when the knowledge asked for does not apply to the game
KNOWLEDGE_OFF = "knowledge is off: "
#: node budgets of one knowledge test inside the search (pairing search, Maker-Breaker search)
PAIR_BUDGET = 64
MB_BUDGET = 64
ROOT_BUDGET = 1 << 15  # paid once per search (the empty 4x4 board needs 13,595 nodes)
MB_MAX_CELLS = 10  # the Maker-Breaker test runs (below the root) only when the live groups hold few empty cells
DEFAULT_TT_MB = 256
MAX_TT_MB = 16384
_ENTRY_BYTES = 32
#: the largest node budget: the kernel counts nodes in 64-bit integers
MAX_NODES = 10**18


# -- argument checks (solve, Searcher and the parallel solve) -----------------------------
def check_count(value: object, name: str, *, upper: int = MAX_NODES) -> int | None:
    """``value`` as a whole number from 1 to ``upper`` (None stays None); a KinarowError in one sentence otherwise.

    ``True`` and ``1.5`` are not counts, nor is the text ``"10"``.
    """
    if value is None:
        return None
    number = int(value) if isinstance(value, numbers.Integral) and not isinstance(value, bool) else 0
    if number < 1:
        raise KinarowError(f"{name} must be a positive whole number, not {said(value)}")
    if number > upper:
        most = "10**18 (counts are kept in 64 bits)" if upper == MAX_NODES else f"{upper:,}"
        raise KinarowError(f"{name} = {said(number)} is too large; the most allowed is {most}")
    return number


def check_seconds(value: object, name: str) -> float | None:
    """``value`` as a positive, finite number of seconds (None stays None); a KinarowError otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise KinarowError(f"{name} must be a positive number of seconds, not {said(value)}")
    seconds = _real(value)
    if not (seconds > 0 and math.isfinite(seconds)):
        raise KinarowError(f"{name} = {said(value)} is not allowed; give a positive, finite number of seconds")
    return seconds


def check_tt_mb(value: object, name: str = "tt_mb") -> float | None:
    """A transposition table size in MiB, in (0, MAX_TT_MB] (None stays None); a KinarowError otherwise."""
    if value is None:
        return None
    size = _real(value)
    if not 0 < size <= MAX_TT_MB:
        raise KinarowError(f"{name} = {said(value)} is not a table size; allowed is more than 0 up to {MAX_TT_MB} MiB")
    return size


def _real(value: object) -> float:
    """``value`` as a float (an int of a thousand digits is infinite); NaN when it is no real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return math.nan
    try:
        return float(value)
    except OverflowError:
        return math.inf


def check_flag(value: object, name: str) -> bool:
    """``value`` as a bool; ``"no"`` or ``1`` is a KinarowError, not quietly true."""
    if not isinstance(value, (bool, np.bool_)):
        raise KinarowError(f"{name} must be True or False, not {said(value)}")
    return bool(value)


def check_knowledge(value: object) -> str:
    """A knowledge level (``none``, ``pairing`` or ``matching``); a KinarowError otherwise."""
    if not isinstance(value, str) or value not in KNOWLEDGE_LEVELS:
        allowed = ", ".join(KNOWLEDGE_LEVELS)
        raise KinarowError(f"the knowledge level {said(value)} is unknown; allowed are {allowed}")
    return value


#: the searches :func:`solve` may be told to use (``search=``): ``auto`` takes the proof search where it applies
SEARCHES = ("auto", "proof", "alpha-beta")
#: ``search="auto"`` takes the proof search on boards of at least this many cells: on smaller ones alpha-beta
#: answers first (solve(), a fresh table each; 7x6k5: 43,941 in 0.073 s against 616 in 0.008 s; 7x7k5:
#: alpha-beta not done in 900 s, the proof search 0.93 s). At 36 cells both sides of the line: 6x6k4 0.14 s
#: by alpha-beta against 0.43 s by the proof search, 9x4k4 not done in 600 s by alpha-beta against 39 s
PROOF_SEARCH_CELLS = 36
#: the name of each search in ``Result.search``
PROOF_SEARCH, ALPHA_BETA, SCORE_SEARCH = "proof-number search", "alpha-beta", "score search"
#: the names in ``Result.search`` of each choice's searches
SEARCH_NAMES = {"auto": (PROOF_SEARCH, ALPHA_BETA, SCORE_SEARCH), "proof": (PROOF_SEARCH,),
                "alpha-beta": (ALPHA_BETA, SCORE_SEARCH)}


def check_search(value: object) -> str:
    """A search choice (``auto``, ``proof`` or ``alpha-beta``); a KinarowError otherwise."""
    if not isinstance(value, str) or value not in SEARCHES:
        raise KinarowError(f"the search {said(value)} is unknown; allowed are {', '.join(SEARCHES)}")
    return value


#: the most threads one search may run (:func:`solve`'s ``threads``)
MAX_THREADS = 64


def engine_threads() -> int:
    """The threads an engine searches with by default (``kinarow play``, the web page): two where the machine
    has two cores or more (the Connect-k score search then answers the slowest 7x6 positions in about 0.7 s
    instead of 1.1-1.8 s), else one."""
    return min(2, os.cpu_count() or 1)


def check_threads(threads: object) -> int:
    """``threads`` as an int from 1 to :data:`MAX_THREADS`, or a KinarowError saying what is allowed."""
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or not 1 <= int(threads) <= MAX_THREADS:
        raise KinarowError(f"threads must be a whole number from 1 to {MAX_THREADS}, not {said(threads)}")
    return int(threads)


def ticks_after(on_tick: Callable[[int], None] | None, done: int) -> Callable[[int], None] | None:
    """``on_tick`` for one more search after ``done`` nodes: it hears the running total (None stays None)."""
    if on_tick is None:
        return None
    tick = on_tick
    return lambda nodes: tick(done + nodes)


def check_limits(max_nodes: object, time_limit: object, tt_mb: object) -> tuple[int | None, float | None, float | None]:
    """The budgets every solve takes: ``max_nodes``, ``time_limit`` (seconds) and ``tt_mb``, checked."""
    return check_count(max_nodes, "max_nodes"), check_seconds(time_limit, "time_limit"), check_tt_mb(tt_mb)


def said(value: object) -> str:
    """A value as an error message shows it: short, and with its type when that is the trouble."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, int) and value.bit_length() > 100:
        return f"a {len(str(value)) if value.bit_length() < 10_000 else 'very large'}-digit number"
    text = repr(value)
    return text if len(text) <= 40 and not callable(value) else f"a value of type {type(value).__name__}"


@dataclass
class Result:
    """What :func:`solve` found.

    ``value`` is a :class:`~kinarow.values.Value`: ``first``, ``second`` or
    ``draw`` (``maker`` / ``breaker`` for Maker-Breaker), or ``unknown`` when
    the node or time budget ran out or the search was interrupted; a parallel
    solve asked one side's question may answer with a
    :class:`~kinarow.values.Bound` (``first-or-draw``, ``second-or-draw``).
    ``to_move`` is the :class:`~kinarow.values.Player` to move (None when the
    game is over). Both are string enums, so JSON shows the same words.
    """

    game: str
    moves: str
    value: Value | Bound
    nodes: int
    seconds: float
    best_move: str | None
    to_move: Player | None
    stopped: str | None = None
    strategy: StrategyTree | None = field(default=None, repr=False)
    knowledge: str = "none"
    knowledge_note: str | None = None
    certificate: Any = field(default=None, repr=False)
    knowledge_cuts: int | None = 0  # None: not known (an answer stored by an older version)
    #: the certificate of the value (``solve(..., proof=True)``): :class:`kinarow.search.certify.Proof`
    proof: Proof | None = field(default=None, repr=False)
    #: when the results store kept this answer (``solve(..., store=...)``); None when it was searched now
    stored_at: float | None = field(default=None, repr=False)
    #: why the value holds without search, said with it: 'no line of 9 cells fits on this 3x3 board'
    note: str | None = None
    #: the number of the stone (counting from the first of the game) on which the game ends with perfect play,
    #: the winner ending it as soon as it can and the loser as late as it can; None for a draw, or when the
    #: solve was not strong or stopped first (``solve(..., strong=True)``, :meth:`Searcher.game_length`)
    last_move: int | None = None
    #: was the game length asked for (``strong=True``)? Then :meth:`to_dict` has ``last_move``
    strong: bool = False
    #: which search answered: ``proof-number search``, ``alpha-beta`` or ``score search`` (None: no search ran,
    #: e.g. an answer from the results store or a game already over)
    search: str | None = None
    #: a proof search's win with its strategy: the nodes and seconds the walk over its table took (the search
    #: again where the table did not prove a move); None otherwise
    walk_nodes: int | None = None
    walk_seconds: float | None = None

    @property
    def from_store(self) -> bool:
        """Did this answer come from the results store (no search)?"""
        return self.stored_at is not None

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": self.game,
            "moves": self.moves,
            "to_move": self.to_move,
            "value": self.value,
            "best_move": self.best_move,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
            "nodes_per_second": round(self.nodes_per_second),
        }
        if self.stopped:
            out["stopped"] = self.stopped
        out["knowledge"] = self.knowledge
        out["knowledge_cuts"] = self.knowledge_cuts
        if self.knowledge_note:
            out["knowledge_note"] = self.knowledge_note
        if self.certificate is not None:
            out["certificate"] = self.certificate.to_json()
        if self.note:
            out["note"] = self.note
        if self.strong:
            out["last_move"] = self.last_move
        if self.search:
            out["search"] = self.search
        if self.walk_nodes is not None:
            out["walk_nodes"] = self.walk_nodes
            out["walk_seconds"] = round(self.walk_seconds or 0.0, 6)
        return out

    def describe(self) -> str:
        """The value in words, e.g. ``draw`` -> 'Draw with perfect play.' (:data:`kinarow.values.SENTENCES`),
        with the move on which the game ends when the solve was strong ('First player (Black) wins on move 7
        with perfect play.') and the reason where the result has one (``note``)."""
        text = strong_sentence(self.value, self.last_move)
        if self.strong and self.stopped and self.value not in (Value.DRAW, Value.UNKNOWN):
            text = f"{text[:-1]}; the search stopped ({self.stopped}) before it found on which move the game ends."
        return f"{text[:-1]}: {self.note}." if self.note else text


R = TypeVar("R", bound=Result)


def strong_sentence(value: Value | Bound, last_move: int | None) -> str:
    """A value in words (:data:`kinarow.values.SENTENCES`), with the move on which the game ends when it is known:
    'First player (Black) wins on move 7 with perfect play.'"""
    text = value.sentence
    if last_move is None:
        return text
    return text.replace(" with perfect play", f" on move {last_move} with perfect play", 1)


def default_tt_mb(game: Game) -> float:
    """Transposition-table size for a game when none is given: small boards get small tables.

    A table's pages are touched at random, so an oversized table costs page
    faults on small problems; big boards get :data:`DEFAULT_TT_MB`.
    """
    if game.cells <= 16:
        return 4
    if game.cells <= 30:
        return 16
    if game.cells <= 42:
        return 64
    return DEFAULT_TT_MB


class Searcher:
    """A search kernel bound to one game (a :class:`Game` or a game string), with its transposition table.

    Keep one Searcher to ask many questions about the same game: the table
    carries what earlier searches found.
    """

    def __init__(
        self, game: Game | str, *, tt_mb: float | None = None, symmetry: bool = True, knowledge: str = "none",
        threads: int = 1,
    ) -> None:
        game = Game(game)  # a game string works too
        knowledge = check_knowledge(knowledge)
        #: searches of one position the Connect-k score search runs at once, sharing its table (the engine's
        #: moves in ``kinarow play`` and on the web page; see :func:`engine_threads`)
        self.threads = check_threads(threads)
        symmetry = check_flag(symmetry, "symmetry")
        tt_mb = check_tt_mb(tt_mb)
        if tt_mb is None:
            tt_mb = default_tt_mb(game)
        self.game = game
        self.tt_mb = tt_mb
        self._scores: connect.ScoreSearcher | None = None
        self._score_guess: int | None = None  # the score search's move when time ran out (:attr:`guess`)
        self.symmetry = symmetry  # part of the results store's key (symmetry changes the best move found)
        self.tables: KernelTables = kernel_tables(game, symmetry)
        entries = max(2, int(tt_mb * 2**20 / _ENTRY_BYTES))
        self.deepening_step = 8  # measured: 5x4k4 850k nodes with steps of 2, 325k with 8; 6x6k4 544k vs 661k
        # knowledge: blocking proofs (pairings, matching sets) where they are sound
        self.knowledge = knowledge
        self.knowledge_note = (knowledge_fit(game).reason or None) if knowledge != "none" else None
        level = KNOWLEDGE_LEVELS.index(knowledge) if self.knowledge_note is None else 0
        kparams = np.array([level, PAIR_BUDGET, MB_BUDGET, ROOT_BUDGET, MB_MAX_CELLS, pair_max(game)], np.int64)
        #: the kernel's working arrays (transposition table, counters, history, buffers, generation)
        self.state: K.SearchState = K.new_state(
            game.cells, int(self.tables.masks.size), 1 << (entries.bit_length() - 1), kparams,
            16 if level == K.KNOW_MATCHING else 0,
        )
        # the bundles as plain tuples, which numba types faster at each call (the same arrays)
        self._bundles = (tuple(self.tables), tuple(self.state))
        self._warm_up()

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
        """Load the compiled kernel (numba's cache) now, so that it is not counted as search time."""
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

    def _deepen(self, p1: int, p2: int, t: int, sides: int) -> int:
        """The kernel's deepening win tests (:func:`kinarow.engine.kernel.deepen`) of ``sides`` from (p1, p2)."""
        return int(K.deepen(np.uint64(p1), np.uint64(p2), t, sides, self.deepening_step, *self._bundles))

    def _run(self, p1: int, p2: int, t: int) -> int:
        """Exact value by two win tests, "can the side to move win?" and "can its opponent win?", deepening
        together (so a short win for either side is found before the other side's long refutation). Callers
        start the root with :meth:`new_root`.
        """
        return self._deepen(p1, p2, t, K.SIDE_BOTH)

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

            opening = book.shipped_book(self.game) if book.wanted(None) else None
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
    def value(self, position: Position, *, max_nodes: int | None = None, time_limit: float | None = None) -> Value:
        """The value of ``position`` by :meth:`search` (both sides' win tests deepening together; a Connect-k
        game's by the score search); ``Value.UNKNOWN`` when the budgets ran out first."""
        self.check_position(position)
        if position.result is not None:
            return position.result
        kernel_value, _, _, _ = self.search(position, max_nodes=max_nodes, deadline=_deadline(time_limit))
        return Value.UNKNOWN if kernel_value == K.ABORT else mover_value(position, kernel_value)

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
        if value is None or value.winner is None or value.winner.stone != position.to_move:
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
        p1, p2 = (np.uint64(bits) for bits in position.key())
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

    def strategy_walk(
        self,
        position: Position,
        winner: int,
        should_stop: Callable[[], bool] | None = None,
        on_tick: Callable[[int], None] | None = None,
        outcome: str = WIN_OUTCOME,
    ) -> bytes | None:
        """The winner's prescribed moves from ``position`` as a walk (version 3: cell numbers, one byte each, in
        the checker's replay order; the moves :func:`kinarow.proofs.tree.follow` with :meth:`move` would
        give), found by the compiled kernel; None if ``should_stop()`` turned true first. Ctrl-C stops the walk
        and is raised again. ``on_tick(nodes)`` hears the win tests' nodes so far, a few times a second and once
        at the end.

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
        p1, p2 = position.key()

        def stop() -> None:
            xctrl[X.X_STOP] = 1
            self.ctrl[K.C_STOP] = 1

        def poll() -> None:
            if should_stop is not None and should_stop():
                stop()
            if on_tick is not None:
                on_tick(int(xctrl[X.X_NODES] + self.ctrl[K.C_NODES]))

        if should_stop is not None and should_stop():
            stop()  # asked already: the walk stops at its first question
        try:
            status, out = run_stoppable(
                lambda: X.extract(np.uint64(p1), np.uint64(p2), position.stones, winner, rules, plan,
                                  self.deepening_step, np.zeros(1 << 12, np.uint8), xctrl, tb, self.state,
                                  TK.CLAIM_CODES[outcome]), stop, poll)
        finally:
            self.ctrl[K.C_STOP] = 0
        if on_tick is not None:
            on_tick(int(xctrl[X.X_NODES]))  # the final count, however short the walk
        if status == X.STOPPED:
            return None
        moves = out[: int(xctrl[X.X_ROWS])]
        if status == X.NO_WIN:
            if outcome != WIN_OUTCOME:
                raise KinarowError(f"the {winner_of(game, winner, K.WIN)} player can lose after "
                                   f"{position.move_text() or 'the start'}, so it has no strategy that does not lose")
            raise KinarowError(f"internal error: the winner has no winning move in a position after "
                               f"{position.move_text() or 'the start'} ({len(moves)} moves prescribed before it)")
        return moves.tobytes()

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
        return _walk_tree(position, winner, walk).expanded().choices


def _deadline(time_limit: float | None) -> float | None:
    """The clock time at which ``time_limit`` seconds (checked) from now run out; None for no limit."""
    seconds = check_seconds(time_limit, "time_limit")
    return None if seconds is None else time.perf_counter() + seconds


def _walk_tree(position: Position, winner: int, walk: bytes, outcome: str = WIN_OUTCOME) -> StrategyTree:
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
    searcher.new_root()
    if searcher.forces_win(position, 3 - player):
        raise KinarowError(f"the {winner_of(game, player, K.WIN)} player can lose after "
                           f"{position.move_text() or 'the start'}, so it has no strategy that does not lose")
    walk = searcher.strategy_walk(position, player, should_stop, on_tick=on_tick, outcome=NOT_LOSE)
    if walk is None:
        assert should_stop is not None  # nothing else asks it to stop; Ctrl-C is raised
        return None
    return _walk_tree(position, player, walk, NOT_LOSE)


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


def solve(
    target: Game | Position | str,
    *,
    moves: str | None = None,
    max_nodes: int | None = None,
    time_limit: float | None = None,
    tt_mb: float | None = None,
    symmetry: bool = True,
    strategy: bool = False,
    walk: bool = False,
    searcher: Searcher | None = None,
    on_tick: Callable[[int], None] | None = None,
    knowledge: str = DEFAULT_KNOWLEDGE,
    proof: bool = False,
    store: Store | None = None,
    on_proof_tick: Callable[[int], None] | None = None,
    strong: bool = False,
    threads: int = 1,
    search: str = "auto",
    proof_table: str | None = None,
    share: bool = False,
) -> Result:
    """Solve a game (from the empty board) or a position with perfect play.

    ``max_nodes`` / ``time_limit`` bound the search; when either runs out the
    value is ``unknown``. With ``strategy=True`` a win comes with the winner's
    strategy (:class:`~kinarow.proofs.tree.StrategyTree`), which
    :func:`kinarow.proofs.tree.check` verifies without the search code;
    ``walk=True`` keeps it as a walk (version 3), the form that large
    strategies need (written for boards of at most 64 cells: a larger one
    raises :class:`kinarow.search.certify.WalkTooLargeError`).
    ``share=True`` (with ``search="proof"`` and ``walk=True``) writes it as a
    walk with shared replies (version 4, :mod:`kinarow.search.shared_walk`):
    the loser's replies outside a proof's relevance zone share one subtree.

    ``knowledge`` (``none``, ``pairing`` or ``matching``) lets the search cut a
    node where a Hales-Jewett pairing or a matching set proves that a player
    cannot win (Uiterwijk, "Set Matching", ACG 2017); it applies only to free
    placement, one stone a turn, normal or Maker-Breaker goal, and does
    nothing elsewhere (``Result.knowledge_note`` says why). When knowledge
    settles the value at the root, ``Result.certificate`` is the matching-set
    certificate (:class:`kinarow.proofs.matching.MatchingProof`). When a
    ``searcher`` is given, its own knowledge level applies.

    With ``proof=True`` (which implies ``strategy``) ``Result.proof`` is the
    certificate of the value, ready to write as JSON, and what it proves
    (:class:`kinarow.search.certify.Proof`: a win's strategy, a draw's
    matching sets, pairing or draw proof; ``on_proof_tick`` hears the progress
    of a draw proof). With a results ``store`` (:class:`kinarow.store.Store`)
    an answer it holds is returned at once when it was found with the same
    options (knowledge level, symmetry, and with the strategy when one is
    asked for; ``Result.from_store``), and a new exact answer is saved there,
    with the certificates found for it.

    With ``strong=True`` the solution is strong: ``Result.last_move`` is the
    number of the stone (counting from the first of the game) on which the
    game ends with perfect play, the winner ending it as soon as it can and
    the loser as late as it can (None for a draw); see
    :meth:`Searcher.game_length`. The budgets cover both searches. Games
    the Connect-k score kernel serves (:func:`kinarow.search.connect.score_search_fit`:
    gravity on a rectangular board, normal goal, one stone a turn) get the
    value and the length from one score search.

    ``threads`` > 1 runs that many searches of the position at once, sharing
    one table (the Connect-k score kernel only; other games search in one
    thread, and use processes for more: :mod:`kinarow.search.parallel`).

    ``search`` chooses the search of a value question (no ``strategy``, ``proof``, ``strong`` or
    ``searcher``): ``proof`` is the proof-number search (:mod:`kinarow.search.proof_search`: free
    placement, one stone a turn, normal or Maker-Breaker goal, at most 128 cells), ``alpha-beta`` the
    :class:`Searcher`, and ``auto`` (the default) the proof search where it applies, on boards of at least
    :data:`PROOF_SEARCH_CELLS` cells (alpha-beta is faster on smaller ones) and when ``knowledge`` is not
    ``none`` (it stops at pairings), else alpha-beta. ``Result.search`` says which search answered.

    ``proof_table`` (with ``search='proof'``) names a file that keeps the proof search's table, so that a long
    search resumes where it stopped: loaded when it exists (the table's size is then the file's), written
    every :data:`kinarow.search.proof_search.TABLE_SECONDS` seconds of search and when the search stops
    (Ctrl-C, SIGTERM, a budget), and kept after an answer (the strategy is read from it). The walk that reads a
    win's strategy from it keeps its moves so far beside it (``proof_table + ".walk.npz"``) in the same way, and
    a later walk replays them and goes on.
    """
    max_nodes, time_limit, tt_mb = check_limits(max_nodes, time_limit, tt_mb)
    knowledge = check_knowledge(knowledge)
    search = check_search(search)
    if proof_table is not None and (search != "proof" or not isinstance(proof_table, str) or not proof_table):
        raise KinarowError("proof_table names the file that keeps the proof search's table; give a file name and "
                           "search='proof'")
    if search == "proof" and (strong or searcher is not None):
        raise KinarowError("search='proof' answers value questions, with a win's strategy read from its table; "
                           "leave out strong and searcher, or use search='auto'")
    for name, flag in (("symmetry", symmetry), ("strategy", strategy), ("walk", walk), ("proof", proof),
                       ("strong", strong), ("share", share)):
        check_flag(flag, name)
    if share and (search != "proof" or not walk):
        raise KinarowError("share lets the loser's replies share subtrees in a walk written with the proof search's "
                           "zones; give it with search='proof' and walk=True")
    for name, hook in (("on_tick", on_tick), ("on_proof_tick", on_proof_tick)):
        if hook is not None and not callable(hook):
            raise KinarowError(f"{name} must be a function of the node count, not {said(hook)}")
    position = target.copy() if isinstance(target, Position) else Game(target).start()
    if searcher is not None and (not isinstance(searcher, Searcher) or searcher.game != position.game):
        bound = f"bound to {searcher.game}" if isinstance(searcher, Searcher) else said(searcher)
        raise KinarowError(f"the searcher given is {bound}; it must be a Searcher of {position.game}")
    if moves:
        position.play_moves(moves)
    threads = check_threads(threads)
    if search == "proof":
        proof_search_applies(position.game, search, knowledge)  # a game it does not apply to: one sentence
    if share:
        from kinarow.search.shared_walk import shared_walk_fit

        fit = shared_walk_fit(position.game)
        if not fit:
            raise KinarowError(f"a walk with shared replies cannot be written for {position.game}: {fit.reason}")
    scored = bool(connect.score_search_fit(position.game)) and searcher is None and not (strategy or proof)
    if strong and scored and not position.is_over:  # one score search gives both (the store keeps no lengths)
        scored_result = with_reason(position, _score_search(position, max_nodes=max_nodes, time_limit=time_limit,
                                                            tt_mb=tt_mb, on_tick=on_tick, knowledge=knowledge,
                                                            strong=True, threads=threads))
        if store is not None:
            from kinarow.search import certify

            certify.save_result(store, position, scored_result, symmetry=symmetry)
        return scored_result
    if strong and searcher is None and not position.is_over:  # the value's searcher then finds the length
        searcher = Searcher(position.game, tt_mb=tt_mb, symmetry=symmetry, knowledge=knowledge)
    result = with_reason(position, _solve(position, max_nodes=max_nodes, time_limit=time_limit, tt_mb=tt_mb,
                                           symmetry=symmetry, strategy=strategy, walk=walk, searcher=searcher,
                                           on_tick=on_tick, knowledge=knowledge, proof=proof, store=store,
                                           on_proof_tick=on_proof_tick, threads=threads, search=search,
                                           proof_table=proof_table, share=share))
    if not strong:
        return result
    assert searcher is not None or position.is_over
    return with_length(position, result, searcher, max_nodes=max_nodes, time_limit=time_limit, on_tick=on_tick)


def with_length(
    position: Position,
    result: R,
    searcher: Searcher | None,
    *,
    max_nodes: int | None = None,
    time_limit: float | None = None,
    on_tick: Callable[[int], None] | None = None,
) -> R:
    """``result`` (the value of ``position``) made strong: ``last_move`` found by ``searcher``
    (:meth:`Searcher.game_length`) within what is left of the budgets (``max_nodes``, ``time_limit``) after
    the value's search; its nodes and seconds are added to the result's."""
    result.strong = True
    winner = result.value.stone if isinstance(result.value, Value) else None
    if winner is None or result.stopped:
        return result
    if position.is_over:
        result.last_move = position.stones
        return result
    assert searcher is not None
    nodes_left = None if max_nodes is None else max_nodes - result.nodes
    seconds_left = None if time_limit is None else time_limit - result.seconds
    if (nodes_left is not None and nodes_left < 1) or (seconds_left is not None and seconds_left <= 0):
        result.stopped = "node limit" if nodes_left is not None and nodes_left < 1 else "time limit"
        return result
    start = time.perf_counter()
    done = result.nodes
    last, nodes, stopped = searcher.game_length(
        position, winner, max_nodes=nodes_left, deadline=None if seconds_left is None else start + seconds_left,
        on_tick=None if on_tick is None else lambda more: on_tick(done + more))
    result.last_move, result.stopped = last, stopped
    result.nodes += nodes
    result.seconds += time.perf_counter() - start
    return result


def with_reason(position: Position, result: R) -> R:
    """A draw (or Breaker win) of a board where no group fits says so (``Result.note``).

    Every solve (one process or parallel) ends here, so each says it the same way.
    """
    reason = position.game.no_group_reason
    if reason is not None and result.value in ("draw", "breaker"):
        result.note = reason
    return result


def _solve(
    position: Position,
    *,
    max_nodes: int | None,
    time_limit: float | None,
    tt_mb: float | None,
    symmetry: bool,
    strategy: bool,
    walk: bool,
    searcher: Searcher | None,
    on_tick: Callable[[int], None] | None,
    knowledge: str,
    proof: bool,
    store: Store | None,
    on_proof_tick: Callable[[int], None] | None,
    threads: int = 1,
    search: str = "auto",
    proof_table: str | None = None,
    share: bool = False,
) -> Result:
    """:func:`solve` once its arguments are checked: from the store, or by search, with the certificate asked."""
    from kinarow.search import certify

    if store is None and not proof:
        return certify.in_form(_search(position, max_nodes=max_nodes, time_limit=time_limit, tt_mb=tt_mb,
                                       symmetry=symmetry, strategy=strategy, walk=walk, searcher=searcher,
                                       on_tick=on_tick, knowledge=knowledge, threads=threads, search=search,
                                       proof_table=proof_table, share=share), walk)

    asked = knowledge if searcher is None else searcher.knowledge  # a searcher's own options key the store
    symmetry = symmetry if searcher is None else searcher.symmetry
    result = certify.stored_result(store, position, strategy=strategy or proof, knowledge=asked,
                                   symmetry=symmetry) if store is not None else None
    if result is not None and search != "auto" and result.search not in SEARCH_NAMES[search]:
        result = None  # the search asked for answers again
    if result is not None and store is not None and proof:  # a stored value is served only with its certificate
        proved = certify.certified_from_store(store, position, result, walk=walk, tick=on_proof_tick)
        if proved is not None:
            return proved
        result = None
    if result is None and proof and (search == "proof" or not strategy) and searcher is None \
            and not position.is_over and proof_search_applies(position.game, search, knowledge):
        # a draw's certificate needs no strategy; a win's is the winner's strategy, which alpha-beta writes
        # unless the proof search was asked for (then its table gives the proof tree)
        result = _proof_search(position, max_nodes=max_nodes, time_limit=time_limit, tt_mb=tt_mb, symmetry=symmetry,
                               on_tick=on_tick, knowledge=knowledge, strategy=search == "proof", walk=walk,
                               proof_table=proof_table, share=share)
        if result.value not in (Value.DRAW, Value.BREAKER) and result.strategy is None:
            result = None
    if result is None:
        result = _search(position, max_nodes=max_nodes, time_limit=time_limit, tt_mb=tt_mb, symmetry=symmetry,
                         strategy=strategy or proof, walk=walk, searcher=searcher, on_tick=on_tick,
                         knowledge=knowledge, threads=threads, search=search, proof_table=proof_table, share=share)
        if store is not None:
            certify.save_result(store, position, result, symmetry=symmetry)
    return certify.certify(position, result, proof=proof, walk=walk, store=store, tick=on_proof_tick)


def _search(
    position: Position,
    *,
    max_nodes: int | None,
    time_limit: float | None,
    tt_mb: float | None,
    symmetry: bool,
    strategy: bool,
    walk: bool,
    searcher: Searcher | None,
    on_tick: Callable[[int], None] | None,
    knowledge: str,
    threads: int = 1,
    search: str = "auto",
    proof_table: str | None = None,
    share: bool = False,
) -> Result:
    """:func:`solve`'s search of ``position`` (a copy the caller owns), without the store or the proof."""
    game = position.game
    start = time.perf_counter()
    moves_text = position.move_text()
    to_move = None if position.is_over else Player.of(position.to_move)
    if position.is_over:
        assert position.result is not None
        return Result(str(game), moves_text, position.result, 0, 0.0, None, to_move)
    if searcher is None and not strategy and connect.score_search_fit(game):
        return _score_search(position, max_nodes=max_nodes, time_limit=time_limit, tt_mb=tt_mb, on_tick=on_tick,
                             knowledge=knowledge, strong=False, threads=threads)
    wide = game.cells > MAX_CELLS  # beyond the alpha-beta kernel: the proof search writes the strategy too
    if searcher is None and (search == "proof" or not strategy or wide) and proof_search_applies(game, search,
                                                                                               knowledge):
        return _proof_search(position, max_nodes=max_nodes, time_limit=time_limit, tt_mb=tt_mb, symmetry=symmetry,
                             on_tick=on_tick, knowledge=knowledge, strategy=strategy, walk=walk,
                             proof_table=proof_table, share=share)
    if searcher is None:
        searcher = Searcher(game, tt_mb=tt_mb, symmetry=symmetry, knowledge=knowledge)
    start = time.perf_counter()
    deadline = start + time_limit if time_limit else None
    value, best, nodes, stopped = searcher.search(position, max_nodes=max_nodes, deadline=deadline, on_tick=on_tick)
    seconds = time.perf_counter() - start
    know: dict[str, Any] = {"knowledge": searcher.knowledge, "knowledge_note": searcher.knowledge_note,
                             "knowledge_cuts": int(searcher.ctrl[K.C_KCUTS])}
    if stopped:
        return Result(str(game), moves_text, Value.UNKNOWN, nodes, seconds, None, to_move, stopped=stopped,
                      search=SCORE_SEARCH if searcher.scores is not None else ALPHA_BETA, **know)
    result = Result(
        str(game),
        moves_text,
        winner_of(game, position.to_move, value),
        nodes,
        seconds,
        position.name(best) if best is not None else None,
        to_move,
        search=SCORE_SEARCH if searcher.scores is not None else ALPHA_BETA,
        **know,
    )
    if searcher.ctrl[K.C_ROOT_EXACT] and result.value in (Value.DRAW, Value.BREAKER):
        result.certificate = root_certificate(position)
        result.seconds = time.perf_counter() - start
    if strategy and value != K.DRAW:
        result.strategy = extract_strategy(
            position, searcher, None if on_tick is None else lambda more: on_tick(nodes + more), walk=walk
        )
        result.seconds = time.perf_counter() - start
    return result


def _score_search(
    position: Position,
    *,
    max_nodes: int | None,
    time_limit: float | None,
    tt_mb: float | None,
    on_tick: Callable[[int], None] | None,
    knowledge: str,
    strong: bool,
    threads: int = 1,
) -> Result:
    """:func:`_search` for the games the Connect-k score kernel serves (:mod:`kinarow.search.connect`): one
    search gives the value, and with ``strong`` the exact score, so the game's length too."""
    game = position.game
    to_move = Player.of(position.to_move)
    start = time.perf_counter()
    deadline = start + time_limit if time_limit else None
    know: dict[str, Any] = {"knowledge": knowledge,
                            "knowledge_note": (knowledge_fit(game).reason or None) if knowledge != "none" else None}
    searcher, lock = connect.searcher_for(game, tt_mb if tt_mb is not None else default_tt_mb(game))
    try:
        searcher.forget()  # every solve() searches as if from an empty table, so its node count is its own
        score = searcher.score(position, weak=not strong, max_nodes=max_nodes, deadline=deadline, on_tick=on_tick,
                               threads=threads)
        nodes = int(searcher.ctrl[connect.GK.G_NODES])
        if score is None:
            return Result(str(game), position.move_text(), Value.UNKNOWN, nodes, time.perf_counter() - start,
                          None, to_move, stopped=searcher.stopped, strong=strong, search=SCORE_SEARCH, **know)
        best = searcher.best_move(position, score, weak=not strong, max_nodes=max_nodes, deadline=deadline,
                                  on_tick=on_tick)
    finally:
        if lock is not None:
            lock.release()
    kernel_value = score.sign
    return Result(str(game), position.move_text(), winner_of(game, position.to_move, kernel_value), nodes,
                  time.perf_counter() - start, position.name(best) if best is not None else None, to_move,
                  strong=strong, last_move=score.last_move if strong else None, search=SCORE_SEARCH, **know)


def proof_search_applies(game: Game, search: str, knowledge: str) -> bool:
    """Does :func:`solve` ask the proof search (``search``: ``auto``, ``proof`` or ``alpha-beta``)? ``proof``
    for a game it does not apply to is refused in one sentence."""
    from kinarow.search.proof_search import proof_search_fit

    if search == "alpha-beta":
        return False
    fit = proof_search_fit(game)
    if search == "proof":
        if not fit:
            raise KinarowError(f"the proof search does not apply: {fit.reason}; choose the auto or alpha-beta search")
        return True
    return bool(fit) and knowledge != "none" and game.cells >= PROOF_SEARCH_CELLS


def _proof_search(
    position: Position,
    *,
    max_nodes: int | None,
    time_limit: float | None,
    tt_mb: float | None,
    symmetry: bool,
    on_tick: Callable[[int], None] | None,
    knowledge: str,
    strategy: bool = False,
    walk: bool = False,
    proof_table: str | None = None,
    share: bool = False,
) -> Result:
    """:func:`_search` by the proof-number search (:mod:`kinarow.search.proof_search`): the value from its
    questions, then a move that keeps it (asked within what is left of the budgets); with ``strategy`` a
    win's strategy, the proof tree read from the search's table (:meth:`ProofSearcher.strategy_walk`,
    not bounded by the budgets)."""
    from kinarow.engine import pns_kernel
    from kinarow.search.proof_search import ProofSearcher, prove, table_size_mb

    game = position.game
    to_move = Player.of(position.to_move)
    kept = None if proof_table is None else table_size_mb(proof_table, game)
    searcher = ProofSearcher(game, tt_mb=kept or (tt_mb if tt_mb is not None else min(default_tt_mb(game), 64)),
                             symmetry=symmetry, knowledge=knowledge != "none")
    searcher.attacker_wins(game.start(), 1, max_nodes=1)  # loads the compiled kernel before the clock
    if proof_table is not None:
        searcher.keep_table(proof_table)
    start = time.perf_counter()
    know: dict[str, Any] = {"knowledge": knowledge, "search": PROOF_SEARCH}
    try:
        proved = prove(position, max_nodes=max_nodes, time_limit=time_limit, searcher=searcher, on_tick=on_tick)
    except KeyboardInterrupt:
        return Result(str(game), position.move_text(), Value.UNKNOWN, int(searcher.ctrl[pns_kernel.C_NODES]),
                      time.perf_counter() - start, None, to_move, stopped="interrupted", **know)
    know["knowledge_cuts"] = sum(a.pairing_leaves for a in proved.answers) if knowledge != "none" else 0
    nodes = proved.nodes
    if proved.value == Value.UNKNOWN:
        return Result(str(game), position.move_text(), Value.UNKNOWN, nodes, time.perf_counter() - start, None,
                      to_move, stopped=proved.stopped or "node limit", **know)
    result = Result(str(game), position.move_text(), proved.value, nodes, 0.0, None, to_move, **know)
    if all(a.expanded == 0 for a in proved.answers) and proved.value in (Value.DRAW, Value.BREAKER):
        result.certificate = root_certificate(position)  # a pairing closed the root: show its matching sets
    seconds_left = None if time_limit is None else time_limit - (time.perf_counter() - start)
    try:
        best, more = searcher.keeping_move(position, proved.value, time_limit=seconds_left,
                                           max_nodes=None if max_nodes is None else max(max_nodes - nodes, 1))
    except KeyboardInterrupt:
        best, more = None, 0
    result.best_move = position.name(best) if best is not None else None
    result.nodes += more
    winner = proved.value.stone
    if strategy and winner is not None and game.goal == Goal.MAKER_BREAKER and winner == 2:
        # Breaker wins by blocking, which the table does not hold as a tree: alpha-beta writes its strategy
        result.strategy = extract_strategy(position, Searcher(game, tt_mb=tt_mb, symmetry=symmetry,
                                                              knowledge=knowledge), walk=walk)
    elif strategy and winner is not None and share:
        from kinarow.search.shared_walk import shared_walk

        done = result.nodes
        written = shared_walk(searcher, position, winner,
                              on_tick=None if on_tick is None else lambda more: on_tick(done + more),
                              keep=None if proof_table is None else proof_table + ".shared.npz")
        assert written is not None  # no time limit: it finishes (Ctrl-C is raised)
        result.walk_nodes, result.walk_seconds = written.nodes, written.seconds
        result.strategy = written.tree
    elif strategy and winner is not None:
        done = result.nodes
        walk_start = time.perf_counter()
        moves = searcher.strategy_walk(position, winner,
                                       on_tick=None if on_tick is None else lambda extra: on_tick(done + extra))
        result.walk_nodes, result.walk_seconds = searcher.walk_nodes, time.perf_counter() - walk_start
        tree = _walk_tree(position, winner, moves)
        result.strategy = tree if walk else tree.expanded()
    result.seconds = time.perf_counter() - start
    return result


def root_certificate(position: Position) -> Any:
    """The matching-set certificate of a draw (or Breaker win) that knowledge proved at the root, or None."""
    from kinarow.knowledge.matching import find_position

    players = (1,) if position.game.goal == Goal.MAKER_BREAKER else (1, 2)
    proof, _ = find_position(position, players=players, budget=2_000_000)
    return proof


def extract_strategy(
    position: Position, searcher: Searcher, on_tick: Callable[[int], None] | None = None, *, walk: bool = False
) -> StrategyTree:
    """The winner's strategy from ``position`` (which must be a win for someone).

    At each of the winner's turns the kernel names a winning move; at each of
    the loser's turns every legal reply is followed. Transpositions are merged.
    ``on_tick(nodes)`` hears the nodes of the win tests so far. With
    ``walk=True`` the strategy stays a walk (version 3), as the kernel finds
    it: no board is kept, which is what lets a large strategy fit in memory.
    """
    value, _ = searcher.best_move(position)
    if value == K.DRAW:
        raise KinarowError("the position is a draw; there is no winning strategy to extract")
    winner = position.to_move if value == K.WIN else 3 - position.to_move

    moves = searcher.strategy_walk(position, winner, on_tick=on_tick)
    assert moves is not None  # nothing asks it to stop; Ctrl-C is raised
    tree = _walk_tree(position, winner, moves)
    return tree if walk else tree.expanded()
