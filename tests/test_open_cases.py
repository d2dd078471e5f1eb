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


def test_no_width_is_a_second_player_win_and_the_literatures_widths_are_as_cited():
    by_width = {w.m: w for w in open_cases.FOUR_HIGH}
    assert by_width[30].value == Value.FIRST and "Lustenberger" in by_width[30].how and "4 x 30" in by_width[30].how
    assert by_width[30].certificate is None  # the literature's, not ours
    assert all(by_width[m].value == Value.DRAW for m in range(1, 9))


@pytest.mark.parametrize("width", [w for w in open_cases.FOUR_HIGH if w.certificate],
                         ids=lambda w: w.game)
def test_a_width_settled_by_kinarow_names_a_shipped_certificate_of_its_value(width):
    # tests/test_shipped_certificates.py runs the checker on every shipped file; here the file's claim is the
    # table's value, for the empty board of that width
    path = CERTIFICATES / width.certificate
    assert path.is_file(), width.certificate
    data = json.loads(gzip.decompress(path.read_bytes()))
    assert (data["game"], data["moves"], data["claim"]) == (width.game, [], CLAIMS[width.value])


def test_every_open_width_has_no_value_and_every_settled_one_above_8_has_a_certificate():
    for w in open_cases.FOUR_HIGH:
        if 9 <= w.m <= 29:
            assert (w.value == "open") == (w.certificate is None), w.game
            assert w.value != Value.DRAW, w.game


@pytest.mark.parametrize("width", [w for w in open_cases.FOUR_HIGH if w.m <= 6 and not w.certificate],
                         ids=lambda w: w.game)
def test_a_small_width_without_a_shipped_file_is_solved_to_its_value(width):
    assert solve(width.game, knowledge="pairing").value == width.value


def test_settle_list_prints_the_table(capsys):
    assert main(["settle", "--list"]) == 0
    out = capsys.readouterr().out
    rows = out.split("(m,4,4)", 1)[1].splitlines()[1:]
    assert [r.split()[0] for r in rows] == [w.game for w in open_cases.FOUR_HIGH]
    assert [r.split()[1] for r in rows] == [str(w.value) for w in open_cases.FOUR_HIGH]
    for row, w in zip(rows, open_cases.FOUR_HIGH, strict=True):
        assert (f"[certificates/{w.certificate}]" in row) == (w.certificate is not None)
