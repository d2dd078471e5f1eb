"""The documentation site (mkdocs.yml): ``mkdocs build --strict`` builds it without a warning (a broken link, a
page left out of the navigation, an API reference that does not resolve), and the results page names every
shipped certificate and every long case."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kinarow.papers.open_cases import CASES

ROOT = Path(__file__).resolve().parent.parent


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    for plugin in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        pytest.importorskip(plugin)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    api = (tmp_path / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("kinarow.search.solve.Result", "kinarow.notebook.svg_of", "kinarow.proofs.check_data"):
        assert f'id="{name}"' in api, f"the API reference has no entry for {name}"
    assert '<span class="gp">&gt;&gt;&gt; </span>' in api  # doctests shown as Python sessions, not as Markdown
    assert (tmp_path / "notebook.ipynb").exists()  # the example notebook is on the site, as the page links it


def test_the_results_page_names_every_certificate_and_case() -> None:
    page = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    shipped = sorted(p.name for p in (ROOT / "certificates").glob("*.json.gz"))
    assert shipped, "no certificates found"
    missing = [name for name in shipped if f"`{name}`" not in page]
    missing += [case.name for case in CASES if f"| {case.name} | {case.game} |" not in page]
    assert not missing, f"docs/results.md does not name {', '.join(missing)}"


def test_every_page_is_in_the_navigation() -> None:
    """mkdocs --strict fails on a page left out of ``nav``; this says which, without building the site."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    missing = [p.name for p in sorted((ROOT / "docs").glob("*.md")) if f": {p.name}" not in config]
    assert not missing, f"mkdocs.yml's nav does not list {', '.join(missing)}"
