"""Verified-strategy certificates: "strategy S, playing for P in game G, guarantees outcome O".

A certificate names the strategy (its rule lives in :mod:`kinarow.strategies.rules`),
the game, the player and the outcome (``win``: every line ends in a win;
``draw``: every line ends in a win or a draw), with the number of positions
the verification examined (the distinct positions where the opponent is to
move). :func:`check` re-runs the verification with the rules of
:mod:`kinarow.position` and the strategy's rule alone: it imports no search
code and not the fast verification kernel.

>>> cert = VerifiedStrategy("take-even", "4x2k3:gravity,misere", Player.SECOND, Outcome.WIN, 13)
>>> check(cert).ok
True
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position
from kinarow.proofs import Verdict, envelope, require_board, require_claim, require_format, require_input
from kinarow.strategies import get
from kinarow.values import Outcome, Player, Value, read

FORMAT = "kinarow.verified-strategy"
VERSION = 1
_RANK = {Outcome.FAILS: 0, Outcome.DRAW: 1, Outcome.WIN: 2}
#: the outcomes a certificate may claim
CLAIMS = (Outcome.WIN, Outcome.DRAW)
#: the most positions a certificate may claim: the check keeps each position it walks (about 100 bytes apiece),
#: and stops once it passes the claim, so the claim bounds the check (a verify() walk defaults to 3 million)
MAX_POSITIONS = 20_000_000


@dataclass(frozen=True)
class VerifiedStrategy:
    """The claim of a verification, as a certificate."""

    strategy: str
    game: str
    player: Player
    outcome: Outcome
    positions: int

    @property
    def claim(self) -> str:
        return f"{self.strategy} guarantees a {self.outcome} for the {self.player} player"

    def to_json(self) -> dict[str, Any]:
        return {
            **envelope(FORMAT, VERSION, self.game, [], self.claim),
            "strategy": self.strategy,
            "player": self.player,
            "outcome": self.outcome,
            "positions": self.positions,
        }

    @classmethod
    def from_json(cls, data: Any) -> VerifiedStrategy:
        require_format(data, FORMAT, VERSION, "verified-strategy")
        try:
            strategy, game, player = str(data["strategy"]), str(data["game"]), str(data["player"])
            outcome, positions = str(data["outcome"]), data["positions"]
        except (KeyError, TypeError, ValueError) as error:
            raise KinarowError(f"the certificate lacks a usable field ({error})") from None
        if isinstance(positions, bool) or not isinstance(positions, int) or not 0 <= positions <= MAX_POSITIONS:
            raise KinarowError(f"the certificate's 'positions' must be a whole number from 0 to {MAX_POSITIONS:,} "
                               f"(a JSON number, not text)")
        cert = cls(strategy, game, read(Player, player, "the certificate's player"),
                   read(Outcome, outcome, "the certificate's outcome", allowed=CLAIMS), positions)
        get(cert.strategy)
        Game(cert.game)
        return cert


class _MorePositionsError(Exception):
    """The walk reached more positions than the certificate claims (so the check can stop)."""


def check(cert: VerifiedStrategy) -> Verdict:
    """Replay the strategy against every opponent reply with the plain rules; accept iff the claim holds.

    The positions the walk examined are in ``details["positions_checked"]``.
    """
    require_input(cert, VerifiedStrategy, "kinarow.proofs.verified.check()",
                  "a VerifiedStrategy (VerifiedStrategy.from_json reads one)")
    game = Game(cert.game)
    require_board(game)
    strategy = get(cert.strategy)
    me = Player(cert.player).stone
    strategy.check_applies(game, me)
    memo: dict[tuple[int, int, int], int] = {}
    position = game.start()
    worst: list[str] = []

    def result_rank(pos: Position) -> int:
        """2 win, 1 draw, 0 loss for the strategist once the game is over."""
        result = pos.result
        if result == Value.DRAW:
            return 1
        return 2 if (result == Value.FIRST) == (me == 1) else 0

    def reply(pos: Position) -> int | None:
        """Play the strategist's move; its rank if the game ended, -1 if it did not, None if no legal move."""
        cell = strategy.move(pos)
        if cell is None:
            return None
        pos.play(cell)
        return result_rank(pos) if pos.is_over else -1

    def memory(pos: Position) -> int:
        return pos.moves[0] + 1 if strategy.name in ("tally", "delayed-tally") and pos.moves else 0

    def walk(pos: Position) -> int:
        key = (*pos.key(), memory(pos))
        if key in memo:
            return memo[key]
        if len(memo) >= cert.positions:  # the claim is already wrong: a certificate bounds the work of its check
            raise _MorePositionsError
        value = 2
        for cell in pos.legal_moves():
            pos.play(cell)
            if pos.is_over:
                v = result_rank(pos)
            else:
                r = reply(pos)
                if r is None:
                    v = -1
                elif r >= 0:
                    v = r
                    pos.undo()
                else:
                    v = walk(pos)
                    pos.undo()
            if v < value:
                value = v
            if value <= 0:
                if not worst:
                    worst.append(pos.move_text())
                pos.undo()
                break
            pos.undo()
        memo[key] = value
        return value

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * game.cells + 100))
    try:
        if me == 1:
            r = reply(position)
            value = walk(position) if r == -1 else (r if r is not None else -1)
        else:
            value = walk(position)
    except _MorePositionsError:
        return Verdict(False, f"the walk examines more than the {cert.positions:,} positions claimed",
                       {"positions_checked": len(memo)})
    finally:
        sys.setrecursionlimit(limit)
    positions = len(memo)
    walked = {"positions_checked": positions}
    if value <= 0:
        where = f" (first bad line: {worst[0]})" if worst else ""
        return Verdict(False, f"the strategy does not even draw{where}", walked)
    found = Outcome.WIN if value == 2 else Outcome.DRAW
    if _RANK[found] < _RANK[cert.outcome]:
        return Verdict(False, f"the strategy only guarantees a {found}, not a {cert.outcome}", walked)
    if found != cert.outcome:
        return Verdict(False, f"the strategy guarantees a {found}, but the certificate claims a draw", walked)
    if positions != cert.positions:
        return Verdict(False, f"the walk examined {positions:,} positions, not the {cert.positions:,} claimed", walked)
    return Verdict(True, f"{cert.strategy} guarantees a {found} for the {cert.player} player", walked)


def check_certificate(data: dict[str, Any]) -> Verdict:
    """The ``kinarow.verified-strategy`` checker for :mod:`kinarow.proofs`: load, check the claim, walk every reply."""
    cert = VerifiedStrategy.from_json(data)
    require_claim(data, cert.claim)
    verdict = check(cert)
    positions = verdict.details["positions_checked"]
    details = {"strategy": cert.strategy, "game": cert.game, "player": cert.player, "outcome": cert.outcome,
               "positions_checked": positions}
    if not verdict.ok:
        return Verdict(False, f"{cert.strategy} in {cert.game} for the {cert.player} player: {verdict.reason}",
                       details)
    return Verdict(
        True,
        f"in {cert.game}, {verdict.reason} against every reply ({positions:,} positions re-examined "
        "with the rules)",
        details,
    )
