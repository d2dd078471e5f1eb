"""The compiled strategy walk (Searcher.strategy_choices) against the Python walk it replaces."""

from __future__ import annotations

import pytest

from helpers import WINS as HELPER_WINS
from kinarow import Game
from kinarow.engine import kernel as K
from kinarow.proofs.tree import StrategyTree, check, follow
from kinarow.search.alphabeta import Searcher
from kinarow.values import Value

WINS = [*HELPER_WINS, ("5x4k4", "c2 a1 c3 e4"), ("5x5k4", "c3 a1")]


def _won(text: str, moves: str) -> tuple[Searcher, object, int]:
    game = Game(text)
    pos = game.position(moves)
    searcher = Searcher(game, tt_mb=8)
    value, _ = searcher.best_move(pos)
    assert value != K.DRAW, f"{text} after '{moves}' should be a win for someone"
    return searcher, pos, pos.to_move if value == K.WIN else 3 - pos.to_move


@pytest.mark.parametrize(("text", "moves"), WINS)
def test_compiled_walk_prescribes_what_the_python_walk_does(text, moves):
    """Two fresh searchers asked the same questions in the same order give the same strategy."""
    python, pos, winner = _won(text, moves)
    win = Value.win(pos.game.goal, winner)
    walked = follow(pos, winner, lambda p: python.move(p, win))
    compiled, _, _ = _won(text, moves)
    found = compiled.strategy_choices(pos, winner)
    assert found == walked
    names = ("maker", "breaker") if pos.game.goal == "maker-breaker" else ("first", "second")
    verdict = check(StrategyTree(str(pos.game), moves.split(), names[winner - 1], found))
    assert verdict.ok, verdict.reason


def test_a_stop_request_ends_the_walk_without_a_strategy():
    searcher, pos, winner = _won("5x5k4", "c3 a1")
    assert searcher.strategy_choices(pos, winner, should_stop=lambda: True) is None
    assert searcher.strategy_choices(pos, winner) is not None  # the searcher is usable afterwards


def test_the_loser_gets_no_strategy():
    """Asked for the loser's strategy, the walk meets a position the 'winner' cannot win: a clear error."""
    from kinarow import KinarowError

    searcher, pos, winner = _won("4x3k3", "")
    with pytest.raises(KinarowError, match="no winning move"):
        searcher.strategy_choices(pos, 3 - winner)


def test_long_extractions_report_their_nodes():
    """solve(strategy=True) keeps its progress callback moving while the strategy is walked."""
    from kinarow import solve

    heard: list[int] = []
    result = solve("6x5k4", strategy=True, tt_mb=16, on_tick=heard.append)
    assert result.strategy is not None
    assert heard == sorted(heard)  # counts only grow: the search's nodes, then those of the strategy's win tests
    assert heard[-1] > result.nodes  # the last count, heard once the walk ends, includes the walk's win tests


# Breaker (to move) wins by a matching-set proof at the root that needs a particular first move (c3, d3 or d4:
# Maker's d3 would make two threats); the search once named the lowest empty cell, c2, which loses.
CUT_NEEDS_A_MOVE = ("4x4k4:maker-breaker", "a1 a2 a3 a4 b1 b2 b3 b4 d1 c1 d2")


@pytest.mark.parametrize("knowledge", ["none", "pairing", "matching"])
def test_a_knowledge_cut_at_the_root_prescribes_a_move_that_keeps_the_win(knowledge):
    """The extraction asks the win test for Breaker's move there; its strategy must hold (rules-only check)."""
    from kinarow import solve

    text, moves = CUT_NEEDS_A_MOVE
    searcher = Searcher(text, knowledge=knowledge)
    pos = searcher.game.position(moves)
    assert pos.name(searcher.move(pos, Value.BREAKER)) in ("c3", "d3", "d4")  # not c2, a1, a3 or b3
    for before in (moves, moves.rsplit(" ", 2)[0]):  # Breaker to move, and Maker to move one turn earlier
        result = solve(text, moves=before, knowledge=knowledge, strategy=True)
        assert result.value == "breaker"
        verdict = check(result.strategy)
        assert verdict.ok, verdict.reason


@pytest.mark.parametrize("knowledge", ["pairing", "matching"])
def test_the_maker_breaker_strategy_with_knowledge_holds(knowledge):
    """The issue's case: 4x4k4 Maker-Breaker with matching-set knowledge (1 cut) once met a lost position."""
    from kinarow import solve

    result = solve("4x4k4:maker-breaker", knowledge=knowledge, strategy=True)
    assert result.value == "breaker"
    verdict = check(result.strategy)
    assert verdict.ok, verdict.reason
