"""The SAT solver is run in slices that Ctrl-C can stop without harm to the solver."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from pysat.examples.genhard import PHP
from pysat.solvers import Solver

from helpers import interruptible
from kinarow.knowledge import sat


def test_answers_agree_with_one_plain_call(monkeypatch):
    monkeypatch.setattr(sat, "SLICE_CONFLICTS", 50)  # many slices on a formula that needs thousands
    formula = PHP(6)  # 7 pigeons, 6 holes: unsatisfiable
    with Solver(name="cadical300", bootstrap_with=formula.clauses) as plain:
        assert plain.solve() is False
    with Solver(name="cadical300", bootstrap_with=formula.clauses) as sliced:
        assert sat.solve(sliced) is False
        assert sliced.accum_stats()["conflicts"] > 50
    with Solver(name="cadical300", bootstrap_with=[[1, 2], [-1, 2], [-2, 3]]) as solver:
        assert sat.solve(solver) is True
        assert sat.solve(solver, [-3]) is False  # under an assumption
        assert sat.solve(solver) is True  # and the assumption is gone again


def test_a_budget_that_runs_out_gives_no_answer(monkeypatch):
    monkeypatch.setattr(sat, "SLICE_CONFLICTS", 30)
    with Solver(name="cadical300", bootstrap_with=PHP(8).clauses) as solver:
        assert sat.solve(solver, conflicts=100) is None
        assert solver.accum_stats()["conflicts"] <= 100 + 5
    with pytest.raises(ValueError, match="positive"):
        sat.solve(Solver(name="cadical300"), conflicts=0)


def test_an_error_inside_the_call_reaches_the_caller():
    with pytest.raises(ZeroDivisionError):
        sat.call(lambda: 1 / 0)
    assert sat.call(sorted, [3, 1, 2], reverse=True) == [3, 2, 1]


CHILD = textwrap.dedent("""
    import signal
    import threading
    import time
    from pysat.examples.genhard import PHP
    from pysat.solvers import Solver
    from kinarow.knowledge import sat
    from kinarow.errors import clear_interrupt, note_interrupt

    signal.signal(signal.SIGTERM, note_interrupt)  # as the command line does
    # another thread, as numba or a progress bar would start: the kernel may hand the signal to it
    threading.Thread(target=time.sleep, args=(600,), daemon=True).start()

    solver = Solver(name="cadical300", bootstrap_with=PHP(12).clauses)  # hours of search
    print("solving", flush=True)
    try:
        sat.solve(solver)
    except KeyboardInterrupt:
        print("stopped", flush=True)
        clear_interrupt()  # a new command would start here
    solver.delete()  # the solver is in a state it can be deleted in
    print("deleted", flush=True)
    with Solver(name="cadical300", bootstrap_with=[[1], [-1, 2]]) as again:  # and solving still works
        print("again", sat.solve(again), flush=True)
""")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child needs POSIX")
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_a_long_solve_stops_it_cleanly(number):
    process = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, preexec_fn=interruptible)
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "solving"
        time.sleep(0.5)  # well inside the search
        process.send_signal(number)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert out.split("\n")[:3] == ["stopped", "deleted", "again True"], (out, err)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_waits_until_the_call_has_returned():
    finished: list[bool] = []

    def slow() -> None:  # sleeps without the interpreter lock, so the main thread could be interrupted
        time.sleep(1.0)
        finished.append(True)

    # Python's own Ctrl-C handler, also where pytest was started with SIGINT ignored (a shell's background job)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
        with pytest.raises(KeyboardInterrupt):
            sat.call(slow)
        assert finished == [True]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is given back
    finally:
        signal.signal(signal.SIGINT, previous)
