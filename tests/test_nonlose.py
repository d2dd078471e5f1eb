"""Non-losing walks: a strategy that claims only "this player does not lose", and draw proofs made of two.

The checkers (Python and compiled) must accept the walks the solver extracts and reject tampered ones; on
small boards a plain minimax over the rules (written here, sharing nothing with the search) says which moves
lose, and every move a walk prescribes must be one that does not.
"""

from __future__ import annotations

import copy
import functools

import pytest

from kinarow import Game
from kinarow.errors import KinarowError
from kinarow.position import Position, value_names
from kinarow.proofs import check_data
from kinarow.proofs.draw import HALVES
from kinarow.proofs.tree import NOT_LOSE, StrategyTree, board_key, check, follow, pack_walk, winning_stone
from kinarow.search.alphabeta import non_losing_strategy
from kinarow.search.solve import solve
from kinarow.values import Value

BOTH = pytest.mark.parametrize("compiled", [False, True], ids=["python", "compiled"])


@functools.cache
def minimax(game_text: str) -> dict[bytes, Value]:
    """Every reachable position's value with perfect play (board bytes -> result), by plain minimax."""
    game = Game(game_text)
    first, second = value_names(game)
    memo: dict[bytes, Value] = {}

    def rank(v: Value, mover: int) -> int:
        return 1 if v == Value.DRAW else 2 if v == (first if mover == 1 else second) else 0

    def value(pos: Position) -> Value:
        if pos.is_over:
            assert pos.result is not None
            return pos.result
        key = bytes(pos.board)
        if key not in memo:
            best: Value | None = None
            for c in pos.legal_moves():
                pos.play(c)
                v = value(pos)
                pos.undo()
                if best is None or rank(v, pos.to_move) > rank(best, pos.to_move):
                    best = v
            assert best is not None
            memo[key] = best
        return memo[key]

    value(game.start())
    return memo


def value_of(pos: Position) -> Value:
    if pos.is_over:
        assert pos.result is not None
        return pos.result
    return minimax(str(pos.game))[bytes(pos.board)]


def loses(pos: Position, player: int) -> bool:
    """Is ``pos`` (by minimax) a win for the other player?"""
    return value_of(pos) == value_names(pos.game)[2 - player]


# Small games of every rule set the exact solver takes, with a draw (non-losing walks for both) or a win.
DRAWS = ["3x3k3:misere", "3x3k3:gravity", "4x3k4:gravity", "4x3k4p2q1:gravity", "4x2k3p2q1", "4x2k3p2q1:misere",
         "3x3k3"]
WINS = ["3x3k3:maker-breaker", "3x3k3p2q1", "3x3k3p3q1", "3x3k2:misere", "4x3k3p2q1:misere",
        "3x3k3:gravity,maker-breaker"]


@pytest.mark.parametrize("game", DRAWS)
def test_the_walks_of_a_draw_prescribe_only_moves_that_do_not_lose(game):
    start = Game(game).start()
    assert value_of(start) == Value.DRAW
    for player in (1, 2):
        tree = non_losing_strategy(start, player)
        assert tree is not None
        assert tree.outcome == NOT_LOSE and tree.winner == value_names(start.game)[player - 1]
        python, compiled = check(tree), check(tree, compiled=True)
        assert python.ok and compiled.ok, (python.reason, compiled.reason)
        assert python.details == compiled.details
        assert _moves_checked(start.copy(), player, tree, set()) == tree.size


def _moves_checked(pos: Position, player: int, tree: StrategyTree, seen: set[str]) -> int:
    """Follow ``tree`` against every reply, asserting that each of ``player``'s moves keeps a position minimax
    does not lose; returns the prescribed moves met (wins on the spot are not counted)."""
    if pos.is_over or board_key(pos) in seen:
        return 0
    seen.add(board_key(pos))
    if pos.to_move != player:
        count = 0
        for c in pos.legal_moves():
            pos.play(c)
            count += _moves_checked(pos, player, tree, seen)
            pos.undo()
        return count
    on_the_spot = winning_stone(pos, tree.winner) is not None
    cell = tree.move(pos)
    assert cell is not None
    pos.play(cell)
    assert not loses(pos, player), f"{pos.game}: the move {pos.name(cell)} of {pos.move_text()} loses"
    count = (0 if on_the_spot else 1) + _moves_checked(pos, player, tree, seen)
    pos.undo()
    return count


@pytest.mark.parametrize("game", WINS)
def test_a_won_game_has_a_non_losing_walk_for_the_winner_only(game):
    start = Game(game).start()
    winner = value_of(start).stone
    assert winner is not None
    tree = non_losing_strategy(start, winner)
    assert tree is not None
    assert check(tree).ok and check(tree, compiled=True).ok
    with pytest.raises(KinarowError, match="can lose"):
        non_losing_strategy(start, 3 - winner)


@pytest.mark.parametrize("game", DRAWS + WINS)
def test_solve_proves_every_value_and_agrees_with_minimax(game):
    result = solve(game, proof=True, knowledge="none")
    assert result.value == value_of(Game(game).start())
    assert result.proof is not None and result.proof.exists, result.proof
    for compiled in (False, True):
        verdict = check_data(result.proof.data, compiled=compiled)
        assert verdict.ok, verdict.reason
        assert verdict.reason.endswith("draw") == (result.value == Value.DRAW)


def _bad_tree(game: str, player: int, bad: str | None, bad_move: str) -> StrategyTree:
    """``player``'s strategy from minimax (a move that does not lose where there is one), keyed by board, except
    that after the moves ``bad`` it plays ``bad_move``."""
    start = Game(game).start()
    wrong = None
    if bad is not None:
        pos = Game(game).start()
        pos.play_moves(bad)
        wrong = board_key(pos)

    def choose(pos: Position) -> int:
        if board_key(pos) == wrong:
            return pos.geometry.parse_cell(bad_move)
        moves = pos.legal_moves()
        for c in moves:
            pos.play(c)
            safe = not loses(pos, player)
            pos.undo()
            if safe:
                return c
        return moves[0]

    choices = follow(start, player, choose)
    return StrategyTree(game, [], value_names(start.game)[player - 1], choices, outcome=NOT_LOSE)


@BOTH
def test_a_wrong_move_that_lets_the_opponent_win_is_rejected(compiled):
    good = _bad_tree("3x3k3", 2, None, "")
    assert check(good, compiled=compiled).ok
    after_b2 = Game("3x3k3").position("b2")
    after_b2.play(after_b2.geometry.parse_cell("b1"))
    assert loses(after_b2, 2)  # an edge answer to the centre loses tic-tac-toe
    bad = _bad_tree("3x3k3", 2, "b2", "b1")
    verdict = check(bad, compiled=compiled)
    assert not verdict.ok and "ends in a first win, so second loses" in verdict.reason


@BOTH
def test_a_missing_reply_is_rejected(compiled):
    tree = non_losing_strategy(Game("4x3k4:gravity").start(), 2)
    assert tree is not None
    assert tree.walk is not None
    short = StrategyTree(tree.game, [], tree.winner, walk=tree.walk[:-1], outcome=NOT_LOSE)
    verdict = check(short, compiled=compiled)
    assert not verdict.ok and "the walk ends after" in verdict.reason
    keyed = tree.expanded()
    del keyed.choices[next(iter(keyed.choices))]
    verdict = check(keyed, compiled=compiled)
    assert not verdict.ok and "no move is given after" in verdict.reason


@BOTH
@pytest.mark.parametrize("game", ["3x3k3p2q1", "3x3k2:misere", "3x3k3:maker-breaker"])
def test_not_lose_claimed_for_the_losing_side_is_rejected(game, compiled):
    loser = 3 - value_of(Game(game).start()).stone
    tree = _bad_tree(game, loser, None, "")  # the loser's best defence still loses
    verdict = check(tree, compiled=compiled)
    assert not verdict.ok and "so " + str(tree.winner) + " loses" in verdict.reason
    # written as a file: the checker says the same
    data = tree.to_json()
    assert data["claim"] == f"{tree.winner} does not lose" and data["outcome"] == NOT_LOSE
    assert not check_data(data, compiled=compiled).ok


def _draw(game: str) -> dict:
    data = solve(game, proof=True).proof.data
    assert all(data[half]["method"] == "non-losing-walk" for half in HALVES.values())
    return data


@BOTH
def test_a_draw_with_a_half_missing_or_swapped_is_rejected(compiled):
    data = _draw("3x3k3:misere")
    assert check_data(data, compiled=compiled).ok
    one = copy.deepcopy(data)
    del one["second_cannot_win"]
    verdict = check_data(one, compiled=compiled)
    assert not verdict.ok and "claims 'draw', but what it proves is 'first cannot win'" in verdict.reason
    one["claim"] = "first cannot win"  # honest about its one half: valid, and no draw
    assert check_data(one, compiled=compiled).ok
    swapped = copy.deepcopy(data)
    swapped["first_cannot_win"], swapped["second_cannot_win"] = data["second_cannot_win"], data["first_cannot_win"]
    assert not check_data(swapped, compiled=compiled).ok


@BOTH
def test_a_tampered_walk_in_a_draw_is_rejected(compiled):
    import base64
    import zlib

    data = _draw("5x4k4:gravity")
    half = data["first_cannot_win"]
    walk = bytearray(zlib.decompress(base64.b64decode(half["walk"])))
    rejected = 0
    for i in range(0, len(walk), max(1, len(walk) // 12)):  # a dozen moves, each changed to another column
        bad = copy.deepcopy(data)
        changed = bytearray(walk)
        changed[i] = (changed[i] + 4) % 20
        bad["first_cannot_win"]["walk"] = pack_walk(bytes(changed))
        rejected += not check_data(bad, compiled=compiled).ok
    assert rejected >= 10  # a changed move may still hold, but most cannot


def test_the_format_reads_old_files_and_refuses_a_bad_outcome():
    tree = solve("4x3k3", strategy=True, walk=True).strategy
    data = tree.to_json()
    assert "outcome" not in data and data["claim"] == "first wins"  # a win is written as before
    assert check_data(data, compiled=True).ok
    bad = {**data, "outcome": "maybe"}
    verdict = check_data(bad)
    assert not verdict.ok and "'outcome'" in verdict.reason
    lying = {**data, "outcome": NOT_LOSE}  # no 'player': not a non-losing certificate
    assert not check_data(lying).ok


@pytest.mark.parametrize("game", ["4x3k3", "3x3k3:maker-breaker", "4x3k3:gravity,misere"])
def test_a_win_found_without_its_strategy_gets_one_when_certified(game):
    from kinarow.search.certify import certificate

    start = Game(game).start()
    result = solve(start)  # a value question: no strategy comes with it
    assert result.strategy is None and result.value.stone is not None
    proof = certificate(start, result)
    assert proof.kind == "strategy" and proof.data["claim"] == f"{result.value} wins"
    assert check_data(proof.data).ok and check_data(proof.data, compiled=True).ok


def test_a_gravity_draws_evidence_is_its_walks_and_a_passed_deadline_gives_none():
    import time

    from kinarow.search.certify import evidence, walk_draw

    found = evidence(solve("4x4k4:gravity"), seconds=600)  # what `settle --out` writes for a draw
    assert found.kind == "draw" and check_data(found.data, compiled=True).ok
    late = walk_draw(Game("4x4k4:gravity").start(), deadline=time.perf_counter())
    assert not late.exists and "time ran out" in late.what
