"""One safe way to run python-sat so that Ctrl-C can stop it.

On the main thread, python-sat catches SIGINT during a solve (and while it
builds a cardinality encoding) by jumping out of the C++ code with
``longjmp`` from the signal handler. When the signal lands while CaDiCaL is
inside ``malloc`` or ``free``, the C heap is left half-updated: deleting the
solver afterwards hangs on the heap's lock or aborts the process. When the
signal is delivered to another thread of the process, the jump crosses
threads and the process dies by SIGSEGV. All of these were seen on a
Ctrl-C'd ``kinarow pairing-table``, with nothing printed and nothing saved.

On any other thread python-sat installs no handler. So kinarow makes every
python-sat call on a short-lived helper thread (``call``). The main thread
waits with Ctrl-C and SIGTERM held, whichever thread the kernel hands them
to; once the call has returned, a held signal goes to the handler that was in
place, and the usual KeyboardInterrupt follows, with the solver in a state it
can be deleted in. python-sat keeps the interpreter lock during a call, so
``solve`` gives the solver its conflict budget in slices: Ctrl-C is obeyed at
the end of the current slice (under a second on the formulas kinarow builds).

A slice restarts the solver's outer loop but keeps its learnt clauses.
Satisfiable or not is the same answer in slices; only the search path, and so
which model is found and how long it takes, may differ.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from kinarow.errors import raise_if_interrupted

#: Conflicts given to the solver between two chances to obey Ctrl-C.
SLICE_CONFLICTS = 50_000

_T = TypeVar("_T")
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def call(function: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """``function(*args, **kwargs)`` run on a helper thread, where python-sat sets no signal handler.

    On the main thread, Ctrl-C or SIGTERM that arrives meanwhile is held until the call has
    returned, then handed to the handler that was in place (which raises KeyboardInterrupt).
    Holding it also means the caller cannot be interrupted while the helper still uses the
    solver: a solver deleted in the middle of a search aborts the process.
    """
    if threading.current_thread() is not threading.main_thread():
        return function(*args, **kwargs)
    box: list[Any] = []

    def run() -> None:
        try:
            box.append((True, function(*args, **kwargs)))
        except BaseException as error:  # handed to the caller below
            box.append((False, error))

    held: list[int] = []

    def hold(signum: int, frame: object) -> None:
        held.append(signum)

    previous = {number: signal.getsignal(number) for number in _STOP_SIGNALS}
    try:
        for number, handler in previous.items():
            if callable(handler):  # Python's own or kinarow's handler (not 'ignore' or the system default)
                signal.signal(number, hold)
        helper = threading.Thread(target=run, name="kinarow-sat", daemon=True)
        helper.start()
        helper.join()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    for signum in held[:1]:
        handler = previous[signal.Signals(signum)]
        if callable(handler):
            handler(signum, None)
    ok, value = box[0]
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]


def solve(solver: Any, assumptions: Iterable[int] = (), conflicts: int | None = None) -> bool | None:
    """Satisfiable (True), unsatisfiable (False), or None when ``conflicts`` ran out.

    ``solver`` is a python-sat solver with a conflict budget (CaDiCaL, MiniSat-like
    solvers); ``conflicts`` None means no budget. Ctrl-C or SIGTERM during the
    search raises KeyboardInterrupt at the end of the current slice.
    """
    assumed = list(assumptions)
    if conflicts is not None and conflicts <= 0:
        raise ValueError(f"a conflict budget must be positive, not {conflicts}")

    def run_slice(budget: int) -> bool | None:
        solver.conf_budget(budget)
        return solver.solve_limited(assumptions=assumed)  # type: ignore[no-any-return]

    left = conflicts
    while True:
        raise_if_interrupted()
        step = SLICE_CONFLICTS if left is None else min(SLICE_CONFLICTS, left)
        answer = call(run_slice, step)
        if answer is not None:
            return bool(answer)
        if left is not None:
            left -= step
            if left <= 0:
                return None


def proof(solver: Any, limit: int) -> bytes | None:
    """The DRAT proof a solver made with ``with_proof=True``, as text ending in a newline; None when it is longer
    than ``limit`` bytes (checked on the solver's binary trace before the text is built, where it can be seen:
    the text is never shorter than the binary trace)."""
    import os

    backend = getattr(solver, "solver", solver)
    trace = getattr(backend, "prfile", None)
    if trace is not None and os.fstat(trace.fileno()).st_size > limit:
        return None

    def text() -> bytes | None:
        lines = solver.get_proof() or []
        size = sum(len(line) + 1 for line in lines)
        if size > limit:
            return None
        return ("\n".join(lines) + "\n").encode("ascii")

    return call(text)
