"""``--workers N``: table cells on a local process pool give the same tables as one process."""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import multiprocessing.connection
import operator
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path

import pytest

from helpers import interruptible
from kinarow.cli import main
from kinarow.engine.pool import run_cells
from kinarow.errors import KinarowError
from kinarow.knowledge.pairing import existence_table, table_boards
from kinarow.papers.steele_larremore import Budget, reproduce_solver, reproduce_table, table

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _cells(cells):
    return [{**asdict(c), "seconds": None} for c in cells]


def _report(report):
    data = {key: value for key, value in report.to_dict().items() if key != "seconds"}
    for key in ("cells", "cylinders"):
        if key in data:
            data[key] = [{**c, "seconds": None} for c in data[key]]
    text = report.text.splitlines()
    return data, [line for line in text if not line.endswith(" s")]  # the run time is the only line that differs


# -- the helper ----------------------------------------------------------------------------
def _run_with_waits(workers: int) -> tuple[dict[int, int], list[int]]:
    # cell i is given i plus the results of the cells it waits for, so a cell started too early shows
    after = {0: [], 1: [], 2: [0, 1], 3: [2], 4: [0]}
    results: dict[int, int] = {}
    order: list[int] = []

    def prepare(i: int) -> int:
        assert all(j in results for j in after[i])
        return i + sum(results[j] for j in after[i])

    def finish(i: int, value: int) -> None:
        results[i] = value
        order.append(i)

    run_cells(operator.neg, 5, prepare, finish, after=after.__getitem__, workers=workers)
    return results, order


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_cells_wait_for_the_cells_they_name(workers):
    results, order = _run_with_waits(workers)
    assert results == {0: 0, 1: -1, 2: -1, 3: -2, 4: -4}
    assert sorted(order) == [0, 1, 2, 3, 4]
    if workers == 1:
        assert order == [0, 1, 2, 3, 4]


def _all_ended(processes: set[mp.process.BaseProcess], seconds: float = 10.0) -> bool:
    """Whether every process in ``processes`` has exited within ``seconds``.

    A process's sentinel becomes ready when it exits, whoever reaps it (a
    pool's manager thread may join it at the same moment as the caller), so
    this does not depend on which thread collected the exit status.
    """
    deadline = time.monotonic() + seconds
    pending = [p.sentinel for p in processes]
    while pending and time.monotonic() < deadline:
        for ready in mp.connection.wait(pending, timeout=max(0.0, deadline - time.monotonic())):
            pending.remove(ready)
    return not pending


def test_a_failing_cell_stops_the_table():
    before = set(mp.active_children())
    with pytest.raises(ValueError, match="math domain error"):
        run_cells(math.sqrt, 3, lambda i: 1.0 - i, lambda i, r: None, workers=2)
    assert _all_ended(set(mp.active_children()) - before)


def test_an_interrupt_terminates_the_running_workers():
    finished: list[int] = []

    def finish(i: int, result: None) -> None:
        finished.append(i)
        raise KeyboardInterrupt

    before = set(mp.active_children())
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        run_cells(time.sleep, 4, lambda i: 0.0 if i == 0 else 60.0, finish, workers=2)
    assert finished == [0]
    assert time.perf_counter() - start < 30  # the 60-second cell was not waited for
    assert _all_ended(set(mp.active_children()) - before)


@pytest.mark.parametrize("workers", [0, -2, 1.5, "2", True])
def test_bad_worker_counts(workers):
    with pytest.raises(KinarowError, match="workers must be a positive whole number"):
        run_cells(operator.neg, 2, lambda i: i, lambda i, r: None, workers=workers)


# -- the tables ----------------------------------------------------------------------------
def test_misere_cells_with_skips_are_the_same_on_four_workers():
    """A tight budget makes cells skip work after smaller boards ran out of it: the order must not matter.

    (Four workers hand out larger boards while smaller ones still run: without
    the waits between cells this test fails.)
    """
    budget = Budget(max_positions=3_000, solver_seconds=10, solver_cells=20, cross_check_cells=12)
    for cylinder in (False, True):
        one = table((3, 4), range(1, 8), range(1, 8), budget, cylinder=cylinder)
        two = table((3, 4), range(1, 8), range(1, 8), budget, cylinder=cylinder, workers=4)
        assert any("smaller board exceeded" in note for c in one for note in c.notes)
        assert _cells(one) == _cells(two)


def test_misere_reports_are_the_same_on_two_workers():
    args = ((2, 3), (1, 2, 3, 4), (1, 2, 3), Budget(solver_seconds=10))
    for reproduce in (reproduce_table, reproduce_solver):
        one, two = reproduce(*args), reproduce(*args, workers=2)
        assert one.agrees and two.agrees
        assert _report(one) == _report(two)


def test_pairing_table_is_the_same_on_four_workers():
    one = existence_table(7, 100_000)
    assert any(r.proved_by == "sub-board" for r in one)  # rows that use rows above them
    done = {(r.m, r.n, r.k): r for r in one if r.m <= 5}
    saved = []
    two = existence_table(7, 100_000, done=done, on_row=saved.append, workers=4)
    assert [{**vars(r), "seconds": None} for r in one] == [{**vars(r), "seconds": None} for r in two]
    assert sorted((r.m, r.n, r.k) for r in saved) == sorted(set(table_boards(7)) - set(done))


# -- the command line ------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["0", "-1", "1.5", "two"])
def test_bad_workers_on_the_command_line(capsys, value):
    for command in (["reproduce", "misere-solver"], ["pairing-table", "--no-store"]):
        assert main([*command, f"--workers={value}"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("kinarow: error: --workers must be a positive whole number, not ")
        assert len(err.strip().splitlines()) == 1


def test_a_target_without_cells_says_it_runs_in_one_process(capsys):
    assert main(["reproduce", "tilings", "--workers", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.err.strip() == "'tilings' runs in one process; --workers is not used by this target."
    assert main(["reproduce", "tilings"]) == 0
    assert capsys.readouterr().out == captured.out


def test_pairing_table_command_on_two_workers(capsys):
    rows = []
    for workers in ("1", "2"):
        assert main(["pairing-table", "--max-side", "6", "--json", "--no-store", "--workers", workers]) == 0
        rows.append([{**r, "seconds": None} for r in json.loads(capsys.readouterr().out)])
    assert rows[0] == rows[1]


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _signal_when_working(process: subprocess.Popen, wanted: int, seconds: float, signum: int) -> tuple[list[int], str]:
    """Wait for ``wanted`` worker processes of ``process`` and ``seconds`` more, send ``signum``, wait for the
    end; returns the workers seen and stderr."""
    try:
        deadline = time.time() + 60
        children: list[int] = []
        while time.time() < deadline and len(children) < wanted:  # the workers (not the resource tracker)
            time.sleep(0.2)
            children = [p for p in _children(process.pid) if "spawn_main" in Path(f"/proc/{p}/cmdline").read_text()]
        time.sleep(seconds)
        process.send_signal(signum)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    return children, err


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
                    reason="needs /proc/PID/task/PID/children to see the workers")
@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_stops_the_table(tmp_path, workers):
    env = {**os.environ, "PYTHONPATH": SRC, "KINAROW_STORE": str(tmp_path / "r.sqlite")}
    process = subprocess.Popen(
        [sys.executable, "-m", "kinarow", "reproduce", "misere-solver", "--workers", str(workers)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, preexec_fn=interruptible)
    wanted = workers if workers > 1 else 0  # one worker is this process itself
    # 3 s: well into the boards the solver settles (a one-process run once ignored Ctrl-C there)
    children, err = _signal_when_working(process, wanted, 3, signal.SIGINT)  # the whole target takes minutes
    assert process.returncode == 130
    assert "Interrupted (Ctrl-C)" in err and "Traceback" not in err
    assert len(children) == wanted
    time.sleep(0.5)
    assert not [p for p in children if _alive(p)]


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
                    reason="needs /proc/PID/task/PID/children to see the workers")
def test_sigterm_stops_a_walk_on_workers_and_keeps_what_they_settled(tmp_path):
    # a kill of the coordinator once left its workers walking on, orphaned, until their time limit
    env = {**os.environ, "PYTHONPATH": SRC, "KINAROW_STORE": str(tmp_path / "r.sqlite")}
    walks = tmp_path / "walks"
    process = subprocess.Popen(
        [sys.executable, "-m", "kinarow", "settle", "8x4k4", "--draw-proof", "--workers", "2", "--tt-mb", "64",
         "--checkpoint", str(walks)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    # 10 s: the jobs are walking (the whole walk takes minutes)
    children, err = _signal_when_working(process, 2, 10, signal.SIGTERM)
    assert process.returncode == 130, err
    assert "Interrupted (SIGTERM)" in err and "resumes from there" in err and "Traceback" not in err
    assert len(children) == 2
    time.sleep(0.5)
    assert not [p for p in children if _alive(p)]
    assert list((walks / "8x4k4").glob("*.job*.npz"))  # the stopped jobs saved their memories


def test_a_dropped_interrupt_still_stops_the_cells_and_the_search(monkeypatch):
    # Ctrl-C during a numba compile is dropped by Python; the command line's handler remembers it
    from kinarow import errors, solve

    monkeypatch.setenv("KINAROW_BOOK", "off")  # the opening book would answer 7x6 at once, with no search to stop
    with pytest.raises(KeyboardInterrupt):
        errors.note_interrupt(2, None)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_cells(time.sleep, 3, lambda i: 0.0, lambda i, r: None, workers=1)
        assert solve("7x6k4:gravity", time_limit=60).stopped == "interrupted"
    finally:
        errors.clear_interrupt()
    assert solve("4x4k4").value == "draw"


def test_a_walk_worker_s_sigterm_is_an_interrupt_not_an_error():
    """The worker's SIGTERM handler raises an interrupt: Thread.start (Python 3.11) catches errors and then
    spoils the new thread's start-up (a KeyError traceback on stderr), and run_stoppable stops and awaits its
    kernel only on an interrupt. The walk job still reports "stopped" (the SIGTERM test above)."""
    from kinarow.search import draw

    with pytest.raises(KeyboardInterrupt) as stopped:
        draw._stop_on_terminate(signal.SIGTERM, None)
    assert not isinstance(stopped.value, Exception)


def _running(pid: int) -> bool:
    """Is ``pid`` a process that still runs (a zombie no longer does: an orphan's zombie may wait long for a reaper
    that never comes)?"""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


def _workers_of(pid: int, marker: str) -> list[int]:
    return [p for p in _children(pid) if marker in Path(f"/proc/{p}/cmdline").read_text(errors="replace")]


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
                    reason="needs /proc/PID/task/PID/children to see the workers")
@pytest.mark.parametrize("command, marker", [
    # frontier jobs on the parallel solve's local pool (forked workers: their command line is the coordinator's)
    (["solve", "8x8k5", "--workers", "2", "--tt-mb", "64", "--time-limit", "600", "--checkpoint", "{tmp}/k.sqlite"],
     "solve"),
    # the draw-proof walk's jobs on run_cells (spawned workers)
    (["settle", "8x4k4", "--draw-proof", "--workers", "2", "--tt-mb", "64", "--time-limit", "600",
      "--checkpoint", "{tmp}/walks"], "spawn_main"),
], ids=["solve", "settle-draw-proof"])
def test_workers_end_when_their_coordinator_is_killed(tmp_path, command, marker):
    # kill -9 of the coordinator once left its workers searching for good, each with its table
    env = {**os.environ, "PYTHONPATH": SRC, "KINAROW_STORE": str(tmp_path / "r.sqlite")}
    process = subprocess.Popen([sys.executable, "-m", "kinarow", *(a.format(tmp=tmp_path) for a in command)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 120  # a hang guard: the workers start within seconds
        while time.monotonic() < deadline and len(workers) < 2 and process.poll() is None:
            time.sleep(0.2)
            workers = _workers_of(process.pid, marker)
        assert len(workers) == 2, "the workers never started"
        process.kill()
        process.wait(30)
        deadline = time.monotonic() + 60  # a hang guard: with the kernel's signal they end at once
        while time.monotonic() < deadline and any(_running(p) for p in workers):
            time.sleep(0.2)
        assert not [p for p in workers if _running(p)]
    finally:
        if process.poll() is None:
            process.kill()
        for p in workers:
            if _running(p):
                os.kill(p, signal.SIGKILL)


def test_a_worker_s_watch_sees_its_parent_go():
    # the portable fallback: a thread that sees the worker's parent pid change (here: a parent it never had)
    from kinarow.engine import pool

    seen = []
    watch = threading.Thread(target=pool._watch_parent, args=(os.getppid() + 10**6, lambda: seen.append(1), 0.01))
    watch.start()
    watch.join(30)
    assert seen == [1]
