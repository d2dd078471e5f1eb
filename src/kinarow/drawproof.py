"""Draw certificates from search: blocking trees with pairing leaves (checked by :mod:`kinarow.proofs.draw`).

To show that the *attacker* cannot win, the defender's strategy is written
out as a tree (see :mod:`kinarow.proofs.draw` for the format). The tree is
built by a walk that follows every attacker move and, at each defender turn,
picks one move:

1. a move after which a pairing of the attacker's live groups holds, or that
   completes a defender group, ends the branch at once;
2. otherwise the moves are ranked by a two-stone look-ahead (how many
   attacker replies leave the defender such a move;
   :func:`kinarow.engine.breaker.reply_scores`), ties broken by the
   Erdos-Selfridge potential of the attacker's live groups (lower first;
   :func:`kinarow.engine.breaker.potentials`), and the best one that the
   solver proves safe (the attacker, to move, cannot win) is played.

Pairings found at leaves are kept and tried first at later leaves, so one
pairing serves many leaves. Positions already proved, or symmetric to one,
are skipped, exactly as the checker skips them.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from kinarow.engine import breaker as BK
from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position, value_names
from kinarow.proofs import blocking_applies, envelope
from kinarow.proofs.draw import EXPAND, FORMAT, HALVES, LEAF, STEALING, TREE, VERSION, Canon, claim_for
from kinarow.proofs.draw import stealing_applies as stealing_applies

#: node budget of one pairing search at a node of the walk
PAIR_BUDGET = 4096
#: node budget of each pairing search inside the two-stone look-ahead (many per node: kept small)
LOOKAHEAD_BUDGET = 64
#: pairings kept (most recent first) and tried at a node before a new search
CACHE_ROWS = 256
LEAF_SCORE = 1 << 20


class StoppedError(KinarowError):
    """The walk was stopped (time limit or Ctrl-C) before the tree was complete."""


@dataclass
class TreeStats:
    """Figures of one blocking tree: its positions, leaves and defender moves, and the walk's work."""

    positions: int = 0
    leaves: int = 0
    defender_moves: int = 0
    safety_tests: int = 0
    refuted_candidates: int = 0
    pairings: int = 0
    seconds: float = 0.0


class _Walk:
    def __init__(self, position: Position, attacker: int, searcher: Any, budget: int,
                 tick: Callable[[int], None] | None, deadline: float | None, safety_budget: int | None) -> None:
        self.position = position
        self.attacker, self.defender = attacker, 3 - attacker
        self.searcher = searcher
        game = position.game
        geo = position.geometry
        self.masks = np.array([sum(1 << c for c in g) for g in geo.groups], np.uint64)
        self.pbuf = BK.new_buffers(game.cells, max(int(self.masks.size), 1))
        self.kctrl = np.zeros(BK.N_CTRL, np.int64)
        self.out = np.zeros(game.cells, np.uint64)
        self.scores = np.zeros(game.cells, np.int64)
        self.potential = np.zeros(game.cells, np.float64)
        self.budget = budget
        # a ring of the pairings found most recently (pair masks per row), tried before a new search
        self.cache = np.zeros((CACHE_ROWS, max(game.cells // 2, 1)), np.uint64)
        self.lengths = np.zeros(CACHE_ROWS, np.int64)
        self.index_of = np.zeros(CACHE_ROWS, np.int64)
        self.used = 0
        self.newest = -1
        self.texts: list[str] = []
        self.tokens: list[str] = []
        self.canon = Canon(position)
        self.proved: set[bytes] = set()
        self.order: list[bytes] = []  # the proved positions in the order they were proved (for roll-backs)
        self.safety_budget = safety_budget
        self.attacker_win = value_names(game)[attacker - 1]
        self.stats = TreeStats()
        self.tick = tick
        self.deadline = deadline

    def _bits(self, pos: Position) -> tuple[np.uint64, np.uint64]:
        return np.uint64(pos.bits[self.attacker]), np.uint64(pos.bits[self.defender])

    def _pairing(self, pos: Position) -> int | None:
        """Index of a pairing that holds at ``pos`` (a recent one, or one found now), or None."""
        M, B = self._bits(pos)
        if self.used:
            row = BK.cached_pairing(self.masks, M, B, self.cache, self.lengths, self.used, self.newest)
            if row >= 0:
                return int(self.index_of[row])
        self.kctrl[:] = 0
        self.kctrl[BK.C_BUDGET] = self.budget
        n = BK.pairing_pairs(self.masks, M, B, self.pbuf, self.kctrl, self.out)
        if n < 0:
            return None
        names = []
        for p in self.out[:n]:
            a, b = (c for c in range(pos.geometry.size) if int(p) >> c & 1)
            names.append(f"{pos.name(a)}-{pos.name(b)}")
        self.texts.append(" ".join(names))
        self.newest = (self.newest + 1) % CACHE_ROWS
        self.used = min(self.used + 1, CACHE_ROWS)
        self.cache[self.newest, :n] = self.out[:n]
        self.lengths[self.newest] = n
        self.index_of[self.newest] = len(self.texts) - 1
        return len(self.texts) - 1

    def _safe(self, pos: Position) -> bool | None:
        """After the defender's move: can the attacker (to move) not win? By the solver, within the safety
        budget (None: not decided; the walk then tries the move and backs up if it fails)."""
        if pos.is_over:
            return True
        self.stats.safety_tests += 1
        wins = self.searcher.can_win(pos, self.safety_budget)
        return None if wins is None else not wins

    def _ranked(self, pos: Position) -> list[tuple[int, int]]:
        """The defender's moves with their look-ahead scores, best first (losing at once: left out)."""
        M, B = self._bits(pos)
        empty = np.uint64(0)
        for c in pos.legal_moves():
            empty |= np.uint64(1 << c)
        BK.reply_scores(self.masks, M, B, empty, self.pbuf, self.kctrl, LOOKAHEAD_BUDGET, self.scores)
        BK.potentials(self.masks, M, B, empty, self.potential)
        order = sorted(pos.legal_moves(), key=lambda c: (-int(self.scores[c]), float(self.potential[c])))
        return [(c, int(self.scores[c])) for c in order if self.scores[c] >= 0]

    def _rollback(self, tokens: int, proved: int) -> None:
        """Forget what a failed attempt wrote: its tokens and the positions it proved (both are re-done)."""
        del self.tokens[tokens:]
        for key in self.order[proved:]:
            self.proved.discard(key)
        del self.order[proved:]

    def _done(self, key: bytes) -> bool:
        self.proved.add(key)
        self.order.append(key)
        if len(self.proved) % 1024 == 0:
            if self.tick is not None:
                self.tick(len(self.proved))
            if self.deadline is not None and time.perf_counter() > self.deadline:
                raise StoppedError("the time limit ran out before the blocking tree was complete")
        return True

    def visit(self, pos: Position) -> bool:
        """Prove that the attacker cannot win from ``pos``, writing the tokens; False if this walk cannot."""
        if pos.is_over:
            return pos.result != self.attacker_win
        key = self.canon.key(pos.board)
        if key in self.proved:
            return True
        index = self._pairing(pos)
        if index is not None:
            self.tokens.append(f"{LEAF}{index}")
            self.stats.leaves += 1
            return self._done(key)
        mark = (len(self.tokens), len(self.order))
        if pos.to_move == self.attacker:
            self.tokens.append(EXPAND)
            for cell in pos.legal_moves():
                pos.play(cell)
                ok = self.visit(pos)
                pos.undo()
                if not ok:
                    self._rollback(*mark)
                    return False
            return self._done(key)
        for cell, score in self._ranked(pos):
            pos.play(cell)
            safe = True if score >= LEAF_SCORE else self._safe(pos)
            ok = False
            if safe is not False:
                self.tokens.append(pos.name(cell))
                ok = self.visit(pos)
            pos.undo()
            if ok:
                self.stats.defender_moves += 1
                return self._done(key)
            self._rollback(*mark)
            self.stats.refuted_candidates += 1
        return False


def blocking_tree(
    position: Position,
    attacker: int,
    searcher: Any,
    *,
    budget: int = PAIR_BUDGET,
    tick: Callable[[int], None] | None = None,
    deadline: float | None = None,
    safety_budget: int | None = None,
) -> tuple[dict[str, Any], TreeStats]:
    """The defender's blocking tree showing that ``attacker`` (1 or 2) cannot win from ``position``.

    ``searcher`` is a :class:`kinarow.solve.Searcher` of the game (knowledge
    ``pairing`` is fastest); it proves each chosen defender move safe before
    the walk goes on. With ``safety_budget`` (nodes) a move the solver cannot
    decide within the budget is tried anyway, and the walk backs up to the
    next move if the attacker wins below it. Raises :class:`KinarowError` if
    the attacker can in fact win.
    """
    why_not = blocking_applies(position.game)
    if why_not is not None:
        raise KinarowError(f"a blocking tree proves nothing here: {why_not}")
    start = time.perf_counter()
    walk = _Walk(position, attacker, searcher, budget, tick, deadline, safety_budget)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * position.game.cells + 200))
    try:
        proved = walk.visit(position.copy())
    finally:
        sys.setrecursionlimit(limit)
    if not proved:
        raise KinarowError(f"the defender has no move that stops the attacker after {position.move_text() or '(start)'}"
                           "; the position is not one the attacker cannot win")
    stats = walk.stats
    stats.positions = len(walk.proved)
    # the final tree's figures (the counters above also saw attempts that were backed up)
    stats.leaves = sum(1 for t in walk.tokens if t.startswith(LEAF))
    stats.defender_moves = sum(1 for t in walk.tokens if t != EXPAND and not t.startswith(LEAF))
    stats.pairings = len(walk.texts)
    stats.seconds = time.perf_counter() - start
    return {"method": TREE, "pairings": walk.texts, "tokens": " ".join(walk.tokens)}, stats


def draw_certificate(
    position: Position,
    searcher: Any,
    *,
    tick: Callable[[int], None] | None = None,
    deadline: float | None = None,
    safety_budget: int | None = None,
) -> tuple[dict[str, Any], dict[str, TreeStats]]:
    """A ``kinarow.draw`` certificate for a position whose value is a draw (or for its halves the
    solver can prove: the first player's side always, the second by strategy stealing or a tree)."""
    game: Game = position.game
    moves = [position.name(c) for c in position.moves]
    halves: dict[str, Any] = {}
    stats: dict[str, TreeStats] = {}
    for player in (1, 2):
        name = HALVES[player]
        if player == 2 and stealing_applies(game, moves) is None:
            halves[name] = {"method": STEALING}
            continue
        halves[name], stats[name] = blocking_tree(position, player, searcher, tick=tick, deadline=deadline,
                                                  safety_budget=safety_budget)
    data = {**envelope(FORMAT, VERSION, str(game), moves, claim_for(game, {1, 2})), **halves}
    return data, stats
