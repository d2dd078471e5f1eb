"""Pictures in Jupyter (kinarow.notebook): every type draws well-formed SVG or HTML, plain text is unchanged,
IPython shows the pictures, and the example notebook (docs/notebook.ipynb) runs."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import kinarow
from kinarow import Game, notebook
from kinarow.knowledge import matching, pairing
from kinarow.knowledge.infinite import tiling
from kinarow.proofs import check_data

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "docs" / "notebook.ipynb"
SVG = "image/svg+xml"
HTML = "text/html"


def objects() -> dict[str, tuple[Any, str]]:
    """One object of each type the notebook draws, with the MIME type it is drawn as."""
    solved = kinarow.solve("4x4k4", proof=True)
    found = pairing.find("6x6k5", moves="c3 d4")
    proof, why = matching.find_position("4x4k4", moves="b2 c3")
    assert proof is not None, why
    return {
        "game": (Game("3x3k3"), SVG),
        "position": (Game("5x4k4:gravity").position("c c b d"), SVG),
        "result": (kinarow.solve(Game("3x3k3").position("b2 a1")), HTML),
        "result with proof": (solved, HTML),
        "proof": (solved.proof, HTML),
        "verdict": (check_data(solved.proof.data), HTML),
        "pairing result": (found, HTML),
        "pairing": (found.pairing, SVG),
        "matching set": (matching.find("ab acd bce"), HTML),
        "matching proof": (proof, SVG),
        "tiling": (tiling.named("heptomino"), SVG),
    }


@pytest.fixture(scope="module")
def drawn() -> dict[str, tuple[Any, str]]:
    return objects()


def test_every_type_is_drawn_as_well_formed_svg_or_html(drawn: dict[str, tuple[Any, str]]) -> None:
    for name, (value, mime) in drawn.items():
        svg, html = notebook.svg_of(value), notebook.html_of(value)
        text = svg if mime == SVG else html
        assert text is not None, f"{name} is not drawn as {mime}"
        assert (html if mime == SVG else svg) is None, f"{name} is drawn twice"
        root = ET.fromstring(text)  # well-formed XML (SVG, or HTML written as XHTML)
        assert root.tag.endswith("svg" if mime == SVG else "div"), name


def test_a_result_shows_its_value_figures_and_best_move(drawn: dict[str, tuple[Any, str]]) -> None:
    result = drawn["result"][0]
    html = notebook.html_of(result)
    assert html is not None
    assert result.describe() in html
    assert f"{result.nodes:,}" in html and result.search in html
    assert result.best_move and f"best move: {result.best_move}" in html
    assert notebook.BEST_MOVE_COLOUR in html  # the best move's cell is filled
    assert "<svg" in html


def test_a_certificate_shows_what_it_proves_and_its_picture(drawn: dict[str, tuple[Any, str]]) -> None:
    proof = drawn["proof"][0]
    html = notebook.html_of(proof)
    assert html is not None and proof.format in html and "<svg" in html
    pairs = drawn["pairing"][0].pairs
    picture = notebook.certificate_picture(drawn["pairing"][0].to_json())
    assert picture is not None and picture.count("<line") >= len(pairs)
    verdict = notebook.html_of(check_data({**drawn["pairing"][0].to_json(), "pairs": []}))
    assert verdict is not None and "rejected" in verdict


def test_plain_text_is_unchanged() -> None:
    game = Game("3x3k3")
    position = game.position("b2 a1")
    assert repr(game) == "Game('3x3k3')"
    assert str(position) == position.text()
    assert "<" not in repr(position) and "<svg" not in str(position)


def test_a_board_too_large_to_draw_stays_plain_text() -> None:
    from kinarow.svg import MAX_PICTURE_CELLS

    side = int(MAX_PICTURE_CELLS**0.5) + 1
    assert notebook.svg_of(Game(f"{side}x{side}k5")) is None
    assert notebook.svg_of("not a kinarow object") is None


def test_ipython_shows_the_pictures_and_the_same_plain_text() -> None:
    """In a running IPython shell, ``import kinarow`` registers the pictures by itself."""
    pytest.importorskip("IPython")
    code = (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        "import kinarow\n"
        "position = kinarow.Game('3x3k3').position('b2')\n"
        "data, _ = shell.display_formatter.format(position)\n"
        "print(sorted(data)); print(data['text/plain'] == repr(position))\n"
        "data, _ = shell.display_formatter.format(kinarow.solve(position))\n"
        "print(sorted(data))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["['image/svg+xml', 'text/plain']", "True", "['text/html', 'text/plain']"]


def test_the_extension_registers_every_type() -> None:
    class Formatter:
        def __init__(self) -> None:
            self.names: list[tuple[str, str]] = []

        def for_type_by_name(self, module: str, name: str, function: Any) -> None:
            self.names.append((module, name))

    registered = {SVG: Formatter(), HTML: Formatter()}
    kinarow.load_ipython_extension(SimpleNamespace(display_formatter=SimpleNamespace(formatters=registered)))
    assert sorted(registered[SVG].names + registered[HTML].names) == sorted(notebook.FORMATTERS)


def test_the_example_notebook_runs_and_shows_pictures() -> None:
    """docs/notebook.ipynb, run from the top: no cell fails, and the pictures are there."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    book = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not cell.get("outputs") for cell in book.cells if cell.cell_type == "code"), "stored with outputs"
    env_path = os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = env_path  # the kernel imports this checkout's kinarow
    try:
        nbclient.NotebookClient(book, timeout=300, kernel_name="python3",
                                resources={"metadata": {"path": str(ROOT)}}).execute()
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    shown = [set(output.get("data", {})) for cell in book.cells if cell.cell_type == "code" for output in cell.outputs]
    assert sum(SVG in mimes for mimes in shown) >= 2  # the game and the position
    assert sum(HTML in mimes for mimes in shown) >= 4  # two results, the proof, the verdict, the pairing
