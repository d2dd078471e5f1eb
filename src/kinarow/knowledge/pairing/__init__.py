"""Hales-Jewett pairings: find one with a SAT solver, check one with the rules alone.

A *pairing* is a set of disjoint pairs of empty cells. It is *good* for a
position when every group still live for the first player (no White stone on
it) contains both cells of some pair: whenever Black takes one cell of a pair,
White answers with the other, and no live group can ever be completed by
Black. A good pairing therefore proves that the first player cannot win from
the position (Tung & Lau, Section 2; see also the brief's pairing page).

:func:`find` settles existence exactly, cheapest way first:

1. the counting bounds (:mod:`kinarow.knowledge.pairing.bounds`: Tung & Lau's Theorem 10,
   Proposition 1) -- when one fails, no pairing exists and no search runs;
2. on an empty board of a published family, the family's pairing
   (:mod:`kinarow.knowledge.pairing.constructions`), verified by :func:`check`;
3. when no two live groups share two empty cells, a pair blocks at most one
   group, and a good pairing is exactly two private cells per group: a
   bipartite matching (networkx) decides it;
4. otherwise SAT (CaDiCaL through python-sat): one variable per candidate
   pair -- two empty cells of one live group --, at most one pair per cell,
   at least one pair inside every live group, plus two families of implied
   constraints: Lemma 9 cuts (a run of r consecutive live groups along a line
   needs ceil(r / (k-1)) pairs lying along it) and lex-leader symmetry
   breaking for every symmetry of the board that fixes the position.
   An unsatisfiable formula proves that no good pairing exists.

With ``certify=True`` an answer "none exists" comes with a certificate
(:class:`NoPairing`, format ``kinarow.no-pairing``): the run skips the bounds,
the matching path, the Lemma 9 cuts and the symmetry breaking -- none of
which a DRAT proof can justify as it stands -- and solves the checker's own
formula (:func:`kinarow.proofs.drat.pairing_formula`) with proof logging;
the refutation is checked by :mod:`kinarow.proofs.drat`.

:func:`check` re-verifies a pairing from the game and its moves only.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.knowledge import sat
from kinarow.knowledge.board import MAX_SEARCH_CELLS, search_position
from kinarow.knowledge.pairing.bounds import (
    PROPOSITION_1,
    THEOREM_10,
    exclusion,
    line_lengths,
    paired_cells_needed,
    theorem10_bound,
)
from kinarow.knowledge.pairing.constructions import construct_xy, family
from kinarow.position import Position
from kinarow.proofs import Verdict, envelope, require_format
from kinarow.proofs import drat as drat_proof

if TYPE_CHECKING:
    from kinarow.store import Store

__all__ = [
    "NoPairing",
    "Pairing",
    "PairingResult",
    "check",
    "construct",
    "existence_table",
    "find",
    "line_lengths",
    "live_groups",
    "paired_cells_needed",
    "stored_table_rows",
    "table_job",
    "table_row_fits",
    "theorem10_bound",
]

FORMAT = "kinarow.pairing"
VERSION = 1


@dataclass
class Pairing:
    """Pairs of cells (by name) proposed for a game after some moves."""

    game: str
    moves: list[str]
    pairs: list[tuple[str, str]]

    def to_json(self) -> dict[str, Any]:
        return {**envelope(FORMAT, VERSION, self.game, self.moves, "first cannot win"),
                "pairs": [list(p) for p in self.pairs]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Pairing:
        require_format(data, FORMAT, VERSION, "pairing")
        try:
            pairs = [(str(a), str(b)) for a, b in data["pairs"]]
            return cls(str(data["game"]), [str(m) for m in data["moves"]], pairs)
        except (KeyError, TypeError, ValueError) as err:
            raise KinarowError(f"the pairing certificate lacks a field or has a bad one ({err})") from None


@dataclass
class NoPairing:
    """A certificate that no good pairing exists: a DRAT refutation of the checker's pairing formula."""

    game: str
    moves: list[str]
    variables: int
    clauses: int
    proof: bytes  # DRAT text
    conflicts: int = 0

    def to_json(self) -> dict[str, Any]:
        return {**envelope(drat_proof.FORMAT, drat_proof.VERSION, self.game, self.moves, drat_proof.CLAIM),
                "encoding": drat_proof.ENCODING, "variables": self.variables, "clauses": self.clauses,
                "proof": drat_proof.encode_proof(self.proof)}


@dataclass
class PairingResult:
    """What :func:`find` found: a good pairing, or a proof that none exists."""

    game: str
    moves: str
    exists: bool | None
    pairing: Pairing | None
    live_groups: int
    unpaired: list[str] = field(default_factory=list)
    seconds: float = 0.0
    method: str = ""
    proved_by: str = ""  # "Theorem 10", "Proposition 1", "counting", "construction", "matching" or "SAT"
    refutation: NoPairing | None = None  # with find(certify=True), the certificate of "none exists"

    def certificate(self) -> dict[str, Any] | None:
        """The certificate of the answer, as JSON: the pairing, the refutation, or None (open, or not certified)."""
        if self.pairing is not None:
            return self.pairing.to_json()
        return self.refutation.to_json() if self.refutation is not None else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "moves": self.moves,
            "exists": self.exists,
            "pairs": [list(p) for p in self.pairing.pairs] if self.pairing else [],
            "unpaired": self.unpaired,
            "live_groups": self.live_groups,
            "seconds": round(self.seconds, 6),
            "method": self.method,
            "proved_by": self.proved_by,
        }


def live_groups(position: Position) -> list[tuple[int, ...]]:
    """The groups on which the first player (Black) could still complete a line: no White stone."""
    board = position.board
    return [g for g in position.geometry.groups if all(board[c] != 2 for c in g)]


MAX_PAIRING_CELLS = MAX_SEARCH_CELLS  # the most cells of a board whose pairing is searched (64x64)


def _position(target: Game | Position | str, moves: str | None) -> Position:
    return search_position(target, moves, "pairings")


#: How a result was settled (``PairingResult.proved_by``).
BY_THEOREM_10, BY_PROPOSITION_1 = THEOREM_10, PROPOSITION_1
BY_COUNTING, BY_CONSTRUCTION, BY_MATCHING, BY_SAT = "counting", "construction", "matching", "SAT"
BY_SUB_BOARD = "sub-board"  # only in the existence table: a sub-board already proved to have none

#: The python-sat solver: CaDiCaL 3.0 (the 1.5.3 build took 4.1 s on 8x8k6 where this takes 3.0-3.6 s,
#: and about 3x as long on 12x9k7, both on a loaded 2-core machine).
SAT_SOLVER = "cadical300"

#: Conflicts the SAT search spends before it adds the symmetry-breaking constraints.
QUICK_CONFLICTS = 20_000

#: The longest DRAT proof a certified run keeps (as text); a longer one is refused in one sentence.
MAX_PROOF_BYTES = drat_proof.MAX_PROOF_BYTES


def find(
    target: Game | Position | str,
    *,
    moves: str | None = None,
    minimise: bool = False,
    max_conflicts: int | None = None,
    bounds: bool = True,
    constructions: bool = True,
    matching: bool = True,
    symmetry: bool = True,
    cuts: bool = True,
    certify: bool = False,
) -> PairingResult:
    """A good pairing for the groups still live for the first player, or a proof that none exists.

    ``max_conflicts`` bounds the SAT search (CaDiCaL's conflict budget);
    when it runs out, ``exists`` is None (open). With ``minimise=True`` the
    number of pairs is made as small as possible (SAT with a totalizer bound
    tightened until unsatisfiable, stopping early at the Lemma 9 lower bound).
    ``bounds``, ``constructions``, ``matching``, ``symmetry`` and ``cuts`` switch
    the steps of the module docstring on or off; the answer never depends on
    them, only the time and the method that settles it. ``certify=True`` makes
    every "none exists" carry its certificate (``result.refutation``, see the
    module docstring): it turns the bounds, matching, symmetry breaking and cuts
    off, and raises one sentence when the proof is longer than
    :data:`MAX_PROOF_BYTES`.

    >>> find("6x6k5").proved_by
    'SAT'
    >>> find("5x5k4").proved_by
    'Theorem 10'
    >>> find("7x7k6").proved_by
    'construction'
    """
    from kinarow.limits import check_count, check_flag

    max_conflicts = check_count(max_conflicts, "max_conflicts")
    for option, flag in (("minimise", minimise), ("bounds", bounds), ("constructions", constructions),
                         ("matching", matching), ("symmetry", symmetry), ("cuts", cuts), ("certify", certify)):
        check_flag(flag, option)
    start = time.perf_counter()
    position = _position(target, moves)
    game = position.game
    board = position.board
    groups = live_groups(position)
    empty_of = [tuple(c for c in g if board[c] == 0) for g in groups]
    game_text, moves_text = str(game), position.move_text()

    def result(exists: bool | None, chosen: list[tuple[int, int]] | None, method: str, by: str) -> PairingResult:
        pairing, unpaired = None, []
        if chosen is not None:
            name = position.geometry.name
            pairing = Pairing(game_text, [name(c) for c in position.moves], [(name(a), name(b)) for a, b in chosen])
            paired = {c for p in chosen for c in p}
            unpaired = [name(c) for c in range(game.cells) if board[c] == 0 and c not in paired]
        return PairingResult(game_text, moves_text, exists, pairing, len(groups), unpaired=unpaired,
                             seconds=time.perf_counter() - start, method=method, proved_by=by)

    short = None if certify else next((g for g, e in zip(groups, empty_of, strict=False) if len(e) < 2), None)
    if short is not None:
        where = " ".join(position.geometry.name(c) for c in short)
        return result(False, None, f"the live group {where} has fewer than two empty cells", BY_COUNTING)
    if not groups:
        return result(True, [], "no live groups", BY_COUNTING)
    if bounds and not certify:
        excluded = exclusion(position, groups)
        if excluded is not None:
            return result(False, None, str(excluded), excluded.bound)
    if constructions and not position.moves and game.topology == "rect" and not game.hex and not minimise:
        built = _construction(game)
        if built is not None:
            name = family(game.m, game.n, game.k)
            return result(True, built, f"construction: our rule for Tung & Lau's family {name}", BY_CONSTRUCTION)
    if certify:
        exists, found, method, refutation = _certified_sat(position, max_conflicts)
        if not (exists and minimise):  # a pairing exists: the minimising search below needs no proof
            answer = result(exists, found, method, BY_SAT)
            answer.refutation = refutation
            return answer
    if matching and _share_at_most_one_cell(empty_of):
        chosen, placed = _matching(empty_of)
        if chosen is None:
            return result(False, None, f"matching: the live groups share at most one empty cell, so each needs two "
                          f"cells of its own, and only {placed} of the {2 * len(groups)} can be given", BY_MATCHING)
        return result(True, sorted(chosen), "matching (the live groups share at most one empty cell)", BY_MATCHING)
    exists, found, method = _sat(position, groups, empty_of, minimise, max_conflicts, symmetry, cuts)
    return result(exists, found, method, BY_SAT)


def _construction(game: Game) -> list[tuple[int, int]] | None:
    """The family pairing of an empty rect board, if one applies (and passes the checker)."""
    if family(game.m, game.n, game.k) is None:
        return None
    geo = game.geometry
    chosen = sorted(_ordered(geo.cell(*a), geo.cell(*b)) for a, b in construct_xy(game.m, game.n, game.k))
    names = [(geo.name(a), geo.name(b)) for a, b in chosen]
    if not check(Pairing(str(game), [], names)):  # pragma: no cover - the tests check every family
        return None
    return chosen


def _ordered(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _share_at_most_one_cell(empty_of: list[tuple[int, ...]]) -> bool:
    """Does every pair of cells lie together in at most one live group? (Then a pair blocks at most one group.)"""
    seen: set[tuple[int, int]] = set()
    for empties in empty_of:
        for pair in combinations(sorted(empties), 2):
            if pair in seen:
                return False
            seen.add(pair)
    return True


def _matching(empty_of: list[tuple[int, ...]]) -> tuple[list[tuple[int, int]] | None, int]:
    """Two private cells for every group by a maximum bipartite matching.

    Each group appears twice on one side, the cells on the other.

    Exact when no two groups share two cells: a pair then blocks at most one
    group, so a good pairing is the same thing as such an assignment.
    """
    import networkx as nx
    from networkx.algorithms.bipartite import hopcroft_karp_matching

    graph = nx.Graph()
    slots = [("slot", gi, half) for gi in range(len(empty_of)) for half in (0, 1)]
    graph.add_nodes_from(slots)
    for gi, empties in enumerate(empty_of):
        for half in (0, 1):
            graph.add_edges_from((("slot", gi, half), ("cell", c)) for c in empties)
    matching = hopcroft_karp_matching(graph, top_nodes=slots)
    placed = sum(1 for s in slots if s in matching)
    if placed < len(slots):
        return None, placed
    chosen = [_ordered(matching[("slot", gi, 0)][1], matching[("slot", gi, 1)][1]) for gi in range(len(empty_of))]
    return chosen, placed


def _line_runs(position: Position, groups: list[tuple[int, ...]]) -> list[tuple[list[int], int]]:
    """Runs of consecutive live groups along the board's lines: (cells of the run, number of groups).

    Only on boards without wrapping. A pair blocks live groups of one run only
    (two runs of a line are separated by windows holding a White stone, and a
    pair lying in groups on both sides would lie in more than k - 1 consecutive
    ones), at most k - 1 of them, so a run of r groups needs ceil(r / (k - 1))
    pairs lying inside it (Tung & Lau, Lemma 9, for a line broken by White stones).
    """
    game, geo = position.game, position.geometry
    if game.topology != "rect":
        return []
    k, live = game.k, set(groups)
    runs = []
    for dx, dy in geo.directions:
        for x in range(game.m):
            for y in range(game.n):
                if 0 <= x - dx < game.m and 0 <= y - dy < game.n:
                    continue  # not the first cell of its line
                line: list[int] = []
                while 0 <= x + len(line) * dx < game.m and 0 <= y + len(line) * dy < game.n:
                    line.append(geo.cell(x + len(line) * dx, y + len(line) * dy))
                run_start, count = 0, 0
                for s in range(len(line) - k + 2):
                    if s <= len(line) - k and tuple(sorted(line[s:s + k])) in live:
                        if count == 0:
                            run_start = s
                        count += 1
                    elif count:
                        runs.append((line[run_start:run_start + count + k - 1], count))
                        count = 0
    return runs


def _position_symmetries(position: Position) -> list[tuple[int, ...]]:
    """The board's symmetries (not the identity) that map the position onto itself."""
    board = position.board
    return [s for s in position.geometry.symmetries[1:] if all(board[s[c]] == board[c] for c in range(len(s)))]


@dataclass
class _Formula:
    """The pairing CNF of one position: a variable per candidate pair, and the clauses."""

    pool: Any
    candidates: dict[tuple[int, int], int]
    clauses: list[list[int]]
    symmetry_clauses: list[list[int]]
    symmetries: int
    lower: int  # pairs every good pairing needs (the sum of the cuts)
    notes: list[str]


def _formula(
    position: Position, groups: list[tuple[int, ...]], empty_of: list[tuple[int, ...]], symmetry: bool, cuts: bool
) -> _Formula:
    """Build the CNF (through python-sat's encoders: run it with :func:`kinarow.knowledge.sat.call`)."""
    from pysat.card import CardEnc, EncType
    from pysat.formula import IDPool

    k = position.game.k
    pool = IDPool()
    candidates: dict[tuple[int, int], int] = {}
    clauses: list[list[int]] = []
    for empties in empty_of:
        lits = []
        for a, b in combinations(sorted(empties), 2):
            lits.append(candidates.setdefault((a, b), pool.id(("pair", a, b))))
        clauses.append(lits)
    by_cell: dict[int, list[int]] = {}
    for (a, b), var in candidates.items():
        by_cell.setdefault(a, []).append(var)
        by_cell.setdefault(b, []).append(var)
    for lits in by_cell.values():
        if len(lits) > 1:
            clauses.extend(CardEnc.atmost(lits, 1, vpool=pool, encoding=EncType.seqcounter).clauses)
    lower = 0
    notes = []
    if cuts and k >= 2:
        for cells, count in _line_runs(position, groups):
            need = -(-count // (k - 1))
            lower += need
            if need < 2:
                continue  # already implied by the clause of any one group of the run
            inside = set(cells)
            lits = [v for (a, b), v in candidates.items() if a in inside and b in inside]
            clauses.extend(CardEnc.atleast(lits, need, vpool=pool, encoding=EncType.seqcounter).clauses)
        notes.append("Lemma 9 cuts")
    symmetry_clauses: list[list[int]] = []
    syms = _position_symmetries(position) if symmetry else []
    order = list(candidates)
    for perm in syms:
        image = [candidates[_ordered(perm[a], perm[b])] for a, b in order]
        symmetry_clauses.extend(_lex_leader([candidates[p] for p in order], image, pool))
    return _Formula(pool, candidates, clauses, symmetry_clauses, len(syms), lower, notes)


def _sat(
    position: Position,
    groups: list[tuple[int, ...]],
    empty_of: list[tuple[int, ...]],
    minimise: bool,
    max_conflicts: int | None,
    symmetry: bool,
    cuts: bool,
) -> tuple[bool | None, list[tuple[int, int]] | None, str]:
    from pysat.card import ITotalizer
    from pysat.solvers import Solver

    formula = sat.call(_formula, position, groups, empty_of, symmetry, cuts)
    candidates, clauses, notes = formula.candidates, formula.clauses, formula.notes
    with Solver(name=SAT_SOLVER, bootstrap_with=clauses) as solver:
        # A short run without symmetry breaking first: lex-leader constraints slow down
        # finding a pairing that exists, and help mostly to prove that none does.
        answer: bool | None = None
        spent = 0
        if formula.symmetry_clauses:
            spent = QUICK_CONFLICTS if max_conflicts is None else min(QUICK_CONFLICTS, max_conflicts)
            answer = sat.solve(solver, conflicts=spent)
            if answer is None:
                solver.append_formula(formula.symmetry_clauses)
                notes.append(f"{formula.symmetries} symmetries broken after {spent:,} conflicts")
        label = "SAT (CaDiCaL" + "".join(f", {n}" for n in notes) + ")"
        if answer is None and (max_conflicts is None or max_conflicts > spent):
            answer = sat.solve(solver, conflicts=None if max_conflicts is None else max_conflicts - spent)
        if answer is None:
            return None, None, f"{label}: no answer within {max_conflicts:,} conflicts"
        if not answer:
            return False, None, f"{label}: unsatisfiable"
        model = set(x for x in solver.get_model() if x > 0)
    chosen = _drop_unneeded([pair for pair, var in candidates.items() if var in model], groups)
    if not minimise:
        return True, sorted(chosen), label
    # Fewest pairs: tighten a totalizer bound on the number of pairs until unsatisfiable.
    total = sat.call(ITotalizer, lits=list(candidates.values()), ubound=len(chosen), top_id=formula.pool.top)
    with Solver(name=SAT_SOLVER, bootstrap_with=clauses + total.cnf.clauses) as solver:
        while len(chosen) > formula.lower:
            if not sat.solve(solver, [-total.rhs[len(chosen) - 1]]):
                break
            model = set(x for x in solver.get_model() if x > 0)
            chosen = _drop_unneeded([p for p, v in candidates.items() if v in model], groups)
    return True, sorted(chosen), f"{label}, fewest pairs ({len(chosen)})"


def _certified_sat(
    position: Position, max_conflicts: int | None
) -> tuple[bool | None, list[tuple[int, int]] | None, str, NoPairing | None]:
    """SAT on the checker's own formula with proof logging: a pairing, or its refutation as DRAT."""
    from pysat.solvers import Solver

    formula = drat_proof.pairing_formula(position)
    label = "SAT (CaDiCaL, certified: the checker's formula, no cuts, no symmetry breaking)"
    with sat.call(Solver, name=SAT_SOLVER, bootstrap_with=formula.clauses, with_proof=True) as solver:
        answer = sat.solve(solver, conflicts=max_conflicts)
        if answer is None:
            return None, None, f"{label}: no answer within {max_conflicts:,} conflicts", None
        if answer:
            model = set(x for x in solver.get_model() if x > 0)
            chosen = [p for i, p in enumerate(formula.pairs) if i + 1 in model]
            live = live_groups(position)
            return True, sorted(_drop_unneeded(chosen, live)), label, None
        conflicts = int(solver.accum_stats().get("conflicts", 0))
        text = sat.proof(solver, MAX_PROOF_BYTES)
    game = position.game
    if text is None:
        raise KinarowError(f"the DRAT proof that {game} has no good pairing is longer than "
                           f"{drat_proof.MAX_PROOF_WORDS}, the most a certificate may hold; run without a proof")
    names = [position.geometry.name(c) for c in position.moves]
    refutation = NoPairing(str(game), names, formula.variables, len(formula.clauses), text, conflicts)
    lines = text.count(b"\n")
    return False, None, f"{label}: unsatisfiable, {conflicts:,} conflicts, DRAT proof of {lines:,} lines", refutation


def _lex_leader(xs: list[int], ys: list[int], pool: Any) -> list[list[int]]:
    """Clauses for xs <=lex ys (false < true), with one 'equal so far' variable per position.

    With ys the variables permuted by a symmetry of the formula, every orbit of
    solutions keeps its lexicographically smallest member, so satisfiability is
    unchanged. The 'equal so far' variables are only forced up, never down.
    """
    clauses: list[list[int]] = []
    guard: list[int] = []  # empty: the empty prefix is always equal
    for x, y in zip(xs, ys, strict=False):
        if x == y:
            continue
        clauses.append([*guard, -x, y])  # prefix equal -> x <= y
        equal = pool.id(("lex", pool.top + 1))
        clauses.append([*guard, x, y, equal])  # prefix equal and both false -> still equal
        clauses.append([*guard, -x, -y, equal])  # prefix equal and both true -> still equal
        guard = [-equal]
    return clauses


def _drop_unneeded(pairs: list[tuple[int, int]], groups: list[tuple[int, ...]]) -> list[tuple[int, int]]:
    """Remove pairs that no live group needs (the solver may switch on extra ones)."""
    blocks: dict[tuple[int, int], list[int]] = {p: [] for p in pairs}
    partner = {a: (a, b) for a, b in pairs} | {b: (a, b) for a, b in pairs}
    count = [0] * len(groups)
    for gi, g in enumerate(groups):
        members = set(g)
        for c in g:
            p = partner.get(c)
            if p is not None and c == p[0] and p[1] in members:
                blocks[p].append(gi)
                count[gi] += 1
    kept = []
    for p in pairs:
        if blocks[p] and all(count[gi] > 1 for gi in blocks[p]):
            for gi in blocks[p]:
                count[gi] -= 1
        elif blocks[p]:
            kept.append(p)
    return kept


def construct(m: int, n: int, k: int) -> Pairing:
    """The pairing of Tung & Lau's family for the empty m x n board with k in a row.

    The rules are in :mod:`kinarow.knowledge.pairing.constructions`; one clear sentence
    when no family covers the board.

    >>> bool(check(construct(30, 30, 30)))
    True
    """
    game = Game(f"{m}x{n}k{k}")
    if game.cells > MAX_PAIRING_CELLS:
        raise KinarowError(f"{game} has {game.cells:,} cells; pairings are built on boards of at most "
                           f"{MAX_PAIRING_CELLS:,} cells (64x64)")
    geo = game.geometry
    pairs = [(geo.name(geo.cell(*a)), geo.name(geo.cell(*b))) for a, b in construct_xy(m, n, k)]
    return Pairing(str(game), [], pairs)


def check(pairing: Pairing) -> Verdict:
    """Is ``pairing`` a good pairing for its position? (Rules only: :mod:`kinarow.proofs.pairing`.)"""
    from kinarow.proofs.pairing import check_certificate

    try:
        return check_certificate(pairing.to_json())
    except KinarowError as err:
        return Verdict(False, str(err))


@dataclass
class TableRow:
    m: int
    n: int
    k: int
    groups: int
    cells_needed: int  # paired cells Lemma 9 asks for, summed over the lines (= Theorem 10)
    bound_allows: bool  # Theorem 10, on the board and on every sub-board
    theorem10_where: str  # "" (allows), "board", or the excluding sub-board "WxH"
    proposition1_allows: bool  # Proposition 1 on every sub-rectangle
    family: str  # Tung & Lau's family that covers the board, or ""
    exists: bool | None
    proved_by: str
    pairs: int
    seconds: float
    method: str


#: the largest side of the existence table: its boards stay within :data:`MAX_PAIRING_CELLS`
MAX_TABLE_SIDE = 64


def table_boards(max_side: int = 12) -> list[tuple[int, int, int]]:
    """The (m, n, k) of the existence table's rows, in order: m >= n, 3 <= k <= m."""
    if isinstance(max_side, bool) or not isinstance(max_side, int) or not 1 <= max_side <= MAX_TABLE_SIDE:
        raise KinarowError(f"the existence table's side {str(max_side)[:40]!r} is not allowed; it runs from 1 to "
                           f"{MAX_TABLE_SIDE}")
    return [(m, n, k) for m in range(1, max_side + 1) for n in range(1, m + 1) for k in range(3, m + 1)]


_FIELD_TYPES: dict[str, tuple[type, ...]] = {"int": (int,), "bool": (bool,), "str": (str,), "float": (int, float),
                                             "bool | None": (bool, type(None))}


def table_row_fits(store: Store, job: str, key: str, row: dict[str, Any]) -> bool:
    """Is a stored row of the pairing table one of this version's rows, every field of its type? (Else the store
    is told the row was ignored, and the board is worked out again.)"""
    fields = TableRow.__dataclass_fields__
    if set(row) != set(fields):
        return False  # a row of another version of the table: not a bad row
    for name, spec in fields.items():
        allowed = _FIELD_TYPES.get(str(spec.type), (object,))
        value = row[name]
        if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
            store.bad_row(f"row {key} of job {job}", f"its field '{name}' is not of type {spec.type}")
            return False
    return True


def table_job(max_conflicts: int) -> str:
    """The results store's job name of the pairing table's rows at this SAT budget (v2: with the bounds' columns)."""
    return f"pairing-table/v2/max-conflicts={max_conflicts}"


def stored_table_rows(store: Store, max_side: int, max_conflicts: int) -> dict[tuple[int, int, int], TableRow]:
    """The rows of the table up to ``max_side`` that ``store`` holds from earlier runs at this budget, each
    checked field by field (a bad row is reported to the store and worked out again)."""
    job = table_job(max_conflicts)
    boards = set(table_boards(max_side))
    saved = [TableRow(**row) for key, row in store.job_rows(job).items() if table_row_fits(store, job, key, row)]
    return {(r.m, r.n, r.k): r for r in saved if (r.m, r.n, r.k) in boards}


def existence_table(
    max_side: int = 12,
    max_conflicts: int = 1_000_000,
    *,
    done: Mapping[tuple[int, int, int], TableRow] | None = None,
    on_row: Callable[[TableRow], None] | None = None,
    workers: int = 1,
    store: Store | None = None,
) -> list[TableRow]:
    """For every m >= n <= max_side and 3 <= k <= m: is there a good pairing of the empty m x n board?

    Boards n x m are the transposes of m x n and have the same answer. The
    counting bounds settle what they can (no search runs then); the rest is
    settled by the matching path or SAT -- never by the family constructions,
    so that the table confirms the families independently. A case the solver
    does not settle within ``max_conflicts`` conflicts is open. Rows in ``done``
    (finished earlier, by (m, n, k)) are taken as they are; ``on_row`` is told of
    each row as soon as it is computed (to save it). ``workers`` processes
    compute rows side by side (:func:`kinarow.engine.pool.run_cells`); a row waits for
    its sub-boards' rows, so the table is the same for any number of workers. With a ``store``, each row
    computed is saved there at once (:func:`stored_table_rows` reads them back), so a stopped table resumes.
    """
    from kinarow.engine.pool import run_cells
    from kinarow.limits import check_count

    check_count(max_conflicts, "max_conflicts")
    if store is not None:
        told = on_row

        def on_row(row: TableRow) -> None:
            store.put_job_row(table_job(max_conflicts), f"{row.m}x{row.n}k{row.k}", vars(row))
            if told is not None:
                told(row)

    boards = table_boards(max_side)
    order = {b: i for i, b in enumerate(boards)}
    rows: dict[tuple[int, int, int], TableRow] = {}
    for board in boards:
        if done is not None and board in done:
            rows[board] = done[board]
    todo = [b for b in boards if b not in rows]

    def prepare(i: int) -> tuple[int, int, int, int, tuple[int, int, str] | None]:
        m, n, k = todo[i]
        # the first sub-board (in table order) proved to have no good pairing by a search
        inside = next(((a, b, r.proved_by) for a, b, kk in boards[:order[todo[i]]]
                       if kk == k and (r := rows.get((a, b, k))) is not None and r.exists is False
                       and r.proved_by in (BY_SAT, BY_MATCHING) and ((a <= m and b <= n) or (b <= m and a <= n))),
                      None)
        return m, n, k, max_conflicts, inside

    def finish(i: int, row: TableRow) -> None:
        rows[todo[i]] = row
        if on_row is not None:
            on_row(row)

    def after(i: int) -> list[int]:
        m, n, k = todo[i]
        return [j for j, (a, b, kk) in enumerate(todo[:i]) if kk == k and a <= m and b <= n]

    run_cells(_table_row, len(todo), prepare, finish, after=after, workers=workers)
    return [rows[b] for b in boards]


def _table_row(job: tuple[int, int, int, int, tuple[int, int, str] | None]) -> TableRow:
    """One row of the existence table; ``inside`` is a sub-board with no good pairing (a, b, how), if any."""
    from kinarow.knowledge.pairing.bounds import proposition1_rect, theorem10_sub_board

    m, n, k, max_conflicts, inside = job
    game = Game(f"{m}x{n}k{k}")
    needed = paired_cells_needed(game)
    if inside is not None and exclusion(game.start()) is None:
        # a good pairing of the board would give one of this sub-board, which has none
        a, b, how = inside
        result = PairingResult(str(game), "", False, None, len(game.geometry.groups),
                               method=f"its {a}x{b} sub-board has no good pairing ({how}, row above)",
                               proved_by=BY_SUB_BOARD)
    else:
        result = find(game, max_conflicts=max_conflicts, constructions=False)
    pairs = len(result.pairing.pairs) if result.pairing else 0
    sub = theorem10_sub_board(game)
    where = "" if sub is None else "board" if sub == (m, n) else f"{sub[0]}x{sub[1]}"
    return TableRow(m, n, k, len(game.geometry.groups), needed, sub is None, where,
                    proposition1_rect(game) is None, family(m, n, k) or "", result.exists,
                    result.proved_by, pairs, result.seconds, result.method)


def _thm10_word(where: str) -> str:
    return "allows" if not where else "excludes" if where == "board" else f"excludes ({where})"


def table_markdown(rows: list[TableRow], command: str) -> str:
    """The existence table as a Markdown document."""
    out = [
        "# Good pairings of the empty m x n board, k in a row",
        "",
        f"Generated by `{command}`.",
        "",
        "One row per m >= n (an n x m board is the transpose of m x n) and 3 <= k <= m.",
        "*cells needed*: paired cells the lines ask for (Tung & Lau, Lemma 9 summed over the lines;",
        "equal to their Theorem 10 for every board here); *Thm 10*: whether that fits on the board,",
        "and on every sub-board (a w x h rectangle of it: a good pairing of the board gives one of each",
        "sub-board, so an excluded sub-board, named in brackets, excludes the board);",
        "*Prop 1*: whether Proposition 1 holds for every sub-rectangle; *family*: the Tung & Lau",
        "family that covers the board (kk: (k,k,k); k+1: (k+1,k+1,k); 2k-1: (2k-1,k,k); n<k);",
        "*exists*: yes, no, or open (not settled within the conflict budget -- never guessed);",
        "*settled by*: the bound that excludes the board (no search runs then), `sub-board` (a smaller",
        "board of the table, proved by search to have no good pairing, fits inside it: a good pairing of",
        "the board would give one of the sub-board), `matching` (the groups share at most one cell, so",
        "a bipartite matching decides), or `SAT` (CaDiCaL with Lemma 9 cuts and symmetry breaking);",
        "*pairs*: the pairs of the pairing found (not minimised);",
        "*seconds*: wall time on a shared 2-core machine.",
        "",
        "| m | n | k | groups | cells needed | Thm 10 | Prop 1 | family | exists | settled by | pairs | seconds |",
        "|---:|---:|---:|---:|---:|---|---|---|---|---|---:|---:|",
    ]
    word = {True: "yes", False: "no", None: "open"}
    short = {"(k,k,k), k >= 5": "kk", "(k+1,k+1,k), k >= 6": "k+1", "(2k-1,k,k), k >= 7": "2k-1",
             "(m,n,k) with n < k or m < k": "n<k"}
    for r in rows:
        out.append(
            f"| {r.m} | {r.n} | {r.k} | {r.groups} | {r.cells_needed} | {_thm10_word(r.theorem10_where)} "
            f"| {'allows' if r.proposition1_allows else 'excludes'} | {short.get(r.family, '')} | {word[r.exists]} "
            f"| {r.proved_by} | {r.pairs or ''} | {r.seconds:.3f} |"
        )
    settled = [r for r in rows if r.exists is not None]
    by: dict[str, int] = {}
    for r in rows:
        by[r.proved_by] = by.get(r.proved_by, 0) + 1
    beyond = [r for r in rows if r.bound_allows and r.proposition1_allows and r.exists is False]
    opened = [f"{r.m}x{r.n}k{r.k}" for r in rows if r.exists is None]
    family_fails = [f"{r.m}x{r.n}k{r.k}" for r in rows if r.family and r.exists is not True]
    p1_only = [f"{r.m}x{r.n}k{r.k}" for r in rows if r.bound_allows and not r.proposition1_allows]
    subs = [f"{r.m}x{r.n}k{r.k}" for r in rows if r.theorem10_where not in ("", "board")]
    out += [
        "",
        f"{len(rows)} boards: {len(settled)} settled, {len(opened)} open ({', '.join(opened) or 'none'}).",
        "Settled by: " + ", ".join(f"{name} {count}" for name, count in sorted(by.items())) + ".",
        f"{sum(1 for r in rows if r.exists)} have a good pairing; {len(beyond)} pass both bounds yet have none "
        f"(the bounds are necessary, not sufficient): {', '.join(f'{r.m}x{r.n}k{r.k}' for r in beyond) or 'none'}.",
        f"Boards Proposition 1 excludes but Theorem 10 allows: {', '.join(p1_only) or 'none'}.",
        f"Boards Theorem 10 excludes only through a sub-board: {', '.join(subs) or 'none'}.",
        f"Boards of a Tung & Lau family without a pairing found here: {', '.join(family_fails) or 'none'}.",
        "",
    ]
    return "\n".join(out)
