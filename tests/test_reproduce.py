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


@pytest.mark.parametrize(("tally", "said"), [
    (reproduce.Tally(agree=588, open=132), "Compared with the paper: 588 figures, 588 agree, 0 differ, "
                                           "132 open (not settled here)."),
    (reproduce.Tally(conflicts=1), "Nothing compared with the paper (it gives no figures for this); "
                                   "1 conflict between our own methods."),
    (reproduce.Tally(agree=33, differ=12, given=48), "Compared with the paper: 45 figures, 33 agree, 12 differ; "
                                                     "48 given (the paper's own or built to match it), not compared."),
])
def test_the_output_says_what_was_compared_in_counts(monkeypatch, capsys, tally, said) -> None:
    report = reproduce.Report("misere-table", {"x": 1}, "a table", not tally.differ and not tally.conflicts,
                              [], tally)
    monkeypatch.setattr(reproduce, "run", lambda name, **options: report)
    assert main(["reproduce", "misere-table"]) == 0
    out = capsys.readouterr().out
    assert out == f"a table\n{said}\n"
    assert "Every figure agrees" not in out
    assert main(["reproduce", "misere-table", "--json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert data["tally"] == {**tally.to_dict(), "compared": tally.agree + tally.differ}
