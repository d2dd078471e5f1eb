"""The search layer's one call: ``solve(target, proof=True, store=...)`` returns the value with its certificate
(kinarow.search.certify), answered from and saved to the results store when one is given."""

from __future__ import annotations

import pytest

import kinarow
from kinarow import Game
from kinarow.proofs import check_data
from kinarow.proofs.tree import StrategyTree, board_key
from kinarow.search import certify
from kinarow.search.certify import Proof, WalkTooLargeError
from kinarow.search.result import Result
from kinarow.search.solve import solve
from kinarow.store import Store


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "r.sqlite") as opened:
        yield opened


def test_a_win_gets_its_strategy_as_the_certificate():
    result = solve("4x3k3", proof=True)
    assert result.value == "first" and result.strategy is not None
    assert isinstance(result.proof, Proof) and result.proof.kind == "strategy"
    assert result.proof.format == "kinarow.strategy" and result.proof.data == result.strategy.to_json()
    assert "winning strategy of the first player" in result.proof.what
    assert check_data(result.proof.data).ok
    walk = solve("4x3k3", proof=True, walk=True).proof
    assert walk.data["version"] == 3 and check_data(walk.data).ok


def test_a_draw_gets_its_certificate():
    result = solve("3x3k3", proof=True)
    assert result.value == "draw" and result.strategy is None
    assert result.proof.kind == "draw" and result.proof.format == "kinarow.draw"
    assert "strategy stealing" in result.proof.what and check_data(result.proof.data).ok
    # without knowledge in the search: a good pairing plus strategy stealing
    paired = solve("5x4k5", knowledge="none", proof=True).proof
    assert paired.kind == "pairing" and paired.format == "kinarow.pairing" and check_data(paired.data).ok
    # knowledge settled the value at the root: the matching sets found there
    matching = solve("4x4k4", proof=True).proof
    assert matching.kind == "matching" and matching.format == "kinarow.matching" and check_data(matching.data).ok


def test_no_certificate_is_said_plainly():
    proof = solve("6x5k4", max_nodes=1000, proof=True).proof
    assert proof.data is None and not proof.exists and proof.kind is None and proof.format is None
    assert "unknown" in proof.what
    assert solve("3x3k3", proof=True, moves="a1 a2 b1 b2 c1").proof.what == "the game is already over"
    assert solve("3x3k3").proof is None  # only asked for


def test_the_store_answers_a_repeated_question(store):
    first = solve("4x3k3", store=store)
    assert not first.from_store and first.stored_at is None
    again = solve("4x3k3", store=store)
    assert again.from_store and again.stored_at > 0
    assert (again.value, again.best_move, again.nodes) == (first.value, first.best_move, first.nodes)
    # the same position by another move order
    solve("4x4k4", moves="b2 a1 c3", store=store)
    assert solve("4x4k4", moves="c3 a1 b2", store=store).from_store


def test_a_stored_result_is_reused_only_when_the_options_match(store):
    solve("4x3k3", store=store)  # the value only
    assert not solve("4x3k3", store=store, strategy=True).from_store  # no strategy was kept: searched again
    proved = solve("4x3k3", store=store, proof=True)
    assert proved.from_store and check_data(proved.proof.data).ok  # the strategy kept by the search before
    assert not solve("4x3k3", store=store, knowledge="none").from_store  # another knowledge level
    assert solve("4x3k3", store=store, knowledge="none").from_store  # ... which is kept beside it now
    assert not solve("4x3k3", store=store, symmetry=False).from_store
    assert solve("4x3k3", store=store, symmetry=False).from_store


def test_a_stored_draw_keeps_its_certificates(store):
    first = solve("3x3k3", store=store, proof=True)
    assert store.get_certificate("kinarow.draw", "3x3k3", board_key(Game("3x3k3").start())) == first.proof.data
    again = solve("3x3k3", store=store, proof=True)
    assert again.from_store and again.proof.data == first.proof.data and again.proof.what == first.proof.what


def test_unknown_values_are_not_stored(store):
    assert solve("6x5k4", max_nodes=1000, store=store).value == "unknown"
    assert store.counts()["results"] == 0


def test_a_stored_answer_of_an_older_version_is_still_used(store):
    store.put_result("4x4k4", "." * 16, {"value": "draw", "best_move": "a1"})  # no knowledge recorded
    result = solve("4x4k4", store=store)
    assert result.from_store and result.knowledge == "none" and result.knowledge_cuts is None


def test_a_knowledge_answer_of_an_older_search_is_solved_again(store):
    # before revision 2 a knowledge cut could name a losing best move: such rows are not reused, and rewritten
    old = {"value": "breaker", "best_move": "a1", "knowledge": "matching", "knowledge_cuts": 1}
    store.put_result("4x4k4:maker-breaker", "." * 16, old)
    result = solve("4x4k4:maker-breaker", store=store)
    assert not result.from_store and result.value == "breaker"
    assert store.get_result("4x4k4:maker-breaker", "." * 16)["revision"] == certify.SEARCH_REVISION
    assert solve("4x4k4:maker-breaker", store=store).from_store
    # a plain search's row of an older version is still good
    store.put_result("3x3k3", "." * 9, {"value": "draw", "best_move": "a1", "knowledge": "none"})
    assert solve("3x3k3", knowledge="none", store=store).from_store


def test_a_walk_is_only_for_boards_of_at_most_256_cells():
    # the solver handles at most 256 cells itself: a strategy for a larger board comes from elsewhere
    result = Result("17x16k3", "", "first", 0, 0.0, None, "first", strategy=StrategyTree("17x16k3", [], "first"))
    with pytest.raises(WalkTooLargeError, match="at most 256 cells; 17x16k3 has 272") as caught:
        certify.in_form(result, walk=True)
    assert (caught.value.game, caught.value.cells) == ("17x16k3", 272)
    assert certify.in_form(result, walk=False).strategy.walk is None  # the keyed form is fine


def test_certify_finishes_a_result_computed_elsewhere():
    position = Game("4x3k3").start()
    result = certify.certify(position, solve(position, strategy=True), walk=True)
    assert result.strategy.walk is not None and result.proof.kind == "strategy"
    assert result.proof.data["version"] == 3


def test_the_package_level_solve_forwards_proof_and_store(store):
    result = kinarow.solve("4x3k3", proof=True, store=store)
    assert result.proof.kind == "strategy" and not result.from_store
    assert kinarow.solve("4x3k3", proof=True, store=store).from_store


def test_a_root_proof_by_pairings_says_pairings():
    by_pairings = solve("5x4k5", knowledge="pairing", proof=True)
    assert by_pairings.proof.what.startswith("pairings showing neither player can win")
    by_matching = solve("4x4k4", proof=True)
    assert by_matching.proof.what.startswith("matching sets showing neither player can win")
    assert check_data(by_pairings.proof.data).ok and check_data(by_matching.proof.data).ok
