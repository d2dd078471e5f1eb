"""Game strings and the :class:`Game` value.

A game string is ``MxNkK[pPqQ][:flag,flag...]``:

* ``M`` columns, ``N`` rows, ``K`` in a row (each 1 to :data:`MAX_SIDE`; a ``K``
  longer than every line of the board is allowed: no group fits, so nobody can win);
* optional turn rule ``pPqQ`` -- the first player places ``Q`` stones on the
  first turn, after that each player places ``P`` stones per turn (Wu & Huang's
  (m, n, k, p, q); the default is p = q = 1; ``pP`` alone means q = P; each 1 to
  :data:`MAX_STONES`);
* numbers are ASCII digits (``0``-``9``): other Unicode digits are not numbers here;
* flags: ``gravity`` (Connect-k), ``misere`` (the first to own a group loses),
  ``maker-breaker`` (the first player, Maker, wins by owning a group, Breaker
  wins otherwise), ``exact`` (only a line of exactly K counts: a group whose
  line its owner extends past K -- an *overline* -- decides nothing, for either
  player; Go-Moku's "exactly five"), and the geometry: ``torus``, ``cylinder``, ``hex``.

>>> str(Game("7x6k4:misere,gravity"))
'7x6k4:gravity,misere'
>>> Game("6x6k4p2q1").p, Game("6x6k4p2q1").q
(2, 1)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from kinarow.errors import GameSpecError, shown
from kinarow.geometry import MAX_SIDE, Geometry
from kinarow.values import Goal

if TYPE_CHECKING:
    from kinarow.position import Position

#: Every flag in canonical order (the order ``str(game)`` writes them).
FLAGS: tuple[str, ...] = ("gravity", "misere", "maker-breaker", "exact", "torus", "cylinder", "hex")

#: Goals of the game (how a group decides it); the names stay as aliases of :class:`kinarow.values.Goal`.
NORMAL, MISERE, MAKER_BREAKER = Goal.NORMAL, Goal.MISERE, Goal.MAKER_BREAKER

_ALIASES = {"misère": "misere", "makerbreaker": "maker-breaker", "maker_breaker": "maker-breaker",
            "exactly": "exact", "exact-k": "exact", "exactly-k": "exact", "no-overline": "exact"}
_SIZE_RE = re.compile(r"([0-9]+)x([0-9]+)k([0-9]+)(?:p([0-9]+)(?:q([0-9]+))?)?", re.ASCII)
#: the most stones one turn may place (P and Q); no studied game comes near it
MAX_STONES = 702

#: why an argument that rests on "an extra stone never hurts its owner" does not hold under the exact rule
OVERLINE_HURTS = ("an extra stone can hurt its owner there (it may turn a line of K into an overline, which does "
                  "not win)")

ALLOWED = "MxNkK[pPqQ][:flag,...] with flags gravity, misere, maker-breaker, exact, torus, cylinder, hex"


def _number(digits: str, name: str, head: str, upper: int) -> int:
    """The value of a run of ASCII digits, refused unless it is 1 to ``upper``."""
    value = int(digits) if len(digits) <= 12 else None  # longer is out of range anyway; int() of 5000 digits fails
    if value is None or not 1 <= value <= upper:
        said = f"a {len(digits)}-digit number" if value is None else str(value)
        raise GameSpecError(f"{name} = {said} in {shown(head)} is out of range; allowed is 1 to {upper}")
    return value


def _parse(text: str) -> tuple[int, int, int, int, int, frozenset[str]]:
    if not isinstance(text, str):
        raise GameSpecError(f"a game must be given as a string like '7x6k4:gravity', not {type(text).__name__}")
    raw = text.strip()
    if not raw:
        raise GameSpecError(f"the game string is empty; expected {ALLOWED}")
    head, _, tail = raw.partition(":")
    head = head.strip()
    match = _SIZE_RE.fullmatch(head.lower()) if head.isascii() else None
    if match is None:
        digits = "; only ASCII is read there (the digits 0-9, the letters x, k, p, q)" if not head.isascii() else ""
        raise GameSpecError(
            f"{shown(head)} is not a board size; expected MxNkK with optional pPqQ, e.g. '7x6k4' or '6x6k4p2q1'"
            + digits
        )
    m = _number(match[1], "M (columns)", head, MAX_SIDE)
    n = _number(match[2], "N (rows)", head, MAX_SIDE)
    k = _number(match[3], "K (in a row)", head, MAX_SIDE)
    p = _number(match[4], "P (stones a turn)", head, MAX_STONES) if match[4] is not None else 1
    q = _number(match[5], "Q (stones of the first turn)", head, MAX_STONES) if match[5] is not None else (
        1 if match[4] is None else p)
    flags: set[str] = set()
    if ":" in raw:
        if not tail.strip():
            raise GameSpecError(f"nothing follows ':' in {shown(raw)}; allowed flags are {', '.join(FLAGS)}")
        for token in tail.split(","):
            word = token.strip()
            # only ASCII letters are lowered: 'maker-brea\u212aer' (a Kelvin sign) is not a flag
            flag = _ALIASES.get(word.lower(), word.lower() if word.isascii() else word)
            if flag not in FLAGS:
                raise GameSpecError(f"unknown flag {shown(token.strip())}; allowed flags are {', '.join(FLAGS)}")
            if flag in flags:
                raise GameSpecError(f"flag '{flag}' is given twice in {shown(raw)}")
            flags.add(flag)
    if {"misere", "maker-breaker"} <= flags:
        raise GameSpecError("flags 'misere' and 'maker-breaker' exclude each other; choose one goal")
    if {"torus", "cylinder"} <= flags:
        raise GameSpecError("flags 'torus' and 'cylinder' exclude each other; choose one topology")
    if {"torus", "gravity"} <= flags:
        raise GameSpecError("'gravity' needs a bottom row, so it cannot be combined with 'torus' (use 'cylinder')")
    return m, n, k, p, q, frozenset(flags)


@dataclass(frozen=True, init=False)
class Game:
    """An (m, n, k, p, q) game with its move rule, goal and geometry.

    ``Game("7x6k4:gravity")`` parses a game string (raising
    :class:`~kinarow.errors.GameSpecError` with one clear sentence on bad input);
    ``str(game)`` gives the canonical string back.
    """

    m: int
    n: int
    k: int
    p: int
    q: int
    flags: frozenset[str]

    def __init__(self, spec: str | Game) -> None:
        values = (spec.m, spec.n, spec.k, spec.p, spec.q, spec.flags) if isinstance(spec, Game) else _parse(spec)
        for name, value in zip(("m", "n", "k", "p", "q", "flags"), values, strict=True):
            object.__setattr__(self, name, value)

    # -- descriptive properties -------------------------------------------------
    @property
    def gravity(self) -> bool:
        return "gravity" in self.flags

    @property
    def goal(self) -> Goal:
        if "misere" in self.flags:
            return MISERE
        if "maker-breaker" in self.flags:
            return MAKER_BREAKER
        return NORMAL

    @property
    def exact(self) -> bool:
        """Does only a line of exactly K win (flag ``exact``)? A group then counts for its owner only while neither
        cell that extends its line (its *flanks*, :attr:`kinarow.geometry.Geometry.flanks`) is the owner's too."""
        return "exact" in self.flags

    @property
    def topology(self) -> str:
        """``rect``, ``torus`` or ``cylinder``."""
        if "torus" in self.flags:
            return "torus"
        if "cylinder" in self.flags:
            return "cylinder"
        return "rect"

    @property
    def hex(self) -> bool:
        return "hex" in self.flags

    @property
    def cells(self) -> int:
        return self.m * self.n

    @property
    def has_groups(self) -> bool:
        """Does a group (K distinct cells in a line) fit on the board at all?

        A line runs at most max(M, N) cells, except on a torus, where a diagonal
        wraps round until it meets itself after lcm(M, N) cells. Without a group
        nobody can win: the game is a draw (Breaker wins Maker-Breaker).
        """
        if self.k <= max(self.m, self.n):
            return True
        return self.topology == "torus" and self.k <= math.lcm(self.m, self.n)

    @property
    def no_group_reason(self) -> str | None:
        """Why nobody can own a group -- 'no line of 9 cells fits on this 3x3 board' -- or None when one fits."""
        if self.has_groups:
            return None
        where = "" if self.topology == "rect" else f" {self.topology}"
        return f"no line of {self.k} cells fits on this {self.m}x{self.n}{where} board"

    def __str__(self) -> str:
        text = f"{self.m}x{self.n}k{self.k}"
        if (self.p, self.q) != (1, 1):
            text += f"p{self.p}q{self.q}"
        if self.flags:
            text += ":" + ",".join(f for f in FLAGS if f in self.flags)
        return text

    def __repr__(self) -> str:
        return f"Game({str(self)!r})"

    # -- turn rule ----------------------------------------------------------------
    def turn_state(self, stones: int) -> tuple[int, int]:
        """Return ``(player, stones_left)`` after ``stones`` stones were placed.

        ``player`` is 1 for the first player (Black, Maker) and 2 for the second;
        ``stones_left`` is how many stones that player still places this turn.
        """
        if stones < self.q:
            return 1, self.q - stones
        u = stones - self.q
        turn, done = divmod(u, self.p)
        return (2 if turn % 2 == 0 else 1), self.p - done

    # -- linked objects ---------------------------------------------------------------
    @cached_property
    def geometry(self) -> Geometry:
        return Geometry(self)

    def start(self) -> Position:
        """The empty board with the first player to move."""
        from kinarow.position import Position

        return Position(self)

    def position(self, moves: str | list[str] | None = None) -> Position:
        """A position after ``moves`` (plain or paper notation)."""
        pos = self.start()
        if moves:
            pos.play_moves(moves)
        return pos
