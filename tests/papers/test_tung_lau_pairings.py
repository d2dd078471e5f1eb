"""Pairing draws of Tung & Lau, "Two methods for investigating the generalized tic-tac-toe".

Tung & Lau prove (m, n, k, 1, 1) draws by Hales-Jewett pairings for four
families of boards and bound the boards where a pairing can exist (Lemma 9,
Theorem 10). Their figures are lost; each family here is built by our own
rule (:mod:`kinarow.knowledge.pairing.constructions`) and verified by the rules-only
checker for every k up to 30, and the bound is checked against direct
counting. Where we differ from the paper, the test says so.
"""

from __future__ import annotations

import pytest

from kinarow import Game
from kinarow.knowledge.pairing import check, construct, find, paired_cells_needed
from kinarow.knowledge.pairing.constructions import family
from kinarow.papers.tung_lau import reproduce_bounds, reproduce_constructions

PAPER = 'Tung & Lau, "Two methods for investigating the generalized tic-tac-toe"'
KS = range(3, 31)


@pytest.mark.parametrize("k", [k for k in KS if k >= 5])
def test_k_k_k_family(k):
    """(k,k,k) is a draw by a pairing strategy for k >= 5."""
    assert check(construct(k, k, k)).ok, PAPER


@pytest.mark.parametrize("k", [k for k in KS if k >= 6])
def test_k_plus_one_family(k):
    """(k+1,k+1,k) is a draw by a pairing strategy for k >= 6."""
    assert check(construct(k + 1, k + 1, k)).ok, PAPER


@pytest.mark.parametrize("k", [k for k in KS if k >= 7])
def test_two_k_minus_one_family(k):
    """(2k-1,k,k) is a draw by a pairing strategy for k >= 7 (both orientations)."""
    assert check(construct(2 * k - 1, k, k)).ok, PAPER
    assert check(construct(k, 2 * k - 1, k)).ok, PAPER


@pytest.mark.parametrize("k", KS)
def test_fewer_rows_than_k(k):
    """(m,n,k) with n < k is a draw by pairing neighbours along the rows."""
    for m in (k, 2 * k + 3):
        for n in sorted({1, 2, k // 2, k - 2, k - 1} & set(range(1, k))):
            assert check(construct(m, n, k)).ok, (m, n, k, PAPER)


def test_the_families_stop_where_the_paper_says():
    assert family(4, 4, 4) is None and family(6, 6, 5) is None and family(11, 6, 6) is None
    # no pairing exists just below the families: (4,4,4), (6,6,5) and (11,6,6)
    for spec in ("4x4k4", "6x6k5", "11x6k6"):
        assert find(spec).exists is False, spec


def test_small_boards_of_the_families_agree_with_search():
    """The search, without the constructions, finds a pairing for the families' smallest boards."""
    for spec in ("5x5k5", "6x6k6", "7x7k6", "8x8k7", "13x7k7"):
        result = find(spec, constructions=False)
        assert result.exists, (spec, PAPER)


def test_six_six_five_differs_from_the_paper():
    """The paper says the counting bound excludes (6,6,5); as stated it does not (36 cells needed, 36 on the board).

    No good pairing exists all the same: the SAT search proves it.
    """
    game = Game("6x6k5")
    assert paired_cells_needed(game) == game.cells == 36
    result = find(game)
    assert result.exists is False and result.proved_by == "SAT"


def test_reproduction_targets():
    report = reproduce_constructions(max_k=12)
    assert all(row["valid"] for row in report.data["boards"])
    assert len(report.differences) == 1 and "(6,6,5)" in report.differences[0]
    assert report.data["six_six_five"]["certificate_valid"] is True and "VALID" in report.differences[0]
    bounds = reproduce_bounds(max_side=12, max_region=120)
    assert bounds.data["mismatches"] == []
    assert bounds.data["infinite"]["square"] == {k: first_failing_square(k, 120) for k in range(3, 11)}
    assert bounds.data["infinite"]["square"][8] == 82  # Proposition 1 excludes k <= 8 (Gyorffy, London & Makay)


def first_failing_square(k: int, max_side: int) -> int | None:
    """Proposition 1 on s x s squares, counted by hand: the first side s where pairs of neighbours cannot
    cover the lines (d2 * floor(s^2 / 2) < lines), with lines of k in four directions and d2 the most lines
    of k through two neighbours on a row of s cells."""
    for side in range(k, max_side + 1):
        runs = side - k + 1  # lines of k along one row of the square
        lines = 2 * side * runs + 2 * runs * runs  # rows and columns; both diagonal directions
        d2 = max(min(i, side - k) - max(0, i + 2 - k) + 1 for i in range(side - 1))
        if d2 * (side * side // 2) < lines:
            return side
    return None


def test_fewer_columns_than_k_pairs_along_the_columns():
    for m, n, k in ((3, 9, 4), (4, 12, 5), (1, 7, 3), (2, 2, 3)):
        assert check(construct(m, n, k)).ok, (m, n, k)
    assert construct(2, 2, 3).pairs == []  # no group at all
