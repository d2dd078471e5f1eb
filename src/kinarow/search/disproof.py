"""Blocking trees written from the proof search's table: a df-pn "no" as a ``kinarow.draw`` half.

The draw-proof walk (:mod:`kinarow.search.draw`) picks each defender move by
a look-ahead and then proves it safe by a fresh search. Here the defender's
moves are the ones the proof search (:mod:`kinarow.search.proof_search`)
already disproved, read from its table:

* every position is first tested for a pairing leaf (as in the walk);
* the attacker to move: every legal move is followed;
* the defender to move: a move completing a defender group, else a move whose
  position the table's evaluation or rows disprove -- of those, the one with
  the least work below it (:func:`kinarow.engine.pns_kernel.disproved_move`).
  When the table has none (a sibling's relevance zone pruned the attacker's
  move that led here, a row was overwritten, or the node was closed by a pairing
  after one defender move), the search is asked the position's question again,
  then each defender move's with budgets growing fourfold (an answer is
  certain: the position is one the attacker cannot win).

The result goes to a :class:`kinarow.search.draw.Memory` (canonical key ->
defender move, "every move followed" or pairing), so it is saved, resumed and
written as tokens (:func:`kinarow.search.draw.linearise`) exactly as the
walk's; :mod:`kinarow.proofs.draw` checks it with no new trust.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kinarow.engine import breaker as BK
from kinarow.errors import KinarowError
from kinarow.position import Position, value_names
from kinarow.search.draw import (
    EXPANDED,
    PAIR_BUDGET,
    Frames,
    Memory,
    PairingRing,
    StoppedError,
    TreeStats,
    linearise,
    pair_cells,
)
from kinarow.search.proof_search import ProofSearcher

#: seconds between two saves of the memory to its checkpoint file
SAVE_EVERY = 60.0


@dataclass
class ExtractStats:
    """The extraction's work: positions settled, searches asked again, and their nodes."""

    settled: int = 0
    leaves: int = 0
    table_moves: int = 0  # defender moves read from the table at once
    reasked: int = 0  # defender positions whose question was asked again
    child_asks: int = 0  # defender moves asked one by one
    nodes: int = 0  # nodes of the searches asked again
    seconds: float = 0.0

    def add(self, other: ExtractStats) -> None:
        """Add ``other``'s counts (not its seconds)."""
        for name in ("settled", "leaves", "table_moves", "reasked", "child_asks", "nodes"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


class Extraction:
    """The defender's blocking tree against ``attacker`` from ``searcher``'s table, into ``memory``."""

    def __init__(self, searcher: ProofSearcher, attacker: int, memory: Memory, *, budget: int = PAIR_BUDGET,
                 tick: Callable[[int], None] | None = None, deadline: float | None = None,
                 save: Callable[[], None] | None = None, hint: Callable[[Position], int | None] | None = None,
                 defender_pairings: bool = True) -> None:
        game = searcher.game
        self.defender_pairings = defender_pairings
        self.hint = hint
        self.searcher = searcher
        self.attacker, self.defender = attacker, 3 - attacker
        self.cells = game.cells
        self.masks = np.array(game.start().geometry.group_masks, np.uint64)
        self.pbuf = BK.new_buffers(game.cells, max(int(self.masks.size), 1))
        self.kctrl = np.zeros(BK.N_CTRL, np.int64)
        self.out = np.zeros(game.cells, np.uint64)
        self.ring = PairingRing(game.cells)
        self.frames = Frames(game.start())
        self.memory = memory
        self.budget = budget
        self.attacker_win = value_names(game)[attacker - 1]
        self.stats = ExtractStats()
        self.tick, self.deadline, self.save = tick, deadline, save
        self.saved_at = time.perf_counter()

    def _pairing(self, pos: Position) -> tuple[int, ...] | None:
        M, B = np.uint64(pos.bits[self.attacker]), np.uint64(pos.bits[self.defender])
        return self.ring.pairing(self.masks, M, B, self.budget, self.pbuf, self.kctrl, self.out)

    def _settle(self, key: bytes, entry: int) -> None:
        self.memory.known[key] = entry
        self.stats.settled += 1
        if self.stats.settled % 1024 == 0:
            if self.tick is not None:
                self.tick(self.stats.settled)
            now = time.perf_counter()
            if self.save is not None and now - self.saved_at > SAVE_EVERY:
                self.save()
                self.saved_at = time.perf_counter()
            if self.deadline is not None and now > self.deadline:
                raise StoppedError("the time limit ran out before the blocking tree was written")

    def _ask(self, pos: Position, max_nodes: int | None = None) -> bool | None:
        answer = self.searcher.attacker_wins(pos, self.attacker, max_nodes=max_nodes)
        self.stats.nodes += answer.nodes
        return answer.wins

    def _defence(self, pos: Position) -> int:
        """The defender's move at ``pos``: the hint's, else from the table, else by asking the search again."""
        cell = None if self.hint is None else self.hint(pos)
        if cell is not None:
            return cell
        cell = self.searcher.disproved_move(pos, self.attacker)
        if cell is not None:
            self.stats.table_moves += 1
            return cell
        self.stats.reasked += 1
        if self._ask(pos):
            raise KinarowError(f"the attacker wins after {pos.move_text() or '(start)'}; no blocking tree here")
        cell = self.searcher.disproved_move(pos, self.attacker)
        if cell is not None:
            return cell
        children = list(pos.legal_moves())
        budget = 2
        while children:
            left = []
            for c in children:
                pos.play(c)
                self.stats.child_asks += 1
                wins = self._ask(pos, budget)
                pos.undo()
                if wins is False:
                    return c
                if wins is None:
                    left.append(c)
            children = left
            budget = 1000 if budget < 1000 else budget * 4
        raise KinarowError(f"the attacker wins after {pos.move_text() or '(start)'}; no blocking tree here")

    def visit(self, pos: Position) -> None:
        """Write the defender's tree below ``pos`` (the attacker cannot win there) into the memory."""
        if pos.is_over:
            if pos.result == self.attacker_win:
                raise KinarowError(f"the line {pos.move_text()} ends in an attacker win; no blocking tree here")
            return
        key, _, forward = self.frames.frame(pos.board)
        if self.memory.get(key) is not None:
            return
        pairing = self._pairing(pos) if self.defender_pairings or pos.to_move == self.attacker else None
        if pairing is not None:
            canonical = tuple((1 << forward[a]) | (1 << forward[b]) for a, b in pair_cells(pairing))
            self.stats.leaves += 1
            self._settle(key, self.cells + self.memory.pairing_id(canonical))
            return
        if pos.to_move == self.attacker:
            for cell in pos.legal_moves():
                pos.play(cell)
                self.visit(pos)
                pos.undo()
            self._settle(key, EXPANDED)
            return
        cell = self._defence(pos)
        pos.play(cell)
        self.visit(pos)
        pos.undo()
        self._settle(key, forward[cell])


def extract_tree(position: Position, attacker: int, searcher: ProofSearcher | None = None, *,
                 checkpoint: str | Path | None = None, deadline: float | None = None,
                 tick: Callable[[int], None] | None = None, budget: int = PAIR_BUDGET,
                 hint: Callable[[Position], int | None] | None = None, defender_pairings: bool = True,
                 tt_mb: float = 256, on_share: Callable[[int, int], None] | None = None, workers: int = 1,
                 ) -> tuple[dict[str, Any], TreeStats, ExtractStats]:
    """The blocking tree (a ``blocking-tree`` half of :mod:`kinarow.proofs.draw`) showing that ``attacker``
    cannot win from ``position``, written from the proof search. ``checkpoint`` (an ``.npz`` file) keeps the
    memory: saved every minute and when stopped, resumed by a later call. ``hint(position)`` may name the
    defender's move at a position (a move after which the attacker is known not to win, e.g. from the finished
    jobs of a solve: :func:`job_hints`); the root is then not asked as a whole. Without ``defender_pairings``
    only positions with the attacker to move are tested for a pairing leaf (a pairing that holds with the
    defender to move still holds after its move): 8x8k5 after g8 d5 h3, 47,746 positions against 46,283 in
    about half the time; 7x7k5, 21,147 against 19,149.

    With a hint, the tree is written in *units*: the positions three moves on (the attacker's move, the hint's
    reply, the attacker's next move; :func:`unit_lines`), each by a proof search of its own with a fresh table
    of ``tt_mb`` MiB, on ``workers`` processes (:func:`kinarow.engine.pool.run_cells`); a finished unit's
    tree joins the memory, which is saved every minute and when stopped, so a stop loses at most the units
    running. A unit's tree does not depend on what other units (or an earlier run) left in a table, so the
    run's size and time do not depend on the order of the units or the number of workers (where two units
    share a position, the earlier unit's tree is kept); one table over all of them drifted: a run of (8,8,5)
    had settled more than 165 M positions with 299 of its 448 units done. ``on_share(done, total)`` hears
    how many units are settled when the run starts and at every save."""
    start = time.perf_counter()
    game = position.game
    if searcher is None:
        searcher = ProofSearcher(game, tt_mb=tt_mb)
    path = None if checkpoint is None else Path(checkpoint)
    memory = Memory.load(path, game.cells) if path is not None and path.exists() else Memory(game.cells)
    units = [] if hint is None else unit_lines(position, hint, Frames(position))

    def share() -> None:
        if on_share is not None and units:
            on_share(sum(memory.get(key) is not None for key, _ in units), len(units))

    def save() -> None:
        assert path is not None
        memory.save(path)
        share()

    share()
    work = ExtractStats()
    if units:
        _extract_units(position, attacker, units, memory, work, save=None if path is None else save,
                       tick=tick, deadline=deadline, budget=budget, defender_pairings=defender_pairings,
                       tt_mb=tt_mb, workers=workers)
    walk = Extraction(searcher, attacker, memory, budget=budget, tick=tick, deadline=deadline,
                      save=None if path is None else save, hint=hint, defender_pairings=defender_pairings)
    if hint is None and walk._ask(position) is not False:
        raise KinarowError(f"the attacker can win from {position.move_text() or 'the start'}; no blocking tree")
    try:
        _visit(walk, position.copy())
    finally:
        if path is not None:
            save()
    data, stats = linearise(position, attacker, memory)
    work.add(walk.stats)
    work.seconds = time.perf_counter() - start
    stats.seconds = work.seconds
    return data, stats, work


def _extract_units(position: Position, attacker: int, units: list[tuple[bytes, list[int]]], memory: Memory,
                   work: ExtractStats, *, save: Callable[[], None] | None, tick: Callable[[int], None] | None,
                   deadline: float | None, budget: int, defender_pairings: bool, tt_mb: float,
                   workers: int) -> None:
    """The trees of the ``units`` not yet settled in ``memory``, each by a worker's own proof search, joined
    into ``memory`` as they finish (a save every :data:`SAVE_EVERY` seconds and at the end, also on a stop)."""
    from kinarow.engine.pool import run_cells

    todo = [moves for key, moves in units if memory.get(key) is None]
    pending: list[Memory] = []  # joined at the next save, in the units' order
    early: dict[int, Memory] = {}  # units finished before one listed earlier (two workers)
    joined = [0]  # the units up to here are in ``pending`` or the memory
    saved_at = [time.perf_counter()]
    settled = [len(memory)]

    def flush() -> None:
        if pending:
            memory.merge(*pending)
            pending.clear()
        if save is not None:
            save()
        saved_at[0] = time.perf_counter()

    def prepare(i: int) -> dict[str, Any]:
        if deadline is not None and time.perf_counter() > deadline:
            raise StoppedError("the time limit ran out before the blocking tree was written")
        return {"game": str(position.game), "moves": [position.name(c) for c in todo[i]], "attacker": attacker,
                "budget": budget, "defender_pairings": defender_pairings, "tt_mb": tt_mb}

    def finish(i: int, result: tuple[Memory, ExtractStats]) -> None:
        part, stats = result
        early[i] = part
        while joined[0] in early:  # a position two units share keeps the earlier unit's tree: the same every run
            pending.append(early.pop(joined[0]))
            joined[0] += 1
        work.add(stats)
        settled[0] += len(part)
        if tick is not None:
            tick(settled[0])
        if time.perf_counter() - saved_at[0] > SAVE_EVERY:
            flush()

    try:
        run_cells(_unit_job, len(todo), prepare, finish, workers=workers)
    finally:
        pending.extend(early[i] for i in sorted(early))  # a stop: what finished is kept
        flush()


def _unit_job(spec: dict[str, Any]) -> tuple[Memory, ExtractStats]:
    """Worker: one unit's blocking tree by a proof search with a fresh table, as a folded memory."""
    from kinarow.game import Game

    game = Game(spec["game"])
    position = game.position(spec["moves"])
    memory = Memory(game.cells)
    walk = Extraction(ProofSearcher(game, tt_mb=spec["tt_mb"]), spec["attacker"], memory, budget=spec["budget"],
                      defender_pairings=spec["defender_pairings"])
    _visit(walk, position)
    memory.fold()
    return memory, walk.stats


def _visit(walk: Extraction, position: Position) -> None:
    """``walk.visit(position)`` with room for its recursion (a few frames a cell)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * walk.cells + 200))
    try:
        walk.visit(position)
    finally:
        sys.setrecursionlimit(limit)


@dataclass
class DrawFromTable:
    """A draw's certificate written from the proof search's table (:func:`draw_from_table`) and its work."""

    data: dict[str, Any]
    positions: int  #: the blocking trees' positions
    nodes: int  #: the nodes of the searches asked again where the table had no answer
    stealing: bool  #: is the second player's half strategy stealing?

    @property
    def what(self) -> str:
        """What the certificate proves, in words."""
        return f"a draw proof: blocking trees of {self.positions:,} positions" + (
            " and strategy stealing" if self.stealing else "")


def draw_from_table(position: Position, searcher: ProofSearcher, *, folder: Path | None = None,
                    tick: Callable[[int], None] | None = None,
                    say: Callable[[str], None] | None = None) -> DrawFromTable:
    """The ``kinarow.draw`` certificate of a draw the proof search ``searcher`` found: the blocking tree against
    each player read from its table (the second player's half by strategy stealing where it applies). ``folder``
    keeps each tree's memory (``tree-1.npz``, ``tree-2.npz``) so a stopped writer resumes; ``say`` hears a line
    as each tree starts."""
    from kinarow.proofs import envelope
    from kinarow.proofs.draw import FORMAT, HALVES, STEALING, VERSION, claim_for, stealing_fit

    game = position.game
    names = [position.name(c) for c in position.moves]
    halves: dict[str, Any] = {}
    positions = nodes = 0
    for attacker in (1, 2):
        if attacker == 2 and stealing_fit(game, names):
            halves[HALVES[2]] = {"method": STEALING}
            continue
        if say is not None:
            say(f"writing the blocking tree against the {'first' if attacker == 1 else 'second'} player from the "
                "proof search's table")
        half, stats, work = extract_tree(position, attacker, searcher, tick=tick,
                                         checkpoint=None if folder is None else folder / f"tree-{attacker}.npz")
        halves[HALVES[attacker]] = half
        positions += stats.positions
        nodes += work.nodes
    data = {**envelope(FORMAT, VERSION, str(game), names, claim_for(game, {1, 2})), **halves}
    stealing = halves[HALVES[2]].get("method") == STEALING
    return DrawFromTable(data, positions, nodes, stealing)


def job_hints(position: Position, attacker: int, store_path: str | Path,
              depth: int = 3) -> Callable[[Position], int | None]:
    """The defender's moves near the root from the finished jobs of a one-sided parallel solve (its
    ``--checkpoint`` SQLite file): at a defender position of fewer than ``depth`` stones, the first reply the
    jobs settle as "the attacker cannot win". Only the choice is taken from the jobs: the tree below is
    written (and checked) in full."""
    from kinarow.search.parallel.checkpoint import JobStore  # (the modules, not the package: the package's
    from kinarow.search.parallel.frontier import stored_frontier  # coordinator imports solve, which imports this)
    from kinarow.values import Bound, Value

    game = position.game
    store = JobStore(Path(store_path))
    try:
        frontier = stored_frontier(position.copy(), store)
    finally:
        store.close()
    safe = {Value.DRAW, Value.win(game.goal, 3 - attacker), Bound.SECOND_OR_DRAW if attacker == 1 else
            Bound.FIRST_OR_DRAW}
    names = {position.name(c): c for c in range(game.cells)}

    def hint(pos: Position) -> int | None:
        if len(pos.moves) >= depth:
            return None
        return next((names[move] for move, value in frontier.replies(pos) if value in safe), None)

    return hint


def unit_lines(position: Position, hint: Callable[[Position], int | None],
               frames: Frames) -> list[tuple[bytes, list[int]]]:
    """The positions after the attacker's move from ``position``, the hint's reply and the attacker's next move
    (one a symmetry class; none that ends the game), as (canonical key, moves from the start): the units of an
    extraction with a hint, and the measure of how far it has got (:func:`settled_share`)."""
    seen: dict[bytes, list[int]] = {}
    pos = position.copy()
    for first in pos.legal_moves():
        pos.play(first)
        reply = None if pos.is_over else hint(pos)
        if reply is not None:
            pos.play(reply)
            for third in pos.legal_moves():
                pos.play(third)
                if not pos.is_over:
                    seen.setdefault(frames.frame(pos.board)[0], list(pos.moves))
                pos.undo()
            pos.undo()
        pos.undo()
    return list(seen.items())


def settled_share(position: Position, attacker: int, checkpoint: str | Path,
                  hint: Callable[[Position], int | None]) -> tuple[int, int]:
    """How far a saved extraction from ``position`` (the attacker to move) has got: of the positions after
    the attacker's move, the hint's reply and the attacker's next move (up to symmetry), how many are settled."""
    memory = Memory.load(Path(checkpoint), position.game.cells)
    units = unit_lines(position, hint, Frames(position))
    return sum(memory.get(key) is not None for key, _ in units), len(units)


def tree_parts(position: Position, attacker: int, checkpoint: str | Path,
               skip: Callable[[list[str]], bool] | None = None) -> list[tuple[Position, dict[str, Any], TreeStats]]:
    """The parts of a saved extraction from ``position`` (the attacker to move) that are finished: for each
    attacker move (one per symmetry class) whose position the memory settles, that position and its blocking
    tree (each a certificate of its own: after that move the attacker cannot win). ``skip(moves)`` leaves
    out the parts it is true of (moves named from the start)."""
    game = position.game
    memory = Memory.load(Path(checkpoint), game.cells)
    frames = Frames(position)
    seen: set[bytes] = set()
    parts = []
    for cell in position.legal_moves():
        after = position.copy()
        after.play(cell)
        key = frames.frame(after.board)[0]
        if key in seen or after.is_over:
            continue
        seen.add(key)
        if memory.get(key) is not None and not (skip and skip([after.name(c) for c in after.moves])):
            half, stats = linearise(after, attacker, memory)
            parts.append((after, half, stats))
    return parts


def read_tree(position: Position, attacker: int, half: dict[str, Any]) -> Memory:
    """The memory a blocking tree (a certificate's ``blocking-tree`` half from ``position``) holds, read back
    by the checker's walk: a shipped part of a long run seeds the run's next checkpoint. The tree is not
    checked here (the checker does that); a malformed one raises :class:`KinarowError`."""
    game = position.game
    memory = Memory(game.cells)
    frames = Frames(position)
    tokens = iter(half["tokens"].split())
    pairings = [[(position.geometry.parse_cell(a), position.geometry.parse_cell(b))
                 for a, _, b in (pair.partition("-") for pair in text.split())] for text in half["pairings"]]
    pos = position.copy()

    def visit() -> None:
        if pos.is_over:
            return
        key, _, forward = frames.frame(pos.board)
        if memory.get(key) is not None:
            return
        token = next(tokens, None)
        if token is None:
            raise KinarowError(f"the tree's tokens end before the position after {pos.move_text()}")
        if token == "+":
            for cell in pos.legal_moves():
                pos.play(cell)
                visit()
                pos.undo()
            entry = EXPANDED
        elif token.startswith("="):
            pairs = pairings[int(token[1:])]
            entry = game.cells + memory.pairing_id(tuple((1 << forward[a]) | (1 << forward[b]) for a, b in pairs))
        else:
            cell = position.geometry.parse_cell(token)
            pos.play(cell)
            visit()
            pos.undo()
            entry = forward[cell]
        memory.known[key] = entry

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * game.cells + 200))
    try:
        visit()
    finally:
        sys.setrecursionlimit(limit)
    return memory
