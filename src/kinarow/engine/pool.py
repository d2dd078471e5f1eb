"""Independent cells of a long table on a local pool of processes (``--workers N``).

A table (the misère tables, the pairing existence table) is a list of cells
settled one at a time. A cell may use what earlier cells found (a verification
that ran out of budget on a smaller board is not tried on a larger one; a
sub-board with no good pairing settles the board), so each cell names the cells
it must wait for (``after``). :func:`run_cells` then:

* with ``workers=1`` runs the cells in list order in this process, exactly as
  a plain loop would;
* with ``workers=N`` hands a cell to one of N worker processes as soon as every
  cell it waits for is finished, earliest in the list first. What a cell is
  given (``prepare``) is computed in this process at that moment, from the
  cells finished so far, so it is the same as in the sequential run, and so is
  its result.

The caller's ``finish`` is called in this process as each cell finishes (in
the order they finish: save it, count it for a progress bar); the caller puts
the results back in list order.

Ctrl-C is this process's business: workers ignore it; on Ctrl-C (or any
error) the cells not started are dropped, the running workers are terminated
and the interrupt goes on to the caller -- cells already passed to ``finish``
are kept. A worker also ends when this process ends any other way (``kill -9``,
the out-of-memory killer): see :func:`die_with_parent`, which every worker
process kinarow starts calls first. Workers start with the ``spawn`` method (no copy of this process's
threads, such as a progress bar's), so ``work`` must be a module-level function
and its argument and result must pickle.

(:mod:`kinarow.search.parallel` has its own pool for frontier jobs: those jobs are
told to stop through shared flags; a table cell runs to its end or is
terminated.)
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import ctypes
import ctypes.util
import multiprocessing as mp
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from kinarow.errors import KinarowError, raise_if_interrupted
from kinarow.limits import check_workers

__all__ = ["die_with_parent", "run_cells"]

A = TypeVar("A")
R = TypeVar("R")

#: Linux's prctl option that has the kernel signal a process when the thread that started it ends
PR_SET_PDEATHSIG = 1
#: Seconds between two looks of a worker's watch for its parent (the fallback where prctl is missing)
PARENT_POLL_SECONDS = 1.0
#: Seconds an orphaned worker is given to act on SIGTERM (a draw-proof walk saves its memory) before it exits
ORPHAN_GRACE_SECONDS = 20.0


def _death_signal(signum: int) -> bool:
    """Ask Linux to send ``signum`` to this process when its parent ends; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        return bool(libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int, on_orphan: Callable[[], None], poll: float = PARENT_POLL_SECONDS) -> None:
    """Call ``on_orphan`` once this process's parent is no longer ``parent`` (it ended: the process was
    handed to another); look every ``poll`` seconds."""
    while os.getppid() == parent:
        time.sleep(poll)
    on_orphan()


def _end_orphan() -> None:
    """This worker's parent is gone: SIGTERM to itself (what a stop by the coordinator sends; a draw-proof walk
    saves its memory on it), then, should it still run after :data:`ORPHAN_GRACE_SECONDS`, exit at once."""
    with contextlib.suppress(OSError):
        os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(ORPHAN_GRACE_SECONDS)
    os._exit(1)


def die_with_parent(parent: int) -> None:
    """Have this worker process end when ``parent``, the process that started it, ends, however it ends.

    Called first by every worker kinarow starts (pool initializers): a coordinator killed with ``kill -9`` or
    by the out-of-memory killer runs no clean-up, and its workers would go on searching, each with its table,
    for good. On Linux the kernel sends the worker SIGTERM when its parent ends
    (``prctl(PR_SET_PDEATHSIG)``); the parent is checked right after, in case it ended before the call. On
    every system a thread of the worker also watches its parent's pid (:func:`os.getppid`) once a second: it
    sends the same SIGTERM where prctl is missing, and ends a worker that is still there
    :data:`ORPHAN_GRACE_SECONDS` after its parent ended.

    (Linux sends the signal when the *thread* that started the worker ends; kinarow's pools start their
    workers from the thread that made the pool, which outlives it.)
    """
    _death_signal(signal.SIGTERM)
    if os.getppid() != parent:  # the parent ended before the kernel was asked
        _end_orphan()
    threading.Thread(target=_watch_parent, args=(parent, _end_orphan), name="kinarow-parent-watch",
                     daemon=True).start()


def _start_worker(parent: int) -> None:
    """Pool initializer: the worker ends with ``parent``; Ctrl-C reaches every process of the terminal, and
    only the coordinator acts on it."""
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _end_workers(before: set[Any], seconds: float = 5.0) -> None:
    """End the worker processes started since ``before`` (this pool's): terminate, then kill what still runs.

    Exits are awaited on the processes' sentinels, which become ready when a
    process ends whichever thread reaps it (the pool's manager thread joins
    the same processes).
    """
    processes = set(mp.active_children()) - before
    for process in processes:
        process.terminate()
    pending: dict[Any, Any] = {process.sentinel: process for process in processes}
    deadline = time.monotonic() + seconds
    while pending and time.monotonic() < deadline:
        for ready in mp.connection.wait(list(pending), timeout=max(0.0, deadline - time.monotonic())):
            pending.pop(ready).join(0)
    for process in pending.values():
        process.kill()
        process.join(1)


def run_cells(
    work: Callable[[A], R],
    count: int,
    prepare: Callable[[int], A],
    finish: Callable[[int, R], None],
    *,
    after: Callable[[int], Iterable[int]] | None = None,
    workers: int = 1,
) -> None:
    """Run ``work(prepare(i))`` for cells ``i = 0 .. count-1`` and pass each result to ``finish(i, result)``.

    ``after(i)`` names the cells (all before ``i``) that must be finished
    before ``prepare(i)`` is called; by default none.
    """
    workers = check_workers(workers)
    if workers == 1 or count <= 1:
        for i in range(count):
            raise_if_interrupted()
            finish(i, work(prepare(i)))
        return
    waits = [set(after(i)) if after is not None else set() for i in range(count)]
    for i, w in enumerate(waits):
        if any(not 0 <= j < i for j in w):
            raise ValueError(f"cell {i} may only wait for earlier cells, not {sorted(w)}")
    waiting_on: dict[int, list[int]] = {}  # cell -> the cells waiting for it
    for i, w in enumerate(waits):
        for j in w:
            waiting_on.setdefault(j, []).append(i)
    ready = [i for i in range(count) if not waits[i]]  # kept sorted: earliest first
    running: dict[cf.Future[R], int] = {}
    before = set(mp.active_children())
    threads_before = set(threading.enumerate())
    pool = cf.ProcessPoolExecutor(
        max_workers=min(workers, count), mp_context=mp.get_context("spawn"), initializer=_start_worker,
        initargs=(os.getpid(),)
    )
    try:
        while ready or running:
            while ready and len(running) < workers:
                i = ready.pop(0)
                running[pool.submit(work, prepare(i))] = i
            finished, _ = cf.wait(list(running), return_when=cf.FIRST_COMPLETED)
            for future in sorted(finished, key=running.__getitem__):
                i = running.pop(future)
                try:
                    result = future.result()
                except cf.process.BrokenProcessPool as error:
                    raise KinarowError(f"a worker process died ({error}); the table cannot go on") from None
                finish(i, result)
                for j in waiting_on.pop(i, []):
                    waits[j].discard(i)
                    if not waits[j]:
                        ready.append(j)
                ready.sort()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        _end_workers(before)
        pool.shutdown(wait=True)  # the pool's manager thread ends; it may have started a worker meanwhile
        _end_workers(before)
        # The first shutdown let go of the pool's manager thread unjoined; should it still be closing its pipes
        # at exit, Python 3.11's exit hook writes to one of them and prints a traceback after "Interrupted".
        for thread in set(threading.enumerate()) - threads_before:
            thread.join(5)
        raise
    pool.shutdown(wait=True)
