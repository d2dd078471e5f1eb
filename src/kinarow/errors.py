"""Exceptions raised by kinarow.

Every error carries one sentence that names what was wrong and what is
allowed, so the command line can print it as it is and exit non-zero.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for an error message, cut short when it is long (a pasted 5000-digit number stays one
    short line)."""
    if len(text) <= limit:
        return repr(text)
    return repr(text[: limit - 10]) + f"... ({len(text)} characters)"


class KinarowError(ValueError):
    """Base class of every error kinarow raises on bad input."""


class GameSpecError(KinarowError):
    """A game string could not be parsed or describes no valid game."""


class MoveError(KinarowError):
    """A move could not be read (bad cell name, bad notation)."""


class IllegalMoveError(MoveError):
    """A move was read but is not legal in the position (occupied, full column, game over)."""


class ClaimMismatchError(KinarowError):
    """A value and what its proof shows disagree: a certificate that proves another value, or a strategy walk
    that finds no winning move for the winner the value names (a value answered from a damaged book, store or
    checkpoint). Nothing is shown or written."""


class SolverLimitError(KinarowError):
    """The exact solver cannot handle this game (for example, too many cells)."""


# Ctrl-C that arrives while numba compiles or loads a kernel is raised inside a ctypes callback,
# where Python reports it and drops it. The command line therefore installs ``note_interrupt`` as
# the SIGINT handler: it remembers the interrupt as well as raising it, and the long loops call
# ``raise_if_interrupted`` so that a dropped interrupt still stops them at their next check.
_interrupt_pending = False
_interrupt_by_sigterm = False


def note_interrupt(signum: int, frame: object) -> None:
    """SIGINT (and SIGTERM) handler: remember the interrupt, then raise it as Python's own handler does."""
    global _interrupt_pending, _interrupt_by_sigterm
    _interrupt_pending = True
    _interrupt_by_sigterm = signum == signal.SIGTERM
    raise KeyboardInterrupt


def quiet_dropped_interrupt(unraisable: sys.UnraisableHookArgs) -> None:
    """``sys.unraisablehook`` while a command runs: an interrupt raised where Python can only drop it
    (a weakref or ctypes callback, a finaliser) is not printed as "Exception ignored ... Traceback":
    it is remembered, and ``raise_if_interrupted`` raises it again. Anything else is reported as usual."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and _interrupt_pending:
        return
    sys.__unraisablehook__(unraisable)


def clear_interrupt() -> None:
    """Forget a remembered interrupt (a new command starts)."""
    global _interrupt_pending, _interrupt_by_sigterm
    _interrupt_pending = _interrupt_by_sigterm = False


def interrupted() -> str:
    """The start of a stop message: 'Interrupted (Ctrl-C)', or '(SIGTERM)' when a kill stopped the command."""
    return "Interrupted (SIGTERM)" if _interrupt_by_sigterm else "Interrupted (Ctrl-C)"


#: what ``kinarow`` (and ``python -m kinarow``) says when Ctrl-C stops it while it starts, before any command ran
START_INTERRUPTED = "Interrupted (Ctrl-C) while kinarow was starting; nothing was done."


def raise_if_interrupted() -> None:
    """Raise KeyboardInterrupt if Ctrl-C was pressed (also when its first raise was dropped)."""
    if _interrupt_pending:
        raise KeyboardInterrupt


def run_stoppable(
    work: Callable[[], T], stop: Callable[[], None], poll: Callable[[], None] | None = None, every: float = 0.05
) -> T:
    """``work()`` (a compiled kernel that releases the GIL) run in a thread of its own, so that Ctrl-C and
    SIGTERM still reach this one: ``poll()`` runs every ``every`` seconds while it still works (a progress tick, a
    deadline that calls ``stop()``); on an interrupt ``stop()`` asks the kernel to stop, the thread is waited
    for and KeyboardInterrupt is raised again. An exception of ``work`` is raised here."""
    out: list[T] = []
    errors: list[BaseException] = []
    # The worker says it is done through an Event, not Thread.join: on Python 3.11 a join that a signal
    # handler interrupts marks the thread stopped while it still runs, and every later join returns at once.
    finished = threading.Event()

    def run() -> None:
        try:
            out.append(work())
        except BaseException as err:  # pragma: no cover - surfaced below
            errors.append(err)
        finally:
            finished.set()

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    try:
        while not finished.wait(every):
            raise_if_interrupted()
            if poll is not None and not finished.is_set():
                poll()
    except KeyboardInterrupt as interrupt:
        stop()
        while True:  # the kernel stops at its next check: wait for it, whatever more signals come
            try:
                if finished.wait(every):
                    break
            except KeyboardInterrupt:
                continue
        raise interrupt from None
    if errors:
        raise errors[0]
    return out[0]
