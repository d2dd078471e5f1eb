"""The misère table machinery: how cells are settled, the grids, and cylinders against brute force."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

import kinarow.papers as reproduce
from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.papers.steele_larremore import (
    SHIPPED,
    Budget,
    Cell,
    Settler,
    grid_text,
    published,
    reproduce_cylinder,
    reproduce_solver,
    reproduce_table,
    shipped_value,
    table,
)


def test_published_table_rows():
    assert published(2, 6, 1) == "draw"
    assert published(2, 8, 1) == "second"
    assert published(2, 1, 5) == "draw"
    assert published(2, 3, 5) == "second"
    assert published(4, 3, 6) == "draw"  # w < k
    assert published(4, 7, 1) == "draw"
    assert published(4, 7, 6) == "second"
    assert published(4, 7, 5) == "first"
    assert published(4, 8, 5) == "second"


@cache
def take_even_positions(w: int, h: int, k: int) -> int:
    """Positions (first player to move) that take-even lets the first player reach in misère Connect-k,
    by plain enumeration (no kinarow code): the second player answers in the same column."""

    def line(board: dict[tuple[int, int], int], col: int, row: int, p: int) -> bool:
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            n = 1
            for s in (1, -1):
                x, y = col + s * dx, row + s * dy
                while board.get((x, y)) == p:
                    n += 1
                    x, y = x + s * dx, y + s * dy
            if n >= k:
                return True
        return False

    seen: set[frozenset[tuple[tuple[int, int], int]]] = set()
    stack: list[tuple[tuple[int, ...], frozenset[tuple[tuple[int, int], int]]]] = [((0,) * w, frozenset())]
    while stack:
        heights, stones = stack.pop()
        if stones in seen:
            continue
        seen.add(stones)
        for col in range(w):
            row = heights[col]
            if row >= h:
                continue
            board = dict(stones)
            board[(col, row)] = 1
            if line(board, col, row, 1):
                continue  # the first player made k in a row: it loses, the walk ends
            board[(col, row + 1)] = 2
            grown = tuple(x + 2 * (i == col) for i, x in enumerate(heights))
            if line(board, col, row + 1, 2) or min(grown) >= h:
                continue
            stack.append((grown, frozenset(board.items())))
    return len(seen)


def test_settle_by_strategy_solver_or_open():
    settler = Settler(Budget(max_positions=10_000, solver_seconds=5, cross_check_cells=0))
    c = settler.settle(4, 7, 6)
    assert (c.value, c.methods) == ("second", ["take-even"])
    assert f"{take_even_positions(7, 6, 4):,} positions" in c.how  # 7,312, counted independently
    c = settler.settle(3, 2, 3)  # w < k: no strategy, the solver
    assert (c.value, c.methods) == ("draw", ["solver"])
    c = settler.settle(4, 12, 12)  # beyond 10,000 positions and 64 cells
    assert c.value == "open"
    assert any("exceeded 10,000 positions" in n for n in c.notes)
    # a larger board is not tried again
    c = settler.settle(4, 12, 14)
    assert c.value == "open"
    assert any("smaller board exceeded" in n for n in c.notes)


def test_two_drawing_strategies_settle_a_draw():
    c = Settler(Budget(cross_check_cells=0)).settle(3, 9, 1)
    assert c.value == "draw"
    assert set(c.methods) == {"pair-row", "canonical-boards"}


def test_invariant_certificates_settle_whole_families():
    settler = Settler(Budget(max_positions=10_000, solver_seconds=5, cross_check_cells=0, invariants=True))
    c = settler.settle(4, 12, 12)  # beyond 10,000 positions, proven for every even height by the invariant
    assert (c.value, c.methods) == ("second", ["invariant"])
    assert "take-even (second) proven by an invariant certificate for every WxHk4" in c.how
    assert c.symbol() == "2I"
    c = settler.settle(4, 3, 12)  # w < k: not in take-even's family, a draw by the narrow-board certificate
    assert (c.value, c.methods) == ("draw", ["narrow"])
    assert "each player covers" in c.how and c.symbol() == "=N"
    rings = Settler(Budget(max_positions=10, solver_seconds=1, cross_check_cells=0, invariants=True), cylinder=True)
    assert rings.settle(4, 12, 6).methods == ["invariant"]
    assert rings.settle(4, 4, 6).methods == ["invariant"]  # from width k
    assert "invariant" not in rings.settle(4, 3, 6).methods  # narrower than k


def test_grid_marks_differences():
    cells = [Cell(3, 5, 3, "second", "x", ["solver"], published="first"), Cell(3, 4, 3, "open", "", published="second")]
    text = grid_text(cells, 3, [4, 5], [3])
    assert "2S!" in text
    assert "?" in text
    assert cells[0].agrees is False and cells[1].agrees is None


def test_small_reproduction_report():
    report = reproduce_table((2, 3), (1, 2, 3, 4), (1, 2, 3), Budget(solver_seconds=10))
    assert report.agrees, report.differences
    assert report.name == "misere-table"
    assert f"take-even win for the second player, {take_even_positions(7, 6, 4):,} positions" in report.text
    tally = report.tally
    assert (tally.compared, tally.open, tally.conflicts) == (25, 0, 0)  # 24 cells and misère Connect Four
    assert tally.agree == 25 and tally.differ == 0
    assert len(report.data["cells"]) == 24


def test_conflicting_strategies_are_reported_not_resolved(monkeypatch):
    # forced conflict: every strategy is "verified" to win, for both players
    import kinarow.strategies as S
    import kinarow.strategies.verify as V
    from kinarow.values import Outcome

    class Won:
        outcome, positions, seconds, counterexample = Outcome.WIN, 1, 0.0, None

    monkeypatch.setattr(V, "verify", lambda strategy, game, player, **_: Won())
    monkeypatch.setattr(S, "applicable", lambda game: [(S.get("take-even"), 1), (S.get("take-even"), 2)])
    settler = Settler(Budget(cross_check_cells=0))
    c = settler.settle(4, 7, 6)
    assert c.value == "open" and c.conflict
    assert c.notes == ["CONFLICT: take-even verified a win for the first player, but take-even verified "
                       "draw-or-better for the second"]
    assert c.symbol() == "?X"
    # a win for one side and a draw-or-better for the other is a conflict too
    outcomes = {1: Outcome.WIN, 2: Outcome.DRAW}

    class Verified:
        def __init__(self, player: int) -> None:
            self.outcome, self.positions, self.seconds, self.counterexample = outcomes[player], 1, 0.0, None
            self.longest = 1

    monkeypatch.setattr(V, "verify", lambda strategy, game, player=2, **_: Verified(player))
    c = settler.settle(4, 7, 4)
    assert c.value == "open" and c.conflict
    report = reproduce_table((4,), (7,), (4, 6), Budget(cross_check_cells=0))
    assert not report.agrees
    # both cells open with a conflict; misère Connect Four (a draw-or-better by the fake) differs
    assert report.tally.conflicts == 2 and report.tally.open == 2 and report.tally.differ == 1
    assert sum("CONFLICT" in d for d in report.differences) == 2
    assert all(cell["conflict"] for cell in report.data["cells"])
    assert "open: 2 (of them 2 with conflicting strategies)" in report.text


def test_targets_are_registered():
    assert {"misere-table", "misere-cylinder", "misere-solver"} <= set(reproduce.names())


def test_small_solver_only_report():
    report = reproduce_solver((2, 3), (1, 2, 3, 4), (1, 2, 3), Budget(solver_seconds=10))
    assert report.agrees, report.differences
    assert all(c["methods"] == ["solver"] for c in report.data["cells"])
    assert "solved 24 of 24 boards" in report.text


@cache
def _ring_value(w: int, k: int) -> str:
    """Misère k-in-a-row on a ring of w cells by plain minimax (no kinarow code)."""

    @cache
    def value(board: tuple[int, ...]) -> int:
        if 0 not in board:
            return 0
        p = 1 if board.count(1) == board.count(2) else 2
        best = -2
        for i in range(w):
            if board[i]:
                continue
            b = list(board)
            b[i] = p
            lost = w >= k and any(all(b[(s + j) % w] == p for j in range(k)) for s in range(i - k + 1, i + 1))
            best = max(best, -1 if lost else -value(tuple(b)))
            if best == 1:
                break
        return best

    return {1: "first", 0: "draw", -1: "second"}[value((0,) * w)]


@pytest.mark.parametrize("k", [2, 3])
def test_cylinder_rings_agree_with_plain_minimax(k):
    cells = table([k], range(1, 12), [1], Budget(solver_nodes=1_000_000, cross_check_nodes=100_000), cylinder=True)
    for c in cells:
        assert c.value == _ring_value(c.w, k), (c.w, c.how)


def test_small_cylinder_report():
    report = reproduce_cylinder((3,), (3, 4, 5), (1, 2, 3), Budget(solver_nodes=1_000_000, cross_check_nodes=100_000))
    assert report.agrees
    assert report.tally.compared == 0  # the paper gives no cylinder values: nothing is compared
    assert report.tally.sentence().startswith("Nothing compared with the paper")
    assert "| 3 | 5x3 | second |" in report.text


def test_delayed_take_even_certificates_settle_odd_heights():
    settler = Settler(Budget(max_positions=10_000, solver_seconds=5, cross_check_cells=0, invariants=True))
    c = settler.settle(5, 12, 11)
    assert (c.value, c.methods) == ("second", ["invariant"])
    assert "delayed-take-even (second) proven by an invariant certificate for every WxHk5" in c.how
    assert c.evidence == [{"kind": "invariant", "strategy": "delayed-take-even", "player": "second",
                           "family": "WxHk5:gravity,misere with W = 6, 8, 10, ..., H = 3, 5, 7, ..."}]
    c = settler.settle(5, 11, 11)
    assert (c.value, c.methods, c.published) == ("first", ["invariant"], "first")


def test_a_table_checks_each_family_once_and_hands_it_to_its_cells():
    families: list = []
    cells = table((3,), (5, 6), (3, 4), Budget(invariants=True, cross_check_cells=0), families=families)
    assert [(c.strategy, str(c.player), v.ok) for c, v in families] == [
        ("take-even", "second", True), ("delayed-take-even", "second", True), ("delayed-take-even", "first", True)]
    assert all(v.details["seconds"] >= 0 for _, v in families)
    assert [(c.w, c.h, c.value, c.methods) for c in cells] == [
        (5, 3, "first", ["invariant"]), (6, 3, "second", ["invariant"]),
        (5, 4, "second", ["invariant"]), (6, 4, "second", ["invariant"])]


def test_a_node_budget_settles_the_same_cells_on_any_machine():
    budget = Budget(solver_nodes=100_000, cross_check_cells=0)
    settler = Settler(budget, cylinder=True)
    c = settler.settle(3, 5, 3, strategies=False)  # 418 nodes: within the budget
    assert (c.value, c.methods) == ("second", ["solver"])
    again = Settler(budget, cylinder=True).settle(3, 5, 3, strategies=False)
    assert (again.value, again.work) == (c.value, c.work)  # one search thread: the node count repeats
    c = settler.settle(3, 7, 5, strategies=False)  # 2.1 M nodes: past the budget, open, whatever the load
    assert c.value == "open" and "solver: no answer within 100,000 nodes" in c.notes
    assert budget.solver_text() == "100,000 nodes per solve"
    assert Budget(solver_seconds=5).solver_text() == "5 s per solve"
    with pytest.raises(KinarowError, match="solver_nodes must be a positive whole number"):
        Budget(solver_nodes=0)


SHIPPED_FOLDER = Path(__file__).resolve().parents[1] / "certificates"


def test_a_shipped_certificate_settles_its_cell_once_checked():
    settler = Settler(Budget(solver_nodes=1_000, cross_check_cells=0), cylinder=True, certificates=str(SHIPPED_FOLDER))
    c = settler.settle(3, 9, 3, strategies=False)  # the solver needs 15 M nodes: past this budget
    assert (c.value, c.methods, c.symbol()) == ("first", ["certificate"], "1K")
    assert c.how.startswith("certificate misere-cylinder-9x3k3.strategy.json.gz checked: in 9x3k3:gravity,misere,"
                            "cylinder, the first player (Black) wins against every reply")
    assert c.evidence == [{"kind": "shipped", "file": "misere-cylinder-9x3k3.strategy.json.gz", "value": "first"}]
    assert Settler(Budget(solver_nodes=1_000, cross_check_cells=0), cylinder=True).settle(
        3, 9, 3, strategies=False).value == "open"  # without the folder, the budget decides


@pytest.mark.parametrize(("tamper", "why"), [
    (lambda data: data.update(claim="second wins", winner="second"), "is rejected"),
    (lambda data: data.update(game="9x3k3:gravity,misere"), "is not for the empty board"),
    (lambda data: data.update(moves=["e1"]), "is not for the empty board"),
    (lambda data: data.update(walk=data["walk"][: len(data["walk"]) // 2]), "is rejected"),
    (None, "cannot be read"),
])
def test_a_shipped_certificate_counts_only_when_it_checks(tmp_path, tamper, why):
    import gzip
    import json

    name = SHIPPED["9x3k3:gravity,misere,cylinder"]
    if tamper is not None:
        data = json.loads(gzip.decompress((SHIPPED_FOLDER / name).read_bytes()))
        tamper(data)
        (tmp_path / name).write_bytes(gzip.compress(json.dumps(data).encode()))
    value, said = shipped_value(str(tmp_path), Game("9x3k3:gravity,misere,cylinder"))
    assert value is None and why in said, said
    c = Settler(Budget(solver_nodes=1_000, cross_check_cells=0), cylinder=True, certificates=str(tmp_path)).settle(
        3, 9, 3, strategies=False)
    assert c.value == "open" and any(why in n for n in c.notes), c.notes
