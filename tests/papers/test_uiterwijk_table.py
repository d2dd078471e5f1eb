"""Uiterwijk's table of set-matching configurations (``kinarow reproduce set-matching-table``), without the solves."""

from __future__ import annotations

from kinarow.papers.uiterwijk import catalogue_rows, cycle_rows


def test_every_configuration_has_the_published_markers_groups_and_reduction():
    rows = catalogue_rows(solve_examples=False)
    assert len(rows) == 12
    for row in rows:
        published = row["published"]
        assert row["breaker_wins"], row["configuration"]
        assert (row["markers"], row["groups"], row["reduction"]) == (
            published["markers"], published["groups"], published["reduction"]), row["configuration"]


def test_a_cycle_of_n_groups_needs_2n_minus_1_markers():
    for row in cycle_rows(range(3, 7)):
        assert row["breaker_wins"]
        assert (row["markers"], row["groups"], row["reduction"]) == (2 * row["n"] - 1, row["n"], 1)
