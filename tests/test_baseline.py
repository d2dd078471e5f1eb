"""The plain method (memoised base-3 minimax, ``benchmarks/baseline.py``: the benchmarks' yardstick, outside the
package) agrees with the real solver."""

from __future__ import annotations

import pytest

from helpers import load_benchmark
from kinarow import Game, SolverLimitError, solve

plain_minimax = load_benchmark("baseline").plain_minimax

NAMES = {1: "first", 0: "draw", -1: "second"}


@pytest.mark.parametrize("game", ["3x3k3", "4x3k3", "3x4k3", "4x4k3"])
def test_plain_method_agrees_with_solve(game: str) -> None:
    value, nodes = plain_minimax(Game(game))
    assert nodes > 0
    assert NAMES[value] == solve(game).value


def test_plain_method_known_values() -> None:
    # (3,3,3) is a draw; 4x3 with k = 3 is a first-player win (Tung & Lau).
    assert plain_minimax("3x3k3")[0] == 0
    assert plain_minimax("4x3k3")[0] == 1


@pytest.mark.parametrize("game", ["5x5k4", "7x3k3", "3x3k3:gravity", "3x3k3:misere", "4x4k4p2q1"])
def test_plain_method_refuses_what_it_cannot_do(game: str) -> None:
    with pytest.raises(SolverLimitError):
        plain_minimax(game)


def test_plain_method_names_the_memory_limit() -> None:
    with pytest.raises(SolverLimitError, match="3\\^cells"):
        plain_minimax("5x5k4")
