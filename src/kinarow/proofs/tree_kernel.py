"""Numba kernel of the strategy checker: replay a winner's strategy against every reply, by the rules alone.

It does what :func:`kinarow.proofs.tree.check` does in Python, for boards of
up to 256 cells, and imports nothing from the search code. Its bitboard
primitives (:func:`push_stone`, :func:`pop_stone`, :func:`next_reply`, :func:`winning_stone`,
:func:`outcome`, :func:`pack`, :func:`new_table`, :func:`table_add`, :func:`table_has`) are public:
the strategy extractor in :mod:`kinarow.engine.extract_kernel` walks the same tree
with them, so the extractor and the checker cannot disagree on the rules, and
the blocking-tree walk of :mod:`kinarow.proofs.draw_kernel` reads results and
keeps proved positions with them.

Bit layout
==========

A position is two ``uint64`` bitboards, ``bx`` (Black / Maker, ``x`` in a
board key) and ``bo`` (White / Breaker, ``o``); bit ``c`` is cell ``c``, in
the cell order of :mod:`kinarow.geometry` (column-major, ``c = x * n + y``).
For 4 x 3::

        a  b  c  d
    3 | 2  5  8 11
    2 | 1  4  7 10
    1 | 0  3  6  9       bits 12..63 are always 0

The rules come in as arrays, whatever the board's shape:

    masks[g]                 the k cells of group g, as a bitmask
    flanks[g]                under the ``exact`` rule the cells that extend g's line (its owner must not
                             hold them: an overline does not win); ``flanks`` is None otherwise
    cell_groups[start[c]:start[c + 1]]   the groups through cell c
    turn_player[t]           1 or 2: who places stone t + 1 (t stones down)

The strategy's prescribed moves come in one of two forms (``mode``):

    DICT    the rows of ``keys`` (``(bx, bo)``, sorted) and ``cells`` (the
            move; -1 for a name that is no cell);
    STREAM  ``cells`` alone, the moves in the order the walk asks for them
            (a win on the spot is played with no entry); ``keys[i]`` is
            filled with the position of move i as it is read;
    ENCODE  DICT in, and ``out[i]`` filled with the STREAM form.
    ENCODE_FINGER  as ENCODE, but ``keys[i, 0]`` is the fingerprint of row i's
            position (:func:`finger`, sorted) and ``cells`` its move: a merge of
            hundreds of millions of moves keeps 9 bytes a move, not 40. Two
            positions with one fingerprint would be given one move; the replay
            then fails (an illegal move, a line the other player wins, a position
            with no row) or still wins, and the walk it writes is checked alone.

What the strategy claims (``claim``): CLAIM_WIN, every line ends in the
player's win; CLAIM_NOT_LOSE, no line ends in the other player's win (a draw
will do). The shortcut at the player's turn is the same in both: the first
cell that ends the game in the player's own win.

Positions already proven are kept in an open-addressing table (all but the
winner's wins on the spot: most positions of a strategy are such, and the win
test finds them again as fast as the table would, with no move read, so the
replay is the same whether they are kept or not), as one word
a position where the board allows it (``kind``, chosen by :func:`table_plan`):

    COLUMNS  a gravity board of m columns of n cells with m * (n + 1) <= 64:
             column x takes bits x * (n + 1) ..., holding ``1 << h`` (h its
             stones) plus its Black stones, so a column reads, bottom up,
             its colours and then a marker bit.  7 x 6: 49 bits.
    BASE3    at most 40 cells: 1 + sum of 3^c * (1 for Black, 2 for White);
             ``kt[j, b]`` is the sum of 3^(8j + i) over the bits i of byte b.
    WIDE     otherwise ``(bx, bo + 1)``, two words.

and on boards of more than 64 cells (two words a side) in base 3 by blocks of
40 cells, one word a block (3^40 < 2^64; 40 cells are five whole bytes, so
``kt[j, b]`` serves byte j of the 128-bit board, counted from 3^(8 (j mod 5))):

    BASE3_2  at most 80 cells (boards four high up to 20 wide): two words.
    BASE3_3  at most 120 cells: three words.
    WIDE2    otherwise ``(bx lo, bx hi, bo lo, bo hi + 1)``, four words.

and on boards of 129 to 256 cells (four words a side, :mod:`kinarow.bitboards`):

    WIDE4    ``(bx w0, bx w1, bx w2, bx w3, bo w0, bo w1, bo w2, bo w3 + 1)``,
             eight words.

Every word of a base-3 key is 1 + its block's value, so none is 0. The last
word of a WIDE2 or WIDE4 key is 0 only when White holds every cell of its
board's top word (cells 64..127 or 192..255, a board of exactly 128 or 256
cells); such a position is then never found proven, so the replay walks it
again: it costs moves, never a wrong verdict (and the extraction, keying
positions the same way, writes the walk that replay reads).

No used slot holds 0 in its last word. A walk's table (STREAM) starts with
room for about two kept positions a prescribed move (at three quarters full),
so that the table of a large walk seldom has to grow; but the count of moves
is the certificate's claim, and a walk of 200 million zero bytes (a few hundred
KB of zlib) must not take gigabytes before its second move is refused, so the
table starts with at most :data:`START_ROWS` slots and takes the size the claim
asks for only when it is full, that is once the replay has proven that many
positions for real. Any table grows twofold
when three quarters full: the old and the new table together hold three times the room
of the old (two-word tables grew fourfold when half full before: five times).

The walk is depth-first with an explicit stack (one frame per stone):
``nxt[d]`` is the next reply to try at a loser's node, or -2 at a winner's
node whose prescribed move is being followed.

``ctrl`` talks with the thread that waits for the walk: every 65,536 steps
the walk writes the positions proven so far to ``ctrl[0]`` and stops
(STOPPED) when ``ctrl[1]`` is not 0; ``ctrl[2]`` counts the winner's moves
read from the walk.

Shared replies (``covers``, STREAM only)
========================================

(In a walk of version 5, on a board of more than 128 cells, every number
below is two bytes and the flag ``SHARED_WIDE``, 32768, in place of
``SHARED``; the kernel reads it as an array of ``uint16``.)

A walk of version 4 may let several replies of the loser share one subtree.
A winner's move byte ``c | SHARED`` says that the loser's turn after ``c``
begins with its *sets*: a byte ``r`` (at least 1), then ``r`` times a count
byte ``m`` and ``m`` cells in increasing order, each empty and in no earlier
set of the turn (else BAD_SET): the set is those cells (``m`` at least 2),
or with ``m + SHARED`` every legal cell in no earlier set of the turn *but*
those listed (at least 2 left). When the walk starts at the loser's
turn, its first byte is the start's ``r`` (0 for none). Each set is replayed as
one position: all its cells the loser's at once, the winner to move; then every
legal reply outside the sets, as usual. Fewer stones of the loser never help
the loser (free placement, one stone a turn, the normal goal or Maker's win),
so a win there is a win after each single reply of the set.

The frame of a set holds all its cells (``line[d]`` is ``-1 - s`` for set s
of the node, its cells ``scell[d, sbeg[d, s]:sbeg[d, s + 1]]``); the turn
follows the frames (one a turn), the board's fullness the stones (``cnt``).
A position below a set has ``e`` stones of the loser more than its turn
accounts for; it is proven under ``(key, e)`` in a table of its own, as the
same board may be met with the other player to move at another ``e``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from kinarow import bitboards as W
from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)
from kinarow.values import Goal

OK, ENDS, NO_MOVE, ILLEGAL, STOPPED = 0, 1, 2, 3, 4  # what the walk found (ENDS: a line ends in another result)
BAD_SET = 5  # a walk's shared replies break the format's rules (see "Shared replies" above)
SHARED = 128  # a winner's move byte with this bit: the loser's turn after it reads its shared replies
SHARED_WIDE = 32768  # the same flag in a walk of two-byte numbers (version 5, boards of more than 128 cells)
DICT, STREAM, ENCODE, ENCODE_FINGER = 0, 1, 2, 3  # where the winner's moves come from (see above)
NORMAL, MISERE, MAKER_BREAKER = 0, 1, 2
#: the kernel's code of each goal
GOAL_CODES = {Goal.NORMAL: NORMAL, Goal.MISERE: MISERE, Goal.MAKER_BREAKER: MAKER_BREAKER}
FIRST, SECOND, DRAW = 1, 2, 3  # results; 0 while the game goes on
CLAIM_WIN, CLAIM_NOT_LOSE = 0, 1  # what the strategy claims for its player (see above)
#: the kernel's code of each ``outcome`` of :mod:`kinarow.proofs.tree`
CLAIM_CODES = {"win": CLAIM_WIN, "not-lose": CLAIM_NOT_LOSE}
WIDE, BASE3, COLUMNS, WIDE2 = 0, 1, 2, 3  # how a proven position is keyed (see above)
BASE3_2, BASE3_3, WIDE4 = 5, 6, 7  # (4 is the strategy walk's own fingerprint key, in kinarow.engine.extract_kernel)
BASE3_CELLS = 40  # 3^40 < 2^64
#: the most slots a walk's proven table starts with (128 MiB to 512 MiB, by the key's words); the size its claimed
#: moves ask for comes when this many are full, so its memory follows what the walk proves, not what it claims
START_ROWS = 1 << 24


def rules(game: Any) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray, np.ndarray, int]:
    """The rules of ``game`` as the kernel reads them: ``(masks, flanks, cell_groups, start, turn_player, goal)``."""
    geo = game.geometry
    start = np.zeros(geo.size + 1, np.int64)
    start[1:] = np.cumsum([len(row) for row in geo.cell_groups])
    cell_groups = np.array([g for row in geo.cell_groups for g in row], np.int64)
    masks = W.board_array(list(geo.group_masks), W.words_for_cells(geo.size))
    # None without the exact rule: the kernels are then compiled without the flank test (34 % of a check's time)
    flanks = W.board_array(list(geo.flank_masks), W.words_for_cells(geo.size)) if game.exact else None
    turn_player = np.array([game.turn_state(t)[0] for t in range(geo.size + 1)], np.int64)
    goal = GOAL_CODES[game.goal]
    return masks, flanks, cell_groups, start, turn_player, goal


def table_plan(size: int, n: int, gravity: bool) -> tuple[int, np.ndarray]:
    """How the proven table keys a position of a board of ``size`` cells in columns of ``n``: ``(kind, kt)``."""
    kt = np.zeros((1, 256), np.uint64)
    if size > 128:
        return WIDE4, kt
    if size > 3 * BASE3_CELLS:
        return WIDE2, kt
    if size > 64:
        kt = np.zeros(((size + 7) // 8, 256), np.uint64)
        for j in range(kt.shape[0]):
            for b in range(256):
                kt[j, b] = sum(3 ** (8 * (j % 5) + i) for i in range(8) if b >> i & 1 and 8 * j + i < size)
        return (BASE3_2 if size <= 2 * BASE3_CELLS else BASE3_3), kt
    if gravity and size % n == 0 and (size // n) * (n + 1) <= 64:
        return COLUMNS, kt
    if size > BASE3_CELLS:
        return WIDE, kt
    chunks = (size + 7) // 8
    kt = np.zeros((chunks, 256), np.uint64)
    for j in range(chunks):
        for b in range(256):
            kt[j, b] = sum(3 ** (8 * j + i) for i in range(8) if b >> i & 1 and 8 * j + i < size)
    return BASE3, kt




def board_keys(rows: np.ndarray, size: int) -> list[str]:
    """Board keys (``.`` empty, ``x`` Black, ``o`` White, cell by cell) of the bitboard rows ``rows``: Black's
    board then White's, one word each (two columns) or two (four columns, low word first)."""
    out: list[str] = []
    words = rows.shape[1] // 2
    shifts = np.arange(64, dtype=np.uint64)
    for lo in range(0, rows.shape[0], 1 << 18):
        chunk = rows[lo:lo + (1 << 18)]
        planes = []
        for side in range(2):
            bits = [(chunk[:, side * words + j:side * words + j + 1] >> shifts) & np.uint64(1) for j in range(words)]
            planes.append(np.concatenate(bits, axis=1)[:, :size])
        x, o = planes
        chars = (ord(".") + x * (ord("x") - ord(".")) + o * (ord("o") - ord("."))).astype(np.uint8)
        text = chars.tobytes().decode("ascii")
        out.extend(text[i:i + size] for i in range(0, len(text), size))
    return out


@njit(cache=True)
def outcome(bx, bo, c, player, stones, size, masks, flanks, cell_groups, start, goal):
    """The result once ``player`` has put a stone on ``c`` (``stones`` now down), as Position does."""
    own = bx if player == 1 else bo
    for i in range(start[c], start[c + 1]):
        g = cell_groups[i]
        mask = W.get1(masks, g)
        if W.eq(W.band(own, mask), mask):
            if flanks is not None:  # None without the exact rule: numba compiles this test away then
                if not W.is_zero(W.band(own, W.get1(flanks, g))):
                    continue  # the owner holds a cell that extends the line past k: an overline
            if goal == MISERE:
                return SECOND if player == 1 else FIRST
            if goal == MAKER_BREAKER:
                if player == 1:
                    return FIRST
                break
            return FIRST if player == 1 else SECOND
    if stones == size:
        return SECOND if goal == MAKER_BREAKER else DRAW
    return 0


@njit(cache=True)
def _legal(bx, bo, c, n, gravity):
    occupied = W.bor(bx, bo)
    if W.has(occupied, c):
        return False
    return not gravity or c % n == 0 or W.has(occupied, c - 1)  # under gravity: on a stone


@njit(cache=True)
def push_stone(bx, bo, c, player, t, d, line, res, size, masks, flanks, cell_groups, start, goal):
    """``player`` puts stone t + 1 on ``c``, the move from depth d: noted in ``line[d]``, its result in
    ``res[d + 1]``; returns the new bitboards."""
    bit = W.bit(c, bx)
    if player == 1:
        bx = W.bor(bx, bit)
    else:
        bo = W.bor(bo, bit)
    line[d] = c
    res[d + 1] = outcome(bx, bo, c, player, t + 1, size, masks, flanks, cell_groups, start, goal)
    return bx, bo


@njit(cache=True)
def next_reply(bx, bo, c, size, n, gravity):
    """The first legal cell from ``c`` on, or ``size`` when there is none."""
    while c < size and not _legal(bx, bo, c, n, gravity):
        c += 1
    return c


@njit(cache=True)
def pop_stone(bx, bo, c):
    """Take the stone on ``c`` back."""
    bit = W.bit(c, bx)
    return W.andnot(bx, bit), W.andnot(bo, bit)


@njit(cache=True)
def _find(keys, bx, bo):
    """Row of (bx, bo) in the sorted ``keys`` (each row the two boards, word by word), or -1."""
    w = W.nwords(bx)
    lo, hi = 0, keys.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        kx, ko = W.row_get(keys, mid, 0, bx), W.row_get(keys, mid, w, bo)
        if W.less(kx, bx) or (W.eq(kx, bx) and W.less(ko, bo)):
            lo = mid + 1
        else:
            hi = mid
    if lo < keys.shape[0] and W.eq(W.row_get(keys, lo, 0, bx), bx) and W.eq(W.row_get(keys, lo, w, bo), bo):
        return lo
    return -1


@njit(cache=True)
def _note(keys, row, bx, bo):
    """Write (bx, bo) as row ``row`` of ``keys``."""
    W.row_put(keys, row, 0, bx)
    W.row_put(keys, row, W.nwords(bx), bo)


@njit(cache=True, inline="always")
def mix64(x):  # type: ignore[no-untyped-def]
    """A 64-bit finaliser (every input bit moves every output bit)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def finger(bx, bo):  # type: ignore[no-untyped-def]
    """A 64-bit fingerprint of the position (bx, bo), never 0 (ENCODE_FINGER's keys)."""
    if isinstance(bx, tuple) and isinstance(bx[0], tuple):  # compiled: by_form below
        return _finger_four(bx, bo)
    return (_finger_two if isinstance(bx, tuple) else _finger_one)(bx, bo)


def _finger_one(bx, bo):  # type: ignore[no-untyped-def]
    h = mix64(mix64(np.uint64(0x243F6A8885A308D3) ^ bx) ^ bo)
    return h if h != np.uint64(0) else np.uint64(1)


def _finger_two(bx, bo):  # type: ignore[no-untyped-def]
    h = np.uint64(0x243F6A8885A308D3)
    for w in (bx[0], bx[1], bo[0], bo[1]):
        h = mix64(h ^ w)
    return h if h != np.uint64(0) else np.uint64(1)


def _finger_four(bx, bo):  # type: ignore[no-untyped-def]
    h = np.uint64(0x243F6A8885A308D3)
    for w in (bx[0][0], bx[0][1], bx[1][0], bx[1][1], bo[0][0], bo[0][1], bo[1][0], bo[1][1]):
        h = mix64(h ^ w)
    return h if h != np.uint64(0) else np.uint64(1)


W.by_form(finger, _finger_one, _finger_two, _finger_four)


@njit(cache=True)
def _find_finger(keys, h):
    """Row of the fingerprint ``h`` in the sorted ``keys[:, 0]``, or -1."""
    lo, hi = 0, keys.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid, 0] < h:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < keys.shape[0] and keys[lo, 0] == h else -1


def pack(bx, bo, kind, size, n, kt):  # type: ignore[no-untyped-def]
    """The table key of (bx, bo): two words, the second 0 for a one-word key (see the module's notes); four
    words on a board of more than 64 cells, the unused ones 0 (BASE3_2, BASE3_3; WIDE2 uses all four); eight
    on a board of more than 128 (WIDE4)."""
    if isinstance(bx, tuple) and isinstance(bx[0], tuple):  # compiled: by_form below
        return _pack_four(bx, bo, kind, size, n, kt)
    return (_pack_two if isinstance(bx, tuple) else _pack_one)(bx, bo, kind, size, n, kt)


def _pack_four(bx, bo, kind, size, n, kt):  # type: ignore[no-untyped-def]
    return bx[0][0], bx[0][1], bx[1][0], bx[1][1], bo[0][0], bo[0][1], bo[1][0], bo[1][1] + np.uint64(1)


def _pack_two(bx, bo, kind, size, n, kt):  # type: ignore[no-untyped-def]
    if kind != BASE3_2 and kind != BASE3_3:
        return bx[0], bx[1], bo[0], bo[1] + np.uint64(1)
    one, byte = np.uint64(1), np.uint64(255)
    k0, k1, k2 = one, one, one
    for j in range(kt.shape[0]):
        s = np.uint64(8 * (j % 8))
        wx, wo = (bx[0], bo[0]) if j < 8 else (bx[1], bo[1])
        v = kt[j, (wx >> s) & byte] + np.uint64(2) * kt[j, (wo >> s) & byte]
        if j < 5:
            k0 += v
        elif j < 10:
            k1 += v
        else:
            k2 += v
    return k0, k1, (k2 if kind == BASE3_3 else np.uint64(0)), np.uint64(0)


def _pack_one(bx, bo, kind, size, n, kt):  # type: ignore[no-untyped-def]
    zero = np.uint64(0)
    if kind == WIDE:
        return bx, bo + np.uint64(1)
    if kind == COLUMNS:
        full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
        k = zero
        for x in range(size // n):
            col_x = (bx >> np.uint64(x * n)) & full
            col_all = ((bx | bo) >> np.uint64(x * n)) & full
            k |= (col_x + col_all + np.uint64(1)) << np.uint64(x * (n + 1))
        return k, zero
    k = np.uint64(1)
    for j in range(kt.shape[0]):
        s = np.uint64(8 * j)
        k += kt[j, (bx >> s) & np.uint64(255)] + np.uint64(2) * kt[j, (bo >> s) & np.uint64(255)]
    return k, zero


W.by_form(pack, _pack_one, _pack_two, _pack_four)


@njit(cache=True)
def new_table(kind, rows=1 << 16):
    """An empty proven table of ``rows`` slots (a power of two) for keys of ``kind``: one word a slot, two for
    WIDE and BASE3_2, three for BASE3_3, four for WIDE2, eight for WIDE4."""
    w = 1
    if kind == WIDE4:
        w = 8
    elif kind == WIDE2:
        w = 4
    elif kind == BASE3_3:
        w = 3
    elif kind == WIDE or kind == BASE3_2:  # noqa: SIM109 (compiled: an equality a kind)
        w = 2
    return np.zeros((rows, w), np.uint64)


_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9),
        np.uint64(0xD6E8FEB86659FD93), np.uint64(0xA0761D6478BD642F), np.uint64(0xE7037ED1A0B428DB),
        np.uint64(0x8EBC6AF09C88C6E3), np.uint64(0x589965CC75374CC3), np.uint64(0x1D8E4E27C47D124F))
# (the word after a key's last, the fifth for a two-word board's, the ninth for a four-word board's: a shared-reply
# key's e)


@njit(cache=True)
def _start_slot(table, h):
    mask = np.uint64(table.shape[0] - 1)
    return (h ^ (h >> np.uint64(29))) & mask


@njit(cache=True, inline="always")
def _hash(key):
    """The mixed words of a key (2 words from :func:`pack` on one-word boards, 4 on two-word ones, 8 on four-word
    ones; one more with a shared-reply key's e)."""
    h = (key[0] * np.uint64(0x9E3779B97F4A7C15)) ^ (key[1] * np.uint64(0xC2B2AE3D27D4EB4F))
    for j in range(2, len(key)):  # no step for two words
        h ^= key[j] * _MIX[j]
    return h


@njit(cache=True)
def _slot(table, key):
    """The slot of ``key`` (from :func:`pack`: its first ``table.shape[1]`` words count, the others are 0) in
    a proven table: its own, or the empty one where it would go."""
    mask = np.uint64(table.shape[0] - 1)
    i = _start_slot(table, _hash(key))
    w = table.shape[1]
    if w == 1:
        while table[i, 0] != 0 and table[i, 0] != key[0]:
            i = (i + np.uint64(1)) & mask
        return i
    if w == 2:
        while table[i, 1] != 0 and not (table[i, 0] == key[0] and table[i, 1] == key[1]):
            i = (i + np.uint64(1)) & mask
        return i
    while table[i, w - 1] != 0:
        same = True
        for j in range(w):
            same = same and table[i, j] == key[j]
        if same:
            break
        i = (i + np.uint64(1)) & mask
    return i


@njit(cache=True)
def table_add(table, used, key):
    """Mark ``key`` proven; return the table (a new one when it had to grow) and the count."""
    w = table.shape[1]
    i = _slot(table, key)
    if table[i, w - 1] != 0:
        return table, used
    for j in range(w):
        table[i, j] = key[j]
    used += 1
    if 4 * used > 3 * table.shape[0]:  # three quarters full: twice the slots (the old and new: 3 units at most)
        table = rehashed(table, 2 * table.shape[0])
    return table, used


@njit(cache=True)
def rehashed(table, rows):
    """The keys of ``table`` in a new table of ``rows`` slots (a power of two, more than the keys)."""
    w = table.shape[1]
    bigger = np.zeros((rows, w), np.uint64)
    mask = np.uint64(rows - 1)
    for r in range(table.shape[0]):
        if table[r, w - 1] != 0:
            h = np.uint64(0)
            for j in range(w):
                h ^= table[r, j] * _MIX[j]
            s = _start_slot(bigger, h)
            while bigger[s, w - 1] != 0:
                s = (s + np.uint64(1)) & mask
            for j in range(w):
                bigger[s, j] = table[r, j]
    return bigger


@njit(cache=True)
def _room(table, used, target):
    """``table``, or the same keys in ``target`` slots when it is about to grow and ``target`` is larger: a
    walk's table, started at no more than START_ROWS, grows at once to the size its claimed moves ask for once
    the walk has proven that many positions for real."""
    if 4 * (used + 1) > 3 * table.shape[0] and table.shape[0] < target:
        return rehashed(table, target)
    return table


@njit(cache=True)
def table_has(table, key):
    return table[_slot(table, key), table.shape[1] - 1] != 0


@njit(cache=True)
def winning_stone(bx, bo, player, stones, size, n, gravity, masks, flanks, cell_groups, start, goal, winner):
    """The first cell where ``player`` (to move) ends the game with result ``winner`` at once, or -1."""
    own = bx if player == 1 else bo
    other = bo if player == 1 else bx
    candidates = W.zero(bx)
    for g in range(masks.shape[0]):
        mask = W.get1(masks, g)
        rest = W.andnot(mask, own)
        if W.is_zero(W.band(mask, other)) and not W.is_zero(rest) and W.single(rest):
            candidates = W.bor(candidates, rest)
    if stones == size - 1:
        occupied = W.bor(bx, bo)
        for c in range(size):
            if not W.has(occupied, c):
                candidates = W.bor(candidates, W.bit(c, bx))
                break
    for c in range(size):
        if W.has(candidates, c) and _legal(bx, bo, c, n, gravity):
            bit = W.bit(c, bx)
            nx = W.bor(bx, bit) if player == 1 else bx
            no = W.bor(bo, bit) if player == 2 else bo
            if outcome(nx, no, c, player, stones + 1, size, masks, flanks, cell_groups, start, goal) == winner:
                return c
    return -1


@njit(cache=True)
def _proven(table, ctable, key, e):
    """Is the position of ``key``, with ``e`` stones of the loser beyond its turns, proven?"""
    if e == 0:
        return table_has(table, key)
    return table_has(ctable, (*key, np.uint64(e)))


@njit(cache=True)
def _prove(table, used, ctable, cused, key, e):
    """Mark the position of ``key`` (``e`` as in :func:`_proven`) proven: ``(table, used, ctable, cused)``."""
    if e == 0:
        table, used = table_add(table, used, key)
    else:
        ctable, cused = table_add(ctable, cused, (*key, np.uint64(e)))
    return table, used, ctable, cused


@njit(cache=True)
def _read_sets(bx, bo, d, cells, read, size, n, gravity, scell, sbeg, smask, root, flag):
    """Read the sets of the loser's node at depth ``d`` from ``cells[read:]`` (see "Shared replies"):
    ``(status, read, count)``; status OK, NO_MOVE (the walk ends) or BAD_SET."""
    if read == cells.shape[0]:
        return NO_MOVE, read, 0
    r = np.int64(cells[read])
    read += 1
    if r == 0 and not root:
        return BAD_SET, read, 0
    taken = W.zero(bx)
    k = 0
    for s in range(r):
        if read == cells.shape[0]:
            return NO_MOVE, read, 0
        m = np.int64(cells[read])
        read += 1
        but = m >= flag  # the set is every reply left but the cells listed
        if but:
            m -= flag
        if (m < 2 and not but) or s >= size:
            return BAD_SET, read, 0
        sbeg[d, s] = k
        prev = -1
        listed = W.zero(bx)
        for _ in range(m):
            if read == cells.shape[0]:
                return NO_MOVE, read, 0
            c = np.int64(cells[read])
            read += 1
            if c <= prev or c >= size or not _legal(bx, bo, c, n, gravity) or W.has(taken, c):
                return BAD_SET, read, 0
            listed = W.bor(listed, W.bit(c, bx))
            prev = c
        if but:
            listed = W.bor(listed, taken)  # the set: the legal cells in neither
            first = k
            for c in range(size):
                if not W.has(listed, c) and _legal(bx, bo, c, n, gravity):
                    scell[d, k] = c
                    k += 1
            if k - first < 2:
                return BAD_SET, read, 0
            for i in range(first, k):
                taken = W.bor(taken, W.bit(scell[d, i], bx))
        else:
            for c in range(size):
                if W.has(listed, c):
                    scell[d, k] = c
                    k += 1
            taken = W.bor(taken, listed)
    sbeg[d, r] = k
    W.row_put(smask, d, 0, taken)
    return OK, read, r


@njit(cache=True, nogil=True)
def check(bx, bo, stones, winner, size, n, gravity, goal, masks, flanks, cell_groups, start, turn_player,
          keys, cells, line, reached, mode, out, ctrl, kind, kt, claim, covers, scell, sbeg):
    """Replay the strategy from (bx, bo) with ``stones`` down; ``winner`` is FIRST or SECOND, the player who
    follows it, and ``claim`` what it claims for that player (CLAIM_WIN or CLAIM_NOT_LOSE).

    ``reached[j]`` is set to 1 for each row of ``keys`` that play reaches (DICT, ENCODE).
    In STREAM mode ``keys`` may have no rows: then the positions are not noted.
    ``kind`` and ``kt`` say how the proven table keys a position (:func:`table_plan`).
    ``covers`` (STREAM, a walk of version 4 or 5): the walk has shared replies, read into ``scell`` and ``sbeg``
    (one row a depth, ``size`` and ``size + 1`` columns; see "Shared replies"), and its flag is ``covers``
    (SHARED for a walk of bytes, SHARED_WIDE for one of two-byte numbers; 0: no shared replies).

    Returns ``(status, positions checked, depth, moves read)`` (the proven positions kept, and the wins on the
    spot each time one is met; ``ctrl[0]`` reports the same count; "moves read" are the walk's bytes): on
    failure ``line[:depth]`` is the line of play from the start position that fails
    (for ILLEGAL, the prescribed cell is ``line[depth]``).
    """
    target = 1 << 16
    if mode == STREAM:  # about two kept positions a prescribed move: a large walk's table seldom grows
        while 3 * target < 8 * cells.shape[0]:
            target <<= 1
    table = new_table(kind, min(target, START_ROWS))  # the count is only claimed: more once positions are proven
    used = 0
    key0 = pack(bx, bo, kind, size, n, kt)
    ctable = np.zeros((1 << 10 if covers else 1, len(key0) + 1), np.uint64)  # positions below a set
    cused = 0
    spot = 0  # wins on the spot met (not kept)
    read = 0
    moves = 0
    note_keys = keys.shape[0] > 0
    steps = 0
    depth_max = size - stones + 1
    nxt = np.zeros(depth_max + 1, np.int64)
    res = np.zeros(depth_max + 1, np.int64)  # the result after the move that reached depth d
    pend = np.zeros(depth_max + 1, np.int64)  # 1: the loser's node at depth d reads its sets
    nsets = np.zeros(depth_max + 1, np.int64)  # sets of the loser's node at depth d, and the next to replay
    snext = np.zeros(depth_max + 1, np.int64)
    cur = np.full(depth_max + 1, -1, np.int64)  # the set replayed from depth d, or -1 for one stone
    smask = np.zeros((depth_max + 1, W.nwords(bx)), np.uint64)  # the cells of the sets at depth d
    cnt = stones  # stones on the board (more than stones + d below a set)
    pend[0] = 1 if covers else 0
    d = 0
    while True:
        steps += 1
        if steps & 0xFFFF == 0:
            ctrl[0] = used + cused + spot
            ctrl[2] = moves
            if ctrl[1] != 0:
                return STOPPED, used + cused + spot, d, read
        done = False
        # the node at depth d, reached just now
        t = stones + d
        e = cnt - t
        mine = turn_player[t] == winner
        # DICT: the row of a move named here (version 1 names wins on the spot too, and such a move is followed)
        j = _find(keys, bx, bo) if mine and mode == DICT and res[d] == 0 else -1
        if res[d] != 0:
            if res[d] != winner and (claim == CLAIM_WIN or res[d] == 3 - winner):
                return ENDS, used + cused + spot, d, read
            done = True
        elif mine and j < 0 and winning_stone(bx, bo, winner, cnt, size, n, gravity, masks, flanks, cell_groups, start,
                                              goal, winner) >= 0:
            # a win on the spot (tested first: most positions are such), never kept in the table: it is found
            # again at once, with no move read
            spot += 1
            done = True
        elif _proven(table, ctable, pack(bx, bo, kind, size, n, kt), e):
            done = True
        elif mine:
            shared = 0
            if mode == STREAM:
                if read == cells.shape[0]:
                    ctrl[2] = moves
                    return NO_MOVE, used + cused + spot, d, read
                if note_keys:
                    _note(keys, read, bx, bo)
                c = np.int64(cells[read])
                read += 1
                moves += 1
                if covers and c >= covers:
                    c -= covers
                    shared = 1
            else:
                if mode == ENCODE:
                    j = _find(keys, bx, bo)
                elif mode == ENCODE_FINGER:
                    j = _find_finger(keys, finger(bx, bo))
                if j < 0:
                    return NO_MOVE, used + cused + spot, d, read
                reached[j] = 1
                c = np.int64(cells[j])
                if mode != DICT:
                    out[read] = c
                    read += 1
            if c < 0 or c >= size or not _legal(bx, bo, c, n, gravity):
                line[d] = c
                ctrl[2] = moves
                return ILLEGAL, used + cused + spot, d, read
            nxt[d] = -2
            cur[d] = -1
            bx, bo = push_stone(bx, bo, c, winner, cnt, d, line, res, size, masks, flanks, cell_groups, start, goal)
            cnt += 1
            d += 1
            pend[d] = shared
            continue
        else:
            nxt[d] = 0
            nsets[d] = 0
            snext[d] = 0
            if pend[d] != 0:
                status, read, r = _read_sets(bx, bo, d, cells, read, size, n, gravity, scell, sbeg, smask, d == 0,
                                             covers)
                if status != OK:
                    ctrl[2] = moves
                    return status, used + cused + spot, d, read
                nsets[d] = r
        while True:  # at depth d: finish the node (done) or try its next reply
            if done:
                if d == 0:
                    ctrl[2] = moves
                    return OK, used + cused + spot, 0, read
                d -= 1
                if cur[d] < 0:
                    bx, bo = pop_stone(bx, bo, line[d])
                    cnt -= 1
                else:
                    s = cur[d]
                    for i in range(sbeg[d, s], sbeg[d, s + 1]):
                        bx, bo = pop_stone(bx, bo, scell[d, i])
                    cnt -= sbeg[d, s + 1] - sbeg[d, s]
                if nxt[d] == -2:  # the winner's node: its one move is proven
                    table = _room(table, used, target)
                    table, used, ctable, cused = _prove(table, used, ctable, cused,
                                                        pack(bx, bo, kind, size, n, kt), cnt - stones - d)
                    continue
                done = False
            t = stones + d
            loser = turn_player[t]
            if snext[d] < nsets[d]:  # the next set: all its cells the loser's at once, the winner to move
                s = snext[d]
                snext[d] = s + 1
                cur[d] = s
                for i in range(sbeg[d, s], sbeg[d, s + 1]):
                    c = scell[d, i]
                    if loser == 1:
                        bx = W.bor(bx, W.bit(c, bx))
                    else:
                        bo = W.bor(bo, W.bit(c, bx))
                cnt += sbeg[d, s + 1] - sbeg[d, s]
                r = 0
                for i in range(sbeg[d, s], sbeg[d, s + 1]):  # a line of the loser first, else a full board
                    r = outcome(bx, bo, scell[d, i], loser, cnt, size, masks, flanks, cell_groups, start, goal)
                    if r != 0 and r != DRAW and not (goal == MAKER_BREAKER and r == SECOND):
                        break
                res[d + 1] = r
                line[d] = -1 - s
                d += 1
                pend[d] = 0
                break
            c = next_reply(bx, bo, nxt[d], size, n, gravity)
            if nsets[d] > 0:
                skip = W.row_get(smask, d, 0, bx)
                while c < size and W.has(skip, c):
                    c = next_reply(bx, bo, c + 1, size, n, gravity)
            if c == size:
                table = _room(table, used, target)
                table, used, ctable, cused = _prove(table, used, ctable, cused, pack(bx, bo, kind, size, n, kt),
                                                    cnt - t)
                done = True
                continue
            nxt[d] = c + 1
            cur[d] = -1
            bx, bo = push_stone(bx, bo, c, loser, cnt, d, line, res, size, masks, flanks, cell_groups, start, goal)
            cnt += 1
            d += 1
            pend[d] = 0
            break
