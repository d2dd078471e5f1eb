"""``kinarow reproduce connect4-table``: the published Connect Four table and the rows the score search settles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kinarow.papers as papers
from helpers import run
from kinarow import Game
from kinarow.errors import KinarowError
from kinarow.papers import connect4_table as C4
from kinarow.papers.connect4_data import BEYOND, PUBLISHED, boards
from kinarow.proofs import check_data
from kinarow.values import Value

SMALL = [(4, 4), (5, 4), (4, 5), (6, 4)]


def test_the_transcription_has_every_board_once() -> None:
    wanted = {(w, h) for w in range(4, 13) for h in range(4, 13) if w + h <= 16}
    assert set(PUBLISHED) == wanted and len(wanted) == 45
    assert sorted(boards()) == sorted(wanted) and len(boards()) == len(set(boards()))


def test_the_transcription_is_consistent() -> None:
    # a draw fills the board; the first player places the odd stones, the second the even ones
    for (w, h), (value, last) in PUBLISHED.items():
        assert 7 <= last <= w * h, (w, h)
        if value == Value.DRAW:
            assert last == w * h, (w, h)
        else:
            assert last % 2 == (1 if value == Value.FIRST else 0), (w, h)
    assert PUBLISHED[(7, 6)] == (Value.FIRST, 41) and PUBLISHED[(8, 8)] == (Value.SECOND, 62)
    assert PUBLISHED[(6, 4)] == (Value.SECOND, 24) and PUBLISHED[(12, 4)] == (Value.SECOND, 48)


def test_the_boards_past_sixteen_are_apart_and_consistent() -> None:
    # c4's results with w + h >= 17: none of the table's, none of the five open sizes w >= h of w + h = 17
    assert set(BEYOND).isdisjoint(PUBLISHED) and all(w + h >= 17 for w, h in BEYOND) and len(BEYOND) == 7
    assert not {(13, 4), (12, 5), (11, 6), (10, 7), (9, 8)} & set(BEYOND)
    for (w, h), (value, last) in BEYOND.items():
        if last is None:
            continue
        assert 7 <= last <= w * h and (value != Value.DRAW or last == w * h), (w, h)
        if value != Value.DRAW:
            assert last % 2 == (1 if value == Value.FIRST else 0), (w, h)
    assert BEYOND[(7, 10)] == (Value.FIRST, 69) and BEYOND[(8, 9)] == (Value.FIRST, None)


def test_the_smallest_boards_agree_with_the_table() -> None:
    report = C4.reproduce(only=SMALL, max_nodes=1_000_000)
    assert report.agrees and report.differences == []
    assert (report.tally.agree, report.tally.differ, report.tally.open) == (4, 0, 0)
    rows = {(r["w"], r["h"]): r for r in report.data["rows"]}
    assert rows[(6, 4)]["value"] == "second" and rows[(6, 4)]["last_move"] == 24
    assert rows[(4, 4)]["value"] == "draw" and rows[(4, 4)]["last_move"] == 16
    assert all(r["status"] == "agree" and r["note"] == "search value" for r in rows.values())
    assert "| 6 | 4 | second, 24 | second, 24 |" in report.text


def test_node_counts_repeat() -> None:
    first, again = C4.table(1_000_000, only=[(5, 5)]), C4.table(1_000_000, only=[(5, 5)])
    assert first[0].nodes == again[0].nodes > 0


def test_a_budget_that_runs_out_leaves_the_row_open() -> None:
    report = C4.reproduce(only=[(6, 5)], max_nodes=1_000)
    row = report.data["rows"][0]
    assert row["status"] == "open" and row["value"] is None and row["last_move"] is None
    assert row["note"] == "no answer within 1,000 nodes"
    assert report.agrees and (report.tally.agree, report.tally.differ, report.tally.open) == (0, 0, 1)
    assert "raise the budget: kinarow reproduce connect4-table --max-nodes N" in report.text


def test_the_boards_past_one_word_are_reachable() -> None:
    # 6x10 ... 11x5 go to the score search's two-word form (its own tests: tests/test_connect_two_words.py), so no
    # row of the table is "not reachable"; searching one here would only compile that form once more
    from kinarow.search.connect import layout_bits, score_search_fit

    wide = [(w, h) for (w, h) in C4.PUBLISHED if layout_bits(Game(f"{w}x{h}k4:gravity")) > 64]
    assert sorted(wide) == [(6, 10), (7, 9), (8, 8), (9, 7), (10, 6), (11, 5)]
    assert all(score_search_fit(Game(f"{w}x{h}k4:gravity")) for w, h in C4.PUBLISHED)


def test_a_difference_is_reported_plainly(monkeypatch) -> None:
    monkeypatch.setitem(C4.PUBLISHED, (4, 4), (Value.FIRST, 15))
    report = C4.reproduce(only=[(4, 4)], max_nodes=1_000_000)
    assert not report.agrees and report.tally.differ == 1
    [said] = report.differences
    assert said.startswith("4x4: kinarow finds draw, last move 16 (") and said.endswith(
        " nodes); the table says first, last move 15")
    assert "**differs**" in report.text


def test_proof_writes_a_checked_certificate_per_small_row(tmp_path: Path) -> None:
    folder = tmp_path / "c4"
    report = C4.reproduce(only=[(4, 4), (6, 4)], max_nodes=1_000_000, proof=str(folder))
    index = json.loads((folder / "index.json").read_text())
    assert [(r["w"], r["h"]) for r in index["rows"]] == [(4, 4), (6, 4)]
    assert {r["certificate"] for r in index["rows"]} == {"connect4-4x4.draw.json", "connect4-6x4.strategy.json"}
    for r in index["rows"]:
        verdict = check_data(json.loads((folder / r["certificate"]).read_text()), compiled=True)
        assert verdict.ok, verdict.reason
    notes = {(r["w"], r["h"]): r["note"] for r in report.data["rows"]}
    assert notes[(6, 4)] == "outcome: certificate connect4-6x4.strategy.json (checked); last move: search value"
    assert "Certificates of the outcome of 2 rows" in report.text


def test_a_row_past_the_proof_budget_gets_no_certificate(tmp_path: Path) -> None:
    rows = C4.table(1_000_000, only=[(5, 5)])
    assert C4.write_proofs(rows, str(tmp_path), proof_nodes=1_000) == []
    assert rows[0].certificate is None and rows[0].note == "search value"
    assert json.loads((tmp_path / "index.json").read_text()) == {"rows": []}


def test_bad_input_is_one_sentence(capsys) -> None:
    with pytest.raises(KinarowError, match=r"^the reproduction 'connect4-table' takes no option 'bogus'; its "
                                           r"options are: max_nodes, workers, proof, certificates, only$"):
        papers.run("connect4-table", bogus=1)
    with pytest.raises(KinarowError, match="max_nodes must be a positive whole number, not 0"):
        C4.reproduce(max_nodes=0)
    with pytest.raises(KinarowError, match=r"the table has no board 3x4, 9x9: its boards have w, h >= 4 and "
                                           r"w \+ h <= 16"):
        C4.reproduce(only=[(3, 4), (9, 9)])
    code, _, err = run(capsys, "reproduce", "misere-table", "--max-nodes", "5")
    assert code == 2 and err.count("\n") == 1
    assert "'misere-table' takes no node budget; --max-nodes N is for connect4-table" in err
    code, _, err = run(capsys, "reproduce", "connect4-table", "--max-nodes", "0")
    assert code == 2 and err.count("\n") == 1 and "--max-nodes must be a positive whole number" in err


def test_the_command_runs_with_a_budget(capsys) -> None:
    code, out, _ = run(capsys, "reproduce", "connect4-table", "--max-nodes", "100000", "--certificates", "none",
                       "--json")
    assert code == 0
    data = json.loads(out)
    assert data["target"] == "connect4-table" and data["max_nodes"] == 100_000 and len(data["rows"]) == 45
    assert data["agrees"] and data["tally"]["differ"] == 0 and data["tally"]["open"] + data["tally"]["agree"] == 45


SHIPPED_FOLDER = Path(__file__).resolve().parents[1] / "certificates"


def test_a_shipped_certificate_stands_behind_the_outcome() -> None:
    report = C4.reproduce(only=[(7, 4)], max_nodes=1_000_000, certificates=str(SHIPPED_FOLDER))
    [row] = report.data["rows"]
    assert row["status"] == "agree" and row["shipped"] == "connect4-7x4.draw.json.gz"
    assert row["note"] == "outcome: shipped certificate connect4-7x4.draw.json.gz (checked); last move: search value"
    assert "1 of 1 stand behind their row's outcome (7x4)" in report.text and report.agrees
    # past the budget, the row stays open: the certificate proves the outcome, not the last move
    report = C4.reproduce(only=[(7, 4)], max_nodes=1_000, certificates=str(SHIPPED_FOLDER))
    [row] = report.data["rows"]
    assert row["status"] == "open" and row["value"] is None
    assert row["note"] == ("no answer within 1,000 nodes; the outcome, draw, is proven by the shipped certificate "
                           "connect4-7x4.draw.json.gz (checked), the last move is open")


def test_a_shipped_certificate_that_fails_is_not_counted(tmp_path: Path) -> None:
    import gzip

    name = C4.SHIPPED[(7, 4)]
    data = json.loads(gzip.decompress((SHIPPED_FOLDER / name).read_bytes()))
    data["game"] = "7x5k4:gravity"
    (tmp_path / name).write_bytes(gzip.compress(json.dumps(data).encode()))
    report = C4.reproduce(only=[(7, 4)], max_nodes=1_000_000, certificates=str(tmp_path))
    [row] = report.data["rows"]
    assert row["shipped"] is None and row["note"] == "search value" and row["status"] == "agree"
    assert report.differences == ["7x4k4:gravity: the shipped certificate is not counted: the shipped certificate "
                                  f"{name} is not for the empty board of 7x4k4:gravity"]


def test_a_certificate_against_the_search_is_a_conflict(monkeypatch) -> None:
    monkeypatch.setattr(C4, "checked_shipped", lambda folder, name, game: (Value.FIRST, "accepted"))
    report = C4.reproduce(only=[(7, 4)], max_nodes=1_000_000, certificates=str(SHIPPED_FOLDER))
    assert report.tally.conflicts == 1 and not report.agrees
    assert report.differences == ["7x4k4:gravity: the shipped certificate connect4-7x4.draw.json.gz proves first, "
                                  "the score search finds draw"]


def test_two_workers_give_the_same_rows() -> None:
    def rows(workers: int) -> list[dict[str, object]]:
        report = C4.reproduce(only=[*SMALL, (8, 8)], max_nodes=100_000, workers=workers)
        return [{k: v for k, v in r.items() if k != "seconds"} for r in report.data["rows"]]

    assert rows(2) == rows(1)
