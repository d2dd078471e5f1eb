"""The strategies' rules as small numba functions over a plain board array.

Board layout (the same as :mod:`kinarow.geometry`, column-major)::

    cell = x * n + y        x = column 0..m-1 (a, b, ...), y = row 0..n-1 (row 0 at the bottom)

    board[cell]  0 empty, 1 first player (X), 2 second player (O)
    heights[x]   stones in column x (the next stone in x lands on x * n + heights[x])
    moves[0:t]   the cells played so far, in order (moves[t - 1] is the last one)

Every rule answers ``rule_move(code, board, heights, m, n, k, moves, t, me)``
with the cell the strategy plays for player ``me`` (1 or 2), or -1 when the
rule prescribes nothing (the strategy "does not apply" here). Rules read
only this state, so the same function serves play, the fast verification
kernel and the rules-only certificate checker.

Sources: R. Steele and D.B. Larremore, "Misere Connect Four is solved"
(take-even, the row-0 pair rule, delayed take-even, the k = 2 template
argument and the appendix's canonical boards A-E for h = 1, k = 3).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)

TAKE_EVEN, DELAYED_TAKE_EVEN, PAIR_ROW, TALLY, CANONICAL_BOARDS, DELAYED_TALLY, HALF_TURN = 1, 2, 3, 4, 5, 6, 7

EMPTY, X, O = 0, 1, 2


@njit(cache=True)
def _row0(board: np.ndarray, n: int, x: int) -> int:
    return board[x * n]


@njit(cache=True)
def pair_rule(board: np.ndarray, heights: np.ndarray, m: int, n: int, last: int) -> int:
    """The row-0 pair rule: columns pair up (a,b), (c,d), ...; for odd m the last column is unpaired.

    *take-other*: if the opponent's last stone went into row 0 of a pair whose
    other cell is empty, take that cell; *rightmost*: otherwise the rightmost
    empty cell of row 0. Returns -1 when row 0 is full.
    """
    if last >= 0 and last % n == 0:
        x = last // n
        partner = x ^ 1
        if partner < m and heights[partner] == 0:
            return partner * n
    for x in range(m - 1, -1, -1):
        if heights[x] == 0:
            return x * n
    return -1


@njit(cache=True)
def on_top(heights: np.ndarray, n: int, last: int) -> int:
    """The cell directly above the opponent's last stone, or -1 if there is none to take."""
    if last < 0:
        return -1
    x, y = last // n, last % n
    if y + 1 < n and heights[x] == y + 1:
        return last + 1
    return -1


@njit(cache=True)
def tally_move(board: np.ndarray, m: int, n: int, moves: np.ndarray) -> int:
    """k = 2, row 0, the second player (O): the template/tally prescriptions (a row-0 cell, or -1).

    After X's first stone on column ``a`` the only drawing final row is the
    alternating one it implies (the *template*: X on columns of a's parity, O on
    the others). O's first reply:

    * odd m: X opened on an even-numbered column (1-based) -> an in-template move
      on a wall (column a, which has O's parity); X opened on an odd-numbered
      column -> the offensive move: O on the wall that has X's parity, the open
      one farther from X's stone;
    * even m: X opened on a wall -> the opposite wall (in-template), and on O's
      second turn a *double contradiction*: O on an empty X-parity column whose
      two neighbours are empty O-parity columns; X opened inside -> the exclusive
      offensive move, O on the one wall of X's parity.

    Afterwards O keeps to in-template moves that do not lose (the leftmost), and
    only when there is none plays any move that does not lose. Only row 0 is
    read (column x is cell x * n), so the same rule serves taller boards.
    """
    a = moves[0] // n
    o_parity = (a + 1) % 2
    row = np.empty(m, np.int8)
    o_stones = 0
    for x in range(m):
        row[x] = board[x * n]
        if row[x] == O:
            o_stones += 1
    board = row
    if o_stones == 0:
        if m % 2 == 1:
            if a % 2 == 1:  # 1-based even: in-template (walls have O's parity) on the wall away from X
                return 0 if a > (m - 1) - a else m - 1
            # 1-based odd: offensive on the open wall farther from X (both walls have X's parity)
            if a == 0:
                return m - 1
            if a == m - 1:
                return 0
            return 0 if a > (m - 1) - a else m - 1
        if a == 0:
            return m - 1
        if a == m - 1:
            return 0
        return 0 if a % 2 == 0 else m - 1
    if m % 2 == 0 and o_stones == 1 and (a == 0 or a == m - 1):
        for x in range(1, m - 1):
            if x % 2 != o_parity and board[x] == EMPTY and board[x - 1] == EMPTY and board[x + 1] == EMPTY:
                if (x - 2 < 0 or board[x - 2] != O) and (x + 2 >= m or board[x + 2] != O):
                    return x
    fallback = -1
    for x in range(m):
        if board[x] != EMPTY:
            continue
        if (x > 0 and board[x - 1] == O) or (x + 1 < m and board[x + 1] == O):
            continue
        if x % 2 == o_parity:
            return x
        if fallback < 0:
            fallback = x
    if fallback >= 0:
        return fallback
    for x in range(m):
        if board[x] == EMPTY:
            return x
    return -1


@njit(cache=True)
def tally_cell(board: np.ndarray, m: int, n: int, moves: np.ndarray) -> int:
    """:func:`tally_move` as a cell index (column x, row 0), or -1."""
    x = tally_move(board, m, n, moves)
    return x * n if x >= 0 else -1


@njit(cache=True)
def _segment_kind(board: np.ndarray, s: int, e: int) -> tuple[int, int]:
    """Classify the segment s..e (no O inside) as A-E (0-4) and count its empty cells.

    A: no X at the ends; B: X at one end; C: X at both ends; D: XX at one end
    (and no X at the other); E: XX at one end and X at the other.
    """
    empty = 0
    for c in range(s, e + 1):
        if board[c] == EMPTY:
            empty += 1
    left = board[s] == X
    right = board[e] == X
    left2 = left and e > s and board[s + 1] == X
    right2 = right and e > s and board[e - 1] == X
    if not left and not right:
        return 0, empty
    if left2 and right:
        return 4, empty
    if right2 and left:
        return 4, empty
    if left2 or right2:
        return 3, empty
    if left and right:
        return 2, empty
    return 1, empty


@njit(cache=True)
def _segment_play(board: np.ndarray, s: int, e: int, kind: int) -> int:
    """Where X plays in a segment of this kind: A->B and B->C, D->E at an end; C->E beside an end X."""
    if kind == 0:
        return s
    if kind == 1 or kind == 3:
        return e if board[s] == X else s
    if kind == 2:
        if board[s + 1] == EMPTY and (s + 2 > e or board[s + 2] != X):
            return s + 1
        if board[e - 1] == EMPTY and (e - 2 < s or board[e - 2] != X):
            return e - 1
    return -1


@njit(cache=True)
def canonical_move(board: np.ndarray, m: int) -> int:
    """k = 3, one row, the first player (X): the appendix's canonical-board strategy.

    The row splits into segments bounded by O stones or walls, each one of the
    canonical boards A-E with its number of empty cells. Odd m: play only in
    A_odd and B_odd boards (A->B, B->C). Even m: D_even first (D->E), then
    A_even, A_odd, B_odd, then B_even, C_even.
    """
    # (kind, parity of the number of empty cells) in priority order; parity -1 = either
    if m % 2 == 1:
        order_kind = np.array([0, 1], np.int64)
        order_par = np.array([1, 1], np.int64)
    else:
        order_kind = np.array([3, 0, 0, 1, 1, 2], np.int64)
        order_par = np.array([0, 0, 1, 1, 0, 0], np.int64)
    for i in range(order_kind.shape[0]):
        s = 0
        while s < m:
            if board[s] == O:
                s += 1
                continue
            e = s
            while e + 1 < m and board[e + 1] != O:
                e += 1
            kind, empty = _segment_kind(board, s, e)
            if empty > 0 and kind == order_kind[i] and empty % 2 == order_par[i]:
                c = _segment_play(board, s, e, kind)
                if c >= 0 and board[c] == EMPTY:
                    return c
            s = e + 1
    return -1


@njit(cache=True)
def half_turn(heights: np.ndarray, m: int, n: int, last: int) -> int:
    """The cell half a turn round the cylinder from the opponent's last stone (column + m/2, the same row), or -1.

    Played from the start by the second player on an even width, it keeps the position its own image under the
    half turn with the colours swapped, so the answer's column has the height the opponent's had: the answer
    lands on the same row (the rows match), and every line of the answer is the image of a line the opponent
    completed the move before.
    """
    if last < 0 or m % 2 == 1:
        return -1
    x = (last // n + m // 2) % m
    if heights[x] >= n:
        return -1
    return x * n + heights[x]


@njit(cache=True)
def rule_move(
    code: int, board: np.ndarray, heights: np.ndarray, m: int, n: int, k: int, moves: np.ndarray, t: int, me: int
) -> int:
    """The cell strategy ``code`` plays for player ``me``, or -1 if it prescribes nothing here."""
    last = moves[t - 1] if t > 0 else -1
    if code == TAKE_EVEN:
        return on_top(heights, n, last)
    if code == DELAYED_TAKE_EVEN or code == PAIR_ROW:  # noqa: SIM109 (kept plain for numba)
        if last < 0 or last % n == 0:
            return pair_rule(board, heights, m, n, last)
        return on_top(heights, n, last)
    if code == TALLY:
        if t == 0:
            return -1
        return tally_cell(board, m, n, moves)
    if code == DELAYED_TALLY:
        if last < 0:
            return -1
        if last % n == 0:
            return tally_cell(board, m, n, moves)
        return on_top(heights, n, last)
    if code == CANONICAL_BOARDS:
        return canonical_move(board, m)
    if code == HALF_TURN:
        return half_turn(heights, m, n, last)
    return -1


@njit(cache=True)
def rule_memory(code: int, moves: np.ndarray, t: int) -> int:
    """What the rule remembers beyond the board (part of a position's identity in verification).

    Only the tally strategy looks back: it needs X's first column.
    """
    if (code == TALLY or code == DELAYED_TALLY) and t > 0:  # noqa: SIM109 (kept plain for numba)
        return 1 + moves[0]
    return 0
