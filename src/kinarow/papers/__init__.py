"""Reproductions of published figures: one named target per table or figure.

Each target names its paper and the figures it reproduces, and is run by
``kinarow reproduce NAME [--json]``. Targets are listed here as
``module:function`` strings so that ``kinarow reproduce --list`` imports no
search code. A target function takes no arguments (keyword options may be
added with defaults) and returns a :class:`Report`; one that takes
``workers`` runs its cells in that many processes (``--workers N``).

A report carries the JSON data, a text rendering for people, ``agrees``
(no difference found) and a :class:`Tally` of what was compared: how many
published figures were set against a computed one, how many agree, differ,
or stay open (not settled here), and how many of the printed figures are
given (taken from the paper or built to match it) rather than computed. A
disagreement is a finding, printed plainly, never hidden.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.values import Value


@dataclass(frozen=True)
class Tally:
    """What a report compared with the paper, in counts.

    ``compared`` = ``agree`` + ``differ``: published figures set against one we
    computed. ``open``: published figures we did not settle (nothing is claimed
    for them). ``given``: printed figures that are the paper's own or follow
    from a structure built to match them, so they cannot disagree. ``conflicts``:
    two of our own methods that contradict each other.
    """

    agree: int = 0
    differ: int = 0
    open: int = 0
    given: int = 0
    conflicts: int = 0

    @property
    def compared(self) -> int:
        return self.agree + self.differ

    def sentence(self) -> str:
        """One line for people: what was compared, in counts."""
        if self.compared == 0 and self.open == 0:
            text = "Nothing compared with the paper (it gives no figures for this)"
        else:
            noun = "figure" if self.compared == 1 else "figures"
            text = f"Compared with the paper: {self.compared:,} {noun}, {self.agree:,} agree, {self.differ:,} differ"
            if self.open:
                text += f", {self.open:,} open (not settled here)"
        if self.given:
            text += f"; {self.given:,} given (the paper's own or built to match it), not compared"
        if self.conflicts:
            text += f"; {self.conflicts:,} conflict{'s' if self.conflicts != 1 else ''} between our own methods"
        return text + "."

    def to_dict(self) -> dict[str, int]:
        return {"compared": self.compared, "agree": self.agree, "differ": self.differ, "open": self.open,
                "given": self.given, "conflicts": self.conflicts}


@dataclass(frozen=True)
class Report:
    """What a reproduction found: JSON-able ``data``, ``text`` for people, whether it ``agrees``, and its ``tally``."""

    name: str
    data: dict[str, Any]
    text: str
    agrees: bool
    differences: list[str] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.name, "agrees": self.agrees, "differences": self.differences,
                "tally": self.tally.to_dict(), **self.data}


@dataclass(frozen=True)
class Target:
    """One reproduction target: its name, the paper, what it reproduces, and where its code lives."""

    name: str
    paper: str
    figures: str
    function: str  # "module:function"

    def load(self) -> Callable[..., Report]:
        module_name, _, attr = self.function.partition(":")
        return getattr(importlib.import_module(module_name), attr)  # type: ignore[no-any-return]

    def takes(self, option: str) -> bool:
        """Does the target's function take the keyword ``option`` (e.g. ``workers``)?"""
        return option in inspect.signature(self.load()).parameters


# Keep one entry per line, sorted by name.
TARGETS: tuple[Target, ...] = (
    Target("connect4-table", "Tromp; Steininger's c4", "Connect Four outcome and last move, every board w + h <= 16",
           "kinarow.papers.connect4_table:reproduce"),
    Target("pairing-bounds", "Tung & Lau", "Thm 10; Prop 1 on the infinite board",
           "kinarow.papers.tung_lau:reproduce_bounds"),
    Target("pairing-constructions", "Tung & Lau", "pairing families k<=30",
           "kinarow.papers.tung_lau:reproduce_constructions"),
    Target("misere-cylinder", "Steele & Larremore", "open problem: cylinders",
           "kinarow.papers.steele_larremore:reproduce_cylinder"),
    Target("misere-solver", "Steele & Larremore", "the table, solver only",
           "kinarow.papers.steele_larremore:reproduce_solver"),
    Target("misere-table", "Steele & Larremore", "misere Connect-k table, k = 2-6",
           "kinarow.papers.steele_larremore:reproduce_table"),
    Target("set-matching-proofs", "Uiterwijk, Set Matching (ACG 2017)",
           "the 4x4 board, H-heptomino and Zetters block proofs", "kinarow.papers.uiterwijk:set_matching_proofs"),
    Target("set-matching-table", "Uiterwijk, Set Matching (ACG 2017)",
           "table of 12 configurations: nodes, main markers; markers..ratio given, with a census",
           "kinarow.papers.uiterwijk:set_matching_table"),
    Target("tilings", "Uiterwijk, Set Matching (S. 7)", "runs of 4 tilings",
           "kinarow.papers.uiterwijk:reproduce_tilings"),
    Target("torus-9", "Gyorffy, London & Makay 2017", "194,543 T8 pairing classes",
           "kinarow.papers.gyorffy_london_makay:reproduce_torus_9"),
    Target("torus-hex7", "Gyorffy, London & Makay 2017", "26 hex classes",
           "kinarow.papers.gyorffy_london_makay:reproduce_torus_hex7"),
)


def names() -> list[str]:
    """The names of every reproduction target, in order."""
    return [t.name for t in TARGETS]


def target(name: str) -> Target:
    """The target called ``name``; one clear sentence if there is none."""
    for t in TARGETS:
        if t.name == name:
            return t
    allowed = ", ".join(names()) or "(none yet)"
    raise KinarowError(f"there is no reproduction called '{name}'; the targets are: {allowed}")


def run(name: str, **options: Any) -> Report:
    """Run the target called ``name`` with ``options`` (keywords its function takes; one clear sentence for one
    it does not) and return its report."""
    function = target(name).load()
    takes = list(inspect.signature(function).parameters)
    unknown = sorted(set(options) - set(takes))
    if unknown:
        allowed = ", ".join(takes) or "none"
        raise KinarowError(f"the reproduction '{name}' takes no option {', '.join(map(repr, unknown))}; its options "
                           f"are: {allowed}")
    return function(**options)


# -- certificates shipped in certificates/, which a target reads as evidence ---------------------------------------
#: the claim of a certificate of the empty board, and the value it proves
CLAIMS = {"first wins": Value.FIRST, "second wins": Value.SECOND, "draw": Value.DRAW}


def shipped_data(folder: str, name: str) -> Any:
    """The JSON of the shipped certificate ``name`` in ``folder`` (a KinarowError, or a ValueError for a file
    that is not JSON, where it cannot be read)."""
    import json
    from pathlib import Path

    from kinarow.proofs import read_certificate

    return json.loads(read_certificate(Path(folder) / name))


def checked_shipped(folder: str, name: str, game: Game) -> tuple[Value | None, str]:
    """The value that the certificate ``name`` in ``folder`` proves for the empty board of ``game``, with what
    the checker said; or (None, why not): its file is missing or unreadable, it is for another game or position,
    it claims neither a win nor a draw, or the checker (the compiled walk) rejects it."""
    from kinarow.proofs import check_data

    try:
        data = shipped_data(folder, name)
    except KinarowError as error:
        return None, f"the shipped certificate cannot be read: {error}"
    except ValueError:
        return None, f"the shipped certificate {name} is not JSON"
    if not isinstance(data, dict) or data.get("game") != str(game) or data.get("moves") != []:
        return None, f"the shipped certificate {name} is not for the empty board of {game}"
    value = CLAIMS.get(str(data.get("claim")))
    if value is None:
        return None, f"the shipped certificate {name} claims neither a win nor a draw"
    verdict = check_data(data, compiled=True)  # the checker also holds the certificate to its claim
    if not verdict.ok:
        return None, f"the shipped certificate {name} is rejected: {verdict.reason}"
    return value, verdict.reason
