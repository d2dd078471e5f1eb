"""The (m,4,4) table (``open_cases.FOUR_HIGH``): every width once, each known value backed by what it names."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from kinarow.cli import main
from kinarow.papers import open_cases
from kinarow.search.solve import solve
from kinarow.values import Value

CERTIFICATES = Path(__file__).resolve().parents[1] / "certificates"
CLAIMS = {Value.DRAW: "draw", Value.FIRST: "first wins"}


def test_every_width_from_1_to_30_once_in_order():
    assert [w.m for w in open_cases.FOUR_HIGH] == list(range(1, 31))
    assert all(w.game == f"{w.m}x4k4" for w in open_cases.FOUR_HIGH)
    assert all(w.value in (Value.DRAW, Value.FIRST, "open") for w in open_cases.FOUR_HIGH)


def test_the_table_in_the_docs_gives_each_width_the_same_value_and_source():
    # docs/results.md's (m,4,4) table is written by hand: each of its rows must say what FOUR_HIGH says
    words = {Value.DRAW: "draw", Value.FIRST: "first-player win", "open": "open"}
    text = (Path(__file__).resolve().parents[1] / "docs" / "results.md").read_text()
    table = text.split("| width m | value | how it is known |", 1)[1].split("\n\n", 1)[0]
    shown: dict[int, tuple[str, str]] = {}
    for row in table.splitlines()[2:]:
        widths, value, how = (cell.strip() for cell in row.strip("|").split("|", 2))
        for m in widths.split(","):
            shown[int(m)] = (value.strip("*"), how)
    by_width = {w.m: w for w in open_cases.FOUR_HIGH}
    assert sorted(shown) == sorted(by_width)
    for m, w in by_width.items():
        assert shown[m][0] == words[w.value], m
        if w.certificate:
            assert f"`{w.certificate}`" in shown[m][1], m
        else:  # the one value kinarow does not prove itself, with its source
            assert m == 30 and "Lustenberger" in shown[m][1] and "Lustenberger" in w.how


@pytest.mark.parametrize("width", [w for w in open_cases.FOUR_HIGH if w.certificate],
                         ids=lambda w: w.game)
def test_a_width_settled_by_kinarow_names_a_shipped_certificate_of_its_value(width):
    # tests/test_shipped_certificates.py runs the checker on every shipped file; here the file's claim is the
    # table's value, for the empty board of that width
    path = CERTIFICATES / width.certificate
    assert path.is_file(), width.certificate
    data = json.loads(gzip.decompress(path.read_bytes()))
    claim = "draw" if data["format"] == "kinarow.matching" else data["claim"]  # matching sets: neither side wins
    assert (data["game"], data["moves"], claim) == (width.game, [], CLAIMS[width.value])


def test_every_open_width_has_no_value_and_every_settled_one_above_8_has_a_certificate():
    for w in open_cases.FOUR_HIGH:
        if 9 <= w.m <= 29:
            assert (w.value == "open") == (w.certificate is None), w.game
            assert w.value != Value.DRAW, w.game


def test_every_value_but_the_literature_s_width_30_names_a_shipped_certificate():
    # docs/results.md claims a value only with a shipped certificate; 30 is cited, and said to be cited
    for w in open_cases.FOUR_HIGH:
        if w.value != "open" and w.m != 30:
            assert w.certificate is not None, w.game


@pytest.mark.parametrize("width", [w for w in open_cases.FOUR_HIGH if w.m <= 6], ids=lambda w: w.game)
def test_a_small_width_s_value_is_the_solver_s_too(width):
    assert solve(width.game, knowledge="pairing").value == width.value


def test_settle_list_prints_the_table(capsys):
    assert main(["settle", "--list"]) == 0
    out = capsys.readouterr().out
    rows = out.split("(m,4,4)", 1)[1].splitlines()[1:]
    assert [r.split()[0] for r in rows] == [w.game for w in open_cases.FOUR_HIGH]
    assert [r.split()[1] for r in rows] == [str(w.value) for w in open_cases.FOUR_HIGH]
    for row, w in zip(rows, open_cases.FOUR_HIGH, strict=True):
        assert (f"[certificates/{w.certificate}]" in row) == (w.certificate is not None)
