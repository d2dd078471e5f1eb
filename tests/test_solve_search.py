"""``solve(search=...)`` and ``kinarow solve --search``: the proof search answering value questions.

The proof search's value and its best move are checked against the alpha-beta
solver: the best move must keep the value (the winner's move still wins, a
draw's move leaves the opponent no win), from the empty board and from random
positions of small games (fixed seeds).
"""

from __future__ import annotations

import json
import random

import pytest

from helpers import run
from kinarow import Game, Position, solve
from kinarow.errors import KinarowError
from kinarow.limits import PROOF_SEARCH_CELLS
from kinarow.search.solve import ALPHA_BETA, PROOF_SEARCH, SCORE_SEARCH
from kinarow.values import Value


def exact(pos: Position) -> Value:
    value = solve(pos, tt_mb=4, search="alpha-beta").value
    assert isinstance(value, Value)
    return value


def positions(text: str, count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    game = Game(text)
    out = [game.start()]
    while len(out) < count:
        pos = game.start()
        for _ in range(rng.randrange(1, 5)):
            legal = pos.legal_moves()
            pos.play(rng.choice(legal))
            if pos.is_over:
                break
        if not pos.is_over:
            out.append(pos)
    return out


@pytest.mark.parametrize("text", ["3x3k3", "4x4k3", "4x4k4", "5x4k4", "5x5k4", "4x4k3:maker-breaker",
                                  "5x5k4:maker-breaker"])
def test_proof_search_value_and_best_move_keep_the_exact_value(text):
    for pos in positions(text, 8, seed=len(text)):
        result = solve(pos, search="proof", tt_mb=4)
        where = f"{pos.game} after '{pos.move_text()}'"
        assert result.search == PROOF_SEARCH, where
        assert result.value == exact(pos), where
        assert result.best_move is not None, where
        child = pos.copy()
        child.play_moves(result.best_move)
        winner = result.value.stone
        if winner == pos.to_move or result.value == Value.DRAW:
            assert exact(child) == result.value, where


def test_auto_takes_the_proof_search_on_larger_boards_only():
    assert solve("4x4k4").search == ALPHA_BETA
    assert Game("7x6k5").cells > PROOF_SEARCH_CELLS
    big = solve("7x6k5")
    assert (big.search, big.value, big.stopped) == (PROOF_SEARCH, Value.DRAW, None)
    assert big.best_move is not None
    assert solve("7x6k5", search="alpha-beta", max_nodes=100).search == ALPHA_BETA
    assert solve("7x6k5", knowledge="none", max_nodes=100).search == ALPHA_BETA
    assert solve("4x4k4:gravity").search == SCORE_SEARCH
    assert solve("4x4k4").to_dict()["search"] == ALPHA_BETA


def test_proof_search_budgets_and_progress():
    ticks: list[int] = []
    stopped = solve("7x7k5", search="proof", max_nodes=500)
    assert (stopped.value, stopped.stopped, stopped.best_move) == (Value.UNKNOWN, "node limit", None)
    assert stopped.nodes <= 500
    timed = solve("7x7k5", search="proof", time_limit=0.05, on_tick=ticks.append)
    assert (timed.value, timed.stopped) == (Value.UNKNOWN, "time limit")
    assert timed.search == PROOF_SEARCH


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"search": "fast"}, "the search 'fast' is unknown"),
        ({"search": 1}, "the search 1 is unknown"),
        ({"search": "proof", "strong": True}, "leave out strong and searcher"),
    ],
)
def test_bad_search_is_one_sentence(options, words):
    with pytest.raises(KinarowError, match=words) as info:
        solve("3x3k3", **options)
    assert "\n" not in str(info.value)


def test_proof_search_refuses_gravity():
    with pytest.raises(KinarowError, match="the proof search does not apply"):
        solve("4x4k4:gravity", search="proof")


def test_cli_says_which_search_answered(capsys):
    code, out, _ = run(capsys, "solve", "7x6k5", "--no-store")
    assert code == 0
    assert "search:    proof-number search" in out
    code, out, _ = run(capsys, "solve", "4x4k4", "--search", "proof", "--json", "--no-store")
    assert code == 0
    data = json.loads(out)
    assert (data["search"], data["value"]) == (PROOF_SEARCH, "draw")
    code, _, err = run(capsys, "solve", "4x4k4:gravity", "--search", "proof", "--no-store")
    assert code == 2
    assert err.count("\n") == 1


def test_cli_writes_a_wins_strategy_from_the_proof_search(capsys, tmp_path):
    path = tmp_path / "s.json.gz"
    code, out, _ = run(capsys, "solve", "6x5k4", "--search", "proof", "--strategy", str(path), "--walk", "--json",
                       "--no-store")
    assert code == 0
    data = json.loads(out)
    assert (data["search"], data["value"], data["strategy_file"]) == (PROOF_SEARCH, "first", str(path))
    assert data["walk_nodes"] >= 0 and 0 <= data["walk_seconds"] <= data["seconds"]
    code, out, _ = run(capsys, "check", str(path), "--compiled")
    assert code == 0 and out.startswith("VALID: in 6x5k4, the first player")
    code, _, err = run(capsys, "solve", "6x5k4", "--search", "proof", "--strong", "--no-store")
    assert code != 0 and "leave out strong" in err


def test_a_win_the_proof_search_proves_is_not_solved_again_for_its_certificate(capsys, monkeypatch, tmp_path):
    """``solve(proof=True)`` and ``kinarow solve --proof`` where the proof search answers (6x6k4 under auto):
    the win's strategy is read from that search's own table, so alpha-beta's Searcher is never built (it once
    solved the game again to write the strategy), and the certificate checks."""
    from kinarow.proofs import check_data
    from kinarow.search import solve as solve_module

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("alpha-beta was asked to solve the game again")

    monkeypatch.setattr(solve_module.Searcher, "__init__", refuse)
    result = solve("6x6k4", proof=True)
    assert (result.value, result.search, result.stopped) == (Value.FIRST, PROOF_SEARCH, None)
    assert result.walk_nodes is not None and result.proof is not None and result.proof.kind == "strategy"
    assert check_data(result.proof.data).ok and check_data(result.proof.data, compiled=True).ok
    path = tmp_path / "6x6k4.json"
    code, out, _ = run(capsys, "solve", "6x6k4", "--proof", str(path), "--json", "--no-store")
    assert code == 0
    data = json.loads(out)
    assert (data["search"], data["value"], data["proof_file"]) == (PROOF_SEARCH, "first", str(path))
    assert data["nodes"] == result.nodes  # one search, the same one
    monkeypatch.undo()
    code, out, _ = run(capsys, "check", str(path), "--compiled")
    assert code == 0 and out.startswith("VALID: in 6x6k4, the first player")
