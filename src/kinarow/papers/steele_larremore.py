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
2. a certificate shipped for the board (:data:`SHIPPED`: a search too long for the table's budget, run once and
   kept in ``certificates/``), when a folder of them is given: counted only after its checker has accepted it
   and its game and claim are the board's;
3. the exact solver (boards of at most 128 cells: one word up to 64, two past it), within a node or time budget;
4. otherwise the cell is ``open``: nothing here claims a value for it.

Budgets are explicit (positions per verification, nodes or seconds per solve). A
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

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.papers import Report, Tally, checked_shipped, shipped_data
from kinarow.proofs import Verdict
from kinarow.proofs.invariant import InvariantCertificate
from kinarow.values import Outcome, Player, Value

PAPER = 'Steele & Larremore, "Misere Connect Four is solved"'
#: a cell's value, or ``open`` when nothing here settles it
CellValue = Value | Literal["open"]
SYMBOL: dict[CellValue, str] = {Value.FIRST: "1", Value.SECOND: "2", Value.DRAW: "=", "open": "?"}
SHORT = {
    "take-even": "T", "delayed-take-even": "D", "pair-row": "P", "tally": "Y", "canonical-boards": "C",
    "delayed-tally": "Z", "solver": "S", "invariant": "I", "narrow": "N", "certificate": "K",
    "half-turn": "H",
}
#: boards settled by a certificate shipped in ``certificates/`` (the search that wrote it needs more than the table's
#: node budget): the game and the file's name; ``certificates/README.md`` gives the command that reproduces each
SHIPPED: dict[str, str] = {
    "9x3k3:gravity,misere,cylinder": "misere-cylinder-9x3k3.strategy.json.gz",
    "11x3k3:gravity,misere,cylinder": "misere-cylinder-11x3k3.strategy.json.gz",
    "7x7k3:gravity,misere,cylinder": "misere-cylinder-7x7k3.strategy.json.gz",
    "9x5k3:gravity,misere,cylinder": "misere-cylinder-9x5k3.strategy.json.gz",
}


def shipped_value(folder: str, game: Game) -> tuple[Value | None, str]:
    """The value that the certificate shipped for ``game`` in ``folder`` proves, with what the checker said; or
    (None, why not): no certificate is shipped for the game, or :func:`kinarow.papers.checked_shipped` refuses it."""
    name = SHIPPED.get(str(game))
    if name is None:
        return None, f"no certificate is shipped for {game}"
    return checked_shipped(folder, name, game)


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
    #: what settled the value, one entry per certificate (kind: invariant, narrow, verified or solver; with the
    #: strategy, player, outcome and positions where they apply), for ``--proof DIR``
    evidence: list[dict[str, Any]] = field(default_factory=list)

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
    """How much work one cell may cost.

    The solver's budget is seconds (``solver_seconds``, ``cross_check_seconds``) unless a node budget is given
    (``solver_nodes``, ``cross_check_nodes``): then the seconds are not used, and which cells the solver settles
    does not depend on the machine's speed or load (one search thread, so the node counts repeat).
    """

    max_positions: int = 1_000_000
    solver_seconds: float = 2.0
    solver_cells: int = 128  # the alpha-beta kernel: one word a board up to 64 cells, two up to 128
    cross_check_cells: int = 24  # also solve boards this small when a strategy settled them
    cross_check_seconds: float = 0.5  # the solver's time on a board a strategy settled (only a second opinion)
    invariants: bool = False  # use invariant certificates (strategies proven for whole families of boards)
    solver_nodes: int | None = None  # nodes per solve, instead of solver_seconds
    cross_check_nodes: int | None = None  # nodes of the second opinion, instead of cross_check_seconds

    def __post_init__(self) -> None:
        from kinarow.limits import check_count

        for name in ("solver_nodes", "cross_check_nodes"):
            check_count(getattr(self, name), name)  # a whole number of at least 1, or None: one sentence

    def solver_text(self) -> str:
        """The solver's budget in words, e.g. ``5 s per solve`` or ``4,000,000 nodes per solve``."""
        if self.solver_nodes is not None:
            return f"{self.solver_nodes:,} nodes per solve"
        return f"{self.solver_seconds:g} s per solve"


class Settler:
    """Settles cells, remembering which boards ran out of budget so that larger ones are skipped."""

    def __init__(self, budget: Budget, *, cylinder: bool = False,
                 families: list[tuple[InvariantCertificate, Verdict]] | None = None,
                 certificates: str | None = None) -> None:
        self.budget = budget
        self.cylinder = cylinder
        self.families = families  # the checked invariant certificates to use (None: check them here)
        self.certificates = certificates  # the folder of shipped certificates (SHIPPED), or None
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
        proofs: dict[tuple[str, int], list[dict[str, Any]]] = {}
        by_invariant: set[tuple[str, int]] = set()
        walks = strategies
        if strategies and self.budget.invariants:
            by_invariant = self._invariants(k, w, h, wins, texts, proofs)
            if self._narrow(k, w, h, draws, texts, proofs) and game.cells > self.budget.cross_check_cells:
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
                proofs[(strategy.name, player)] = [{"kind": "verified", "strategy": strategy.name, "player": who,
                                                    "outcome": str(v.outcome), "positions": v.positions}]
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
                cell.evidence = [e for m in wins[player] for e in proofs.get((m, player), [])]
        if cell.value == "open" and (wins[1] or draws[1]) and (wins[2] or draws[2]):
            cell.value = Value.DRAW
            cell.methods = draws[1] + [s for s in draws[2] if s not in draws[1]]
            cell.evidence = [e for p in (1, 2) for m in draws[p] for e in proofs.get((m, p), [])]
        if cell.value != "open":
            cell.how = "; ".join(texts)
        if cell.value == "open" and self.certificates is not None and str(game) in SHIPPED:
            self._shipped(cell, game)
        if cell.value == "open":
            if game.cells <= self.budget.solver_cells and not self._skip(("solver", 0, k), w, h):
                self._solve(cell, game, self.budget.solver_seconds, self.budget.solver_nodes, ("solver", 0, k))
        elif game.cells <= self.budget.cross_check_cells and not self._skip(("cross-check", 0, k), w, h):
            self._solve(cell, game, self.budget.cross_check_seconds, self.budget.cross_check_nodes,
                        ("cross-check", 0, k))
        return cell

    def _invariants(self, k: int, w: int, h: int, wins: dict[int, list[str]], texts: list[str],
                    proofs: dict[tuple[str, int], list[dict[str, Any]]]) -> set[tuple[str, int]]:
        """Record the checked invariant certificates whose family holds the board; the (strategy, player) pairs."""
        from kinarow.papers.misere_invariants import proven

        done: set[tuple[str, int]] = set()
        families = proven(k, w, h, self.cylinder) if self.families is None else [
            (cert, verdict) for cert, verdict in self.families
            if verdict.ok and cert.covers(k, w, h, self.cylinder)]
        for cert, verdict in families:
            player = 2 if cert.player == Player.SECOND else 1
            if "invariant" not in wins[player]:
                wins[player].append("invariant")
            done.add((cert.strategy, player))
            proofs.setdefault(("invariant", player), []).append(
                {"kind": "invariant", "strategy": cert.strategy, "player": str(cert.player), "family": cert.family})
            texts.append(f"{cert.strategy} ({cert.player}) proven by an invariant certificate for every "
                         f"{cert.family} ({verdict.details['windows']:,} windows checked)")
        return done

    def _narrow(self, k: int, w: int, h: int, draws: dict[int, list[str]], texts: list[str],
                proofs: dict[tuple[str, int], list[dict[str, Any]]]) -> bool:
        """Record a checked narrow-board draw certificate (w < k) as a draw for both players; whether one holds."""
        from kinarow.papers.misere_invariants import narrow_draw

        found = narrow_draw(k, w, h, self.cylinder)
        if found is not None:
            draws[1].append("narrow")
            draws[2].append("narrow")
            proofs[("narrow", 1)] = [{"kind": "narrow", "family": found[0].family}]
            texts.append(f"draw for both players by a narrow-board certificate: {found[0].claim}")
        return found is not None

    def _shipped(self, cell: Cell, game: Game) -> None:
        """Settle the cell by its shipped certificate when the checker accepts it (else a note says why not)."""
        assert self.certificates is not None
        start = time.perf_counter()
        value, said = shipped_value(self.certificates, game)
        cell.seconds += time.perf_counter() - start
        name = SHIPPED[str(game)]
        if value is None:
            cell.notes.append(said)
            return
        cell.value = value
        cell.methods = ["certificate"]
        cell.how = f"certificate {name} checked: {said}"
        cell.evidence = [{"kind": "shipped", "file": name, "value": str(value)}]

    def _solve(self, cell: Cell, game: Game, seconds: float, nodes: int | None, key: tuple[str, int, int]) -> None:
        """Solve the board within ``nodes`` nodes when given (one thread: the same answer on any machine), else
        within ``seconds``."""
        from kinarow.search.solve import solve

        limit: dict[str, Any] = {"max_nodes": nodes, "threads": 1} if nodes is not None else {"time_limit": seconds}
        result = solve(game, **limit)
        if result.stopped == "interrupted":  # Ctrl-C: the search caught it; stop the table, not just this board
            raise KeyboardInterrupt
        cell.work += result.nodes
        cell.seconds += result.seconds
        if result.value == Value.UNKNOWN:
            self.too_big.setdefault(key, []).append((cell.w, cell.h))
            cell.notes.append(f"solver: no answer within {nodes:,} nodes" if nodes is not None
                              else f"solver: no answer within {seconds:g} s")
            return
        assert isinstance(result.value, Value)  # one process's search: a value, never a one-sided bound
        text = f"solver: {result.value}, {result.nodes:,} nodes"
        if cell.value == "open":
            cell.value = result.value
            cell.methods = ["solver"]
            cell.how = text
            cell.evidence = [{"kind": "solver", "value": str(result.value), "nodes": result.nodes}]
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
    families: list[tuple[InvariantCertificate, Verdict]] | None = None,
    shipped: str | None = None,
) -> list[Cell]:
    """Settle every (k, w, h) cell, smallest boards first; ``workers`` processes settle cells side by side.

    ``shipped`` is the folder of shipped certificates (:data:`SHIPPED`); a board that has one there is
    settled by it once its checker accepts it.

    With ``budget.invariants`` the invariant certificates of the table's k are
    checked first, each once, as jobs of the same pool (a cell waits for the
    checks of the families that hold it); ``families``, if given, receives
    every certificate with its verdict. A cell waits for the cells it may skip
    work after (the same k, no wider, no taller, heights of the same parity),
    so any number of workers gives the same cells as one.
    """
    from kinarow.engine.pool import run_cells
    from kinarow.papers.misere_invariants import certificates

    settler = Settler(budget or Budget(), cylinder=cylinder, certificates=shipped)
    ks = list(ks)
    certs = [c for k in ks for c in certificates(k, cylinder)] if strategies and settler.budget.invariants else []
    verdicts: dict[int, Verdict] = {}
    boards = [(k, w, h) for k in ks for h in heights for w in widths]
    boards.sort(key=lambda j: (j[0], j[1] * j[2], j[1]))
    jobs: list[tuple[int, int, int] | InvariantCertificate] = [*certs, *boards]
    cells: list[Cell] = []

    def prepare(i: int) -> _Job | InvariantCertificate:
        job = jobs[i]
        if isinstance(job, InvariantCertificate):
            return job
        k, w, h = job
        too_big = {key: list(found) for key, found in settler.too_big.items() if key[2] == k}
        checked = [(certs[j], verdicts[j]) for j in verdicts if certs[j].covers(k, w, h, cylinder)]
        return _Job(settler.budget, cylinder, strategies, too_big, k, w, h, checked, shipped)

    def finish(i: int, done: Any) -> None:
        if isinstance(done, Verdict):
            verdicts[i] = done
            return
        cell, too_big = done
        for key, found in too_big.items():
            settler.too_big.setdefault(key, []).extend(found)
        cells.append(cell)
        if progress is not None:
            progress(len(cells), len(boards))

    def after(i: int) -> list[int]:
        job = jobs[i]
        if isinstance(job, InvariantCertificate):
            return []
        k, w, h = job
        first = [j for j, cert in enumerate(certs) if cert.covers(k, w, h, cylinder)]
        return first + [len(certs) + j for j, (k0, w0, h0) in enumerate(boards[:i - len(certs)])
                        if k0 == k and w0 <= w and h0 <= h and (h - h0) % 2 == 0]

    run_cells(_table_job, len(jobs), prepare, finish, after=after, workers=workers)
    if families is not None:
        families.extend((cert, verdicts[j]) for j, cert in enumerate(certs))
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
    families: list[tuple[InvariantCertificate, Verdict]]  # the checked invariant certificates holding the board
    certificates: str | None = None  # the folder of shipped certificates


def _table_job(job: _Job | InvariantCertificate) -> Any:
    """A table's job: check an invariant certificate (its verdict), or settle one cell (:func:`_settle_job`)."""
    if isinstance(job, InvariantCertificate):
        from kinarow.proofs import check_data

        start = time.perf_counter()
        verdict = check_data(job.to_json())
        verdict.details["seconds"] = round(time.perf_counter() - start, 3)
        return verdict
    return _settle_job(job)


def family_lines(families: list[tuple[InvariantCertificate, Verdict]]) -> list[str]:
    """One line per invariant certificate the table checked: its claim, and the checker's verdict."""
    lines = []
    for cert, verdict in families:
        seconds = verdict.details.get("seconds", 0.0)
        if verdict.ok:
            lines.append(f"  proven ({seconds:.1f} s, {verdict.details.get('windows', 0):,} windows, "
                         f"{verdict.details.get('small_positions', 0):,} small-board positions): {cert.claim}")
        else:
            lines.append(f"  rejected ({seconds:.1f} s): {cert.claim}: {verdict.reason}")
    return lines


def _file_name(*parts: object) -> str:
    return "-".join(str(p) for p in parts).replace(" ", "") + ".json"


def _read_shipped(folder: str | None, name: str) -> dict[str, Any]:
    if folder is None:
        raise KinarowError(f"the shipped certificate {name} is named, but no folder of certificates was given")
    data: dict[str, Any] = shipped_data(folder, name)
    return data


def write_proofs(cells: list[Cell], families: list[tuple[InvariantCertificate, Verdict]], directory: str,
                 cylinder: bool = False, shipped: str | None = None) -> int:
    """Write every settled cell's certificates under ``directory`` and an ``index.json`` naming them; the number
    of files written.

    ``families/``: each proven invariant certificate and each narrow-board one,
    written once and named by every cell they hold; ``cells/``: a verified-strategy
    certificate per cell a strategy was walked on, the solver's certificate
    for a cell only the solver settled, and a copy of the certificate shipped in
    the folder ``shipped`` for a cell it settled. ``kinarow check FILE`` checks any of them.
    """
    import json
    from pathlib import Path

    from kinarow.papers.misere_invariants import narrow_draw
    from kinarow.proofs.verified import VerifiedStrategy
    from kinarow.search.solve import solve

    root = Path(directory)
    try:
        (root / "families").mkdir(parents=True, exist_ok=True)
        (root / "cells").mkdir(exist_ok=True)
    except OSError as error:
        from kinarow.errors import KinarowError

        raise KinarowError(f"cannot make the proof folder '{directory}': {error.strerror or error}") from None
    written: dict[str, dict[str, Any]] = {}
    proven = {(c.k, c.strategy, str(c.player)): c for c, v in families if v.ok}
    flag = "-cylinder" if cylinder else ""
    index = []
    for cell in cells:
        game = f"{cell.w}x{cell.h}k{cell.k}:gravity,misere" + (",cylinder" if cylinder else "")
        files: list[str] = []
        for e in cell.evidence:
            if e["kind"] == "invariant":
                name = "families/" + _file_name(e["strategy"], e["player"], f"k{cell.k}{flag}")
                data = proven[(cell.k, e["strategy"], e["player"])].to_json()
            elif e["kind"] == "narrow":
                found = narrow_draw(cell.k, cell.w, cell.h, cylinder)
                assert found is not None
                name, data = "families/" + _file_name("narrow", f"k{cell.k}"), found[0].to_json()
            elif e["kind"] == "verified":
                name = "cells/" + _file_name(f"k{cell.k}", f"{cell.w}x{cell.h}", e["strategy"], e["player"])
                data = VerifiedStrategy(e["strategy"], game, Player(e["player"]), Outcome(e["outcome"]),
                                        e["positions"]).to_json()
            elif e["kind"] == "shipped":  # checked when the cell was settled
                name = "cells/" + _file_name(f"k{cell.k}", f"{cell.w}x{cell.h}", "certificate")
                data = _read_shipped(shipped, e["file"])
            else:  # the solver alone: its certificate of the value
                proof = solve(game, proof=True, strategy=True).proof
                if proof is None or proof.data is None:
                    continue
                name, data = "cells/" + _file_name(f"k{cell.k}", f"{cell.w}x{cell.h}", "solver"), proof.data
            written[name] = data
            files.append(name)
        index.append({"k": cell.k, "w": cell.w, "h": cell.h, "value": cell.value, "how": cell.how,
                      "certificates": files})
    try:
        for name, data in written.items():
            (root / name).write_text(json.dumps(data) + "\n", encoding="utf-8")
        (root / "index.json").write_text(json.dumps({"cylinder": cylinder, "cells": index}, indent=1) + "\n",
                                         encoding="utf-8")
    except OSError as error:
        from kinarow.errors import KinarowError

        raise KinarowError(f"cannot write the certificates to '{directory}': {error.strerror or error}") from None
    return len(written) + 1


def _settle_job(job: _Job) -> tuple[Cell, dict[tuple[str, int, int], list[tuple[int, int]]]]:
    """Settle one cell; return it and the boards it found too big (to skip on larger ones)."""
    settler = Settler(job.budget, cylinder=job.cylinder, families=job.families, certificates=job.certificates)
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
    proof: str | None = None,
) -> Report:
    """``kinarow reproduce misere-table``: the paper's table, cell by cell, with how each value is known; with
    ``proof``, every settled cell's certificates written to that folder (:func:`write_proofs`)."""
    budget = budget or Budget(invariants=True)
    start = time.perf_counter()
    families: list[tuple[InvariantCertificate, Verdict]] = []
    with _Progress("misere table") as tick:
        cells = table(ks, widths, heights, budget, progress=tick, workers=workers, families=families)
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
        f"budget: {budget.max_positions:,} positions per verification, {budget.solver_text()} "
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
    if families:
        lines += ["", "Invariant certificates, each checked once for its whole family of boards:",
                  *family_lines(families)]
    if proof is not None:
        files = write_proofs(cells, families, proof)
        lines.append(f"Certificates of every settled cell: {files} files in {proof} (index.json names each cell's; "
                     "check one with 'kinarow check FILE').")
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
        "families": [{"claim": c.claim, "ok": v.ok, "reason": v.reason, "details": v.details} for c, v in families],
    }
    return Report("misere-table", data, "\n".join(lines), not differences, differences, tally)


def _connect_four() -> dict[str, Any]:
    from kinarow.strategies.verify import verify

    v = verify("take-even", "7x6k4:gravity,misere")
    return {"outcome": v.outcome, "positions": v.positions, "longest": v.longest}


#: ``kinarow reproduce misere-cylinder``'s budget: 6,000,000 positions per verification (delayed take-even's walk of
#: the 11x5k6 cylinder has 5,251,785; the 11x7k6 one more than 60 M), 20,000,000 nodes per solve (the 5x7k6 cylinder,
#: a draw, needs 14,764,826) and 500,000 for the second opinion on boards of at most 24 cells: counts, not seconds
CYLINDER_BUDGET = Budget(max_positions=6_000_000, solver_nodes=20_000_000, cross_check_nodes=500_000, invariants=True)


def _in_table(game: str, ks: Iterable[int], widths: Iterable[int], heights: Iterable[int]) -> bool:
    g = Game(game)
    return g.k in ks and g.m in widths and g.n in heights


def reproduce_cylinder(
    ks: tuple[int, ...] = (2, 3, 4, 5, 6),
    widths: tuple[int, ...] = tuple(range(1, 13)),
    heights: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7),
    budget: Budget | None = None,
    workers: int = 1,
    proof: str | None = None,
    certificates: str | None = None,
) -> Report:
    """``kinarow reproduce misere-cylinder``: the open problem, every cylinder we can settle exactly; with
    ``proof``, every settled cell's certificates written to that folder (:func:`write_proofs`); with
    ``certificates``, the folder of shipped certificates (:data:`SHIPPED`), each counted once its checker
    accepts it.

    The default budget is in nodes (:data:`CYLINDER_BUDGET`), so the cells settled do not depend on the
    machine's speed or load."""
    budget = budget or CYLINDER_BUDGET
    start = time.perf_counter()
    families: list[tuple[InvariantCertificate, Verdict]] = []
    with _Progress("misere cylinders") as tick:
        cells = table(ks, widths, heights, budget, cylinder=True, progress=tick, workers=workers, families=families,
                      shipped=certificates)
    seconds = time.perf_counter() - start
    conflicts = [f"k={c.k} {c.w}x{c.h}: {n}" for c in cells for n in c.notes if n.startswith("CONFLICT")]
    lines = [
        "Misere Connect-k on cylinders (columns wrap), the open problem left by " + PAPER,
        f"budget: {budget.max_positions:,} positions per verification, {budget.solver_text()} "
        f"(boards of at most {budget.solver_cells} cells)",
        LEGEND,
        "H half-turn (the second player answers in the column half a turn round; verified exhaustively), K a "
        "certificate shipped in certificates/ (a search past the solver's budget, run once), checked before it "
        "counts.",
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
    if families:
        lines += ["", "Invariant certificates, each checked once for its whole family of cylinders (every width "
                  "from the family's first, past the table's 12 columns):", *family_lines(families)]
    wanted = [game for game in SHIPPED if _in_table(game, ks, widths, heights)]
    if certificates is None:
        if wanted:
            lines += ["", f"Shipped certificates: none read (no folder given); {len(wanted)} of the table's cells "
                      "have one in certificates/."]
    else:
        by_game = {f"{c.w}x{c.h}k{c.k}:gravity,misere,cylinder": c for c in cells}
        lines += ["", f"Shipped certificates (beyond the solver's budget), each checked before it counts, from "
                  f"{certificates}:"]
        for game in wanted:
            cell = by_game[game]
            if "certificate" in cell.methods:
                lines.append(f"  {game}: {cell.value} ({cell.how}; {cell.seconds:.1f} s)")
            else:
                why = next((n for n in cell.notes if "certificate" in n), "settled before the certificate was read")
                lines.append(f"  {game}: not counted: {why}")
    if proof is not None:
        files = write_proofs(cells, families, proof, cylinder=True, shipped=certificates)
        lines.append(f"Certificates of every settled cell: {files} files in {proof} (index.json names each cell's; "
                     "check one with 'kinarow check FILE').")
    lines.append(
        "The paper gives no cylinder values, so nothing is compared with it here; the report agrees "
        "when no verified strategy contradicts the solver on a board both settled."
    )
    data = {
        "paper": PAPER,
        "budget": asdict(budget),
        "seconds": round(seconds, 3),
        "cells": [{**asdict(c), "agrees": None, "conflict": c.conflict} for c in cells],
        "families": [{"claim": c.claim, "ok": v.ok, "reason": v.reason, "details": v.details} for c, v in families],
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
