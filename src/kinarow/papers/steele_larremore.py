"""Misère Connect-k: the solved table, each value with how it is known.

A cell (k, width, height) of ``WxHkK:gravity,misere`` is settled by, in order:

1. verified strategies (:mod:`kinarow.strategies.verify`): a strategy that wins
   for one player settles the cell; two that draw-or-better, one per player,
   settle a draw; strategies that contradict each other (a win verified for
   both players, or a win for one and a draw-or-better for the other) settle
   nothing: the cell stays open and the conflict is reported; with
   ``Budget.invariants``, a strategy proven for a whole family by a checked
   invariant certificate (:mod:`kinarow.papers.misere_invariants`) counts as
   verified there, and is not walked exhaustively again (except on boards of
   at most ``cross_check_cells`` cells); a checked narrow-board certificate
   (:mod:`kinarow.proofs.narrow`) proves a draw when w < k;
2. the exact solver (boards of at most 64 cells), within a time budget;
3. otherwise the cell is ``open``: nothing here claims a value for it.

Budgets are explicit (positions per verification, seconds per solve). A
verification that ran out of budget on a board is not retried on boards that
are at least as wide and as tall (it could only need more positions).

Source of the published table: R. Steele and D.B. Larremore, "Misere Connect
Four is solved".
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from kinarow.game import Game
from kinarow.papers import Report, Tally
from kinarow.values import Outcome, Player, Value

PAPER = 'Steele & Larremore, "Misere Connect Four is solved"'
#: a cell's value, or ``open`` when nothing here settles it
CellValue = Value | Literal["open"]
SYMBOL: dict[CellValue, str] = {Value.FIRST: "1", Value.SECOND: "2", Value.DRAW: "=", "open": "?"}
SHORT = {
    "take-even": "T", "delayed-take-even": "D", "pair-row": "P", "tally": "Y", "canonical-boards": "C",
    "delayed-tally": "Z", "solver": "S", "invariant": "I", "narrow": "N",
}


def published(k: int, w: int, h: int) -> Value:
    """The paper's value of ``WxHkK:gravity,misere`` (first / second / draw)."""
    if k == 2:
        if h == 1:
            return Value.DRAW if w in (1, 2, 4, 6) else Value.SECOND
        return Value.DRAW if w == 1 else Value.SECOND
    if w < k or h == 1:
        return Value.DRAW
    if h % 2 == 0:
        return Value.SECOND
    return Value.FIRST if w % 2 == 1 else Value.SECOND


@dataclass
class Cell:
    """One board's value and how it is known."""

    k: int
    w: int
    h: int
    value: CellValue  # first / second / draw / open
    how: str  # e.g. "take-even (second) verified: win, 7,312 positions"
    methods: list[str] = field(default_factory=list)  # short method names that settled it
    work: int = 0  # positions verified + solver nodes
    seconds: float = 0.0
    published: Value | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def conflict(self) -> bool:
        """Did two of our own methods contradict each other on this board?"""
        return any(n.startswith("CONFLICT") for n in self.notes)

    @property
    def agrees(self) -> bool | None:
        if self.published is None or self.value == "open":
            return None
        return self.value == self.published

    def symbol(self) -> str:
        letters = "".join(SHORT.get(m, "?") for m in self.methods)
        mark = "!" if self.agrees is False else ""
        if self.conflict:
            mark += "X"
        return f"{SYMBOL[self.value]}{letters}{mark}"


@dataclass
class Budget:
    """How much work one cell may cost."""

    max_positions: int = 1_000_000
    solver_seconds: float = 2.0
    solver_cells: int = 64
    cross_check_cells: int = 24  # also solve boards this small when a strategy settled them
    invariants: bool = False  # use invariant certificates (strategies proven for whole families of boards)


class Settler:
    """Settles cells, remembering which boards ran out of budget so that larger ones are skipped."""

    def __init__(self, budget: Budget, *, cylinder: bool = False) -> None:
        self.budget = budget
        self.cylinder = cylinder
        self.too_big: dict[tuple[str, int, int], list[tuple[int, int]]] = {}

    def _skip(self, key: tuple[str, int, int], w: int, h: int) -> bool:
        return any(w0 <= w and h0 <= h and (h - h0) % 2 == 0 for w0, h0 in self.too_big.get(key, []))

    def game(self, k: int, w: int, h: int) -> Game:
        return Game(f"{w}x{h}k{k}:gravity,misere" + (",cylinder" if self.cylinder else ""))

    def settle(self, k: int, w: int, h: int, *, strategies: bool = True) -> Cell:
        from kinarow import strategies as S
        from kinarow.strategies.verify import verify

        game = self.game(k, w, h)
        cell = Cell(k, w, h, "open", "", published=None if self.cylinder else published(k, w, h))
        wins: dict[int, list[str]] = {1: [], 2: []}
        draws: dict[int, list[str]] = {1: [], 2: []}
        texts: list[str] = []
        by_invariant: set[tuple[str, int]] = set()
        walks = strategies
        if strategies and self.budget.invariants:
            by_invariant = self._invariants(k, w, h, self.cylinder, wins, texts)
            if self._narrow(k, w, h, draws, texts) and game.cells > self.budget.cross_check_cells:
                walks = False  # the draw is proven; walking the strategies would only repeat it
        for strategy, player in S.applicable(game) if walks else []:
            key = (strategy.name, player, k)
            who = Player.of(player)
            if (strategy.name, player) in by_invariant and game.cells > self.budget.cross_check_cells:
                continue
            if self._skip(key, w, h):
                cell.notes.append(f"{strategy.name} ({who}) not run: a smaller board exceeded the budget")
                continue
            v = verify(strategy, game, player, max_positions=self.budget.max_positions)
            cell.work += v.positions
            cell.seconds += v.seconds
            if v.outcome == Outcome.UNKNOWN:
                self.too_big.setdefault(key, []).append((w, h))
                cell.notes.append(f"{strategy.name} ({who}) exceeded {self.budget.max_positions:,} positions")
            elif v.outcome == Outcome.FAILS:
                cell.notes.append(f"{strategy.name} ({who}) fails: {v.counterexample or 'at once'}")
            else:
                (wins if v.outcome == Outcome.WIN else draws)[player].append(strategy.name)
                texts.append(f"{strategy.name} ({who}) verified: {v.outcome}, {v.positions:,} positions")
        conflict = [f"{', '.join(wins[p])} verified a win for the {Player.of(p)} player, but "
                    f"{', '.join(wins[3 - p] + draws[3 - p])} verified draw-or-better for the {Player.of(3 - p)}"
                    for p in (1, 2) if wins[p] and (wins[3 - p] or draws[3 - p])]
        if conflict:  # two verified strategies contradict each other: a bug somewhere; claim nothing
            cell.notes.append("CONFLICT: " + conflict[0])
            cell.how = "; ".join(texts) + " (CONFLICT: nothing claimed)"
            return cell
        for player in (1, 2):
            if wins[player]:
                cell.value = Value.win(game.goal, player)
                cell.methods = wins[player]
        if cell.value == "open" and (wins[1] or draws[1]) and (wins[2] or draws[2]):
            cell.value = Value.DRAW
            cell.methods = draws[1] + [s for s in draws[2] if s not in draws[1]]
        if cell.value != "open":
            cell.how = "; ".join(texts)
        need_solver = cell.value == "open" or game.cells <= self.budget.cross_check_cells
        if need_solver and game.cells <= self.budget.solver_cells and not self._skip(("solver", 0, k), w, h):
            self._solve(cell, game)
        return cell

    @staticmethod
    def _invariants(k: int, w: int, h: int, cylinder: bool, wins: dict[int, list[str]],
                    texts: list[str]) -> set[tuple[str, int]]:
        """Record the checked invariant certificates whose family holds the board; the (strategy, player) pairs."""
        from kinarow.papers.misere_invariants import proven

        done: set[tuple[str, int]] = set()
        for cert, verdict in proven(k, w, h, cylinder):
            player = 2 if cert.player == Player.SECOND else 1
            if "invariant" not in wins[player]:
                wins[player].append("invariant")
            done.add((cert.strategy, player))
            texts.append(f"{cert.strategy} ({cert.player}) proven by an invariant certificate for every "
                         f"{cert.family} ({verdict.details['windows']:,} windows checked)")
        return done

    def _narrow(self, k: int, w: int, h: int, draws: dict[int, list[str]], texts: list[str]) -> bool:
        """Record a checked narrow-board draw certificate (w < k) as a draw for both players; whether one holds."""
        from kinarow.papers.misere_invariants import narrow_draw

        found = narrow_draw(k, w, h, self.cylinder)
        if found is not None:
            draws[1].append("narrow")
            draws[2].append("narrow")
            texts.append(f"draw for both players by a narrow-board certificate: {found[0].claim}")
        return found is not None

    def _solve(self, cell: Cell, game: Game) -> None:
        from kinarow.search.solve import solve

        result = solve(game, time_limit=self.budget.solver_seconds)
        if result.stopped == "interrupted":  # Ctrl-C: the search caught it; stop the table, not just this board
            raise KeyboardInterrupt
        cell.work += result.nodes
        cell.seconds += result.seconds
        if result.value == Value.UNKNOWN:
            self.too_big.setdefault(("solver", 0, cell.k), []).append((cell.w, cell.h))
            cell.notes.append(f"solver: no answer within {self.budget.solver_seconds:g} s")
            return
        assert isinstance(result.value, Value)  # one process's search: a value, never a one-sided bound
        text = f"solver: {result.value}, {result.nodes:,} nodes"
        if cell.value == "open":
            cell.value = result.value
            cell.methods = ["solver"]
            cell.how = text
        elif cell.value == result.value:
            cell.methods.append("solver")
            cell.how += f"; {text}"
        else:  # a verified strategy and the solver disagree: a bug somewhere, never hidden
            cell.notes.append(f"CONFLICT: {text}, but the strategies say {cell.value}")
            cell.how += f"; {text} (CONFLICT)"


def table(
    ks: Iterable[int],
    widths: Iterable[int],
    heights: Iterable[int],
    budget: Budget | None = None,
    *,
    cylinder: bool = False,
    strategies: bool = True,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
) -> list[Cell]:
    """Settle every (k, w, h) cell, smallest boards first; ``workers`` processes settle cells side by side.

    A cell waits for the cells it may skip work after (the same k, no wider, no
    taller, heights of the same parity), so any number of workers gives the
    same cells as one.
    """
    from kinarow.search.pool import run_cells

    settler = Settler(budget or Budget(), cylinder=cylinder)
    jobs = [(k, w, h) for k in ks for h in heights for w in widths]
    jobs.sort(key=lambda j: (j[0], j[1] * j[2], j[1]))
    cells: list[Cell] = []

    def prepare(i: int) -> _Job:
        k, w, h = jobs[i]
        too_big = {key: list(boards) for key, boards in settler.too_big.items() if key[2] == k}
        return _Job(settler.budget, cylinder, strategies, too_big, k, w, h)

    def finish(i: int, done: tuple[Cell, dict[tuple[str, int, int], list[tuple[int, int]]]]) -> None:
        cell, too_big = done
        for key, boards in too_big.items():
            settler.too_big.setdefault(key, []).extend(boards)
        cells.append(cell)
        if progress is not None:
            progress(len(cells), len(jobs))

    def after(i: int) -> list[int]:
        k, w, h = jobs[i]
        return [j for j, (k0, w0, h0) in enumerate(jobs[:i]) if k0 == k and w0 <= w and h0 <= h and (h - h0) % 2 == 0]

    run_cells(_settle_job, len(jobs), prepare, finish, after=after, workers=workers)
    cells.sort(key=lambda c: (c.k, c.h, c.w))
    return cells


@dataclass(frozen=True)
class _Job:
    """One cell to settle, with what smaller boards of the same k found too big (for a worker process)."""

    budget: Budget
    cylinder: bool
    strategies: bool
    too_big: dict[tuple[str, int, int], list[tuple[int, int]]]
    k: int
    w: int
    h: int


def _settle_job(job: _Job) -> tuple[Cell, dict[tuple[str, int, int], list[tuple[int, int]]]]:
    """Settle one cell; return it and the boards it found too big (to skip on larger ones)."""
    settler = Settler(job.budget, cylinder=job.cylinder)
    settler.too_big = {key: list(boards) for key, boards in job.too_big.items()}
    cell = settler.settle(job.k, job.w, job.h, strategies=job.strategies)
    added = {key: boards[len(job.too_big.get(key, [])):] for key, boards in settler.too_big.items()}
    return cell, {key: boards for key, boards in added.items() if boards}


def grid_text(cells: list[Cell], k: int, widths: list[int], heights: list[int]) -> str:
    """One k's cells as a grid: rows are heights (tallest on top), columns widths."""
    by = {(c.w, c.h): c for c in cells if c.k == k}
    col = max([len(by[(w, h)].symbol()) for w in widths for h in heights if (w, h) in by] + [3]) + 1
    lines = ["h\\w " + "".join(str(w).rjust(col) for w in widths)]
    for h in sorted(heights, reverse=True):
        row = "".join((by[(w, h)].symbol() if (w, h) in by else "").rjust(col) for w in widths)
        lines.append(f"{h:>3} " + row)
    return "\n".join(lines)


LEGEND = (
    "value: 1 first player wins, 2 second player wins, = draw, ? open (not settled here);\n"
    "how: T take-even, D delayed-take-even, P pair-row, Y tally, C canonical-boards, Z delayed-tally\n"
    "(each verified exhaustively against every reply), I invariant certificate (a strategy proven for a whole\n"
    "family of boards), N narrow board (w < k: each player covers the other), S exact solver;\n"
    "! differs from the paper; X our own methods conflict (the cell is left open and the conflict listed)."
)


class _Progress:
    """A rich progress bar on stderr when it is a terminal."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> Callable[[int, int], None] | None:
        if not sys.stderr.isatty():
            return None
        from rich.progress import MofNCompleteColumn, Progress

        self.bar = Progress(*Progress.get_default_columns(), MofNCompleteColumn(), transient=True)
        self.bar.start()
        self.task = self.bar.add_task(self.label, total=None)

        def tick(done: int, total: int) -> None:
            self.bar.update(self.task, completed=done, total=total)

        return tick

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def reproduce_table(
    ks: tuple[int, ...] = (2, 3, 4, 5, 6),
    widths: tuple[int, ...] = tuple(range(1, 13)),
    heights: tuple[int, ...] = tuple(range(1, 13)),
    budget: Budget | None = None,
    workers: int = 1,
) -> Report:
    """``kinarow reproduce misere-table``: the paper's table, cell by cell, with how each value is known."""
    budget = budget or Budget(invariants=True)
    start = time.perf_counter()
    with _Progress("misere table") as tick:
        cells = table(ks, widths, heights, budget, progress=tick, workers=workers)
    seconds = time.perf_counter() - start
    differences = [
        f"k={c.k} {c.w}x{c.h}: we find {c.value} ({c.how}); the paper says {c.published}"
        for c in cells
        if c.agrees is False
    ]
    differences += [f"k={c.k} {c.w}x{c.h}: {n}" for c in cells for n in c.notes if n.startswith("CONFLICT")]
    c4 = _connect_four()
    if c4["outcome"] != "win" or c4["longest"] > 37:
        differences.append(f"misere Connect Four: take-even gives {c4['outcome']}, longest game {c4['longest']}")
    settled = [c for c in cells if c.value != "open"]
    conflicts = sum(c.conflict for c in cells)
    agree = sum(c.agrees is True for c in cells)
    differ = sum(c.agrees is False for c in cells)
    c4_agrees = c4["outcome"] == "win" and c4["longest"] <= 37
    tally = Tally(agree=agree + c4_agrees, differ=differ + (not c4_agrees), open=len(cells) - len(settled),
                  conflicts=conflicts)
    lines = [
        f"Misere Connect-k, {PAPER}: k = {min(ks)}..{max(ks)}, widths {min(widths)}..{max(widths)}, "
        f"heights {min(heights)}..{max(heights)}",
        f"budget: {budget.max_positions:,} positions per verification, {budget.solver_seconds:g} s per solve "
        f"(boards of at most {budget.solver_cells} cells)",
        LEGEND,
        "",
    ]
    for k in ks:
        lines += [f"k = {k}", grid_text(cells, k, list(widths), list(heights)), ""]
    lines.append(
        f"settled {len(settled)} of {len(cells)} cells ({agree} agree with the paper, {differ} differ); "
        f"open: {len(cells) - len(settled)} (of them {conflicts} with conflicting strategies); {seconds:.1f} s"
    )
    lines.append(
        f"Misere Connect Four 7x6k4: take-even {c4['outcome']} for the second player, "
        f"{c4['positions']:,} positions; the first player loses by stone {c4['longest']} at the latest "
        "(paper: on or before move 37)."
    )
    data = {
        "paper": PAPER,
        "budget": asdict(budget),
        "seconds": round(seconds, 3),
        "cells": [
            {**asdict(c), "agrees": c.agrees, "conflict": c.conflict} for c in cells
        ],
        "connect_four": c4,
    }
    return Report("misere-table", data, "\n".join(lines), not differences, differences, tally)


def _connect_four() -> dict[str, Any]:
    from kinarow.strategies.verify import verify

    v = verify("take-even", "7x6k4:gravity,misere")
    return {"outcome": v.outcome, "positions": v.positions, "longest": v.longest}


def reproduce_cylinder(
    ks: tuple[int, ...] = (2, 3, 4, 5, 6),
    widths: tuple[int, ...] = tuple(range(1, 13)),
    heights: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7),
    budget: Budget | None = None,
    workers: int = 1,
) -> Report:
    """``kinarow reproduce misere-cylinder``: the open problem, every cylinder we can settle exactly."""
    budget = budget or Budget(solver_seconds=5.0, invariants=True)
    start = time.perf_counter()
    with _Progress("misere cylinders") as tick:
        cells = table(ks, widths, heights, budget, cylinder=True, progress=tick, workers=workers)
    seconds = time.perf_counter() - start
    conflicts = [f"k={c.k} {c.w}x{c.h}: {n}" for c in cells for n in c.notes if n.startswith("CONFLICT")]
    lines = [
        "Misere Connect-k on cylinders (columns wrap), the open problem left by " + PAPER,
        f"budget: {budget.max_positions:,} positions per verification, {budget.solver_seconds:g} s per solve "
        f"(boards of at most {budget.solver_cells} cells)",
        LEGEND,
        "",
    ]
    for k in ks:
        lines += [f"k = {k} (cylinder)", grid_text(cells, k, list(widths), list(heights)), ""]
    settled = sum(c.value != "open" for c in cells)
    lines.append(f"settled {settled} of {len(cells)} cylinders, open {len(cells) - settled} "
                 f"(of them {len(conflicts)} with conflicting methods); {seconds:.1f} s")
    lines += ["", "Odd heights (the open problem), every settled cylinder with w >= k, and how it is known:", ""]
    lines.append("| k | w x h | value | how |")
    lines.append("|---|---|---|---|")
    for c in cells:
        if c.h % 2 == 1 and c.w >= c.k and c.value != "open":
            lines.append(f"| {c.k} | {c.w}x{c.h} | {c.value} | {c.how} |")
    still_open = [f"{c.w}x{c.h}k{c.k}" for c in cells if c.h % 2 == 1 and c.value == "open"]
    lines += ["", f"open (odd heights): {', '.join(still_open) or 'none'}"]
    lines.append(
        "The paper gives no cylinder values, so nothing is compared with it here; the report agrees "
        "when no verified strategy contradicts the solver on a board both settled."
    )
    data = {
        "paper": PAPER,
        "budget": asdict(budget),
        "seconds": round(seconds, 3),
        "cells": [{**asdict(c), "agrees": None, "conflict": c.conflict} for c in cells],
    }
    return Report("misere-cylinder", data, "\n".join(lines), not conflicts, conflicts,
                  Tally(conflicts=len(conflicts)))


def reproduce_solver(
    ks: tuple[int, ...] = (2, 3, 4, 5, 6),
    widths: tuple[int, ...] = tuple(range(1, 13)),
    heights: tuple[int, ...] = tuple(range(1, 13)),
    budget: Budget | None = None,
    workers: int = 1,
) -> Report:
    """``kinarow reproduce misere-solver``: the exact solver alone on every board it solves within its budget."""
    budget = budget or Budget(solver_seconds=5.0)
    start = time.perf_counter()
    with _Progress("misere solver") as tick:
        cells = table(ks, widths, heights, budget, strategies=False, progress=tick, workers=workers)
        rings = table(ks, widths, (1, 3, 5), budget, cylinder=True, strategies=False, progress=tick, workers=workers)
    seconds = time.perf_counter() - start
    differences = [
        f"k={c.k} {c.w}x{c.h}: the solver finds {c.value} ({c.how}); the paper says {c.published}"
        for c in cells
        if c.agrees is False
    ]
    solved = [c for c in cells if c.value != "open"]
    tally = Tally(agree=sum(c.agrees is True for c in cells), differ=sum(c.agrees is False for c in cells),
                  open=len(cells) - len(solved))
    lines = [
        f"Misere Connect-k by the exact solver alone ({PAPER}), at most {budget.solver_cells} cells, "
        f"{budget.solver_seconds:g} s per board",
        LEGEND,
        "",
    ]
    for k in ks:
        lines += [f"k = {k}", grid_text(cells, k, list(widths), list(heights)), ""]
    lines.append(
        f"solved {len(solved)} of {len(cells)} boards; {sum(c.agrees is True for c in cells)} agree with the paper, "
        f"{len(differences)} differ"
    )
    lines += ["", "Cylinders of height 1, 3 and 5 by the solver alone:", ""]
    for k in ks:
        lines += [f"k = {k} (cylinder)", grid_text(rings, k, list(widths), [1, 3, 5]), ""]
    lines.append(f"{seconds:.1f} s")
    data = {
        "paper": PAPER,
        "budget": asdict(budget),
        "seconds": round(seconds, 3),
        "cells": [{**asdict(c), "agrees": c.agrees} for c in cells],
        "cylinders": [{**asdict(c), "agrees": None} for c in rings],
    }
    return Report("misere-solver", data, "\n".join(lines), not differences, differences, tally)
