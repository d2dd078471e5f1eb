"""Parametric (invariant) certificates: one strategy proven for a whole family of misère gravity boards.

A certificate names a family of boards (``WxHkK:gravity,misere``, or
``,cylinder`` with the columns wrapping, for every width ``W >= min_width``
with ``W = min_width (mod width_step)`` and every height ``H >= min_height``
with ``H = min_height (mod height_step)``), the player the strategy plays, a
*declared local strategy* (``responses``: the opponent's stone at row ``r``
is answered at a fixed offset ``(dc, dr)`` from it, or, on the paired bottom
row, by ``"pair"``: the other cell of the stone's pair; the first entry whose
row range holds ``r`` applies), and an *invariant* on the positions after the
strategy's move. The invariant is a column invariant:

* ``owners``: the owner of row ``y`` (the same in every column), given as a
  prefix and a repeating part (take-even: rows alternate first, second, ...);
* ``heights``: which column heights are allowed, a prefix and a repeating
  part of booleans (take-even: the even ones);
* ``bottom_pairs`` (version 2): the bottom row is *paired* instead of owned:
  the columns pair up from the left wall, (1, 2), (3, 4), ...; the two
  columns of a pair are both empty, or both hold stones with one stone of
  each player in the bottom row; on an odd width the last column is unpaired
  and its bottom cell is the strategist's, taken by its *opening* move
  (``"opening": "rightmost"``: a first-player strategy opens there). On a
  cylinder the pairs are counted the same way from column 1.

A board satisfies the invariant when every column's height is allowed, every
stone above the bottom row (every stone, without pairs) lies on a row its
owner owns, and the pairs hold as said. Columns are then independent except
for the two columns of a pair. The checker (:func:`check`) proves the claim
"the strategy's owner wins" for every board of the family by these checks:

1. **start**: the empty board satisfies the invariant (height 0 is allowed),
   or, for a first-player strategy, the board after its opening (which needs
   the paired bottom row and odd widths: the unpaired column is there to
   take);
2. **step**: for an opponent's stone at ``(c, r)`` in a column of allowed
   height ``r``, in every window of the family (below), the declared reply
   is legal (on the board, the lowest empty cell of its column, in every
   position the window can stand for) and after both stones the columns
   satisfy the invariant again (heights, owners, pairs);
3. **no line of the strategist first**: the reply completes no line of its
   owner unless the opponent's stone just completed one (the game was
   already over). Direction by direction, every way the reply's ``d``-line
   of k cells can be filled by the strategist must force a ``d``-line of the
   opponent through its stone;
4. **no draw**: a full board has a line of the opponent (so the opponent made
   it first, and the game ended then): the full invariant board of
   ``min_width`` columns has one in the rows above the bottom row and below
   its top row.

Why a window suffices. A line of k cells through a cell lies within ``k - 1``
columns and rows of it, so checks 2 and 3 depend only on the cells within
``E = k - 1 + max(|dc|, |dr|)`` of the opponent's stone (``"pair"`` counts
as one column): the *window*. The checker enumerates every window the
family can show, not whole boards:

* rows: the row ``r`` of the opponent's stone exactly, for every ``r`` up to
  a bound past the patterns' prefixes (and the paired bottom row), the
  family's smallest height, the window's reach and two periods; beyond it a
  window at ``r`` on a board of height ``H`` shows the same owners and
  allowed heights as the window at ``r - L`` on a board of height ``H - L``,
  still in the family (``L`` the common period of the patterns and the
  height step), so the representatives cover every row of every height;
* the ceiling: every height ``H`` of the family from ``r + 1`` up to the
  first one at least ``r + E + 3 + S`` (``S`` the length of the heights
  pattern, prefix and repeat): no cell a check looks at lies above row
  ``r + E``, and a column's heights fall into the same classes of contents
  there for every such ``H`` (a farther ceiling is invisible in the window);
* the walls: the left and the right wall at every distance ``0 .. Ec`` from
  the stone (``Ec = k - 1 + max |dc|``, the columns a line through the stone
  or the reply can reach), or farther (invisible); columns beyond a wall are
  off the board, exactly as on the real board; two visible walls give the
  width, which must be in the family. On a cylinder there are no walls, and
  its family must start at width ``k`` (a line's k cells are then distinct
  cells of the board). From width ``2 Ec + 1`` on, the window's columns are
  distinct columns of the board; on a narrower cylinder two window columns
  ``W`` apart are one column of the board, which the window treats as two
  independent ones: every real position is still among the window's (the
  two show the same contents, each a state the invariant allows, the stone's
  column after the stones too, by check 2), and every line through the stone
  or the reply is k window cells in a row, so the window's verdict holds a
  fortiori. Only the seam of an odd width would be wrong there (the window
  would hold it twice, and the pairs change parity at each), so a paired
  family of odd widths on cylinders starts at ``2 Ec + 1``;
* the pairs (paired bottom row): which window columns pair with which is
  fixed by the parity of the stone's column counted from the left wall;
  where a wall is visible it gives that parity (the right wall with the
  width's parity, which the family fixes), where none is, both parities are
  checked; an unpaired column is in the window exactly when the right wall
  of an odd width is (on a cylinder: where the seam between the last and
  the first column lies, at every position in the window or none);
* the other columns: every allowed height (at most ``H``) and every bottom
  stone the invariant allows, column by column, or pair by pair where both
  columns of a pair are in the window (a pair with one column outside the
  window leaves the inside column free: any allowed height and bottom).

So every position of every board of the family, after the strategy's move,
meets checks 2 and 3 in one of the enumerated windows: the checks hold for
all widths and heights at once, including boards narrower or lower than the
window (their walls and ceiling are in it).

Soundness of the local line check (check 3). The window's columns are split
into *units*: a single column, or the two columns of a pair, whose joint
contents the invariant constrains; different units are independent. For one
candidate line of the strategist (k cells through the reply), the checker
keeps, in each unit, the contents that put the strategist's stone on every
cell of the candidate in that unit; a cell of the opponent's line is
*forced* when every kept content of its unit holds an opponent's stone
there. If no content is left in some unit, no board fills the candidate. If
the forced cells already hold k in a row of the opponent through its stone,
every board that fills the candidate holds that line (each of its units
shows a kept content): the opponent completed a line no later than the
strategist. Otherwise the check fails. Collecting the forced cells unit by
unit only ever forces fewer cells than the exact joint answer, so the check
can reject a true certificate but never accept a false one. Only a column's
contents on the cells a line can touch matter, so the heights are taken one
per class of equal contents there (which keeps a pair's enumeration small).

The claim names a strategy (``strategy``: ``take-even``, ``delayed-take-even``),
and the name is bound to the declared rule on every board of the family,
however large: the named strategy must play the certificate's player on every
board of the family (its four corners, the two smallest widths by the two
smallest heights, decide: where a strategy applies depends only on the
parities and on thresholds of width and height), and the declared rule must be
the one that defines the name (:data:`NAMED_RULES`: the reply to a stone on
every row, and the opening), so that the certificate of one rule cannot be
relabelled with another's name. As a second, independent check, the checker
also walks every position of the family's small boards (two widths, two
heights, at most :data:`SMALL_CELLS` cells) with the plain rules
(:mod:`kinarow.position`), the declared replies and the named strategy's
player, which must agree move for move: that ties the declared local rule to
the strategy ``kinarow play`` uses.

By induction over the game every position after the strategy's move
satisfies the invariant and has no line; the game is finite, its strategist
never completes a line first (3) and it cannot end full without a line (4):
the opponent completes a line first, and the strategist wins (misère).

>>> cert = take_even_certificate(4)
>>> check(cert).ok
True
>>> check(delayed_take_even_certificate(4, first=True)).ok
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from itertools import product
from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.proofs import Verdict, envelope, require_claim, require_format, require_input
from kinarow.values import Player

FORMAT = "kinarow.invariant"
#: version 1: take-even's kind (owned rows, second player); version 2 adds width steps, the paired bottom row
#: and the opening on its unpaired cell
VERSION = 2
EMPTY, FIRST, SECOND, OFF = 0, 1, 2, 3
DIRECTIONS = ((1, 0), (1, 1), (1, -1), (0, 1))
#: a response on the paired bottom row: the other cell of the opponent's pair
PAIR = "pair"
#: the most a reply may lie from the opponent's stone (keeps the window small)
MAX_OFFSET = 2
MAX_K = 12
#: the most a family's smallest width or height, its width or height step, or its patterns' common period may be
MAX_SIZE = 64
#: the small boards walked with the plain rules must have at most this many cells
SMALL_CELLS = 30
#: a window column's kind: its own column, one of a pair seen whole, one whose pair is outside the window, the
#: unpaired last column of an odd width
SINGLE, PAIRED, HALF, UNPAIRED = 0, 1, 2, 3

State = tuple[int, int]  # a column: (height, its bottom stone or EMPTY)


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
    """Answer an opponent's stone on rows ``low .. high`` (``high`` None: no upper end) at ``offset``, a
    ``(columns, rows)`` step from it or :data:`PAIR` (the other cell of its pair in the paired bottom row)."""

    low: int
    high: int | None
    offset: tuple[int, int] | str

    def holds(self, row: int) -> bool:
        return row >= self.low and (self.high is None or row <= self.high)

    @property
    def columns(self) -> int:
        return abs(self.offset[0]) if isinstance(self.offset, tuple) else 1

    @property
    def rows(self) -> int:
        return abs(self.offset[1]) if isinstance(self.offset, tuple) else 0


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
    owners: Pattern  # of Player values (None: row 0 of a paired bottom row)
    heights: Pattern  # of bools
    cylinder: bool = False  # the columns wrap (no walls)
    width_step: int = 1
    bottom_pairs: bool = False  # the bottom row is paired (see the module text)
    opening: bool = False  # the strategist opens on the unpaired rightmost bottom cell

    @property
    def version(self) -> int:
        return 2 if self.width_step != 1 or self.bottom_pairs or self.opening else 1

    @property
    def family(self) -> str:
        h0, step = self.min_height, self.height_step
        heights = f"H >= {h0}" if step == 1 else f"H = {h0}, {h0 + step}, {h0 + 2 * step}, ..."
        w0, ws = self.min_width, self.width_step
        widths = f"W >= {w0}" if ws == 1 else f"W = {w0}, {w0 + ws}, {w0 + 2 * ws}, ..."
        return f"WxHk{self.k}:{self.flags} with {widths}, {heights}"

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
                and (h - self.min_height) % self.height_step == 0 and (w - self.min_width) % self.width_step == 0)

    def to_json(self) -> dict[str, Any]:
        data = envelope(FORMAT, self.version, self.game, [], self.claim)
        family = {"k": self.k, "min_width": self.min_width, "min_height": self.min_height,
                  "height_step": self.height_step, "cylinder": self.cylinder}
        invariant: dict[str, Any] = {"owners": self.owners.to_json(), "heights": self.heights.to_json()}
        extra: dict[str, Any] = {}
        if self.version == 2:
            family["width_step"] = self.width_step
            invariant["bottom_pairs"] = self.bottom_pairs
            extra["opening"] = "rightmost" if self.opening else None
        return {
            **data,
            "strategy": self.strategy,
            "player": self.player,
            "outcome": "win",
            "family": family,
            **extra,
            "responses": [{"rows": [r.low, r.high], "offset": r.offset if r.offset == PAIR else list(r.offset)}
                          for r in self.responses],
            "invariant": invariant,
        }

    @classmethod
    def from_json(cls, data: Any) -> InvariantCertificate:
        require_format(data, FORMAT, (1, VERSION), "invariant")
        try:
            family, inv = data["family"], data["invariant"]
            if data["version"] == 1 and ("width_step" in family or "bottom_pairs" in inv or "opening" in data):
                raise KinarowError("a version 1 invariant certificate has no width step, paired bottom row or "
                                   "opening; those need version 2")
            k, w0, h0, step = (_whole(family[f], f, 1, MAX_SIZE) for f in ("k", "min_width", "min_height",
                                                                            "height_step"))
            width_step = _whole(family.get("width_step", 1), "width_step", 1, MAX_SIZE)
            if data.get("outcome") != "win":
                raise KinarowError("an invariant certificate claims the outcome 'win' (no other is known)")
            player = Player(str(data["player"]))
            responses = tuple(_response(r) for r in data["responses"])
            owners = _pattern(inv["owners"], "owners", lambda v: None if v is None else Player(str(v)))
            heights = _pattern(inv["heights"], "heights", _bool)
            strategy = str(data["strategy"])
            cylinder, pairs = family.get("cylinder", False), inv.get("bottom_pairs", False)
            if not isinstance(cylinder, bool) or not isinstance(pairs, bool):
                raise KinarowError("the family's 'cylinder' and the invariant's 'bottom_pairs' are true or false")
            opening = data.get("opening")
            if opening not in (None, "rightmost"):
                raise KinarowError("the certificate's 'opening' is \"rightmost\" (the unpaired bottom cell of an "
                                   "odd width) or null")
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
        return cls(strategy, k, w0, h0, step, player, responses, owners, heights, cylinder, width_step, pairs,
                   opening is not None)


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
    offset = data["offset"]
    for v in (low,) if offset == PAIR else (low, *offset):
        if isinstance(v, bool) or not isinstance(v, int):
            raise KinarowError("a response's rows and offset are whole numbers (or the offset \"pair\")")
    if high is not None and (isinstance(high, bool) or not isinstance(high, int)):
        raise KinarowError("a response's rows end at a whole number or null (no end)")
    if offset == PAIR:
        return Response(low, high, PAIR)
    dc, dr = offset
    if max(abs(dc), abs(dr)) > MAX_OFFSET or (dc, dr) == (0, 0):
        raise KinarowError(f"a response's offset is at most {MAX_OFFSET} columns and rows from the opponent's "
                           "stone, and not the stone itself")
    return Response(low, high, (dc, dr))


def take_even_certificate(k: int, cylinder: bool = False) -> InvariantCertificate:
    """Take-even for the second player on every even height and every width ``>= k`` (the paper's strategy 1),
    on the plane or (``cylinder``) on cylinders."""
    return InvariantCertificate(
        "take-even", k, k, 2, 2, Player.SECOND, (Response(0, None, (0, 1)),),
        Pattern((), (Player.FIRST, Player.SECOND)), Pattern((), (True, False)), cylinder,
    )


def delayed_take_even_certificate(k: int, first: bool = False, cylinder: bool = False) -> InvariantCertificate:
    """Delayed take-even (the paper's strategy 3) on every odd height ``>= 3``: the second player on even
    widths ``>= k``, or the first player (``first``) on odd widths ``>= k``, who opens on the rightmost bottom
    cell. A bottom-row stone is answered in its pair, a stone above on top of it; the invariant: the bottom
    row paired, above it rows alternating opponent (row 2), strategist (row 3), ..., so the column heights
    are 0 or odd. On cylinders the first player's widths start at ``2k + 1`` (the window's reach: see the
    module text)."""
    me, opp = (Player.FIRST, Player.SECOND) if first else (Player.SECOND, Player.FIRST)
    w0 = 2 * k + 1 if cylinder and first else k
    if w0 % 2 != first:
        w0 += 1
    return InvariantCertificate(
        "delayed-take-even", k, w0, 3, 2, me, (Response(0, 0, PAIR), Response(1, None, (0, 1))),
        Pattern((None,), (opp, me)), Pattern((True,), (True, False)), cylinder,
        width_step=2, bottom_pairs=True, opening=first,
    )


@dataclass(frozen=True)
class _Layout:
    """Which columns of the window are on the board, and how they group (walls, seam, pair parity)."""

    lo: int
    hi: int
    kind: dict[int, int]
    mate: dict[int, int]
    units: tuple[tuple[int, ...], ...]
    text: str


class _Family:
    """The certificate's family and invariant, with the strategist (``me``) and its opponent as stones."""

    def __init__(self, cert: InvariantCertificate) -> None:
        self.cert = cert
        self.k = cert.k
        self.me = 1 if cert.player == Player.FIRST else 2
        self.opp = 3 - self.me
        self.pairs = cert.bottom_pairs
        self.Ec = self.k - 1 + max(r.columns for r in cert.responses)  # columns a line check looks at
        self.E = self.k - 1 + max(max(r.columns, r.rows) for r in cert.responses)
        self.period = math.lcm(len(cert.owners.repeat), len(cert.heights.repeat), cert.height_step)
        self.prefix = max(len(cert.owners.prefix), len(cert.heights.prefix), 1 if self.pairs else 0)
        # rows checked exactly (see the module text): past them, shifting the stone's row and the height down by
        # one period gives the same window, of a board still in the family
        self.low = max(self.prefix, cert.min_height)
        self.rows = self.low + 2 * self.E + 4 + 2 * self.period
        self.hspan = len(cert.heights.prefix) + len(cert.heights.repeat)
        self.wpars = (cert.min_width % 2,) if cert.width_step % 2 == 0 else (0, 1)
        self._classes: dict[tuple[int, tuple[int, ...], int], list[State]] = {}
        #: a unit's contents after the stones, by everything they depend on (see :func:`_window`)
        self.units: dict[tuple[Any, ...], tuple[frozenset[tuple[int, ...]], str | None]] = {}

    def owner(self, y: int) -> int:
        who = self.cert.owners.at(y)
        return EMPTY if who is None else FIRST if who == Player.FIRST else SECOND

    def allowed(self, h: int) -> bool:
        return bool(self.cert.heights.at(h))

    def in_family(self, h: int) -> bool:
        return h >= self.cert.min_height and (h - self.cert.min_height) % self.cert.height_step == 0

    def in_width(self, w: int) -> bool:
        return w >= self.cert.min_width and (w - self.cert.min_width) % self.cert.width_step == 0

    def response(self, row: int) -> tuple[int, int] | str | None:
        for r in self.cert.responses:
            if r.holds(row):
                return r.offset
        return None

    def content(self, state: State, y: int, H: int) -> int:
        """What a column in ``state`` holds at row ``y`` on a board of height ``H``."""
        h, b = state
        if y < 0 or y >= H:
            return OFF
        if y >= h:
            return EMPTY
        return b if y == 0 else self.owner(y)

    def classes(self, kind: int, rows: tuple[int, ...], H: int) -> list[State]:
        """One state per class of equal contents on ``rows`` (and emptiness and bottom stone), over the states
        the invariant allows a column of this kind on a board of height ``H``."""
        top = min(H, max(rows, default=0) + 2 + self.hspan)
        key = (kind, rows, top)
        if key in self._classes:
            return self._classes[key]
        bottoms = (self.me,) if kind == UNPAIRED else (self.me, self.opp) if self.pairs else (self.owner(0),)
        seen: dict[tuple[Any, ...], State] = {}
        for h in range(1 if kind == UNPAIRED else 0, top + 1):
            if not self.allowed(h):
                continue
            below = tuple(y < h for y in rows)
            for b in bottoms if h else (EMPTY,):
                seen.setdefault((h > 0, below, b), (h, b))
        self._classes[key] = list(seen.values())
        return self._classes[key]

    def layouts(self) -> list[_Layout]:
        """Every way the walls (or the cylinder's seam) and the pairs can lie around the stone's window."""
        Ec, out = self.Ec, []
        wpars: tuple[int | None, ...] = self.wpars if self.pairs else (None,)
        if self.cert.cylinder:
            for wp in wpars:
                for seam in [None, *range(-Ec, Ec + 1)] if self.pairs else [None]:
                    for ph in (0, 1) if self.pairs and seam is None else (None,):
                        par = partial(_parity, int(ph or 0)) if seam is None else partial(_seam_parity, seam,
                                                                                             int(wp or 0))
                        odd = self.pairs and seam is not None and wp == 1
                        text = "no walls" + (f", the seam after column {seam:+d}" if seam is not None else "")
                        out.append(self._layout(-Ec, Ec, par if self.pairs else None, seam if odd else None, text))
            return out
        for left in range(Ec + 2):  # a wall `left` columns to the left (Ec + 1: none in the window)
            for right in range(Ec + 2):
                seen_l, seen_r = left <= Ec, right <= Ec
                pars = wpars
                if seen_l and seen_r:
                    if not self.in_width(left + right + 1):
                        continue
                    pars = ((left + right + 1) % 2,) if self.pairs else (None,)
                for wp in pars:
                    phases: tuple[int | None, ...] = (None,)  # the stone's column's parity from the left wall
                    if self.pairs and seen_l:
                        phases = (left % 2,)
                    elif self.pairs and seen_r:
                        phases = ((int(wp or 0) - 1 - right) % 2,)
                    elif self.pairs:
                        phases = (0, 1)
                    for ph in phases:
                        par = partial(_parity, int(ph or 0))
                        walls = f"walls {left if seen_l else 'far'} and {right if seen_r else 'far'} columns away"
                        odd = self.pairs and seen_r and wp == 1
                        out.append(self._layout(max(-left, -Ec), min(right, Ec), par if self.pairs else None,
                                                right if odd else None, walls))
        return out

    def _layout(self, lo: int, hi: int, par: Callable[[int], int] | None, unpaired: int | None,
                text: str) -> _Layout:
        kind: dict[int, int] = {}
        mate: dict[int, int] = {}
        units: list[tuple[int, ...]] = []
        for i in range(lo, hi + 1):
            if i in kind:
                continue
            if par is None or i == unpaired:
                kind[i] = SINGLE if par is None else UNPAIRED
                units.append((i,))
                continue
            m = i + 1 if par(i) == 0 else i - 1
            mate[i] = m
            if lo <= m <= hi:
                kind[i] = kind[m] = PAIRED
                mate[m] = i
                units.append((i, m))
            else:
                kind[i] = HALF
                units.append((i,))
        return _Layout(lo, hi, kind, mate, tuple(units), text)


def _parity(phase: int, i: int) -> int:
    """The parity of window column ``i`` counted from the left wall, column 0's being ``phase``."""
    return (phase + i) % 2


def _seam_parity(seam: int, width_parity: int, i: int) -> int:
    """The same on a cylinder whose last column is window column ``seam`` (the first is ``seam + 1``)."""
    return (width_parity - 1 - (seam - i)) % 2 if i <= seam else (i - seam - 1) % 2


def _premises(fam: _Family) -> str | None:
    """The family's shape: who opens, the pairs, the widths, the start (check 1)."""
    cert = fam.cert
    if cert.opening and not cert.bottom_pairs:
        return "an opening move needs the paired bottom row (the strategist opens on its unpaired cell)"
    if fam.me == 1 and not cert.opening:
        return ("without an opening move a strategy plays the second player; this one plays the first and "
                "does not say where it opens")
    if fam.me == 2 and cert.opening:
        return "a strategy of the second player has no opening move"
    if cert.bottom_pairs:
        if cert.width_step % 2:
            return "the paired bottom row needs widths of one parity: the width step must be even"
        if cert.min_width % 2 != cert.opening:
            return ("odd widths leave the rightmost bottom cell unpaired, so the strategist must open there (the "
                    "first player); even widths have no unpaired cell (the second player)")
    for r in cert.responses:
        if r.offset == PAIR and (not cert.bottom_pairs or (r.low, r.high) != (0, 0)):
            return "a 'pair' response answers stones on the paired bottom row only (rows [0, 0])"
    owners = cert.owners
    if None in owners.repeat or None in owners.prefix[1:] or (
            not cert.bottom_pairs and None in owners.prefix):
        return "every row has an owner, except the bottom row when it is paired"
    if cert.cylinder and cert.min_width < cert.k:
        return (f"on cylinders narrower than k = {cert.k} columns a line would wrap onto itself, so the family's "
                "widths must start at k")
    if cert.cylinder and cert.bottom_pairs and 1 in fam.wpars and cert.min_width < 2 * fam.Ec + 1:
        return (f"on odd-width cylinders narrower than {2 * fam.Ec + 1} columns a stone's window would hold the "
                "seam (and its unpaired column) twice, so the family's widths must start there (narrower "
                "cylinders are walked one by one)")
    if not fam.allowed(0):
        return "the invariant does not hold at the start: height 0 is not allowed"
    if cert.opening and (not fam.allowed(1) or cert.k < 2):
        return "the invariant does not hold after the opening: height 1 is not allowed (or one stone is a line)"
    return None


def check(cert: InvariantCertificate) -> Verdict:
    """Run checks 1-4 of the module text and the small boards' walk; accept iff all hold."""
    require_input(cert, InvariantCertificate, "kinarow.proofs.invariant.check()",
                  "an InvariantCertificate (InvariantCertificate.from_json reads one)")
    fam = _Family(cert)
    bad = _premises(fam)
    if bad:
        return Verdict(False, bad)
    layouts = fam.layouts()
    windows = 0
    for r in range(fam.rows):
        if not fam.allowed(r):
            continue
        if fam.response(r) is None:
            return Verdict(False, f"no response covers an opponent's stone on row {r + 1}", {"windows": windows})
        # every height of the family up to the first one past the window's top (row r + E) by more than the
        # heights pattern's span: from there on the ceiling is out of sight, and so are the heights' classes
        # (see Family.classes), so every higher ceiling shows the same windows
        for H in range(r + 1, r + fam.low + fam.prefix + fam.E + 4 + 2 * fam.period):
            if not fam.in_family(H):
                continue
            for lay in layouts:
                for d in DIRECTIONS:
                    n, bad = _window(fam, lay, r, H, d, strict=True)
                    windows += n
                    if bad:
                        return Verdict(False, bad, {"windows": windows})
            if r + fam.E + 3 + fam.hspan <= H:  # the ceiling is out of sight: higher ones look the same
                break
    bad = _full_board(fam)
    if bad:
        return Verdict(False, bad, {"windows": windows})
    walked, bad = _small_boards(fam)
    details = {"windows": windows, "small_positions": walked}
    if bad:
        return Verdict(False, bad, details)
    return Verdict(True, f"{cert.claim}: {windows:,} windows and {walked:,} small-board positions checked",
                   details)


def local_lines(cert: InvariantCertificate, r: int, H: int, direction: tuple[int, int]) -> Verdict:
    """Check 3 alone, for an opponent's stone on row ``r`` (from 0) of a board of height ``H``, in ``direction``
    (``(1, 0)``, ``(1, 1)``, ``(1, -1)`` or ``(0, 1)``), in every layout of walls and pairs; the stones are
    placed as the response says whatever the invariant's owners, and check 2 is not made."""
    require_input(cert, InvariantCertificate, "local_lines()", "an InvariantCertificate")
    fam = _Family(cert)
    windows = 0
    for lay in fam.layouts():
        n, bad = _window(fam, lay, r, H, direction, strict=False)
        windows += n
        if bad:
            return Verdict(False, bad, {"windows": windows})
    return Verdict(True, "no line of the strategist first", {"windows": windows})


def _window(fam: _Family, lay: _Layout, r: int, H: int, d: tuple[int, int], strict: bool) -> tuple[int, str | None]:
    """Checks 2 (if ``strict``) and 3 in direction ``d`` for an opponent's stone on row ``r`` of the window's
    column 0, in a column of height ``r``, on a board of height ``H`` laid out as ``lay``."""
    k, me, opp = fam.k, fam.me, fam.opp
    where = f"(the opponent's stone on row {r + 1}, height {H}, {lay.text})"
    if lay.kind[0] == UNPAIRED and r == 0:
        return 0, None  # the unpaired column always holds the opening's stone: nobody plays its bottom cell
    if strict and (r > 0 or not fam.pairs) and fam.owner(r) != opp:
        return 1, f"the invariant does not hold after the opponent's stone: row {r + 1} is not the opponent's {where}"
    offset = fam.response(r)
    if offset is None:
        return 0, f"no response covers an opponent's stone on row {r + 1}"
    if offset == PAIR:
        if 0 not in lay.mate:
            return 0, f"the stone's column has no pair for the 'pair' reply {where}"
        dc, ry = lay.mate[0], r
    else:
        assert isinstance(offset, tuple)
        dc, ry = offset[0], r + offset[1]
    said = f"the reply {'in the pair' if offset == PAIR else f'{dc:+d} columns, {ry - r:+d} rows away'}"
    if not lay.lo <= dc <= lay.hi or not 0 <= ry < H:
        return 1, f"{said} is not a legal move: it is off the board {where}"
    if lay.kind.get(dc) == HALF:
        return 1, f"{said} lands in a column whose pair the window cannot see {where}"
    dx, dy = d
    opp_cells = [(j * dx, r + j * dy) for j in range(-(k - 1), k)]
    rep_cells = [(dc + j * dx, ry + j * dy) for j in range(-(k - 1), k)]
    rows: dict[int, set[int]] = {}
    for i, y in [(0, r - 1), (0, r), (dc, ry - 1), (dc, ry), *opp_cells, *rep_cells]:
        if lay.lo <= i <= lay.hi:
            rows.setdefault(i, set()).add(y)
    of_interest = set(opp_cells) | set(rep_cells)
    # each unit's contents on the cells of interest, over its states after both stones
    units: list[tuple[tuple[tuple[int, int], ...], frozenset[tuple[int, ...]]]] = []
    for unit in lay.units:
        if not any(i in rows for i in unit):
            continue
        for i in unit:  # a pair's other column constrains this one: keep it, with no cells of interest
            rows.setdefault(i, set())
        rowsets = tuple(tuple(sorted(rows[i])) for i in unit)
        cells = tuple((i, y) for i, ys in zip(unit, rowsets, strict=True) for y in ys if (i, y) in of_interest)
        kinds = tuple(lay.kind[i] for i in unit)
        top = max(y for ys in rowsets for y in ys) + 2 + fam.hspan
        key = (unit, kinds, rowsets, cells, r, ry, dc, min(H, top + 1), strict)  # a higher ceiling: unseen
        found = fam.units.get(key)
        if found is None:
            found = fam.units[key] = _unit_options(fam, unit, kinds, rowsets, cells, r, ry, dc, H, strict)
        options, bad = found
        if bad:
            text = f"{said} is not a legal move: {bad}" if bad.startswith("not the lowest") else bad
            return 1, f"{text} {where}"
        units.append((cells, options))
    for start in range(k):  # the strategist's candidate line: rep_cells[start .. start + k - 1]
        need = set(rep_cells[start:start + k])
        if any(not lay.lo <= i <= lay.hi for i, _ in need):
            continue
        forced: set[tuple[int, int]] = set()
        possible = True
        for cells, options in units:
            at = [p for p, c in enumerate(cells) if c in need]
            kept = [o for o in options if all(o[p] == me for p in at)]
            if not kept:
                possible = False
                break
            forced.update(c for p, c in enumerate(cells) if all(o[p] == opp for o in kept))
        if not possible:
            continue
        run = 1
        for step in (1, -1):
            j = step
            while abs(j) < k and opp_cells[k - 1 + j] in forced:
                run += 1
                j += step
        if run < k:
            return 1, (f"the reply on row {ry + 1} can complete a line of the strategist in direction {d} while "
                       f"the opponent has none {where}")
    return 1, None


def _unit_options(fam: _Family, unit: tuple[int, ...], kinds: tuple[int, ...], rowsets: tuple[tuple[int, ...], ...],
                  cells: tuple[tuple[int, int], ...], r: int, ry: int, dc: int, H: int,
                  strict: bool) -> tuple[frozenset[tuple[int, ...]], str | None]:
    """A unit's contents on ``cells`` over every state the invariant allows it, with the opponent's stone on
    row ``r`` of column 0 (in a column of height ``r``) and the reply on row ``ry`` of column ``dc`` placed
    (where they are in the unit); or why the step fails (check 2, if ``strict``)."""
    me, opp = fam.me, fam.opp
    options: set[tuple[int, ...]] = set()
    choices = [fam.classes(kind, rows, H) for kind, rows in zip(kinds, rowsets, strict=True)]
    for states in product(*choices):
        if len(unit) == 2 and not _paired(states[0], states[1]):
            continue
        st = dict(zip(unit, states, strict=True))
        placed: dict[tuple[int, int], int] = {}
        if 0 in st:
            if st[0][0] != r:
                continue
            st[0], bad = _place(fam, st[0], r, opp, strict)
            placed[(0, r)] = opp
            if bad:
                return frozenset(), f"the invariant does not hold after the opponent's stone: {bad}"
        if dc in st:
            if st[dc][0] != ry:
                return frozenset(), "not the lowest empty cell of its column"
            st[dc], bad = _place(fam, st[dc], ry, me, strict)
            placed[(dc, ry)] = me
            if bad:
                return frozenset(), f"the invariant does not hold after the reply: {bad}"
        if strict and (0 in st or dc in st):
            bad = _unit_holds(fam, kinds, unit, st)
            if bad:
                return frozenset(), f"the invariant does not hold after the reply: {bad}"
        options.add(tuple(placed.get((i, y), fam.content(st[i], y, H)) for i, y in cells))
    return frozenset(options), None


def _paired(a: State, b: State) -> bool:
    """Two columns of a pair: both empty, or both with stones and bottom stones of both players."""
    return (a[0] == 0) == (b[0] == 0) and (a[0] == 0 or a[1] != b[1])


def _place(fam: _Family, state: State, y: int, who: int, strict: bool) -> tuple[State, str | None]:
    """A stone of ``who`` on row ``y`` of a column in ``state`` (its lowest empty cell)."""
    h, b = state
    if y == 0:
        if not fam.pairs and strict and fam.owner(0) != who:
            return (h + 1, who), f"row 1 is not the {'opponent' if who == fam.opp else 'strategist'}'s"
        return (h + 1, who), None
    if strict and fam.owner(y) != who:
        return (h + 1, b), f"row {y + 1} is not the {'opponent' if who == fam.opp else 'strategist'}'s"
    return (h + 1, b), None


def _unit_holds(fam: _Family, kinds: tuple[int, ...], unit: tuple[int, ...], st: dict[int, State]) -> str | None:
    for i, kind in zip(unit, kinds, strict=True):
        if not fam.allowed(st[i][0]):
            return f"height {st[i][0]} is not allowed"
        if kind == UNPAIRED and (st[i][0] == 0 or st[i][1] != fam.me):
            return "the unpaired column's bottom cell is not the strategist's"
    if len(unit) == 2 and not _paired(st[unit[0]], st[unit[1]]):
        return "a pair of columns is not both empty or one bottom stone of each player"
    return None


def _full_board(fam: _Family) -> str | None:
    """Check 4: the full invariant board of the smallest width has an opponent's line below its top row (and,
    with a paired bottom row, above the bottom row, whose stones the pairs leave open)."""
    cert = fam.cert
    rows = cert.min_height - 1 if any(fam.allowed(H - 1) for H in range(cert.min_height, cert.min_height
                                                                         + 2 * fam.period + fam.prefix + 1)
                                      if fam.in_family(H)) else cert.min_height
    grid = {(x, y): fam.owner(y) for x in range(cert.min_width) for y in range(1 if fam.pairs else 0, rows)}
    for (x, y) in grid:
        for dx, dy in DIRECTIONS:
            if all(grid.get((x + j * dx, y + j * dy)) == fam.opp for j in range(fam.k)):
                return None
    return (f"a full board of width {cert.min_width} can have no line of the opponent: the game may end in a "
            "draw, so the invariant does not imply a win")


def _rows_of(responses: tuple[Response, ...], row: int) -> tuple[int, int] | str | None:
    """The reply ``responses`` give to a stone on ``row`` (the first that holds it), or None."""
    return next((r.offset for r in responses if r.holds(row)), None)


def _named_rule(fam: _Family, strategy: Any) -> str | None:
    """Why the certificate's declared rule is not the named ``strategy``'s on every board of the family, or None
    (see the module text: the family's four corners, and the rule that defines the name)."""
    cert = fam.cert
    for w in (cert.min_width, cert.min_width + cert.width_step):
        for h in (cert.min_height, cert.min_height + cert.height_step):
            game = Game(f"{w}x{h}k{cert.k}:{cert.flags}")
            if fam.me not in strategy.players(game):
                return (f"{strategy.name} does not play the {cert.player} player on {game}, a board of the family; "
                        f"it is for {strategy.where()}")
    defining = NAMED_RULES.get(strategy.name)
    if defining is None:
        return (f"no local rule defines {strategy.name} for an invariant certificate; the strategies one may name "
                f"are {', '.join(sorted(NAMED_RULES))}")
    responses, opening = defining(cert.k, cert.player)
    ends = [e for r in (*responses, *cert.responses) for e in (r.low, r.high) if e is not None]
    for row in range(max(ends) + 2):  # past every end of a range, each rule gives one reply on every row
        declared, named = _rows_of(cert.responses, row), _rows_of(responses, row)
        if declared != named:
            return (f"the certificate answers a stone on row {row + 1} with {declared!r}, but {strategy.name} "
                    f"answers it with {named!r}: the declared rule is not the named strategy's")
    if cert.opening != opening:
        return (f"{strategy.name} for the {cert.player} player {'opens' if opening else 'does not open'} on the "
                "rightmost bottom cell, and the certificate's rule "
                f"{'does' if cert.opening else 'does not'}: the declared rule is not the named strategy's")
    return None


def _take_even_rule(k: int, player: Player) -> tuple[tuple[Response, ...], bool]:
    cert = take_even_certificate(k)
    return cert.responses, cert.opening


def _delayed_take_even_rule(k: int, player: Player) -> tuple[tuple[Response, ...], bool]:
    cert = delayed_take_even_certificate(k, first=player == Player.FIRST)
    return cert.responses, cert.opening


#: the strategies an invariant certificate may name, each by the rule that defines it, ``(k, player) ->
#: (responses, opens)``: its reply to an opponent's stone on each row and whether it opens on the rightmost
#: bottom cell (the invariant itself is the proof's, and free)
NAMED_RULES: dict[str, Callable[[int, Player], tuple[tuple[Response, ...], bool]]] = {
    "delayed-take-even": _delayed_take_even_rule,
    "take-even": _take_even_rule,
}


def _small_boards(fam: _Family) -> tuple[int, str | None]:
    """Tie the named strategy to the declared rule: on every board of the family by the rule that defines the
    name (:func:`_named_rule`), and on the family's small boards by walking them with the plain rules (the
    declared replies win, and the named strategy plays them)."""
    from kinarow.strategies import StrategyError, get

    cert = fam.cert
    try:
        strategy = get(cert.strategy)
    except StrategyError as error:
        return 0, str(error)
    bad = _named_rule(fam, strategy)
    if bad:
        return 0, bad
    total = 0
    for w in (cert.min_width, cert.min_width + cert.width_step):
        for h in (cert.min_height, cert.min_height + cert.height_step):
            if w * h > SMALL_CELLS:
                continue
            game = Game(f"{w}x{h}k{cert.k}:{cert.flags}")
            seen: set[tuple[int, int]] = set()
            pos = game.start()
            if cert.opening:
                opening = game.geometry.cell(w - 1, 0)
                if strategy.move(pos) != opening:
                    return total, f"on {game}: {strategy.name} does not open on the rightmost bottom cell"
                pos.play(opening)
            bad = _walk(fam, strategy, pos, seen)
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
    m, n = pos.game.m, pos.game.n
    winner = "second" if fam.me == 2 else "first"
    for cell in pos.legal_moves():
        pos.play(cell)
        try:
            if pos.is_over:
                if pos.result != winner:
                    return f"the game ends in {pos.result} after {pos.move_text()}"
                continue
            x, y = geometry.xy(cell)
            offset = fam.response(y)
            reply = None
            if offset == PAIR:
                if y == 0 and (x ^ 1) < m:
                    reply = geometry.cell(x ^ 1, 0)
            elif offset is not None:
                tx, ty = x + offset[0], y + offset[1]
                if fam.cert.cylinder:
                    tx %= m
                if 0 <= tx < m and 0 <= ty < n:
                    reply = geometry.cell(tx, ty)
            named = strategy.move(pos)
            if reply is None or reply != named:
                return f"the declared reply and {strategy.name} differ after {pos.move_text()}"
            pos.play(reply)
            try:
                if pos.is_over:
                    if pos.result != winner:
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
