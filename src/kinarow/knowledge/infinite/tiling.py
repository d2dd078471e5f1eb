"""Named periodic strategies for the infinite board, and their pictures.

The data model (:class:`~kinarow.proofs.tiling.Tiling`) and the checker live
in :mod:`kinarow.proofs.tiling`; this module holds the constructions: the
Hales-Jewett pairing for 9-in-a-row, the H-heptomino (Pollak & Shannon), our
reconstruction of the Zetters block (8-in-a-row) and a hexagonal pairing for
7-in-a-row, together with the SVG picture of a tiling and one longest run per
direction. :mod:`kinarow.knowledge.infinite.tiling_search` finds new ones.

>>> from kinarow.proofs.tiling import check
>>> t = named("heptomino")
>>> check(t).ok, max_runs(t)
(True, {'horizontal': 8, 'vertical': 8, 'diagonal': 8, 'anti': 8})
"""

from __future__ import annotations

import itertools
from typing import Any

from kinarow.proofs.tiling import (
    HEX_DIRECTIONS,
    SQUARE_DIRECTIONS,
    Cell,
    Residues,
    Tiling,
    TilingError,
    direction_of,
    line_period,
    max_runs,
)


def longest_runs(tiling: Tiling) -> dict[str, tuple[Cell, Cell] | None]:
    """For each direction, the first and last cell of one longest run (on the plane), or None if unbounded."""
    residues = Residues(tiling.tile, tiling.lattice)
    found: dict[str, tuple[Cell, Cell] | None] = {}
    best_len = max_runs(tiling)
    for name, v in tiling.directions.items():
        target = best_len[name]
        found[name] = None
        if target is None:
            continue
        starts: dict[Cell, list[int]] = {}
        for g in tiling.groups:
            if direction_of(g, {name: v}) is not None:
                first = min(g, key=lambda c: c[0] * v[0] + c[1] * v[1])
                starts.setdefault(first, []).append(len(g))
        period = line_period(v, tiling.lattice)
        for base in sorted(tiling.tile):
            intervals = []
            for t in range(period):
                owner = residues.owner((base[0] + t * v[0], base[1] + t * v[1]))
                intervals += [(t, t + length - 1) for length in starts.get(owner, [])]
            spans = sorted({(s + k * period, e + k * period) for s, e in intervals for k in range(-1, 3)})
            minimal: list[tuple[int, int]] = []
            for s, e in sorted(spans, key=lambda x: (x[1], -x[0])):
                if not (minimal and minimal[-1][0] >= s):
                    minimal.append((s, e))
            for (s1, _), (_, e2) in itertools.pairwise(minimal):
                if e2 - s1 - 1 == target:
                    a, b = s1 + 1, e2 - 1
                    found[name] = ((base[0] + a * v[0], base[1] + a * v[1]), (base[0] + b * v[0], base[1] + b * v[1]))
                    break
            if found[name] is not None:
                break
    return found


def svg(tiling: Tiling, width: int = 16, height: int = 12) -> str:
    """A patch of the tiling: tiles shaded, chosen groups as lines, one longest run per direction dashed."""
    from kinarow import svg as pictures

    residues = Residues(tiling.tile, tiling.lattice)
    (a1, a2), (b1, b2) = tiling.lattice
    det = a1 * b2 - a2 * b1
    shades = ("#f3e3b5", "#cfe3f3", "#dcefd0", "#f3d0d8", "#e6dcf3", "#f7ecd0")
    part_of = {c: i for i, part in enumerate(tiling.parts) for c in part}
    cells = [(x, y) for x in range(width) for y in range(height)]
    fills: dict[Cell, str] = {}
    for c in cells:
        owner = residues.owner(c)
        dx, dy = c[0] - owner[0], c[1] - owner[1]
        i = (dx * b2 - dy * b1) // det  # the lattice coordinates of the translation
        j = (a1 * dy - a2 * dx) // det
        fills[c] = shades[(i + 2 * j + 3 * part_of.get(owner, 0)) % len(shades)]
    inside = set(cells)
    segs: list[pictures.Segment] = []
    colours = dict(zip(tiling.directions, pictures.PALETTE, strict=False))
    reach = range(-(width + height), width + height + 1)
    for i in reach:
        for j in reach:
            dx, dy = i * a1 + j * b1, i * a2 + j * b2
            if not (-8 <= dx <= width + 8 and -8 <= dy <= height + 8):
                continue
            for g in tiling.groups:
                moved = [(x + dx, y + dy) for x, y in g]
                if all(m in inside for m in moved):
                    name = direction_of(g, tiling.directions) or "horizontal"
                    ends = sorted(moved)
                    segs.append(pictures.Segment(ends[0], ends[-1], "group", colours[name]))
    runs = longest_runs(tiling)
    for name, run in runs.items():
        if run is None:
            continue
        (x1, y1), (x2, y2) = run
        # bring the run into the picture by a lattice translation, if one fits
        for i in reach:
            for j in reach:
                dx, dy = i * a1 + j * b1, i * a2 + j * b2
                p, q = (x1 + dx, y1 + dy), (x2 + dx, y2 + dy)
                if p in inside and q in inside:
                    segs.append(pictures.Segment(p, q, "run", colours[name]))
                    break
            else:
                continue
            break
    lengths = max_runs(tiling)
    title = f"{tiling.name}: longest runs " + ", ".join(f"{n} {r}" for n, r in lengths.items())
    return pictures.grid(cells, hexagonal=tiling.hexagonal, fills=fills, segments=segs, title=title)

# -- the published strategies ------------------------------------------------------------
# Direction codes of kinarow.knowledge.infinite.torus (clockwise from East, rows read from the top)
# as (dx, dy) with y up.
_SQUARE_STEPS = ((1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1))
_HEX_STEPS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

# One good pairing class of the 8x8 torus and one of the hexagonal 6x6 torus, as found by
# ``kinarow torus 9 --class 0`` and ``kinarow torus hex7 --class 0`` (codes row by row from the top).
HJ9_CODES = "0411111504155555041522220435666627333304677773044222733046667710"
HEX7_CODES = "031114031444031422203455522203355510"

H_TILE: tuple[Cell, ...] = ((0, 0), (0, 1), (0, 2), (1, 1), (2, 0), (2, 1), (2, 2))
H_LEFT, H_CENTRE, H_RIGHT_MIDDLE = (0, 1), (1, 1), (2, 1)


def pairing_tiling(name: str, codes: str, n: int, hexagonal: bool, source: str) -> Tiling:
    """The periodic strategy of a good pairing of the n x n torus, given as its direction codes row by row."""
    steps = _HEX_STEPS if hexagonal else _SQUARE_STEPS
    half = len(steps) // 2
    pairs: list[tuple[Cell, Cell]] = []
    for i, ch in enumerate(codes):
        c = int(ch)
        if c < half:
            x, y = i % n, n - 1 - i // n
            dx, dy = steps[c]
            pairs.append(((x, y), (x + dx, y + dy)))
    # the tile: each domino drawn from its first cell, so no domino is cut by the tile's border
    tile = tuple(c for p in pairs for c in p)
    k = n + 1
    runs = {name: n for name in (HEX_DIRECTIONS if hexagonal else SQUARE_DIRECTIONS)}
    return Tiling(
        name, tile, ((n, 0), (0, n)), tuple(pairs), {"kind": "pairing", "pairs": pairs}, hexagonal, runs,
        source + f"; every line of {k} holds a domino along it",
    )


def _heptomino() -> Tiling:
    """The H-heptomino with the published reply rule over 4 of its 5 groups (the left column is left out)."""
    (a, b, c), centre = ((0, 0), (0, 1), (0, 2)), H_CENTRE
    d, e, f = (2, 0), (2, 1), (2, 2)
    diagonal, anti, middle, right = (a, centre, f), (c, centre, d), (b, centre, e), (d, e, f)
    right_pairs = {d: (e, f), e: (d, f), f: (d, e)}
    replies: dict[Cell, dict[str, Any]] = {
        # the centre is answered by the middle of the right column: the diagonals are left, one pair each
        centre: {"reply": e, "then": {"pairs": [(a, f), (c, d)]}},
    }
    for x in (a, b, c, d, e, f):
        # anything else is answered by the centre: only the right column is left, paired in its free cells
        replies[x] = {"reply": centre, "then": {"pairs": [right_pairs.get(x, (d, e))]}}
    return Tiling(
        "heptomino", H_TILE, ((7, 0), (3, 1)), (diagonal, anti, middle, right),
        {"kind": "reply", "rule": {"replies": replies}}, False,
        {"horizontal": 8, "vertical": 8, "diagonal": 8, "anti": 8},
        "Pollak & Shannon (1954), as a matching set in Uiterwijk, Set Matching (journal version, Section 7)",
    )


def zetters() -> Tiling:
    """Our reconstruction of the Zetters block (8-in-a-row), found by ``tiling_search.zetters``.

    The block is a slanted parallelogram of 3 rows of 4 (each row one cell to the
    left of the one below); its groups are the 3 rows, its 4 slanted columns
    (anti-diagonals of 3) and 2 vertical pairs, so four cells lie in 3 groups and
    the others in 2. It tiles the plane together with its mirror image (a single
    block's translates cannot: the search finds no lattice for it).
    """
    block = tuple((x - y, y) for y in range(3) for x in range(4))
    shift = (-7, -3)
    copy = tuple((-x + shift[0], y + shift[1]) for x, y in block)
    rows = tuple(tuple((x - y, y) for x in range(4)) for y in range(3))
    columns = tuple(tuple((x - y, y) for y in (2, 1, 0)) for x in range(4))
    verticals = (((-1, 1), (-1, 2)), ((1, 1), (1, 2)))
    groups = rows + verticals + columns
    mirrored = tuple(tuple((-x + shift[0], y + shift[1]) for x, y in g) for g in groups)
    return Tiling(
        "zetters", block + copy, ((4, 0), (0, 6)), groups + mirrored, {"kind": "maker-breaker"}, False,
        {"horizontal": 6, "vertical": 6, "diagonal": 7, "anti": 7},
        "Zetters (1980), described by Uiterwijk, Set Matching (journal version, Section 7); block reconstructed",
        blocks=(block, copy),
    )


def named(name: str) -> Tiling:
    """A published strategy: 'hj9', 'heptomino', 'hex7' (and 'zetters' when reconstructed)."""
    if name == "hj9":
        return pairing_tiling("hj9", HJ9_CODES, 8, False, "Hales-Jewett pairing for 9-in-a-row (8x8 period)")
    if name == "heptomino":
        return _heptomino()
    if name == "hex7":
        return pairing_tiling("hex7", HEX7_CODES, 6, True, "pairing for hexagonal 7-in-a-row (6x6 period)")
    if name == "zetters":
        return zetters()
    raise TilingError(f"there is no tiling called '{name}'; the named tilings are {', '.join(NAMES)}")


NAMES = ("hj9", "heptomino", "zetters", "hex7")
