"""Charts the benchmark scripts draw: well-formed SVG holding the figures they were given; a bad --plot path is
one sentence and exit status 2 before any work."""

from __future__ import annotations

import importlib.util
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

NS = "{http://www.w3.org/2000/svg}"
BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def benchmark(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"plots_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # a dataclass in the script looks its module up while it is being made
    spec.loader.exec_module(module)
    return module


def bars(picture: str) -> list[tuple[str, str, float]]:
    root = ET.fromstring(picture)
    return [(b.get("data-category", ""), b.get("data-series", ""), float(b.get("data-value", "nan")))
            for b in root.iter(f"{NS}rect") if b.get("class") == "bar"]


def test_knowledge_chart_has_a_bar_per_game_and_level() -> None:
    bench = benchmark("bench_knowledge")
    rows = [
        {"game": "4x4k4", "knowledge": "none", "value": "draw", "nodes": 37_533},
        {"game": "4x4k4", "knowledge": "pairing", "value": "draw", "nodes": 22},
        {"game": "4x4k4", "knowledge": "matching", "value": "draw", "nodes": 1},
        {"game": "5x5k5", "knowledge": "none", "value": "unknown", "nodes": 10_645_505},
        {"game": "5x5k5", "knowledge": "pairing", "value": "draw", "nodes": 1},
    ]
    picture = bench.chart(rows, 10.0)
    assert bars(picture) == [("4x4k4", "none", 37_533), ("4x4k4", "pairing", 22), ("4x4k4", "matching", 1),
                             ("5x5k5 *", "none", 10_645_505), ("5x5k5 *", "pairing", 1)]
    assert "stopped after 10 s" in picture


@pytest.mark.parametrize("name", ["bench_knowledge", "bench_connect4_peers", "bench_torus"])
def test_benchmark_plot_in_a_missing_folder_is_one_sentence(capsys, monkeypatch, tmp_path, name) -> None:
    bench = benchmark(name)
    monkeypatch.setattr(sys, "argv", [f"{name}.py", "--plot", str(tmp_path / "missing" / "chart.svg")])
    assert bench.main() == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and err.count("\n") == 1


TABLE = """Some words.

| work | c4 | Pons | kinarow |
| --- | --- | --- | --- |
| 6x5 from the empty board | 0.87 s, 1.1 M nodes, draw, move 30 | 0.51 s, 5.0 M nodes, draw | 0.74 s, draw |
| 7x6 from the empty board | 39.02 s, 120.3 M nodes, first, move 41 | > 90 s | 224.18 s, first, move 41 |
| 400 random 7x6 positions (16-30 stones), exact score | takes no position | 1.47 s | 1.49 s, 400 / 400 agree |

| work | c4 | Pons | kinarow |
"""


def test_peers_chart_redraws_a_saved_table() -> None:
    bench = benchmark("bench_connect4_peers")
    rows = bench.rows_from_table(TABLE)
    assert [what for what, *_ in rows] == ["6x5 from the empty board", "7x6 from the empty board",
                                          "400 random 7x6 positions (16-30 stones), exact score"]
    assert rows[0][1].nodes == 1_100_000 and rows[1][2].note == "> 90 s"
    picture = bench.chart(rows)
    assert bars(picture) == [
        ("6x5, empty board", "c4", 0.87), ("6x5, empty board", "Pons", 0.51), ("6x5, empty board", "kinarow", 0.74),
        ("7x6, empty board", "c4", 39.02), ("7x6, empty board", "kinarow", 224.18),
        ("400 7x6 positions, exact", "Pons", 1.47), ("400 7x6 positions, exact", "kinarow", 1.49),
    ]
    assert "Pons on 7x6, empty board: &gt; 90 s" in picture


def test_peers_chart_from_a_table_needs_one(capsys, tmp_path) -> None:
    bench = benchmark("bench_connect4_peers")
    (tmp_path / "notes.md").write_text("no table here\n")
    argv = ["--from-table", str(tmp_path / "notes.md"), "--plot", str(tmp_path / "c.svg")]
    assert bench.main(argv) == 2
    assert bench.main(argv[:2]) == 2
    err = capsys.readouterr().err.splitlines()
    assert "no table headed" in err[0] and "needs --plot FILE" in err[1] and len(err) == 2
    (tmp_path / "notes.md").write_text(TABLE)
    assert bench.main(argv) == 0 and len(bars((tmp_path / "c.svg").read_text())) == 7


def test_torus_seconds_chart_puts_the_published_seconds_beside_ours() -> None:
    bench = benchmark("bench_torus")
    assert bars(bench.chart("9", 8.3, 9.4)) == [
        ("classes (enumeration)", "kinarow", 8.3), ("classes (enumeration)", bench.PUBLISHED_NAME, 240),
        ("transition graph", "kinarow", 9.4), ("transition graph", bench.PUBLISHED_NAME, 60),
    ]
    assert [series for _, series, _ in bars(bench.chart("hex7", 0.1, 0.2))] == ["kinarow", "kinarow"]  # none published
