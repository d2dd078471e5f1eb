"""Győrffy, London & Makay, "The structure of pairing strategies for k-in-a-row type games"
(Acta Cybernetica 2017): the classes of good pairings of the 8x8 torus (9-in-a-row) and of the
hexagonal 6x6 torus (7-in-a-row)."""

from __future__ import annotations

import pytest

from kinarow.knowledge.infinite import torus
from kinarow.papers.gyorffy_london_makay import reproduce_torus_hex7
from kinarow.proofs import torus as checked


def test_hexagonal_6x6_torus_has_26_classes() -> None:
    """Published: 26 classes of 6-toric good pairings for hexagonal 7-in-a-row (group of order 216)."""
    result = torus.enumerate_classes("hex7")
    assert result.geometry.order == 216
    assert result.count == 26


def test_hex7_reproduction_agrees() -> None:
    report = reproduce_torus_hex7()
    assert report.agrees and report.data["classes"] == 26


@pytest.mark.verylong
def test_8x8_torus_has_194543_classes() -> None:
    """Published: 194,543 classes of 8-toric good pairings under the 512 symmetries of T8; the
    paper's search checked 6,210,560 candidates, and so many complete pairings has ours (an
    East-West domino on cells 0-1 and a downward domino from cell 2)."""
    result = torus.enumerate_classes("9", paper_candidates=True)
    assert result.geometry.order == 512
    assert result.count == 194_543
    assert result.candidates == 6_210_560
    assert torus.enumerate_classes("9").count == 194_543  # with the stronger symmetry breaking


def test_8x8_torus_classes_hold_every_labelled_pairing() -> None:
    """Published: 194,543 classes under the 512 symmetries of T8. The checker finds them complete without
    trusting the enumeration: their orbits under the symmetries the rules give hold exactly the labelled good
    pairings a row-by-row count finds (99,368,960)."""
    result = torus.enumerate_classes("9")
    assert result.count == 194_543
    g = checked.geometry("9")
    group = checked.own_group(g)
    sizes, first = checked.orbit_sizes(g, result.classes, group)
    assert first == -1 and group.shape[0] == 512
    labelled, _ = checked.labelled_count(g)
    assert int(sizes.sum()) == labelled
    verdict = checked.check_classes(torus.file_header(result), result.classes)
    assert verdict.ok and f"{labelled:,} labelled pairings" in verdict.reason
