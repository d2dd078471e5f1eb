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

import numpy as np
from numba import njit

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position
from kinarow.proofs import tree_kernel as TK
from kinarow.proofs.tree import StrategyTree, keyed_rows, replay
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
