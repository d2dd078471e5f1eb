"""The open (and recently settled) cases that ``kinarow settle`` runs, with what the literature says.

Each :class:`Case` names a game, the value the literature gives it (``draw``,
``first``, or ``open``) and where it says so; ``kinarow settle`` solves the
cases on every core or a cluster and compares its answer with ``literature``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kinarow.errors import KinarowError
from kinarow.values import Value


@dataclass(frozen=True)
class Case:
    """A long case to settle or measure: the game, what the literature says, and where it says it."""

    name: str
    game: str
    literature: Value | Literal["open"]
    source: str


CASES: tuple[Case, ...] = (
    Case("7x4k4", "7x4k4", Value.DRAW, "known draw in the literature"),
    Case("8x4k4", "8x4k4", Value.DRAW, "known draw in the literature"),
    Case(
        "9x4k4", "9x4k4", "open",
        "Tung & Lau conjectured a draw; a 2017 bachelor thesis (not peer reviewed) reports a first-player win",
    ),
    Case("10x4k4", "10x4k4", "open", "as 9x4k4: conjectured draw, unreviewed first-player win claim"),
    Case("7x7k5", "7x7k5", Value.DRAW, "Hsu et al. (Theoretical Computer Science, 2020): about 2.5 s"),
    Case("8x8k5", "8x8k5", Value.DRAW, "Hsu et al. (2020): about 17.4 hours"),
    Case("connect4", "7x6k4:gravity", Value.FIRST, "Allen; Allis (1988): first-player win"),
)


def case(name: str) -> Case:
    """The case called ``name``; one clear sentence if there is none."""
    for c in CASES:
        if c.name == name:
            return c
    raise KinarowError(f"there is no case called '{name}'; the cases are: {', '.join(c.name for c in CASES)}")
