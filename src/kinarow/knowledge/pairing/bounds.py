"""Counting bounds that rule out a good pairing without any search.

Two necessary conditions from the literature (the brief's pairing page):

* **Lemma 9 / Theorem 10** (Tung & Lau, "Two methods for investigating the
  generalized tic-tac-toe"): a pair blocks only groups of the one line that
  holds both its cells, at most k - 1 consecutive ones, so a line of l >= k
  cells needs floor((l - 1) / (k - 1)) pairs lying along it. Summed over the
  lines of the board this is a number of paired cells that must fit on it.
* **Proposition 1** (Csernenszky, Martin & Pluhar; used by Gyorffy, London &
  Makay): for every set X of cells, the groups lying inside X each hold a pair
  inside X; there are at most floor(|X| / 2) such pairs and each blocks at
  most d2 groups (d2: the largest number of groups of X holding two given
  cells), so d2 * floor(|X| / 2) >= (groups inside X).

Both are necessary, never sufficient. :func:`exclusion` tries them on a board
or position and returns the first that fails, with one sentence saying why.
On the infinite board, :func:`infinite_exclusion` applies Proposition 1 to
growing squares (or, on the hexagonal grid, rhombi) until it fails.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations

from kinarow.game import Game
from kinarow.geometry import HEX_DIRECTIONS, SQUARE_DIRECTIONS
from kinarow.position import Position

THEOREM_10 = "Theorem 10"
PROPOSITION_1 = "Proposition 1"


@dataclass(frozen=True)
class Exclusion:
    """A bound that proves no good pairing exists: which one, and the numbers."""

    bound: str  # THEOREM_10 or PROPOSITION_1
    reason: str  # one sentence

    def __str__(self) -> str:
        return f"excluded by {self.bound}: {self.reason}"


# -- lines of a rectangle ------------------------------------------------------------
def rect_line_lengths(width: int, height: int, directions: tuple[tuple[int, int], ...]) -> list[int]:
    """Lengths of the maximal lines of a width x height rectangle of the grid, every direction.

    Rows hold ``width`` cells, columns ``height``; the i-th of the width + height - 1
    lines of a diagonal direction holds min(i + 1, width, height, width + height - 1 - i).
    """
    lengths: list[int] = []
    for dx, dy in directions:
        if (dx, dy) == (1, 0):
            lengths += [width] * height
        elif (dx, dy) == (0, 1):
            lengths += [height] * width
        elif abs(dx) == 1 and abs(dy) == 1:
            span = width + height - 1
            lengths += [min(i + 1, width, height, span - i) for i in range(span)]
        else:  # pragma: no cover - every board direction is one of the above
            raise ValueError(f"direction {(dx, dy)} is not a grid direction")
    return lengths


def line_lengths(game: Game) -> list[int]:
    """Lengths of the board's maximal lines (every direction), counted cell by cell on a rect board."""
    return rect_line_lengths(game.m, game.n, game.geometry.directions)


def pairs_needed_on_line(length: int, k: int) -> int:
    """Pairs a line of ``length`` cells needs along it so every k of its consecutive cells hold one (Lemma 9)."""
    return (length - 1) // (k - 1) if length >= k else 0


def paired_cells_needed(game: Game) -> int:
    """Cells a good pairing must use, counted line by line (Tung & Lau, Lemma 9).

    A pair blocks only groups of the line holding both its cells, at most
    k - 1 consecutive ones, so a line of l >= k cells needs at least
    2 * floor((l - 1) / (k - 1)) paired cells of its own.
    """
    k = game.k
    if k < 2:
        return game.cells + 1  # a group of one cell holds no pair: impossible
    return sum(2 * pairs_needed_on_line(length, k) for length in line_lengths(game))


def theorem10_bound(m: int, n: int, k: int) -> int:
    """Right-hand side of Tung & Lau's Theorem 10 as the brief states it (m >= n; a pairing needs mn >= it)."""
    if m < n:
        m, n = n, m
    f = lambda x: x // (k - 1)  # noqa: E731
    return 2 * (n * f(m - 1) + m * f(n - 1) + 4 * sum(f(i - 1) for i in range(1, n)) + 2 * (m - n + 1) * f(n - 1))


def theorem10_rect(game: Game) -> Exclusion | None:
    """Theorem 10 on the empty board, then on every sub-board (a w x h rectangle of it).

    A good pairing of the board, cut down to the pairs inside a sub-board, is a
    good pairing of the sub-board (its groups are groups of the board, and a
    pair blocking one lies inside it), so a sub-board that Theorem 10 excludes
    excludes the board too.
    """
    needed = paired_cells_needed(game)
    if needed > game.cells:
        return Exclusion(
            THEOREM_10,
            f"the lines of {game} need {needed} paired cells (Lemma 9 summed over its lines), "
            f"more than its {game.cells} cells",
        )
    sub = theorem10_sub_board(game)
    if sub is None:
        return None
    width, height = sub
    lengths = rect_line_lengths(width, height, game.geometry.directions)
    needed = sum(2 * pairs_needed_on_line(n, game.k) for n in lengths)
    return Exclusion(
        THEOREM_10,
        f"its {width}x{height} sub-board alone needs {needed} paired cells (Lemma 9 summed over the "
        f"sub-board's lines), more than its {width * height} cells, and a good pairing of the board "
        "would give one of the sub-board",
    )


def theorem10_sub_board(game: Game) -> tuple[int, int] | None:
    """The first sub-board (width, height) that Theorem 10 excludes, the whole board included; None if none."""
    k, directions = game.k, game.geometry.directions
    if paired_cells_needed(game) > game.cells:
        return game.m, game.n
    for width in range(1, game.m + 1):
        for height in range(1, game.n + 1):
            needed = sum(2 * pairs_needed_on_line(n, k) for n in rect_line_lengths(width, height, directions))
            if needed > width * height:
                return width, height
    return None


# -- Proposition 1 on rectangles ------------------------------------------------------
def rect_counts(width: int, height: int, k: int, directions: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    """(groups inside a width x height rectangle, d2 of those groups) for k in a row.

    On a line of l >= k cells two cells lie together in at most min(k - 1, l - k + 1)
    of its groups (two neighbours in the middle of the line), and cells on no
    common line lie together in none.
    """
    groups = 0
    d2 = 0
    for length in rect_line_lengths(width, height, directions):
        if length >= k:
            groups += length - k + 1
            d2 = max(d2, min(k - 1, length - k + 1))
    return groups, d2


def proposition1_rect(game: Game) -> Exclusion | None:
    """Proposition 1 on every sub-rectangle of an empty rect board (translates have equal counts)."""
    k = game.k
    directions = game.geometry.directions
    for width in range(1, game.m + 1):
        for height in range(1, game.n + 1):
            groups, d2 = rect_counts(width, height, k, directions)
            if groups and d2 * (width * height // 2) < groups:
                where = "the whole board" if (width, height) == (game.m, game.n) else f"a {width}x{height} rectangle"
                return Exclusion(
                    PROPOSITION_1,
                    f"{where} holds {groups} groups, but its {width * height} cells give at most "
                    f"{width * height // 2} pairs, each blocking at most d2 = {d2} of them",
                )
    return None


def proposition1_cells(groups: list[tuple[int, ...]], cells: set[int], what: str = "cells") -> Exclusion | None:
    """Proposition 1 with X = ``cells`` for the given groups (those lying inside X count)."""
    inside = [g for g in groups if all(c in cells for c in g)]
    if not inside:
        return None
    codegree: Counter[tuple[int, int]] = Counter()
    for g in inside:
        codegree.update(combinations(sorted(g), 2))
    d2 = max(codegree.values(), default=0)
    if d2 * (len(cells) // 2) < len(inside):
        return Exclusion(
            PROPOSITION_1,
            f"the {len(cells)} {what} give at most {len(cells) // 2} pairs, each blocking at most "
            f"d2 = {d2} of the {len(inside)} groups",
        )
    return None


def exclusion(position: Position, live: list[tuple[int, ...]] | None = None) -> Exclusion | None:
    """The first counting bound that rules out a good pairing for ``position``, or None.

    On an empty rect board: Theorem 10 (Lemma 9 over the lines), then Proposition 1
    on every sub-rectangle. After moves, or on a torus or cylinder: Proposition 1
    with X = the empty cells and the groups still live for the first player
    (a pair never uses a stone, so a group with a Black stone needs its pair
    among its empty cells).
    """
    game = position.game
    if game.k < 2:
        return None
    if not position.moves and game.topology == "rect":
        return theorem10_rect(game) or proposition1_rect(game)
    board = position.board
    if live is None:
        live = [g for g in position.geometry.groups if all(board[c] != 2 for c in g)]
    empty = {c for c in range(game.cells) if board[c] == 0}
    empty_parts = [tuple(c for c in g if board[c] == 0) for g in live]
    return proposition1_cells(empty_parts, empty, "empty cells")


# -- the infinite board ------------------------------------------------------------------
@dataclass(frozen=True)
class InfiniteExclusion:
    """Proposition 1 failing on a side x side region of the infinite grid (None: not within the sides tried)."""

    k: int
    grid: str  # "square" or "hex"
    side: int | None
    groups: int
    cells: int
    d2: int
    density: float  # groups per cell in the limit: the number of directions
    limit: float  # d2 / 2: pairs per cell times groups per pair


def infinite_exclusion(k: int, grid: str = "square", max_side: int = 400) -> InfiniteExclusion:
    """Proposition 1 on s x s regions of the infinite board, s = k, k+1, ..., max_side.

    On the square grid (four directions) a region is an s x s square; on the
    hexagonal grid (three directions, axial coordinates) it is an s x s rhombus.
    Two neighbours on a line lie together in at most k - 1 groups (d2 <= k - 1;
    the region's own d2 is used, which is smaller for small regions); a region
    of s*s cells holds about D*s*s groups (D directions), so the condition fails
    for large s exactly when (k - 1) / 2 < D: k <= 8 on the square grid, k <= 6
    on the hexagonal one. The region sizes are computed, not assumed: the first
    side where the count fails is returned.
    """
    directions = SQUARE_DIRECTIONS if grid == "square" else HEX_DIRECTIONS
    last = (0, 0, 0)
    for side in range(k, max_side + 1):
        groups, d2 = rect_counts(side, side, k, directions)  # d2 <= k - 1, the infinite board's co-degree
        last = (side, groups, d2)
        if d2 * (side * side // 2) < groups:
            return InfiniteExclusion(k, grid, side, groups, side * side, d2, len(directions), (k - 1) / 2)
    side, groups, d2 = last
    return InfiniteExclusion(k, grid, None, groups, side * side, d2, len(directions), (k - 1) / 2)
