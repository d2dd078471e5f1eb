"""The results store: repeated questions answered at once, and long jobs that resume after kill -9 or Ctrl-C."""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import interruptible, run
from kinarow.cli.common import log_lines, progress, progress_bar
from kinarow.knowledge.pairing import table_boards
from kinarow.store import Store, StoreError, default_path

SRC = str(Path(__file__).resolve().parents[1] / "src")



def test_store_keeps_results_certificates_and_rows(tmp_path):
    path = tmp_path / "sub" / "r.sqlite"
    with Store(path) as store:
        store.put_result("3x3k3", "." * 9, {"value": "draw", "best_move": "a1"})
        store.put_certificate("kinarow.pairing", "5x5k5", "." * 25, {"pairs": [["a1", "b2"]]})
        store.put_job_row("job", "row1", {"x": 1})
    with Store(path) as again:  # a new process would see the same
        assert again.get_result("3x3k3", "." * 9)["value"] == "draw"
        assert again.get_result("3x3k3", "x" + "." * 8) is None
        assert again.get_certificate("kinarow.pairing", "5x5k5", "." * 25) == {"pairs": [["a1", "b2"]]}
        assert again.job_rows("job") == {"row1": {"x": 1}}
        assert again.counts() == {"results": 1, "certificates": 1, "job_rows": 1}


def test_default_path_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("KINAROW_STORE", str(tmp_path / "x.sqlite"))
    assert default_path() == tmp_path / "x.sqlite"
    monkeypatch.delenv("KINAROW_STORE")
    assert default_path().name == "results.sqlite" and "kinarow" in str(default_path())


def test_an_unusable_store_is_one_sentence(tmp_path, capsys):
    with pytest.raises(StoreError, match="cannot use"):
        Store(tmp_path)  # a directory, not a file
    code, _, err = run(capsys, "solve", "3x3k3", "--store", str(tmp_path))
    assert code == 2
    assert err.startswith("kinarow: error: cannot use") and err.count("\n") == 1


def test_a_repeated_solve_is_answered_from_the_store(capsys, tmp_path):
    store = str(tmp_path / "r.sqlite")
    code, first, _ = run(capsys, "solve", "5x4k4", "--store", store)
    assert code == 0 and "results store" not in first
    code, again, _ = run(capsys, "solve", "5x4k4", "--store", store)
    assert code == 0
    assert again.splitlines()[0] == first.splitlines()[0]
    assert "Answered at once from the results store" in again
    data = json.loads(run(capsys, "solve", "5x4k4", "--store", store, "--json")[1])
    assert data["from_store"] is True
    data = json.loads(run(capsys, "solve", "5x4k4", "--store", store, "--json", "--no-store")[1])
    assert data["from_store"] is False


def test_a_stored_answer_shows_the_same_knowledge_and_proof_as_the_search(capsys, tmp_path):
    store = str(tmp_path / "r.sqlite")
    code, first, _ = run(capsys, "solve", "4x4k4", "--store", store)
    code, again, _ = run(capsys, "solve", "4x4k4", "--store", store)
    assert code == 0 and "Answered at once" in again

    def rows(text: str) -> list[str]:
        return [line for line in text.splitlines() if line.startswith(("knowledge:", "proof:"))]

    assert len(rows(first)) == 2 and rows(again) == rows(first)  # matching sets settled the root: one cut and a proof
    proof = tmp_path / "p.json"
    code, out, _ = run(capsys, "solve", "4x4k4", "--store", store, "--proof", str(proof))
    assert code == 0 and "Answered at once" in out and "matching sets" in out
    with Store(tmp_path / "r.sqlite") as opened:  # an answer stored before the cut count was kept
        opened.put_result("4x4k4", "." * 16, {"value": "draw", "best_move": "a1", "knowledge": "matching",
                                                "revision": 2})
    code, out, _ = run(capsys, "solve", "4x4k4", "--store", store)
    assert "Answered at once" in out and "knowledge: matching\n" in out  # no made-up count
    assert run(capsys, "check", str(proof))[0] == 0


def test_the_same_position_by_another_move_order_comes_from_the_store(capsys, tmp_path):
    store = str(tmp_path / "r.sqlite")
    run(capsys, "solve", "4x4k4", "--moves", "b2 a1 c3", "--store", store)
    code, out, _ = run(capsys, "solve", "4x4k4", "--moves", "c3 a1 b2", "--store", store)
    assert code == 0 and "Answered at once" in out


def test_stored_strategies_serve_later_proofs(capsys, tmp_path):
    store = str(tmp_path / "r.sqlite")
    run(capsys, "solve", "4x3k3", "--store", store)  # the value only
    proof = tmp_path / "p.json"
    code, out, _ = run(capsys, "solve", "4x3k3", "--store", store, "--proof", str(proof))
    assert "Answered at once" not in out  # the stored value had no strategy: solved again
    proof.unlink()
    code, out, _ = run(capsys, "solve", "4x3k3", "--store", store, "--proof", str(proof))
    assert code == 0 and "Answered at once" in out and proof.exists()
    assert run(capsys, "check", str(proof))[0] == 0


def test_unknown_values_are_not_stored(capsys, tmp_path):
    store = tmp_path / "r.sqlite"
    run(capsys, "solve", "6x5k4", "--max-nodes", "1000", "--store", str(store))
    with Store(store) as opened:
        assert opened.counts()["results"] == 0


def _table_rows(path: Path) -> dict[str, float]:
    with sqlite3.connect(path, timeout=30) as db:
        try:
            return dict(db.execute("SELECT key, created FROM job_rows").fetchall())
        except sqlite3.OperationalError:  # the running command has not made its tables yet
            return {}


def _start_table(store: Path, side: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": SRC, "KINAROW_STORE": str(store)}
    return subprocess.Popen([sys.executable, "-m", "kinarow", "pairing-table", "--max-side", str(side), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=interruptible)


def _wait_for_rows(store: Path, at_least: int, process: subprocess.Popen[str], seconds: float = 240) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if store.exists() and len(_table_rows(store)) >= at_least:
            return
        if process.poll() is not None:
            pytest.fail(f"the table finished or failed before it could be stopped: {process.stderr.read()}")
        time.sleep(0.05)
    pytest.fail("the table saved no rows in time")


def test_pairing_table_resumes_after_kill_9(capsys, tmp_path):
    store = tmp_path / "r.sqlite"
    side = 9
    total = len(table_boards(side))
    process = _start_table(store, side)
    try:
        _wait_for_rows(store, len(table_boards(side - 1)), process)  # the small boards are done; the largest run
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    before = _table_rows(store)
    assert 0 < len(before) < total, "kill -9 came too late to test a resume"
    code, out, err = run(capsys, "pairing-table", "--max-side", str(side), "--json", "--store", str(store))
    assert code == 0
    assert f"{len(before)} of {total} rows came from the results store" in err
    rows = json.loads(out)
    assert len(rows) == total
    assert [(r["m"], r["n"], r["k"]) for r in rows] == table_boards(side)
    after = _table_rows(store)
    assert len(after) == total
    assert all(after[key] == created for key, created in before.items()), "a finished row was computed again"
    # and a third run computes nothing
    code, out2, err = run(capsys, "pairing-table", "--max-side", str(side), "--json", "--store", str(store))
    assert f"{total} of {total} rows came from the results store" in err
    assert json.loads(out2) == rows


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child needs POSIX")
def test_pairing_table_ctrl_c_says_how_far_it_got(tmp_path):
    store = tmp_path / "r.sqlite"
    process = _start_table(store, 9)
    try:
        _wait_for_rows(store, 5, process)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert "Interrupted (Ctrl-C) after " in err and f"of {len(table_boards(9))} boards" in err
    assert "run the same command again to resume" in err
    assert "Traceback" not in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal():
    with progress_bar("work", 10, io.StringIO()) as update:
        assert update is None
    stream = _Terminal()
    with progress_bar("work", 10, stream) as update:
        assert update is not None
        update(5)
    assert "work" in stream.getvalue()


def test_a_log_gets_a_progress_line_a_minute_at_most(monkeypatch):
    """Off a terminal (a log), long work writes a plain line at most every LOG_SECONDS, the first after them."""
    import kinarow.cli.common as common

    clock = [1000.0]
    monkeypatch.setattr(common.time, "perf_counter", lambda: clock[0])
    stream = io.StringIO()
    say = log_lines(stream, 60)
    say("early")
    clock[0] += 61
    say("searched 5 of 9")
    clock[0] += 30
    say("too soon")
    clock[0] += 31
    say("searched 9 of 9")
    assert stream.getvalue().splitlines() == ["searched 5 of 9, 61 s", "searched 9 of 9, 122 s"]
    stream = io.StringIO()
    with progress("W(10)", stream) as tick:
        assert tick is not None
        clock[0] += 61
        tick(1234567)
    assert stream.getvalue() == "W(10): 1,234,567 nodes, 61 s\n"
