"""Arrays that describe a game to the search kernel (see ``kernel.py`` for the bit layout)."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from kinarow import bitboards as W
from kinarow.engine import kernel as K
from kinarow.engine.kernel import KernelTables
from kinarow.errors import SolverLimitError
from kinarow.game import MAKER_BREAKER, MISERE, Game

MAX_CELLS = 64
#: the most cells of a board the two-word kernels hold (see :mod:`kinarow.bitboards`)
WIDE_CELLS = 128
#: the most cells of a board the four-word kernels hold (the proof search's)
QUAD_CELLS = 256
GOAL_CODES = {"normal": K.NORMAL, MISERE: K.MISERE, MAKER_BREAKER: K.MAKER_BREAKER}


def check_solvable(game: Game, most: int = WIDE_CELLS) -> None:
    """Raise :class:`SolverLimitError` if the alpha-beta kernel cannot hold the board (one word a board up to
    64 cells, two up to 128), or it has more than ``most`` cells (the search layer's choice:
    :func:`kinarow.search.alphabeta.alpha_beta_cells`)."""
    if game.cells > most:
        wider = (f" (the proof search takes up to {QUAD_CELLS}: free placement, one stone a turn, a normal or "
                 "Maker-Breaker goal)" if game.cells <= QUAD_CELLS else f" ({QUAD_CELLS} for the proof search)")
        raise SolverLimitError(f"{game} has {game.cells} cells; the exact solver handles boards of at most "
                               f"{most} cells{wider}")


class BoardTables(NamedTuple):
    """A game's groups, symmetries and static move weights as arrays of boards (one word a board up to 64 cells,
    two up to 128, four up to 256: see :mod:`kinarow.bitboards`)."""

    words: int
    #: the groups' cells: ``(G,)`` one-word boards, ``(G, 2)`` or ``(G, 2, 2)``
    masks: np.ndarray
    #: ``symtab[s, j, v]``: the image under symmetry s of the cells 8j .. 8j + 7 whose bits are v (a board)
    symtab: np.ndarray
    #: ``symperm[s, c]``: the image of cell c under symmetry s
    symperm: np.ndarray
    #: cells on many groups first; under gravity central columns first
    weight: np.ndarray


def words_for(game: Game) -> int:
    """The words of a board of ``game`` (1 up to 64 cells, 2 up to 128, 4 up to 256); :class:`SolverLimitError`
    beyond."""
    if game.cells > QUAD_CELLS:
        raise SolverLimitError(f"{game} has {game.cells} cells; the search handles boards of at most "
                               f"{QUAD_CELLS} cells")
    return W.words_for_cells(game.cells)


@lru_cache(maxsize=32)
def board_tables(game: Game, symmetry: bool = True, max_symmetries: int = 16, words: int | None = None) -> BoardTables:
    """:class:`BoardTables` of ``game`` (the first ``max_symmetries`` of its symmetries, or none but the
    identity), with ``words`` words a board (the fewest that hold it when None; two for a small board let the
    tests compare both forms)."""
    need = words_for(game)
    words = need if words is None else words
    if words not in (1, 2, 4) or words < need:
        raise SolverLimitError(f"{game} needs {need} words a board, not {words}")
    geo = game.geometry
    N, m, n = geo.size, game.m, game.n
    masks = W.board_array([sum(1 << c for c in g) for g in geo.groups], words)
    syms = list(geo.symmetries) if symmetry else [tuple(range(N))]
    syms = syms[:max_symmetries]
    nbytes = (N + 7) // 8
    images = []
    symperm = np.zeros((len(syms), N), dtype=np.int16)
    for s, perm in enumerate(syms):
        for c in range(N):
            symperm[s, c] = perm[c]
        for j in range(nbytes):
            for v in range(256):
                img = 0
                for b in range(8):
                    c = 8 * j + b
                    if v >> b & 1 and c < N:
                        img |= 1 << perm[c]
                images.append(img)
    shape = (len(syms), nbytes, 256, *W.TRAILING[words])
    symtab = W.board_array(images, words).reshape(shape)
    # Static move order: cells on many groups first; under gravity central columns first
    # (measured on 6x5k4:gravity: 17.8M nodes with column order vs 35.6M with group-weighted order).
    weight = np.array([len(geo.cell_groups[c]) for c in range(N)], dtype=np.int64)
    if game.gravity:
        for c in range(N):
            x = c // n
            weight[c] += 64 * (m - abs(2 * x - (m - 1)))
    return BoardTables(words, masks, symtab, symperm, weight)


@lru_cache(maxsize=32)
def kernel_tables(game: Game, symmetry: bool = True, max_symmetries: int = 16, words: int | None = None
                  ) -> KernelTables:
    """The alpha-beta kernel's tables of ``game``, with ``words`` words a board (the fewest when None: one up to
    64 cells, two up to 128; two for a small board let the tests compare both forms)."""
    check_solvable(game)
    N, m, n = game.cells, game.m, game.n
    board = board_tables(game, symmetry, max_symmetries, words)
    words = board.words
    if words > 2:
        raise SolverLimitError(f"the alpha-beta kernel takes boards of one or two words, not {words}")
    masks, symtab, symperm, weight = board.masks, board.symtab, board.symperm, board.weight
    syms = range(symperm.shape[0])
    nbytes = symtab.shape[1]
    syminv = np.zeros((len(syms), N), dtype=np.int16)
    for s in syms:
        for c in range(N):
            syminv[s, symperm[s, c]] = c
    # aux: colmask[0:m], bottom[m:2m], then FULL, TOP (boards)
    top = sum(1 << (x * n + n - 1) for x in range(m))
    aux = W.board_array([((1 << n) - 1) << (x * n) for x in range(m)] + [1 << (x * n) for x in range(m)]
                        + [(1 << N) - 1, top], words)
    iparams = np.zeros(K.N_IPARAMS, dtype=np.int64)
    iparams[K.P_N] = N
    iparams[K.P_M] = m
    iparams[K.P_ROWS] = n
    iparams[K.P_G] = masks.shape[0]
    iparams[K.P_S] = len(syms)
    iparams[K.P_NBYTES] = nbytes
    iparams[K.P_GRAVITY] = int(game.gravity)
    iparams[K.P_GOAL] = GOAL_CODES[game.goal]
    iparams[K.P_SYM_MAX_T] = N
    turn_player = np.zeros(N + 2, dtype=np.int8)
    turn_left = np.zeros(N + 2, dtype=np.int8)
    for t in range(N + 2):
        player, left = game.turn_state(t)
        turn_player[t] = player - 1
        turn_left[t] = min(left, 127)
    # the shifts find runs of at least k: not under the exact rule, where the groups' flanks decide, and not on
    # boards of two words (the shifts are one-word)
    iparams[K.P_LINES] = int(game.topology == "rect" and game.p == 1 and game.q == 1 and game.k <= 64
                             and not game.exact and words == 1)
    if iparams[K.P_LINES]:
        lshift, vp, vm = line_tables(game)
    else:  # unread
        k = max(game.k, 1)
        lshift, vp, vm = np.zeros(1, np.int64), np.zeros((1, k), np.uint64), np.zeros((1, k), np.uint64)
    flanks = W.board_array(list(game.geometry.flank_masks), words)
    return KernelTables(
        iparams, aux, masks, flanks, symtab, symperm, syminv, turn_player, turn_left, weight, lshift, vp, vm
    )


def line_tables(game: Game) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shift per direction and the masks of cells whose i-th neighbour (ahead / behind) is on the board."""
    geo = game.geometry
    k = max(game.k, 1)
    dirs = geo.directions
    lshift = np.array([dx * game.n + dy for dx, dy in dirs], dtype=np.int64)
    vp = np.zeros((len(dirs), k), dtype=np.uint64)
    vm = np.zeros((len(dirs), k), dtype=np.uint64)
    for d, (dx, dy) in enumerate(dirs):
        for i in range(k):
            ahead = behind = 0
            for c in range(geo.size):
                x, y = geo.xy(c)
                if 0 <= x + i * dx < game.m and 0 <= y + i * dy < game.n:
                    ahead |= 1 << c
                if 0 <= x - i * dx < game.m and 0 <= y - i * dy < game.n:
                    behind |= 1 << c
            vp[d, i] = ahead
            vm[d, i] = behind
    return lshift, vp, vm
