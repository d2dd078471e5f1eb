"""Pictures as SVG: pure functions that return SVG strings.

Everything is drawn on integer cell coordinates ``(x, y)`` (x = column from
the left, y = row from the bottom, as in cell names: a1 is (0, 0)), so the
same primitives draw a finite board, a tile, or a patch of an infinite
tiling. :func:`grid` is the one primitive; :func:`board` draws a position.

Square cells are unit squares; hexagonal cells (``hex=True``) use the axial
layout in which the three group directions (1, 0), (0, 1) and (1, -1) are the
three hexagon axes.

>>> from kinarow import Game
>>> picture = board(Game("3x3k3").position("b2 a1"))
>>> picture.startswith("<svg") and "</svg>" in picture
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position

Cell = tuple[int, int]

CELL = 40.0  # pixels per unit cell
#: the most cells a board picture shows (100x100, about 1.4 MB of SVG); a larger board is refused, not drawn
MAX_PICTURE_CELLS = 10_000
MARGIN = 24.0
STONE_COLOURS = {1: "#1a1a1a", 2: "#f7f7f7"}
TEXT_ON_STONE = {1: "#ffffff", 2: "#1a1a1a"}
PALETTE = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22")


@dataclass(frozen=True)
class Segment:
    """A line drawn from the centre of ``start`` to the centre of ``end``.

    ``kind`` sets the style: ``"pair"`` (a thick bar, as a domino), ``"link"`` (a
    thin line joining the two cells of a pair that are not neighbours), ``"group"``
    (a thin line through a group), ``"run"`` (a dashed line, e.g. a longest run).
    Pairs and links end in a disc on each of their two cells.
    """

    start: Cell
    end: Cell
    kind: str = "pair"
    colour: str = "#d62728"


_STYLE = {
    "pair": 'stroke-width="{w}" stroke-linecap="round" opacity="0.85"',
    "link": 'stroke-width="{w}" stroke-linecap="round" opacity="0.9"',
    "group": 'stroke-width="{w}" stroke-linecap="round" opacity="0.55"',
    "run": 'stroke-width="{w}" stroke-dasharray="6 4" stroke-linecap="round"',
}
_WIDTH = {"pair": 0.22, "link": 0.06, "group": 0.08, "run": 0.1}


def _centre(cell: Cell, hexagonal: bool) -> tuple[float, float]:
    """Centre of a cell in drawing units (y up, before flipping)."""
    x, y = cell
    if hexagonal:  # neighbours along (1, 0), (0, 1) and (1, -1) are all one unit apart
        return x + y / 2, y * math.sqrt(3) / 2
    return float(x), float(y)


def _hexagon(cx: float, cy: float) -> list[tuple[float, float]]:
    r = 1 / math.sqrt(3)
    return [(cx + r * math.cos(math.radians(a)), cy + r * math.sin(math.radians(a))) for a in range(30, 390, 60)]


def grid(
    cells: Iterable[Cell],
    *,
    hexagonal: bool = False,
    stones: Mapping[Cell, int] | None = None,
    labels: Mapping[Cell, str] | None = None,
    fills: Mapping[Cell, str] | None = None,
    segments: Sequence[Segment] = (),
    coordinates: bool = False,
    title: str | None = None,
    cell_names: Mapping[Cell, str] | None = None,
    above: Mapping[int, tuple[str, str]] | None = None,
    legend: Sequence[tuple[str, str]] = (),
) -> str:
    """An SVG picture of ``cells`` with stones (1 Black, 2 White), labels, cell fills and segments.

    ``coordinates`` writes column letters and row numbers around a board whose
    cells start at (0, 0). ``cell_names`` gives each cell's shape a
    ``data-cell`` attribute (a web page uses it to know which cell was clicked).
    ``above`` puts a badge ``(fill, text)`` over column x, one step above its top
    cell; ``legend`` rows ``(fill, words)`` go under the board.
    """
    cell_list = sorted(set(cells))
    if not cell_list:
        raise ValueError("a picture needs at least one cell")
    stones, labels, fills, names = stones or {}, labels or {}, fills or {}, cell_names or {}
    centres = {c: _centre(c, hexagonal) for c in cell_list}
    badges = {x: _centre((x, max(c[1] for c in cell_list if c[0] == x) + 1), hexagonal) for x in (above or {})}
    xs = [p[0] for p in [*centres.values(), *badges.values()]]
    ys = [p[1] for p in [*centres.values(), *badges.values()]]
    left, right, bottom, top = min(xs) - 0.5, max(xs) + 0.5, min(ys) - 0.5, max(ys) + 0.5
    extra_top = 0.8 if title else 0.0
    pad = MARGIN / CELL
    axis = 0.5 if coordinates else 0.0  # room for column letters below and row numbers on the left
    key = 0.6 * len(legend) + (0.2 if legend else 0.0)  # room for the legend's rows under the board
    width = (right - left + 2 * pad + axis) * CELL
    height = (top - bottom + 2 * pad + axis + extra_top + key) * CELL
    shift = 0.0  # a title (or a legend) wider than the board widens the picture; the board stays centred
    wanted = max([8.6 * len(title) if title else 0.0] + [7.4 * len(words) + 0.6 * CELL for _, words in legend])
    if wanted + 2 * MARGIN > width:
        shift = (wanted + 2 * MARGIN - width) / 2
        width += 2 * shift

    def px(point: tuple[float, float]) -> tuple[float, float]:
        return (point[0] - left + pad + axis) * CELL + shift, (top - point[1] + pad + extra_top) * CELL

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.1f} {height:.1f}" font-family="Helvetica, Arial, sans-serif">',
        f'<rect width="{width:.1f}" height="{height:.1f}" fill="#ffffff"/>',
    ]
    if title:
        out.append(
            f'<text x="{width / 2:.1f}" y="{0.7 * CELL:.1f}" text-anchor="middle" font-size="16">{escape(title)}</text>'
        )
    def data(c: Cell) -> str:
        return f' class="cell" data-cell="{escape(names[c])}"' if c in names else ""

    for c in cell_list:
        fill = fills.get(c, "#f3e3b5")
        if hexagonal:
            points = " ".join(f"{a:.1f},{b:.1f}" for a, b in (px(p) for p in _hexagon(*centres[c])))
            out.append(f'<polygon points="{points}" fill="{fill}" stroke="#8a7a55" stroke-width="1"{data(c)}/>')
        else:
            x0, y0 = px((centres[c][0] - 0.5, centres[c][1] + 0.5))
            out.append(
                f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{CELL:.1f}" height="{CELL:.1f}" '
                f'fill="{fill}" stroke="#8a7a55" stroke-width="1"{data(c)}/>'
            )
    for s in segments:
        (x1, y1), (x2, y2) = px(_centre(s.start, hexagonal)), px(_centre(s.end, hexagonal))
        style = _STYLE.get(s.kind, _STYLE["group"]).format(w=f"{_WIDTH.get(s.kind, 0.08) * CELL:.1f}")
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{s.colour}" {style}/>')
        if s.kind in ("pair", "link"):  # a disc on each end says which two cells are paired where bars cross
            for x, y in ((x1, y1), (x2, y2)):
                out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{0.17 * CELL:.1f}" fill="{s.colour}" '
                           'stroke="#ffffff" stroke-width="1.5" class="pair-end"/>')
    for x, (fill, text) in sorted((above or {}).items()):
        cx, cy = px(badges[x])
        out.append(
            f'<rect x="{cx - 0.45 * CELL:.1f}" y="{cy - 0.35 * CELL:.1f}" width="{0.9 * CELL:.1f}" '
            f'height="{0.7 * CELL:.1f}" rx="{0.15 * CELL:.1f}" fill="{fill}" stroke="#8a7a55" stroke-width="1" '
            f'class="badge"/>'
        )
        out.append(
            f'<text x="{cx:.1f}" y="{cy + 0.13 * CELL:.1f}" text-anchor="middle" font-size="{0.36 * CELL:.0f}" '
            f'fill="#1a1a1a">{escape(text)}</text>'
        )
    for c, player in sorted(stones.items()):
        cx, cy = px(centres[c])
        out.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{0.38 * CELL:.1f}" fill="{STONE_COLOURS[player]}" '
            'stroke="#1a1a1a" stroke-width="1.5" class="stone"/>'
        )
    for c, text in sorted(labels.items()):
        cx, cy = px(centres[c])
        colour = TEXT_ON_STONE.get(stones.get(c, 0), "#1a1a1a")
        out.append(
            f'<text x="{cx:.1f}" y="{cy + 0.13 * CELL:.1f}" text-anchor="middle" font-size="{0.36 * CELL:.0f}" '
            f'fill="{colour}">{escape(text)}</text>'
        )
    if coordinates and hexagonal:  # letters under the bottom row, numbers left of each row's first cell
        from kinarow.geometry import column_name

        low, first = min(c[1] for c in cell_list), min(c[0] for c in cell_list)
        for x in sorted({c[0] for c in cell_list}):
            cx, cy = _centre((x, low), True)
            px_, py_ = px((cx, cy - 0.78))
            letter = column_name(x)
            out.append(f'<text x="{px_:.1f}" y="{py_ + 4:.1f}" text-anchor="middle" font-size="13">{letter}</text>')
        for y in sorted({c[1] for c in cell_list}):
            cx, cy = _centre((first, y), True)
            px_, py_ = px((cx - 0.8, cy))
            out.append(f'<text x="{px_:.1f}" y="{py_ + 4:.1f}" text-anchor="middle" font-size="13">{y + 1}</text>')
    if coordinates and not hexagonal:
        from kinarow.geometry import column_name

        for x in sorted({c[0] for c in cell_list}):
            cx, cy = px((x, bottom - 0.3))
            out.append(f'<text x="{cx:.1f}" y="{cy:.1f}" text-anchor="middle" font-size="13">{column_name(x)}</text>')
        for y in sorted({c[1] for c in cell_list}):
            cx, cy = px((left - 0.3, y))
            out.append(f'<text x="{cx:.1f}" y="{cy + 4:.1f}" text-anchor="middle" font-size="13">{y + 1}</text>')
    for i, (fill, words) in enumerate(legend):
        x0 = MARGIN + shift
        y0 = height - (key - 0.6 * i - 0.1) * CELL - MARGIN / 2
        out.append(
            f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{0.4 * CELL:.1f}" height="{0.4 * CELL:.1f}" fill="{fill}" '
            'stroke="#8a7a55" stroke-width="1" class="legend"/>'
        )
        out.append(f'<text x="{x0 + 0.55 * CELL:.1f}" y="{y0 + 0.32 * CELL:.1f}" font-size="13">{escape(words)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def board(
    position: Position,
    *,
    move_numbers: bool = True,
    pairs: Iterable[tuple[int, int]] = (),
    groups: Iterable[Sequence[int]] = (),
    labels: Mapping[int, str] | None = None,
    fills: Mapping[int, str] | None = None,
    title: str | None = None,
    above: Mapping[int, tuple[str, str]] | None = None,
    legend: Sequence[tuple[str, str]] = (),
) -> str:
    """A position: stones (with their move numbers), and optionally pairs, groups, labels and fills by cell index,
    badges over columns and a legend (:func:`grid`'s ``above`` and ``legend``).

    Pairs of neighbouring cells are drawn as dominoes (thick bars), other pairs
    as thin lines; both end in a disc on each paired cell. Boards of more than
    :data:`MAX_PICTURE_CELLS` cells are refused with a :class:`KinarowError`.
    """
    check_picture_size(position.game)
    geometry = position.game.geometry
    xy = geometry.xy
    stones: dict[Cell, int] = {}
    text: dict[Cell, str] = {}
    for number, cell in enumerate(position.moves, start=1):
        stones[xy(cell)] = position.board[cell]
        if move_numbers:
            text[xy(cell)] = str(number)
    for cell, label in (labels or {}).items():
        text[xy(cell)] = label
    segments = []
    for i, (a, b) in enumerate(pairs):
        (xa, ya), (xb, yb) = xy(a), xy(b)
        domino = max(abs(xa - xb), abs(ya - yb)) == 1
        segments.append(Segment(xy(a), xy(b), "pair" if domino else "link", PALETTE[i % len(PALETTE)]))
    for i, group in enumerate(groups):
        ends = sorted(group, key=lambda c: xy(c))
        segments.append(Segment(xy(ends[0]), xy(ends[-1]), "group", PALETTE[i % len(PALETTE)]))
    return grid(
        (xy(c) for c in range(geometry.size)),
        hexagonal=position.game.hex,
        stones=stones,
        labels=text,
        fills={xy(c): colour for c, colour in (fills or {}).items()},
        segments=segments,
        coordinates=True,
        title=title,
        cell_names={xy(c): geometry.name(c) for c in range(geometry.size)},
        above=above,
        legend=legend,
    )


#: The colours of a move's value for the player who makes it (:func:`heat_map`).
HEAT_COLOURS = {"win": "#8fd18f", "draw": "#d9d9d9", "loss": "#f2a0a0", "unknown": "#ffffff"}


def heat_map(
    position: Position,
    marks: Mapping[int, tuple[str, str]],
    *,
    legend: Sequence[tuple[str, str]] = (),
    title: str | None = None,
) -> str:
    """Each move's value over the board: ``marks[cell] = (kind, text)`` with kind ``win``, ``draw``, ``loss`` or
    ``unknown`` (:data:`HEAT_COLOURS`, for the player to move). The cell takes the colour and the text; under
    gravity the text goes in a badge of that colour over the column (the cell where the stone lands is coloured
    too). ``legend`` rows are ``(kind, words)``.
    """
    fills = {cell: HEAT_COLOURS[kind] for cell, (kind, _) in marks.items()}
    rows = [(HEAT_COLOURS.get(kind, "#ffffff"), words) for kind, words in legend]
    if not position.game.gravity:
        labels = {cell: text for cell, (_, text) in marks.items()}
        return board(position, labels=labels, fills=fills, legend=rows, title=title)
    xy = position.game.geometry.xy
    above = {xy(cell)[0]: (HEAT_COLOURS[kind], text) for cell, (kind, text) in marks.items()}
    return board(position, fills=fills, above=above, legend=rows, title=title)


def check_picture_size(game: Game) -> None:
    """One sentence when ``game``'s board is too large to draw (more than :data:`MAX_PICTURE_CELLS` cells)."""
    if game.cells > MAX_PICTURE_CELLS:
        raise KinarowError(f"{game} has {game.cells:,} cells; pictures are drawn of boards of at most "
                           f"{MAX_PICTURE_CELLS:,} cells (100x100)")


def to_png(picture: str, *, scale: float = 2.0) -> bytes:
    """The SVG text ``picture`` as PNG bytes (needs the optional package cairosvg, and the Cairo library)."""
    try:
        import cairosvg
    except (ImportError, OSError):
        from kinarow.errors import KinarowError

        raise KinarowError(
            "PNG pictures need the optional package cairosvg and the Cairo library "
            "(pip install 'kinarow[png]'; on Debian, apt-get install libcairo2); SVG works without them"
        ) from None
    return bytes(cairosvg.svg2png(bytestring=picture.encode("utf-8"), scale=scale))


def save(picture: str, path: str, *, png: bool | None = None) -> None:
    """Write ``picture`` to ``path``: PNG when ``png`` is true (or, by default, when the name ends in .png)."""
    from kinarow.errors import KinarowError

    if png is None:
        png = path.lower().endswith(".png")
    data = to_png(picture) if png else picture.encode("utf-8")
    try:
        with open(path, "wb") as handle:
            handle.write(data)
    except OSError as error:
        raise KinarowError(f"cannot write the picture to '{path}': {error.strerror or error}") from None


def torus_pairing(
    n: int,
    dominoes: Sequence[tuple[Cell, Cell]],
    *,
    hexagonal: bool = False,
    title: str | None = None,
) -> str:
    """One period (n x n) of a torus pairing: each domino a bar from ``cell`` by ``step`` (a unit vector).

    Cells are ``(x, y)`` with y up; a domino that wraps around an edge is drawn
    as two stubs leaving the board. Bars are coloured by direction.
    """
    cells = [(x, y) for x in range(n) for y in range(n)]
    directions: dict[Cell, str] = {}
    segments: list[Segment] = []
    for (x, y), (dx, dy) in dominoes:
        key = (dx, dy) if (dx, dy) > (-dx, -dy) else (-dx, -dy)
        colour = directions.setdefault(key, PALETTE[len(directions) % len(PALETTE)])
        x2, y2 = x + dx, y + dy
        if 0 <= x2 < n and 0 <= y2 < n:
            segments.append(Segment((x, y), (x2, y2), "pair", colour))
        else:  # wraps: a stub out of each end
            segments.append(Segment((x, y), (x2, y2), "pair", colour))
            segments.append(Segment((x2 % n, y2 % n), (x2 % n - dx, y2 % n - dy), "pair", colour))
    return grid(cells, hexagonal=hexagonal, segments=segments, title=title)


def matching_set(position: Position, markers: Sequence[str], groups: Sequence[Sequence[str]], *,
                 title: str | None = None) -> str:
    """A matching set over a position: each marker cell lettered (a, b, c, ...), each group a line through it.

    ``markers`` and ``groups`` are cell names, as in a matching-set certificate;
    a group is drawn from its first to its last cell along the board.
    """
    geometry = position.game.geometry
    letters = {geometry.parse_cell(name): _letter(i) for i, name in enumerate(markers)}
    cells = [[geometry.parse_cell(name) for name in group] for group in groups]
    return board(position, move_numbers=False, labels=letters, groups=cells, title=title)


def _letter(i: int) -> str:
    """a, b, ..., z, then aa, ab, ... for the i-th marker."""
    word = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        word = chr(97 + r) + word
    return word
