"""Numba kernel: play a strategy against every reply of the opponent (gravity games, any size).

Board and move state are plain arrays (boards of more than 64 cells are fine)::

    cell = x * n + y                      column-major, row 0 at the bottom
    board[cell]   0 empty, 1 X (first player), 2 O (second player)
    heights[x]    stones in column x
    moves[0:t]    the cells played, in order

Transposition key: one sentinel-coded column per n + 1 bits, packed into
``KW = ceil(m (n + 1) / 64)`` uint64 words (so 12 x 12 needs 3 words)::

    column x occupies key bits  x(n+1) ... x(n+1) + n
    bit x(n+1) + y   = 1 if the stone on row y is X   (y < heights[x])
    bit x(n+1) + h   = 1 sentinel marking the height h = heights[x]
    bits above h     = 0

so (X stones, occupied cells) and thus the whole position is recovered from
the key exactly. A table row is ``KW + 2`` words: the key, what the strategy
remembers beyond the board (:func:`kinarow.strategies.rules.rule_memory`),
and the value (0 = empty row), so one probe touches one cache line. The
table starts small and grows fourfold (rows re-inserted) when 3/4 full, as
long as a table 3/4 full holds fewer than ``ctrl[C_MAX_ROWS]`` positions. Keys
are stored whole, so a transposition hit is never a guess.

The search is a depth-first walk over the positions where the opponent is to
move: every legal opponent move, then the strategy's single reply. A node's
value is the worst outcome for the strategist among its children
(FAIL < LOSS < DRAW < WIN); the walk stops at the first FAIL or LOSS and
leaves that line of play in ``cex`` (``ctrl[C_CEX_LEN]`` is -1 until then).
``ctrl[C_LONGEST]`` is the most stones on the board when a game ends (a
transposed subtree ends at the same stone counts, so hits need no update).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)
from kinarow.strategies.rules import rule_memory, rule_move

ABORT, FAIL, LOSS, DRAW, WIN = -1, 0, 1, 2, 3
NONE = 9
C_POSITIONS, C_STOP, C_LIMIT, C_TT_FULL, C_CEX_LEN, C_FILL, C_LONGEST, C_MAX_ROWS, N_CTRL = 0, 1, 2, 3, 4, 5, 6, 7, 8


def key_words(m: int, n: int) -> int:
    """uint64 words of a position key (without the memory word)."""
    return (m * (n + 1) + 63) // 64


@njit(cache=True)
def _run(board, m, n, k, cyl, x, y, dx, dy, p):
    """Stones of player p after (x, y) along (dx, dy), at most k - 1."""
    count = 0
    for _ in range(k - 1):
        x += dx
        y += dy
        if y < 0 or y >= n:
            break
        if x < 0 or x >= m:
            if not cyl:
                break
            x %= m
        if board[x * n + y] != p:
            break
        count += 1
    return count


@njit(cache=True)
def completes(board: np.ndarray, m: int, n: int, k: int, cyl: bool, c: int, p: int) -> bool:
    """Does the stone of player p on cell c finish k in a row (columns wrap when ``cyl``)?"""
    x0, y0 = c // n, c % n
    # vertical: only stones below can be there under gravity, but count both ways for free placement
    if 1 + _run(board, m, n, k, cyl, x0, y0, 0, -1, p) + _run(board, m, n, k, cyl, x0, y0, 0, 1, p) >= k:
        return True
    if not (cyl and m < k):
        count = 1 + _run(board, m, n, k, cyl, x0, y0, 1, 0, p) + _run(board, m, n, k, cyl, x0, y0, -1, 0, p)
        if cyl and count > m:
            count = m
        if count >= k:
            return True
    if 1 + _run(board, m, n, k, cyl, x0, y0, 1, 1, p) + _run(board, m, n, k, cyl, x0, y0, -1, -1, p) >= k:
        return True
    return 1 + _run(board, m, n, k, cyl, x0, y0, 1, -1, p) + _run(board, m, n, k, cyl, x0, y0, -1, 1, p) >= k


@njit(cache=True)
def _set_bit(key: np.ndarray, pos: int) -> None:
    key[pos >> 6] |= np.uint64(1) << np.uint64(pos & 63)


@njit(cache=True)
def _clear_bit(key: np.ndarray, pos: int) -> None:
    key[pos >> 6] &= ~(np.uint64(1) << np.uint64(pos & 63))


@njit(cache=True)
def _play(board, heights, moves, key, n, t, c, p):
    x = c // n
    pos = x * (n + 1) + heights[x]
    if p != 1:
        _clear_bit(key, pos)
    _set_bit(key, pos + 1)
    board[c] = p
    heights[x] += 1
    moves[t] = c


@njit(cache=True)
def _undo(board, heights, key, n, c):
    x = c // n
    heights[x] -= 1
    board[c] = 0
    pos = x * (n + 1) + heights[x]
    _clear_bit(key, pos + 1)
    _set_bit(key, pos)


@njit(cache=True)
def _outcome(board, m, n, k, cyl, misere, c, p, t, me):
    """The game's outcome for the strategist ``me`` after player p put stone number t on c, or NONE."""
    if completes(board, m, n, k, cyl, c, p):
        mover_wins = not misere
        if (p == me) == mover_wins:
            return WIN
        return LOSS
    if t == m * n:
        return DRAW
    return NONE


@njit(cache=True)
def _slot(tt, key, memory, kw):
    h = np.uint64(memory) * np.uint64(0x9E3779B97F4A7C15)
    for i in range(kw):
        h = (h ^ key[i]) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    imask = tt.shape[0] - 1
    i = np.int64(h & np.uint64(imask))
    while True:
        if tt[i, kw + 1] == 0:
            return i
        same = tt[i, kw] == np.uint64(memory)
        if same:
            for j in range(kw):
                if tt[i, j] != key[j]:
                    same = False
                    break
        if same:
            return i
        i = (i + 1) & imask


@njit(cache=True)
def _grow(tt, kw):
    """A table four times larger holding the same rows."""
    bigger = np.zeros((tt.shape[0] * 4, kw + 2), np.uint64)
    key = np.zeros(kw, np.uint64)
    for r in range(tt.shape[0]):
        if tt[r, kw + 1] != 0:
            for j in range(kw):
                key[j] = tt[r, j]
            i = _slot(bigger, key, tt[r, kw], kw)
            for j in range(kw + 2):
                bigger[i, j] = tt[r, j]
    return bigger


@njit(cache=True, nogil=True)
def verify(
    m, n, k, cyl, misere, code, me, board, heights, moves, key, tt, ctrl, cex
):
    """Worst outcome for player ``me`` following strategy ``code`` from the empty board, or ABORT."""
    kw = key.shape[0]
    size = m * n
    opp = 3 - me
    L_col = np.zeros(size + 2, np.int64)
    L_val = np.zeros(size + 2, np.int64)
    L_opp = np.zeros(size + 2, np.int64)
    L_reply = np.zeros(size + 2, np.int64)
    t = 0
    if me == 1:
        r = rule_move(code, board, heights, m, n, k, moves, t, me)
        if r < 0 or r >= size or r != (r // n) * n + heights[r // n]:
            ctrl[C_CEX_LEN] = 0
            return FAIL
        _play(board, heights, moves, key, n, t, r, me)
        t += 1
        out = _outcome(board, m, n, k, cyl, misere, r, me, t, me)
        if out != NONE:
            ctrl[C_LONGEST] = t
            for i in range(t):
                cex[i] = moves[i]
            ctrl[C_CEX_LEN] = t
            return out
    L = 0
    L_col[0] = 0
    L_val[0] = WIN
    ctrl[C_POSITIONS] += 1
    capacity = tt.shape[0]
    while True:
        if L_col[L] >= m or L_val[L] <= LOSS:
            v = L_val[L]
            if v >= DRAW:
                memory = rule_memory(code, moves, t)
                i = _slot(tt, key, memory, kw)
                if tt[i, kw + 1] == 0:
                    for j in range(kw):
                        tt[i, j] = key[j]
                    tt[i, kw] = memory
                    ctrl[C_FILL] += 1
                tt[i, kw + 1] = v
            if L == 0:
                return v
            _undo(board, heights, key, n, L_reply[L])
            _undo(board, heights, key, n, L_opp[L])
            t -= 2
            L -= 1
            if v < L_val[L]:
                L_val[L] = v
            continue
        x = L_col[L]
        L_col[L] += 1
        if heights[x] >= n:
            continue
        c = x * n + heights[x]
        _play(board, heights, moves, key, n, t, c, opp)
        t += 1
        out = _outcome(board, m, n, k, cyl, misere, c, opp, t, me)
        if out != NONE and t > ctrl[C_LONGEST]:
            ctrl[C_LONGEST] = t
        if out == NONE:
            r = rule_move(code, board, heights, m, n, k, moves, t, me)
            if r < 0 or r >= size or r != (r // n) * n + heights[r // n]:
                out = FAIL
            else:
                _play(board, heights, moves, key, n, t, r, me)
                t += 1
                out = _outcome(board, m, n, k, cyl, misere, r, me, t, me)
                if out != NONE and t > ctrl[C_LONGEST]:
                    ctrl[C_LONGEST] = t
                if out == NONE:
                    memory = rule_memory(code, moves, t)
                    i = _slot(tt, key, memory, kw)
                    if tt[i, kw + 1] != 0:
                        out = np.int64(tt[i, kw + 1])
                    else:
                        ctrl[C_POSITIONS] += 1
                        if (ctrl[C_LIMIT] > 0 and ctrl[C_POSITIONS] > ctrl[C_LIMIT]) or ctrl[C_STOP] != 0:
                            return ABORT
                        if 4 * ctrl[C_FILL] >= 3 * capacity:
                            if 3 * capacity >= 4 * ctrl[C_MAX_ROWS]:
                                ctrl[C_TT_FULL] = 1
                                return ABORT
                            tt = _grow(tt, kw)
                            capacity = tt.shape[0]
                        L += 1
                        L_col[L] = 0
                        L_val[L] = WIN
                        L_opp[L] = c
                        L_reply[L] = r
                        continue
                if out <= LOSS and ctrl[C_CEX_LEN] < 0:
                    for i in range(t):
                        cex[i] = moves[i]
                    ctrl[C_CEX_LEN] = t
                t -= 1
                _undo(board, heights, key, n, r)
        if out <= LOSS and ctrl[C_CEX_LEN] < 0:
            for i in range(t):
                cex[i] = moves[i]
            ctrl[C_CEX_LEN] = t
        t -= 1
        _undo(board, heights, key, n, c)
        if out < L_val[L]:
            L_val[L] = out
