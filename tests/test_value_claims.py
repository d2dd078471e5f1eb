"""The value a solve prints and what its certificate proves are compared before either is shown, on every route
(one process, and the jobs' results, which the same :func:`kinarow.search.certify.certify` finishes); and
``solve()``'s ``store`` takes a Store or the path of one, and refuses anything else in one sentence.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from kinarow import solve
from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.search import parallel
from kinarow.search.certify import ClaimMismatchError, Proof, certify, claim_problem
from kinarow.store import Store
from kinarow.values import Value


def test_a_strategy_of_the_other_winner_is_never_shown_with_the_value() -> None:
    position = Game("4x3k3").position("b2")  # (4,3,3) after 1. b2: the first player wins
    honest = solve(position, strategy=True)
    assert honest.value == Value.FIRST and honest.strategy is not None
    for proof in (False, True):
        with pytest.raises(ClaimMismatchError, match="answered 'second' but its strategy is the first player's win"):
            certify(position, replace(honest, value=Value.SECOND, proof=None), proof=proof)


def test_the_jobs_result_is_compared_too() -> None:
    position = Game("4x3k3").start()
    result = parallel.solve(position, workers=1, strategy=True)
    assert result.value == Value.FIRST
    certify(position, result, proof=True)  # agrees
    with pytest.raises(ClaimMismatchError, match="nothing is written"):
        certify(position, replace(result, value=Value.DRAW, proof=None), proof=True)


def test_a_draw_certificate_proves_only_a_draw() -> None:
    game = Game("3x3k3")
    draw = solve(game.start(), proof=True)
    assert draw.proof is not None and claim_problem(game, Value.DRAW, draw.proof) is None
    assert "proves 'draw'" in str(claim_problem(game, Value.FIRST, draw.proof))
    pairing = Proof({"format": "kinarow.pairing", "claim": "first cannot win"}, "", "pairing")
    assert claim_problem(game, Value.DRAW, pairing) is None and claim_problem(game, Value.FIRST, pairing)
    assert claim_problem(game, Value.FIRST, Proof(None, "none")) is None


def test_solve_opens_a_store_given_as_a_path(tmp_path) -> None:
    path = tmp_path / "results.sqlite"
    first = solve("3x3k3", store=str(path))
    again = solve("3x3k3", store=path)
    assert first.value == again.value == Value.DRAW and not first.from_store and again.from_store
    with Store(path) as store:  # still a Store, as before
        assert solve("3x3k3", store=store).from_store


@pytest.mark.parametrize("bad", [5, True, "", b"results.sqlite", ["results.sqlite"]])
def test_solve_refuses_a_store_that_is_neither_in_one_sentence(bad: object) -> None:
    with pytest.raises(KinarowError) as error:
        solve("3x3k3", store=bad)  # type: ignore[arg-type]
    text = str(error.value)
    assert "\n" not in text and text.startswith("store must be a kinarow.store.Store or the path of a results store")
