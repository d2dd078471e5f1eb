"""Wins proved one reply at a time: kinarow.strategy-parts, written from a job run's checkpoint by
``kinarow parts`` and checked by kinarow.proofs.parts (rules and the strategy checker only)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from helpers import run
from kinarow.proofs import check_data
from kinarow.search import parallel as par
from kinarow.search.parallel.frontier import start_position
from kinarow.search.parallel.merge import parts_certificate


@pytest.fixture(scope="module", params=[True, False], ids=["shared", "version-3"])
def checkpoint(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A first-wins job run of (4,4,3) after 1. b2, one job a reply up to symmetry (9), each win walked in its
    job: with shared replies (version 4) or one subtree a reply (version 3)."""
    db = tmp_path_factory.mktemp("parts") / "b2.sqlite"
    result = par.solve("4x4k3", moves="b2", workers=1, jobs=9, search="proof", question=par.FIRST_WINS,
                       strategy=True, share=request.param, checkpoint=db, tt_mb=4)
    assert result.value == "first"
    return db


def _written(checkpoint: Path) -> dict[str, Any]:
    """The parts certificate of (4,4,3) after 1. b2 from a job run's checkpoint."""
    store = par.JobStore(checkpoint)
    try:
        data, prescribed = parts_certificate(start_position("4x4k3", "b2"), store)
    finally:
        store.close()
    assert prescribed > 0
    if data["version"] == 1:  # the winner's moves the parts prescribe (not a version 4 walk's bytes)
        from kinarow.proofs.tree import StrategyTree

        assert prescribed == sum(StrategyTree.from_json(part).size for part in data["parts"])
    return data


@pytest.fixture
def certificate(checkpoint: Path) -> dict[str, Any]:
    return _written(checkpoint)


@pytest.mark.parametrize("compiled", [False, True])
def test_a_parts_certificate_from_a_job_run_checks(certificate: dict[str, Any], compiled: bool) -> None:
    assert certificate["format"] == "kinarow.strategy-parts" and certificate["moves"] == []
    assert certificate["first_move"] == "b2" and certificate["claim"] == "first wins"
    assert len(certificate["parts"]) == 9  # the replies to b2 up to the diagonal mirror
    verdict = check_data(certificate, compiled=compiled)
    assert verdict.ok, verdict.reason
    assert "the first player wins, playing b2, against every reply" in verdict.reason
    assert verdict.details["parts"] == 9 and verdict.details["positions_checked"] > 9


def _refused(data: dict[str, Any], said: str) -> None:
    verdict = check_data(data)
    assert not verdict.ok
    assert said in verdict.reason, verdict.reason


def test_a_missing_or_doubled_part_is_refused(certificate: dict[str, Any]) -> None:
    short = copy.deepcopy(certificate)
    short["parts"].pop(3)
    _refused(short, "no part starts after the reply")
    doubled = copy.deepcopy(certificate)
    doubled["parts"].append(copy.deepcopy(doubled["parts"][0]))
    _refused(doubled, "start from the same position")


def test_a_part_that_starts_where_no_reply_leads_is_refused(certificate: dict[str, Any]) -> None:
    stray = copy.deepcopy(certificate)
    stray["parts"][0]["moves"] = ["a1", "d4"]  # after 1. a1 d4, not after b2 and a reply
    said = check_data(stray).reason
    assert not check_data(stray).ok
    assert "no part starts after the reply" in said or "starts where no reply leads" in said or "fails" in said


def test_a_tampered_part_is_refused(certificate: dict[str, Any]) -> None:
    from kinarow.proofs.tree import StrategyTree

    bad = copy.deepcopy(certificate)
    for i, part in enumerate(bad["parts"]):
        tree = StrategyTree.from_json(part)
        if tree.walk:  # the first part with a move of its own: play a cell the loser may already hold
            walk = bytes([(tree.walk[0] + 1) % 16]) + tree.walk[1:]
            bad["parts"][i] = StrategyTree(tree.game, tree.moves, tree.winner, walk=walk,
                                           shared=tree.shared).to_json()
            break
    else:
        pytest.fail("no part prescribes a move")
    _refused(bad, "fails")


def test_the_opening_and_the_claim_are_checked(certificate: dict[str, Any]) -> None:
    no_first = copy.deepcopy(certificate)
    del no_first["first_move"]
    _refused(no_first, "'first_move' field, which is missing")
    other = copy.deepcopy(certificate)
    other["first_move"] = "a1"  # the parts start after b2's replies, not a1's
    _refused(other, "no part starts after the reply")
    taken = copy.deepcopy(certificate)
    taken["moves"], taken["first_move"] = ["b2", "a1"], "b2"
    _refused(taken, "cannot be played")
    loser = copy.deepcopy(certificate)
    loser["moves"] = ["b2"]  # the loser to move there: no first move of the winner's
    _refused(loser, "has no place")
    second = copy.deepcopy(certificate)
    second["winner"], second["claim"] = "second", "second wins"
    second["moves"], second["first_move"] = ["a4"], "b2"
    _refused(second, "another claim")
    claim = copy.deepcopy(certificate)
    claim["claim"] = "draw"
    assert not check_data(claim).ok
    for broken in ({**certificate, "parts": "none"}, {**certificate, "parts": [1, 2]}):
        verdict = check_data(broken)
        assert not verdict.ok and "list of strategy certificates" in verdict.reason


def test_the_command_writes_the_certificate_and_refuses_bad_input(checkpoint: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "b2.parts.json.gz"
    code, said, err = run(capsys, "parts", "4x4k3", "--moves", "b2", "--checkpoint", str(checkpoint),
                          "--out", str(out))
    assert code == 0, err
    assert "in 9 parts" in said and "kinarow check" in said
    code, said, err = run(capsys, "check", str(out), "--compiled")
    assert code == 0 and "VALID" in said
    for argv, sentence in (
        (["--moves", "a1", "--checkpoint", str(checkpoint)], "have neither a kept strategy nor parts below them"),
        (["--moves", "", "--checkpoint", str(checkpoint)], "give the line up to the loser's turn"),
        (["--moves", "b2", "--checkpoint", str(tmp_path / "none.sqlite")], "is not a file"),
        (["--moves", "z9", "--checkpoint", str(checkpoint)], "z9"),
    ):
        code, said, err = run(capsys, "parts", "4x4k3", *argv, "--out", str(tmp_path / "x.json"))
        assert code == 2 and sentence in err and "Traceback" not in err, err
        assert len(err.strip().splitlines()) == 1


def test_status_of_a_settled_run_names_the_parts_command_which_then_works(checkpoint: Path, tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    import shlex

    code, said, _ = run(capsys, "solve", "4x4k3", "--moves", "b2", "--checkpoint", str(checkpoint), "--status",
                        "--question", "first-wins")
    assert code == 0 and "After 1. b2 the stored jobs settle: first." in said
    command = [line for line in said.splitlines() if line.startswith("Its certificate needs no more search: ")]
    assert len(command) == 1
    argv = shlex.split(command[0].split(": ", 1)[1])
    assert argv[:2] == ["kinarow", "parts"] and argv[-2:] == ["--out", "4x4k3.parts.json.gz"]
    out = tmp_path / argv[-1]
    code, said, err = run(capsys, *argv[1:-1], str(out))
    assert code == 0 and out.is_file(), err
    assert run(capsys, "check", str(out))[0] == 0
    # from the start (the first player to move) it is no parts certificate's line: nothing is suggested
    code, said, _ = run(capsys, "solve", "4x4k3", "--checkpoint", str(checkpoint), "--status", "--question",
                        "first-wins")
    assert code == 0 and "kinarow parts" not in said


def test_a_parts_certificate_on_a_two_word_board(tmp_path: Path) -> None:
    """(17,4,3), 68 cells: a job run after 1. h2 (67 replies, no symmetry), its parts checked by both checkers;
    a part moved onto another reply's position is refused."""
    db = tmp_path / "h2.sqlite"
    result = par.solve("17x4k3", moves="h2", workers=1, jobs=67, search="proof", question=par.FIRST_WINS,
                       strategy=True, share=True, checkpoint=db, tt_mb=16)
    assert result.value == "first"
    store = par.JobStore(db)
    try:
        data, _ = parts_certificate(start_position("17x4k3", "h2"), store)
    finally:
        store.close()
    assert len(data["parts"]) == 67
    for compiled in (False, True):
        verdict = check_data(data, compiled=compiled)
        assert verdict.ok, verdict.reason
    moved = copy.deepcopy(data)
    moved["parts"][5]["moves"] = list(moved["parts"][6]["moves"])
    _refused(moved, "start from the same position")


@pytest.fixture(scope="module")
def nested(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A job run of (4,4,3) after 1. b2 where one reply's job was split, and then the job of its winning move
    (as ``--max-job-seconds`` splits a long job, kept in the checkpoint): that reply's part is a parts
    certificate of its own, whose parts the frontier settles (the winner's stone that wins at once)."""
    import sqlite3

    db = tmp_path_factory.mktemp("nested") / "b2.sqlite"
    args = dict(moves="b2", workers=1, jobs=9, search="proof", question=par.FIRST_WINS, strategy=True,
                share=True, checkpoint=db, tt_mb=4)
    assert par.solve("4x4k3", **args).value == "first"
    prefix = ""
    for _ in range(2):  # the reply's job, then its winning move's: dropped and marked split, the run resumed
        with sqlite3.connect(db) as con:
            key, line = con.execute("SELECT position, moves FROM finished_jobs WHERE moves LIKE ? ORDER BY moves",
                                    (prefix + "%",)).fetchone()
            con.execute("DELETE FROM finished_jobs WHERE position = ?", (key,))
            con.execute("DELETE FROM strategies WHERE position = ?", (key,))
        store = par.JobStore(db)
        store.put_split("4x4k3", key, line, None)
        store.close()
        assert par.solve("4x4k3", **args).value == "first"
        prefix = line + " "
    return _written(db)


def _inner(data: dict[str, Any]) -> dict[str, Any]:
    return next(p for p in data["parts"] if p["format"] == "kinarow.strategy-parts")


@pytest.mark.parametrize("compiled", [False, True])
def test_a_split_reply_is_a_parts_certificate_of_its_own(nested: dict[str, Any], compiled: bool) -> None:
    assert nested["version"] == 2 and len(nested["parts"]) == 9
    inner = _inner(nested)
    assert len(inner["moves"]) == 2 and inner["first_move"] and inner["parts"]
    verdict = check_data(nested, compiled=compiled)
    assert verdict.ok, verdict.reason


def test_nested_parts_are_checked_like_the_outer_ones(nested: dict[str, Any]) -> None:
    old = copy.deepcopy(nested)
    old["version"] = 1  # version 1 has strategies for parts only
    _refused(old, "is not a strategy certificate")
    short = copy.deepcopy(nested)
    _inner(short)["parts"].pop()
    _refused(short, "fails: no part starts after the reply")
    other = copy.deepcopy(nested)
    inner = _inner(other)
    inner["winner"], inner["claim"] = "second", "second wins"
    _refused(other, "another claim")
    moved = copy.deepcopy(nested)
    _inner(moved)["first_move"] = "a1"
    assert not check_data(moved).ok


def test_kept_walks_written_again_are_kept_where_smaller_and_still_check(
        checkpoint: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """kinarow rewalk: each kept walk asked and written again with shared replies, replacing the kept one where
    smaller; the parts certificate from the checkpoint checks after it as before."""
    import shutil

    from kinarow import Game
    from kinarow.position import value_names
    from kinarow.search.parallel.frontier import Frontier
    from kinarow.search.parallel.rewalk import rewalk
    from kinarow.search.proof_search import ProofSearcher

    db = tmp_path / "b2.sqlite"
    shutil.copy(checkpoint, db)
    store = par.JobStore(db)
    try:
        # one walk kept as a plain walk (version 3) of one subtree a reply: 15 moves where shared replies take 9
        position = start_position("4x4k3", "b2")
        searcher = ProofSearcher(Game("4x4k3"), tt_mb=4)
        assert searcher.attacker_wins(position, 1).wins
        plain = searcher.strategy_walk(position, 1)
        store.put_strategy("4x4k3", Frontier(position.copy()).canonical(position.board)[0], "b2",
                           value_names(position.game)[0], plain, 0.0)
        before = {m: n for _, m, _, n in store.kept_walks("4x4k3")}
        done = rewalk(store, "4x4k3", above=0, tt_mb=4)
        after = {m: n for _, m, _, n in store.kept_walks("4x4k3")}
    finally:
        store.close()
    assert [r.moves for r in done] == sorted(before, key=lambda m: (-before[m], m))  # the largest first
    for r in done:
        assert r.before == before[r.moves] and after[r.moves] == (r.after if r.kept else r.before)
        assert r.kept == (r.after < r.before)
    assert (done[0].moves, done[0].before, done[0].kept) == ("b2", len(plain), True) and done[0].after < len(plain)
    for compiled in (False, True):
        verdict = check_data(_written(db), compiled=compiled)
        assert verdict.ok, verdict.reason
    code, said, err = run(capsys, "rewalk", "4x4k3", "--checkpoint", str(db), "--above", "0", "--tt-mb", "4")
    assert code == 0, err
    assert f"Wrote {len(done)} kept walks again" in said
    for argv, sentence in (
        (["--checkpoint", str(db), "--above", "-3"], "--above must be a positive whole number"),
        (["--checkpoint", str(db), "--above", "1000000"], "keeps no walk of 4x4k3 with more than 1,000,000"),
        (["--checkpoint", str(tmp_path / "none.sqlite")], "is not a file"),
        (["--checkpoint", str(db), "--tt-mb", "0"], "--tt-mb"),
        (["--checkpoint", str(db), "--max-nodes", "lots"], "--max-nodes must be a positive whole number"),
    ):
        code, said, err = run(capsys, "rewalk", "4x4k3", *argv)
        assert code == 2 and sentence in err and "Traceback" not in err, err
        assert len(err.strip().splitlines()) == 1
    code, said, err = run(capsys, "rewalk", "4x4k3", "--checkpoint", str(db), "--above", "0", "--max-nodes", "1")
    assert code == 0 and "left (its question needs more than 1 nodes)" in said, said
    code, said, err = run(capsys, "rewalk", "4x4k3:gravity", "--checkpoint", str(db))
    assert code == 2 and "cannot be written again with shared replies" in err, err
