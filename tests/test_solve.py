"""solve() and Searcher: budgets and move choice under a time limit."""

import pytest

import kinarow
from kinarow import Game, KinarowError, Searcher, solve
from kinarow.limits import MAX_NODES
from kinarow.values import Player, Value


def test_choose_move_is_exact_when_solved_and_a_legal_guess_when_not() -> None:
    game = Game("3x3k3")
    value, cell = Searcher(game).choose_move(game.start(), 5.0)
    assert value is Value.DRAW
    assert cell in game.start().legal_moves()
    big = Game("8x7k4:gravity")
    pos = big.position("d d c")  # no book is shipped for 8 x 7, and its search takes far longer than 0.2 s
    value, cell = Searcher(big, tt_mb=16).choose_move(pos, 0.2)
    assert value is Value.UNKNOWN
    assert cell in pos.legal_moves()


def test_budgets_give_unknown_not_a_wrong_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KINAROW_BOOK", "off")  # the opening book would answer the empty 7x6 board at once
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
        mover = searcher.forces_win(position, position.to_move)
        assert (searcher.wins(position, Player.of(position.to_move)).winner is Player.of(position.to_move)) == mover


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
    searcher.wins(position, Player.of(position.to_move))
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


# -- arguments: one KinarowError sentence for each bad one ----------------------------------------------


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"time_limit": float("nan")}, "time_limit"),
        ({"time_limit": float("inf")}, "time_limit"),
        ({"time_limit": -1}, "time_limit"),
        ({"time_limit": 0}, "time_limit"),
        ({"time_limit": "5"}, "time_limit"),
        ({"time_limit": True}, "time_limit"),
        ({"max_nodes": 1.5}, "max_nodes"),
        ({"max_nodes": True}, "max_nodes"),
        ({"max_nodes": "10"}, "max_nodes"),
        ({"max_nodes": 0}, "max_nodes"),
        ({"max_nodes": 10**26}, "10**18"),
        ({"max_nodes": 10**5000}, "max_nodes"),
        ({"tt_mb": float("nan")}, "tt_mb"),
        ({"tt_mb": 0}, "tt_mb"),
        ({"tt_mb": -4}, "tt_mb"),
        ({"tt_mb": 10**9}, "16384"),
        ({"tt_mb": "4"}, "tt_mb"),
        ({"tt_mb": float("inf")}, "tt_mb"),
        ({"tt_mb": 10**5000}, "tt_mb"),
        ({"time_limit": 10**5000}, "time_limit"),
        ({"knowledge": ["none"]}, "knowledge"),
        ({"knowledge": "all"}, "knowledge"),
        ({"strategy": "file.json"}, "strategy"),
        ({"symmetry": None}, "symmetry"),
        ({"proof": 1}, "proof"),
        ({"on_tick": 5}, "on_tick"),
        ({"searcher": 3}, "Searcher"),
        ({"moves": 5}, "text"),
        ({"max_node": 10}, "max_node"),  # a misspelt option
    ],
)
def test_bad_arguments_raise_one_kinarow_error_sentence(options, named):
    with pytest.raises(KinarowError) as info:
        kinarow.solve("3x3k3", **options)
    message = str(info.value)
    assert named in message
    assert "\n" not in message and len(message) < 300


def test_a_searcher_of_another_game_is_refused():
    with pytest.raises(KinarowError, match="bound to 4x4k4; it must be a Searcher of 3x3k3"):
        solve("3x3k3", searcher=Searcher("4x4k4"))


def test_searcher_takes_a_game_string():
    searcher = Searcher("4x3k3")
    assert searcher.game == Game("4x3k3")
    assert solve("4x3k3", searcher=searcher).value == "first"
    with pytest.raises(KinarowError, match="not a board size"):
        Searcher("4x3")
    with pytest.raises(KinarowError, match="tt_mb"):
        Searcher("4x3k3", tt_mb=float("nan"))


def test_the_largest_node_budget_is_taken():
    assert solve("3x3k3", max_nodes=MAX_NODES).value == "draw"
    with pytest.raises(KinarowError, match="64 bits"):
        Searcher("3x3k3").wins(Game("3x3k3").start(), Player.FIRST, max_nodes=MAX_NODES + 1)


@pytest.mark.parametrize("seconds", [float("nan"), -1.0, 0, float("inf")])
def test_choose_move_refuses_a_bad_time(seconds):
    with pytest.raises(KinarowError, match="seconds"):
        Searcher("3x3k3").choose_move(Game("3x3k3").start(), seconds)


@pytest.mark.parametrize("options", [{"max_nodes": 1.5}, {"workers": True}, {"jobs": "3"}, {"time_limit": float("nan")},
                                     {"max_job_seconds": float("inf")}, {"tt_mb": 0}, {"knowledge": None}])
def test_the_parallel_solve_checks_its_arguments_the_same_way(options):
    from kinarow.search.parallel import solve as parallel_solve

    with pytest.raises(KinarowError) as info:
        parallel_solve("3x3k3", **options)
    assert "\n" not in str(info.value)


# -- a board where no line fits --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("game", "value"), [("3x3k9", "draw"), ("3x3k4:misere", "draw"), ("3x3k4:maker-breaker", "breaker")]
)
def test_no_line_fits_is_a_draw_that_says_why(game, value):
    result = solve(game)
    assert result.value == value
    reason = f"no line of {Game(game).k} cells fits on this 3x3 board"
    assert result.note == reason
    assert reason in result.describe()
    assert result.to_dict()["note"] == reason
    assert solve("3x3k3").note is None
    assert "note" not in solve("3x3k3").to_dict()


def test_a_searcher_searches_only_positions_of_its_game():
    searcher = Searcher("4x4k4")
    other = Game("3x3k3").start()
    for ask in (searcher.search, searcher.best_move, searcher.value, searcher.move):
        with pytest.raises(KinarowError, match="bound to 4x4k4; it cannot search a position of 3x3k3"):
            ask(other)
    with pytest.raises(KinarowError, match="cannot search"):
        searcher.choose_move("a1", 1.0)


@pytest.mark.parametrize(
    ("game", "moves"),
    [
        ("4x4k4:maker-breaker", "a1 a2 a3 a4 b1 b2 b3 b4 d1 c1 d2"),
        ("4x4k4:maker-breaker", "c2 d4 a1 a2 c4 a3 d2 b2 a4 b4 b1"),
        ("5x4k4:maker-breaker", "b2 c3 b1 c1 d1 b3 d4 e4 b4"),
        ("4x4k4", "a4 d4 b3 a1 a2 a3 d2"),
        ("4x4k4", "b1 d4 a4 a3 c4 a1 c2 d3"),
        ("5x4k4", "e2 e4 a3 c1 c2 a1 e1 b2"),
    ],
)
@pytest.mark.parametrize("knowledge", ["pairing", "matching"])
def test_the_best_move_keeps_the_value_when_knowledge_settles_the_root(game, moves, knowledge) -> None:
    """Where a blocking proof settles the root (a draw, or Breaker's win), it may need the mover's one particular
    first move; the best move named is one that keeps the value (checked without knowledge after it)."""
    result = solve(game, moves=moves, knowledge=knowledge)
    exact = solve(game, moves=moves, knowledge="none")
    assert result.value == exact.value
    assert result.best_move is not None
    after = solve(game, moves=f"{moves} {result.best_move}", knowledge="none")
    assert after.value == exact.value, f"{result.best_move} turns {exact.value} into {after.value}"
