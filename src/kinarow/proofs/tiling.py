"""The ``kinarow.tiling`` checker: a periodic second-player strategy on the infinite board.

A periodic strategy (Uiterwijk, "Set Matching", journal version, Section 7)
tiles the plane with translates of one tile, chooses some groups (line
segments) inside the tile, and gives the second player a local strategy that
claims a cell of every chosen group of a tile, answering each move inside the
tile where it was made. A run of the first player along a line can then
never contain a complete chosen group, so the longest run of cells along a
line that holds no complete chosen group bounds the first player's longest
line: k-in-a-row is a draw for every k above the largest such run.

A local strategy is one of

* ``pairing``: disjoint pairs of tile cells; every chosen group holds a pair;
* ``reply``: an explicit recursive reply rule (a matching set in the sense of
  Uiterwijk): for each first-player move on a marker, the reply and the rule
  that follows, ending in pairings;
* ``maker-breaker``: no rule written down; the checker plays the
  Maker-Breaker game on the tile's chosen groups exhaustively and confirms
  that Breaker, moving second, wins.

``matching_set`` is kept for a matching-set certificate from
``kinarow.knowledge.matching`` when one is attached (it is not needed by the checker).

Cells are ``(x, y)`` with y up. Square directions: horizontal (1, 0),
vertical (0, 1), diagonal (1, 1), anti (1, -1). Hexagonal directions (the
three axes of kinarow's hex geometry): horizontal (1, 0), vertical (0, 1),
diagonal (1, -1).

This module holds the data model (:class:`Tiling` and its JSON) and the
checker, written from the lattice arithmetic alone; the named strategies,
the pictures and the search live in :mod:`kinarow.knowledge.infinite`.

>>> pairs = [((0, 0), (1, 0))]
>>> t = Tiling("domino", ((0, 0), (1, 0)), ((2, 0), (0, 1)), (((0, 0), (1, 0)),), {"kind": "pairing", "pairs": pairs})
>>> tiles_exactly(t.tile, t.lattice).ok, max_runs(t)["horizontal"], max_runs(t)["vertical"]
(True, 2, None)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from math import gcd
from typing import Any

from kinarow.errors import KinarowError
from kinarow.proofs import Verdict, require_format, require_input

FORMAT = "kinarow.tiling"
VERSION = 1

Cell = tuple[int, int]

SQUARE_DIRECTIONS: dict[str, Cell] = {"horizontal": (1, 0), "vertical": (0, 1), "diagonal": (1, 1), "anti": (1, -1)}
HEX_DIRECTIONS: dict[str, Cell] = {"horizontal": (1, 0), "vertical": (0, 1), "diagonal": (1, -1)}
MAX_TILE_FOR_GAME = 20  # the exhaustive Maker-Breaker check is for small tiles
# The most cells a tile may have: four times the largest known one (hj9, 64 cells). The exact-tiling check takes
# (cells)^3 steps, so this bounds what a crafted certificate can cost.
MAX_TILE_CELLS = 256


class TilingError(KinarowError):
    """A tiling strategy that cannot be read or used."""


@dataclass
class Tiling:
    """A periodic strategy: tile, lattice, chosen groups and local strategy (with claimed runs)."""

    name: str
    tile: tuple[Cell, ...]
    lattice: tuple[Cell, Cell]
    groups: tuple[tuple[Cell, ...], ...]
    strategy: dict[str, Any]  # {"kind": "pairing", "pairs": [...]} | {"kind": "reply", "rule": {...}} | maker-breaker
    hexagonal: bool = False
    claimed_max_run: dict[str, int] | None = None
    source: str = ""
    matching_set: dict[str, Any] | None = None
    blocks: tuple[tuple[Cell, ...], ...] | None = None  # independent parts of the tile (default: the whole tile)
    notes: list[str] = field(default_factory=list)

    @property
    def parts(self) -> tuple[tuple[Cell, ...], ...]:
        """The parts the second player answers in: the blocks, or the whole tile."""
        return self.blocks if self.blocks else (self.tile,)

    @property
    def directions(self) -> dict[str, Cell]:
        return HEX_DIRECTIONS if self.hexagonal else SQUARE_DIRECTIONS

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "name": self.name,
            "hexagonal": self.hexagonal,
            "tile": [list(c) for c in self.tile],
            "lattice": [list(v) for v in self.lattice],
            "groups": [[list(c) for c in g] for g in self.groups],
            "strategy": _strategy_to_json(self.strategy),
            "claimed_max_run": self.claimed_max_run,
            "source": self.source,
            "matching_set": self.matching_set,
            "blocks": None if self.blocks is None else [[list(c) for c in b] for b in self.blocks],
        }

    @classmethod
    def from_json(cls, data: Any) -> Tiling:
        require_format(data, FORMAT, VERSION, "tiling")
        try:
            tile = tuple(_cell(c) for c in data["tile"])
            a, b = (_cell(v) for v in data["lattice"])
            groups = tuple(tuple(_cell(c) for c in g) for g in data["groups"])
            strategy = _strategy_from_json(data["strategy"])
            claimed = data.get("claimed_max_run")
            if claimed is not None:
                claimed = {str(k): _whole(v, "a claimed run", MAX_COORDINATE) for k, v in claimed.items()}
            return cls(
                str(data.get("name", "tiling")),
                tile,
                (a, b),
                groups,
                strategy,
                bool(data.get("hexagonal", False)),
                claimed,
                str(data.get("source", "")),
                data.get("matching_set"),
                None if data.get("blocks") is None else tuple(tuple(_cell(c) for c in b) for b in data["blocks"]),
            )
        except TilingError:
            raise  # already one sentence
        except (KeyError, TypeError, ValueError) as error:
            raise TilingError(f"the tiling certificate is damaged ({error!r})") from None


#: the largest coordinate a tiling certificate may give (tiles have at most MAX_TILE_CELLS cells)
MAX_COORDINATE = 2**20


def _cell(value: Any) -> Cell:
    x, y = value
    return _whole(x, "a coordinate", MAX_COORDINATE), _whole(y, "a coordinate", MAX_COORDINATE)


def _whole(value: Any, what: str, most: int) -> int:
    """A JSON whole number within +-``most`` (not text like "3" or "\u0663", not 1.5, not true)."""
    if isinstance(value, bool) or not isinstance(value, int) or not -most <= value <= most:
        raise TilingError(f"{what} in the tiling certificate must be a whole number from {-most:,} to {most:,}, "
                          f"not {str(value)[:40]!r}")
    return value


def _strategy_to_json(strategy: Mapping[str, Any]) -> dict[str, Any]:
    kind = strategy["kind"]
    if kind == "pairing":
        return {"kind": kind, "pairs": [[list(a), list(b)] for a, b in strategy["pairs"]]}
    if kind == "reply":
        return {"kind": kind, "rule": _rule_to_json(strategy["rule"])}
    return {"kind": kind}


def _rule_to_json(rule: Mapping[str, Any]) -> dict[str, Any]:
    if "pairs" in rule:
        return {"pairs": [[list(a), list(b)] for a, b in rule["pairs"]]}
    return {"replies": [[list(x), list(r["reply"]), _rule_to_json(r["then"])] for x, r in rule["replies"].items()]}


def _strategy_from_json(data: Mapping[str, Any]) -> dict[str, Any]:
    kind = data["kind"]
    if kind == "pairing":
        return {"kind": kind, "pairs": [(_cell(a), _cell(b)) for a, b in data["pairs"]]}
    if kind == "reply":
        return {"kind": kind, "rule": _rule_from_json(data["rule"])}
    if kind == "maker-breaker":
        return {"kind": kind}
    raise TilingError(f"unknown local strategy kind '{kind}'; use pairing, reply or maker-breaker")


def _rule_from_json(data: Mapping[str, Any]) -> dict[str, Any]:
    if "pairs" in data:
        return {"pairs": [(_cell(a), _cell(b)) for a, b in data["pairs"]]}
    return {"replies": {_cell(x): {"reply": _cell(r), "then": _rule_from_json(t)} for x, r, t in data["replies"]}}


# -- lattice arithmetic ----------------------------------------------------------------
class Residues:
    """Cells modulo the lattice: which tile cell (and which translation) every plane cell belongs to."""

    def __init__(self, tile: Sequence[Cell], lattice: tuple[Cell, Cell]) -> None:
        (a1, a2), (b1, b2) = lattice
        self.det = abs(a1 * b2 - a2 * b1)
        if self.det == 0:
            raise TilingError("the lattice vectors are parallel; they must span the plane")
        d = self.det
        self.table: dict[Cell, list[Cell]] = {}
        # D Z^2 lies in the lattice, so a cell's class mod the lattice is fixed by (x mod D, y mod D)
        for t in tile:
            for i in range(d):
                for j in range(d):
                    key = ((t[0] + i * a1 + j * b1) % d, (t[1] + i * a2 + j * b2) % d)
                    owners = self.table.setdefault(key, [])
                    if t not in owners:
                        owners.append(t)

    def owner(self, cell: Cell) -> Cell:
        """The tile cell congruent to ``cell``."""
        owners = self.table.get((cell[0] % self.det, cell[1] % self.det))
        if not owners:
            raise TilingError(f"the tiles leave the cell {cell} uncovered")
        return owners[0]


def tiles_exactly(tile: Sequence[Cell], lattice: tuple[Cell, Cell]) -> Verdict:
    """Do the lattice translates of the tile cover the plane with no gap and no overlap?"""
    cells = list(tile)
    if len(set(cells)) != len(cells):
        return Verdict(False, "the tile lists a cell twice")
    if len(cells) > MAX_TILE_CELLS:
        return Verdict(False, f"the tile has {len(cells):,} cells; a tiling certificate may have at most "
                       f"{MAX_TILE_CELLS}")
    (a1, a2), (b1, b2) = lattice
    if abs(a1 * b2 - a2 * b1) != len(cells):  # checked first: the residue table takes det^2 steps a cell
        return Verdict(False, f"the tile has {len(cells)} cells but the lattice has {abs(a1 * b2 - a2 * b1)} cells "
                       "per period")
    try:
        residues = Residues(cells, lattice)
    except TilingError as error:
        return Verdict(False, str(error))
    if residues.det != len(cells):
        return Verdict(False, f"the tile has {len(cells)} cells but the lattice has {residues.det} cells per period")
    for owners in residues.table.values():
        if len(owners) > 1:
            return Verdict(False, f"the translates overlap: {owners[0]} and {owners[1]} differ by a lattice vector")
    return Verdict(True, f"{len(cells)} cells, lattice {lattice[0]}, {lattice[1]}: the translates tile the plane")


def direction_of(group: Sequence[Cell], directions: Mapping[str, Cell]) -> str | None:
    """The direction name of a straight segment of consecutive cells (either orientation), or None."""
    if len(group) < 2:
        return None
    cells = sorted(group)
    for name, (dx, dy) in directions.items():
        for sx, sy in ((dx, dy), (-dx, -dy)):
            start = min(cells, key=lambda c: (c[0] * sx + c[1] * sy))
            if sorted((start[0] + i * sx, start[1] + i * sy) for i in range(len(cells))) == cells:
                return name
    return None


def line_period(v: Cell, lattice: tuple[Cell, Cell]) -> int:
    """The smallest t > 0 with t * v in the lattice."""
    (a1, a2), (b1, b2) = lattice
    det = a1 * b2 - a2 * b1
    # t v = i a + j b  <=>  i = t (v1 b2 - v2 b1) / det, j = t (a1 v2 - a2 v1) / det
    p = v[0] * b2 - v[1] * b1
    q = a1 * v[1] - a2 * v[0]
    g = gcd(gcd(p, q), det)
    return abs(det) // g


def max_runs(tiling: Tiling, only: Sequence[str] | None = None) -> dict[str, int | None]:
    """For each direction (or those in ``only``), the longest run of cells of an infinite line holding
    no complete chosen group.

    ``None`` when some line of that direction holds no chosen group (runs are unbounded).
    """
    residues = Residues(tiling.tile, tiling.lattice)
    tile_set = set(tiling.tile)
    result: dict[str, int | None] = {}
    for name, v in tiling.directions.items():
        if only is not None and name not in only:
            continue
        # chosen groups of this direction, by their first cell (smallest along v) and length
        starts: dict[Cell, list[int]] = {}
        for g in tiling.groups:
            if direction_of(g, {name: v}) is None:
                continue
            first = min(g, key=lambda c: c[0] * v[0] + c[1] * v[1])
            starts.setdefault(first, []).append(len(g))
        period = line_period(v, tiling.lattice)
        seen: set[Cell] = set()
        worst: int | None = 0
        for base in sorted(tile_set):
            if base in seen:
                continue
            # the line through base: every tile cell on it, over one period
            intervals: list[tuple[int, int]] = []
            for t in range(period):
                cell = (base[0] + t * v[0], base[1] + t * v[1])
                owner = residues.owner(cell)
                seen.add(owner)
                # a translate of a group starting at owner starts at cell (translation = cell - owner)
                for length in starts.get(owner, []):
                    intervals.append((t, t + length - 1))
            if not intervals:
                worst = None
                break
            run = longest_gap(intervals, period)
            if worst is not None and run > worst:
                worst = run
        result[name] = worst
    return result


def longest_gap(intervals: list[tuple[int, int]], period: int) -> int:
    """Longest stretch of a periodic line (intervals repeat with ``period``) containing no whole interval."""
    spans = sorted({(s + k * period, e + k * period) for s, e in intervals for k in range(-1, 3)})
    # keep the minimal intervals (one containing another never matters)
    minimal: list[tuple[int, int]] = []
    for s, e in sorted(spans, key=lambda x: (x[1], -x[0])):
        if minimal and minimal[-1][0] >= s:
            continue
        minimal.append((s, e))
    best = 0
    for (s1, _), (_, e2) in itertools.pairwise(minimal):
        best = max(best, e2 - s1 - 1)
    return best


# -- local strategies ------------------------------------------------------------------
def _blocks_by_pairing(groups: Sequence[frozenset[Cell]], pairs: Sequence[tuple[Cell, Cell]], cells: set[Cell]) -> str:
    """'' when the pairs are disjoint, inside the tile, and every group holds one; else the reason."""
    used: set[Cell] = set()
    for a, b in pairs:
        if a == b or a in used or b in used:
            return f"the pairs are not disjoint (cell {a if a in used or a == b else b} is used twice)"
        if a not in cells or b not in cells:
            return f"the pair {a}-{b} leaves the tile"
        used |= {a, b}
    for g in groups:
        if not any(a in g and b in g for a, b in pairs):
            return f"the group {sorted(g)} holds no pair"
    return ""


def _check_rule(rule: Mapping[str, Any], groups: list[frozenset[Cell]], black: frozenset[Cell], white: frozenset[Cell],
                cells: set[Cell]) -> str:
    """'' when the reply rule keeps every live group from becoming all Black; else the reason."""
    live = [g for g in groups if not g & white]
    if "pairs" in rule:
        pairs = [(a, b) for a, b in rule["pairs"] if a not in black and b not in black and a not in white
                 and b not in white]
        if len(pairs) != len(rule["pairs"]):
            return f"after Black {sorted(black)} and White {sorted(white)} a pair of the rule is no longer empty"
        return _blocks_by_pairing(live, pairs, cells)
    replies = rule["replies"]
    for x in sorted(cells - black - white):
        if x not in replies:
            # a move the rule does not answer: White still answers somewhere; checking the worst
            # case means White passes, so the rest must hold with x Black (only sound in
            # the last layer, a pairing, handled above); demand an answer instead
            if any(x in g for g in live):
                return f"the rule gives no reply to Black {x} after Black {sorted(black)} and White {sorted(white)}"
            continue
        step = replies[x]
        y = step["reply"]
        if y in black or y in white or y == x or y not in cells:
            return f"the reply {y} to Black {x} is not an empty tile cell"
        reason = _check_rule(step["then"], groups, black | {x}, white | {y}, cells)
        if reason:
            return reason
    return ""


def breaker_wins(cells: Sequence[Cell], groups: Sequence[Sequence[Cell]]) -> bool:
    """Exhaustive Maker-Breaker game on the tile: does Breaker, moving second, keep every group?"""
    index = {c: i for i, c in enumerate(sorted(set(cells)))}
    n = len(index)
    if n > MAX_TILE_FOR_GAME:
        raise TilingError(f"the tile has {n} cells; the exhaustive Maker-Breaker check handles at most "
                          f"{MAX_TILE_FOR_GAME}")
    masks = tuple(sum(1 << index[c] for c in g) for g in groups)

    @cache
    def maker_to_move(maker: int, breaker: int) -> bool:
        """True when Breaker wins from here with Maker to move."""
        live = [m for m in masks if not m & breaker]
        if not live:
            return True
        free = ~(maker | breaker) & ((1 << n) - 1)
        if not free:
            return True
        for i in range(n):
            bit = 1 << i
            if not free & bit:
                continue
            m2 = maker | bit
            if any(m & m2 == m for m in live):
                return False
            rest = free & ~bit
            if not rest:
                continue
            if not any(maker_to_move(m2, breaker | (1 << j)) for j in range(n) if rest >> j & 1):
                return False
        return True

    if any(m == 0 for m in masks):
        return False
    return maker_to_move(0, 0)


def check(tiling: Tiling) -> Verdict:
    """Re-verify a tiling strategy from scratch: exact tiling, groups, local strategy, claimed runs."""
    require_input(tiling, Tiling, "kinarow.proofs.tiling.check()", "a Tiling (Tiling.from_json reads one)")
    exact = tiles_exactly(tiling.tile, tiling.lattice)
    if not exact.ok:
        return exact
    cells = set(tiling.tile)
    for g in tiling.groups:
        if not set(g) <= cells:
            return Verdict(False, f"the group {list(g)} leaves the tile")
        if len(set(g)) != len(g) or direction_of(g, tiling.directions) is None:
            return Verdict(False, f"the group {list(g)} is not a straight segment of consecutive cells")
    groups = [frozenset(g) for g in tiling.groups]
    if tiling.blocks:
        covered = [c for b in tiling.blocks for c in b]
        if sorted(covered) != sorted(tiling.tile):
            return Verdict(False, "the blocks do not split the tile into disjoint parts")
        for group in groups:
            if not any(group <= set(b) for b in tiling.blocks):
                return Verdict(False, f"the group {sorted(group)} straddles two blocks")
        if kind_needs_whole_tile(tiling.strategy):
            return Verdict(False, "blocks are only used with a maker-breaker local strategy")
    kind = tiling.strategy.get("kind")
    if kind == "pairing":
        reason = _blocks_by_pairing(groups, tiling.strategy["pairs"], cells)
    elif kind == "reply":
        reason = _check_rule(tiling.strategy["rule"], groups, frozenset(), frozenset(), cells)
    elif kind == "maker-breaker":
        reason = ""
        for part in tiling.parts:
            inside = [g for g in tiling.groups if set(g) <= set(part)]
            if not breaker_wins(part, inside):
                reason = f"Maker, moving first, wins the game on the groups of the block at {min(part)}"
                break
    else:
        reason = f"unknown local strategy kind '{kind}'"
    if reason:
        return Verdict(False, reason)
    runs = max_runs(tiling)
    if tiling.claimed_max_run is not None:
        for name, value in tiling.claimed_max_run.items():
            if runs.get(name, -1) != value:
                return Verdict(False, f"the claimed longest {name} run is {value} but it is {runs.get(name)}")
    k = draw_for_k_at_least(runs)
    if k is None:
        return Verdict(False, "some line holds no chosen group, so runs are unbounded")
    return Verdict(True, f"tiling '{tiling.name}' is exact and blocks every chosen group; longest runs "
                   + ", ".join(f"{n} {r}" for n, r in runs.items()) + f": a draw for every k >= {k}")


def kind_needs_whole_tile(strategy: Mapping[str, Any]) -> bool:
    return strategy.get("kind") != "maker-breaker"


def draw_for_k_at_least(runs: Mapping[str, int | None]) -> int | None:
    """The smallest k the runs prove a draw for (one more than the longest run), or None if unbounded."""
    if any(r is None for r in runs.values()):
        return None
    return max(int(r) for r in runs.values() if r is not None) + 1


def check_certificate(data: dict[str, Any]) -> Verdict:
    """The ``kinarow.tiling`` checker for :mod:`kinarow.proofs`: load the strategy and re-verify all of it."""
    strategy = Tiling.from_json(data)
    verdict = check(strategy)
    if verdict.ok:
        return verdict
    return Verdict(False, f"the tiling '{strategy.name}' fails: {verdict.reason}")
