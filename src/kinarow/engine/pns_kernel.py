"""Depth-first proof-number search: "can the attacker complete a group?", compiled with numba.

Bit layout
==========

A position is two ``uint64`` bitboards, the *attacker's* stones ``A`` and the
*defender's* stones ``D`` (bit ``i`` is cell ``i``, numbered column-major as in
:mod:`kinarow.engine.kernel`, ``cell = x * n + y``); a *zone* is a third mask of
the same cells. For 5 x 5 with k = 4, cells and one group (``masks[g]``)::

        a  b  c  d  e
    5 | 4  9 14 19 24
    4 | 3  8 13 18 23          group b2-c3-d4-e5: bits 6, 12, 18, 24
    3 | 2  7 12 17 22
    2 | 1  6 11 16 21
    1 | 0  5 10 15 20          bits 25..63 are always 0

A group is *live* for a player while it holds no stone of the other player;
a *threat* of a player is an empty cell that completes one of its live groups.

The question
============

The attacker (``params[R_ATTACKER]``: 0 = the first player, 1 = the second;
the first player only in Maker-Breaker, where Breaker never wins by a group)
wins when it completes a group first. An OR node has the attacker to move, an
AND node the defender. Proof-number search (Allis, van der Meulen & van den
Herik 1994) in its depth-first form, df-pn (Nagai 2002), with the 1 + epsilon
trick of Pawlewicz & Lew (2007) for the child thresholds; the proof and
disproof numbers live in a transposition table. A node is settled without
children when:

* the side to move completes a group at once (OR: proved; normal goal, AND:
  disproved -- the defender wins first);
* AND: the attacker has two threats (and the defender none): proved;
* the attacker has no live group: disproved;
* normal goal, OR: the defender has two threats and the attacker none: disproved;
* knowledge: a Hales-Jewett pairing of the empty cells holds a pair in every
  live attacker group (at an AND node after one defender move, which the same
  search picks: :func:`kinarow.engine.breaker.pair_search` may block one group with a single cell,
  the defender's move, besides the pairs): disproved. The pairing search has a
  node budget; running out means "not proved". When a defender node is
  expanded, each defender move is also tested for a pairing after it (the
  failures are remembered in the table, so a move is tested once). Once a
  search's tests stop paying (fewer than one in ``PAIR_YIELD`` finds a
  pairing), most are skipped (:func:`pairing_pays`).

Otherwise the moves are: the blocking cell when the other side has one threat
(forced defence; the other moves lose at once), else every empty cell inside
some live group of either player (normal goal) or of the attacker
(Maker-Breaker). A stone on any other cell touches no group that can still
be completed, so it is a pass, and a pass never helps the player who makes it
(monotonicity: an extra stone never hurts its owner here).

The moves are ordered by the sum of 2^-(empty cells) over the live groups
through them (both players' in a normal game: where one builds, the other
blocks). A new node's numbers are (1, 1), or as in df-pn+ the number of moves
of the side to move for the number that needs all of them refuted (the OR
node's disproof number, the AND node's proof number): 7x7k5, first player's
question, 29,373 nodes with these against 76,054 with (1, 1).

Relevance zones
===============

Every disproved node carries a zone ``Z``, a set of cells with the property

    (P) for every set S of empty cells outside Z, the attacker cannot win from
        the position with S added to the attacker's stones (same side to move).

Hence at an OR node, once the attacker's move ``x`` is disproved with zone
``Z_x``, every sibling move ``x'`` outside ``Z_x`` is disproved too: the
position after ``x'`` has fewer attacker stones than the position after ``x``
with ``x'`` added (which (P) disproves), and removing an attacker stone never
helps the attacker. (P) holds by induction from the leaves:

* no live attacker group: ``Z`` empty (stones cannot revive a group);
* pairing leaf: ``Z`` = the paired cells (and the defender's single move). Each
  live group keeps a pair of empty cells whatever is added outside, so the
  defender answers pair for pair and no group completes (nor is any complete
  already, nor threatened);
* AND node disproved through the defender's move ``y``: ``Z = Z_y + {y}`` (y stays
  empty, and the position after it is covered by (P) of ``Z_y``);
* OR node: ``Z`` = the union of the zones of the children disproved by search
  (children pruned by a zone are covered by that zone's (P) as above; moves on
  dead cells are passes, dominated by any searched move);
* normal goal, the defender completes a group at once (AND): ``Z`` = that cell
  and one empty cell of every live attacker group (so no addition completes
  one); the defender has two threats (OR): both cells and two empty cells of
  every live attacker group (no addition plus one move completes one); a forced
  attacker block ``d`` (OR): ``Z_d + {d}`` widened so that every live attacker
  group away from ``d`` keeps two empty cells in ``Z`` (the other moves lose to
  the defender's group at ``d``, as long as no attacker group completes).

Proofs carry zones too, with the roles swapped:

    (Q) for every set S of empty cells outside Z, the attacker still wins from
        the position with S added to the defender's stones (same side to move).

So at an AND node a defender move outside the zone of a refuted sibling is
refuted too (fewer defender stones never hurt the attacker), and the zones are
built the same way: the attacker completes a group at once (OR): that cell;
two attacker threats (AND): both cells; AND node: the union over the searched
defender moves; OR node proved by the move ``x``: ``Z_x + {x}``; a forced
defender block ``t``: ``Z_t + {t}``. In a normal game each zone also keeps
empty cells of every live defender group -- one at an OR leaf, two at an AND
node where the block or the double threat decides -- so that no added stones
(and one defender move) complete a defender group first. Measured (nodes,
with against without proof zones): 7x5k4 Maker-Breaker 3,428 / 27,153,
6x6k4 Maker-Breaker 3,526 / 16,314, 5x5k4 6,398 / 8,866, 6x6k4 8,948 /
8,028 (the normal game's zones hold many defender cells).

A zone is kept in the table in the canonical frame (mapped with the board's
symmetries).

Threat sequences
================

With ``params[R_VCF]`` > 0 the search also asks for *victories by continuous
fours* (VCF; Allis, van den Herik & Huntjens's threat-space search restricted
to threats that must be answered at once): a line in which every stone of one
side makes a threat (a live group one stone short), the other side's block is
its only move (else the group completes), and the last stone makes two
threats. :func:`vcf` searches them depth first over the cells of the side's
groups with two empty cells, within ``params[R_VCF]`` stones tried, remembering
the positions that have none (``vh``). Its zones are built by the rules above
(the line's nodes are nodes of this search), so they carry (Q) for the side
that wins the line; for the defender, (Q) of its line is (P) of the attacker's
question. They are used three ways:

* a new node whose side to move wins by one is settled (proved at an OR node;
  at an AND node of the normal game, disproved: the defender completes first),
  and the line's nodes are kept in the table, so the strategy walk reads the
  line like any other proof and the checkers need no new rule;
* at an expanded node whose other side would win by one were it to move (a
  *null move*), the mover's moves outside that line's zone are refuted at once
  (by (Q), resp. (P), of the zone: a stone outside it leaves the line standing):
  only the replies that can refute the threat are searched. In the normal game
  (Q) for *any* added stones needs two empty cells of every live group of the
  losing side in the zone, most of a large board (15x15k5: 141 of 182 empty
  cells on average); here one stone is added, the mover's, and a group with
  more than two empty cells cannot be brought to one by one stone, so the zone
  for one stone (:func:`vcf_zones` with ``most`` = 2) holds only the line's cells
  and the groups with at most two empty cells (18 cells on average there).
  When that zone refutes more moves, it is used and the node's own zone is the
  whole board (nothing is claimed for its siblings); else the zone for any
  stones, which joins the node's zone;
* when the other side has no such line at all, it has none after any move of
  the mover either (a stone never helps the other side), so the node's children
  do not ask again (``fi[I_NO_VCF]``).

Asking the line after every move of a threatened node (a test per child, as
the pairing leaves do) was measured and left out: on 15x15k5 positions it took
nine times the time for an eighth fewer nodes.

Given stones
============

``params[R_EXTRA]`` is the number of stones the defender holds beyond its
turns: a position where the defender, to move, was given a set K of cells at
once (``extra = |K| - 1``, the attacker then to move). Whose turn it is follows
from the stone counts less ``extra``; such positions are kept in the table
under their own tag (``attacker + 1 + 2 * extra``), so that they never meet a
position of ordinary play with the same stones. Why they are asked: if the
attacker wins after the defender was given all of K, it wins after each
single reply in K (fewer defender stones never hurt the attacker, as (Q)
above), so one proof stands for every reply in K.

Arrays
======

``tt`` is a ``(size, 8)`` uint64 array, buckets of four rows::

    word 0: A (canonical)  word 1: D (canonical)  word 2: proof number
    word 3: disproof number  word 4: zone (canonical; solved rows)  word 5: work (nodes searched below)
    word 6: attacker + 1 + 2 * extra (0: empty row)  word 7: unused

Boards of 65 to 256 cells
=========================

The kernel is written with the board operations of :mod:`kinarow.bitboards`,
so the same source compiles for one-word boards (``uint64``, the layout above),
for two-word boards (``(lo, hi)`` pairs: cell ``c`` is bit ``c`` of ``lo``
when ``c < 64``, else bit ``c - 64`` of ``hi``) and for four-word boards (below). With two words every array of
boards has a last axis of 2 (``masks`` ``(G, 2)``, ``symtab`` ``(S, B, 256,
2)``, ``fu``, ``czn``), and a table row is 10 words (:func:`columns`)::

    words 0-1: A   2-3: D   4: proof number   5: disproof number   6-7: zone   8: work   9: attacker + 1 + 2 * extra

Boards of 129 to 256 cells (15 x 15, 16 x 16) take four words, a pair of
two-word boards (``((w0, w1), (w2, w3))``, the low pair cells 0..127): arrays
of boards end in two axes of 2 (``masks`` ``(G, 2, 2)``, ``symtab`` ``(S, B,
256, 2, 2)``), and a table row is 16 words::

    words 0-3: A   4-7: D   8: proof number   9: disproof number   10-13: zone   14: work   15: attacker + 1 + 2 * extra

The pairing search (:mod:`kinarow.engine.breaker`) runs on one word: on a
two- or four-word board the free cells of the live attacker groups are numbered afresh
from 0 (:func:`pairing_cells`), and a position with more than 64 of them gets
no pairing test (counted as unknown), which is sound: a pairing only cuts.

The search is iterative, one frame per stone count below the root
(``fu``/``fi`` rows, ``cmove``/``cpn``/``cdn`` the children of each frame).
An expansion counts once the live groups through each empty cell
(:func:`tally`); each child is then evaluated from the groups through its
stone only (:func:`evaluate_child`, the same answer as :func:`evaluate`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from kinarow import bitboards as W
from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)
from kinarow.bitboards import apply_sym, canonical
from kinarow.engine import breaker as BK
from kinarow.engine.prefetch import prefetch_word

INF = np.int64(1) << np.int64(48)
NORMAL, MAKER_BREAKER = 0, 2
# params indices
R_ATTACKER, R_GOAL, R_PAIR_BUDGET, R_ZONES, R_KNOW, R_EPS, R_EAGER, R_HEUR, R_EXTRA, R_VCF = range(10)
N_PARAMS = 10
# ctrl indices
C_NODES, C_MAX_NODES, C_STOP, C_ABORTED, C_EXPANDED, C_PAIR_TESTS, C_PAIR_LEAVES, C_ZONE_PRUNED = range(8)
C_TT_HITS, C_PAIR_NODES, C_PN, C_DN, C_PAIR_UNKNOWN, C_PAIR_SKIPPED = range(8, 14)
C_VCF_TESTS, C_VCF_PROOFS, C_VCF_NODES = range(14, 17)
N_CTRL = 17
# pairing tests are skipped while they pay too little: after PAIR_TRIAL tests in a search, while fewer than one
# in PAIR_YIELD found a pairing, only one candidate in PAIR_SAMPLE is tested (so that a change is noticed)
PAIR_TRIAL, PAIR_YIELD, PAIR_SAMPLE = 4096, 256, 32
# fu rows (uint64 per frame): the stones, the table key, the zones gathered so far (disproof, proof); and two
# rows indexed by child, not frame: the table keys of the children of the node being expanded (U_CK1, U_CK2)
U_A, U_D, U_K1, U_K2, U_ACC, U_PACC, U_CK1, U_CK2 = range(8)
N_FU = 8
# fi rows (int64 per frame): thresholds, children, symmetry of the key, OR node?, the forced block (or -1),
# the node count on entry, the child searched; and by child: the symmetry of its key (I_CSYM); 1 when the side
# not to move, were it to move, has no threat sequence at all (I_NO_VCF; nor then after any move of the mover)
I_THPN, I_THDN, I_N, I_SYM, I_OR, I_FORCED, I_WORK0, I_SEL, I_CSYM, I_NO_VCF = range(10)
N_FI = 10
PROVEN, DISPROVEN, OPEN = 0, 1, 2
ALL = np.int64(1 << 30)  # more cells than any group has (:func:`widen_near`)
# heuristic flags (params[R_HEUR]): order the moves by the groups through them; df-pn+ initial numbers
H_ORDER, H_MOVES = 1, 2


# A constant argument of a call between kernels is passed as np.bool_(...) or np.int64(...): numba compiles a callee
# once for each constant it is given (as a Literal type), and a callee called with True in one place and False
# in another would be compiled twice (measured: about 1 s each, in the first run's compile).

@njit(cache=True)
def widen_near(masks, A, D, zone, need, away, most):
    """``zone`` with cells added until every live attacker group not meeting ``away`` and with at most ``most``
    empty cells has ``need`` of its empty cells in it (or all of them)."""
    for i in range(masks.shape[0]):
        g = W.get1(masks, i)
        if not W.is_zero(W.band(g, D)) or not W.is_zero(W.band(g, away)):
            continue
        e = W.andnot(g, A)
        if W.count(e) > most:
            continue
        have = W.count(W.band(e, zone))
        rest = W.andnot(e, zone)
        while have < need and not W.is_zero(rest):
            zone = W.bor(zone, W.low(rest))
            rest = W.drop_low(rest)
            have += 1
    return zone


@njit(cache=True)
def widen(masks, A, D, zone, need, away):
    """``zone`` with cells added until every live attacker group not meeting ``away`` has ``need`` of its
    empty cells in it (or all of them)."""
    return widen_near(masks, A, D, zone, need, away, ALL)


@njit(cache=True)
def widen_defender(masks, A, D, zone, need, away):
    """:func:`widen` for the defender's live groups (the zones of proofs)."""
    return widen(masks, D, A, zone, need, away)


@njit(cache=True, inline="always")
def spoiled(flanks, i, S):
    """Under the exact rule, do the stones ``S`` hold a flank of group ``i`` (so the group is dead for their
    owner: its line would run past k)? Never without the rule: ``flanks`` is then None, and numba compiles the
    test to False."""
    if flanks is None:
        return False
    return not W.is_zero(W.band(W.get1(flanks, i), S))


@njit(cache=True)
def evaluate(masks, flanks, A, D, full, attacker_moves, normal):
    """(status, zone, moves, forced) of the position; ``status`` is PROVEN, DISPROVEN or OPEN.

    ``moves`` are the side to move's candidate cells when OPEN; ``forced`` tells that they are one block.
    Under the exact rule (``flanks`` not None; see "The exact rule" above) the moves are every empty cell."""
    zero = W.zero(full)
    empty = W.andnot(full, W.bor(A, D))
    a_thr = zero
    d_thr = zero
    a_cells = zero
    d_cells = zero
    nlive = 0
    for i in range(masks.shape[0]):
        g = W.get1(masks, i)
        if W.is_zero(W.band(g, D)) and not spoiled(flanks, i, A):
            nlive += 1
            r = W.andnot(g, A)
            a_cells = W.bor(a_cells, r)
            if W.single(r):
                a_thr = W.bor(a_thr, r)
        if normal and W.is_zero(W.band(g, A)) and not spoiled(flanks, i, D):
            r = W.andnot(g, D)
            d_cells = W.bor(d_cells, r)
            if W.single(r):
                d_thr = W.bor(d_thr, r)
    if flanks is not None:  # a stone off every live group still counts (a tempo, or a flank of one's own)
        a_cells = empty
    if attacker_moves:
        if not W.is_zero(a_thr):
            low = W.low(a_thr)
            return PROVEN, widen_defender(masks, A, D, low, np.int64(1), zero) if normal else low, zero, False
        if nlive == 0:
            return DISPROVEN, zero, zero, False
        if not W.is_zero(d_thr):
            if not W.single(d_thr):
                return DISPROVEN, widen(masks, A, D, d_thr, np.int64(2), zero), zero, False
            return OPEN, zero, d_thr, True
        return OPEN, zero, W.band(W.bor(a_cells, d_cells), empty), False
    if not W.is_zero(d_thr):
        low = W.low(d_thr)
        return DISPROVEN, widen(masks, A, D, low, np.int64(1), zero), zero, False
    if not W.is_zero(a_thr):
        if not W.single(a_thr):
            two = W.bor(W.low(a_thr), W.low(W.drop_low(a_thr)))
            return PROVEN, widen_defender(masks, A, D, two, np.int64(2), zero) if normal else two, zero, False
        return OPEN, zero, a_thr, True
    if nlive == 0:
        return DISPROVEN, zero, zero, False
    return OPEN, zero, W.band(W.bor(a_cells, d_cells), empty), False


@njit(cache=True)
def holds_group(masks, flanks, S):
    """Do the stones ``S`` hold a whole group (under the exact rule, one whose flanks they do not hold)?"""
    for i in range(masks.shape[0]):
        g = W.get1(masks, i)
        if W.eq(W.band(g, S), g) and not spoiled(flanks, i, S):
            return True
    return False


@njit(cache=True)
def has_threat(masks, flanks, A, D):
    """Does the player holding ``A`` complete a group with one more stone (a group with no stone of ``D`` and
    exactly one cell not in ``A``; under the exact rule, no stone of ``A`` on its flanks)?"""
    for i in range(masks.shape[0]):
        g = W.get1(masks, i)
        r = W.andnot(g, A)
        if W.is_zero(W.band(g, D)) and not W.is_zero(r) and W.single(r) and not spoiled(flanks, i, A):
            return True
    return False


@njit(cache=True)
def cell_groups(masks, ncells):
    """``out[c]``: the indices of the groups through cell ``c``, padded with -1."""
    deg = np.zeros(ncells, np.int64)
    for i in range(masks.shape[0]):
        e = W.get1(masks, i)
        while not W.is_zero(e):
            deg[W.low_index(e)] += 1
            e = W.drop_low(e)
    out = np.full((ncells, max(1, deg.max())), -1, np.int64)
    deg[:] = 0
    for i in range(masks.shape[0]):
        e = W.get1(masks, i)
        while not W.is_zero(e):
            c = W.low_index(e)
            out[c, deg[c]] = i
            deg[c] += 1
            e = W.drop_low(e)
    return out


@njit(cache=True)
def tally(masks, flanks, A, D, normal, acnt, dcnt, score):
    """The live groups through each empty cell, the attacker's in ``acnt`` and (normal goal) the defender's in
    ``dcnt``; returns (the cells of either's live groups, the number of live attacker groups). With these a
    child's evaluation needs only the groups through its stone (:func:`evaluate_child`). ``score[c]``: the move
    order's weight of each such cell, the sum of 2^-(empty cells) over the live groups through it, a group live
    for both players counted once for each (where one side builds, the other blocks; :func:`order_moves`)."""
    acnt[:] = 0
    dcnt[:] = 0
    score[:] = 0.0
    cand = W.zero(A)
    nlive = 0
    for i in range(masks.shape[0]):
        g = W.get1(masks, i)
        if W.is_zero(W.band(g, D)) and not spoiled(flanks, i, A):
            nlive += 1
            e = W.andnot(g, A)
            cand = W.bor(cand, e)
            w = 1.0 / float(np.uint64(1) << np.uint64(W.count(e)))
            while not W.is_zero(e):
                c = W.low_index(e)
                acnt[c] += 1
                score[c] += w
                e = W.drop_low(e)
        if normal and W.is_zero(W.band(g, A)) and not spoiled(flanks, i, D):
            e = W.andnot(g, D)
            cand = W.bor(cand, e)
            w = 1.0 / float(np.uint64(1) << np.uint64(W.count(e)))
            while not W.is_zero(e):
                c = W.low_index(e)
                dcnt[c] += 1
                score[c] += w
                e = W.drop_low(e)
    return cand, nlive


@njit(cache=True, inline="always")
def evaluate_child(masks, flanks, cgroups, A, D, full, is_or, normal, c, cand, nlive, acnt, dcnt):
    """:func:`evaluate` of the child of an OPEN node (the attacker moves when ``is_or``) with a stone on
    ``c``, from the node's :func:`tally`: only the groups through ``c`` change.

    Why it is the same: the node is OPEN, so the player to move has no threat and the other player has at
    most one, which then is ``c`` (a forced block). The mover's stone creates no threat of the other player
    and removes the one on ``c``, so in the child only the mover's groups through ``c`` can hold a threat;
    the mover's live groups stay live (each loses ``c`` from its empty cells), the other player's through
    ``c`` die, and a cell leaves the moves when no live group is left through it. A settled child (its zone
    needs every group) is evaluated in full."""
    zero = W.zero(full)
    bit = W.bit(c, zero)
    A1 = W.bor(A, bit) if is_or else A
    D1 = D if is_or else W.bor(D, bit)
    if flanks is not None:  # the exact rule: a stone also kills its owner's groups it flanks; evaluated in full
        return evaluate(masks, flanks, A1, D1, full, not is_or, normal)
    # the mover's stones and groups, and the other player's (a player's groups count when they can win)
    mine, theirs = (A, D) if is_or else (D, A)
    mine_count, theirs_count = (acnt, dcnt) if is_or else (dcnt, acnt)
    mine_win = is_or or normal
    theirs_win = normal or not is_or
    thr = zero  # the mover's threats in the child
    gone = zero  # cells left with no live group
    killed = 0  # live groups of the other player the stone kills
    for pas in range(2):  # 0: the other player's groups through c die; 1: their counts put back
        for j in range(cgroups.shape[1]):
            i = cgroups[c, j]
            if i < 0:
                break
            g = W.get1(masks, i)
            if pas == 0 and mine_win and W.is_zero(W.band(g, theirs)):
                r = W.andnot(W.andnot(g, mine), bit)
                if W.single(r):
                    thr = W.bor(thr, r)
            if theirs_win and W.is_zero(W.band(g, mine)):
                killed += 1 - pas
                e = W.andnot(W.andnot(g, theirs), bit)
                while not W.is_zero(e):
                    x = W.low_index(e)
                    e = W.drop_low(e)
                    if pas == 1:
                        theirs_count[x] += 1
                        continue
                    theirs_count[x] -= 1
                    if theirs_count[x] == 0 and mine_count[x] == 0:
                        gone = W.bor(gone, W.bit(x, zero))
    if not is_or and nlive == killed:
        return DISPROVEN, zero, zero, False
    if not W.is_zero(thr):
        if W.single(thr):
            return OPEN, zero, thr, True
        return evaluate(masks, flanks, A1, D1, full, not is_or, normal)
    return OPEN, zero, W.andnot(W.andnot(cand, bit), gone), False


def pairing_cells(masks, A, D, attacker_moves, budget, kbuf, kctrl, ctrl):  # type: ignore[no-untyped-def]
    """The cells of a pairing that blocks every live attacker group -- at an AND node after one defender
    move, which is among the cells returned -- or :func:`kinarow.bitboards.ones` when none is found within
    ``budget`` nodes. On two-word boards the groups' free cells are numbered afresh in one word for the
    pairing search (which runs on one word), and the search is skipped when they are more than 64; four-word
    boards the same way."""
    form = _pairing_two if isinstance(A, tuple) else _pairing_one  # compiled: W.by_form below (four words: two's)
    return form(masks, A, D, attacker_moves, budget, kbuf, kctrl, ctrl)


def _pairing_one(masks, A, D, attacker_moves, budget, kbuf, kctrl, ctrl):  # type: ignore[no-untyped-def]
    ng = BK.load_state(masks, A, D, kbuf)
    if ng < 0:
        return ~np.uint64(0)
    return _pairing_run(ng, attacker_moves, budget, kbuf, kctrl, ctrl)


def _pairing_two(masks, A, D, attacker_moves, budget, kbuf, kctrl, ctrl):  # type: ignore[no-untyped-def]
    fail = W.ones(A)
    union = W.zero(A)
    for i in range(masks.shape[0]):
        g = W.get1(masks, i)
        if W.is_zero(W.band(g, D)):
            r = W.andnot(g, A)
            if W.is_zero(r):
                return fail
            union = W.bor(union, r)
    if W.count(union) > 64:
        ctrl[C_PAIR_UNKNOWN] += 1
        return fail
    place = np.zeros(256, np.int64)  # cell -> its bit in the one-word numbering
    cells = np.zeros(64, np.int64)  # bit -> cell
    n = 0
    rest = union
    while not W.is_zero(rest):
        c = W.low_index(rest)
        rest = W.drop_low(rest)
        place[c] = n
        cells[n] = c
        n += 1
    ng = 0
    for i in range(masks.shape[0]):
        g = W.get1(masks, i)
        if W.is_zero(W.band(g, D)):
            r = W.andnot(g, A)
            packed = np.uint64(0)
            while not W.is_zero(r):
                packed |= np.uint64(1) << np.uint64(place[W.low_index(r)])
                r = W.drop_low(r)
            kbuf[0, ng] = packed
            ng += 1
    found = _pairing_run(ng, attacker_moves, budget, kbuf, kctrl, ctrl)
    if found == ~np.uint64(0):
        return fail
    zone = W.zero(A)
    while found != np.uint64(0):
        zone = W.bor(zone, W.bit(cells[W.low_index(found)], A))
        found &= found - np.uint64(1)
    return zone


W.by_form(pairing_cells, _pairing_one, _pairing_two, _pairing_two, argument=1)


@njit(cache=True)
def _pairing_run(ng, attacker_moves, budget, kbuf, kctrl, ctrl):
    """The pairing search over the ``ng`` groups in ``kbuf[0]`` (one word): its cells, or all ones."""
    kctrl[BK.C_NODES] = 0
    r = BK.pair_search(kbuf, ng, np.uint64(0), np.uint64(0 if attacker_moves else 1), kctrl, budget)
    ctrl[C_PAIR_NODES] += kctrl[BK.C_NODES]
    if r != 1:
        if r < 0:
            ctrl[C_PAIR_UNKNOWN] += 1
        return ~np.uint64(0)
    ctrl[C_PAIR_LEAVES] += 1
    F = kbuf.shape[1] - BK.N_FRAME
    return kbuf[kctrl[BK.C_DEPTH], F + 1]


@njit(cache=True, inline="always")
def pairing_pays(ctrl):
    """Test this candidate for a pairing? Yes while the tests of this search find pairings often enough
    (see PAIR_YIELD), else one candidate in PAIR_SAMPLE. A skipped test only leaves a node to the search."""
    tests = ctrl[C_PAIR_TESTS]
    if tests < PAIR_TRIAL or ctrl[C_PAIR_LEAVES] * PAIR_YIELD >= tests:
        return True
    ctrl[C_PAIR_SKIPPED] += 1
    return ctrl[C_PAIR_SKIPPED] % PAIR_SAMPLE == 0


@njit(cache=True)
def pairing_leaf(masks, A, D, attacker_moves, budget, kbuf, kctrl, ctrl):
    """:func:`pairing_cells`, counted."""
    ctrl[C_PAIR_TESTS] += 1
    return pairing_cells(masks, A, D, attacker_moves, budget, kbuf, kctrl, ctrl)


@njit(cache=True)
def four_cells(masks, A, D):
    """The empty cells where an attacker stone makes a threat: those of the live attacker groups with exactly
    two empty cells (a "four" when k = 5)."""
    out = W.zero(A)
    for i in range(masks.shape[0]):
        g = W.get1(masks, i)
        if W.is_zero(W.band(g, D)):
            e = W.andnot(g, A)
            if W.count(e) == 2:
                out = W.bor(out, e)
    return out


@njit(cache=True, inline="always")
def threats_through(masks, cgroups, c, A, D):
    """The threats of the player holding ``A`` in the groups through cell ``c`` (its live groups with one
    empty cell)."""
    thr = W.zero(A)
    for j in range(cgroups.shape[1]):
        i = cgroups[c, j]
        if i < 0:
            break
        g = W.get1(masks, i)
        if W.is_zero(W.band(g, D)):
            r = W.andnot(g, A)
            if W.single(r):
                thr = W.bor(thr, r)
    return thr


@njit(cache=True, inline="always")
def vcf_hash(mine, theirs):
    """The word under which a position without a threat sequence is remembered (:func:`vcf`; never 0)."""
    h = (W.fold(mine) * np.uint64(0x9E3779B97F4A7C15)) ^ (W.fold(theirs) * np.uint64(0xC2B2AE3D27D4EB4F))
    return (h ^ (h >> np.uint64(31))) | np.uint64(1)


@njit(cache=True)
def vcf(masks, cgroups, A, D, full, normal, f, forced, budget, most, vA, vD, vC, vX, vT, vZ, vh, ctrl):
    """A victory by continuous fours from the position (``A``, ``D``), the attacker to move, the position OPEN
    by :func:`evaluate` (``forced``: the attacker must block the defender's threat ``f``): each attacker stone
    makes a threat, the defender's block is forced, until a stone makes two threats. A block that makes a
    defender threat forces the attacker to block it, which continues the line only if that block makes a
    threat too; a block that makes two defender threats ends the line. Depth first over the attacker's threat
    cells (:func:`four_cells`), at most ``budget`` attacker stones tried in all.

    Only the groups through the new stones are read at each step: at an OPEN OR node neither player has a
    threat (but the defender's ``f``, which the attacker's stone then kills), so the threats after the
    attacker's stone ``x`` are in the groups through ``x``, and after the block ``t`` the defender's are in
    the groups through ``t`` (the attacker's single threat is gone) -- what :func:`evaluate` would find.

    The positions from which every line was tried in vain are remembered in ``vh`` (a word per position, by
    :func:`vcf_hash`, in the row its low bits give) and not searched again; two positions with one word would
    only lose a line, never make one.

    Returns the number of levels of the line found, 0 when there is none (every line was tried), -1 when the
    budget ran out first. Level ``i`` is kept in the scratch boards: ``vA[i]``, ``vD[i]`` the stones of its OR
    node, ``vX[i]`` the attacker's stone, ``vT[i]`` the defender's block (at the last level, none: the AND node
    is proved by its two threats); after a proof ``vZ[i]`` holds the zone of the OR node and ``vC[i]`` that of
    its AND node, by :func:`vcf_zones` for ``most``."""
    fours = four_cells(masks, A, D)
    if forced:
        fours = W.band(fours, f)
    if W.is_zero(fours):
        return np.int64(0)
    hmask = np.uint64(vh.shape[0] - 1)
    h = vcf_hash(A, D)
    if vh[h & hmask] == h:
        return np.int64(0)
    W.put1(vA, 0, A)
    W.put1(vD, 0, D)
    W.put1(vC, 0, fours)
    zero = W.zero(full)
    d = 0
    tried = np.int64(0)
    while True:
        C = W.get1(vC, d)
        if W.is_zero(C) or tried >= budget:
            if tried >= budget:
                ctrl[C_VCF_NODES] += tried
                return np.int64(-1)
            h = vcf_hash(W.get1(vA, d), W.get1(vD, d))
            vh[h & hmask] = h
            if d == 0:
                ctrl[C_VCF_NODES] += tried
                return np.int64(0)
            d -= 1
            continue
        x = W.low(C)
        W.put1(vC, d, W.drop_low(C))
        tried += 1
        A1 = W.bor(W.get1(vA, d), x)
        D0 = W.get1(vD, d)
        thr = threats_through(masks, cgroups, W.low_index(x), A1, D0)
        if W.is_zero(thr):  # (cannot happen: x is in a group with two empty cells)
            continue
        if not W.single(thr):  # two threats (and the defender has none): the line is won
            W.put1(vX, d, x)
            W.put1(vT, d, zero)
            break
        if d + 1 >= vA.shape[0]:
            continue
        D1 = W.bor(D0, thr)
        dthr = threats_through(masks, cgroups, W.low_index(thr), D1, A1) if normal else zero
        if not W.is_zero(dthr) and not W.single(dthr):  # the block made two defender threats
            continue
        h = vcf_hash(A1, D1)
        if vh[h & hmask] == h:  # tried before, in vain
            continue
        W.put1(vX, d, x)
        W.put1(vT, d, thr)
        d += 1
        W.put1(vA, d, A1)
        W.put1(vD, d, D1)
        fours = four_cells(masks, A1, D1)
        W.put1(vC, d, fours if W.is_zero(dthr) else W.band(fours, dthr))
    ctrl[C_VCF_NODES] += tried
    vcf_zones(masks, cgroups, normal, d + 1, most, vA, vD, vC, vX, vT, vZ)
    return np.int64(d + 1)


@njit(cache=True)
def vcf_zones(masks, cgroups, normal, levels, most, vA, vD, vC, vX, vT, vZ):
    """The zones of a line found by :func:`vcf` (``levels`` levels), from the last level up, into ``vZ`` (OR
    nodes) and ``vC`` (AND nodes); see :func:`vcf`. With ``most`` = ``ALL`` they have property (Q) for any
    set of stones added to the other side; with ``most`` = m + 1, for at most m stones: a group with more
    than m + 1 empty cells cannot be brought to one by m stones, so only the groups with at most m + 1 need
    two cells in the zone.

    They follow the search's own rules (module notes, "Relevance zones"): the AND node with two threats, two
    of them (widened, normal goal, so that every live defender group keeps two empty cells in it); the OR node
    proved by ``x``, its AND node's zone and ``x``; the AND node forced to block ``t``, the zone of the OR node
    after ``t`` and ``t``, widened so that every live defender group away from ``t`` keeps two empty cells."""
    d = levels - 1
    A = W.get1(vA, d)
    D = W.get1(vD, d)
    x = W.get1(vX, d)
    A1 = W.bor(A, x)
    thr = threats_through(masks, cgroups, W.low_index(x), A1, D)
    two = W.bor(W.low(thr), W.low(W.drop_low(thr)))
    z = widen_near(masks, D, A1, two, np.int64(2), W.zero(A), most) if normal else two
    W.put1(vC, d, z)
    W.put1(vZ, d, W.bor(z, x))
    for i in range(d - 1, -1, -1):
        t = W.get1(vT, i)
        za = W.bor(W.get1(vZ, i + 1), t)
        if normal:
            za = widen_near(masks, W.get1(vD, i), W.bor(W.get1(vA, i), W.get1(vX, i)), za, np.int64(2), t, most)
        W.put1(vC, i, za)
        W.put1(vZ, i, W.bor(za, W.get1(vX, i)))


@njit(cache=True)
def vcf_leaf(masks, cgroups, A, D, full, normal, f, forced, budget, most, vA, vD, vC, vX, vT, vZ, vh, ctrl):
    """:func:`vcf`, counted."""
    ctrl[C_VCF_TESTS] += 1
    levels = vcf(masks, cgroups, A, D, full, normal, f, forced, budget, most, vA, vD, vC, vX, vT, vZ, vh, ctrl)
    if levels > 0:
        ctrl[C_VCF_PROOFS] += 1
    return levels


@njit(cache=True)
def vcf_store(tt, symtab, nsym, nbytes, attacker, tag, zones, full, levels, vA, vD, vC, vX, vZ, defender):
    """Keep the nodes of a line found by :func:`vcf` in the table, each node of the line with its zone (the
    full board when ``zones`` is off), so that the strategy walk reads the line from the table: proved when the
    line is the attacker's, disproved when it is the defender's (``defender``: then ``vA`` holds the
    defender's stones and ``vD`` the attacker's, and a zone's (Q) for the defender is (P) for the attacker)."""
    pn, dn = (INF, np.int64(0)) if defender else (np.int64(0), INF)
    for i in range(levels):
        mine = W.get1(vA, i)
        theirs = W.get1(vD, i)
        for side in range(2):
            if side == 1:
                mine = W.bor(mine, W.get1(vX, i))
            z = W.get1(vZ, i) if side == 0 else W.get1(vC, i)
            A, D = (theirs, mine) if defender else (mine, theirs)
            k1, k2, s = key_of(symtab, nsym, nbytes, A, D, attacker)
            store(tt, k1, k2, tag, pn, dn, apply_sym(symtab, s, nbytes, z if zones else full),
                  np.int64(2 * (levels - i) - side))


@njit(cache=True)
def ordered_moves(masks, A, D, moves, normal, weight, heur, score, out):
    """The cells of ``moves`` in ``out``, most promising first; returns their number.

    A cell scores the sum of 2^-(empty cells) over the live groups through it, the attacker's and (normal
    goal) the defender's: where one side builds, the other blocks (:func:`tally`). Ties: the static weight
    (more groups). With ``heur`` 0 the static weight alone."""
    ncells = weight.shape[0]
    counts = np.zeros(ncells, np.int64)
    tally(masks, None, A, D, normal, counts, counts.copy(), score)  # the free-style weights: an order only
    return order_moves(moves, weight, heur, score, out)


@njit(cache=True)
def order_moves(moves, weight, heur, score, out):
    """The cells of ``moves`` in ``out``, the highest ``score`` (the weights :func:`tally` left there) first,
    ties by the static weight (``heur`` without ``H_ORDER``: the static weight alone); returns their number."""
    n = 0
    rest = moves
    order = heur & H_ORDER != 0
    while not W.is_zero(rest):
        c = W.low_index(rest)
        rest = W.drop_low(rest)
        score[c] = (score[c] if order else 0.0) + weight[c] * 1e-6
        out[n] = c
        n += 1
    sort_by_score(out, n, score)
    return n


@njit(cache=True, inline="always")
def sort_by_score(out, n, score):
    """``out[:n]`` (cells) in place, the highest ``score[cell]`` first; ties keep their order (an insertion sort:
    a node has few moves)."""
    for i in range(1, n):
        c = out[i]
        v = score[c]
        j = i
        while j > 0 and score[out[j - 1]] < v:
            out[j] = out[j - 1]
            j -= 1
        out[j] = c


@njit(cache=True, inline="always")
def bucket(tt, k1, k2):
    h = (W.fold(k1) * np.uint64(0x9E3779B97F4A7C15)) ^ (W.fold(k2) * np.uint64(0xC2B2AE3D27D4EB4F))
    h ^= h >> np.uint64(29)
    return np.int64(h & np.uint64(tt.shape[0] - 1)) & ~np.int64(3)


@njit(cache=True, inline="always")
def prefetch_bucket(tt, k1, k2):
    """Ask the processor for the cache lines of (k1, k2)'s bucket (4 rows: 4 lines, 5 with two-word rows)."""
    b = bucket(tt, k1, k2)
    for r in range(b, b + 4):
        prefetch_word(tt, r, 0)
    prefetch_word(tt, b + 3, tt.shape[1] - 1)


@njit(cache=True, inline="always")
def columns(like):
    """The table words of a row (see the module docstring): the defender's key, the proof number, the
    disproof number, the zone, the work and the tag, for boards of ``like``'s form."""
    w = W.nwords(like)
    return w, 2 * w, 2 * w + 1, 2 * w + 2, 3 * w + 2, 3 * w + 3


@njit(cache=True, inline="always")
def row_words(like):
    """The words of a table row for boards of ``like``'s form (8 for one word, 10 for two, 16 for four)."""
    return 8 if W.nwords(like) == 1 else 3 * W.nwords(like) + 4


@njit(cache=True)
def probe(tt, k1, k2, tag):
    """The row holding (k1, k2) for this attacker, or -1."""
    b = bucket(tt, k1, k2)
    c_d, _, _, _, _, c_tag = columns(k1)
    for r in range(b, b + 4):
        if tt[r, c_tag] == tag and W.eq(W.row_get(tt, r, 0, k1), k1) and W.eq(W.row_get(tt, r, c_d, k2), k2):
            return r
    return -1


@njit(cache=True)
def store(tt, k1, k2, tag, pn, dn, zone, work):
    """Keep (pn, dn, zone) of (k1, k2) in its bucket: in its own row, an empty row, or the row with the least
    work below it."""
    b = bucket(tt, k1, k2)
    c_d, c_pn, c_dn, c_zone, c_work, c_tag = columns(k1)
    row = -1
    least = np.int64(-2)
    for r in range(b, b + 4):
        if tt[r, c_tag] == tag and W.eq(W.row_get(tt, r, 0, k1), k1) and W.eq(W.row_get(tt, r, c_d, k2), k2):
            row = r
            break
        # an empty row first, else the row with the least work below it
        w = np.int64(-1) if tt[r, c_tag] == np.uint64(0) else np.int64(tt[r, c_work])
        if row < 0 or w < least:
            row = r
            least = w
    W.row_put(tt, row, 0, k1)
    W.row_put(tt, row, c_d, k2)
    tt[row, c_pn] = np.uint64(pn)
    tt[row, c_dn] = np.uint64(dn)
    W.row_put(tt, row, c_zone, zone)
    tt[row, c_work] = np.uint64(work)
    tt[row, c_tag] = tag


@njit(cache=True, inline="always")
def key_of(symtab, nsym, nbytes, A, D, attacker):
    """Canonical (first player's stones, second player's stones) and the symmetry that gives them."""
    if attacker == 0:
        p1, p2 = A, D
    else:
        p1, p2 = D, A
    if nsym > 1:
        return canonical(symtab, nsym, nbytes, p1, p2)
    return p1, p2, 0


@njit(cache=True, inline="always")
def child_key(img1, img2, symperm, nsym, c, first_moves):
    """:func:`key_of` of a child from the parent's images under each symmetry (``img1``/``img2``): the stone
    on cell ``c`` (the first player's when ``first_moves``) is added to each image."""
    b1 = W.get1(img1, 0)
    b2 = W.get1(img2, 0)
    bs = 0
    for s in range(nsym):
        bit = W.bit(symperm[s, c], b1)
        c1 = W.get1(img1, s)
        c2 = W.get1(img2, s)
        if first_moves:
            c1 = W.bor(c1, bit)
        else:
            c2 = W.bor(c2, bit)
        if s == 0 or W.less(c1, b1) or (W.eq(c1, b1) and W.less(c2, b2)):
            b1, b2, bs = c1, c2, s
    return b1, b2, bs


@njit(cache=True, inline="always")
def initial(status, nmoves, forced, attacker_moves, heur):
    """Proof and disproof numbers of a new node from its evaluation: (1, 1), or with ``H_MOVES`` (as in
    df-pn+) the number of moves of the side to move for the number that needs every move refuted."""
    if status == PROVEN:
        return np.int64(0), INF
    if status == DISPROVEN:
        return INF, np.int64(0)
    if forced or heur & H_MOVES == 0:
        return np.int64(1), np.int64(1)
    if attacker_moves:
        return np.int64(1), np.int64(max(nmoves, 1))
    return np.int64(max(nmoves, 1)), np.int64(1)


@njit(cache=True, inline="always")
def threshold(second, limit, eps):
    """The 1 + epsilon threshold of the best child: ``second * (1 + eps / 1000)``, at least ``second + 1``,
    at most ``limit``."""
    if second >= INF:
        return limit
    t = second + (second * eps + 999) // 1000
    if t < second + 1:
        t = second + 1
    return t if t < limit else limit


def images(nsym, like):  # type: ignore[no-untyped-def]
    """Scratch room for one board per symmetry, in ``like``'s form."""
    if isinstance(like, tuple):  # compiled: W.by_form below
        return np.zeros((nsym, 2, 2) if isinstance(like[0], tuple) else (nsym, 2), np.uint64)
    return np.zeros(nsym, np.uint64)


W.by_form(images, lambda nsym, like: np.zeros(nsym, np.uint64), lambda nsym, like: np.zeros((nsym, 2), np.uint64),
          lambda nsym, like: np.zeros((nsym, 2, 2), np.uint64), argument=1)


class ProofTables(NamedTuple):
    """The game as the proof search reads it, the kernel's ``tables`` argument (built once per searcher by
    :class:`kinarow.search.proof_search.ProofSearcher` from :func:`kinarow.engine.tables.board_tables`).

    ``masks``: the groups as boards; ``full``: the board of every cell (a ``uint64``, or a ``(lo, hi)`` pair
    on two-word boards: it also tells the kernel which form a board has); ``symtab`` / ``symperm``: the
    symmetries kept, as byte tables and as cell images; ``syminv``: each symmetry's inverse (its index);
    ``weight``: each cell's static move weight.
    """

    masks: Any
    full: Any
    symtab: Any
    symperm: Any
    syminv: Any
    weight: Any
    flanks: Any = None


class ProofState(NamedTuple):
    """One proof searcher's working arrays, the kernel's ``state`` argument.

    ``params``: the question and the search's settings (the ``R_*`` indices); ``tt``: the table of proof and
    disproof numbers (layout above); ``ctrl``: counters and flags (the ``C_*`` indices); ``fu`` / ``fi``: the
    stack, one column per stone count below the root (the ``U_*`` and ``I_*`` rows); ``cmove`` / ``cpn`` /
    ``cdn`` / ``czn``: each frame's children, their numbers and zones; ``kbuf`` / ``kctrl``: the pairing
    search's stack and counters (:mod:`kinarow.engine.breaker`); ``vh``: the positions without a threat
    sequence (``uint64``, a power of two of them: :func:`vcf`).

    Both bundles may come as plain tuples (``tuple(bundle)``), as :func:`kinarow.engine.kernel.deepen`'s do: numba
    types a plain tuple's fields in C, a named tuple's in Python, which costs a few microseconds more a call.
    """

    params: Any
    tt: Any
    ctrl: Any
    fu: Any
    fi: Any
    cmove: Any
    cpn: Any
    cdn: Any
    czn: Any
    kbuf: Any
    kctrl: Any
    vh: Any


@njit(cache=True, nogil=True)
def dfpn(A0, D0, tables, state):
    """Proof and disproof numbers of the root (A0: the attacker's stones, D0: the defender's), searched with
    the game's ``tables`` (:class:`ProofTables`) and the searcher's ``state`` (:class:`ProofState`).

    The attacker is to move when it has placed as many stones as the defender and is the first player, or
    fewer stones. Returns (pn, dn, zone): pn == 0 proved, dn == 0 disproved (with its zone);
    ``ctrl[C_ABORTED]`` is set when the node budget or the stop flag ended the search first.
    """
    masks, full, symtab, symperm, syminvidx, weight, flanks = tables
    params, tt, ctrl, fu, fi, cmove, cpn, cdn, czn, kbuf, kctrl, vh = state
    zero = W.zero(full)
    attacker = params[R_ATTACKER]
    normal = params[R_GOAL] == NORMAL
    budget = params[R_PAIR_BUDGET]
    zones = params[R_ZONES] != 0
    know = params[R_KNOW] != 0
    eps = params[R_EPS]
    eager = params[R_EAGER]
    heur = params[R_HEUR]
    extra = params[R_EXTRA]  # stones given to the defender beyond its turns (see "Given stones" above)
    vcf_budget = params[R_VCF]
    tag = np.uint64(attacker + 1 + 2 * extra)
    nsym = symtab.shape[0]
    nbytes = symtab.shape[1]
    ncells = weight.shape[0]
    score = np.zeros(ncells, np.float64)
    cgroups = cell_groups(masks, ncells)
    acnt = np.zeros(ncells, np.int64)
    dcnt = np.zeros(ncells, np.int64)
    img1 = images(nsym, full)
    img2 = images(nsym, full)
    # the threat sequences' scratch boards, one per level (:func:`vcf`)
    vA, vD, vC, vX, vT, vZ = (images(ncells + 2, full), images(ncells + 2, full), images(ncells + 2, full),
                              images(ncells + 2, full), images(ncells + 2, full), images(ncells + 2, full))
    _, c_pn, c_dn, c_zone, _, _ = columns(full)
    ENTER, LOOP, RETURN = 0, 1, 2

    d = 0
    W.put2(fu, U_A, 0, A0)
    W.put2(fu, U_D, 0, D0)
    fi[I_THPN, 0] = INF
    fi[I_THDN, 0] = INF
    mode = ENTER
    rpn = np.int64(0)
    rdn = np.int64(0)
    rzone = zero
    while True:
        if mode == ENTER:
            ctrl[C_NODES] += 1
            if ((ctrl[C_NODES] & 1023) == 1 and ctrl[C_STOP] != 0) or ctrl[C_NODES] == ctrl[C_MAX_NODES]:
                ctrl[C_ABORTED] = 1
                return np.int64(1), np.int64(1), zero
            A = W.get2(fu, U_A, d)
            D = W.get2(fu, U_D, d)
            na = W.count(A)
            nd = W.count(D)
            is_or = na + extra == nd if attacker == 0 else na + extra < nd
            fi[I_OR, d] = 1 if is_or else 0
            k1, k2, s = key_of(symtab, nsym, nbytes, A, D, attacker)
            prefetch_bucket(tt, k1, k2)  # read while the position is evaluated
            status, zone, moves, forced = evaluate(masks, flanks, A, D, full, is_or, normal)
            mode = RETURN
            if status == PROVEN:
                rpn, rdn, rzone = np.int64(0), INF, zone if zones else full
                continue
            if status == DISPROVEN:
                rpn, rdn, rzone = INF, np.int64(0), zone if zones else full
                continue
            W.put2(fu, U_K1, d, k1)
            W.put2(fu, U_K2, d, k2)
            fi[I_SYM, d] = s
            row = probe(tt, k1, k2, tag)
            if row >= 0:
                ctrl[C_TT_HITS] += 1
                pn = np.int64(tt[row, c_pn])
                dn = np.int64(tt[row, c_dn])
                if pn == 0 or dn == 0 or pn >= fi[I_THPN, d] or dn >= fi[I_THDN, d]:
                    rpn, rdn = pn, dn
                    solved = dn == 0 or pn == 0
                    kept = W.row_get(tt, row, c_zone, zero)
                    rzone = apply_sym(symtab, syminvidx[s], nbytes, kept) if solved else zero
                    continue
            else:
                # the side to move wins by a threat sequence (the defender's counts in the normal game only)
                if vcf_budget > 0 and (is_or or normal) and (d == 0 or fi[I_NO_VCF, d - 1] == 0):
                    mine, theirs = (A, D) if is_or else (D, A)
                    levels = vcf_leaf(masks, cgroups, mine, theirs, full, normal, moves, forced, vcf_budget, ALL, vA,
                                      vD, vC, vX, vT, vZ, vh, ctrl)
                    if levels > 0:
                        vcf_store(tt, symtab, nsym, nbytes, attacker, tag, zones, full, levels, vA, vD, vC, vX, vZ,
                                  not is_or)
                        rpn, rdn = (np.int64(0), INF) if is_or else (INF, np.int64(0))
                        rzone = W.get1(vZ, 0) if zones else full
                        continue
                if know and pairing_pays(ctrl):
                    pz = pairing_leaf(masks, A, D, is_or, budget, kbuf, kctrl, ctrl)
                    if not W.eq(pz, W.ones(zero)):
                        rpn, rdn, rzone = INF, np.int64(0), pz if zones else full
                        store(tt, k1, k2, tag, INF, np.int64(0), apply_sym(symtab, s, nbytes, rzone), np.int64(1))
                        continue
            # expand: the children, with their values from the table or from their evaluation
            ctrl[C_EXPANDED] += 1
            fi[I_FORCED, d] = W.low_index(moves) if forced else -1
            fi[I_WORK0, d] = ctrl[C_NODES]
            n = 0
            cand, nlive = tally(masks, flanks, A, D, normal, acnt, dcnt, score)
            nm = order_moves(moves, weight, heur, score, cmove[d + 1])
            first_moves = (attacker == 0) == is_or
            # were the other side to move, would it win by a threat sequence? Then every move outside that
            # sequence's zone loses (property (Q) of the sequence: (P) when it is the defender's), and only the
            # moves inside it are searched (none there: none after any move either, as a stone never helps the
            # other side); the defender's sequences count in the normal game only
            threatened = False
            one_stone = False
            null_zone = full
            fi[I_NO_VCF, d] = 0
            if not forced and vcf_budget > 0 and (normal or not is_or):
                mine, theirs = (D, A) if is_or else (A, D)  # the other side's stones, then the mover's
                levels = vcf_leaf(masks, cgroups, mine, theirs, full, normal, zero, np.bool_(False), vcf_budget,
                                  np.int64(2), vA, vD, vC, vX, vT, vZ, vh, ctrl)
                if levels == 0:
                    fi[I_NO_VCF, d] = 1
                elif levels > 0 and zones:
                    # the line's zone for any added stones, and the smaller one for one stone (the mover's move);
                    # the second prunes more, but then the node's own zone is the whole board
                    threatened = True
                    near = W.band(W.get1(vZ, 0), moves)
                    vcf_zones(masks, cgroups, normal, levels, ALL, vA, vD, vC, vX, vT, vZ)
                    null_zone = W.get1(vZ, 0)
                    one_stone = W.count(near) < W.count(W.band(null_zone, moves))
                    if one_stone:
                        null_zone = near
            for s2 in range(nsym):
                W.put1(img1, s2, apply_sym(symtab, s2, nbytes, A if attacker == 0 else D))
                W.put1(img2, s2, apply_sym(symtab, s2, nbytes, D if attacker == 0 else A))
            # the children's buckets asked for at once: the probes below then wait for one memory latency, not one
            # each (a bucket is 4 rows: 4 cache lines, 5 with two-word rows)
            for j in range(nm):  # the keys kept for the loop below
                ck1, ck2, cs = child_key(img1, img2, symperm, nsym, cmove[d + 1, j], first_moves)
                prefetch_bucket(tt, ck1, ck2)
                W.put2(fu, U_CK1, j, ck1)
                W.put2(fu, U_CK2, j, ck2)
                fi[I_CSYM, j] = cs
            for j in range(nm):
                c = cmove[d + 1, j]
                if threatened and not W.has(null_zone, c):  # refuted by the threat sequence's zone
                    ctrl[C_ZONE_PRUNED] += 1
                    cmove[d, n] = c
                    cpn[d, n] = INF + 1 if is_or else 0
                    cdn[d, n] = 0 if is_or else INF + 1
                    W.put2(czn, d, n, full)
                    n += 1
                    continue
                bit = W.bit(c, zero)
                if is_or:
                    A1, D1 = W.bor(A, bit), D
                else:
                    A1, D1 = A, W.bor(D, bit)
                cst, czone, cm, cforced = evaluate_child(
                    masks, flanks, cgroups, A, D, full, is_or, normal, c, cand, nlive, acnt, dcnt
                )
                pn1, dn1 = initial(cst, W.count(cm), cforced, not is_or, heur)
                if cst == OPEN:
                    ck1, ck2, cs = W.get2(fu, U_CK1, j), W.get2(fu, U_CK2, j), fi[I_CSYM, j]
                    crow = probe(tt, ck1, ck2, tag)
                    if crow >= 0:
                        pn1 = np.int64(tt[crow, c_pn])
                        dn1 = np.int64(tt[crow, c_dn])
                        if dn1 == 0 or pn1 == 0:
                            czone = apply_sym(symtab, syminvidx[cs], nbytes, W.row_get(tt, crow, c_zone, zero))
                    elif j < eager and not is_or and know and pairing_pays(ctrl):
                        pz = pairing_leaf(masks, A1, D1, np.bool_(True), budget, kbuf, kctrl, ctrl)
                        if not W.eq(pz, W.ones(zero)):
                            pn1, dn1, czone = INF, np.int64(0), pz
                            store(tt, ck1, ck2, tag, INF, np.int64(0), apply_sym(symtab, cs, nbytes, pz), np.int64(1))
                        else:  # remembered, so that the pairing search is not run again here
                            store(tt, ck1, ck2, tag, pn1, dn1, zero, np.int64(0))
                cmove[d, n] = c
                cpn[d, n] = pn1
                cdn[d, n] = dn1
                W.put2(czn, d, n, czone if zones else full)
                n += 1
                if (dn1 == 0 and not is_or) or (pn1 == 0 and is_or):
                    break  # the node is settled
            fi[I_N, d] = n
            # each refuted move (not itself pruned) adds its zone to the node's; the open moves outside it are
            # pruned (OR: disproofs, AND: proofs); a move that settles the node gives the zone with its cell
            acc = zero
            pacc = zero
            if threatened:
                nz = full if one_stone else null_zone
                if is_or:
                    acc = nz
                else:
                    pacc = nz
            for i in range(n):
                mv = W.bit(cmove[d, i], zero)
                if is_or and cpn[d, i] == 0:
                    pacc = W.bor(W.get2(czn, d, i), mv)
                elif not is_or and cdn[d, i] == 0:
                    acc = W.bor(W.get2(czn, d, i), mv)
                elif (cdn[d, i] == 0 and cpn[d, i] == INF) if is_or else (cpn[d, i] == 0 and cdn[d, i] == INF):
                    z = W.get2(czn, d, i)
                    if is_or:
                        acc = W.bor(acc, z)
                    else:
                        pacc = W.bor(pacc, z)
                    for j in range(n):
                        if j == i or W.has(z, cmove[d, j]):
                            continue
                        if is_or and (cdn[d, j] != 0 or (j > i and cpn[d, j] == INF)):
                            ctrl[C_ZONE_PRUNED] += 1 if cdn[d, j] != 0 else 0
                            cpn[d, j] = INF + 1
                            cdn[d, j] = 0
                        elif not is_or and (cpn[d, j] != 0 or (j > i and cdn[d, j] == INF)):
                            ctrl[C_ZONE_PRUNED] += 1 if cpn[d, j] != 0 else 0
                            cpn[d, j] = 0
                            cdn[d, j] = INF + 1
            W.put2(fu, U_ACC, d, acc)
            W.put2(fu, U_PACC, d, pacc)
            mode = LOOP
            continue
        if mode == RETURN:
            if d == 0:
                ctrl[C_PN] = rpn
                ctrl[C_DN] = rdn
                return rpn, rdn, rzone
            d -= 1
            i = fi[I_SEL, d]
            cpn[d, i] = rpn
            cdn[d, i] = rdn
            if rdn == 0:
                if fi[I_OR, d] == 1:
                    W.put2(fu, U_ACC, d, W.bor(W.get2(fu, U_ACC, d), rzone))
                    for j in range(fi[I_N, d]):
                        if cdn[d, j] != 0 and not W.has(rzone, cmove[d, j]):
                            cpn[d, j] = INF + 1  # disproved by the zone of move i
                            cdn[d, j] = 0
                            ctrl[C_ZONE_PRUNED] += 1
                else:
                    W.put2(fu, U_ACC, d, W.bor(rzone, W.bit(cmove[d, i], zero)))
            elif rpn == 0:
                if fi[I_OR, d] == 0:
                    W.put2(fu, U_PACC, d, W.bor(W.get2(fu, U_PACC, d), rzone))
                    for j in range(fi[I_N, d]):
                        if cpn[d, j] != 0 and not W.has(rzone, cmove[d, j]):
                            cpn[d, j] = 0  # proved by the zone of move i
                            cdn[d, j] = INF + 1
                            ctrl[C_ZONE_PRUNED] += 1
                else:
                    W.put2(fu, U_PACC, d, W.bor(rzone, W.bit(cmove[d, i], zero)))
            mode = LOOP
        # ---------------------------------------------------------------- node d: stop, or search a child
        n = fi[I_N, d]
        is_or = fi[I_OR, d] == 1
        best = 0
        v1 = INF + 2
        v2 = INF + 2
        total = np.int64(0)
        for i in range(n):
            a = cpn[d, i] if is_or else cdn[d, i]
            b = cdn[d, i] if is_or else cpn[d, i]
            total += b
            if total > INF:
                total = INF
            if a < v1:
                v2 = v1
                v1 = a
                best = i
            elif a < v2:
                v2 = a
        if v1 > INF:
            v1 = INF
        if is_or:
            pn, dn = v1, total
        else:
            pn, dn = total, v1
        if pn == 0 or dn == 0 or pn >= fi[I_THPN, d] or dn >= fi[I_THDN, d]:
            zone = zero
            f = fi[I_FORCED, d]
            fb = W.bit(f, zero) if f >= 0 else zero
            if dn == 0:
                zone = W.get2(fu, U_ACC, d)
                if f >= 0 and zones and is_or:
                    zone = widen(masks, W.get2(fu, U_A, d), W.get2(fu, U_D, d), W.bor(zone, fb), np.int64(2), fb)
            elif pn == 0:
                zone = W.get2(fu, U_PACC, d)
                if f >= 0 and zones and not is_or:
                    zone = W.bor(zone, fb)
                    if normal:
                        zone = widen_defender(masks, W.get2(fu, U_A, d), W.get2(fu, U_D, d), zone, np.int64(2), fb)
            canon = apply_sym(symtab, fi[I_SYM, d], nbytes, zone)
            work = ctrl[C_NODES] - fi[I_WORK0, d] + 1
            store(tt, W.get2(fu, U_K1, d), W.get2(fu, U_K2, d), tag, pn, dn, canon, work)
            rpn, rdn, rzone = pn, dn, zone
            mode = RETURN
            continue
        fi[I_SEL, d] = best
        bit = W.bit(cmove[d, best], zero)
        if is_or:
            W.put2(fu, U_A, d + 1, W.bor(W.get2(fu, U_A, d), bit))
            W.put2(fu, U_D, d + 1, W.get2(fu, U_D, d))
            fi[I_THPN, d + 1] = threshold(v2, fi[I_THPN, d], eps)
            th = fi[I_THDN, d]
            fi[I_THDN, d + 1] = INF if th >= INF else th - dn + cdn[d, best]
        else:
            W.put2(fu, U_A, d + 1, W.get2(fu, U_A, d))
            W.put2(fu, U_D, d + 1, W.bor(W.get2(fu, U_D, d), bit))
            fi[I_THDN, d + 1] = threshold(v2, fi[I_THDN, d], eps)
            th = fi[I_THPN, d]
            fi[I_THPN, d + 1] = INF if th >= INF else th - pn + cpn[d, best]
        d += 1
        mode = ENTER


@njit(cache=True)
def _children(tables, tt, A, D, attacker, normal, img1, img2, attacker_moves, extra):
    """Each child of the node (the attacker's stones ``A``, the defender's ``D`` holding ``extra`` stones beyond
    its turns; the attacker moves when ``attacker_moves``), in cell order: ``(cells, status, rows, syms, zones,
    n)``, its cell, its status by its evaluation (DISPROVEN too where the defender's stone completes a group,
    normal goal), its table row (-1: none), the symmetry of its table key and its evaluation's zone (in the
    board's frame) for the first ``n`` entries, read from the game's ``tables`` (:class:`ProofTables`) and the
    table ``tt``. ``img1``/``img2`` are scratch arrays of one entry per symmetry."""
    masks, full, symtab, symperm, flanks = tables[0], tables[1], tables[2], tables[3], tables[6]
    nsym = symtab.shape[0]
    nbytes = symtab.shape[1]
    tag = np.uint64(attacker + 1 + 2 * extra)
    for s in range(nsym):
        W.put1(img1, s, apply_sym(symtab, s, nbytes, A if attacker == 0 else D))
        W.put1(img2, s, apply_sym(symtab, s, nbytes, D if attacker == 0 else A))
    first_moves = (attacker == 0) == attacker_moves
    cells = np.empty(256, np.int64)
    status = np.empty(256, np.int64)
    rows = np.empty(256, np.int64)
    syms = np.empty(256, np.int64)
    zones = images(256, full)
    n = 0
    rest = W.andnot(full, W.bor(A, D))
    while not W.is_zero(rest):
        low = W.low(rest)
        rest = W.drop_low(rest)
        c = W.low_index(low)
        st = OPEN
        zone = W.zero(full)
        if attacker_moves:
            st, zone, _moves, _forced = evaluate(masks, flanks, W.bor(A, low), D, full, False, normal)
        else:
            d2 = W.bor(D, low)
            # the defender's stone completes a group: the attacker has lost
            if normal and holds_group(masks, flanks, d2):
                st = DISPROVEN
            else:
                st, zone, _moves, _forced = evaluate(masks, flanks, A, d2, full, True, normal)
        k1, k2, s = child_key(img1, img2, symperm, nsym, c, first_moves)
        cells[n], status[n], rows[n], syms[n] = c, st, probe(tt, k1, k2, tag), s
        W.put1(zones, n, zone)
        n += 1
    return cells, status, rows, syms, zones, n


@njit(cache=True)
def known_children(tables, tt, A, D, attacker, normal, extra, attacker_moves, zones, img1, img2, cells, state, czone,
                   cwork):
    """What is known of each child of the node (the attacker's stones ``A``, the defender's ``D``, the defender
    holding ``extra`` stones beyond its turns; the attacker moves when ``attacker_moves``) without searching, in
    cell order: its cell (``cells``), PROVEN, DISPROVEN or OPEN by its evaluation or its table row (``state``),
    and a proven child's zone in the board's frame (``czone``; the full board when ``zones`` is off) and the
    search's work below it by its table row (``cwork``; 0 when its evaluation proves it), as the search asked at
    the child would answer from them (``tables``: the game's :class:`ProofTables`; ``tt``: the table). Returns the
    number of children."""
    full, symtab, syminvidx = tables[1], tables[2], tables[4]
    nbytes = symtab.shape[1]
    zero = W.zero(full)
    _, c_pn, c_dn, c_zone, c_work, _ = columns(full)
    kids, status, rows, syms, evals, n = _children(tables, tt, A, D, attacker, normal, img1, img2, attacker_moves,
                                                   extra)
    for i in range(n):
        st = status[i]
        z = W.get1(evals, i)
        row = rows[i]
        cwork[i] = 0
        if st == OPEN and row >= 0 and tt[row, c_pn] == np.uint64(0):
            st = PROVEN
            z = apply_sym(symtab, syminvidx[syms[i]], nbytes, W.row_get(tt, row, c_zone, zero))
            cwork[i] = np.int64(tt[row, c_work])
        elif st == OPEN and row >= 0 and tt[row, c_dn] == np.uint64(0):
            st = DISPROVEN
        cells[i] = kids[i]
        state[i] = st
        W.put1(czone, i, z if zones else full)
    return n


@njit(cache=True)
def most_proving_move(tables, tt, A, D, attacker, normal, img1, img2):
    """At an attacker node (the attacker's stones ``A``, the defender's ``D``, the attacker to move): the move the
    search would follow next -- a child that its evaluation proves, else the child the table holds with the least
    proof number (the most work below it on ties). -1 when the table holds no child. ``tables``: the game's
    :class:`ProofTables`; ``tt``: the table."""
    cells, status, rows, _syms, _zones, n = _children(tables, tt, A, D, attacker, normal, img1, img2, True, 0)
    _, c_pn, _, _, c_work, _ = columns(tables[1])
    best = -1
    least = np.uint64(0)
    work = np.uint64(0)
    for i in range(n):
        if status[i] == PROVEN:
            return cells[i]
        if status[i] == DISPROVEN or rows[i] < 0:
            continue
        pn, w = tt[rows[i], c_pn], tt[rows[i], c_work]
        if best < 0 or pn < least or (pn == least and w > work):
            best, least, work = cells[i], pn, w
    return best


@njit(cache=True)
def disproved_move(tables, tt, A, D, attacker, normal, img1, img2):
    """At a defender node (the attacker's stones ``A``, the defender's ``D``): a defender move after which the
    attacker cannot win by the table -- a cell completing a defender group (normal goal), else a child that its
    evaluation disproves, else, of the children the table holds as disproved, the one with the least work
    below it. -1 when there is none. ``tables``: the game's :class:`ProofTables`; ``tt``: the table;
    ``img1``/``img2`` are scratch arrays of one entry per symmetry."""
    masks = tables[0]
    if normal:
        for i in range(masks.shape[0]):
            g = W.get1(masks, i)
            if W.is_zero(W.band(g, A)):
                r = W.andnot(g, D)
                if not W.is_zero(r) and W.single(r):
                    return W.low_index(r)
    cells, status, rows, _syms, _zones, n = _children(tables, tt, A, D, attacker, normal, img1, img2, False, 0)
    _, _, c_dn, _, c_work, _ = columns(tables[1])
    best = -1
    least = np.uint64(0)
    for i in range(n):
        if status[i] == DISPROVEN:
            return cells[i]
        if status[i] == PROVEN or rows[i] < 0:
            continue
        if tt[rows[i], c_dn] == np.uint64(0) and (best < 0 or tt[rows[i], c_work] < least):
            best = cells[i]
            least = tt[rows[i], c_work]
    return best
