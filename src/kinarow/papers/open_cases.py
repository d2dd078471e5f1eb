"""The open (and recently settled) cases that ``kinarow settle`` runs, with what the literature says.

Each :class:`Case` names a game, the value the literature gives it (``draw``,
``first``, or ``open``) and where it says so; ``kinarow settle`` solves the
cases on every core or a cluster and compares its answer with ``literature``.

:data:`FOUR_HIGH` is the whole (m,4,4) family (four in a row on boards four
rows high) for the widths 1 to 30: each width's value and how it is known,
from the literature or a certificate shipped in ``certificates/``
(``kinarow settle --list`` prints it; ``tests/test_open_cases.py`` checks each
row against its certificate or a search).
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


#: what Winning Ways (Berlekamp, Conway & Guy, 1982, vol. 2, ch. 22) reports of Lustenberger's result, in the
#: words of the rec.puzzles summary of that chapter: four in a row is not a draw on a 4 x 30 board
LUSTENBERGER = ("Lustenberger (1967), as reported by Winning Ways (Berlekamp, Conway & Guy, 1982, vol. 2, ch. 22): "
                "four in a row is not a draw on a 4 x 30 board, so a first-player win (strategy stealing)")


@dataclass(frozen=True)
class Width:
    """One width of the (m,4,4) family: ``value`` (``open`` when nobody has settled it) and how it is known;
    ``certificate`` names the file in ``certificates/`` that proves it, where kinarow ships one."""

    m: int
    value: Value | Literal["open"]
    how: str
    certificate: str | None = None

    @property
    def game(self) -> str:
        return f"{self.m}x4k4"


def _four_high() -> tuple[Width, ...]:
    rows = []
    for m in range(1, 31):
        name = f"{m}x4k4"
        if m < 4:
            rows.append(Width(m, Value.DRAW, "narrower than the line: only the columns are groups, and the second "
                              "player answers in the same column; kinarow's matching sets", f"{name}.matching.json.gz"))
        elif m == 4:
            rows.append(Width(m, Value.DRAW, "Tung & Lau, by exhaustion; Uiterwijk, by set matching without search; "
                              "kinarow's matching sets", f"{name}.matching.json.gz"))
        elif m <= 8:
            rows.append(Width(m, Value.DRAW, "a classical draw; kinarow's draw proof", f"{name}.draw.json.gz"))
        elif m in SETTLED_FOUR_HIGH:
            kind = "parts" if m in PARTS_FOUR_HIGH else "strategy"
            rows.append(Width(m, Value.FIRST, SETTLED_FOUR_HIGH[m], f"{name}.{kind}.json.gz"))
        elif m == 30:
            rows.append(Width(m, Value.FIRST, LUSTENBERGER))
        elif m <= 16:
            rows.append(Width(m, "open", "open: not yet settled (one-word boards; the proof search applies, "
                              "resumable with --table)"))
        elif m in SEARCHED_FOUR_HIGH:
            rows.append(Width(m, "open", SEARCHED_FOUR_HIGH[m]))
        else:
            rows.append(Width(m, "open", f"open: not yet run ({4 * m} cells, a two-word board: the proof search and "
                              "both checkers take it); the literature gives only the 4 x 30 board"))
    return tuple(rows)


#: the widths kinarow settled (above 8), each by the strategy certificate in ``certificates/``: how it was found
SETTLED_FOUR_HIGH: dict[int, str] = {
    9: "kinarow's strategy certificate (Tung & Lau conjectured a draw; an unreviewed 2017 thesis reports this win)",
    10: "kinarow's strategy certificate (open in the literature, as 9)",
    11: "kinarow's strategy certificate, read from the proof search's table (open in the literature)",
    12: "kinarow's strategy certificate, read from the proof search's table (open in the literature)",
    13: "kinarow's strategy certificate, read from the proof search's table (open in the literature)",
    14: "kinarow's strategy certificate, read from the proof search's table (open in the literature)",
    15: "kinarow's strategy certificate, read from the proof search's table (open in the literature)",
    16: "kinarow's strategy certificate, one walk with shared replies a reply, from the job run guided by "
        "(19,4,4)'s checkpoint, kept in checkpoints/16x4k4-e2.sqlite (1. e2; open in the literature; the proof "
        "search's first proof tree, 16x4k4.strategy.json.gz, is kept too)",
    17: "kinarow's strategy certificate, one walk with shared replies a reply, from the job run guided by "
        "(20,4,4)'s checkpoint, kept in checkpoints/17x4k4-f2.sqlite (1. f2; open in the literature; 68 cells, the "
        "first two-word width; the proof search's first proof tree, 17x4k4.strategy.json.gz, is kept too)",
    18: "kinarow's strategy certificate, a walk with shared replies written from the proof search's kept table "
        "(1. e1; open in the literature)",
    19: "kinarow's strategy certificate, a walk with shared replies merged from the job run kept in "
        "checkpoints/19x4k4-e2.sqlite (1. e2; open in the literature)",
    20: "kinarow's strategy certificate, a walk with shared replies merged from the job run kept in "
        "checkpoints/20x4k4-f2.sqlite (1. f2; open in the literature)",
    21: "kinarow's strategy certificate, a walk with shared replies merged from the job run kept in "
        "checkpoints/21x4k4-e1.sqlite (1. e1; open in the literature)",
    22: "kinarow's strategy certificate, a walk with shared replies merged from the job run kept in "
        "checkpoints/22x4k4-e2.sqlite (1. e2; open in the literature)",
    23: "kinarow's strategy certificate, a walk with shared replies merged from the job run kept in "
        "checkpoints/23x4k4-f2.sqlite (1. f2; open in the literature)",
    24: "kinarow's strategy certificate, a walk with shared replies merged from the job run guided by (21,4,4)'s "
        "checkpoint, kept in checkpoints/24x4k4-e1.sqlite (1. e1; open in the literature)",
    25: "kinarow's strategy certificate, a walk with shared replies merged from the job run guided by (22,4,4)'s "
        "checkpoint, kept in checkpoints/25x4k4-e2.sqlite (1. e2; open in the literature)",
}

#: the widths from 26 on, each settled by a job run after its first move guided by the checkpoint of the width three
#: columns narrower: width -> first move
GUIDED_PARTS: dict[int, str] = {26: "f2", 27: "e1", 28: "e2", 29: "f2"}
SETTLED_FOUR_HIGH.update({
    m: "kinarow's strategy certificate, one walk with shared replies a reply, from the job run guided by "
       f"({m - 3},4,4)'s checkpoint, kept in checkpoints/{m}x4k4-{first}.sqlite (1. {first}; open in the literature)"
    for m, first in GUIDED_PARTS.items()})

#: the settled widths whose certificate is one strategy a reply (``kinarow.strategy-parts``, written from the job
#: run's checkpoint by ``kinarow parts`` in seconds) rather than the replies' walks merged into one
PARTS_FOUR_HIGH: frozenset[int] = frozenset({16, 17, *GUIDED_PARTS})

#: widths the proof search is being asked (or has answered without a certificate yet): what stands, not a result
SEARCHED_FOUR_HIGH: dict[int, str] = {
}

#: the (m,4,4) family, widths 1 to 30 (see the module docstring)
FOUR_HIGH: tuple[Width, ...] = _four_high()


def case(name: str) -> Case:
    """The case called ``name``; one clear sentence if there is none."""
    for c in CASES:
        if c.name == name:
            return c
    raise KinarowError(f"there is no case called '{name}'; the cases are: {', '.join(c.name for c in CASES)}")
