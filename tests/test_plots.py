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


@pytest.mark.parametrize("name", ["bench_knowledge"])
def test_benchmark_plot_in_a_missing_folder_is_one_sentence(capsys, monkeypatch, tmp_path, name) -> None:
    bench = benchmark(name)
    monkeypatch.setattr(sys, "argv", [f"{name}.py", "--plot", str(tmp_path / "missing" / "chart.svg")])
    assert bench.main() == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and err.count("\n") == 1
