"""One :class:`Searcher` shared by threads: its questions are serialised on its lock, so every answer is right."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from kinarow import solve
from kinarow.engine import extract_kernel as X
from kinarow.engine import kernel as K
from kinarow.search.alphabeta import Searcher

THREADS = 2
HANG_GUARD = 600.0  # seconds: only so that a deadlock fails instead of hanging the suite


def _counted(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, active: list[int]) -> None:
    """Wrap the compiled entry ``module.name`` so that ``active`` = [kernels running now, most at once]."""
    kernel = getattr(module, name)
    guard = threading.Lock()

    def wrapped(*args: Any) -> Any:
        with guard:
            active[0] += 1
            active[1] = max(active[1], active[0])
        try:
            return kernel(*args)
        finally:
            with guard:
                active[0] -= 1

    monkeypatch.setattr(module, name, wrapped)


def _together(work: Callable[[], None]) -> list[BaseException]:
    """Run ``work`` in THREADS threads started at once; the exceptions they raised."""
    start = threading.Barrier(THREADS)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            start.wait()
            work()
        except BaseException as error:  # reported by the test
            errors.append(error)

    threads = [threading.Thread(target=run) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_GUARD)
        assert not thread.is_alive(), "a thread is still waiting for the searcher"
    return errors


def test_a_shared_searcher_answers_one_solve_at_a_time(monkeypatch):
    # 5x4k4 is a draw. Before the lock, two threads' searches ran on the searcher's one set of kernel arrays at
    # once and now and then both answered 'second'; now the kernel never runs twice at once on it.
    active = [0, 0]
    _counted(monkeypatch, K, "deepen", active)
    values: list[str] = []
    for _ in range(4):  # a fresh table each round, so that every solve searches
        searcher = Searcher("5x4k4")

        def work(searcher: Searcher = searcher) -> None:
            for _ in range(3):
                values.append(solve("5x4k4", searcher=searcher).value)

        assert _together(work) == []
    assert values == ["draw"] * (4 * THREADS * 3)
    assert active[1] == 1


def test_a_shared_searcher_writes_certificates_one_at_a_time(monkeypatch):
    # with proof=True the strategy walks of two threads ran on one kernel state and one of them ended in an
    # internal error; 4x4k3:gravity is a first-player win, proved by its strategy walk
    active = [0, 0]
    _counted(monkeypatch, K, "deepen", active)
    _counted(monkeypatch, X, "extract", active)
    searcher = Searcher("4x4k3:gravity")
    checked: list[bool] = []

    def work() -> None:
        for _ in range(3):
            result = solve("4x4k3:gravity", searcher=searcher, proof=True)
            checked.append(result.value == "first" and result.proof is not None and result.proof.exists)

    assert _together(work) == []
    assert checked == [True] * (THREADS * 3)
    assert active[1] == 1


def test_the_lock_is_reentrant_and_held_by_each_question():
    searcher = Searcher("3x3k3")
    position = searcher.game.start()
    with searcher.lock:  # a caller holding it may still ask
        assert searcher.value(position) == "draw"
    held: list[bool] = []

    def other() -> None:
        held.append(searcher.lock.acquire(blocking=False))

    with searcher.lock:
        thread = threading.Thread(target=other)
        thread.start()
        thread.join(HANG_GUARD)
    assert held == [False]  # another thread waits while one holds it
