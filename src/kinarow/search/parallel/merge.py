"""One winner's strategy from many parts, merged as arrays of rows.

A parallel solve proves a win from many leaf positions, each with its own
strategy (a walk, found in its canonical frame), and a frontier part above
them. Merging them board by board in Python dictionaries costs a few hundred
bytes a move; here a part is first read into exact rows:

    keys[i] = (bx, bo)   the position, two bitboards of one uint64 word each,
                          or of two words (low word first) on boards of more
                          than 64 cells (the layout of
                          :mod:`kinarow.proofs.tree_kernel`: bit c = cell c,
                          column-major, Black / Maker in bx, White / Breaker in bo)
    cells[i]             the winner's move there, a cell number

and, once carried to the real board, kept as fingerprinted rows of 9 bytes a
move (:class:`Fingers`: the position's 64-bit fingerprint,
:func:`kinarow.proofs.tree_kernel.finger`, and the move), so that a merge of
a few hundred million moves fits in memory.

The steps: a walk is read into rows by replaying it (the checker's STREAM
mode, which notes each move's position); rows found in a leaf's canonical
frame are carried to the real board by permuting bits and fingerprinted; all
parts are joined and each fingerprint keeps the first row given for it; one
more replay from the start (ENCODE_FINGER mode) writes the moves that play
reaches, in order, as the merged walk.

Any part's move at a shared position is sound: each part's rows win from
every position of theirs, so by induction on the empty cells each position
the merged walk reaches wins with the merged moves. Two positions that share
a fingerprint (about one chance in 10^19 per pair) would share a move; the
final replay plays every line and fails loudly unless the moves still win, and
the merged walk is a certificate that the exact checkers verify on their own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numba import njit

from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)
from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position
from kinarow.proofs import tree_kernel as TK
from kinarow.proofs.tree import StrategyTree, keyed_rows, replay
from kinarow.search.parallel.checkpoint import unpack_shared
from kinarow.values import Value

Rows = tuple[np.ndarray, np.ndarray]  # (keys: (n, 2 * words) uint64, cells: (n,) int64)
Fingers = tuple[np.ndarray, np.ndarray]  # (fingerprints: (n, 1) uint64, cells: (n,) uint8)


def key_words(size: int) -> int:
    """The uint64 words of one side's bitboard in a row's key, on a board of ``size`` cells."""
    return 1 if size <= 64 else 2


def rows_of_walk(position: Position, winner: int, walk: bytes) -> Rows:
    """The rows of a walk from ``position`` for ``winner`` (1 or 2), in the walk's order."""
    cells = np.frombuffer(walk, np.uint8)
    keys = np.zeros((len(cells), 2 * key_words(position.geometry.size)), np.uint64)
    status, _, _, read, _ = replay(position, winner, TK.STREAM, keys, cells, np.zeros(0, np.uint8),
                                   np.zeros(0, np.int64))
    if status != TK.OK or read != len(cells):
        raise KinarowError(f"internal error: a leaf's walk after {position.move_text() or 'the start'} does not "
                           f"replay ({read:,} of {len(cells):,} moves read)")
    return keys, cells.astype(np.int64)


def rows_of_choices(game: Game, choices: dict[str, str]) -> Rows:
    """The rows of a strategy keyed by board (board keys and cell names)."""
    tree = StrategyTree(str(game), [], Value.UNKNOWN, choices)  # the rows need no winner
    _, keys, cells = keyed_rows(tree, game.geometry)
    if len(cells) != len(choices) or (cells < 0).any():
        raise KinarowError("internal error: a keyed strategy holds a board or move that is not on the board")
    return keys, cells


def mapped(rows: Rows, sym: Sequence[int]) -> Rows:
    """Rows found on a canonical board, carried to the real board that ``sym`` sends onto it.

    ``sym`` maps the real board onto the canonical one: ``canonical[sym[c]] = real[c]``.
    """
    keys, cells = rows
    if all(s == c for c, s in enumerate(sym)):
        return rows
    words = keys.shape[1] // 2
    real = np.zeros_like(keys)
    one = np.uint64(1)
    for side in range(2):
        for c, s in enumerate(sym):
            source = keys[:, side * words + s // 64]
            real[:, side * words + c // 64] |= ((source >> np.uint64(s % 64)) & one) << np.uint64(c % 64)
    inverse = np.empty(len(sym), np.int64)
    inverse[np.asarray(sym, np.int64)] = np.arange(len(sym))
    return real, inverse[cells]


@njit(cache=True)
def _fingerprints(keys, words):  # type: ignore[no-untyped-def]
    out = np.empty((keys.shape[0], 1), np.uint64)
    for i in range(keys.shape[0]):
        if words == 1:
            out[i, 0] = TK.finger(keys[i, 0], keys[i, 1])
        else:
            out[i, 0] = TK.finger((keys[i, 0], keys[i, 1]), (keys[i, 2], keys[i, 3]))
    return out


def fingered(rows: Rows) -> Fingers:
    """Rows as fingerprinted rows: each position's fingerprint, and its move."""
    keys, cells = rows
    return _fingerprints(np.ascontiguousarray(keys), keys.shape[1] // 2), cells.astype(np.uint8)


def joined(parts: Sequence[Fingers]) -> Fingers:
    """All parts' rows, one per fingerprint (the first part's where several give one), sorted by fingerprint
    as the replay's look-up wants them."""
    if not parts:
        return np.zeros((0, 1), np.uint64), np.zeros(0, np.uint8)
    keys = np.concatenate([k[:, 0] for k, _ in parts])
    cells = np.concatenate([c for _, c in parts])
    order = np.argsort(keys, kind="stable")
    keys, cells = keys[order], cells[order]
    del order
    first = np.ones(len(keys), bool)
    first[1:] = keys[1:] != keys[:-1]
    return np.ascontiguousarray(keys[first]).reshape(-1, 1), np.ascontiguousarray(cells[first])


def merged_walk(position: Position, winner: int, parts: Sequence[Fingers],
                on_tick: Callable[[int], None] | None = None) -> bytes:
    """The walk from ``position`` that plays the parts' moves (see the module's note); every part's rows
    must win from their positions, else the merge is an internal error."""
    keys, cells = joined(parts)
    used = np.zeros(len(keys), np.uint8)
    out = np.zeros(len(keys), np.uint8)
    status, _, depth, read, line = replay(position, winner, TK.ENCODE_FINGER, keys, cells, used, out, on_tick)
    if status != TK.OK:
        where = " ".join(position.name(int(c)) for c in line[:depth]) or "(start)"
        raise KinarowError(f"internal error: the merged strategy fails its check after {position.move_text()} "
                           f"{where} (status {status})")
    return out[:read].tobytes()


# -- parts with shared replies (strategy walks of version 4) --------------------------------------------------------

class SharedMerge:
    """Parts merged into one walk with shared replies (version 4), in Python dictionaries.

    Each part (the frontier's moves by board, a leaf's walk of version 3 or 4 from its canonical position) is
    read into rows of the real board: ``moves[(a, d, e)]``, the winner's move where the winner holds ``a`` and
    the loser ``d`` with ``e`` stones beyond its turns, and ``sets[(a, d, e)]``, the sets a part gave the
    loser's turn there. A position keeps the first part's row, as in the exact merge above, and each part's
    rows win from every position of theirs (a set's subtree included), so the walk read from them wins; it is
    a certificate that the checkers verify on their own.
    """

    def __init__(self, game: Game, winner: int) -> None:
        from kinarow.search.shared_walk import Stones

        self.game, self.winner = game, winner
        self.stones = Stones(game)
        self.moves: dict[tuple[int, int, int], int] = {}
        self.sets: dict[tuple[int, int, int], list[list[int]]] = {}

    def add_choices(self, choices: dict[str, str]) -> None:
        """The frontier's part: the winner's move by board key (``x`` Black, ``o`` White)."""
        geo = self.game.geometry
        mine, theirs = ("x", "o") if self.winner == 1 else ("o", "x")
        for key, name in choices.items():
            a = sum(1 << c for c, ch in enumerate(key) if ch == mine)
            d = sum(1 << c for c, ch in enumerate(key) if ch == theirs)
            self.moves.setdefault((a, d, 0), geo.parse_cell(name))

    def add_walk(self, position: Position, blob: bytes, syms: Sequence[Sequence[int]]) -> None:
        """A leaf's part: its walk (``blob`` as stored: :func:`pack_shared`, or a version 3 walk) from
        ``position`` (the leaf's canonical one), carried to the real board by each of ``syms`` (each maps the
        real board onto the canonical one, as for :func:`mapped`)."""
        shared = unpack_shared(blob)
        walk = blob if shared is None else shared[0]
        moves, sets = self.stones.read(position, self.winner, walk, shared is not None)
        for sym in syms:
            inverse = [0] * len(sym)
            for c, s in enumerate(sym):
                inverse[s] = c
            carry = self.stones.carrier(inverse)
            for (a, d, e), c in moves.items():
                self.moves.setdefault((carry(a), carry(d), e), inverse[c])
            for (a, d, e), groups in sets.items():
                self.sets.setdefault((carry(a), carry(d), e), [sorted(inverse[c] for c in g) for g in groups])

    def walk(self, position: Position) -> tuple[bytes, int]:
        """The merged walk from ``position`` (the real start) and the winner's moves in it."""
        return self.stones.write(position, self.winner, self.moves, self.sets)


def parts_certificate(position: Position, store: Any) -> tuple[dict[str, Any], int]:
    """A ``kinarow.strategy-parts`` certificate (:mod:`kinarow.proofs.parts`) of the player who made the last
    move of ``position``'s line, from the strategies a job run kept in ``store`` (a
    :class:`~kinarow.search.parallel.checkpoint.JobStore`), one part for each reply of the loser up to symmetry,
    in the stored frame; searching nothing, merging nothing. Returns it and its prescribed moves. The
    certificate starts one move before ``position``, that last move of the winner's as its ``first_move`` (the
    value of the position before it, as :meth:`StrategyTree.opened`).

    A reply whose job was split while it ran (``--max-job-seconds``), or that the frontier split before any job
    (``--jobs`` beyond the replies), has no strategy of its own: its part is a parts certificate in turn
    (version 2), a winning move and a part for each reply after it, down to the jobs that kept their walks."""
    from kinarow.position import value_names
    from kinarow.search.parallel.frontier import stored_frontier
    from kinarow.search.parallel.jobs import FIRST_WINS, SECOND_WINS

    game = position.game
    if not position.moves or position.is_over:
        raise KinarowError("give the line up to the loser's turn: the winner's last move, then every reply is a part")
    winner = 3 - position.to_move
    frontier = stored_frontier(position.copy(), store, FIRST_WINS if winner == 1 else SECOND_WINS)
    reader = _PartsReader(frontier, store, value_names(game)[winner - 1], store.splits(str(game), game.cells),
                          frontier.score(Value.win(game.goal, winner)))
    data = reader.after_move(position, top=True)
    if data is None:
        missing = reader.missing
        raise KinarowError(f"{len(missing)} positions (up to symmetry) have neither a kept strategy nor parts below "
                           f"them in the checkpoint yet ({', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''})"
                           "; run the job run on")
    return data, _prescribed(data)


def _prescribed(data: dict[str, Any]) -> int:
    """The winner's moves a strategy or parts certificate prescribes (its parts' sum)."""
    if "parts" in data:
        return sum(_prescribed(part) for part in data["parts"])
    return int(data.get("prescribed", 0))


class _PartsReader:
    """The parts of a job run's win, read from its checkpoint and the frontier it implies: a kept strategy where a
    job kept one, else (a job split while it ran, or a node the frontier settled by the rules) a winning move the
    frontier proves and a part for each reply after it."""

    def __init__(self, frontier: Any, store: Any, name: Value, splits: dict[str, int | None], win: int) -> None:
        self.frontier, self.store, self.name, self.splits, self.win = frontier, store, name, splits, win
        self.game = frontier.game
        self.missing: list[str] = []

    def _stored(self, position: Position) -> StrategyTree | None:
        """The kept strategy from ``position`` (in its stored frame), or None."""
        key, sym = self.frontier.canonical(position.board)
        blob = self.store.get_strategy(str(self.game), key, self.name)
        if blob is None:
            return None
        shared = unpack_shared(blob)
        walk, count = (blob, len(blob)) if shared is None else shared
        start = [position.name(sym[c]) for c in position.moves]
        return StrategyTree(str(self.game), start, self.name, walk=walk, shared=None if shared is None else count)

    def at_turn(self, position: Position) -> dict[str, Any] | None:
        """The part from ``position``, the winner to move: its kept strategy, the stone that wins at once, or a
        move the frontier proves (the split's lead first) after which every reply has a part; None (noting the
        position as missing) when there is none."""
        from kinarow.search.parallel.frontier import immediate_win

        kept = self._stored(position)
        if kept is not None:
            return kept.to_json()
        if immediate_win(position) is not None:  # the frontier settled it by the rules: the stone that wins at once
            return StrategyTree(str(self.game), [position.name(c) for c in position.moves], self.name,
                                walk=b"").to_json()
        key, sym = self.frontier.canonical(position.board)
        lead = self.splits.get(key)
        noted = len(self.missing)
        for move in sorted(position.legal_moves(), key=lambda c: sym[c] != lead):
            position.play(move)
            try:
                found = None
                if not position.is_over and self.frontier.child_score(position) == self.win:
                    found = self.after_move(position)
            finally:
                position.undo()
            if found is not None:
                del self.missing[noted:]
                return found
        self.missing.append(" ".join(position.name(c) for c in position.moves))
        return None

    def after_move(self, position: Position, top: bool = False) -> dict[str, Any] | None:
        """The part from before the winner's last move of ``position``: its kept strategy opened by that move,
        else (and always at the ``top``) a parts certificate of that move and a part for each reply up to
        symmetry; None when a reply has neither."""
        from kinarow.proofs import parts as PT

        kept = None if top else self._stored(position)
        if kept is not None:
            return kept.opened().to_json()
        parts: list[dict[str, Any]] = []
        seen: set[str] = set()
        whole = True
        for reply in position.legal_moves():
            position.play(reply)
            try:
                key = self.frontier.canonical(position.board)[0]
                if position.is_over or key in seen:  # an image of a reply met before: the same part
                    continue
                seen.add(key)
                part = self.at_turn(position)
            finally:
                position.undo()
            if part is None:
                whole = False
            else:
                parts.append(part)
        if not whole:
            return None
        line = [position.name(c) for c in position.moves]
        return PT.to_json(str(self.game), line[:-1], self.name, line[-1], parts)
