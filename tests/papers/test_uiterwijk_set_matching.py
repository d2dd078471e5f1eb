"""Published figures from Uiterwijk, "Set Matching: an enhancement of the Hales-Jewett pairing strategy" (ACG 2017).

The configuration table (markers, groups, reduction, coverage ratio; set
matching proves each example position in 1 node), the cycles of n groups
(2n - 1 markers), the empty 4x4 board (two BiTriangles, 16 markers, 10
groups: a draw with no search), the H-heptomino's local matching set and the
Zetters block (12 markers, 9 groups). The expected figures are the paper's;
the group structures are our reconstructions, checked here.

Markers, groups, reduction and ratio are given, not reproduced: the
structures were typed in with the published counts and reduction and ratio
are arithmetic on them, so :func:`test_reconstruction_has_the_published_counts`
checks our typing only. Computed and compared: Breaker wins (the paper's
premise for every configuration), the main markers where published, 1 node
with set matching; whether the counts pin a structure down is in
tests/test_structures.py.
"""

from __future__ import annotations

import pytest

from kinarow import solve
from kinarow.knowledge.matching import CATALOGUE, check, check_proof, cycle, find
from kinarow.knowledge.matching.examples import example_position, example_properties
from kinarow.papers.uiterwijk import H_GROUPS, four_by_four, h_heptomino, zetters_block

PAPER = 'Uiterwijk, "Set Matching: an enhancement of the Hales-Jewett pairing strategy" (ACG 2017)'


def test_the_catalogue_has_the_twelve_published_configurations():
    assert [c.name for c in CATALOGUE] == [
        "Triangle", "Square", "Triangle/Line", "Square/Line", "BiTriangle", "BiTriangleX", "FlatStar",
        "BiTriangle/Line", "BiTriangle/BiLine", "BiTriangleX/Line", "FlatStar/Line", "TriTriangleX",
    ]


@pytest.mark.parametrize("config", CATALOGUE, ids=lambda c: c.name)
def test_reconstruction_is_a_breaker_win(config):
    result = find(config.groups)
    assert result.breaker_wins, PAPER  # computed: the paper's premise for every configuration
    assert check(result.matching_set).ok
    groups = config.group_list()
    assert all(len(set(a) & set(b)) <= 1 for i, a in enumerate(groups) for b in groups[i + 1 :])


@pytest.mark.parametrize("config", CATALOGUE, ids=lambda c: c.name)
def test_reconstruction_has_the_published_counts(config):
    # given, not reproduced: a check that our typed structure has the published counts (the
    # published reduction and ratio are then arithmetic on them; a typo in either would show here)
    ms = find(config.groups).matching_set
    assert (len(ms.markers), len(ms.groups)) == (config.markers, config.group_count), PAPER
    assert config.reduction == 2 * config.group_count - config.markers, PAPER
    assert config.ratio == round(config.markers / config.group_count, 2), PAPER


@pytest.mark.parametrize("name, main", [("Triangle", ["a", "b"]), ("BiTriangle", ["a", "b"]), ("FlatStar", ["b", "g"])])
def test_published_main_markers(name, main):
    config = next(c for c in CATALOGUE if c.name == name)
    assert sorted(find(config.groups).matching_set.main_markers) == main, PAPER


@pytest.mark.parametrize("config", CATALOGUE, ids=lambda c: c.name)
def test_some_marker_cannot_be_spared(config):
    # the published counts are tight: giving Black one of the markers for free lets Maker win
    groups = config.group_list()
    markers = sorted({m for g in groups for m in g})
    assert any(find([[x for x in g if x != m] for g in groups]).breaker_wins is False for m in markers)


@pytest.mark.parametrize("n", range(3, 9))
def test_cycle_of_n_groups_uses_2n_minus_1_markers(n):
    result = find(cycle(n))
    assert result.breaker_wins, PAPER
    assert len(result.markers) == 2 * n - 1
    assert result.matching_set.reduction == 1


@pytest.mark.parametrize("config", CATALOGUE, ids=lambda c: c.name)
def test_example_position_is_proved_in_one_node(config):
    example = example_position(config)
    assert example_properties(example, config.group_list()) is None
    assert example.position.game.k == 4
    result = solve(example.position, knowledge="matching")
    assert (result.value, result.nodes) == ("draw", 1), PAPER
    assert result.certificate is not None and check_proof(result.certificate).ok
    assert solve(example.position, knowledge="pairing").value == "draw"


def test_empty_4x4_board_by_two_bitriangles():
    proof = four_by_four()
    whole = proof.covers[0][1]
    assert (len(whole.markers), len(whole.groups)) == (16, 10), PAPER
    assert len(whole.parts) == 2
    assert all(len(part.markers) == 8 and len(part.groups) == 5 for part in whole.parts)
    assert check_proof(proof).ok
    result = solve("4x4k4")
    assert (result.value, result.nodes) == ("draw", 1), PAPER


def test_h_heptomino_local_matching_set():
    ms = h_heptomino()
    assert check(ms).ok, PAPER
    assert len(ms.groups) == 4
    assert ms.coverings["b2"][0] == "c2"  # the centre is answered with the middle of the right column
    assert all(y == "b2" for x, (y, _) in ms.coverings.items() if x != "b2")
    # all five groups cannot be covered on the tile's seven cells
    assert find(list(H_GROUPS.values())).breaker_wins is False


def test_zetters_block_counts():
    block = zetters_block()
    ms = block.matching_set
    assert check(ms).ok, PAPER
    assert (len(block.cells), len(ms.markers), len(ms.groups), ms.reduction) == (12, 12, 9, 6), PAPER
    assert sorted(len(g) for g in block.groups) == [2, 2, 3, 3, 3, 3, 4, 4, 4]
    degree = sorted(sum(1 for g in block.groups if c in g) for c in block.cells)
    assert degree == [2] * 8 + [3] * 4
