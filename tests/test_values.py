"""The typed values of the rules (kinarow.values) are the strings the package has always written."""

from __future__ import annotations

import json

from kinarow import Game, Position
from kinarow.game import MAKER_BREAKER, MISERE, NORMAL
from kinarow.position import value_names
from kinarow.values import Goal, Player, Value


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
