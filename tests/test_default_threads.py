"""Defaults that use the machine: ``kinarow solve`` and ``kinarow book`` search on every core unless told, and a
table the machine's memory cannot hold is refused in one sentence before any search starts."""

from __future__ import annotations

import json

import pytest

import kinarow.limits
from helpers import run
from kinarow.limits import MAX_THREADS, default_threads


def test_the_default_is_every_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kinarow.limits, "cores", lambda: 3)
    assert default_threads() == 3
    monkeypatch.setattr(kinarow.limits, "cores", lambda: 1000)
    assert default_threads() == MAX_THREADS


def test_solve_searches_a_connect_k_game_on_every_core(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(kinarow.limits, "cores", lambda: 2)
    code, out, _ = run(capsys, "solve", "5x4k4:gravity", "--no-store", "--json")
    data = json.loads(out)
    assert code == 0 and data["value"] == "draw" and data["threads"] == 2
    code, out, _ = run(capsys, "solve", "5x4k4:gravity", "--no-store")
    assert code == 0 and "search:    score search, 2 threads" in out.splitlines()


def test_threads_1_searches_in_one_thread_with_repeating_node_counts(capsys: pytest.CaptureFixture[str]) -> None:
    runs = [json.loads(run(capsys, "solve", "5x4k4:gravity", "--no-store", "--json", "--threads", "1")[1])
            for _ in range(2)]
    assert all("threads" not in data for data in runs)
    assert runs[0]["nodes"] == runs[1]["nodes"] > 0


def test_a_game_without_threads_is_searched_as_before_when_none_are_asked(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(kinarow.limits, "cores", lambda: 2)
    code, out, _ = run(capsys, "solve", "4x4k4", "--no-store", "--json")
    data = json.loads(out)
    assert code == 0 and data["value"] == "draw" and "threads" not in data
    code, _, err = run(capsys, "solve", "4x4k4", "--no-store", "--threads", "2")
    assert code != 0 and "--threads serves the Connect-k score search only" in err


def test_the_library_searches_in_one_thread_unless_told() -> None:
    from kinarow import solve

    assert solve("5x4k4:gravity").threads == 1


@pytest.mark.parametrize("argv", [
    ("solve", "5x4k4:gravity", "--no-store", "--tt-mb", "2048"),
    ("solve", "4x4k4", "--no-store", "--tt-mb", "2048"),
    ("book", "build", "4x4k3:gravity", "--depth", "2", "--tt-mb", "2048"),
])
def test_a_table_larger_than_the_memory_is_refused_in_one_sentence(
        argv: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: object) -> None:
    monkeypatch.chdir(tmp_path)  # type: ignore[arg-type]
    monkeypatch.setattr(kinarow.limits, "available_memory_mb", lambda: 1024.0)
    code, out, err = run(capsys, *argv)
    assert code != 0 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert ("a table of 2,048 MiB (--tt-mb) needs about 2,560 MiB with the search (512 MiB besides the table), "
            "more than the 1,024 MiB this machine has available; a table of at most 512 MiB fits") in lines[0]


def test_the_book_s_default_table_is_fitted_not_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from kinarow.cli.book import BUILD_TT_MB, table_mb

    monkeypatch.setattr(kinarow.limits, "available_memory_mb", lambda: 1.0)
    assert table_mb(None) == kinarow.limits.SMALLEST_DEFAULT_TT_MB <= BUILD_TT_MB
    monkeypatch.setattr(kinarow.limits, "available_memory_mb", lambda: 24 * 1024.0)
    assert table_mb(None) == BUILD_TT_MB
