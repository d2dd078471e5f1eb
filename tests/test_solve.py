"""solve() and Searcher: budgets and move choice under a time limit."""

import pytest

from kinarow import Game, Searcher, solve


def test_choose_move_is_exact_when_solved_and_a_legal_guess_when_not() -> None:
    game = Game("3x3k3")
    value, cell = Searcher(game).choose_move(game.start(), 5.0)
    assert value == 0
    assert cell in game.start().legal_moves()
    big = Game("7x6k4:gravity")
    pos = big.position("d")
    value, cell = Searcher(big, tt_mb=16).choose_move(pos, 0.2)
    assert value is None
    assert cell in pos.legal_moves()


def test_budgets_give_unknown_not_a_wrong_value() -> None:
    by_nodes = solve("7x6k4:gravity", max_nodes=5000, tt_mb=16)
    assert by_nodes.value == "unknown"
    assert by_nodes.stopped == "node limit"
    assert by_nodes.best_move is None
    by_time = solve("7x6k4:gravity", time_limit=0.2, tt_mb=16)
    assert by_time.value == "unknown"
    assert by_time.stopped == "time limit"


@pytest.mark.parametrize(("game", "openings"), [
    ("3x3k3", ["", "b2", "b2 a1", "a1 b2 c1", "b2 b1"]),
    ("4x3k3:gravity,misere", ["", "b", "b b"]),
    ("3x3k3:maker-breaker", ["", "b2", "b2 a1"]),
])
def test_each_sides_deepening_win_test_agrees_with_the_exact_value(game, openings) -> None:
    """The one deepening loop answers "can player p force a win?" for either side as the exact value implies."""
    for moves in openings:
        position = Game(game).start()
        position.play_moves(moves)
        exact = solve(game, moves=moves, knowledge="none").value
        searcher = Searcher(position.game)
        for player, name in ((1, "first"), (2, "second")):
            searcher.new_root()
            wins = searcher.forces_win(position, player)
            assert wins == (exact in (name, "maker" if player == 1 else "breaker")), (game, moves, player, exact)
        searcher.new_root()
        assert searcher.can_win(position) == searcher.forces_win(position, position.to_move)


def _exact_nodes(searcher: Searcher, game: str, moves: str) -> int:
    return solve(game, moves=moves, searcher=searcher).nodes


def _one_sided_nodes(searcher: Searcher, game: str, moves: str) -> int:
    """Nodes of the parallel jobs' one-sided question "can the first player win?"."""
    from kinarow.search.parallel.jobs import win_test

    position = Game(game).start()
    position.play_moves(moves)
    return win_test(searcher, position, 1, lambda nodes: None)[1]


def _can_win_nodes(searcher: Searcher, game: str, moves: str) -> int:
    """Nodes of the draw-proof walk's safety test (the mover's win test only)."""
    from kinarow.engine import kernel as K

    position = Game(game).start()
    position.play_moves(moves)
    searcher.can_win(position)
    return int(searcher.ctrl[K.C_NODES])


def _second_root_nodes(game: str, first: str, second: str, *, forget: bool, ask=_exact_nodes) -> tuple[int, int]:
    """Nodes of ``second`` after ``first`` on one Searcher, and on a fresh one given the same table."""
    import numpy as np

    shared = Searcher(Game(game), tt_mb=4)
    if not forget:
        shared.forget_history = lambda: None  # type: ignore[method-assign]
    solve(game, moves=first, searcher=shared)
    table, generation = shared.tt.copy(), shared.generation
    again = ask(shared, game, second)
    fresh = Searcher(Game(game), tt_mb=4)
    np.copyto(fresh.tt, table)
    fresh.generation = generation
    return again, ask(fresh, game, second)


@pytest.mark.parametrize("ask", [_exact_nodes, _one_sided_nodes, _can_win_nodes])
def test_a_new_root_starts_without_the_earlier_roots_move_history(ask) -> None:
    """A Searcher asked a second root orders its moves as a fresh one with the same table would."""
    again, fresh = _second_root_nodes("5x4k4", "b2 c3", "c2 b2", forget=True, ask=ask)
    assert again == fresh
    # the check can fail: with the history carried over, the same table gives another search
    assert _second_root_nodes("5x4k4", "b2 c3", "c2 b2", forget=False, ask=ask)[0] != fresh
