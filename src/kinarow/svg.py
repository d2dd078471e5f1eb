"""Pictures as SVG: pure functions that return SVG strings.

Everything is drawn on integer cell coordinates ``(x, y)`` (x = column from
the left, y = row from the bottom, as in cell names: a1 is (0, 0)), so the
same primitives draw a finite board, a tile, or a patch of an infinite
tiling. :func:`grid` is the one primitive; :func:`board` draws a position.

Square cells are unit squares; hexagonal cells (``hex=True``) use the axial
layout in which the three group directions (1, 0), (0, 1) and (1, -1) are the
three hexagon axes.

Charts (:class:`BarChart`, :func:`bar_charts`) are drawn here too, in the
project's own SVG rather than with matplotlib: the project plots only bar
charts (bars grouped by category, a colour per series, a linear or decade
axis, published figures as a series beside ours), which take a page of code,
so plotting needs no new dependency and PNG goes through the same optional
cairosvg as the board pictures.

>>> from kinarow import Game
>>> picture = board(Game("3x3k3").position("b2 a1"))
>>> picture.startswith("<svg") and "</svg>" in picture
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
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
FRAME = "#2f5fa8"  # a Connect-k rack (``frame=True``): the frame, its holes and their rims
HOLE = "#e4ebf4"
RIM = "#1f4580"
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
    frame: bool = False,
    previews: Mapping[Cell, int] | None = None,
) -> str:
    """An SVG picture of ``cells`` with stones (1 Black, 2 White), labels, cell fills and segments.

    ``coordinates`` writes column letters and row numbers around a board whose
    cells start at (0, 0). ``cell_names`` gives each cell's shape a
    ``data-cell`` attribute (a web page uses it to know which cell was clicked).
    ``above`` puts a badge ``(fill, text)`` over column x, one step above its top
    cell; ``legend`` rows ``(fill, words)`` go under the board.

    ``frame`` draws square cells as a Connect-k rack: a frame with a round hole
    for each cell (a fill colours the hole), stones as discs in the holes, and
    each column as a group ``<g class="column" data-column="d">`` whose hit area
    covers the whole column, so a page can take a click anywhere in it.
    ``previews`` (``{cell: player}``, with ``frame``) puts a hidden disc (class
    ``preview``, opacity 0) in each such cell, for a page to show while the
    pointer is over its column: where the next stone of that column lands.
    """
    cell_list = sorted(set(cells))
    if not cell_list:
        raise ValueError("a picture needs at least one cell")
    frame = frame and not hexagonal
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

    stone_radius = (0.35 if frame else 0.38) * CELL
    if frame:
        out.extend(_rack(cell_list, centres, px, fills, data, previews or {}, stone_radius))
    for c in [] if frame else cell_list:
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
    drawn = _segments(segments, px, hexagonal)
    if not frame:  # in a rack, the segments go over the discs (a line that ended the game across them)
        out.extend(drawn)
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
        ring = 'stroke="#1a1a1a" stroke-width="1.5"'
        if frame and c in fills:  # a disc in a coloured hole (the line that ended the game): a ring of that colour
            ring = f'stroke="{fills[c]}" stroke-width="{0.1 * CELL:.1f}"'
        out.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{stone_radius:.1f}" fill="{STONE_COLOURS[player]}" '
            f'{ring} class="stone"/>'
        )
    if frame:
        out.extend(drawn)
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


def _segments(segments: Sequence[Segment], px: Callable[[tuple[float, float]], tuple[float, float]],
              hexagonal: bool) -> list[str]:
    """The SVG of :func:`grid`'s segments."""
    out = []
    for s in segments:
        (x1, y1), (x2, y2) = px(_centre(s.start, hexagonal)), px(_centre(s.end, hexagonal))
        style = _STYLE.get(s.kind, _STYLE["group"]).format(w=f"{_WIDTH.get(s.kind, 0.08) * CELL:.1f}")
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{s.colour}" {style}/>')
        if s.kind in ("pair", "link"):  # a disc on each end says which two cells are paired where bars cross
            for x, y in ((x1, y1), (x2, y2)):
                out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{0.17 * CELL:.1f}" fill="{s.colour}" '
                           'stroke="#ffffff" stroke-width="1.5" class="pair-end"/>')
    return out


def _rack(cell_list: Sequence[Cell], centres: Mapping[Cell, tuple[float, float]],
          px: Callable[[tuple[float, float]], tuple[float, float]], fills: Mapping[Cell, str],
          data: Callable[[Cell], str], previews: Mapping[Cell, int], stone_radius: float) -> list[str]:
    """:func:`grid`'s cells as a Connect-k rack: the frame, then each column's hit area, holes and preview disc."""
    from kinarow.geometry import column_name

    xs = [centres[c][0] for c in cell_list]
    ys = [centres[c][1] for c in cell_list]
    pad = 0.08
    x0, y0 = px((min(xs) - 0.5 - pad, max(ys) + 0.5 + pad))
    x1, y1 = px((max(xs) + 0.5 + pad, min(ys) - 0.5 - pad))
    out = [f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{y1 - y0:.1f}" rx="{0.22 * CELL:.1f}" '
           f'fill="{FRAME}" class="frame"/>']
    columns: dict[int, list[Cell]] = {}
    for c in cell_list:
        columns.setdefault(c[0], []).append(c)
    for x, column in sorted(columns.items()):
        low, high = min(c[1] for c in column), max(c[1] for c in column)
        left, top = px((centres[column[0]][0] - 0.5, high + 0.5))
        out.append(f'<g class="column" data-column="{column_name(x)}">')
        out.append(f'<rect x="{left:.1f}" y="{top:.1f}" width="{CELL:.1f}" height="{(high - low + 1) * CELL:.1f}" '
                   'fill="#000000" fill-opacity="0" class="column-hit"/>')
        for c in column:
            cx, cy = px(centres[c])
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{0.42 * CELL:.1f}" fill="{fills.get(c, HOLE)}" '
                       f'stroke="{RIM}" stroke-width="1"{data(c)}/>')
        for c in column:
            if c in previews:
                cx, cy = px(centres[c])
                out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{stone_radius:.1f}" '
                           f'fill="{STONE_COLOURS[previews[c]]}" stroke="#1a1a1a" stroke-width="1.5" opacity="0" '
                           'class="preview"/>')
        out.append("</g>")
    return out


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
    frame: bool = False,
) -> str:
    """A position: stones (with their move numbers), and optionally pairs, groups, labels and fills by cell index,
    badges over columns and a legend (:func:`grid`'s ``above`` and ``legend``).

    ``frame`` draws a square board as a Connect-k rack (:func:`grid`'s
    ``frame``), with a hidden preview disc of the player to move on each cell
    where a stone may be played (a web page shows it while the pointer is over
    the column, on a board with gravity).

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
        frame=frame,
        previews={} if not frame or position.is_over else {xy(c): position.to_move for c in position.legal_moves()},
    )


#: The colours of a move's value for the player who makes it (:func:`heat_map`).
HEAT_COLOURS = {"win": "#8fd18f", "draw": "#d9d9d9", "loss": "#f2a0a0", "unknown": "#ffffff"}


def heat_map(
    position: Position,
    marks: Mapping[int, tuple[str, str]],
    *,
    legend: Sequence[tuple[str, str]] = (),
    title: str | None = None,
    frame: bool = False,
) -> str:
    """Each move's value over the board: ``marks[cell] = (kind, text)`` with kind ``win``, ``draw``, ``loss`` or
    ``unknown`` (:data:`HEAT_COLOURS`, for the player to move). The cell takes the colour and the text; under
    gravity the text goes in a badge of that colour over the column (the cell where the stone lands is coloured
    too). ``legend`` rows are ``(kind, words)``; ``frame`` as for :func:`board`.
    """
    fills = {cell: HEAT_COLOURS[kind] for cell, (kind, _) in marks.items()}
    rows = [(HEAT_COLOURS.get(kind, "#ffffff"), words) for kind, words in legend]
    if not position.game.gravity:
        labels = {cell: text for cell, (_, text) in marks.items()}
        return board(position, labels=labels, fills=fills, legend=rows, title=title, frame=frame)
    xy = position.game.geometry.xy
    above = {xy(cell)[0]: (HEAT_COLOURS[kind], text) for cell, (kind, text) in marks.items()}
    return board(position, fills=fills, above=above, legend=rows, title=title, frame=frame)


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


# -- charts (why not matplotlib: see the module docstring) ---------------------------------


@dataclass(frozen=True)
class BarChart:
    """One panel of bars: for each category, one bar per series (``series`` rows are ``(name, values)``,
    a value per category; ``None`` leaves a gap). ``log`` draws the value axis in decades (values must then
    be positive). ``note`` is a line of small print under the panel.

    >>> chart = BarChart(["a", "b"], [("ours", [3, 5])], title="t")
    >>> "</svg>" in bar_charts([chart])
    True
    """

    categories: Sequence[str]
    series: Sequence[tuple[str, Sequence[float | None]]]
    title: str = ""
    x_label: str = ""
    y_label: str = ""
    log: bool = False
    note: str = ""


_PLOT_HEIGHT = 220.0
_CHAR = 6.2  # rough width of a character of 11 px Helvetica


def _number(value: float) -> str:
    """A value as printed on a chart: whole numbers with thousands separators, others to four figures."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4g}"


def _exact(value: float) -> str:
    """A value as stored in a bar's ``data-value``: every digit (a whole number without a decimal point)."""
    return str(int(value)) if value.is_integer() else repr(value)


def _compact(value: float) -> str:
    """An axis tick: 1, 10, ..., 1,000, then 10k, 1M, 1G."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e4, "k")):
        if value >= size:
            if size == 1e4:
                size, suffix = 1e3, "k"
            return f"{value / size:g}{suffix}"
    return _number(value)


def _ticks(top: float, log: bool, low: float) -> tuple[float, float, list[float]]:
    """The axis range ``(bottom, top)`` and its tick values."""
    if log:
        lo, hi = math.floor(math.log10(low)), math.ceil(math.log10(top))
        hi = max(hi, lo + 1)
        every = 1 if hi - lo <= 9 else 2
        return 10.0**lo, 10.0**hi, [10.0**e for e in range(lo, hi + 1, every)]
    raw = max(top, 1e-12) / 5
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(s * magnitude for s in (1, 2, 2.5, 5, 10) if s * magnitude >= raw)
    count = math.ceil(top / step - 1e-9)
    return 0.0, count * step, [i * step for i in range(count + 1)]


def _panel(chart: BarChart, x0: float, y0: float) -> tuple[float, float, list[str]]:
    """Draw ``chart`` with its top left corner at ``(x0, y0)``: its width, height and SVG elements."""
    if not chart.categories or not chart.series:
        raise ValueError("a bar chart needs at least one category and one series")
    for name, values in chart.series:
        if len(values) != len(chart.categories):
            raise ValueError(f"series '{name}' has {len(values)} values for {len(chart.categories)} categories")
    given = [float(v) for _, values in chart.series for v in values if v is not None]
    if chart.log and any(v <= 0 for v in given):
        raise ValueError("a logarithmic axis needs positive values")
    nseries = len(chart.series)
    bar = 26.0 if nseries == 1 else max(8.0, 48.0 / nseries)
    gap = 12.0
    slot = nseries * bar + gap
    value_chars = max((len(_number(v)) for v in given), default=1)
    headroom = value_chars * 5.6 + 8  # the values are written upright above the bars
    left = 70.0 if chart.y_label else 52.0
    plot_w = max(slot * len(chart.categories), 120.0)
    legend_h = 20.0 if nseries > 1 else 0.0
    top_y = y0 + 30.0 + legend_h + headroom
    legend_w = sum(14 + _CHAR * len(name) + 16 for name, _ in chart.series) if nseries > 1 else 0.0
    width = max(left + plot_w + 16.0, _CHAR * 1.3 * len(chart.title) + 20, _CHAR * 0.9 * len(chart.note) + 20,
                left + legend_w)
    plot_w = width - left - 16.0  # a panel widened by its title, note or legend spreads its bars
    slot = plot_w / len(chart.categories)
    label_chars = max(len(c) for c in chart.categories)
    slanted = label_chars * _CHAR > slot
    below = 20.0 + (label_chars * _CHAR * 0.7 if slanted else 0.0) + (18.0 if chart.x_label else 0.0)
    below += 16.0 if chart.note else 0.0
    height = (top_y - y0) + _PLOT_HEIGHT + below
    bottom_value, top_value, ticks = _ticks(max(given, default=1.0), chart.log, min(given, default=1.0))
    px0 = x0 + left
    base_y = top_y + _PLOT_HEIGHT

    def y_of(value: float) -> float:
        if chart.log:
            span = math.log10(top_value) - math.log10(bottom_value)
            return base_y - (math.log10(value) - math.log10(bottom_value)) / span * _PLOT_HEIGHT
        return base_y - (value - bottom_value) / (top_value - bottom_value) * _PLOT_HEIGHT

    out = [f'<g class="chart" data-title="{escape(chart.title)}">']
    if chart.title:
        out.append(f'<text x="{x0 + width / 2:.1f}" y="{y0 + 20:.1f}" text-anchor="middle" font-size="14" '
                   f'font-weight="bold">{escape(chart.title)}</text>')
    if nseries > 1:  # the legend: a swatch and the name of each series
        lx = px0
        for i, (name, _) in enumerate(chart.series):
            colour = PALETTE[i % len(PALETTE)]
            out.append(f'<rect x="{lx:.1f}" y="{y0 + 32:.1f}" width="10" height="10" fill="{colour}" class="legend"/>')
            out.append(f'<text x="{lx + 14:.1f}" y="{y0 + 41:.1f}" font-size="11">{escape(name)}</text>')
            lx += 14 + _CHAR * len(name) + 16
    for t in ticks:
        ty = y_of(t)
        out.append(f'<line x1="{px0:.1f}" y1="{ty:.1f}" x2="{px0 + plot_w:.1f}" y2="{ty:.1f}" stroke="#e0e0e0"/>')
        label = _compact(t) if chart.log else _number(t)
        out.append(f'<text x="{px0 - 5:.1f}" y="{ty + 4:.1f}" text-anchor="end" font-size="10">{label}</text>')
    out.append(f'<line x1="{px0:.1f}" y1="{top_y:.1f}" x2="{px0:.1f}" y2="{base_y:.1f}" stroke="#333333"/>')
    out.append(f'<line x1="{px0:.1f}" y1="{base_y:.1f}" x2="{px0 + plot_w:.1f}" y2="{base_y:.1f}" stroke="#333333"/>')
    if chart.y_label:
        cy = top_y + _PLOT_HEIGHT / 2
        out.append(f'<text x="{x0 + 14:.1f}" y="{cy:.1f}" text-anchor="middle" font-size="11" '
                   f'transform="rotate(-90 {x0 + 14:.1f} {cy:.1f})">{escape(chart.y_label)}</text>')
    for c, category in enumerate(chart.categories):
        sx = px0 + c * slot + (slot - nseries * bar) / 2
        for s, (name, values) in enumerate(chart.series):
            value = values[c]
            if value is None:
                continue
            bx, by = sx + s * bar, y_of(float(value))
            h = max(base_y - by, 1.5)  # a bar at the foot of a log axis still shows
            colour = PALETTE[s % len(PALETTE)]
            out.append(
                f'<rect x="{bx:.1f}" y="{base_y - h:.1f}" width="{bar - 1:.1f}" height="{h:.1f}" fill="{colour}" '
                f'class="bar" data-category="{escape(category)}" data-series="{escape(name)}" '
                f'data-value="{_exact(float(value))}"><title>{escape(name)}, {escape(category)}: '
                f'{_number(float(value))}</title></rect>'
            )
            vx, vy = bx + (bar - 1) / 2 + 3.5, base_y - h - 4
            out.append(f'<text x="{vx:.1f}" y="{vy:.1f}" font-size="10" fill="#333333" '
                       f'transform="rotate(-90 {vx:.1f} {vy:.1f})">{_number(float(value))}</text>')
        cx, cy = sx + nseries * bar / 2, base_y + 14
        if slanted:
            out.append(f'<text x="{cx:.1f}" y="{cy:.1f}" text-anchor="end" font-size="11" class="category" '
                       f'transform="rotate(-40 {cx:.1f} {cy:.1f})">{escape(category)}</text>')
        else:
            out.append(f'<text x="{cx:.1f}" y="{cy:.1f}" text-anchor="middle" font-size="11" '
                       f'class="category">{escape(category)}</text>')
    foot = y0 + height - (16.0 if chart.note else 0.0)
    if chart.x_label:
        out.append(f'<text x="{px0 + plot_w / 2:.1f}" y="{foot - 6:.1f}" text-anchor="middle" '
                   f'font-size="11">{escape(chart.x_label)}</text>')
    if chart.note:
        out.append(f'<text x="{x0 + 8:.1f}" y="{y0 + height - 4:.1f}" font-size="10" '
                   f'fill="#555555">{escape(chart.note)}</text>')
    out.append("</g>")
    return width, height, out


def bar_charts(charts: Sequence[BarChart], *, title: str | None = None) -> str:
    """An SVG picture of ``charts`` side by side (see :class:`BarChart`), under an optional ``title``.

    Each bar carries its exact figure (``data-value``, and a tooltip), and is labelled with it.
    """
    if not charts:
        raise ValueError("a picture of charts needs at least one chart")
    y0 = 34.0 if title else 0.0
    x, height, body = MARGIN / 2, 0.0, []
    for chart in charts:
        w, h, elements = _panel(chart, x, y0)
        body += elements
        x += w + MARGIN
        height = max(height, h)
    width = max(x - MARGIN / 2, _CHAR * 1.4 * len(title or "") + 2 * MARGIN)
    height += y0 + MARGIN / 2
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.1f} {height:.1f}" font-family="Helvetica, Arial, sans-serif">',
        f'<rect width="{width:.1f}" height="{height:.1f}" fill="#ffffff"/>',
    ]
    if title:
        out.append(f'<text x="{width / 2:.1f}" y="24" text-anchor="middle" font-size="16">{escape(title)}</text>')
    out += body
    out.append("</svg>")
    return "\n".join(out) + "\n"


def bar_chart(chart: BarChart) -> str:
    """An SVG picture of one :class:`BarChart`."""
    return bar_charts([chart])
