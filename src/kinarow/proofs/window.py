"""The window certificate: one strategy that wins every board four high from a width on.

Format ``kinarow.window`` (version 1)::

    {"format": "kinarow.window", "version": 1, "game": "12x4k4", "moves": [],
     "claim": "first wins every board four high at least 12 wide, 4 in a row",
     "width": 12, "k": 4, "prescribed": 1234, "walk": "<base64 of zlib>"}

The strategy is the first player's (X's) in the *window game* of ``width`` columns: X plays only in the
window (the board's leftmost ``width`` columns); the second player (O) plays in it or *passes*, a pass standing
for a stone anywhere to the right. O wins when it owns a group inside the window, when a group leaving the
window to the right has O on all its window cells and no more cells beyond than O's passes, or at its ``k``-th
pass (a group wholly beyond the window); X wins by a group inside the window. The claim follows for every real
board four high and ``m >= width`` wide: X plays the window strategy and counts each O stone beyond the window
as a pass; X's group is a real group, and a real group of O would end the window game in O's win first (inside
the window directly; leaving it, all its window cells are O and its cells beyond are among O's stones there,
no more than the passes).

The ``walk`` is X's moves as cell numbers (``x * 4 + y``, one byte each) in the order of a fixed depth-first
replay from the empty window, as in the strategy walks of :mod:`kinarow.proofs.tree`: at a position met before
and proven the replay turns back; at X's turn it plays the first cell that completes a group of X inside the
window, else the walk's next move (an empty window cell); at O's turn it tries every empty window cell in
increasing order and then the pass, and fails if O has won. Positions are the exact stones and the number of
passes (no symmetry is used).

The checker builds the groups from the rules (:mod:`kinarow.geometry` of a board ``width + k - 1`` wide, which
holds every group that meets the window) and imports nothing from the search.
"""

from __future__ import annotations

from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.proofs import CertificateError, Verdict, envelope, require_claim, require_envelope
from kinarow.proofs.tree import pack_walk, read_walk

FORMAT = "kinarow.window"
VERSION = 1
ROWS = 4
MAX_WIDTH = 16  # 64 cells: a walk's byte and the search's one-word boards


def claim(width: int, k: int) -> str:
    """The envelope's claim of a window strategy."""
    return f"first wins every board four high at least {width} wide, {k} in a row"


def game_name(width: int, k: int) -> str:
    """The envelope's game: the narrowest board the claim covers."""
    return f"{width}x{ROWS}k{k}"


def certificate(width: int, k: int, walk: bytes) -> dict[str, Any]:
    """The certificate of X's window strategy given as a walk."""
    return {**envelope(FORMAT, VERSION, game_name(width, k), [], claim(width, k)), "width": width, "k": k,
            "prescribed": len(walk), "walk": pack_walk(walk)}


class _Groups:
    """The groups that meet the window, from the rules: inside it (cell lists), and leaving it (the window cells
    and the number of cells beyond)."""

    def __init__(self, width: int, k: int) -> None:
        wide = Game(f"{width + k - 1}x{ROWS}k{k}")
        self.inner: list[tuple[int, ...]] = []
        self.leaving: list[tuple[tuple[int, ...], int]] = []
        window = width * ROWS
        for group in wide.geometry.groups:
            inside = tuple(c for c in group if c < window)
            if len(inside) == len(group):
                self.inner.append(group)
            elif inside:
                self.leaving.append((inside, len(group) - len(inside)))
        self.through: dict[int, list[tuple[int, ...]]] = {c: [] for c in range(window)}
        for group in self.inner:
            for c in group:
                self.through[c].append(group)


class _RefutedError(Exception):
    pass


def _check(width: int, k: int, walk: bytes) -> tuple[bool, str, int]:
    groups = _Groups(width, k)
    cells = width * ROWS
    board = [0] * cells  # 0 empty, 1 X, 2 O
    proven: set[tuple[bytes, int]] = set()
    moves = iter(walk)
    read = 0

    def o_won(passes: int) -> bool:
        if passes >= k:
            return True
        if any(all(board[c] == 2 for c in g) for g in groups.inner):
            return True
        return any(far <= passes and all(board[c] == 2 for c in inside) for inside, far in groups.leaving)

    def x_wins_at(c: int) -> bool:
        return any(all(board[d] == 1 for d in g if d != c) for g in groups.through[c])

    def line() -> str:
        return f"a position with {sum(v == 1 for v in board)} stones of X and {sum(v == 2 for v in board)} of O"

    def x_turn(passes: int) -> None:
        nonlocal read
        key = (bytes(board), passes)
        if key in proven:
            return
        spot = next((c for c in range(cells) if board[c] == 0 and x_wins_at(c)), None)
        if spot is not None:
            return  # X completes a group inside the window: the line is won
        cell = next(moves, None)
        if cell is None:
            raise _RefutedError(f"the walk ends after {read:,} moves, before the replay reaches {line()}")
        read += 1
        if cell >= cells or board[cell] != 0:
            raise _RefutedError(f"the walk's move {read:,} is cell {cell}, which is not an empty cell of the window")
        board[cell] = 1
        o_turn(passes)
        board[cell] = 0
        proven.add(key)

    def o_turn(passes: int) -> None:
        for cell in range(cells):
            if board[cell] == 0:
                board[cell] = 2
                if o_won(passes):
                    board[cell] = 0
                    raise _RefutedError(f"O wins by cell {cell} at {line()}")
                x_turn(passes)
                board[cell] = 0
        if o_won(passes + 1):
            raise _RefutedError(f"O wins by its pass number {passes + 1} at {line()}")
        x_turn(passes + 1)

    try:
        x_turn(0)
    except _RefutedError as err:
        return False, str(err), len(proven)
    if read < len(walk):
        return False, f"the walk has {len(walk) - read:,} moves more than the replay reads", len(proven)
    return True, f"{claim(width, k)}: X wins the window game of {width} columns against every reply", len(proven)


def check_certificate(data: dict[str, Any]) -> Verdict:
    """The ``kinarow.window`` checker: read the fields, compare the claim, replay the walk against every reply."""
    game, moves = require_envelope(data, FORMAT, VERSION, "window")
    width, k = data.get("width"), data.get("k")
    if not isinstance(width, int) or isinstance(width, bool) or not 1 <= width <= MAX_WIDTH:
        raise CertificateError(f"the window certificate's 'width' is {width!r}; it is a whole number from 1 to "
                               f"{MAX_WIDTH}")
    if not isinstance(k, int) or isinstance(k, bool) or not 2 <= k <= ROWS:
        raise CertificateError(f"the window certificate's 'k' is {k!r}; it is 2, 3 or 4")
    if game != game_name(width, k) or moves:
        raise CertificateError(f"a window certificate of width {width} and k {k} has the game "
                               f"'{game_name(width, k)}' and no moves")
    require_claim(data, claim(width, k))
    walk = read_walk(data, "window certificate")
    try:
        ok, reason, positions = _check(width, k, walk)
    except KinarowError as err:  # pragma: no cover - the rules refuse nothing built here
        return Verdict(False, str(err), {"game": game})
    return Verdict(ok, reason, {"game": game, "width": width, "k": k, "prescribed": len(walk),
                                "positions_checked": positions})
