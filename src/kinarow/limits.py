"""The budgets and choices every search takes, checked: each argument check is one sentence on bad input.

The rules-level home of the validators (they import only the rules), so that the searches, the knowledge
(pairings, matching sets), the strategies' checker and the command line check their arguments the same way
without importing the search: node counts (:func:`check_count`, up to :data:`MAX_NODES`), seconds, table sizes
in MiB (:func:`check_tt_mb`, up to :data:`MAX_TT_MB`; :func:`default_tt_mb` when none is given), flags, the
knowledge level and the search asked for, threads (:data:`MAX_THREADS`) and worker processes
(:data:`MAX_WORKERS`, a few a core), their tables against the machine's memory (:func:`check_memory`; a default
is fitted by :func:`fitting_tt_mb`), and :func:`said`, how an error message shows the value it refuses.

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


#: local worker processes a core at most: more only share the cores (every job searches at full speed on one), and
#: 1,024 workers each with its table was accepted once. A Dask cluster's workers are not counted here.
WORKERS_PER_CORE = 4


def cores() -> int:
    """The machine's cores, as the default of ``--workers`` counts them (:func:`os.cpu_count`)."""
    return os.cpu_count() or 1


def default_threads() -> int:
    """The threads a one-process search runs on when none are asked for (``kinarow solve`` on a Connect-k game,
    ``kinarow book``): every core (:func:`cores`, at most :data:`MAX_THREADS`), as the field's fastest Connect Four
    solver does. ``--threads 1`` searches in one thread, with node counts that repeat from run to run; the library's
    :func:`kinarow.solve` searches in one thread unless given ``threads``."""
    return max(1, min(cores(), MAX_THREADS))


#: the most local worker processes a pool (or the parallel solve) starts: :data:`WORKERS_PER_CORE` a core of this
#: machine (8 on 2 cores; 4 on one, so two workers run on any machine); the default, one a core, always fits
MAX_WORKERS = WORKERS_PER_CORE * cores()


def check_workers(workers: Any, name: str = "workers") -> int:
    """``workers`` as a whole number from 1 to :data:`MAX_WORKERS`; one clear sentence otherwise."""
    number = int(workers) if isinstance(workers, numbers.Integral) and not isinstance(workers, bool) else 0
    if number < 1:
        raise KinarowError(f"{name} must be a positive whole number, not {said(workers)}")
    if number > MAX_WORKERS:
        count = cores()
        raise KinarowError(f"{name} = {said(number)} is too many local processes for this machine's {count:,} "
                           f"core{'s' if count != 1 else ''}; the most allowed is {MAX_WORKERS:,} "
                           f"({WORKERS_PER_CORE} a core)")
    return number


# -- memory: workers x tables ---------------------------------------------------------------
#: what a local worker process holds besides its table, in MiB: Python, numpy, numba's compiled kernels and a job's
#: walk (140 to 450 MB measured on the draw-proof walk and the frontier jobs), rounded up
WORKER_OVERHEAD_MB = 512
#: the smallest table a default is cut down to where the machine's memory is short (:func:`fitting_tt_mb`)
SMALLEST_DEFAULT_TT_MB = 64.0
#: the share of the available memory that a default is fitted into (the rest: the coordinator, and a margin
#: for what other programs take meanwhile)
DEFAULT_SHARE = 0.75


def available_memory_mb() -> float | None:
    """The memory this machine can give new processes now, in MiB; None when it cannot be told.

    On Linux ``MemAvailable`` of ``/proc/meminfo``: the kernel's estimate of what can be allocated without
    swapping (free memory and the page cache it can drop, less what other programs hold), so a machine busy
    with another search has less than its size. Elsewhere the physical memory
    (``os.sysconf("SC_PHYS_PAGES")``), which counts no other program.
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    except (ValueError, OSError, AttributeError):
        return None


def memory_needed_mb(workers: int, tt_mb: float) -> float:
    """What ``workers`` local processes with a table of ``tt_mb`` MiB each hold at most, in MiB."""
    return workers * (tt_mb + WORKER_OVERHEAD_MB)


def check_memory(workers: int, tt_mb: float, name: str = "tt_mb") -> None:
    """Refuse, in one sentence, ``workers`` local processes with a table of ``tt_mb`` MiB each when together
    (with :data:`WORKER_OVERHEAD_MB` a worker) they need more than :func:`available_memory_mb`.

    Each worker fills its own table as it searches, so such a run ends swapping or killed, after a while. Call it
    where the workers or the table were chosen by the user; a default is fitted instead (:func:`fitting_tt_mb`).
    """
    available = available_memory_mb()
    need = memory_needed_mb(workers, tt_mb)
    if available is None or need <= available:
        return
    table = available / workers - WORKER_OVERHEAD_MB
    if workers == 1:  # one process (its threads share the one table)
        allowed = f"a table of at most {table:,.0f} MiB fits" if table >= 1 else "no table fits"
        raise KinarowError(f"a table of {tt_mb:,.0f} MiB ({name}) needs about {need:,.0f} MiB with the search "
                           f"({WORKER_OVERHEAD_MB} MiB besides the table), more than the {available:,.0f} MiB this "
                           f"machine has available; {allowed}")
    many = f"{workers:,} workers"
    allowed = (f"with {many} a table of at most {table:,.0f} MiB fits" if table >= 1
               else f"{many} fit with no table")
    fewer = int(available // (tt_mb + WORKER_OVERHEAD_MB))
    also = f", or up to {fewer:,} worker{'s' if fewer != 1 else ''} with this table" if 1 <= fewer < workers else ""
    raise KinarowError(f"{many} with a table of {tt_mb:,.0f} MiB each ({name}) need about {need:,.0f} MiB "
                       f"({WORKER_OVERHEAD_MB} MiB a worker besides its table), more than the {available:,.0f} MiB "
                       f"this machine has available; {allowed}{also}")


def fitting_tt_mb(workers: int, tt_mb: float) -> float:
    """A default table of ``tt_mb`` MiB a worker, cut down (to a power of two, at least
    :data:`SMALLEST_DEFAULT_TT_MB`) where ``workers`` of them would take more than :data:`DEFAULT_SHARE` of the
    available memory: a default is never refused, and a smaller table costs time, not correctness."""
    available = available_memory_mb()
    if available is None or memory_needed_mb(workers, tt_mb) <= DEFAULT_SHARE * available:
        return tt_mb
    room = DEFAULT_SHARE * available / workers - WORKER_OVERHEAD_MB
    size = SMALLEST_DEFAULT_TT_MB
    while size * 2 <= min(room, tt_mb):
        size *= 2
    return size
