"""``kinarow prove``: one command per result (:mod:`kinarow.search.prover`, :mod:`kinarow.cli.prove`).

The plans are read against the repository's committed job checkpoints; the small shipped results are proved
end to end by the same command that certificates/README.md gives for them, and each certificate written is
checked again here and its claim compared with the shipped one's.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from helpers import run
from kinarow import Game
from kinarow.papers.connect4_data import PUBLISHED
from kinarow.proofs import check_data, read_certificate
from kinarow.search import prover
from kinarow.values import Value

ROOT = Path(__file__).resolve().parent.parent
CHECKPOINTS = ROOT / "checkpoints"
CERTIFICATES = ROOT / "certificates"


def shipped_claim(name: str) -> tuple[str, list[str]]:
    data = json.loads(gzip.decompress((CERTIFICATES / name).read_bytes()))
    return data["claim"], data["moves"]


@pytest.mark.parametrize(
    ("game", "moves", "route", "first_move"),
    [
        ("8x8k5", None, "blocking tree over jobs", None),
        ("8x8k5", "a1", "blocking tree over jobs", None),
        ("8x7k5", None, "blocking tree over jobs", None),
        ("26x4k4", None, "job run", "f2"),
        ("10x4k4", None, "job run", "e2"),
        ("32x4k4", None, "job run", "f2"),  # guided by (29,4,4)'s checkpoint
        ("9x4k4", None, "proof search", None),
        ("7x7k5", None, "proof search", None),
        ("7x4k4", None, "solve", None),
        ("7x6k4:gravity", None, "solve", None),
        ("6x6k4p2q1", None, "solve", None),
    ],
)
def test_the_plan_names_the_route(game: str, moves: str | None, route: str, first_move: str | None) -> None:
    position = Game(game).position(moves)
    chosen = prover.plan(position, prover.Settings(checkpoints=CHECKPOINTS))
    assert (chosen.route, chosen.first_move) == (route, first_move)
    if game == "32x4k4":
        assert chosen.guide is not None and chosen.guide.name == "29x4k4-f2.sqlite"
        assert chosen.jobs_from is None
    if route == "job run":
        assert chosen.jobs and chosen.position.moves  # one job a reply to the first move


def test_without_checkpoints_the_big_cases_go_to_the_proof_search() -> None:
    for game in ("8x8k5", "26x4k4"):
        assert prover.plan(Game(game).start(), prover.Settings(checkpoints=None)).route == "proof search"


def test_plan_on_the_command_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    code, out, _ = run(capsys, "prove", "26x4k4", "--plan")
    assert code == 0
    assert "route:     job run" in out and "checkpoints/26x4k4-f2.sqlite" in out and "proofs/26x4k4" in out
    code, out, _ = run(capsys, "prove", "8x8k5", "--plan", "--json")
    row = json.loads(out)
    assert code == 0 and row["route"] == "blocking tree over jobs" and row["folder"] == "proofs/8x8k5"
    assert not (ROOT / "proofs").exists()  # --plan searches and writes nothing


def _prove(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> dict[str, object]:
    code, out, err = run(capsys, "prove", *argv, "--json", "--dir", str(tmp_path / "state"),
                         "--checkpoints", str(CHECKPOINTS))
    assert code == 0, err
    return dict(json.loads(out))


def _checked_claim(path: str) -> str:
    data = json.loads(read_certificate(path))
    assert check_data(data, compiled=True).ok
    return str(data["claim"])


@pytest.mark.parametrize(
    ("game", "shipped", "route"),
    [
        ("7x7k5", "7x7k5.draw.json.gz", "proof search"),  # a draw: blocking trees from the proof search's table
        ("7x4k4", "7x4k4.draw.json.gz", "solve"),
        ("10x4k4", "10x4k4.strategy.json.gz", "job run"),  # from the committed job checkpoint, searching nothing
    ],
)
def test_small_results_by_one_command(capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str,
                                      shipped: str, route: str) -> None:
    out = str(tmp_path / shipped)
    row = _prove(capsys, tmp_path, game, "--out", out)
    assert row["route"] == route and row["certificate"] == out
    claim, _ = shipped_claim(shipped)
    assert _checked_claim(out) == claim
    state = json.loads((tmp_path / "state" / "plan.json").read_text())
    assert state["case"] == game and state["route"] == route


def test_connect_four_7x4_by_one_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = str(tmp_path / "c4.json.gz")
    row = _prove(capsys, tmp_path, "7x4k4:gravity", "--out", out)
    assert row["route"] == "solve" and row["value"] == "draw"
    assert _checked_claim(out) == shipped_claim("connect4-7x4.draw.json.gz")[0]
    # the last move beside the value: Tromp's table (as c4's README gives it) says a draw, move 28
    assert (Value(row["value"]), row["last_move"]) == PUBLISHED[(7, 4)]


def test_connect_four_s_last_move_comes_with_its_certificate(capsys: pytest.CaptureFixture[str],
                                                             tmp_path: Path) -> None:
    """A Connect Four win proved by one command: the value's certificate, checked, and the game's length by the
    score search, as Tromp's table gives it (6 x 4: the second player wins on move 24); the text says what the
    certificate does not claim."""
    out = str(tmp_path / "6x4.json.gz")
    row = _prove(capsys, tmp_path, "6x4k4:gravity", "--out", out)
    assert row["kind"] == "strategy" and _checked_claim(out) == "second wins"
    assert (Value(row["value"]), row["last_move"]) == PUBLISHED[(6, 4)]
    code, text, _ = run(capsys, "prove", "6x4k4:gravity", "--out", str(tmp_path / "again.json.gz"), "--dir",
                        str(tmp_path / "again"))
    assert code == 0 and "last move: stone 24 (the score search's value; the certificate claims the value only)" in text


def test_a_win_walked_from_the_proof_search_s_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = str(tmp_path / "9x4k4.json.gz")
    row = _prove(capsys, tmp_path, "9x4k4", "--out", out)
    assert row["route"] == "proof search" and row["value"] == "first" and row["kind"] == "strategy"
    assert _checked_claim(out) == shipped_claim("9x4k4.strategy.json.gz")[0]


def test_a_blocking_tree_over_the_jobs_of_a_one_sided_run(capsys: pytest.CaptureFixture[str],
                                                          tmp_path: Path) -> None:
    """The route of (8,8,5) and (8,7,5), on a board small enough for the suite: a first-player question asked in
    frontier jobs, kept in a checkpoint named after the game, then the certificate written over its jobs."""
    from kinarow.search import parallel

    folder = tmp_path / "checkpoints"
    folder.mkdir()
    found = parallel.solve("7x7k5", workers=1, jobs=8, question="first-wins", checkpoint=folder / "7x7k5.sqlite")
    assert found.value == "draw"  # "the first cannot win", and strategy stealing
    code, out, err = run(capsys, "prove", "7x7k5", "--json", "--dir", str(tmp_path / "state"), "--checkpoints",
                         str(folder), "--out", str(tmp_path / "7x7k5.draw.json.gz"))
    assert code == 0, err
    row = json.loads(out)
    assert row["route"] == "blocking tree over jobs" and row["value"] == "draw"
    assert _checked_claim(str(tmp_path / "7x7k5.draw.json.gz")) == "draw"
    assert (folder / "7x7k5.sqlite").stat().st_size > 0 and (tmp_path / "state" / "jobs.sqlite").exists()


def test_the_same_command_resumes_and_another_case_is_refused(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    first = _prove(capsys, tmp_path, "10x4k4", "--out", str(tmp_path / "a.json.gz"))
    again = _prove(capsys, tmp_path, "10x4k4", "--out", str(tmp_path / "b.json.gz"))
    assert first["value"] == again["value"] == "first" and again["nodes"] == 0
    code, _, err = run(capsys, "prove", "9x4k4", "--dir", str(tmp_path / "state"), "--checkpoints", "none")
    assert code == 2
    assert err.startswith("kinarow: error: the folder") and "holds the run of 10x4k4" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["4x4k4", "--workers", "0"], "--workers must be a positive whole number"),
        (["4x4k4", "--checkpoints", "nowhere"], "--checkpoints 'nowhere' is not a folder"),
        (["3x3k3", "--moves", "a1 a2 b1 b2 c1"], "the game is already over"),
        (["4x4k4", "--dir", "FILE"], "is a file; give a folder"),
        (["4x4k4", "--out", "."], "--out '.' is a folder"),
    ],
)
def test_bad_input_is_one_sentence(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch, argv: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "FILE").write_text("x")
    code, out, err = run(capsys, "prove", *argv)
    assert code == 2 and out == ""
    assert err.startswith("kinarow: error: ") and message in err and err.count("\n") == 1


def test_a_kept_plan_that_is_not_ours_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "plan.json").write_text("[1, 2]")
    code, _, err = run(capsys, "prove", "4x4k4", "--dir", str(state))
    assert code == 2 and "is not the state of a kinarow prove run" in err


def test_the_committed_checkpoint_is_never_written(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    shutil.copyfile(CHECKPOINTS / "10x4k4-e2.sqlite", folder / "10x4k4-e2.sqlite")
    before = (folder / "10x4k4-e2.sqlite").read_bytes()
    code, _, err = run(capsys, "prove", "10x4k4", "--dir", str(tmp_path / "state"), "--checkpoints", str(folder),
                       "--out", str(tmp_path / "p.json.gz"))
    assert code == 0, err
    assert (folder / "10x4k4-e2.sqlite").read_bytes() == before


def test_the_window_game_by_its_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "w3.json"
    code, text, err = run(capsys, "window", "3", "--k", "3", "--out", str(out), "--json")
    assert code == 0, err
    row = json.loads(text)
    assert row["answer"] == "X wins" and row["certificate"] == str(out)
    assert check_data(json.loads(out.read_text())).ok
    code, text, _ = run(capsys, "window", "2", "--k", "3", "--json")
    assert code == 0 and json.loads(text)["answer"] == "X does not win" and json.loads(text)["certificate"] is None
    for argv, message in ((["17"], "WIDTH = '17' is too large"), (["4", "--k", "5"], "--k = '5' is too large"),
                          (["4", "--k", "1"], "--k is the length of a line")):
        code, text, err = run(capsys, "window", *argv)
        assert code == 2 and text == "" and message in err and err.count("\n") == 1


@pytest.mark.parametrize("game", ["17x16k5", "12x6k4:gravity"])
def test_a_case_no_route_takes_is_refused_before_any_work(capsys: pytest.CaptureFixture[str], game: str) -> None:
    code, out, err = run(capsys, "prove", game, "--plan")
    assert code == 2 and out == ""
    assert err.startswith("kinarow: error: no route of kinarow prove takes this case: ") and err.count("\n") == 1


def test_solve_writes_a_proof_search_s_draw_from_its_own_table(monkeypatch: pytest.MonkeyPatch) -> None:
    # the proof search found the draw; its certificate is read from that search's table, as kinarow prove writes
    # it (search.disproof.draw_from_table), not walked again by fresh safety searches (search.draw)
    from kinarow import solve
    from kinarow.search import certify, draw

    def no_walk(*args: object, **kwargs: object) -> None:
        raise AssertionError("the draw-proof walk ran a second search")

    monkeypatch.setattr(draw, "draw_certificate", no_walk)
    result = solve("5x5k4", search="proof", proof=True, store=None)
    assert result.value == "draw" and result.draw_tree is not None
    assert result.proof is not None and result.proof.kind == "draw"
    assert next(w for w in certify.WRITERS if w.fits(Game("5x5k4").start(), result)).name == (
        "the proof search's blocking trees")
    assert result.proof.data is not None and result.proof.data["claim"] == "draw"
    checked = check_data(result.proof.data)
    assert checked.ok and checked.reason.endswith(": draw"), checked.reason
