"""What a solve may spend and what it is asked to do, as values: :class:`Limits` and :class:`SolveOptions`
(the parallel solve's choices are :class:`kinarow.search.parallel.ParallelOptions`, made the same way).

Each is a frozen dataclass that checks its fields, and the rules between them, once, when it is made: a bad
value or a broken rule is one sentence (:class:`OptionError`, a :class:`~kinarow.errors.KinarowError`), and
every layer that takes the bundle relies on it instead of checking again. A rule that needs the game too (does
the proof search apply to it? may its walk share replies?) is the router's, in
:mod:`kinarow.search.solve`.

>>> from kinarow.search.options import Limits, SolveOptions
>>> Limits(max_nodes=10_000).time_limit is None
True
>>> SolveOptions(share=True)
Traceback (most recent call last):
...
kinarow.search.options.OptionError: share lets the loser's replies share subtrees in a walk written with the proof \
search's zones; give it with search='proof' and walk=True

A rule that the command line words in its own flags carries that sentence too
(:attr:`OptionError.command_line`), so ``kinarow solve`` says ``--share``
where the library says ``share``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, TypedDict

from kinarow.errors import KinarowError
from kinarow.limits import check_flag, check_knowledge, check_limits, check_search, check_threads

__all__ = ["Limits", "OptionError", "SolveKeywords", "SolveOptions", "folded"]


class OptionError(KinarowError):
    """A rule between options is broken: the sentence in the library's words, and in the command line's
    (:attr:`command_line`, the same sentence where the command line has no words of its own)."""

    def __init__(self, message: str, command_line: str | None = None) -> None:
        super().__init__(message)
        self.command_line = command_line or message


# The rules between options, each worded once (for the library, and for the command line where it differs).
SHARE_RULE = ("share lets the loser's replies share subtrees in a walk written with the proof search's zones; "
              "give it with search='proof' and walk=True",
              "--share writes a walk with the proof search's zones; give it with --search proof --walk")
PROOF_TABLE_RULE = ("proof_table names the file that keeps the proof search's table; give a file name and "
                    "search='proof'",
                    "--table keeps the proof search's table; give it with --search proof")
PROOF_SEARCH_RULE = ("search='proof' answers value questions, with a win's strategy read from its table; leave out "
                     "strong and searcher, or use search='auto'")


@dataclass(frozen=True)
class Limits:
    """The budgets of a solve: ``max_nodes`` (a whole number of nodes, up to 10**18), ``time_limit`` (seconds)
    and ``tt_mb`` (the transposition table's size in MiB; None: sized to the game). None is no limit.

    When a budget runs out the value is ``unknown``. A parallel solve's per-job budget (``max_job_seconds``) is
    one of its options (:class:`kinarow.search.parallel.ParallelOptions`).
    """

    max_nodes: int | None = None
    time_limit: float | None = None
    tt_mb: float | None = None

    def __post_init__(self) -> None:
        checked = check_limits(self.max_nodes, self.time_limit, self.tt_mb)
        for name, value in zip(("max_nodes", "time_limit", "tt_mb"), checked, strict=True):
            object.__setattr__(self, name, value)


@dataclass(frozen=True)
class SolveOptions:
    """What :func:`kinarow.search.solve.solve` is asked to do, besides the value; each field means what the
    keyword of the same name means there.

    ``knowledge`` (``none``, ``pairing``, ``matching``) and ``symmetry`` shape the search; ``search`` (``auto``,
    ``proof``, ``alpha-beta``) chooses it; ``strategy`` asks for a win's strategy, ``walk`` for it as a walk,
    ``share`` for that walk with shared replies, ``proof`` for the certificate of the value; ``strong`` for the
    move on which the game ends; ``threads`` for searches sharing one table (the Connect-k score kernel);
    ``proof_table`` names the file that keeps the proof search's table between runs.
    """

    knowledge: str = "matching"
    symmetry: bool = True
    search: str = "auto"
    strategy: bool = False
    walk: bool = False
    proof: bool = False
    strong: bool = False
    threads: int = 1
    proof_table: str | None = None
    share: bool = False

    def __post_init__(self) -> None:
        check_knowledge(self.knowledge)
        check_search(self.search)
        if self.proof_table is not None and (self.search != "proof" or not isinstance(self.proof_table, str)
                                             or not self.proof_table):
            raise OptionError(*PROOF_TABLE_RULE)
        if self.search == "proof" and self.strong:
            raise OptionError(PROOF_SEARCH_RULE)
        for name in ("symmetry", "strategy", "walk", "proof", "strong", "share"):
            object.__setattr__(self, name, check_flag(getattr(self, name), name))
        if self.share and (self.search != "proof" or not self.walk):
            raise OptionError(*SHARE_RULE)
        object.__setattr__(self, "threads", check_threads(self.threads))

    @property
    def wants_strategy(self) -> bool:
        """Is a win's strategy asked for (``strategy``, or ``proof``, whose certificate of a win it is)?"""
        return self.strategy or self.proof


class SolveKeywords(TypedDict, total=False):
    """The keywords of :func:`kinarow.search.solve.solve`'s compatibility form: each a field of :class:`Limits`
    or :class:`SolveOptions`."""

    max_nodes: int | None
    time_limit: float | None
    tt_mb: float | None
    knowledge: str
    symmetry: bool
    search: str
    strategy: bool
    walk: bool
    proof: bool
    strong: bool
    threads: int
    proof_table: str | None
    share: bool


LIMIT_FIELDS = ("max_nodes", "time_limit", "tt_mb")


def folded(name: str, takes: tuple[str, ...], keywords: dict[str, Any], limits: Limits | None, options: Any,
           kind: type[Any]) -> tuple[Limits, Any]:
    """The bundles of a solve called in the compatibility form: ``keywords`` (the old loose keywords of the
    function ``name``, whose own keywords are ``takes``) folded into ``limits`` and ``options`` (an instance of
    ``kind``, made when None). A keyword that is no field is refused in one sentence, as is a field given both
    loose and in a bundle."""
    names = tuple(f.name for f in fields(kind))
    unknown = sorted(set(keywords) - set(LIMIT_FIELDS) - set(names))
    if unknown:
        known = ", ".join((*takes, *LIMIT_FIELDS, *names))
        raise KinarowError(f"{name}() has no option {unknown[0]!r}; its options are {known}")
    budgets = {key: value for key, value in keywords.items() if key in LIMIT_FIELDS}
    choices = {key: value for key, value in keywords.items() if key not in LIMIT_FIELDS}
    for given, bundle, what in ((budgets, limits, "limits"), (choices, options, "options")):
        if given and bundle is not None:
            raise KinarowError(f"{name}() takes {next(iter(given))} either in {what} or as a keyword, not both")
    if limits is None:
        limits = Limits(**budgets)
    elif not isinstance(limits, Limits):
        raise KinarowError(f"limits must be a Limits, not a value of type {type(limits).__name__}")
    if options is None:
        options = kind(**choices)
    elif not isinstance(options, kind):
        raise KinarowError(f"options must be a {kind.__name__}, not a value of type {type(options).__name__}")
    return limits, options
