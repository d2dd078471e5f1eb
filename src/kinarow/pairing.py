"""Hales-Jewett pairings: find one with a SAT solver, check one with the rules alone.

A *pairing* is a set of disjoint pairs of empty cells. It is *good* for a
position when every group still live for the first player (no White stone on
it) contains both cells of some pair: whenever Black takes one cell of a pair,
White answers with the other, and no live group can ever be completed by
Black. A good pairing therefore proves that the first player cannot win from
the position (Tung & Lau, Section 2; see also the brief's pairing page).

:func:`find` encodes the question as SAT (one variable per candidate pair --
two empty cells of one live group --, at most one pair per cell, at least one
pair inside every live group) and solves it with CaDiCaL through python-sat.
An unsatisfiable formula proves that no good pairing exists.

:func:`check` re-verifies a pairing from the game and its moves only.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position
from kinarow.proofs import envelope, require_format

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
        }


def live_groups(position: Position) -> list[tuple[int, ...]]:
    """The groups on which the first player (Black) could still complete a line: no White stone."""
    board = position.board
    return [g for g in position.geometry.groups if all(board[c] != 2 for c in g)]


def applicable(game: Game) -> str | None:
    """Why a pairing strategy does not apply to ``game`` (None when it does)."""
    if game.gravity:
        return f"{game} has gravity, where the partner cell of a pair may not be playable"
    if game.goal == "misere":
        return f"{game} is misere, where owning a group loses, so blocking Black's groups is no defence"
    if (game.p, game.q) != (1, 1):
        return f"{game} places more than one stone a turn, so both cells of a pair can be taken at once"
    return None


def _position(target: Game | Position | str, moves: str | None) -> Position:
    position = target.copy() if isinstance(target, Position) else Game(target).start()
    reason = applicable(position.game)
    if reason is not None:
        need = "free placement, one stone a turn and a normal or Maker-Breaker goal"
        raise KinarowError(f"pairings need {need}: {reason}")
    if moves:
        position.play_moves(moves)
    return position


def find(
    target: Game | Position | str,
    *,
    moves: str | None = None,
    minimise: bool = False,
    max_conflicts: int | None = None,
) -> PairingResult:
    """A good pairing for the groups still live for the first player, or a proof that none exists.

    ``max_conflicts`` bounds the SAT search (CaDiCaL's conflict budget);
    when it runs out, ``exists`` is None (open). With ``minimise=True`` the number of pairs is made as small as possible
    (by tightening a cardinality bound until the formula becomes unsatisfiable).
    """
    from pysat.card import CardEnc, EncType
    from pysat.formula import IDPool
    from pysat.solvers import Solver

    start = time.perf_counter()
    position = _position(target, moves)
    game = position.game
    board = position.board
    groups = live_groups(position)
    empty_of = [[c for c in g if board[c] == 0] for g in groups]
    game_text, moves_text = str(game), position.move_text()
    if any(len(e) < 2 for e in empty_of):
        # a live group with fewer than two empty cells cannot hold a pair
        return PairingResult(game_text, moves_text, False, None, len(groups), seconds=time.perf_counter() - start,
                             method="a live group has fewer than two empty cells")
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
    with Solver(name="cadical153", bootstrap_with=clauses) as solver:
        if max_conflicts:
            solver.conf_budget(max_conflicts)
        answer = solver.solve_limited() if max_conflicts else solver.solve()
        if answer is None:
            return PairingResult(game_text, moves_text, None, None, len(groups), seconds=time.perf_counter() - start,
                                 method=f"SAT (CaDiCaL): no answer within {max_conflicts:,} conflicts")
        if not answer:
            return PairingResult(game_text, moves_text, False, None, len(groups), seconds=time.perf_counter() - start,
                                 method="SAT (CaDiCaL): unsatisfiable")
        model = set(x for x in solver.get_model() if x > 0)
    chosen = _drop_unneeded([pair for pair, var in candidates.items() if var in model], groups)
    method = "SAT (CaDiCaL)"
    if minimise:
        while chosen:
            bound = CardEnc.atmost(list(candidates.values()), len(chosen) - 1, vpool=pool, encoding=EncType.seqcounter)
            with Solver(name="cadical153", bootstrap_with=clauses + bound.clauses) as solver:
                if not solver.solve():
                    break
                model = set(x for x in solver.get_model() if x > 0)
            chosen = [pair for pair, var in candidates.items() if var in model]
        method = "SAT (CaDiCaL), fewest pairs"
    name = position.geometry.name
    pairs = [(name(a), name(b)) for a, b in sorted(chosen)]
    paired = {c for p in chosen for c in p}
    unpaired = [name(c) for c in range(game.cells) if board[c] == 0 and c not in paired]
    pairing = Pairing(str(game), [name(c) for c in position.moves], pairs)
    return PairingResult(game_text, moves_text, True, pairing, len(groups), unpaired=unpaired,
                         seconds=time.perf_counter() - start, method=method)


def _drop_unneeded(pairs: list[tuple[int, int]], groups: list[tuple[int, ...]]) -> list[tuple[int, int]]:
    """Remove pairs that no live group needs (the solver may switch on extra ones)."""
    kept = list(pairs)
    for pair in list(kept):
        rest = [p for p in kept if p != pair]
        if all(any(a in g and b in g for a, b in rest) for g in map(set, groups)):
            kept = rest
    return kept


def line_lengths(game: Game) -> list[int]:
    """Lengths of the board's maximal lines (every direction), counted cell by cell on a rect board."""
    geo = game.geometry
    lengths = []
    for dx, dy in geo.directions:
        for x in range(game.m):
            for y in range(game.n):
                if 0 <= x - dx < game.m and 0 <= y - dy < game.n:
                    continue  # not the first cell of its line
                length = 0
                while 0 <= x + length * dx < game.m and 0 <= y + length * dy < game.n:
                    length += 1
                lengths.append(length)
    return lengths


def paired_cells_needed(game: Game) -> int:
    """Cells a good pairing must use, counted line by line (Tung & Lau, Lemma 9).

    A pair blocks only groups of the line holding both its cells, at most
    k - 1 consecutive ones, so a line of l >= k cells needs at least
    2 * floor((l - 1) / (k - 1)) paired cells of its own.
    """
    k = game.k
    if k < 2:
        return game.cells + 1  # a group of one cell holds no pair: impossible
    return sum(2 * ((length - 1) // (k - 1)) for length in line_lengths(game) if length >= k)


def theorem10_bound(m: int, n: int, k: int) -> int:
    """Right-hand side of Tung & Lau's Theorem 10 as the brief states it (m >= n; a pairing needs mn >= it)."""
    if m < n:
        m, n = n, m
    f = lambda x: x // (k - 1)  # noqa: E731
    return 2 * (n * f(m - 1) + m * f(n - 1) + 4 * sum(f(i - 1) for i in range(1, n)) + 2 * (m - n + 1) * f(n - 1))


@dataclass
class PairingCheck:
    ok: bool
    reason: str

    def __bool__(self) -> bool:
        return self.ok


def check(pairing: Pairing) -> PairingCheck:
    """Is ``pairing`` a good pairing for its position? (Rules only; no solver, no search.)"""
    try:
        game = Game(pairing.game)
        position = game.position(" ".join(pairing.moves))
    except KinarowError as err:
        return PairingCheck(False, f"the certificate's game or moves are invalid: {err}")
    reason = applicable(game)
    if reason is not None:
        return PairingCheck(False, f"a pairing proves nothing here: {reason}")
    geo = position.geometry
    used: set[int] = set()
    cells: list[tuple[int, int]] = []
    for a_name, b_name in pairing.pairs:
        try:
            a, b = geo.parse_cell(a_name), geo.parse_cell(b_name)
        except KinarowError as err:
            return PairingCheck(False, f"pair {a_name}-{b_name}: {err}")
        for c in (a, b):
            if position.board[c] != 0:
                return PairingCheck(False, f"pair {a_name}-{b_name} uses {geo.name(c)}, which is not empty")
            if c in used:
                return PairingCheck(False, f"cell {geo.name(c)} is in two pairs")
            used.add(c)
        if a == b:
            return PairingCheck(False, f"pair {a_name}-{b_name} pairs a cell with itself")
        cells.append((a, b))
    for g in live_groups(position):
        members = set(g)
        if not any(a in members and b in members for a, b in cells):
            return PairingCheck(False, f"the live group {' '.join(geo.name(c) for c in g)} holds no pair")
    return PairingCheck(True, f"every live group of {game} holds a pair ({len(cells)} pairs)")


@dataclass
class TableRow:
    m: int
    n: int
    k: int
    groups: int
    cells_needed: int
    bound_allows: bool
    exists: bool | None
    pairs: int
    seconds: float
    method: str


def table_boards(max_side: int = 12) -> list[tuple[int, int, int]]:
    """The (m, n, k) of the existence table's rows, in order: m >= n, 3 <= k <= m."""
    return [(m, n, k) for m in range(1, max_side + 1) for n in range(1, m + 1) for k in range(3, m + 1)]


def existence_table(
    max_side: int = 12,
    max_conflicts: int = 1_000_000,
    *,
    done: Mapping[tuple[int, int, int], TableRow] | None = None,
    on_row: Callable[[TableRow], None] | None = None,
) -> list[TableRow]:
    """For every m >= n <= max_side and 3 <= k <= m: is there a good pairing of the empty m x n board?

    Boards n x m are the transposes of m x n and have the same answer. The
    counting bound (Lemma 9 / Theorem 10) is reported beside the SAT answer;
    a case the solver does not settle within ``max_conflicts`` conflicts is open.
    Rows in ``done`` (finished earlier, by (m, n, k)) are taken as they are;
    ``on_row`` is told of each row as soon as it is computed (to save it).
    """
    rows = []
    for m, n, k in table_boards(max_side):
        if done is not None and (m, n, k) in done:
            rows.append(done[(m, n, k)])
            continue
        game = Game(f"{m}x{n}k{k}")
        needed = paired_cells_needed(game)
        result = find(game, max_conflicts=max_conflicts)
        pairs = len(result.pairing.pairs) if result.pairing else 0
        row = TableRow(m, n, k, len(game.geometry.groups), needed, needed <= game.cells,
                       result.exists, pairs, result.seconds, result.method)
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows


def table_markdown(rows: list[TableRow], command: str) -> str:
    """The existence table as a Markdown document."""
    out = [
        "# Good pairings of the empty m x n board, k in a row",
        "",
        f"Generated by `{command}`. One row per m >= n (an n x m board is the transpose of m x n)",
        "and 3 <= k <= m. *cells needed*: paired cells the counting bound asks for (Tung & Lau,",
        "Lemma 9 summed over the lines; equal to their Theorem 10 for every board here); *bound*:",
        "whether that fits on the board; *SAT*: whether a good pairing exists (yes, no = unsatisfiable,",
        "open = not settled within the conflict budget); *pairs*: the pairs of the pairing found (not minimised).",
        "",
        "| m | n | k | groups | cells needed | bound | SAT | pairs | seconds |",
        "|---:|---:|---:|---:|---:|---|---|---:|---:|",
    ]
    word = {True: "yes", False: "no", None: "open"}
    for r in rows:
        out.append(
            f"| {r.m} | {r.n} | {r.k} | {r.groups} | {r.cells_needed} | {'allows' if r.bound_allows else 'excludes'} "
            f"| {word[r.exists]} | {r.pairs or ''} | {r.seconds:.3f} |"
        )
    agree = sum(1 for r in rows if r.exists is not None and (r.exists is False or r.bound_allows))
    beyond = sum(1 for r in rows if r.bound_allows and r.exists is False)
    out += [
        "",
        f"{len(rows)} boards; every pairing found respects the bound ({agree} settled cases consistent);",
        f"{beyond} boards pass the bound but have no good pairing (the bound is necessary, not sufficient).",
        "",
    ]
    return "\n".join(out)
