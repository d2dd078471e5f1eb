"""Matching sets (Uiterwijk, "Set Matching", ACG 2017): the certificate and its checker.

A *matching set* over markers ``N`` (empty cells) and groups ``G`` (each given
by the markers inside it) is a strategy for White, moving second, that puts a
White stone on a marker of every group of ``G``:

* a **pairing** leaf: disjoint pairs of markers, every group holding both
  cells of a pair (Hales-Jewett: answer one cell of a pair with the other);
* **coverings**: for every Black move ``x`` on a marker a White reply ``y``
  (a marker), followed by a matching set for the groups that do not contain
  ``y``, each reduced to the markers of that matching set, which must avoid
  ``x`` and ``y``;
* **parts**: matching sets on pairwise disjoint markers, played side by side
  (a Black move in one part is answered in that part); every group must
  contain all the markers of some group of some part.

Black moves outside the markers of a level leave it unchanged (White answers
anywhere; an extra White stone never hurts White).

This module holds the value (:class:`MatchingSet`), its JSON form, the
position-level certificate (:class:`MatchingProof`: which player's live
groups a matching set covers in which position) and the checkers. It imports
the rules only, never search code.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import MAKER_BREAKER, Game
from kinarow.proofs import Verdict, blocking_fit, require_board, require_format, require_input
from kinarow.values import Player, read

FORMAT = "kinarow.matching"
VERSION = 1


@dataclass
class MatchingSet:
    """Markers ``N``, groups ``G`` (as marker lists) and the strategy: ``pairs``, ``coverings`` or ``parts``."""

    markers: list[str]
    groups: list[list[str]]
    pairs: list[tuple[str, str]] | None = None
    coverings: dict[str, tuple[str, MatchingSet]] = field(default_factory=dict)
    parts: list[MatchingSet] | None = None

    @property
    def kind(self) -> str:
        if self.pairs is not None:
            return "pairing"
        if self.parts is not None:
            return "parts"
        return "coverings"

    @property
    def coverage_ratio(self) -> float:
        """Markers per group, |N| / |G| (a Hales-Jewett pairing needs 2.0)."""
        return len(self.markers) / len(self.groups) if self.groups else 0.0

    @property
    def reduction(self) -> int:
        """Markers saved against a pairing: 2|G| - |N|."""
        return 2 * len(self.groups) - len(self.markers)

    @property
    def main_markers(self) -> list[str]:
        """White's first replies (the markers a covering answers with at the top level)."""
        if self.kind == "coverings":
            return sorted({y for y, _ in self.coverings.values()}, key=self.markers.index)
        if self.kind == "parts":
            return [m for part in self.parts or [] for m in part.main_markers]
        return []

    @property
    def depth(self) -> int:
        """Levels of coverings before the pairings (0 for a plain pairing)."""
        if self.kind == "pairing":
            return 0
        if self.kind == "parts":
            return max((p.depth for p in self.parts or []), default=0)
        return 1 + max((child.depth for _, child in self.coverings.values()), default=0)

    @property
    def size(self) -> int:
        """Nodes of the strategy (levels and pairing leaves)."""
        if self.kind == "pairing":
            return 1
        if self.kind == "parts":
            return 1 + sum(p.size for p in self.parts or [])
        return 1 + sum(child.size for _, child in self.coverings.values())

    # -- JSON ---------------------------------------------------------------------------
    def node_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"markers": list(self.markers)}
        if self.kind == "pairing":
            out["pairs"] = [list(p) for p in self.pairs or []]
        elif self.kind == "parts":
            out["parts"] = [{"groups": p.groups, **p.node_json()} for p in self.parts or []]
        else:
            out["coverings"] = {x: [y, child.node_json()] for x, (y, child) in self.coverings.items()}
        return out

    def to_json(self) -> dict[str, Any]:
        """The abstract certificate (no game): ``{"format": "kinarow.matching", ...}``."""
        return {"format": FORMAT, "version": VERSION, "groups": [list(g) for g in self.groups], **self.node_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchingSet:
        require_format(data, FORMAT, VERSION, "matching-set")
        try:
            return _node_from_json(data, [[str(m) for m in g] for g in data["groups"]])
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise KinarowError(f"the matching-set certificate lacks a field or has a bad one ({err!r})") from None


def _node_from_json(data: dict[str, Any], groups: list[list[str]]) -> MatchingSet:
    markers = [str(m) for m in data["markers"]]
    if "pairs" in data:
        return MatchingSet(markers, groups, pairs=[(str(a), str(b)) for a, b in data["pairs"]])
    if "parts" in data:
        parts = [_node_from_json(p, [[str(m) for m in g] for g in p["groups"]]) for p in data["parts"]]
        return MatchingSet(markers, groups, parts=parts)
    coverings: dict[str, tuple[str, MatchingSet]] = {}
    for x, (y, child) in data["coverings"].items():
        keep = set(str(m) for m in child["markers"])
        child_groups = [[m for m in g if m in keep] for g in groups if str(y) not in g]
        coverings[str(x)] = (str(y), _node_from_json(child, child_groups))
    return MatchingSet(markers, groups, coverings=coverings)


def child_groups(groups: list[list[str]], reply: str, markers: list[str]) -> list[list[str]]:
    """The groups a covering's next level must cover: those without ``reply``, reduced to ``markers``."""
    keep = set(markers)
    return [[m for m in g if m in keep] for g in groups if reply not in g]


# -- the abstract checker ------------------------------------------------------------------
def played(ok: bool, reason: str, lines: int = 0) -> Verdict:
    """A matching-set verdict, with the Black choices played in ``details["lines"]``."""
    return Verdict(ok, reason, {"lines": lines})


def check(ms: MatchingSet) -> Verdict:
    """Does ``ms`` keep a White marker in every one of its groups? Plays every Black choice against the replies."""
    require_input(ms, MatchingSet, "kinarow.proofs.matching.check()", "a MatchingSet (MatchingSet.from_json reads one)")
    counter = [0]
    reason = _check_level(ms, "", counter)
    if reason is not None:
        return played(False, reason, counter[0])
    return played(
        True,
        f"every one of the {len(ms.groups)} groups gets a White marker ({len(ms.markers)} markers, "
        f"{counter[0]:,} Black choices played)",
        counter[0],
    )


def _where(path: str) -> str:
    return f" after {path.strip()}" if path.strip() else ""


def _check_level(ms: MatchingSet, path: str, counter: list[int]) -> str | None:
    N = set(ms.markers)
    if len(N) != len(ms.markers):
        return f"a marker is listed twice{_where(path)}"
    for g in ms.groups:
        if not set(g) <= N:
            return f"group {' '.join(g)} names a cell that is not a marker{_where(path)}"
        if not g:
            return f"a group has no marker left, so Black owns it{_where(path)}"
    if ms.kind == "pairing":
        used: set[str] = set()
        for a, b in ms.pairs or []:
            if a == b or a not in N or b not in N:
                return f"pair {a}-{b} is not two different markers{_where(path)}"
            if a in used or b in used:
                return f"pairs share a marker ({a}-{b}){_where(path)}"
            used |= {a, b}
        for g in ms.groups:
            gs = set(g)
            if not any(a in gs and b in gs for a, b in ms.pairs or []):
                return f"group {' '.join(g)} holds no pair{_where(path)}"
        return None
    if ms.kind == "parts":
        seen: set[str] = set()
        parts = ms.parts or []
        for part in parts:
            pm = set(part.markers)
            if not pm <= N or pm & seen:
                return f"the parts' markers overlap or leave the level's markers{_where(path)}"
            seen |= pm
            reason = _check_level(part, path, counter)
            if reason is not None:
                return reason
        for g in ms.groups:
            gs = set(g)
            if not any(set(h) <= gs for part in parts for h in part.groups):
                return f"group {' '.join(g)} contains no group of any part{_where(path)}"
        return None
    for x in ms.markers:
        counter[0] += 1
        if x not in ms.coverings:
            return f"Black's move {x} has no reply{_where(path)}"
        y, child = ms.coverings[x]
        if y not in N or y == x:
            return f"the reply {y} to {x} is not another marker{_where(path)}"
        if not set(child.markers) <= N - {x, y}:
            return f"the level after {x} {y} uses a cell that is not a free marker{_where(path)}"
        expected = Counter(frozenset(g) for g in child_groups(ms.groups, y, child.markers))
        if expected != Counter(frozenset(g) for g in child.groups):
            return f"the level after {x} {y} lists other groups than those left{_where(path)}"
        reason = _check_level(child, f"{path} {x} {y}", counter)
        if reason is not None:
            return reason
    extra = set(ms.coverings) - N
    if extra:
        return f"a reply is given for {sorted(extra)[0]}, which is not a marker{_where(path)}"
    return None


# -- position-level certificate ------------------------------------------------------------
@dataclass
class MatchingProof:
    """Matching sets proving, in a position, that a player cannot win: ``covers`` = [(player, matching set)]."""

    game: str
    moves: list[str]
    covers: list[tuple[Player, MatchingSet]]
    #: per cover, a first move of the blocking side (when it is to move), or None
    openings: list[str | None] = field(default_factory=list)

    def opening(self, i: int) -> str | None:
        return self.openings[i] if i < len(self.openings) else None

    def to_json(self) -> dict[str, Any]:
        covers = []
        for i, (p, ms) in enumerate(self.covers):
            cover: dict[str, Any] = {"player": p}
            if self.opening(i) is not None:
                cover["opening"] = self.opening(i)
            covers.append({**cover, "groups": ms.groups, **ms.node_json()})
        return {"format": FORMAT, "version": VERSION, "game": self.game, "moves": list(self.moves), "covers": covers}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchingProof:
        require_format(data, FORMAT, VERSION, "matching-set")
        try:
            covers = []
            openings: list[str | None] = []
            for cover in data["covers"]:
                openings.append(str(cover["opening"]) if cover.get("opening") is not None else None)
                player = read(Player, str(cover["player"]), "a cover's player")
                groups = [[str(m) for m in g] for g in cover["groups"]]
                covers.append((player, _node_from_json(cover, groups)))
            return cls(str(data["game"]), [str(m) for m in data["moves"]], covers, openings)
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            if isinstance(err, KinarowError):
                raise
            raise KinarowError(f"the matching-set certificate lacks a field or has a bad one ({err!r})") from None

    @property
    def method(self) -> str:
        """How it proves it, in words: "pairings" when every set is a plain pairing, else "matching sets"."""
        return "pairings" if all(ms.kind == "pairing" for _, ms in self.covers) else "matching sets"

    def conclusion(self) -> str:
        """What the certificate proves, in words (assuming it checks)."""
        game = Game(self.game)
        players = {p for p, _ in self.covers}
        if game.goal == MAKER_BREAKER:
            if Player.FIRST in players:
                return "Maker cannot win: Breaker (second player) wins"
            return "Breaker's groups cannot be completed (which decides nothing in Maker-Breaker)"
        if players == {Player.FIRST, Player.SECOND}:
            return "neither player can win: the position is a draw"
        return f"the {Player.FIRST if Player.FIRST in players else Player.SECOND} player cannot win"


def check_proof(proof: MatchingProof) -> Verdict:
    """Re-verify a position-level matching-set certificate from the rules only."""
    require_input(proof, MatchingProof, "check_proof()", "a MatchingProof (MatchingProof.from_json reads one)")
    try:
        game = Game(proof.game)
        require_board(game)
        position = game.position(" ".join(proof.moves))
    except KinarowError as err:
        return played(False, f"the certificate's game or moves are invalid: {err}")
    fit = blocking_fit(game)
    if not fit:
        return played(False, f"a matching set proves nothing here: {fit.reason}")
    if position.is_over:
        return played(False, "the game is already over in that position")
    if not proof.covers:
        return played(False, "the certificate covers no player")
    geo = position.geometry
    lines = 0
    for i, (player_word, ms) in enumerate(proof.covers):
        player = player_word.stone
        board = list(position.board)
        opening = proof.opening(i)
        if opening is not None:
            # the blocking side is to move and plays this cell first
            if position.to_move != 3 - player:
                why = f"the opening move {opening} is given, but the blocking side is not to move"
                return played(False, why)
            try:
                o = geo.parse_cell(opening)
            except KinarowError as err:
                return played(False, f"opening {opening}: {err}")
            if board[o] != 0:
                return played(False, f"the opening move {opening} is not on an empty cell")
            board[o] = 3 - player
        cells: dict[str, int] = {}
        for name in ms.markers:
            try:
                c = geo.parse_cell(name)
            except KinarowError as err:
                return played(False, f"marker {name}: {err}")
            if board[c] != 0:
                return played(False, f"marker {name} is not an empty cell")
            cells[geo.name(c)] = c
        if set(cells) != set(ms.markers):
            return played(False, "markers must be written as the board names them (like a1)")
        verdict = check(ms)
        lines += verdict.details["lines"]
        if not verdict.ok:
            return played(False, f"the {player_word} player's matching set fails: {verdict.reason}", lines)
        own = [set(g) for g in ms.groups]
        marker_cells = set(cells.values())
        for g in geo.groups:
            if any(board[c] == 3 - player for c in g):
                continue  # the opponent already blocks it
            inside = {geo.name(c) for c in g if c in marker_cells}
            if not any(h <= inside for h in own):
                names = " ".join(geo.name(c) for c in g)
                return played(False, f"the {player_word} player's live group {names} is not covered", lines)
    return played(True, f"{proof.conclusion()} ({lines:,} Black choices played)", lines)


def check_certificate(data: dict[str, Any]) -> Verdict:
    """The ``kinarow.matching`` checker: a position-level proof or an abstract matching set."""
    require_input(data, dict, "the matching checker", "a certificate's JSON object (a dict)")
    if "game" in data:
        proof = MatchingProof.from_json(data)
        verdict = check_proof(proof)
        where = f"in {proof.game}" + (f" after {' '.join(proof.moves)}" if proof.moves else "")
        claim = ""  # the position-level reason already says what is proved
    else:
        ms = MatchingSet.from_json(data)
        verdict = check(ms)
        where = f"for {len(ms.groups)} groups on {len(ms.markers)} markers"
        claim = " (Breaker wins)"
    details = {"lines": verdict.details["lines"]}
    if verdict.ok:
        return Verdict(True, f"matching set {where}: {verdict.reason}{claim}", details)
    return Verdict(False, f"the matching set {where} fails: {verdict.reason}", details)
