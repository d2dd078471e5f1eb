"""The package as a user gets it: ``python -m build`` makes an sdist and a wheel, and the wheel, installed
(not editable), solves a game and serves the web page with its files.

The wheel is installed without its dependencies into a folder of its own that comes first on the path, so the
test runs the installed files (not this checkout) against the dependencies already here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

import kinarow

ROOT = Path(__file__).resolve().parents[1]
#: files a user's installation needs besides the modules: the web page, the opening book, the typing marker
DATA_FILES = ("kinarow/web/index.html", "kinarow/data/7x6k4-gravity.book.npz", "kinarow/py.typed")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the sdist, the wheel) built from this checkout by ``python -m build``."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    sdists, wheels = list(out.glob("*.tar.gz")), list(out.glob("*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, sorted(p.name for p in out.iterdir())
    return sdists[0], wheels[0]


@pytest.fixture(scope="module")
def installed(built: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel installed (its files only) into a folder of its own."""
    target = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile", "--target",
                           str(target), str(built[1])], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return target


def _run_installed(target: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(target), "KINAROW_STORE": str(cwd / "store.sqlite")}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=600, cwd=cwd, env=env)


def test_the_version_is_written_once_and_names_both_files(built: tuple[Path, Path]) -> None:
    sdist, wheel = built
    assert re.fullmatch(r"\d+\.\d+\.\d+", kinarow.__version__)
    assert sdist.name == f"kinarow-{kinarow.__version__}.tar.gz"
    assert wheel.name.startswith(f"kinarow-{kinarow.__version__}-")
    project = (ROOT / "pyproject.toml").read_text().split("[project.optional-dependencies]")[0]
    assert f'\nversion = "{kinarow.__version__}"' in project  # written in pyproject.toml, read back as installed
    assert not [path for path in (ROOT / "src").rglob("*.py") if "__version__ =" in path.read_text()]


def test_the_wheel_and_the_sdist_hold_the_data_files(built: tuple[Path, Path]) -> None:
    sdist, wheel = built
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    for name in DATA_FILES:
        assert name in names, name
    assert not any(name.startswith(("tests/", "benchmarks/", "certificates/")) for name in names)
    with tarfile.open(sdist) as t:
        members = {m.name.split("/", 1)[1] for m in t.getmembers() if "/" in m.name}
    for name in DATA_FILES:
        assert f"src/{name}" in members, name
    assert {"README.md", "LICENSE", "pyproject.toml"} <= members


def test_the_installed_wheel_solves_and_says_its_version(installed: Path, tmp_path: Path) -> None:
    where = _run_installed(installed, "-c", "import kinarow; print(kinarow.__file__)", cwd=tmp_path)
    assert Path(where.stdout.strip()).is_relative_to(installed), where.stdout + where.stderr  # not this checkout
    done = _run_installed(installed, "-m", "kinarow", "solve", "4x4k4", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Draw with perfect play.")
    version = _run_installed(installed, "-m", "kinarow", "--version", cwd=tmp_path)
    assert version.stdout.strip() == f"kinarow {kinarow.__version__}"


def test_the_installed_wheel_serves_the_page(installed: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(installed)}
    server = subprocess.Popen([sys.executable, "-m", "kinarow", "serve", "--port", "0", "--no-store"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        found = re.search(r"(http://\S+?)/? \(Ctrl-C", line)
        assert found, line + (server.stderr.read() if server.poll() is not None and server.stderr else "")
        page = ""
        for _ in range(100):
            try:
                with urllib.request.urlopen(found.group(1) + "/", timeout=10) as answer:
                    page = answer.read().decode()
                break
            except OSError:
                time.sleep(0.1)
        assert "<html" in page.lower() and "kinarow" in page
    finally:
        server.terminate()
        server.wait(timeout=30)
