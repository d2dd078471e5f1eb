"""SVG primitives: well-formed XML, one shape per cell, stones and segments drawn."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from kinarow import Game, svg

NS = "{http://www.w3.org/2000/svg}"


def parse(text: str) -> ET.Element:
    return ET.fromstring(text)


def test_board_draws_every_cell_stone_and_pair() -> None:
    position = Game("5x4k4").position("c3 b2 d4")
    root = parse(svg.board(position, pairs=[(0, 1)], groups=[(0, 5, 10, 15)]))
    cells = [r for r in root.iter(f"{NS}rect")][1:]  # the first rect is the background
    assert len(cells) == 20
    circles = list(root.iter(f"{NS}circle"))
    assert sum(c.get("class") == "stone" for c in circles) == 3
    assert sum(c.get("class") == "pair-end" for c in circles) == 2  # a disc on each end of the pair
    assert len(list(root.iter(f"{NS}line"))) == 2
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert {"1", "2", "3", "a", "e", "4"} <= set(texts)


def test_hex_board_uses_hexagons() -> None:
    root = parse(svg.board(Game("4x3k3:hex").start()))
    assert len(list(root.iter(f"{NS}polygon"))) == 12


def test_grid_escapes_text_and_needs_cells() -> None:
    text = svg.grid([(0, 0)], labels={(0, 0): "<&>"}, title="a & b")
    parse(text)
    assert "&lt;&amp;&gt;" in text
    with pytest.raises(ValueError):
        svg.grid([])


def test_matching_set_letters_markers_and_draws_groups() -> None:
    position = Game("4x4k4").start()
    root = parse(svg.matching_set(position, ["a1", "b1", "c1"], [["a1", "b1", "c1", "d1"], ["a1", "b2", "c3", "d4"]],
                                  title="a long title that is wider than the board itself"))
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert {"a", "b", "c"} <= set(texts)
    assert len(list(root.iter(f"{NS}line"))) == 2
    assert float(root.get("width")) > 8 * len("a long title that is wider than the board itself")


def test_matching_command_draws_a_position(tmp_path) -> None:
    from kinarow.cli import main

    path = tmp_path / "m.svg"
    assert main(["matching", "4x4k4", "--svg", str(path)]) == 0
    root = parse(path.read_text())
    assert len(list(root.iter(f"{NS}line"))) == 10  # the ten groups of the empty 4x4 board
    assert main(["matching", "ab acd", "--svg", str(path)]) == 2  # abstract groups: nothing to draw on


def test_bar_chart_holds_its_values_and_labels() -> None:
    chart = svg.BarChart(["4x4k4", "a<b"], [("none", [37_533, 8]), ("matching", [1, None])], title="nodes", log=True)
    root = parse(svg.bar_charts([chart, svg.BarChart(["x"], [("ours", [2.5])])], title="two panels"))
    panels = [g for g in root.iter(f"{NS}g") if g.get("class") == "chart"]
    assert len(panels) == 2
    bars = [(b.get("data-category"), b.get("data-series"), b.get("data-value"))
            for b in panels[0].iter(f"{NS}rect") if b.get("class") == "bar"]
    assert bars == [("4x4k4", "none", "37533"), ("4x4k4", "matching", "1"), ("a<b", "none", "8")]  # None: no bar
    assert [t.text for t in panels[0].iter(f"{NS}text") if t.get("class") == "category"] == ["4x4k4", "a<b"]
    assert {"37,533", "none", "matching"} <= {t.text for t in panels[0].iter(f"{NS}text")}


@pytest.mark.parametrize(
    ("chart", "words"),
    [
        (svg.BarChart([], [("a", [])]), "at least one category"),
        (svg.BarChart(["x", "y"], [("a", [1])]), "has 1 values for 2 categories"),
        (svg.BarChart(["x"], [("a", [0])], log=True), "positive values"),
    ],
)
def test_bar_chart_refuses_bad_data(chart, words) -> None:
    with pytest.raises(ValueError, match=words):
        svg.bar_chart(chart)


def test_a_rack_draws_holes_discs_columns_and_where_the_next_disc_lands() -> None:
    """``frame=True`` (the web page's Connect-k boards): a frame with a hole per cell, each column one group that
    takes a click, and a hidden preview disc of the player to move where each column's next stone lands."""
    position = Game("4x3k3:gravity").position("b b c")
    root = parse(svg.board(position, frame=True))
    columns = [g for g in root.iter(f"{NS}g") if g.get("class") == "column"]
    assert [g.get("data-column") for g in columns] == ["a", "b", "c", "d"]
    for g in columns:
        holes = [c.get("data-cell") for c in g.iter(f"{NS}circle") if c.get("class") == "cell"]
        assert holes == [f"{g.get('data-column')}{row}" for row in (1, 2, 3)]
        assert sum(r.get("class") == "column-hit" for r in g.iter(f"{NS}rect")) == 1
    previews = {c.get("cx"): c.get("fill") for c in root.iter(f"{NS}circle") if c.get("class") == "preview"}
    assert len(previews) == 4 and set(previews.values()) == {svg.STONE_COLOURS[2]}  # White to move, any column
    landing = [c for g in columns if g.get("data-column") == "b" for c in g.iter(f"{NS}circle")]
    hole_b3 = next(c for c in landing if c.get("data-cell") == "b3")
    preview_b = next(c for c in landing if c.get("class") == "preview")
    assert (preview_b.get("cx"), preview_b.get("cy"), preview_b.get("opacity")) == (hole_b3.get("cx"),
                                                                                     hole_b3.get("cy"), "0")
    assert sum(c.get("class") == "stone" for c in root.iter(f"{NS}circle")) == 3
    assert not [r for r in root.iter(f"{NS}rect") if r.get("class") == "cell"]  # holes, not squares
    over = Game("4x3k3:gravity").position("a b a b a")  # Black has a1 a2 a3: no preview anywhere
    assert over.is_over and 'class="preview"' not in svg.board(over, frame=True)
    assert 'class="column"' not in svg.board(position) and 'class="column"' not in svg.board(
        Game("4x3k3:hex").start(), frame=True)  # only square boards become racks, and only when asked
