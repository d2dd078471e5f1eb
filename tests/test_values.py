"""The typed values of the rules (kinarow.values) are the strings the package has always written."""

from __future__ import annotations

import json

import pytest

from kinarow import Game, Position
from kinarow.errors import KinarowError
from kinarow.game import MAKER_BREAKER, MISERE, NORMAL
from kinarow.position import value_names
from kinarow.store import StoreError
from kinarow.values import SENTENCES, Bound, Goal, Outcome, Player, Value, read


def test_members_are_the_old_strings():
    assert [v.value for v in Value] == ["first", "second", "draw", "maker", "breaker", "unknown"]
    assert [p.value for p in Player] == ["first", "second"]
    assert (NORMAL, MISERE, MAKER_BREAKER) == ("normal", "misere", "maker-breaker")
    assert (NORMAL, MISERE, MAKER_BREAKER) == (Goal.NORMAL, Goal.MISERE, Goal.MAKER_BREAKER)
    assert json.dumps({"value": Value.DRAW, "goal": Goal.MAKER_BREAKER}) == '{"value": "draw", "goal": "maker-breaker"}'
    assert f"{Value.FIRST} {Goal.MISERE}" == "first misere"
    assert [Player.FIRST.stone, Player.SECOND.stone] == [1, 2]


def test_games_and_positions_speak_in_values():
    assert Game("3x3k3").goal is Goal.NORMAL
    assert Game("3x3k3:misere").goal is Goal.MISERE
    assert Game("3x3k3:maker-breaker").goal is Goal.MAKER_BREAKER
    assert value_names(Game("3x3k3:maker-breaker")) == (Value.MAKER, Value.BREAKER)
    assert after("3x3k3", "a1 b1 a2 b2 a3").result is Value.FIRST
    assert after("3x3k3", "a1 b1 a2 b2 a3").result == "first"
    assert after("3x3k3", "a1 b2 c3 a2 a3 b3 b1 c1 c2").result is Value.DRAW
    assert after("3x3k3:misere", "a1 b1 a2 b2 a3").result is Value.SECOND
    assert after("3x3k3:maker-breaker", "a1 b1 a2 b2 a3").result is Value.MAKER
    assert after("3x3k3", "a1").result is None


def after(game: str, moves: str) -> Position:
    position = Position(Game(game))
    position.play_moves(moves)
    return position


def test_a_value_knows_its_winner_and_its_words():
    assert [Value.win(Goal.NORMAL, 1), Value.win(Goal.MISERE, 2), Value.win(Goal.MAKER_BREAKER, 1)] == [
        Value.FIRST, Value.SECOND, Value.MAKER]
    assert [v.stone for v in Value] == [1, 2, None, 1, 2, None]
    assert [Player.of(1), Player.of(2)] == [Player.FIRST, Player.SECOND]
    assert Value.DRAW.sentence == "Draw with perfect play."
    assert Bound.SECOND_OR_DRAW.sentence.startswith("First player (Black) cannot force a win")
    assert set(SENTENCES) == set(Value) | set(Bound)
    assert [Value.SECOND.winner_words, Value.MAKER.winner_words] == ["the second player (White)", "Maker (Black)"]
    with pytest.raises(ValueError, match="names no winner"):
        _ = Value.DRAW.winner_words


def test_text_from_outside_is_read_with_one_sentence():
    assert read(Value, "breaker", "the value") is Value.BREAKER
    assert read(Outcome, "win", "the outcome", allowed=(Outcome.WIN, Outcome.DRAW)) is Outcome.WIN
    with pytest.raises(StoreError) as bad:
        read(Value, "won", "the value", StoreError)
    assert str(bad.value) == "the value must be 'first', 'second', 'draw', 'maker', 'breaker' or 'unknown', not 'won'"
    with pytest.raises(KinarowError) as bad_outcome:
        read(Outcome, "fails", "the outcome", allowed=(Outcome.WIN, Outcome.DRAW))
    assert str(bad_outcome.value) == "the outcome must be 'win' or 'draw', not 'fails'"
    with pytest.raises(KinarowError) as bad_player:
        read(Player, 3, "the player")
    assert str(bad_player.value) == "the player must be 'first' or 'second', not 3"


def test_a_bad_value_in_the_store_is_ignored_with_one_clear_note(tmp_path):
    from kinarow import solve
    from kinarow.store import Store

    with Store(tmp_path / "results.sqlite") as store:
        first = solve("3x3k3", store=store)
        assert first.value is Value.DRAW and first.to_move is Player.FIRST
        again = solve("3x3k3", store=store)
        assert again.from_store and again.value is Value.DRAW
        store.put_result("3x3k3", ".........", {"value": "won"})
        third = solve("3x3k3", store=store)  # the bad row is not served: the position is solved again
        assert not third.from_store and third.value is Value.DRAW
        (note,) = store.ignored
        assert "its value 'won' is not one of" in note and "\n" not in note


def test_results_and_certificates_write_the_old_strings():
    from kinarow import solve
    from kinarow.proofs import check_data

    data = solve("3x3k3", moves="a1 b1 a2", strategy=True).to_dict()
    assert (data["value"], data["to_move"]) == ("first", "second")
    assert '"value": "first"' in json.dumps(data)
    tree = solve("3x3k3", moves="a1 b1 a2", strategy=True).strategy
    assert tree is not None and tree.winner is Value.FIRST
    cert = tree.to_json()
    assert '"winner": "first"' in json.dumps(cert)
    assert check_data(cert).ok
    bad = {**cert, "winner": "draw", "claim": "draw wins"}
    verdict = check_data(bad)
    assert not verdict.ok
    assert verdict.reason == ("the strategy certificate's 'winner' must be 'first', 'second', 'maker' or 'breaker', "
                              "not 'draw'")


def test_a_fit_is_true_when_it_applies_and_says_why_when_it_does_not():
    from kinarow.values import FITS, Fit

    assert FITS and FITS.reason == "" and Fit() == FITS
    no = Fit.no("it needs gravity")
    assert not no and no.reason == "it needs gravity"
    with pytest.raises(ValueError, match="needs a reason"):
        Fit.no("")


@pytest.mark.parametrize("text, fits", [("5x4k4", "blocking proof-search stealing"),
                                        ("5x4k4:gravity", "score"), ("5x4k4:misere", ""),
                                        ("5x4k4:maker-breaker", "blocking proof-search"),
                                        ("12x11k4", "blocking proof-search stealing"),
                                        ("17x16k4", "blocking stealing")])
def test_every_does_it_apply_check_answers_with_a_fit(text, fits):
    """Each check answers with a Fit (never None for yes), true exactly where it applies, else with its sentence."""
    from kinarow.proofs import blocking_fit
    from kinarow.proofs.draw import stealing_fit
    from kinarow.proofs.tree import WIN, shared_replies_fit
    from kinarow.search.alphabeta import KNOWLEDGE_OFF, knowledge_fit
    from kinarow.search.connect import score_search_fit
    from kinarow.search.proof_search import proof_search_fit
    from kinarow.search.shared_walk import shared_walk_fit
    from kinarow.values import Fit

    game = Game(text)
    answers = {"blocking": blocking_fit(game), "proof-search": proof_search_fit(game), "score": score_search_fit(game),
               "stealing": stealing_fit(game, []), "knowledge": knowledge_fit(game),
               "shared": shared_replies_fit(game, WIN, value_names(game)[0]), "shared-walk": shared_walk_fit(game)}
    for name, fit in answers.items():
        assert isinstance(fit, Fit), name
        assert bool(fit) == (not fit.reason)
    assert {name for name in ("blocking", "proof-search", "score", "stealing") if answers[name]} == set(fits.split())
    assert bool(answers["knowledge"]) == bool(answers["blocking"])
    if not answers["knowledge"]:
        assert answers["knowledge"].reason == KNOWLEDGE_OFF + answers["blocking"].reason
