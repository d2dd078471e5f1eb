"""Strategies as players, their exhaustive verification, and verified-strategy certificates."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kinarow import Game, solve
from kinarow.errors import KinarowError
from kinarow.proofs import verified
from kinarow.strategies import STRATEGIES, StrategyError, applicable, get, names
from kinarow.strategies.verify import verify

MISERE = ":gravity,misere"


# -- the rules, move by move ---------------------------------------------------------------
def test_take_even_plays_on_top_of_the_last_stone():
    pos = Game("7x6k4" + MISERE).position("d d c")
    assert pos.name(get("take-even").move(pos)) == "c2"


def test_pair_row_takes_the_other_cell_of_a_pair_else_the_rightmost():
    s = get("pair-row")
    pos = Game("7x1k3" + MISERE).start()
    assert pos.name(s.move(pos)) == "g1"  # first player: the unpaired rightmost cell
    pos.play_moves("g c")
    assert pos.name(s.move(pos)) == "d1"  # take-other: c and d are a pair
    pos = Game("6x1k3" + MISERE).position("e")
    assert pos.name(s.move(pos)) == "f1"  # e-f pair
    pos = Game("6x1k3" + MISERE).position("f e")
    assert pos.name(s.move(pos)) == "d1"  # the opponent completed a pair: rightmost empty


def test_delayed_take_even_opens_rightmost_and_answers_above_row_one_on_top():
    s = get("delayed-take-even")
    pos = Game("5x3k3" + MISERE).start()
    assert pos.name(s.move(pos)) == "e1"
    pos.play_moves("e a")
    assert pos.name(s.move(pos)) == "b1"
    pos.play_moves("b e")  # the opponent plays above row 1 (on e1)
    assert pos.name(s.move(pos)) == "e3"


def test_tally_first_replies():
    s = get("tally")
    # odd width, X on an even-numbered cell (b = 2): in-template move on a wall
    pos = Game("7x1k2" + MISERE).position("b")
    assert pos.name(s.move(pos)) in ("a1", "g1")
    # even width, X on a wall: the opposite wall
    pos = Game("8x1k2" + MISERE).position("a")
    assert pos.name(s.move(pos)) == "h1"
    # even width, X inside on an odd-numbered cell (c): the offensive move on wall a (X's parity)
    pos = Game("8x1k2" + MISERE).position("c")
    assert pos.name(s.move(pos)) == "a1"


def test_canonical_boards_plays_the_end_of_an_empty_board():
    s = get("canonical-boards")
    pos = Game("7x1k3" + MISERE).start()
    assert pos.name(s.move(pos)) == "a1"  # A_7 -> B_6


def test_strategy_says_when_it_does_not_apply():
    assert get("take-even").move(Game("3x2k3" + MISERE).start()) is None  # nothing to answer yet
    with pytest.raises(StrategyError, match="does not apply to 7x5k4:gravity,misere"):
        get("take-even").check_applies(Game("7x5k4" + MISERE))
    with pytest.raises(StrategyError, match="plays the second player"):
        get("take-even").check_applies(Game("7x6k4" + MISERE), 1)
    with pytest.raises(StrategyError, match="plays misère Connect-k"):
        get("take-even").check_applies(Game("7x6k4:gravity"))
    with pytest.raises(StrategyError, match="no strategy called 'nope'"):
        get("nope")


def test_applicable_lists_each_strategy_with_its_player():
    pairs = {(s.name, p) for s, p in applicable(Game("7x1k3" + MISERE))}
    assert pairs == {("pair-row", 1), ("pair-row", 2), ("canonical-boards", 1)}
    assert {(s.name, p) for s, p in applicable(Game("6x5k4" + MISERE))} == {("delayed-take-even", 2)}
    assert {(s.name, p) for s, p in applicable(Game("7x5k2" + MISERE))} == {("delayed-tally", 2)}
    assert len(names()) == len(STRATEGIES)


# -- verification ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("strategy", "game", "outcome"),
    [
        ("take-even", "7x6k4", "win"),
        ("take-even", "4x4k3", "win"),
        ("take-even", "2x4k3", "draw"),  # w < k: nobody completes a row
        ("take-even", "6x4k3:gravity,misere,cylinder", "win"),
        ("delayed-take-even", "5x3k3", "win"),  # first player, odd width
        ("delayed-take-even", "6x5k4", "win"),  # second player, even width
        ("pair-row", "9x1k3", "draw"),
        ("tally", "9x1k2", "win"),
        ("tally", "6x1k2", "draw"),
        ("canonical-boards", "10x1k3", "draw"),
        ("delayed-tally", "4x3k2", "win"),
        ("half-turn", "10x7k2:gravity,misere,cylinder", "win"),  # delayed-tally fails on cylinders of width >= 5
        ("half-turn", "12x7k2:gravity,misere,cylinder", "win"),
        ("half-turn", "2x3k2:gravity,misere,cylinder", "win"),
    ],
)
def test_verify_outcomes(strategy, game, outcome):
    game = game if ":" in game else game + MISERE
    v = verify(strategy, game)
    assert v.outcome == outcome, v
    assert v.positions > 0
    assert v.counterexample is None


def test_misere_connect_four_take_even_and_the_longest_game():
    v = verify("take-even", "7x6k4" + MISERE)
    assert (v.outcome, v.player) == ("win", "second")
    assert v.longest == 37  # 1 + (w - floor(w/k)) h


def test_verify_fails_with_the_first_bad_line():
    # On a cylinder the first player's row 1 wraps around: d1 e1 a1 is three in a row.
    v = verify("delayed-take-even", "5x3k3:gravity,misere,cylinder")
    assert v.outcome == "fails"
    assert v.counterexample
    pos = Game("5x3k3:gravity,misere,cylinder").position(v.counterexample)
    assert pos.result == "second"
    assert "loses" in v.reason


def test_verify_budget_gives_unknown():
    v = verify("take-even", "8x8k4" + MISERE, max_positions=50)
    assert v.outcome == "unknown"
    assert "50" in v.reason


def test_verify_bad_inputs():
    with pytest.raises(KinarowError, match="'first' or 'second'"):
        verify("take-even", "7x6k4" + MISERE, "third")
    with pytest.raises(KinarowError, match="max_positions"):
        verify("take-even", "7x6k4" + MISERE, max_positions=0)


def _small_boards():
    for k, w, h in itertools.product((2, 3, 4), range(1, 6), range(1, 5)):
        if w * h <= 16:
            yield k, w, h


@pytest.mark.parametrize(("k", "w", "h"), list(_small_boards()))
def test_verified_outcomes_never_contradict_the_solver(k, w, h):
    game = Game(f"{w}x{h}k{k}" + MISERE)
    value = solve(game).value
    for strategy, player in applicable(game):
        v = verify(strategy, game, player)
        mine = "first" if player == 1 else "second"
        if v.outcome == "win":
            assert value == mine, (strategy.name, v)
        elif v.outcome == "draw":
            assert value in ("draw", mine), (strategy.name, v)


@given(st.sampled_from(["take-even", "pair-row", "tally", "canonical-boards"]), st.integers(0, 10**6))
def test_a_verified_strategy_survives_random_opponents(name, seed):
    """Play a verified strategy against a random opponent: the game never ends worse than verified."""
    import random

    game = Game({"take-even": "5x4k3", "pair-row": "7x1k3", "tally": "7x1k2", "canonical-boards": "8x1k3"}[name]
                + MISERE)
    strategy = get(name)
    me = strategy.players(game)[0]
    outcome = verify(strategy, game, me).outcome
    rng = random.Random(seed)
    pos = game.start()
    while not pos.is_over:
        cell = strategy.move(pos) if pos.to_move == me else rng.choice(pos.legal_moves())
        assert cell is not None
        pos.play(cell)
    mine = "first" if me == 1 else "second"
    assert pos.result == mine or (outcome == "draw" and pos.result == "draw")


# -- certificates ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("strategy", "game", "player"),
    [("take-even", "5x4k4", None), ("delayed-take-even", "5x3k3", None), ("tally", "8x1k2", None),
     ("pair-row", "7x1k3", "second"), ("canonical-boards", "8x1k3", None),
     ("take-even", "5x4k3:gravity,misere,cylinder", None), ("half-turn", "10x7k2:gravity,misere,cylinder", None)],
)
def test_certificate_round_trip_and_check(strategy, game, player):
    game = game if ":" in game else game + MISERE
    v = verify(strategy, game, player)
    cert = verified.VerifiedStrategy(v.strategy, v.game, v.player, v.outcome, v.positions)
    again = verified.VerifiedStrategy.from_json(json.loads(json.dumps(cert.to_json())))
    assert again == cert
    verdict = verified.check(again)
    assert verdict.ok, verdict
    assert verdict.details["positions_checked"] == v.positions


def test_checker_rejects_false_claims():
    base = verified.VerifiedStrategy("pair-row", "7x1k3" + MISERE, "second", "draw", 0)
    good = verify("pair-row", base.game, "second")
    assert not verified.check(base).ok  # wrong count
    lying = verified.VerifiedStrategy("pair-row", base.game, "second", "win", good.positions)
    assert "only guarantees a draw" in verified.check(lying).reason
    loser = verified.VerifiedStrategy("delayed-take-even", "5x3k3:gravity,misere,cylinder", "first", "win", 53)
    assert "does not even draw" in verified.check(loser).reason


def test_checker_imports_no_search_code():
    import ast
    from pathlib import Path

    source = Path(verified.__file__).read_text(encoding="utf-8")
    imported = {
        node.module for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom) and node.module
    } | {a.name for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Import) for a in node.names}
    assert not any(name.startswith(("kinarow.search", "kinarow.knowledge", "kinarow.engine")) for name in imported), \
        imported


def test_certificate_bad_fields():
    with pytest.raises(KinarowError, match="verified-strategy certificate"):
        verified.VerifiedStrategy.from_json({"format": "kinarow.pairing", "version": 1})
    data = verified.VerifiedStrategy("take-even", "4x2k3" + MISERE, "second", "win", 13).to_json()
    with pytest.raises(KinarowError, match="outcome must be"):
        verified.VerifiedStrategy.from_json({**data, "outcome": "fails"})
    with pytest.raises(KinarowError, match="lacks a usable field"):
        verified.VerifiedStrategy.from_json({k: v for k, v in data.items() if k != "positions"})


def test_half_turn_answers_half_a_turn_round_on_the_same_row():
    game = Game("10x7k2:gravity,misere,cylinder")
    s = get("half-turn")
    assert [(sp.name, p) for sp, p in applicable(game)] == [("delayed-tally", 2), ("half-turn", 2)]
    pos = game.position("b")
    assert pos.name(s.move(pos)) == "g1"  # column b + 5 = g
    pos = game.position("b g g")  # the first player's g2 on the second's g1: the answer b2, the same row
    assert pos.name(s.move(pos)) == "b2"
    assert s.players(Game("11x7k2:gravity,misere,cylinder")) == ()  # odd width: no half turn
    assert s.players(Game("10x7k2:gravity,misere")) == ()  # no wrap: the columns do not turn
    assert s.players(Game("10x7k3:gravity,misere,cylinder")) == ()  # k = 3: a full board may hold no line
    # the mirror image of a line the first player completed: the first player has lost the move before
    assert verify("delayed-tally", "10x7k2:gravity,misere,cylinder").outcome == "fails"
