"""Draw certificates: blocking trees with pairing leaves plus strategy stealing (``kinarow.draw``)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kinarow import Game
from kinarow.errors import KinarowError
from kinarow.proofs import check_data
from kinarow.proofs.draw import Canon, check_tree, stealing_fit
from kinarow.search.alphabeta import Searcher
from kinarow.search.draw import blocking_tree, draw_certificate
from kinarow.search.solve import solve


def _certificate(game: str, moves: str = "") -> dict:
    g = Game(game)
    data, _ = draw_certificate(g.position(moves), Searcher(g, knowledge="pairing"))
    return data


@pytest.fixture(scope="module")
def cert_5x4() -> dict:
    return _certificate("5x4k4")


DRAWS = ["3x3k3", "4x4k4", "5x4k4", "6x4k4", "5x5k4", "6x6k5", "4x4k4:torus", "5x5k5:torus", "4x4k4:hex"]


@pytest.mark.parametrize("game", DRAWS)
def test_draws_get_certificates_that_pass_the_checker(game):
    assert solve(game).value == "draw"
    data = _certificate(game)
    verdict = check_data(data)
    assert verdict.ok, verdict.reason
    assert data["claim"] == "draw" and data["second_cannot_win"] == {"method": "strategy-stealing"}
    assert verdict.details["first_cannot_win"]["positions"] >= 1


def test_a_position_needs_a_tree_for_each_half():
    # after a quiet exchange strategy stealing no longer applies: both halves are trees
    data = _certificate("5x4k4", "a1 e4")
    assert data["moves"] == ["a1", "e4"]
    assert data["second_cannot_win"]["method"] == "blocking-tree"
    verdict = check_data(data)
    assert verdict.ok, verdict.reason
    assert "second_cannot_win" in verdict.details


def test_a_win_has_no_blocking_tree():
    g = Game("4x3k3")  # a first-player win
    with pytest.raises(KinarowError, match="no move that stops"):
        blocking_tree(g.start(), 1, Searcher(g, knowledge="pairing"))


def test_blocking_trees_need_free_placement():
    g = Game("5x4k4:gravity")
    with pytest.raises(KinarowError, match="gravity"):
        blocking_tree(g.start(), 1, Searcher(g))


def _reject(data: dict, words: str) -> None:
    verdict = check_data(data)
    assert not verdict.ok
    assert words in verdict.reason, verdict.reason


def test_a_changed_defender_move_is_refuted(cert_5x4):
    data = copy.deepcopy(cert_5x4)
    tokens = data["first_cannot_win"]["tokens"].split()
    i = next(i for i, t in enumerate(tokens) if t not in "+" and not t.startswith("="))
    tokens[i] = "a1" if tokens[i] != "a1" else "b1"
    data["first_cannot_win"]["tokens"] = " ".join(tokens)
    assert not check_data(data).ok


def test_a_leaf_with_a_wrong_pairing_is_refuted(cert_5x4):
    data = copy.deepcopy(cert_5x4)
    half = data["first_cannot_win"]
    half["pairings"] = ["a1-a2" for _ in half["pairings"]]
    _reject(data, "live group without an empty pair")


def test_missing_and_extra_tokens_are_refuted(cert_5x4):
    short = copy.deepcopy(cert_5x4)
    short["first_cannot_win"]["tokens"] = " ".join(short["first_cannot_win"]["tokens"].split()[:-1])
    _reject(short, "tokens end")
    long = copy.deepcopy(cert_5x4)
    long["first_cannot_win"]["tokens"] += " +"
    _reject(long, "left over")


def test_a_pairing_that_reuses_a_cell_is_rejected(cert_5x4):
    data = copy.deepcopy(cert_5x4)
    data["first_cannot_win"]["pairings"][0] = "a1-a2 a2-a3"
    _reject(data, "disjoint")


def test_strategy_stealing_only_where_it_holds(cert_5x4):
    after = copy.deepcopy(cert_5x4)
    after["moves"] = ["c2"]
    del after["first_cannot_win"]
    after["claim"] = "second cannot win"
    _reject(after, "strategy stealing")
    first = copy.deepcopy(cert_5x4)
    first["first_cannot_win"] = {"method": "strategy-stealing"}
    _reject(first, "strategy stealing")
    assert not stealing_fit(Game("5x4k4:gravity"), [])
    assert not stealing_fit(Game("5x4k4:misere"), [])
    assert not stealing_fit(Game("6x6k4p2q1"), [])
    assert stealing_fit(Game("5x4k4"), [])
    assert "empty board" in stealing_fit(Game("5x4k4"), ["a1"]).reason


def test_the_claim_must_match_the_halves(cert_5x4):
    data = copy.deepcopy(cert_5x4)
    data["claim"] = "first wins"
    _reject(data, "claims")
    half = copy.deepcopy(cert_5x4)
    del half["second_cannot_win"]
    half["claim"] = "first cannot win"
    assert check_data(half).ok
    none = copy.deepcopy(cert_5x4)
    del none["first_cannot_win"], none["second_cannot_win"]
    assert not check_data(none).usable


def test_a_gravity_game_is_refused_by_the_checker(cert_5x4):
    data = copy.deepcopy(cert_5x4)
    data["game"] = "5x4k4:gravity"
    _reject(data, "gravity")


def test_canonical_keys_are_orbit_invariants():
    g = Game("5x4k4")
    pos = g.position("a1 b3 e2")
    canon = Canon(pos)
    assert len(canon.inverses) == len(g.geometry.symmetries) == 4
    for perm in g.geometry.symmetries:
        image = [0] * g.cells
        for c, v in enumerate(pos.board):
            image[perm[c]] = v
        assert canon.key(image) == canon.key(pos.board)
    assert canon.key(g.position("a1").board) != canon.key(g.position("b2").board)


def test_solve_proof_to_a_gz_name_is_compressed_and_checks(tmp_path):
    import gzip
    import json

    from kinarow.cli import main

    path = tmp_path / "d.json.gz"
    assert main(["solve", "5x4k4", "--no-store", "--proof", str(path)]) == 0
    assert json.loads(gzip.decompress(path.read_bytes()))["format"] == "kinarow.draw"
    assert main(["check", str(path)]) == 0


# -- the walk's memory: jobs, checkpoints, merging ------------------------------------------------------------------
def test_jobs_on_two_processes_give_a_tree_that_checks():
    g = Game("5x5k4")
    half, stats = blocking_tree(g.start(), 1, Searcher(g, knowledge="pairing"), workers=2, tt_mb=64)
    assert stats.workers == 2 and stats.positions > 0 and stats.walked >= stats.positions - 1
    data = {**draw_certificate(g.start(), Searcher(g, knowledge="pairing"))[0], "first_cannot_win": half}
    verdict = check_data(data)
    assert verdict.ok, verdict.reason
    assert verdict.details["first_cannot_win"]["positions"] == stats.positions


def test_a_job_that_finds_a_win_ends_the_walk():
    g = Game("4x3k3")  # a first-player win
    with pytest.raises(KinarowError, match="the attacker wins after"):
        blocking_tree(g.start(), 1, Searcher(g, knowledge="pairing"), workers=2, tt_mb=16)


def test_a_stopped_walk_resumes_from_its_checkpoint(tmp_path):
    import time

    from kinarow.search.draw import StoppedError

    g = Game("6x4k4")
    with pytest.raises(StoppedError):  # the deadline has passed: the walk stops at its first look at the clock
        blocking_tree(g.start(), 1, Searcher(g, knowledge="pairing"), checkpoint=tmp_path, deadline=time.perf_counter())
    saved = list(tmp_path.iterdir())
    assert len(saved) == 1 and saved[0].suffix == ".npz"
    half, stats = blocking_tree(g.start(), 1, Searcher(g, knowledge="pairing"), checkpoint=tmp_path)
    assert stats.resumed >= 1024 and stats.walked < stats.positions  # the saved part was not walked again
    _, fresh_stats = blocking_tree(g.start(), 1, Searcher(g, knowledge="pairing"))
    assert stats.positions == fresh_stats.positions  # the same defender moves (leaves may name other pairings)
    assert check_tree(g.start(), 1, half) == (stats.positions, stats.leaves)


def test_finished_jobs_are_read_back_from_the_checkpoint(tmp_path):
    g = Game("5x5k4")
    first, _ = blocking_tree(g.start(), 1, Searcher(g, knowledge="pairing"), workers=2, tt_mb=64, checkpoint=tmp_path)
    again, stats = blocking_tree(g.start(), 1, Searcher(g, knowledge="pairing"), workers=2, tt_mb=64,
                                 checkpoint=tmp_path)
    assert stats.walked == 0 and stats.resumed > 0 and stats.safety_tests == 0
    assert again == first


def test_memories_save_load_and_merge(tmp_path):
    from kinarow.search.draw import EXPANDED, REFUTED, Memory

    a, b = Memory(9), Memory(9)
    a.known[bytes(9)] = EXPANDED
    a.known[bytes([1] + [0] * 8)] = 9 + a.pairing_id((0b11, 0b1100))
    b.known[bytes([2] + [0] * 8)] = 9 + b.pairing_id((0b110000,))
    b.known[bytes([1, 2] + [0] * 7)] = 9 + b.pairing_id((0b1100, 0b11))  # the same pairing as a's, listed again
    b.known[bytes([0, 0, 1] + [0] * 6)] = REFUTED
    b.known[bytes(9)] = 4  # a has its own entry there: a's is kept
    a.merge(b)
    assert len(a.pairings) == 2 and a.get(bytes(9)) == EXPANDED
    assert a.pairings[a.get(bytes([1, 2] + [0] * 7)) - 9] == (0b11, 0b1100)
    assert a.pairings[a.get(bytes([2] + [0] * 8)) - 9] == (0b110000,)
    a.save(tmp_path / "m.npz")
    back = Memory.load(tmp_path / "m.npz", 9)
    assert dict(back.items()) == dict(a.items()) and back.pairings == a.pairings


@pytest.mark.parametrize("cells", [9, 40, 41, 64, 80, 81])  # 41-80 cells: two words; 81: a dict instead
def test_seeds_answer_as_the_memories_do(tmp_path, cells):
    import numpy as np

    from kinarow.search.draw import EXPANDED, REFUTED, Memory, Seeds

    rng = np.random.default_rng(cells)
    keys = {bytes(row) for row in rng.integers(0, 3, (300, cells), dtype=np.uint8)}
    a, b = Memory(cells), Memory(cells)
    for i, key in enumerate(sorted(keys)):
        (a if i % 2 else b).known[key] = REFUTED if i % 3 == 0 else EXPANDED
    both = bytes([2] * cells)
    a.known[both], b.known[both] = 0, REFUTED  # settled by one walk, refuted by a later one: settled wins
    a.save(tmp_path / "a.npz")
    b.save(tmp_path / "b.npz")
    b.known[bytes([1] * cells)] = REFUTED
    b.save(tmp_path / "b.npz")  # a delta file
    seeds = Seeds.load([tmp_path / "a.npz", tmp_path / "b.npz"], cells)
    assert len(seeds) == len(keys | {both, bytes([1] * cells)}) and seeds.count == len(a) + len(b)
    assert bool(seeds.flags) == (cells > 80)
    for memory in (a, b):
        for key, entry in memory.items():
            assert seeds.lookup(key) is (key == both or entry != REFUTED)
    assert seeds.lookup(bytes([1] * cells)) is False
    assert seeds.lookup(bytes([0] * (cells - 1) + [1])) is None
    assert Seeds(cells).lookup(both) is None
    with pytest.raises(KinarowError, match=f"is for a board of {cells} cells, not {cells + 1}"):
        Seeds.load([tmp_path / "a.npz"], cells + 1)


def test_bad_checkpoints_are_one_sentence(tmp_path):
    from kinarow.search.draw import Memory

    Memory(9).save(tmp_path / "nine.npz")
    with pytest.raises(KinarowError, match="is for a board of 9 cells, not 16"):
        Memory.load(tmp_path / "nine.npz", 16)
    (tmp_path / "junk.npz").write_text("not a checkpoint")
    with pytest.raises(KinarowError, match="cannot be read"):
        Memory.load(tmp_path / "junk.npz", 9)
    g = Game("4x4k4")
    with pytest.raises(KinarowError, match="is a file"):
        blocking_tree(g.start(), 1, Searcher(g), checkpoint=tmp_path / "junk.npz")


def test_jobs_continue_a_one_process_walk_and_back(tmp_path):
    import time

    from kinarow.search.draw import StoppedError

    g = Game("6x4k4")
    with pytest.raises(StoppedError):
        blocking_tree(g.start(), 1, Searcher(g, knowledge="pairing"), checkpoint=tmp_path, deadline=time.perf_counter())
    half, stats = blocking_tree(g.start(), 1, Searcher(g, knowledge="pairing"), checkpoint=tmp_path, workers=2,
                                tt_mb=16)
    assert stats.resumed >= 1024 and stats.walked < stats.positions
    assert check_tree(g.start(), 1, half) == (stats.positions, stats.leaves)
    # and a one-process walk looks the jobs' memories up: only the root is new
    again, stats = blocking_tree(g.start(), 1, Searcher(g, knowledge="pairing"), checkpoint=tmp_path)
    assert stats.walked <= 1 and check_tree(g.start(), 1, again) == (stats.positions, stats.leaves)


def test_the_walk_ranks_all_non_losing_moves_and_counts_only_the_first_few():
    import random

    import numpy as np

    from kinarow.engine import breaker as BK

    game = Game("6x4k4")
    geo = game.start().geometry
    masks = np.array([sum(1 << c for c in g) for g in geo.groups], np.uint64)
    pbuf = BK.new_buffers(game.cells, masks.size)
    kctrl = np.zeros(BK.N_CTRL, np.int64)
    rng = random.Random(7)
    for _ in range(40):
        pos = game.start()
        while pos.stones < 8 and not pos.is_over:
            pos.play(rng.choice(pos.legal_moves()))
        if pos.is_over:
            continue
        M, B = np.uint64(pos.bits[pos.to_move ^ 3]), np.uint64(pos.bits[pos.to_move])  # the mover defends
        legal = np.array(pos.legal_moves(), np.int64)
        results = {}
        for deep in (0, 3, legal.size):
            scores, out = np.zeros(game.cells, np.int64), np.zeros(game.cells, np.int64)
            n = BK.ranked_moves(masks, M, B, legal, deep, False, pbuf, kctrl, 64, np.zeros(game.cells), scores, out)
            results[deep] = (out[:n].tolist(), scores.copy())
        kept = {deep: set(order) for deep, (order, _) in results.items()}
        assert kept[0] == kept[3] == kept[legal.size]  # the same moves lose at once, however deep the count
        for deep, (order, scores) in results.items():
            ranked = [int(scores[c]) for c in order]
            assert ranked == sorted(ranked, reverse=True)
            if deep == 0:
                assert set(ranked) <= {0, 1 << 20}  # no counts: leaves first, then the rest
            leaves = {c for c in order if scores[c] == 1 << 20}
            assert leaves == {c for c in results[legal.size][0] if results[legal.size][1][c] == 1 << 20}


def test_a_memory_saves_only_what_is_new_and_loads_back_whole(tmp_path, monkeypatch):
    import kinarow.search.draw as DP
    from kinarow.search.draw import EXPANDED, REFUTED, Memory

    monkeypatch.setattr(DP, "MAX_DELTAS", 3)
    path = tmp_path / "m.npz"
    memory = Memory(9)

    def add(i: int) -> None:
        key = bytes([i % 3, (i // 3) % 3, (i // 9) % 3] + [0] * 6)
        memory.known[key] = 9 + memory.pairing_id((1 << (i % 9),)) if i % 2 else (EXPANDED if i % 3 else REFUTED)

    def deltas() -> list[str]:
        return sorted(p.name for p in tmp_path.iterdir() if p.name != "m.npz")

    for i in range(4):
        add(i)
    memory.save(path)  # the first save writes the whole memory
    assert deltas() == []
    for step in range(3):
        add(4 + step)
        memory.save(path)
        assert len(deltas()) == step + 1  # then only the new entries, beside it
        back = Memory.load(path, 9)
        assert dict(back.items()) == dict(memory.items()) and back.pairings == memory.pairings
        assert Memory.count(path) == len(memory)  # counted from the file headers
    memory.save(path)  # nothing new: nothing written
    assert len(deltas()) == 3
    add(7)
    memory.save(path)  # MAX_DELTAS reached: the whole memory again, the deltas go
    assert deltas() == []
    back = Memory.load(path, 9)
    assert dict(back.items()) == dict(memory.items()) and back.pairings == memory.pairings
    back.save(path)  # a loaded memory knows what is on disk: nothing new, nothing written
    assert len(deltas()) == 0
    back.known[bytes([2, 2, 2] + [0] * 6)] = EXPANDED
    back.save(path)
    assert len(deltas()) == 1 and dict(Memory.load(path, 9).items()) == dict(back.items())
    (tmp_path / "m.npz.g9.d0.npz").write_bytes(b"stale")  # another generation's delta is not read
    assert dict(Memory.load(path, 9).items()) == dict(back.items())


def test_ranking_can_stop_at_the_first_leaf():
    import numpy as np

    from kinarow.engine import breaker as BK

    game = Game("5x4k4")
    pos = game.position("b2 c2 b3")  # White to move: the defender
    masks = np.array([sum(1 << c for c in g) for g in pos.geometry.groups], np.uint64)
    pbuf, kctrl = BK.new_buffers(game.cells, masks.size), np.zeros(BK.N_CTRL, np.int64)
    M, B = np.uint64(pos.bits[1]), np.uint64(pos.bits[2])
    legal = np.array(pos.legal_moves(), np.int64)
    full, first = {}, {}
    for stop, store in ((False, full), (True, first)):
        scores, out = np.zeros(game.cells, np.int64), np.zeros(game.cells, np.int64)
        n = BK.ranked_moves(masks, M, B, legal, 3, stop, pbuf, kctrl, 64, np.zeros(game.cells), scores, out)
        store.update(order=out[:n].tolist(), scores=scores.copy())
    leaves = [c for c in full["order"] if full["scores"][c] == 1 << 20]
    assert len(leaves) >= 2  # a position where the stop matters
    assert first["order"][0] == leaves[0]  # the same first choice
    assert [c for c in first["order"] if first["scores"][c] == 1 << 20] == leaves[:1]


def test_a_memory_folds_its_entries_into_packed_arrays_and_still_saves_only_what_is_new(tmp_path, monkeypatch):
    from kinarow.search.draw import EXPANDED, REFUTED, Memory

    monkeypatch.setattr(Memory, "FOLD_AT", 4)
    path = tmp_path / "m.npz"
    memory = Memory(9)
    keys = [bytes([i % 3, (i // 3) % 3, (i // 9) % 3, 1] + [0] * 5) for i in range(20)]
    for i, key in enumerate(keys[:5]):
        memory.known[key] = 9 + memory.pairing_id((1 << i,)) if i % 2 else EXPANDED
    memory.save(path)  # 5 in the dict: saved whole, then folded
    assert not memory.known and len(memory) == 5 and list(memory.codes) == sorted(memory.codes)
    for i, key in enumerate(keys[5:8], 5):
        memory.known[key] = REFUTED if i % 2 else i
    memory.save(path)  # 3 new: a delta of just those
    assert len(list(tmp_path.glob("m.npz.g1.d*.npz"))) == 1 and Memory.count(path) == 8
    back = Memory.load(path, 9)
    assert dict(back.items()) == dict(memory.items()) and back.pairings == memory.pairings
    assert all(back.get(key) == memory.get(key) for key in keys[:8]) and back.get(keys[8]) is None
    memory.known[keys[8]] = EXPANDED
    memory.known[keys[0]] = REFUTED  # set again after it was folded: this entry is the one kept
    memory.fold()  # folded before it was saved: the next save writes the whole memory again
    assert memory.get(keys[0]) == REFUTED and len(memory) == 9
    memory.save(path)
    assert not list(tmp_path.glob("m.npz.g*.d*.npz")) and dict(Memory.load(path, 9).items()) == dict(memory.items())


def test_checkpoints_written_with_keys_still_load(tmp_path):
    """Earlier walks saved each key as a row of cell values; such files still load, count and seed."""
    import numpy as np

    from kinarow.search.draw import EXPANDED, REFUTED, Memory, Seeds

    keys = np.array([[0] * 9, [1] + [0] * 8, [1, 2] + [0] * 7], np.uint8)
    np.savez(tmp_path / "old.npz", cells=np.int64(9), keys=keys, entries=np.array([EXPANDED, 9, REFUTED], np.int32),
             pairs=np.array([[0b11, 0b1100]], np.uint64), lengths=np.array([2], np.int64), generation=np.int64(1))
    memory = Memory.load(tmp_path / "old.npz", 9)
    assert memory.get(bytes(9)) == EXPANDED and memory.pairings[memory.get(bytes([1] + [0] * 8)) - 9] == (3, 12)
    assert Memory.count(tmp_path / "old.npz") == 3 and len(memory) == 3
    seeds = Seeds.load([tmp_path / "old.npz"], 9)
    assert seeds.lookup(bytes([1, 2] + [0] * 7)) is False and seeds.lookup(bytes(9)) is True


def test_memories_of_boards_too_large_to_pack_merge_in_a_dict():
    from kinarow.search.draw import EXPANDED, Memory

    a, b = Memory(81), Memory(81)
    a.known[bytes(81)] = EXPANDED
    b.known[bytes(81)] = 3
    b.known[bytes([1] * 81)] = 81 + b.pairing_id((0b11,))
    a.merge(b)
    assert not a.packed and len(a) == 2 and a.get(bytes(81)) == EXPANDED
    assert a.pairings[a.get(bytes([1] * 81)) - 81] == (0b11,)


@given(steps=st.lists(st.tuples(st.sampled_from(["put", "save", "fold", "load"]), st.integers(0, 3**5 - 1),
                                st.integers(-2, 12)), max_size=40),
       cells=st.sampled_from([5, 41, 64, 81]))
@example(steps=[("put", 1, 0), ("save", 0, 0), ("put", 2, 0), ("fold", 0, 0), ("load", 0, 0)], cells=5)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_memory_answers_as_a_dict_whatever_it_folds_saves_and_loads(tmp_path_factory, steps, cells):
    """Packed or not, folded, saved as deltas or whole, loaded again: the memory holds what a dict would."""
    from kinarow.search.draw import Memory

    path = tmp_path_factory.mktemp("memory") / "m.npz"
    memory, model = Memory(cells), {}
    Memory.FOLD_AT, fold_at = 3, Memory.FOLD_AT
    try:
        for op, number, entry in steps:
            if op == "put":
                digits = bytes((number // 3**i) % 3 for i in range(5))
                key = digits if cells == 5 else digits + bytes(cells - 10) + digits[::-1]  # both words of a wide code
                if key not in model:  # the walk settles a key once
                    memory.known[key] = model[key] = entry
            elif op == "save":
                memory.save(path)
            elif op == "fold":
                memory.fold()
            elif path.exists():
                memory.save(path)
                memory = Memory.load(path, cells)
            assert len(memory) == len(model) and dict(memory.items()) == model
            assert all(memory.get(key) == value for key, value in model.items())
    finally:
        Memory.FOLD_AT = fold_at


def test_no_blocking_tree_is_written_for_breaker_s_half():
    """Breaker wins a Maker-Breaker game by a full board, which a blocking tree does not prevent: the walk refuses
    to write one (the checker refuses one too, tests/test_draw_kernel.py)."""
    from kinarow.search.draw import safety_searcher

    game = Game("4x4k4:maker-breaker")
    with pytest.raises(KinarowError, match="Breaker wins a Maker-Breaker game by a full board"):
        blocking_tree(game.start(), 2, safety_searcher(game, 4))
