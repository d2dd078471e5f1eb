"""The OpenSpiel bridge (kinarow.search.openspiel): states map to positions and back, move by move, in random
games played in both; scores agree with OpenSpiel's own minimax and with perfect play's length; the bot is a
pyspiel.Bot that never loses and repeats its games with a seed; benchmarks/openspiel_mcts.py runs; and
docs/openspiel.md's Python examples print what the page shows.

Without OpenSpiel (the ``openspiel`` extra) only the test of the missing-install sentence runs.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import random
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from helpers import load_benchmark
from kinarow import Game, KinarowError
from kinarow.position import Position
from kinarow.search import openspiel as bridge
from kinarow.values import Value

#: OpenSpiel game strings and their kinarow games; 5x3k3 has more columns than rows, 3x5k3 more rows
GAMES = {
    "tic_tac_toe": "3x3k3",
    "mnk(m=4,n=4,k=3)": "4x4k3",
    "mnk(m=5,n=4,k=4)": "5x4k4",
    "mnk(m=5,n=3,k=3)": "5x3k3",
    "mnk(m=3,n=5,k=3)": "3x5k3",
    "connect_four": "7x6k4:gravity",
    "connect_four(columns=5,rows=4,x_in_row=3)": "5x4k3:gravity",
}


@pytest.fixture(scope="module")
def spiel() -> Any:
    return pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install -e '.[openspiel]')")


def board_rows(position: Position) -> list[str]:
    """The board as OpenSpiel prints it: the top row first, ``x`` the first player, ``o`` the second."""
    game = position.game
    return ["".join(".xo"[position.board[x * game.n + y]] for x in range(game.m)) for y in reversed(range(game.n))]


def assert_same(state: Any, position: Position) -> None:
    """The state and the position agree: board, player to move, legal moves, terminal status and winner."""
    assert str(state).strip().splitlines() == board_rows(position)
    assert state.is_terminal() == position.is_over
    assert sorted(state.legal_actions()) == sorted(bridge.action_of(position, c) for c in position.legal_moves())
    if position.is_over:
        assert position.result is not None
        assert tuple(state.returns()) == bridge.RETURNS[position.result]
    else:
        assert state.current_player() == position.to_move - 1


def test_without_openspiel_one_sentence_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now fails
    with pytest.raises(KinarowError, match=r'^OpenSpiel is not installed; install it with pip install "kinarow'
                                           r'\[openspiel\]"$'):
        bridge.pyspiel()
    with pytest.raises(KinarowError, match="OpenSpiel is not installed"):
        bridge.load_game("3x3k3")


@pytest.mark.parametrize(("spec", "expected"), [*GAMES.items(), ("mnk", "15x15k5")])
def test_games_map_both_ways(spiel: Any, spec: str, expected: str) -> None:
    game = spiel.load_game(spec)
    assert bridge.game_of(game) == Game(expected)
    assert bridge.game_of(game.new_initial_state()) == Game(expected)
    assert bridge.game_of(bridge.load_game(expected)) == Game(expected)


def test_other_games_and_rules_are_refused(spiel: Any) -> None:
    with pytest.raises(KinarowError, match="not 'kuhn_poker'"):
        bridge.game_of(spiel.load_game("kuhn_poker"))
    for rules in ("5x5k4:torus", "7x6k4:gravity,misere", "6x6k4p2q1", "5x5k3:hex"):
        with pytest.raises(KinarowError, match="OpenSpiel has no game for"):
            bridge.load_game(rules)
    with pytest.raises(KinarowError, match="takes an OpenSpiel game or state"):
        bridge.game_of("tic_tac_toe")


def test_the_cells_are_numbered_as_each_library_says(spiel: Any) -> None:
    # mnk: action row * m + column, row 0 on top; kinarow: column-major from a1 at the bottom left
    state = spiel.load_game("mnk(m=5,n=3,k=3)").new_initial_state()
    position = bridge.game_of(state).start()
    assert state.action_to_string(0, 7) == "x(1,2)"  # row 1 (the middle one), column 2
    assert bridge.cell_of(position, 7) == position.parse_move("c2")
    assert bridge.cell_of(position, 0) == position.parse_move("a3")  # the top left
    assert bridge.action_of(position, "e1") == 14  # the bottom right
    # connect_four: the action is the column, the cell where the stone lands
    state = spiel.load_game("connect_four").new_initial_state()
    position = bridge.game_of(state).start()
    position.play_moves("d d")
    assert bridge.cell_of(position, 3) == position.parse_move("d3")
    assert bridge.action_of(position, "d") == bridge.action_of(position, "d3") == 3


@pytest.mark.parametrize("spec", GAMES)
def test_random_games_agree_after_every_move(spiel: Any, spec: str) -> None:
    """Random games played in both, the moves chosen in turn by each side's numbering."""
    game = spiel.load_game(spec)
    rng = random.Random(f"openspiel {spec}")
    ends: set[tuple[float, ...]] = set()
    for number in range(60):
        state = game.new_initial_state()
        position = bridge.game_of(game).start()
        assert_same(state, position)
        while not state.is_terminal():
            if number % 2:  # OpenSpiel's action, mapped to the cell
                action = rng.choice(state.legal_actions())
                cell = bridge.cell_of(position, action)
            else:  # kinarow's cell, mapped to the action
                cell = rng.choice(position.legal_moves())
                action = bridge.action_of(position, cell)
            assert bridge.action_of(position, position.name(cell)) == action
            state.apply_action(action)
            position.play(cell)
            assert_same(state, position)
            mapped = bridge.position_of(state)
            assert mapped.moves == position.moves and mapped.result == position.result
            assert str(bridge.state_of(position, game)) == str(state)
        ends.add(tuple(state.returns()))
    assert len(ends) >= 2  # the games end in more than one way


def test_actions_that_do_not_fit_are_refused(spiel: Any) -> None:
    position = Game("7x6k4:gravity").position("a a a a a a")
    with pytest.raises(KinarowError, match="column 0 of 7x6k4:gravity is full"):
        bridge.cell_of(position, 0)
    with pytest.raises(KinarowError, match="no column"):
        bridge.cell_of(position, 7)
    with pytest.raises(KinarowError, match="no cell of 3x3k3"):
        bridge.cell_of(Game("3x3k3").start(), 9)
    with pytest.raises(KinarowError, match="the OpenSpiel game tic_tac_toe"):
        bridge.state_of(Game("4x4k3").start(), spiel.load_game("tic_tac_toe"))


def random_states(spiel: Any, spec: str, count: int, stones: range, seed: int) -> list[Any]:
    """``count`` states of ``spec`` in play, each after a random number of random moves in ``stones``."""
    game = spiel.load_game(spec)
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = game.new_initial_state()
        for _ in range(rng.choice(stones)):
            state.apply_action(rng.choice(state.legal_actions()))
            if state.is_terminal():
                break
        if not state.is_terminal():
            found.append(state)
    return found


def play_out(state: Any, bots: list[Any]) -> Any:
    """``state`` played to its end by ``bots`` (one per player), as OpenSpiel's evaluate_bots plays."""
    state = state.clone()
    for b in bots:
        b.restart_at(state)
    while not state.is_terminal():
        player = state.current_player()
        action = bots[player].step(state)
        assert action in state.legal_actions()
        for other, b in enumerate(bots):
            if other != player:
                b.inform_action(state, player, action)
        state.apply_action(action)
    return state


@pytest.mark.parametrize(("spec", "stones"), [("tic_tac_toe", range(2, 6)), ("mnk(m=4,n=3,k=3)", range(2, 8))])
def test_scores_agree_with_openspiel_s_minimax(spiel: Any, spec: str, stones: range) -> None:
    from open_spiel.python.algorithms import minimax

    for state in random_states(spiel, spec, 12, stones, seed=5):
        found = bridge.score(state)
        value, _ = minimax.alpha_beta_search(state.get_game(), state=state, maximizing_player_id=0)
        assert found.returns[0] == value
        assert found.best_action in state.legal_actions()
        after = state.clone()
        after.apply_action(found.best_action)
        assert bridge.score(after).value == found.value  # the best action keeps the value


@pytest.mark.parametrize(("spec", "stones"), [("tic_tac_toe", range(0, 5)), ("mnk(m=4,n=4,k=3)", range(0, 6)),
                                              ("connect_four", range(16, 26))])
def test_perfect_play_lasts_the_score_s_length(spiel: Any, spec: str, stones: range) -> None:
    """Two perfect players (the shortest win, the longest loss) end the game on the move the score says."""
    for state in random_states(spiel, spec, 3, stones, seed=9):
        found = bridge.score(state)
        assert found.length == len(state.history()) + found.moves_left
        end = play_out(state, [bridge.bot(state.get_game(), seed=s, max_nodes=10**7) for s in (1, 2)])
        assert len(end.history()) == found.length
        assert tuple(end.returns()) == found.returns


def test_connect_four_from_the_book(spiel: Any) -> None:
    """Positions of at most nine stones are answered by the opening book: the published values."""
    state = spiel.load_game("connect_four").new_initial_state()
    found = bridge.score(state, max_nodes=1)
    assert (found.value, found.length, found.moves_left, found.best_action) == (Value.FIRST, 41, 41, 3)
    assert found.result is not None and found.result.nodes == 0
    for column, (value, length) in enumerate([(Value.SECOND, 40), (Value.SECOND, 42), (Value.DRAW, 42),
                                              (Value.FIRST, 41), (Value.DRAW, 42), (Value.SECOND, 42),
                                              (Value.SECOND, 40)]):
        after = state.clone()
        after.apply_action(column)
        assert (bridge.score(after, max_nodes=1).value, bridge.score(after, max_nodes=1).length) == (value, length)


def test_a_finished_state_scores_its_end(spiel: Any) -> None:
    state = spiel.load_game("tic_tac_toe").new_initial_state()
    for action in (0, 3, 1, 4, 2):  # x takes the top row
        state.apply_action(action)
    assert bridge.score(state) == bridge.Score(Value.FIRST, (1.0, -1.0), 5, 0, None)


def test_a_stopped_search_is_one_sentence(spiel: Any) -> None:
    state = spiel.load_game("mnk(m=5,n=5,k=4)").new_initial_state()
    with pytest.raises(KinarowError, match=r"stopped .* larger budget$"):
        bridge.score(state, max_nodes=10)
    with pytest.raises(KinarowError, match=r"larger budget$"):
        bridge.bot(state.get_game(), max_nodes=10).step(state)


def test_the_bot_is_a_pyspiel_bot_that_never_loses(spiel: Any) -> None:
    import numpy as np
    from open_spiel.python.algorithms import evaluate_bots

    game = spiel.load_game("tic_tac_toe")
    perfect = bridge.bot(game, seed=3)
    assert isinstance(perfect, spiel.Bot) and isinstance(perfect, bridge.bot_class())
    rng = np.random.RandomState(0)
    for number in range(16):
        other = spiel.make_uniform_random_bot(1 - number % 2, number)
        bots = [perfect, other] if number % 2 == 0 else [other, perfect]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        assert returns[number % 2] >= 0
    # OpenSpiel's own (C++) evaluate_bots takes it too
    for seed in range(4):
        assert spiel.evaluate_bots(game.new_initial_state(), [perfect, spiel.make_uniform_random_bot(1, seed)],
                                   seed)[0] >= 0


def test_the_bot_keeps_the_value_and_its_policy_is_the_best_moves(spiel: Any) -> None:
    for state in random_states(spiel, "mnk(m=4,n=4,k=3)", 6, range(0, 6), seed=1):
        found = bridge.score(state)
        perfect = bridge.bot(state.get_game(), seed=0)
        policy, action = perfect.step_with_policy(state)
        assert perfect.provides_policy()
        assert action in dict(policy) and sum(p for _, p in policy) == pytest.approx(1.0)
        assert perfect.get_policy(state) == policy
        actions = [move for move, _ in policy]
        assert actions == sorted(actions) and bridge.bot(state.get_game()).step(state) == actions[0]  # no seed
        for move, _ in policy:
            after = state.clone()
            after.apply_action(move)
            score = bridge.score(after)
            assert (score.value, score.length) == (found.value, found.length)


def test_a_seed_repeats_the_games_and_ties_are_broken_by_it(spiel: Any) -> None:
    game = spiel.load_game("tic_tac_toe")

    def games(seed: int | None) -> list[list[int]]:
        perfect = bridge.bot(game, seed=seed)
        return [play_out(game.new_initial_state(), [perfect, bridge.bot(game, seed=seed)]).history()
                for _ in range(4)]

    seven, unseeded = games(7), games(None)
    assert games(7) == seven and games(8) != seven
    assert len({tuple(h) for h in unseeded}) == 1  # no seed: the smallest best action, every time
    assert len({tuple(h) for h in seven}) > 1  # every opening move draws: the seed chooses among them


def test_the_bot_refuses_another_game_and_a_finished_one(spiel: Any) -> None:
    perfect = bridge.bot(spiel.load_game("tic_tac_toe"))
    with pytest.raises(KinarowError, match="this bot plays 3x3k3, not 4x4k3"):
        perfect.step(spiel.load_game("mnk(m=4,n=4,k=3)").new_initial_state())
    state = spiel.load_game("tic_tac_toe").new_initial_state()
    for action in (0, 3, 1, 4, 2):
        state.apply_action(action)
    with pytest.raises(KinarowError, match="the game is over"):
        perfect.step(state)


def _script() -> ModuleType:
    return load_benchmark("openspiel_mcts")


def test_the_mcts_example_runs_and_kinarow_does_not_lose(spiel: Any, capsys: pytest.CaptureFixture[str]) -> None:
    script = _script()
    assert script.main(["--games", "tic_tac_toe=2", "connect_four=1", "--simulations", "20"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("OpenSpiel MCTS (20 simulations a move")
    rows = {tuple(line.split()[:2]): line.split()[2:6] for line in out[2:-1]}
    assert set(rows) == {("tic_tac_toe", "first"), ("tic_tac_toe", "second"), ("connect_four", "first")}
    assert all(games == "1" and losses == "0" for games, _, _, losses in rows.values())
    assert out[-1] == "kinarow lost no game."


def test_the_docs_python_examples_print_what_they_show(spiel: Any) -> None:
    """docs/openspiel.md: each Python block, run in order in one namespace, prints the block shown under it."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "openspiel.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(\w*)\n(.*?)```", page, re.S)
    namespace: dict[str, Any] = {}
    ran = 0
    for (language, code), (_, shown) in itertools.pairwise(blocks):
        if language == "python":
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(code, namespace)
            assert out.getvalue() == shown, code
            ran += 1
    assert ran == 3
