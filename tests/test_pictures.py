"""--svg and --png on the commands: files written, what they draw, and one-line errors."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET

import pytest

from helpers import run
from kinarow import Game, svg

NS = "{http://www.w3.org/2000/svg}"



def test_show_svg_draws_the_stones_with_move_numbers(capsys, tmp_path):
    path = tmp_path / "c4.svg"
    code, out, _ = run(capsys, "show", "7x6k4:gravity", "--moves", "d d c", "--svg", str(path))
    assert code == 0 and f"Picture written to {path}." in out
    root = ET.fromstring(path.read_text())
    stones = [c for c in root.iter(f"{NS}circle") if c.get("class") == "stone"]
    assert len(stones) == 3
    assert sum(1 for r in root.iter(f"{NS}rect") if r.get("class") == "cell") == 42
    assert {"1", "2", "3", "7x6k4:gravity"} <= {t.text for t in root.iter(f"{NS}text")}


def test_pairing_svg_draws_every_pair(capsys, tmp_path):
    path = tmp_path / "p.svg"
    code, out, _ = run(capsys, "pairing", "5x5k5", "--svg", str(path))
    assert code == 0
    pairs = int(out.split("pairs (")[1].split(")")[0])
    root = ET.fromstring(path.read_text())
    assert sum(1 for c in root.iter(f"{NS}circle") if c.get("class") == "pair-end") == 2 * pairs
    assert len(list(root.iter(f"{NS}line"))) == pairs


def test_pairing_json_keeps_stdout_one_object(capsys, tmp_path):
    import json

    path = tmp_path / "p.svg"
    code, out, err = run(capsys, "pairing", "5x5k5", "--json", "--svg", str(path))
    assert code == 0 and json.loads(out)["exists"] is True
    assert path.exists() and "Picture written" in err


def test_png_is_a_png(capsys, tmp_path):
    pytest.importorskip("cairosvg", reason="PNG export needs the optional package cairosvg")
    path = tmp_path / "b.png"
    code, _, _ = run(capsys, "show", "5x5k4:hex", "--moves", "c3 b2", "--png", str(path))
    assert code == 0
    assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_png_without_cairosvg_is_one_sentence(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "cairosvg", None)  # makes 'import cairosvg' fail
    code, _, err = run(capsys, "show", "3x3k3", "--png", str(tmp_path / "b.png"))
    assert code == 2
    assert err.startswith("kinarow: error: PNG pictures need the optional package cairosvg") and err.count("\n") == 1


def test_unwritable_picture_is_one_sentence(capsys, tmp_path):
    code, _, err = run(capsys, "show", "3x3k3", "--svg", str(tmp_path / "missing" / "b.svg"))
    assert code == 2
    # refused before any work, naming the option and why
    assert err.startswith("kinarow: error: --svg ") and "its folder" in err and "does not exist" in err
    assert err.count("\n") == 1


def test_board_marks_cells_for_the_web_page():
    picture = svg.board(Game("3x3k3").position("b2"), fills={0: "#9be39b"}, labels={0: "★"})
    root = ET.fromstring(picture)
    names = {r.get("data-cell") for r in root.iter(f"{NS}rect") if r.get("class") == "cell"}
    assert names == {f"{c}{r}" for c in "abc" for r in "123"}
    assert any(r.get("fill") == "#9be39b" and r.get("data-cell") == "a1" for r in root.iter(f"{NS}rect"))


def test_hex_board_has_coordinates():
    root = ET.fromstring(svg.board(Game("4x3k3:hex").start()))
    texts = {t.text for t in root.iter(f"{NS}text")}
    assert {"a", "b", "c", "d", "1", "2", "3"} <= texts


def test_long_pairs_are_thin_lines_and_dominoes_bars():
    picture = svg.board(Game("5x5k5").start(), pairs=[(0, 1), (0 + 5 * 1, 4 + 5 * 3)])
    widths = sorted(float(line.get("stroke-width")) for line in ET.fromstring(picture).iter(f"{NS}line"))
    assert widths[0] < widths[1]
