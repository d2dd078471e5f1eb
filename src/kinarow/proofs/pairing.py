"""The ``kinarow.pairing`` checker: is a set of pairs a good pairing for its position?

Written from the rules alone (game, geometry, position), independently of the
SAT search in :mod:`kinarow.knowledge.pairing`. A pairing is *good* when every group
still live for the first player (no White stone on it) holds both cells of a
pair, all pairs are disjoint and use only empty cells. Then White answers each
Black stone in a pair with its partner, and Black never completes a group:
the first player cannot win (Tung & Lau, Section 2). The argument needs free
placement, one stone a turn, and a goal where owning a group wins.

The certificate::

    {"format": "kinarow.pairing", "version": 1, "game": "5x5k5", "moves": [],
     "created_by": "kinarow 0.1.0", "claim": "first cannot win", "pairs": [["a1", "b2"], ...]}
"""

from __future__ import annotations

from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.proofs import CertificateError, Verdict, blocking_fit, require_claim, require_envelope

FORMAT = "kinarow.pairing"
VERSION = 1
CLAIM = "first cannot win"


def check_certificate(data: dict[str, Any]) -> Verdict:
    """Check a pairing certificate given as its JSON object."""
    game_text, moves = require_envelope(data, FORMAT, VERSION, "pairing")
    pairs = data.get("pairs")
    try:
        board = Game(game_text).cells
    except KinarowError:
        board = None  # said below, with the moves
    if isinstance(pairs, list) and board is not None and len(pairs) > board // 2:  # before reading 40 M of them
        raise CertificateError(f"the pairing certificate lists {len(pairs):,} pairs, but {game_text} has "
                               f"{board:,} cells: its pairs are disjoint pairs of two cells, so at most "
                               f"{board // 2:,}")
    if not isinstance(pairs, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(c, str) for c in p) for p in pairs
    ):
        raise CertificateError('the pairing certificate needs "pairs", a list of two-cell lists like ["a1", "b2"]')
    require_claim(data, CLAIM)
    after = f" after {' '.join(moves)}" if moves else ""
    details: dict[str, Any] = {"game": game_text, "moves": moves, "pairs": len(pairs)}
    try:
        game = Game(game_text)
        position = game.position(" ".join(moves))
    except KinarowError as err:
        return Verdict(False, f"the certificate's game or moves are invalid: {err}", details)
    fit = blocking_fit(game)
    if not fit:
        return Verdict(False, f"a pairing proves nothing here: {fit.reason}", details)
    geo = position.geometry
    used: set[int] = set()
    cells: list[tuple[int, int]] = []
    for a_name, b_name in pairs:
        try:
            a, b = geo.parse_cell(a_name), geo.parse_cell(b_name)
        except KinarowError as err:
            return Verdict(False, f"pair {a_name}-{b_name}: {err}", details)
        if a == b:
            return Verdict(False, f"pair {a_name}-{b_name} pairs a cell with itself", details)
        for c in (a, b):
            if position.board[c] != 0:
                return Verdict(False, f"pair {a_name}-{b_name} uses {geo.name(c)}, which is not empty", details)
            if c in used:
                return Verdict(False, f"cell {geo.name(c)} is in two pairs", details)
            used.add(c)
        cells.append((a, b))
    live = [g for g in geo.groups if all(position.board[c] != 2 for c in g)]
    partner = {a: b for a, b in cells} | {b: a for a, b in cells}
    for group in live:
        members = set(group)
        if not any(partner.get(c, -1) in members for c in group):
            names = " ".join(geo.name(c) for c in group)
            return Verdict(False, f"the pairing for {game}{after} fails: the live group {names} holds no pair", details)
    details["live_groups"] = len(live)
    return Verdict(
        True,
        f"in {game}{after}, every one of the {len(live)} live groups holds one of the {len(cells)} pairs: "
        "the first player cannot win",
        details,
    )
