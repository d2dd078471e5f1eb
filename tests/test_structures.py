"""The census of group structures (kinarow.knowledge.matching.structures) against brute force.

The brute force shares nothing with the census: it takes every set of groups
over labelled markers, keeps the connected ones with groups of 2 to 4
markers meeting in at most one marker, decides the Maker-Breaker game by plain
minimax, and merges isomorphic copies by trying every relabelling.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations, permutations

import pytest

from kinarow.knowledge.matching import CATALOGUE
from kinarow.knowledge.matching.structures import canonical, census, structures


def maker_wins(groups: tuple[frozenset[int], ...]) -> bool:
    """Maker moves first; does Maker take every marker of some group? (plain minimax)"""
    cells = frozenset().union(*groups)

    @cache
    def maker_to_move(maker: frozenset[int], breaker: frozenset[int]) -> bool:
        free = cells - maker - breaker
        for x in free:
            m = maker | {x}
            if any(g <= m for g in groups):
                return True
            rest = free - {x}
            if rest and all(maker_to_move(m, breaker | {y}) for y in rest):
                return True
        return False

    return maker_to_move(frozenset(), frozenset())


def brute_force(markers: int, count: int) -> set[tuple[frozenset[frozenset[int]], ...]]:
    candidates = [frozenset(c) for size in (2, 3, 4) for c in combinations(range(markers), size)]
    classes: set[frozenset[frozenset[int]]] = set()
    for groups in combinations(candidates, count):
        if frozenset().union(*groups) != frozenset(range(markers)):
            continue
        if any(len(a & b) > 1 for a, b in combinations(groups, 2)):
            continue
        reached, grown = set(groups[0]), True
        while grown:
            grown = False
            for g in groups:
                if g & reached and not g <= reached:
                    reached |= g
                    grown = True
        if len(reached) != markers or maker_wins(groups):
            continue
        classes.add(min((tuple(sorted(tuple(sorted(p[m] for m in g)) for g in groups))
                         for p in permutations(range(markers))), key=repr))
    return classes


@pytest.mark.parametrize(("markers", "count"), [(5, 3), (5, 4), pytest.param(6, 4, marks=pytest.mark.slow)])
def test_census_matches_brute_force(markers, count):
    assert len(structures(markers, count)) == len(brute_force(markers, count))


def test_canonical_form_is_invariant_and_separates():
    triangle = [["a", "b"], ["a", "c", "d"], ["b", "c", "e"]]
    relabelled = [["x", "e"], ["e", "q", "r"], ["q", "x", "z"]]
    assert canonical(triangle) == canonical(relabelled)
    path = [["a", "b"], ["b", "c", "d"], ["d", "e"]]
    assert canonical(triangle) != canonical(path)


@pytest.mark.parametrize(("name", "count"), [("Triangle", 1), ("Triangle/Line", 3), ("Square", 14),
                                              ("FlatStar/Line", 1)])
def test_reconstruction_is_in_the_census(name, count):
    config = next(c for c in CATALOGUE if c.name == name)
    found = census(config.markers, config.group_count)
    assert found.complete and len(found.found) == count
    assert canonical(config.group_list()) in found.found


def test_a_budget_that_runs_out_says_the_census_is_incomplete():
    found = census(8, 5, max_prefixes=50)
    assert not found.complete


@pytest.mark.slow
def test_the_published_counts_pin_down_only_triangle_and_flatstar_line():
    unique = []
    for config in CATALOGUE:
        found = census(config.markers, config.group_count)
        assert found.complete and canonical(config.group_list()) in found.found, config.name
        if len(found.found) == 1:
            unique.append(config.name)
    assert unique == ["Triangle", "FlatStar/Line"]
