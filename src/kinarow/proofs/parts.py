"""A win proved one reply at a time: ``kinarow.strategy-parts`` certificates and their checker.

A strategy written as one walk must merge the strategies of every reply of the loser into one replay; for
a search run as one job a reply (docs/parallel.md) those strategies are kept apart, and merging millions of
their moves costs more time and memory than checking them. This format keeps them apart::

    {"format": "kinarow.strategy-parts", "version": 1, "game": "19x4k4", "moves": [], "claim": "first wins",
     "winner": "first", "first_move": "e2",
     "parts": [{...a kinarow.strategy certificate...}, ...]}

At the certificate's position (after ``moves``) the winner plays ``first_move`` when it is the winner's turn
(and the field is absent when it is the loser's). Then every legal reply of the loser must lead to the start of
one part -- exactly its board, or its image under a symmetry of the board, with the same player to move -- and
each part must be a ``kinarow.strategy`` certificate of the same game that the winner wins from its start
(checked by :mod:`kinarow.proofs.tree`, compiled when asked). A reply's position and its images are won alike
(a symmetry maps the rules onto themselves), so the winner wins after every reply, hence after ``first_move``.
No part may start anywhere else, and no reply may have two.

Version 2 lets a part be a parts certificate in turn (a reply whose job a run split: the winning move there,
then a part for each reply after it), checked as this one is, at most :data:`MAX_DEPTH` levels deep.

The checker reads the rules (game, position, geometry) and the strategy checker, nothing of the search.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position, value_names
from kinarow.proofs import CertificateError, Verdict, envelope, require_claim, require_envelope
from kinarow.proofs import tree as T

FORMAT = "kinarow.strategy-parts"
VERSION = 1
#: parts may be parts certificates in turn (a reply whose job was split: its winning move, then a part a reply)
NESTED_VERSION = 2
#: how deep parts may nest (each level is two moves of play: a board of 128 cells needs at most 64)
MAX_DEPTH = 64


def claim_of(winner: str) -> str:
    """The claim of a parts certificate of ``winner`` ("first" or "second")."""
    return f"{winner} wins"


def to_json(game: str, moves: list[str], winner: str, first_move: str | None,
            parts: list[dict[str, Any]]) -> dict[str, Any]:
    """A parts certificate (see the module docstring); ``parts`` are ``kinarow.strategy`` certificates, or parts
    certificates in turn (then version 2)."""
    version = NESTED_VERSION if any(p.get("format") == FORMAT for p in parts) else VERSION
    data = {**envelope(FORMAT, version, game, moves, claim_of(winner)), "winner": winner}
    if first_move is not None:
        data["first_move"] = first_move
    data["parts"] = parts
    return data


def _images(position: Position) -> set[tuple[tuple[int, ...], int]]:
    """The position's board under each symmetry of the board, with the player to move."""
    board = tuple(position.board)
    out = set()
    for sym in position.geometry.symmetries:
        image = [0] * len(board)
        for c, v in enumerate(board):
            image[sym[c]] = v
        out.add((tuple(image), position.to_move))
    return out


def check_certificate(data: dict[str, Any], compiled: bool = False,
                      on_tick: Callable[[int], None] | None = None) -> Verdict:
    """The ``kinarow.strategy-parts`` checker for :mod:`kinarow.proofs`: the parts start after every reply and
    no elsewhere, and each part wins (its own strategy check, compiled when ``compiled``; a nested parts
    certificate by this check in turn)."""
    return _check(data, compiled, on_tick, 0)


def _check(data: dict[str, Any], compiled: bool, on_tick: Callable[[int], None] | None, depth: int) -> Verdict:
    game_text, moves = require_envelope(data, FORMAT, (VERSION, NESTED_VERSION), "strategy-parts")
    nested = data.get("version") == NESTED_VERSION
    winner = data.get("winner")
    try:
        game = Game(game_text)
        names = value_names(game)
        position = game.position(" ".join(moves))
    except KinarowError as err:
        return Verdict(False, f"the certificate's game or moves are invalid: {err}", {"game": game_text})
    if winner not in names[:2]:
        raise CertificateError(f"the parts certificate needs a 'winner' of {names[0]!r} or {names[1]!r}, not "
                               f"{str(winner)[:40]!r}")
    require_claim(data, claim_of(winner))
    details: dict[str, Any] = {"game": game_text, "moves": moves, "winner": winner}
    if position.is_over:
        return Verdict(False, "the game is over at the certificate's position; there is nothing to prove", details)
    win = names.index(winner) + 1
    first = data.get("first_move")
    if position.to_move == win:
        if not isinstance(first, str):
            return Verdict(False, f"the {winner} player is to move at the certificate's position: its move is the "
                           "'first_move' field, which is missing", details)
        try:
            position.play(position.geometry.parse_cell(first))
        except KinarowError as err:
            return Verdict(False, f"the first move {first[:20]!r} cannot be played: {err}", details)
        if position.is_over:
            ok = position.result == winner
            return Verdict(ok, f"the first move {first} ends the game" + (" with the winner's win" if ok else
                                                                           ", not with the winner's win"), details)
    elif first is not None:
        return Verdict(False, "the loser is to move at the certificate's position; a 'first_move' has no place",
                       details)
    parts = data.get("parts")
    if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
        raise CertificateError("the parts certificate needs 'parts', a list of strategy certificates")
    if len(parts) > game.cells:
        return Verdict(False, f"{len(parts)} parts for a board of {game.cells} cells: more than there are replies",
                       details)
    starts: dict[tuple[tuple[int, ...], int], int] = {}
    for i, part in enumerate(parts):
        inner = nested and part.get("format") == FORMAT
        if (part.get("format") != T.FORMAT and not inner) or part.get("game") != game_text:
            kind = "a strategy or parts certificate" if nested else "a strategy certificate"
            return Verdict(False, f"part {i + 1} is not {kind} of {game_text}", details)
        if inner:
            if depth >= MAX_DEPTH:
                return Verdict(False, f"parts nest more than {MAX_DEPTH} deep", details)
            part_moves = part.get("moves")
            if not isinstance(part_moves, list) or not all(isinstance(m, str) for m in part_moves):
                raise CertificateError(f"part {i + 1} needs 'moves', a list of cell names")
            if part.get("winner") != winner:
                return Verdict(False, f"part {i + 1} proves another claim than the {winner} player's win", details)
        else:
            tree = T.StrategyTree.from_json(part)
            if tree.outcome != T.WIN or tree.winner != winner:
                return Verdict(False, f"part {i + 1} proves another claim than the {winner} player's win", details)
            part_moves = tree.moves
        try:
            start = game.position(" ".join(part_moves))
        except KinarowError as err:
            return Verdict(False, f"part {i + 1}'s moves are invalid: {err}", details)
        key = (tuple(start.board), start.to_move)
        if key in starts:
            return Verdict(False, f"parts {starts[key] + 1} and {i + 1} start from the same position", details)
        starts[key] = i
    used: set[int] = set()
    for reply in position.legal_moves():
        position.play(reply)
        try:
            if position.is_over:  # the loser's reply ends the game: a loss unless it is the winner's win
                if position.result != winner:
                    return Verdict(False, f"the reply {position.name(reply)} ends the game without the winner's win",
                                   details)
                continue
            found = next((starts[k] for k in _images(position) if k in starts), None)
        finally:
            position.undo()
        if found is None:
            return Verdict(False, f"no part starts after the reply {position.name(reply)} (nor at an image of it "
                           "under the board's symmetries)", details)
        used.add(found)
    if len(used) != len(parts):
        stray = min(set(range(len(parts))) - used)
        return Verdict(False, f"part {stray + 1} starts where no reply leads", details)
    total = 0
    for i, part in enumerate(parts):
        if part.get("format") == FORMAT:
            verdict = _check(part, compiled, on_tick, depth + 1)
        else:
            verdict = T.check_certificate(part, compiled=compiled, on_tick=on_tick)
        if not verdict.ok:
            return Verdict(False, f"part {i + 1} fails: {verdict.reason}", details)
        total += int(verdict.details.get("positions_checked", 0))
    details.update(parts=len(parts), positions_checked=total)
    after = f" after {' '.join(moves)}" if moves else ""
    opening = f", playing {first}," if position.to_move != win and isinstance(first, str) else ""
    counted = f"{len(parts)} part{'' if len(parts) == 1 else 's'}"
    return Verdict(True, f"in {game_text}{after}, the {winner} player wins{opening} against every reply: "
                   f"{counted}, each a strategy the rules check ({total:,} positions)", details)
