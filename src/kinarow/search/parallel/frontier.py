"""The frontier: the top of the game tree as a DAG of canonical positions with value bounds.

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
alpha-beta walk over the bounds (:meth:`Frontier.needed`): a job whose value
can no longer change the root's is skipped, and if already running it is told
to stop. The walk's window also says what a job must answer: the exact value
(both of the solver's win tests), or just one of "can the first player win?" /
"can the second player win?" (one win test, about half the work). Jobs are
handed out in the order of that walk (centre moves first), a few at a time, so
the most promising lines are solved first -- the job-level counterpart of the
kernel's move ordering.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import MAKER_BREAKER, NORMAL, Game
from kinarow.position import Position, value_names
from kinarow.proofs.tree import winning_stone
from kinarow.search.parallel.checkpoint import SYMBOLS, JobStore, canonical_board
from kinarow.values import Bound, Value

__all__ = [
    "DRAW", "EXACT", "FIRST", "FIRST_WINS", "IMMEDIATE", "INNER", "JOB", "SECOND", "SECOND_WINS", "STORED",
    "SYMBOLS", "TERMINAL", "Frontier", "Node", "canonical_board", "expand", "immediate_win", "key_bits",
    "ordered_moves", "start_position", "stored_frontier", "stored_value",
]

# Values, from the first player's view
FIRST, DRAW, SECOND = 1, 0, -1


def score_of(game: Game, value: Value | Bound) -> int:
    """A value as the frontier's score (``FIRST``, ``DRAW``, ``SECOND``: ordered, so that bounds back up by
    min and max); the one place a :class:`~kinarow.values.Value` becomes one (``Frontier.result_name`` and
    ``bounds_name`` turn scores back)."""
    if value == Value.DRAW:
        return DRAW
    return FIRST if value == value_names(game)[0] else SECOND

# Job questions
EXACT, FIRST_WINS, SECOND_WINS = "exact", "first-wins", "second-wins"
#: each question as the root's alpha-beta window (the first player's view)
_WINDOWS = {EXACT: (SECOND - 1, FIRST + 1), FIRST_WINS: (DRAW, FIRST + 1), SECOND_WINS: (SECOND - 1, DRAW)}

# Node kinds
TERMINAL, IMMEDIATE, STORED, JOB, INNER = "terminal", "immediate", "stored", "job", "inner"


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
        #: nodes split at the move a search was following (:meth:`split`): their eldest child is asked first
        self.led: set[int] = set()
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
        self.root_board = tuple(position.board)
        root = self.nodes[self.root]
        if (position.stones == 0 and self.game.goal == NORMAL and not self.game.gravity and self.game.p <= self.game.q
                and not self.game.exact):
            # strategy stealing: an extra stone never hurts, so the second player cannot force a win
            root.prior_lo = DRAW
            self._recompute(root)

    # canonical frames
    def canonical(self, board: list[int]) -> tuple[str, tuple[int, ...]]:
        """The smallest image of ``board`` under the symmetries, and the symmetry that gives it."""
        return canonical_board(board, self.syms)

    def score(self, result: Value) -> int:
        return score_of(self.game, result)

    def result_name(self, score: int) -> Value:
        return {FIRST: self.first_name, SECOND: self.second_name, DRAW: Value.DRAW}[score]

    def bounds_name(self, lo: int, hi: int) -> Value | Bound:
        """``first``, ``draw``, ... for an exact value; ``first-or-draw`` / ``second-or-draw`` for a bound
        (a Maker-Breaker frontier has no draws, so its bounds are always exact)."""
        if lo == hi:
            return self.result_name(lo)
        if (lo, hi) == (DRAW, FIRST):
            return Bound.FIRST_OR_DRAW
        if (lo, hi) == (SECOND, DRAW):
            return Bound.SECOND_OR_DRAW
        return Value.UNKNOWN

    def _node_for(self, pos: Position) -> int:
        key, sym = self.canonical(pos.board)
        found = self.by_key.get(key)
        if found is not None:
            return found
        moves = tuple(sym[c] for c in pos.moves)
        node = Node(len(self.nodes), key, moves, pos.to_move if not pos.is_over else 0, JOB)
        if pos.is_over:
            node.kind = TERMINAL
            assert pos.result is not None
            node.lo = node.hi = self.score(pos.result)
        else:
            stored = self.store.get(self.game_text, key) if self.store is not None else None
            if stored is not None:
                node.lo, node.hi = stored
                node.stored = True
                if node.resolved:
                    node.kind = STORED
            if not node.resolved and (win := immediate_win(pos)) is not None:
                node.kind = IMMEDIATE
                node.lo = node.hi = self.score(win)
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
        """Grow the frontier a level at a time until it holds at least ``target`` jobs, open or finished in the
        checkpoint: a resumed run grows the frontier of the run that wrote the file, not one level more (under a
        one-sided question that level would split the tested player's nodes into a job a move)."""
        level = [self.nodes[self.root]] if self.nodes[self.root].kind == JOB else []
        stored = 0
        while level and len(level) + stored < target and (max_depth is None or self.depth < max_depth):
            next_level: list[Node] = []
            seen: set[int] = set()
            for node in level:
                next_level.extend(self._expand_node(node))
                seen.update(c for c in node.children if self.nodes[c].kind == STORED)
            stored = len(seen)
            self.depth += 1
            level = next_level
        followed = self._follow_store()
        self._recompute_inner()
        if self._fold_undecided(followed):
            self._recompute_inner()

    def _recompute_inner(self) -> None:
        """Back up the bounds of every inner node from its children, the deepest first."""
        for node in sorted(self.nodes, key=lambda n: -len(n.moves)):
            if node.kind == INNER:
                self._recompute(node)

    def _fold_undecided(self, followed: list[Node]) -> bool:
        """Under a one-sided question, make a job again of each node that following the checkpoint expanded where
        the tested player moves and that the stored jobs below do not decide; True if any.

        Such a node is reached when stored jobs lie below it by transposition (a split reply's children, written in
        another order, extend other replies too); expanded, its moves would all become jobs, where one job of the
        node lets the proof search choose the move. (Where a stored job decides the node, the expansion stays.)"""
        tested = {_WINDOWS[FIRST_WINS]: 1, _WINDOWS[SECOND_WINS]: 2}.get(self.window)
        if tested is None:
            return False
        alpha, beta = self.window
        folded = False
        for node in sorted(followed, key=lambda n: len(n.moves)):  # the shallowest first: its subtree goes with it
            if node.kind != INNER or node.to_move != tested or node.resolved or node.hi <= alpha or node.lo >= beta:
                continue
            for child in node.children:
                self.nodes[child].parents.remove(node.id)
            node.children = []
            node.kind = JOB
            self._recompute(node)  # its own bounds again (a job is not recomputed with the inner nodes)
            folded = True
        if folded:
            self.version += 1
        return folded

    def _follow_store(self) -> list[Node]:
        """Follow the checkpoint down: split again every open leaf an earlier run split (at the same first move),
        and expand every other open leaf below which the checkpoint holds finished jobs; returns the nodes
        expanded for the finished jobs (not the kept splits).

        A resumed solve so goes on where the split jobs left off, instead of running each until it is due for a
        split again; and a run with more jobs (or one that split its long jobs) leaves answers deeper than this
        run's frontier: following them down means a resumed solve reuses all of them, whatever ``jobs`` it is
        given.
        """
        if self.store is None:
            return []
        kept = self.store.splits(self.game_text, self.game.cells)
        below = self._stored_sub_boards()
        todo = [n for n in self.nodes if n.kind == JOB and not n.resolved]
        followed: list[Node] = []
        while todo:
            node = todo.pop()
            if node.kind != JOB or node.resolved:
                continue
            if node.key in kept:
                first = kept[node.key]
                if first is not None and first not in self.position(node).legal_moves():
                    raise KinarowError(f"the checkpoint '{self.store.path}' has a damaged row: a split's first "
                                       "move is not a legal move; delete the file to start again")
                todo.extend(self.nodes[i] for i in self.split(node.id, first))
            elif key_bits(node.key) in below:
                todo.extend(self._expand_node(node))
                followed.append(node)
                self.depth = max(self.depth, len(node.moves) - len(self.nodes[self.root].moves) + 1)
        return followed

    def _stored_sub_boards(self) -> set[tuple[int, int]]:
        """The boards, in every frame, below which following the checkpoint finds stored work: each board a
        stored job's or a kept split's move line passes through before its end, and each board that a stored
        job's board extends by one or two stones (also by transposition). Only boards with at least the root's
        stones are kept.

        An open leaf is expanded when following the checkpoint exactly when its canonical board is in this set,
        so that is one look-up per leaf. The lines lead down to deep jobs (an earlier run's deeper frontier,
        chains of splits); the near sub-boards find the jobs that lie one or two stones below a leaf by another
        order of the same stones (the frontier is a graph: a node's line is the first that reached it). Every
        sub-board of every stored board (2^s of a board of s stones) grew a frontier of millions of nodes from
        (18,4,4)'s jobs of 16 stones. A line that does not play is a damaged row.
        """
        least = len(self.nodes[self.root].moves)
        below: set[tuple[int, int]] = set()
        assert self.store is not None
        for line in self.store.lines(self.game_text):
            pos = self.game.start()
            try:
                pos.play_moves(line)
            except KinarowError:
                raise KinarowError(f"the checkpoint '{self.store.path}' has a damaged row: the move line "
                                   f"'{line[:60]}' does not play; delete the file to start again") from None
            while len(pos.moves) > least:  # back up the line: every board before its end
                pos.undo()
                below.add(key_bits(self.canonical(pos.board)[0]))
        for key in self.store.positions(self.game_text):
            x, o = key_bits(key)
            for sym in self.syms:
                sx = so = 0
                for c in _cells_of(x):
                    sx |= 1 << sym[c]
                for c in _cells_of(o):
                    so |= 1 << sym[c]
                full = sx | so
                if full.bit_count() - 1 < least:
                    continue
                for c in _cells_of(full):  # one stone fewer, then two
                    one = full & ~(1 << c)
                    below.add((sx & one, so & one))
                    if one.bit_count() - 1 >= least:
                        for d in _cells_of(one):
                            two = one & ~(1 << d)
                            below.add((sx & two, so & two))
        return below

    def split(self, node_id: int, first: int | None = None) -> list[int]:
        """Expand one open leaf by a stone (its children become jobs); returns the new open leaves.

        ``first`` (a cell, as the leaf's board has it): the move a search of the leaf was following; its child
        comes first, and the leaf's children are asked one at a time (a win test of the player to move needs
        one child that wins: the others wait until the one asked has failed)."""
        node = self.nodes[node_id]
        fresh = self._expand_node(node)
        if first is not None:
            pos = self.position(node)
            pos.play(first)
            lead = self.by_key[self.canonical(pos.board)[0]]
            node.children.remove(lead)
            node.children.insert(0, lead)
            self.led.add(node_id)
        self.depth = max(self.depth, len(node.moves) - len(self.nodes[self.root].moves) + 1)
        if self._recompute(node):
            self._carry_up(node)
        return [n.id for n in fresh]

    def _expand_node(self, node: Node) -> list[Node]:
        self.version += 1
        node.kind = INNER
        pos = self.position(node)
        fresh: list[Node] = []
        for cell in ordered_moves(pos):
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

    def settled(self) -> tuple[Value | Bound, list[str]]:
        """The root's value or bound in words, and the lines of the jobs that can change it, from the start of the
        game and turned into the root position's frame (so that they begin with the root's own moves)."""
        root = self.nodes[self.root]
        return self.bounds_name(root.lo, root.hi), [" ".join(self.cell_names(self.in_root_frame(self.nodes[job].moves)))
                                                    for job, _ in self.needed()]

    def in_root_frame(self, line: tuple[int, ...]) -> tuple[int, ...]:
        """A line of a node (in the node's canonical frame) under the symmetry that puts its first stones on the
        root position's own stones, player for player; the line as it is when none does."""
        stones = sum(1 for v in self.root_board if v)
        for sym in self.syms:
            if all(self.root_board[sym[c]] == self.game.turn_state(i)[0] for i, c in enumerate(line[:stones])):
                return tuple(sym[c] for c in line)
        return line

    def replies(self, position: Position) -> list[tuple[str, Value | Bound]]:
        """The moves from ``position`` (the root, in its own frame), one per symmetry class, each with its value
        or bound in words; moves the frontier has no node for (the root was never expanded) are left out."""
        out: list[tuple[str, Value | Bound]] = []
        seen: set[int] = set()
        for cell in ordered_moves(position):
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
                if open_kid and (node.id in self.led or (i == 0 and self.eldest_first)):
                    # a node split at its search's move asks one child at a time, that move's first
                    break  # the younger brothers wait until the eldest is decided

        walk(self.nodes[self.root], *self.window)
        self._needed_cache = (state, out)
        return list(out)

    # queries the coordinator asks
    def child_score(self, pos: Position) -> int | None:
        """The exact value of a position of the frontier (None if not known or not in the frontier)."""
        node_id = self.by_key.get(self.canonical(pos.board)[0])
        if node_id is None:
            return None
        node = self.nodes[node_id]
        return node.lo if node.resolved else None

    def best_move(self, position: Position) -> str | None:
        """A move of the root that keeps its value (the first such move in centre-first order)."""
        root = self.nodes[self.root]
        if not root.resolved:
            return None
        pos = position.copy()
        for cell in ordered_moves(pos):
            pos.play(cell)
            score = self.score(pos.result) if pos.is_over and pos.result is not None else self.child_score(pos)
            pos.undo()
            if score == root.lo:
                return pos.name(cell)
        return None

    def children_prove(self, pos: Position, winner: int, win: int) -> bool:
        """Do the children's values prove the win (one winning move, or every reply still a win)?"""
        name = self.result_name(win)
        oks = []
        for cell in pos.legal_moves():
            pos.play(cell)
            oks.append(pos.result == name if pos.is_over else self.child_score(pos) == win)
            pos.undo()
        return any(oks) if pos.to_move == winner else all(oks)

    def cell_names(self, cells: Iterable[int]) -> list[str]:
        geo = self.game.geometry
        return [geo.name(c) for c in cells]


def key_bits(key: str) -> tuple[int, int]:
    """The first and second player's stones of a stored board (``.xo`` per cell) as bit sets."""
    x = o = 0
    for c, ch in enumerate(key):
        if ch == SYMBOLS[1]:
            x |= 1 << c
        elif ch == SYMBOLS[2]:
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


def stored_frontier(position: Position, store: JobStore, question: str = EXACT) -> Frontier:
    """The frontier a resumed solve of ``position`` asking ``question`` starts from: the stored jobs followed down,
    bounds backed up."""
    frontier = Frontier(position, store)
    frontier.ask(question)
    frontier.expand(1)
    return frontier


def ordered_moves(pos: Position) -> list[int]:
    """Legal moves, cells on many groups (the centre) first."""
    incidence = pos.geometry.cell_groups
    return sorted(pos.legal_moves(), key=lambda c: (-len(incidence[c]), c))


def immediate_win(pos: Position, every_move: bool = False) -> Value | None:
    """The mover's win if one stone ends the game in the mover's favour, else None.

    ``every_move`` plays every legal stone through the rules instead of only
    the cells that can end the game (the tests compare the two).
    """
    mine = Value.win(pos.game.goal, pos.to_move)
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
    position = start_position(target, moves)
    frontier = Frontier(position)
    frontier.expand(jobs, max_depth)
    return frontier


def start_position(target: Game | Position | str, moves: str | None) -> Position:
    """The position a solve of ``target`` (after ``moves``) starts from; a given Position is copied."""
    position = target.copy() if isinstance(target, Position) else Game(target).start()
    if moves:
        position.play_moves(moves)
    return position
