"""``kinarow verify``, ``kinarow check`` on verified-strategy certificates, and ``play --engine``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import feed, run


def test_verify_text(capsys):
    code, out, _ = run(capsys, "verify", "take-even", "7x6k4:gravity,misere")
    assert code == 0
    assert out.splitlines()[0] == (
        "Verified: take-even wins for the second player in 7x6k4:gravity,misere against every reply."
    )
    assert "longest game: 37 stones" in out
    assert "positions:    7,312" in out


def test_verify_json_fields(capsys):
    code, out, _ = run(capsys, "verify", "pair-row", "7x1k3:gravity,misere", "--as", "first", "--json")
    assert code == 0
    data = json.loads(out)
    assert {"strategy", "player", "outcome", "positions", "seconds"} <= data.keys()
    assert (data["strategy"], data["player"], data["outcome"]) == ("pair-row", "first", "draw")


def test_verify_failure_prints_the_counterexample(capsys):
    code, out, _ = run(capsys, "verify", "delayed-take-even", "5x3k3:gravity,misere,cylinder", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["outcome"] == "fails"
    assert data["counterexample"].startswith("1. ")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["verify", "nope", "7x6k4:gravity,misere"], "no strategy called 'nope'"),
        (["verify", "take-even", "7x6k4:gravity,misere", "--as", "first"], "plays the second player"),
        (["verify", "take-even", "7x5k4:gravity,misere"], "does not apply to 7x5k4"),
        (["verify", "take-even", "7x6k4"], "plays misère Connect-k"),
        (["verify", "take-even", "7x6k4:gravity,misere", "--max-positions", "0"], "--max-positions"),
        (["play", "7x6k4:gravity,misere", "--engine", "take-even", "--second"], "plays the second player"),
        (["verify", "delayed-take-even", "7x5k4:gravity,misere,cylinder", "--family"], "no invariant certificate"),
        (["verify", "take-even", "3x4k4:gravity,misere,cylinder", "--family"], "no invariant certificate"),
        (["verify", "take-even", "7x6k4:gravity,misere", "--family", "--max-positions", "9"], "--max-positions"),
    ],
)
def test_bad_inputs_are_one_line_exit_2(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert err.startswith("kinarow: error: ")
    assert err.count("\n") == 1


def test_certificate_written_and_checked(capsys, tmp_path: Path):
    path = tmp_path / "te.json"
    code, out, _ = run(capsys, "verify", "take-even", "5x4k3:gravity,misere", "--out", str(path))
    assert code == 0
    assert f"Certificate written to {path}" in out
    code, out, _ = run(capsys, "check", str(path))
    assert code == 0
    assert out.startswith("VALID: in 5x4k3:gravity,misere, take-even guarantees a win for the second player")
    data = json.loads(path.read_text())
    data["positions"] += 1
    path.write_text(json.dumps(data))
    code, out, _ = run(capsys, "check", str(path))
    assert code == 1
    assert out.startswith("REJECTED: ")


def test_play_against_take_even_and_lose(capsys, monkeypatch):
    # The human tries every column in turn; take-even answers on top each time, so the human loses.
    feed(monkeypatch, list("abcdefg" * 6))
    code, out, _ = run(capsys, "play", "7x6k4:gravity,misere", "--engine", "take-even")
    assert code == 0
    assert "kinarow is White (O) playing the take-even strategy" in out
    assert "kinarow plays column a (a2) by take-even." in out
    assert out.splitlines()[-1] == "Game over: White (O) wins. kinarow wins."


def test_play_as_second_against_delayed_take_even(capsys, monkeypatch):
    feed(monkeypatch, list("abcdabcdabcdabcdabcd"))
    code, out, _ = run(capsys, "play", "5x3k3:gravity,misere", "--engine", "delayed-take-even")
    assert code == 0
    assert "you are White (O), kinarow is Black (X)" in out
    assert out.splitlines()[-1] == "Game over: Black (X) wins. kinarow wins."


def test_check_rejects_a_certificate_for_a_board_the_strategy_does_not_fit(capsys, tmp_path: Path):
    path = tmp_path / "bad.json"
    data = {"format": "kinarow.verified-strategy", "version": 1, "strategy": "take-even",
            "game": "7x5k4:gravity,misere", "player": "second", "outcome": "win", "positions": 1}
    path.write_text(json.dumps(data))
    code, out, _ = run(capsys, "check", str(path))
    assert code == 1
    assert out.startswith("REJECTED:") and "take-even" in out and "7x5k4:gravity,misere" in out
    assert "does not apply" in out


def _too_weak(data: dict) -> None:
    data["invariant"]["heights"]["repeat"] = [True]  # odd heights allowed


def _answered_on_top(data: dict) -> None:
    data["responses"][0]["offset"] = [0, 1]  # a bottom-row stone answered on top instead of in its pair


@pytest.mark.parametrize(
    ("strategy", "game", "proven", "tamper", "rejected"),
    [
        ("take-even", "7x6k4:gravity,misere", "wins for the second player on every WxHk4:gravity,misere with W >= 4, "
         "H = 2, 4, 6, ...", _too_weak, "invariant does not hold"),
        ("delayed-take-even", "7x5k4:gravity,misere", "wins for the first player on every WxHk4:gravity,misere "
         "with W = 5, 7, 9, ..., H = 3, 5, 7, ...", _answered_on_top, "row 2 is not the strategist's"),
    ],
)
def test_family_certificates_written_checked_and_tampered(capsys, tmp_path: Path, strategy, game, proven, tamper,
                                                          rejected):
    path = tmp_path / f"{strategy}.json"
    code, out, _ = run(capsys, "verify", strategy, game, "--family", "--proof", str(path))
    assert code == 0 and out.startswith(f"Proven: {strategy} {proven}"), out
    code, out, _ = run(capsys, "check", str(path))
    assert code == 0 and out.startswith(f"VALID: {strategy} wins"), out
    data = json.loads(path.read_text())
    tamper(data)
    path.write_text(json.dumps(data))
    code, out, _ = run(capsys, "check", str(path))
    assert code != 0 and "REJECTED" in out and rejected in out, out


def test_a_misere_table_writes_every_cells_certificates(capsys, tmp_path: Path):
    from kinarow.papers.steele_larremore import Budget, reproduce_table

    folder = tmp_path / "proofs"
    report = reproduce_table((2, 3), (1, 2, 3, 4, 5), (1, 2, 3), Budget(invariants=True), proof=str(folder))
    assert report.agrees and report.tally.open == 0, report.differences
    assert "Invariant certificates, each checked once" in report.text
    assert "proven" in report.text and "delayed-take-even wins for the first player on every WxHk3" in report.text
    index = json.loads((folder / "index.json").read_text())
    assert len(index["cells"]) == 30
    by_cell = {(c["k"], c["w"], c["h"]): c for c in index["cells"]}
    assert all(c["certificates"] for c in index["cells"])  # every settled cell names its evidence
    assert by_cell[(3, 5, 3)]["certificates"][0] == "families/delayed-take-even-first-k3.json"
    assert by_cell[(3, 2, 3)]["certificates"][0] == "families/narrow-k3.json"
    assert by_cell[(2, 2, 1)]["certificates"] == ["cells/k2-2x1-solver.json"]  # only the solver settles it
    sample = sorted({f for c in index["cells"] for f in c["certificates"] if f.startswith("families/")})
    sample += [by_cell[(3, 4, 1)]["certificates"][0], by_cell[(2, 5, 3)]["certificates"][0], "cells/k2-2x1-solver.json"]
    for name in sample:
        code, out, _ = run(capsys, "check", str(folder / name))
        assert code == 0 and out.startswith("VALID"), (name, out)
    # and every file the table wrote is accepted (a 1x1 board's walk has no position to re-examine: not written)
    from kinarow.proofs import check_data

    written = sorted(p for p in folder.rglob("*.json") if p.name != "index.json")
    assert {f"{p.parent.name}/{p.name}" for p in written} == {f for c in index["cells"] for f in c["certificates"]}
    for path in written:
        verdict = check_data(json.loads(path.read_text()))
        assert verdict.ok, (path.name, verdict.reason)


def test_reproduce_proof_is_for_the_misere_tables(capsys, tmp_path: Path):
    code, _, err = run(capsys, "reproduce", "torus-hex7", "--proof", str(tmp_path))
    assert code == 2 and "--proof DIR is for connect4-table, misere-cylinder and misere-table" in err


def test_a_cylinder_table_writes_every_cells_certificates(tmp_path: Path):
    from kinarow.papers.steele_larremore import reproduce_cylinder
    from kinarow.proofs import check_data

    folder = tmp_path / "rings"
    report = reproduce_cylinder((2,), (1, 2, 3, 4), (1, 2, 3), proof=str(folder))
    index = json.loads((folder / "index.json").read_text())
    assert index["cylinder"] is True and len(index["cells"]) == 12
    settled = [c for c in index["cells"] if c["value"] != "open"]
    assert settled and all(c["certificates"] for c in settled)
    cells = {(c["w"], c["h"]): c for c in index["cells"]}
    assert cells[(4, 2)]["certificates"][0] == "families/take-even-second-k2-cylinder.json"
    assert "take-even wins for the second player on every WxHk2:gravity,misere,cylinder" in report.text
    for path in sorted(p for p in folder.rglob("*.json") if p.name != "index.json"):
        verdict = check_data(json.loads(path.read_text()))
        assert verdict.ok, (path.name, verdict.reason)


def test_reproduce_certificates_is_for_the_cylinder_table(capsys, tmp_path: Path):
    code, _, err = run(capsys, "reproduce", "torus-hex7", "--certificates", str(tmp_path))
    assert code == 2 and "--certificates DIR is for connect4-table and misere-cylinder" in err
    code, _, err = run(capsys, "reproduce", "misere-cylinder", "--certificates", str(tmp_path / "absent"))
    assert code == 2 and "is not a folder" in err


def test_a_cylinder_settled_by_a_shipped_certificate_writes_a_copy(tmp_path: Path):
    from kinarow.papers.steele_larremore import Budget, reproduce_cylinder
    from kinarow.proofs import check_data

    shipped = Path(__file__).resolve().parents[1] / "certificates"
    folder = tmp_path / "proofs"
    report = reproduce_cylinder((3,), (9,), (3,), Budget(solver_nodes=1_000, cross_check_cells=0),
                                proof=str(folder), certificates=str(shipped))
    assert "settled 1 of 1 cylinders" in report.text
    assert "9x3k3:gravity,misere,cylinder: first (certificate misere-cylinder-9x3k3.strategy.json.gz checked" \
        in report.text
    index = json.loads((folder / "index.json").read_text())
    assert index["cells"][0]["certificates"] == ["cells/k3-9x3-certificate.json"]
    verdict = check_data(json.loads((folder / "cells/k3-9x3-certificate.json").read_text()), compiled=True)
    assert verdict.ok and "first player (Black) wins" in verdict.reason
    report = reproduce_cylinder((3,), (9,), (3,), Budget(solver_nodes=1_000, cross_check_cells=0))
    assert "settled 0 of 1 cylinders" in report.text and "none read (no folder given)" in report.text
