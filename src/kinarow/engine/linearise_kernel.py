"""The blocking tree's last pass, compiled: a walk memory written out as tokens in the checker's order.

:func:`kinarow.search.draw.linearise` replays a settled walk memory from its root, depth first, the
attacker's moves in ascending cell order, skipping every position already written (also as a symmetry
image), and reads one token per new position. In Python that is a few thousand positions a second, an
hour or two for the (8,8,5) tree's tens of millions; :func:`linearise_tokens` does the same walk here and
returns the tokens as integers, which the Python side turns into text.

Bit layout
==========

A position is two ``uint64`` bitboards, ``bits[1]`` the first player's stones and ``bits[2]`` the
second's (bit ``i`` is cell ``i``, numbered as :class:`kinarow.geometry.Geometry` numbers cells; at most
64 cells), beside ``board``, the cell values (0 empty, 1 first, 2 second). For 3 x 3::

        a b c
    3 | 2 5 8
    2 | 1 4 7
    1 | 0 3 6       bits 9..63 are always 0

A memory key is the least image of ``board`` under the board's symmetries (``images[s, i]`` is the cell
whose value goes to place ``i`` of image ``s``; the first ``s`` giving the least image wins, as in
:class:`kinarow.search.draw.Frames`); every image's code is kept up to date as stones come and go. Codes are
base-3: ``hi`` over places ``0 .. cut - 1`` and ``lo``
over ``cut .. cells - 1``, the lower place the more significant digit (so codes order as the keys do);
the walk finds them through an open-addressing index built first.
``cut`` is 0 on a board of at most 40 cells (``hi`` is then 0).

Tokens
======

``>= 0`` the defender plays on that cell; ``-1`` (``EXPAND_TOKEN``) every move of the attacker follows;
``<= -2`` a leaf proved by pairing number ``-2 - token`` of the certificate. The new pairings are listed in
``new_pairings`` as (memory pairing id, symmetry ``s``) in the order they are numbered.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)
from kinarow.engine.breaker import cached_pairing
from kinarow.proofs.tree_kernel import outcome

EXPAND_TOKEN = -1
#: the memory's entries (as in :mod:`kinarow.search.draw`): a cell below ``cells`` is the defender's move (in
#: the canonical frame), ``cells + i`` a leaf by the memory's pairing ``i``
EXPANDED = -1
REFUTED = -2
#: the status of a finished walk: the tokens are complete; otherwise where it stopped
OK = 0
LOSES = 1  # a line of the replay ends in the attacker's win
NO_DEFENCE = 2  # a position the memory does not settle (or settles as refuted)


@njit(cache=True)
def _least(hi, lo):
    """The least image's (hi, lo) codes, given every image's, and the first symmetry giving it."""
    best = 0
    for s in range(1, hi.shape[0]):
        if hi[s] < hi[best] or (hi[s] == hi[best] and lo[s] < lo[best]):
            best = s
    return hi[best], lo[best], best


@njit(cache=True)
def _place(hi, lo, forward, cut, powers_hi, powers_lo, cell, value, sign):
    """Add (``sign`` 1) or take away (-1) a stone of ``value`` on ``cell`` in every image's codes."""
    for s in range(hi.shape[0]):
        i = forward[s, cell]
        if i < cut:
            d = np.uint64(value) * powers_hi[i]
            hi[s] = hi[s] + d if sign > 0 else hi[s] - d
        else:
            d = np.uint64(value) * powers_lo[i - cut]
            lo[s] = lo[s] + d if sign > 0 else lo[s] - d


@njit(cache=True)
def _hash(hi, lo, bits):
    h = (hi * np.uint64(0x9E3779B97F4A7C15)) ^ (lo * np.uint64(0xC2B2AE3D27D4EB4F))
    h ^= h >> np.uint64(29)
    return np.int64(h >> np.uint64(64 - bits))


@njit(cache=True)
def index(codes_hi, codes_lo):
    """An open-addressing index of the codes (slot + 1, 0 empty) with at least twice their number of rows, and
    its size in bits. (A binary search over tens of millions of codes costs a cache miss a step.)"""
    bits = 4
    while (1 << bits) < 2 * codes_lo.shape[0] + 2:
        bits += 1
    table = np.zeros(1 << bits, np.int32)
    mask = (1 << bits) - 1
    for k in range(codes_lo.shape[0]):
        h = _hash(codes_hi[k], codes_lo[k], bits)
        while table[h] != 0:
            h = (h + 1) & mask
        table[h] = k + 1
    return table, bits


@njit(cache=True)
def _slot(table, bits, codes_hi, codes_lo, hi, lo):
    """Where (hi, lo) is in the codes, or -1."""
    mask = (1 << bits) - 1
    h = _hash(hi, lo, bits)
    while table[h] != 0:
        k = table[h] - 1
        if codes_hi[k] == hi and codes_lo[k] == lo:
            return k
        h = (h + 1) & mask
    return -1


@njit(cache=True)
def linearise_tokens(board, bits, stones, turn, attacker, cells, groups, flanks, cell_groups, start, goal, images, cut,
                     powers_hi, powers_lo,
                     codes_hi, codes_lo, table, table_bits, values, pair_start, pair_cells, ring_rows, ring_lengths,
                     ring_state, ring_index, tokens, new_pairings):
    """Walk the memory (``codes_hi``/``codes_lo``, ``values`` their entries, ``table`` their :func:`index`) from the
    position
    (``board``, ``bits``, ``stones`` placed; ``groups``, ``flanks``, ``cell_groups``, ``start``, ``turn`` and
    ``goal`` the rules as :func:`kinarow.proofs.tree_kernel.rules` gives them), writing
    ``tokens`` and ``new_pairings`` (see the module docstring). The memory's pairing ``i`` is the pairs
    ``pair_cells[pair_start[i]:pair_start[i + 1]]`` (cell pairs in the canonical frame). ``ring_*`` is the
    cache of recent pairings (rows of pair masks; ``ring_state`` = [used, newest]) and ``ring_index`` each
    row's pairing number. Returns (status, tokens written, new pairings, positions written, leaves,
    defender moves, the stone count where a failure was found); ``board`` and ``bits`` hold that position
    on a failure."""
    one = np.uint64(1)
    done = np.zeros(values.shape[0], np.bool_)
    n_tokens = 0
    n_pairings = 0
    positions = 0
    leaves = 0
    defender_moves = 0
    # the stack: the cell played to reach each depth, and at an expanded node the next cell to try
    played = np.full(cells + 1, -1, np.int64)
    next_cell = np.full(cells + 1, -1, np.int64)
    depth = 0
    entering = True
    actual = np.zeros(cells, np.uint64)
    # every image's codes, kept up to date move by move (``forward[s, cell]`` is the cell's place in image s)
    nsym = images.shape[0]
    forward = np.zeros((nsym, cells), np.int64)
    image_hi = np.zeros(nsym, np.uint64)
    image_lo = np.zeros(nsym, np.uint64)
    for s in range(nsym):
        for i in range(cells):
            forward[s, images[s, i]] = i
    for c in range(cells):
        if board[c] != 0:
            _place(image_hi, image_lo, forward, cut, powers_hi, powers_lo, c, board[c], 1)
    while True:
        if entering:
            entering = False
            hi, lo, s = _least(image_hi, image_lo)
            slot = _slot(table, table_bits, codes_hi, codes_lo, hi, lo)
            if slot < 0:
                return NO_DEFENCE, n_tokens, n_pairings, positions, leaves, defender_moves, stones
            if done[slot]:
                next_cell[depth] = cells  # nothing to do here
            else:
                done[slot] = True
                positions += 1
                entry = values[slot]
                if entry == REFUTED or entry < EXPANDED:
                    return NO_DEFENCE, n_tokens, n_pairings, positions, leaves, defender_moves, stones
                if entry >= cells:
                    pid = entry - cells
                    M = bits[attacker]
                    B = bits[3 - attacker]
                    row = -1
                    if ring_state[0] > 0:
                        row = cached_pairing(groups, M, B, ring_rows, ring_lengths, ring_state[0], ring_state[1])
                    if row < 0:
                        n = 0
                        for j in range(pair_start[pid], pair_start[pid + 1]):
                            a = images[s, pair_cells[j, 0]]
                            b = images[s, pair_cells[j, 1]]
                            actual[n] = (one << np.uint64(a)) | (one << np.uint64(b))
                            n += 1
                        newest = (ring_state[1] + 1) % ring_rows.shape[0]
                        ring_state[1] = newest
                        ring_state[0] = min(ring_state[0] + 1, ring_rows.shape[0])
                        for j in range(n):
                            ring_rows[newest, j] = actual[j]
                        ring_lengths[newest] = n
                        row = newest
                        ring_index[row] = n_pairings
                        new_pairings[n_pairings, 0] = pid
                        new_pairings[n_pairings, 1] = s
                        n_pairings += 1
                    tokens[n_tokens] = -2 - ring_index[row]
                    n_tokens += 1
                    leaves += 1
                    next_cell[depth] = cells
                elif entry == EXPANDED:
                    tokens[n_tokens] = EXPAND_TOKEN
                    n_tokens += 1
                    next_cell[depth] = 0
                else:
                    cell = images[s, entry]
                    tokens[n_tokens] = cell
                    n_tokens += 1
                    defender_moves += 1
                    next_cell[depth] = -2 - cell  # one child: this cell, then done
        # the next child of the node at ``depth``, or back up
        nc = next_cell[depth]
        child = -1
        if nc <= -2:
            child = -2 - nc
            next_cell[depth] = cells
        elif nc < cells:
            c = nc
            while c < cells and board[c] != 0:
                c += 1
            if c < cells:
                child = c
                next_cell[depth] = c + 1
            else:
                next_cell[depth] = cells
        if child < 0:
            if depth == 0:
                return OK, n_tokens, n_pairings, positions, leaves, defender_moves, stones
            cell = played[depth]
            depth -= 1
            stones -= 1
            player = turn[stones]
            board[cell] = 0
            bits[player] &= ~(one << np.uint64(cell))
            _place(image_hi, image_lo, forward, cut, powers_hi, powers_lo, cell, player, -1)
            continue
        player = turn[stones]
        if board[child] != 0:
            return NO_DEFENCE, n_tokens, n_pairings, positions, leaves, defender_moves, stones
        board[child] = player
        bits[player] |= one << np.uint64(child)
        _place(image_hi, image_lo, forward, cut, powers_hi, powers_lo, child, player, 1)
        stones += 1
        depth += 1
        played[depth] = child
        result = outcome(bits[1], bits[2], child, player, stones, cells, groups, flanks, cell_groups, start, goal)
        if result == attacker:
            return LOSES, n_tokens, n_pairings, positions, leaves, defender_moves, stones
        if result != 0:
            next_cell[depth] = cells  # a finished game reads no token
        else:
            entering = True
