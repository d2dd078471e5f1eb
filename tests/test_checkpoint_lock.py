"""One run at a time on a job checkpoint: a second run of the same file is refused in one sentence naming the
process that holds it (two runs each repeated every job and cleared each other's running marks)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from helpers import run
from kinarow.errors import KinarowError
from kinarow.search import parallel as par

#: a process that holds the checkpoint as a run does, says so, and lets go when its stdin closes
HOLDER = """
import sys
from kinarow.search.parallel import JobStore
store = JobStore(sys.argv[1])
store.lock_for_run()
print("held", flush=True)
sys.stdin.read()
store.close()
"""


def holding(path: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def let_go(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=120) == 0


def test_a_second_run_on_the_same_checkpoint_is_refused(tmp_path, capsys):
    path = tmp_path / "jobs.sqlite"
    proc = holding(path)
    try:
        with pytest.raises(KinarowError) as error:
            par.solve("4x3k3", workers=1, checkpoint=path)
        text = str(error.value)
        assert text == (f"the checkpoint '{path}' is in use by another run (pid {proc.pid}); wait for it to end, or "
                        "stop it, before running on the same file")
        code, out, err = run(capsys, "solve", "4x3k3", "--workers", "1", "--checkpoint", str(path))
        assert code == 2 and not out and err.count("\n") == 1 and f"(pid {proc.pid})" in err
        code, out, _ = run(capsys, "solve", "4x3k3", "--checkpoint", str(path), "--status")  # reading takes no lock
        assert code == 0 and "no finished jobs" in out
    finally:
        let_go(proc)
    result = par.solve("4x3k3", workers=1, checkpoint=path)  # free again: the lock ended with its holder
    assert result.value == "first"
    again = par.solve("4x3k3", workers=1, checkpoint=path)  # and this process let go of it after its own run
    assert again.value == "first" and again.jobs_from_checkpoint


def test_a_second_kinarow_process_is_refused_while_a_run_holds_the_file(tmp_path):
    """Another process (the command line) is refused while one holds the file, with no traceback."""
    path = tmp_path / "jobs.sqlite"
    proc = holding(path)  # the first run's hold, as the coordinator takes it before any job
    try:
        second = subprocess.run([sys.executable, "-m", "kinarow", "solve", "4x4k3", "--workers", "1",
                                 "--checkpoint", str(path)], capture_output=True, text=True, timeout=300)
        assert second.returncode == 2 and "is in use by another run" in second.stderr
        assert "Traceback" not in second.stderr and not second.stdout
    finally:
        let_go(proc)
