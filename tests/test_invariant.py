"""Parametric (invariant) certificates: take-even proven for every even height and every width >= k at once."""

from __future__ import annotations

import dataclasses

import pytest

from kinarow.proofs import check_data
from kinarow.proofs.invariant import (
    InvariantCertificate,
    Pattern,
    Response,
    check,
    local_lines,
    take_even_certificate,
)
from kinarow.values import Player


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_take_even_is_proven_for_its_whole_family(k):
    cert = take_even_certificate(k)
    verdict = check_data(cert.to_json())
    assert verdict.ok, verdict.reason
    assert verdict.format == "kinarow.invariant"
    assert verdict.details["windows"] > 0 and verdict.details["small_positions"] > 0
    assert cert.covers(k, 12, 12) and cert.covers(k, k, 2)
    assert not cert.covers(k, 12, 11) and not cert.covers(k, k - 1, 12) and not cert.covers(k + 1, 12, 12)


def test_a_strategy_that_answers_one_move_wrongly_is_rejected():
    good = take_even_certificate(4)
    # a stone on row 3 is answered beside it instead of on top of it
    wrong = dataclasses.replace(good, responses=(Response(2, 2, (1, 0)), *good.responses))
    verdict = check(wrong)
    assert not verdict.ok and "row 3" in verdict.reason, verdict.reason
    # two rows up: not a legal move
    verdict = check(dataclasses.replace(good, responses=(Response(0, None, (0, 2)),)))
    assert not verdict.ok and "not a legal move" in verdict.reason


def test_an_invariant_too_weak_for_the_outcome_is_rejected():
    good = take_even_certificate(4)
    # every height allowed: the opponent's stone on an odd height breaks the alternation
    verdict = check(dataclasses.replace(good, heights=Pattern((), (True,))))
    assert not verdict.ok and "invariant does not hold" in verdict.reason
    # the family widened to width k - 1: a full board has no line, the game may be drawn
    verdict = check(dataclasses.replace(good, min_width=3))
    assert not verdict.ok and "draw" in verdict.reason
    # the owners swapped: the first player's stone breaks the invariant at once
    verdict = check(dataclasses.replace(good, owners=Pattern((), (Player.SECOND, Player.FIRST))))
    assert not verdict.ok and "not the opponent's" in verdict.reason


def test_the_local_line_check_finds_a_line_of_the_strategist_first():
    # Rows owned the wrong way round (second, first, ...): the strategist's reply on row 2 can finish a diagonal
    # of row 1, 2, 3 stones while the opponent has no line; the local check sees it in a window.
    swapped = dataclasses.replace(take_even_certificate(3), owners=Pattern((), (Player.SECOND, Player.FIRST)))
    verdict = local_lines(swapped, 0, 4, (1, 1))
    assert not verdict.ok and "direction (1, 1)" in verdict.reason
    assert local_lines(take_even_certificate(3), 0, 4, (1, 1)).ok


def test_the_named_strategy_must_play_the_declared_replies():
    cert = dataclasses.replace(take_even_certificate(3), strategy="pair-row")
    verdict = check(cert)
    assert not verdict.ok and "differ" in verdict.reason


def test_bad_certificates_get_one_sentence():
    data = take_even_certificate(4).to_json()
    assert not check_data({**data, "claim": "something else"}).ok
    assert "whole number" in check_data({**data, "family": {**data["family"], "k": "4"}}).reason
    assert "offset" in check_data({**data, "responses": [{"rows": [0, None], "offset": [0, 5]}]}).reason
    assert "smallest board" in check_data({**data, "game": "9x9k4:gravity,misere"}).reason
    first = dataclasses.replace(take_even_certificate(4), player=Player.FIRST)
    assert "second player" in check(first).reason
    assert isinstance(InvariantCertificate.from_json(data), InvariantCertificate)


@pytest.mark.parametrize("k", [3, 4, 6])
def test_take_even_on_cylinders_from_width_2k_minus_1(k):
    cert = take_even_certificate(k, cylinder=True)
    verdict = check_data(cert.to_json())
    assert verdict.ok, verdict.reason
    assert cert.covers(k, 2 * k - 1, 4, cylinder=True) and not cert.covers(k, 2 * k - 2, 4, cylinder=True)
    assert not cert.covers(k, 12, 4) and not take_even_certificate(k).covers(k, 12, 4, cylinder=True)
    # narrower cylinders: the window would wrap onto itself, so the checker refuses the family
    narrow = dataclasses.replace(cert, min_width=2 * k - 2)
    assert "wraps onto itself" in check(narrow).reason


def test_a_family_of_tall_boards_is_checked_at_its_own_heights():
    # a family starting at height 10: the rows and heights checked reach past its smallest board
    tall = dataclasses.replace(take_even_certificate(4), min_height=10)
    assert check(tall).ok
    odd = dataclasses.replace(take_even_certificate(4), min_height=11)  # odd heights: the reply may leave the board
    assert not check(odd).ok
    data = take_even_certificate(4).to_json()
    assert "64" in check_data({**data, "family": {**data["family"], "min_height": 5000}}).reason
