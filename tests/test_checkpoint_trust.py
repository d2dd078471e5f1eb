"""A job checkpoint is not trusted: a row that disagrees with the rest of the file or the rules is refused in one
sentence naming the file and the row, and a value resting on rows nothing checks says so.

The committed ``checkpoints/10x4k4-e2.sqlite`` (every reply to 1. e2 won by the first player, each with its
kept walk) is edited in a copy, as someone could edit it by hand.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from helpers import run
from kinarow.errors import KinarowError
from kinarow.search import parallel as par
from kinarow.search.parallel.frontier import FIRST, start_position, stored_frontier

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "checkpoints" / "10x4k4-e2.sqlite"


def edited(tmp_path: Path, *statements: str, name: str = "10x4k4-e2.sqlite") -> Path:
    """A copy of the committed checkpoint with ``statements`` run on it."""
    path = tmp_path / name
    shutil.copyfile(COMMITTED, path)
    with sqlite3.connect(path) as db:
        for sql in statements:
            db.execute(sql)
    return path


def one_sentence(err: str, path: Path, row: str) -> None:
    """The refusal is one line, names the file and the row, and is no traceback."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(path) in lines[0] and row in lines[0] and "Traceback" not in err, err


def test_a_row_that_contradicts_its_kept_strategy_is_refused(tmp_path, capsys):
    path = edited(tmp_path, "UPDATE finished_jobs SET value = 'second', lo = -1, hi = -1 WHERE moves = 'e3 g2'")
    code, out, err = run(capsys, "solve", "10x4k4", "--moves", "e2", "--workers", "1", "--checkpoint", str(path))
    assert code != 0 and "wins" not in out
    one_sentence(err, path, "'e3 g2'")
    assert "keeps the first player's winning strategy, but its finished job says second" in err


def test_a_value_that_its_bounds_do_not_say_is_refused(tmp_path):
    path = edited(tmp_path, "UPDATE finished_jobs SET value = 'second' WHERE moves = 'f3 h2'")
    store = par.JobStore(path)
    try:
        with pytest.raises(KinarowError, match=r"the row 'f3 h2' says 'second', but its bounds 1 to 1 say first"):
            par.stored_value(start_position("10x4k4", "e2"), store)
    finally:
        store.close()


def test_a_row_that_denies_a_win_in_one_stone_is_refused(tmp_path):
    # after 1. a1 b1 2. a2 b2 3. a3 b3 the first player wins at once with a4: a row saying "second" is wrong
    path = tmp_path / "jobs.sqlite"
    store = par.JobStore(path)
    position = start_position("5x4k4", "a1 b1 a2 b2 a3 b3")
    key = par.Frontier(position).nodes[0].key
    store.put("5x4k4", key, "a1 b1 a2 b2 a3 b3", (-1, -1), "second", 1, 0.0)
    store.close()
    store = par.JobStore(path)  # (a store trusts its own writes: the file is checked when it is opened again)
    try:
        with pytest.raises(KinarowError, match="the player to move there wins with one stone"):
            store.get("5x4k4", key)
    finally:
        store.close()


def test_a_kept_walk_its_checker_rejects_is_refused_before_a_value_rests_on_it(tmp_path):
    # the walk of one reply kept as another's: both rows still say "first", but the walk does not win there
    path = edited(tmp_path, "UPDATE strategies SET choices = (SELECT choices FROM strategies WHERE moves = 'f3 j1') "
                            "WHERE moves = 'e3 g2'")
    from kinarow.search.parallel.coordinator import _check_walks

    store = par.JobStore(path)
    try:
        frontier = stored_frontier(start_position("10x4k4", "e2"), store)
        with pytest.raises(KinarowError, match=r"has a damaged row: the row 'e3 g2' keeps a strategy its checker "):
            _check_walks(frontier, store)
    finally:
        store.close()


def test_the_committed_walks_are_checked_and_the_value_needs_no_note(tmp_path, capsys):
    path = edited(tmp_path)
    from kinarow.search.parallel.coordinator import _check_walks

    store = par.JobStore(path)
    try:
        frontier = stored_frontier(start_position("10x4k4", "e2"), store)
        stored = [n.id for n in frontier.nodes if n.stored]
        assert stored and _check_walks(frontier, store) == set(stored)
    finally:
        store.close()
    code, out, _ = run(capsys, "solve", "10x4k4", "--moves", "e2", "--workers", "1", "--checkpoint", str(path))
    assert code == 0 and out.startswith("First player (Black) wins with perfect play.\n"), out
    assert "rests on" not in out and "nodes:     0\n" in out


def test_a_root_row_with_nothing_behind_it_is_said_to_be_the_checkpoints(tmp_path, capsys):
    # one row inserted into a fresh checkpoint: (7,4,4) is a draw, the row says the first player wins
    path = tmp_path / "fresh.sqlite"
    store = par.JobStore(path)
    store.put("7x4k4", "." * 28, "", (1, 1), "first", 5, 0.1)
    store.close()
    code, out, _ = run(capsys, "solve", "7x4k4", "--workers", "1", "--checkpoint", str(path))
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith("This value rests on 1 answer read from the checkpoint") and str(path) in first, out
    _, out, _ = run(capsys, "solve", "7x4k4", "--workers", "1", "--checkpoint", str(path), "--json")
    assert '"unchecked_from_checkpoint": 1' in out


def test_prove_refuses_a_tampered_committed_checkpoint(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    path = edited(folder, "UPDATE finished_jobs SET value = 'second', lo = -1, hi = -1 WHERE moves = 'e3 g2'")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "prove", "10x4k4", "--checkpoints", str(folder), "--plan")
    assert code != 0 and not out
    one_sentence(err, path, "'e3 g2'")


def test_a_line_that_does_not_reach_its_position_is_refused(tmp_path):
    path = edited(tmp_path, "UPDATE finished_jobs SET moves = 'e3 g3' WHERE moves = 'e3 g2'")
    store = par.JobStore(path)
    try:
        with pytest.raises(KinarowError, match="the row 'e3 g3' has a position that its move line does not reach"):
            store.get("10x4k4", "x" * 40)
    finally:
        store.close()


def test_the_frontier_of_the_committed_file_is_decided_for_the_first_player(tmp_path):
    store = par.JobStore(edited(tmp_path))
    try:
        root = stored_frontier(start_position("10x4k4", "e2"), store)
        assert root.nodes[root.root].lo == root.nodes[root.root].hi == FIRST
    finally:
        store.close()


def test_a_stored_win_the_strategy_job_does_not_find_names_the_checkpoint(tmp_path):
    # (3,3,3) is a draw; a root row inserted by hand says the first player wins, with no strategy kept
    path = tmp_path / "fresh.sqlite"
    store = par.JobStore(path)
    store.put("3x3k3", "." * 9, "", (1, 1), "first", 5, 0.1)
    store.close()
    with pytest.raises(KinarowError) as error:
        par.solve("3x3k3", workers=1, checkpoint=path, strategy=True)
    text = str(error.value)
    assert "\n" not in text and text.startswith(f"the checkpoint '{path}' has a damaged row: a win it stores")
    assert "internal error" in text  # the job's own words follow, inside the sentence naming the file
