"""Every certificate shipped in certificates/ passes ``kinarow check`` (rules only, no search code)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kinarow.cli import main

HERE = Path(__file__).resolve().parents[1] / "certificates"
SHIPPED = sorted([*HERE.glob("*.strategy.json*"), *HERE.glob("*.draw.json*")])
LOGS = sorted(HERE.glob("*.searchlog.json*"))


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_shipped_certificate_passes_the_checker(path, capsys):
    code = main(["check", str(path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.startswith("VALID")


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_search_logs_are_not_accepted_as_certificates(path, capsys):
    assert main(["check", str(path)]) == 1
    assert "search log" in capsys.readouterr().err
