"""Parallel solving: split the game tree at a frontier and solve the parts as independent jobs.

::

    position --expand (symmetry-reduced, centre first)--> frontier DAG
                                                             |  leaves = jobs
    jobs --local processes, or a Dask cluster--> exact values (each by kinarow.solve)
                                                             |
    values --bounds back-up (minimax over the DAG)--> the root's value

The frontier is grown a whole level (one stone) at a time until it holds
about ``jobs`` open positions. Positions that are symmetric images of each
other are one node, so a job is solved once for all its images. Positions
that are already decided are not jobs: a finished game, a player to move who
can win with this stone, or a position found in the checkpoint file.

Each node keeps bounds ``lo <= value <= hi`` on its value from the first
player's view (``+1`` first player / Maker wins, ``0`` draw, ``-1`` second
player / Breaker wins). The empty board of a normal game without gravity and
with ``p <= q`` starts at ``lo = 0``: by strategy stealing the second player
cannot force a win there, so only "can the first player win?" is asked.
A finished job fixes (or narrows) its leaf's bounds; bounds then flow up
(the first player's nodes take the maximum of their children, the second
player's the minimum). Which jobs are still worth running is decided by an
alpha-beta walk over the bounds: a job whose value can no longer change the
root's is skipped, and if already running it is told to stop. The walk's
window also says what a job must answer: the exact value (both of the
solver's win tests), or just one of "can the first player win?" / "can the
second player win?" (one win test, about half the work). Jobs are handed
out in the order of that walk (centre moves first), a few at a time, so the
most promising lines are solved first -- the job-level counterpart of the
kernel's move ordering.

A win comes with the winner's strategy (:class:`~kinarow.proofs.tree.StrategyTree`)
when asked for: the frontier part is read off the solved DAG (the winner
takes a child whose value is a win for it; every reply of the loser is
followed) and each frontier leaf it reaches is extracted by a job, in the
leaf's own canonical frame and mapped to every symmetric image where it is
used. The result is checked by :func:`kinarow.proofs.tree.check` like any
other strategy.

Back-ends: ``workers=N`` runs a local pool of N processes
(``concurrent.futures``), no extra install; ``cluster=ADDRESS`` (or a
``distributed.Client``) runs the same jobs on a Dask cluster
(``pip install kinarow[cluster]``). A checkpoint file (``checkpoint=PATH``,
:class:`JobStore`) keeps every finished job, so a stopped solve resumes where
it was.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import gzip
import json
import multiprocessing as mp
import os
import resource
import signal
import sqlite3
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from kinarow.errors import KinarowError, raise_if_interrupted
from kinarow.game import MAKER_BREAKER, NORMAL, Game
from kinarow.position import Position, value_names
from kinarow.proofs.tree import StrategyTree, follow, winning_stone
from kinarow.search.parallel.merge import mapped, merged_walk, rows_of_choices, rows_of_walk
from kinarow.search.solve import Result, knowledge_reason

__all__ = ["JobStore", "ParallelResult", "expand", "solve"]

FIRST, DRAW, SECOND = 1, 0, -1
_SYMBOLS = ".xo"
#: Open positions per worker that the frontier aims for when ``jobs`` is not given.
JOBS_PER_WORKER = 2
#: How often (seconds) the coordinator looks at the clock, the node count and Ctrl-C.
POLL_SECONDS = 0.05
#: Frontier positions a local pool can track (shared stop flags and node counters; splits stop at this).
LOCAL_JOB_SLOTS = 1 << 16
#: A job that has run this long (seconds) is split into its children when a worker has nothing to do.
SPLIT_AFTER_SECONDS = 1.0
#: How often (seconds) a Dask job asks the scheduler whether it should stop.
DASK_POLL_SECONDS = 0.5
#: How long to try reaching a Dask scheduler.
CONNECT_TIMEOUT = "10s"

# Job questions
EXACT, FIRST_WINS, SECOND_WINS = "exact", "first-wins", "second-wins"
#: each question as the root's alpha-beta window (the first player's view)
_WINDOWS = {EXACT: (SECOND - 1, FIRST + 1), FIRST_WINS: (DRAW, FIRST + 1), SECOND_WINS: (SECOND - 1, DRAW)}

# Node kinds
TERMINAL, IMMEDIATE, STORED, JOB, INNER = "terminal", "immediate", "stored", "job", "inner"


class ClusterError(KinarowError):
    """The cluster back-end is missing or the cluster cannot be reached."""


# -- results ---------------------------------------------------------------------------
@dataclass
class ParallelResult(Result):
    """A :class:`~kinarow.solve.Result` with what the parallel solve did.

    ``nodes`` is the sum over every job run (also those stopped because their
    answer was no longer needed); ``seconds`` is wall time from the start of
    the frontier expansion to the answer (and the strategy, when asked for).
    """

    workers: int = 1
    backend: str = "local"
    frontier_depth: int = 0
    frontier_nodes: int = 0
    jobs: int = 0
    jobs_solved: int = 0
    jobs_stopped: int = 0
    jobs_from_checkpoint: int = 0
    splits: int = 0
    job_seconds: float = 0.0
    peak_rss_mb: float = 0.0
    strategy_stopped: str | None = None  # the value is proved but its strategy was not finished (why)
    log: list[dict[str, Any]] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out.update(
            {
                "workers": self.workers,
                "backend": self.backend,
                "frontier_depth": self.frontier_depth,
                "frontier_nodes": self.frontier_nodes,
                "jobs": self.jobs,
                "jobs_solved": self.jobs_solved,
                "jobs_stopped": self.jobs_stopped,
                "jobs_from_checkpoint": self.jobs_from_checkpoint,
                "splits": self.splits,
                "job_seconds": round(self.job_seconds, 3),
                "peak_rss_mb": round(self.peak_rss_mb, 1),
            }
        )
        if self.strategy_stopped:
            out["strategy_stopped"] = self.strategy_stopped
        return out


# -- job checkpoints -------------------------------------------------------------------
class JobStore:
    """Finished jobs in an SQLite file: one row per (game, position), so a stopped solve can resume.

    ``position`` is the board in its canonical frame (the smallest image under
    the board's symmetries, cell by cell: ``.`` empty, ``x`` Black, ``o``
    White); ``moves`` is a line of play that reaches it. ``lo``/``hi`` bound
    the value from the first player's view (+1 first player wins, 0 draw,
    -1 second player wins); ``value`` says the same in words: ``first``,
    ``second``, ``draw`` (``maker``/``breaker``), or ``first-or-draw`` /
    ``second-or-draw`` when a job answered one win test. Only proven
    facts are stored, never a stopped job.

    A second table, ``strategies``, keeps the winner's strategy that an
    extraction job found from a position (canonical frame; ``choices`` is its
    walk, the prescribed moves in the checker's replay order as in a version 3
    certificate, zlib-compressed), so that a stopped extraction of a large win
    also resumes. Rows written before walks were kept there hold the
    gzip-compressed JSON object of the moves by board; they are read too.
    """

    SCHEMA = """
        CREATE TABLE IF NOT EXISTS finished_jobs (
            game     TEXT NOT NULL,
            position TEXT NOT NULL,
            moves    TEXT NOT NULL,
            value    TEXT NOT NULL,
            lo       INTEGER NOT NULL,
            hi       INTEGER NOT NULL,
            nodes    INTEGER NOT NULL,
            seconds  REAL NOT NULL,
            finished TEXT NOT NULL DEFAULT (datetime('now')),
            PRIMARY KEY (game, position)
        )
    """

    STRATEGY_SCHEMA = """
        CREATE TABLE IF NOT EXISTS strategies (
            game       TEXT NOT NULL,
            position   TEXT NOT NULL,
            winner     TEXT NOT NULL,
            moves      TEXT NOT NULL,
            prescribed INTEGER NOT NULL,
            choices    BLOB NOT NULL,
            seconds    REAL NOT NULL,
            finished   TEXT NOT NULL DEFAULT (datetime('now')),
            PRIMARY KEY (game, position, winner)
        )
    """

    RUNNING_SCHEMA = """
        CREATE TABLE IF NOT EXISTS running_jobs (
            game     TEXT NOT NULL,
            position TEXT NOT NULL,
            moves    TEXT NOT NULL,
            question TEXT NOT NULL,
            started  TEXT NOT NULL DEFAULT (datetime('now')),
            PRIMARY KEY (game, position)
        )
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        try:
            self.db = sqlite3.connect(self.path)
            self.db.execute(self.SCHEMA)
            self.db.execute(self.STRATEGY_SCHEMA)
            self.db.execute(self.RUNNING_SCHEMA)
            self.db.commit()
        except sqlite3.DatabaseError as err:
            raise KinarowError(f"cannot use '{self.path}' as a checkpoint file: {err}") from None

    def get(self, game: str, position: str) -> tuple[int, int] | None:
        """The stored bounds ``(lo, hi)`` of a position, or None."""
        row = self.db.execute(
            "SELECT lo, hi FROM finished_jobs WHERE game = ? AND position = ?", (game, position)
        ).fetchone()
        return None if row is None else (int(row[0]), int(row[1]))

    def put(
        self, game: str, position: str, moves: str, bounds: tuple[int, int], value: str, nodes: int, seconds: float
    ) -> None:
        """Store what a job found; bounds narrow what is stored already (a second answer adds to the first)."""
        old = self.get(game, position)
        lo, hi = bounds if old is None else (max(bounds[0], old[0]), min(bounds[1], old[1]))
        self.db.execute(
            "INSERT OR REPLACE INTO finished_jobs (game, position, moves, value, lo, hi, nodes, seconds) "
            "VALUES (?,?,?,?,?,?,?,?)",
            (game, position, moves, value, lo, hi, nodes, seconds),
        )
        self.db.commit()

    def jobs(self, game: str) -> list[tuple[str, str, int, float, str]]:
        """The finished jobs of ``game``: (moves, value, nodes, seconds, finished), in the order they finished."""
        return [(str(m), str(v), int(n), float(s), str(f)) for m, v, n, s, f in self.db.execute(
            "SELECT moves, value, nodes, seconds, finished FROM finished_jobs WHERE game = ? ORDER BY finished, moves",
            (game,))]

    def get_strategy(self, game: str, position: str, winner: str) -> bytes | None:
        """The stored strategy of ``winner`` from a position (canonical frame) as a walk, or None."""
        row = self.db.execute("SELECT choices, moves FROM strategies WHERE game = ? AND position = ? AND winner = ?",
                              (game, position, winner)).fetchone()
        if row is None:
            return None
        blob, line = bytes(row[0]), str(row[1])
        if blob[:2] != b"\x1f\x8b":
            return zlib.decompress(blob)
        # an older row: the moves by board; written again as the walk its line's position replays
        choices = dict(json.loads(gzip.decompress(blob)))
        tree = StrategyTree(game, line.split(), winner, choices).compacted()
        assert tree.walk is not None
        return tree.walk

    def put_strategy(self, game: str, position: str, moves: str, winner: str, walk: bytes, seconds: float) -> None:
        """Store the strategy (a walk) an extraction job found from a position (canonical frame)."""
        self.db.execute(
            "INSERT OR REPLACE INTO strategies (game, position, winner, moves, prescribed, choices, seconds) "
            "VALUES (?,?,?,?,?,?,?)", (game, position, winner, moves, len(walk), zlib.compress(walk, 6), seconds))
        self.db.commit()

    def strategies(self, game: str) -> list[tuple[str, str, int, float, str]]:
        """The stored strategies of ``game``: (moves, winner, prescribed moves, seconds, finished)."""
        return [(str(m), str(w), int(n), float(s), str(f)) for m, w, n, s, f in self.db.execute(
            "SELECT moves, winner, prescribed, seconds, finished FROM strategies WHERE game = ? "
            "ORDER BY finished, moves", (game,))]

    def mark_running(self, game: str, position: str, moves: str, question: str) -> None:
        """Note that a job on ``position`` has started (``--status`` shows it while the solve runs)."""
        self.db.execute("INSERT OR REPLACE INTO running_jobs (game, position, moves, question) VALUES (?,?,?,?)",
                        (game, position, moves, question))
        self.db.commit()

    def unmark_running(self, game: str, position: str) -> None:
        self.db.execute("DELETE FROM running_jobs WHERE game = ? AND position = ?", (game, position))
        self.db.commit()

    def clear_running(self, game: str) -> None:
        """Forget every running mark of ``game`` (a run starts or ends; a killed run leaves marks behind)."""
        self.db.execute("DELETE FROM running_jobs WHERE game = ?", (game,))
        self.db.commit()

    def running(self, game: str) -> list[tuple[str, str, str]]:
        """The jobs of ``game`` marked running: (moves, question, started), oldest first."""
        return [(str(m), str(q), str(s)) for m, q, s in self.db.execute(
            "SELECT moves, question, started FROM running_jobs WHERE game = ? ORDER BY started, moves", (game,))]

    def positions(self, game: str) -> list[str]:
        """The canonical boards of every finished job of ``game``."""
        return [str(row[0]) for row in self.db.execute(
            "SELECT position FROM finished_jobs WHERE game = ?", (game,))]

    def count(self, game: str | None = None) -> int:
        if game is None:
            return int(self.db.execute("SELECT COUNT(*) FROM finished_jobs").fetchone()[0])
        return int(self.db.execute("SELECT COUNT(*) FROM finished_jobs WHERE game = ?", (game,)).fetchone()[0])

    def close(self) -> None:
        self.db.close()


# -- the frontier ----------------------------------------------------------------------
@dataclass
class Node:
    """One position of the frontier DAG, in its canonical frame (``key`` is its board)."""

    id: int
    key: str
    moves: tuple[int, ...]  # a line of play that reaches exactly the board ``key``
    to_move: int
    kind: str
    lo: int = SECOND
    hi: int = FIRST
    children: list[int] = field(default_factory=list)
    parents: list[int] = field(default_factory=list)
    stored: bool = False  # bounds read from the checkpoint
    prior_lo: int = SECOND  # bounds known without search (a theorem), kept by every back-up
    prior_hi: int = FIRST
    own_lo: int = SECOND  # bounds proved for this position itself (a job, the checkpoint, the rules)
    own_hi: int = FIRST

    @property
    def resolved(self) -> bool:
        return self.lo == self.hi


class Frontier:
    """The expanded top of the game tree: canonical positions, their links and value bounds."""

    def __init__(self, position: Position, store: JobStore | None = None) -> None:
        self.game = position.game
        self.game_text = str(self.game)
        self.syms = self.game.geometry.symmetries
        self.first_name, self.second_name = value_names(self.game)
        self.no_draws = self.game.goal == MAKER_BREAKER
        #: "young brothers wait": a node's other children are jobs only once its first child is decided
        #: (off: on two workers it left one idle and forced splits of positions the kernel orders better)
        self.eldest_first = False
        self.store = store
        self.nodes: list[Node] = []
        self.by_key: dict[str, int] = {}
        self.depth = 0
        #: the root's question as an alpha-beta window: the exact value, or only whether one player wins
        self.window: tuple[int, int] = _WINDOWS[EXACT]
        #: bumped by every change of the DAG or its bounds; ``needed`` is cached against it
        self.version = 0
        self._needed_cache: tuple[tuple[Any, ...], list[tuple[int, str]]] | None = None
        self.root = self._node_for(position)
        root = self.nodes[self.root]
        if position.stones == 0 and self.game.goal == NORMAL and not self.game.gravity and self.game.p <= self.game.q:
            # strategy stealing: an extra stone never hurts, so the second player cannot force a win
            root.prior_lo = DRAW
            self._recompute(root)

    # canonical frames
    def canonical(self, board: list[int]) -> tuple[str, tuple[int, ...]]:
        """The smallest image of ``board`` under the symmetries, and the symmetry that gives it."""
        best_key: str | None = None
        best_sym = self.syms[0]
        size = len(board)
        for s in self.syms:
            image = [0] * size
            for c, v in enumerate(board):
                image[s[c]] = v
            key = "".join(_SYMBOLS[v] for v in image)
            if best_key is None or key < best_key:
                best_key, best_sym = key, s
        assert best_key is not None
        return best_key, best_sym

    def score(self, result: str) -> int:
        if result == "draw":
            return DRAW
        return FIRST if result == self.first_name else SECOND

    def result_name(self, score: int) -> str:
        return {FIRST: self.first_name, SECOND: self.second_name, DRAW: "draw"}[score]

    def bounds_name(self, lo: int, hi: int) -> str:
        """``first``, ``draw``, ... for an exact value; ``first-or-draw`` / ``second-or-draw`` for a bound."""
        if lo == hi:
            return self.result_name(lo)
        if (lo, hi) == (DRAW, FIRST):
            return f"{self.first_name}-or-draw"
        if (lo, hi) == (SECOND, DRAW):
            return f"{self.second_name}-or-draw"
        return "unknown"

    def _node_for(self, pos: Position) -> int:
        key, sym = self.canonical(pos.board)
        found = self.by_key.get(key)
        if found is not None:
            return found
        moves = tuple(sym[c] for c in pos.moves)
        node = Node(len(self.nodes), key, moves, pos.to_move if not pos.is_over else 0, JOB)
        if pos.is_over:
            node.kind = TERMINAL
            node.lo = node.hi = self.score(str(pos.result))
        else:
            stored = self.store.get(self.game_text, key) if self.store is not None else None
            if stored is not None:
                node.lo, node.hi = stored
                node.stored = True
                if node.resolved:
                    node.kind = STORED
            if not node.resolved and (win := _immediate_win(pos)) is not None:
                node.kind = IMMEDIATE
                node.lo = node.hi = self.score(str(win))
        node.own_lo, node.own_hi = node.lo, node.hi
        self.nodes.append(node)
        self.by_key[key] = node.id
        return node.id

    def position(self, node: Node) -> Position:
        pos = self.game.start()
        for c in node.moves:
            pos.play(c)
        return pos

    def open_jobs(self) -> list[Node]:
        return [n for n in self.nodes if n.kind == JOB and not n.resolved]

    def expand(self, target: int, max_depth: int | None = None) -> None:
        """Grow the frontier a level at a time until it holds at least ``target`` open jobs."""
        level = [self.nodes[self.root]] if self.nodes[self.root].kind == JOB else []
        while level and len(level) < target and (max_depth is None or self.depth < max_depth):
            next_level: list[Node] = []
            for node in level:
                next_level.extend(self._expand_node(node))
            self.depth += 1
            level = next_level
        self._follow_store()
        for node in sorted(self.nodes, key=lambda n: -len(n.moves)):
            if node.kind == INNER:
                self._recompute(node)

    def _follow_store(self) -> None:
        """Expand every open leaf below which the checkpoint holds finished jobs.

        A run with more jobs (or one that split its long jobs) leaves answers
        deeper than this run's frontier; following them down means a resumed
        solve reuses all of them, whatever ``jobs`` it is given.
        """
        if self.store is None:
            return
        below = self._stored_sub_boards()
        todo = [n for n in self.nodes if n.kind == JOB and not n.resolved]
        while todo:
            node = todo.pop()
            if _key_bits(node.key) in below:
                todo.extend(self._expand_node(node))
                self.depth = max(self.depth, len(node.moves) - len(self.nodes[self.root].moves) + 1)

    def _stored_sub_boards(self) -> set[tuple[int, int]]:
        """Every board, in every frame, that a stored job's board extends by at least one stone.

        An open leaf has a stored job below it (in some symmetric frame, also
        by transposition) exactly when its canonical board is in this set, so
        following the checkpoint down is one look-up per leaf. Only boards with
        at least the root's stones are kept: a stored board of ``s`` stones
        gives at most ``2^s`` sub-boards per frame.
        """
        least = len(self.nodes[self.root].moves)
        below: set[tuple[int, int]] = set()
        assert self.store is not None
        for key in self.store.positions(self.game_text):
            x, o = _key_bits(key)
            for sym in self.syms:
                sx = so = 0
                for c in _cells_of(x):
                    sx |= 1 << sym[c]
                for c in _cells_of(o):
                    so |= 1 << sym[c]
                full = sx | so
                if not full:
                    continue
                sub = (full - 1) & full  # proper sub-boards only: the stored board itself is not below
                while True:
                    if sub.bit_count() >= least:
                        below.add((sx & sub, so & sub))
                    if sub == 0:
                        break
                    sub = (sub - 1) & full
        return below

    def split(self, node_id: int) -> list[int]:
        """Expand one open leaf by a stone (its children become jobs); returns the new open leaves."""
        node = self.nodes[node_id]
        fresh = self._expand_node(node)
        self.depth = max(self.depth, len(node.moves) - len(self.nodes[self.root].moves) + 1)
        if self._recompute(node):
            self._carry_up(node)
        return [n.id for n in fresh]

    def _expand_node(self, node: Node) -> list[Node]:
        self.version += 1
        node.kind = INNER
        pos = self.position(node)
        fresh: list[Node] = []
        for cell in _ordered_moves(pos):
            pos.play(cell)
            child_id = self._node_for(pos)
            pos.undo()
            child = self.nodes[child_id]
            if child_id in node.children:
                continue  # a symmetric move: the same canonical child
            node.children.append(child_id)
            child.parents.append(node.id)
            if child.kind == JOB and len(child.parents) == 1:
                fresh.append(child)
        return fresh

    # bounds
    def recompute(self, node: Node) -> bool:
        """Recompute a node's bounds from its children, its own facts and its prior; True if they changed."""
        self.version += 1  # the caller may have changed the node's prior
        return self._recompute(node)

    def _recompute(self, node: Node) -> bool:
        lo, hi = max(node.own_lo, node.prior_lo), min(node.own_hi, node.prior_hi)
        if node.children:
            kids = [self.nodes[c] for c in node.children]
            if node.to_move == 1:
                lo, hi = max(lo, max(k.lo for k in kids)), min(hi, max(k.hi for k in kids))
            else:
                lo, hi = max(lo, min(k.lo for k in kids)), min(hi, min(k.hi for k in kids))
        changed = (lo, hi) != (node.lo, node.hi)
        if changed:
            self.version += 1
            node.lo, node.hi = lo, hi
        return changed

    def settle(self, node_id: int, lo: int, hi: int) -> None:
        """Add a fact ``lo <= value <= hi`` about a position (a job's answer) and carry the bounds up."""
        node = self.nodes[node_id]
        self.version += 1
        node.own_lo, node.own_hi = max(node.own_lo, lo), min(node.own_hi, hi)
        if self.no_draws:  # Maker-Breaker: "not a Maker win" is a Breaker win
            if node.own_hi <= DRAW:
                node.own_lo = node.own_hi = SECOND
            elif node.own_lo >= DRAW:
                node.own_lo = node.own_hi = FIRST
        self._recompute(node)
        self._carry_up(node)

    def _carry_up(self, node: Node) -> None:
        todo = list(node.parents)
        while todo:
            parent = self.nodes[todo.pop()]
            if self._recompute(parent):
                todo.extend(parent.parents)

    def ask(self, question: str) -> None:
        """Ask the root only ``question``: the exact value, or whether the first (second) player wins."""
        if question not in _WINDOWS:
            raise KinarowError(f"the question '{question}' is unknown; allowed are {', '.join(_WINDOWS)}")
        self.window = _WINDOWS[question]
        self.version += 1

    def decided(self) -> bool:
        """Does the root answer its question: its exact value, or a bound on the side of the window?"""
        root, (alpha, beta) = self.nodes[self.root], self.window
        return root.resolved or root.hi <= alpha or root.lo >= beta

    def settled(self) -> tuple[str, list[str]]:
        """The root's value or bound in words, and the lines (canonical frame) of the jobs that can change it."""
        root = self.nodes[self.root]
        return self.bounds_name(root.lo, root.hi), [" ".join(_names(self, self.nodes[job].moves))
                                                    for job, _ in self.needed()]

    def replies(self, position: Position) -> list[tuple[str, str]]:
        """The moves from ``position`` (the root, in its own frame), one per symmetry class, each with its value
        or bound in words; moves the frontier has no node for (the root was never expanded) are left out."""
        out: list[tuple[str, str]] = []
        seen: set[int] = set()
        for cell in _ordered_moves(position):
            position.play(cell)
            key, _ = self.canonical(position.board)
            position.undo()
            node_id = self.by_key.get(key)
            if node_id is None or node_id in seen:
                continue
            seen.add(node_id)
            node = self.nodes[node_id]
            out.append((position.name(cell), self.bounds_name(node.lo, node.hi)))
        return out

    def needed(self, running: Collection[int] = ()) -> list[tuple[int, str]]:
        """Open jobs whose value can still change the root's, with their question, in the order they should run.

        An alpha-beta walk over the bounds: a child of the first player's node
        matters only if it could lift the node above what another child already
        guarantees (and symmetrically for the second player). At a leaf the
        window says which question matters: only "does the first player win?"
        (its value against a draw), only "does the second player win?", or both
        (the exact value). An inner node listed in ``running`` (a job that was
        split while it ran) is listed too, ahead of its children, while it matters.

        The answer is kept until the DAG or its bounds change (``version``):
        the coordinator asks every poll, and the walk over a frontier of tens
        of thousands of positions is the coordinator's main cost.
        """
        inner_running = frozenset(j for j in running if self.nodes[j].kind != JOB)
        state = (self.version, self.eldest_first, inner_running, self.window)
        if self._needed_cache is not None and self._needed_cache[0] == state:
            return list(self._needed_cache[1])
        out: list[tuple[int, str]] = []
        seen: set[int] = set()

        def walk(node: Node, alpha: int, beta: int) -> None:
            if node.resolved or node.hi <= alpha or node.lo >= beta or node.id in seen:
                return
            seen.add(node.id)
            if node.kind == JOB or node.id in running:
                first_matters = beta > DRAW and alpha < FIRST and node.hi > DRAW
                second_matters = alpha < DRAW and beta > SECOND and node.lo < DRAW
                if first_matters and second_matters:
                    out.append((node.id, EXACT))
                else:
                    out.append((node.id, FIRST_WINS if first_matters else SECOND_WINS))
                if node.kind == JOB:
                    return
            kids = [self.nodes[c] for c in node.children]
            # the best bound among the other children, from the best two (no quadratic scan)
            maximise = node.to_move == 1
            bounds = [k.lo if maximise else k.hi for k in kids]
            order = sorted(range(len(kids)), key=lambda i: -bounds[i] if maximise else bounds[i])
            top = order[0]
            second = bounds[order[1]] if len(order) > 1 else (SECOND - 1 if maximise else FIRST + 1)
            for i, kid in enumerate(kids):
                other = second if i == top else bounds[top]
                if maximise:
                    a, b = max(alpha, other, node.prior_lo, node.own_lo), beta
                else:
                    a, b = alpha, min(beta, other, node.prior_hi, node.own_hi)
                open_kid = not (kid.resolved or kid.hi <= a or kid.lo >= b)
                walk(kid, a, b)
                if i == 0 and open_kid and self.eldest_first:
                    break  # the younger brothers wait until the eldest is decided

        walk(self.nodes[self.root], *self.window)
        self._needed_cache = (state, out)
        return list(out)


def _key_bits(key: str) -> tuple[int, int]:
    """The first and second player's stones of a stored board (``.xo`` per cell) as bit sets."""
    x = o = 0
    for c, ch in enumerate(key):
        if ch == _SYMBOLS[1]:
            x |= 1 << c
        elif ch == _SYMBOLS[2]:
            o |= 1 << c
    return x, o


def _cells_of(bits: int) -> Iterator[int]:
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


def stored_value(position: Position, store: JobStore) -> tuple[str, list[str]]:
    """What the finished jobs of ``store`` settle about ``position``, searching nothing.

    Returns the value (or bound, or ``unknown``) that the stored jobs, the
    rules and strategy stealing imply, and the lines (canonical frame) of the
    open positions that can still change it, in the order a run would take them.
    """
    return stored_frontier(position, store).settled()


def stored_frontier(position: Position, store: JobStore) -> Frontier:
    """The frontier a resumed solve of ``position`` starts from: the stored jobs followed down, bounds backed up."""
    frontier = Frontier(position, store)
    frontier.expand(1)
    return frontier


def _ordered_moves(pos: Position) -> list[int]:
    """Legal moves, cells on many groups (the centre) first."""
    incidence = pos.geometry.cell_groups
    return sorted(pos.legal_moves(), key=lambda c: (-len(incidence[c]), c))


def _immediate_win(pos: Position, every_move: bool = False) -> str | None:
    """The mover's win if one stone ends the game in the mover's favour, else None.

    ``every_move`` plays every legal stone through the rules instead of only
    the cells that can end the game (the tests compare the two).
    """
    first, second = value_names(pos.game)
    mine = first if pos.to_move == 1 else second
    if not every_move:  # the rules-only checker's test, which plays only the cells that can end the game
        return mine if winning_stone(pos, mine) is not None else None
    for cell in pos.legal_moves():
        pos.play(cell)
        result = pos.result
        pos.undo()
        if result == mine:
            return mine
    return None


def expand(
    target: Game | Position | str, *, moves: str | None = None, jobs: int = 64, max_depth: int | None = None
) -> Frontier:
    """The frontier a parallel solve of ``target`` would use (for inspection and tests)."""
    position = _start(target, moves)
    frontier = Frontier(position)
    frontier.expand(jobs, max_depth)
    return frontier


def _start(target: Game | Position | str, moves: str | None) -> Position:
    position = target.copy() if isinstance(target, Position) else Game(target).start()
    if moves:
        position.play_moves(moves)
    return position


# -- jobs (run in the workers) -----------------------------------------------------------
@dataclass(frozen=True)
class JobSpec:
    """One job: solve (or extract the winner's strategy from) the position after ``moves``."""

    job: int  # the frontier node's number
    game: str
    moves: tuple[int, ...]
    tt_mb: float | None
    strategy: bool = False
    gen: int = 0  # the job runs while the node's generation is this number
    dask_run: str | None = None  # name prefix of the Dask events that stop this job
    question: str = EXACT  # EXACT, or "does FIRST_WINS / SECOND_WINS hold?" (one win test)
    knowledge: str = "none"  # the workers' solver knowledge (see kinarow.solve)


@dataclass
class JobOutcome:
    job: int
    bounds: tuple[int, int] | None  # (lo, hi) on the value from the first player's view; None: stopped
    question: str
    nodes: int
    seconds: float
    walk: bytes | None  # a strategy job's walk (the winner's moves in replay order); None: not one, or stopped
    peak_rss_kb: int
    worker: str


class _StopRequestedError(Exception):
    pass


_LOCAL: dict[str, Any] = {}
_THREAD = threading.local()


def _init_local_worker(flags: Any, live: Any) -> None:
    """Pool initializer: Ctrl-C is the coordinator's business; it stops jobs through ``flags``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _LOCAL["flags"] = flags
    _LOCAL["live"] = live


def _searcher(game: str, tt_mb: float | None, knowledge: str = "none") -> Any:
    """One Searcher per game and worker thread, kept between jobs (its table carries over)."""
    from kinarow.search.solve import Searcher

    cache: dict[tuple[str, float | None, str], Any] = getattr(_THREAD, "searchers", None) or {}
    _THREAD.searchers = cache
    if (game, tt_mb, knowledge) not in cache:
        cache.clear()  # one table per thread at a time
        cache[(game, tt_mb, knowledge)] = Searcher(Game(game), tt_mb=tt_mb, knowledge=knowledge)
    return cache[(game, tt_mb, knowledge)]


def _stop_check(spec: JobSpec) -> Callable[[], bool]:
    if spec.dask_run is None:
        flags = _LOCAL.get("flags")
        if flags is None:
            return lambda: False
        return lambda: bool(flags[0] or flags[spec.job + 1] != spec.gen)
    from distributed import Event

    stop_all = Event(f"{spec.dask_run}-stop")
    stop_one = Event(f"{spec.dask_run}-stop-{spec.job}-{spec.gen}")
    last = [0.0, False]

    def check() -> bool:
        now = time.monotonic()
        if now - last[0] >= DASK_POLL_SECONDS:
            last[0] = now
            last[1] = bool(stop_all.is_set() or stop_one.is_set())
        return bool(last[1])

    return check


def run_job(spec: JobSpec) -> JobOutcome:
    """Solve one job in a worker (a pool process or a Dask worker)."""
    from kinarow.search.solve import solve as solve_one

    start = time.perf_counter()
    searcher = _searcher(spec.game, spec.tt_mb, spec.knowledge)
    should_stop = _stop_check(spec)
    live = _LOCAL.get("live") if spec.dask_run is None else None
    pos = Game(spec.game).start()
    for c in spec.moves:
        pos.play(c)
    first, _ = value_names(pos.game)

    def score_of(result: str) -> int:
        return DRAW if result == "draw" else (FIRST if result == first else SECOND)

    def tick(nodes: int) -> None:
        if live is not None:
            live[spec.job] = nodes
        if should_stop():
            raise KeyboardInterrupt  # solve() turns this into a clean stop of the kernel

    bounds: tuple[int, int] | None
    walk: bytes | None = None
    nodes = 0
    if spec.strategy:
        try:
            known = {FIRST_WINS: 1, SECOND_WINS: 2}.get(spec.question)
            walk, winner = _extract(pos, searcher, should_stop, known)
            bounds = (score_of(winner), score_of(winner))
        except _StopRequestedError:
            bounds = None
    elif spec.question == EXACT or not hasattr(searcher, "_win_test"):  # no one-sided test: the exact value
        result = solve_one(pos, searcher=searcher, on_tick=tick)
        nodes = result.nodes
        bounds = None if result.value == "unknown" else (score_of(result.value), score_of(result.value))
    else:
        tested = 1 if spec.question == FIRST_WINS else 2
        answer, nodes = _win_test(searcher, pos, tested, tick)
        if answer is None:
            bounds = None
        elif tested == 1:
            bounds = (FIRST, FIRST) if answer else (SECOND, DRAW)
        else:
            bounds = (SECOND, SECOND) if answer else (DRAW, FIRST)
    if live is not None:
        live[spec.job] = 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    worker = f"{os.uname()[1]}:{os.getpid()}"
    return JobOutcome(spec.job, bounds, spec.question, nodes, time.perf_counter() - start, walk, peak, worker)


def _win_test(searcher: Any, pos: Position, tested: int, tick: Callable[[int], None]) -> tuple[bool | None, int]:
    """Can player ``tested`` (1 or 2) force a win from ``pos``? (answer or None if stopped, nodes).

    The solver's deepening win test for one side only (the same tests that
    :func:`kinarow.solve` interleaves for an exact value), run in a thread so
    that ``tick`` can stop it: ``tick`` raises KeyboardInterrupt to stop.
    """
    from kinarow.engine import kernel as K

    p1, p2 = pos.key()
    t = pos.stones
    for_opponent = pos.to_move != tested
    ctrl = searcher.ctrl
    searcher.new_root()
    out: list[bool | None] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            depth = 4
            while True:
                v, exact = searcher._win_test(p1, p2, t, t + depth, for_opponent=for_opponent)
                if v == K.ABORT:
                    out.append(None)
                    return
                if (v <= K.LOSS) if for_opponent else (v >= K.WIN):
                    out.append(True)
                    return
                if exact:
                    out.append(False)
                    return
                depth += searcher.deepening_step
        except BaseException as err:  # pragma: no cover - surfaced below
            errors.append(err)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(POLL_SECONDS)
            raise_if_interrupted()
            tick(int(ctrl[K.C_NODES]))
    except KeyboardInterrupt:
        ctrl[K.C_STOP] = 1
        thread.join()
    if errors:
        raise errors[0]
    return (out[0] if out else None), int(ctrl[K.C_NODES])


def _extract(
    position: Position, searcher: Any, should_stop: Callable[[], bool], winner: int | None = None
) -> tuple[bytes, str]:
    """The winner's strategy from a won ``position`` as a walk, and the winner's name; stops between
    positions when asked.

    Same walk as :func:`kinarow.solve.extract_strategy` (the compiled
    :meth:`~kinarow.solve.Searcher.strategy_walk`): the kernel names a
    winning move at the winner's turns, every reply is followed at the loser's.
    """
    from kinarow.engine import kernel as K
    from kinarow.search.solve import winner_of

    game = position.game
    # One exact solve first, also when the winner is known: the walk's win tests then find its table full.
    # Measured on (10,4,4) after 1. f3 g4 (pairing, 1 GiB table): the solve 12 s and the walk 0.0 s after
    # it; the walk alone, with no solve, had not finished after 300 s.
    value, _ = searcher.best_move(position)
    if value == K.DRAW:
        raise KinarowError("internal error: a strategy job was given a drawn position")
    found = position.to_move if value == K.WIN else 3 - position.to_move
    if winner is not None and winner != found:
        raise KinarowError("internal error: a strategy job's stored winner is not the one the search finds")
    winner = found
    walk = searcher.strategy_walk(position, winner, should_stop)
    if walk is None:  # asked to stop: the job ends here
        raise _StopRequestedError
    return walk, winner_of(game, winner, K.WIN)


# -- back-ends -----------------------------------------------------------------------------
class _Backend:
    workers = 1
    name = "local"
    max_jobs = 1 << 62  # frontier positions it can track

    def submit(self, spec: JobSpec) -> Any:
        raise NotImplementedError

    def done(self, handles: Iterable[Any], timeout: float) -> list[Any]:
        raise NotImplementedError

    def outcome(self, handle: Any) -> JobOutcome:
        raise NotImplementedError

    def stop_job(self, job: int, handle: Any) -> None:
        raise NotImplementedError

    def stop_all(self) -> None:
        raise NotImplementedError

    def live_nodes(self) -> int:
        return 0

    def close(self) -> None:
        raise NotImplementedError


class _LocalBackend(_Backend):
    """A pool of worker processes on this machine; jobs are stopped through shared flags."""

    name = "local"

    def __init__(self, workers: int, n_jobs: int) -> None:
        # fork where there is one: workers start at once and a user's script needs no main guard
        ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        self.workers = workers
        self.max_jobs = n_jobs
        # [0]: stop everything; [j + 1]: generation of node j's current job (a job of another generation stops)
        self.flags = ctx.Array("i", n_jobs + 1, lock=False)
        self.live = ctx.Array("q", max(n_jobs, 1), lock=False)  # nodes of each running job so far
        self.pool = cf.ProcessPoolExecutor(
            max_workers=workers, mp_context=ctx, initializer=_init_local_worker, initargs=(self.flags, self.live)
        )

    def submit(self, spec: JobSpec) -> Any:
        gen = self.flags[spec.job + 1] + 1
        self.flags[spec.job + 1] = gen
        return self.pool.submit(run_job, replace(spec, gen=gen))

    def done(self, handles: Iterable[Any], timeout: float) -> list[Any]:
        finished, _ = cf.wait(list(handles), timeout=timeout, return_when=cf.FIRST_COMPLETED)
        return list(finished)

    def outcome(self, handle: Any) -> JobOutcome:
        try:
            return handle.result()  # type: ignore[no-any-return]
        except cf.process.BrokenProcessPool as err:
            raise KinarowError(f"a worker process died ({err}); the solve cannot go on") from None

    def stop_job(self, job: int, handle: Any) -> None:
        if not handle.cancel():
            self.flags[job + 1] += 1

    def stop_all(self) -> None:
        self.flags[0] = 1

    def live_nodes(self) -> int:
        return int(sum(self.live))

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class _DaskBackend(_Backend):
    """The same jobs on a Dask cluster; jobs are stopped through Dask events."""

    name = "dask"

    def __init__(self, cluster: Any) -> None:
        try:
            from distributed import Client, Event
        except ImportError:
            raise ClusterError(
                "running on a cluster needs Dask's 'distributed' package; "
                "install it with 'pip install kinarow[cluster]'"
            ) from None
        self._Event = Event
        if isinstance(cluster, str):
            try:
                self.client = Client(cluster, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as err:
                raise ClusterError(
                    f"cannot reach a Dask scheduler at '{cluster}' ({err}); give ADDRESS as tcp://HOST:PORT"
                ) from None
            self.own_client = True
        else:
            self.client = cluster
            self.own_client = False
        info = self.client.scheduler_info()
        self.workers = max(1, sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()))
        self.run = f"kinarow-{uuid.uuid4().hex[:12]}"
        self.events: list[Any] = []
        self.gens: dict[int, int] = {}

    def submit(self, spec: JobSpec) -> Any:
        gen = self.gens.get(spec.job, 0) + 1
        self.gens[spec.job] = gen
        spec = replace(spec, dask_run=self.run, gen=gen)
        return self.client.submit(run_job, spec, pure=False, key=f"{self.run}-{spec.job}-{gen}")

    def done(self, handles: Iterable[Any], timeout: float) -> list[Any]:
        handles = list(handles)
        end = time.monotonic() + timeout
        while True:
            finished = [h for h in handles if h.done()]
            if finished or time.monotonic() >= end:
                return finished
            time.sleep(min(0.01, timeout))

    def outcome(self, handle: Any) -> JobOutcome:
        try:
            return handle.result()  # type: ignore[no-any-return]
        except KinarowError:
            raise
        except Exception as err:
            raise ClusterError(
                f"a job failed on the cluster ({type(err).__name__}: {err}); every worker needs kinarow installed"
            ) from None

    def stop_job(self, job: int, handle: Any) -> None:
        event = self._Event(f"{self.run}-stop-{job}-{self.gens.get(job, 0)}", client=self.client)
        event.set()
        self.events.append(event)
        handle.cancel()

    def stop_all(self) -> None:
        event = self._Event(f"{self.run}-stop", client=self.client)
        event.set()
        self.events.append(event)

    def close(self) -> None:
        for event in self.events:
            with contextlib.suppress(Exception):  # a cluster going away at the end is not our failure
                event.clear()
        if self.own_client:
            self.client.close()


# -- the coordinator -------------------------------------------------------------------------
def solve(
    target: Game | Position | str,
    *,
    moves: str | None = None,
    workers: int | None = None,
    cluster: Any = None,
    jobs: int | None = None,
    max_nodes: int | None = None,
    time_limit: float | None = None,
    tt_mb: float | None = None,
    strategy: bool = False,
    checkpoint: str | os.PathLike[str] | None = None,
    on_tick: Callable[[int], None] | None = None,
    best_move: bool = True,
    knowledge: str = "matching",
    max_job_seconds: float | None = None,
    question: str = EXACT,
) -> ParallelResult:
    """Solve a game or position on several processes (or a Dask cluster); same values as :func:`kinarow.solve`.

    ``workers`` local processes (default: every core) run the jobs, unless
    ``cluster`` names a Dask scheduler (``tcp://HOST:PORT``) or is a
    ``distributed.Client``. ``jobs`` is about how many frontier positions to
    make (default :data:`JOBS_PER_WORKER` per worker). ``checkpoint`` is an
    SQLite file that keeps finished jobs: run the same call again to resume.
    ``max_nodes``, ``time_limit``, ``tt_mb`` (per worker), ``strategy`` and
    ``on_tick`` mean what they mean for :func:`kinarow.solve`. When the value
    comes from strategy stealing (a draw of an empty board), finding a move
    that keeps it takes more search; ``best_move=False`` skips that search.
    ``knowledge`` is the workers' solver knowledge (``none``, ``pairing`` or
    ``matching``, as for :func:`kinarow.solve`). ``max_job_seconds`` splits
    a job that has run that long into its children, even while every worker
    is busy: with a checkpoint, a run that is stopped then loses at most
    about that much work per worker (a search that takes many runs needs
    this); without it a job is split only when a worker would sit idle.
    ``question`` asks the root less than its exact value: ``"first-wins"``
    (can the first player force a win?) or ``"second-wins"``; every job then
    runs one win test, and a "no" comes back as a bound (``second-or-draw``,
    ``first-or-draw``).
    """
    from kinarow.search.solve import KNOWLEDGE_LEVELS

    if knowledge not in KNOWLEDGE_LEVELS:
        raise KinarowError(f"the knowledge level '{knowledge}' is unknown; allowed are {', '.join(KNOWLEDGE_LEVELS)}")
    if workers is not None and workers < 1:
        raise KinarowError(f"workers = {workers} is not allowed; give a positive number of worker processes")
    if jobs is not None and jobs < 1:
        raise KinarowError(f"jobs = {jobs} is not allowed; give a positive number of frontier positions")
    if max_nodes is not None and max_nodes < 1:
        raise KinarowError(f"max_nodes = {max_nodes} is not allowed; give a positive number of nodes")
    if time_limit is not None and time_limit <= 0:
        raise KinarowError(f"time_limit = {time_limit} is not allowed; give a positive number of seconds")
    if max_job_seconds is not None and max_job_seconds <= 0:
        raise KinarowError(f"max_job_seconds = {max_job_seconds} is not allowed; give a positive number of seconds")
    position = _start(target, moves)
    game = position.game
    if game.cells > 64:
        from kinarow.errors import SolverLimitError

        raise SolverLimitError(f"{game} has {game.cells} cells; the exact solver handles boards of at most 64 cells")
    to_move = None if position.is_over else ("first" if position.to_move == 1 else "second")
    if position.is_over:
        return ParallelResult(str(game), position.move_text(), str(position.result), 0, 0.0, None, to_move)
    start = time.perf_counter()
    deadline = start + time_limit if time_limit else None
    n_workers = workers or os.cpu_count() or 1

    store = JobStore(checkpoint) if checkpoint is not None else None
    backend: _Backend | None = None
    run: _Run | None = None
    if store is not None:
        store.clear_running(str(game))  # marks left by a run that was killed
    try:
        frontier = Frontier(position, store)
        frontier.ask(question)
        if cluster is not None:
            backend = _DaskBackend(cluster)
            n_workers = backend.workers
        frontier.expand(jobs or JOBS_PER_WORKER * n_workers)
        if backend is None and any(n.kind in (JOB, STORED) for n in frontier.nodes):
            backend = _LocalBackend(n_workers, max(4 * len(frontier.nodes), LOCAL_JOB_SLOTS))
        run = _Run(frontier, backend, tt_mb, store, max_nodes, deadline, on_tick, n_workers)
        run.knowledge = knowledge
        run.max_job_seconds = max_job_seconds
        stopped = run.values()
        root = frontier.nodes[frontier.root]
        strategy_stopped: str | None = None
        if (not stopped and best_move and question == EXACT and root.kind == INNER
                and _best_move(frontier, position) is None):
            # the value rests on strategy stealing; prove a move that keeps it (the value stands if this stops)
            root.prior_lo = SECOND
            frontier.recompute(root)
            if run.values() is not None:
                root.prior_lo = DRAW
                frontier.recompute(root)
        tree: StrategyTree | None = None
        if not stopped and strategy and root.resolved and root.lo != DRAW:
            tree, strategy_stopped = run.strategy(position)
    finally:
        if backend is not None:
            backend.close()
        if store is not None:
            store.clear_running(str(game))
            store.close()
    seconds = time.perf_counter() - start
    best = None if stopped else _best_move(frontier, position)
    peak_kb = max(run.peak_rss_kb, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    if backend is not None and backend.name == "local":
        peak_kb = max(peak_kb, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return ParallelResult(
        str(game),
        position.move_text(),
        "unknown" if stopped else frontier.bounds_name(root.lo, root.hi),
        run.nodes,
        seconds,
        best,
        to_move,
        stopped=stopped,
        strategy=tree,
        workers=n_workers,
        backend=backend.name if backend is not None else "local",
        frontier_depth=frontier.depth,
        frontier_nodes=len(frontier.nodes),
        jobs=sum(1 for n in frontier.nodes if n.kind == JOB),
        jobs_solved=run.solved,
        jobs_stopped=run.stopped_jobs,
        jobs_from_checkpoint=sum(1 for n in frontier.nodes if n.stored),
        splits=run.splits,
        job_seconds=run.job_seconds,
        peak_rss_mb=peak_kb / 1024,
        strategy_stopped=strategy_stopped,
        log=run.log,
        knowledge=knowledge,
        knowledge_note=knowledge_reason(game) if knowledge != "none" else None,
    )


def _best_move(frontier: Frontier, position: Position) -> str | None:
    """A move of the root that keeps its value (the first such move in centre-first order)."""
    root = frontier.nodes[frontier.root]
    if not root.resolved:
        return None
    pos = position.copy()
    for cell in _ordered_moves(pos):
        pos.play(cell)
        score = frontier.score(str(pos.result)) if pos.is_over else _child_score(frontier, pos)
        pos.undo()
        if score == root.lo:
            return pos.name(cell)
    return None


def _children_prove(fr: Frontier, pos: Position, winner: int, win: int) -> bool:
    """Do the children's values prove the win (one winning move, or every reply still a win)?"""
    name = fr.result_name(win)
    oks = []
    for cell in pos.legal_moves():
        pos.play(cell)
        oks.append(pos.result == name if pos.is_over else _child_score(fr, pos) == win)
        pos.undo()
    return any(oks) if pos.to_move == winner else all(oks)


def _splits_well(node: Node, question: str) -> bool:
    """Is splitting this job likely to pay: a one-sided win test where the *other* player moves?

    Then a "yes" needs every child (no speculation), and a "no" needs one.
    Where the tested player moves, the kernel's own move order finds a win far
    faster than children tried in the frontier's static order, so such jobs
    (and exact-value jobs) are left whole.
    """
    if question == FIRST_WINS:
        return node.to_move == 2
    if question == SECOND_WINS:
        return node.to_move == 1
    return False


def _child_score(fr: Frontier, pos: Position) -> int | None:
    """The exact value of a position of the frontier (None if not known or not in the frontier)."""
    node_id = fr.by_key.get(fr.canonical(pos.board)[0])
    if node_id is None:
        return None
    node = fr.nodes[node_id]
    return node.lo if node.resolved else None


def _names(fr: Frontier, cells: Iterable[int]) -> list[str]:
    geo = fr.game.geometry
    return [geo.name(c) for c in cells]


class _Run:
    """The coordinator's loop: hand out needed jobs, collect values, stop what is no longer needed.

    A job's number is its frontier node's number.
    """

    def __init__(
        self,
        frontier: Frontier,
        backend: _Backend | None,
        tt_mb: float | None,
        store: JobStore | None,
        max_nodes: int | None,
        deadline: float | None,
        on_tick: Callable[[int], None] | None,
        workers: int,
    ) -> None:
        self.frontier = frontier
        self.backend = backend
        self.tt_mb = tt_mb
        self.knowledge = "none"
        self.store = store
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.on_tick = on_tick
        self.capacity = workers
        self.split_after = SPLIT_AFTER_SECONDS
        self.max_job_seconds: float | None = None  # split any job this old, busy workers or not
        self.splits = 0
        self.nodes = 0
        self.solved = 0
        self.stopped_jobs = 0
        self.job_seconds = 0.0
        self.peak_rss_kb = 0
        self.log: list[dict[str, Any]] = []
        self._marked: set[int] = set()  # the jobs the checkpoint shows as running

    def _budget_stop(self, backend: _Backend) -> str | None:
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            return "time limit"
        if self.max_nodes is not None and self.nodes + backend.live_nodes() >= self.max_nodes:
            return "node limit"
        return None

    def _collect(self, backend: _Backend, running: dict[int, Any], timeout: float) -> list[JobOutcome]:
        if not running:
            return []
        finished = backend.done(running.values(), timeout)
        by_handle = {id(h): j for j, h in running.items()}
        outs: list[JobOutcome] = []
        for handle in finished:
            del running[by_handle[id(handle)]]
            if handle.cancelled():
                continue
            out = backend.outcome(handle)
            self.nodes += out.nodes
            self.job_seconds += out.seconds
            self.peak_rss_kb = max(self.peak_rss_kb, out.peak_rss_kb)
            outs.append(out)
        return outs

    def _shutdown(self, backend: _Backend, running: dict[int, Any]) -> None:
        """Stop every job and wait (at most half a minute) for the workers to report back."""
        backend.stop_all()
        end = time.monotonic() + 30
        while running and time.monotonic() < end:
            for out in self._collect(backend, running, 0.1):
                self._log(out)

    def _mark_running(self, running: Collection[int], asked: dict[int, str]) -> None:
        """Keep the checkpoint's running marks equal to the jobs running now (written only on a change)."""
        if self.store is None:
            return
        now = set(running)
        if now == self._marked:
            return
        fr = self.frontier
        for job in self._marked - now:
            self.store.unmark_running(fr.game_text, fr.nodes[job].key)
        for job in now - self._marked:
            line = " ".join(_names(fr, fr.nodes[job].moves))
            self.store.mark_running(fr.game_text, fr.nodes[job].key, line, asked.get(job, "strategy"))
        self._marked = now

    def _tick(self, backend: _Backend) -> None:
        if self.on_tick is not None:
            self.on_tick(self.nodes + backend.live_nodes())

    def values(self) -> str | None:
        """Run value jobs until the root is decided; returns why it stopped early, or None."""
        fr = self.frontier
        backend = self.backend
        if fr.decided() or backend is None:
            return None
        running: dict[int, Any] = {}
        asked: dict[int, str] = {}  # the question each running job answers
        started: dict[int, float] = {}
        try:
            while not fr.decided():
                needed = fr.needed(running)
                wanted = dict(needed)
                for job, handle in list(running.items()):
                    question = wanted.get(job)
                    # keep a job while its answer still helps: same question, or one of them is the exact value
                    if question is None or (EXACT not in (question, asked[job]) and question != asked[job]):
                        backend.stop_job(job, handle)
                        self.stopped_jobs += 1
                        del running[job]
                if not needed and not running:
                    raise KinarowError("internal error: the root is open but no job is needed")
                for job, question in needed:
                    if len(running) >= self.capacity:
                        break
                    if job not in running:
                        spec = JobSpec(job, fr.game_text, fr.nodes[job].moves, self.tt_mb, question=question,
                                       knowledge=self.knowledge)
                        running[job] = backend.submit(spec)
                        asked[job] = question
                        started[job] = time.monotonic()
                # split the oldest job that is due: past max_job_seconds, or (a worker idle and nothing else
                # needed) past split_after with a question that splits well; its children take over
                now = time.monotonic()
                due: list[int] = []
                if len(fr.nodes) + fr.game.cells <= backend.max_jobs:
                    if self.max_job_seconds is not None:
                        due = [j for j in running
                               if fr.nodes[j].kind == JOB and now - started[j] >= self.max_job_seconds]
                    if not due and len(running) < self.capacity and all(job in running for job, _ in needed):
                        due = [j for j in running
                               if fr.nodes[j].kind == JOB and now - started[j] >= self.split_after
                               and _splits_well(fr.nodes[j], asked[j])]
                if due:
                    oldest = min(due, key=lambda j: started[j])
                    fr.split(oldest)
                    backend.stop_job(oldest, running.pop(oldest))
                    self.stopped_jobs += 1
                    self.splits += 1
                    continue
                for out in self._collect(backend, running, POLL_SECONDS):
                    self._record(out)
                self._mark_running(running, asked)
                self._tick(backend)
                why = self._budget_stop(backend)
                if why is not None and not fr.decided():
                    self._shutdown(backend, running)
                    return why
        except KeyboardInterrupt:
            self._shutdown(backend, running)
            return "interrupted"
        for job, handle in running.items():
            backend.stop_job(job, handle)
            self.stopped_jobs += 1
        running.clear()
        return None

    def _log(self, out: JobOutcome) -> dict[str, Any]:
        fr = self.frontier
        entry: dict[str, Any] = {
            "moves": " ".join(_names(fr, fr.nodes[out.job].moves)),
            "question": "strategy" if out.walk is not None else out.question,
            "value": "stopped" if out.bounds is None else fr.bounds_name(*out.bounds),
            "nodes": out.nodes,
            "seconds": round(out.seconds, 3),
            "worker": out.worker,
        }
        self.log.append(entry)
        return entry

    def _record(self, out: JobOutcome) -> None:
        entry = self._log(out)
        if out.bounds is None:
            return
        fr = self.frontier
        node = fr.nodes[out.job]
        self.solved += 1
        fr.settle(node.id, *out.bounds)
        if self.store is not None:
            bounds = (node.lo, node.hi)
            value = fr.bounds_name(*bounds)
            self.store.put(fr.game_text, node.key, entry["moves"], bounds, value, out.nodes, out.seconds)

    # -- the winner's strategy --------------------------------------------------------------
    def strategy(self, position: Position) -> tuple[StrategyTree | None, str | None]:
        """The winner's strategy: the frontier part from the DAG, the leaves' parts from extraction jobs."""
        fr = self.frontier
        win = fr.nodes[fr.root].lo
        winner = 1 if win == FIRST else 2
        tree = StrategyTree(fr.game_text, [position.name(c) for c in position.moves], fr.result_name(win), {})
        uses: dict[int, list[tuple[int, ...]]] = {}  # leaf node -> symmetries that map a real board onto it

        def leaf(pos: Position) -> bool:
            """A job's (or stored) position: its part of the strategy comes from an extraction job."""
            ckey, sym = fr.canonical(pos.board)
            node = fr.nodes[fr.by_key[ckey]]
            proved_here = node.own_lo == node.own_hi == win  # by its own job (a job split while it ran)
            if node.kind in (JOB, STORED) or (proved_here and not _children_prove(fr, pos, winner, win)):
                if sym not in uses.setdefault(node.id, []):
                    uses[node.id].append(sym)
                return True
            return False

        def choose(pos: Position) -> int:
            for cell in _ordered_moves(pos):
                pos.play(cell)
                ok = pos.result == tree.winner if pos.is_over else _child_score(fr, pos) == win
                pos.undo()
                if ok:
                    return cell
            raise KinarowError(f"internal error: no winning move after {pos.move_text() or '(start)'}")

        parts = [rows_of_choices(fr.game, follow(position, winner, choose, leaf))]  # the frontier's part
        who = FIRST_WINS if win == FIRST else SECOND_WINS  # the winner, known from the frontier
        backend = self.backend
        if uses and backend is None:
            raise KinarowError("internal error: frontier leaves to extract but no workers")

        def add_leaf(n: int, walk: bytes) -> None:
            rows = rows_of_walk(fr.position(fr.nodes[n]), winner, walk)
            parts.extend(mapped(rows, sym) for sym in uses[n])

        running: dict[int, Any] = {}
        try:
            pending = []
            for n in uses:
                node = fr.nodes[n]
                kept = None if self.store is None else self.store.get_strategy(fr.game_text, node.key, tree.winner)
                if kept is not None:  # extracted by an earlier run
                    add_leaf(n, kept)
                    continue
                pending.append(JobSpec(n, fr.game_text, node.moves, self.tt_mb, strategy=True, question=who,
                                       knowledge=self.knowledge))
            while pending or running:
                assert backend is not None
                while pending and len(running) < self.capacity:
                    spec = pending.pop(0)
                    running[spec.job] = backend.submit(spec)
                for out in self._collect(backend, running, POLL_SECONDS):
                    if out.walk is None:
                        self._shutdown(backend, running)
                        return None, "interrupted"
                    self._log(out)
                    if self.store is not None:
                        node = fr.nodes[out.job]
                        line = " ".join(_names(fr, node.moves))
                        self.store.put_strategy(fr.game_text, node.key, line, tree.winner, out.walk, out.seconds)
                    add_leaf(out.job, out.walk)
                self._mark_running(running, {})
                self._tick(backend)
                why = self._budget_stop(backend)
                if why is not None:
                    self._shutdown(backend, running)
                    return None, why
            walk = merged_walk(position, winner, parts)
        except KeyboardInterrupt:
            if backend is not None:
                self._shutdown(backend, running)
            return None, "interrupted"
        return replace(tree, walk=walk), None
