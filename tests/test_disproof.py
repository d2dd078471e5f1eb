"""Blocking trees written from the proof search's table (kinarow.search.disproof), checked by the draw checker."""

from __future__ import annotations

import random
import time

import pytest

from kinarow import Game
from kinarow.errors import KinarowError
from kinarow.position import Position
from kinarow.proofs import check_data, envelope
from kinarow.proofs.draw import FORMAT, HALVES, VERSION, claim_for
from kinarow.search.disproof import extract_tree
from kinarow.search.draw import StoppedError
from kinarow.search.proof_search import ProofSearcher


def _certificate(position: Position, attacker: int, half: dict) -> dict:
    game = position.game
    moves = [position.name(c) for c in position.moves]
    return {**envelope(FORMAT, VERSION, str(game), moves, claim_for(game, {attacker})), HALVES[attacker]: half}


@pytest.mark.parametrize("text", ["3x3k3", "4x4k4", "5x4k4", "5x5k4", "6x4k4", "6x6k5", "4x4k4:torus", "4x4k4:hex",
                                  "5x4k4:maker-breaker"])
def test_trees_from_the_table_pass_the_checker(text):
    game = Game(text)
    half, stats, work = extract_tree(game.start(), 1, tt_mb=4)
    verdict = check_data(_certificate(game.start(), 1, half))
    assert verdict.ok, verdict.reason
    assert verdict.details["first_cannot_win"]["positions"] == stats.positions >= 1
    assert work.settled >= stats.positions


def test_positions_in_play_give_trees_or_refuse():
    rng = random.Random(27)
    searcher = ProofSearcher("5x5k4", tt_mb=4)
    seen = {True: 0, False: 0}
    for _ in range(12):
        pos = Game("5x5k4").start()
        for _ in range(rng.randrange(1, 9)):
            pos.play(rng.choice(pos.legal_moves()))
            if pos.is_over:
                pos.undo()
                break
        for attacker in (1, 2):
            wins = searcher.attacker_wins(pos, attacker).wins
            seen[bool(wins)] += 1
            if wins:
                with pytest.raises(KinarowError, match="attacker can win"):
                    extract_tree(pos, attacker, searcher)
                continue
            half, _, _ = extract_tree(pos, attacker, searcher)
            verdict = check_data(_certificate(pos, attacker, half))
            assert verdict.ok, (pos.move_text(), attacker, verdict.reason)
    assert seen[True] and seen[False]  # both kinds of answer were met


def test_tampered_trees_are_rejected():
    game = Game("5x5k4")
    half, _, _ = extract_tree(game.start(), 1, tt_mb=4)
    tokens = half["tokens"].split()
    names = {game.start().name(c) for c in range(game.cells)}
    moved = next(i for i, t in enumerate(tokens) if t in names)
    other = next(n for n in sorted(names) if n != tokens[moved])
    for bad in (tokens[:-1], [*tokens[:moved], other, *tokens[moved + 1:]], ["+" if t.startswith("=") else t
                                                                           for t in tokens]):
        verdict = check_data(_certificate(game.start(), 1, {**half, "tokens": " ".join(bad)}))
        assert not verdict.ok


def test_a_win_has_no_tree():
    with pytest.raises(KinarowError, match="attacker can win"):
        extract_tree(Game("4x3k3").start(), 1, tt_mb=4)


def test_a_stopped_extraction_resumes_from_its_checkpoint(tmp_path):
    game = Game("5x5k4")
    path = tmp_path / "tree.npz"
    with pytest.raises(StoppedError):
        extract_tree(game.start(), 1, checkpoint=path, deadline=time.perf_counter(), tt_mb=4)
    assert path.exists()
    half, stats, work = extract_tree(game.start(), 1, checkpoint=path, tt_mb=4)
    assert check_data(_certificate(game.start(), 1, half)).ok
    assert work.settled < stats.positions  # part of the tree came from the checkpoint


def test_the_defender_moves_near_the_root_come_from_a_solve_s_jobs(tmp_path):
    from kinarow.search import parallel as par
    from kinarow.search.disproof import job_hints, settled_share

    store = tmp_path / "jobs.sqlite"
    result = par.solve("5x5k4", workers=1, jobs=12, search="proof", question="first-wins", checkpoint=store)
    assert result.value in ("draw", "second-or-draw")
    start = Game("5x5k4").start()
    hint = job_hints(start, 1, store)
    after = start.copy()
    after.play(12)
    reply = hint(after)
    assert reply is not None
    after.play(reply)
    assert not ProofSearcher("5x5k4", tt_mb=4).attacker_wins(after, 1).wins
    checkpoint = tmp_path / "tree.npz"
    shares: list[tuple[int, int]] = []
    half, _, _ = extract_tree(start, 1, checkpoint=checkpoint, hint=hint, tt_mb=4,
                              on_share=lambda done, total: shares.append((done, total)))
    verdict = check_data(_certificate(start, 1, half))
    assert verdict.ok, verdict.reason
    done, total = settled_share(start, 1, checkpoint, hint)
    assert done == total > 0
    assert shares[0] == (0, total) and shares[-1] == (total, total)  # heard at the start and at the last save


def test_a_tree_over_jobs_is_written_in_units_on_two_workers_and_resumed_after_a_stop(tmp_path):
    """With a hint, each position three moves on is a unit with its own proof search: on two processes the tree
    checks as in one; stopped after the first units (a deadline), the saved units are kept and the same call
    finishes the rest, the tree claiming no more than a run that never stopped."""
    from kinarow.search import parallel as par
    from kinarow.search.disproof import job_hints, settled_share, unit_lines
    from kinarow.search.draw import Frames

    store = tmp_path / "jobs.sqlite"
    par.solve("5x5k4", workers=1, jobs=12, search="proof", question="first-wins", checkpoint=store)
    start = Game("5x5k4").start()
    hint = job_hints(start, 1, store)
    units = unit_lines(start, hint, Frames(start))
    assert len(units) > 2 and all(len(moves) == 3 for _, moves in units)
    one, stats_one, _ = extract_tree(start, 1, hint=hint, tt_mb=4)
    two, stats_two, _ = extract_tree(start, 1, hint=hint, tt_mb=4, workers=2)
    for half in (one, two):
        verdict = check_data(_certificate(start, 1, half))
        assert verdict.ok, verdict.reason
    assert stats_one.positions == stats_two.positions  # each unit's tree does not depend on the others
    checkpoint = tmp_path / "tree.npz"
    with pytest.raises(StoppedError):  # the time is up before the first unit: nothing settled, a clean stop
        extract_tree(start, 1, hint=hint, tt_mb=4, checkpoint=checkpoint, deadline=0.0)
    assert settled_share(start, 1, checkpoint, hint) == (0, len(units))

    def interrupt(settled: int) -> None:  # Ctrl-C as the first unit finishes
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        extract_tree(start, 1, hint=hint, tt_mb=4, checkpoint=checkpoint, tick=interrupt)
    assert settled_share(start, 1, checkpoint, hint) == (1, len(units))  # the finished unit was saved
    half, stats, _ = extract_tree(start, 1, hint=hint, tt_mb=4, checkpoint=checkpoint)
    assert check_data(_certificate(start, 1, half)).ok and stats.positions == stats_one.positions
    assert settled_share(start, 1, checkpoint, hint) == (len(units), len(units))


def test_pairing_tests_where_the_attacker_moves_only_still_give_a_tree():
    game = Game("6x4k4")
    half, stats, _ = extract_tree(game.start(), 1, defender_pairings=False, tt_mb=4)
    verdict = check_data(_certificate(game.start(), 1, half))
    assert verdict.ok, verdict.reason
    assert verdict.details["first_cannot_win"]["positions"] == stats.positions


def test_the_finished_parts_of_a_checkpoint_are_certificates_of_their_own(tmp_path):
    from kinarow.search.disproof import tree_parts

    game = Game("5x4k4")
    checkpoint = tmp_path / "tree.npz"
    extract_tree(game.start(), 1, checkpoint=checkpoint, tt_mb=4)
    parts = tree_parts(game.start(), 1, checkpoint)
    assert len(parts) == 6  # the first moves of 5 x 4 up to its four symmetries
    for after, half, _ in parts:
        verdict = check_data(_certificate(after, 1, half))
        assert verdict.ok and verdict.details["moves"] == [after.name(after.moves[0])], verdict.reason


def test_a_tree_read_back_gives_the_same_tokens():
    from kinarow.search.disproof import read_tree
    from kinarow.search.draw import linearise

    game = Game("5x5k4")
    after = game.position("a1")
    half, _, _ = extract_tree(after, 1, tt_mb=4)
    memory = read_tree(after, 1, half)
    again, _ = linearise(after, 1, memory)
    assert again["tokens"] == half["tokens"]
    assert sorted(again["pairings"]) == sorted(half["pairings"])
    with pytest.raises(KinarowError, match="tokens end"):
        read_tree(after, 1, {**half, "tokens": " ".join(half["tokens"].split()[:-3])})


def _memory_of(game: Game, tmp_path, moves: str = ""):
    from kinarow.search.draw import Memory

    position = game.position(moves) if moves else game.start()
    attacker = 1 if position.stones % 2 == 0 else 2
    checkpoint = tmp_path / "tree.npz"
    extract_tree(position, attacker, checkpoint=checkpoint, tt_mb=4)
    return position, attacker, Memory.load(checkpoint, game.cells)


@pytest.mark.parametrize(("text", "moves"), [("4x4k4", ""), ("5x5k4", ""), ("5x5k4", "c3"), ("5x4k4", "a1 e4"),
                                             ("6x6k5", ""), ("4x4k4:torus", ""), ("5x5k5:torus", ""),
                                             ("4x4k4:hex", ""), ("5x4k4:maker-breaker", ""), ("7x6k5", "")])
def test_the_compiled_last_pass_writes_the_python_pass_s_tokens(text, moves, tmp_path, monkeypatch):
    """linearise's compiled walk (engine/linearise_kernel.py) and its Python walk write the same certificate
    half, token for token and pairing for pairing, with the same counts."""
    from kinarow.search import draw

    position, attacker, memory = _memory_of(Game(text), tmp_path, moves)
    assert draw._compiled_applies(position, memory)
    compiled = draw.linearise(position, attacker, memory)
    monkeypatch.setattr(draw, "_compiled_applies", lambda *_: False)
    plain = draw.linearise(position, attacker, memory)
    assert compiled == plain
    assert compiled[1].positions >= 1


def test_a_memory_with_a_hole_is_refused_by_the_compiled_pass_too(tmp_path):
    """A position the memory does not settle stops the compiled walk, and the Python walk names it."""
    import numpy as np

    from kinarow.search import draw

    position, attacker, memory = _memory_of(Game("5x5k4"), tmp_path)
    tokens = draw.linearise(position, attacker, memory)[0]["tokens"].split()
    assert tokens[0] == "+"  # the attacker moves first: every reply's position is in the memory
    child = position.copy()
    child.play(child.legal_moves()[0])
    key = draw.Frames(position).frame(child.board)[0]
    slot = memory.slot(key)
    assert slot is not None
    memory.values = memory.values.copy()
    memory.values[slot] = draw.REFUTED
    with pytest.raises(KinarowError, match=r"no defence after 1\. a1"):
        draw.linearise(position, attacker, memory)
    assert draw._linearise_compiled(position, attacker, memory, draw.Frames(position),
                                    np.array(position.geometry.group_masks, np.uint64)) is None
