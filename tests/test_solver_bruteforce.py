"""The solver against an independent brute-force minimax.

The reference below uses nothing but the rules (``Position.play``, ``undo``,
``legal_moves`` and ``result``): plain minimax over every legal move, memoised
on the board. The search kernel is compared with it on every reachable
position of some tiny games and on thousands of random positions of small
games (normal, misère, Maker-Breaker; free placement and gravity; rect,
cylinder, torus and hex boards; several (p, q) turn rules). The solver's best
move must achieve the value it reports.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinarow import Game, Position, Searcher, solve

sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

EXAMPLES = settings.default.max_examples

# How much each player likes each outcome.
_RANK = {
    1: {"first": 2, "maker": 2, "draw": 1, "second": 0, "breaker": 0},
    2: {"second": 2, "breaker": 2, "draw": 1, "first": 0, "maker": 0},
}

_MEMOS: dict[str, dict[tuple[int, ...], str]] = {}
_SEARCHERS: dict[tuple[str, bool], Searcher] = {}


def brute_value(pos: Position, memo: dict[tuple[int, ...], str] | None = None) -> str:
    """The outcome with perfect play, by exhaustive minimax (memoised on the board)."""
    if memo is None:
        memo = _MEMOS.setdefault(str(pos.game), {})
    key = tuple(pos.board)
    found = memo.get(key)
    if found is not None:
        return found
    if pos.result is not None:
        value = pos.result
    else:
        player = pos.to_move
        rank = _RANK[player]
        value = None
        for cell in pos.legal_moves():
            pos.play(cell)
            child = brute_value(pos, memo)
            pos.undo()
            if value is None or rank[child] > rank[value]:
                value = child
                if rank[value] == 2:
                    break
        assert value is not None
    memo[key] = value
    return value


def searcher_for(game: Game, symmetry: bool = True) -> Searcher:
    key = (str(game), symmetry)
    if key not in _SEARCHERS:
        _SEARCHERS[key] = Searcher(game, tt_mb=8, symmetry=symmetry)
    return _SEARCHERS[key]


def check_against_brute(pos: Position, symmetry: bool = True) -> str:
    """Solve ``pos`` and compare value and best move with the brute force; returns the value."""
    before = (list(pos.board), list(pos.moves))
    expected = brute_value(pos)
    result = solve(pos, searcher=searcher_for(pos.game, symmetry))
    assert (list(pos.board), list(pos.moves)) == before, "solve() must not change the position it is given"
    line = pos.move_text()
    assert result.value == expected, f"{pos.game} after '{line}': solver says {result.value}, brute force {expected}"
    assert result.stopped is None
    if pos.is_over:
        assert result.best_move is None
        return expected
    assert result.best_move is not None, f"{pos.game} after '{line}': no best move"
    cell = pos.geometry.parse_cell(result.best_move)
    assert cell in pos.legal_moves(), f"{pos.game} after '{line}': best move {result.best_move} is not legal"
    pos.play(cell)
    after = brute_value(pos)
    pos.undo()
    assert after == expected, (
        f"{pos.game} after '{line}': best move {result.best_move} leads to {after}, but the value is {expected}"
    )
    return expected


def reachable(game: Game) -> list[Position]:
    """Every position reachable from the empty board (one move order each)."""
    seen: set[tuple[int, ...]] = set()
    out: list[Position] = []
    pos = game.start()

    def walk() -> None:
        key = tuple(pos.board)
        if key in seen:
            return
        seen.add(key)
        out.append(pos.copy())
        for cell in pos.legal_moves():
            pos.play(cell)
            walk()
            pos.undo()

    walk()
    return out


# -- every reachable position of tiny games -------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "3x3k3",
        "3x3k3:misere",
        "3x3k3:maker-breaker",
        "3x3k3:torus",
        "3x3k3:hex",
        "3x3k3p2q1",
        "3x3k3p2q2:misere",
        "4x3k3:gravity",
        "4x3k3:gravity,misere",
        "4x3k3:gravity,maker-breaker",
        "3x4k3:gravity,cylinder",
    ],
)
def test_every_reachable_position(text):
    game = Game(text)
    positions = reachable(game)
    assert len(positions) > 1000
    values = {check_against_brute(pos) for pos in positions}
    # the positions cover more than one outcome, so a constant answer could not pass
    assert len(values) >= 2


def test_every_reachable_position_without_symmetry():
    for pos in reachable(Game("3x3k3:misere")):
        check_against_brute(pos, symmetry=False)


def test_tic_tac_toe_position_count():
    # 5478 legal tic-tac-toe positions (a classical count) -- checks the reference enumeration itself
    assert len(reachable(Game("3x3k3"))) == 5478


# -- whole small games from the empty board -------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "3x3k3", "3x3k3:misere", "3x3k3:maker-breaker", "3x3k3:torus", "3x3k3:hex", "3x3k3p2q1",
        "4x3k3:gravity", "4x3k3:gravity,misere", "3x3k2", "3x2k2:misere", "2x2k2:torus",
        "4x4k3:gravity", "5x3k3:gravity,misere", "4x4k4:gravity",
    ],
)
def test_empty_board(text):
    game = Game(text)
    check_against_brute(game.start())
    # solve() accepts a game string as well as a position
    result = solve(text, tt_mb=8)
    assert result.value == brute_value(game.start())
    assert result.nodes > 0


# -- random positions -----------------------------------------------------------------------------

FREE = [
    "3x3k3", "4x3k3", "3x4k3", "4x4k3", "4x4k4", "5x3k3", "5x4k4", "6x3k3", "3x5k3",
]
MISERE = [
    "3x3k3:misere", "4x3k3:misere", "3x4k3:misere", "4x4k3:misere", "4x4k4:misere", "5x4k4:misere",
]
MAKER_BREAKER = [
    "3x3k3:maker-breaker", "4x3k3:maker-breaker", "4x4k3:maker-breaker", "4x4k4:maker-breaker",
    "5x4k4:maker-breaker", "5x5k4:maker-breaker",
]
GRAVITY = [
    "4x4k3:gravity", "5x4k3:gravity", "5x4k4:gravity", "5x5k4:gravity", "6x4k4:gravity", "7x6k4:gravity",
    "5x4k3:gravity,misere", "4x4k3:gravity,misere", "6x5k4:gravity,misere",
    "4x4k3:gravity,maker-breaker", "5x4k4:gravity,maker-breaker",
]
GEOMETRY = [
    "4x4k3:torus", "3x3k3:torus", "5x4k4:torus", "4x3k3:cylinder", "5x4k4:cylinder", "5x4k3:cylinder,gravity",
    "4x4k4:hex", "4x4k3:hex", "5x5k4:hex", "4x4k3:hex,misere", "4x4k4:torus,maker-breaker",
    "4x4k3:cylinder,misere", "5x4k3:hex,gravity", "4x4k3:hex,maker-breaker",
]
TURN_RULES = [
    "4x4k3p2q1", "4x4k4p2q1", "5x4k4p2q1", "5x5k4p2q2", "4x4k4p2q2", "4x4k3p2q2:misere", "4x4k4p2q1:misere",
    "4x4k4p2q1:maker-breaker", "5x4k4p2q1:gravity", "4x4k4p3q2", "5x4k4p3q1", "4x3k3p2q1:maker-breaker",
]


@st.composite
def random_positions(draw, games, min_empty=3, max_empty=9):
    """A game from ``games`` and a random legal line leaving few empty cells."""
    text = draw(st.sampled_from(games))
    game = Game(text)
    pos = game.start()
    target = draw(st.integers(min_empty, max_empty))
    while not pos.is_over and game.cells - pos.stones > target:
        pos.play(draw(st.sampled_from(pos.legal_moves())))
    return pos


@settings(max_examples=4 * EXAMPLES)
@given(random_positions(FREE))
def test_random_free_positions(pos):
    check_against_brute(pos)


@settings(max_examples=3 * EXAMPLES)
@given(random_positions(MISERE))
def test_random_misere_positions(pos):
    check_against_brute(pos)


@settings(max_examples=3 * EXAMPLES)
@given(random_positions(MAKER_BREAKER))
def test_random_maker_breaker_positions(pos):
    check_against_brute(pos)


@settings(max_examples=4 * EXAMPLES)
@given(random_positions(GRAVITY, max_empty=12))
def test_random_gravity_positions(pos):
    check_against_brute(pos)


@settings(max_examples=4 * EXAMPLES)
@given(random_positions(GEOMETRY))
def test_random_positions_on_other_geometries(pos):
    check_against_brute(pos)


@settings(max_examples=4 * EXAMPLES)
@given(random_positions(TURN_RULES))
def test_random_positions_with_turn_rules(pos):
    check_against_brute(pos)


@settings(max_examples=EXAMPLES)
@given(random_positions(FREE + MISERE + GRAVITY + TURN_RULES, max_empty=8))
def test_fresh_searcher_without_symmetry(pos):
    """A new table and no symmetry reduction give the same answers."""
    result = solve(pos, tt_mb=1, symmetry=False)
    assert result.value == brute_value(pos)


# -- budgets --------------------------------------------------------------------------------------


def test_node_budget_gives_unknown_or_the_right_value():
    pos = Game("4x4k4").start()
    expected = solve(pos, tt_mb=8).value
    for budget in (1, 10, 100, 1000, 10**9):
        result = solve(pos, max_nodes=budget, tt_mb=8)
        assert result.value in ("unknown", expected)
        if result.value == "unknown":
            assert result.stopped
            assert result.best_move is None
    # without knowledge (with it, the empty 4x4 board is a draw in 1 node)
    assert solve(pos, max_nodes=10, tt_mb=8, knowledge="none").value == "unknown"
