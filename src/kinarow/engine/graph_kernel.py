"""Numba kernels for statistics of a large undirected graph (the torus pairing graph).

Layout
======

The graph is in CSR form: the neighbours of vertex ``v`` are
``indices[indptr[v]:indptr[v + 1]]``, sorted, each edge stored in both
directions, no loops, no repeats::

    indptr  = [0, 2, 3, 5, ...]      (vertices + 1 offsets)
    indices = [1, 4, 0, 0, 3, ...]   (2 x edges vertex numbers)

``label[v]`` is the component of ``v`` (0, 1, ... in order of their smallest
vertex). Distances are int32 arrays, -1 where not reached.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)


@njit(cache=True, nogil=True)
def components(indptr, indices, label):
    """Label the connected components; returns their number."""
    nv = indptr.shape[0] - 1
    label[:] = -1
    queue = np.empty(nv, dtype=np.int64)
    count = 0
    for s in range(nv):
        if label[s] >= 0:
            continue
        label[s] = count
        head = 0
        tail = 1
        queue[0] = s
        while head < tail:
            v = queue[head]
            head += 1
            for k in range(indptr[v], indptr[v + 1]):
                w = indices[k]
                if label[w] < 0:
                    label[w] = count
                    queue[tail] = w
                    tail += 1
        count += 1
    return count


@njit(cache=True, nogil=True)
def _bfs(indptr, indices, s, dist, queue):
    """Distances from ``s`` into ``dist`` (which must be -1 on s's component); returns (eccentricity, reached)."""
    dist[s] = 0
    queue[0] = s
    head = 0
    tail = 1
    ecc = 0
    while head < tail:
        v = queue[head]
        head += 1
        dv = dist[v]
        for k in range(indptr[v], indptr[v + 1]):
            w = indices[k]
            if dist[w] < 0:
                dist[w] = dv + 1
                if dv + 1 > ecc:
                    ecc = dv + 1
                queue[tail] = w
                tail += 1
    return ecc, tail


@njit(cache=True, nogil=True)
def diameters(indptr, indices, label, ncomp, out_diam, out_bfs):
    """Exact diameter of every component by eccentricity bounds (Takes & Kosters, "BoundingDiameters").

    Each BFS from a vertex v with eccentricity e gives every vertex w of the
    component the bounds max(e - d(v, w), d(v, w)) <= ecc(w) <= e + d(v, w).
    The search alternates between the candidate with the largest upper
    bound and the one with the smallest lower bound, and stops when the
    largest lower bound meets the largest upper bound. ``out_bfs[c]`` is the
    number of BFS runs component c needed.
    """
    nv = indptr.shape[0] - 1
    # vertices grouped by component
    start = np.zeros(ncomp + 1, dtype=np.int64)
    for v in range(nv):
        start[label[v] + 1] += 1
    for c in range(ncomp):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    members = np.empty(nv, dtype=np.int64)
    for v in range(nv):
        members[fill[label[v]]] = v
        fill[label[v]] += 1
    dist = -np.ones(nv, dtype=np.int32)
    queue = np.empty(nv, dtype=np.int64)
    lo = np.zeros(nv, dtype=np.int32)
    hi = np.zeros(nv, dtype=np.int32)
    cand = np.zeros(nv, dtype=np.bool_)
    for c in range(ncomp):
        a = start[c]
        b = start[c + 1]
        if b - a == 1:
            out_diam[c] = 0
            out_bfs[c] = 0
            continue
        for i in range(a, b):
            v = members[i]
            lo[v] = 0
            hi[v] = 1 << 30
            cand[v] = True
        dlow = 0
        dhigh = 1 << 30
        high_turn = True
        runs = 0
        left = b - a
        while dlow < dhigh and left > 0:
            pick = -1
            for i in range(a, b):
                v = members[i]
                if not cand[v]:
                    continue
                if pick < 0:
                    pick = v
                    continue
                more = indptr[v + 1] - indptr[v] > indptr[pick + 1] - indptr[pick]
                if high_turn:
                    if hi[v] > hi[pick] or (hi[v] == hi[pick] and more):
                        pick = v
                elif lo[v] < lo[pick] or (lo[v] == lo[pick] and more):
                    pick = v
            high_turn = not high_turn
            ecc, _ = _bfs(indptr, indices, pick, dist, queue)
            runs += 1
            dhigh = 0
            for i in range(a, b):
                v = members[i]
                d = dist[v]
                lower = ecc - d if ecc - d > d else d
                if lower > lo[v]:
                    lo[v] = lower
                if ecc + d < hi[v]:
                    hi[v] = ecc + d
                if lo[v] > dlow:
                    dlow = lo[v]
            for i in range(a, b):
                v = members[i]
                if hi[v] > dhigh:
                    dhigh = hi[v]
            for i in range(a, b):
                v = members[i]
                dist[v] = -1
                if cand[v] and (lo[v] == hi[v] or (hi[v] <= dlow and 2 * lo[v] >= dhigh)):
                    cand[v] = False
                    left -= 1
            cand[pick] = False
        out_diam[c] = dlow
        out_bfs[c] = runs


@njit(cache=True, nogil=True)
def triangle_and_square_edges(indptr, indices, on_triangle, on_square):
    """For every stored edge k = (u, w) with u < w: does it lie on a triangle? on a 4-cycle?

    ``paths[x]`` counts the paths u - y - x of length 2 from u. A triangle
    through uw is a neighbour x of w with u - x an edge; a 4-cycle u-w-x-y-u
    is a neighbour x != u of w reached from u through some y != w, that is
    with ``paths[x] >= 2`` (w itself is one of the middle vertices). In a
    triangle-free graph every 4-cycle is an induced cycle.
    """
    nv = indptr.shape[0] - 1
    mark = np.zeros(nv, dtype=np.int64)  # mark[x] = 1 + u when x is a neighbour of u
    paths = np.zeros(nv, dtype=np.int64)
    for u in range(nv):
        for k in range(indptr[u], indptr[u + 1]):
            y = indices[k]
            mark[y] = u + 1
            for i in range(indptr[y], indptr[y + 1]):
                paths[indices[i]] += 1
        for k in range(indptr[u], indptr[u + 1]):
            w = indices[k]
            if w < u:
                continue
            tri = False
            sq = False
            for j in range(indptr[w], indptr[w + 1]):
                x = indices[j]
                if x == u:
                    continue
                if mark[x] == u + 1:
                    tri = True
                if paths[x] >= 2:
                    sq = True
            on_triangle[k] = tri
            on_square[k] = sq
        for k in range(indptr[u], indptr[u + 1]):
            y = indices[k]
            for i in range(indptr[y], indptr[y + 1]):
                paths[indices[i]] = 0


@njit(cache=True, nogil=True)
def odd_cycle_components(indptr, indices, label, ncomp, odd):
    """``odd[c]`` = True when component c holds an odd cycle (is not bipartite)."""
    nv = indptr.shape[0] - 1
    side = -np.ones(nv, dtype=np.int8)
    queue = np.empty(nv, dtype=np.int64)
    for s in range(nv):
        if side[s] >= 0:
            continue
        side[s] = 0
        queue[0] = s
        head = 0
        tail = 1
        while head < tail:
            v = queue[head]
            head += 1
            for k in range(indptr[v], indptr[v + 1]):
                w = indices[k]
                if side[w] < 0:
                    side[w] = 1 - side[v]
                    queue[tail] = w
                    tail += 1
                elif side[w] == side[v]:
                    odd[label[v]] = True


@njit(cache=True, nogil=True)
def induced_cycles(indptr, indices, wanted, max_len, s_lo, s_hi, budget, found, witness, counters):
    """Which lengths of induced (chordless) cycles occur, by a depth-bounded search for induced paths.

    For each start ``s`` in ``[s_lo, s_hi)`` the search grows induced paths
    ``s = p[0], p[1], ..., p[j]`` over vertices larger than ``s`` (so each
    cycle is met from its smallest vertex). ``near[x]`` counts the path
    vertices adjacent to ``x``: a new end ``w`` (a neighbour of ``p[j]``) keeps
    the path induced when ``near[w] == 1``; it closes an induced cycle of length
    ``j + 2`` when ``near[w] == 2`` and ``w`` is adjacent to ``s`` (``j >= 1``).
    ``wanted[L]`` marks the lengths still sought (``L <= max_len``); a length
    found is set in ``found`` with the cycle in ``witness[L, :L]`` and is no
    longer sought. Paths are pruned by the distance back to ``s`` (a BFS from
    ``s`` over vertices > s, to depth max_len // 2): an end ``w`` at path length
    ``j + 1`` needs ``j + 1 + dist(w) <= longest length still sought``.
    ``counters[0]`` counts path extensions; the search stops when it passes
    ``budget`` (0 = no limit) and ``counters[1]`` then holds the next start not
    finished (otherwise ``s_hi``). Returns True when every start was finished.
    """
    nv = indptr.shape[0] - 1
    near = np.zeros(nv, dtype=np.int32)
    onpath = np.zeros(nv, dtype=np.bool_)
    dist = -np.ones(nv, dtype=np.int32)
    queue = np.empty(nv, dtype=np.int64)
    path = np.empty(max_len + 1, dtype=np.int64)
    ptr = np.empty(max_len + 1, dtype=np.int64)
    top = -1
    for L in range(max_len, 2, -1):
        if wanted[L] and not found[L]:
            top = L
            break
    for s in range(s_lo, s_hi):
        if top < 0:
            counters[1] = s_hi
            return True
        if budget > 0 and counters[0] >= budget:
            counters[1] = s
            return False
        # distances from s over vertices > s, to depth top // 2
        dist[s] = 0
        queue[0] = s
        head = 0
        tail = 1
        while head < tail:
            v = queue[head]
            head += 1
            if dist[v] >= top // 2:
                continue
            for k in range(indptr[v], indptr[v + 1]):
                w = indices[k]
                if w > s and dist[w] < 0:
                    dist[w] = dist[v] + 1
                    queue[tail] = w
                    tail += 1
        path[0] = s
        ptr[0] = indptr[s]
        onpath[s] = True
        for k in range(indptr[s], indptr[s + 1]):
            near[indices[k]] += 1
        j = 0
        while j >= 0:
            v = path[j]
            if ptr[j] < indptr[v + 1] and top > 0:
                w = indices[ptr[j]]
                ptr[j] += 1
                if w <= s or onpath[w] or dist[w] < 0 or j + 1 + dist[w] > top:
                    continue
                if near[w] == 2 and j >= 1 and dist[w] == 1:
                    # w closes a cycle when its two path neighbours are p[j] and s
                    closes = False
                    for k in range(indptr[w], indptr[w + 1]):
                        if indices[k] == s:
                            closes = True
                    if closes and wanted[j + 2] and not found[j + 2]:
                        found[j + 2] = True
                        for i in range(j + 1):
                            witness[j + 2, i] = path[i]
                        witness[j + 2, j + 1] = w
                        top = -1
                        for L in range(max_len, 2, -1):
                            if wanted[L] and not found[L]:
                                top = L
                                break
                    continue
                if near[w] != 1 or j + 1 >= top - 1:
                    continue
                counters[0] += 1
                if budget > 0 and counters[0] >= budget:
                    top = 0  # unwind, then stop before the next start
                    continue
                j += 1
                onpath[w] = True
                path[j] = w
                ptr[j] = indptr[w]
                for k in range(indptr[w], indptr[w + 1]):
                    near[indices[k]] += 1
            else:
                for k in range(indptr[v], indptr[v + 1]):
                    near[indices[k]] -= 1
                onpath[v] = False
                j -= 1
        for i in range(tail):
            dist[queue[i]] = -1
        if top == 0:
            counters[1] = s
            return False
    counters[1] = s_hi
    return True
