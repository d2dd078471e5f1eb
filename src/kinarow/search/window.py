"""The window game of boards four high: a search towards one argument for every width at once.

Four in a row on a board four high and ``m`` wide (the (m,4,4) family) needs a proof for each width: a win on
a narrower board does not carry over, since the second player can build in the extra columns. The *window
game* ``W(w)`` (:mod:`kinarow.engine.window_kernel` has its rules) gives the second player every such chance:
the first player (X) plays only in the leftmost ``w`` columns; the second (O) plays there or anywhere to the
right, and every O stone to the right counts as a *pass* that may lie on whichever group leaving the window O
likes. O wins as soon as some group could be complete (all its window cells O, no more cells beyond than
passes, or four passes for a group wholly beyond), X by completing a group inside the window.

Why a win for X in ``W(w)`` is a win on every board at least ``w`` wide: X answers the real game's moves as
the window game prescribes, counting each O stone beyond the window as a pass. X's stones stay inside the
window and complete a real group. Before that, O completes no real group: one inside the window would end the
window game too, and one that leaves it has all its window cells O and its cells beyond among O's stones
beyond, which are no more than the passes, so the window game would have ended in O's win first.

This module builds the groups and runs the kernel's proof-number search (:func:`solve_window`: "can X win
``W(w)``?"), and writes a win as X's strategy (:func:`window_walk`) for the certificate that
:mod:`kinarow.proofs.window` checks; an answer without that certificate is a search's, not a result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from kinarow.engine import window_kernel as WK
from kinarow.errors import KinarowError, run_stoppable

ROWS = 4  # the kernel's row flip and cell numbering are for boards four high
MAX_WIDTH = 16  # one 64-bit word
#: the nodes of one pairing test at a node of the search (:mod:`kinarow.engine.window_kernel`)
PAIR_BUDGET = 16


@dataclass(frozen=True)
class WindowGroups:
    """The groups of ``W(width)`` for ``k`` in a row: ``inner`` inside the window, ``cross`` the window cells of
    each group that leaves it to the right and ``far`` its number of cells beyond (every array as the kernel
    takes it)."""

    width: int
    k: int
    inner: np.ndarray
    cross: np.ndarray
    far: np.ndarray

    @property
    def full(self) -> np.uint64:
        return np.uint64((1 << (ROWS * self.width)) - 1)


def window_groups(width: int, k: int = 4) -> WindowGroups:
    """Every group of ``k`` cells in a line on the strip four high that meets the window's ``width`` columns."""
    if not isinstance(width, int) or not 1 <= width <= MAX_WIDTH:
        raise KinarowError(f"a window is 1 to {MAX_WIDTH} columns wide, not {width!r}")
    if not isinstance(k, int) or not 2 <= k <= ROWS:
        raise KinarowError(f"the window game takes k from 2 to {ROWS}, not {k!r}")
    inner: list[int] = []
    cross: list[int] = []
    far: list[int] = []
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for x in range(width):
            for y in range(ROWS):
                cells = [(x + i * dx, y + i * dy) for i in range(k)]
                if any(not 0 <= cy < ROWS for _, cy in cells):
                    continue
                mask = sum(1 << (cx * ROWS + cy) for cx, cy in cells if cx < width)
                beyond = sum(cx >= width for cx, _ in cells)
                if beyond == 0:
                    inner.append(mask)
                else:
                    cross.append(mask)
                    far.append(beyond)
    return WindowGroups(width, k, np.array(inner, np.uint64), np.array(cross, np.uint64), np.array(far, np.int64))


@dataclass(frozen=True)
class WindowAnswer:
    """What the search found: ``"X wins"``, ``"X does not win"`` or ``"unknown"`` (the node budget ran out)."""

    width: int
    answer: str
    nodes: int
    seconds: float
    pair_tests: int = 0
    pair_leaves: int = 0


def new_table(tt_mb: int) -> np.ndarray:
    """A table for :func:`solve_window` and :func:`window_walk` of about ``tt_mb`` MB (so that a walk can read
    the proofs its search left)."""
    if not isinstance(tt_mb, int) or tt_mb < 1:
        raise KinarowError(f"the table needs at least 1 MB, not {tt_mb!r}")
    return np.zeros((1 << max(2, ((tt_mb << 20) // 48).bit_length() - 1), 6), np.uint64)  # 48 bytes a row


def solve_window(width: int, *, max_nodes: int | None = None, tt_mb: int = 256, k: int = 4,
                 max_passes: int | None = None, pair_budget: int = PAIR_BUDGET, threat_budget: int = 0,
                 table: np.ndarray | None = None, on_tick: Callable[[int], None] | None = None) -> WindowAnswer:
    """Can X (moving first) win ``W(width)``? By the kernel's df-pn within ``max_nodes`` nodes (None: no limit).
    ``max_passes``: O's winning number of passes (``k`` by default: a group wholly beyond the window);
    ``pair_budget``: the nodes of one pairing test (0: no pairing leaves); ``threat_budget``: the tries of one
    search for X's threat sequences, which leaves out O's replies that cannot stop one (0: none; see
    :mod:`kinarow.engine.window_kernel`); ``table``: one from
    :func:`new_table` to search in (``tt_mb`` is then not used), else a new one of ``tt_mb`` MB. The search runs in
    a thread of its own: ``on_tick(nodes)`` hears its nodes a few times a second, and Ctrl-C (or SIGTERM) stops
    it and is raised again (the table keeps what it found)."""
    groups = window_groups(width, k)
    if not isinstance(pair_budget, int) or pair_budget < 0:
        raise KinarowError(f"the pairing budget is a count of nodes, 0 or more, not {pair_budget!r}")
    if isinstance(threat_budget, bool) or not isinstance(threat_budget, int) or threat_budget < 0:
        raise KinarowError(f"the threat budget is a count of tries, 0 or more, not {threat_budget!r}")
    tt = new_table(tt_mb) if table is None else table
    ctrl = np.zeros(WK.N_CTRL, np.int64)
    ctrl[WK.C_MAX_NODES] = max_nodes or 0
    start = time.perf_counter()

    def stop() -> None:
        ctrl[WK.C_STOP] = 1

    def poll() -> None:
        if on_tick is not None:
            on_tick(int(ctrl[WK.C_NODES]))

    status = run_stoppable(lambda: WK.solve(groups.inner, groups.cross, groups.far, groups.full, max_passes or k,
                                            np.uint64(0), np.uint64(0), 0, True, tt, ctrl, pair_budget,
                                            threat_budget), stop, poll)
    answer = {WK.PROVEN: "X wins", WK.DISPROVEN: "X does not win"}.get(status, "unknown")
    return WindowAnswer(width, answer, int(ctrl[WK.C_NODES]), time.perf_counter() - start,
                        int(ctrl[WK.C_PAIR_TESTS]), int(ctrl[WK.C_PAIR_LEAVES]))


def window_walk(width: int, *, k: int = 4, max_nodes: int | None = None, tt_mb: int = 256,
                table: np.ndarray | None = None, threat_budget: int = 0) -> bytes | None:
    """X's winning strategy of ``W(width)`` as a walk (:mod:`kinarow.proofs.window`'s replay order), read from
    the search's table; None when the search does not prove a win for X within ``max_nodes`` (per search: the
    root's, and each re-search of a position whose proof the table lost). ``table``: the one a
    :func:`solve_window` of the same window searched (its proofs are read, not found again); ``threat_budget``:
    as there, for the searches of positions the table does not prove (the walk follows every reply of O)."""
    groups = window_groups(width, k)
    tt = new_table(max(tt_mb, 1)) if table is None else table
    ctrl = np.zeros(WK.N_CTRL, np.int64)
    cells = ROWS * width
    inner = [int(g) for g in groups.inner]

    def proved(x: int, o: int, passes: int, x_to_move: bool) -> bool:
        pn, _ = WK.probe(tt, np.uint64(x), np.uint64(o), passes)
        if pn == 0:
            return True
        ctrl[WK.C_NODES] = 0
        ctrl[WK.C_MAX_NODES] = max_nodes or 0
        status = WK.solve(groups.inner, groups.cross, groups.far, groups.full, k, np.uint64(x), np.uint64(o), passes,
                          x_to_move, tt, ctrl, PAIR_BUDGET, threat_budget)
        return status == WK.PROVEN

    if not proved(0, 0, 0, True):
        return None
    out = bytearray()
    done: set[tuple[int, int, int]] = set()

    def x_turn(x: int, o: int, passes: int) -> None:
        if (x, o, passes) in done:
            return
        empty = [c for c in range(cells) if not (x | o) >> c & 1]
        if any(any((g >> c & 1) and (g & ~x) == 1 << c for g in inner) for c in empty):
            return  # a win on the spot: the checker plays it
        c = next((c for c in empty if WK.probe(tt, np.uint64(x | 1 << c), np.uint64(o), passes)[0] == 0), -1)
        if c < 0:  # the table lost the proof of every move: prove one again
            c = next((c for c in empty if proved(x | 1 << c, o, passes, False)), -1)
        if c < 0:
            raise KinarowError("the window strategy's walk lost its proof; give the search a larger table or budget")
        out.append(c)
        o_turn(x | 1 << c, o, passes)
        done.add((x, o, passes))

    def o_turn(x: int, o: int, passes: int) -> None:
        for c in range(cells):
            if not (x | o) >> c & 1:
                if not proved(x, o | 1 << c, passes, True):
                    raise KinarowError("the window strategy's walk met a reply it cannot prove; give the search a "
                                       "larger table or budget")
                x_turn(x, o | 1 << c, passes)
        if not proved(x, o, passes + 1, True):
            raise KinarowError("the window strategy's walk met a pass it cannot prove; give the search a larger "
                               "table or budget")
        x_turn(x, o, passes + 1)

    x_turn(0, 0, 0)
    return bytes(out)

