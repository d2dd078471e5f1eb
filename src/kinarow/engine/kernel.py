"""The search kernel: alpha-beta over integer bitboards, compiled with numba.

Bit layout
==========

A position is two bitboards, ``p1`` (Black / Maker) and ``p2`` (White /
Breaker). Bit ``i`` is cell ``i``; cells are numbered column-major,
``cell = x * n + y`` (x = column from the left, y = row from the bottom). A
board of at most 64 cells is one ``uint64``; a board of 65 to 128 cells a
pair ``(lo, hi)`` of them, cell ``c`` in bit ``c`` of ``lo`` or ``c - 64`` of
``hi`` (:mod:`kinarow.bitboards`, whose overloaded operations the kernel is
written with, so it compiles once a form: the one-word form operation for
operation the kernel of one word, the same nodes). For 7 x 6 (Connect Four)::

        a  b  c  d  e  f  g
    6 | 5 11 17 23 29 35 41
    5 | 4 10 16 22 28 34 40
    4 | 3  9 15 21 27 33 39
    3 | 2  8 14 20 26 32 38
    2 | 1  7 13 19 25 31 37
    1 | 0  6 12 18 24 30 36      bits 42..63 are always 0

For 11 x 7 (77 cells, two words)::

        a  b  c  ...  i   j   k
    7 | 6 13 20 ... 62 69  76          lo: cells 0..63
    . | .  .  .      .  .   .          hi: cells 64..76 in bits 0..12,
    2 | 1  8 15 ... 57 64  71              bits 13..63 always 0
    1 | 0  7 14 ... 56 63  70          (column j: cells 63..69, across the words)

Under gravity the cell above ``c`` is ``c + 1`` (same column unless ``c`` is a
top cell, see ``TOP``), and the stones of a column are a run of bits from its
bottom bit, so ``((occupied & colmask[x]) + bottom[x]) & colmask[x]`` is the
one playable cell of column x (0 when the column is full); in two words the
sum carries from ``lo`` into ``hi`` (``bitboards.add``). Boards of two words
take neither the line shifts below (``P_LINES`` is 0) nor the blocking
knowledge (``K_LEVEL`` is 0: :mod:`kinarow.engine.breaker` is one-word); their
groups are read one by one, as on the wrapping boards.

Every geometry (rect, torus, cylinder, hex) reaches the kernel the same way:
``masks[g]`` is the bitmask of group g (its k cells), whatever the shape, and
``flanks[g]`` the cells that extend its line under the ``exact`` rule (0 for
every group otherwise): a group is live for a player while the other player
has no stone in it and the player none on its flanks (a stone there would make
the line longer than k, which does not win), so one test serves both rules.

On boards that do not wrap (rect, hex) and with one stone a turn, groups are
never scanned one by one: a step along direction d moves a cell's bit by
``lshift[d]`` (n for horizontal, 1 vertical, n + 1 diagonal, n - 1 anti), and
``vp[d, i]`` masks the cells whose i-th neighbour along d is on the board, so
``(x >> i * lshift[d]) & vp[d, i]`` marks cells with a stone i steps ahead.

A symmetry ``s`` is applied a byte at a time: ``symtab[s, j, v]`` is the image
of the cells ``8j .. 8j+7`` whose bits are ``v``; OR-ing ``nbytes`` look-ups
maps a whole board. The transposition-table key is the smallest image
``(p1', p2')`` over the symmetries (only while few stones are down, see
``SYM_MAX_T``); the stored best move is kept in that canonical frame
(``symperm``) and mapped back with ``syminv``.

Depth-limited win tests (iterative deepening): nodes at ``t >= ctrl[C_TLIMIT]``
count as draws. Such a value is *tainted*; a result that favours the player
whose win is being tested (``ctrl[C_TESTER]``: 0 or 1) -- a win for it, a
loss for its opponent -- never depends on the horizon and is exact. Tainted results are stored with the generation
number ``ctrl[C_GEN]`` and only reused within that generation; exact ones
with generation 0, reused always.

A node at the horizon still sees what is decided at once: a win by the
mover's next stone, and (one stone left this turn) a loss to two cells that
complete an opponent's group; not a win by two stones of one turn. So a win
test whose horizon is the position after L - 1 stones finds exactly the wins
that end by stone L, when stone L is one that can end the game (the winner's;
in misere play the loser's): the strong solve's game lengths rely on this
(:meth:`kinarow.search.solve.Searcher.game_length`).

The transposition table is a ``(size, 4)`` uint64 array, two entries (one
64-byte cache line) per bucket: depth-preferred slot, then always-replace::

    word 0: p1 key   word 1: p2 key   word 3: unused
    (two words a board: a (size, 6) array, words 0-1 the p1 key, 2-3 the p2
    key, word 4 the entry below, word 5 unused)
    word 2: bits 0-1 flag (0 empty, 1 exact, 2 lower, 3 upper)
            bits 2-3 value + 1     bits 4-11 best move + 1 (canonical frame)
            bits 12-19 stones t    bits 32-63 generation (0 = exact)

Values are from the side to move: ``WIN = 1``, ``DRAW = 0``, ``LOSS = -1``;
``ABORT`` means the node or time budget ran out (nothing is stored then).

A kernel call names the position and two bundles (named tuples, which numba
unpacks at no cost): ``tables``, the game's arrays
(:class:`kinarow.engine.tables.KernelTables`), and ``state``, one searcher's
working arrays (:class:`SearchState`: the table, ``ctrl``, history, move
buffers, knowledge buffers and the generation counter). :func:`deepen` is the
one iterative-deepening loop of win tests; the solver, the parallel jobs'
one-sided questions and the strategy extraction all call it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from kinarow import bitboards as W
from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)
from kinarow.bitboards import canonical
from kinarow.engine import breaker as BK
from kinarow.engine.prefetch import prefetch_row

# A constant argument of a call between kernels is passed as np.bool_(...) or np.int64(...): numba compiles a callee
# once for each constant it is given (as a Literal type), and a callee called with True in one place and False
# in another would be compiled twice (measured: about 1 s each, in the first run's compile).

WIN, DRAW, LOSS, ABORT = 1, 0, -1, 99
NORMAL, MISERE, MAKER_BREAKER = 0, 1, 2

# iparams indices
P_N, P_M, P_ROWS, P_G, P_S, P_NBYTES, P_GRAVITY, P_GOAL, P_SYM_MAX_T, P_LINES = range(10)
N_IPARAMS = 10
# aux (uint64) layout: colmask[0:m], bottom[m:2m], then FULL, TOP
# ctrl indices
C_NODES, C_STOP, C_MAX_NODES, C_ABORTED, C_TLIMIT, C_GEN, C_TAINT, C_TESTER = range(8)
C_ROOT_EXACT, C_KNODES, C_KTESTS, C_KCUTS, C_ROOT_TRIED, C_GUESS = range(8, 14)
N_CTRL = 14
# knowledge (kparams): level (0 none, 1 pairing, 2 matching; 0 where a blocking argument is unsound),
# node budget of one pairing search, node budget of one Maker-Breaker search
K_LEVEL, K_PAIR_BUDGET, K_MB_BUDGET, K_ROOT_BUDGET, K_MB_MAX_CELLS, K_PAIR_MAX = range(6)
N_KPARAMS = 6
KNOW_NONE, KNOW_PAIRING, KNOW_MATCHING = 0, 1, 2
# TT flags
EMPTY, EXACT, LOWER, UPPER = 0, 1, 2, 3
# whose win :func:`deepen` tests: the side to move's, its opponent's, or both (the exact value)
SIDE_MOVER, SIDE_OPPONENT, SIDE_BOTH = 1, 2, 3

_H1 = np.uint64(0x9E3779B97F4A7C15)
_H2 = np.uint64(0xC2B2AE3D27D4EB4F)


class KernelTables(NamedTuple):
    """Everything the kernel needs to know about a game, as NumPy arrays: the kernel's ``tables`` argument
    (built by :func:`kinarow.engine.tables.kernel_tables`)."""

    iparams: np.ndarray
    aux: np.ndarray
    masks: np.ndarray
    flanks: np.ndarray
    symtab: np.ndarray
    symperm: np.ndarray
    syminv: np.ndarray
    turn_player: np.ndarray
    turn_left: np.ndarray
    weight: np.ndarray
    lshift: np.ndarray
    vp: np.ndarray
    vm: np.ndarray


class SearchState(NamedTuple):
    """One searcher's working arrays, the kernel's ``state`` argument.

    ``tt``: the transposition table (``(size, 4)`` uint64, layout above);
    ``ctrl``: counters and flags (the ``C_*`` indices); ``hist``: the
    move-ordering history (``(2, cells)``); ``movebuf`` / ``scorebuf``: each
    stone count's ordered move list; ``pv``: the best move found at each stone
    count; ``kparams`` / ``kbuf`` / ``kmemo`` / ``kctrl``: the knowledge tests'
    parameters (``K_*``), stack, memo and counters (:mod:`kinarow.engine.breaker`);
    ``gen``: one word, the generation of the latest win test; ``frames`` / ``frames_i`` / ``frames_taint``:
    the search's stack, one column per stone count (rows: see :func:`search`), kept here so that a search
    allocates nothing (the extraction asks one short search per prescribed move).
    """

    tt: np.ndarray
    ctrl: np.ndarray
    hist: np.ndarray
    movebuf: np.ndarray
    scorebuf: np.ndarray
    pv: np.ndarray
    kparams: np.ndarray
    kbuf: np.ndarray
    kmemo: np.ndarray
    kctrl: np.ndarray
    gen: np.ndarray
    frames: np.ndarray
    frames_i: np.ndarray
    frames_taint: np.ndarray


def new_state(cells: int, groups: int, tt_entries: int, kparams: np.ndarray, memo_bits: int,
              words: int = 1) -> SearchState:
    """Fresh working arrays for a board of ``cells`` cells and ``groups`` groups, with a table of ``tt_entries``
    entries (a power of two), for boards of ``words`` words (1 or 2: a table row then holds two-word keys)."""
    kctrl = np.zeros(BK.N_CTRL, np.int64)
    kctrl[BK.C_STAMP] = 1
    return SearchState(
        tt=np.zeros((tt_entries, 2 * words + 2), np.uint64),
        ctrl=np.zeros(N_CTRL, np.int64),
        hist=np.zeros((2, cells), np.int64),
        movebuf=np.zeros((cells + 2, max(cells, 1)), np.int64),
        scorebuf=np.zeros((cells + 2, max(cells, 1)), np.int64),
        pv=np.full(cells + 2, -1, np.int64),
        kparams=kparams,
        kbuf=BK.new_buffers(cells, groups),
        kmemo=BK.new_memo(memo_bits),
        kctrl=kctrl,
        gen=np.zeros(1, np.int64),
        frames=np.zeros((4, cells + 2, *W.TRAILING[words]), np.uint64),
        frames_i=np.zeros((10, cells + 2), np.int64),
        frames_taint=np.zeros(cells + 2, np.bool_),
    )


@njit(cache=True, inline="always")
def tt_index(k1, k2, mask):
    h = (W.fold(k1) * _H1) ^ (W.fold(k2) * _H2)
    h ^= h >> np.uint64(29)
    return np.int64(h & mask) & ~np.int64(1)


@njit(cache=True, inline="always")
def shr(x, sh):
    return x >> np.uint64(sh) if sh < 64 else np.uint64(0)


@njit(cache=True, inline="always")
def shl(x, sh):
    return x << np.uint64(sh) if sh < 64 else np.uint64(0)


@njit(cache=True)
def line_threats(x, full, lshift, vp, vm, scratch):
    """Cells c such that c and k-1 stones of ``x`` make a group along one line.

    ``lshift[d]`` is the bit distance of one step along direction d;
    ``vp[d, i]`` / ``vm[d, i]`` are the cells whose i-th neighbour forwards /
    backwards along d is on the board. ``scratch`` holds 2 x k words.
    """
    k = vp.shape[1]
    out = np.uint64(0)
    for d in range(lshift.shape[0]):
        s = lshift[d]
        scratch[0] = full
        scratch[k] = full
        for i in range(1, k):
            scratch[i] = scratch[i - 1] & shr(x, i * s) & vp[d, i]
            scratch[k + i] = scratch[k + i - 1] & shl(x, i * s) & vm[d, i]
        for a in range(k):
            out |= scratch[k + a] & scratch[k - 1 - a]
    return out


@njit(cache=True, inline="always")
def line_threats4(x, lshift, vp, vm):
    """:func:`line_threats` for k = 4, with the three steps each way written out (no scratch words)."""
    out = np.uint64(0)
    for d in range(lshift.shape[0]):
        s = lshift[d]
        f1 = shr(x, s) & vp[d, 1]
        f2 = f1 & shr(x, 2 * s) & vp[d, 2]
        b1 = shl(x, s) & vm[d, 1]
        b2 = b1 & shl(x, 2 * s) & vm[d, 2]
        out |= (f2 & shr(x, 3 * s) & vp[d, 3]) | (f2 & b1) | (f1 & b2) | (b2 & shl(x, 3 * s) & vm[d, 3])
    return out


@njit(cache=True)
def has_free_line(free, lshift, vp):
    """Is there a group all of whose cells are in ``free``?"""
    k = vp.shape[1]
    for d in range(lshift.shape[0]):
        s = lshift[d]
        run = free & vp[d, k - 1] if k > 1 else free
        for i in range(1, k):
            run &= shr(free, i * s)
            if run == np.uint64(0):
                break
        if run != np.uint64(0):
            return True
    return False


@njit(cache=True)
def playable_cells(occ, iparams, aux):
    """Cells the side to move may take: empty cells, or under gravity each column's lowest empty cell."""
    m = iparams[P_M]
    full = W.get1(aux, 2 * m)
    if iparams[P_GRAVITY] == 0:
        return W.andnot(full, occ)
    out = W.zero(occ)
    for x in range(m):
        cm = W.get1(aux, x)
        out = W.bor(out, W.band(W.add(W.band(occ, cm), W.get1(aux, m + x)), cm))
    return out


@njit(cache=True)
def cannot_win(masks, maker, breaker, maker_first, level, kparams, kbuf, kmemo, kctrl, ctrl, at_root):
    """Knowledge: is it proved that the player owning ``maker`` cannot complete a group?

    Level 1 asks for a Hales-Jewett pairing of the empty cells inside every
    group the player can still complete; level 2 also plays the Maker-Breaker
    game on those groups (a matching set exists iff Breaker wins it). Both are
    bounded searches: running out of budget means "not proved". At the root of
    a search the Maker-Breaker budget is larger (``K_ROOT_BUDGET``): it is paid once.

    When the blocker moves first (not ``maker_first``), ``kctrl[BK.C_FIRST]`` is left at the cell the proof
    has the blocker take first, or -1 when any first move keeps the proof (the blocker wins moving second).
    """
    kctrl[BK.C_FIRST] = -1
    ctrl[C_KTESTS] += 1
    # a pair blocks at most K_PAIR_MAX groups: too many live groups for the empty cells means no pairing
    live = 0
    cells = np.uint64(0)
    for i in range(masks.shape[0]):
        if (masks[i] & breaker) == np.uint64(0):
            live += 1
            cells |= masks[i]
    ncells = BK.popcount(cells & ~maker)
    if not maker_first or live <= kparams[K_PAIR_MAX] * (ncells // 2):
        kctrl[BK.C_NODES] = 0
        kctrl[BK.C_BUDGET] = kparams[K_PAIR_BUDGET]
        r = BK.pairing_exists(masks, maker, breaker, not maker_first, kbuf, kctrl)
        ctrl[C_KNODES] += kctrl[BK.C_NODES]
        if r == 1:
            return True
    if level < KNOW_MATCHING:
        return False
    if not at_root and ncells > kparams[K_MB_MAX_CELLS]:
        return False  # the Maker-Breaker search pays off only when the live groups hold few empty cells
    kctrl[BK.C_NODES] = 0
    kctrl[BK.C_BUDGET] = kparams[K_ROOT_BUDGET] if at_root else kparams[K_MB_BUDGET]
    r = BK.breaker_wins(masks, maker, breaker, maker_first, kbuf, kmemo, kctrl, at_root)
    ctrl[C_KNODES] += kctrl[BK.C_NODES]
    return r == BK.BREAKER


def line_pass(own, opp, full, empty, lshift, vp, vm, scratch, k4):  # type: ignore[no-untyped-def]
    """The threats (cells that complete a group) of ``own`` and ``opp`` among ``empty``, and whether each has a
    group free of the other's stones, by the line shifts (compiled: W.by_form below). One-word boards only:
    a board of two words never takes the shifts (``P_LINES`` is 0), and its form returns nothing."""
    raise NotImplementedError  # compiled only


def _line_pass1(own, opp, full, empty, lshift, vp, vm, scratch, k4):  # type: ignore[no-untyped-def]
    if k4:
        my_thr = line_threats4(own, lshift, vp, vm) & empty
        op_thr = line_threats4(opp, lshift, vp, vm) & empty
    else:
        my_thr = line_threats(own, full, lshift, vp, vm, scratch) & empty
        op_thr = line_threats(opp, full, lshift, vp, vm, scratch) & empty
    return my_thr, op_thr, has_free_line(full & ~opp, lshift, vp), has_free_line(full & ~own, lshift, vp)


def _line_pass2(own, opp, full, empty, lshift, vp, vm, scratch, k4):  # type: ignore[no-untyped-def]
    return W.zero(own), W.zero(own), False, False


def new_threats(own, low, full, empty, lshift, vp, vm, scratch, k4):  # type: ignore[no-untyped-def]
    """How many cells would complete a group of ``own`` after its stone ``low``, by the line shifts (the move
    order's threat count; compiled: W.by_form below; one-word boards only, as :func:`line_pass`)."""
    raise NotImplementedError  # compiled only


def _new_threats1(own, low, full, empty, lshift, vp, vm, scratch, k4):  # type: ignore[no-untyped-def]
    if k4:
        new_thr = line_threats4(own | low, lshift, vp, vm) & empty & ~low
    else:
        new_thr = line_threats(own | low, full, lshift, vp, vm, scratch) & empty & ~low
    return np.int64(BK.popcount(new_thr))


def _new_threats2(own, low, full, empty, lshift, vp, vm, scratch, k4):  # type: ignore[no-untyped-def]
    return np.int64(0)


def blocked(masks, maker, breaker, maker_first, level, kparams, kbuf, kmemo, kctrl, ctrl, at_root):  # type: ignore[no-untyped-def]
    """:func:`cannot_win` on a one-word board (compiled: W.by_form below); a board of two words has no knowledge
    (``K_LEVEL`` is 0 there: the blocking searches of :mod:`kinarow.engine.breaker` are one-word), and its form
    proves nothing."""
    raise NotImplementedError  # compiled only


def _blocked1(masks, maker, breaker, maker_first, level, kparams, kbuf, kmemo, kctrl, ctrl, at_root):  # type: ignore[no-untyped-def]
    return cannot_win(masks, maker, breaker, maker_first, level, kparams, kbuf, kmemo, kctrl, ctrl, at_root)


def _blocked2(masks, maker, breaker, maker_first, level, kparams, kbuf, kmemo, kctrl, ctrl, at_root):  # type: ignore[no-untyped-def]
    return False


W.by_form(line_pass, _line_pass1, _line_pass2)
W.by_form(new_threats, _new_threats1, _new_threats2)
W.by_form(blocked, _blocked1, _blocked2, argument=1)


@njit(cache=True, nogil=True)
def search(p1, p2, root_t, root_alpha, root_beta, tables, state):
    """Negamax value of the position (p1, p2) with root_t stones down, from the side to move.

    Iterative (an explicit stack indexed by the stone count t) so that a node
    costs no function call. ``state.pv[root_t]`` receives the best move.
    """
    iparams, aux, masks, flanks = tables.iparams, tables.aux, tables.masks, tables.flanks
    symtab, symperm, syminv = tables.symtab, tables.symperm, tables.syminv
    turn_player, turn_left, weight = tables.turn_player, tables.turn_left, tables.weight
    lshift, vp, vm = tables.lshift, tables.vp, tables.vm
    tt, ctrl, hist, pv = state.tt, state.ctrl, state.hist, state.pv
    movebuf, scorebuf = state.movebuf, state.scorebuf
    kparams, kbuf, kmemo, kctrl = state.kparams, state.kbuf, state.kmemo, state.kctrl
    zero = W.zero(p1)
    nw = W.nwords(p1)  # a table row: p1's key in words 0 .. nw - 1, p2's in nw .. 2 nw - 1, then the entry
    mc = 2 * nw
    N = iparams[P_N]
    m = iparams[P_M]
    full = W.get1(aux, 2 * m)
    top = W.get1(aux, 2 * m + 1)
    goal = iparams[P_GOAL]
    # a threat made counts 2^40 in the move order; in misere play such a cell is one the mover may no longer take
    threat_unit = -(np.int64(1) << 40) if goal == MISERE else np.int64(1) << 40
    gravity = iparams[P_GRAVITY]
    ngroups = iparams[P_G]
    nsym = iparams[P_S]
    nbytes = iparams[P_NBYTES]
    sym_max_t = iparams[P_SYM_MAX_T]
    tmask = np.uint64(tt.shape[0] - 1)

    # the stack: one frame per stone count t
    # (rows of the state's arrays, not allocated here: every entry is written before it is read)
    frames, frames_i = state.frames, state.frames_i
    s_p1, s_p2, s_k1, s_k2 = frames[0], frames[1], frames[2], frames[3]
    s_alpha, s_beta, s_best, s_bmove, s_i = frames_i[0], frames_i[1], frames_i[2], frames_i[3], frames_i[4]
    s_n, s_idx, s_sym, s_lo, s_hi = frames_i[5], frames_i[6], frames_i[7], frames_i[8], frames_i[9]
    s_taint = state.frames_taint
    use_lines = iparams[P_LINES] != 0
    scratch = np.zeros(2 * vp.shape[1] + 2, np.uint64)
    k4 = vp.shape[1] == 4  # tested at each call: a helper choosing between the two made 7x5 Connect Four 30 % slower
    tlimit = ctrl[C_TLIMIT]
    gen = ctrl[C_GEN]
    tester = ctrl[C_TESTER]
    ret_taint = False
    know = kparams[K_LEVEL]

    t = root_t
    W.put1(s_p1, t, p1)
    W.put1(s_p2, t, p2)
    s_alpha[t] = root_alpha
    s_beta[t] = root_beta
    entering = True
    ret = 0
    while True:
        if entering:
            # ---------------------------------------------------------------- enter node t
            ctrl[C_NODES] += 1
            if (ctrl[C_NODES] & 1023) == 1:  # the first node checks too (warm-up calls stop there)
                if ctrl[C_STOP] != 0 or (ctrl[C_MAX_NODES] > 0 and ctrl[C_NODES] >= ctrl[C_MAX_NODES]):
                    ctrl[C_ABORTED] = 1
                    return ABORT
            q1 = W.get1(s_p1, t)
            q2 = W.get1(s_p2, t)
            # find the table bucket first and prefetch it while the threats are computed
            if nsym > 1 and t <= sym_max_t:
                k1, k2, sidx = canonical(symtab, nsym, nbytes, q1, q2)
            else:
                k1, k2, sidx = q1, q2, 0
            idx = tt_index(k1, k2, tmask)
            prefetch_row(tt, idx)
            alpha = s_alpha[t]
            beta = s_beta[t]
            pl = turn_player[t]
            sl = turn_left[t]
            if pl == 0:
                own, opp = q1, q2
            else:
                own, opp = q2, q1
            occ = W.bor(q1, q2)
            playable = playable_cells(occ, iparams, aux)
            entering = False
            ret_taint = False
            if W.is_zero(playable):
                pv[t] = -1
                ret = (LOSS if pl == 0 else WIN) if goal == MAKER_BREAKER else DRAW
                continue

            my_thr = zero
            op_thr = zero
            my_live = False
            op_live = False
            my_two = zero
            empty = W.andnot(full, occ)
            if use_lines:
                # Straight boards with one stone a turn: whole lines at once, by shifts.
                my_thr, op_thr, my_live, op_live = line_pass(own, opp, full, empty, lshift, vp, vm, scratch, k4)
            else:
                # One pass over the groups: live groups and the cells that complete a group.
                for g in range(ngroups):
                    mk = W.get1(masks, g)
                    fl = W.get1(flanks, g)
                    if W.is_zero(W.band(opp, mk)) and W.is_zero(W.band(own, fl)):
                        my_live = True
                        r = W.andnot(mk, own)
                        r2 = W.drop_low(r)
                        if W.is_zero(r2):
                            my_thr = W.bor(my_thr, r)
                        elif W.single(r2):
                            my_two = r
                    if W.is_zero(W.band(own, mk)) and W.is_zero(W.band(opp, fl)):
                        op_live = True
                        r = W.andnot(mk, opp)
                        if W.single(r):
                            op_thr = W.bor(op_thr, r)

            lo = LOSS
            hi = WIN
            candidates = playable
            maker_to_move = goal == MAKER_BREAKER and pl == 0
            if goal == NORMAL or maker_to_move:
                if not W.is_zero(W.band(my_thr, playable)):
                    pv[t] = W.low_index(W.band(my_thr, playable))
                    ret = WIN
                    continue
                if sl >= 2 and not W.is_zero(my_two) and gravity == 0 and t < tlimit:
                    # two stones this turn complete a group with two empty cells
                    pv[t] = W.low_index(my_two)
                    ret = WIN
                    continue
            if goal == NORMAL:
                if not my_live:
                    hi = DRAW
                if not op_live:
                    lo = DRAW
            elif goal == MISERE:
                candidates = W.andnot(playable, my_thr)
                if W.is_zero(candidates):
                    pv[t] = W.low_index(playable)
                    ret = LOSS
                    continue
                if not my_live:
                    lo = DRAW
                if not op_live:
                    hi = DRAW
            elif maker_to_move:  # Maker-Breaker: player 0 is Maker, and Breaker never threatens
                if not my_live:
                    pv[t] = W.low_index(playable)
                    ret = LOSS
                    continue
                op_thr = zero
            elif not op_live:  # Breaker to move and Maker has no live group left
                pv[t] = W.low_index(playable)
                ret = WIN
                continue
            if lo == hi:
                pv[t] = W.low_index(candidates)
                ret = lo
                continue

            # Forced blocks: the opponent moves next and threatens to complete a group.
            if sl == 1 and goal != MISERE and not W.is_zero(op_thr):
                forced = W.band(op_thr, playable)
                if not W.single(forced):
                    pv[t] = W.low_index(forced)
                    ret = LOSS
                    continue
                if not W.is_zero(forced):
                    candidates = forced
                    if gravity != 0 and W.is_zero(W.band(forced, top)) and not W.is_zero(W.band(W.shl(forced, 1),
                                                                                                  op_thr)):
                        # blocking opens the cell above, which also completes an opponent group
                        pv[t] = W.low_index(forced)
                        ret = LOSS
                        continue
                elif gravity != 0:
                    # never play right under an opponent's completing cell
                    safe = W.andnot(candidates, W.andnot(W.shr(op_thr, 1), top))
                    if W.is_zero(safe):
                        pv[t] = W.low_index(candidates)
                        ret = LOSS
                        continue
                    candidates = safe

            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
            if alpha >= beta:
                pv[t] = W.low_index(candidates)
                ret = alpha
                continue

            if t >= tlimit:
                # the horizon of a depth-limited win test
                pv[t] = W.low_index(candidates)
                ret = DRAW
                ret_taint = True
                continue

            # Transposition table (two slots: depth-preferred, always-replace).
            tt_move = -1
            hit = False
            narrow_taint = False
            for slot in range(idx, idx + 2):
                meta = tt[slot, mc]
                if meta != np.uint64(0) and W.eq(W.row_get(tt, slot, 0, k1), k1) and W.eq(
                        W.row_get(tt, slot, nw, k2), k2):
                    stored_move = np.int64((meta >> np.uint64(4)) & np.uint64(255)) - 1
                    if stored_move >= 0:
                        tt_move = np.int64(syminv[sidx, stored_move])
                    entry_gen = np.int64(meta >> np.uint64(32))
                    if entry_gen != 0 and entry_gen != gen:
                        break
                    v = np.int64((meta >> np.uint64(2)) & np.uint64(3)) - 1
                    f = np.int64(meta & np.uint64(3))
                    if f == EXACT or (f == LOWER and v >= beta) or (f == UPPER and v <= alpha):
                        hit = True
                    elif f == LOWER and v > alpha:
                        alpha = v
                        narrow_taint = entry_gen != 0
                    elif f == UPPER and v < beta:
                        beta = v
                        narrow_taint = entry_gen != 0
                    if alpha >= beta:
                        hit = True
                    if hit:
                        pv[t] = tt_move if tt_move >= 0 else W.low_index(candidates)
                        ret = v
                        ret_taint = entry_gen != 0 or narrow_taint
                    break
            if hit:
                continue

            if know > 0:
                # Knowledge (Uiterwijk's set matching): a blocking strategy proves that a player cannot win.
                # Only the bound that can cut this window is tested, except at the root: there both bounds
                # are tried (together they may settle it), with a larger budget, once per search (the root
                # is entered again by every win test).
                at_root = t == root_t and ctrl[C_ROOT_TRIED] == 0
                kctrl[BK.C_FIRST] = -1  # set by a test of the side to move as the blocker
                if goal == MAKER_BREAKER:
                    if pl == 0:
                        if blocked(masks, own, opp, np.bool_(True), know, kparams, kbuf, kmemo, kctrl, ctrl,
                                      at_root):
                            lo = LOSS
                            hi = LOSS
                    elif blocked(masks, opp, own, np.bool_(False), know, kparams, kbuf, kmemo, kctrl, ctrl, at_root):
                        lo = WIN
                        hi = WIN
                else:
                    if hi > DRAW and (beta > DRAW or at_root) and (
                        blocked(masks, own, opp, np.bool_(True), know, kparams, kbuf, kmemo, kctrl, ctrl, at_root)
                    ):
                        hi = DRAW
                    if lo < DRAW and (alpha < DRAW or at_root) and (
                        blocked(masks, opp, own, np.bool_(False), know, kparams, kbuf, kmemo, kctrl, ctrl, at_root)
                    ):
                        lo = DRAW
                if t == root_t:
                    ctrl[C_ROOT_TRIED] = 1
                # the move that keeps the raised lower bound: the blocker's first move of the proof (at the
                # root it may be one particular cell), else any candidate
                keep = W.low_index(candidates)
                first = kctrl[BK.C_FIRST]
                if lo > LOSS and first >= 0 and W.has(candidates, first):
                    keep = first
                if lo == hi:
                    ctrl[C_KCUTS] += 1
                    if t == root_t:
                        ctrl[C_ROOT_EXACT] = 1
                    pv[t] = keep
                    ret = lo
                    continue
                if hi <= alpha or lo >= beta:
                    ctrl[C_KCUTS] += 1
                    pv[t] = keep
                    ret = hi if hi <= alpha else lo
                    continue

            # Move list, ordered: TT move, then static weight (central cells first), then history.
            # On straight boards with one stone a turn, a move first counts the cells where it
            # would then complete a group of its own (threats the opponent must answer): more
            # such cells come first, or, in misere play, fewer. Under gravity the count was
            # always used; on free boards it cut 13 (10,4,4) jobs after 1. e2 from 18.8 M nodes
            # to 0.64 M, and 7x4k4's draw from 61.7 M to 1.4 M (pairing knowledge).
            count_threats = use_lines and sl == 1 and not W.single(candidates)
            nmoves = 0
            rest = candidates
            while not W.is_zero(rest):
                low = W.low(rest)
                c = W.low_index(low)
                rest = W.bxor(rest, low)
                if c == tt_move:
                    sc = np.int64(1) << 60
                else:
                    sc = weight[c] * 1024 + hist[pl, c]
                    if count_threats:
                        sc += new_threats(own, low, full, empty, lshift, vp, vm, scratch, k4) * threat_unit
                j = nmoves
                while j > 0 and scorebuf[t, j - 1] < sc:
                    movebuf[t, j] = movebuf[t, j - 1]
                    scorebuf[t, j] = scorebuf[t, j - 1]
                    j -= 1
                movebuf[t, j] = c
                scorebuf[t, j] = sc
                nmoves += 1

            s_alpha[t] = alpha
            s_beta[t] = beta
            s_best[t] = LOSS - 1
            s_bmove[t] = movebuf[t, 0]
            s_i[t] = 0
            s_n[t] = nmoves
            W.put1(s_k1, t, k1)
            W.put1(s_k2, t, k2)
            s_idx[t] = idx
            s_sym[t] = sidx
            s_lo[t] = lo
            s_hi[t] = hi
            s_taint[t] = narrow_taint
            # descend into the first move
            c = movebuf[t, 0]
        else:
            # ---------------------------------------------------------------- a value comes back
            if t == root_t:
                ctrl[C_TAINT] = 1 if ret_taint else 0
                return ret
            t -= 1
            if ret_taint:
                s_taint[t] = True
            v = ret if turn_player[t + 1] == turn_player[t] else -ret
            c = movebuf[t, s_i[t]]
            if v > s_best[t]:
                s_best[t] = v
                s_bmove[t] = c
            alpha = s_alpha[t]
            beta = s_beta[t]
            a = alpha if alpha > s_best[t] else s_best[t]
            if a >= beta or s_i[t] + 1 >= s_n[t]:
                if a >= beta:
                    hist[turn_player[t], c] += N - t
                best = s_best[t]
                lo = s_lo[t]
                hi = s_hi[t]
                # store: the bound kind depends on the window searched and on lo/hi
                if best <= alpha and best != lo:
                    flag = UPPER
                elif best >= beta and best != hi:
                    flag = LOWER
                else:
                    flag = EXACT
                idx = s_idx[t]
                k1 = W.get1(s_k1, t)
                k2 = W.get1(s_k2, t)
                slot = idx
                old = tt[idx, mc]
                if old != np.uint64(0) and not (W.eq(W.row_get(tt, idx, 0, k1), k1)
                                                and W.eq(W.row_get(tt, idx, nw, k2), k2)):
                    if np.int64((old >> np.uint64(12)) & np.uint64(255)) < t:
                        slot = idx + 1
                favourable = best == (WIN if turn_player[t] == tester else LOSS)
                ret_taint = s_taint[t] and not favourable
                entry_gen = gen if ret_taint else 0
                W.row_put(tt, slot, 0, k1)
                W.row_put(tt, slot, nw, k2)
                tt[slot, mc] = (
                    np.uint64(flag)
                    | (np.uint64(best + 1) << np.uint64(2))
                    | (np.uint64(symperm[s_sym[t], s_bmove[t]] + 1) << np.uint64(4))
                    | (np.uint64(t) << np.uint64(12))
                    | (np.uint64(entry_gen) << np.uint64(32))
                )
                pv[t] = s_bmove[t]
                ret = best
                continue
            s_i[t] += 1
            c = movebuf[t, s_i[t]]

        # ---------------------------------------------------------------- push the child after move c
        pl = turn_player[t]
        q1 = W.get1(s_p1, t)
        q2 = W.get1(s_p2, t)
        bit = W.bit(c, q1)
        if pl == 0:
            W.put1(s_p1, t + 1, W.bor(q1, bit))
            W.put1(s_p2, t + 1, q2)
        else:
            W.put1(s_p1, t + 1, q1)
            W.put1(s_p2, t + 1, W.bor(q2, bit))
        a = s_alpha[t] if s_alpha[t] > s_best[t] else s_best[t]
        if turn_player[t + 1] == pl:
            s_alpha[t + 1] = a
            s_beta[t + 1] = s_beta[t]
        else:
            s_alpha[t + 1] = -s_beta[t]
            s_beta[t + 1] = -a
        t += 1
        entering = True


@njit(cache=True, nogil=True)
def win_test(p1, p2, t, limit, for_opponent, tables, state):
    """Can the side to move (or, ``for_opponent``, its opponent) force a win before ``limit`` stones?

    A null-window search from the side to move: (draw, win) tests its win,
    (loss, draw) the opponent's. Nodes at the horizon count as draws, which
    never helps the player being tested, so a win found is exact. Returns the
    value and whether a "no" is exact too (the search never met its horizon).
    Each test is a new generation (``state.gen``).
    """
    ctrl = state.ctrl
    mover = tables.turn_player[t]
    if for_opponent:
        ctrl[C_TESTER] = 1 - mover
        alpha, beta = LOSS, DRAW
    else:
        ctrl[C_TESTER] = mover
        alpha, beta = DRAW, WIN
    state.gen[0] += 1
    ctrl[C_TLIMIT] = limit
    ctrl[C_GEN] = state.gen[0]
    v = search(p1, p2, t, alpha, beta, tables, state)
    return v, limit >= tables.iparams[P_N] or ctrl[C_TAINT] == 0


@njit(cache=True, nogil=True)
def deepen(p1, p2, t, sides, step, tables_in, state_in):
    """Iterative deepening: win tests of ``sides`` (``SIDE_MOVER``, ``SIDE_OPPONENT`` or ``SIDE_BOTH``) with a
    horizon ``4, 4 + step, 4 + 2 step, ...`` stones ahead, until one side's win is found or every "no" is exact.

    Returns ``WIN`` / ``LOSS`` (from the side to move) when a tested side wins, ``DRAW`` when no tested side
    can win, ``ABORT`` when the budget ran out or ``ctrl[C_STOP]`` was raised. With ``SIDE_BOTH`` the two tests
    deepen together, so a short win for either side is found before the other side's long refutation, and the
    answer is the exact value (also when knowledge settles the root's value at once: ``ctrl[C_ROOT_EXACT]``).
    ``state.pv[t]`` is the move of the last test; ``ctrl[C_GUESS]`` the move that lost to nothing in the
    deepest finished test of the opponent's win (-1 before one), a guess when time runs out. Callers clear
    ``ctrl`` for a new root; this loop does not.

    ``tables`` and ``state`` may come as plain tuples (``tuple(bundle)``): numba types a plain tuple's fields
    in C, a named tuple's in Python, which costs about 4 us more a call from Python.
    """
    tables = KernelTables(*tables_in)
    state = SearchState(*state_in)
    ctrl = state.ctrl
    mover_open = (sides & SIDE_MOVER) != 0
    opponent_open = (sides & SIDE_OPPONENT) != 0
    ctrl[C_GUESS] = -1
    depth = 4
    while True:
        limit = t + depth
        if mover_open:
            v, exact = win_test(p1, p2, t, limit, np.bool_(False), tables, state)
            if v == ABORT or v >= WIN or ctrl[C_ROOT_EXACT] != 0:
                return v  # (knowledge may settle the root's exact value at once)
            mover_open = not exact
        if opponent_open:
            v, exact = win_test(p1, p2, t, limit, np.bool_(True), tables, state)
            if v == ABORT or v <= LOSS or ctrl[C_ROOT_EXACT] != 0:
                return v
            ctrl[C_GUESS] = state.pv[t]
            opponent_open = not exact
        if not (mover_open or opponent_open):
            return DRAW
        depth += step
