"""The exact rule (``:exact``): only a line of exactly K wins; an overline decides nothing, for either player.

The rule is checked three ways here: the geometry's flanks against maximal runs found by walking the board (a
reader written here), the solver against brute-force minimax over the rules (``Position``) on every reachable
position of small games and from the empty board where the rule changes the value, and both checkers against a
walk that is sound only without the rule. Searches and arguments that lean on "an extra stone never hurts its
owner" refuse it in one sentence.
"""

from __future__ import annotations

import json
import random

import pytest

from helpers import run
from kinarow import Game, solve
from kinarow.errors import GameSpecError
from kinarow.proofs import check_data
from kinarow.proofs.draw import stealing_fit
from kinarow.proofs.tree import StrategyTree, check, shared_replies_fit
from kinarow.search.alphabeta import Searcher
from kinarow.search.connect import score_search_fit
from kinarow.search.proof_search import ProofSearcher, proof_search_fit
from kinarow.values import Player, Value
from test_solver_bruteforce import brute_value, check_against_brute, reachable


def test_the_flag_parses_with_its_aliases_and_prints_in_canonical_order():
    assert str(Game("15x15k5:exact")) == "15x15k5:exact"
    for alias in ("exactly", "exact-k", "exactly-k", "no-overline", "EXACT"):
        assert Game(f"9x9k5:{alias}").exact
    assert str(Game("7x6k4:exact,gravity,misere")) == "7x6k4:gravity,misere,exact"
    assert not Game("15x15k5").exact
    with pytest.raises(GameSpecError, match="given twice"):
        Game("9x9k5:exact,exactly")


def test_flanks_are_the_cells_that_extend_a_groups_line():
    geo = Game("5x1k3:exact").geometry
    assert geo.groups == ((0, 1, 2), (1, 2, 3), (2, 3, 4))
    assert geo.flanks == ((3,), (0, 4), (1,))
    assert geo.flank_masks == (0b1000, 0b10001, 0b10)
    assert Game("5x1k3").geometry.flank_masks == (0, 0, 0)  # without the rule no cell spoils a group
    # a group that is a whole wrapped line has no cell beyond it; on a line one longer, both ends are one cell
    assert all(not f for f in Game("3x3k3:torus,exact").geometry.flanks)
    assert all(len(f) == 1 for f in Game("4x4k3:torus,exact").geometry.flanks)


def maximal_runs(game: Game, board: list[int], cell: int) -> list[int]:
    """Written here from the rule's words: the length of the run of the owner's stones through ``cell`` along
    each direction, walking both ways (a wrapped line is counted once round)."""
    geo, player = game.geometry, board[cell]
    x0, y0 = geo.xy(cell)
    wrap_x, wrap_y = game.topology in ("torus", "cylinder"), game.topology == "torus"
    lengths = []
    for dx, dy in geo.directions:
        seen = {(x0, y0)}
        for sign in (1, -1):
            x, y = x0, y0
            while True:
                x, y = x + sign * dx, y + sign * dy
                x, y = (x % game.m if wrap_x else x), (y % game.n if wrap_y else y)
                if not (0 <= x < game.m and 0 <= y < game.n) or (x, y) in seen or board[geo.cell(x, y)] != player:
                    break
                seen.add((x, y))
        lengths.append(len(seen))
    return lengths


@pytest.mark.parametrize("text", ["7x1k3", "6x5k3", "6x6k4:torus", "7x4k3:cylinder", "6x6k3:hex", "5x5k2"])
def test_a_group_wins_under_the_rule_exactly_when_its_run_is_k_long(text):
    game = Game(f"{text}:exact" if ":" not in text else f"{text},exact")
    rng = random.Random(text)
    decided = set()
    for _ in range(400):
        board = [rng.choice((0, 1, 1, 2)) for _ in range(game.cells)]
        pos = game.start()
        pos.board[:] = board
        pos.bits[1] = sum(1 << c for c in range(game.cells) if board[c] == 1)
        pos.bits[2] = sum(1 << c for c in range(game.cells) if board[c] == 2)
        for cell in range(game.cells):
            if board[cell]:
                expected = game.k in maximal_runs(game, board, cell)
                assert pos.completes_group(cell, board[cell]) == expected, (text, board, cell)
                assert game.geometry.owns_group_through(cell, board, board[cell]) == expected
                decided.add(expected)
    assert decided == {True, False}  # both answers met, so a constant could not pass


def test_completed_lines_are_the_runs_of_exactly_k():
    pos = Game("6x6k3:exact").position("a1 a6 b1 b6 d1 f6 c1")  # a1-d1: four in a row, no win
    assert pos.result is None and pos.completed_lines() == ()
    pos = Game("6x6k3:exact").position("a1 a6 b1 b6 c1")
    assert pos.result == Value.FIRST
    assert [[pos.name(c) for c in line] for line in pos.completed_lines()] == [["a1", "b1", "c1"]]


@pytest.mark.parametrize("text", ["4x1k2:exact", "5x1k2:exact", "3x3k2:exact", "4x3k3:gravity,exact",
                                  "4x3k2:misere,exact", "3x3k3:torus,exact"])
def test_every_reachable_position_against_brute_force(text):
    positions = reachable(Game(text))
    values = {check_against_brute(pos) for pos in positions}
    assert len(values) >= 2


@pytest.mark.parametrize(("text", "free_style", "exact"), [
    ("5x3k3:gravity,misere", Value.FIRST, Value.DRAW),
    ("5x1k2", Value.FIRST, Value.FIRST),
    ("4x4k3:maker-breaker", Value.MAKER, Value.MAKER),
])
def test_the_rule_changes_the_value_where_brute_force_says_so(text, free_style, exact):
    ruled = text.replace(":", ":exact,") if ":" in text else f"{text}:exact"
    assert brute_value(Game(text).start(), {}) == free_style
    assert brute_value(Game(ruled).start(), {}) == exact
    assert solve(ruled, tt_mb=8).value == exact
    check_against_brute(Game(ruled).start())


def test_connect_four_on_6x4_is_a_second_player_win_but_a_draw_without_overlines():
    # alpha-beta under the rule (the score search refuses it), against the free-style score search
    assert solve("6x4k4:gravity", tt_mb=16).value == Value.SECOND
    result = solve("6x4k4:gravity,exact", tt_mb=16)
    assert result.value == Value.DRAW and result.search == "alpha-beta"


def test_a_walk_that_wins_by_an_overline_is_refused_by_both_checkers():
    searcher = Searcher("6x4k4:gravity", tt_mb=16)
    tree = searcher.walk(Game("6x4k4:gravity").start(), Player.SECOND)
    assert check(tree, compiled=True).ok and check(tree).ok
    ruled = StrategyTree("6x4k4:gravity,exact", [], tree.winner, walk=tree.walk)
    compiled, walked = check(ruled, compiled=True), check(ruled)
    assert not compiled.ok and not walked.ok
    assert compiled.reason == walked.reason


def test_a_win_under_the_rule_is_walked_and_checked():
    game = Game("4x4k3:exact")
    tree = Searcher(game, tt_mb=8).walk(game.start(), Player.FIRST)
    compiled, walked = check(tree, compiled=True), check(tree)
    assert compiled.ok and walked.ok and compiled.details == walked.details


@pytest.mark.parametrize(("fit", "words"), [
    (lambda g: stealing_fit(g, []), "extra stone can hurt its owner"),
    (lambda g: shared_replies_fit(g, "win", Value.FIRST), "extra stone can hurt its owner"),
    (lambda g: score_search_fit(Game("7x6k4:gravity,exact")), "free-style rule"),
])
def test_arguments_that_need_monotonicity_refuse_the_rule(fit, words):
    answer = fit(Game("9x9k5:exact"))
    assert not answer and words in answer.reason


def test_the_proof_search_takes_the_rule_but_a_blocking_search_does_not(capsys):
    assert proof_search_fit(Game("15x15k5:exact"))
    code, _, err = run(capsys, "pairing", "8x8k5:exact")
    assert code != 0 and "exact rule" in err and "Traceback" not in err and err.count("\n") == 1


def test_a_certificate_whose_checker_does_not_take_the_rule_is_refused():
    data = {"format": "kinarow.pairing", "version": 1, "game": "8x8k5:exact", "moves": [], "pairs": []}
    verdict = check_data(data)
    assert not verdict.ok and "exact rule" in verdict.reason and "kinarow.strategy" in verdict.reason


def test_prove_writes_a_draw_of_two_walks_that_check_passes(tmp_path, capsys):
    certificate = tmp_path / "draw.json"
    code, out, _ = run(capsys, "prove", "5x3k3:gravity,misere,exact", "--dir", str(tmp_path / "run"),
                       "--out", str(certificate))
    assert code == 0 and "VALID" in out
    data = json.loads(certificate.read_text())
    assert data["game"] == "5x3k3:gravity,misere,exact"
    assert {half["method"] for half in (data["first_cannot_win"], data["second_cannot_win"])} == {"non-losing-walk"}
    for compiled in ([], ["--compiled"]):
        code, out, _ = run(capsys, "check", str(certificate), *compiled)
        assert code == 0 and "VALID" in out and "draw" in out


def test_strategy_stealing_halves_are_not_accepted_under_the_rule():
    data = {"format": "kinarow.draw", "version": 1, "game": "3x3k3:exact", "moves": [],
            "second_cannot_win": {"method": "strategy-stealing"}}
    verdict = check_data(data)
    assert not verdict.ok and "strategy stealing does not apply" in verdict.reason


def test_the_misere_strategies_refuse_the_rule(capsys):
    code, _, err = run(capsys, "verify", "take-even", "6x4k3:gravity,misere,exact")
    assert code != 0 and "not 6x4k3:gravity,misere,exact" in err


def test_the_proof_search_turns_off_what_rests_on_monotonicity():
    from kinarow.engine import pns_kernel as P

    searcher = ProofSearcher("9x9k5:exact", tt_mb=1)
    assert searcher.params[P.R_ZONES] == 0 and searcher.params[P.R_VCF] == 0 and searcher.flanks is not None
    free = ProofSearcher("9x9k5", tt_mb=1)
    assert free.params[P.R_ZONES] == 1 and free.params[P.R_VCF] > 0 and free.flanks is None


@pytest.mark.parametrize("text", ["5x5k4:exact", "5x4k4:exact", "5x4k3:exact", "5x4k4:exact,maker-breaker",
                                  "4x3k3:exact,maker-breaker", "6x4k3:exact", "5x3k3:exact"])
def test_the_proof_search_under_the_rule_agrees_with_alpha_beta(text):
    """The proof search (no zones, no threat sequences, every empty cell a move; pairing leaves kept) against
    the alpha-beta solver, which the brute force above checks, on random positions."""
    game = Game(text)
    proof, exact = ProofSearcher(game, tt_mb=16), Searcher(game, tt_mb=16)
    rng = random.Random(text)
    seen = set()
    for _ in range(25):
        pos = game.start()
        for _ in range(rng.randrange(0, game.cells // 2)):
            if pos.is_over:
                break
            pos.play(rng.choice(pos.legal_moves()))
        want = exact.value(pos)
        assert proof.value(pos) == want, (text, pos.move_text())
        seen.add(want)
    assert len(seen) >= 2


def test_a_spoiled_overline_of_the_defender_is_not_a_completed_line_in_the_proof_search():
    """Regression: White's c1-c4 is an overline of k = 3, which decides nothing under the rule; the proof
    search once read it as White's line and answered at the root with no search."""
    game = Game("5x4k3:exact")
    pos = game.position("c4 b1 c1 a2 c3 e2 e3 d3 c2 d2")
    want = Searcher(game, tt_mb=16).value(pos)
    assert want == Value.SECOND
    assert ProofSearcher(game, tt_mb=16).value(pos) == want


def test_six_by_six_four_in_a_row_is_a_first_player_win_with_and_without_overlines(tmp_path, capsys):
    # Free-style (6,6,4) is a first-player win (Tung & Lau, cited in the brief's games table); the exact rule
    # does not change it, and the win under the rule is certified by both checkers.
    assert solve("6x6k4", tt_mb=64).value == Value.FIRST
    assert solve("6x6k4:exact", tt_mb=64).value == Value.FIRST
    certificate = tmp_path / "win.json"
    code, out, _ = run(capsys, "prove", "6x6k4:exact", "--dir", str(tmp_path / "run"), "--out", str(certificate))
    assert code == 0 and "VALID" in out
    code, out, _ = run(capsys, "check", str(certificate))  # the Python checker, which plays by Position
    assert code == 0 and "VALID: in 6x6k4:exact, the first player (Black) wins" in out
