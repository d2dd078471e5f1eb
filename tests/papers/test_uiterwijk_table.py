"""Uiterwijk's table of set-matching configurations (``kinarow reproduce set-matching-table``), without the solves.

Markers, groups, reduction and ratio are *given*: our group structures were
typed in to have the published counts, and reduction and ratio are arithmetic
on them. The test of them below checks our typing, not a reproduction; what
is computed (Breaker wins, the checked matching set, the main markers) is
tested against the paper where the paper gives it.
"""

from __future__ import annotations

from kinarow.papers.uiterwijk import COMPUTED, GIVEN, catalogue_rows, cycle_rows

PAPER = 'Uiterwijk, "Set Matching: an enhancement of the Hales-Jewett pairing strategy" (ACG 2017)'


def test_rows_say_which_columns_are_given_and_which_computed():
    rows = catalogue_rows(solve_examples=False, census=False)
    assert len(rows) == 12
    assert set(GIVEN) == {"markers", "groups", "reduction", "ratio"}
    assert not set(GIVEN) & set(COMPUTED)
    for row in rows:
        assert (row["given"], row["computed"]) == (list(GIVEN), list(COMPUTED))
        # given: the reconstruction was typed with the published counts (a check of the typing)
        published = row["published"]
        assert (row["markers"], row["groups"]) == (published["markers"], published["groups"]), row["configuration"]
        assert row["reduction"] == 2 * row["groups"] - row["markers"]
        # computed: a Breaker win whose matching set the checker accepts; main markers where published
        assert row["breaker_wins"] and row["checked"], row["configuration"]
        if published["main_markers"]:
            assert row["main_markers"] == published["main_markers"], (row["configuration"], PAPER)


def test_a_cycle_of_n_groups_needs_2n_minus_1_markers():
    for row in cycle_rows(range(3, 7)):
        assert row["breaker_wins"]
        assert (row["markers"], row["groups"], row["reduction"]) == (2 * row["n"] - 1, row["n"], 1)
