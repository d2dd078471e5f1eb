"""Matching sets: find them, check them, and the published catalogue.

Source: J.W.H.M. Uiterwijk, "Set Matching: an enhancement of the Hales-Jewett
pairing strategy", Advances in Computer Games (ACG 2017).

A matching set is a winning strategy for Breaker, moving second, in the
Maker-Breaker game on the marker hypergraph ``{g & N : g in G}``.
:func:`find` solves that game (:mod:`kinarow.engine.breaker`, numba, with a
memo table) and reads a compact matching set off the win: at every level it
splits the groups into independent parts, ends in a Hales-Jewett pairing as
soon as one exists, and otherwise prescribes, for every Black move, a reply
that keeps Breaker winning (preferring one after which a pairing exists).

>>> ms = find(parse_groups("ab acd bce")).matching_set
>>> len(ms.markers), len(ms.groups), ms.reduction, ms.main_markers
(5, 3, 1, ['a', 'b'])
>>> check(ms).ok
True

The value and checker live in :mod:`kinarow.proofs.matching` (no search code).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.knowledge.board import MAX_SEARCH_CELLS, search_position
from kinarow.position import Position
from kinarow.proofs.matching import (
    FORMAT,
    VERSION,
    MatchingProof,
    MatchingSet,
    check,
    check_proof,
)
from kinarow.values import Player

__all__ = [
    "CATALOGUE",
    "FORMAT",
    "VERSION",
    "Configuration",
    "FindResult",
    "MatchingProof",
    "MatchingSet",
    "check",
    "check_proof",
    "find",
    "find_position",
    "parse_groups",
]

MAX_MARKERS = 64
MAX_MATCHING_CELLS = MAX_SEARCH_CELLS  # the most cells of a board whose matching sets are searched (64x64)


# -- input ---------------------------------------------------------------------------------
_NAME = re.compile(r"^[A-Za-z0-9_]+$")


def parse_groups(text: str | list[str] | list[list[str]]) -> list[list[str]]:
    """Groups from text: space-separated groups, each comma-separated marker names or a run of letters.

    ``"ab acd bce"`` and ``"a,b a,c,d b,c,e"`` give the same three groups.
    """
    if isinstance(text, list):
        items: list[Any] = text
    else:
        items = text.split()
    groups: list[list[str]] = []
    for item in items:
        raw = (item.split(",") if "," in item else list(item)) if isinstance(item, str) else [str(m) for m in item]
        names = [n.strip() for n in raw if n.strip()]
        if not names:
            raise KinarowError(f"the group '{item}' names no marker; give markers like 'ab' or 'a1,b2'")
        for n in names:
            if not _NAME.match(n):
                raise KinarowError(f"'{n}' is not a marker name; use letters, digits and '_' only")
        if len(set(names)) != len(names):
            raise KinarowError(f"the group '{item}' names a marker twice")
        groups.append(names)
    if not groups:
        raise KinarowError("no groups given; write them like 'ab acd bce' or 'a1,b1 a1,c2'")
    return groups


def markers_of(groups: list[list[str]]) -> list[str]:
    """The markers in order of first appearance."""
    seen: dict[str, None] = {}
    for g in groups:
        for m in g:
            seen.setdefault(m, None)
    return list(seen)


def overlapping(groups: list[list[str]]) -> list[tuple[int, int]]:
    """Pairs of groups sharing two or more markers (the definition wants none)."""
    sets = [set(g) for g in groups]
    return [(i, j) for i in range(len(sets)) for j in range(i + 1, len(sets)) if len(sets[i] & sets[j]) >= 2]


# -- the solver around the kernel ------------------------------------------------------------
class _Game:
    """A Maker-Breaker game on fixed groups (bit masks), with the kernel's memo."""

    def __init__(self, masks: list[int], vertices: int, budget: int = 0) -> None:
        from kinarow.engine import breaker as BK

        self.BK = BK
        self.masks = np.array(masks, np.uint64)
        self.buf = BK.new_buffers(vertices, len(masks))
        self.memo = BK.new_memo(18)
        self.ctrl = np.zeros(BK.N_CTRL, np.int64)
        self.ctrl[BK.C_STAMP] = 1
        self.ctrl[BK.C_BUDGET] = budget
        self.vertices = vertices

    @property
    def nodes(self) -> int:
        return int(self.ctrl[self.BK.C_NODES])

    def breaker_wins(self, M: int, B: int) -> bool | None:
        """Breaker, moving second from (M, B), keeps a vertex in every group? None: budget ran out."""
        r = self.BK.breaker_wins(self.masks, np.uint64(M), np.uint64(B), True, self.buf, self.memo, self.ctrl,
                                 False)  # every argument given: the overload the search's kernel compiled too
        return None if r == self.BK.UNKNOWN else r == self.BK.BREAKER

    def live(self, M: int, B: int) -> list[int]:
        """The live groups of (M, B), reduced to free vertices (duplicates removed, order kept)."""
        out: list[int] = []
        for g in self.masks.tolist():
            if g & B:
                continue
            r = g & ~M
            if r not in out:
                out.append(r)
        return out


def _bits(x: int) -> list[int]:
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out


def _pairing(groups: list[int], used: int = 0, budget: list[int] | None = None) -> list[tuple[int, int]] | None:
    """Disjoint pairs (bit indices) with a pair inside every group, or None."""
    if budget is None:
        budget = [20000]
    budget[0] -= 1
    if budget[0] < 0:
        return None
    if not groups:
        return []
    g = min(groups, key=lambda m: (m & ~used).bit_count())
    avail = _bits(g & ~used)
    for i, a in enumerate(avail):
        for b in avail[i + 1 :]:
            pair = (1 << a) | (1 << b)
            rest = [h for h in groups if h & pair != pair]
            sub = _pairing(rest, used | pair, budget)
            if sub is not None:
                return [(a, b), *sub]
    return None


def _components(groups: list[int]) -> list[list[int]]:
    """Groups split into parts with pairwise disjoint vertices."""
    parts: list[tuple[int, list[int]]] = []
    for g in groups:
        merged_mask, merged = g, [g]
        keep = []
        for mask, gs in parts:
            if mask & merged_mask:
                merged_mask |= mask
                merged += gs
            else:
                keep.append((mask, gs))
        parts = [*keep, (merged_mask, merged)]
    return [gs for _, gs in parts]


def _minimal(groups: list[int]) -> list[int]:
    """Drop groups that contain another group (blocking the smaller blocks the larger)."""
    out = []
    for i, g in enumerate(groups):
        if any(h != g and h & g == h for h in groups) or g in groups[:i]:
            continue
        out.append(g)
    return out


class _OutOfBudgetError(Exception):
    pass


class _Reader:
    """Reads a matching set off a Breaker win, level by level.

    First it looks for a matching set with few covering levels (0, 1, 2, 3:
    a bounded exhaustive search over White's replies); when that budget runs
    out it follows the Maker-Breaker solution, one winning reply per Black move.
    """

    SHALLOW_BUDGET = 200_000
    MAX_LEVELS = 3

    def __init__(self, game: _Game, names: list[str]) -> None:
        self.game = game
        self.names = names
        self.budget = self.SHALLOW_BUDGET
        self.memo: dict[tuple[tuple[int, ...], int], MatchingSet | None] = {}

    def read(self, groups: list[int]) -> MatchingSet:
        for levels in range(self.MAX_LEVELS + 1):
            try:
                found = self.shallow(groups, levels)
            except _OutOfBudgetError:
                break
            if found is not None:
                return found
        return self.level(groups, 0, 0)

    def shallow(self, groups: list[int], levels: int) -> MatchingSet | None:
        """A matching set with at most ``levels`` covering levels, or None (exhaustive within the budget)."""
        key = (tuple(sorted(groups)), levels)  # with multiplicity: the level lists every group left
        if key in self.memo:
            return self.memo[key]
        self.budget -= 1
        if self.budget < 0:
            raise _OutOfBudgetError
        markers = 0
        for g in groups:
            markers |= g
        group_names = [self.names_of(g) for g in groups]
        core = _minimal(groups)
        result: MatchingSet | None = None
        pairs = _pairing(core)
        if pairs is not None:
            result = MatchingSet(self.names_of(markers), group_names,
                                 pairs=[(self.names[a], self.names[b]) for a, b in pairs])
        elif levels > 0:
            parts = _components(core)
            if len(parts) > 1:
                subs = [self.shallow(part, levels) for part in parts]
                found = [sub for sub in subs if sub is not None]
                if len(found) == len(subs):
                    result = MatchingSet(self.names_of(markers), group_names, parts=found)
            else:
                result = self._covering(groups, markers, group_names, levels)
        self.memo[key] = result
        return result

    def _covering(
        self, groups: list[int], markers: int, group_names: list[list[str]], levels: int
    ) -> MatchingSet | None:
        coverings: dict[str, tuple[str, MatchingSet]] = {}
        used = 0
        for x in _bits(markers):
            xb = 1 << x
            near = 0
            for g in groups:
                if g & xb:
                    near |= g
            near &= ~xb
            order = _bits(near & used) + _bits(near & ~used) + _bits(markers & ~near & ~xb)
            for y in order:
                yb = 1 << y
                child = [g & ~xb for g in groups if not g & yb]
                if any(c == 0 for c in child):
                    continue
                sub = self.shallow(child, levels - 1)
                if sub is not None:
                    coverings[self.names[x]] = (self.names[y], sub)
                    used |= yb
                    break
            else:
                return None
        return MatchingSet(self.names_of(markers), group_names, coverings=coverings)

    def names_of(self, mask: int) -> list[str]:
        return [self.names[i] for i in _bits(mask)]

    def level(self, groups: list[int], M: int, B: int) -> MatchingSet:
        """A matching set for ``groups`` (reduced masks) in state (M, B), which Breaker wins."""
        markers = 0
        for g in groups:
            markers |= g
        group_names = [self.names_of(g) for g in groups]
        ms_markers = self.names_of(markers)
        core = _minimal(groups)
        pairs = _pairing(core)
        if pairs is not None:
            return MatchingSet(ms_markers, group_names, pairs=[(self.names[a], self.names[b]) for a, b in pairs])
        parts = _components(core)
        if len(parts) > 1:
            subs = [self.level(part, M, B) for part in parts]
            return MatchingSet(ms_markers, group_names, parts=subs)
        coverings: dict[str, tuple[str, MatchingSet]] = {}
        used = 0  # replies given so far: reused first, so that few main markers serve
        for x in _bits(markers):
            xb = 1 << x
            reply = self.reply(groups, markers, M, B, xb, used)
            if reply is None:
                raise KinarowError(f"internal error: no Breaker reply to {self.names[x]}")
            yb, child_groups = reply
            used |= yb
            coverings[self.names[x]] = (self.names[yb.bit_length() - 1], self.level(child_groups, M | xb, B | yb))
        return MatchingSet(ms_markers, group_names, coverings=coverings)

    def reply(
        self, groups: list[int], markers: int, M: int, B: int, xb: int, used: int
    ) -> tuple[int, list[int]] | None:
        """Breaker's answer to x: one after which a pairing exists if there is one, else any winning one."""
        near = 0
        for g in groups:
            if g & xb:
                near |= g
        near &= ~xb
        order = [1 << y for y in _bits(near & used) + _bits(near & ~used) + _bits(markers & ~near & ~xb)]
        children = []
        for yb in order:
            child = [g & ~xb for g in groups if not g & yb]
            if any(c == 0 for c in child):
                continue
            children.append((yb, child))
            if _pairing(_minimal(child), 0, [2000]) is not None:
                return yb, child
        for yb, child in children:
            # Breaker wins a sum of independent parts iff it wins each part, so the whole state decides
            if self.game.breaker_wins(M | xb, B | yb):
                return yb, child
        return None


@dataclass
class FindResult:
    """What :func:`find` found: who wins the Maker-Breaker game, and the matching set when Breaker does."""

    breaker_wins: bool | None
    markers: list[str]
    groups: list[list[str]]
    matching_set: MatchingSet | None
    nodes: int
    seconds: float

    @property
    def ratio(self) -> float:
        return len(self.markers) / len(self.groups) if self.groups else 0.0

    def to_dict(self) -> dict[str, Any]:
        ms = self.matching_set
        return {
            "breaker_wins": self.breaker_wins,
            "markers": len(self.markers),
            "groups": len(self.groups),
            "reduction": 2 * len(self.groups) - len(self.markers),
            "ratio": round(self.ratio, 4),
            "main_markers": ms.main_markers if ms else [],
            "depth": ms.depth if ms else None,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
            "matching_set": ms.to_json() if ms else None,
        }


def check_budget(budget: object) -> int:
    """A search's node budget: 0 (none) or a whole number up to 10**18; one sentence otherwise."""
    from kinarow.limits import check_count

    if type(budget) is int and budget == 0:
        return 0
    return check_count(budget, "budget") or 0


def find(groups: list[list[str]] | str, *, budget: int = 0) -> FindResult:
    """Solve the Maker-Breaker game on ``groups`` (Maker = Black moves first) and read off a matching set.

    ``budget`` bounds the search nodes (0: none); when it runs out ``breaker_wins`` is None.
    """
    budget = check_budget(budget)
    if isinstance(groups, str):
        groups = parse_groups(groups)
    start = time.perf_counter()
    names = markers_of(groups)
    if len(names) > MAX_MARKERS:
        raise KinarowError(f"{len(names)} markers is too many; a matching set search takes at most {MAX_MARKERS}")
    index = {n: i for i, n in enumerate(names)}
    masks = [sum(1 << index[m] for m in g) for g in groups]
    game = _Game(masks, len(names), budget)
    wins = game.breaker_wins(0, 0)
    ms = None
    if wins:
        ms = _Reader(game, names).read(game.live(0, 0))
        ms.groups = [list(g) for g in groups]
    return FindResult(wins, names, [list(g) for g in groups], ms, game.nodes, time.perf_counter() - start)


# -- positions ------------------------------------------------------------------------------
def _live_groups(position: Position, player: int, board: list[int] | None = None) -> list[tuple[int, ...]]:
    board = position.board if board is None else board
    return [g for g in position.geometry.groups if all(board[c] != 3 - player for c in g)]


def cover_position(
    position: Position, player: int = 1, *, budget: int = 0, blocked: tuple[int, ...] = ()
) -> tuple[bool | None, MatchingSet | None]:
    """A matching set over the empty cells covering every live group of ``player`` (or why not).

    ``blocked``: cells taken by the opponent first (an opening move of the blocking side).
    """
    board = list(position.board)
    for c in blocked:
        board[c] = 3 - player
    name = position.geometry.name
    groups = _live_groups(position, player, board)
    empties = [[c for c in g if board[c] == 0] for g in groups]
    if any(not e for e in empties):
        return False, None  # the player already owns a group
    cells = sorted({c for e in empties for c in e})
    if not cells:
        return True, MatchingSet([], [], pairs=[])
    if len(cells) > MAX_MARKERS:  # said before the groups are named (a large board has many)
        raise KinarowError(f"{len(cells)} markers is too many; a matching set search takes at most {MAX_MARKERS}")
    unique = [list(g) for g in dict.fromkeys(tuple(name(c) for c in e) for e in empties)]  # in order, once each
    result = find(unique, budget=budget)
    if result.matching_set is not None:
        result.matching_set.markers = sorted(result.matching_set.markers, key=lambda n: position.geometry.parse_cell(n))
    return result.breaker_wins, result.matching_set


def find_position(
    target: Game | Position | str,
    *,
    moves: str | None = None,
    players: tuple[int, ...] = (1,),
    budget: int = 0,
) -> tuple[MatchingProof | None, str]:
    """A matching-set certificate that each of ``players`` cannot win from the position, or (None, why not).

    Boards of more than :data:`MAX_MATCHING_CELLS` cells are refused with one sentence.
    """
    budget = check_budget(budget)
    if not isinstance(players, tuple) or not players or not all(
            type(p) is int and p in (1, 2) for p in players):
        raise KinarowError(f"players must be a tuple of 1 and/or 2, not {str(players)[:40]}")
    position = search_position(target, moves, "matching sets")
    if position.is_over:
        raise KinarowError(f"the game is already over after {position.move_text()}")
    covers = []
    openings: list[str | None] = []
    for player in players:
        wins, ms = cover_position(position, player, budget=budget)
        word = Player.of(player)
        opening = None
        if not wins and position.to_move != player:
            # the blocking side moves first: try each opening move
            cells = sorted({c for g in _live_groups(position, player) for c in g if position.board[c] == 0})
            for c in cells:
                wins, ms = cover_position(position, player, budget=budget, blocked=(c,))
                if wins:
                    opening = position.name(c)
                    break
        openings.append(opening)
        if not wins or ms is None:
            why = "the search ran out of budget" if wins is None else "Maker wins the Maker-Breaker game on its groups"
            return None, f"no matching set covers the {word} player's live groups: {why}"
        covers.append((word, ms))
    game = position.game
    proof = MatchingProof(str(game), [position.name(c) for c in position.moves], covers, openings)
    return proof, proof.conclusion()


# -- the catalogue --------------------------------------------------------------------------
@dataclass(frozen=True)
class Configuration:
    """A published configuration: its group structure and the figures of Uiterwijk's table."""

    name: str
    groups: str
    markers: int
    group_count: int
    reduction: int
    ratio: float
    nodes_naive: int
    main_markers: str = ""

    def group_list(self) -> list[list[str]]:
        return parse_groups(self.groups)


#: Uiterwijk (ACG 2017), table of configurations: markers, groups, reduction, ratio and the nodes
#: his 4-in-a-row program needed with naive pairings only. Group structures are our reconstructions
#: from the published counts and descriptions (one letter per marker).
CATALOGUE: tuple[Configuration, ...] = (
    Configuration("Triangle", "ab acd bce", 5, 3, 1, 1.67, 17, "ab"),
    Configuration("Square", "ab bec cfd dga", 7, 4, 1, 1.75, 40),
    Configuration("Triangle/Line", "ab acd bce dfe", 6, 4, 2, 1.50, 26),
    Configuration("Square/Line", "ab bec cfd dga ehg", 8, 5, 2, 1.60, 67),
    Configuration("BiTriangle", "ab acd bce afg bfh", 8, 5, 2, 1.60, 25, "ab"),
    Configuration("BiTriangleX", "ab acd bce aef bfg", 7, 5, 3, 1.40, 17),
    Configuration("FlatStar", "bac bde bfh gad gef gch", 8, 6, 4, 1.33, 17, "bg"),
    Configuration("BiTriangle/Line", "ab acd bce afg bfh die", 9, 6, 3, 1.50, 25),
    Configuration("BiTriangle/BiLine", "ab acd bce afg bfh die gjh", 10, 7, 4, 1.43, 25),
    Configuration("BiTriangleX/Line", "ab acd bce aef bfg dhg", 8, 6, 4, 1.33, 51),
    Configuration("FlatStar/Line", "bac bde bfh gad gef gch bg", 8, 7, 6, 1.14, 17),
    Configuration("TriTriangleX", "ab acd bce afg bfh aei bji", 10, 7, 4, 1.43, 23),
)


def configuration(name: str) -> Configuration:
    """The catalogue entry called ``name`` (case-insensitive)."""
    for c in CATALOGUE:
        if c.name.lower() == name.lower():
            return c
    allowed = ", ".join(c.name for c in CATALOGUE)
    raise KinarowError(f"there is no configuration called '{name}'; the catalogue has: {allowed}")


def cycle(n: int) -> list[list[str]]:
    """The cycle of ``n`` groups (Square for n = 4): corners c0..c(n-1), edge markers e1..e(n-1) (none on c0-c1)."""
    if n < 3:
        raise KinarowError(f"a cycle needs at least 3 groups, not {n}")
    groups = [["c0", "c1"]]
    for i in range(1, n):
        groups.append([f"c{i}", f"e{i}", f"c{(i + 1) % n}"])
    return groups
