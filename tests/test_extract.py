"""The compiled strategy walk (Searcher.strategy_choices) against the Python walk it replaces."""

from __future__ import annotations

import pytest

from helpers import WINS as HELPER_WINS
from kinarow import Game
from kinarow.engine import kernel as K
from kinarow.proofs.tree import StrategyTree, check, follow
from kinarow.search.solve import Searcher

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
    walked = follow(pos, winner, lambda p: python.winning_move(p))
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
