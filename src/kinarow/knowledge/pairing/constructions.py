"""Explicit good pairings for Tung & Lau's families of (m, n, k) boards, built by rule.

Tung & Lau ("Two methods for investigating the generalized tic-tac-toe")
prove these boards are draws for the second player by pairing strategies:
(k, k, k) for k >= 5, (k+1, k+1, k) for k >= 6, (2k-1, k, k) for k >= 7,
and every board with fewer than k rows. Their figures are not available to
us, so each family below is a rule of our own, written from the shape of
their description; :func:`construct` builds the pairing for any size and
:func:`kinarow.knowledge.pairing.check` verifies it (the tests do so for every k up
to 30). Coordinates are (x, y): column x from the left, row y from the bottom.

* ``k x k``, k >= 5 (rows, columns and the two diagonals are single groups,
  so any two cells of a line block it): the right two columns pair across
  for rows 0..k-3, the top-right 2 x 2 pairs vertically for the last two
  columns, the top two rows pair across in columns 1-2, the main diagonal
  takes (0,0)-(1,1), the anti-diagonal (0,k-1)-(2,k-3), and columns 0..k-3
  take two cells low down ((0,1)-(0,2), (1,0)-(1,2), then (x,0)-(x,1)).
* ``(k+1) x (k+1)``, k >= 6: each 2 x 2 corner holds the first (or last) pair
  of a long diagonal and one end of each short diagonal, paired with the
  other end (a short diagonal is one group, so its two ends block it); the
  border bands take one 2 x 2 block each, pinwheel fashion (horizontal at the
  bottom-left and top-right, vertical at the top-left and bottom-right),
  blocking the two outer rows or columns; the inner rows and columns each get
  a pair in the cells 1..k-1 of their line (so it blocks both groups of the
  line), in a pinwheel around the centre.
* ``(2k-1) x k``, k >= 7: row y takes the two neighbour pairs starting at
  x = j and x = j + k - 1 with j = |floor((k-1)/2) - y| (a wave), which
  together block all k groups of the row; the columns and diagonals are single
  groups of exactly k cells, and each in turn -- the one with the fewest free
  cells first, ties broken diagonals, anti-diagonals, columns, left to right --
  pairs its two lowest free cells. This fill is a fixed greedy rule, not the
  paper's wave figure.
* ``m x n`` with n < k (only the rows hold groups): each row pairs columns
  (0,1), (2,3), ...; any k >= 3 consecutive cells hold one such pair. With
  m < k the same is done along the columns; with both below k no group exists.
"""

from __future__ import annotations

from kinarow.errors import KinarowError

Cell = tuple[int, int]
PairXY = tuple[Cell, Cell]

FAMILIES = ("(k,k,k), k >= 5", "(k+1,k+1,k), k >= 6", "(2k-1,k,k), k >= 7", "(m,n,k) with n < k or m < k")


def family(m: int, n: int, k: int) -> str | None:
    """The name of the family that covers the m x n board with k in a row (either orientation), or None."""
    if k >= 3 and (n < k or m < k):
        return FAMILIES[3]
    a, b = max(m, n), min(m, n)
    if a == b == k and k >= 5:
        return FAMILIES[0]
    if a == b == k + 1 and k >= 6:
        return FAMILIES[1]
    if a == 2 * k - 1 and b == k and k >= 7:
        return FAMILIES[2]
    return None


def construct_xy(m: int, n: int, k: int) -> list[PairXY]:
    """The pairs of the family's pairing for the m x n board, as ((x, y), (x, y)); one sentence if none applies."""
    name = family(m, n, k)
    if name is None:
        raise KinarowError(
            f"no published pairing family covers the {m}x{n} board with k = {k}; the families are "
            + ", ".join(FAMILIES)
        )
    if name == FAMILIES[3]:
        return _few_rows(m, n, k)
    if m < n:  # build the transposed board and reflect it
        return [((ay, ax), (by, bx)) for (ax, ay), (bx, by) in construct_xy(n, m, k)]
    if name == FAMILIES[0]:
        return _square(k)
    if name == FAMILIES[1]:
        return _square_plus_one(k)
    return _wide(k)


def _few_rows(m: int, n: int, k: int) -> list[PairXY]:
    pairs: list[PairXY] = []
    if n < k <= m:
        for y in range(n):
            pairs += [((x, y), (x + 1, y)) for x in range(0, m - 1, 2)]
    elif m < k <= n:
        for x in range(m):
            pairs += [((x, y), (x, y + 1)) for y in range(0, n - 1, 2)]
    return pairs


def _square(k: int) -> list[PairXY]:
    """k x k, k >= 5: every line is a single group; two cells of each line, all disjoint."""
    t = k - 1  # the last row and column
    pairs = [((t - 1, y), (t, y)) for y in range(k - 2)]  # rows 0..k-3
    pairs += [((x, t - 1), (x, t)) for x in (t - 1, t)]  # the last two columns
    pairs += [((1, y), (2, y)) for y in (t - 1, t)]  # the top two rows
    pairs += [((0, 0), (1, 1)), ((0, t), (2, t - 2))]  # the two diagonals
    pairs += [((0, 1), (0, 2)), ((1, 0), (1, 2)), ((2, 0), (2, 1))]  # columns 0, 1, 2
    pairs += [((x, 0), (x, 1)) for x in range(3, t - 1)]  # columns 3..k-3
    return pairs


def _square_plus_one(k: int) -> list[PairXY]:
    """(k+1) x (k+1), k >= 6: corners for the diagonals, pinwheels for the rows and columns."""
    e = k  # the last row and column
    pairs = [((0, 0), (1, 1)), ((e - 1, e - 1), (e, e)), ((0, e), (1, e - 1)), ((e - 1, 1), (e, 0))]
    pairs += [((0, 1), (e - 1, e)), ((1, 0), (e, e - 1)), ((0, e - 1), (e - 1, 0)), ((1, e), (e, 1))]
    pairs += [((2, y), (3, y)) for y in (0, 1)]  # rows 0 and 1
    pairs += [((e - 3, y), (e - 2, y)) for y in (e - 1, e)]  # rows k-1 and k
    pairs += [((x, e - 3), (x, e - 2)) for x in (0, 1)]  # columns 0 and 1
    pairs += [((x, 2), (x, 3)) for x in (e - 1, e)]  # columns k-1 and k
    pairs += [((1, y), (2, y)) for y in range(2, e - 3)]  # rows 2..k-4
    pairs += [((2, e - 3), (e - 2, e - 3)), ((e - 2, e - 2), (e - 1, e - 2))]  # rows k-3 and k-2
    pairs += [((x, 1), (x, 2)) for x in range(4, e - 1)]  # columns 4..k-2
    pairs += [((2, e - 2), (2, e - 1)), ((3, 2), (3, 3))]  # columns 2 and 3
    return pairs


def _wide(k: int) -> list[PairXY]:
    """(2k-1) x k, k >= 7: a wave of neighbour pairs for the rows, then the k-cell lines by a greedy rule."""
    used: set[Cell] = set()
    pairs: list[PairXY] = []

    def take(a: Cell, b: Cell) -> None:
        used.update((a, b))
        pairs.append((a, b))

    middle = (k - 1) // 2
    for y in range(k):
        j = abs(middle - y)
        take((j, y), (j + 1, y))
        take((j + k - 1, y), (j + k, y))
    lines: list[list[Cell]] = []
    for s in range(k):
        lines.append([(s + i, i) for i in range(k)])
        lines.append([(s + i, k - 1 - i) for i in range(k)])
    lines += [[(x, y) for y in range(k)] for x in range(2 * k - 1)]
    todo = set(range(len(lines)))
    while todo:
        index = min(todo, key=lambda i: (sum(c not in used for c in lines[i]), i))
        todo.remove(index)
        free = sorted((c for c in lines[index] if c not in used), key=lambda c: (c[1], c[0]))
        if len(free) < 2:  # never happens for 7 <= k <= 40 (checked); kept as a clear failure
            raise KinarowError(f"the (2k-1, k, k) rule runs out of cells for k = {k}")
        take(free[0], free[1])
    return pairs
