"""The window game's search against a brute-force reading of its rules on small windows."""

from __future__ import annotations

import functools

import pytest

from kinarow.errors import KinarowError
from kinarow.search.window import ROWS, solve_window, window_groups


def brute_force(width: int, k: int, max_passes: int) -> bool:
    """Can X, moving first, win the window game? Every move of both players tried, straight from the rules."""
    groups = window_groups(width, k)
    inner = [int(g) for g in groups.inner]
    cross = list(zip((int(g) for g in groups.cross), (int(f) for f in groups.far), strict=True))
    cells = ROWS * width

    @functools.cache
    def x_wins(x: int, o: int, passes: int, x_to_move: bool) -> bool:
        if any(g & x == g for g in inner):
            return True
        if passes >= max_passes or any(g & o == g for g in inner) or any(
                g & o == g and far <= passes for g, far in cross):
            return False
        empty = [c for c in range(cells) if not (x | o) >> c & 1]
        if x_to_move:
            return any(x_wins(x | 1 << c, o, passes, False) for c in empty)
        return x_wins(x, o, passes + 1, True) and all(x_wins(x, o | 1 << c, passes, True) for c in empty)

    return x_wins(0, 0, 0, True)


@pytest.mark.parametrize(("k", "width"), [(3, 1), (3, 2), (3, 3), (3, 4), (4, 2), (4, 3)])
@pytest.mark.parametrize("max_passes", [1, 2, 3, 4])
def test_search_agrees_with_brute_force(k: int, width: int, max_passes: int) -> None:
    expected = "X wins" if brute_force(width, k, max_passes) else "X does not win"
    assert solve_window(width, k=k, max_passes=max_passes, tt_mb=1).answer == expected


def test_both_answers_are_met() -> None:
    """The small cases above are not all one answer (k = 3: X wins with three passes for O, not with two)."""
    assert solve_window(3, k=3, max_passes=3, tt_mb=1).answer == "X wins"
    assert solve_window(3, k=3, max_passes=2, tt_mb=1).answer == "X does not win"


def test_groups_of_the_strip() -> None:
    groups = window_groups(5)
    # inside five columns four high: 4 rows x 2 + 5 columns + 2 x 2 diagonals
    assert groups.inner.size == 8 + 5 + 4
    # leaving it: 3 per row and 3 per diagonal direction, with 1 to 3 cells beyond
    assert groups.cross.size == 12 + 6
    assert sorted(set(groups.far.tolist())) == [1, 2, 3]


def test_node_budget_gives_unknown() -> None:
    assert solve_window(9, max_nodes=50, tt_mb=1).answer == "unknown"


@pytest.mark.parametrize("width", [0, 17, "9"])
def test_bad_width(width: object) -> None:
    with pytest.raises(KinarowError, match="1 to 16 columns"):
        window_groups(width)  # type: ignore[arg-type]
