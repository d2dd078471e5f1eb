"""Narrow-board draw certificates: misère Connect-k with gravity and w < k is a draw (each player covers)."""

from __future__ import annotations

import pytest

from kinarow import Game
from kinarow.proofs import check_data
from kinarow.proofs.narrow import NarrowDraw, check, cover


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_narrow_boards_are_draws(k):
    cert = NarrowDraw(k)
    verdict = check_data(cert.to_json())
    assert verdict.ok, verdict.reason
    assert verdict.details["small_positions"] > 0
    assert cert.covers(k, k - 1, 12) and not cert.covers(k, k, 12) and not cert.covers(k, 1, 5, cylinder=True)


def test_cover_plays_on_the_opponents_stone_else_off_its_own():
    pos = Game("3x4k4:gravity,misere").position("a1")
    assert pos.name(cover(pos)) == "a2"
    pos = Game("2x2k4:gravity,misere").position("a1 a2")  # column a is full: not on the own b-stone (none yet)
    assert pos.name(cover(pos)) == "b1"


def test_a_rule_that_stacks_on_its_own_stones_is_rejected(monkeypatch):
    import kinarow.proofs.narrow as narrow

    monkeypatch.setattr(narrow, "cover", lambda pos: pos.legal_moves()[0])
    verdict = check(NarrowDraw(3))
    assert not verdict.ok and "loses" in verdict.reason


def test_bad_narrow_certificates_get_one_sentence():
    data = NarrowDraw(4).to_json()
    assert "whole number" in check_data({**data, "family": {"k": 1}}).reason
    assert not check_data({**data, "claim": "every board is a draw"}).ok
    assert "'game' must be" in check_data({**data, "game": "9x9k4:gravity,misere"}).reason
