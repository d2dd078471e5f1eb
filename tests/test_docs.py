"""The README and the docs name modules and files that exist, and the README's Python example prints what it shows.

A module moved in the package leaves its old name behind in prose; these tests
find such names: every ``kinarow.a.b`` written in README.md, docs/*.md and the
READMEs of certificates/ and checkpoints/ must be a module or an attribute of
one, or a certificate format (``kinarow.pairing`` is both an old module name and
a format name: as a format it stays).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re
from pathlib import Path

import pytest

from kinarow.proofs import CHECKERS, SEARCH_LOG_FORMAT
from kinarow.proofs.torus import CLASSES_FORMAT

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = [README, *sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("certificates/README*")),
        *sorted(ROOT.glob("checkpoints/README*"))]
FORMATS = {*CHECKERS, SEARCH_LOG_FORMAT, CLASSES_FORMAT}
NAME = re.compile(r"(?<![\w/.-])kinarow(?:\.[A-Za-z_]\w*(?:-[a-z]+)*)+(?::[A-Za-z_]\w*)?")
FILE = re.compile(r"(?<![\w./])[\w/]*\w\.py\b")
PY_FILES = ["/" + p.relative_to(ROOT).as_posix() for d in ("src", "tests", "benchmarks")
            for p in (ROOT / d).rglob("*.py")]
IMPORT = re.compile(r"^\s*(?:>>> )?((?:from kinarow[\w.]* import [\w, ]+)|(?:import kinarow[\w.]*))\s*$", re.M)


def resolves(name: str) -> bool:
    """Whether ``kinarow.a.b`` (or ``kinarow.a:b``) is a module, or an attribute reached from the longest module."""
    parts = name.replace(":", ".").split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attribute in parts[i:]:
            if not hasattr(obj, attribute):
                return False
            obj = getattr(obj, attribute)
        return True
    return False


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_named_modules_exist(path: Path) -> None:
    stale = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for match in NAME.finditer(line):
            name = match.group(0)
            if name not in FORMATS and not resolves(name):
                stale.append(f"{path.relative_to(ROOT)}:{number}: {name}")
    assert not stale, "names of no module or attribute (moved?):\n" + "\n".join(stale)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_named_files_exist(path: Path) -> None:
    """Every ``x.py`` or ``folder/x.py`` named is the end of a file's path in src/, tests/ or benchmarks/."""
    stale = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for match in FILE.finditer(line):
            if not any(file.endswith("/" + match.group(0)) for file in PY_FILES):
                stale.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)}")
    assert not stale, "files that do not exist (moved?):\n" + "\n".join(stale)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_shown_imports_work(path: Path) -> None:
    for statement in IMPORT.findall(path.read_text(encoding="utf-8")):
        exec(statement, {})


def test_readme_python_example_prints_what_it_shows() -> None:
    section = README.read_text(encoding="utf-8").split("## Python API", 1)[1]
    code, shown = re.findall(r"```(?:python)?\n(.*?)```", section, re.S)[:2]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {"__name__": "readme"})
    assert out.getvalue() == shown
