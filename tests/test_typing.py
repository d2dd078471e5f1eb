"""mypy over the package: strict on the public API, normal checking elsewhere (settings in pyproject.toml).

The package ships ``py.typed``, so the types users see are the ones checked here.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_package_ships_its_types() -> None:
    assert (ROOT / "src" / "kinarow" / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["kinarow"]


def test_mypy_finds_no_error() -> None:
    pytest.importorskip("mypy", reason="mypy comes with the test extra: pip install -e '.[test]'")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--hide-error-context"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    assert run.returncode == 0, f"mypy found {len(errors)} error(s):\n" + (run.stdout + run.stderr).strip()
