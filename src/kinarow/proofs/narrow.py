"""Narrow-board draw certificates: misère Connect-k with gravity on a board narrower than k is a draw.

On ``WxHkK:gravity,misere`` with ``W < k`` (a plain board, not a cylinder) no
horizontal or diagonal line of k cells fits, so only vertical lines exist.
Either player avoids ever owning k in a column by the *cover* rule: play on
top of the opponent's last stone if its column has room; otherwise in a
column that is empty or topped by an opponent's stone; otherwise (*forced*)
anywhere. Proof that the player (P) never completes a line:

* a stone P plays unforced lies on the floor or on an opponent's stone, so
  it starts a run of P's stones of length 1; only forced stones extend a run;
* P is forced only when the opponent's last stone filled its column (had
  that column room, P would cover it), so each forced move follows a
  different column being filled, and not the last one (then the board is
  full and the game over): at most ``W - 1 <= k - 2`` forced moves in a game;
* so every run of P's stones in a column has at most ``1 + (k - 2) = k - 1``
  stones: P never owns k in a row.

Both players can play it, so neither can force the other to complete a line
and the game is a draw, for every height. The checker (:func:`check`)
verifies the premises (gravity, misère, a plain board, one stone a turn) and,
as a test of the argument, walks every game of the small narrow boards
(widths ``1 .. k - 1``, heights up to :data:`SMALL_HEIGHT`, at most
:data:`SMALL_CELLS` cells) with the plain rules, the cover rule playing each
side in turn: it must never complete a line.

>>> check(NarrowDraw(4)).ok
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position
from kinarow.proofs import Verdict, envelope, require_claim, require_format, require_input

FORMAT = "kinarow.narrow-draw"
VERSION = 1
MAX_K = 64
SMALL_HEIGHT = 6
SMALL_CELLS = 14


@dataclass(frozen=True)
class NarrowDraw:
    """The claim: every ``WxHkK:gravity,misere`` with ``W < k`` is a draw."""

    k: int

    @property
    def family(self) -> str:
        return f"WxHk{self.k}:gravity,misere with W < {self.k}"

    @property
    def claim(self) -> str:
        return f"every {self.family} is a draw (each player covers the opponent's stones)"

    @property
    def game(self) -> str:
        return f"{max(self.k - 1, 1)}x1k{self.k}:gravity,misere"

    def covers(self, k: int, w: int, h: int, cylinder: bool = False) -> bool:
        return not cylinder and k == self.k and 1 <= w < k and h >= 1

    def to_json(self) -> dict[str, Any]:
        return {**envelope(FORMAT, VERSION, self.game, [], self.claim), "family": {"k": self.k}}

    @classmethod
    def from_json(cls, data: Any) -> NarrowDraw:
        require_format(data, FORMAT, VERSION, "narrow-draw")
        try:
            k = data["family"]["k"]
        except (KeyError, TypeError) as error:
            raise KinarowError(f"the narrow-draw certificate lacks a usable field ({error})") from None
        if isinstance(k, bool) or not isinstance(k, int) or not 2 <= k <= MAX_K:
            raise KinarowError(f"the family's 'k' must be a whole number from 2 to {MAX_K}")
        return cls(k)


def cover(pos: Position) -> int:
    """The cover rule's cell for the side to move (see the module text)."""
    geometry = pos.game.geometry
    legal = pos.legal_moves()
    if pos.moves:
        last = pos.moves[-1]
        x, y = geometry.xy(last)
        above = geometry.cell(x, y + 1) if y + 1 < pos.game.n else -1
        if above in legal:
            return above
    me = pos.to_move
    for cell in legal:
        x, y = geometry.xy(cell)
        if y == 0 or pos.board[geometry.cell(x, y - 1)] != me:
            return cell
    return legal[0]


def check(cert: NarrowDraw) -> Verdict:
    """Walk the small narrow boards: the cover rule, on either side, never completes a line."""
    require_input(cert, NarrowDraw, "kinarow.proofs.narrow.check()", "a NarrowDraw (NarrowDraw.from_json reads one)")
    walked = 0
    for w in range(1, cert.k):
        for h in range(1, SMALL_HEIGHT + 1):
            if w * h > SMALL_CELLS:
                continue
            game = Game(f"{w}x{h}k{cert.k}:gravity,misere")
            for me in (1, 2):
                seen: set[tuple[int, int]] = set()
                bad = _walk(game.start(), me, seen)
                walked += len(seen)
                if bad:
                    return Verdict(False, f"on {game} the cover rule loses for player {me}: {bad}",
                                   {"small_positions": walked})
    return Verdict(True, f"{cert.claim}: the covering argument, and {walked:,} small-board positions walked",
                   {"small_positions": walked})


def _walk(pos: Position, me: int, seen: set[tuple[int, int]]) -> str | None:
    if pos.is_over or pos.key() in seen:
        return None
    seen.add(pos.key())
    cells = [cover(pos)] if pos.to_move == me else pos.legal_moves()
    for cell in cells:
        pos.play(cell)
        try:
            if not pos.is_over:
                bad = _walk(pos, me, seen)
            elif pos.result == ("second" if me == 1 else "first"):  # the opponent wins: ``me`` made a line
                bad = pos.move_text()
            else:
                bad = None
            if bad:
                return bad
        finally:
            pos.undo()
    return None


def check_certificate(data: dict[str, Any]) -> Verdict:
    """The ``kinarow.narrow-draw`` checker for :mod:`kinarow.proofs`."""
    cert = NarrowDraw.from_json(data)
    require_claim(data, cert.claim)
    if data.get("game") != cert.game:
        raise KinarowError(f"the narrow-draw certificate's 'game' must be {cert.game}")
    return check(cert)
