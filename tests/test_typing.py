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


ENGINES = '''
from kinarow.search.connect import ScoreSearcher
from kinarow.search.engine import Engine
from kinarow.search.proof_search import ProofSearcher
from kinarow.search.solve import Searcher


def ask(engine: Engine) -> None:
    engine.value(engine.game.start())


ask(Searcher("3x3k3"))
ask(ProofSearcher("4x4k4"))
ask(ScoreSearcher("4x4k3:gravity"))
'''

#: an object with a wrong question: mypy must refuse it as an Engine (so that the check above can fail)
NOT_AN_ENGINE = ENGINES + '''

class Half:
    game = Searcher("3x3k3").game

    def value(self, position: object) -> str:
        return "draw"


ask(Half())
'''


def test_every_search_is_an_engine_to_mypy(tmp_path: Path) -> None:
    """The three searches implement the engine contract (kinarow.search.engine.Engine) as mypy reads it."""
    pytest.importorskip("mypy", reason="mypy comes with the test extra: pip install -e '.[test]'")
    runs = []
    for name, text in (("engines.py", ENGINES), ("not_an_engine.py", NOT_AN_ENGINE)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        runs.append(subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", str(tmp_path / name)],
                                   cwd=ROOT, capture_output=True, text=True, check=False))
    good, bad = runs
    assert good.returncode == 0, (good.stdout + good.stderr).strip()
    assert bad.returncode == 1 and 'Argument 1 to "ask" has incompatible type "Half"; expected "Engine"' in bad.stdout
