"""The Connect-k score kernel (:mod:`kinarow.engine.gravity_kernel`, :mod:`kinarow.search.connect`).

Scores are checked against an exhaustive minimax over the game's rules (winner ends as soon as it can, loser as
late as it can), against Pons' scores (tests/data), and against the published outcomes and game lengths of
Connect Four on small boards (John Tromp's table for width + height <= 15, as listed in the README of
Christophe Steininger's c4 solver, "Results").
"""

from __future__ import annotations

import random

import pytest

from kinarow import Game, KinarowError, solve
from kinarow.position import Position
from kinarow.search.connect import ScoreSearcher, score_search_fit
from test_strong import expected, references

#: (width, height): (outcome, the move the game ends on) with perfect play; Tromp's table via c4's README
PUBLISHED = {
    (4, 4): ("draw", 16), (5, 4): ("draw", 20), (6, 4): ("second", 24), (7, 4): ("draw", 28),
    (4, 5): ("draw", 20), (5, 5): ("draw", 25), (6, 5): ("draw", 30), (4, 6): ("draw", 24),
    (5, 6): ("draw", 30), (4, 7): ("draw", 28),
}


_MEMOS: dict[Game, dict[tuple[int, int], int]] = {}


def exhaustive(position: Position) -> int:
    """The score from the side to move by plain minimax over the rules (kernel convention)."""
    cells = position.game.cells
    memo = _MEMOS.setdefault(position.game, {})

    def score(pos: Position) -> int:
        key = pos.key()
        if key in memo:
            return memo[key]
        best = -(10**9)
        for cell in pos.legal_moves():
            child = pos.copy()
            child.play(cell)
            v = (0 if child.result == "draw" else cells + 1 - child.stones) if child.is_over else -score(child)
            best = max(best, v)
        memo[key] = best
        return best

    return score(position)


def random_positions(game: Game, count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = game.start()
        for _ in range(rng.randrange(game.cells)):
            child = pos.copy()
            child.play(rng.choice(pos.legal_moves()))
            if child.is_over:
                break
            pos = child
        out.append(pos)
    return out


@pytest.mark.parametrize("spec", ["3x3k3:gravity", "4x3k3:gravity", "4x4k3:gravity", "5x3k3:gravity",
                                  "3x4k2:gravity", "2x2k2:gravity", "3x5k3:gravity", "1x4k2:gravity"])
def test_scores_agree_with_exhaustive_minimax(spec):
    check_against_minimax(spec)


@pytest.mark.parametrize("spec", ["4x4k4:gravity", "5x4k3:gravity"])
def test_scores_agree_with_exhaustive_minimax_on_larger_boards(spec):  # slow tier: the minimax takes a minute
    check_against_minimax(spec)


def check_against_minimax(spec: str) -> None:
    game = Game(spec)
    searcher = ScoreSearcher(game, tt_mb=1)
    for pos in [*random_positions(game, 25, seed=7), game.start()]:
        exact = exhaustive(pos)
        assert searcher.score(pos).score == exact, pos.move_text()
        weak = searcher.score(pos, weak=True).score
        assert (weak > 0, weak < 0) == (exact > 0, exact < 0)


@pytest.mark.parametrize(("spec", "fewest"), [("4x4k4:gravity", 6), ("6x4k3:gravity", 9), ("4x6k4:gravity", 10),
                                             ("5x5k4:gravity", 12)])
def test_scores_agree_with_exhaustive_minimax_late_in_the_game(spec, fewest):
    # boards of even and odd height, positions where the follow-up bound (claimeven, odd columns paired) often
    # decides: exact and weak scores with one thread, exact with two
    game = Game(spec)
    one, two = ScoreSearcher(game, tt_mb=1), ScoreSearcher(game, tt_mb=1)
    rng = random.Random(5)
    checked = 0
    while checked < 60:
        pos = game.start()
        for _ in range(rng.randrange(fewest, game.cells)):
            child = pos.copy()
            child.play(rng.choice(pos.legal_moves()))
            if child.is_over:
                break
            pos = child
        if pos.stones < fewest:
            continue
        exact = exhaustive(pos)
        assert one.score(pos).score == exact, pos.move_text()
        weak = one.score(pos, weak=True).score
        assert weak == (exact > 0) - (exact < 0), pos.move_text()
        two.forget()
        assert two.score(pos, threads=2).score == exact, pos.move_text()
        checked += 1


def test_scores_agree_with_pons_on_all_300_reference_positions():
    game = Game("7x6k4:gravity")
    searcher = ScoreSearcher(game, tt_mb=16)
    refs = references()
    assert len(refs) == 300
    for moves, pons_score in refs:
        pos = game.position(" ".join(moves))
        searcher.forget()
        got = searcher.score(pos)
        winner = 0 if got.score == 0 else (pos.to_move if got.score > 0 else 3 - pos.to_move)
        assert (winner, got.last_move) == expected(moves, pons_score), moves


def test_two_threads_agree_with_pons_on_all_300_reference_positions():
    game = Game("7x6k4:gravity")
    searcher = ScoreSearcher(game, tt_mb=16)
    for moves, pons_score in references():
        pos = game.position(" ".join(moves))
        searcher.forget()
        got = searcher.score(pos, threads=2)
        winner = 0 if got.score == 0 else (pos.to_move if got.score > 0 else 3 - pos.to_move)
        assert (winner, got.last_move) == expected(moves, pons_score), moves


@pytest.mark.parametrize(("size", "published"), sorted(PUBLISHED.items()))
def test_the_published_table_of_small_boards(size, published):
    width, height = size
    result = solve(f"{width}x{height}k4:gravity", strong=True)
    outcome, last = published
    assert result.value == outcome
    # the table counts a draw as ending on the last cell; kinarow says last_move None for a draw
    assert result.last_move == (None if outcome == "draw" else last)


def test_two_threads_give_the_same_score():
    game = Game("5x4k4:gravity")
    for pos in [*random_positions(game, 10, seed=3), game.start()]:
        one = ScoreSearcher(game, tt_mb=1).score(pos)
        two = ScoreSearcher(game, tt_mb=1).score(pos, threads=2)
        assert one is not None and two is not None and one.score == two.score


def test_a_new_generation_forgets_and_counts_the_same_nodes():
    game = Game("6x4k4:gravity")
    searcher = ScoreSearcher(game, tt_mb=4)
    first = searcher.score(game.start())
    again = searcher.score(game.start())
    assert again is not None and first is not None and again.nodes < first.nodes  # the table remembered
    searcher.forget()
    fresh = searcher.score(game.start())
    assert fresh is not None and fresh.nodes == first.nodes


def test_best_move_keeps_the_score():
    game = Game("5x4k3:gravity")
    searcher = ScoreSearcher(game, tt_mb=1)
    for pos in random_positions(game, 40, seed=11):  # the move the search found on its way, or the children's
        exact = exhaustive(pos)
        for weak in (False, True):
            score = searcher.score(pos, weak=weak)
            cell = searcher.best_move(pos, score, weak=weak)
            child = pos.copy()
            child.play(cell)
            if child.is_over:
                got = 0 if child.result == "draw" else game.cells + 1 - child.stones
            else:
                got = -exhaustive(child)
            assert got == exact if not weak else (got > 0) - (got < 0) == score.score


def test_a_node_budget_stops_the_search(monkeypatch):
    monkeypatch.setenv("KINAROW_BOOK", "off")  # the opening book would answer the empty 7x6 board at once
    searcher = ScoreSearcher(Game("7x6k4:gravity"), tt_mb=1)
    assert searcher.score(Game("7x6k4:gravity").start(), max_nodes=1000) is None
    assert searcher.stopped == "node limit"
    assert solve("7x6k4:gravity", max_nodes=1000).stopped == "node limit"


@pytest.mark.parametrize(("spec", "why"), [
    ("5x4k4", "gravity"), ("5x4k4:gravity,misere", "normal goal"), ("5x4k4p2q1:gravity", "one stone"),
    ("5x4k4:gravity,cylinder", "rectangular"), ("16x8k4:gravity", "128"),
])
def test_games_it_does_not_serve_say_why(spec, why):
    fit = score_search_fit(Game(spec))
    assert not fit and why in fit.reason
    with pytest.raises(KinarowError, match="cannot take"):
        ScoreSearcher(Game(spec))


def test_threads_must_be_a_small_whole_number():
    with pytest.raises(KinarowError, match="threads must be a whole number"):
        solve("4x4k4:gravity", threads=0)
    with pytest.raises(KinarowError, match="threads must be a whole number"):
        solve("4x4k4:gravity", threads=True)

