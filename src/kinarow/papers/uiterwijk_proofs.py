"""The proofs of Uiterwijk's "Set Matching" (ACG 2017 and the journal version), rebuilt and checked.

* :func:`four_by_four` -- the empty 4x4 board, 4 in a row: two BiTriangles on
  disjoint markers (16 markers) cover all 10 groups, so the first player
  cannot win (and by the same sets the second player cannot either): a draw
  with no search.
* :func:`h_heptomino` -- Pollak and Shannon's H-shaped tile for 9 in a row:
  a matching set covers 4 of its 5 groups of 3.
* :func:`zetters_block` -- the 12-cell block of 3 ragged rows of 4 for
  8 in a row, with 9 groups, covered by a two-level matching set with 12
  markers. The block's shape was in a figure we do not have: it is
  reconstructed here by search from the published counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, product

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.knowledge.matching import configuration, find
from kinarow.proofs.matching import MatchingProof, MatchingSet, check

# -- the empty 4x4 board -------------------------------------------------------------------
#: the fit of the brief: BiTriangle "ab acd bce afg bfh" placed twice (marker -> cell)
BITRIANGLE_FITS: tuple[dict[str, str], ...] = (
    # main markers a1, d4 (side = main diagonal), apexes d1 (c) and a4 (f)
    {"a": "a1", "b": "d4", "c": "d1", "d": "b1", "e": "d2", "f": "a4", "g": "a3", "h": "c4"},
    # main markers b3, c2 (side = anti-diagonal), apexes c3 (c) and b2 (f)
    {"a": "b3", "b": "c2", "c": "c3", "d": "d3", "e": "c1", "f": "b2", "g": "b4", "h": "a2"},
)


def four_by_four() -> MatchingProof:
    """The empty 4x4 board (k = 4): the first player cannot win, by two BiTriangles (16 markers, 10 groups)."""
    game = Game("4x4k4")
    geo = game.geometry
    bitriangle = configuration("BiTriangle").group_list()
    parts = []
    for fit in BITRIANGLE_FITS:
        groups = [[fit[m] for m in g] for g in bitriangle]
        found = find(groups)
        if found.matching_set is None:  # pragma: no cover - the BiTriangle is a Breaker win
            raise KinarowError("internal error: a BiTriangle is not a Breaker win")
        parts.append(found.matching_set)
    markers = [geo.name(c) for c in range(game.cells)]
    groups = [[geo.name(c) for c in g] for g in geo.groups]
    whole = MatchingSet(markers, groups, parts=parts)
    return MatchingProof(str(game), [], [("first", whole)])


# -- the H-heptomino ------------------------------------------------------------------------
#: the tile's cells (a 3x3 square without b1 and b3) and its five groups of 3
H_CELLS = ("a1", "a2", "a3", "b2", "c1", "c2", "c3")
H_GROUPS = {
    "left column": ["a1", "a2", "a3"],
    "right column": ["c1", "c2", "c3"],
    "middle row": ["a2", "b2", "c2"],
    "diagonal": ["a1", "b2", "c3"],
    "anti-diagonal": ["a3", "b2", "c1"],
}
H_COVERED = ("diagonal", "anti-diagonal", "middle row", "right column")


def h_heptomino() -> MatchingSet:
    """The published local strategy: answer the centre with the middle of the right column, else the centre."""
    groups = [H_GROUPS[name] for name in H_COVERED]
    markers = sorted({c for g in groups for c in g})
    coverings: dict[str, tuple[str, MatchingSet]] = {}
    for x in markers:
        y = "c2" if x == "b2" else "b2"
        rest = [[c for c in g if c != x] for g in groups if y not in g]
        left = sorted({c for g in rest for c in g})
        pairs = _pairs_for(rest)
        coverings[x] = (y, MatchingSet(left, rest, pairs=pairs))
    return MatchingSet(markers, groups, coverings=coverings)


def _pairs_for(groups: list[list[str]]) -> list[tuple[str, str]]:
    """Disjoint pairs, one inside each group (small cases: the first choice that works)."""
    for choice in product(*[list(combinations(g, 2)) for g in groups]):
        cells = [c for pair in choice for c in pair]
        if len(cells) == len(set(cells)):
            return sorted(set(choice))
    raise KinarowError("internal error: these groups have no pairing")


# -- the Zetters block ----------------------------------------------------------------------
@dataclass
class Block:
    """A block of cells (x, y) with its groups, and the matching set covering them."""

    cells: list[tuple[int, int]]
    groups: list[list[tuple[int, int]]]
    kinds: list[str]
    matching_set: MatchingSet

    @staticmethod
    def name(cell: tuple[int, int]) -> str:
        return f"{chr(ord('a') + cell[0])}{cell[1] + 1}"

    def picture(self) -> str:
        xs = [x for x, _ in self.cells]
        rows = []
        for y in range(2, -1, -1):
            marks = ["#" if (x, y) in self.cells else "." for x in range(min(xs), max(xs) + 1)]
            rows.append(f"{y + 1} " + " ".join(marks))
        return "\n".join(rows)


def zetters_block() -> Block:
    """A 12-cell block (3 rows of 4, ragged) with 9 groups and a matching set on all 12 cells.

    Searched: row offsets, then 4 diagonal groups of 3 (one cell per row) and 2
    vertical groups of 2 such that four cells lie in 3 groups and the others
    in 2 (the published counts), with Breaker winning the Maker-Breaker game
    on the 9 groups; the block whose matching set has the fewest covering
    levels is kept (the first such, blocks with small row offsets first).

    The paper's matching set has two levels; every block we find with the
    published counts needs three (see docs/matching.md): our reconstruction
    of the block may differ from the published one.
    """
    best: Block | None = None
    for o1, o2 in sorted(product(range(-3, 4), repeat=2), key=lambda o: (abs(o[0]) + abs(o[1]), o)):
        offsets = (3, 3 + o1, 3 + o2)  # columns from a (x = 0)
        cells = [(offsets[y] + i, y) for y in range(3) for i in range(4)]
        cell_set = set(cells)
        rows = [[(offsets[y] + i, y) for i in range(4)] for y in range(3)]
        diagonals = []
        for x, _ in rows[0]:
            for d in (1, -1):
                line = [(x + d * y, y) for y in range(3)]
                if all(c in cell_set for c in line):
                    diagonals.append(line)
        verticals = []
        for y in range(2):
            for x, _ in rows[y]:
                if (x, y + 1) in cell_set:
                    verticals.append([(x, y), (x, y + 1)])
        for diag in combinations(diagonals, 4):
            for vert in combinations(verticals, 2):
                groups = rows + list(diag) + list(vert)
                degree = {c: sum(1 for g in groups if c in g) for c in cells}
                if sorted(degree.values()) != [2] * 8 + [3] * 4:
                    continue
                if any(len(set(a) & set(b)) > 1 for a, b in combinations(groups, 2)):
                    continue
                named = [[Block.name(c) for c in g] for g in groups]
                found = find(named)
                if found.matching_set is None:
                    continue
                if best is None or found.matching_set.depth < best.matching_set.depth:
                    kinds = ["horizontal"] * 3 + ["diagonal"] * 4 + ["vertical"] * 2
                    best = Block(cells, list(groups), kinds, found.matching_set)
    if best is None:  # pragma: no cover - the search finds blocks
        raise KinarowError("no block with the published counts is a Breaker win")
    return best


def verify_all() -> dict[str, str]:
    """Check every proof of the paper; the reasons keyed by proof (raises on a failure)."""
    from kinarow.proofs.matching import check_proof

    out = {}
    verdict = check_proof(four_by_four())
    if not verdict:
        raise KinarowError(f"the 4x4 proof fails: {verdict.reason}")
    out["4x4"] = verdict.reason
    for name, ms in (("H-heptomino", h_heptomino()), ("Zetters block", zetters_block().matching_set)):
        v = check(ms)
        if not v:
            raise KinarowError(f"the {name} matching set fails: {v.reason}")
        out[name] = v.reason
    return out
