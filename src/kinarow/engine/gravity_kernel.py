"""The Connect-k kernel: exact scores (who wins, and on which move) for gravity games, compiled with numba.

It serves one family of games: gravity, a rectangular board that does not wrap, the normal goal (the first
to complete k in a row wins), one stone a turn, and ``m * (n + 1) <= 128``, at most 16 columns. Other
games go to the general kernel (:mod:`kinarow.engine.kernel`). The kernel is written once over the board
operations of :mod:`kinarow.bitboards` and compiled in two forms: one word for ``m * (n + 1) <= 64`` (7 x 6,
8 x 7) and a pair of words up to 128 (13 x 4, 12 x 5, 11 x 6, 10 x 7, 9 x 8 and every board of the published
table past 64 bits). On a board that both forms hold they search the same nodes.

Bit layout
==========

Two ``uint64`` words describe a position: ``cur``, the stones of the side to move, and ``mask``, every
stone. Bit ``x * H + y`` is the cell in column ``x`` (from the left) and row ``y`` (from the bottom), where
``H = n + 1``: each column has one spare bit on top, never set, so that a shift along a line that leaves a
column lands on a spare bit instead of on the next column. For 7 x 6 (``H = 7``, 49 bits used)::

          a  b  c  d  e  f  g
    spare 6 13 20 27 34 41 48
      6 | 5 12 19 26 33 40 47
      5 | 4 11 18 25 32 39 46
      4 | 3 10 17 24 31 38 45
      3 | 2  9 16 23 30 37 44
      2 | 1  8 15 22 29 36 43
      1 | 0  7 14 21 28 35 42     bits 49..63 are always 0

Past 64 bits a board is a pair ``(lo, hi)``: bit ``b`` of the layout is bit ``b`` of ``lo`` when ``b < 64``,
else bit ``b - 64`` of ``hi``, so a column may straddle the two words. For 13 x 4 (``H = 5``, 65 bits)::

          a  b  c ...  l   m
    spare 4  9 14 ... 59   0 (hi)
      4 | 3  8 13 ... 58  63
      3 | 2  7 12 ... 57  62      lo: bits 0..63
      2 | 1  6 11 ... 56  61      hi: bit 0 the spare bit of column m,
      1 | 0  5 10 ... 55  60          bits 1..63 always 0

Shifts carry bits across the words (:func:`kinarow.bitboards.shl`, :func:`~kinarow.bitboards.shr`) and so does
the addition that finds the playable cells (:func:`~kinarow.bitboards.add`).

A step along a line moves a bit by ``1`` (up), ``H`` (right), ``H + 1`` (up-right) or ``H - 1``
(down-right). ``board`` has every real cell's bit, ``bottom`` each column's lowest bit, so
``(mask + bottom) & board`` is the playable cell of every column that is not full, and
``cur | (mask + bottom)`` is a unique key of the position (``mask + bottom`` marks the first empty cell of
each column, ``cur``'s bits lie below it).

Scores
======

A score is from the side to move: a win whose last stone is the ``L``-th stone of the game (counting every
stone from the first) scores ``cells + 1 - L`` (sooner is higher), a loss the negative of the opponent's
win score, a draw 0. So the score says the value and the game's length with perfect play: the winner ends
as soon as it can, the loser as late as it can. :func:`negamax` answers "is the score above ``alpha`` /
below ``beta``?" with the usual alpha-beta contract (a value <= alpha is an upper bound, >= beta a lower
bound, between them exact); :func:`solve_score` narrows a null window until the score is exact.

Transposition table
===================

A ``(size, 2)`` ``uint64`` array: ``tt[i, 0]`` holds a position's key XOR its entry and ``tt[i, 1]`` the
entry (a bucket's two slots share one cache line), so that an entry whose two words were written by different
searches (threads racing) fails the key test instead of answering for the wrong position. On two-word boards
the table is ``(size, 3)``: ``tt[i, 0]`` and ``tt[i, 1]`` the key's low and high words each XOR the entry,
``tt[i, 2]`` the entry::

    tt[i, 1] bits 0-7   lower bound + 128     bits 8-15  upper bound + 128
             bits 16-23 best column + 1 (0: none)   bits 24-31 work   bits 32-63 generation

Two slots make a bucket: an entry goes to the first unless the first holds an entry that took more work to
find (the bit length of its subtree's node count, as c4 keeps the costlier entry), then to the second,
which is always replaced.

An entry of another generation than ``ctrl[G_GEN]`` reads as empty, so a new generation is a new table
without clearing one.

Each search starts with the bounds every score has (``-cells .. cells``) and narrows them from the entry.

How the search saves work (ideas from the field's Connect Four solvers, written here from their published
descriptions: Pons' tutorial and Steininger's c4): an immediate win is scored at once; a threat of the
opponent's that is playable must be blocked (two such threats lose); a move directly below an opponent's
threat is never played; the score is bounded by the number of stones left before any child is searched;
a side with no line left among its stones and the empty cells cannot win; a move that wins on the mover's
next stone whatever the answer is scored at once, and when there is none the earliest win is two stones
later; the children's table buckets are fetched early (a prefetch) and their entries probed before any
child is searched (enhanced transposition cutoffs), and a child whose entry shows that its move cannot
raise alpha is not searched at all; a move after which the opponent has an even number of empty cells is
scored at once when our follow-up (below) there bounds the opponent enough to cut; and moves are tried in
the order of the threats they create (those that become playable after one more stone counted twice, those
right above an opponent's threat not at all), central columns first on ties. :func:`solve_score` asks "a
draw or better?" first, then steps out from the draw in doubling steps (the common scores are long games),
then halves the window.

The follow-up bound (Allis' claimeven; the odd columns paired as in Steininger's c4)
===================================================================================

Call a column *odd* when it has an odd number of empty cells, and the *off rows* the top row and every
second row below it (rows 2, 4, 6 from the bottom on a board of height 6). When the number of empty
cells is even, so is the number of odd columns, and the side NOT to move can keep this true after each of
its stones: when its opponent plays in a column that had an even number of empty cells, it answers on top
of that stone, in the same column; when its opponent plays in an odd column, it answers in another odd
column (there is one: their number was even). Then every empty cell on an off row that is not playable
now becomes its own (in a column with an even number of empty cells the cells pair up from the playable
one, the off row cell the upper of each pair; in an odd column the same holds above the playable cell),
and the side to move gets at most the other empty cells. So:

* if the side to move has no line among its stones and those other cells, it never wins: score <= 0;
* if moreover the opponent has a line among its stones and its claimed cells, the opponent wins, at the
  latest when the last of that line's cells is filled. Take the line whose highest empty cell is lowest
  (row ``r``, from 0): when its last cell is filled, the cells above row ``r`` in that cell's column are
  still empty, so the game ends on stone ``cells - (n - 1 - r)`` or earlier (an opponent's stone: the
  same parity as ``t``), and the score is at most that loss.

Both are upper bounds on the exact score (value and length), checked against exhaustive minimax on boards
of height 3 to 6.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kinarow import bitboards as W
from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)
from kinarow.engine.prefetch import prefetch_row

U0 = np.uint64(0)
#: the children's table entries are probed before any child is searched (enhanced cutoffs) only while more
#: cells than this are empty (near the end of the game a probe, a read from memory, costs more than it saves)
ETC_EMPTY = 8
#: the children's buckets are asked for early (a prefetch) while more cells than this are empty
PREFETCH_EMPTY = 4
MAX_COLS = 16
#: move ordering weights: threats playable at once, playable after one more stone, all threats, threats on the
#: mover's rows (odd for the first player)
W_PLAY, W_NEXT, W_ALL, W_PARITY = 0, 2, 1, 0

# ctrl indices (G_PROBED: the nodes that reached the table, past the checks that score a position without
# search -- the count c4 reports, which scores such positions before it enters them)
G_NODES, G_STOP, G_MAX_NODES, G_ABORTED, G_GEN, G_ROOT_T, G_MOVE, G_MOVE_SCORE, G_PROBED = range(9)
N_GCTRL = 9
#: several threads share ``busy`` (2^BUSY_BITS keys of positions being searched) in the first third of the
#: game (deeper, the writes to the shared array cost more than the work they save; see negamax)
BUSY_BITS = 16
ABORT_SCORE = 1000
#: a move list's mark for a move not to search (see negamax)
SKIP = -(1 << 40)


@njit(cache=True, inline="always")
def shift_down(x, d):
    """``x >> d`` for a shift that may reach the board's width (then empty)."""
    return W.shr(x, d)


@njit(cache=True, inline="always")
def shift_up(x, d):
    """``x << d`` for a shift that may reach the board's width (then empty)."""
    return W.shl(x, d)


@njit(cache=True, inline="always")
def win_cells(pos, mask, k, steps, board):
    """The empty cells where one more stone of ``pos`` completes k in a row (``steps``: the four directions'
    bit steps). Along each direction a cell wins when ``a`` stones of ``pos`` follow it and ``k - 1 - a``
    precede it, for some ``a``."""
    out = W.zero(pos)
    for di in range(4):
        s = steps[di]
        if k == 4:  # the common case, with shared products: 6 shifts a direction
            b1 = shift_up(pos, s)
            b2 = W.band(b1, shift_up(pos, 2 * s))
            a1 = shift_down(pos, s)
            a2 = W.band(a1, shift_down(pos, 2 * s))
            out = W.bor(out, W.bor(W.bor(W.band(b2, shift_up(pos, 3 * s)), W.band(b2, a1)),
                                   W.bor(W.band(a2, b1), W.band(a2, shift_down(pos, 3 * s)))))
            continue
        for a in range(k):
            run = board
            for i in range(1, a + 1):
                run = W.band(run, shift_down(pos, i * s))
            for i in range(1, k - a):
                run = W.band(run, shift_up(pos, i * s))
            out = W.bor(out, run)
    return W.andnot(W.band(out, board), mask)


@njit(cache=True, inline="always")
def has_line(pos, k, steps):
    """Does ``pos`` hold k stones in a row?"""
    for di in range(4):
        s = steps[di]
        run = pos
        for i in range(1, k):
            run = W.band(run, shift_down(pos, i * s))
            if W.is_zero(run):
                break
        if not W.is_zero(run):
            return True
    return False


@njit(cache=True, inline="always")
def mirror(key, m, h):
    """``key`` with the columns in reverse order (the left-right mirror image of the position)."""
    col = W.add(W.shl(W.bit(0, key), h), W.ones(key))  # one column's h bits: 2^h - 1 (adding all ones subtracts 1)
    out = W.zero(key)
    for x in range(m):
        out = W.bor(out, W.shl(W.band(W.shr(key, x * h), col), (m - 1 - x) * h))
    return out


@njit(cache=True, inline="always")
def playable_cells(mask, bottom, board):
    """The cell each column that is not full plays next: ``(mask + bottom) & board``."""
    return W.band(W.add(mask, bottom), board)


@njit(cache=True, inline="always")
def position_key(cur, mask, bottom):
    """The position's unique key, ``cur | (mask + bottom)`` (see the bit layout)."""
    return W.bor(cur, W.add(mask, bottom))


@njit(cache=True, inline="always")
def tt_index(key, size):
    """The first slot of ``key``'s bucket (two slots a bucket; ``size // 2`` buckets, a prime number)."""
    return 2 * np.int64(W.fold(key) % np.uint64(size // 2))


def slot_entry(tt, j, key, gen):  # type: ignore[no-untyped-def]
    """The entry in slot ``j`` when it is ``key``'s of generation ``gen``, else 0 (compiled: W.by_form below).
    A slot keeps the entry in its last word, and before it each word of the key XOR the entry."""
    return (_slot_entry2 if isinstance(key, tuple) else _slot_entry1)(tt, j, key, gen)


def _slot_entry1(tt, j, key, gen):  # type: ignore[no-untyped-def]
    v = tt[j, 1]
    if v != U0 and (tt[j, 0] ^ v) == key and (v >> np.uint64(32)) == gen:
        return v
    return U0


def _slot_entry2(tt, j, key, gen):  # type: ignore[no-untyped-def]
    v = tt[j, 2]
    if v != U0 and (tt[j, 0] ^ v) == key[0] and (tt[j, 1] ^ v) == key[1] and (v >> np.uint64(32)) == gen:
        return v
    return U0


def slot_store(tt, j, key, v):  # type: ignore[no-untyped-def]
    """Write entry ``v`` for ``key`` into slot ``j`` (compiled: W.by_form below)."""
    (_slot_store2 if isinstance(key, tuple) else _slot_store1)(tt, j, key, v)


def _slot_store1(tt, j, key, v):  # type: ignore[no-untyped-def]
    tt[j, 1] = v
    tt[j, 0] = key ^ v


def _slot_store2(tt, j, key, v):  # type: ignore[no-untyped-def]
    tt[j, 2] = v
    tt[j, 0] = key[0] ^ v
    tt[j, 1] = key[1] ^ v


W.by_form(slot_entry, _slot_entry1, _slot_entry2, argument=2)
W.by_form(slot_store, _slot_store1, _slot_store2, argument=2)


def put_key(scratch, t, i, key):  # type: ignore[no-untyped-def]
    """Keep a child's table key in this stone count's scratch row (compiled: W.by_form below): the low word in
    the fourth block, the high word (two-word boards) in the fifth."""
    (_put_key2 if isinstance(key, tuple) else _put_key1)(scratch, t, i, key)


def _put_key1(scratch, t, i, key):  # type: ignore[no-untyped-def]
    scratch[t, 3 * MAX_COLS + i] = np.int64(key)


def _put_key2(scratch, t, i, key):  # type: ignore[no-untyped-def]
    scratch[t, 3 * MAX_COLS + i] = np.int64(key[0])
    scratch[t, 4 * MAX_COLS + i] = np.int64(key[1])


def get_key(scratch, t, i, like):  # type: ignore[no-untyped-def]
    """The key :func:`put_key` kept (compiled: W.by_form below)."""
    return (_get_key2 if isinstance(like, tuple) else _get_key1)(scratch, t, i, like)


def _get_key1(scratch, t, i, like):  # type: ignore[no-untyped-def]
    return np.uint64(scratch[t, 3 * MAX_COLS + i])


def _get_key2(scratch, t, i, like):  # type: ignore[no-untyped-def]
    return (np.uint64(scratch[t, 3 * MAX_COLS + i]), np.uint64(scratch[t, 4 * MAX_COLS + i]))


W.by_form(put_key, _put_key1, _put_key2, argument=3)
W.by_form(get_key, _get_key1, _get_key2, argument=3)


@njit(cache=True, inline="always")
def tt_read(tt, key, gen):
    """The entry for ``key`` (0 when absent or of another generation)."""
    i = tt_index(key, tt.shape[0])
    for j in range(i, i + 2):
        v = slot_entry(tt, j, key, gen)
        if v != U0:
            return v
    return U0


@njit(cache=True, inline="always")
def work_of(nodes):
    """The work class of a subtree of ``nodes`` nodes: its bit length (0 for none), at most 255."""
    w = 0
    while nodes > 0 and w < 255:
        nodes >>= 1
        w += 1
    return w


@njit(cache=True, inline="always")
def tt_write(tt, key, lo, hi, col, work, gen):
    """Store an entry: in the bucket's slot that holds ``key`` already, else in the first slot unless what it
    holds took more work to find (``work``: :func:`work_of` the subtree's node count; an entry of another
    generation counts as none), else in the second, which is always replaced."""
    i = tt_index(key, tt.shape[0])
    e = W.nwords(key)  # the entry's word in a slot
    v = np.uint64(lo + 128) | (np.uint64(hi + 128) << np.uint64(8)) | (np.uint64(col + 1) << np.uint64(16))
    v |= (np.uint64(work) << np.uint64(24)) | (gen << np.uint64(32))
    if slot_entry(tt, i, key, gen) != U0:
        pass
    elif slot_entry(tt, i + 1, key, gen) != U0:
        i += 1
    else:
        a = tt[i, e]
        wa = np.int64((a >> np.uint64(24)) & np.uint64(0xFF)) if (a >> np.uint64(32)) == gen else -1
        if wa > work:
            i += 1
    slot_store(tt, i, key, v)


@njit(cache=True, inline="always")
def follow_up_bound(cur, mask, t, tables):
    """An upper bound on the score of the position (``cur`` to move, an even number of empty cells, the game not
    over) from the opponent's follow-up (see the module docstring); ``cells`` when it gives none."""
    k, cells, board, bottom, steps, off_rows = tables[0], tables[1], tables[2], tables[3], tables[4], tables[6]
    n = steps[1] - 1
    free = W.andnot(board, mask)
    claim = W.andnot(W.band(free, off_rows), playable_cells(mask, bottom, board))  # the opponent's cells
    if has_line(W.bor(cur, W.andnot(free, claim)), k, steps):
        return cells
    opp = W.bxor(cur, mask)
    if not has_line(W.bor(opp, claim), k, steps):
        return 0
    # the opponent's lowest line (its top row r) is complete, at the latest, when the cells above row r in one
    # column are still empty: its last stone is stone cells - (n - 1 - r) or earlier
    low = W.zero(cur)
    for r in range(n):
        low = W.bor(low, W.shl(bottom, r))
        if has_line(W.bor(opp, W.band(claim, low)), k, steps):
            last = cells - (n - 1 - r)
            if (last - t) % 2:
                last -= 1  # the opponent's stones are stones t + 2, t + 4, ...
            return last - cells - 1
    return -1


@njit(cache=True, inline="always")
def narrow(alpha, beta, lo, hi):
    """The window ``(alpha, beta)`` narrowed to a score known to lie in ``[lo, hi]``, and the score to return at
    once when that closes the window (``lo`` when it reaches ``beta``, else ``hi``), or ``ABORT_SCORE``."""
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            return alpha, beta, alpha
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return alpha, beta, beta
    return alpha, beta, ABORT_SCORE


@njit(cache=True, inline="always")
def note_root_move(ctrl, t, x, v):
    """At the root, remember column ``x`` as a move that scores at least ``v`` when no earlier move of the search
    was shown to score as much (:func:`solve_score` gives it back with the score: the best move)."""
    if t == ctrl[G_ROOT_T] and v > ctrl[G_MOVE_SCORE]:
        ctrl[G_MOVE] = x
        ctrl[G_MOVE_SCORE] = v


# ``_nrt=False``: no reference counting in the search (it allocates nothing). With it, every array view and
# call took an atomic increment and decrement of a count that the threads share, and two threads searching
# 7x6 took 41 s where they take 30 s without (2026-11-27).
@njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]  # numba takes _nrt; its stubs do not say so
def negamax(cur, mask, mcur, mmask, t, alpha, beta, tables, tt, ctrl, order, scratch, busy):
    """The score of the position (``cur`` to move, ``mask`` every stone, ``t`` stones down; ``mcur``,
    ``mmask``: the same of its mirror image) against the window ``(alpha, beta)``: see the module docstring.
    ``ABORT_SCORE`` when the node budget ran out or ``ctrl[G_STOP]`` was raised (nothing is stored then)."""
    k, cells, board, bottom, steps, colmask, _off_rows, odd_rows = tables
    # the rows where a threat of the side to move counts most (Allis: odd rows for the first player)
    good_rows = odd_rows if t % 2 == 0 else W.andnot(board, odd_rows)
    ctrl[G_NODES] += 1
    n0 = ctrl[G_NODES]
    if ctrl[G_STOP] != 0 or (ctrl[G_MAX_NODES] > 0 and ctrl[G_NODES] > ctrl[G_MAX_NODES]):
        ctrl[G_STOP] = 1
        ctrl[G_ABORTED] = 1
        return ABORT_SCORE
    gen = np.uint64(ctrl[G_GEN])
    playable = playable_cells(mask, bottom, board)
    if not W.is_zero(W.band(win_cells(cur, mask, k, steps, board), playable)):
        return cells - t  # the (t + 1)-th stone wins
    opp = W.bxor(cur, mask)
    opp_wins = win_cells(opp, mask, k, steps, board)
    possible = playable
    forced = W.band(possible, opp_wins)
    if not W.is_zero(forced):
        if not W.single(forced):
            return -(cells - t - 1)  # two threats to block: the opponent's (t + 2)-th stone wins
        possible = forced
    possible = W.andnot(possible, W.shr(opp_wins, 1))  # never directly below an opponent's threat
    if W.is_zero(possible):
        return -(cells - t - 1)
    if t >= cells - 2:
        return 0
    # neither side wins on the next two stones: bound the score by the stones left
    lo_bound = -(cells - t - 3)
    hi_bound = cells - t - 2
    # the follow-up bound (claimeven, odd columns paired): see the module docstring
    free = W.andnot(board, mask)
    if (cells - t) % 2 == 0:
        hi_bound = min(hi_bound, follow_up_bound(cur, mask, t, tables))
    # a side with no line left among its stones and the empty cells cannot win
    if not has_line(W.bor(cur, free), k, steps):
        hi_bound = min(hi_bound, 0)
    if not has_line(W.bor(opp, free), k, steps):
        lo_bound = max(lo_bound, 0)
    if lo_bound >= hi_bound:
        return hi_bound
    m = colmask.shape[0]
    if W.single(possible) and t != ctrl[G_ROOT_T]:
        # one move to play (a block, or the only one not below an opponent's threat): played without the
        # table (its child has an entry), so forced lines cost neither table reads nor table space
        alpha, beta, cut = narrow(alpha, beta, lo_bound, hi_bound)
        if cut != ABORT_SCORE:
            return cut
        x = W.low_index(possible) // steps[1]
        mmove = W.band(W.add(mmask, bottom), W.get1(colmask, m - 1 - x))
        v = negamax(
            W.bxor(cur, mask), W.bor(mask, possible), W.bxor(mcur, mmask), W.bor(mmask, mmove), t + 1, -beta,
            -alpha, tables, tt, ctrl, order, scratch, busy,
        )
        if v == ABORT_SCORE or v == -ABORT_SCORE:
            return ABORT_SCORE
        return -v
    # the table's key: the smaller of the position's and its mirror image's (columns stored in that frame)
    key = position_key(cur, mask, bottom)
    mkey = position_key(mcur, mmask, bottom)
    flip = W.less(mkey, key)
    if flip:
        key = mkey
    ctrl[G_PROBED] += 1
    entry = tt_read(tt, key, gen)
    best_col = -1
    if entry != U0:
        lo_e = np.int64(entry & np.uint64(0xFF)) - 128
        hi_e = np.int64((entry >> np.uint64(8)) & np.uint64(0xFF)) - 128
        best_col = np.int64((entry >> np.uint64(16)) & np.uint64(0xFF)) - 1
        if flip and best_col >= 0:
            best_col = m - 1 - best_col
        if lo_e > lo_bound:
            lo_bound = lo_e
        if hi_e < hi_bound:
            hi_bound = hi_e
    if lo_bound >= hi_bound:
        return hi_bound
    alpha, beta, cut = narrow(alpha, beta, lo_bound, hi_bound)
    if cut != ABORT_SCORE:
        return cut
    # the moves: columns in `order` (centre first), sorted by the threats each creates (stable)
    cols = scratch[t, :MAX_COLS]  # this stone count's move list (no allocation in the search)
    keys = scratch[t, MAX_COLS:2 * MAX_COLS]
    nmoves = 0
    for j in range(m):
        x = order[j]
        move = W.band(possible, W.get1(colmask, x))
        if W.is_zero(move):
            continue
        after = W.bor(cur, move)
        threats = win_cells(after, W.bor(mask, move), k, steps, board)
        # does this stone win on our next one (stone t + 3) whatever the opponent answers? The opponent has no
        # win of its own on stone t + 2 (its one playable threat, if any, is this stone's cell, and this stone
        # is not below one), so it must take our playable threat if there is one: two of them, or one with
        # another of ours just above it, win; with none, every answer must uncover one of ours.
        nplay = playable_cells(W.bor(mask, move), bottom, board)
        ours = W.band(threats, nplay)
        if not W.is_zero(ours):
            if not W.single(ours) or not W.is_zero(W.band(threats, W.shl(ours, 1))):
                note_root_move(ctrl, t, x, cells - t - 2)
                return cells - t - 2
        elif W.is_zero(W.andnot(W.shl(nplay, 1), W.band(threats, board))):
            note_root_move(ctrl, t, x, cells - t - 2)
            return cells - t - 2
        if (cells - t) % 2 == 1:  # the child has an even number of empty cells: our follow-up bounds it
            c_hi = follow_up_bound(W.bxor(cur, mask), W.bor(mask, move), t + 1, tables)
            if -c_hi >= beta:
                tt_write(tt, key, -c_hi, hi_bound, m - 1 - x if flip else x, 1, gen)
                note_root_move(ctrl, t, x, -c_hi)
                return -c_hi
        useful = W.andnot(threats, W.shl(opp_wins, 1))
        score = W_PLAY * W.count(ours) + W_NEXT * W.count(W.band(useful, W.shl(nplay, 1))) + W_ALL * W.count(useful)
        score += W_PARITY * W.count(W.band(threats, good_rows))
        if x == best_col:
            score = 1 << 20
        i = nmoves
        while i > 0 and keys[i - 1] < score:
            keys[i] = keys[i - 1]
            cols[i] = cols[i - 1]
            i -= 1
        keys[i] = score
        cols[i] = x
        nmoves += 1
    # no stone of ours wins on stone t + 3: our earliest win is stone t + 5 (a draw at best when there is none)
    hi3 = max(cells - t - 4, 0)
    if hi_bound > hi3:
        hi_bound = hi3
        alpha, beta, cut = narrow(alpha, beta, lo_bound, hi_bound)  # alpha >= lo_bound already
        if cut != ABORT_SCORE:
            return cut
    # enhanced transposition cutoffs: a child whose stored upper bound is low enough cuts now, and one whose stored
    # lower bound shows the move cannot raise alpha is not searched (it counts with that bound)
    orig_alpha = alpha
    best = -cells - 1
    chosen = -1
    if cells - t > PREFETCH_EMPTY or cells - t > ETC_EMPTY:
        # the children's keys, and (while more than PREFETCH_EMPTY cells are empty) their buckets asked for now:
        # the reads below, or each child's own at its start, then find them in the cache, the misses overlapping
        # instead of coming one after another
        for i in range(nmoves):
            move = W.band(possible, W.get1(colmask, cols[i]))
            ckey = position_key(opp, W.bor(mask, move), bottom)  # the opponent's stones: the child's side to move
            mmove = W.band(W.add(mmask, bottom), W.get1(colmask, m - 1 - cols[i]))
            cmkey = position_key(W.bxor(mcur, mmask), W.bor(mmask, mmove), bottom)
            if W.less(cmkey, ckey):
                ckey = cmkey
            put_key(scratch, t, i, ckey)
            if cells - t > PREFETCH_EMPTY:
                prefetch_row(tt, tt_index(ckey, tt.shape[0]))
    if cells - t > ETC_EMPTY:
        for i in range(nmoves):
            centry = tt_read(tt, get_key(scratch, t, i, cur), gen)
            if centry != U0:
                c_hi = np.int64((centry >> np.uint64(8)) & np.uint64(0xFF)) - 128
                if -c_hi >= beta:  # the child scores at most c_hi, so this move at least -c_hi
                    tt_write(tt, key, -c_hi, hi_bound, m - 1 - cols[i] if flip else cols[i], 1, gen)
                    note_root_move(ctrl, t, cols[i], -c_hi)
                    return -c_hi
                c_lo = np.int64(centry & np.uint64(0xFF)) - 128
                if -c_lo <= alpha:
                    keys[i] = SKIP
                    if -c_lo > best:
                        best = -c_lo
                        chosen = cols[i]
    # several threads: a move whose position another thread is searching now is put off to the end (ABDADA,
    # Weill 1996), so that the threads split the work near the root instead of repeating it. Only in the first
    # third of the game: each mark is a write to a cache line both threads read, and deeper in the tree those
    # writes cost more than the repeated work they save (7x6 on two threads 23-24 s marking while more than 6
    # cells were empty, 21 s marking in the first third; 2026-11-27). A mark is the key folded into one word.
    defer = busy.shape[0] > 1 and 3 * t < cells
    deferred = scratch[t, 2 * MAX_COLS:3 * MAX_COLS]
    total = nmoves
    j = 0
    while j < total:
        i = j if j < nmoves else deferred[j - nmoves]
        first_pass = j < nmoves
        j += 1
        if first_pass and keys[i] == SKIP:
            continue
        x = cols[i]
        move = W.band(possible, W.get1(colmask, x))
        mmove = W.band(W.add(mmask, bottom), W.get1(colmask, m - 1 - x))
        slot = -1
        mark = U0
        if defer:
            mark = W.fold(position_key(opp, W.bor(mask, move), bottom))
            slot = np.int64((mark * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - BUSY_BITS))
            if first_pass and i > 0 and busy[slot] == mark:
                deferred[total - nmoves] = i
                total += 1
                continue
            busy[slot] = mark
        v = negamax(
            W.bxor(cur, mask), W.bor(mask, move), W.bxor(mcur, mmask), W.bor(mmask, mmove), t + 1, -beta, -alpha,
            tables, tt, ctrl, order, scratch, busy,
        )
        if slot >= 0 and busy[slot] == mark:
            busy[slot] = U0
        if v == ABORT_SCORE or v == -ABORT_SCORE:
            return ABORT_SCORE
        v = -v
        if v > best:
            best = v
            chosen = x
        if v >= beta:
            work = work_of(ctrl[G_NODES] - n0 + 1)
            tt_write(tt, key, v, hi_bound, m - 1 - x if flip else x, work, gen)  # a lower bound
            note_root_move(ctrl, t, x, v)
            return v
        if v > alpha:
            alpha = v
    work = work_of(ctrl[G_NODES] - n0 + 1)
    if best > orig_alpha:
        note_root_move(ctrl, t, chosen, best)
        if flip:
            chosen = m - 1 - chosen
        tt_write(tt, key, best, best, chosen, work, gen)  # exact
    else:
        if flip and chosen >= 0:
            chosen = m - 1 - chosen
        tt_write(tt, key, lo_bound, best if best > lo_bound else lo_bound, chosen, work, gen)  # an upper bound
    return best


@njit(cache=True)
def immediate(cur, mask, t, tables):
    """The score when a stone on the next two decides the game or none is left, else ``ABORT_SCORE``."""
    k, cells, board, bottom, steps = tables[0], tables[1], tables[2], tables[3], tables[4]
    if t >= cells:
        return 0
    if not W.is_zero(W.band(win_cells(cur, mask, k, steps, board), playable_cells(mask, bottom, board))):
        return cells - t
    return ABORT_SCORE


@njit(cache=True, nogil=True)
def solve_score(cur, mask, t, weak, tables, tt, ctrl, order, busy, known):
    """The exact score (``weak``: only its sign: -1, 0 or 1) by null-window tests narrowing ``[lo, hi]``;
    ``ABORT_SCORE`` when stopped. ``known``: the score (or sign) when it is known already (from a book), else
    ``ABORT_SCORE``; the search then only shows that some move reaches it, which names the best move. The
    boards ``cur`` and ``mask`` (and the tables' boards) are words or pairs of words, as the table is ``(size, 2)``
    or ``(size, 3)`` (see the bit layout)."""
    cells = tables[1]
    ctrl[G_ROOT_T] = t
    ctrl[G_MOVE] = -1  # the root's best column, found on the way (ctrl[G_MOVE_SCORE]: what it scores at least)
    ctrl[G_MOVE_SCORE] = -ABORT_SCORE
    # a row per stone count: the move list, its order keys, the moves put off (threads), the children's table
    # keys (their low words, then their high words on two-word boards)
    scratch = np.zeros((cells + 2, (3 + W.nwords(cur)) * MAX_COLS), np.int64)  # (a row small: threads share a cache)
    m, h = tables[5].shape[0], tables[4][1]
    mcur = mirror(cur, m, h)  # the mirror image, carried along so that its key costs two operations a node
    mmask = mirror(mask, m, h)
    v = immediate(cur, mask, t, tables)
    if v != ABORT_SCORE:
        if v > 0:  # the column of a winning stone
            wins = W.band(win_cells(cur, mask, tables[0], tables[4], tables[2]),
                          playable_cells(mask, tables[3], tables[2]))
            ctrl[G_MOVE] = W.low_index(wins) // h
            ctrl[G_MOVE_SCORE] = v
        return v if not weak else (1 if v > 0 else 0)
    lo = -(cells - t)
    hi = cells - t
    if weak:
        lo = -1
        hi = 1
    if known != ABORT_SCORE:
        lo = known - 1  # one test: "at least `known`?", whose cutoff at the root is the best move
        hi = known
    # first "a draw or better?" (-1 | 0), then from the end nearest a draw outwards in doubling steps (a score
    # near a draw, a long game, is the common case), halving once a probe lands past the score
    step = 1
    bracketed = False
    while lo < hi:
        if lo < 0 < hi:
            med = -1
        elif hi <= 0:
            med = hi - step
        else:
            med = lo + step - 1
        if bracketed or med < lo or med >= hi:
            med = lo + (hi - lo) // 2
        r = negamax(cur, mask, mcur, mmask, t, med, med + 1, tables, tt, ctrl, order, scratch, busy)
        if r == ABORT_SCORE:
            return ABORT_SCORE
        if r <= med:
            bracketed |= lo >= 0 and med > lo  # a win, and shorter than this probe's: the score is in [lo, r]
            hi = r
        else:
            bracketed |= hi <= 0 and med < hi - 1  # a loss, and later than this probe's: the score is in [r, hi]
            lo = r
        if med != -1:
            step *= 2
    if weak:
        return 1 if lo > 0 else (-1 if lo < 0 else 0)
    return lo
