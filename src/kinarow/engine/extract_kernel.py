"""Numba kernel: the winner's strategy from a won position (the compiled form of ``proofs.tree.follow``).

Bit layout: that of :mod:`kinarow.engine.kernel` (two ``uint64`` bitboards,
``p1`` Black / Maker and ``p2`` White / Breaker, bit ``c`` = cell ``c``,
column-major ``c = x * n + y``). For 4 x 3::

        a  b  c  d
    3 | 2  5  8 11
    2 | 1  4  7 10
    1 | 0  3  6  9       bits 12..63 are always 0

The walk is depth-first with an explicit stack, in the order of ``follow``:
at the winner's turns the kernel's win test names the move (none is recorded
where the winner wins with this stone: the checker finds that cell itself),
at the loser's every legal reply is tried in cell order, and a position seen
before is not walked again. The rules (results, legality, wins on the spot)
are those of :mod:`kinarow.proofs.tree_kernel`. The prescribed moves go to
``out`` as cell numbers, one byte each, in the order they are found: that is
the order in which the checker's replay asks for them, so ``out`` is the
strategy as a walk (version 3). ``out`` is replaced by an array twice as
large when full. Seen positions live in a table keyed as in the checker
(``kind``, ``kt``: one word a position where the board allows it), except on
boards of more than 64 cells: there the walk keys a position by a 64-bit
fingerprint of its four words (FINGER; eight past 128 cells), one word a
position instead of four (or eight).
Two positions with one fingerprint would make the walk skip the second one's
moves; the checkers key positions exactly, so they would then read the wrong
moves and refuse the walk: a collision can cost a certificate, never make a
wrong one (about n^2 / 2^65 for n positions: 4 x 10^-4 for 10^8).

A *non-losing* walk (``claim`` CLAIM_NOT_LOSE: the player claims only not
to lose) is walked the same way; at the player's turns the move is one that
the opponent's deepening win tests cannot refute (the best move of the last,
exact test), and the replay plays the player's wins on the spot as before.

:func:`extract_proof` walks a win the same way with the proof search's
table (:mod:`kinarow.engine.pns_kernel`) as the oracle: at the winner's turns
a move whose child the table holds as proved, the children being asked again
with growing budgets when it holds none (a reply pruned by a relevance zone, a
dead cell, an evicted row). That is the proof tree of the attacker, written
without an alpha-beta search.

``xctrl``: ``[X_STOP]`` is raised by another thread to stop between
positions (the running win test stops too, through ``ctrl[C_STOP]``);
``[X_NODES]`` counts the win tests' nodes, ``[X_ROWS]`` the moves in ``out``;
``[X_MAX_NODES]`` (0: none) is :func:`extract`'s node budget for all its win
tests together: each test gets what is left of it (``ctrl[C_MAX_NODES]``,
checked every 1,024 nodes), and the walk stops (STOPPED) when it runs out.
:func:`extract_proof` resumes a stopped walk: ``out`` comes in holding the
``xctrl[X_PREFIX]`` moves the walk had written, and the walk replays them at
the winner's turns (no table, no search: only the replay's bookkeeping)
before it asks the table again. A replayed move on a taken cell stops it
(BAD_PREFIX).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from kinarow import bitboards as W
from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)
from kinarow.bitboards import apply_sym
from kinarow.engine import pns_kernel as PN
from kinarow.engine.kernel import ABORT, C_MAX_NODES, C_NODES, C_STOP, LOSS, SIDE_MOVER, SIDE_OPPONENT, WIN, deepen
from kinarow.proofs import tree_kernel as TK
from kinarow.proofs.tree_kernel import (
    CLAIM_WIN,
    new_table,
    next_reply,
    pack,
    pop_stone,
    push_stone,
    table_add,
    table_has,
    winning_stone,
)

DONE, STOPPED, NO_WIN, BAD_PREFIX = 0, 1, 2, 3  # finished / stopped / a position it could not win / see above
X_STOP, X_NODES, X_ROWS, X_PREFIX, X_MAX_NODES, N_XCTRL = 0, 1, 2, 3, 4, 5
NO_MOVE, OUT_OF_BUDGET = -1, -2  # what a winner's turn answers instead of a cell: none found / stopped first


NODE_DONE, NODE_WINNER, NODE_LOSER = 0, 1, 2  # what a walk does at a node: leave it, prescribe, follow replies
FINGER = 4  # the walk's own key kind on boards of more than 64 cells: a one-word fingerprint (see above)


def seen_key(p1, p2, kind, size, n, kt):  # type: ignore[no-untyped-def]
    """The walk's key of (p1, p2): :func:`kinarow.proofs.tree_kernel.pack`'s, or for FINGER the fingerprint
    of its four (eight on a board of more than 128 cells) words in the first (the others 0)."""
    if isinstance(p1, tuple) and isinstance(p1[0], tuple):  # compiled: by_form below
        return _seen_key_four(p1, p2, kind, size, n, kt)
    return (_seen_key_two if isinstance(p1, tuple) else pack)(p1, p2, kind, size, n, kt)


@njit(cache=True, inline="always")
def _fingerprint(key):  # type: ignore[no-untyped-def]
    """One word, never 0, of every word of a key."""
    h = np.uint64(0x243F6A8885A308D3)
    for j in range(len(key)):
        h = TK.mix64(h ^ key[j])
    return h if h != np.uint64(0) else np.uint64(1)


def _seen_key_two(p1, p2, kind, size, n, kt):  # type: ignore[no-untyped-def]
    key = pack(p1, p2, kind, size, n, kt)
    if kind != FINGER:
        return key
    zero = np.uint64(0)
    return _fingerprint(key), zero, zero, zero


def _seen_key_four(p1, p2, kind, size, n, kt):  # type: ignore[no-untyped-def]
    key = pack(p1, p2, kind, size, n, kt)
    if kind != FINGER:
        return key
    zero = np.uint64(0)
    return _fingerprint(key), zero, zero, zero, zero, zero, zero, zero


def _seen_key_one(p1, p2, kind, size, n, kt):  # type: ignore[no-untyped-def]
    return pack(p1, p2, kind, size, n, kt)


W.by_form(seen_key, _seen_key_one, _seen_key_two, _seen_key_four)


@njit(cache=True)
def _enter(p1, p2, d, t, winner, seen, used, res, rules, plan):
    """A walk arrives at a node at depth ``d`` (``t`` stones): ``(what, seen, used)``: NODE_DONE when the game is
    over, the position was walked already or the winner completes a line at once; NODE_WINNER when the winner
    must prescribe a move; NODE_LOSER when every reply is to be followed. A new position joins ``seen`` (a win
    on the spot does not: it is found again at once, as the checkers find it)."""
    size, n, gravity, goal, gmasks, flanks, cell_groups, start, rules_turn = rules
    kind, kt = plan
    if res[d] != 0:  # the game is over
        return NODE_DONE, seen, used
    if rules_turn[t] == winner and winning_stone(p1, p2, winner, t, size, n, gravity, gmasks, flanks, cell_groups,
                                                 start, goal, winner) >= 0:
        return NODE_DONE, seen, used  # a win on the spot is not kept: the checker finds it again too
    key = seen_key(p1, p2, kind, size, n, kt)
    if table_has(seen, key):  # the position was walked
        return NODE_DONE, seen, used
    seen, used = table_add(seen, used, key)
    return (NODE_WINNER if rules_turn[t] == winner else NODE_LOSER), seen, used


@njit(cache=True)
def _emit(out, c, xctrl):
    """``out`` with the prescribed move ``c`` written at row ``xctrl[X_ROWS]`` (grown when full)."""
    rows = xctrl[X_ROWS]
    if rows == out.shape[0]:
        bigger = np.zeros(2 * rows, np.uint8)
        bigger[:rows] = out
        out = bigger
    out[rows] = np.uint8(c)
    xctrl[X_ROWS] = rows + 1
    return out


@njit(cache=True)
def _next_node(p1, p2, d, done, t0, nxt, line, res, rules):
    """The walk's step between nodes at depth ``d``: leave finished nodes upwards and play the loser's next
    reply. Returns ``(over, p1, p2, d)``: the next node to visit, or ``over`` once the walk is back at its root
    and finished (the checker's replay order: a winner's node has its one move, a loser's every reply)."""
    size, n, gravity, goal, gmasks, flanks, cell_groups, start, rules_turn = rules
    while True:
        if done:
            if d == 0:
                return True, p1, p2, d
            d -= 1
            p1, p2 = pop_stone(p1, p2, line[d])
            if nxt[d] == -2:
                continue
            done = False
        t = t0 + d
        c = next_reply(p1, p2, nxt[d], size, n, gravity)
        if c == size:
            done = True
            continue
        nxt[d] = c + 1
        p1, p2 = push_stone(p1, p2, c, rules_turn[t], t, d, line, res, size, gmasks, flanks, cell_groups, start, goal)
        return False, p1, p2, d + 1


def walk_inputs(game: Any) -> tuple[tuple[Any, ...], tuple[int, np.ndarray], np.ndarray]:
    """The ``rules``, ``plan`` and a fresh ``xctrl`` that :func:`extract` and :func:`extract_proof` take for
    ``game``."""
    gmasks, flanks, cell_groups, start, rules_turn, goal = TK.rules(game)
    rules = (game.cells, game.n, bool(game.gravity), goal, gmasks, flanks, cell_groups, start, rules_turn)
    kind, kt = TK.table_plan(game.cells, game.n, bool(game.gravity))
    return rules, (FINGER if game.cells > 64 else kind, kt), np.zeros(N_XCTRL, np.int64)


@njit(cache=True)
def _new_test(xctrl, ctrl):
    """Clear the kernel's counters for the next win test, keeping its stop flag, and give the test what is left
    of the walk's node budget (``xctrl[X_MAX_NODES]``; 0: none). False when nothing is left."""
    stop = ctrl[C_STOP]
    for i in range(ctrl.shape[0]):
        ctrl[i] = 0
    ctrl[C_STOP] = stop
    if xctrl[X_MAX_NODES] > 0:
        left = xctrl[X_MAX_NODES] - xctrl[X_NODES]
        if left <= 0:
            return False
        ctrl[C_MAX_NODES] = left
    return True


@njit(cache=True)
def _win_move(p1, p2, t, step, xctrl, tables, state):
    """A winning move of the side to move by the kernel's deepening win tests (``Searcher.winning_move``), or
    NO_MOVE, or OUT_OF_BUDGET when stopped or out of nodes first; a new root each time (counters cleared, the
    move history kept)."""
    ctrl = state.ctrl
    if not _new_test(xctrl, ctrl):
        return OUT_OF_BUDGET
    v = deepen(p1, p2, t, SIDE_MOVER, step, tables, state)
    xctrl[X_NODES] += ctrl[C_NODES]
    ctrl[C_NODES] = 0
    if v == ABORT:
        return OUT_OF_BUDGET
    if v == WIN:
        return state.pv[t] if state.pv[t] >= 0 else NO_MOVE
    return NO_MOVE


@njit(cache=True)
def _hold_move(p1, p2, t, step, xctrl, tables, state):
    """A move that does not lose for the side to move: the best move of the last of the opponent's deepening
    win tests, all of which failed (``Searcher.forces_win`` of the opponent); NO_MOVE if the opponent wins,
    OUT_OF_BUDGET when stopped or out of nodes first."""
    ctrl = state.ctrl
    if not _new_test(xctrl, ctrl):
        return OUT_OF_BUDGET
    v = deepen(p1, p2, t, SIDE_OPPONENT, step, tables, state)
    xctrl[X_NODES] += ctrl[C_NODES]
    ctrl[C_NODES] = 0
    if v == ABORT:
        return OUT_OF_BUDGET
    if v <= LOSS:
        return NO_MOVE
    return state.pv[t] if state.pv[t] >= 0 else NO_MOVE


@njit(cache=True, nogil=True)
def extract(p1, p2, t0, winner, rules, plan, step, out, xctrl, tables, state, claim):
    """Walk the winner's strategy from (p1, p2) with ``t0`` stones down; ``winner`` is 1 or 2.

    ``rules`` is ``(size, n, gravity, goal, gmasks, flanks, cell_groups, start, rules_turn)``: the board's cells,
    column height and gravity, then the checker's rules (:func:`kinarow.proofs.tree_kernel.rules`);
    ``rules_turn[t]`` is the player (1 or 2) who places stone t + 1. ``plan`` is ``(kind, kt)``, how the
    seen table keys a position (:func:`kinarow.proofs.tree_kernel.table_plan`). ``step`` is the deepening
    step of the win tests; ``tables`` and ``state`` are the search kernel's bundles. Returns
    ``(status, out)``: ``out[:xctrl[X_ROWS]]`` (``uint8``) are the prescribed moves. ``claim`` is
    CLAIM_WIN (a winning walk) or CLAIM_NOT_LOSE (a walk that does not lose: NO_WIN then means the opponent
    can win a position the walk reaches). STOPPED: ``xctrl[X_STOP]`` or ``ctrl[C_STOP]`` was raised, or the
    node budget ``xctrl[X_MAX_NODES]`` ran out.
    """
    size, _, _, goal, gmasks, flanks, cell_groups, start, _ = rules
    ctrl = state.ctrl
    seen = new_table(plan[0])  # FINGER: one word a slot, as every one-word kind
    used = 0
    depth_max = size - t0 + 1
    nxt = np.zeros(depth_max + 1, np.int64)
    res = np.zeros(depth_max + 1, np.int64)
    line = np.zeros(depth_max + 1, np.int64)
    d = 0
    while True:
        t = t0 + d
        node, seen, used = _enter(p1, p2, d, t, winner, seen, used, res, rules, plan)
        done = node == NODE_DONE
        if node == NODE_LOSER:
            nxt[d] = 0
        elif node == NODE_WINNER:
            if xctrl[X_STOP] != 0:
                return STOPPED, out
            if claim == CLAIM_WIN:
                c = _win_move(p1, p2, t, step, xctrl, tables, state)
            else:
                c = _hold_move(p1, p2, t, step, xctrl, tables, state)
            if c < 0:
                return (STOPPED if c == OUT_OF_BUDGET or xctrl[X_STOP] != 0 or ctrl[C_STOP] != 0 else NO_WIN), out
            out = _emit(out, c, xctrl)
            nxt[d] = -2
            p1, p2 = push_stone(p1, p2, c, winner, t, d, line, res, size, gmasks, flanks, cell_groups, start, goal)
            d += 1
            continue
        over, p1, p2, d = _next_node(p1, p2, d, done, t0, nxt, line, res, rules)
        if over:
            return DONE, out


@njit(cache=True)
def _scratch(tables):  # type: ignore[no-untyped-def]
    """Room that :func:`_proved_move` reuses at every winner's turn of a walk: each cell's groups, the move order,
    the per-cell counts of live groups, the parent's images under each symmetry and each child's key."""
    masks, full, symtab = tables[0], tables[1], tables[2]
    ncells = tables[5].shape[0]
    nsym = symtab.shape[0]
    return (PN.cell_groups(masks, ncells), np.zeros(ncells, np.int64), np.zeros(ncells, np.float64),
            np.zeros(ncells, np.int64), np.zeros(ncells, np.int64), PN.images(nsym, full), PN.images(nsym, full),
            PN.images(ncells, full), PN.images(ncells, full))


@njit(cache=True)
def _proved_move(A, D, tables, state, xctrl, scratch):
    """A winning move of the attacker (to move in (A, D), its stones and the defender's) read from the proof
    search's table, or -1 when the table proves none of its moves (each child asked there and then with
    budgets growing fourfold, as ``ProofSearcher.keeping_move``). ``tables`` and ``state`` are the proof
    search's bundles (:class:`~kinarow.engine.pns_kernel.ProofTables`, :class:`~kinarow.engine.pns_kernel.ProofState`)
    with ``params[R_ATTACKER]`` set to the winner; ``scratch`` is :func:`_scratch`'s. Of the moves the
    table proves, the one with the least work below it (a double threat: none). The children are evaluated and
    keyed from the parent's counts and images, as the search's expansion does, and their table rows are asked
    for all at once."""
    masks, full, symtab, symperm, _, weight, flanks = tables
    params, tt, ctrl = state[0], state[1], state[2]
    cgroups, order, score, acnt, dcnt, img1, img2, keys1, keys2 = scratch
    _, c_pn, _, _, c_work, _ = PN.columns(full)
    attacker = params[PN.R_ATTACKER]
    normal = params[PN.R_GOAL] == PN.NORMAL
    tag = np.uint64(attacker + 1)
    nsym = symtab.shape[0]
    nbytes = symtab.shape[1]
    status, _, moves, _ = PN.evaluate(masks, flanks, A, D, full, True, normal)
    if status != PN.OPEN:
        return -1
    cand, nlive = PN.tally(masks, flanks, A, D, normal, acnt, dcnt, score)
    nm = PN.order_moves(moves, weight, params[PN.R_HEUR], score, order)
    for s in range(nsym):
        W.put1(img1, s, apply_sym(symtab, s, nbytes, A if attacker == 0 else D))
        W.put1(img2, s, apply_sym(symtab, s, nbytes, D if attacker == 0 else A))
    for j in range(nm):
        k1, k2, _ = PN.child_key(img1, img2, symperm, nsym, order[j], attacker == 0)
        PN.prefetch_bucket(tt, k1, k2)
        W.put1(keys1, j, k1)
        W.put1(keys2, j, k2)
    best = -1
    least = np.uint64(0)
    for j in range(nm):
        c = order[j]
        cst, _, _, _ = PN.evaluate_child(masks, flanks, cgroups, A, D, full, True, normal, c, cand, nlive, acnt,
                                         dcnt)
        if cst == PN.PROVEN:
            return c
        if cst == PN.DISPROVEN:
            order[j] = -1
            continue
        row = PN.probe(tt, W.get1(keys1, j), W.get1(keys2, j), tag)
        if row >= 0 and tt[row, c_pn] == np.uint64(0) and (best < 0 or tt[row, c_work] < least):
            best = c
            least = tt[row, c_work]
    if best >= 0:
        return best
    budget = 1000
    while True:  # no child proved in the table (evicted, or a position the search never met): ask them
        left = 0
        for j in range(nm):
            c = order[j]
            if c < 0:
                continue
            stop = ctrl[PN.C_STOP]
            for i in range(ctrl.shape[0]):
                ctrl[i] = 0
            ctrl[PN.C_STOP] = stop
            ctrl[PN.C_MAX_NODES] = budget
            p, _, _ = PN.dfpn(W.bor(A, W.bit(c, A)), D, tables, state)
            xctrl[X_NODES] += ctrl[PN.C_NODES]
            if ctrl[PN.C_STOP] != 0 or xctrl[X_STOP] != 0:
                return -1
            if ctrl[PN.C_ABORTED] == 0 and p == 0:
                return c
            if ctrl[PN.C_ABORTED] == 0:  # disproved: not this move
                order[j] = -1
            else:
                left += 1
        if left == 0:
            return -1
        budget *= 4


@njit(cache=True, nogil=True)
def extract_proof(p1, p2, t0, winner, rules, plan, out, xctrl, tables, state):
    """:func:`extract` of a win with the proof search's table as the oracle (its bundles ``tables`` and
    ``state``, see :func:`_proved_move`; ``params[R_ATTACKER]`` is ``winner - 1``): the proof tree of the winner, one
    move at its turns, every legal reply at the loser's, written as a walk. Free placement, one stone a turn.
    Returns ``(status, out)`` as :func:`extract` (CLAIM_WIN); the first ``xctrl[X_PREFIX]`` moves of ``out``
    are replayed (a resumed walk, see above)."""
    size, _, _, goal, gmasks, flanks, cell_groups, start, _ = rules
    seen = new_table(plan[0])  # FINGER: one word a slot, as every one-word kind
    used = 0
    scratch = _scratch(tables)
    depth_max = size - t0 + 1
    nxt = np.zeros(depth_max + 1, np.int64)
    res = np.zeros(depth_max + 1, np.int64)
    line = np.zeros(depth_max + 1, np.int64)
    d = 0
    while True:
        t = t0 + d
        node, seen, used = _enter(p1, p2, d, t, winner, seen, used, res, rules, plan)
        done = node == NODE_DONE
        if node == NODE_LOSER:
            nxt[d] = 0
        elif node == NODE_WINNER:
            if xctrl[X_ROWS] < xctrl[X_PREFIX]:  # resumed: the move written before
                c = np.int64(out[xctrl[X_ROWS]])
                if c >= size or next_reply(p1, p2, c, size, rules[1], rules[2]) != c:
                    return BAD_PREFIX, out
                xctrl[X_ROWS] += 1
            else:
                if xctrl[X_STOP] != 0:
                    return STOPPED, out
                c = _proved_move(p1 if winner == 1 else p2, p2 if winner == 1 else p1, tables, state, xctrl, scratch)
                if c < 0:
                    return (STOPPED if xctrl[X_STOP] != 0 else NO_WIN), out
                out = _emit(out, c, xctrl)
            nxt[d] = -2
            p1, p2 = push_stone(p1, p2, c, winner, t, d, line, res, size, gmasks, flanks, cell_groups, start, goal)
            d += 1
            continue
        over, p1, p2, d = _next_node(p1, p2, d, done, t0, nxt, line, res, rules)
        if over:
            return DONE, out
