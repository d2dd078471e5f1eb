"""Strategy certificates as a walk (version 3): the moves in replay order, no board keys."""

from __future__ import annotations

import base64
import gzip
import json
import random
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import WINS, child, ctrl_c, run
from kinarow import Game, KinarowError, Position, solve
from kinarow.bitboards import to_board
from kinarow.proofs import CertificateError
from kinarow.proofs import tree_kernel as TK
from kinarow.proofs.tree import TICK_POSITIONS, StrategyTree, board_key, check
from test_tree import both, own_verify, win_on_the_spot


def _strategy(text: str, moves: str) -> StrategyTree:
    result = solve(text, moves=moves or None, strategy=True, tt_mb=8)
    assert result.strategy is not None
    return result.strategy


def read_walk(tree: StrategyTree) -> dict[str, str] | None:
    """A second reader written here from the documented replay order: the boards of the walk's moves, or None
    when the walk does not fit the replay (too short, too long, an illegal cell). It remembers every proven
    position, wins on the spot included, where the extraction and the checkers keep none of those: the walks
    it reads whole show that keeping them or not gives the same replay."""
    game = Game(tree.game)
    pos = game.position(" ".join(tree.moves))
    names = ("maker", "breaker") if game.goal == "maker-breaker" else ("first", "second")
    winner = 1 if tree.winner == names[0] else 2
    moves = list(tree.walk or b"")
    at = 0
    seen: set[str] = set()
    found: dict[str, str] = {}

    def replay(p: Position) -> bool:
        nonlocal at
        if p.is_over:
            return True
        key = board_key(p)
        if key in seen:
            return True
        if p.to_move == winner:
            if win_on_the_spot(p, tree.winner) is None:
                if at == len(moves) or moves[at] not in p.legal_moves():
                    return False
                found[key] = p.name(moves[at])
                p.play(moves[at])
                at += 1
                ok = replay(p)
                p.undo()
                if not ok:
                    return False
        else:
            for cell in sorted(p.legal_moves()):
                p.play(cell)
                ok = replay(p)
                p.undo()
                if not ok:
                    return False
        seen.add(key)
        return True

    return found if replay(pos) and at == len(moves) else None


@pytest.mark.parametrize(("text", "moves"), WINS)
def test_a_walk_checks_like_the_keyed_strategy(text, moves):
    tree = _strategy(text, moves)
    walk = tree.compacted()
    assert walk.walk is not None and walk.choices == {}
    assert walk.size == tree.size  # version 2 already leaves the wins on the spot out
    verdict = both(walk)
    assert verdict.ok, verdict.reason
    assert verdict.details["positions_checked"] == check(tree).details["positions_checked"]
    keyed = walk.expanded()
    assert keyed.choices == tree.choices
    assert keyed.compacted().walk == walk.walk
    assert read_walk(walk) == tree.choices
    assert own_verify(keyed)


@pytest.mark.parametrize(("text", "moves"), WINS)
def test_walk_json_round_trip(text, moves):
    walk = _strategy(text, moves).compacted()
    data = json.loads(walk.dumps())
    assert data["version"] == 3
    assert data["prescribed"] == walk.size
    assert "choices" not in data
    again = StrategyTree.from_json(data)
    assert again == walk
    assert both(again).ok


def test_the_walk_is_much_smaller_than_the_keyed_file():
    tree = _strategy("6x5k4", "")
    walk = tree.compacted()
    assert len(walk.dumps()) * 20 < len(tree.dumps())
    assert both(walk).ok


@pytest.mark.parametrize(("text", "moves"), WINS[:5])
def test_every_changed_move_is_judged_alike_by_both_checkers_and_by_a_reader_written_here(text, moves):
    walk = _strategy(text, moves).compacted()
    assert walk.walk is not None
    size = Game(text).cells
    rejected = 0
    for i in range(min(len(walk.walk), 40)):
        for cell in range(size):
            if cell == walk.walk[i]:
                continue
            changed = StrategyTree(walk.game, walk.moves, walk.winner,
                                   walk=walk.walk[:i] + bytes([cell]) + walk.walk[i + 1:])
            verdict = both(changed)
            found = read_walk(changed)
            expected = found is not None and own_verify(StrategyTree(walk.game, walk.moves, walk.winner, found))
            assert verdict.ok == expected, (i, cell, verdict.reason)
            rejected += not verdict.ok
    assert rejected > 0


@pytest.mark.parametrize(("text", "moves"), WINS[:4])
def test_a_short_long_or_illegal_walk_is_rejected(text, moves):
    walk = _strategy(text, moves).compacted()
    assert walk.walk is not None
    short = StrategyTree(walk.game, walk.moves, walk.winner, walk=walk.walk[:-1])
    assert "the walk ends after" in both(short).reason
    long = StrategyTree(walk.game, walk.moves, walk.winner, walk=walk.walk + b"\x00")
    assert both(long).reason == "the walk has 1 moves more than the replay reads"
    for bad in (200, Game(text).cells):
        wrong = StrategyTree(walk.game, walk.moves, walk.winner, walk=bytes([bad]) + walk.walk[1:])
        verdict = both(wrong)
        assert not verdict.ok
        assert f"is cell {bad}, which is not a legal move" in verdict.reason


@pytest.mark.parametrize(
    ("mutate", "words"),
    [
        (lambda d: d.update(walk="not base64!"), "not base64 of zlib-compressed bytes"),
        (lambda d: d.update(walk=base64.b64encode(b"plain").decode()), "not base64 of zlib-compressed bytes"),
        (lambda d: d.update(prescribed=d["prescribed"] + 1), "'prescribed' says"),
        (lambda d: d.pop("walk"), "needs 'walk'"),
        (lambda d: d.update(prescribed=True), "needs 'walk'"),
    ],
)
def test_malformed_walks_get_one_sentence(mutate, words):
    data = _strategy("4x3k3", "").compacted().to_json()
    mutate(data)
    with pytest.raises(CertificateError, match=words):
        StrategyTree.from_json(data)


def test_check_command_reads_a_walk_and_refuses_a_broken_one(tmp_path, capsys):
    walk = _strategy("4x3k3", "").compacted()
    good = tmp_path / "good.json"
    good.write_text(walk.dumps())
    code, out, _ = run(capsys, "check", str(good))
    assert code == 0 and "VALID" in out
    data = walk.to_json()
    data["walk"] = base64.b64encode(zlib.compress(walk.walk[:-1] if walk.walk else b"")).decode()
    data["prescribed"] -= 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    for extra in ([], ["--compiled"]):
        code, out, err = run(capsys, "check", str(bad), *extra)
        assert code != 0
        assert "the walk ends after" in out + err
        assert "Traceback" not in out + err


def test_walks_are_for_boards_of_at_most_256_cells():
    tree = _strategy("3x3k3", "b2 b1")
    big = StrategyTree("17x16k3", [], "first", walk=b"\x00")
    verdict = check(big)
    assert not verdict.ok and "at most 256 cells" in verdict.reason
    # shared replies past 128 cells (version 5): two bytes a number, so never an odd length
    wide = StrategyTree("12x11k3", [], "first", walk=b"\x00", shared=1)
    verdict = check(wide)
    assert not verdict.ok and "(version 5)" in verdict.reason and "odd length (1 byte)" in verdict.reason
    assert tree.compacted().size == tree.size
    with pytest.raises(KinarowError, match="cannot be written as a walk"):
        StrategyTree("12x11k5", [], "first", {}).compacted()


@pytest.mark.parametrize("workers", [[], ["--workers", "2", "--jobs", "8"]])
def test_solve_writes_a_walk_with_the_walk_flag(tmp_path, capsys, workers):
    strategy, proof = tmp_path / "s.json", tmp_path / "p.json"
    code, out, _ = run(capsys, "solve", "4x3k3", "--no-store", *workers, "--walk", "--strategy", str(strategy),
                       "--proof", str(proof))
    assert code == 0, out
    assert "Proof written to" in out and "Winning strategy" in out
    for path in (strategy, proof):
        data = json.loads(path.read_text())
        assert data["version"] == 3 and "walk" in data
        code, out, _ = run(capsys, "check", str(path), "--compiled")
        assert code == 0 and out.startswith("VALID")


def test_a_parallel_solve_writes_the_proof_it_is_asked_for(tmp_path, capsys):
    """--proof on the frontier path wrote nothing before; now a draw gets its draw proof, as in one process."""
    proof = tmp_path / "p.json"
    code, out, _ = run(capsys, "solve", "4x4k4", "--no-store", "--workers", "2", "--jobs", "8", "--proof", str(proof))
    assert code == 0
    assert "Proof written to" in out
    code, out, _ = run(capsys, "check", str(proof))
    assert code == 0 and "draw" in out


@pytest.mark.parametrize("compiled", [False, True])
def test_the_check_reports_its_progress(compiled):
    tree = _strategy("7x5k4", "")  # about 100,000 positions: the Python walk reports at least once
    heard: list[int] = []
    result = check(tree, compiled=compiled, on_tick=heard.append)
    assert result.ok
    positions = result.details["positions_checked"]
    assert heard == sorted(heard) and heard[-1] <= positions
    if compiled:
        assert heard[-1] == positions
    else:  # the Python walk reports each time another TICK_POSITIONS positions are checked
        assert heard == list(range(TICK_POSITIONS, positions + 1, TICK_POSITIONS))[:len(heard)]
        assert len(heard) >= positions // TICK_POSITIONS - 1 >= 0 and heard


@pytest.mark.parametrize("compiled", [[], ["--compiled"]])
def test_a_long_check_stops_cleanly_on_a_signal(compiled):
    """Connect Four's certificate takes about two minutes to check (far longer in Python): stopped after a few
    seconds, the command says so in one sentence and exits 130 (the compiled walk runs in a thread that it stops)."""
    import sys
    import time
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "certificates" / "connect4.strategy.json.gz"
    code = "import sys; from kinarow.cli import main; sys.exit(main(sys.argv[1:]))"
    with child([sys.executable, "-c", code, "check", str(path), *compiled]) as proc:
        time.sleep(8)  # loaded and walking; the whole check takes more than a minute
        assert proc.poll() is None
        out, err = ctrl_c(proc)
    assert proc.returncode == 130, err
    assert err.strip() == "Interrupted (Ctrl-C): the check stopped before it had a verdict."
    assert out == ""


@pytest.mark.parametrize(("text", "moves"), WINS)
def test_the_extraction_finds_the_walk_itself(text, moves):
    keyed = _strategy(text, moves)
    walk = solve(text, moves=moves or None, strategy=True, walk=True, tt_mb=8).strategy
    assert walk is not None and walk.walk is not None
    assert walk.walk == keyed.compacted().walk
    assert walk.expanded().choices == keyed.choices


@pytest.mark.parametrize(
    ("text", "kind"),
    [("7x6k4:gravity", TK.COLUMNS), ("8x7k4:gravity", TK.COLUMNS), ("4x3k3:gravity,misere", TK.COLUMNS),
     ("9x4k4", TK.BASE3), ("8x5k4", TK.BASE3), ("3x3k3:torus", TK.BASE3), ("9x5k4", TK.WIDE), ("8x8k5", TK.WIDE),
     ("9x7k4:gravity", TK.WIDE), ("17x4k4", TK.BASE3_2), ("20x4k4", TK.BASE3_2), ("21x4k4", TK.BASE3_3),
     ("28x4k4", TK.BASE3_3), ("9x8k4:gravity", TK.BASE3_2), ("11x11k5", TK.WIDE2)],
)
def test_the_proven_table_keys_a_position_in_one_word_where_it_fits(text, kind):
    game = Game(text)
    assert TK.table_plan(game.cells, game.n, bool(game.gravity))[0] == kind


@settings(max_examples=60, deadline=None)
@given(text=st.sampled_from(["7x6k4:gravity", "4x3k3:gravity", "8x5k4", "6x5k4", "9x5k4", "17x4k4", "28x4k4"]),
       seed=st.integers(0, 2**32 - 1))
def test_positions_and_their_table_keys_match_one_to_one(text, seed):
    game = Game(text)
    kind, kt = TK.table_plan(game.cells, game.n, bool(game.gravity))
    rng = random.Random(seed)
    keys: dict[tuple[int, int], tuple[int, int]] = {}
    for _ in range(20):  # random games, every position on the way, with the transpositions random play meets
        pos = game.start()
        while not pos.is_over:
            board = (pos.bits[1], pos.bits[2])
            words = 1 if game.cells <= 64 else 2
            key = TK.pack(to_board(board[0], words), to_board(board[1], words), kind, game.cells, game.n, kt)
            key = tuple(int(k) for k in key)
            assert key[-1 if kind in (TK.WIDE, TK.WIDE2) else 0] != 0  # 0 marks an empty slot
            keys[board] = key
            pos.play(rng.choice(pos.legal_moves()))
    assert len(set(keys.values())) == len(keys)


@pytest.mark.parametrize(("text", "moves"), WINS)
def test_every_keying_of_the_proven_table_proves_the_same_positions(text, moves, monkeypatch):
    walk = _strategy(text, moves).compacted()
    planned = check(walk, compiled=True)
    monkeypatch.setattr(TK, "table_plan", lambda size, n, gravity: (TK.WIDE, np.zeros((1, 256), np.uint64)))
    wide = check(walk, compiled=True)
    assert planned.ok and wide.ok
    assert planned.details["positions_checked"] == wide.details["positions_checked"]


def test_a_strategy_named_gz_is_written_gzip_compressed(tmp_path, capsys):
    path = tmp_path / "s.json.gz"
    code, out, _ = run(capsys, "solve", "4x3k3", "--no-store", "--walk", "--strategy", str(path))
    assert code == 0, out
    data = json.loads(gzip.decompress(path.read_bytes()))
    assert data["version"] == 3
    code, out, _ = run(capsys, "check", str(path))
    assert code == 0 and out.startswith("VALID")
