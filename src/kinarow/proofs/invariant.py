"""Parametric (invariant) certificates: one strategy proven for a whole family of misère gravity boards.

A certificate names a family of boards (``WxHkK:gravity,misere``, or
``,cylinder`` with the columns wrapping, for every
width ``W >= min_width`` and every height ``H >= min_height`` with
``H = min_height (mod height_step)``), the player the strategy plays, a
*declared local strategy* (``responses``: the opponent's stone at row ``r``
is answered at a fixed offset ``(dc, dr)`` from it, the first entry whose row
range holds ``r``), and an *invariant* on the positions after the strategy's
move. Version 1 knows one kind of invariant, the column invariant:

* ``owners``: the owner of row ``y`` (the same in every column), given as a
  prefix and a repeating part (take-even: rows alternate first, second, ...);
* ``heights``: which column heights are allowed, a prefix and a repeating
  part of booleans (take-even: the even ones).

A board satisfies the invariant when every column's height is allowed and
every stone in it lies on a row its owner owns. The board is then fully given
by its heights, and any choice of allowed heights (at most ``H``) is such a
board: columns are independent. The checker (:func:`check`) proves the claim
"the strategy's owner wins" for every board of the family by these checks:

1. **start**: the empty board satisfies the invariant (height 0 is allowed);
   version 1 is for second-player strategies (no opening move);
2. **step** (per column, every row ``r`` and height ``H``): for an opponent
   stone at ``(c, r)`` in a column of allowed height ``r``, the declared reply
   is legal (on the board, the lowest empty cell of its column) and after both
   stones every touched column again has an allowed height and owner-correct
   stones;
3. **no line of the strategist first** (local): the reply completes no line
   of its owner unless the opponent's stone just completed one (the game was
   already over). It is checked direction by direction: for a direction ``d``,
   every way the reply's ``d``-line of k cells can be filled by the
   strategist must force a ``d``-line of the opponent through its stone;
4. **no draw**: a full board has a line of the opponent (so the opponent made
   it first, and the game ended then): the full invariant board of
   ``min_width`` columns has one in the rows below its top row.

Why a window suffices. A line of k cells through a cell ``(x, y)`` lies
within ``k - 1`` columns and rows of it, so whether the opponent's stone or
the reply completes a line depends only on the cells within ``E = k - 1 +
max(|dc|, |dr|)`` of the opponent's stone: the *window*. The checker
enumerates every window the family can show, not whole boards:

* rows: the row ``r`` of the opponent's stone exactly, for every ``r`` up to
  a bound past the patterns' prefixes, the family's smallest height, the
  window's reach and two periods; beyond it a window at ``r`` on a board of
  height ``H`` shows the same owners and allowed heights as the window at
  ``r - L`` on a board of height ``H - L``, still in the family (``L`` the
  common period of the patterns and the height step), so the
  representatives cover every row of every height;
* the ceiling: every height ``H`` of the family from ``r + 1`` up to a bound
  past the window's top (a farther ceiling is invisible in the window);
* the walls: the left and the right wall at every distance ``0 .. E`` from
  the stone, or farther (invisible); columns beyond a wall are off the board,
  and a line that crosses the window's edge is off the board there, exactly
  as on the real board; two visible walls give the width, which must be in
  the family (the walls are looked for ``k - 1 + max |dc|`` columns out, the
  columns a line through the stone or the reply can reach). On a cylinder
  there are no walls, and its family must start at width ``2 (k - 1 +
  max |dc|) + 1``: from there the window's columns are distinct columns of
  the board and a line through the stone or the reply is the same cells as
  on the plane (narrower cylinders are left to exhaustive walks);
* the other columns: every allowed height (at most ``H``), each column
  independently (the invariant constrains columns one by one).

So every position of every board of the family, after the strategy's move,
meets checks 2 and 3 in one of the enumerated windows: the checks hold for all
widths and heights at once, including boards narrower or lower than the
window (their walls and ceiling are in it). Check 3 uses monotonicity: the
opponent having a line is monotone in the set of the opponent's stones, so
for each way the strategist's line can be filled, the checker gives every
other column the height that avoids an opponent stone on the opponent's line
where one exists; if even then the opponent has a line, it has one in every
completion. As a second, independent check, the checker also walks every
position of the family's small boards (two widths, two heights) with the
plain rules (:mod:`kinarow.position`), the declared replies and the named
strategy's player, which must agree move for move: that ties the declared
local rule to the strategy ``kinarow play`` uses.

By induction over the game every position after the strategy's move
satisfies the invariant and has no line; the game is finite, its strategist
never completes a line first (3) and it cannot end full without a line (4):
the opponent completes a line first, and the strategist wins (misère).

>>> cert = take_even_certificate(4)
>>> check(cert).ok
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.proofs import Verdict, envelope, require_claim, require_format
from kinarow.values import Player

FORMAT = "kinarow.invariant"
VERSION = 1
EMPTY, FIRST, SECOND, OFF = 0, 1, 2, 3
DIRECTIONS = ((1, 0), (1, 1), (1, -1), (0, 1))
#: the most a reply may lie from the opponent's stone (keeps the window small)
MAX_OFFSET = 2
MAX_K = 12
#: the most a family's smallest width or height, its height step, or its patterns' common period may be
MAX_SIZE = 64
#: the small boards walked with the plain rules must have at most this many cells
SMALL_CELLS = 30


@dataclass(frozen=True)
class Pattern:
    """A value per row (or per height): ``prefix`` first, then ``repeat`` over and over."""

    prefix: tuple[Any, ...]
    repeat: tuple[Any, ...]

    def at(self, i: int) -> Any:
        if i < len(self.prefix):
            return self.prefix[i]
        return self.repeat[(i - len(self.prefix)) % len(self.repeat)]

    def to_json(self) -> dict[str, Any]:
        return {"prefix": list(self.prefix), "repeat": list(self.repeat)}


@dataclass(frozen=True)
class Response:
    """Answer an opponent's stone on rows ``low .. high`` (``high`` None: no upper end) at ``offset``."""

    low: int
    high: int | None
    offset: tuple[int, int]

    def holds(self, row: int) -> bool:
        return row >= self.low and (self.high is None or row <= self.high)


@dataclass(frozen=True)
class InvariantCertificate:
    """A strategy, a family of boards and a column invariant (see the module text)."""

    strategy: str
    k: int
    min_width: int
    min_height: int
    height_step: int
    player: Player
    responses: tuple[Response, ...]
    owners: Pattern  # of Player values
    heights: Pattern  # of bools
    cylinder: bool = False  # the columns wrap (no walls)

    @property
    def family(self) -> str:
        h0, step = self.min_height, self.height_step
        heights = f"H >= {h0}" if step == 1 else f"H = {h0}, {h0 + step}, {h0 + 2 * step}, ..."
        return f"WxHk{self.k}:{self.flags} with W >= {self.min_width}, {heights}"

    @property
    def flags(self) -> str:
        return "gravity,misere,cylinder" if self.cylinder else "gravity,misere"

    @property
    def claim(self) -> str:
        return f"{self.strategy} wins for the {self.player} player on every {self.family}"

    @property
    def game(self) -> str:
        return f"{self.min_width}x{self.min_height}k{self.k}:{self.flags}"

    def covers(self, k: int, w: int, h: int, cylinder: bool = False) -> bool:
        """Whether the board ``WxHkK:gravity,misere`` (``,cylinder`` if ``cylinder``) is in the family."""
        return (cylinder == self.cylinder and k == self.k and w >= self.min_width and h >= self.min_height
                and (h - self.min_height) % self.height_step == 0)

    def to_json(self) -> dict[str, Any]:
        return {
            **envelope(FORMAT, VERSION, self.game, [], self.claim),
            "strategy": self.strategy,
            "player": self.player,
            "outcome": "win",
            "family": {"k": self.k, "min_width": self.min_width, "min_height": self.min_height,
                       "height_step": self.height_step, "cylinder": self.cylinder},
            "responses": [{"rows": [r.low, r.high], "offset": list(r.offset)} for r in self.responses],
            "invariant": {"owners": self.owners.to_json(), "heights": self.heights.to_json()},
        }

    @classmethod
    def from_json(cls, data: Any) -> InvariantCertificate:
        require_format(data, FORMAT, VERSION, "invariant")
        try:
            family, inv = data["family"], data["invariant"]
            k, w0, h0, step = (_whole(family[f], f, 1, MAX_SIZE) for f in ("k", "min_width", "min_height",
                                                                            "height_step"))
            if data.get("outcome") != "win":
                raise KinarowError("an invariant certificate claims the outcome 'win' (version 1 knows no other)")
            player = Player(str(data["player"]))
            responses = tuple(_response(r) for r in data["responses"])
            owners = _pattern(inv["owners"], "owners", lambda v: Player(str(v)))
            heights = _pattern(inv["heights"], "heights", _bool)
            strategy = str(data["strategy"])
            cylinder = family.get("cylinder", False)
            if not isinstance(cylinder, bool):
                raise KinarowError("the family's 'cylinder' is true or false")
        except (KeyError, TypeError, ValueError) as error:
            raise KinarowError(f"the invariant certificate lacks a usable field ({error})") from None
        if k > MAX_K:
            raise KinarowError(f"the family's k is {k}; invariant certificates are checked for k up to {MAX_K}")
        if not responses:
            raise KinarowError("the invariant certificate needs at least one response")
        if math.lcm(len(owners.repeat), len(heights.repeat), step) > MAX_SIZE:
            raise KinarowError(f"the invariant's patterns and the height step repeat together every "
                               f"{math.lcm(len(owners.repeat), len(heights.repeat), step)} rows; at most "
                               f"{MAX_SIZE} are checked")
        return cls(strategy, k, w0, h0, step, player, responses, owners, heights, cylinder)


def _whole(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise KinarowError(f"the family's '{name}' must be a whole number from {low} to {high}")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise KinarowError("the invariant's 'heights' pattern holds true or false for each height")
    return value


def _pattern(data: Any, name: str, read: Any) -> Pattern:
    prefix, repeat = data["prefix"], data["repeat"]
    if not isinstance(prefix, list) or not isinstance(repeat, list) or not repeat or len(prefix) + len(repeat) > 64:
        raise KinarowError(f"the invariant's '{name}' is a prefix and a non-empty repeat, lists of at most 64 "
                           "entries in all")
    return Pattern(tuple(read(v) for v in prefix), tuple(read(v) for v in repeat))


def _response(data: Any) -> Response:
    low, high = data["rows"]
    dc, dr = data["offset"]
    for v in (low, dc, dr):
        if isinstance(v, bool) or not isinstance(v, int):
            raise KinarowError("a response's rows and offset are whole numbers")
    if high is not None and (isinstance(high, bool) or not isinstance(high, int)):
        raise KinarowError("a response's rows end at a whole number or null (no end)")
    if max(abs(dc), abs(dr)) > MAX_OFFSET or (dc, dr) == (0, 0):
        raise KinarowError(f"a response's offset is at most {MAX_OFFSET} columns and rows from the opponent's "
                           "stone, and not the stone itself")
    return Response(low, high, (dc, dr))


def take_even_certificate(k: int, cylinder: bool = False) -> InvariantCertificate:
    """Take-even for the second player on every even height and every width ``>= k`` (the paper's strategy 1);
    on cylinders every width ``>= 2k - 1``, where the window of a stone no longer wraps onto itself."""
    return InvariantCertificate(
        "take-even", k, 2 * k - 1 if cylinder else k, 2, 2, Player.SECOND, (Response(0, None, (0, 1)),),
        Pattern((), (Player.FIRST, Player.SECOND)), Pattern((), (True, False)), cylinder,
    )


class _Family:
    """The certificate's family and invariant, with the strategist (``me``) and its opponent as stones."""

    def __init__(self, cert: InvariantCertificate) -> None:
        self.cert = cert
        self.k = cert.k
        self.me = 2 if cert.player == Player.SECOND else 1
        self.opp = 3 - self.me
        self.reach = max(max(abs(r.offset[0]), abs(r.offset[1])) for r in cert.responses)
        self.E = self.k - 1 + self.reach
        self.Ec = self.k - 1 + max(abs(r.offset[0]) for r in cert.responses)  # columns a line check looks at
        self.period = math.lcm(len(cert.owners.repeat), len(cert.heights.repeat), cert.height_step)
        self.prefix = max(len(cert.owners.prefix), len(cert.heights.prefix))
        # rows checked exactly (see the module text): past them, shifting the stone's row and the height down by
        # one period gives the same window, of a board still in the family
        self.low = max(self.prefix, cert.min_height)
        self.rows = self.low + 2 * self.E + 4 + 2 * self.period

    def owner(self, y: int) -> int:
        return 1 if self.cert.owners.at(y) == Player.FIRST else 2

    def allowed(self, h: int) -> bool:
        return bool(self.cert.heights.at(h))

    def in_family(self, h: int) -> bool:
        return h >= self.cert.min_height and (h - self.cert.min_height) % self.cert.height_step == 0

    def response(self, row: int) -> tuple[int, int] | None:
        for r in self.cert.responses:
            if r.holds(row):
                return r.offset
        return None

    def content(self, h: int, y: int, H: int) -> int:
        """What a column of height ``h`` holds at row ``y`` on a board of height ``H``."""
        if y < 0 or y >= H:
            return OFF
        return EMPTY if y >= h else self.owner(y)


def check(cert: InvariantCertificate) -> Verdict:
    """Run checks 1-4 of the module text and the small boards' walk; accept iff all hold."""
    fam = _Family(cert)
    if fam.me != 2:
        return Verdict(False, "version 1 proves strategies of the second player (no opening move); this one "
                       "plays the first")
    if cert.cylinder and cert.min_width < 2 * fam.Ec + 1:
        return Verdict(False, f"on cylinders narrower than {2 * fam.Ec + 1} columns a stone's window wraps onto "
                       "itself, so the family's widths must start there (narrower cylinders are walked one by one)")
    if not fam.allowed(0):
        return Verdict(False, "the invariant does not hold at the start: height 0 is not allowed")
    windows = 0
    for r in range(fam.rows):
        if not fam.allowed(r):
            continue
        # every height of the family up to where the ceiling is past the window and every other column's
        # contents there repeat with the heights' period (a farther ceiling shows the same window)
        for H in range(r + 1, r + fam.low + fam.prefix + fam.E + 4 + 2 * fam.period):
            if not fam.in_family(H):
                continue
            bad = _step(fam, r, H)
            if bad:
                return Verdict(False, bad, {"windows": windows})
            for d in DIRECTIONS:
                n, bad = _lines(fam, r, H, d)
                windows += n
                if bad:
                    return Verdict(False, bad, {"windows": windows})
    bad = _full_board(fam)
    if bad:
        return Verdict(False, bad, {"windows": windows})
    walked, bad = _small_boards(fam)
    details = {"windows": windows, "small_positions": walked}
    if bad:
        return Verdict(False, bad, details)
    return Verdict(True, f"{cert.claim}: {windows:,} windows and {walked:,} small-board positions checked",
                   details)


def _step(fam: _Family, r: int, H: int) -> str | None:
    """Check 2 for an opponent stone at row ``r`` of a column of height ``r`` on a board of height ``H``."""
    where = f"(the opponent's stone on row {r + 1}, height {H})"
    offset = fam.response(r)
    if offset is None:
        return f"no response covers an opponent's stone on row {r + 1}"
    dc, dr = offset
    if fam.owner(r) != fam.opp:
        return f"the invariant does not hold after the opponent's stone: row {r + 1} is not the opponent's {where}"
    if dc != 0:
        return (f"the reply {dc:+d} columns away is off the board when the opponent plays beside the wall, "
                f"or not the lowest empty cell of its column {where}")
    y = r + dr
    if y != r + 1 or y >= H:
        return f"the reply {dr:+d} rows away is not a legal move {where}"
    if fam.owner(y) != fam.me:
        return f"the invariant does not hold after the reply: row {y + 1} is not the strategist's {where}"
    if not fam.allowed(y + 1):
        return f"the invariant does not hold after the reply: height {y + 1} is not allowed {where}"
    return None


def local_lines(cert: InvariantCertificate, r: int, H: int, direction: tuple[int, int]) -> Verdict:
    """Check 3 alone, for an opponent's stone on row ``r`` (from 0) of a board of height ``H``, in ``direction``
    (``(1, 0)``, ``(1, 1)``, ``(1, -1)`` or ``(0, 1)``); the reply is taken one row above the stone."""
    windows, bad = _lines(_Family(cert), r, H, direction)
    return Verdict(bad is None, bad or "no line of the strategist first", {"windows": windows})


def _lines(fam: _Family, r: int, H: int, d: tuple[int, int]) -> tuple[int, str | None]:
    """Check 3 in direction ``d``: every line of the strategist through its reply forces one of the opponent's."""
    k, me, opp = fam.k, fam.me, fam.opp
    dr = (fam.response(r) or (0, 1))[1]
    ry = r + dr  # the reply (in the stone's column: check 2 holds)
    dx, dy = d
    if dx == 0:  # vertical: the stone's column alone, known exactly
        col = {y: fam.content(r, y, H) for y in range(r - k, ry + k + 1)}
        col[r], col[ry] = opp, me
        return 1, None if _run(col, ry, me) < k or _run(col, r, opp) >= k else (
            f"the reply completes a vertical line of the strategist on row {ry + 1} (height {H})")
    E = fam.Ec
    # options[i]: the (opponent-line cell, reply-line cell) contents column c + i can show, over its allowed heights
    options: dict[int, set[tuple[int, int]]] = {}
    for i in range(-E, E + 1):
        if i == 0:
            continue
        yx, yo = r + i * dy, ry + i * dy
        top = min(H, max(yx, yo) + 2 + len(fam.cert.heights.prefix) + len(fam.cert.heights.repeat))
        options[i] = {(fam.content(h, yx, H), fam.content(h, yo, H)) for h in range(top + 1) if fam.allowed(h)}
    windows = 0
    sides = [E + 1] if fam.cert.cylinder else range(E + 2)  # a cylinder has no walls
    for left in sides:  # a wall `left` columns to the left (E + 1: none in the window)
        for right in sides:
            if left <= E and right <= E and left + right + 1 < fam.cert.min_width:
                continue
            windows += 1
            cols: dict[int, set[tuple[int, int]]] = {}
            for i, opts in options.items():
                cols[i] = {(OFF, OFF)} if i < -left or i > right else opts
            cols[0] = {(opp, me)}
            for start in range(-(k - 1), 1):  # the reply's line: columns start .. start + k - 1
                chosen: dict[int, int] = {}
                possible = True
                for i in range(-E, E + 1):
                    opts = cols[i]
                    if start <= i < start + k:
                        opts = {o for o in opts if o[1] == me}
                    if not opts:
                        possible = False
                        break
                    chosen[i] = opp if all(o[0] == opp for o in opts) else EMPTY
                if possible and _run(chosen, 0, opp) < k:
                    walls = f"walls {left if left <= E else 'far'} and {right if right <= E else 'far'} columns away"
                    return windows, (f"the reply on row {ry + 1} can complete a line of the strategist in direction "
                                     f"{d} while the opponent has none (height {H}, {walls})")
    return windows, None


def _run(cells: dict[int, int], at: int, who: int) -> int:
    """The length of the run of ``who`` through index ``at`` of ``cells`` (missing indices end it)."""
    n = 1
    for step in (1, -1):
        i = at + step
        while cells.get(i) == who:
            n += 1
            i += step
    return n


def _full_board(fam: _Family) -> str | None:
    """Check 4: the full invariant board of the smallest width has an opponent's line below its top row."""
    cert = fam.cert
    rows = cert.min_height - 1 if any(fam.allowed(H - 1) for H in range(cert.min_height, cert.min_height
                                                                         + 2 * fam.period + fam.prefix + 1)
                                      if fam.in_family(H)) else cert.min_height
    grid = {(x, y): fam.owner(y) for x in range(cert.min_width) for y in range(rows)}
    for (x, y) in grid:
        for dx, dy in DIRECTIONS:
            if all(grid.get((x + j * dx, y + j * dy)) == fam.opp for j in range(fam.k)):
                return None
    return (f"a full board of width {cert.min_width} can have no line of the opponent: the game may end in a "
            "draw, so the invariant does not imply a win")


def _small_boards(fam: _Family) -> tuple[int, str | None]:
    """Walk the family's small boards with the plain rules: the declared replies win, and the named strategy
    plays them."""
    from kinarow.strategies import StrategyError, get

    cert = fam.cert
    try:
        strategy = get(cert.strategy)
    except StrategyError as error:
        return 0, str(error)
    total = 0
    for w in (cert.min_width, cert.min_width + 1):
        for h in (cert.min_height, cert.min_height + cert.height_step):
            if w * h > SMALL_CELLS:
                continue
            game = Game(f"{w}x{h}k{cert.k}:{cert.flags}")
            seen: set[tuple[int, int]] = set()
            bad = _walk(fam, strategy, game.start(), seen)
            total += len(seen)
            if bad:
                return total, f"on {game}: {bad}"
    return total, None


def _walk(fam: _Family, strategy: Any, pos: Any, seen: set[tuple[int, int]]) -> str | None:
    key = pos.key()
    if key in seen:
        return None
    seen.add(key)
    geometry = pos.game.geometry
    for cell in pos.legal_moves():
        pos.play(cell)
        try:
            if pos.is_over:
                if pos.result != ("second" if fam.me == 2 else "first"):
                    return f"the game ends in {pos.result} after {pos.move_text()}"
                continue
            x, y = geometry.xy(cell)
            offset = fam.response(y)
            reply = None
            if offset and 0 <= x + offset[0] < pos.game.m and 0 <= y + offset[1] < pos.game.n:
                reply = geometry.cell(x + offset[0], y + offset[1])
            named = strategy.move(pos)
            if reply is None or reply != named:
                return f"the declared reply and {strategy.name} differ after {pos.move_text()}"
            pos.play(reply)
            try:
                if pos.is_over:
                    if pos.result != ("second" if fam.me == 2 else "first"):
                        return f"the game ends in {pos.result} after {pos.move_text()}"
                    continue
                bad = _walk(fam, strategy, pos, seen)
                if bad:
                    return bad
            finally:
                pos.undo()
        finally:
            pos.undo()
    return None


def check_certificate(data: dict[str, Any]) -> Verdict:
    """The ``kinarow.invariant`` checker for :mod:`kinarow.proofs`: load, compare the claim, run the checks."""
    cert = InvariantCertificate.from_json(data)
    require_claim(data, cert.claim)
    if data.get("game") != cert.game:
        raise KinarowError(f"the invariant certificate's 'game' must be its family's smallest board, {cert.game}")
    verdict = check(cert)
    details = {"strategy": cert.strategy, "family": cert.family, "player": cert.player, **verdict.details}
    if not verdict.ok:
        return Verdict(False, f"{cert.strategy} on {cert.family}: {verdict.reason}", details)
    return Verdict(True, verdict.reason, details)
