"""The search kernel: alpha-beta over integer bitboards, compiled with numba.

Bit layout
==========

A position is two ``uint64`` bitboards, ``p1`` (Black / Maker) and ``p2``
(White / Breaker). Bit ``i`` is cell ``i``; cells are numbered column-major,
``cell = x * n + y`` (x = column from the left, y = row from the bottom), so
a board has at most 64 cells. For 7 x 6 (Connect Four)::

        a  b  c  d  e  f  g
    6 | 5 11 17 23 29 35 41
    5 | 4 10 16 22 28 34 40
    4 | 3  9 15 21 27 33 39
    3 | 2  8 14 20 26 32 38
    2 | 1  7 13 19 25 31 37
    1 | 0  6 12 18 24 30 36      bits 42..63 are always 0

Under gravity the cell above ``c`` is ``c + 1`` (same column unless ``c`` is a
top cell, see ``TOP``), and the stones of a column are a run of bits from its
bottom bit, so ``((occupied & colmask[x]) + bottom[x]) & colmask[x]`` is the
one playable cell of column x (0 when the column is full).

Every geometry (rect, torus, cylinder, hex) reaches the kernel the same way:
``masks[g]`` is the bitmask of group g (its k cells), whatever the shape.

A symmetry ``s`` is applied a byte at a time: ``symtab[s, j, v]`` is the image
of the cells ``8j .. 8j+7`` whose bits are ``v``; OR-ing ``nbytes`` look-ups
maps a whole board. The transposition-table key is the smallest image
``(p1', p2')`` over the symmetries (only while few stones are down, see
``SYM_MAX_T``); the stored best move is kept in that canonical frame
(``symperm``) and mapped back with ``syminv``.

Values are from the side to move: ``WIN = 1``, ``DRAW = 0``, ``LOSS = -1``;
``ABORT`` means the node or time budget ran out (nothing is stored then).
"""

from __future__ import annotations

import numpy as np
from numba import njit

WIN, DRAW, LOSS, ABORT = 1, 0, -1, 99
NORMAL, MISERE, MAKER_BREAKER = 0, 1, 2

# iparams indices
P_N, P_M, P_ROWS, P_G, P_S, P_NBYTES, P_GRAVITY, P_GOAL, P_SYM_MAX_T = range(9)
N_IPARAMS = 9
# aux (uint64) layout: colmask[0:m], bottom[m:2m], then FULL, TOP
# ctrl indices
C_NODES, C_STOP, C_MAX_NODES, C_ABORTED = range(4)
# TT flags
EMPTY, EXACT, LOWER, UPPER = 0, 1, 2, 3

_H1 = np.uint64(0x9E3779B97F4A7C15)
_H2 = np.uint64(0xC2B2AE3D27D4EB4F)


@njit(cache=True, inline="always")
def apply_sym(symtab, s, nbytes, x):
    out = np.uint64(0)
    for j in range(nbytes):
        out |= symtab[s, j, (x >> np.uint64(8 * j)) & np.uint64(255)]
    return out


@njit(cache=True)
def canonical(symtab, nsym, nbytes, p1, p2):
    """Smallest symmetric image of (p1, p2) and the symmetry that gives it."""
    b1, b2, bs = p1, p2, 0
    for s in range(1, nsym):
        c1 = apply_sym(symtab, s, nbytes, p1)
        if c1 > b1:
            continue
        c2 = apply_sym(symtab, s, nbytes, p2)
        if c1 < b1 or c2 < b2:
            b1, b2, bs = c1, c2, s
    return b1, b2, bs


@njit(cache=True, inline="always")
def tt_index(k1, k2, mask):
    h = (k1 * _H1) ^ (k2 * _H2)
    h ^= h >> np.uint64(29)
    return np.int64(h & mask) & ~np.int64(1)


@njit(cache=True, inline="always")
def lowest_bit_index(x):
    i = 0
    while (x & np.uint64(1)) == np.uint64(0):
        x >>= np.uint64(1)
        i += 1
    return i


@njit(cache=True)
def playable_cells(occ, iparams, aux):
    """Cells the side to move may take: empty cells, or under gravity each column's lowest empty cell."""
    m = iparams[P_M]
    full = aux[2 * m]
    if iparams[P_GRAVITY] == 0:
        return ~occ & full
    out = np.uint64(0)
    for x in range(m):
        cm = aux[x]
        out |= ((occ & cm) + aux[m + x]) & cm
    return out


@njit(cache=True, nogil=True)
def search(p1, p2, t, alpha, beta, iparams, aux, masks, symtab, symperm, syminv,
           turn_player, turn_left, tt_k1, tt_k2, tt_v, tt_f, tt_m, tt_t,
           ctrl, hist, weight, movebuf, scorebuf, pv):
    """Negamax value of the position (p1, p2) with t stones down, from the side to move."""
    ctrl[C_NODES] += 1
    if (ctrl[C_NODES] & 1023) == 0:
        if ctrl[C_STOP] != 0 or (ctrl[C_MAX_NODES] > 0 and ctrl[C_NODES] >= ctrl[C_MAX_NODES]):
            ctrl[C_ABORTED] = 1
    if ctrl[C_ABORTED] != 0:
        return ABORT

    one = np.uint64(1)
    zero = np.uint64(0)
    m = iparams[P_M]
    full = aux[2 * m]
    top = aux[2 * m + 1]
    goal = iparams[P_GOAL]
    gravity = iparams[P_GRAVITY]
    pl = turn_player[t]
    sl = turn_left[t]
    if pl == 0:
        own, opp = p1, p2
    else:
        own, opp = p2, p1
    occ = p1 | p2
    playable = playable_cells(occ, iparams, aux)
    if playable == zero:
        pv[t] = -1
        if goal == MAKER_BREAKER:
            return LOSS if pl == 0 else WIN
        return DRAW

    # One pass over the groups: live groups and the cells that complete a group.
    my_thr = zero
    op_thr = zero
    my_live = False
    op_live = False
    my_two = zero
    for g in range(iparams[P_G]):
        mk = masks[g]
        if (opp & mk) == zero:
            my_live = True
            r = mk & ~own
            r2 = r & (r - one)
            if r2 == zero:
                my_thr |= r
            elif (r2 & (r2 - one)) == zero:
                my_two = r
        if (own & mk) == zero:
            op_live = True
            r = mk & ~opp
            if (r & (r - one)) == zero:
                op_thr |= r

    # Who can still win, and what must be done now.
    lo, hi = LOSS, WIN
    candidates = playable
    ends_turn = sl == 1
    if goal == NORMAL:
        if (my_thr & playable) != zero:
            pv[t] = lowest_bit_index(my_thr & playable)
            return WIN
        if sl >= 2 and my_two != zero and gravity == 0:
            # two stones this turn complete a group with two empty cells
            pv[t] = lowest_bit_index(my_two)
            return WIN
        if not my_live:
            hi = DRAW
        if not op_live:
            lo = DRAW
    elif goal == MISERE:
        candidates = playable & ~my_thr
        if candidates == zero:
            pv[t] = lowest_bit_index(playable)
            return LOSS
        if not my_live:
            lo = DRAW
        if not op_live:
            hi = DRAW
    else:  # Maker-Breaker: player 0 is Maker
        if pl == 0:
            if not my_live:
                pv[t] = lowest_bit_index(playable)
                return LOSS
            if (my_thr & playable) != zero:
                pv[t] = lowest_bit_index(my_thr & playable)
                return WIN
            if sl >= 2 and my_two != zero and gravity == 0:
                pv[t] = lowest_bit_index(my_two)
                return WIN
            op_thr = zero
        else:
            if not op_live:
                pv[t] = lowest_bit_index(playable)
                return WIN
            my_thr = zero
    if lo == hi:
        pv[t] = lowest_bit_index(candidates)
        return lo

    # Forced blocks: the opponent moves next and threatens to complete a group.
    if ends_turn and goal != MISERE and op_thr != zero:
        forced = op_thr & playable
        if (forced & (forced - one)) != zero:
            pv[t] = lowest_bit_index(forced)
            return LOSS
        if forced != zero:
            candidates = forced
        elif gravity != 0:
            # never play right under an opponent's completing cell
            safe = candidates & ~((op_thr >> one) & ~top)
            if safe == zero:
                pv[t] = lowest_bit_index(candidates)
                return LOSS
            candidates = safe
        if gravity != 0 and candidates == forced:
            if ((forced << one) & ~(top << one) & op_thr) != zero and (forced & top) == zero:
                # blocking opens the cell above, which also completes an opponent group
                pv[t] = lowest_bit_index(forced)
                return LOSS

    if lo > alpha:
        alpha = lo
    if hi < beta:
        beta = hi
    if alpha >= beta:
        pv[t] = lowest_bit_index(candidates)
        return alpha

    # Transposition table (two slots: depth-preferred, always-replace).
    nsym = iparams[P_S]
    nbytes = iparams[P_NBYTES]
    if nsym > 1 and t <= iparams[P_SYM_MAX_T]:
        k1, k2, sidx = canonical(symtab, nsym, nbytes, p1, p2)
    else:
        k1, k2, sidx = p1, p2, 0
    tmask = np.uint64(tt_k1.shape[0] - 1)
    idx = tt_index(k1, k2, tmask)
    tt_move = -1
    for slot in range(idx, idx + 2):
        if tt_f[slot] != EMPTY and tt_k1[slot] == k1 and tt_k2[slot] == k2:
            v = np.int64(tt_v[slot])
            f = tt_f[slot]
            if tt_m[slot] >= 0:
                tt_move = np.int64(syminv[sidx, tt_m[slot]])
            if f == EXACT or (f == LOWER and v >= beta) or (f == UPPER and v <= alpha):
                pv[t] = tt_move if tt_move >= 0 else lowest_bit_index(candidates)
                return v
            if f == LOWER and v > alpha:
                alpha = v
            elif f == UPPER and v < beta:
                beta = v
            if alpha >= beta:
                pv[t] = tt_move if tt_move >= 0 else lowest_bit_index(candidates)
                return v
            break

    # Move list, ordered: TT move, then history + static weight.
    nmoves = 0
    rest = candidates
    while rest != zero:
        low = rest & (~rest + one)
        c = lowest_bit_index(low)
        rest ^= low
        if c == tt_move:
            sc = 1 << 60
        else:
            sc = hist[pl, c] * 64 + weight[c]
        j = nmoves
        while j > 0 and scorebuf[t, j - 1] < sc:
            movebuf[t, j] = movebuf[t, j - 1]
            scorebuf[t, j] = scorebuf[t, j - 1]
            j -= 1
        movebuf[t, j] = c
        scorebuf[t, j] = sc
        nmoves += 1

    best = LOSS - 1
    best_move = movebuf[t, 0]
    same_side = turn_player[t + 1] == pl
    a = alpha
    for i in range(nmoves):
        c = movebuf[t, i]
        bit = one << np.uint64(c)
        if pl == 0:
            n1, n2 = p1 | bit, p2
        else:
            n1, n2 = p1, p2 | bit
        if same_side:
            v = search(n1, n2, t + 1, a, beta, iparams, aux, masks, symtab, symperm, syminv,
                       turn_player, turn_left, tt_k1, tt_k2, tt_v, tt_f, tt_m, tt_t,
                       ctrl, hist, weight, movebuf, scorebuf, pv)
            if v == ABORT:
                return ABORT
        else:
            v = search(n1, n2, t + 1, -beta, -a, iparams, aux, masks, symtab, symperm, syminv,
                       turn_player, turn_left, tt_k1, tt_k2, tt_v, tt_f, tt_m, tt_t,
                       ctrl, hist, weight, movebuf, scorebuf, pv)
            if v == ABORT:
                return ABORT
            v = -v
        if v > best:
            best = v
            best_move = c
        if v > a:
            a = v
        if a >= beta:
            hist[pl, c] += iparams[P_N] - t
            break

    # Store: the bound kind depends on the window actually searched and on lo/hi.
    if best <= alpha and best != lo:
        flag = UPPER
    elif best >= beta and best != hi:
        flag = LOWER
    else:
        flag = EXACT
    slot = idx
    if tt_f[idx] != EMPTY and not (tt_k1[idx] == k1 and tt_k2[idx] == k2) and tt_t[idx] < t:
        slot = idx + 1
    tt_k1[slot] = k1
    tt_k2[slot] = k2
    tt_v[slot] = best
    tt_f[slot] = flag
    tt_m[slot] = symperm[sidx, best_move]
    tt_t[slot] = t
    pv[t] = best_move
    return best
