"""The engine contract (kinarow.search.engine): each search answers the same four questions, and they agree."""

from __future__ import annotations

import pytest

from kinarow import Game, KinarowError, solve
from kinarow.position import Position
from kinarow.proofs.tree import check
from kinarow.search.connect import ScoreSearcher
from kinarow.search.engine import Engine
from kinarow.search.proof_search import ProofSearcher
from kinarow.search.solve import Searcher
from kinarow.values import Bound, Player, Value, cannot_win

#: games with positions to ask, and the engines that take them (the proof search: free placement, one stone a
#: turn, normal or Maker-Breaker; the score search: Connect-k)
FREE = [("4x4k4", ["", "b2", "b2 c3 a1"]), ("4x4k3", ["", "a1 d4"]), ("5x4k4", ["", "b2 c2"]),
        ("3x3k3:maker-breaker", ["", "a1", "b2 a1"]), ("4x3k3:maker-breaker", ["", "a1 b2"])]
GRAVITY = [("4x4k3:gravity", ["", "b", "a b"]), ("5x4k4:gravity", ["", "c c"]), ("4x3k3:gravity", ["", "a a b"])]


def _engines(game: Game) -> list[Engine]:
    engines: list[Engine] = [Searcher(game)]
    engines.append(ScoreSearcher(game) if game.gravity else ProofSearcher(game, tt_mb=4))
    return engines


def _cases() -> list[tuple[str, str]]:
    return [(text, moves) for text, openings in FREE + GRAVITY for moves in openings]


def test_each_search_is_an_engine() -> None:
    for engine in (Searcher("3x3k3"), ProofSearcher("4x4k4", tt_mb=1), ScoreSearcher("4x4k3:gravity")):
        assert isinstance(engine, Engine)
    assert not isinstance(object(), Engine)


@pytest.mark.parametrize(("text", "moves"), _cases())
def test_the_engines_answer_the_four_questions_alike(text: str, moves: str) -> None:
    """Every engine that takes the game gives the value solve() gives, answers each side's win question as that
    value says, names a move that keeps it, and walks the winner's strategy, which the checker accepts."""
    game = Game(text)
    position = game.position(moves)
    exact = solve(text, moves=moves, knowledge="none", search="alpha-beta").value
    for engine in _engines(game):
        name = type(engine).__name__
        assert engine.value(position) is exact, name
        for player in Player:
            said = engine.wins(position, player)
            assert said == (exact if exact.winner is player else cannot_win(game.goal, player)), (name, player)
            assert isinstance(said, Value | Bound)
        cell = engine.move(position)
        assert cell in position.legal_moves(), name
        assert engine.move(position, exact) in position.legal_moves(), name
        child = position.copy()
        child.play(cell)
        after = child.result if child.is_over else engine.value(child)
        if exact.winner is Player.of(position.to_move) or exact is Value.DRAW:
            assert after is exact, (name, position.name(cell))  # the winner's move keeps the win, a draw's the draw
        winner = exact.winner
        if winner is None:
            continue
        if isinstance(engine, ProofSearcher) and exact is Value.BREAKER:
            with pytest.raises(KinarowError, match="Maker's wins only"):
                engine.walk(position, winner)
            continue
        tree = engine.walk(position, winner)
        assert tree.walk is not None and tree.winner is exact
        assert tree.moves == [position.name(c) for c in position.moves]
        verdict = check(tree)
        assert verdict.ok, (name, verdict.reason)


def test_the_alpha_beta_walk_is_the_strategy_solve_writes() -> None:
    game = Game("4x4k3")
    tree = Searcher(game).walk(game.start(), Player.FIRST)
    written = solve(game, strategy=True, walk=True, search="alpha-beta").strategy
    assert written is not None and tree.walk == written.walk


def test_a_walk_of_a_position_the_player_does_not_win_is_refused_in_one_sentence() -> None:
    game = Game("4x4k4")
    for engine in _engines(game):
        with pytest.raises(KinarowError, match=r"^the first player \(Black\) cannot force a win after the start, "
                                               r"so there is no winning strategy to walk$"):
            engine.walk(game.start(), Player.FIRST)
    gravity = Game("4x4k3:gravity")
    for engine in _engines(gravity):
        with pytest.raises(KinarowError, match=r"second player .* cannot force a win after the start"):
            engine.walk(gravity.start(), Player.SECOND)


def test_a_side_is_a_player_not_a_stone_number() -> None:
    game = Game("4x4k3:gravity")
    for engine in _engines(game):
        with pytest.raises(KinarowError, match=r"the player is Player\.FIRST or Player\.SECOND, not 1"):
            engine.wins(game.start(), 1)  # type: ignore[arg-type]
        with pytest.raises(KinarowError, match=r"the winner is Player\.FIRST or Player\.SECOND"):
            engine.walk(game.start(), "first")  # type: ignore[arg-type]


def test_budgets_that_run_out_give_unknown() -> None:
    game = Game("5x5k4")
    position = game.start()
    for engine in (Searcher(game), ProofSearcher(game, tt_mb=4)):
        assert engine.value(position, max_nodes=10) is Value.UNKNOWN
        assert engine.wins(position, Player.FIRST, max_nodes=10) is Value.UNKNOWN
        assert engine.move(position, max_nodes=10) is None
    connect = Game("7x6k4:gravity")
    scores = ScoreSearcher(connect, tt_mb=4)
    assert scores.value(connect.position("d d c"), max_nodes=10) is Value.UNKNOWN
    assert scores.wins(connect.position("d d c"), Player.SECOND, time_limit=1e-9) is Value.UNKNOWN


def test_a_finished_game_is_answered_without_search() -> None:
    game = Game("3x3k3")
    over = game.position("a1 b1 a2 b2 a3")
    for engine in (Searcher(game), ProofSearcher(game, tt_mb=1)):
        assert engine.value(over) is Value.FIRST
        assert engine.wins(over, Player.FIRST) is Value.FIRST
        assert engine.wins(over, Player.SECOND) is Bound.FIRST_OR_DRAW
        assert engine.move(over) is None
        assert engine.walk(over, Player.FIRST).walk == b""


def test_positions_of_another_game_are_refused() -> None:
    other: Position = Game("3x3k3").start()
    for engine in _engines(Game("4x4k3:gravity")) + _engines(Game("4x4k4")):
        for ask in (engine.value, engine.move):
            with pytest.raises(KinarowError, match="bound to"):
                ask(other)
        with pytest.raises(KinarowError, match="bound to"):
            engine.wins(other, Player.FIRST)
