"""Maker-Breaker search over a small hypergraph, and exact pairing search; compiled with numba.

Bit layout
==========

Vertices (markers, or board cells) are bits of a ``uint64``; a group is the
mask of its vertices. A state is two masks, ``M`` (Maker's vertices) and
``B`` (Breaker's vertices), over a fixed list of groups ``groups[0:G]``.
Inside the search a state is carried as the list of its *live* groups
(no Breaker vertex) reduced to their free vertices::

    groups (fixed)    g0 = 0b0000_0111   g1 = 0b0001_1001   ...
    M = 0b0000_0001, B = 0b0000_1000
    live, reduced     g0 & ~M = 0b0000_0110               (g1 holds a Breaker bit: gone)

``buf[d, 0:ng]`` holds that list for search depth ``d`` (one Maker move and
one Breaker reply per depth) and ``buf[d, -N_FRAME:]`` that depth's frame
(loop state), so no array is allocated during the search.

The memo table is a ``(size, 3)`` uint64 array: word 0 = ``M``, word 1 = ``B``,
word 2 = ``stamp << 2 | value + 1`` where ``stamp`` names the group list the
entry belongs to (``ctrl[C_STAMP]``; the caller gives every group list its own
stamp, or the same stamp for the same list). Only exact results are stored.

Values: ``MAKER`` (Maker, to move, completes a group against any defence),
``BREAKER`` (Breaker, moving second, keeps a vertex in every group), or
``UNKNOWN`` when the node budget ``ctrl[C_BUDGET]`` (0 = none) ran out.

Two Breaker-win shortcuts are sound and cheap: no live group left, and the
Erdos-Selfridge criterion (sum over live groups of 2^-|free vertices| < 1/2
means Breaker, moving second, wins). A Maker move that leaves two groups with
one free vertex each (distinct) wins; one such group forces Breaker's reply.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)
from kinarow.bitboards import popcount

MAKER, BREAKER, UNKNOWN = 0, 1, -1
C_NODES, C_BUDGET, C_STAMP, C_DEPTH, C_FIRST = 0, 1, 2, 3, 4
N_CTRL = 5
N_FRAME = 10  # per-depth frame fields kept in the last columns of a search buffer

_H1 = np.uint64(0x9E3779B97F4A7C15)
_H2 = np.uint64(0xC2B2AE3D27D4EB4F)


# A constant argument of a call between kernels is passed as np.bool_(...) or np.int64(...): numba compiles a callee
# once for each constant it is given (as a Literal type), and a callee called with True in one place and False
# in another would be compiled twice (measured: about 1 s each, in the first run's compile).

@njit(cache=True, inline="always")
def _slot(memo, M, B):
    h = (M * _H1) ^ (B * _H2)
    h ^= h >> np.uint64(29)
    return np.int64(h & np.uint64(memo.shape[0] - 1))


@njit(cache=True)
def _store(memo, slot, M, B, stamp, value):
    if memo.shape[0] > 1:
        memo[slot, 0] = M
        memo[slot, 1] = B
        memo[slot, 2] = (stamp << np.uint64(2)) | np.uint64(value + 1)


@njit(cache=True)
def maker_turn(buf, d0, ng0, M0, B0, memo, ctrl):
    """Value of the state whose live reduced groups are ``buf[d0, 0:ng0]``, Maker to move.

    Iterative, with one frame per depth (one Maker move and one Breaker reply):
    numba's cache does not hold self-recursive functions safely.
    """
    zero = np.uint64(0)
    one = np.uint64(1)
    F = buf.shape[1] - N_FRAME  # frame fields live in the last columns of buf
    use_memo = memo.shape[0] > 1
    stamp = np.uint64(ctrl[C_STAMP])
    budget = ctrl[C_BUDGET]
    d = d0
    buf[d, F + 0] = ng0
    buf[d, F + 1] = M0
    buf[d, F + 2] = B0
    mode = 0  # 0 enter frame d, 1 choose next x, 2 choose next y, 3 a value r came back to frame d
    r = 0
    while True:
        if mode == 0:
            ctrl[C_NODES] += 1
            if budget > 0 and ctrl[C_NODES] > budget:
                return UNKNOWN
            ng = np.int64(buf[d, F + 0])
            r = -2
            if ng == 0:
                r = BREAKER
            else:
                union = zero
                es = 0.0
                for i in range(ng):
                    g = buf[d, i]
                    c = popcount(g)
                    if c <= 1:
                        r = MAKER
                        break
                    union |= g
                    if c < 63:
                        es += 1.0 / float(one << np.uint64(c))
                if r == -2 and es < 0.5:
                    r = BREAKER
            if r == -2 and use_memo:
                slot = _slot(memo, buf[d, F + 1], buf[d, F + 2])
                buf[d, F + 3] = slot
                w = memo[slot, 2]
                same = memo[slot, 0] == buf[d, F + 1] and memo[slot, 1] == buf[d, F + 2]
                if w != zero and same and (w >> np.uint64(2)) == stamp:
                    r = np.int64(w & np.uint64(3)) - 1
            if r != -2:
                # the frame is finished with value r
                if d == d0:
                    return r
                d -= 1
                mode = 3
                continue
            buf[d, F + 4] = union
            buf[d, F + 9] = False
            mode = 1
            continue
        if mode == 1:
            rest = buf[d, F + 4]
            if rest == zero:
                r = UNKNOWN if buf[d, F + 9] else BREAKER
                if r == BREAKER:
                    _store(memo, buf[d, F + 3], buf[d, F + 1], buf[d, F + 2], stamp, np.int64(BREAKER))
                if d == d0:
                    return r
                d -= 1
                mode = 3
                continue
            xbit = rest & (~rest + one)
            buf[d, F + 4] = rest ^ xbit
            single = zero
            near = zero
            union = zero
            for i in range(np.int64(buf[d, F + 0])):
                g = buf[d, i]
                union |= g
                if g & xbit:
                    rr = g & ~xbit
                    near |= rr
                    if (rr & (rr - one)) == zero:
                        single |= rr
            if (single & (single - one)) != zero:
                _store(memo, buf[d, F + 3], buf[d, F + 1], buf[d, F + 2], stamp, np.int64(MAKER))
                r = MAKER
                if d == d0:
                    return r
                d -= 1
                mode = 3
                continue
            cand = single if single != zero else union & ~xbit
            buf[d, F + 5] = xbit
            buf[d, F + 6] = cand & near
            buf[d, F + 7] = cand & ~near
            buf[d, F + 8] = False
            mode = 2
            continue
        if mode == 2:
            ys = buf[d, F + 6]
            if ys != zero:
                ybit = ys & (~ys + one)
                buf[d, F + 6] = ys ^ ybit
            else:
                ys = buf[d, F + 7]
                if ys == zero:
                    # no reply refutes x
                    if not buf[d, F + 8]:
                        _store(memo, buf[d, F + 3], buf[d, F + 1], buf[d, F + 2], stamp, np.int64(MAKER))
                        r = MAKER
                        if d == d0:
                            return r
                        d -= 1
                        mode = 3
                        continue
                    buf[d, F + 9] = True
                    mode = 1
                    continue
                ybit = ys & (~ys + one)
                buf[d, F + 7] = ys ^ ybit
            xbit = buf[d, F + 5]
            nd = 0
            for i in range(np.int64(buf[d, F + 0])):
                g = buf[d, i]
                if g & ybit:
                    continue
                buf[d + 1, nd] = g & ~xbit
                nd += 1
            buf[d + 1, F + 0] = nd
            buf[d + 1, F + 1] = buf[d, F + 1] | xbit
            buf[d + 1, F + 2] = buf[d, F + 2] | ybit
            d += 1
            mode = 0
            continue
        # mode 3: the child of frame d returned r
        if r == BREAKER:
            mode = 1  # x is refuted
        else:
            if r == UNKNOWN:
                buf[d, F + 8] = True
                if budget > 0 and ctrl[C_NODES] > budget:
                    return UNKNOWN
            mode = 2


@njit(cache=True)
def load_state(groups, M, B, buf):
    """Put the live groups of state (M, B), reduced to their free vertices, in ``buf[0]``.

    Returns their number, or -1 when Maker already owns a whole group.
    """
    zero = np.uint64(0)
    ng = 0
    for i in range(groups.shape[0]):
        g = groups[i]
        if g & B:
            continue
        r = g & ~M
        if r == zero:
            return -1
        buf[0, ng] = r
        ng += 1
    return ng


@njit(cache=True)
def breaker_wins(groups, M, B, maker_first, buf, memo, ctrl, full_first=False):
    """Does Breaker keep a vertex in every group from state (M, B)? ``BREAKER``, ``MAKER`` or ``UNKNOWN``.

    With ``maker_first`` Maker moves next. Otherwise Breaker moves first: when
    Maker threatens to complete a group Breaker takes that vertex; when it
    threatens two, Maker wins; else Breaker first tries without using its
    extra move (a Breaker who wins moving second wins moving first), and with
    ``full_first`` then tries every first move. Without ``full_first`` a
    ``MAKER`` answer for Breaker-first means only "not proved".

    A ``BREAKER`` answer for Breaker-first leaves in ``ctrl[C_FIRST]`` the
    vertex Breaker must take first (the blocked threat, or the first move
    found by ``full_first``), or -1 when any first move wins (Breaker wins
    moving second).
    """
    zero = np.uint64(0)
    one = np.uint64(1)
    ctrl[C_FIRST] = -1
    ng = load_state(groups, M, B, buf)
    if ng < 0:
        return MAKER
    if maker_first:
        return maker_turn(buf, np.int64(0), ng, M, B, memo, ctrl)
    single = zero
    union = zero
    for i in range(ng):
        r = buf[0, i]
        union |= r
        if (r & (r - one)) == zero:
            single |= r
    if single == zero:
        first = maker_turn(buf, np.int64(0), ng, M, B, memo, ctrl)
        if first != MAKER or not full_first:
            return first
        # every first move of Breaker (buf[0] is rebuilt from the state each time)
        rest = union
        while rest != zero:
            ybit = rest & (~rest + one)
            rest ^= ybit
            nd = load_state(groups, M, B | ybit, buf)
            r = maker_turn(buf, np.int64(0), nd, M, B | ybit, memo, ctrl)
            if r != MAKER:
                if r == BREAKER:
                    ctrl[C_FIRST] = bit_index(ybit)
                return r
        return MAKER
    if (single & (single - one)) != zero:
        return MAKER
    nd = np.int64(0)  # (not 0: numba would compile maker_turn once more for a first guess of its type, Literal 0)
    for i in range(ng):
        g = buf[0, i]
        if g & single:
            continue
        buf[0, nd] = g
        nd += 1
    ctrl[C_FIRST] = bit_index(single)
    return maker_turn(buf, np.int64(0), nd, M, B | single, memo, ctrl)


@njit(cache=True)
def pair_search(pbuf, ng0, used0, single0, ctrl, budget):
    """Disjoint pairs of cells, avoiding ``used0``, with at most ``single0`` (0 or 1) single cell besides, such
    that every group of ``pbuf[0, 0:ng0]`` (free cells only) holds a pair or the single.

    Returns 1 (found: the cells used are ``pbuf[d, F + 1]`` with d = ``ctrl[C_DEPTH]``, the single
    ``pbuf[d, F + 2]``, 0 when none; with no single the pairs are
    ``pbuf[i + 1, F + 1] ^ pbuf[i, F + 1]`` for i < d), 0 (none exists) or -1 (the budget ran out). The single is the
    defender's move before the pairing: one search asks "is there a move after which a pairing holds?".
    Iterative; frame fields in the last ``N_FRAME`` columns: 0 groups, 1 cells used, 2 the single taken,
    3 single still allowed, 4 singles left to try, 5 pair cell a, 6 a's left to try, 7 b's left for a.
    """
    zero = np.uint64(0)
    one = np.uint64(1)
    F = pbuf.shape[1] - N_FRAME
    d = 0
    pbuf[0, F + 0] = ng0
    pbuf[0, F + 1] = used0
    pbuf[0, F + 2] = zero
    pbuf[0, F + 3] = single0
    entering = True
    while True:
        if entering:
            entering = False
            ctrl[C_NODES] += 1
            if budget > 0 and ctrl[C_NODES] > budget:
                return -1
            ng = np.int64(pbuf[d, F + 0])
            if ng == 0:
                ctrl[C_DEPTH] = d
                return 1
            used = pbuf[d, F + 1]
            best = 0
            best_c = 1 << 30
            for i in range(ng):
                c = popcount(pbuf[d, i] & ~used)
                if c < best_c:
                    best_c = c
                    best = i
                    if c < 2:
                        break
            avail = pbuf[d, best] & ~used
            pbuf[d, F + 4] = avail if pbuf[d, F + 3] != zero else zero
            if best_c >= 2:
                a = avail & (~avail + one)
                pbuf[d, F + 5] = a
                pbuf[d, F + 6] = avail ^ a
                pbuf[d, F + 7] = avail ^ a
            else:
                pbuf[d, F + 5] = zero
                pbuf[d, F + 6] = zero
                pbuf[d, F + 7] = zero
        # the next way to block the chosen group: a single first, then the pairs
        blk = zero
        sg = zero
        ss = pbuf[d, F + 4]
        if ss != zero:
            sg = ss & (~ss + one)
            pbuf[d, F + 4] = ss ^ sg
            blk = sg
        else:
            rb = pbuf[d, F + 7]
            if rb == zero:
                ra = pbuf[d, F + 6]
                if ra != zero:
                    a = ra & (~ra + one)
                    ra ^= a
                    pbuf[d, F + 5] = a
                    pbuf[d, F + 6] = ra
                    pbuf[d, F + 7] = ra
                    rb = ra
            if rb != zero:
                b = rb & (~rb + one)
                pbuf[d, F + 7] = rb ^ b
                blk = pbuf[d, F + 5] | b
        if blk == zero:
            if d == 0:
                return 0
            d -= 1
            continue
        nd = 0
        for i in range(np.int64(pbuf[d, F + 0])):
            g = pbuf[d, i]
            if (g & blk) == blk:
                continue  # blocked by the pair or the single
            pbuf[d + 1, nd] = g
            nd += 1
        pbuf[d + 1, F + 0] = nd
        pbuf[d + 1, F + 1] = pbuf[d, F + 1] | blk
        pbuf[d + 1, F + 2] = pbuf[d, F + 2] | sg
        pbuf[d + 1, F + 3] = zero if sg != zero else pbuf[d, F + 3]
        d += 1
        entering = True


@njit(cache=True)
def pairing_exists(groups, M, B, breaker_first, pbuf, ctrl):
    """Is there a Hales-Jewett pairing of the free vertices inside every live group of state (M, B)?

    1 yes, 0 no, ``UNKNOWN`` when the budget ran out. With ``breaker_first``
    Breaker may first block the one group Maker threatens to complete.
    """
    zero = np.uint64(0)
    one = np.uint64(1)
    ng = load_state(groups, M, B, pbuf)
    if ng < 0:
        return 0
    used = zero
    if breaker_first:
        single = zero
        for i in range(ng):
            r = pbuf[0, i]
            if (r & (r - one)) == zero:
                single |= r
        if (single & (single - one)) != zero:
            return 0
        if single != zero:
            nd = 0
            for i in range(ng):
                g = pbuf[0, i]
                if g & single:
                    continue
                pbuf[0, nd] = g
                nd += 1
            ng = nd
            used = single
    return pair_search(pbuf, ng, used, zero, ctrl, ctrl[C_BUDGET])


@njit(cache=True)
def pairing_pairs(groups, M, B, pbuf, ctrl, out):
    """A pairing of state (M, B) as pair masks in ``out[0:n]``; returns n, or -1 (none) or -2 (budget ran out).

    Maker's stones are ``M``; any side may move first (no forced block is made).
    """
    r = pairing_exists(groups, M, B, False, pbuf, ctrl)
    if r != 1:
        return -1 if r == 0 else -2
    F = pbuf.shape[1] - N_FRAME
    d = ctrl[C_DEPTH]
    for i in range(d):
        out[i] = pbuf[i + 1, F + 1] ^ pbuf[i, F + 1]
    return d


def new_memo(bits: int = 16) -> np.ndarray:
    """An empty memo table of ``2**bits`` entries."""
    return np.zeros((1 << bits, 3), np.uint64)


def new_buffers(vertices: int, groups: int) -> np.ndarray:
    """A stack buffer deep enough for a search over ``vertices`` vertices and ``groups`` groups.

    Row d holds the group list of depth d, then the ``N_FRAME`` fields of that depth's frame.
    """
    return np.zeros((vertices + 2, max(groups, 1) + N_FRAME), np.uint64)


# -- blocking trees (draw certificates) ---------------------------------------------------------------
# The defender (Breaker) answers the attacker (Maker) so that a pairing of the attacker's live groups
# appears soon. Boards are cell bitmasks as above: ``M`` the attacker's stones, ``B`` the defender's.


@njit(cache=True, inline="always")
def bit_index(low):
    """The index of the single set bit of ``low``."""
    c = 0
    while (low >> np.uint64(c)) != np.uint64(1):
        c += 1
    return c


@njit(cache=True)
def completes(groups, own, cell):
    """Does a stone on ``cell`` complete one of ``groups`` for the player owning ``own``?"""
    bit = np.uint64(1) << np.uint64(cell)
    mine = own | bit
    for i in range(groups.shape[0]):
        g = groups[i]
        if (g & bit) != np.uint64(0) and (g & mine) == g:
            return True
    return False


@njit(cache=True)
def pairing_covers(groups, M, B, pairs, n):
    """Does the pairing ``pairs[0:n]`` (pair masks) hold, on empty cells, a pair inside every live group?"""
    empty = ~(M | B)
    for i in range(groups.shape[0]):
        g = groups[i]
        if (g & B) != np.uint64(0):
            continue
        found = False
        for j in range(n):
            p = pairs[j]
            if (p & empty) == p and (g & p) == p:
                found = True
                break
        if not found:
            return False
    return True


@njit(cache=True)
def _pairing_or_over(groups, M, B, cell, pbuf, ctrl, budget):
    """After the defender takes ``cell``: has it completed a group, or does a pairing hold? (budgeted)"""
    if completes(groups, B, cell):
        return True
    ctrl[C_NODES] = 0
    ctrl[C_BUDGET] = budget
    return pairing_exists(groups, M, B | (np.uint64(1) << np.uint64(cell)), False, pbuf, ctrl) == 1


@njit(cache=True)
def _answered(groups, M1, B1, la, r2, pbuf, ctrl, budget):
    """After the defender's move and the attacker's reply ``la`` (stones M1, B1; ``r2`` the empty cells):
    does some defender answer complete a defender group or leave a pairing?"""
    zero = np.uint64(0)
    one = np.uint64(1)
    # a pairing that holds already holds after any answer; an answer in no live group changes
    # nothing but may complete a defender group; answers in the groups through the reply come first
    ctrl[C_NODES] = 0
    ctrl[C_BUDGET] = budget
    if pairing_exists(groups, M1, B1, False, pbuf, ctrl) == 1:
        return True
    live = zero
    near = zero
    for i in range(groups.shape[0]):
        g = groups[i]
        if (g & B1) == zero:
            live |= g
            if (g & la) != zero:
                near |= g
    near &= r2
    far = (live & r2) ^ near
    for part in (near, far):
        while part != zero:
            ld = part & (~part + one)
            part ^= ld
            if _pairing_or_over(groups, M1, B1, bit_index(ld), pbuf, ctrl, budget):
                return True
    rest = r2 & ~live
    while rest != zero:
        ld = rest & (~rest + one)
        rest ^= ld
        if completes(groups, B1, bit_index(ld)):
            return True
    return False


@njit(cache=True)
def reply_scores(groups, M, B, cells, order, deep, stop_at_leaf, pbuf, ctrl, budget, scores):
    """Score each defender move ``c`` among ``cells`` (a mask of empty cells), the defender to move.

    ``scores[c]`` = -1 if the attacker then completes a group at once; 1 << 20 if the move itself
    completes a defender group or leaves a pairing (a leaf at once); else the number of attacker
    replies after which some defender answer completes a group or leaves a pairing.

    The moves are scored in the sequence ``order`` (the cells of ``cells``, the likely best first).
    A move's count stops once it can no longer reach the best count so far; it then scores 0 (or
    -1), so every move of the best count, and only those, gets its exact count. Only the first
    ``deep`` moves of ``order`` are counted at all; the others are only told apart as leaf (1 << 20),
    losing at once (-1) or 0. With ``stop_at_leaf`` the scoring ends at the first leaf.
    """
    one = np.uint64(1)
    zero = np.uint64(0)
    best = 0
    for i in range(order.size):
        c = order[i]
        low = one << np.uint64(c)
        scores[c] = 0
        if _pairing_or_over(groups, M, B, c, pbuf, ctrl, budget):
            scores[c] = 1 << 20
            if stop_at_leaf:  # the walk plays the first leaf it meets: the rest stay unscored (0)
                for j in range(i + 1, order.size):
                    scores[order[j]] = 0
                return 1 << 20
            continue
        B1 = B | low
        replies = cells ^ low
        if i >= deep:
            r1 = replies
            while r1 != zero:
                la = r1 & (~r1 + one)
                r1 ^= la
                if completes(groups, M, bit_index(la)):
                    scores[c] = -1
                    break
            continue
        left = 0
        r1 = replies
        while r1 != zero:
            r1 &= r1 - one
            left += 1
        lost = False
        cut = False
        score = 0
        r1 = replies
        while r1 != zero:
            la = r1 & (~r1 + one)
            r1 ^= la
            if completes(groups, M, bit_index(la)):
                lost = True
                break
            left -= 1
            if cut:
                continue
            if score + 1 + left < best:  # cannot reach the best: only an immediate loss is still looked for
                cut = True
                continue
            if _answered(groups, M | la, B1, la, replies ^ la, pbuf, ctrl, budget):
                score += 1
        if lost:
            scores[c] = -1
        elif not cut:
            scores[c] = score
            best = max(best, score)
    return best


@njit(cache=True)
def cached_pairing(groups, M, B, cache, lengths, used, newest):
    """The newest cached pairing that holds at (M, B): its row of ``cache`` (pair masks, ``lengths`` per row),
    searching rows ``newest, newest - 1, ...`` (a ring of ``used`` rows); -1 if none holds."""
    rows = cache.shape[0]
    for j in range(used):
        r = (newest - j) % rows
        if pairing_covers(groups, M, B, cache[r], lengths[r]):
            return r
    return -1


@njit(cache=True)
def potentials(groups, M, B, cells, out):
    """For each defender move ``c`` in ``cells``: the Erdos-Selfridge potential of the attacker's live groups
    after it, the sum of 2^-(empty cells) over groups without a defender stone (lower is better for the defender)."""
    one = np.uint64(1)
    zero = np.uint64(0)
    empty = ~(M | B)
    total = 0.0
    for i in range(groups.shape[0]):
        g = groups[i]
        if (g & B) == zero:
            total += 2.0 ** -popcount(g & empty)
    rest = cells
    while rest != zero:
        low = rest & (~rest + one)
        rest ^= low
        c = bit_index(low)
        killed = 0.0
        for i in range(groups.shape[0]):
            g = groups[i]
            if (g & B) == zero and (g & low) != zero:
                killed += 2.0 ** -popcount(g & empty)
        out[c] = total - killed


@njit(cache=True)
def ranked_moves(groups, M, B, legal, deep, stop_at_leaf, pbuf, ctrl, budget, potential, scores, out):
    """The defender's moves ``legal`` ranked for a walk: by :func:`reply_scores` (best first), ties in
    potential order (lower first); moves that lose at once are left out. Writes them to ``out`` and
    returns how many there are (their scores stay in ``scores``)."""
    one = np.uint64(1)
    cells = np.uint64(0)
    for c in legal:
        cells |= one << np.uint64(c)
    potentials(groups, M, B, cells, potential)
    order = legal[np.argsort(potential[legal], kind="mergesort")]
    reply_scores(groups, M, B, cells, order, deep, stop_at_leaf, pbuf, ctrl, budget, scores)
    ranked = order[np.argsort(-scores[order], kind="mergesort")]
    n = 0
    for c in ranked:
        if scores[c] >= 0:
            out[n] = c
            n += 1
    return n
