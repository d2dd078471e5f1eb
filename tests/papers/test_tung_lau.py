"""Published values from Tung & Lau, "Two methods for investigating the generalized tic-tac-toe".

Tung & Lau (Hang Lung Mathematics Awards 2014) solved small (m, n, k, p, q)
games by exhaustion and by explicit lines of play, and proved draws with
Hales-Jewett pairings. Each test below reproduces one of their published
values with the solver; the expected values are theirs, not computed here.
"""

from __future__ import annotations

import pytest

from kinarow import solve
from kinarow.proofs.tree import check

PAPER = 'Tung & Lau, "Two methods for investigating the generalized tic-tac-toe"'

# A budget that only a broken or badly slowed solver exhausts; "unknown" fails the test.
BUDGET = {"time_limit": 60.0}


def _value(game: str, moves: str | None = None) -> str:
    result = solve(game, moves=moves, **BUDGET)
    stopped = f"{game} after '{moves or ''}': search stopped ({result.stopped}, {result.nodes} nodes)"
    assert result.value != "unknown", stopped
    return result.value


@pytest.mark.parametrize(
    ("game", "value"),
    [
        ("3x3k3", "draw"),  # (3,3,3): tic-tac-toe
        ("4x4k4", "draw"),  # (4,4,4): exhaustion by their C++ program
        ("4x3k3", "first"),  # (4,3,3): 1. b2 wins
        ("5x5k4p2q2", "first"),  # (5,5,4,2,2): 1. b3,c3 wins
        ("6x6k4", "first"),  # (6,6,4,1,1): 1. d4 wins
        ("6x6k4p2q1", "second"),  # (6,6,4,2,1): the second player wins
    ],
)
def test_published_value(game, value):
    """Tung & Lau, "Two methods for investigating the generalized tic-tac-toe": the value of the game."""
    assert _value(game) == value, PAPER


@pytest.mark.parametrize("game", ["4x3k3", "3x4k3", "5x3k3", "4x4k3", "5x4k3", "5x5k3", "6x3k3", "7x4k3"])
def test_m_n_3_is_a_first_player_win(game):
    """Tung & Lau, "Two methods for investigating the generalized tic-tac-toe": (m,n,3,1,1) with m > 3,
    n >= 3 is a first-player win (the 4x3 line embeds in every larger board; 3x4 is 4x3 turned)."""
    assert _value(game) == "first", PAPER


@pytest.mark.parametrize("game", ["4x3k4", "5x3k4", "6x3k4", "7x3k4", "8x2k3", "5x4k5", "6x4k5", "3x3k4"])
def test_n_less_than_k_is_a_draw(game):
    """Tung & Lau, "Two methods for investigating the generalized tic-tac-toe": (m,n,k,1,1) with n < k
    is a draw (a pairing strategy for the second player)."""
    assert _value(game) == "draw", PAPER


# -- their lines of play --------------------------------------------------------------------------


@pytest.mark.parametrize("moves", ["1. b2 ... a1", "1. a2 ... b2", "1. a3 ... b2"])
def test_tic_tac_toe_defences(moves):
    """Tung & Lau, "Two methods for investigating the generalized tic-tac-toe": White answers 1. b2 with
    a1, and 1. a2 / 1. a3 with b2, and holds the draw."""
    assert _value("3x3k3", moves) == "draw", PAPER


def test_4x3k3_opening_b2_wins_with_a_checked_strategy():
    """Tung & Lau, "Two methods for investigating the generalized tic-tac-toe": 1. b2 wins (m,n,3,1,1)
    on the 4x3 board; the solver's strategy after 1. b2 passes the independent checker."""
    result = solve("4x3k3", moves="1. b2", strategy=True, **BUDGET)
    assert result.value == "first", PAPER
    assert result.strategy is not None
    verdict = check(result.strategy)
    assert verdict, verdict.reason


def test_5x5k4p2q2_opening_b3_c3_wins():
    """Tung & Lau, "Two methods for investigating the generalized tic-tac-toe": in (5,5,4,2,2)
    1. b3,c3 wins for the first player."""
    assert _value("5x5k4p2q2", "1. b3,c3") == "first", PAPER


def test_6x6k4p2q1_second_player_line():
    """Tung & Lau, "Two methods for investigating the generalized tic-tac-toe": in (6,6,4,2,1), after
    1. c4 the second player wins with 1... d3,d4."""
    assert _value("6x6k4p2q1", "1. c4 ... d3,d4") == "second", PAPER


def test_6x6k4_opening_d4_wins():
    """Tung & Lau, "Two methods for investigating the generalized tic-tac-toe": in (6,6,4,1,1)
    1. d4 wins for the first player."""
    result = solve("6x6k4", moves="1. d4", time_limit=600.0)
    assert result.value == "first", f"{PAPER}: got {result.value} after {result.nodes} nodes ({result.stopped})"


@pytest.mark.verylong
def test_5x5k5_is_a_draw():
    """Tung & Lau, "Two methods for investigating the generalized tic-tac-toe": (k,k,k,1,1) is a draw
    for every k >= 3 (a pairing strategy for k >= 5); here k = 5."""
    result = solve("5x5k5", time_limit=600.0)
    assert result.value == "draw", f"{PAPER}: got {result.value} after {result.nodes} nodes ({result.stopped})"
