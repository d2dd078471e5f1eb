"""A job run guided by another width's checkpoint (``--guide``, kinarow.search.parallel.guide).

The guide only orders the search: a guided run proves the same value (and a strategy both checkers accept)
whatever the guide's moves are, splits each open win test at the guide's move, keeps those splits for a
resumed run, and never writes to the guide's file. Bad guides are refused with one sentence.
"""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from helpers import run
from kinarow import Game, KinarowError
from kinarow.proofs.tree import check
from kinarow.search import parallel as par
from kinarow.search.parallel.frontier import canonical_board
from kinarow.search.parallel.guide import Guide

NARROW, WIDE, FIRST_MOVE = "12x4k3", "15x4k3", "c2"


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def narrow(tmp_path_factory):
    """The checkpoint of (12,4,3) after 1. c2, every reply a job that walked its win."""
    path = tmp_path_factory.mktemp("guide") / "narrow.sqlite"
    result = par.solve(NARROW, moves=FIRST_MOVE, workers=1, jobs=47, search="proof", question=par.FIRST_WINS,
                       strategy=True, share=True, checkpoint=path, tt_mb=16)
    assert result.value == "first"
    return path


def test_the_guide_reads_columns_from_the_nearer_edge_and_the_moves_that_won(narrow):
    game = Game(WIDE)
    guide = Guide(narrow, game.position(FIRST_MOVE), 1)
    try:
        assert str(guide.game) == NARROW
        geo, there = game.geometry, Game(NARROW).geometry
        # the left half and the middle keep their columns, the right half its distance from the right edge
        assert [there.name(guide._cell(geo.parse_cell(c), game, guide.game)) for c in ("a1", "h2", "i3", "o4")] == [
            "a1", "h2", "f3", "l4"]
        store = par.JobStore(narrow)
        try:
            for reply in ("d2", "c3", "o1", "h4"):
                position = game.position(f"{FIRST_MOVE} {reply}")
                move = guide.move(position)
                assert move is not None and move in position.legal_moves()
                # the move read back wins there: its position on the narrow board is one the checkpoint proves
                # won, or the first move of the walk the checkpoint kept for the reply
                mapped = guide._there(position)
                assert mapped is not None
                played = guide._cell(move, game, guide.game)
                assert played in mapped.legal_moves()
                key = canonical_board(mapped.board, guide.syms)[0]
                kept = store.get_strategy(NARROW, key, guide.name) is not None
                mapped.play(played)
                assert kept or guide.frontier.nodes[guide.frontier.by_key[
                    canonical_board(mapped.board, guide.syms)[0]]].lo == par.FIRST
            assert guide.move(game.position(FIRST_MOVE)) is None  # the other player to move: no guide
        finally:
            store.close()
    finally:
        guide.close()


def test_a_guided_run_splits_each_reply_at_the_guide_and_proves_the_win(narrow, tmp_path):
    before = _digest(narrow)
    path = tmp_path / "wide.sqlite"
    result = par.solve(WIDE, moves=FIRST_MOVE, workers=1, jobs=59, search="proof", question=par.FIRST_WINS,
                       strategy=True, share=True, checkpoint=path, tt_mb=16, guide=narrow)
    assert result.value == "first" and result.strategy is not None
    assert result.guided > 20 and result.splits >= result.guided
    assert check(result.strategy).ok and check(result.strategy, compiled=True).ok
    assert _digest(narrow) == before  # the guide is only read
    # every guided split is kept at the guide's move, so a resumed run splits it again without the guide
    guide = Guide(narrow, Game(WIDE).position(FIRST_MOVE), 1)
    store = par.JobStore(path)
    try:
        kept = store.splits(WIDE, Game(WIDE).cells)
        rows = list(store.db.execute("SELECT position, moves FROM splits WHERE game = ?", (WIDE,)))
        guided = [(key, line) for key, line in rows if len(line.split()) == 2]
        assert len(guided) == result.guided
        for key, line in guided:
            position = Game(WIDE).position(line)
            _, sym = canonical_board(position.board, Game(WIDE).geometry.symmetries)
            assert kept[key] == sym[guide.move(position)]
    finally:
        store.close()
        guide.close()
    again = par.solve(WIDE, moves=FIRST_MOVE, workers=1, jobs=59, search="proof", question=par.FIRST_WINS,
                      checkpoint=path, tt_mb=16)
    assert again.value == "first" and again.nodes == 0 and again.guided == 0


def test_a_guide_at_poor_moves_costs_time_never_the_value(tmp_path):
    """A guide whose kept splits ask a far corner first: the run still proves the first player's win."""
    path = tmp_path / "poor.sqlite"
    game = Game(NARROW)
    store = par.JobStore(path)
    syms = game.geometry.symmetries
    try:
        for reply in ("b2", "c3", "d2", "d3"):
            position = game.position(f"{FIRST_MOVE} {reply}")
            key, sym = canonical_board(position.board, syms)
            store.put_split(NARROW, key, position.move_text(), sym[game.geometry.parse_cell("l4")])
    finally:
        store.close()
    result = par.solve(WIDE, moves=FIRST_MOVE, workers=1, jobs=59, search="proof", question=par.FIRST_WINS,
                       strategy=True, checkpoint=tmp_path / "wide.sqlite", tt_mb=16, guide=path)
    assert result.value == "first" and result.guided == 4
    assert check(result.strategy).ok


@pytest.mark.parametrize("make, message", [
    (lambda p: None, "does not exist"),
    (lambda p: p.write_text("not a database, only words\n" * 40), "cannot use"),
    (lambda p: sqlite3.connect(p).execute("CREATE TABLE t (x)").connection.commit(), "is not the checkpoint"),
])
def test_bad_guide_files_are_refused_in_one_sentence(capsys, tmp_path, make, message):
    path = tmp_path / "guide.sqlite"
    make(path)
    code, _, err = run(capsys, "solve", "6x4k3", "--moves", "c2", "--question", "first-wins", "--search",
                         "proof", "--guide", str(path))
    assert code != 0 and message in err and err.strip().count("\n") == 0 and "Traceback" not in err
    with pytest.raises(KinarowError, match=message):
        par.solve("6x4k3", moves="c2", workers=1, search="proof", question=par.FIRST_WINS, guide=path)


def test_a_guide_of_another_game_or_question_is_refused(capsys, narrow):
    with pytest.raises(KinarowError, match="holds no game like 6x5k3"):
        par.solve("6x5k3", moves="c2", workers=1, search="proof", question=par.FIRST_WINS, guide=narrow)
    with pytest.raises(KinarowError, match="rectangular board"):
        par.solve("6x4k3:torus", moves="c2", workers=1, search="proof", question=par.FIRST_WINS, guide=narrow)
    with pytest.raises(KinarowError, match="question='first-wins'"):
        par.solve(WIDE, moves=FIRST_MOVE, workers=1, search="proof", guide=narrow)
    code, _, err = run(capsys, "solve", WIDE, "--moves", FIRST_MOVE, "--guide", str(narrow))
    assert code == 2 and "--question first-wins" in err and err.count("\n") == 1
    code, _, err = run(capsys, "solve", "6x5k3", "--moves", "c2", "--question", "first-wins", "--search", "proof",
                       "--guide", str(narrow))
    assert code != 0 and "holds no game like" in err and err.count("\n") == 1


def test_a_frontier_past_the_guided_turns_is_named_before_the_run(capsys, narrow, tmp_path):
    """--jobs beyond the replies makes every job one at the other player's turn: the CLI says so and how many to
    give; with a job a reply it says nothing and the run is guided."""
    args = ("solve", WIDE, "--moves", FIRST_MOVE, "--search", "proof", "--question", "first-wins", "--tt-mb", "16",
            "--max-nodes", "2000", "--guide", str(narrow))
    code, _, err = run(capsys, *args, "--jobs", "200", "--checkpoint", str(tmp_path / "past.sqlite"))
    assert code == 0 and "where --guide splits none" in err and "give --jobs 59 (a job a reply" in err
    code, out, err = run(capsys, *args, "--jobs", "59", "--checkpoint", str(tmp_path / "fit.sqlite"))
    assert code == 0 and "--guide splits none" not in err and "at once at the guide's move" in out
