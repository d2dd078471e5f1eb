"""Uiterwijk, "Set Matching: an enhancement of the Hales-Jewett pairing strategy" (journal version,
Section 7): periodic strategies for the infinite board."""

from __future__ import annotations

from kinarow.knowledge.infinite import tiling
from kinarow.papers.uiterwijk import reproduce_tilings
from kinarow.proofs import tiling as checked


def test_hales_jewett_pairing_longest_run_8_so_9_in_a_row_is_a_draw() -> None:
    t = tiling.named("hj9")
    assert checked.check(t).ok
    assert set(checked.max_runs(t).values()) == {8}


def test_h_heptomino_runs_at_most_8_with_the_published_reply_rule() -> None:
    """Pollak & Shannon: the H covers both diagonals, the middle row and the right column."""
    t = tiling.named("heptomino")
    assert len(t.tile) == 7 and len(t.groups) == 4 and t.strategy["kind"] == "reply"
    assert checked.check(t).ok
    assert max(checked.max_runs(t).values()) == 8


def test_zetters_block_runs_6_straight_and_7_diagonal() -> None:
    """12 cells, 9 groups (3 of 4 horizontal, 4 of 3 diagonal, 2 of 2 vertical), 4 cells in 3 groups."""
    t = tiling.named("zetters")
    block = t.parts[0]
    inside = [g for g in t.groups if set(g) <= set(block)]
    assert len(block) == 12 and len(inside) == 9
    assert sorted(len(g) for g in inside) == [2, 2, 3, 3, 3, 3, 4, 4, 4]
    assert sorted(sum(c in g for g in inside) for c in block) == [2] * 8 + [3] * 4
    assert checked.check(t).ok
    assert checked.max_runs(t) == {"horizontal": 6, "vertical": 6, "diagonal": 7, "anti": 7}
    assert checked.draw_for_k_at_least(checked.max_runs(t)) == 8


def test_hexagonal_pairing_runs_6_so_7_in_a_row_is_a_draw() -> None:
    t = tiling.named("hex7")
    assert checked.check(t).ok
    assert checked.draw_for_k_at_least(checked.max_runs(t)) == 7


def test_reproduction_agrees() -> None:
    assert reproduce_tilings().agrees
