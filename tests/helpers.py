"""Small helpers shared by the test modules."""

from __future__ import annotations

import signal


def interruptible() -> None:
    """``preexec_fn`` for a child that a test stops with SIGINT, as Ctrl-C would.

    A shell runs background jobs with SIGINT ignored, and a child inherits
    that; Python then never raises KeyboardInterrupt. The child gets the
    default disposition back, so the test behaves the same wherever it runs.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
