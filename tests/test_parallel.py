"""Parallel solving (kinarow.search.parallel): the same values and valid certificates as one process.

Covers the frontier and its bounds back-up (in-process, against ``solve``),
the local process pool with two workers, checkpoints (stop and resume),
Ctrl-C, bad input, and the command line. The Dask cluster back-end has its
own module, tests/test_parallel_cluster.py.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import interruptible, run
from kinarow import Game, KinarowError, Searcher, solve
from kinarow.position import value_names
from kinarow.proofs.tree import check
from kinarow.search import parallel as par
from kinarow.search.parallel import coordinator
from kinarow.search.parallel.frontier import Frontier, immediate_win, key_bits, start_position
from kinarow.search.parallel.jobs import extract

SRC = str(Path(__file__).resolve().parents[1] / "src")

# Games and positions with their single-process values computed in the test (never typed in).
CASES = [
    ("4x4k4", None),
    ("5x4k4", None),
    ("6x6k4p2q1", None),
    ("5x4k4:gravity", None),
    ("4x3k3", None),
    ("3x3k3:maker-breaker", None),
    ("4x3k3:gravity,misere", None),
    ("4x4k4", "b2 c3"),
    ("6x6k4", "d4 c3 d3"),
    ("5x4k4:gravity", "c c d"),
]


def _answer(leaf_value: int, question: str) -> tuple[int, int]:
    """What a job asking ``question`` reports about a leaf whose exact value is ``leaf_value``."""
    if question == par.EXACT:
        return leaf_value, leaf_value
    if question == par.FIRST_WINS:
        return (par.FIRST, par.FIRST) if leaf_value == par.FIRST else (par.SECOND, par.DRAW)
    return (par.SECOND, par.SECOND) if leaf_value == par.SECOND else (par.DRAW, par.FIRST)


def _random_position(game: str, seed: int, plies: int):
    """Up to ``plies`` random moves from the start (fewer if the game ends)."""
    import random

    rng = random.Random(seed)
    pos = Game(game).start()
    for _ in range(plies):
        if pos.is_over:
            break
        pos.play(rng.choice(pos.legal_moves()))
    return pos


def _backed_up(game: str, moves: str | None, jobs: int, eldest_first: bool = False) -> tuple[str, int, int]:
    """Run the coordinator's loop in-process, answering each needed job from a one-process solve."""
    frontier = par.expand(game, moves=moves, jobs=jobs)
    frontier.eldest_first = eldest_first
    searcher = Searcher(Game(game), tt_mb=8)
    root = frontier.nodes[frontier.root]
    asked = 0
    while not root.resolved:
        needed = frontier.needed()
        assert needed, "the root is open, so some job must be needed"
        node_id, question = needed[0]
        node = frontier.nodes[node_id]
        exact = frontier.score(solve(frontier.position(node), searcher=searcher).value)
        assert node.lo <= exact <= node.hi, "bounds never exclude the true value"
        frontier.settle(node_id, *_answer(exact, question))
        asked += 1
    return frontier.result_name(root.lo), asked, len(frontier.open_jobs()) + asked


@pytest.mark.parametrize(("game", "moves"), [c for c in CASES if c[0] != "5x4k4" and c[0] != "6x6k4"])
def test_frontier_back_up_gives_the_solver_value(game, moves):
    value, _, _ = _backed_up(game, moves, jobs=40)
    assert value == solve(game, moves=moves).value


def test_back_up_skips_jobs_that_cannot_change_the_root():
    frontier = par.expand("5x4k4", jobs=60)
    total = len(frontier.open_jobs())
    value, asked, _ = _backed_up("5x4k4", None, jobs=60)
    assert value == "draw"
    assert asked < total / 2, f"asked {asked} of {total} frontier jobs"


@settings(max_examples=12, deadline=None)
@given(
    game=st.sampled_from(["4x4k4", "4x4k3:gravity", "3x3k3:misere", "4x3k3p2q1"]),
    seed=st.integers(0, 10_000),
    plies=st.integers(0, 4),
    jobs=st.integers(1, 30),
    eldest_first=st.booleans(),
)
def test_back_up_matches_solve_on_random_positions(game, seed, plies, jobs, eldest_first):
    pos = _random_position(game, seed, plies)
    if pos.is_over:
        return
    moves = " ".join(pos.name(c) for c in pos.moves) or None
    value, _, _ = _backed_up(game, moves, jobs, eldest_first)
    assert value == solve(game, moves=moves).value


@pytest.mark.parametrize(("game", "moves"), [("5x4k4", "a1"), ("5x4k4", "e4 b2"), ("4x3k3p2q1", "c3"), ("4x4k4", "")])
def test_open_lines_are_shown_from_the_root_s_own_moves(game: str, moves: str) -> None:
    """The open positions a status names are lines in the root's frame: each begins with the root's own moves
    (the canonical frame may be a mirror image of it) and plays legally to a position the frontier holds."""
    frontier = par.expand(game, moves=moves or None, jobs=20)
    _, lines = frontier.settled()
    assert lines
    for line in lines:
        assert line.split()[: len(moves.split())] == moves.split(), line
        position = Game(game).position(line)
        assert frontier.canonical(position.board)[0] in frontier.by_key, line


def test_frontier_merges_symmetric_positions():
    frontier = par.expand("4x4k4", jobs=30)
    keys = [n.key for n in frontier.nodes]
    assert len(keys) == len(set(keys))
    depth_one = [n for n in frontier.nodes if len(n.moves) == 1]
    assert len(depth_one) == 3  # corner, edge, centre of the 4x4 board under its 8 symmetries
    for node in frontier.nodes:  # each node's line of play reaches exactly its canonical board
        assert "".join(".xo"[v] for v in frontier.position(node).board) == node.key


# -- two local workers -------------------------------------------------------------------
@pytest.mark.parametrize(("game", "moves"), CASES)
def test_two_workers_agree_with_one_process(game, moves):
    single = solve(game, moves=moves)
    result = par.solve(game, moves=moves, workers=2)
    assert result.value == single.value
    assert result.workers == 2 and result.backend == "local"
    assert result.stopped is None
    # the best move keeps the value
    after = f"{moves or ''} {result.best_move}".strip()
    assert solve(game, moves=after).value == single.value


def test_connect_k_jobs_are_answered_by_the_score_search():
    """A gravity game the Connect-k kernel serves sends its jobs to the score search (and the shipped book: the
    7x6 board's jobs are all in it); other games keep alpha-beta."""
    result = par.solve("5x4k4:gravity", workers=2, jobs=8)
    assert result.search == "score search" and result.value == solve("5x4k4:gravity").value
    misere = par.solve("4x3k3:gravity,misere", workers=2, jobs=8)
    assert misere.search == "alpha-beta" and misere.value == solve("4x3k3:gravity,misere").value
    connect4 = par.solve("7x6k4:gravity", workers=2, jobs=16)
    assert (connect4.value, connect4.best_move, connect4.nodes) == ("first", "d1", 0)
    assert connect4.jobs_solved > 0


@pytest.mark.parametrize(("game", "moves", "question"), [
    ("4x4k4", None, "exact"), ("5x4k3", None, "exact"), ("4x4k3:maker-breaker", "a1", "exact"),
    ("6x5k4", "c3 d3", "first-wins"), ("5x5k4", "c3", "second-wins"), ("4x4k3", "b2", "first-wins")])
def test_jobs_by_the_proof_search_agree_with_one_process(game, moves, question):
    """The frontier's jobs asked by the proof search (value jobs and one-sided win tests) give the value
    (or the bound) that one alpha-beta process gives."""
    result = par.solve(game, moves=moves, workers=2, jobs=6, search="proof", question=question)
    assert result.search == "proof-number search" and result.stopped is None
    single = solve(game, moves=moves, search="alpha-beta")
    first, second = value_names(Game(game))
    expected = {"exact": single.value,
                "first-wins": first if single.value == first else f"{second}-or-draw",
                "second-wins": second if single.value == second else f"{first}-or-draw"}[question]
    assert str(result.value) == str(expected)


def test_the_proof_search_for_jobs_is_refused_where_it_does_not_apply():
    with pytest.raises(KinarowError, match="the proof search does not apply"):
        par.solve("5x4k4:gravity", workers=2, search="proof")
    with pytest.raises(KinarowError, match="search must be one of auto, proof, alpha-beta"):
        par.solve("4x4k4", workers=2, search="dfpn")


@pytest.mark.parametrize(("game", "moves"), [("4x3k3", None), ("4x4k3p2q1", None), ("3x3k3:torus", None),
                                             ("4x3k3:gravity,misere", None), ("3x3k3", "b2 b1"),
                                             ("3x3k3:maker-breaker", None)])
def test_two_workers_win_certificates_pass_the_checker(game, moves):
    result = par.solve(game, moves=moves, workers=2, jobs=20, strategy=True)
    assert result.value == solve(game, moves=moves).value
    assert result.strategy is not None
    verdict = check(result.strategy)
    assert verdict.ok, verdict.reason


def test_certificate_maps_leaves_through_symmetries():
    # 4x4k3p2q1 has 8 symmetries and a frontier deep enough that leaves are reached in other frames
    result = par.solve("4x4k3p2q1", workers=2, jobs=60, strategy=True)
    assert result.frontier_depth >= 2
    assert check(result.strategy).ok


@pytest.mark.parametrize(
    ("game", "moves"), [("5x4k4", None), ("4x4k3p2q1", None), ("5x4k4:gravity", None), ("6x6k4", "d4 c3 d3")]
)
def test_jobs_split_while_they_run_keep_the_value_and_certificate(monkeypatch, game, moves):
    # the coordinator reads both names from its own module, so they are patched there
    monkeypatch.setattr(coordinator, "SPLIT_AFTER_SECONDS", 0.0)  # split whenever a worker is idle
    asked: list[str] = []
    monkeypatch.setattr(coordinator, "splits_well", lambda node, question: asked.append(question) or True)  # any job
    result = par.solve(game, moves=moves, workers=2, jobs=1, strategy=True)
    assert result.value == solve(game, moves=moves).value
    assert asked and result.splits > 0  # the patched rule was consulted and jobs were split
    if result.value != "draw":
        verdict = check(result.strategy)
        assert verdict.ok, verdict.reason


def test_only_one_sided_tests_where_the_other_player_moves_are_split():
    frontier = par.expand("5x4k4", jobs=4)
    white_to_move = next(n for n in frontier.nodes if n.kind == par.JOB and n.to_move == 2)
    assert coordinator.splits_well(white_to_move, par.FIRST_WINS)
    assert not coordinator.splits_well(white_to_move, par.SECOND_WINS)
    assert not coordinator.splits_well(white_to_move, par.EXACT)


def test_a_draw_has_no_strategy():
    result = par.solve("4x4k4", workers=2, strategy=True)
    assert result.value == "draw" and result.strategy is None


def test_finished_game_needs_no_workers():
    result = par.solve("3x3k3", moves="a1 b1 a2 b2 a3", workers=2)
    assert result.value == "first" and result.jobs == 0 and result.nodes == 0


def test_limits_give_unknown(monkeypatch):
    monkeypatch.setenv("KINAROW_BOOK", "off")  # the opening book would answer the empty 7x6 board at once
    result = par.solve("8x5k4:gravity", workers=2, max_nodes=200_000)
    assert result.value == "unknown" and result.stopped == "node limit"
    result = par.solve("8x5k4:gravity", workers=2, time_limit=0.5)
    assert result.value == "unknown" and result.stopped == "time limit"
    assert result.seconds < 20


@pytest.mark.parametrize(
    "options", [{"workers": 0}, {"jobs": 0}, {"max_nodes": 0}, {"time_limit": -1.0}]
)
def test_bad_options_are_one_sentence(options):
    with pytest.raises(KinarowError) as err:
        par.solve("4x4k4", **options)
    assert "\n" not in str(err.value)


def test_too_large_board():
    """Past 64 cells only the proof search runs jobs: alpha-beta, or a game it does not apply to, is refused."""
    with pytest.raises(KinarowError, match="at most 64 cells; the proof search takes such boards") as err:
        par.solve("9x9k5", workers=2, search="alpha-beta")
    assert "\n" not in str(err.value)
    with pytest.raises(KinarowError, match=r"at most 64 cells, and the proof search does not apply .*gravity"):
        par.solve("17x4k4:gravity", workers=2)


def test_wide_board_jobs_walk_their_wins_and_the_checkpoint_gives_the_whole_certificate(tmp_path):
    """(17,4,3) after 1. h2 (68 cells): each proof-search job that answers "yes" walks its win from its own
    table (no strategy job after it), the walks are kept in the checkpoint, and a solve of the empty board from
    that checkpoint writes a strategy from them without searching; both strategies pass both checkers."""
    db = tmp_path / "wide.sqlite"
    after = par.solve("17x4k3", moves="h2", workers=2, jobs=8, search="proof", question=par.FIRST_WINS,
                      strategy=True, checkpoint=db, tt_mb=16)
    assert after.value == "first" and after.strategy is not None
    assert {entry["question"] for entry in after.log} == {"strategy"}  # every job walked its "yes"
    store = par.JobStore(db)
    kept = store.strategies("17x4k3")
    store.close()
    assert len(kept) == after.jobs_solved > 1
    root = par.solve("17x4k3", workers=1, search="proof", question=par.FIRST_WINS, strategy=True, checkpoint=db,
                     tt_mb=16)
    assert root.value == "first" and root.nodes == 0 and root.jobs_solved == 0 and root.best_move == "h2"
    for tree in (after.strategy, root.strategy):
        assert check(tree).ok and check(tree, compiled=True).ok


def test_jobs_walk_their_wins_with_shared_replies_and_the_merge_writes_version_4(tmp_path):
    """(17,4,3) after 1. h2 with ``share``: each job's win is a walk with shared replies, kept in the checkpoint
    packed as such; the merge of the frontier and the leaves is one strategy of version 4 that both checkers
    accept; a solve of the empty board from that checkpoint writes one without searching; a solve without
    ``share`` walks the leaves again as version 3 and also checks."""
    from kinarow.search.parallel.checkpoint import unpack_shared

    db = tmp_path / "shared.sqlite"
    after = par.solve("17x4k3", moves="h2", workers=2, jobs=8, search="proof", question=par.FIRST_WINS,
                      strategy=True, checkpoint=db, tt_mb=16, share=True)
    assert after.value == "first" and after.strategy is not None and after.strategy.shared is not None
    store = par.JobStore(db)
    kept = store.strategies("17x4k3")
    blobs = [store.get_strategy("17x4k3", node, value) for node, value in
             store.db.execute("SELECT position, winner FROM strategies WHERE game = '17x4k3'")]
    store.close()
    assert len(kept) == after.jobs_solved > 1 and all(unpack_shared(b) is not None for b in blobs)
    root = par.solve("17x4k3", workers=1, search="proof", question=par.FIRST_WINS, strategy=True, checkpoint=db,
                     tt_mb=16, share=True)
    assert root.nodes == 0 and root.strategy is not None and root.strategy.shared is not None
    plain = par.solve("17x4k3", moves="h2", workers=2, jobs=8, search="proof", question=par.FIRST_WINS,
                      strategy=True, checkpoint=db, tt_mb=16)
    assert plain.strategy is not None and plain.strategy.shared is None
    for tree in (after.strategy, root.strategy, plain.strategy):
        assert check(tree).ok and check(tree, compiled=True).ok
    with pytest.raises(KinarowError, match="give it with strategy=True and search='proof'"):
        par.solve("4x4k3", workers=1, search="proof", share=True)


def test_a_split_at_a_searched_move_asks_that_child_first():
    """A leaf split at the move its search was following: only that child is asked until it is decided."""
    position = Game("6x5k4").position("c3 d3")
    fr = par.Frontier(position)
    fr.ask(par.FIRST_WINS)
    fr.expand(1)
    root = fr.nodes[fr.root]
    assert root.kind == par.JOB
    after = fr.position(root)  # the leaf's own (canonical) frame, in which a job names its move
    lead = after.geometry.parse_cell("b2")  # not the centre-first order's first move
    fr.split(root.id, first=lead)
    needed = fr.needed()
    child = fr.nodes[needed[0][0]]
    assert len(needed) == 1 and child.id == root.children[0]
    after.play(lead)
    assert child.key == fr.canonical(after.board)[0]
    fr.settle(child.id, par.SECOND, par.DRAW)  # the lead move does not win: the next move is asked, alone
    (next_one, _), = fr.needed()
    assert next_one == root.children[1]


def test_long_proof_jobs_are_split_at_the_move_their_search_was_following():
    """With max_job_seconds, a proof-search win test of the player to move is stopped, names the move its
    search was following, and is split there: the value and a checked strategy come out, and the first player's
    moves at the root are not all asked."""
    result = par.solve("9x4k4", moves="e2 d3", workers=2, jobs=1, search="proof", question=par.FIRST_WINS,
                       strategy=True, max_job_seconds=0.3, tt_mb=64)
    assert result.value == "first" and result.splits > 0
    assert check(result.strategy, compiled=True).ok
    first_moves = {entry["moves"].split()[2] for entry in result.log if len(entry["moves"].split()) >= 3}
    assert 0 < len(first_moves) < 34
    # a stopped job's nodes count in the run's total (the work was done)
    assert any(entry["value"] == "stopped" and entry["nodes"] > 0 for entry in result.log)


def test_a_proof_job_stopped_in_its_walk_keeps_the_value_and_names_the_winning_move(monkeypatch):
    """A proof-search win test whose walk is stopped gives its value and the winning move its proof found, so
    that a coordinator that stopped it for a split can split there."""
    from kinarow.search.parallel.jobs import JobSpec, run_job
    from kinarow.search.proof_search import ProofSearcher

    def stopped(self, position, winner, on_tick=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(ProofSearcher, "strategy_walk", stopped)
    game = Game("6x5k4")
    moves = tuple(game.geometry.parse_cell(c) for c in ("c3", "d3"))
    out = run_job(JobSpec(0, "6x5k4", moves, 16, question=par.FIRST_WINS, search="proof", walk_wins=True))
    assert out.bounds == (par.FIRST, par.FIRST) and out.walk is None and out.hint is not None
    pos = game.start()
    for cell in (*moves, out.hint):
        pos.play(cell)
    assert solve(pos).value == "first"  # the named move keeps the win


def test_a_walk_stopped_for_a_split_is_split_at_the_winning_move(monkeypatch, tmp_path, capsys):
    """With max_job_seconds, a job that proved its win but is still walking it when its time is up is split at
    the winning move (its value left open): the children's jobs walk smaller trees. The value and a checked
    strategy still come out. (The root job's walk here never ends until it is stopped.)"""
    from kinarow.search.proof_search import ProofSearcher

    real = ProofSearcher.strategy_walk

    def endless_at_the_root(self, position, winner, on_tick=None):
        if position.stones == 2:  # the root job's position: a walk that runs until the coordinator stops it
            while True:
                if on_tick is not None:
                    on_tick(0)
                time.sleep(0.01)
        return real(self, position, winner, on_tick=on_tick)

    monkeypatch.setattr(ProofSearcher, "strategy_walk", endless_at_the_root)
    db = tmp_path / "jobs.sqlite"
    result = par.solve("6x5k4", moves="c3 d3", workers=2, jobs=1, search="proof", question=par.FIRST_WINS,
                       strategy=True, max_job_seconds=2.0, tt_mb=16, checkpoint=db)
    assert result.value == "first" and result.splits > 0
    assert any(entry["value"] == "split while walking" for entry in result.log)
    assert check(result.strategy, compiled=True).ok
    # the split is kept: a resumed run's frontier splits the root job again at once, its winning move first
    store = par.JobStore(db)
    try:
        root = Frontier(start_position("6x5k4", "c3 d3"), store)
        first = store.splits("6x5k4", 30)[root.nodes[root.root].key]
        assert first is not None
        root.expand(1)
        node = root.nodes[root.root]
        assert node.kind == par.INNER and node.id in root.led
        lead = root.position(node)
        lead.play(first)
        assert root.nodes[node.children[0]].key == root.canonical(lead.board)[0]
        # and the winning move's child was split at once (its replies are the jobs)
        assert store.splits("6x5k4", 30)[root.nodes[node.children[0]].key] is None
    finally:
        store.close()
    code, out, _ = run(capsys, "solve", "6x5k4", "--moves", "c3 d3", "--checkpoint", str(db), "--status")
    assert code == 0 and "split (while running" in out
    code, out, _ = run(capsys, "solve", "6x5k4", "--moves", "c3", "--checkpoint", str(db), "--status", "--question",
                       "first-wins")  # from one stone up: the kept split is reached below the first position
    assert code == 0 and "settle 1: d3 first." in out


def test_following_the_checkpoint_keeps_undecided_moves_of_the_tested_player_as_one_job(tmp_path):
    """Under a one-sided question, a node where the tested player moves that stored jobs lie below (here by a
    4-stone job) but do not decide stays one job: its moves are not all made jobs. Under the exact question the
    frontier follows the checkpoint down as before."""
    db = tmp_path / "jobs.sqlite"
    deep = start_position("6x5k4", "c3 d3 c4 d4")
    probe = Frontier(deep)
    store = par.JobStore(db)
    try:
        store.put("6x5k4", probe.nodes[0].key, "c3 d3 c4 d4", (par.FIRST, par.FIRST), "first", 10, 0.1)
        start = start_position("6x5k4", "c3")
        reply = start_position("6x5k4", "c3 d3")
        one_sided = Frontier(start, store)
        one_sided.ask(par.FIRST_WINS)
        one_sided.expand(1)
        node = one_sided.nodes[one_sided.by_key[one_sided.canonical(reply.board)[0]]]
        assert one_sided.nodes[one_sided.root].kind == par.INNER  # the second player's node: its replies are jobs
        assert node.kind == par.JOB and not node.children
        assert node.id in {job for job, _ in one_sided.needed()}
        exact = Frontier(start, store)
        exact.expand(1)
        assert exact.nodes[exact.by_key[exact.canonical(reply.board)[0]]].kind == par.INNER
    finally:
        store.close()


def test_a_damaged_kept_split_is_one_sentence(tmp_path):
    db = tmp_path / "jobs.sqlite"
    start = start_position("6x5k4", "c3 d3")
    key = Frontier(start).nodes[0].key
    store = par.JobStore(db)
    try:
        for first, why in ((start.moves[0], "not a legal move"), (30, "from -1 to 29")):
            store.put_split("6x5k4", key, "c3 d3", first)
            with pytest.raises(KinarowError, match=why):
                Frontier(start, store).expand(1)
    finally:
        store.close()


def test_a_proof_search_strategy_job_refuses_a_winner_the_search_does_not_find():
    from kinarow.search.parallel.jobs import JobSpec, run_job

    game = Game("6x5k4")
    moves = (game.geometry.parse_cell("c3"),)
    right = run_job(JobSpec(0, "6x5k4", moves, 16, strategy=True, question=par.FIRST_WINS, search="proof"))
    assert right.bounds == (1, 1) and right.walk
    with pytest.raises(KinarowError, match="internal error"):
        run_job(JobSpec(0, "6x5k4", moves, 16, strategy=True, question=par.SECOND_WINS, search="proof"))


# -- checkpoints ------------------------------------------------------------------------
def test_checkpoint_keeps_finished_jobs_and_resumes(tmp_path):
    db = tmp_path / "jobs.sqlite"
    first = par.solve("5x4k4", workers=2, checkpoint=db)
    assert first.value == "draw"
    store = par.JobStore(db)
    stored = store.count("5x4k4")
    store.close()
    assert 0 < stored <= first.jobs_solved  # one row per position; a second answer narrows the first
    again = par.solve("5x4k4", workers=2, checkpoint=db)
    assert again.value == "draw"
    assert again.jobs_from_checkpoint > 0
    assert again.nodes < first.nodes


def test_stopped_solve_resumes_from_its_checkpoint(tmp_path):
    db = tmp_path / "jobs.sqlite"
    # plain search (knowledge settles 5x4k4 within the node budget)
    stopped = par.solve("5x4k4", workers=2, jobs=100, checkpoint=db, max_nodes=300_000, knowledge="none")
    assert stopped.value == "unknown"
    store = par.JobStore(db)
    kept = store.count()
    store.close()
    assert kept > 0, "jobs that finished before the stop are kept"
    store = par.JobStore(db)
    value, open_lines = par.stored_value(Game("5x4k4").start(), store)
    store.close()
    assert value != "draw" and open_lines, "what the stopped run left open is listed"
    resumed = par.solve("5x4k4", workers=2, jobs=100, checkpoint=db, knowledge="none")
    assert resumed.value == "draw"
    assert resumed.jobs_from_checkpoint == kept
    store = par.JobStore(db)
    assert par.stored_value(Game("5x4k4").start(), store) == ("draw", [])
    store.close()


def test_a_resumed_solve_follows_deeper_checkpointed_jobs(tmp_path):
    """Jobs stored by a run with a deeper frontier are found by a run asked for fewer jobs."""
    db = tmp_path / "jobs.sqlite"
    deep = par.solve("5x4k4", workers=2, jobs=300, checkpoint=db, knowledge="none")
    shallow = par.solve("5x4k4", workers=2, jobs=4, checkpoint=db, knowledge="none")
    assert shallow.value == deep.value == solve("5x4k4").value
    assert shallow.jobs_from_checkpoint > 0
    assert shallow.jobs_solved == 0 and shallow.nodes == 0


def test_a_strategy_is_assembled_from_deeper_checkpointed_jobs_and_strategies(tmp_path):
    db = tmp_path / "jobs.sqlite"
    deep = par.solve("5x5k4", moves="c3 a1", workers=2, jobs=200, strategy=True, checkpoint=db)
    shallow = par.solve("5x5k4", moves="c3 a1", workers=2, jobs=4, strategy=True, checkpoint=db)
    assert deep.value == shallow.value == "first"
    assert shallow.nodes == 0 and not [e for e in shallow.log if e.get("question") == "strategy"]
    assert shallow.strategy is not None and check(shallow.strategy).ok


def test_checkpoint_keeps_extracted_strategies_for_the_next_run(tmp_path):
    db = tmp_path / "jobs.sqlite"
    first = par.solve("5x5k4", moves="c3 a1", workers=2, jobs=8, strategy=True, checkpoint=db)
    assert first.value == "first" and first.strategy is not None
    extracted = [e for e in first.log if e.get("question") == "strategy"]
    store = par.JobStore(db)
    kept = store.strategies("5x5k4")
    assert len(kept) == len(extracted) > 0
    assert all(winner == "first" and prescribed >= 0 for _, winner, prescribed, _, _ in kept)
    store.close()
    again = par.solve("5x5k4", moves="c3 a1", workers=2, jobs=8, strategy=True, checkpoint=db)
    assert not [e for e in again.log if e.get("question") == "strategy"], "no leaf is extracted twice"
    assert again.strategy is not None and again.strategy.walk == first.strategy.walk is not None
    assert check(again.strategy).ok


def test_a_checkpoint_that_cannot_be_written_is_one_sentence(tmp_path):
    """A write the file refuses (here: the file removed under the store, which SQLite then keeps read-only) is
    one sentence naming the checkpoint, not an SQLite traceback."""
    db = tmp_path / "jobs.sqlite"
    store = par.JobStore(db)
    store.put("4x4k4", "." * 16, "", (0, 0), "draw", 1, 0.0)
    db.unlink()
    try:
        with pytest.raises(KinarowError, match=r"cannot write to the checkpoint '.*jobs\.sqlite'") as err:
            store.clear_running("4x4k4")
            store.put("4x4k4", "x" + "." * 15, "a1", (0, 0), "draw", 1, 0.0)
        assert "\n" not in str(err.value)
    finally:
        store.close()


def test_checkpoint_file_that_is_not_sqlite(tmp_path):
    bad = tmp_path / "not.sqlite"
    bad.write_text("this is not a database\n" * 100)
    with pytest.raises(KinarowError, match="checkpoint"):
        par.solve("4x4k4", workers=2, checkpoint=bad)


# -- Ctrl-C -----------------------------------------------------------------------------------
def _session_processes(sid: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(entry.name))
    return pids


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc to find the workers")
def test_ctrl_c_stops_the_workers_cleanly(tmp_path):
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "KINAROW_BOOK": "off"}  # the opening book would answer the positions of its first jobs at once
    proc = subprocess.Popen(
        [sys.executable, "-m", "kinarow", "solve", "7x6k4:gravity", "--workers", "2",
         "--checkpoint", str(tmp_path / "c4.sqlite")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
        preexec_fn=interruptible,
    )
    try:
        deadline = time.monotonic() + 30
        while len(_session_processes(proc.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)  # wait for the two workers
        time.sleep(1.0)
        store = par.JobStore(tmp_path / "c4.sqlite")
        busy = store.running("7x6k4:gravity")  # the checkpoint shows what runs now
        store.close()
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole process group
        out, err = proc.communicate(timeout=120)  # a bound for a hang: seen past 30 s on two loaded cores
    finally:
        if proc.poll() is None:  # never leave a search running behind a failed test
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "Interrupted" in err
    time.sleep(0.5)
    assert _session_processes(proc.pid) == [], "worker processes were left behind"
    assert "Unknown" in out
    assert 1 <= len(busy) <= 2 and all(q in (par.EXACT, par.FIRST_WINS, par.SECOND_WINS) for _, q, _ in busy)
    store = par.JobStore(tmp_path / "c4.sqlite")
    assert store.running("7x6k4:gravity") == [], "a clean stop leaves no running marks"
    store.close()


# -- command line -----------------------------------------------------------------------------

def test_cli_solve_with_workers(capsys):
    code, out, _ = run(capsys, "solve", "5x4k4:gravity", "--workers", "2")
    assert code == 0
    assert out.splitlines()[0] == "Draw with perfect play."
    assert any(line.startswith("workers:") and "2 (local)" in line for line in out.splitlines())


def test_cli_solve_json_with_workers_and_strategy(capsys, tmp_path):
    path = tmp_path / "s.json"
    code, out, _ = run(capsys, "solve", "4x3k3", "--workers", "2", "--json", "--strategy", str(path))
    assert code == 0
    data = json.loads(out)
    assert data["value"] == "first" and data["workers"] == 2 and data["jobs"] > 0
    assert data["strategy_positions"] > 0
    code, out, _ = run(capsys, "check", str(path))
    assert code == 0 and out.startswith("VALID")


def test_cli_check_reads_gzip(capsys, tmp_path):
    path = tmp_path / "s.json"
    run(capsys, "solve", "4x3k3", "--workers", "2", "--strategy", str(path))
    gz = tmp_path / "s.json.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    code, out, _ = run(capsys, "check", str(gz))
    assert code == 0 and out.startswith("VALID")
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(gzip.compress(path.read_bytes())[:40])
    code, _, err = run(capsys, "check", str(broken))
    assert code == 1 and err.startswith("kinarow: error:") and "\n" not in err.strip()


@pytest.mark.parametrize(
    ("option", "value"),
    [("--workers", "0"), ("--workers", "two"), ("--jobs", "-3"), ("--max-job-seconds", "0"),
     ("--max-job-seconds", "soon")],
)
def test_cli_bad_parallel_options(capsys, option, value):
    code, _, err = run(capsys, "solve", "4x4k4", option, value)
    assert code == 2
    assert err.startswith("kinarow: error:") and option in err
    assert len(err.strip().splitlines()) == 1


def test_cli_checkpoint_resume_message(capsys, tmp_path):
    db = tmp_path / "c.sqlite"
    code, out, _ = run(capsys, "solve", "4x4k4", "--checkpoint", str(db))
    assert code == 0 and "Draw" in out
    code, out, _ = run(capsys, "solve", "4x4k4", "--checkpoint", str(db))
    assert code == 0 and "resumed:" in out
    # --status lists what the file holds for the game, searching nothing
    store = par.JobStore(db)
    stored = store.count("4x4k4")
    store.close()
    code, out, _ = run(capsys, "solve", "4x4k4", "--checkpoint", str(db), "--status", "--json")
    jobs = json.loads(out)["jobs"]
    assert code == 0 and stored > 0 and len(jobs) == stored and all(j["nodes"] >= 0 for j in jobs)
    assert json.loads(out)["settled"] == "draw" and json.loads(out)["open"] == []
    code, out, _ = run(capsys, "solve", "4x4k4", "--checkpoint", str(db), "--status")
    assert code == 0 and f"{stored} finished job" in out and "UTC" in out
    assert "From the start the stored jobs settle: draw." in out
    code, out, _ = run(capsys, "solve", "5x4k4", "--checkpoint", str(db), "--status")
    assert code == 0 and "no finished jobs" in out
    code, _, err = run(capsys, "solve", "4x4k4", "--checkpoint", str(tmp_path), "--status")
    assert code == 2 and "is a directory" in err and "Traceback" not in err
    code, _, err = run(capsys, "solve", "4x4k4", "--status")
    assert code == 2 and "--checkpoint FILE" in err


def test_cli_status_shows_running_jobs_and_a_new_solve_clears_stale_marks(capsys, tmp_path):
    db = tmp_path / "c.sqlite"
    store = par.JobStore(db)
    store.mark_running("5x4k4", "." * 20, "", par.FIRST_WINS)  # as left by a solve that was killed
    store.mark_running("4x4k4", "." * 16, "", par.EXACT)
    store.close()
    code, out, _ = run(capsys, "solve", "5x4k4", "--checkpoint", str(db), "--status")
    assert code == 0 and "1 job running" in out and "can the first player win?" in out and "min)" in out
    code, out, _ = run(capsys, "solve", "5x4k4", "--checkpoint", str(db), "--status", "--json")
    assert json.loads(out)["running"] == [{"moves": "", "question": par.FIRST_WINS,
                                           "started": json.loads(out)["running"][0]["started"]}]
    code, _, _ = run(capsys, "solve", "5x4k4", "--checkpoint", str(db), "--time-limit", "1")
    store = par.JobStore(db)
    assert store.running("5x4k4") == [], "a solve starts by clearing the marks of its game"
    assert len(store.running("4x4k4")) == 1, "and leaves other games' marks alone"
    store.close()


def test_cli_status_lists_the_extracted_strategies(capsys, tmp_path):
    db, proof = tmp_path / "c.sqlite", tmp_path / "win.json"
    code, _, _ = run(capsys, "solve", "5x5k4", "--moves", "c3 a1", "--workers", "2", "--checkpoint", str(db),
                     "--strategy", str(proof))
    assert code == 0 and run(capsys, "check", str(proof))[0] == 0
    code, out, _ = run(capsys, "solve", "5x5k4", "--checkpoint", str(db), "--status", "--json")
    kept = json.loads(out)["strategies"]
    assert code == 0 and kept and all(k["winner"] == "first" and k["prescribed_moves"] >= 0 for k in kept)
    code, out, _ = run(capsys, "solve", "5x5k4", "--checkpoint", str(db), "--status")
    assert code == 0 and f"{len(kept)} winner's strateg" in out and "prescribed moves" in out


def test_settle_lists_the_cases(capsys):
    code, out, _ = run(capsys, "settle", "--list")
    assert code == 0
    for name in ("7x4k4", "8x4k4", "9x4k4", "10x4k4", "7x7k5", "8x8k5", "connect4"):
        assert name in out


def test_settle_writes_certificates_and_logs(capsys, monkeypatch, tmp_path):
    from kinarow.papers import open_cases

    small = (open_cases.Case("t-win", "4x3k3", "first", "test"), open_cases.Case("t-draw", "5x4k4", "draw", "test"),
             open_cases.Case("t-log", "4x4k4:gravity", "draw", "test"))
    monkeypatch.setattr(open_cases, "CASES", small)
    code, out, _ = run(capsys, "settle", "t-win", "t-draw", "t-log", "--workers", "2", "--out", str(tmp_path),
                       "--json")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["value"] for r in rows] == ["first", "draw", "draw"]
    assert all(r["agrees"] for r in rows)
    code, out, _ = run(capsys, "check", str(tmp_path / "t-win.strategy.json.gz"))
    assert code == 0 and out.startswith("VALID")
    with gzip.open(tmp_path / "t-win.strategy.json.gz", "rt") as fh:
        assert json.load(fh)["version"] == 3  # settle writes strategies as walks
    # a draw of a free-placement game gets a blocking tree; under gravity each player's non-losing walk
    code, out, _ = run(capsys, "check", str(tmp_path / "t-draw.draw.json.gz"))
    assert code == 0 and out.startswith("VALID") and "draw" in out
    code, out, _ = run(capsys, "check", str(tmp_path / "t-log.draw.json.gz"))
    assert code == 0 and out.startswith("VALID") and "draw" in out
    assert not (tmp_path / "t-log.searchlog.json.gz").exists()


def test_a_draw_whose_proof_does_not_fit_in_time_leaves_a_search_log_that_check_refuses(capsys, tmp_path):
    """When the draw proof cannot be built in the time left, ``settle --out`` keeps the search log: evidence of
    the run, which ``kinarow check`` refuses as a certificate."""
    from kinarow.search import certify

    result = par.solve("4x4k4:gravity", workers=2)
    found = certify.evidence(result, seconds=1e-9)
    assert found.kind == "searchlog" and found.data is not None
    path = tmp_path / "t.searchlog.json"
    path.write_text(json.dumps(found.data))
    code, _, err = run(capsys, "check", str(path))
    assert code == 1 and "search log" in err


def test_settle_without_out_reports_the_value_and_builds_no_certificate(capsys, monkeypatch):
    from kinarow.papers import open_cases

    monkeypatch.setattr(open_cases, "CASES", (open_cases.Case("t-win", "4x3k3", "first", "test"),))
    code, out, _ = run(capsys, "settle", "t-win", "--workers", "1", "--json")
    row = json.loads(out)
    assert code == 0 and row["value"] == "first" and row["agrees"]
    assert "strategy_positions" not in row


def test_settle_unknown_case(capsys):
    code, _, err = run(capsys, "settle", "11x4k4")
    assert code == 2 and "no case called" in err


def test_settle_by_draw_proof_writes_a_checked_certificate(capsys, monkeypatch, tmp_path):
    from kinarow.papers import open_cases

    small = (open_cases.Case("t-draw", "5x4k4", "draw", "test"), open_cases.Case("t-win", "4x3k3", "first", "test"))
    monkeypatch.setattr(open_cases, "CASES", small)
    code, out, _ = run(capsys, "settle", "t-draw", "t-win", "--draw-proof", "--safety-budget", "5000",
                       "--out", str(tmp_path), "--json")
    assert code == 0
    draw, win = (json.loads(line) for line in out.splitlines())
    assert draw["value"] == "draw" and draw["agrees"] and draw["positions"] > 0
    assert win["value"] == "unknown" and "no defence" in win["stopped"]  # a win is never claimed this way
    code, out, _ = run(capsys, "check", str(tmp_path / "t-draw.draw.json.gz"))
    assert code == 0 and out.startswith("VALID")


def test_settle_by_draw_proof_refuses_gravity(capsys, monkeypatch):
    from kinarow.papers import open_cases

    monkeypatch.setattr(open_cases, "CASES", (open_cases.Case("c4", "7x6k4:gravity", "first", "test"),))
    code, _, err = run(capsys, "settle", "c4", "--draw-proof")
    assert code == 2 and "gravity" in err
    code, _, err = run(capsys, "settle", "c4", "--draw-proof", "--safety-budget", "0")
    assert code == 2 and "--safety-budget" in err


def test_the_result_names_the_workers_knowledge():
    assert par.solve("5x4k4", workers=2, knowledge="pairing").knowledge == "pairing"
    assert par.solve("5x4k4", workers=2, knowledge="none").knowledge == "none"
    # where knowledge cannot apply, the result says so, as one process does
    gravity = par.solve("4x4k4:gravity", workers=1, knowledge="pairing")
    assert gravity.knowledge_note == solve("4x4k4:gravity", knowledge="pairing").knowledge_note
    assert gravity.knowledge_note and "gravity" in gravity.knowledge_note


def test_settle_by_draw_proof_in_jobs_resumes_from_its_checkpoint(capsys, monkeypatch, tmp_path):
    from kinarow.papers import open_cases

    monkeypatch.setattr(open_cases, "CASES", (open_cases.Case("t-draw", "5x5k4", "draw", "test"),))
    args = ("settle", "t-draw", "--draw-proof", "--workers", "2", "--tt-mb", "64", "--checkpoint",
            str(tmp_path / "walks"), "--out", str(tmp_path), "--json")
    code, out, _ = run(capsys, *args)
    row = json.loads(out)
    assert code == 0 and row["value"] == "draw" and row["workers"] == 2 and row["resumed"] == 0
    assert sorted(p.name for p in (tmp_path / "walks" / "t-draw").iterdir())[0].endswith(".job0.npz")
    code, out, _ = run(capsys, *args)
    again = json.loads(out)
    assert code == 0 and again["walked"] == 0 and again["resumed"] > 0 and again["positions"] == row["positions"]
    # --status reads the finished jobs back: each is done, and their entries add up to what was read
    code, out, _ = run(capsys, *args[:-3], "--status", "--json")
    walks = json.loads(out)["walks"]["first_cannot_win"]
    assert code == 0 and [w["line"] for w in walks] == ["1. a1", "1. a2", "1. a3", "1. b2", "1. b3", "1. c3"]
    assert all(w["state"] == "done" for w in walks) and sum(w["settled"] for w in walks) == again["resumed"]
    code, out, _ = run(capsys, *args[:-3], "--status")
    assert code == 0 and out.count(" done ") == 6 and "1. c3" in out
    code, out, _ = run(capsys, "check", str(tmp_path / "t-draw.draw.json.gz"))
    assert code == 0 and out.startswith("VALID")


def test_a_stopped_draw_proof_says_how_far_it_got(capsys, monkeypatch, tmp_path):
    from kinarow.cli import scale
    from kinarow.papers import open_cases
    from kinarow.search.draw import StoppedError

    monkeypatch.setattr(open_cases, "CASES", (open_cases.Case("t-draw", "8x4k4", "draw", "test"),))

    @contextmanager
    def stop_at_the_third_tick(label, total, stream):
        # The walk ticks every 1,024 settled positions and checks its deadline at the same place: a stop
        # raised there is what a deadline raises, after a fixed amount of work however fast the machine is.
        ticks = []

        def tick(count):
            ticks.append(count)
            if len(ticks) == 3:
                raise StoppedError("the time limit ran out before the blocking tree was complete")

        yield tick

    monkeypatch.setattr(scale, "progress_bar", stop_at_the_third_tick)
    walks = tmp_path / "walks"
    args = ("settle", "t-draw", "--draw-proof", "--workers", "1", "--tt-mb", "64", "--time-limit", "3600",
            "--checkpoint", str(walks))
    code, out, _ = run(capsys, *args)  # the whole walk takes minutes; it stops after 3 x 1,024 positions
    assert code == 0 and "not settled by a draw proof (time limit)" in out
    assert "positions settled in this run" in out and f"kept in {walks / 't-draw'}" in out
    assert "read from earlier runs" not in out
    code, out, _ = run(capsys, *args, "--json")
    row = json.loads(out)
    assert row["value"] == "unknown" and row["resumed"] > 0 and row["walked"] >= 0
    # --status shows the stopped walk: its entries, and the line it works below with the moves settled there
    code, out, _ = run(capsys, *args, "--status", "--json")
    (walk,) = json.loads(out)["walks"]["first_cannot_win"]
    assert code == 0 and walk["line"] == "" and walk["state"] == "walking"
    assert walk["settled"] == row["resumed"] + row["walked"] and walk["current"].startswith("1. ")
    assert walk["levels"][0][1] == 32 and all(done < moves for done, moves in walk["levels"][:-1])
    code, out, _ = run(capsys, *args, "--status")
    assert code == 0 and "from the start" in out and "walking" in out and f"/{32}, " in out


def test_settle_by_draw_proof_bad_options(capsys, monkeypatch, tmp_path):
    from kinarow.papers import open_cases

    monkeypatch.setattr(open_cases, "CASES", (open_cases.Case("t-draw", "5x5k4", "draw", "test"),))
    (tmp_path / "file").write_text("")
    code, _, err = run(capsys, "settle", "t-draw", "--draw-proof", "--checkpoint", str(tmp_path / "file"))
    assert code == 2 and "give a directory" in err and "Traceback" not in err
    code, _, err = run(capsys, "settle", "t-draw", "--draw-proof", "--cluster", "tcp://127.0.0.1:1")
    assert code == 2 and "local worker processes only" in err
    code, _, err = run(capsys, "settle", "t-draw", "--status")
    assert code == 2 and "--draw-proof --checkpoint DIR" in err
    code, out, _ = run(capsys, "settle", "t-draw", "--draw-proof", "--checkpoint", str(tmp_path / "none"), "--status")
    assert code == 0 and "no saved draw-proof walk" in out


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_keeps_the_draw_proof_walk(tmp_path, workers):
    """Ctrl-C stops `settle --draw-proof` with exit 130 and the settled positions saved for a resume."""
    import signal
    import subprocess
    import sys
    import time

    from helpers import interruptible
    from kinarow.search.draw import Memory

    walks = tmp_path / "walks"
    command = [sys.executable, "-m", "kinarow", "settle", "8x4k4", "--draw-proof", "--workers", workers,
               "--tt-mb", "64"]
    # A first short run compiles the kernels (tens of seconds on a fresh clone, when a Ctrl-C waits for the
    # compiler), so that the interrupted run below is walking, not compiling, when it is stopped.
    subprocess.run([*command, "--time-limit", "1"], capture_output=True, timeout=600, check=True)
    proc = subprocess.Popen(
        [*command, "--checkpoint", str(walks)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible, start_new_session=True,
    )
    try:
        time.sleep(12)  # the walk is under way (minutes long in all); it saves what it settled when stopped
        assert proc.poll() is None
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "resumes from there (add --status to see how far it got)" in err and "Traceback" not in err
    saved = sum(len(Memory.load(p, 32)) for p in walks.glob("8x4k4/*.npz"))
    assert saved > 0


def test_settle_time_limit_defaults(capsys, monkeypatch, tmp_path):
    """600 s per case, except a draw-proof walk with a checkpoint: it resumes, so it has no limit."""
    from kinarow.cli import scale as cli_scale
    from kinarow.papers import open_cases

    seen: list[float | None] = []
    monkeypatch.setattr(open_cases, "CASES", (open_cases.Case("t-draw", "5x5k4", "draw", "test"),))
    monkeypatch.setattr(cli_scale, "_settle_by_draw_proofs", lambda cases, out, limit, *a, **k: seen.append(limit) or 0)
    walks = str(tmp_path / "walks")
    for extra in ([], ["--checkpoint", walks], ["--checkpoint", walks, "--time-limit", "30"]):
        assert run(capsys, "settle", "t-draw", "--draw-proof", *extra)[0] == 0
    assert seen == [cli_scale.DEFAULT_TIME_LIMIT, None, 30.0]
    code, _, err = run(capsys, "settle", "t-draw", "--draw-proof", "--time-limit", "none")
    assert code == 2 and "--time-limit must be a positive number" in err


def test_needed_is_recomputed_whenever_the_frontier_changes():
    """The coordinator's cached list of needed jobs equals a fresh walk after every settle and split."""
    frontier = par.expand("5x4k4", jobs=60)
    searcher = Searcher(Game("5x4k4"), tt_mb=8)
    root = frontier.nodes[frontier.root]
    steps = 0
    while not root.resolved:
        cached = frontier.needed()
        assert frontier.needed() == cached  # asked again with nothing changed: the kept answer
        frontier._needed_cache = None
        assert frontier.needed() == cached
        node_id, question = cached[0]
        if steps % 3 == 2 and frontier.nodes[node_id].kind == par.JOB:
            frontier.split(node_id)
        else:
            exact = frontier.score(solve(frontier.position(frontier.nodes[node_id]), searcher=searcher).value)
            frontier.settle(node_id, *_answer(exact, question))
        steps += 1
    assert frontier.result_name(root.lo) == solve("5x4k4").value


@settings(max_examples=200, deadline=None)
@given(
    game=st.sampled_from(
        ["4x4k3", "4x3k3:gravity", "3x3k3:misere", "4x4k3:maker-breaker", "4x3k3p2q1", "3x3k3", "4x3k4:maker-breaker"]
    ),
    seed=st.integers(0, 10**6),
    plies=st.integers(0, 16),
)
def test_the_immediate_win_filter_agrees_with_playing_every_move(game, seed, plies):
    pos = _random_position(game, seed, plies)
    if pos.is_over:
        return
    assert immediate_win(pos) == immediate_win(pos, every_move=True)


def test_filling_the_board_is_an_immediate_win_for_breaker():
    """Breaker's last stone wins by filling the board, though it completes no group of Breaker's."""
    pos = Game("4x3k4:maker-breaker").position("b1 d1 c1 b2 a2 d2 c2 a3 b3 c3 d3")
    assert pos.legal_moves() == [pos.geometry.parse_cell("a1")] and not pos.is_over
    assert immediate_win(pos) == immediate_win(pos, every_move=True) == "breaker"


def _below_brute(fr, board, stored_boards, lines):
    """Is ``board`` one a stored line passes through before its end, or does a stored board extend it by one or
    two stones, in some symmetric frame? (every frame and every prefix tried)"""
    count = sum(1 for v in board if v)
    for s in fr.syms:
        x = o = 0
        for c, v in enumerate(board):
            if v == 1:
                x |= 1 << s[c]
            elif v == 2:
                o |= 1 << s[c]
        if any(0 < (sx | so).bit_count() - count <= 2 and x & ~sx == 0 and o & ~so == 0 for sx, so in stored_boards):
            return True
        for line in lines:
            for n in range(len(line)):
                if (x, o) == (sum(1 << c for c in line[:n:2]), sum(1 << c for c in line[1:n:2])):
                    return True
    return False


@settings(max_examples=25, deadline=None)
@given(game=st.sampled_from(["5x4k4", "4x4k4", "5x4k4:gravity"]), seed=st.integers(0, 10**6))
def test_following_the_checkpoint_finds_exactly_the_boards_with_stored_work_below(game, seed, tmp_path_factory):
    import random

    rng = random.Random(seed)
    store = par.JobStore(tmp_path_factory.mktemp("store") / "jobs.sqlite")
    probe = par.Frontier(Game(game).start())
    stored_boards, lines = [], []
    for _ in range(rng.randint(1, 6)):
        pos = Game(game).start()
        for _ in range(rng.randint(1, 7)):
            pos.play(rng.choice(pos.legal_moves()))
            if pos.is_over:
                pos.undo()
                break
        key, _ = probe.canonical(pos.board)
        store.put(game, key, " ".join(probe.cell_names(pos.moves)), (0, 1), "first-or-draw", 1, 0.0)
        stored_boards.append(key_bits(key))
        lines.append(list(pos.moves))
    fr = par.Frontier(Game(game).start(), store)
    below = fr._stored_sub_boards()
    for i in range(60):
        pos = Game(game).start()
        if i % 2:  # a random line
            for _ in range(rng.randint(0, 6)):
                moves = pos.legal_moves()
                if pos.is_over or not moves:
                    break
                pos.play(rng.choice(moves))
        else:  # the start of a stored line (or all of it), in a random frame
            line, sym = rng.choice(lines), rng.choice(fr.syms)
            for c in line[: rng.randint(0, len(line))]:
                pos.play(sym[c])
        key, _ = fr.canonical(pos.board)
        assert (key_bits(key) in below) == _below_brute(fr, pos.board, stored_boards, lines)
    store.close()


def test_a_checkpoint_line_that_does_not_play_is_one_sentence(tmp_path):
    store = par.JobStore(tmp_path / "jobs.sqlite")
    try:
        key = par.Frontier(start_position("5x4k4", "c3 d3")).nodes[0].key
        store.put("5x4k4", key, "c3 c3", (0, 1), "first-or-draw", 1, 0.0)
        with pytest.raises(KinarowError, match="damaged row: the move line 'c3 c3' does not play"):
            par.Frontier(Game("5x4k4").start(), store).expand(1)
    finally:
        store.close()


@pytest.mark.parametrize("game", ["4x4k3:gravity", "4x3k3p2q1", "3x3k3:misere"])
def test_splitting_long_jobs_keeps_the_value(game):
    """A job older than max_job_seconds is split even while both workers are busy; the value is unchanged.

    A microsecond is shorter than the coordinator's own step from handing a
    job out to looking at its age, so jobs are split as soon as they start,
    down to positions that end the game (a small game keeps that short).
    """
    result = par.solve(game, workers=2, max_job_seconds=1e-6, knowledge="none")
    assert result.value == solve(game).value
    assert result.splits > 0


def test_max_job_seconds_must_be_positive():
    with pytest.raises(KinarowError, match="max_job_seconds"):
        par.solve("4x4k4", workers=2, max_job_seconds=0)


def test_cli_max_job_seconds_routes_through_the_jobs(capsys):
    code, out, _ = run(capsys, "solve", "4x4k3:gravity", "--max-job-seconds", "0.000001", "--json")
    data = json.loads(out)
    assert code == 0 and data["value"] == solve("4x4k3:gravity").value and data["splits"] > 0
    code, out, _ = run(capsys, "solve", "4x4k3:gravity", "--max-job-seconds", "0.000001")
    assert code == 0 and "split into their children" in out


def test_cli_status_says_which_moves_from_the_position_are_settled(capsys, tmp_path):
    db = tmp_path / "c.sqlite"
    pos = Game("5x4k4").position("c2 b2")
    fr = par.Frontier(pos)
    value = solve(pos).value
    store = par.JobStore(db)
    store.put("5x4k4", fr.canonical(pos.board)[0], "c2 b2", (fr.score(value),) * 2, value, 1, 0.0)
    store.close()
    code, out, _ = run(capsys, "solve", "5x4k4", "--moves", "c2", "--checkpoint", str(db), "--status", "--json")
    moves = json.loads(out)["moves_from_here"]
    assert code == 0 and {"move": "b2", "settled": value} in moves
    assert sum(m["settled"] != "unknown" for m in moves) == 1  # d2 mirrors b2 on this board: one class
    code, out, _ = run(capsys, "solve", "5x4k4", "--moves", "c2", "--checkpoint", str(db), "--status")
    assert f"the stored jobs settle 1: b2 {value}." in out


def _consistent(answer: str, exact: str) -> bool:
    """Is a one-sided answer (a value or a bound in words) true of the exact value?"""
    if answer.endswith("-or-draw"):
        return exact in (answer.removesuffix("-or-draw"), "draw")
    return answer == exact


# (6x5k4 after c3 asked "can the second player win?" is left out: proving that "no" one-sidedly, without
# the first player's win to cut it short, takes minutes where the exact value takes a second)
@pytest.mark.parametrize(("game", "moves", "question"), [
    ("6x5k4", "c3", par.FIRST_WINS),
    *[(g, m, q) for g, m in [("5x4k4", "c2 b2"), ("4x4k3:gravity", None), ("5x4k4", None), ("4x3k3p2q1", "b2")]
      for q in (par.FIRST_WINS, par.SECOND_WINS)],
])
def test_a_one_sided_question_runs_one_win_test_per_job_and_answers_truly(game, moves, question):
    exact = solve(game, moves=moves).value
    result = par.solve(game, moves=moves, workers=2, jobs=12, question=question, knowledge="none")
    assert _consistent(result.value, exact), (result.value, exact)
    tested = "first" if question == par.FIRST_WINS else "second"
    if exact == tested:
        assert result.value == exact and result.best_move is not None
    assert {entry["question"] for entry in result.log} <= {question}, "no job asks more than the root's question"


def test_a_one_sided_win_comes_with_a_checked_strategy():
    result = par.solve("6x5k4", moves="c3", workers=2, question=par.FIRST_WINS, strategy=True, knowledge="none")
    assert result.value == "first" and check(result.strategy).ok


def test_a_strategy_job_solves_its_position_first_and_refuses_a_wrong_winner():
    """The extraction solves before it walks (its table makes the walk cheap), and so sees a stored winner
    that the search does not find."""
    from kinarow import Game, Searcher

    position = Game("6x5k4").start()
    position.play_moves("c3")
    searcher = Searcher(position.game, tt_mb=8)
    walk, winner = extract(position, searcher, lambda: False, 1)
    assert winner == "first" and walk
    with pytest.raises(KinarowError, match="internal error"):
        extract(position, searcher, lambda: False, 2)


def test_an_unknown_question_is_refused():
    with pytest.raises(KinarowError, match="question"):
        par.solve("4x4k4", workers=2, question="who-wins")


def test_cli_question_first_wins(capsys):
    code, out, _ = run(capsys, "solve", "5x4k4", "--moves", "c2 b2", "--question", "first-wins")
    assert code == 0 and out.splitlines()[0].startswith("First player (Black) cannot force a win")
    code, out, _ = run(capsys, "solve", "6x5k4", "--moves", "c3", "--question", "first-wins", "--json")
    assert code == 0 and json.loads(out)["value"] == "first"


def test_a_resumed_run_grows_the_frontier_of_the_run_that_wrote_the_checkpoint(tmp_path):
    """Finished jobs count towards ``jobs``: a first-wins run after 1. b2 on (5,4,4) with as many jobs as replies
    asks the replies; resumed with some of them finished, it asks the rest, not each move of the first player
    after them (a job a move, each a "no" to prove but one)."""
    db = tmp_path / "resume.sqlite"
    store = par.JobStore(db)
    replies = len(Game("5x4k4").position("b2").legal_moves())
    first = par.expand("5x4k4", moves="b2", jobs=replies)
    open_first = [n for n in first.nodes if n.kind == par.JOB]
    assert len(open_first) > 4 and all(len(n.moves) == 2 for n in open_first)
    for node in open_first[:4]:  # four replies answered "yes", as a finished run keeps them
        store.put(first.game_text, node.key, " ".join(first.cell_names(node.moves)), (par.FIRST, par.FIRST), "first",
                  10, 0.1)
    resumed = par.Frontier(start_position("5x4k4", "b2"), store)  # as the coordinator grows it
    resumed.ask(par.FIRST_WINS)
    resumed.expand(replies)
    store.close()
    open_again = [n for n in resumed.nodes if n.kind == par.JOB and not n.resolved]
    assert len(open_again) == len(open_first) - 4
    assert all(len(n.moves) == 2 for n in open_again)


# -- a job run keeps its worker's proof table between runs (--table) -------------------------------------------
def test_a_job_run_keeps_its_worker_s_table_and_a_new_run_starts_from_it(tmp_path, monkeypatch):
    from kinarow.search import proof_search

    table = tmp_path / "t.npz"
    monkeypatch.setattr(proof_search, "TABLE_SECONDS", 0.0)  # the (forked) worker writes after every question
    first = par.solve("6x5k4", moves="c3", workers=1, jobs=8, search="proof", question=par.FIRST_WINS,
                      tt_mb=16, checkpoint=tmp_path / "a.sqlite", table=table)
    assert first.value == "first" and table.exists() and not Path(str(table) + ".part").exists()
    meta = json.loads(str(np.load(table)["meta"]))
    assert meta["game"] == "6x5k4" and meta["nodes"] > 0
    # a new run (another checkpoint: every job asked again) finds the questions answered in the kept table
    again = par.solve("6x5k4", moves="c3", workers=1, jobs=8, search="proof", question=par.FIRST_WINS,
                      tt_mb=16, checkpoint=tmp_path / "b.sqlite", table=table)
    assert again.value == "first" and again.nodes < first.nodes / 4


def test_a_kept_table_of_many_questions_is_written_every_so_often_and_when_one_is_stopped(tmp_path):
    from kinarow.search.proof_search import ProofSearcher

    path = tmp_path / "t.npz"
    game = Game("8x8k5")  # not answered within millions of nodes: the interrupt comes first on any machine
    searcher = ProofSearcher(game, tt_mb=1)
    searcher.keep_table(str(path), each_question=False)  # every 30 minutes of search: not within this test
    assert searcher.attacker_wins(game.start(), 1, max_nodes=500).wins is None and not path.exists()
    assert searcher.table_nodes >= 500  # counted, to be written with the next write

    def interrupt(nodes: int) -> None:
        if nodes > 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        searcher.attacker_wins(game.start(), 1, on_tick=interrupt)
    assert path.exists() and json.loads(str(np.load(path)["meta"]))["nodes"] > 500
    with pytest.raises(KinarowError, match="each_question"):
        searcher.keep_table(str(path), each_question="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize("options, message", [
    (["--table", "T", "--workers", "2", "--search", "proof"], "give it with one worker"),
    (["--table", "T", "--checkpoint", "C"], "give it with --search proof"),
])
def test_cli_table_of_a_job_run_is_refused_where_it_cannot_be_kept(capsys, tmp_path, options, message):
    argv = [str(tmp_path / o) if o in ("T", "C") else o for o in options]
    code, _, err = run(capsys, "solve", "6x5k4", "--moves", "c3", "--question", "first-wins", *argv)
    assert code == 2 and message in err and err.count("\n") == 1
    with pytest.raises(KinarowError, match="one worker's proof search"):
        par.solve("6x5k4", moves="c3", workers=2, search="proof", question=par.FIRST_WINS, table=tmp_path / "t")
    with pytest.raises(KinarowError, match="names the file"):
        par.solve("6x5k4", moves="c3", workers=1, search="proof", question=par.FIRST_WINS, table=3)


def test_a_strategy_not_written_is_said_for_what_it_is(tmp_path):
    """--strategy when none is written: a job run stopped while writing it (the value proved), a one-sided "no",
    and a game over are three different sentences (a stopped merge once read "the game is already over")."""
    from dataclasses import replace

    from kinarow.cli.common import write_strategy

    won = par.solve("4x4k3", moves="b2", workers=1, jobs=4, question=par.FIRST_WINS)
    assert won.value == "first" and won.strategy is None
    path = str(tmp_path / "s.json")
    said = write_strategy(replace(won, strategy_stopped="interrupted"), path)
    assert "the value is proved, but writing the strategy stopped (interrupted)" in said
    assert "not a win" in write_strategy(par.solve("5x5k4", moves="c3", workers=1, jobs=4,
                                                   question=par.SECOND_WINS), path)
    over = par.solve("3x3k3", moves="a1 a2 b1 b2 c1", workers=1)
    assert "already over" in write_strategy(over, path)
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize(("game", "search", "kernel"), [
    ("5x4k4", "proof", "kinarow.engine.pns_kernel:dfpn"),
    ("5x4k4:gravity", "alpha-beta", "kinarow.engine.gravity_kernel:solve_score"),
    ("5x4k4", "alpha-beta", "kinarow.engine.kernel:deepen"),
])
def test_the_job_kernels_are_loaded_before_the_workers_start(monkeypatch: pytest.MonkeyPatch, game: str,
                                                             search: str, kernel: str) -> None:
    """The coordinator loads (or compiles, said once) the kernels its jobs run before its workers start, so
    that forked workers have them and none compiles unannounced."""
    import importlib

    from kinarow.search.parallel import jobs

    module, name = kernel.split(":")
    calls: list[tuple[str, str]] = []

    def spy(g: Game, kind: str, knowledge: str, strategy: bool) -> None:
        calls.append((str(g), kind))
        jobs.load_kernels(g, kind, knowledge, strategy)
        assert getattr(importlib.import_module(module), name).overloads  # ready in the coordinator's process

    monkeypatch.setattr(coordinator, "load_kernels", spy)
    result = par.solve(game, workers=2, jobs=4, search="proof" if search == "proof" else "alpha-beta")
    assert calls == [(game, search)] and result.value == solve(game).value


def test_a_run_counts_the_nodes_of_the_jobs_it_stopped():
    """Jobs stopped for a split or for the run's time limit report their nodes after the stop: the run's total
    keeps them (it never falls below what the progress line showed) and equals the sum of its log."""
    ticks: list[int] = []
    result = par.solve("8x5k4:gravity", workers=2, jobs=2, max_job_seconds=0.5, time_limit=3, tt_mb=16,
                       on_tick=ticks.append)
    assert result.value == "unknown" and result.splits > 0 and ticks
    assert result.nodes >= max(ticks)
    assert result.nodes == sum(entry["nodes"] for entry in result.log)
    assert sum(1 for entry in result.log if entry["value"] == "stopped") >= result.splits
