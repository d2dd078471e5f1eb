"""The files kinarow writes: whole or not at all, never over one of the command's own inputs, and every line it
prints survives a terminal that cannot show it (issue: hardening).

* A certificate, a strategy, a picture, ... is written to a temporary file in the same folder, flushed, then
  renamed over the old one: a full disk keeps the old file whole, leaves no part file, and says so in one
  sentence.
* No output may be the same file (by any name) as one the command reads or keeps (its checkpoint, results store,
  table, guide, class file, state folder's files) or as another of its outputs: refused before any work.
* Every printed line survives a stream whose encoding lacks some of its characters (``PYTHONIOENCODING=ascii``):
  they are written as escapes, not a UnicodeEncodeError after the work is done.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import run
from kinarow import KinarowError
from kinarow.cli import common


def one_line(err: str) -> str:
    """The one line of an error (a loaded machine may add a progress line a minute before it: "..., 60 s")."""
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip() and not line.endswith(" s")]
    assert len(lines) == 1, err
    return lines[0]


def full_disk_after(monkeypatch: pytest.MonkeyPatch, budget: int) -> list[int]:
    """Make :func:`os.write` in the writer fail with ENOSPC once ``budget`` bytes are written (the first write
    that crosses it writes up to the budget, as a filling disk does); returns the bytes written so far."""
    written = [0]
    real = os.write

    def write(fd: int, data: bytes | memoryview) -> int:
        room = budget - written[0]
        if room <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        done = real(fd, bytes(data[:room]))
        written[0] += done
        return done

    monkeypatch.setattr(common.os, "write", write)
    return written


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


def test_a_write_that_fails_midway_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "proof.json"
    path.write_text("the old certificate\n")
    written = full_disk_after(monkeypatch, 100)
    with pytest.raises(KinarowError) as caught:
        common.write_file(path, b"x" * 5000, "the certificate")
    message = " ".join(str(caught.value).split())
    assert "cannot write the certificate to" in message and "No space left" in message and "is kept" in message
    assert written[0] == 100  # it failed midway, not before it began
    assert path.read_text() == "the old certificate\n"
    assert leftovers(tmp_path) == []


def test_a_new_file_that_cannot_be_written_leaves_nothing(tmp_path, monkeypatch):
    full_disk_after(monkeypatch, 10)
    with pytest.raises(KinarowError, match="No space left"):
        common.write_json(str(tmp_path / "new.json.gz"), {"format": "kinarow.pairing", "pairs": [["a1", "b2"]] * 99})
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("argv", "name"), [
    (["solve", "4x3k3", "--no-store", "--proof"], "p.json"),
    (["solve", "4x3k3", "--no-store", "--strategy"], "s.json.gz"),
    (["show", "3x3k3", "--moves", "b2", "--svg"], "board.svg"),
    (["pairing", "5x5k5", "--proof"], "pairing.json"),
])
def test_each_output_file_survives_a_full_disk(tmp_path, monkeypatch, capsys, argv, name):
    path = tmp_path / name
    path.write_bytes(b"what was there before")
    full_disk_after(monkeypatch, 20)
    code, _out, err = run(capsys, *argv, str(path))
    assert code != 0
    line = one_line(err)
    assert line.startswith("kinarow: error: cannot write") and "No space left" in line and "kept" in line, line
    assert path.read_bytes() == b"what was there before"
    assert leftovers(tmp_path) == []


def test_a_written_file_keeps_the_old_mode_and_a_new_one_gets_the_usual(tmp_path):
    old = tmp_path / "old.json"
    old.write_text("{}")
    old.chmod(0o640)
    common.write_file(old, b"{}\n")
    assert stat.S_IMODE(old.stat().st_mode) == 0o640 and old.read_bytes() == b"{}\n"
    new = tmp_path / "new.json"
    common.write_file(new, b"{}\n")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~mask


def test_a_link_is_written_through_and_a_device_in_place(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    common.write_file(link, b"new")
    assert link.is_symlink() and target.read_text() == "new"
    common.write_file(os.devnull, b"nothing")  # not replaced by a regular file
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


# -- an output is never one of the command's own inputs (nor another of its outputs) ----------------------
def same_file_cases(tmp: Path) -> list[tuple[list[str], Path, str]]:
    """(argv, the file both read and written, the option named as the input) of each command that takes one."""
    checkpoint, store, table, link = tmp / "OV.sqlite", tmp / "results.sqlite", tmp / "t.npz", tmp / "alias.json"
    classes, state = tmp / "classes.bin", tmp / "state"
    state.mkdir()
    return [
        (["solve", "7x4k4", "--workers", "1", "--checkpoint", str(checkpoint), "--proof", str(checkpoint)],
         checkpoint, "--checkpoint"),
        (["solve", "7x4k4", "--workers", "1", "--checkpoint", str(checkpoint), "--strategy", str(checkpoint)],
         checkpoint, "--checkpoint"),
        (["solve", "4x3k3", "--store", str(store), "--proof", str(store)], store, "--store"),
        (["solve", "4x3k3", "--no-store", "--strategy", str(store), "--proof", str(store)], store, "--strategy"),
        (["solve", "4x3k3", "--no-store", "--search", "proof", "--table", str(table), "--proof", str(table)], table,
         "--table"),
        (["solve", "7x4k4", "--workers", "1", "--checkpoint", str(checkpoint), "--proof", str(link)], checkpoint,
         "--checkpoint"),  # another name of the same file
        (["parts", "7x4k4", "--moves", "d1", "--checkpoint", str(checkpoint), "--out", str(checkpoint)], checkpoint,
         "--checkpoint"),
        (["pairing", "5x5k5", "--proof", str(store), "--svg", str(store)], store, "--out"),
        (["torus", "9", "--load", str(classes), "--out", str(classes)], classes, "--load"),
        (["prove", "4x3k3", "--dir", str(state), "--out", str(state / "plan.json")], state / "plan.json",
         "the state folder's"),
        (["book", "build", "4x4k3:gravity", "--depth", "1", "--out", str(store), "--checkpoint", str(store)], store,
         "--checkpoint"),
    ]


@pytest.mark.parametrize("case", range(11))
def test_an_output_that_is_an_input_is_refused_before_any_work(tmp_path, capsys, case):
    argv, shared, option = same_file_cases(tmp_path)[case]
    shared.write_bytes(b"the checkpoint, store or table")
    alias = tmp_path / "alias.json"
    if str(alias) in argv:
        alias.symlink_to(shared)
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    line = one_line(err)
    assert "is the same file as" in line and option in line and "another file" in line, line
    assert shared.read_bytes() == b"the checkpoint, store or table"


def test_settle_refuses_an_out_folder_that_is_its_checkpoint(tmp_path, capsys):
    code, _out, err = run(capsys, "settle", "7x4k4", "--out", str(tmp_path), "--checkpoint", str(tmp_path))
    assert code == 2 and "is the same as --checkpoint" in one_line(err)


def test_distinct_files_are_still_written(tmp_path, capsys):
    code, _out, err = run(capsys, "solve", "4x3k3", "--store", str(tmp_path / "r.sqlite"), "--proof",
                         str(tmp_path / "p.json"), "--strategy", str(tmp_path / "s.json"))
    assert code == 0, err
    assert (tmp_path / "p.json").stat().st_size and (tmp_path / "s.json").stat().st_size


# -- printing on a stream that cannot show every character -----------------------------------------------
SRC = str(Path(__file__).resolve().parents[1] / "src")


def ascii_run(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": SRC, "PYTHONIOENCODING": "ascii",
           "KINAROW_STORE": str(cwd / "store.sqlite"), "HOME": str(cwd)}
    return subprocess.run([sys.executable, "-m", "kinarow", *argv], capture_output=True, text=True, cwd=cwd,
                          env=env, encoding="ascii", errors="strict", timeout=600)


def test_a_file_name_the_terminal_cannot_show_is_printed_escaped(tmp_path):
    folder = tmp_path / "ünï ☃"
    folder.mkdir()
    done = ascii_run("solve", "4x3k3", "--proof", "ünï ☃/p2.json", cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "Proof written to \\xfcn\\xef \\u2603/p2.json" in done.stdout, done.stdout
    checked = ascii_run("check", "ünï ☃/p2.json", cwd=tmp_path)
    assert checked.returncode == 0 and checked.stdout.startswith("VALID"), (checked.stdout, checked.stderr)
    # and an error about such a file: one line on standard error, escaped, with its exit status
    missing = ascii_run("check", "ünï ☃/none.json", cwd=tmp_path)
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert one_line(missing.stderr).startswith("kinarow: error: cannot read '\\xfcn\\xef \\u2603/none.json'")
