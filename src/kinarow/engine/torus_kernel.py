"""Numba kernels for good domino pairings of an n x n torus (see ``kinarow.knowledge.infinite.torus``).

Layout
======

Cells are read like a page, rows from the top and each row from the left:
``cell = r * n + x`` (``x`` = column, ``r`` = row counted downwards). On the
8 x 8 torus::

        x: 0  1  2  3  4  5  6  7
    r=0    0  1  2  3  4  5  6  7
    r=1    8  9 10 11 12 13 14 15
    ...
    r=7   56 57 58 59 60 61 62 63

A pairing is an array ``code[cell]``: the direction from the cell to its
partner, numbered clockwise from East. Square grid (as in Gyorffy, London &
Makay): E 0, SE 1, S 2, SW 3, W 4, NW 5, N 6, NE 7 (``code + 4`` is the way
back). Hexagonal grid (3 directions): E 0, SE 1, S 2, W 3, NW 4, N 5.

``covered`` (uint64) has bit ``cell`` set for every paired cell; ``lines``
(uint64) has bit ``d * n + l`` set once line ``l`` of direction ``d`` holds
its domino (direction ``d`` = ``code mod D``, D = 4 square, 3 hexagonal).

The canonical form of a class is its lexicographically smallest image under
the symmetry group, comparing ``code`` cell by cell. Every row holds exactly
one East-West domino, so the smallest image always starts ``0``: the only
candidates are, for each point symmetry ``s``, the translations that bring a
cell whose image code is East (``rot[s, code[p]] == 0``) to cell 0. The image
of that candidate at cell ``i`` is ``rot[s, code[src[s, p, i]]]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)
from kinarow.bitboards import lowest_bit_index, popcount

MAX_DEPTH = 64


@njit(cache=True)
def _is_min(code, rot, src, nsym, ncells):
    """True when ``code`` (cell 0 = East) is not larger than any of its images."""
    ncodes = rot.shape[1]
    for s in range(nsym):
        east = 0
        for c in range(ncodes):
            if rot[s, c] == 0:
                east = c
        for p in range(ncells):
            if code[p] != east or (s == 0 and p == 0):
                continue
            for i in range(2, ncells):
                q = rot[s, code[src[s, p, i]]]
                if q < code[i]:
                    return False
                if q > code[i]:
                    break
    return True


@njit(cache=True)
def canonical_into(code, rot, src, east, nsym, ncells, out, cs, cp, vals):
    """Write the smallest image of ``code`` into ``out`` (``cs``, ``cp``, ``vals``: work arrays of nsym * ncells).

    Progressive elimination: list every candidate (point map s, translation
    bringing a cell whose image code is East to cell 0; ``east[s]`` is the
    code that s turns into East), then walk the cells in order keeping only
    the candidates whose image is smallest so far; usually one is left after
    two or three cells.
    """
    m = 0
    for p in range(ncells):
        c = code[p]
        for s in range(nsym):
            if east[s] == c:
                cs[m] = s
                cp[m] = p
                m += 1
    i = 2  # every candidate reads East, West on cells 0 and 1
    while m > 1 and i < ncells:
        best = 127
        for k in range(m):
            q = rot[cs[k], code[src[cs[k], cp[k], i]]]
            vals[k] = q
            if q < best:
                best = q
        kept = 0
        for k in range(m):
            if vals[k] == best:
                cs[kept] = cs[k]
                cp[kept] = cp[k]
                kept += 1
        m = kept
        i += 1
    bs = cs[0]
    bp = cp[0]
    for i in range(ncells):
        out[i] = rot[bs, code[src[bs, bp, i]]]


@njit(cache=True)
def east_codes(rot):
    """``east[s]``: the direction code that point map s turns into East (code 0)."""
    east = np.zeros(rot.shape[0], dtype=np.int64)
    for s in range(rot.shape[0]):
        for c in range(rot.shape[1]):
            if rot[s, c] == 0:
                east[s] = c
    return east


@njit(cache=True)
def canonical(code, rot, src, nsym, ncells, out):
    """Write the smallest image of ``code`` into ``out``."""
    work = nsym * ncells
    canonical_into(
        code, rot, src, east_codes(rot), nsym, ncells, out,
        np.empty(work, dtype=np.int64), np.empty(work, dtype=np.int64), np.empty(work, dtype=np.int64),
    )


@njit(cache=True)
def _shift(b, dx, dr, n, ncells, full, first_col, last_col):
    """Move every bit of ``b`` from cell (x, r) to (x + dx, r + dr) on the torus."""
    un = np.uint64(n)
    if dx == 1:
        b = ((b & ~last_col) << np.uint64(1)) | ((b & last_col) >> (un - np.uint64(1)))
    elif dx == -1:
        b = ((b & ~first_col) >> np.uint64(1)) | ((b & first_col) << (un - np.uint64(1)))
    if dr == 1:
        b = ((b << un) | (b >> np.uint64(ncells - n))) & full
    elif dr == -1:
        b = ((b >> un) | (b << np.uint64(ncells - n))) & full
    return b & full


@njit(cache=True, nogil=True)
def enumerate_from(
    start, vec, nb, line_index, line_mask, ncodes, n, rot, src, nsym, stop_depth, out, counters
):
    """Exact-cover search for the good pairings extending the partial pairing ``start``.

    ``start[cell]`` is a code or -1 (free). At every node the free cells
    ``F`` give, for each direction d, the cells where a domino along d still
    fits on a line of d that lacks its domino (``F & shift(F, -d)`` masked by
    those lines). A node is dead when such a line has no place left or a free
    cell lies in no possible domino. Cells that fit in exactly one possible
    domino are all placed at once (a forced step; two of them clashing kills
    the node); otherwise the node branches on the line with the fewest
    places (every line needs exactly one domino, so this is complete).

    With ``stop_depth > 0`` the partial pairings reached after that many
    branching steps are written to ``out`` (tasks); otherwise every complete
    pairing that is its own canonical form is. ``counters``: [written,
    leaves (complete pairings met), nodes, overflow]. Returns the count written.
    """
    ncells = n * n
    half = ncodes // 2
    full = np.uint64(0xFFFFFFFFFFFFFFFF) if ncells == 64 else (np.uint64(1) << np.uint64(ncells)) - np.uint64(1)
    one = np.uint64(1)
    first_col = np.uint64(0)
    last_col = np.uint64(0)
    for r in range(n):
        first_col |= one << np.uint64(r * n)
        last_col |= one << np.uint64(r * n + n - 1)
    code = start.copy()
    covered = np.uint64(0)
    used = np.zeros(half, dtype=np.int64)  # bit l: line l of direction d holds its domino
    for c in range(ncells):
        if code[c] >= 0:
            covered |= one << np.uint64(c)
            if code[c] < half:
                used[code[c]] |= 1 << line_index[code[c], c]
    allowed = np.zeros(half, dtype=np.uint64)  # cells of the lines of direction d still without a domino
    for d in range(half):
        for l in range(n):
            if not (used[d] >> l) & 1:
                allowed[d] |= line_mask[d, l]
    opt = np.zeros(MAX_DEPTH + 2, dtype=np.uint64)  # places still to try at each level
    odir = np.zeros(MAX_DEPTH + 2, dtype=np.int64)
    obase = np.zeros(MAX_DEPTH + 2, dtype=np.int64)  # placement-stack height when the level began
    branching = 0  # branching levels on the stack
    obranch = np.zeros(MAX_DEPTH + 2, dtype=np.bool_)
    pa = np.zeros(ncells, dtype=np.int64)  # placement stack: first cell and direction of each domino
    pd = np.zeros(ncells, dtype=np.int64)
    top = 0
    places = np.zeros(half, dtype=np.uint64)
    lone = np.zeros(half, dtype=np.uint64)
    all_lines = (1 << n) - 1
    cap = out.shape[0]
    written = counters[0]
    evaluate = True
    level = -1
    while True:
        if evaluate:
            evaluate = False
            counters[2] += 1
            if covered == full:
                counters[1] += 1
                if stop_depth == 0 and _is_min(code, rot, src, nsym, ncells):
                    if written < cap:
                        for i in range(ncells):
                            out[written, i] = code[i]
                    else:
                        counters[3] = 1
                    written += 1
            elif stop_depth > 0 and branching >= stop_depth:
                if written < cap:
                    for i in range(ncells):
                        out[written, i] = code[i]
                else:
                    counters[3] = 1
                written += 1
            else:
                free = ~covered & full
                any_lone = False
                once = np.uint64(0)
                twice = np.uint64(0)
                dead = False
                for d in range(half):
                    dx = vec[d, 0]
                    dr = vec[d, 1]
                    p = free & _shift(free, -dx, -dr, n, ncells, full, first_col, last_col) & allowed[d]
                    places[d] = p
                    unused = all_lines & ~used[d]
                    lone[d] = np.uint64(0)
                    for l in range(n):
                        if (unused >> l) & 1:
                            x = p & line_mask[d, l]
                            if x == 0:
                                dead = True
                                break
                            if x & (x - one) == 0:  # the line's domino has one place left
                                lone[d] |= x
                                any_lone = True
                    if dead:
                        break
                    twice |= once & p
                    once |= p
                    x = _shift(p, dx, dr, n, ncells, full, first_col, last_col)
                    twice |= once & x
                    once |= x
                if not dead and (free & ~once) != 0:
                    dead = True
                if not dead:
                    forced = free & ~twice
                    level += 1
                    obase[level] = top
                    opt[level] = np.uint64(0)
                    if forced != 0 or any_lone:
                        # place every forced domino now; this level has no other option
                        obranch[level] = False
                        ok = True
                        for d in range(half):
                            while lone[d] != 0 and ok:
                                a = lowest_bit_index(lone[d])
                                lone[d] &= lone[d] - one
                                b = nb[a, d]
                                ab = one << np.uint64(a)
                                bb = one << np.uint64(b)
                                if (covered & (ab | bb)) != 0 or (used[d] >> line_index[d, a]) & 1:
                                    ok = False
                                    break
                                covered |= ab | bb
                                used[d] |= 1 << line_index[d, a]
                                allowed[d] &= ~line_mask[d, line_index[d, a]]
                                code[a] = d
                                code[b] = d + half
                                pa[top] = a
                                pd[top] = d
                                top += 1
                        while forced != 0 and ok:
                            f = lowest_bit_index(forced)
                            bit = one << np.uint64(f)
                            forced &= ~bit
                            if covered & bit:
                                continue  # already covered by a forced domino of this step
                            a = -1
                            dd = -1
                            for d in range(half):
                                if places[d] & bit:
                                    a = f
                                    dd = d
                                    break
                                back = _shift(places[d], vec[d, 0], vec[d, 1], n, ncells, full, first_col, last_col)
                                if back & bit:
                                    a = nb[f, d + half]
                                    dd = d
                                    break
                            b = nb[a, dd]
                            bb = one << np.uint64(b)
                            ab = one << np.uint64(a)
                            if (covered & (ab | bb)) != 0 or (used[dd] >> line_index[dd, a]) & 1:
                                ok = False
                                break
                            covered |= ab | bb
                            used[dd] |= 1 << line_index[dd, a]
                            allowed[dd] &= ~line_mask[dd, line_index[dd, a]]
                            code[a] = dd
                            code[b] = dd + half
                            pa[top] = a
                            pd[top] = dd
                            top += 1
                        if ok:
                            evaluate = True
                            continue
                    else:
                        best_line = -1
                        best_dir = -1
                        best_count = 99
                        for d in range(half):
                            unused = all_lines & ~used[d]
                            for l in range(n):
                                if (unused >> l) & 1:
                                    k = popcount(places[d] & line_mask[d, l])
                                    if k < best_count:
                                        best_count = k
                                        best_line = l
                                        best_dir = d
                        obranch[level] = True
                        branching += 1
                        opt[level] = places[best_dir] & line_mask[best_dir, best_line]
                        odir[level] = best_dir
        # undo this level's placements, then take its next option (or leave the level)
        if level < 0:
            break
        while top > obase[level]:
            top -= 1
            a = pa[top]
            dd = pd[top]
            b = nb[a, dd]
            covered &= ~((one << np.uint64(a)) | (one << np.uint64(b)))
            used[dd] &= ~(1 << line_index[dd, a])
            allowed[dd] |= line_mask[dd, line_index[dd, a]]
            code[a] = -1
            code[b] = -1
        if opt[level] == 0:
            if obranch[level]:
                branching -= 1
            level -= 1
            continue
        d = odir[level]
        a = lowest_bit_index(opt[level])
        opt[level] &= opt[level] - one
        b = nb[a, d]
        covered |= (one << np.uint64(a)) | (one << np.uint64(b))
        used[d] |= 1 << line_index[d, a]
        allowed[d] &= ~line_mask[d, line_index[d, a]]
        code[a] = d
        code[b] = d + half
        pa[top] = a
        pd[top] = d
        top += 1
        evaluate = True
    counters[0] = written
    return written


@njit(cache=True, nogil=True)
def enumerate_tasks(
    tasks, lo, hi, vec, nb, line_index, line_mask, ncodes, n, rot, src, nsym, out, counters
):
    """Run :func:`enumerate_from` to completion on ``tasks[lo:hi]``."""
    for t in range(lo, hi):
        enumerate_from(tasks[t], vec, nb, line_index, line_mask, ncodes, n, rot, src, nsym, 0, out, counters)
    return counters[0]


@njit(cache=True)
def pack(codes, out):
    """Pack code rows into uint64 keys, 21 cells (3 bits each) per word, first cell most significant."""
    rows, ncells = codes.shape
    nwords = out.shape[1]
    for r in range(rows):
        for w in range(nwords):
            v = np.uint64(0)
            for k in range(21):
                i = w * 21 + k
                v <<= np.uint64(3)
                if i < ncells:
                    v |= np.uint64(codes[r, i])
            out[r, w] = v


@njit(cache=True)
def _find(keys, key):
    """Index of ``key`` in the lexicographically sorted ``keys``, or -1."""
    lo = 0
    hi = keys.shape[0]
    nw = keys.shape[1]
    while lo < hi:
        mid = (lo + hi) // 2
        cmp = 0
        for w in range(nw):
            if keys[mid, w] < key[w]:
                cmp = -1
                break
            if keys[mid, w] > key[w]:
                cmp = 1
                break
        if cmp == 0:
            return mid
        if cmp < 0:
            lo = mid + 1
        else:
            hi = mid
    return -1


@njit(cache=True)
def pack_one(code, ncells, key):
    """Pack one code row into ``key`` (as :func:`pack`)."""
    for w in range(key.shape[0]):
        v = np.uint64(0)
        for k in range(21):
            i = w * 21 + k
            v <<= np.uint64(3)
            if i < ncells:
                v |= np.uint64(code[i])
        key[w] = v


@njit(cache=True)
def transition(code, start, forward, nb, linebit, ncodes, res):
    """Apply the moving transition that starts by shifting the domino at ``start``; False if there is none.

    ``start`` holds a forward code (< ncodes / 2). Its domino shifts one cell
    along its own line (``forward``: in the direction of that code), freeing
    one cell and claiming a new one; the domino that held the claimed cell
    shifts one cell along its own line away from it, claiming the next cell,
    and so on until the claimed cell is the freed one. A domino is known by
    its line (each line holds exactly one domino of its direction), so a line
    met twice means a domino would have to move twice: no transition.
    """
    half = ncodes // 2
    res[:] = code
    d = code[start]
    moved = linebit[d, start]
    if forward:
        freed = start
        u = nb[start, d]
        e = d
    else:
        freed = nb[start, d]
        u = start
        e = d + half
    res[freed] = -1
    w = nb[u, e]
    for _ in range(ncodes * 64):
        if w == freed:
            res[u] = e
            res[w] = (e + half) % ncodes
            return True
        oc = res[w]
        owner_line = linebit[oc, w]
        if moved & owner_line:
            return False
        q = nb[w, oc]
        res[u] = e
        res[w] = (e + half) % ncodes
        moved |= owner_line
        u = q
        e = oc
        w = nb[q, oc]
    return False


@njit(cache=True, nogil=True)
def transition_edges(classes, keys, nb, linebit, ncodes, rot, src, nsym, out, lo, hi, counters):
    """Edges from every class in ``classes[lo:hi]`` by one moving transition.

    For each class ``v`` and each start (domino, forward or backward) the
    result is brought to canonical form and looked up in ``keys``; an edge
    ``(min, max)`` is written when it lands in another class. ``counters``:
    [edges written, transitions that exist, transitions that fail, results
    not found among the classes].
    """
    ncells = classes.shape[1]
    half = ncodes // 2
    res = np.empty(ncells, dtype=np.int8)
    can = np.empty(ncells, dtype=np.int8)
    key = np.empty(keys.shape[1], dtype=np.uint64)
    east = east_codes(rot)
    cs = np.empty(nsym * ncells, dtype=np.int64)
    cp = np.empty(nsym * ncells, dtype=np.int64)
    vals = np.empty(nsym * ncells, dtype=np.int64)
    written = counters[0]
    for v in range(lo, hi):
        code = classes[v]
        for a in range(ncells):
            if code[a] >= half:
                continue
            for forward in (True, False):
                if not transition(code, a, forward, nb, linebit, ncodes, res):
                    counters[2] += 1
                    continue
                counters[1] += 1
                canonical_into(res, rot, src, east, nsym, ncells, can, cs, cp, vals)
                pack_one(can, ncells, key)
                u = _find(keys, key)
                if u < 0:
                    counters[3] += 1
                    continue
                if u != v:
                    out[written, 0] = min(u, v)
                    out[written, 1] = max(u, v)
                    written += 1
    counters[0] = written
    return written
