"""Example positions for the catalogue: each configuration placed on a 4-in-a-row board.

Uiterwijk's table (ACG 2017) gives, for each configuration, the nodes his
program needed to prove an example position a draw. The diagrams are not
available to us, so we build our own positions with the properties the paper
names, by SAT (CaDiCaL through python-sat):

* Black (the first player) to move, equal numbers of Black and White stones;
* the configuration's groups are lines of the board whose markers are empty
  and whose other cells are Black;
* every other line holds a White stone (no other live Black group, hence no
  Black threat elsewhere);
* every line holds a Black stone (White has no live group, so the position is
  a draw exactly when Black cannot win). FlatStar/Line admits no such
  position on boards up to 8x8; for it (and any other such case) White may
  keep live groups, none of them a White threat, and the solver decides
  whether White can win.

The SAT answer is only a proposal: :func:`example_properties` re-checks every
property on the position itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.knowledge import sat
from kinarow.knowledge.matching import Configuration, parse_groups
from kinarow.position import Position

#: boards tried, smallest first (k = 4)
BOARDS: tuple[str, ...] = ("4x4k4", "5x4k4", "5x5k4", "6x5k4", "6x6k4", "7x6k4", "7x7k4", "8x7k4", "8x8k4")


@dataclass
class Example:
    """A position realising a configuration, with the board cell of each marker."""

    configuration: str
    position: Position
    marker_cells: dict[str, str]
    white_blocked: bool = True  # White has no live group (else: live groups, but no White threat)

    @property
    def moves(self) -> str:
        return self.position.move_text()


_Variables = dict[Any, int]


def _embed_formula(
    game: Game, groups: list[list[str]], strict: bool
) -> tuple[list[list[int]], _Variables, _Variables, _Variables]:
    """The CNF of :func:`_embed` and its marker, Black and White variables.

    Run it with :func:`kinarow.knowledge.sat.call`.
    """
    from pysat.card import CardEnc, EncType
    from pysat.formula import IDPool

    geo = game.geometry
    cells = range(geo.size)
    lines = list(geo.groups)
    markers = sorted({m for g in groups for m in g})
    pool = IDPool()
    A = {(m, c): pool.id(("a", m, c)) for m in markers for c in cells}
    S = {(j, li): pool.id(("s", j, li)) for j in range(len(groups)) for li in range(len(lines))}
    Bv = {c: pool.id(("b", c)) for c in cells}
    Wv = {c: pool.id(("w", c)) for c in cells}
    Ev = {c: pool.id(("e", c)) for c in cells}
    Mv = {c: pool.id(("m", c)) for c in cells}
    clauses: list[list[int]] = []

    def exactly_one(lits: list[int]) -> None:
        clauses.extend(CardEnc.equals(lits, 1, vpool=pool, encoding=EncType.seqcounter).clauses)

    def at_most_one(lits: list[int]) -> None:
        if len(lits) > 1:
            clauses.extend(CardEnc.atmost(lits, 1, vpool=pool, encoding=EncType.seqcounter).clauses)

    for m in markers:
        exactly_one([A[m, c] for c in cells])
    for c in cells:
        at_most_one([A[m, c] for m in markers])
        # Mv[c] <-> some marker at c
        clauses.append([-Mv[c]] + [A[m, c] for m in markers])
        for m in markers:
            clauses.append([-A[m, c], Mv[c]])
        exactly_one([Bv[c], Wv[c], Ev[c], Mv[c]])
    for j, g in enumerate(groups):
        exactly_one([S[j, li] for li in range(len(lines))])
        for li, line in enumerate(lines):
            s = S[j, li]
            for m in g:
                clauses.append([-s] + [A[m, c] for c in line])
            for c in line:
                clauses.append([-s, -Wv[c]])
                clauses.append([-s, -Ev[c]])
                for m in markers:
                    if m not in g:
                        clauses.append([-s, -A[m, c]])
    for li, line in enumerate(lines):
        at_most_one([S[j, li] for j in range(len(groups))])
        # not a group line -> a White stone on it
        clauses.append([S[j, li] for j in range(len(groups))] + [Wv[c] for c in line])
        if strict:  # a Black stone on every line: White has no live group
            clauses.append([Bv[c] for c in line])
        else:  # a line without Black stones has at most k - 2 White ones: White threatens nothing
            for whites in combinations(line, len(line) - 1):
                clauses.append([Bv[x] for x in line] + [-Wv[x] for x in whites])
    # as many Black stones as White ones: #black + #(not white) = cells
    lits = [Bv[c] for c in cells] + [-Wv[c] for c in cells]
    clauses.extend(CardEnc.equals(lits, len(cells), vpool=pool, encoding=EncType.totalizer).clauses)
    return clauses, A, Bv, Wv


def _embed(game: Game, groups: list[list[str]], strict: bool) -> tuple[dict[str, int], set[int], set[int]] | None:
    from pysat.solvers import Solver

    clauses, A, Bv, Wv = sat.call(_embed_formula, game, groups, strict)
    with Solver(name="cadical153", bootstrap_with=clauses) as solver:
        if not sat.solve(solver):
            return None
        model = {v for v in solver.get_model() if v > 0}
    where = {m: c for (m, c), v in A.items() if v in model}
    cells = range(game.geometry.size)
    return where, {c for c in cells if Bv[c] in model}, {c for c in cells if Wv[c] in model}


def example_position(config: Configuration, boards: tuple[str, ...] = BOARDS, *, strict: bool = True) -> Example:
    """The first board (smallest first) with a position realising ``config``, and that position.

    On each board, first with White having no live group at all, then (or
    always, without ``strict``) allowing White live groups without a White
    threat (whether White can win is then left to the solver).
    """
    groups = parse_groups(config.groups)
    markers = {m for g in groups for m in g}
    for spec in boards:
        game = Game(spec)
        if game.cells < len(markers):
            continue
        for blocked in (True, False) if strict else (False,):
            found = _embed(game, groups, blocked)
            if found is None:
                continue
            where, black, white = found
            position = game.start()
            order = [c for pair in zip(sorted(black), sorted(white), strict=True) for c in pair]
            for c in order:
                position.play(c)
            names = {m: position.name(c) for m, c in sorted(where.items())}
            example = Example(config.name, position, names, blocked)
            problem = example_properties(example, groups)
            if problem is not None:  # pragma: no cover - the SAT model and the rules must agree
                raise KinarowError(f"internal error: the example for {config.name} fails: {problem}")
            return example
    raise KinarowError(f"no example position for {config.name} on the boards {', '.join(boards)}")


def example_properties(example: Example, groups: list[list[str]]) -> str | None:
    """None if the example has every property the paper names; else the first one it lacks."""
    pos = example.position
    board = pos.board
    if pos.is_over:
        return "the game is over"
    if pos.to_move != 1:
        return "White is to move"
    if sum(1 for v in board if v == 1) != sum(1 for v in board if v == 2):
        return "the stone counts differ"
    geo = pos.geometry
    cell_of = {m: geo.parse_cell(name) for m, name in example.marker_cells.items()}
    if any(board[c] != 0 for c in cell_of.values()):
        return "a marker is not empty"
    marker_of = {c: m for m, c in cell_of.items()}
    live_black = [g for g in geo.groups if all(board[c] != 2 for c in g)]
    live_white = [g for g in geo.groups if all(board[c] != 1 for c in g)]
    if example.white_blocked and live_white:
        return "White has a live group"
    if any(sum(1 for c in g if board[c] == 0) < 2 for g in live_white):
        return "White threatens to complete a group"
    realised = sorted(sorted(marker_of.get(c, "?") for c in g if board[c] == 0) for g in live_black)
    if realised != sorted(sorted(g) for g in groups):
        return f"Black's live groups are {realised}, not the configuration"
    for g in live_black:
        if any(board[c] == 0 and c not in marker_of for c in g):
            return "a live Black group has an empty cell that is not a marker"
    return None


def have_overlap(groups: list[list[str]]) -> bool:
    return any(len(set(a) & set(b)) >= 2 for a, b in combinations(groups, 2))
