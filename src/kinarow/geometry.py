"""Board geometry as data: cells, names, groups and symmetries.

One code path serves every board: a geometry is a set of cells on an m x n
grid, a set of *directions*, and which axes wrap (none for ``rect``, x for
``cylinder``, both for ``torus``). A *group* (winning line) is k distinct
cells ``c, c+d, ..., c+(k-1)d`` along a direction d, wrapping where the
axis wraps. Symmetries are the affine cell maps that send the group
hypergraph onto itself (and, under gravity, keep every row in place).

Cells are numbered column-major: cell ``x * n + y`` is column x (0 = 'a'),
row y (0 = bottom row '1'). Under gravity the cell above c is c + 1.
"""

from __future__ import annotations

import itertools
import re
from functools import cached_property
from typing import TYPE_CHECKING

from kinarow.errors import GameSpecError, IllegalMoveError, MoveError, shown

if TYPE_CHECKING:
    from kinarow.game import Game

#: the most columns or rows a board has: columns are named a..zz (:func:`column_name`)
MAX_SIDE = 702

SQUARE_DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (1, 1), (1, -1))
HEX_DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (1, -1))
DIRECTION_NAMES = {(1, 0): "horizontal", (0, 1): "vertical", (1, 1): "diagonal", (1, -1): "anti"}

# ASCII only: a full-width or Arabic-Indic digit is not a row number, and 'K' (the Kelvin sign) is no 'k'
_CELL_RE = re.compile(r"([a-z]+)([0-9]+)", re.ASCII)
#: the longest column name (``zz``) and row number (``702``) of the largest board; longer ones are off every board
_MAX_LETTERS, _MAX_DIGITS = len("zz"), len(str(MAX_SIDE))


def column_name(x: int) -> str:
    """Column letters: 0 -> 'a', 25 -> 'z', 26 -> 'aa', 27 -> 'ab', ..."""
    name = ""
    x += 1
    while x > 0:
        x, r = divmod(x - 1, 26)
        name = chr(ord("a") + r) + name
    return name


def column_index(name: str) -> int:
    """Inverse of :func:`column_name` ('a' -> 0, 'aa' -> 26)."""
    x = 0
    for ch in name:
        x = x * 26 + (ord(ch) - ord("a") + 1)
    return x - 1


class Geometry:
    """Cells, names, groups and symmetries of a game's board."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.m, self.n, self.k = game.m, game.n, game.k
        self.wrap_x = game.topology in ("torus", "cylinder")
        self.wrap_y = game.topology == "torus"
        self.directions = HEX_DIRECTIONS if game.hex else SQUARE_DIRECTIONS

    # -- cells --------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self.m * self.n

    def cell(self, x: int, y: int) -> int:
        return x * self.n + y

    def xy(self, cell: int) -> tuple[int, int]:
        return divmod(cell, self.n)

    def name(self, cell: int) -> str:
        x, y = self.xy(cell)
        return f"{column_name(x)}{y + 1}"

    def parse_cell(self, text: str) -> int:
        """Cell index of a name like ``'b2'``; one clear sentence if it is not on the board."""
        if not isinstance(text, str):
            raise MoveError(f"a cell is named by text like 'b2', not by a {type(text).__name__}")
        token = text.strip()
        match = _CELL_RE.fullmatch(token.lower()) if token.isascii() else None
        last = f"{column_name(self.m - 1)}{self.n}"
        if match is None or len(match[1]) > _MAX_LETTERS:  # no board has a column of three letters
            raise MoveError(f"{shown(text)} is not a cell name; cells are named a1 (bottom-left) to {last}")
        letters, digits = match[1], match[2].lstrip("0") or "0"
        x = column_index(letters)
        y = int(digits) - 1 if len(digits) <= _MAX_DIGITS else self.n
        if not (0 <= x < self.m and 0 <= y < self.n):
            raise IllegalMoveError(f"{shown(text)} is off the board; cells run from a1 to {last}")
        return self.cell(x, y)

    def parse_column(self, text: str) -> int:
        """Column index from a letter (``'d'``) or a 1-based number (``'4'``), in ASCII."""
        if not isinstance(text, str):
            raise MoveError(f"a column is named by text like 'd' or '4', not by a {type(text).__name__}")
        token = text.strip().lower()
        last = column_name(self.m - 1)
        if not token.isascii() or not (token.isdigit() or (token.isalpha() and len(token) <= _MAX_LETTERS)):
            raise MoveError(f"{shown(text)} is not a column; give a letter a-{last} or 1-{self.m}")
        if token.isdigit():
            digits = token.lstrip("0") or "0"
            x = int(digits) - 1 if len(digits) <= _MAX_DIGITS else self.m
        else:
            x = column_index(token)
        if not 0 <= x < self.m:
            raise IllegalMoveError(f"column {shown(text)} is off the board; columns are a-{last} or 1-{self.m}")
        return x

    # -- groups -------------------------------------------------------------------
    def _wrap(self, x: int, y: int) -> tuple[int, int] | None:
        if self.wrap_x:
            x %= self.m
        elif not 0 <= x < self.m:
            return None
        if self.wrap_y:
            y %= self.n
        elif not 0 <= y < self.n:
            return None
        return x, y

    @cached_property
    def groups(self) -> tuple[tuple[int, ...], ...]:
        """Every group (k distinct cells in a line) as a sorted tuple of cells, without repeats."""
        return tuple(self._lines)

    @cached_property
    def _lines(self) -> dict[tuple[int, ...], frozenset[int]]:
        """Each group (in the order of :attr:`groups`) with its flanks: the cells one step before its first cell
        and one step after its last along its line, where the board has them and they are not its own cells."""
        out: dict[tuple[int, ...], frozenset[int]] = {}
        for dx, dy in self.directions:
            for x in range(self.m):
                for y in range(self.n):
                    cells = []
                    for i in range(self.k):
                        w = self._wrap(x + i * dx, y + i * dy)
                        if w is None:
                            break
                        cells.append(self.cell(*w))
                    if len(cells) != self.k or len(set(cells)) != self.k:
                        continue
                    key = tuple(sorted(cells))
                    ends = (self._wrap(x - dx, y - dy), self._wrap(x + self.k * dx, y + self.k * dy))
                    flanks = frozenset(self.cell(*w) for w in ends if w is not None) - set(cells)
                    if key not in out:
                        out[key] = flanks
                    elif out[key] != flanks and self.game.exact:
                        # a set of cells on two lines (a degenerate wrap): which cells extend it is not one answer
                        raise GameSpecError(f"{self.game} puts one group on two lines with different ends, so "
                                            "'exact' (no overline) has no single meaning there; allowed are "
                                            "boards whose groups lie on one line each")
        return out

    @cached_property
    def flanks(self) -> tuple[tuple[int, ...], ...]:
        """The flanks of each group in :attr:`groups` (same order), sorted: under the ``exact`` rule a group wins
        for its owner only while the owner holds none of them (else its line runs past K)."""
        return tuple(tuple(sorted(f)) for f in self._lines.values())

    @cached_property
    def flank_masks(self) -> tuple[int, ...]:
        """The flanks of each group as a bit mask when the game has the ``exact`` rule; 0 for every group
        otherwise (no cell then spoils a group), so one test -- the group's cells owned, none of its flank
        cells -- decides both rules."""
        if not self.game.exact:
            return (0,) * len(self.groups)
        return tuple(sum(1 << c for c in f) for f in self.flanks)

    def owns_group_through(self, cell: int, board: list[int], player: int) -> bool:
        """Does ``player`` own a whole group through ``cell`` on ``board`` (one owner per cell)?

        Walks the lines through ``cell`` instead of listing the groups, so it needs no table: on a large
        board (702 x 702 has 2 million groups) the group masks would take gigabytes. A run of K of the
        player's stones along a direction holds a group; on a wrapped line the run stops where it meets
        itself, since a group's cells are distinct. Under the ``exact`` rule the run must be exactly K long.
        """
        k = self.k
        if self.game.exact:
            return any(len(run) == k for run in self.runs_through(cell, board, player))
        x0, y0 = self.xy(cell)
        for dx, dy in self.directions:
            count, round_the_line = 1, False
            for sign in (1, -1):
                x, y = x0, y0
                while count < k:
                    w = self._wrap(x + sign * dx, y + sign * dy)
                    if w is None or board[self.cell(*w)] != player:
                        break
                    if w == (x0, y0):
                        round_the_line = True  # the whole wrapped line is the player's: not to be counted twice
                        break
                    x, y = w
                    count += 1
                if round_the_line:
                    break
            if count >= k:
                return True
        return False

    def runs_through(self, cell: int, board: list[int], player: int) -> tuple[tuple[int, ...], ...]:
        """The runs of at least K of ``player``'s stones through ``cell`` on ``board``, one per direction.

        A run is the longest line of the player's stones along a direction through ``cell``, listed from one end
        to the other (it may be longer than K); on a wrapped line it stops where it meets itself. These are the
        cells of the lines :meth:`owns_group_through` finds.
        """
        if board[cell] != player:
            return ()
        x0, y0 = self.xy(cell)
        runs = []
        for dx, dy in self.directions:
            ends: list[list[int]] = [[], []]  # the cells after ``cell`` one way, and the other way
            seen = {(x0, y0)}
            for side, sign in enumerate((1, -1)):
                x, y = x0, y0
                while True:
                    w = self._wrap(x + sign * dx, y + sign * dy)
                    if w is None or w in seen or board[self.cell(*w)] != player:
                        break
                    seen.add(w)
                    ends[side].append(self.cell(*w))
                    x, y = w
            run = (*reversed(ends[1]), cell, *ends[0])
            if len(run) >= self.k:
                runs.append(run)
        return tuple(runs)

    @cached_property
    def group_directions(self) -> tuple[tuple[int, int], ...]:
        """The direction of each group in :attr:`groups` (same order)."""
        dirs = []
        for g in self.groups:
            found = next((d for d in self.directions if self._follows(g, *d)), None)
            assert found is not None, "every group lies along one of the board's directions"
            dirs.append(found)
        return tuple(dirs)

    def _follows(self, group: tuple[int, ...], dx: int, dy: int) -> bool:
        cells = set(group)
        for start in group:
            x, y = self.xy(start)
            line = []
            for i in range(self.k):
                w = self._wrap(x + i * dx, y + i * dy)
                if w is None:
                    break
                line.append(self.cell(*w))
            if set(line) == cells:
                return True
        return False

    @cached_property
    def cell_groups(self) -> tuple[tuple[int, ...], ...]:
        """For each cell, the indices of the groups that contain it."""
        incidence: list[list[int]] = [[] for _ in range(self.size)]
        for gi, g in enumerate(self.groups):
            for c in g:
                incidence[c].append(gi)
        return tuple(tuple(row) for row in incidence)

    @cached_property
    def group_masks(self) -> tuple[int, ...]:
        """The groups as bit masks (bit ``c`` for cell ``c``)."""
        return tuple(sum(1 << c for c in g) for g in self.groups)

    @cached_property
    def cell_group_masks(self) -> tuple[tuple[int, ...], ...]:
        """For each cell, the masks of the groups that contain it."""
        masks = self.group_masks
        return tuple(tuple(masks[g] for g in row) for row in self.cell_groups)

    # -- symmetries -----------------------------------------------------------------
    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The board's symmetry group as cell permutations (identity first).

        A permutation ``s`` maps cell ``c`` to ``s[c]``. Found by trying every
        affine map ``(x, y) -> A(x, y) + t`` with entries of A in {-1, 0, 1}
        and keeping those that map the groups onto the groups (and, under
        gravity, keep each row in place).
        """
        group_set = set(self.groups)
        cells_xy = [self.xy(c) for c in range(self.size)]
        identity = tuple(range(self.size))
        found: dict[tuple[int, ...], None] = {identity: None}
        for a, b, c, d in itertools.product((-1, 0, 1), repeat=4):
            if a * d - b * c == 0:
                continue
            image = [(a * x + b * y, c * x + d * y) for x, y in cells_xy]
            if self.game.gravity and (b != 0 or c != 0 or d != 1):
                continue
            # Bring the image back onto the board: reduce wrapped axes, shift the others.
            xs = [p[0] for p in image]
            ys = [p[1] for p in image]
            sx = 0 if self.wrap_x else -min(xs)
            sy = 0 if self.wrap_y else -min(ys)
            base = self._placed(image, sx, sy)
            if base is None or not self._is_automorphism(base, group_set):
                continue
            shifts_x = range(self.m) if self.wrap_x else (0,)
            shifts_y = range(self.n) if self.wrap_y else (0,)
            for tx in shifts_x:
                for ty in shifts_y:
                    perm = tuple(self.cell((cx + tx) % self.m, (cy + ty) % self.n) for cx, cy in map(self.xy, base))
                    found.setdefault(perm, None)
        if self.game.exact:  # the map must also carry each group's flanks onto its image's
            lines = self._lines
            found = {perm: None for perm in found
                     if all(frozenset(perm[c] for c in f) == lines[tuple(sorted(perm[c] for c in g))]
                            for g, f in lines.items())}
        return tuple(found)

    def _placed(self, image: list[tuple[int, int]], sx: int, sy: int) -> tuple[int, ...] | None:
        perm = []
        for x, y in image:
            w = self._wrap(x + sx, y + sy)
            if w is None:
                return None
            perm.append(self.cell(*w))
        if len(set(perm)) != self.size:
            return None
        return tuple(perm)

    def _is_automorphism(self, perm: tuple[int, ...], group_set: set[tuple[int, ...]]) -> bool:
        return all(tuple(sorted(perm[c] for c in g)) in group_set for g in self.groups)

    # -- gravity ------------------------------------------------------------------------
    def column_cells(self, x: int) -> range:
        return range(x * self.n, (x + 1) * self.n)
