"""Strategy certificates: extraction by the solver, the independent checker, tampering, JSON."""

from __future__ import annotations

import copy
import json

import pytest

from helpers import WINS
from kinarow import Game, KinarowError, Position, solve
from kinarow.proofs.tree import StrategyTree, board_key, check


def _solve_with_strategy(text, moves):
    result = solve(text, moves=moves or None, strategy=True, tt_mb=8)
    assert result.value not in ("draw", "unknown"), f"{text} after '{moves}' should be a win for someone"
    assert result.strategy is not None
    return result


def both(tree: StrategyTree):
    """The compiled checker and the Python walk agree on the verdict, the reason and the count."""
    compiled, walked = check(tree, compiled=True), check(tree)
    assert (compiled.ok, compiled.reason, compiled.details) == (walked.ok, walked.reason, walked.details)
    return compiled


def win_on_the_spot(p: Position, winner: str) -> int | None:
    """Written here, by brute force: the first legal cell that ends the game in ``winner``'s win."""
    for cell in p.legal_moves():
        p.play(cell)
        won = p.result == winner
        p.undo()
        if won:
            return cell
    return None


def own_verify(tree: StrategyTree) -> bool:
    """A second checker written here: the prescribed moves win against every reply."""
    game = Game(tree.game)
    pos = game.position(" ".join(tree.moves))
    names = ("maker", "breaker") if game.goal == "maker-breaker" else ("first", "second")
    winner = 1 if tree.winner == names[0] else 2
    done: set[tuple[int, ...]] = set()

    def wins(p: Position) -> bool:
        if p.result is not None:
            return p.result == tree.winner
        key = tuple(p.board)
        if key in done:
            return True
        if p.to_move == winner:
            name = tree.choices.get(board_key(p))
            if name is None:  # version 2 leaves out the wins on the spot
                return win_on_the_spot(p, tree.winner) is not None
            cell = p.geometry.parse_cell(name)
            if cell not in p.legal_moves():
                return False
            p.play(cell)
            ok = wins(p)
            p.undo()
        else:
            ok = True
            for cell in p.legal_moves():
                p.play(cell)
                ok = wins(p)
                p.undo()
                if not ok:
                    break
        if ok:
            done.add(key)
        return ok

    return wins(pos)


def winner_positions(tree: StrategyTree) -> list[Position]:
    """The positions reached by the strategy where the winner is to move."""
    game = Game(tree.game)
    pos = game.position(" ".join(tree.moves))
    names = ("maker", "breaker") if game.goal == "maker-breaker" else ("first", "second")
    winner = 1 if tree.winner == names[0] else 2
    seen: set[str] = set()
    out: list[Position] = []

    def walk(p: Position) -> None:
        if p.is_over:
            return
        key = board_key(p)
        if key in seen:
            return
        seen.add(key)
        if p.to_move == winner:
            if key not in tree.choices:  # a win on the spot
                assert win_on_the_spot(p, tree.winner) is not None
                return
            out.append(p.copy())
            p.play(p.geometry.parse_cell(tree.choices[key]))
            walk(p)
            p.undo()
        else:
            for cell in p.legal_moves():
                p.play(cell)
                walk(p)
                p.undo()

    walk(pos)
    return out


@pytest.mark.parametrize(("text", "moves"), WINS)
def test_strategy_is_accepted(text, moves):
    result = _solve_with_strategy(text, moves)
    tree = result.strategy
    assert tree.game == str(Game(text))
    assert tree.moves == moves.split()
    assert tree.winner == result.value
    assert tree.size > 0
    verdict = both(tree)
    assert verdict, verdict.reason
    assert verdict.ok
    assert verdict.details["positions_checked"] > 0
    assert own_verify(tree)


def test_published_strategy_4x3k3_opens_b2_or_an_equivalent():
    """Tung & Lau, "Two methods for investigating the generalized tic-tac-toe": 4x3k3 is won by 1. b2."""
    tree = _solve_with_strategy("4x3k3", "").strategy
    assert tree.winner == "first"
    # b2 and its mirror image c2 are the centre cells of the 4x3 board
    assert tree.choices["." * 12] in ("b2", "c2")


def test_draws_come_without_strategy():
    result = solve("3x3k3", strategy=True, tt_mb=8)
    assert result.value == "draw"
    assert result.strategy is None


# -- tampering ------------------------------------------------------------------------------------


def _brute(pos: Position, memo: dict) -> str:
    """Plain minimax (memoised on the board), for finding a move that does not win."""
    key = tuple(pos.board)
    if key not in memo:
        if pos.result is not None:
            memo[key] = pos.result
        else:
            player = pos.to_move
            rank = {
                1: ("second", "breaker", "draw", "first", "maker"),
                2: ("first", "maker", "draw", "second", "breaker"),
            }
            best = None
            for cell in pos.legal_moves():
                pos.play(cell)
                value = _brute(pos, memo)
                pos.undo()
                if best is None or rank[player].index(value) > rank[player].index(best):
                    best = value
                if rank[player].index(best) >= 3:
                    break
            memo[key] = best
    return memo[key]


@pytest.mark.parametrize(("text", "moves"), WINS)
def test_a_losing_choice_is_rejected(text, moves):
    tree = _solve_with_strategy(text, moves).strategy
    memo: dict = {}
    tampered = None
    # the deepest positions first: there the brute force is instant
    for pos in sorted(winner_positions(tree), key=lambda p: -p.stones)[:200]:
        if pos.geometry.size - pos.stones > 13:
            continue
        key = board_key(pos)
        for cell in pos.legal_moves():
            pos.play(cell)
            value = _brute(pos, memo)
            pos.undo()
            if value != tree.winner:
                tampered = copy.deepcopy(tree)
                tampered.choices[key] = pos.name(cell)
                break
        if tampered is not None:
            break
    assert tampered is not None, "no position of the strategy has a move that fails to win"
    verdict = both(tampered)
    assert not verdict
    assert verdict.reason
    assert not own_verify(tampered)


@pytest.mark.parametrize(("text", "moves"), WINS[:4])
def test_an_occupied_or_unknown_cell_is_rejected(text, moves):
    tree = _solve_with_strategy(text, moves).strategy
    pos = sorted(winner_positions(tree), key=lambda p: p.stones)[-1]
    key = board_key(pos)
    occupied = next(c for c in range(pos.geometry.size) if pos.board[c] != 0)
    for bad in (pos.name(occupied), "z99", "nonsense"):
        tampered = copy.deepcopy(tree)
        tampered.choices[key] = bad
        verdict = both(tampered)
        assert not verdict
        assert bad in verdict.reason
        assert "\n" not in verdict.reason


@pytest.mark.parametrize(("text", "moves"), WINS)
def test_a_missing_entry_is_rejected(text, moves):
    tree = _solve_with_strategy(text, moves).strategy
    for pos in winner_positions(tree)[:20]:
        tampered = copy.deepcopy(tree)
        del tampered.choices[board_key(pos)]
        verdict = both(tampered)
        assert not verdict
        assert "no move" in verdict.reason


@pytest.mark.parametrize(("text", "moves"), WINS)
def test_the_wrong_winner_is_rejected(text, moves):
    tree = _solve_with_strategy(text, moves).strategy
    names = ("maker", "breaker") if Game(text).goal == "maker-breaker" else ("first", "second")
    for winner in (*names, "draw", "nobody"):
        if winner == tree.winner:
            continue
        tampered = copy.deepcopy(tree)
        tampered.winner = winner
        verdict = both(tampered)
        assert not verdict
        assert verdict.reason


@pytest.mark.parametrize(
    ("text", "other"),
    [
        ("4x3k3", "4x3k3:misere"),
        ("4x3k3", "4x4k3"),
        ("4x3k3", "3x4k3"),
        ("4x3k3", "4x3k3:maker-breaker"),
        ("4x3k3", "4x3k3:gravity"),
        ("3x3k3:maker-breaker", "3x3k3:misere"),
        ("4x4k3:gravity", "4x4k4:gravity"),
        ("4x4k3:gravity", "4x4k3"),
        ("4x3k3", "not a game"),
    ],
)
def test_the_wrong_game_is_rejected(text, other):
    tree = _solve_with_strategy(text, "").strategy
    tampered = copy.deepcopy(tree)
    tampered.game = other
    verdict = both(tampered)
    assert not verdict
    assert verdict.reason


def test_wrong_opening_moves_are_rejected():
    tree = _solve_with_strategy("3x3k3", "b2 b1").strategy
    for moves in (["b2", "a1"], ["b2", "b2"], ["z9"], []):
        tampered = copy.deepcopy(tree)
        tampered.moves = moves
        verdict = both(tampered)
        assert not verdict
        assert verdict.reason


# -- JSON -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "moves"), WINS)
def test_json_round_trip(text, moves):
    tree = _solve_with_strategy(text, moves).strategy
    text_form = tree.dumps()
    assert "\n" not in text_form
    again = StrategyTree.from_json(json.loads(text_form))
    assert again == tree
    assert both(again)
    data = json.loads(text_form)
    assert data["format"] == "kinarow.strategy"
    assert data["game"] == tree.game
    assert data["winner"] == tree.winner


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(format="something else"),
        lambda d: d.update(version=999),
        lambda d: d.pop("choices"),
        lambda d: d.pop("game"),
        lambda d: d.update(choices=["b2"]),
    ],
)
def test_from_json_rejects_malformed_certificates(mutate):
    data = _solve_with_strategy("4x3k3", "").strategy.to_json()
    mutate(data)
    with pytest.raises(KinarowError):
        StrategyTree.from_json(data)


def test_from_json_rejects_non_objects():
    for data in (None, [], "kinarow.strategy", 3):
        with pytest.raises(KinarowError):
            StrategyTree.from_json(data)



@pytest.mark.parametrize(("text", "moves"), WINS)
def test_wins_on_the_spot_are_left_to_the_checker(text, moves):
    """Version 2 names no move where the winner wins with this stone, and the checker finds that cell itself."""
    tree = _solve_with_strategy(text, moves).strategy
    for pos in winner_positions(tree):
        assert win_on_the_spot(pos, tree.winner) is None, pos.move_text()


@pytest.mark.parametrize("text", [t for t, _ in WINS])
def test_winning_stone_agrees_with_brute_force(text):
    """The checker's rule for a win on the spot, against every legal cell tried, along random games."""
    import random

    from kinarow.proofs.tree import winning_stone

    game = Game(text)
    names = ("maker", "breaker") if game.goal == "maker-breaker" else ("first", "second")
    rng = random.Random(7)
    for _ in range(30):
        pos = game.position()
        while not pos.is_over:
            for name in (*names, "draw"):
                assert winning_stone(pos, name) == win_on_the_spot(pos, name), (pos.move_text(), name)
            pos.play(rng.choice(pos.legal_moves()))


def test_a_version_1_strategy_naming_every_move_still_checks():
    """Files written before version 2 name the wins on the spot too; they stay valid."""
    tree = _solve_with_strategy("4x3k3", "").strategy
    full = copy.deepcopy(tree)
    for pos in winner_positions(tree):
        pos.play(pos.geometry.parse_cell(tree.choices[board_key(pos)]))
        for reply in pos.legal_moves():
            pos.play(reply)
            spot = win_on_the_spot(pos, tree.winner)
            if spot is not None:
                full.choices[board_key(pos)] = pos.name(spot)
            pos.undo()
    assert full.size > tree.size
    data = full.to_json()
    data["version"] = 1
    verdict = both(StrategyTree.from_json(data))
    assert verdict.ok, verdict.reason
