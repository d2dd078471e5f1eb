"""Published values from Steele & Larremore, "Misere Connect Four is solved".

The paper's table of misère Connect-k outcomes (k = 2 and k >= 3, every width
and height) and its constructive strategies: take-even, the row-0 pair rule,
delayed take-even, the k = 2 template/tally argument and the appendix's
canonical boards for h = 1, k = 3. Each test reproduces published figures by
exhaustive verification of a strategy (or the exact solver on small boards);
the expected values are the paper's (:func:`kinarow.misere.published` writes
its table down), not computed here.
"""

from __future__ import annotations

import pytest

from kinarow.papers.steele_larremore import Budget, published, table
from kinarow.strategies.verify import verify

PAPER = 'Steele & Larremore, "Misere Connect Four is solved"'
MISERE = ":gravity,misere"


def test_misere_connect_four_is_a_second_player_win_by_take_even():
    v = verify("take-even", "7x6k4" + MISERE)
    assert (v.outcome, v.player) == ("win", "second")
    assert v.longest is not None and v.longest <= 37  # the first player loses on or before move 37
    assert v.longest == 1 + (7 - 7 // 4) * 6


@pytest.mark.parametrize("k", [2, 3, 4])
def test_the_table_for_small_boards(k):
    cells = table([k], range(1, 9), range(1, 7), Budget(max_positions=200_000, solver_seconds=30, cross_check_cells=0))
    for c in cells:
        assert c.value != "open", (c.k, c.w, c.h, c.notes)
        assert c.value == c.published, (c.k, c.w, c.h, c.how)


@pytest.mark.parametrize("w", range(1, 21))
def test_k2_one_row_tally(w):
    # P2 wins for odd w >= 3 and even w >= 8; the template strategy still draws at w = 4 and 6.
    v = verify("tally", f"{w}x1k2" + MISERE)
    # where the paper says draw, a verified win would contradict it: the strategy must draw, not win
    assert v.outcome == ("win" if published(2, w, 1) == "second" else "draw"), (v, PAPER)


@pytest.mark.parametrize("w", range(1, 21))
def test_k3_one_row_draws_by_two_independent_strategies(w):
    # The first player draws by the pair rule and, independently, by the appendix's canonical boards; the
    # paper's value is a draw, so neither side's strategy may verify as a win.
    assert published(3, w, 1) == "draw"
    assert verify("pair-row", f"{w}x1k3" + MISERE, "first").outcome == "draw", PAPER
    assert verify("pair-row", f"{w}x1k3" + MISERE, "second").outcome == "draw", PAPER
    assert verify("canonical-boards", f"{w}x1k3" + MISERE).outcome == "draw", PAPER


@pytest.mark.parametrize(("w", "h", "k"), [(7, 3, 4), (6, 3, 4), (9, 5, 3), (8, 5, 3), (5, 7, 5)])
def test_odd_heights_delayed_take_even(w, h, k):
    v = verify("delayed-take-even", f"{w}x{h}k{k}" + MISERE)
    assert v.outcome == "win"
    assert v.player == published(k, w, h)
