"""Winning strategies ("strategy trees") and their independent checker.

A strategy for the winner maps each position where the winner is to move to
the winner's move; every reply of the loser must be covered. Positions are
keyed by the board written cell by cell (cell order of
:mod:`kinarow.geometry`): ``.`` empty, ``x`` Black, ``o`` White. Positions
reached by several move orders share one entry, so the tree is stored as a
DAG.

:func:`check` replays the strategy against every legal reply using only the
rules (:mod:`kinarow.position`); it imports nothing from the search code.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position, value_names
from kinarow.proofs import CertificateError, Verdict, envelope, require_claim, require_envelope

FORMAT = "kinarow.strategy"
VERSION = 1
_SYMBOLS = ".xo"


def board_key(position: Position) -> str:
    return "".join(_SYMBOLS[v] for v in position.board)


def follow(
    position: Position,
    winner: int,
    choose: Callable[[Position], int],
    stop: Callable[[Position], bool] | None = None,
) -> dict[str, str]:
    """The winner's prescribed moves from ``position``: ``choose(pos)`` names the winner's cell at each of
    its turns, and every legal reply of the other player is followed (transpositions once). A position
    where ``stop(pos)`` is true is not expanded (another part of the strategy covers it).

    The result maps :func:`board_key` of each position where the winner moves to the chosen cell's name.
    """
    choices: dict[str, str] = {}
    seen: set[str] = set()
    pos = position.copy()

    def visit() -> None:
        if pos.is_over:
            return
        key = board_key(pos)
        if key in seen:
            return
        seen.add(key)
        if stop is not None and stop(pos):
            return
        if pos.to_move == winner:
            cell = choose(pos)
            choices[key] = pos.name(cell)
            pos.play(cell)
            visit()
            pos.undo()
        else:
            for cell in pos.legal_moves():
                pos.play(cell)
                visit()
                pos.undo()

    visit()
    return choices


@dataclass
class StrategyTree:
    """The winner's move in every position the strategy can reach."""

    game: str
    moves: list[str]
    winner: str
    choices: dict[str, str] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """Number of positions where the winner's move is prescribed."""
        return len(self.choices)

    def to_json(self) -> dict[str, Any]:
        return {
            **envelope(FORMAT, VERSION, self.game, self.moves, f"{self.winner} wins"),
            "winner": self.winner,
            "choices": self.choices,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StrategyTree:
        game, moves = require_envelope(data, FORMAT, VERSION, "strategy")
        winner, choices = data.get("winner"), data.get("choices")
        if not isinstance(winner, str):
            raise CertificateError("the strategy certificate needs a 'winner' string such as \"first\"")
        if not isinstance(choices, dict) or not all(isinstance(v, str) for v in choices.values()):
            raise CertificateError("the strategy certificate needs 'choices', an object from boards to cell names")
        return cls(game, moves, winner, {str(k): v for k, v in choices.items()})

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))


@dataclass
class CheckResult:
    ok: bool
    reason: str
    positions: int

    def __bool__(self) -> bool:
        return self.ok


class _RefutedError(Exception):
    pass


def check(tree: StrategyTree) -> CheckResult:
    """Verify that following ``tree`` wins against every reply (rules only, no search)."""
    try:
        game = Game(tree.game)
        pos = game.position(" ".join(tree.moves))
    except KinarowError as err:
        return CheckResult(False, f"the certificate's game or moves are invalid: {err}", 0)
    first, second = value_names(game)
    if tree.winner not in (first, second):
        return CheckResult(False, f"winner '{tree.winner}' is not a player of {game}; use '{first}' or '{second}'", 0)
    winner = 1 if tree.winner == first else 2
    proven: set[str] = set()

    def visit(p: Position, line: list[str]) -> None:
        if p.is_over:
            if p.result != tree.winner:
                where = " ".join(line) or "(start)"
                raise _RefutedError(f"the line {where} ends in '{p.result}', not a {tree.winner} win")
            return
        key = board_key(p)
        if key in proven:
            return
        if p.to_move == winner:
            name = tree.choices.get(key)
            if name is None:
                raise _RefutedError(f"no move is given after {' '.join(line) or '(start)'}")
            try:
                cell = p.geometry.parse_cell(name)
                p.play(cell)
            except KinarowError as err:
                where = " ".join(line) or "(start)"
                raise _RefutedError(f"after {where} the prescribed move {name} is illegal: {err}") from None
            visit(p, [*line, name])
            p.undo()
        else:
            for cell in p.legal_moves():
                p.play(cell)
                visit(p, [*line, p.name(cell)])
                p.undo()
        proven.add(key)

    try:
        visit(pos, [])
    except _RefutedError as err:
        return CheckResult(False, str(err), len(proven))
    return CheckResult(True, f"{tree.winner} wins against every reply", len(proven))


def _winner_words(winner: str) -> str:
    player = "Black" if winner in ("first", "maker") else "White"
    return f"{winner.capitalize()} ({player})" if winner in ("maker", "breaker") else f"the {winner} player ({player})"


def check_certificate(data: dict[str, Any]) -> Verdict:
    """The ``kinarow.strategy`` checker for :mod:`kinarow.proofs`: load, check the claim, replay every reply."""
    tree = StrategyTree.from_json(data)
    require_claim(data, f"{tree.winner} wins")
    after = f" after {' '.join(tree.moves)}" if tree.moves else ""
    try:
        cells = Game(tree.game).cells
    except KinarowError as err:
        return Verdict(False, f"the certificate's game is invalid: {err}", {"game": tree.game})
    misfit = next((key for key in tree.choices if len(key) != cells or set(key) - set(_SYMBOLS)), None)
    if misfit is not None:
        return Verdict(False, f"the strategy does not fit {tree.game}: a board key has {len(misfit)} cells or foreign "
                       f"symbols, but the game has {cells} cells written with '.', 'x' and 'o'", {"game": tree.game})
    result = check(tree)
    details = {"game": tree.game, "moves": tree.moves, "winner": tree.winner, "prescribed_moves": tree.size,
               "positions_checked": result.positions}
    if not result.ok:
        return Verdict(False, f"the strategy for {tree.game}{after} fails: {result.reason}", details)
    winner = _winner_words(tree.winner)
    return Verdict(
        True,
        f"in {tree.game}{after}, {winner} wins against every reply by following the certificate "
        f"({tree.size:,} prescribed moves, {result.positions:,} positions checked)",
        details,
    )
