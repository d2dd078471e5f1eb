"""Every group structure with given marker and group counts that Breaker wins: is a reconstruction unique?

Uiterwijk's table of configurations gives, for each configuration, its
numbers of markers and groups (and the reduction 2|G| - |N| and ratio |N| / |G|,
which follow from those two), and for a few its main markers; the group
structures themselves were drawn in figures we do not have. The catalogue
(:data:`kinarow.knowledge.matching.CATALOGUE`) is our reconstruction. This
module asks how much the published counts pin a structure down:
:func:`structures` lists, up to isomorphism, every hypergraph with

* exactly ``markers`` markers and ``groups`` groups, every marker in a group;
* groups of 2 to ``max_size`` markers (4 by default: a group is the empty
  cells of a line of 4 on a 4-in-a-row board);
* two groups sharing at most one marker (two lines meet in at most one cell);
* connected (a configuration is one piece; a disconnected one is a sum of
  smaller configurations);
* Breaker, moving second, wins the Maker-Breaker game on it (a matching set
  exists).

These bounds are what makes the space finite; nothing else is assumed (in
particular not that the structure fits on a board). Groups are added one at a
time, each meeting the markers used so far, new markers numbered in order of
first appearance; a prefix that Maker already wins is cut (adding groups never
helps Breaker), and isomorphic copies are merged by a canonical form (the
sorted marker incidences, minimised over the orders of the groups).

>>> [len(s) for s in (structures(5, 3), structures(7, 4))]
[1, 14]
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations, permutations

import numpy as np

from kinarow.errors import KinarowError

#: the most markers and groups the search takes (a group is a bit of a marker's incidence mask; kernel masks)
MAX_MARKERS = 12
MAX_GROUPS = 8

Structure = tuple[tuple[int, ...], ...]  # groups as sorted tuples of marker indices


@dataclass
class Census:
    """What :func:`census` found for one (markers, groups): the structures, and the search's size."""

    markers: int
    groups: int
    max_size: int
    found: list[Structure] = field(default_factory=list)
    prefixes: int = 0  # group lists the search built and looked up (isomorphic ones extended once)
    seconds: float = 0.0
    complete: bool = True  # False: the prefix budget ran out, so ``found`` may miss structures


class _Solver:
    """The Maker-Breaker kernel with one buffer and memo table, a fresh stamp per group list."""

    def __init__(self, markers: int, groups: int) -> None:
        from kinarow.engine import breaker as BK

        self.BK = BK
        self.buf = BK.new_buffers(markers, groups)
        self.memo = BK.new_memo(14)
        self.ctrl = np.zeros(BK.N_CTRL, np.int64)

    def breaker_wins(self, masks: list[int]) -> bool:
        self.ctrl[self.BK.C_STAMP] += 1
        zero = np.uint64(0)
        r = self.BK.breaker_wins(np.array(masks, np.uint64), zero, zero, True, self.buf, self.memo, self.ctrl)
        return bool(r == self.BK.BREAKER)


def canonical(groups: Sequence[Sequence[object]]) -> Structure:
    """A canonical form: equal for two group structures exactly when they are isomorphic."""
    names: dict[object, int] = {}
    for g in groups:
        for m in g:
            names.setdefault(m, len(names))
    n = len(groups)
    incidence = [0] * len(names)
    for j, g in enumerate(groups):
        for m in g:
            incidence[names[m]] |= 1 << j
    # groups are permuted only among groups alike in invariants: colour refinement of the incidence graph
    # (a group's colour: its size, then the colours of its markers; a marker's: the colours of its groups)
    members = [[names[m] for m in g] for g in groups]
    holders = [[j for j in range(n) if inc >> j & 1] for inc in incidence]
    gcol = [len(g) for g in groups]
    mcol = [len(h) for h in holders]
    for _ in range(2):
        gkeys = [(gcol[j], tuple(sorted(mcol[m] for m in members[j]))) for j in range(n)]
        gnames = {key: i for i, key in enumerate(sorted(set(gkeys)))}
        gcol = [gnames[key] for key in gkeys]
        mkeys = [(mcol[m], tuple(sorted(gcol[j] for j in holders[m]))) for m in range(len(holders))]
        mnames = {key: i for i, key in enumerate(sorted(set(mkeys)))}
        mcol = [mnames[key] for key in mkeys]
    order = sorted(range(n), key=lambda j: gcol[j])
    classes: list[list[int]] = []
    for j in order:
        if classes and gcol[classes[-1][0]] == gcol[j]:
            classes[-1].append(j)
        else:
            classes.append([j])
    best: tuple[int, ...] | None = None
    for perm in _class_permutations(classes):
        pos = [0] * n  # pos[old group] = its place in this order
        for i, old in enumerate(perm):
            pos[old] = i
        key = tuple(sorted(sum(1 << pos[j] for j in h) for h in holders))
        if best is None or key < best:
            best = key
    assert best is not None
    out = [tuple(i for i, col in enumerate(best) if col >> j & 1) for j in range(n)]
    return tuple(out)


def _class_permutations(classes: list[list[int]]) -> list[list[int]]:
    result: list[list[int]] = [[]]
    for cls in classes:
        result = [r + list(p) for r in result for p in permutations(cls)]
    return result


def census(markers: int, groups: int, *, max_size: int = 4, max_prefixes: int = 2_000_000) -> Census:
    """Every connected structure with these counts that Breaker wins, up to isomorphism (see the module).

    ``max_prefixes`` bounds the group lists built; past it the census says it is incomplete.
    """
    if not (2 <= markers <= MAX_MARKERS and 1 <= groups <= MAX_GROUPS and 2 <= max_size <= 6):
        raise KinarowError(
            f"a structure census takes 2 to {MAX_MARKERS} markers, 1 to {MAX_GROUPS} groups and groups of "
            f"2 to 6 markers, not {markers} markers, {groups} groups, size {max_size}"
        )
    start = time.perf_counter()
    solver = _Solver(markers, groups)
    out = Census(markers, groups, max_size)
    seen: set[Structure] = set()
    prefixes: set[Structure] = set()
    masks: list[int] = []

    def extend(used: int) -> None:
        if out.prefixes >= max_prefixes:
            out.complete = False
            return
        placed = len(masks)
        if placed == groups:
            out.prefixes += 1
            if used == markers:
                form = canonical([tuple(i for i in range(markers) if g >> i & 1) for g in masks])
                if form not in seen:
                    seen.add(form)
                    out.found.append(form)
            return
        left = groups - placed
        # each later group brings at most max_size - 1 new markers (it meets the markers used so far)
        if markers - used > left * (max_size - 1) + (max_size if placed == 0 else 0):
            return
        old_markers = range(used)
        for size in range(2, max_size + 1):
            for olds in range(0 if placed == 0 else 1, size + 1):
                new = size - olds
                if used + new > markers or (placed == 0 and olds > 0):
                    continue
                fresh = sum(1 << (used + i) for i in range(new))
                for old in combinations(old_markers, olds):
                    mask = fresh
                    for m in old:
                        mask |= 1 << m
                    if any((mask & g).bit_count() > 1 for g in masks):
                        continue
                    masks.append(mask)
                    out.prefixes += 1
                    form = canonical([tuple(i for i in range(used + new) if g >> i & 1) for g in masks])
                    # isomorphic prefixes have isomorphic extensions: each is extended once
                    if form not in prefixes and solver.breaker_wins(masks):
                        extend(used + new)  # (a prefix Maker wins cannot become a Breaker win)
                    prefixes.add(form)
                    masks.pop()

    extend(0)
    out.seconds = time.perf_counter() - start
    return out


def structures(markers: int, groups: int, *, max_size: int = 4) -> list[Structure]:
    """The structures of :func:`census` (raises when its budget runs out)."""
    found = census(markers, groups, max_size=max_size)
    if not found.complete:
        raise KinarowError(f"the census of {markers} markers and {groups} groups ran out of its budget")
    return found.found


def letters(structure: Structure) -> str:
    """A structure written like the catalogue: one letter per marker, groups separated by spaces."""
    return " ".join("".join(chr(ord("a") + m) for m in g) for g in structure)
