"""Proof search on free boards: "can this player force a win?" answered by df-pn with relevance zones.

>>> from kinarow import Game
>>> prove(Game("4x4k4")).value
<Value.DRAW: 'draw'>

Each question names an *attacker* and asks whether it can complete a group
first against every defence; the kernel (:mod:`kinarow.engine.pns_kernel`,
whose docstring gives the rules of the search and why its relevance zones
are sound) answers yes, no, or nothing when its budget runs out. A game's
value takes two questions in a normal game (the first player's win, then the
second player's; two "no" make a draw) and one in Maker-Breaker (Maker's).

Free placement, one stone a turn, normal or Maker-Breaker goal, at most 128
cells (two-word bitboards beyond 64: :mod:`kinarow.bitboards`): the games
where a blocking argument (a pairing) is sound. Strategies (walks) are read
from the table for boards of at most 64 cells.

Certificates from the table
===========================

A "no" is a defender strategy that the draw-proof format
(:mod:`kinarow.proofs.draw`: a blocking tree with pairing leaves) holds;
:mod:`kinarow.search.disproof` writes it out by a walk over the table from the
root:

* a defender node names a move whose child the table holds as disproved
  (:meth:`ProofSearcher.disproved_move`), or one completing a defender group;
* an attacker node (``+``) follows every legal move. The search skipped some:
  moves outside a sibling's relevance zone and moves on dead cells (passes).
  (P) and monotonicity guarantee that each is disproved, but the subtree is not
  in the table: the writer asks the search again on that child (an answer is
  certain, and mostly from the table);
* a pairing leaf is ``=N``, found by the writer's own pairing test;
* a defender group completed (normal goal) ends a branch: the game is over
  without an attacker win.

The second half is strategy stealing on the empty board, or a second tree from
the second player's question.

A "yes" is written out already: :meth:`ProofSearcher.strategy_walk` reads the
attacker's proof tree from the table (one proved move at attacker nodes, every
legal reply at defender nodes, the unproved children asked again) as a strategy
walk that :mod:`kinarow.proofs.tree` checks. The draw-proof walk (:mod:`kinarow.search.draw`)
asks :meth:`ProofSearcher.can_win` for its safety tests where the search applies.
"""

from __future__ import annotations

import json
import os
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kinarow import bitboards as W
from kinarow.engine import breaker as BK
from kinarow.engine import pns_kernel as P
from kinarow.engine.compiling import PROOF_SEARCH, prepare
from kinarow.engine.tables import QUAD_CELLS, board_tables
from kinarow.errors import KinarowError, SolverLimitError, run_stoppable
from kinarow.game import Game
from kinarow.limits import check_count, check_flag, check_seconds, check_tt_mb, said, ticks_after
from kinarow.position import Position
from kinarow.proofs import blocking_fit
from kinarow.proofs.tree import StrategyTree
from kinarow.search.engine import answer, check_player, refuse_walk, value_to_keep, walk_tree
from kinarow.values import FITS, Bound, Fit, Goal, Player, Value

#: node budget of one pairing search at a node
PAIR_BUDGET = 128
#: when a defender node is expanded, its first (best ordered) moves tested for a pairing after them; 7x7k5, the
#: first player's question: all 27,841 nodes and 21.5 M pairing-search nodes, the first 8: 28,760 and 8.6 M
#: (1.35 s against 3.06 s), the first 4: 39,171 and 7.9 M
EAGER = 8
#: the 1 + epsilon trick's epsilon, in thousandths
EPSILON = 250
#: attacker stones tried by one threat-sequence search (victory by continuous fours; 0: none)
VCF_BUDGET = 256
#: positions remembered as having no such sequence (a power of two; a word each)
VCF_MEMO = 1 << 16
DEFAULT_TT_MB = 64
#: a kept table (:meth:`ProofSearcher.keep_table`) is written after this many seconds of search
TABLE_SECONDS = 1800.0
TABLE_FORMAT, TABLE_VERSION = "kinarow.proof-table", 1


def proof_search_fit(game: Game) -> Fit:
    """Whether the proof search can answer questions about ``game``, and why not when it cannot."""
    fit = blocking_fit(game, exact=True)
    if not fit:
        return fit
    if game.cells > QUAD_CELLS:
        return Fit.no(f"{game} has {game.cells} cells; the proof search handles boards of at most {QUAD_CELLS} "
                      "cells")
    return FITS


@dataclass
class Answer:
    """One question's answer: can ``attacker`` (1 or 2) force a win? ``wins`` is None when the budget ran out."""

    attacker: int
    wins: bool | None
    nodes: int
    seconds: float
    expanded: int = 0
    pairing_tests: int = 0
    pairing_leaves: int = 0
    zone_pruned: int = 0
    #: the root's relevance zone (cells as a bitmask): a "no" stays a "no" with any empty cells outside it given
    #: to the attacker, a "yes" a "yes" with any given to the defender (None when not searched)
    zone: int | None = None
    #: why the search stopped before an answer: ``node limit`` or ``time limit`` (None when it answered)
    stopped: str | None = None


@dataclass
class Proved:
    """What :func:`prove` found: the value (``unknown`` when a budget ran out) and each question asked."""

    game: str
    moves: str
    value: Value
    answers: list[Answer] = field(default_factory=list)

    @property
    def nodes(self) -> int:
        return sum(a.nodes for a in self.answers)

    @property
    def seconds(self) -> float:
        return sum(a.seconds for a in self.answers)

    @property
    def stopped(self) -> str | None:
        """Why the last question stopped before its answer (None when every question was answered)."""
        return self.answers[-1].stopped if self.answers else None


#: a search of at most this many nodes (no time limit, no ``on_tick``) runs in the calling thread, without the
#: thread that watches for Ctrl-C and deadlines: it ends within about a second anyway, and the walks that ask many
#: small questions (kinarow.search.shared_walk) spend most of their time starting threads otherwise
SMALL_SEARCH = 100_000


class ProofSearcher:
    """The proof search bound to one game, with its table of proof and disproof numbers.

    ``zones`` turns the relevance-zone pruning on, ``knowledge`` the pairing leaves; when a defender node
    is expanded, its first ``eager`` moves (in move order) are each tested for a pairing after them;
    ``pair_budget`` bounds one pairing search (nodes); ``epsilon`` is the 1 + epsilon trick's (thousandths);
    ``heuristic`` holds the kernel's flags (``H_ORDER``: moves ordered by the groups through them,
    ``H_MOVES``: df-pn+ initial numbers); ``vcf`` bounds one search for a victory by continuous fours (attacker
    stones tried; 0: no threat sequences). The table takes ``tt_mb`` megabytes.

    Under the exact rule (``game.exact``) an extra stone can hurt its owner, so the arguments that rest on the
    opposite are off whatever is asked: no relevance zones, no threat sequences, and every empty cell is a move
    (a stone off every live group is a tempo there, not a pass). The pairing leaves stay: a player who owns no
    group owns no line of exactly k.
    """

    def __init__(
        self,
        game: Game | str,
        *,
        tt_mb: float = DEFAULT_TT_MB,
        symmetry: bool = True,
        zones: bool = True,
        knowledge: bool = True,
        eager: int = EAGER,
        pair_budget: int = PAIR_BUDGET,
        epsilon: int = EPSILON,
        heuristic: int = P.H_ORDER | P.H_MOVES,
        words: int | None = None,
        vcf: int = VCF_BUDGET,
    ) -> None:
        game = Game(game)
        tt_mb = check_tt_mb(tt_mb) or DEFAULT_TT_MB
        for name, flag in (("symmetry", symmetry), ("zones", zones), ("knowledge", knowledge)):
            check_flag(flag, name)
        for name, number in (("eager", eager), ("pair_budget", pair_budget), ("epsilon", epsilon), ("vcf", vcf)):
            if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= 10**9:
                raise KinarowError(f"{name} must be a whole number from 0 to 10**9, not {said(number)}")
        if isinstance(heuristic, bool) or heuristic not in range(4):
            raise KinarowError(f"heuristic is a sum of the flags H_ORDER (1) and H_MOVES (2), not {said(heuristic)}")
        fit = proof_search_fit(game)
        if not fit:
            raise SolverLimitError(f"the proof search does not apply: {fit.reason}")
        self.game = game
        if words not in (None, 1, 2, 4):
            raise KinarowError(f"words is 1, 2 or 4 (or None: the fewest that hold a board), not {said(words)}")
        tables = board_tables(game, symmetry, words=words)
        syminv = inverse_symmetries(tables.symperm)
        if syminv is None:  # the symmetries kept do not form a group: search without them
            tables = board_tables(game, False, words=words)
            syminv = np.zeros(1, np.int64)
        #: the words of a board in the kernel (1 up to 64 cells, 2 up to 128, 4 up to 256: :mod:`kinarow.bitboards`)
        self.words = words = tables.words
        self._known_buffers: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        wide = W.TRAILING[words]
        self.masks = tables.masks
        self.symtab = tables.symtab
        self.symperm = tables.symperm.astype(np.int64)
        self.syminv = syminv
        self.weight = tables.weight
        self.full = W.to_board((1 << game.cells) - 1, words)
        row_words = 8 if words == 1 else 3 * words + 4  # see the kernel's table layout
        rows = max(4, int(tt_mb * 2**20) // (8 * row_words))
        self.tt = np.zeros((1 << (rows.bit_length() - 1), row_words), np.uint64)
        self.params = np.zeros(P.N_PARAMS, np.int64)
        self.params[P.R_GOAL] = P.MAKER_BREAKER if game.goal == Goal.MAKER_BREAKER else P.NORMAL
        self.params[P.R_PAIR_BUDGET] = pair_budget
        self.params[P.R_ZONES] = int(zones and not game.exact)
        self.params[P.R_KNOW] = int(knowledge)
        self.params[P.R_EPS] = epsilon
        self.params[P.R_EAGER] = eager
        self.params[P.R_HEUR] = heuristic
        self.params[P.R_VCF] = 0 if game.exact else vcf
        cells = game.cells
        self.ctrl = np.zeros(P.N_CTRL, np.int64)
        self.fu = np.zeros((P.N_FU, cells + 2, *wide), np.uint64)
        self.fi = np.zeros((P.N_FI, cells + 2), np.int64)
        self.cmove = np.zeros((cells + 2, cells), np.int64)
        self.cpn = np.zeros((cells + 2, cells), np.int64)
        self.cdn = np.zeros((cells + 2, cells), np.int64)
        self.czn = np.zeros((cells + 2, cells, *wide), np.uint64)
        self.kbuf = BK.new_buffers(cells, int(self.masks.size))
        self.kctrl = np.zeros(BK.N_CTRL, np.int64)
        self.vh = np.zeros(VCF_MEMO, np.uint64)
        #: under the exact rule the cells that extend each group's line (None otherwise: the kernel is then
        #: compiled without the test)
        self.flanks = W.board_array(list(game.geometry.flank_masks), words) if game.exact else None
        self._kernel_tables = tuple(P.ProofTables(self.masks, self.full, self.symtab, self.symperm, self.syminv,
                                                  self.weight, self.flanks))
        self._kernel_state: tuple[Any, ...] | None = None  # made at first use (:meth:`_bundles`)
        self._prepared = False  # is the kernel loaded (or compiled) for this searcher's calls?
        #: the nodes the last :meth:`strategy_walk` searched (positions its table did not prove)
        self.walk_nodes = 0
        #: the file that keeps the table (:meth:`keep_table`), and the search it holds: nodes and seconds
        self.table_path: str | None = None
        self.table_seconds = TABLE_SECONDS
        #: write the kept table at the end of every question (else only when ``table_seconds`` have passed since
        #: the last write, or a question is stopped: many short questions, as a job run asks them)
        self.table_each_question = True
        self._table_written = time.monotonic()
        self.table_nodes = 0
        self.table_time = 0.0
        nsym = int(self.symtab.shape[0])
        self._img1 = np.zeros((nsym, *wide), np.uint64)
        self._img2 = np.zeros((nsym, *wide), np.uint64)

    def _bundles(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """The kernel's two bundles of this searcher's arrays (:class:`~kinarow.engine.pns_kernel.ProofTables`,
        :class:`~kinarow.engine.pns_kernel.ProofState`) as plain tuples, which numba types faster at each call;
        the state is made again when a kept table (:meth:`keep_table`) has replaced ``tt``."""
        state = self._kernel_state
        if state is None or state[1] is not self.tt:
            state = self._kernel_state = tuple(P.ProofState(
                self.params, self.tt, self.ctrl, self.fu, self.fi, self.cmove, self.cpn, self.cdn, self.czn,
                self.kbuf, self.kctrl, self.vh))
        return self._kernel_tables, state

    def _prepare(self) -> None:
        """The kernel loaded from numba's cache, or compiled (and said: :func:`~kinarow.engine.compiling.prepare`),
        once for this searcher."""
        if not self._prepared:
            empty = W.to_board(0, self.words)
            prepare(PROOF_SEARCH, P.dfpn, empty, empty, *self._bundles())
            self._prepared = True

    def _run(self, attacker_stones: int, defender_stones: int, attacker: int) -> tuple[int, int, int]:
        self._prepare()
        self.params[P.R_ATTACKER] = attacker - 1
        pn, dn, zone = P.dfpn(W.to_board(attacker_stones, self.words), W.to_board(defender_stones, self.words),
                              *self._bundles())
        return int(pn), int(dn), W.from_board(zone)

    def attacker_wins(
        self,
        position: Position,
        attacker: int,
        *,
        max_nodes: int | None = None,
        time_limit: float | None = None,
        on_tick: Callable[[int], None] | None = None,
        given: Iterable[int] = (),
    ) -> Answer:
        """Can ``attacker`` (1 or 2) force a win from ``position``? In Maker-Breaker only Maker (1) completes
        groups: Breaker's question is answered as "not Maker's win". ``on_tick(nodes)`` hears the node count
        while the search runs; Ctrl-C stops it and raises :class:`KeyboardInterrupt`.

        ``given``: empty cells handed to the defender all at once, as its move, at a position where the defender
        is to move; the attacker is then to move. A win there is a win after each single reply among them
        (fewer defender stones never hurt the attacker; see "Given stones" in
        :mod:`kinarow.engine.pns_kernel`). A position where the given stones complete a group of the defender
        is the defender's win."""
        self._check_position(position)
        if isinstance(attacker, bool) or attacker not in (1, 2):
            raise KinarowError(f"the attacker is player 1 or 2, not {said(attacker)}")
        max_nodes = check_count(max_nodes, "max_nodes")
        time_limit = check_seconds(time_limit, "time_limit")
        if position.result is not None:
            return Answer(attacker, position.result == Value.win(self.game.goal, attacker), 0, 0.0)
        if self.game.goal == Goal.MAKER_BREAKER and attacker == 2:
            maker = self.attacker_wins(position, 1, max_nodes=max_nodes, time_limit=time_limit, on_tick=on_tick)
            maker.attacker = 2
            maker.wins = None if maker.wins is None else not maker.wins
            return maker
        if (position.game.p, position.game.q) != (1, 1):  # pragma: no cover - refused in __init__
            raise KinarowError("one stone a turn only")
        bits = position.key()
        a_stones, d_stones = bits[attacker - 1], bits[2 - attacker]
        cells = self._given(position, attacker, given)
        for c in cells:
            d_stones |= 1 << c
        return self.attacker_wins_stones(a_stones, d_stones, attacker, extra=max(len(cells) - 1, 0),
                                         max_nodes=max_nodes, time_limit=time_limit, on_tick=on_tick)

    def attacker_wins_stones(
        self,
        attacker_stones: int,
        defender_stones: int,
        attacker: int,
        *,
        extra: int = 0,
        max_nodes: int | None = None,
        time_limit: float | None = None,
        on_tick: Callable[[int], None] | None = None,
    ) -> Answer:
        """:meth:`attacker_wins` of a position given by its stones (cell bitmasks, the attacker's and the
        defender's) where the defender holds ``extra`` stones beyond its turns (cells given to it at once,
        see ``given``); whose turn it is follows from the counts. The game must be one of free placement, one
        stone a turn; ``extra`` needs the normal goal."""
        self._prepare()  # before the clock
        start = time.perf_counter()
        self._stones_checked(attacker_stones, defender_stones, attacker, extra)
        max_nodes = check_count(max_nodes, "max_nodes")
        time_limit = check_seconds(time_limit, "time_limit")
        if self.game.goal == Goal.NORMAL and self._completed(defender_stones):
            return Answer(attacker, False, 0, time.perf_counter() - start, zone=0)
        self.params[P.R_EXTRA] = extra
        try:
            return self._answer(attacker_stones, defender_stones, attacker, start, max_nodes, time_limit, on_tick)
        finally:
            self.params[P.R_EXTRA] = 0

    def _stones_checked(self, attacker_stones: int, defender_stones: int, attacker: int, extra: int) -> int:
        """A position given by its stones, checked (as :meth:`attacker_wins_stones` takes it): the defender's
        stones less its extra ones, less the attacker's (0 or -1 when the first player attacks, 1 or 0 else)."""
        if isinstance(attacker, bool) or attacker not in (1, 2):
            raise KinarowError(f"the attacker is player 1 or 2, not {said(attacker)}")
        full = (1 << self.game.cells) - 1
        for stones in (attacker_stones, defender_stones):
            if isinstance(stones, bool) or not isinstance(stones, int) or stones < 0 or stones & ~full:
                raise KinarowError(f"stones are a bitmask of the board's {self.game.cells} cells, not {said(stones)}")
        if attacker_stones & defender_stones:
            raise KinarowError("the attacker's and the defender's stones share a cell")
        if isinstance(extra, bool) or not isinstance(extra, int) or extra < 0:
            raise KinarowError(f"the defender's extra stones are a count, not {said(extra)}")
        if extra and self.game.goal != Goal.NORMAL:
            raise KinarowError("cells are given to the defender in the normal game only")
        if self.game.goal == Goal.MAKER_BREAKER and attacker == 2:
            raise KinarowError("in Maker-Breaker the attacker asked by stones is Maker (1); Breaker's question is "
                               "Maker's answered the other way (attacker_wins)")
        behind = defender_stones.bit_count() - extra - attacker_stones.bit_count()
        if behind not in ((0, -1) if attacker == 1 else (1, 0)):
            raise KinarowError("these stone counts are not a position of play with the defender's extra stones")
        return behind

    def wins_at_once(self, attacker_stones: int, defender_stones: int) -> bool:
        """Does the player holding ``attacker_stones`` complete a group with one more stone? (compiled; the
        stones as :meth:`attacker_wins_stones` takes them, trusted: a writer's hot path)"""
        return bool(P.has_threat(self.masks, self.flanks, W.to_board(attacker_stones, self.words),
                                 W.to_board(defender_stones, self.words)))

    def ordered_cells(self, attacker_stones: int, defender_stones: int) -> list[int]:
        """The empty cells of a position given by its stones, most promising first, in the search's own order of
        moves (the live groups through a cell, both players'; ties by the static weight)."""
        full = (1 << self.game.cells) - 1
        cells = self.game.cells
        out = np.zeros(cells, np.int64)
        n = P.ordered_moves(self.masks, W.to_board(attacker_stones, self.words),
                            W.to_board(defender_stones, self.words),
                            W.to_board(full & ~(attacker_stones | defender_stones), self.words),
                            self.params[P.R_GOAL] == P.NORMAL, self.weight, int(self.params[P.R_HEUR]),
                            np.zeros(cells, np.float64), out)
        return [int(c) for c in out[:n]]

    def known_children(
        self, attacker_stones: int, defender_stones: int, attacker: int, *, extra: int = 0
    ) -> list[tuple[int, bool | None, int, int]]:
        """What this search knows of each move at a position given by its stones (as :meth:`attacker_wins_stones`)
        without searching: for each empty cell in order, the move, whether the attacker wins after it (True,
        False, or None: not known) by the position's evaluation or this search's table, the zone of a win (0
        otherwise) and the search's work below a win by the table (0 when the evaluation proves it: a measure of
        its proof's size). One compiled pass instead of a question a move; a move it leaves open can still be
        asked."""
        behind = self._stones_checked(attacker_stones, defender_stones, attacker, extra)
        attacker_moves = behind == (0 if attacker == 1 else 1)
        if self._known_buffers is None:  # the kernel fills the first n rows of each; kept between calls
            self._known_buffers = (np.zeros(self.game.cells, np.int64), np.zeros(self.game.cells, np.int64),
                                   W.board_array([0] * self.game.cells, self.words),
                                   np.zeros(self.game.cells, np.int64))
        cells, state, zones, work = self._known_buffers
        n = P.known_children(
            self._kernel_tables, self.tt, W.to_board(attacker_stones, self.words),
            W.to_board(defender_stones, self.words), attacker - 1, self.params[P.R_GOAL] == P.NORMAL, int(extra),
            attacker_moves, bool(self.params[P.R_ZONES]), self._img1, self._img2, cells, state, zones, work)
        proven, disproven = int(P.PROVEN), int(P.DISPROVEN)
        wide = W.board_ints(zones, n)
        return [(c, True, z, w) if s == proven else (c, False if s == disproven else None, 0, 0)
                for c, s, z, w in zip(cells[:n].tolist(), state[:n].tolist(), wide, work[:n].tolist(), strict=True)]

    def _given(self, position: Position, attacker: int, given: Iterable[int]) -> list[int]:
        """The cells of ``given`` checked: distinct empty cells, given at a position where the defender moves."""
        if isinstance(given, (str, bytes)) or not isinstance(given, Iterable):
            raise KinarowError(f"the given cells are a list of cell numbers, not {said(given)}")
        cells = list(given)
        if not cells:
            return cells
        if position.to_move == attacker:
            raise KinarowError("cells are given to the defender at its own turn; here the attacker is to move")
        if self.game.goal != Goal.NORMAL:
            raise KinarowError("cells are given to the defender in the normal game only")
        empty = set(position.legal_moves())
        for c in cells:
            if isinstance(c, bool) or not isinstance(c, int) or c not in empty:
                raise KinarowError(f"a given cell must be an empty cell of the board, not {said(c)}")
        if len(set(cells)) != len(cells):
            raise KinarowError("the given cells must be distinct")
        return cells

    def _completed(self, stones: int) -> bool:
        """Do ``stones`` hold a whole group?"""
        # compiled: a question's hot path
        return bool(P.holds_group(self.masks, self.flanks, W.to_board(stones, self.words)))

    def _answer(
        self,
        a_stones: int,
        d_stones: int,
        attacker: int,
        start: float,
        max_nodes: int | None,
        time_limit: float | None,
        on_tick: Callable[[int], None] | None,
    ) -> Answer:
        """The search of :meth:`attacker_wins` from the stones given."""
        deadline = None if time_limit is None else start + time_limit
        totals = np.zeros(P.N_CTRL, np.int64)  # the counters over the slices between two writes of the table
        why: list[str] = []  # what stopped the last slice: "time limit", "slice"

        def stop() -> None:
            self.ctrl[P.C_STOP] = 1

        def poll() -> None:
            if on_tick is not None:
                on_tick(int(totals[P.C_NODES] + self.ctrl[P.C_NODES]))
            if why:  # asked to stop already, and the kernel has not yet seen it (a busy machine): once is the reason
                return
            now = time.perf_counter()
            if deadline is not None and now >= deadline:
                why.append("time limit")
                stop()
            elif slice_end is not None and now >= slice_end:
                why.append("slice")
                stop()

        while True:  # one slice of search between two writes of the kept table (one slice when none is kept)
            left = None if max_nodes is None else max_nodes - int(totals[P.C_NODES])
            if left is not None and left < 1:  # the budget ran out at the end of a slice
                self.ctrl[P.C_ABORTED] = 1
                break
            self.ctrl[:] = 0
            self.ctrl[P.C_MAX_NODES] = left or 0
            why.clear()
            slice_end = None if self.table_path is None else time.perf_counter() + self.table_seconds
            slice_start = time.perf_counter()
            finished = threading.Event()

            def work(finished: threading.Event = finished) -> tuple[int, int, int]:
                try:
                    return self._run(a_stones, d_stones, attacker)
                finally:
                    finished.set()

            try:
                if left is not None and left <= SMALL_SEARCH and on_tick is None and deadline is None:
                    pn, dn, zone = work()  # bounded to well under a second: no watcher thread
                else:
                    pn, dn, zone = run_stoppable(work, stop, poll, every=0.02)
            except KeyboardInterrupt:
                stop()
                finished.wait()  # a second interrupt while the kernel stops leaves the file as it was
                # a whole table
                self._keep(int(self.ctrl[P.C_NODES]), time.perf_counter() - slice_start, stopped=True)
                raise
            totals += self.ctrl
            self._keep(int(self.ctrl[P.C_NODES]), time.perf_counter() - slice_start)
            if not (self.ctrl[P.C_ABORTED] and why == ["slice"]):
                break
        c = self.ctrl
        wins: bool | None = None
        if not c[P.C_ABORTED]:
            wins = pn == 0
            if pn != 0 and dn != 0:  # pragma: no cover - the search ends only with one of them 0
                raise AssertionError("the proof search stopped unsolved")
        return Answer(
            attacker,
            wins,
            int(totals[P.C_NODES]),
            time.perf_counter() - start,
            int(totals[P.C_EXPANDED]),
            int(totals[P.C_PAIR_TESTS]),
            int(totals[P.C_PAIR_LEAVES]),
            int(totals[P.C_ZONE_PRUNED]),
            None if wins is None else zone,
            None if wins is not None else "time limit" if "time limit" in why else "node limit",
        )

    # -- the kept table ---------------------------------------------------------------------------------------
    def keep_table(self, path: str, seconds: float | None = None, *, each_question: bool = True) -> None:
        """Keep this search's table in the file ``path``: load it now when the file exists (see
        :func:`load_table`), and write it after every ``seconds`` of search (default :data:`TABLE_SECONDS`) and
        when a question ends or stops (Ctrl-C, SIGTERM, a budget), so that a long search resumes where it
        stopped. With ``each_question=False`` a question that ends writes it only when ``seconds`` have passed
        since the last write (a stopped one always does): for many short questions sharing one large table, as
        the jobs of a job run. The file is written beside itself first and then renamed: a stop while writing
        keeps the last whole table."""
        self.table_path = str(path)
        self.table_seconds = TABLE_SECONDS if seconds is None else float(seconds)
        self.table_each_question = check_flag(each_question, "each_question")
        self._table_written = time.monotonic()
        if os.path.exists(self.table_path):
            self.tt, self.table_nodes, self.table_time = load_table(self.table_path, self)

    def _identity(self) -> dict[str, Any]:
        """What a kept table must match to be this search's: the game, the board words, the row and the
        symmetries (the keys are canonical under them)."""
        return {"format": TABLE_FORMAT, "version": TABLE_VERSION, "game": str(self.game), "words": self.words,
                "row_words": int(self.tt.shape[1]), "symmetries": zlib.crc32(self.symperm.tobytes())}

    def _keep(self, nodes: int, seconds: float, *, stopped: bool = False) -> None:
        """Write the table to its file (when one is kept), with the nodes and seconds of search so far (not
        yet, without ``stopped``, when the table is written every ``table_seconds`` only and they have not
        passed)."""
        if self.table_path is None:
            return
        self.table_nodes += nodes
        self.table_time += seconds
        if not (stopped or self.table_each_question or time.monotonic() - self._table_written >= self.table_seconds):
            return
        self._table_written = time.monotonic()
        meta = {**self._identity(), "rows": int(self.tt.shape[0]), "nodes": self.table_nodes,
                "seconds": round(self.table_time, 3)}
        part = self.table_path + ".part"
        with open(part, "wb") as out:
            np.savez(out, meta=np.array(json.dumps(meta)), tt=self.tt)
        os.replace(part, self.table_path)

    # -- the engine contract (kinarow.search.engine.Engine) ----------------------------------------------------
    def value(self, position: Position, *, max_nodes: int | None = None, time_limit: float | None = None) -> Value:
        """The value of ``position`` by :func:`prove` (the first player's question, then the second's;
        Maker-Breaker: Maker's); ``Value.UNKNOWN`` when the budgets (over both questions) ran out first."""
        self._check_position(position)
        return prove(position, max_nodes=max_nodes, time_limit=time_limit, searcher=self).value

    def wins(self, position: Position, player: Player, *, max_nodes: int | None = None,
             time_limit: float | None = None) -> Value | Bound:
        """Can ``player`` force a win from ``position``? :meth:`attacker_wins` of that player (the draw-proof
        walk's safety test): its win, :func:`~kinarow.values.cannot_win`, or ``Value.UNKNOWN`` when the
        budgets ran out first."""
        player = check_player(player)
        said = self.attacker_wins(position, player.stone, max_nodes=max_nodes, time_limit=time_limit)
        return answer(position, player, said.wins)

    def move(self, position: Position, value: Value | None = None, *, max_nodes: int | None = None,
             time_limit: float | None = None) -> int | None:
        """A move that keeps ``value`` (the value of ``position``; proved first when not given) by
        :meth:`keeping_move`; None when the budgets ran out first or the game is over."""
        self._check_position(position)
        kept = value_to_keep(self, position, value, max_nodes=max_nodes, time_limit=time_limit)
        return None if kept is None else self.keeping_move(position, kept, max_nodes=max_nodes,
                                                             time_limit=time_limit)[0]

    def walk(self, position: Position, winner: Player, *,
             on_tick: Callable[[int], None] | None = None) -> StrategyTree:
        """The strategy of ``winner`` from ``position``, which it wins, as the proof tree read from the table
        (:meth:`strategy_walk`; Maker-Breaker: Maker's wins only); a position it does not win is refused in one
        sentence."""
        winner = check_player(winner, "the winner")
        refuse_walk(position, winner, self.wins(position, winner))
        return walk_tree(position, winner, self.strategy_walk(position, winner.stone, on_tick=on_tick))

    def _check_position(self, position: Position) -> None:
        """One sentence unless ``position`` is a position of this search's game."""
        if not isinstance(position, Position) or position.game != self.game:
            raise KinarowError(f"this proof search is bound to {self.game}; give it a position of that game")

    def keeping_move(
        self, position: Position, value: Value, *, max_nodes: int | None = None, time_limit: float | None = None
    ) -> tuple[int | None, int]:
        """A move of the side to move that keeps ``value`` (the value of ``position``, found by this search):
        a winning move for the winner, a move after which the opponent cannot win for a draw, and any move
        when the side to move loses. Returns (the cell, or None when the budgets ran out first; the nodes
        spent). The children are first looked up in the table, then asked with budgets growing fourfold."""
        mover = position.to_move
        winner = value.stone
        legal = sorted(position.legal_moves(), key=lambda c: -int(self.weight[c]))
        if not legal or (winner is not None and winner != mover):
            return (legal[0] if legal else None), 0
        # the opponent's question after the move: the mover's win keeps a win, the opponent's "no" a draw
        attacker, wanted = (mover, True) if winner == mover else (3 - mover, False)
        children = []
        for cell in legal:
            child = position.copy()
            child.play(cell)
            children.append((cell, child))
        start = time.perf_counter()
        spent = 0
        budget = 2  # one node: the table's answer, if it holds one
        while children:
            left: list[tuple[int, Position]] = []
            for cell, child in children:
                nodes = budget if max_nodes is None else min(budget, max_nodes - spent)
                seconds = None if time_limit is None else time_limit - (time.perf_counter() - start)
                if nodes < 1 or (seconds is not None and seconds <= 0):
                    return None, spent
                answer = self.attacker_wins(child, attacker, max_nodes=nodes, time_limit=seconds)
                spent += answer.nodes
                if answer.wins is wanted:
                    return cell, spent
                if answer.wins is None:
                    left.append((cell, child))
            children = left
            budget = 1000 if budget < 1000 else budget * 4
        raise AssertionError(f"no move keeps the value {value} found by the proof search")  # pragma: no cover

    def strategy_walk(
        self, position: Position, winner: int, on_tick: Callable[[int], None] | None = None
    ) -> bytes:
        """The winner's strategy from ``position`` (a win for ``winner``, 1 or 2, that this search has proved)
        as a walk (version 3, as :meth:`kinarow.search.solve.Searcher.strategy_walk` writes it): the proof
        tree read from the table, one proved move at the winner's turns (the one with the least work below
        it), every legal reply at the loser's. A position whose moves the table does not prove (a reply the
        relevance zones pruned, a move on a dead cell, an evicted row) is asked again. ``on_tick(nodes)``
        hears the nodes of those searches; Ctrl-C stops the walk and is raised again.

        When the search keeps its table in a file (:meth:`keep_table`), the walk keeps its progress beside it
        (:func:`walk_checkpoint_path`): the moves written so far, saved every ``table_seconds`` of walking (or
        five times as long as the last replay of saved moves took, if longer) and when it stops (Ctrl-C,
        SIGTERM); the next walk of the same position replays them without searching and goes on from there; the
        file is removed when the walk is done."""
        from kinarow.engine import extract_kernel as X

        game = self.game
        if isinstance(winner, bool) or winner not in (1, 2):
            raise KinarowError(f"the winner is player 1 or 2, not {said(winner)}")
        if game.goal == Goal.MAKER_BREAKER and winner == 2:
            raise KinarowError("the proof search's table holds Maker's wins only; Breaker's strategy is a blocking "
                               "one (solve with search='alpha-beta')")
        if not isinstance(position, Position) or position.game != game:
            raise KinarowError(f"this proof search is bound to {game}; give it a position of that game")
        if position.is_over:
            return b""
        rules, plan, xctrl = X.walk_inputs(game)
        self.params[P.R_ATTACKER] = winner - 1
        self.ctrl[:] = 0
        tables, state = self._bundles()
        p1, p2 = (W.to_board(bits, self.words) for bits in position.key())

        # a table kept for many questions (a job run's) has no one walk to keep beside it
        keep = None if self.table_path is None or not self.table_each_question else walk_checkpoint_path(
            self.table_path)
        done = b"" if keep is None else load_walk(keep, position, winner)
        out = np.zeros(max(1 << 12, 2 * len(done)), np.uint8)
        out[: len(done)] = np.frombuffer(done, np.uint8)
        xctrl[X.X_PREFIX] = len(done)
        last: list[tuple[int, np.ndarray]] = []
        # a save stops the kernel, which then replays the saved moves (no search, but every position again): the
        # next save waits at least four times that replay, so replays take at most a fifth of the walk's time
        started = [time.monotonic()]
        replay = [0.0 if not done else None]

        def stop() -> None:
            xctrl[X.X_STOP] = 1
            self.ctrl[P.C_STOP] = 1

        def poll() -> None:
            if on_tick is not None:
                on_tick(int(xctrl[X.X_NODES]))
            now = time.monotonic()
            if replay[0] is None and xctrl[X.X_ROWS] >= xctrl[X.X_PREFIX]:
                replay[0] = now - started[0]
            if keep is not None and replay[0] is not None and now - started[0] >= max(self.table_seconds,
                                                                                      5 * replay[0]):
                stop()  # to save: the walk goes on from the saved moves

        def work() -> None:
            last.append(X.extract_proof(p1, p2, position.stones, winner, rules, plan, out, xctrl, tables,
                                          state))

        while True:
            last.clear()  # a stop saves this run's moves, never an earlier run's
            try:
                run_stoppable(work, stop, poll)
            except KeyboardInterrupt:
                if keep is not None and last and last[-1][0] == X.STOPPED:
                    save_walk(keep, position, winner, last[-1][1][: int(xctrl[X.X_ROWS])])
                raise
            finally:
                self.ctrl[P.C_STOP] = 0
            status, out = last[-1]
            if status != X.STOPPED or keep is None:
                break
            save_walk(keep, position, winner, out[: int(xctrl[X.X_ROWS])])
            started[0], replay[0] = time.monotonic(), None
            xctrl[X.X_PREFIX], xctrl[X.X_ROWS], xctrl[X.X_STOP] = xctrl[X.X_ROWS], 0, 0
        poll()
        moves = out[: int(xctrl[X.X_ROWS])]
        self.walk_nodes = int(xctrl[X.X_NODES])
        if status == X.BAD_PREFIX:
            raise KinarowError(f"the walk kept in '{keep}' plays on a taken cell when replayed; remove the file to "
                               "walk from the start")
        if keep is not None and os.path.exists(keep):
            os.remove(keep)
        if status != X.DONE:
            raise KinarowError(f"internal error: the proof search proves no move of the winner in a position after "
                               f"{position.move_text() or 'the start'} ({len(moves)} moves prescribed before it)")
        return moves.tobytes()

    def disproved_move(self, position: Position, attacker: int) -> int | None:
        """At a position where the defender (the player other than ``attacker``) is to move: a defender move
        after which the table (or the position's evaluation) says the attacker cannot win -- one completing a
        defender group first, else the disproved child with the least work below it; None when there is none."""
        return self._table_move(P.disproved_move, position, attacker)

    @property
    def stopped_nodes(self) -> int:
        """The nodes the last search of a table that is not kept in a file searched before it was stopped (one
        slice: the whole search)."""
        return int(self.ctrl[P.C_NODES])

    def most_proving_move(self, position: Position, attacker: int) -> int | None:
        """At a position where ``attacker`` is to move: the move its search would try next, by the table -- a move
        that wins at once or that the position's evaluation proves, else the child with the least proof number
        (after a search stopped short, the most promising move); None when the table holds no child."""
        if position.is_over or position.to_move != attacker:
            return None
        return self._table_move(P.most_proving_move, position, attacker)

    def _table_move(self, kernel: Any, position: Position, attacker: int) -> int | None:
        """The cell a table-reading kernel (:func:`~kinarow.engine.pns_kernel.most_proving_move`,
        :func:`~kinarow.engine.pns_kernel.disproved_move`) names at ``position``, or None."""
        bits = position.key()
        mine, theirs = W.to_board(bits[attacker - 1], self.words), W.to_board(bits[2 - attacker], self.words)
        cell = kernel(self._kernel_tables, self.tt, mine, theirs, attacker - 1, self.game.goal != Goal.MAKER_BREAKER,
                      self._img1, self._img2)
        return None if cell < 0 else int(cell)

    def clear(self) -> None:
        """Forget every proof and disproof number (a fresh table), and the positions known to have no threat
        sequence."""
        self.tt[:] = 0
        self.vh[:] = 0


def _table_meta(path: str) -> tuple[Any, dict[str, Any]]:
    """The open kept-table file at ``path`` and its description; one sentence when it is not one."""
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as error:
        raise KinarowError(f"cannot read the proof table '{path}': {error}") from None
    try:
        if set(data.files) != {"meta", "tt"}:
            raise ValueError("it does not hold a table and its description")
        meta = json.loads(str(data["meta"]))
        if not isinstance(meta, dict) or meta.get("format") != TABLE_FORMAT or meta.get("version") != TABLE_VERSION:
            raise ValueError(f"it is not a {TABLE_FORMAT} file of version {TABLE_VERSION}")
        rows, row_words, nodes = meta.get("rows"), meta.get("row_words"), meta.get("nodes")
        if not (isinstance(rows, int) and isinstance(row_words, int) and isinstance(nodes, int)) or any(
                isinstance(v, bool) for v in (rows, row_words, nodes)):
            raise ValueError("its description has no whole numbers of rows, words and nodes")
        if rows < 4 or rows & (rows - 1) or row_words not in (8, 10):
            raise ValueError(f"a table of {rows} rows of {row_words} words is not one the search makes")
        member = data.zip.getinfo("tt.npy")
        if not rows * row_words * 8 <= member.file_size <= rows * row_words * 8 + 4096:
            raise ValueError(f"its table holds {member.file_size:,} bytes, not {rows:,} rows of {row_words} words")
    except (ValueError, KeyError, TypeError) as error:
        data.close()
        raise KinarowError(f"the proof table '{path}' cannot be used: {error}") from None
    return data, meta


def table_size_mb(path: str, game: Game) -> float | None:
    """The megabytes of the table kept in ``path`` (a search resumes with the table's own size), or None when
    there is no such file yet; one sentence when the file is not a kept table of ``game``."""
    if not os.path.exists(path):
        return None
    data, meta = _table_meta(path)
    data.close()
    if meta.get("game") != str(game):
        raise KinarowError(f"the proof table '{path}' is of {meta.get('game')}, not {game}; give another file")
    return float(meta["rows"] * meta["row_words"] * 8) / 2**20


WALK_FORMAT = "kinarow.walk-checkpoint"


def walk_checkpoint_path(table_path: str) -> str:
    """Where a strategy walk from a kept table keeps its progress: beside the table, ``TABLE.walk.npz``."""
    return table_path + ".walk.npz"


def save_walk(path: str, position: Position, winner: int, moves: np.ndarray, kind: str = WALK_FORMAT) -> None:
    """Keep a stopped walk's moves (written beside the file and renamed, so a stop while writing keeps the
    last whole one); ``kind`` names the walk's form (a walk with shared replies has its own)."""
    meta = {"format": kind, "game": str(position.game), "moves": position.move_text(), "winner": winner}
    part = path + ".part"
    with open(part, "wb") as out:
        np.savez_compressed(out, meta=np.array(json.dumps(meta)), walk=np.asarray(moves, np.uint8))
    os.replace(part, path)


def load_walk(path: str, position: Position, winner: int, kind: str = WALK_FORMAT) -> bytes:
    """The moves a stopped walk of ``position`` (won by ``winner``, of the form ``kind``) kept in ``path``, or
    b"" when there is no such file; one sentence when the file is not such a walk's."""
    if not os.path.exists(path):
        return b""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            walk = data["walk"]
    except (OSError, ValueError, KeyError, EOFError, zlib.error) as err:
        raise KinarowError(f"the walk checkpoint '{path}' cannot be read ({err}); remove it to walk from the "
                           "start") from None
    want = {"format": kind, "game": str(position.game), "moves": position.move_text(), "winner": winner}
    if not isinstance(meta, dict) or any(meta.get(k) != v for k, v in want.items()):
        raise KinarowError(f"the walk checkpoint '{path}' is not of this walk ({want['game']} after "
                           f"'{want['moves']}', player {winner} winning); remove it or give another table")
    if walk.dtype != np.uint8 or walk.ndim != 1:
        raise KinarowError(f"the walk checkpoint '{path}' holds a {walk.dtype} array of {walk.ndim} dimensions, "
                           "not the moves (uint8) of a walk; remove it to walk from the start")
    return walk.tobytes()


def load_table(path: str, searcher: ProofSearcher) -> tuple[np.ndarray, int, float]:
    """The table kept in ``path`` for ``searcher`` (the same game, board words, rows and symmetries), with the
    nodes and seconds of search it holds; one sentence when it cannot be used."""
    data, meta = _table_meta(path)
    try:
        want = {**searcher._identity(), "rows": int(searcher.tt.shape[0])}
        wrong = [key for key, value in want.items() if meta.get(key) != value]
        if wrong:
            raise KinarowError(f"the proof table '{path}' was kept by another search ({', '.join(wrong)} differ: "
                               f"{', '.join(f'{meta.get(k)} against {want[k]}' for k in wrong)}); give another file")
        tt = data["tt"]
        if tt.dtype != np.uint64 or tt.shape != searcher.tt.shape:
            raise KinarowError(f"the proof table '{path}' holds a {tt.dtype} array of shape {tt.shape}, not the "
                               f"{searcher.tt.shape} table of uint64 its description gives")
        seconds = meta.get("seconds")
        return tt, int(meta["nodes"]), float(seconds) if isinstance(seconds, int | float) else 0.0
    finally:
        data.close()


def inverse_symmetries(symperm: np.ndarray) -> np.ndarray | None:
    """For each symmetry (a row of cell images), the index of its inverse; None when one has none kept."""
    perms = [tuple(int(c) for c in row) for row in symperm]
    index = {p: i for i, p in enumerate(perms)}
    out = np.zeros(len(perms), np.int64)
    for i, p in enumerate(perms):
        inv = [0] * len(p)
        for c, img in enumerate(p):
            inv[img] = c
        j = index.get(tuple(inv))
        if j is None:
            return None
        out[i] = j
    return out


def attacker_wins(
    position: Position,
    attacker: int,
    *,
    max_nodes: int | None = None,
    time_limit: float | None = None,
    tt_mb: float = DEFAULT_TT_MB,
) -> bool | None:
    """Can ``attacker`` (1 or 2) force a win from ``position``? None when the budget ran out first."""
    return (
        ProofSearcher(position.game, tt_mb=tt_mb)
        .attacker_wins(position, attacker, max_nodes=max_nodes, time_limit=time_limit)
        .wins
    )


def prove(
    target: Game | Position | str,
    *,
    max_nodes: int | None = None,
    time_limit: float | None = None,
    searcher: ProofSearcher | None = None,
    tt_mb: float = DEFAULT_TT_MB,
    on_tick: Callable[[int], None] | None = None,
) -> Proved:
    """The value of a game (from the empty board) or a position, by proof search: the first player's win is
    asked first, then the second player's (Maker-Breaker: Maker's only). ``max_nodes`` / ``time_limit``
    bound the questions together; ``on_tick(nodes)`` hears their node count so far."""
    position = target.copy() if isinstance(target, Position) else Game(target).start()
    game = position.game
    if searcher is None:
        searcher = ProofSearcher(game, tt_mb=tt_mb)
    result = Proved(str(game), position.move_text(), Value.UNKNOWN)
    players = (1,) if game.goal == Goal.MAKER_BREAKER else (1, 2)
    value = Value.DRAW if game.goal != Goal.MAKER_BREAKER else Value.BREAKER
    start = time.perf_counter()
    for player in players:
        nodes_left = None if max_nodes is None else max_nodes - result.nodes
        seconds_left = None if time_limit is None else time_limit - (time.perf_counter() - start)
        if (nodes_left is not None and nodes_left < 1) or (seconds_left is not None and seconds_left <= 0):
            stopped = "node limit" if nodes_left is not None and nodes_left < 1 else "time limit"
            result.answers.append(Answer(player, None, 0, 0.0, stopped=stopped))
            return result
        answer = searcher.attacker_wins(position, player, max_nodes=nodes_left, time_limit=seconds_left,
                                        on_tick=ticks_after(on_tick, result.nodes))
        result.answers.append(answer)
        if answer.wins is None:
            return result
        if answer.wins:
            result.value = Value.win(game.goal, player)
            return result
    result.value = value
    return result
