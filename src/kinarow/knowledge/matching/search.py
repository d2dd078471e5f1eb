"""New configurations: Breaker-win hypergraphs with a low coverage ratio (Uiterwijk's open question 2).

The best published configuration, FlatStar/Line, covers 7 groups with 8
markers (ratio 1.14). This module searches non-overlapping hypergraphs (two
groups share at most one marker) for Breaker wins with fewer markers per
group:

* **abstract**: on ``v`` markers, groups of 2 to ``max_size`` markers are
  added in random order, each kept only if the hypergraph stays
  non-overlapping and a Breaker win (adding a group only helps Maker, so the
  result is a maximal Breaker win); many random orders per ``v``;
* **grid**: the best abstract hypergraphs are then placed on a 4-in-a-row
  board as in the catalogue's example positions (every group a line whose
  other cells are Black; SAT, :mod:`kinarow.knowledge.matching.examples`), so that they
  are configurations of straight lines on the square grid.

Every hypergraph reported is re-solved and its matching set checked.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from kinarow.errors import KinarowError
from kinarow.knowledge.matching import Configuration, find
from kinarow.proofs.matching import check

LETTERS = "abcdefghijklmnopqrstuvwxyz"
#: the most markers of the exhaustive search (each size is one search of up to 5 million nodes)
MAX_EXHAUSTIVE_MARKERS = 12
#: the most markers of the greedy search (its candidate groups grow as the cube of the markers)
MAX_GREEDY_MARKERS = 16
#: the most random orders the greedy search tries per marker count
MAX_TRIES = 100_000


def _check_size(value: int, what: str, least: int, most: int) -> None:
    if not least <= value <= most:
        raise KinarowError(f"{what} = {value} is not searched; it runs from {least} to {most}")


@dataclass
class Found:
    markers: int
    groups: list[list[str]]
    board: str | None = None
    moves: str | None = None

    @property
    def ratio(self) -> float:
        return self.markers / len(self.groups)

    @property
    def spec(self) -> str:
        return " ".join("".join(g) for g in self.groups)

    def to_dict(self) -> dict[str, Any]:
        return {"markers": self.markers, "groups": len(self.groups), "ratio": round(self.ratio, 4),
                "reduction": 2 * len(self.groups) - self.markers, "spec": self.spec, "board": self.board,
                "moves": self.moves}


class _Solver:
    """Breaker-win tests for many small hypergraphs, reusing one memo table (a new stamp per hypergraph)."""

    def __init__(self, vertices: int, groups: int) -> None:
        import numpy as np

        from kinarow.engine import breaker as BK

        self.np = np
        self.BK = BK
        self.buf = BK.new_buffers(vertices, groups)
        self.memo = BK.new_memo(16)
        self.ctrl = np.zeros(BK.N_CTRL, np.int64)
        self.stamp = 0

    def breaker_wins(self, masks: list[int]) -> bool:
        np = self.np
        self.stamp += 1
        self.ctrl[self.BK.C_STAMP] = self.stamp
        self.ctrl[self.BK.C_NODES] = 0
        arr = np.array(masks, np.uint64)
        r = self.BK.breaker_wins(arr, np.uint64(0), np.uint64(0), True, self.buf, self.memo, self.ctrl)
        return bool(r == self.BK.BREAKER)


def exhaustive(v: int, max_size: int = 3, limit: int = 5_000_000) -> tuple[list[int], int, bool]:
    """The largest non-overlapping Breaker-win hypergraph on exactly ``v`` markers (groups of 2..max_size).

    Depth-first over groups in a fixed order (a group that makes Maker win is
    never extended: more groups only help Maker). Returns (groups, nodes,
    finished): ``finished`` is False when ``limit`` nodes ran out.
    """
    _check_size(v, "the exhaustive search's markers", 1, MAX_EXHAUSTIVE_MARKERS)
    _check_size(max_size, "the largest group", 2, 4)
    cands = [sum(1 << i for i in c) for size in range(2, max_size + 1) for c in combinations(range(v), size)]
    solver = _Solver(v, len(cands))
    full = (1 << v) - 1
    best: list[int] = []
    nodes = 0

    def dfs(chosen: list[int], start: int, used: int) -> None:
        nonlocal best, nodes
        nodes += 1
        if nodes > limit:
            raise TimeoutError
        if used == full and len(chosen) > len(best):
            best = list(chosen)
        if len(chosen) + len(cands) - start <= len(best):
            return
        for j in range(start, len(cands)):
            g = cands[j]
            if not chosen and not g & 1:
                continue  # up to renaming, the first group holds marker a
            if any((g & h).bit_count() > 1 for h in chosen):
                continue
            if solver.breaker_wins([*chosen, g]):
                chosen.append(g)
                dfs(chosen, j + 1, used | g)
                chosen.pop()

    try:
        dfs([], 0, 0)
    except TimeoutError:
        return best, nodes, False
    return best, nodes, True


def _maximal(v: int, max_size: int, rng: random.Random, solver: _Solver | None = None) -> list[int]:
    """A maximal non-overlapping Breaker-win hypergraph on ``v`` markers, groups added in random order."""
    candidates = [sum(1 << i for i in c) for size in range(2, max_size + 1) for c in combinations(range(v), size)]
    rng.shuffle(candidates)
    solver = solver or _Solver(v, len(candidates))
    chosen: list[int] = []
    for g in candidates:
        if any((g & h).bit_count() > 1 for h in chosen):
            continue
        if solver.breaker_wins([*chosen, g]):
            chosen.append(g)
    return chosen


def search_abstract(max_markers: int = 10, tries: int = 200, max_size: int = 3, seed: int = 1) -> list[Found]:
    """The hypergraph with the most groups found for each number of markers (4 .. ``max_markers``)."""
    _check_size(max_markers, "the greedy search's markers", 1, MAX_GREEDY_MARKERS)
    _check_size(tries, "the tries per marker count", 1, MAX_TRIES)
    _check_size(max_size, "the largest group", 2, 4)
    rng = random.Random(seed)
    best: list[Found] = []
    for v in range(4, max_markers + 1):
        top: list[int] = []
        for _ in range(tries):
            chosen = _maximal(v, max_size, rng)
            used = 0
            for g in chosen:
                used |= g
            if used.bit_count() == v and len(chosen) > len(top):
                top = chosen
        if top:
            groups = [[LETTERS[i] for i in range(v) if g >> i & 1] for g in top]
            best.append(Found(v, groups))
    for f in best:  # re-verify with the public API and the rules-only checker
        result = find(f.groups)
        assert result.matching_set is not None and check(result.matching_set).ok
    return best


GRID_BOARDS = ("4x4k4", "5x4k4", "5x5k4", "6x5k4", "6x6k4")


def place_on_grid(found: Found, boards: tuple[str, ...] = GRID_BOARDS) -> Found | None:
    """The hypergraph as straight lines on a 4-in-a-row board (an example position), or None."""
    from kinarow.errors import KinarowError
    from kinarow.knowledge.matching.examples import example_position

    config = Configuration("candidate", found.spec, found.markers, len(found.groups), 0, 0.0, 0)
    try:
        example = example_position(config, boards)
    except KinarowError:
        return None
    return Found(found.markers, found.groups, str(example.position.game), example.moves)


def search(max_markers: int = 10, tries: int = 200, seed: int = 1, grid_tries: int = 6) -> dict[str, Any]:
    """Both searches: the abstract optimum per marker count, and the best that fits the square grid."""
    abstract = search_abstract(max_markers, tries, 3, seed)
    best_abstract = min(abstract, key=lambda f: (f.ratio, -len(f.groups)))
    # grid: groups of at most 4 markers (a line of 4), candidates by ratio
    rng = random.Random(seed)
    grid: list[Found] = []
    pool: list[Found] = []
    for v in range(4, max_markers + 1):
        for _ in range(grid_tries):
            chosen = _maximal(v, 3, rng)
            used = 0
            for g in chosen:
                used |= g
            if used.bit_count() == v:
                pool.append(Found(v, [[LETTERS[i] for i in range(v) if g >> i & 1] for g in chosen]))
    pool.sort(key=lambda f: (f.ratio, f.markers))
    for f in pool:
        if grid and f.ratio >= grid[0].ratio:
            break
        placed = place_on_grid(f)
        if placed is not None:
            grid.append(placed)
    return {"abstract": abstract, "best_abstract": best_abstract, "grid": grid[0] if grid else None}
