"""The search checkpoints kept in checkpoints/ stay readable by the current code.

A checkpoint is not a certificate (nothing here asserts a game's value); what
is asserted is that each row means what the resume code will take it to mean.
"""

import shutil
import sqlite3
from pathlib import Path

import pytest

from kinarow.game import Game
from kinarow.papers import open_cases
from kinarow.search import parallel as par
from kinarow.search.parallel.frontier import SYMBOLS

FOLDER = Path(__file__).resolve().parent.parent / "checkpoints"
FILES = sorted(FOLDER.glob("*.sqlite"))
#: What the resume code must read from each checkpoint at its searched first move, and the source of that value.
#: A new checkpoint needs an entry here (an open search: "unknown" with its open lines).
EXPECTED: dict[str, tuple[str, str]] = {
    # the first player wins after 1. e2: certificates/10x4k4.strategy.json.gz, which the rules-only checker
    # verifies (tests/test_shipped_certificates.py), prescribes 1. e2 and wins against every reply
    "10x4k4-e2.sqlite": ("first", "certificates/10x4k4.strategy.json.gz"),
    # a draw: Hsu, Ko, Chen, Wei, Hsueh & Wu (Theoretical Computer Science 815, 2020) prove (8,8,5) a draw; the
    # stored jobs answer "the first player cannot win" and strategy stealing rules out the second player's win
    "8x8k5.sqlite": ("draw", "Hsu et al. (2020)"),
    # a draw (2026-11-27; no published value we rely on): every first move, up to symmetry, answered "the first
    # player cannot win", strategy stealing rules out the second's win, and certificates/8x7k5.draw.json.gz
    # proves it
    "8x7k5.sqlite": ("draw", "the stored jobs with strategy stealing"),
    # under way (2026-11-27): the proof search answered a first-player win with 1. e1 in one process, and these
    # jobs (one per reply to e1, each walked into its strategy) prove it again in pieces that a sitting can keep
    # (read from the empty board, where strategy stealing gives "first-or-draw" until every reply is proved)
    "18x4k4-e1.sqlite": ("first-or-draw", "the run in progress (CHANGELOG.md, 2026-11-28)"),
    # the first player wins after 1. e2 (2026-11-29): every reply proved and walked, and
    # certificates/19x4k4.strategy.json.gz, merged from this file's walks, wins against every reply (rules-only
    # checker)
    "19x4k4-e2.sqlite": ("first", "certificates/19x4k4.strategy.json.gz"),
}
# the same for the widths after 19 settled as job runs (2026-11-29; from 24 on guided by the width three columns
# narrower; 16 and 17 asked again so, guided by 19 and 20): each proves the first player's win after its first
# move, as its certificate does
CERTIFICATE = {w.m: w.certificate for w in open_cases.FOUR_HIGH}
SETTLED_FIRST_MOVES = {16: "e2", 17: "f2", 20: "f2", 21: "e1", 22: "e2", 23: "f2", 24: "e1", 25: "e2",
                       **open_cases.GUIDED_PARTS}
EXPECTED.update({f"{m}x4k4-{first}.sqlite": ("first", f"certificates/{CERTIFICATE[m]}")
                 for m, first in SETTLED_FIRST_MOVES.items()})


def test_the_checkpoints_folder_is_not_empty():
    assert FILES, "checkpoints/ holds no SQLite checkpoint"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_row_is_a_canonical_board_reached_by_its_line(path, tmp_path):
    copy = tmp_path / path.name  # never touch the tracked file
    shutil.copyfile(path, copy)
    db = sqlite3.connect(copy)
    rows = db.execute("SELECT game, position, moves, value, lo, hi, nodes FROM finished_jobs").fetchall()
    db.close()
    assert rows, f"{path.name} holds no finished job"
    frontiers: dict[str, par.Frontier] = {}
    for game, key, moves, value, lo, hi, nodes in rows:
        fr = frontiers.setdefault(game, par.Frontier(Game(game).start()))
        pos = Game(game).position(moves)
        board = "".join(SYMBOLS[v] for v in pos.board)
        assert board == key, f"{path.name}: the line '{moves}' does not reach its stored board"
        assert fr.canonical(pos.board)[0] == key, f"{path.name}: '{moves}' is not stored in its canonical frame"
        assert par.SECOND <= lo <= hi <= par.FIRST
        assert fr.bounds_name(lo, hi) == value, f"{path.name}: '{moves}' says {value} but its bounds are {lo}..{hi}"
        assert nodes >= 0


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_resume_code_reads_the_checkpoint(path, tmp_path):
    copy = tmp_path / path.name
    shutil.copyfile(path, copy)
    store = par.JobStore(copy)
    try:
        (game,) = {row[0] for row in sqlite3.connect(copy).execute("SELECT game FROM finished_jobs")}
        stored = {m for m, *_ in store.jobs(game)}
        firsts = {m.split()[0] for m in stored}  # a search after one first move, or from the empty board
        start = Game(game).position(firsts.pop()) if len(firsts) == 1 else Game(game).start()
        value, open_lines = par.stored_value(start, store)
    finally:
        store.close()
    assert path.name in EXPECTED, f"{path.name}: say in EXPECTED what the resume code must read from it"
    expected, source = EXPECTED[path.name]
    assert value == expected, f"{path.name}: the resume code reads {value}, {source} says {expected}"
    exact = value in ("first", "second", "draw")
    assert exact != bool(open_lines), "an open value or a bound comes with the positions that can change it"


WALKS = sorted(FOLDER.glob("*.shared.npz"))


@pytest.mark.parametrize("path", WALKS, ids=[p.name for p in WALKS])
def test_a_kept_walk_with_shared_replies_is_read_by_the_resume_code(path):
    """A walk with shared replies stopped part-way (kept beside a table that stays on its machine): its game,
    moves and winner are a position the resume code takes, and its bytes begin as a walk of that position does
    (the start's sets, when the loser is to move, fit its empty cells)."""
    import json

    import numpy as np

    from kinarow.search.proof_search import load_walk
    from kinarow.search.shared_walk import SHARED_CHECKPOINT, Stones, decode_sets

    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
    position = Game(meta["game"]).position(meta["moves"])
    walk = load_walk(str(path), position, meta["winner"], SHARED_CHECKPOINT)
    assert walk
    if position.to_move != meta["winner"]:
        stones = Stones(position.game)
        a, d = position.bits[meta["winner"]], position.bits[3 - meta["winner"]]
        at = iter(walk)
        decode_sets(lambda: next(at), stones.empty(a, d))
