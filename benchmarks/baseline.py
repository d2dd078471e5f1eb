"""The plain method: memoised minimax over the base-3 encoding of the board.

This is the method Tung & Lau used to show that (4,4,4) is a draw, kept here
as a speed floor for the real solver (see ``benchmarks/bench_engine.py``). It
is compiled with numba like the real kernel, so that a comparison of the two
measures the method, not the language.

Encoding
========

Every position is one base-3 number over the cells. Cell ``i`` (column-major,
``i = x * n + y``, as everywhere in kinarow) has weight ``3**i`` and holds
the digit 0 (empty), 1 (Black, the first player) or 2 (White)::

    key = sum(digit[i] * 3**i for i in range(cells))

    3 x 3 board, weights              a position and its key
        a    b    c                       a  b  c
    3 | 3**2 3**5 3**8                3 | .  .  .
    2 | 3**1 3**4 3**7                2 | .  X  .      X = 1, O = 2
    1 | 3**0 3**3 3**6                1 | O  .  .      key = 2*3**0 + 1*3**4 = 83

The memo is a NumPy ``int8`` array with one entry per key, ``3**cells`` of
them: 0 means "not searched yet", otherwise the value of the position from
the side to move plus 2 (1 = loss, 2 = draw, 3 = win). The side to move
follows from the key (Black moves when both have placed equally many
stones), so the key alone identifies a position.

The search is plain negamax: no symmetry, no move ordering, no alpha-beta;
the only cut is that a node stops looking at moves once it has found a win.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kinarow.errors import SolverLimitError
from kinarow.game import NORMAL, Game

#: Largest board (in cells) the plain method accepts: 3**20 one-byte entries are 3.5 GB.
MAX_PLAIN_CELLS = 20


@njit(cache=True)
def _completes(board, cell, player, cell_groups, groups):
    """Does ``player`` (who just played ``cell``) own a whole group through it?"""
    for j in range(cell_groups.shape[1]):
        g = cell_groups[cell, j]
        if g < 0:
            break
        ok = True
        for c in groups[g]:
            if board[c] != player:
                ok = False
                break
        if ok:
            return True
    return False


@njit(cache=True)
def _negamax(board, key, player, empties, pow3, cell_groups, groups, memo, nodes):
    """Value of the position ``key`` from the side to move (``player``, 1 or 2)."""
    nodes[0] += 1
    known = memo[key]
    if known != 0:
        return np.int64(known) - 2
    if empties == 0:
        memo[key] = 2
        return 0
    best = -1
    for c in range(board.shape[0]):
        if board[c] != 0:
            continue
        board[c] = player
        if _completes(board, c, player, cell_groups, groups):
            v = 1
        else:
            v = -_negamax(
                board, key + player * pow3[c], 3 - player, empties - 1, pow3, cell_groups, groups, memo, nodes
            )
        board[c] = 0
        if v > best:
            best = v
            if best == 1:
                break
    memo[key] = best + 2
    return best


def check_plain(game: Game) -> None:
    """Raise :class:`SolverLimitError` unless the plain method can handle ``game``."""
    if game.gravity or game.goal != NORMAL or (game.p, game.q) != (1, 1):
        raise SolverLimitError(
            f"the plain method handles only free-placement normal-play games with one stone per turn, not {game}"
        )
    if game.cells > MAX_PLAIN_CELLS:
        raise SolverLimitError(
            f"{game} has {game.cells} cells; the plain method needs 3^cells bytes of memory "
            f"and is limited to {MAX_PLAIN_CELLS} cells (3^{MAX_PLAIN_CELLS} bytes = 3.5 GB)"
        )


def plain_minimax(game: Game | str) -> tuple[int, int]:
    """Solve ``game`` from the empty board by the plain method.

    Returns (value from the first player's view: 1 win, 0 draw, -1 loss,
    nodes visited). A node is one call of the search, memo hits included.

    >>> plain_minimax("3x3k3")[0]
    0
    """
    game = Game(game)
    check_plain(game)
    geo = game.geometry
    cells = game.cells
    groups = np.array(geo.groups, dtype=np.int64).reshape(len(geo.groups), game.k)
    width = max((len(cg) for cg in geo.cell_groups), default=0)
    cell_groups = np.full((cells, max(width, 1)), -1, dtype=np.int64)
    for c, cg in enumerate(geo.cell_groups):
        cell_groups[c, : len(cg)] = cg
    pow3 = np.array([3**i for i in range(cells)], dtype=np.int64)
    # np.zeros maps untouched pages lazily, so only the reached part of 3**cells costs memory.
    memo = np.zeros(3**cells, dtype=np.int8)
    board = np.zeros(cells, dtype=np.int8)
    nodes = np.zeros(1, dtype=np.int64)
    value = _negamax(board, np.int64(0), np.int64(1), np.int64(cells), pow3, cell_groups, groups, memo, nodes)
    return int(value), int(nodes[0])
