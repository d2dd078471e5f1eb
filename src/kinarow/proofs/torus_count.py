"""Numba kernels of the torus checker's completeness check: labelled good pairings counted row by row, and orbits.

Neither kernel shares anything with the enumeration (:mod:`kinarow.engine.torus_kernel`): the count is a
transfer-matrix sum over the rows of the torus, the orbits are read off cell permutations that the rules'
geometry built (:attr:`kinarow.geometry.Geometry.symmetries`).

The count (:func:`count_pairings`)
==================================

The n x n torus, rows ``y = 0 .. n-1``; a good pairing has one domino along each wrapped line. A row holds
exactly one horizontal domino (when the horizontal direction is played); every other cell of a row is either
covered from the row below or pairs *upwards* along one of the directions ``(dx, 1)``, ``dx`` in ``dxs``
(square grid: -1, 0, 1; hexagonal: -1, 0). The line of direction ``(dx, 1)`` through cell ``(x, y)`` is
``(x - dx * y) mod n`` (the same from either end of a domino, counted at its lower cell). A state is one word::

    bit  0 .. n-1             taken: the cells of the next row already paired from this one
    bit  n + j*n + l          line l of up-direction j already holds its domino

(8 x 8 torus: 8 + 24 = 32 bits; hexagonal 6 x 6: 6 + 12 = 18.) :func:`_row_step` places a row of every state:
the horizontal domino on two free neighbours, then every other free cell along an up-direction whose target
cell (in the row above, or below when counting downwards) is not yet taken and whose line is still empty.

The wrap-around is a trace: the *seam set* ``u0`` (the cells of row 0 covered by dominoes from row n-1) is
fixed, and :func:`count_seam` meets in the middle (m = n // 2):

    forward    rows 0 .. m-1 upwards, row 0 starting with u0 taken      -> (cells of row m covered, lines)
    backward   the seam (row 0's cells u0 paired downwards into row n-1), then rows n-1 .. m+1 downwards
                                                                         -> (cells of row m paired upwards, lines)
    join       row m: its horizontal domino on two cells free of both, the rest exactly the forward side's
               covered cells, and the forward lines the complement of the backward ones

States live in open-addressing tables: ``keys`` (``EMPTY`` = free slot), ``vals`` (how many partial pairings
reach the state), grown twofold when half full.

The orbits (:func:`orbit_scan`)
===============================

A pairing is ``partner[c]`` over cells in reading order (the class file's); ``perms[s, c]`` is symmetry s's image
of cell c, ``inverse[s]`` its inverse, ``code_of[a, b]`` the direction code from cell a to its neighbour b. The
image of a pairing under s has, at cell i, the code from i to ``perms[s, partner[inverse[s, i]]]``; it is compared
with the pairing cell by cell and the scan stops at the first difference. A smaller image means the class is not
in canonical form; an equal one is a symmetry of the class (its stabiliser).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)

EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True)
def _new_table(capacity: int) -> tuple[np.ndarray, np.ndarray]:
    keys = np.empty(capacity, dtype=np.uint64)
    keys[:] = EMPTY
    return keys, np.zeros(capacity, dtype=np.int64)


@njit(cache=True, inline="always")
def _home(key: np.uint64, mask: int) -> np.int64:
    """The slot where ``key``'s search in the open-addressing table starts (``mask``: its size - 1)."""
    mixed = key * np.uint64(0x9E3779B97F4A7C15)
    return np.int64((mixed ^ (mixed >> np.uint64(32))) & np.uint64(mask))


@njit(cache=True)
def _add(keys: np.ndarray, vals: np.ndarray, key: np.uint64, count: np.int64) -> int:
    """Add ``count`` to ``key``'s entry; 1 if the entry is new."""
    mask = keys.shape[0] - 1
    slot = _home(key, mask)
    while True:
        k = keys[slot]
        if k == key:
            vals[slot] += count
            return 0
        if k == EMPTY:
            keys[slot] = key
            vals[slot] = count
            return 1
        slot = (slot + 1) & mask


@njit(cache=True)
def _get(keys: np.ndarray, vals: np.ndarray, key: np.uint64) -> np.int64:
    mask = keys.shape[0] - 1
    slot = _home(key, mask)
    while True:
        k = keys[slot]
        if k == key:
            return vals[slot]
        if k == EMPTY:
            return np.int64(0)
        slot = (slot + 1) & mask


@njit(cache=True)
def _grow(keys: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    new_keys, new_vals = _new_table(2 * keys.shape[0])
    for i in range(keys.shape[0]):
        if keys[i] != EMPTY:
            _add(new_keys, new_vals, keys[i], vals[i])
    return new_keys, new_vals


@njit(cache=True)
def _row_step(keys: np.ndarray, vals: np.ndarray, n: int, y: int, sign: int, horizontal: bool, dxs: np.ndarray,
              only: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Place row y of every state (``taken | lines << n``): the horizontal domino, then every other free cell
    towards row y + sign along an up-direction (target ``x + sign * dx``, line ``x - dx * y`` either way).
    ``only`` >= 0: no horizontal domino, and exactly the cells ``only`` pair (the seam seen from row 0)."""
    nd = dxs.shape[0]
    full = (1 << n) - 1
    cells = np.zeros(n, dtype=np.int64)
    choice = np.zeros(n, dtype=np.int64)
    taken = np.zeros(n + 1, dtype=np.int64)
    lines = np.zeros(n + 1, dtype=np.int64)
    out_keys, out_vals = _new_table(max(1024, keys.shape[0]))
    out_size = 0
    for slot in range(keys.shape[0]):
        key = keys[slot]
        if key == EMPTY:
            continue
        weight = vals[slot]
        free = full & ~(int(key) & full)
        used = int(key >> np.uint64(n))
        place_h = horizontal and only < 0
        for h in range(n if place_h else 1):
            rest = free if only < 0 else only
            if place_h:
                pair = (1 << h) | (1 << ((h + 1) % n))
                if free & pair != pair:
                    continue
                rest = free & ~pair
            k = 0
            for x in range(n):
                if (rest >> x) & 1:
                    cells[k] = x
                    k += 1
            if k == 0:
                out_size += _add(out_keys, out_vals, np.uint64(used << n), weight)
                if 2 * out_size > out_keys.shape[0]:
                    out_keys, out_vals = _grow(out_keys, out_vals)
                continue
            # depth-first over the directions of the k cells
            i = 0
            choice[0] = -1
            taken[0] = 0
            lines[0] = used
            while i >= 0:
                x = cells[i]
                j = choice[i] + 1
                while j < nd:
                    t = (x + sign * dxs[j] + n) % n
                    lb = j * n + (x - dxs[j] * y + n * n) % n
                    if not (taken[i] >> t) & 1 and not (lines[i] >> lb) & 1:
                        break
                    j += 1
                if j == nd:
                    i -= 1
                    continue
                choice[i] = j
                t = (x + sign * dxs[j] + n) % n
                lb = j * n + (x - dxs[j] * y + n * n) % n
                nt = taken[i] | (1 << t)
                nl = lines[i] | (1 << lb)
                if i == k - 1:
                    out_size += _add(out_keys, out_vals, np.uint64(nt | (nl << n)), weight)
                    if 2 * out_size > out_keys.shape[0]:
                        out_keys, out_vals = _grow(out_keys, out_vals)
                else:
                    i += 1
                    choice[i] = -1
                    taken[i] = nt
                    lines[i] = nl
    return out_keys, out_vals, out_size


@njit(cache=True)
def count_seam(n: int, horizontal: bool, dxs: np.ndarray, u0: int, peak: np.ndarray) -> int:
    """The labelled good pairings whose top row covers exactly the cells ``u0`` of row 0 (see the module).

    ``peak[0]`` is raised to the most states one side held.
    """
    nd = dxs.shape[0]
    full = (1 << n) - 1
    all_lines = (1 << (nd * n)) - 1
    m = n // 2
    # forward: rows 0 .. m-1 upwards, row 0 starting with u0 covered
    fk, fv = _new_table(1024)
    size = _add(fk, fv, np.uint64(u0), np.int64(1))
    for y in range(m):
        fk, fv, size = _row_step(fk, fv, n, y, 1, horizontal, dxs, -1)
        peak[0] = max(peak[0], size)
    # backward: the seam (row 0's cells u0 down into row n-1), then rows n-1 .. m+1 downwards
    bk, bv = _new_table(1024)
    _add(bk, bv, np.uint64(0), np.int64(1))
    bk, bv, size = _row_step(bk, bv, n, 0, -1, horizontal, dxs, u0)
    for y in range(n - 1, m, -1):
        bk, bv, size = _row_step(bk, bv, n, y, -1, horizontal, dxs, -1)
        peak[0] = max(peak[0], size)
    # join on row m: its horizontal domino, and the rest covered from below with the other lines
    total = 0
    for slot in range(bk.shape[0]):
        key = bk[slot]
        if key == EMPTY:
            continue
        free = full & ~(int(key) & full)
        wanted = all_lines & ~int(key >> np.uint64(n))
        for h in range(n if horizontal else 1):
            rest = free
            if horizontal:
                pair = (1 << h) | (1 << ((h + 1) % n))
                if free & pair != pair:
                    continue
                rest = free & ~pair
            total += bv[slot] * _get(fk, fv, np.uint64(rest | (wanted << n)))
    return total


@njit(cache=True)
def orbit_scan(partners: np.ndarray, codes: np.ndarray, perms: np.ndarray, inverse: np.ndarray,
               code_of: np.ndarray, stabiliser: np.ndarray) -> int:
    """Fill ``stabiliser[p]`` for every pairing p; return the first pairing with a smaller image, or -1."""
    count, ncells = partners.shape
    for p in range(count):
        fixed = 0
        for s in range(perms.shape[0]):
            equal = True
            for i in range(ncells):
                image = code_of[i, perms[s, partners[p, inverse[s, i]]]]
                if image != codes[p, i]:
                    if image < codes[p, i]:
                        return p
                    equal = False
                    break
            if equal:
                fixed += 1
        stabiliser[p] = fixed
    return -1


def up_directions(directions: tuple[tuple[int, int], ...]) -> tuple[bool, np.ndarray]:
    """Whether the horizontal direction is played, and the ``dx`` of every other direction turned to ``(dx, 1)``."""
    horizontal = False
    dxs = []
    for dx, dy in directions:
        if dy == 0 and abs(dx) == 1:
            horizontal = True
        elif abs(dy) == 1 and abs(dx) <= 1:
            dxs.append(dx * dy)  # (dx, -1) is the line of (-dx, 1)
        else:
            raise ValueError(f"the direction {(dx, dy)} is not a step to a neighbour")
    return horizontal, np.array(sorted(dxs), dtype=np.int64)


def seam_sets(n: int, horizontal: bool, *, reduced: bool = True) -> list[tuple[int, int]]:
    """The seam sets ``u0`` to count, each with the number of seam sets it stands for.

    Unreduced: every subset of row 0, once. Reduced, by two translations of the torus: moving every cell one
    column along maps the good pairings with seam set ``u0`` one to one onto those with ``u0`` turned by one
    column, so one set per necklace (its smallest rotation) is counted, times the necklace's size; moving every
    cell one row up maps those whose seam holds ``a`` dominoes onto those whose seam holds ``b - a``, where
    ``b`` = n - 2 (n without the horizontal direction) is the number of cells of a row that pair across its
    two cuts, so a seam of more than b / 2 dominoes is counted as its mirror size.
    """
    full = (1 << n) - 1
    if not reduced:
        return [(u0, 1) for u0 in range(full + 1)]
    b = n - 2 if horizontal else n

    def turned(u: int, s: int) -> int:
        return ((u << s) | (u >> (n - s))) & full

    weight: dict[int, int] = {}
    for u0 in range(full + 1):
        a = bin(u0).count("1")
        if 2 * a > b:
            continue
        rep = min(turned(u0, s) for s in range(n))
        weight[rep] = weight.get(rep, 0) + (1 if 2 * a == b else 2)
    return sorted(weight.items())


def count_pairings(n: int, directions: tuple[tuple[int, int], ...], *, reduced: bool = True) -> tuple[int, int]:
    """The labelled good pairings of the n x n torus with these line directions, and the most states a row held.

    A good pairing: dominoes covering every cell once, each joining neighbours along a direction, every wrapped
    line holding exactly one domino along it (see the module). ``reduced`` uses the two translations of
    :func:`seam_sets`; without it every seam set is counted (2^n runs).
    """
    horizontal, dxs = up_directions(directions)
    peak = np.zeros(1, dtype=np.int64)
    total = 0
    for u0, times in seam_sets(n, horizontal, reduced=reduced):
        total += times * int(count_seam(n, horizontal, dxs, u0, peak))
    return total, int(peak[0])
