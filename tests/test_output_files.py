"""The files kinarow writes: whole or not at all, never over one of the command's own inputs, and every line it
prints survives a terminal that cannot show it (issue: hardening).

* A certificate, a strategy, a picture, ... is written to a temporary file in the same folder, flushed, then
  renamed over the old one: a full disk keeps the old file whole, leaves no part file, and says so in one
  sentence.
"""

from __future__ import annotations

import errno
import os
import stat
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
