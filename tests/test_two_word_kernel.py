"""The alpha-beta kernel on boards of two words (65 to 128 cells).

One kernel source compiles in two forms (:mod:`kinarow.bitboards`): with one-word boards it is the kernel of
boards of at most 64 cells, with pairs of words the kernel of boards of up to 128. On a small board both forms
can run (``Searcher(game, words=2)``); where the one-word form takes no shortcut of its own (the line shifts
of straight boards, the blocking knowledge) and both tables have as many entries, they must search the same
tree: the same value, move and node count. The one-word form is checked against brute force elsewhere
(tests/test_solver_bruteforce.py); here the two-word form is too, and then it goes past 64 cells.
"""

from __future__ import annotations

import random

import pytest

from helpers import run
from kinarow import Game, Position
from kinarow.proofs import check_data
from kinarow.search.alphabeta import Searcher
from kinarow.search.certify import winning_walk
from test_solver_bruteforce import brute_value

# boards without the line shifts: wrapping boards, the exact rule, several stones a turn
SAME_TREE = ["5x3k3:gravity,misere,cylinder", "7x3k3:gravity,misere,cylinder", "4x4k3:torus", "5x4k3:exact",
             "4x4k4:gravity,cylinder", "4x4k3:misere,torus", "4x3k3p2q1:cylinder", "4x4k3:maker-breaker,torus"]


def _pair(game: Game) -> tuple[Searcher, Searcher]:
    # a two-word row is 48 bytes against 32: 1.5 times the megabytes give both tables 2**16 entries
    return Searcher(game, words=1, tt_mb=2), Searcher(game, words=2, tt_mb=3)


def _random_positions(game: Game, count: int, seed: str) -> list[Position]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        pos = game.start()
        for _ in range(rng.randrange(0, game.cells // 2 + 1)):
            if pos.is_over:
                break
            pos.play(rng.choice(pos.legal_moves()))
        if not pos.is_over:
            out.append(pos)
    return out


@pytest.mark.parametrize("text", SAME_TREE)
def test_both_forms_search_the_same_tree(text):
    game = Game(text)
    one, two = _pair(game)
    assert (one.words, two.words) == (1, 2)
    for pos in [game.start(), *_random_positions(game, 12, text)]:
        one.tt[:] = 0
        two.tt[:] = 0
        v1, m1 = one.value(pos), one.best_move(pos)
        n1 = int(one.ctrl[0])
        v2, m2 = two.value(pos), two.best_move(pos)
        n2 = int(two.ctrl[0])
        assert (v1, m1, n1) == (v2, m2, n2), (text, pos.move_text())


@pytest.mark.parametrize("text", ["4x3k3:gravity", "4x4k3:misere", "3x3k3", "5x2k2:gravity,misere,cylinder",
                                  "4x3k3:maker-breaker"])
def test_the_two_word_form_against_brute_force(text):
    game = Game(text)
    two = Searcher(game, words=2, tt_mb=3)
    for pos in [game.start(), *_random_positions(game, 30, text)]:
        assert str(two.value(pos)) == brute_value(pos), (text, pos.move_text())


def _late_positions(game: Game, empty: int, seed: int, count: int, keep: int) -> list[Position]:
    """Positions of random play with ``empty`` empty cells left, the game not over, cell ``keep`` left empty."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        pos = game.start()
        while not pos.is_over and game.cells - pos.stones > empty:
            pos.play(rng.choice([c for c in pos.legal_moves() if c != keep] or [keep]))
        if not pos.is_over:
            out.append(pos)
    return out


def test_past_64_cells_against_brute_force_with_a_column_across_the_words():
    # 13 x 5 (65 cells): column m holds cells 60..64, so its playable cell after four stones (bit 0 of the
    # high word) is found by a carry out of the low word. k = 6 lines only run along the wrapped rows, so random
    # play fills the board; its last moves are solved by brute force.
    game = Game("13x5k6:gravity,cylinder")
    two = Searcher(game, tt_mb=3)
    assert two.words == 2
    across = 0
    for pos in _late_positions(game, 9, 7, 12, keep=64):
        across += pos.board[63] != 0 and pos.board[64] == 0
        assert str(two.value(pos)) == brute_value(pos), pos.move_text()
    assert across > 0  # the carry was asked for


def test_misere_connect_two_on_the_eleven_by_seven_cylinder_is_a_second_player_win_with_a_checked_walk():
    """11 x 7 (77 cells), k = 2, misere, columns wrapping: the cell of Steele & Larremore's cylinder question
    that half-turn (even widths) could not reach. The two-word kernel settles it and writes the walk."""
    game = Game("11x7k2:gravity,misere,cylinder")
    proof = winning_walk(game.start())
    assert proof.kind == "strategy" and proof.data is not None
    verdict = check_data(proof.data, compiled=True)
    assert verdict.ok and "the second player (White) wins" in verdict.reason
    tampered = dict(proof.data, game="11x7k2:gravity,cylinder")
    assert not check_data(tampered, compiled=True).ok


def test_past_the_two_words_the_sentence_names_the_limit(capsys):
    code, _, err = run(capsys, "solve", "13x10k4:gravity,misere,cylinder")
    assert code != 0 and "at most 128 cells" in err and "Traceback" not in err and err.count("\n") == 1
