"""Numba kernel of the blocking-tree checker: the walk of :func:`kinarow.proofs.draw.check_tree` over bitboards.

It walks exactly what the Python walk walks, in the same order and by the
same rules, for boards of at most :data:`MAX_CELLS` cells (larger boards are
walked in Python). It imports nothing from the search code: the rules come
in as arrays (:func:`kinarow.proofs.tree_kernel.rules`), the symmetries are
the ones :class:`kinarow.proofs.draw.Canon` checked, and the tokens and
pairings are parsed in Python (:mod:`kinarow.proofs.draw`).

Bit layout
==========

A position is two ``uint64`` bitboards, ``bx`` (the first player's stones)
and ``bo`` (the second player's); bit ``c`` is cell ``c``, in the cell order
of :mod:`kinarow.geometry` (column-major, ``c = x * n + y``). For 4 x 3::

        a  b  c  d
    3 | 2  5  8 11
    2 | 1  4  7 10
    1 | 0  3  6  9       bits 12..63 are always 0

The certificate comes in as arrays:

    tokens[i]          token i of the walk: a cell 0..size-1 (a defender's
                       move), EXPAND (-1, '+'), LEAF - N (-2 - N, '=N'); a
                       move that names no cell is ``size``, a leaf whose
                       index is not in the list is LEAF - n_pairings
    pair_a[j], pair_b[j]   the two cells of pair j; pairing N is the pairs
                       pair_start[N] .. pair_start[N + 1] - 1
    pair_groups[a * size + b, w]   bit g % 64 of word w = g // 64 is set when
                       group g holds both a and b (the pair lies inside it)
    sym_bits[s, c]     the bit cell c goes to under symmetry s (a checked
                       symmetry maps cell c to cell s[c])

The walk keeps every image of the position as it goes: ``img_x[s]``,
``img_o[s]`` are (bx, bo) under symmetry s; a stone on c sets
``sym_bits[s, c]`` in each, and taking it back clears it.

A position's key is its least image under the checked symmetries, least
as the Python walk orders boards: cell by cell from cell 0, empty < first
player < second player (the first cell where two images differ, the lowest
set bit of ``(ax ^ bx) | (ao ^ bo)``, decides). So both walks take the same
image as the key, and two positions share a key in one walk exactly when
they share it in the other (whether or not the symmetries form a group: the
5 x 5 torus's list, for one, does not).
Proved positions are kept in an open-addressing table of ``(kx, ko + 1)``
word pairs (:func:`kinarow.proofs.tree_kernel.table_add`), sized from the
token count (each proved position reads one token, so twice the tokens keep
it at most half full) up to 2^24 slots (256 MiB); beyond that it grows
twofold when three quarters full, so a file of many tokens takes memory only as its
walk proves positions.

The walk is depth first with an explicit stack (one frame per stone):
``nxt[d]`` is the next attacker move to try at an expanded node, or -2 at a
defender's node whose named move is being followed; ``key_x[d]``,
``key_o[d]`` the node's key, added when the node is done.

``ctrl`` talks with the thread that waits for the walk: every 65,536 steps
the walk writes the positions proved so far to ``ctrl[0]`` and stops
(STOPPED) when ``ctrl[1]`` is not 0.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)
from kinarow.proofs.tree_kernel import outcome, table_add, table_has

#: the largest board the kernel walks (its bitboards are one word each)
MAX_CELLS = 64
EXPAND, LEAF = -1, -2  # token codes: '+', and '=N' as LEAF - N
# what the walk found
OK, WINS, TOKENS_END, EXPAND_AT_DEFENDER, BAD_LEAF, NOT_COVERED, MOVE_AT_ATTACKER, ILLEGAL, STOPPED = range(9)


#: the most slots the proved table starts with (two words each: 256 MiB)
START_SLOTS = 1 << 24


def table_slots(tokens: int) -> int:
    """Slots the proved table starts with for a walk of ``tokens`` tokens: a power of two at least twice as many
    (at least 2^10, at most :data:`START_SLOTS`)."""
    slots = 1 << 10
    while slots < 2 * tokens + 2 and slots < START_SLOTS:
        slots *= 2
    return slots


@njit(cache=True)
def _value(bx, bo, bit):
    """What the cell of ``bit`` holds: 0 empty, 1 the first player's stone, 2 the second's."""
    if bx & bit:
        return 1
    return 2 if bo & bit else 0


@njit(cache=True)
def set_images(bx, bo, sym_bits, img_x, img_o):
    """Fill ``img_x``, ``img_o`` with the images of (bx, bo) under each symmetry of ``sym_bits``."""
    one = np.uint64(1)
    for s in range(sym_bits.shape[0]):
        img_x[s] = 0
        img_o[s] = 0
        for c in range(sym_bits.shape[1]):
            if (bx >> np.uint64(c)) & one:
                img_x[s] |= sym_bits[s, c]
            elif (bo >> np.uint64(c)) & one:
                img_o[s] |= sym_bits[s, c]


@njit(cache=True)
def least_image(img_x, img_o):
    """The key of a position whose images are ``img_x``, ``img_o``: the least of them in the Python walk's order
    (see the module's notes)."""
    best_x, best_o = img_x[0], img_o[0]
    for s in range(1, img_x.shape[0]):
        ix, io = img_x[s], img_o[s]
        diff = (ix ^ best_x) | (io ^ best_o)
        if diff != 0:
            low = diff & (~diff + np.uint64(1))
            if _value(ix, io, low) < _value(best_x, best_o, low):
                best_x, best_o = ix, io
    return best_x, best_o


@njit(cache=True)
def _place(c, player, sym_bits, img_x, img_o):
    """Put ``player``'s stone on ``c`` in every image."""
    if player == 1:
        for s in range(sym_bits.shape[0]):
            img_x[s] |= sym_bits[s, c]
    else:
        for s in range(sym_bits.shape[0]):
            img_o[s] |= sym_bits[s, c]


@njit(cache=True)
def _put(bx, bo, c, player, sym_bits, img_x, img_o):
    """The boards after ``player``'s stone on ``c``, which goes into every image too."""
    bit = np.uint64(1) << np.uint64(c)
    if player == 1:
        bx |= bit
    else:
        bo |= bit
    _place(c, player, sym_bits, img_x, img_o)
    return bx, bo


@njit(cache=True)
def _lift(c, sym_bits, img_x, img_o):
    """Take the stone on ``c`` out of every image."""
    for s in range(sym_bits.shape[0]):
        img_x[s] &= ~sym_bits[s, c]
        img_o[s] &= ~sym_bits[s, c]


@njit(cache=True)
def covered(theirs, occupied, index, size, masks, pair_start, pair_a, pair_b, pair_groups, cover):
    """Does pairing ``index`` hold an empty pair inside every group that holds no stone of the defender
    (``theirs``)? ``cover`` is scratch room of one word per 64 groups."""
    one = np.uint64(1)
    words = pair_groups.shape[1]
    for w in range(words):
        cover[w] = 0
    for p in range(pair_start[index], pair_start[index + 1]):
        a, b = pair_a[p], pair_b[p]
        if (occupied >> np.uint64(a)) & one == 0 and (occupied >> np.uint64(b)) & one == 0:
            row = a * size + b
            for w in range(words):
                cover[w] |= pair_groups[row, w]
    for g in range(masks.shape[0]):
        if masks[g] & theirs == 0 and (cover[g >> 6] >> np.uint64(g & 63)) & one == 0:
            return False
    return True


@njit(cache=True, nogil=True)
def walk(bx, bo, stones, attacker, size, goal, masks, flanks, cell_groups, start, turn_player, tokens, n_pairings,
         pair_start, pair_a, pair_b, pair_groups, sym_bits, slots, line, ctrl):
    """Walk the blocking tree from (bx, bo), ``stones`` down, the game not over; ``attacker`` is 1 or 2.

    Returns ``(status, proved, leaves, depth, at)``: on failure ``line[:depth]``
    is the line of play from the start to the position that fails (for WINS
    the line that ends in the attacker's win) and ``at`` the index of the token
    it failed at (the token count for TOKENS_END).
    """
    one = np.uint64(1)
    defender = 3 - attacker
    table = np.zeros((slots, 2), np.uint64)
    used = 0
    leaves = 0
    read = 0
    n_tokens = tokens.shape[0]
    cover = np.zeros(pair_groups.shape[1], np.uint64)
    depth_max = size - stones + 1
    nxt = np.zeros(depth_max + 1, np.int64)
    res = np.zeros(depth_max + 1, np.int64)  # the result after the move that reached depth d
    key_x = np.zeros(depth_max + 1, np.uint64)
    key_o = np.zeros(depth_max + 1, np.uint64)
    img_x = np.zeros(sym_bits.shape[0], np.uint64)
    img_o = np.zeros(sym_bits.shape[0], np.uint64)
    set_images(bx, bo, sym_bits, img_x, img_o)
    steps = 0
    d = 0
    while True:
        steps += 1
        if steps & 0xFFFF == 0:
            ctrl[0] = used
            if ctrl[1] != 0:
                return STOPPED, used, leaves, d, read
        # the node at depth d, reached just now
        done = False
        t = stones + d
        if res[d] != 0:
            if res[d] == attacker:
                return WINS, used, leaves, d, read
            done = True
        else:
            kx, ko = least_image(img_x, img_o)
            if table_has(table, (kx, ko + one)):
                done = True
            elif read == n_tokens:
                return TOKENS_END, used, leaves, d, read
            else:
                token = np.int64(tokens[read])
                if token == EXPAND:
                    if turn_player[t] != attacker:
                        return EXPAND_AT_DEFENDER, used, leaves, d, read
                    read += 1
                    key_x[d], key_o[d] = kx, ko
                    nxt[d] = 0
                elif token <= LEAF:
                    index = LEAF - token
                    if index >= n_pairings:
                        return BAD_LEAF, used, leaves, d, read
                    theirs = bx if defender == 1 else bo
                    if not covered(theirs, bx | bo, index, size, masks, pair_start, pair_a, pair_b, pair_groups,
                                   cover):
                        return NOT_COVERED, used, leaves, d, read
                    read += 1
                    leaves += 1
                    table, used = table_add(table, used, (kx, ko + one))
                    done = True
                else:
                    if turn_player[t] != defender:
                        return MOVE_AT_ATTACKER, used, leaves, d, read
                    if token >= size or ((bx | bo) >> np.uint64(token)) & one:
                        return ILLEGAL, used, leaves, d, read
                    read += 1
                    key_x[d], key_o[d] = kx, ko
                    nxt[d] = -2
                    bx, bo = _put(bx, bo, token, defender, sym_bits, img_x, img_o)
                    line[d] = token
                    res[d + 1] = outcome(bx, bo, token, defender, t + 1, size, masks, flanks, cell_groups, start, goal)
                    d += 1
                    continue
        while True:  # at depth d: finish the node (done) or follow its next attacker move
            if done:
                if d == 0:
                    return OK, used, leaves, 0, read
                d -= 1
                bit = one << np.uint64(line[d])
                bx &= ~bit
                bo &= ~bit
                _lift(line[d], sym_bits, img_x, img_o)
                if nxt[d] == -2:  # the defender's node: its one move is proved
                    table, used = table_add(table, used, (key_x[d], key_o[d] + one))
                    continue
                done = False
            occupied = bx | bo
            c = nxt[d]
            while c < size and (occupied >> np.uint64(c)) & one:
                c += 1
            if c == size:
                table, used = table_add(table, used, (key_x[d], key_o[d] + one))
                done = True
                continue
            nxt[d] = c + 1
            bx, bo = _put(bx, bo, c, attacker, sym_bits, img_x, img_o)
            line[d] = c
            res[d + 1] = outcome(bx, bo, c, attacker, stones + d + 1, size, masks, flanks, cell_groups, start, goal)
            d += 1
            break
