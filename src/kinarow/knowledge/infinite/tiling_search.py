"""Search for periodic strategies: ragged-block tiles, lattices, chosen groups, a Breaker-win local game.

A *ragged block* is ``rows`` rows of ``width`` consecutive cells, row i
shifted by ``offsets[i]`` (row 0 unshifted). Every sublattice of index
``rows * width`` is tried (its Hermite basis (d1, 0), (t, d2) with
d1 * d2 = rows * width, 0 <= t < d1); a block and lattice that tile the plane
exactly are kept. The chosen groups are the block's rows (all of them) plus
a choice of vertical and diagonal segments of given lengths; each direction's
longest run is computed for each choice on its own (runs along one direction
depend only on the groups of that direction), and the survivors are checked
by the exhaustive Maker-Breaker game on the tile (Breaker moving second).

:func:`zetters` asks for the published shape (Uiterwijk's description of the
Zetters block, 8-in-a-row): 3 rows of 4, 4 diagonal groups of 3, 2 vertical
groups of 2, four cells in 3 groups and the others in 2, runs at most 6
horizontally and vertically and at most 7 diagonally.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from kinarow.errors import KinarowError
from kinarow.proofs.tiling import Cell, Tiling, breaker_wins, max_runs, tiles_exactly

#: the largest block the search tries: the Maker-Breaker kernel (:class:`FastGame`) holds at most 64 cells
MAX_BLOCK_CELLS = 64
#: the largest k searched: a block's segments are shorter than 64 cells, so a larger k adds nothing to try
#: (and every k >= 9 is a draw by the Hales-Jewett pairing already)
MAX_K = 64


def lattices(det: int) -> Iterator[tuple[Cell, Cell]]:
    """Every sublattice of Z^2 of index ``det``, by its Hermite basis."""
    for d1 in range(1, det + 1):
        if det % d1:
            continue
        d2 = det // d1
        for t in range(d1):
            yield (d1, 0), (t, d2)


def ragged_block(offsets: tuple[int, ...], width: int) -> tuple[Cell, ...]:
    return tuple((o + x, y) for y, o in enumerate(offsets) for x in range(width))


def segments(tile: tuple[Cell, ...], direction: Cell, length: int) -> list[tuple[Cell, ...]]:
    """Every segment of ``length`` consecutive cells along ``direction`` inside the tile."""
    cells = set(tile)
    found = []
    for c in sorted(cells):
        seg = tuple((c[0] + i * direction[0], c[1] + i * direction[1]) for i in range(length))
        if all(s in cells for s in seg):
            found.append(seg)
    return found


@dataclass(frozen=True)
class Found:
    tiling: Tiling
    runs: dict[str, int | None]


def _run(tile: tuple[Cell, ...], lattice: tuple[Cell, Cell], groups: tuple[tuple[Cell, ...], ...], name: str) -> int:
    runs = max_runs(Tiling("probe", tile, lattice, groups, {"kind": "maker-breaker"}), only=(name,))
    value = runs[name]
    return 10**9 if value is None else value


def search_blocks(
    rows: int,
    width: int,
    *,
    vertical: tuple[int, int],  # (how many groups, length)
    diagonal: tuple[int, int],  # (how many groups, length), both diagonal directions together
    max_straight: int,  # longest allowed horizontal and vertical run
    max_diagonal: int,  # longest allowed diagonal and anti-diagonal run
    max_offset: int = 3,
    degrees: Counter[int] | None = None,  # required histogram: cells per number of groups
    limit: int | None = None,
    on_found: Callable[[Found], None] | None = None,
) -> list[Found]:
    """Ragged blocks with lattices and groups meeting the run bounds and won by Breaker on the tile."""
    found: list[Found] = []
    size = rows * width
    for rest in itertools.product(range(-max_offset, max_offset + 1), repeat=rows - 1):
        offsets = (0, *rest)
        tile = ragged_block(offsets, width)
        row_groups = tuple(tuple((o + x, y) for x in range(width)) for y, o in enumerate(offsets))
        verticals = segments(tile, (0, 1), vertical[1])
        diagonals = segments(tile, (1, 1), diagonal[1]) + segments(tile, (1, -1), diagonal[1])
        for lattice in lattices(size):
            if not tiles_exactly(tile, lattice).ok:
                continue
            if _run(tile, lattice, row_groups, "horizontal") > max_straight:
                continue
            v_ok = [
                c for c in itertools.combinations(verticals, vertical[0])
                if _run(tile, lattice, c, "vertical") <= max_straight
            ]
            if not v_ok:
                continue
            d_ok = [
                c for c in itertools.combinations(diagonals, diagonal[0])
                if _run(tile, lattice, c, "diagonal") <= max_diagonal and _run(tile, lattice, c, "anti") <= max_diagonal
            ]
            for vs, ds in itertools.product(v_ok, d_ok):
                groups = row_groups + vs + ds
                if degrees is not None:
                    count = Counter(sum(c in g for g in groups) for c in tile)
                    if count != degrees:
                        continue
                if not breaker_wins(tile, groups):
                    continue
                t = Tiling(f"block {offsets} lattice {lattice}", tile, lattice, groups, {"kind": "maker-breaker"})
                hit = Found(t, max_runs(t))
                found.append(hit)
                if on_found is not None:
                    on_found(hit)
                if limit is not None and len(found) >= limit:
                    return found
    return found


def _hnf_distinct(cells: list[Cell], d1: int, t: int, d2: int) -> bool:
    """Are the cells pairwise distinct modulo the lattice with Hermite basis (d1, 0), (t, d2)?"""
    keys = set()
    for x, y in cells:
        j = y // d2
        keys.add(((x - j * t) % d1, y - j * d2))
    return len(keys) == len(cells)


def mirrored_pairs(
    rows: int,
    width: int,
    *,
    vertical: tuple[int, int],
    diagonal: tuple[int, int],
    max_straight: int,
    max_diagonal: int,
    max_offset: int = 3,
    degrees: Counter[int] | None = None,
    shift_range: int = 8,
    limit: int | None = None,
) -> list[Found]:
    """Ragged blocks tiled together with their mirror images (x -> -x): two blocks per period.

    The period is a block B and a mirrored copy M(B) + u; the lattice has index
    2 * rows * width. The copy's groups are the mirror images of B's, so both
    blocks play the same local game. The second player answers in the block
    where the first player moved.
    """
    found: list[Found] = []
    size = rows * width
    index = 2 * size
    hnf = [(d1, t, index // d1) for d1 in range(1, index + 1) if index % d1 == 0 for t in range(d1)]
    for rest in itertools.product(range(-max_offset, max_offset + 1), repeat=rows - 1):
        offsets = (0, *rest)
        block = ragged_block(offsets, width)
        row_groups = tuple(tuple((o + x, y) for x in range(width)) for y, o in enumerate(offsets))
        verticals = segments(block, (0, 1), vertical[1])
        diagonals = segments(block, (1, 1), diagonal[1]) + segments(block, (1, -1), diagonal[1])
        choices = []
        for vs in itertools.combinations(verticals, vertical[0]):
            for ds in itertools.combinations(diagonals, diagonal[0]):
                groups = row_groups + vs + ds
                if degrees is not None and Counter(sum(c in g for g in groups) for c in block) != degrees:
                    continue
                choices.append(groups)
        if not choices:
            continue
        winners = [g for g in choices if breaker_wins(block, g)]
        if not winners:
            continue
        for ux in range(-shift_range, shift_range + 1):
            for uy in range(-rows, rows + 1):
                copy = [(-x + ux, y + uy) for x, y in block]
                if set(copy) & set(block):
                    continue
                tile = list(block) + copy
                for d1, t, d2 in hnf:
                    if not _hnf_distinct(tile, d1, t, d2):
                        continue
                    lattice = ((d1, 0), (t, d2))
                    for groups in winners:
                        mirrored = tuple(tuple((-x + ux, y + uy) for x, y in g) for g in groups)
                        candidate = Tiling(
                            f"block {offsets} with its mirror image at {(ux, uy)}, lattice {lattice}",
                            tuple(tile), lattice, groups + mirrored, {"kind": "maker-breaker"},
                            blocks=(tuple(block), tuple(copy)),
                        )
                        runs = max_runs(candidate)
                        if any(r is None for r in runs.values()):
                            continue
                        straight = max(runs["horizontal"] or 0, runs["vertical"] or 0)
                        slanted = max(runs["diagonal"] or 0, runs["anti"] or 0)
                        if straight <= max_straight and slanted <= max_diagonal:
                            found.append(Found(candidate, runs))
                            if limit is not None and len(found) >= limit:
                                return found
    return found


def zetters(limit: int | None = None) -> list[Found]:
    """Reconstruct the Zetters block (8-in-a-row) from its published description.

    No single 3 x 4 ragged block tiles the plane by translations with the
    published runs (:func:`search_blocks` finds none); a block tiled together
    with its mirror image does.
    """
    return mirrored_pairs(
        3, 4, vertical=(2, 2), diagonal=(4, 3), max_straight=6, max_diagonal=7,
        degrees=Counter({2: 8, 3: 4}), limit=limit,
    )


def zetters_single(limit: int | None = None) -> list[Found]:
    """The same description with translates of one block only (finds nothing)."""
    return search_blocks(
        3, 4, vertical=(2, 2), diagonal=(4, 3), max_straight=6, max_diagonal=7,
        degrees=Counter({2: 8, 3: 4}), limit=limit,
    )


DIRECTIONS = {"horizontal": (1, 0), "vertical": (0, 1), "diagonal": (1, 1), "anti": (1, -1)}
MIRROR_OF = {"horizontal": "horizontal", "vertical": "vertical", "diagonal": "anti", "anti": "diagonal"}


def _potential(groups: tuple[tuple[Cell, ...], ...]) -> float:
    return sum(2.0 ** -len(g) for g in groups)


def _along(g: tuple[Cell, ...], v: Cell) -> bool:
    step = (g[1][0] - g[0][0], g[1][1] - g[0][1])
    return step in (v, (-v[0], -v[1]))


def _mirror(groups: tuple[tuple[Cell, ...], ...], shift: Cell) -> tuple[tuple[Cell, ...], ...]:
    return tuple(tuple((-x + shift[0], y + shift[1]) for x, y in g) for g in groups)


class FastGame:
    """The Maker-Breaker game on a block, by the numba kernel (``engine.breaker``); one memo, a stamp per game.

    Used to sift candidates in the search; the strategy returned is re-verified
    by the rules-only checker of :mod:`kinarow.proofs.tiling`.
    """

    def __init__(self, max_cells: int = 64, max_groups: int = 256) -> None:
        import numpy as np

        from kinarow.engine import breaker as BK

        self.np = np
        self.BK = BK
        self.buf = BK.new_buffers(max_cells, max_groups)
        self.memo = BK.new_memo(18)
        self.ctrl = np.zeros(BK.N_CTRL, np.int64)
        self.stamp = 0

    def breaker_wins(self, cells: Sequence[Cell], groups: Sequence[Sequence[Cell]]) -> bool:
        np = self.np
        index = {c: i for i, c in enumerate(sorted(set(cells)))}
        masks = [sum(1 << index[c] for c in g) for g in groups]
        if len(index) > self.buf.shape[0] - 2 or len(masks) > self.buf.shape[1] - self.BK.N_FRAME:
            return breaker_wins(cells, groups)
        self.stamp += 1
        self.ctrl[self.BK.C_STAMP] = self.stamp
        self.ctrl[self.BK.C_NODES] = 0
        r = self.BK.breaker_wins(np.array(masks, np.uint64), np.uint64(0), np.uint64(0), True,
                                 self.buf, self.memo, self.ctrl)
        return bool(r == self.BK.BREAKER)


def search(
    k: int,
    max_cells: int,
    *,
    mirror: bool = False,
    max_rows: int = 3,
    per_direction: int = 4,
    per_option: int = 8,
    max_games: int = 200,
    shapes: Sequence[tuple[int, int]] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> Found | None:
    """A periodic strategy proving k-in-a-row a draw: longest runs <= k - 1 in every direction.

    Tiles are ragged blocks (up to ``max_rows`` rows of equal width, at most
    ``max_cells`` cells), smallest first, tiled by translations (or, with
    ``mirror``, together with their mirror images). For each block and
    lattice, each direction gets its sets of at most ``per_direction`` block
    segments (of 2 to k - 1 cells) whose translates leave runs <= k - 1;
    the combinations over all directions are tried in order of their
    Erdos-Selfridge potential (at most ``per_option`` options per direction,
    ``max_games`` exhaustive games per placement), and the first that Breaker
    (moving second) wins on the block is returned. None when nothing is found
    in range: the search is not exhaustive, so None proves nothing.
    ``shapes`` restricts the blocks to these (rows, width) shapes.
    """
    if not 3 <= k <= MAX_K:
        raise KinarowError(f"k = {k} is not searched; the tiling search takes k from 3 to {MAX_K}")
    if not 2 <= max_cells <= MAX_BLOCK_CELLS:
        raise KinarowError(f"blocks of at most {max_cells} cells are not searched; the largest block runs from 2 "
                           f"to {MAX_BLOCK_CELLS} cells")
    target = k - 1
    game = FastGame(MAX_BLOCK_CELLS)
    only = shapes
    shapes = [
        (rows, width)
        for rows in range(1, max_rows + 1)
        for width in range(1, max_cells // rows + 1)
        if rows * width >= 2
    ]
    shapes.sort(key=lambda s: (s[0] * s[1], s[0]))
    if only is not None:
        shapes = [s for s in shapes if s in set(only)]
    for done, (rows, width) in enumerate(shapes, start=1):
        if on_progress is not None:
            on_progress(done, len(shapes))
        size = rows * width
        for rest in _offsets_in_order(rows, width):
            block = ragged_block((0, *rest), width)
            segs = {
                name: [g for length in range(2, k) for g in segments(block, v, length)]
                for name, v in DIRECTIONS.items()
            }
            placements = _placements(block, size, mirror)
            for tile, lattice, shift in placements:
                options = _direction_options(tile, lattice, segs, shift, target, per_direction, mirror)
                if options is None:
                    continue
                # fewest, longest groups first (the Erdos-Selfridge potential, sum of 2^-|g|): the
                # likeliest Breaker wins; each direction keeps its best few options
                options = [sorted(o, key=_potential)[:per_option] for o in options]
                combos = sorted(itertools.product(*options), key=lambda c: sum(_potential(p) for p in c))
                for combo in combos[:max_games]:
                    groups = tuple(g for part in combo for g in part)
                    if not game.breaker_wins(block, groups):
                        continue
                    all_groups = groups + (_mirror(groups, shift) if mirror and shift is not None else ())
                    blocks = (block, tuple(c for c in tile if c not in set(block))) if mirror else None
                    t = Tiling(
                        f"{rows}x{width} block {(0, *rest)}{' with its mirror image' if mirror else ''}, "
                        f"lattice {lattice}",
                        tile, lattice, all_groups, {"kind": "maker-breaker"}, blocks=blocks,
                    )
                    runs = max_runs(t)
                    if all(r is not None and r <= target for r in runs.values()):
                        return Found(t, runs)
    return None


def _offsets_in_order(rows: int, width: int) -> list[tuple[int, ...]]:
    """Row offsets of the ragged blocks, the most regular first: parallelograms (a constant shift from
    row to row) by the size of the shift, then the others by their largest shift between rows."""
    every = list(itertools.product(range(-(width - 1), width), repeat=rows - 1))

    def key(rest: tuple[int, ...]) -> tuple[int, int, tuple[int, ...]]:
        offsets = (0, *rest)
        steps = [b - a for a, b in itertools.pairwise(offsets)]
        regular = all(s == steps[0] for s in steps)
        return (0 if regular else 1, max((abs(s) for s in steps), default=0), rest)

    return sorted(every, key=key)


Placement = tuple[tuple[Cell, ...], tuple[Cell, Cell], Cell | None]


def _placements(block: tuple[Cell, ...], size: int, mirror: bool) -> list[Placement]:
    """(tile, lattice, mirror shift) for every way the block (with its mirror image) tiles the plane."""
    found: list[Placement] = []
    if not mirror:
        for lattice in lattices(size):
            if _hnf_distinct(list(block), lattice[0][0], lattice[1][0], lattice[1][1]):
                found.append((block, lattice, None))
        return found
    xs = [x for x, _ in block]
    ys = [y for _, y in block]
    span_x = max(xs) - min(xs) + 1
    span_y = max(ys) - min(ys) + 1
    cells = set(block)
    for ux in range(-2 * span_x, 2 * span_x + 1):
        for uy in range(-span_y, span_y + 1):
            copy = [(-x + ux, y + uy) for x, y in block]
            if cells & set(copy):
                continue
            tile = (*block, *copy)
            for lattice in lattices(2 * size):
                if _hnf_distinct(list(tile), lattice[0][0], lattice[1][0], lattice[1][1]):
                    found.append((tile, lattice, (ux, uy)))
    return found


class LineTable:
    """Where every tile cell sits on the lines of one direction: (line number, position), and each line's period."""

    def __init__(self, tile: tuple[Cell, ...], lattice: tuple[Cell, Cell], v: Cell) -> None:
        from kinarow.proofs.tiling import Residues, line_period

        residues = Residues(tile, lattice)
        period = line_period(v, lattice)
        self.where: dict[Cell, tuple[int, int]] = {}
        self.lines = 0
        for base in sorted(tile):
            if base in self.where:
                continue
            for t in range(period):
                owner = residues.owner((base[0] + t * v[0], base[1] + t * v[1]))
                self.where[owner] = (self.lines, t)
            self.lines += 1
        self.period = period

    def run(self, groups: Sequence[tuple[Cell, ...]], v: Cell) -> int | None:
        """Longest run along the lines given these groups (all along v); None if a line has none."""
        from kinarow.proofs.tiling import longest_gap

        per_line: list[list[tuple[int, int]]] = [[] for _ in range(self.lines)]
        for g in groups:
            first = min(g, key=lambda c: c[0] * v[0] + c[1] * v[1])
            line, t = self.where[first]
            per_line[line].append((t, t + len(g) - 1))
        if any(not x for x in per_line):
            return None
        return max(longest_gap(x, self.period) for x in per_line)


def _direction_options(
    tile: tuple[Cell, ...],
    lattice: tuple[Cell, Cell],
    segs: dict[str, list[tuple[Cell, ...]]],
    shift: Cell | None,
    target: int,
    per_direction: int,
    mirror: bool,
) -> list[list[tuple[tuple[Cell, ...], ...]]] | None:
    """For each direction (diagonals together under a mirror), the block group sets that keep runs <= target."""
    tables = {name: LineTable(tile, lattice, v) for name, v in DIRECTIONS.items()}

    def ok(groups: tuple[tuple[Cell, ...], ...], names: tuple[str, ...]) -> bool:
        full = groups + (_mirror(groups, shift) if mirror and shift is not None else ())
        for name in names:
            v = DIRECTIONS[name]
            along = [g for g in full if _along(g, v)]
            r = tables[name].run(along, v)
            if r is None or r > target:
                return False
        return True

    def minimal_sets(pool: list[tuple[Cell, ...]], names: tuple[str, ...]) -> list[tuple[tuple[Cell, ...], ...]]:
        kept: list[tuple[tuple[Cell, ...], ...]] = []
        if not pool or not ok(tuple(pool), names):
            return kept  # not even every segment at once keeps the runs short: no subset does
        for count in range(1, per_direction + 1):
            for combo in itertools.combinations(pool, count):
                if any(set(k) <= set(combo) for k in kept):
                    continue
                if ok(combo, names):
                    kept.append(combo)
            if len(kept) > 40:
                break
        return kept

    groups_h = minimal_sets(segs["horizontal"], ("horizontal",))
    groups_v = minimal_sets(segs["vertical"], ("vertical",)) if groups_h else []
    if not groups_h or not groups_v:
        return None
    if mirror:
        groups_d = minimal_sets(segs["diagonal"] + segs["anti"], ("diagonal", "anti"))
        if not groups_d:
            return None
        return [groups_h, groups_v, groups_d]
    groups_d = minimal_sets(segs["diagonal"], ("diagonal",))
    groups_a = minimal_sets(segs["anti"], ("anti",)) if groups_d else []
    if not groups_d or not groups_a:
        return None
    return [groups_h, groups_v, groups_d, groups_a]


def torus_pairing(k: int, hexagonal: bool = False) -> Tiling | None:
    """A periodic domino pairing with period k - 1 (the Hales-Jewett family), or None if there is none.

    Searches the (k-1) x (k-1) torus (4 directions, or 3 hexagonal) for a good
    pairing: one domino along each wrapped line. Its translates leave runs of
    k - 1. Needs (k - 1)^2 <= 64 cells.
    """
    from kinarow.knowledge.infinite import torus
    from kinarow.knowledge.infinite.tiling import pairing_tiling

    n = k - 1
    if n < 3 or n * n > 64:
        return None
    g = torus.TorusGeometry(f"{'hex' if hexagonal else 'square'}{k}", n, hexagonal, "full")
    half = g.ncodes // 2
    if half * n != n * n // 2:  # one domino per line must be exactly the n^2 / 2 dominoes
        return None
    result = torus.enumerate_classes(g.name, torus=g, max_tasks=1, workers=1)
    if result.count == 0:
        result = torus.enumerate_classes(g.name, torus=g, workers=1)
    if result.count == 0:
        return None
    codes = "".join(str(int(c)) for c in result.classes[0])
    source = "found by the torus pairing search"
    return pairing_tiling(f"pairing with period {n}", codes, n, hexagonal, source)
