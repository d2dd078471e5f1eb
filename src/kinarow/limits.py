"""The budgets and choices every search takes, checked: each argument check is one sentence on bad input.

The rules-level home of the validators (they import only the rules), so that the searches, the knowledge
(pairings, matching sets), the strategies' checker and the command line check their arguments the same way
without importing the search: node counts (:func:`check_count`, up to :data:`MAX_NODES`), seconds, table sizes
in MiB (:func:`check_tt_mb`, up to :data:`MAX_TT_MB`; :func:`default_tt_mb` when none is given), flags, the
knowledge level and the search asked for, threads (:data:`MAX_THREADS`) and worker processes
(:data:`MAX_WORKERS`), and :func:`said`, how an error message shows the value it refuses.

>>> check_count(10, "max_nodes")
10
>>> check_count(0, "max_nodes")
Traceback (most recent call last):
    ...
kinarow.errors.KinarowError: max_nodes must be a positive whole number, not 0
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from kinarow.errors import KinarowError, shown

if TYPE_CHECKING:
    from kinarow.game import Game

#: the knowledge levels a search may use (``knowledge=``), from none to the most, and the default one
KNOWLEDGE_LEVELS = ("none", "pairing", "matching")
DEFAULT_KNOWLEDGE = "matching"
#: the transposition table of a large board when none is given (:func:`default_tt_mb`), and the largest allowed
DEFAULT_TT_MB = 256
MAX_TT_MB = 16384
#: the largest node budget: the kernel counts nodes in 64-bit integers
MAX_NODES = 10**18


# -- argument checks (solve, Searcher and the parallel solve) -----------------------------
def check_count(value: object, name: str, *, upper: int = MAX_NODES) -> int | None:
    """``value`` as a whole number from 1 to ``upper`` (None stays None); a KinarowError in one sentence otherwise.

    ``True`` and ``1.5`` are not counts, nor is the text ``"10"``.
    """
    if value is None:
        return None
    number = int(value) if isinstance(value, numbers.Integral) and not isinstance(value, bool) else 0
    if number < 1:
        raise KinarowError(f"{name} must be a positive whole number, not {said(value)}")
    if number > upper:
        most = "10**18 (counts are kept in 64 bits)" if upper == MAX_NODES else f"{upper:,}"
        raise KinarowError(f"{name} = {said(number)} is too large; the most allowed is {most}")
    return number


def check_seconds(value: object, name: str) -> float | None:
    """``value`` as a positive, finite number of seconds (None stays None); a KinarowError otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise KinarowError(f"{name} must be a positive number of seconds, not {said(value)}")
    seconds = _real(value)
    if not (seconds > 0 and math.isfinite(seconds)):
        raise KinarowError(f"{name} = {said(value)} is not allowed; give a positive, finite number of seconds")
    return seconds


def check_tt_mb(value: object, name: str = "tt_mb") -> float | None:
    """A transposition table size in MiB, in (0, MAX_TT_MB] (None stays None); a KinarowError otherwise."""
    if value is None:
        return None
    size = _real(value)
    if not 0 < size <= MAX_TT_MB:
        raise KinarowError(f"{name} = {said(value)} is not a table size; allowed is more than 0 up to {MAX_TT_MB} MiB")
    return size


def _real(value: object) -> float:
    """``value`` as a float (an int of a thousand digits is infinite); NaN when it is no real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return math.nan
    try:
        return float(value)
    except OverflowError:
        return math.inf


def check_flag(value: object, name: str) -> bool:
    """``value`` as a bool; ``"no"`` or ``1`` is a KinarowError, not quietly true."""
    if not isinstance(value, (bool, np.bool_)):
        raise KinarowError(f"{name} must be True or False, not {said(value)}")
    return bool(value)


def check_knowledge(value: object) -> str:
    """A knowledge level (``none``, ``pairing`` or ``matching``); a KinarowError otherwise."""
    if not isinstance(value, str) or value not in KNOWLEDGE_LEVELS:
        allowed = ", ".join(KNOWLEDGE_LEVELS)
        raise KinarowError(f"the knowledge level {said(value)} is unknown; allowed are {allowed}")
    return value



#: the searches :func:`kinarow.search.solve.solve` may be told to use (``search=``): ``auto`` takes the proof search
#: where it applies
SEARCHES = ("auto", "proof", "alpha-beta")
#: ``search="auto"`` takes the proof search on boards of at least this many cells: on smaller ones alpha-beta
#: answers first (solve(), a fresh table each; 7x6k5: 43,941 in 0.073 s against 616 in 0.008 s; 7x7k5:
#: alpha-beta not done in 900 s, the proof search 0.93 s). At 36 cells both sides of the line: 6x6k4 0.14 s
#: by alpha-beta against 0.43 s by the proof search, 9x4k4 not done in 600 s by alpha-beta against 39 s
PROOF_SEARCH_CELLS = 36


def check_search(value: object) -> str:
    """A search choice (``auto``, ``proof`` or ``alpha-beta``); a KinarowError otherwise."""
    if not isinstance(value, str) or value not in SEARCHES:
        raise KinarowError(f"the search {said(value)} is unknown; allowed are {', '.join(SEARCHES)}")
    return value


#: the most threads one search may run (:func:`kinarow.search.solve.solve`'s ``threads``)
MAX_THREADS = 64


def engine_threads() -> int:
    """The threads an engine searches with by default (``kinarow play``, the web page): two where the machine
    has two cores or more (the Connect-k score search then answers the slowest 7x6 positions in about 0.7 s
    instead of 1.1-1.8 s), else one."""
    return min(2, os.cpu_count() or 1)


def check_threads(threads: object) -> int:
    """``threads`` as an int from 1 to :data:`MAX_THREADS`, or a KinarowError saying what is allowed."""
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or not 1 <= int(threads) <= MAX_THREADS:
        raise KinarowError(f"threads must be a whole number from 1 to {MAX_THREADS}, not {said(threads)}")
    return int(threads)


def ticks_after(on_tick: Callable[[int], None] | None, done: int) -> Callable[[int], None] | None:
    """``on_tick`` for one more search after ``done`` nodes: it hears the running total (None stays None)."""
    if on_tick is None:
        return None
    tick = on_tick
    return lambda nodes: tick(done + nodes)


def check_limits(max_nodes: object, time_limit: object, tt_mb: object) -> tuple[int | None, float | None, float | None]:
    """The budgets every solve takes: ``max_nodes``, ``time_limit`` (seconds) and ``tt_mb``, checked."""
    return check_count(max_nodes, "max_nodes"), check_seconds(time_limit, "time_limit"), check_tt_mb(tt_mb)


def said(value: object) -> str:
    """A value as an error message shows it: short, and with its type when that is the trouble."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, int) and value.bit_length() > 100:
        return f"a {len(str(value)) if value.bit_length() < 10_000 else 'very large'}-digit number"
    text = repr(value)
    return text if len(text) <= 40 and not callable(value) else f"a value of type {type(value).__name__}"


def default_tt_mb(game: Game) -> float:
    """Transposition-table size for a game when none is given: small boards get small tables.

    A table's pages are touched at random, so an oversized table costs page
    faults on small problems; big boards get :data:`DEFAULT_TT_MB`.
    """
    if game.cells <= 16:
        return 4
    if game.cells <= 30:
        return 16
    if game.cells <= 42:
        return 64
    return DEFAULT_TT_MB


#: the most worker processes a pool (or the parallel solve) starts: a process pool may start them all at once
MAX_WORKERS = 1024


def check_workers(workers: Any) -> int:
    """``workers`` as a whole number from 1 to :data:`MAX_WORKERS`; one clear sentence otherwise."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise KinarowError(f"workers must be a positive whole number, not {str(workers)[:40]!r}")
    if workers > MAX_WORKERS:
        raise KinarowError(f"workers = {workers} is too many; the most allowed is {MAX_WORKERS:,} processes")
    return workers
