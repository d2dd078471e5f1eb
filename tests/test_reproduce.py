"""The reproduction registry and ``kinarow reproduce``."""

from __future__ import annotations

import pytest

import kinarow.papers as reproduce
from kinarow.cli import main


def test_every_target_names_a_loadable_function() -> None:
    for t in reproduce.TARGETS:
        assert t.paper and t.figures
        assert callable(t.load())


def test_names_are_unique() -> None:
    assert len(set(reproduce.names())) == len(reproduce.TARGETS)


def test_list_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    for name in reproduce.names():
        assert name in out


def test_unknown_target_is_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "no-such-table"]) == 2
    err = capsys.readouterr().err
    assert "no reproduction called 'no-such-table'" in err
    assert err.count("\n") == 1
