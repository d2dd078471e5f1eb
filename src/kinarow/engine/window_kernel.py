"""Proof-number search of the *window game*: can the first player win four high inside the board's left columns?

The window game ``W(w)`` is played on the leftmost ``w`` columns of a board four high (k = 4) that goes on to
the right without end. The first player (X) may play only inside the window; the second player (O) plays
inside it or *passes* (a move anywhere to the right of it). X wins by completing a group inside the window. O
wins by completing a group inside the window, or when a group that leaves the window to the right has O on all
its window cells and no more cells beyond the window than O has passed, or at O's fourth pass (four passes
could have filled a group wholly beyond the window). A win for X in ``W(w)`` is a win for the first player on
every board four high and at least ``w`` wide (:mod:`kinarow.proofs.window` has the argument and the checker).

Bit layout
==========

A position is two ``uint64`` bitboards, X's stones and O's stones (bit ``c`` is cell ``c = x * 4 + y``,
column-major as in :mod:`kinarow.engine.kernel`), and O's passes ``p`` (0 to 3). For ``w = 5``::

        a  b  c  d  e | beyond the window
    4 | 3  7 11 15 19 |
    3 | 2  6 10 14 18 |    a group leaving the window, e.g. the row c2-d2-e2-f2: bits 9, 13, 17
    2 | 1  5  9 13 17 |    and one cell beyond (``far`` 1)
    1 | 0  4  8 12 16 |    bits 4 * w .. 63 are always 0

``inner`` holds the groups inside the window, ``cross`` the window cells of each group that leaves it and
``far`` the number of its cells beyond. The board's only symmetry kept is the flip of the rows (y -> 3 - y).

Search
======

Depth-first proof-number search (df-pn, Nagai 2002) with the 1 + epsilon thresholds of Pawlewicz & Lew
(2007); an OR node has X to move. A node is settled without children when X completes a group at once
(proved), when O has a pass that wins or two winning cells (OR: disproved), when O wins at once (AND:
disproved), when X has two threats (AND: proved), or when X has no group left (disproved). A node met for the
first time is also disproved by a *pairing* (with ``pair_budget`` > 0): disjoint pairs of empty cells, one pair
in every group X can still complete inside the window (at an AND node after one move of O, the search's
"single"), found by :func:`kinarow.engine.breaker.pair_search`: O answers each X stone on a pair with its
partner, so X completes no group, and X has no other way to win. A single threat of
the other side forces its block. Otherwise X's moves are the empty cells of live groups (a stone elsewhere
touches no group that can still be completed, and an extra stone never hurts its owner), O's are those and
the pass (a stone of O on a dead cell is worth less than a pass, which at least counts towards the groups
beyond). With ``threat_budget`` > 0, O's replies at an AND node that is not forced are cut down by X's threat
sequences (Allis' threat-space search, here by :func:`_x_sequence`): when X, were it to move, could win by a
sequence of single threats that O must block, ending in a double threat, with none of O's blocks giving O a
group one stone short of a win, then a reply of O off the sequence's cells that gives O no such group either
(with the blocks counted) leaves the whole sequence in place, and X wins with it; only the other replies and
the pass are searched. The table ``tt`` is ``(size, 6)`` uint64, buckets of four rows::

    word 0: X (canonical)  word 1: O (canonical)  word 2: passes + 1 (0: empty row)
    word 3: proof number   word 4: disproof number  word 5: work (nodes searched below)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)
from kinarow.bitboards import lowest_bit_index, popcount
from kinarow.engine import breaker as BK
from kinarow.engine.pns_kernel import sort_by_score

INF = np.int64(1) << np.int64(48)
PASS = 64  # the move number of O's pass
# ctrl indices
C_NODES, C_MAX_NODES, C_STOP, C_ABORTED, C_PAIR_TESTS, C_PAIR_LEAVES = range(6)
N_CTRL = 6
PROVEN, DISPROVEN, OPEN = 0, 1, 2
_N1 = np.uint64(0x1111111111111111)
_N2 = np.uint64(0x2222222222222222)
_N4 = np.uint64(0x4444444444444444)
_N8 = np.uint64(0x8888888888888888)


@njit(cache=True, inline="always")
def flip(b):
    """The board with its rows flipped (y -> 3 - y): each column's four bits reversed."""
    return ((b & _N1) << np.uint64(3)) | ((b & _N2) << np.uint64(1)) | ((b & _N4) >> np.uint64(1)) | (
        (b & _N8) >> np.uint64(3))


@njit(cache=True)
def evaluate(inner, cross, far, X, O, p, x_moves, full, max_passes):
    """(status, moves, forced): PROVEN/DISPROVEN/OPEN, the side to move's candidate cells (a board; O's pass is
    added by the caller unless ``forced``), and whether they are one forced block."""
    zero = np.uint64(0)
    empty = full & ~(X | O)
    x_thr = zero
    o_thr = zero
    cells = zero
    live_x = 0
    for i in range(inner.shape[0]):
        g = inner[i]
        if g & O == zero:
            live_x += 1
            r = g & ~X
            cells |= r
            if r & (r - np.uint64(1)) == zero:
                x_thr |= r
        if g & X == zero:
            r = g & ~O
            cells |= r
            if r & (r - np.uint64(1)) == zero:
                o_thr |= r
    o_pass = p + 1 >= max_passes
    for i in range(cross.shape[0]):
        g = cross[i]
        if g & X != zero:
            continue
        r = g & ~O
        cells |= r
        if r == zero:
            if far[i] <= p + 1:
                o_pass = True
        elif r & (r - np.uint64(1)) == zero and far[i] <= p:
            o_thr |= r
    cells &= empty
    if x_moves:
        if x_thr != zero:
            return PROVEN, x_thr, False
        if o_pass or (o_thr & (o_thr - np.uint64(1))) != zero or live_x == 0:
            return DISPROVEN, zero, False
        if o_thr != zero:
            return OPEN, o_thr, True
        return OPEN, cells, False
    if o_thr != zero or o_pass:
        return DISPROVEN, zero, False
    if (x_thr & (x_thr - np.uint64(1))) != zero:
        return PROVEN, zero, False
    if live_x == 0:
        return DISPROVEN, zero, False
    if x_thr != zero:
        return OPEN, x_thr, True
    return OPEN, cells, False


@njit(cache=True, inline="always")
def key(X, O):
    """The canonical (X, O) under the row flip."""
    fx = flip(X)
    fo = flip(O)
    if fx < X or (fx == X and fo < O):
        return fx, fo
    return X, O


@njit(cache=True, inline="always")
def _bucket(tt, k1, k2, p):
    h = (k1 * np.uint64(0x9E3779B97F4A7C15)) ^ (k2 * np.uint64(0xC2B2AE3D27D4EB4F)) ^ (
        np.uint64(p + 1) * np.uint64(0xD6E8FEB86659FD93))
    h ^= h >> np.uint64(29)
    return np.int64(h & np.uint64(tt.shape[0] - 1)) & ~np.int64(3)


@njit(cache=True)
def probe(tt, X, O, p):
    """(proof number, disproof number) kept for the position, or (-1, -1)."""
    k1, k2 = key(X, O)
    b = _bucket(tt, k1, k2, p)
    tag = np.uint64(p + 1)
    for r in range(b, b + 4):
        if tt[r, 2] == tag and tt[r, 0] == k1 and tt[r, 1] == k2:
            return np.int64(tt[r, 3]), np.int64(tt[r, 4])
    return np.int64(-1), np.int64(-1)


@njit(cache=True)
def store(tt, X, O, p, pn, dn, work):
    k1, k2 = key(X, O)
    b = _bucket(tt, k1, k2, p)
    tag = np.uint64(p + 1)
    row = -1
    least = np.int64(0)
    for r in range(b, b + 4):
        if tt[r, 2] == tag and tt[r, 0] == k1 and tt[r, 1] == k2:
            row = r
            break
        w = np.int64(-1) if tt[r, 2] == np.uint64(0) else np.int64(tt[r, 5])
        if row < 0 or w < least:
            row = r
            least = w
    tt[row, 0] = k1
    tt[row, 1] = k2
    tt[row, 2] = tag
    tt[row, 3] = np.uint64(pn)
    tt[row, 4] = np.uint64(dn)
    tt[row, 5] = np.uint64(work)


@njit(cache=True, inline="always")
def _add_weight(weight_of, e, moves, scale):
    """Add ``scale`` * 2^-(cells of ``e``) to the weight of each cell of ``e`` among ``moves``."""
    w = scale / float(np.uint64(1) << np.uint64(popcount(e)))
    e &= moves
    while e != np.uint64(0):
        weight_of[lowest_bit_index(e)] += w
        e &= e - np.uint64(1)


@njit(cache=True)
def _order(inner, cross, X, O, moves, weight_of, out):
    """The cells of ``moves`` in ``out``, the most groups-weighted first (sum of 2^-(empty cells) over the live
    groups through a cell, both players'); returns their number."""
    n = 0
    rest = moves
    while rest != np.uint64(0):
        c = lowest_bit_index(rest)
        rest &= rest - np.uint64(1)
        weight_of[c] = 0.0
        out[n] = c
        n += 1
    empty = ~(X | O)
    for i in range(inner.shape[0]):
        g = inner[i]
        if g & O == np.uint64(0) or g & X == np.uint64(0):
            _add_weight(weight_of, g & empty, moves, 1.0)
    for i in range(cross.shape[0]):
        g = cross[i]
        if g & X == np.uint64(0):
            _add_weight(weight_of, g & empty, moves, 0.5)
    sort_by_score(out, n, weight_of)
    return n


@njit(cache=True, inline="always")
def _child(X, O, p, x_moves, c):
    """The position after move ``c`` (a cell, or O's PASS)."""
    if x_moves:
        return X | (np.uint64(1) << np.uint64(c)), O, p
    if c == PASS:
        return X, O, p + 1
    return X, O | (np.uint64(1) << np.uint64(c)), p


@njit(cache=True, inline="always")
def _min_and_sum(mins, sums, n):
    """(least of ``mins[:n]``, the second least, where the least is, the sum of ``sums[:n]`` capped at INF)."""
    least = INF
    second = INF
    best = -1
    total = np.int64(0)
    for i in range(n):
        total = min(INF, total + sums[i])
        if mins[i] < least:
            second = least
            least = mins[i]
            best = i
        elif mins[i] < second:
            second = mins[i]
    return least, second, best, total


@njit(cache=True)
def _o_short(inner, cross, X, O, c):
    """Does a group through cell ``c`` with no X stone have at most one window cell left that is not O's (a group O
    is one stone or a pass from winning, or has won)?"""
    for i in range(inner.shape[0]):
        g = inner[i]
        if g >> np.uint64(c) & np.uint64(1) and g & X == np.uint64(0) and popcount(g & ~O) <= 1:
            return True
    for i in range(cross.shape[0]):
        g = cross[i]
        if g >> np.uint64(c) & np.uint64(1) and g & X == np.uint64(0) and popcount(g & ~O) <= 1:
            return True
    return False


@njit(nogil=True)  # not cached: numba cannot load a cached recursive function (it crashes)
def _x_sequence(inner, cross, full, X, O, depth, budget):
    """A threat sequence that wins for X, X to move in (X, O) with no threat of either side on the board: X's
    stones each make one threat (a group one stone short), O blocks it, until a stone makes two; no block may
    leave O a group one stone short. Returns the board of its cells (X's stones and O's blocks), 0 if none was
    found within ``depth`` stones of X and ``budget[0]`` tries (counted down)."""
    zero = np.uint64(0)
    empty = full & ~(X | O)
    gains = zero
    for i in range(inner.shape[0]):
        g = inner[i]
        if g & O == zero and popcount(g & empty) == 2:
            gains |= g & empty
    while gains != zero and budget[0] > 0:
        budget[0] -= 1
        c = lowest_bit_index(gains)
        gains &= gains - np.uint64(1)
        bit = np.uint64(1) << np.uint64(c)
        x2 = X | bit
        threats = zero
        for i in range(inner.shape[0]):
            g = inner[i]
            if g & O == zero:
                r = g & ~x2
                if r != zero and r & (r - np.uint64(1)) == zero:
                    threats |= r
        if threats & (threats - np.uint64(1)) != zero:
            return bit | threats
        if threats == zero or depth <= 1:
            continue
        o2 = O | threats
        if _o_short(inner, cross, x2, o2, lowest_bit_index(threats)):
            continue
        rest = _x_sequence(inner, cross, full, x2, o2, depth - 1, budget)
        if rest != zero:
            return rest | bit | threats
    return zero


@njit(nogil=True)
def _threat_replies(inner, cross, full, X, O, moves, threat_budget):
    """O's replies among ``moves`` that can stop X's threat sequence (see the module's notes): all of ``moves``
    when none is found."""
    budget = np.zeros(1, np.int64)
    budget[0] = threat_budget
    seq = _x_sequence(inner, cross, full, X, O, 8, budget)
    if seq == np.uint64(0):
        return moves
    keep = moves & seq
    rest = moves & ~seq
    while rest != np.uint64(0):
        c = lowest_bit_index(rest)
        rest &= rest - np.uint64(1)
        # every cell of the sequence is counted as O's (its blocks are; X's stones only kill groups): more replies
        # are kept than need be, never fewer
        if _o_short(inner, cross, X, O | seq | (np.uint64(1) << np.uint64(c)), c):
            keep |= np.uint64(1) << np.uint64(c)
    return keep


@njit(nogil=True)  # not cached: numba cannot load a cached recursive function (it crashes)
def mid(inner, cross, far, full, max_passes, X, O, p, x_moves, thpn, thdn, tt, ctrl, depth, cmoves, cpn, cdn,
        weight_of, pair_budget, kbuf, kctrl, threat_budget):
    """Search the node until its proof number reaches ``thpn`` or its disproof number ``thdn``; returns
    (pn, dn) and keeps them in the table."""
    ctrl[C_NODES] += 1
    start = ctrl[C_NODES]
    status, moves, forced = evaluate(inner, cross, far, X, O, p, x_moves, full, max_passes)
    if status == OPEN and pair_budget > 0 and probe(tt, X, O, p)[0] < 0 and _paired(inner, X, O, x_moves,
                                                                                     pair_budget, kbuf, kctrl, ctrl):
        status = DISPROVEN
    if status == PROVEN:
        store(tt, X, O, p, 0, INF, 1)
        return np.int64(0), INF
    if status == DISPROVEN:
        store(tt, X, O, p, INF, 0, 1)
        return INF, np.int64(0)
    if not x_moves and not forced and threat_budget > 0:
        moves = _threat_replies(inner, cross, full, X, O, moves, threat_budget)
    out = cmoves[depth]
    n = _order(inner, cross, X, O, moves, weight_of, out)
    if not x_moves and not forced:
        out[n] = PASS
        n += 1
    pn_row = cpn[depth]
    dn_row = cdn[depth]
    while True:
        if ctrl[C_STOP] != 0 or (ctrl[C_MAX_NODES] > 0 and ctrl[C_NODES] >= ctrl[C_MAX_NODES]):
            ctrl[C_ABORTED] = 1
            return np.int64(-1), np.int64(-1)
        # the children's numbers
        for i in range(n):
            cx, co, cp = _child(X, O, p, x_moves, out[i])
            a, b = probe(tt, cx, co, cp)
            if a < 0:
                a, b = np.int64(1), np.int64(1)
            pn_row[i] = a
            dn_row[i] = b
        if x_moves:  # OR: pn = min, dn = sum
            pn, second, best, dn = _min_and_sum(pn_row, dn_row, n)
        else:  # AND: dn = min, pn = sum
            dn, second, best, pn = _min_and_sum(dn_row, pn_row, n)
        if pn >= thpn or dn >= thdn or pn == 0 or dn == 0:
            store(tt, X, O, p, pn, dn, ctrl[C_NODES] - start + 1)
            return pn, dn
        cx, co, cp = _child(X, O, p, x_moves, out[best])
        near = min(max(second + 1, np.int64(second * 1.25)), INF)  # 1 + epsilon: the second best, a little more
        if x_moves:
            child_thpn = min(thpn, near)
            child_thdn = min(INF, thdn - dn + dn_row[best])
        else:
            child_thdn = min(thdn, near)
            child_thpn = min(INF, thpn - pn + pn_row[best])
        a, b = mid(inner, cross, far, full, max_passes, cx, co, cp, not x_moves, child_thpn, child_thdn, tt, ctrl,
                   depth + 1, cmoves, cpn, cdn, weight_of, pair_budget, kbuf, kctrl, threat_budget)
        if a < 0:
            return a, b


@njit(cache=True)
def _paired(inner, X, O, x_moves, budget, kbuf, kctrl, ctrl):
    """Does a pairing (after one move of O when O is to move) block every group X can still complete inside
    the window? Found within ``budget`` nodes of the pairing search, counted in ``ctrl``."""
    ctrl[C_PAIR_TESTS] += 1
    ng = BK.load_state(inner, X, O, kbuf)
    if ng < 0:
        return False
    kctrl[BK.C_NODES] = 0
    if BK.pair_search(kbuf, ng, np.uint64(0), np.uint64(0 if x_moves else 1), kctrl, budget) != 1:
        return False
    ctrl[C_PAIR_LEAVES] += 1
    return True


@njit(nogil=True)
def solve(inner, cross, far, full, max_passes, X, O, p, x_moves, tt, ctrl, pair_budget, threat_budget=0):
    """df-pn from the position: PROVEN, DISPROVEN, or OPEN when stopped (``ctrl[C_ABORTED]``). ``pair_budget``:
    the nodes of one pairing test (0: none); ``threat_budget``: the tries of one threat-sequence search that cuts
    O's replies (0: none)."""
    cmoves = np.zeros((136, 66), np.int64)
    cpn = np.zeros((136, 66), np.int64)
    cdn = np.zeros((136, 66), np.int64)
    weight_of = np.zeros(64, np.float64)
    kbuf = np.zeros((66, max(inner.shape[0], 1) + BK.N_FRAME), np.uint64)
    kctrl = np.zeros(BK.N_CTRL, np.int64)
    ctrl[C_ABORTED] = 0
    pn, dn = mid(inner, cross, far, full, max_passes, X, O, p, x_moves, INF, INF, tt, ctrl, 0, cmoves, cpn, cdn,
                 weight_of, pair_budget, kbuf, kctrl, threat_budget)
    if pn == 0:
        return PROVEN
    if dn == 0:
        return DISPROVEN
    return OPEN
