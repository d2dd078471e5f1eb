"""solve() and Searcher: budgets and move choice under a time limit."""

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
