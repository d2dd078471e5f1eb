"""The window game's search against a brute-force reading of its rules on small windows."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinarow.errors import KinarowError
from kinarow.search.window import ROWS, solve_window, window_groups


def brute_force(width: int, k: int, max_passes: int) -> bool:
    """Can X, moving first, win the window game? Every move of both players tried, straight from the rules."""
    return brute_x_wins(width, k, max_passes)(0, 0, 0, True)


@functools.cache
def brute_x_wins(width: int, k: int, max_passes: int):  # type: ignore[no-untyped-def]
    """``x_wins(x, o, passes, x_to_move)``: can X win from that position? By the rules, every move tried."""
    groups = window_groups(width, k)
    inner = [int(g) for g in groups.inner]
    cross = list(zip((int(g) for g in groups.cross), (int(f) for f in groups.far), strict=True))
    cells = ROWS * width

    @functools.cache
    def x_wins(x: int, o: int, passes: int, x_to_move: bool) -> bool:
        if any(g & x == g for g in inner):
            return True
        if passes >= max_passes or any(g & o == g for g in inner) or any(
                g & o == g and far <= passes for g, far in cross):
            return False
        empty = [c for c in range(cells) if not (x | o) >> c & 1]
        if x_to_move:
            return any(x_wins(x | 1 << c, o, passes, False) for c in empty)
        return x_wins(x, o, passes + 1, True) and all(x_wins(x, o | 1 << c, passes, True) for c in empty)

    return x_wins


@pytest.mark.parametrize(("k", "width"), [(3, 1), (3, 2), (3, 3), (3, 4), (4, 2), (4, 3)])
@pytest.mark.parametrize("max_passes", [1, 2, 3, 4])
def test_search_agrees_with_brute_force(k: int, width: int, max_passes: int) -> None:
    expected = "X wins" if brute_force(width, k, max_passes) else "X does not win"
    assert solve_window(width, k=k, max_passes=max_passes, tt_mb=1).answer == expected


@pytest.mark.parametrize(("k", "width"), [(3, 2), (3, 3), (3, 4), (4, 3)])
@pytest.mark.parametrize("max_passes", [1, 2, 3, 4])
def test_search_with_threat_sequences_agrees_with_brute_force(k: int, width: int, max_passes: int) -> None:
    expected = "X wins" if brute_force(width, k, max_passes) else "X does not win"
    assert solve_window(width, k=k, max_passes=max_passes, tt_mb=1, threat_budget=64).answer == expected


#: positions drawn per window (a seeded generator: the same positions every run); most are no test of the cuts
#: (a threat on the board, or no sequence and no reply left out), so the test counts the real checks it made
DRAWS = 2_000


def ended(groups, x: int, o: int, passes: int) -> bool:  # type: ignore[no-untyped-def]
    """Did the game end before this position, by a group of either side inside the window or O's group across?"""
    return any(int(g) & s == int(g) for g in groups.inner for s in (x, o)) or any(
        int(g) & o == int(g) and int(f) <= passes for g, f in zip(groups.cross, groups.far, strict=True))


@pytest.mark.parametrize(("k", "width"), [(3, 3), (3, 4), (4, 4)])
def test_every_reply_the_threat_sequences_leave_out_loses_for_o(k: int, width: int) -> None:
    """At a position with O to move and no threat on the board, each reply of O that the threat-sequence cut
    leaves out is a win for X by the rules (brute force); and a sequence found means X, to move, wins."""
    import random

    import numpy as np

    from kinarow.engine import window_kernel as WK

    groups = window_groups(width, k)
    cells = ROWS * width
    rng = random.Random(f"{k}x{width}")
    sequences = cuts = 0
    for _ in range(DRAWS):
        max_passes = rng.randint(1, 4)
        x_wins = brute_x_wins(width, k, max_passes)
        placed = rng.sample(range(cells), rng.randint(0, cells - 2))
        x = sum(1 << c for c in placed[: (len(placed) + 1) // 2])
        o = sum(1 << c for c in placed[(len(placed) + 1) // 2:])
        passes = rng.randint(0, max_passes - 1)
        if ended(groups, x, o, passes):
            continue  # the game was over before this position: no search meets it
        status, moves, forced = WK.evaluate(groups.inner, groups.cross, groups.far, np.uint64(x), np.uint64(o),
                                            passes, False, groups.full, max_passes)
        if status != WK.OPEN or forced:
            continue
        budget = np.array([10_000], np.int64)
        seq = int(WK._x_sequence(groups.inner, groups.cross, groups.full, np.uint64(x), np.uint64(o), 8, budget))
        if seq:
            sequences += 1
            assert x_wins(x, o, passes, True), f"a threat sequence at x={x:#x} o={o:#x} where X does not win"
        kept = int(WK._threat_replies(groups.inner, groups.cross, groups.full, np.uint64(x), np.uint64(o), moves,
                                      10_000))
        assert kept & ~int(moves) == 0
        for c in range(cells):
            if int(moves) >> c & 1 and not kept >> c & 1:
                cuts += 1
                assert x_wins(x, o | 1 << c, passes, True), (
                    f"the reply {c} at x={x:#x} o={o:#x} passes={passes}/{max_passes} was left out but does not "
                    "lose for O")
    # the test made real checks, not only skips (seeded: 3x3 147 sequences and 5 replies cut, 3x4 138 and 27,
    # 4x4 15 and 5)
    assert sequences >= 10 and cuts >= 5, (sequences, cuts)


def test_both_answers_are_met() -> None:
    """The small cases above are not all one answer (k = 3: X wins with three passes for O, not with two)."""
    assert solve_window(3, k=3, max_passes=3, tt_mb=1).answer == "X wins"
    assert solve_window(3, k=3, max_passes=2, tt_mb=1).answer == "X does not win"


def test_groups_of_the_strip() -> None:
    groups = window_groups(5)
    # inside five columns four high: 4 rows x 2 + 5 columns + 2 x 2 diagonals
    assert groups.inner.size == 8 + 5 + 4
    # leaving it: 3 per row and 3 per diagonal direction, with 1 to 3 cells beyond
    assert groups.cross.size == 12 + 6
    assert sorted(set(groups.far.tolist())) == [1, 2, 3]


def test_node_budget_gives_unknown() -> None:
    assert solve_window(9, max_nodes=50, tt_mb=1).answer == "unknown"


@pytest.mark.parametrize("width", [0, 17, "9"])
def test_bad_width(width: object) -> None:
    with pytest.raises(KinarowError, match="1 to 16 columns"):
        window_groups(width)  # type: ignore[arg-type]


# -- the window certificate (kinarow.proofs.window) --------------------------------------------------------------

def window_certificate(width: int, k: int, threat_budget: int = 0) -> dict[str, object]:
    from kinarow.proofs import window as PW
    from kinarow.search.window import window_walk

    walk = window_walk(width, k=k, tt_mb=1, threat_budget=threat_budget)
    assert walk is not None
    return PW.certificate(width, k, walk)


@pytest.mark.parametrize(("width", "k"), [(3, 3), (4, 3)])
@pytest.mark.parametrize("threat_budget", [0, 64])
def test_window_certificate_checks(width: int, k: int, threat_budget: int) -> None:
    """Also when the search left out O's replies that threat sequences beat: the walk follows them all."""
    from kinarow.proofs import check_data

    verdict = check_data(window_certificate(width, k, threat_budget))
    assert verdict.ok, verdict.reason
    assert verdict.details["positions_checked"] >= verdict.details["prescribed"] > 0


def test_no_walk_when_x_does_not_win() -> None:
    from kinarow.search.window import window_walk

    assert window_walk(3, k=4, tt_mb=1) is None


def test_window_claims_agree_with_the_solver() -> None:
    """What a window certificate claims holds on real boards: k = 3 four high is a first-player win from 3 wide."""
    from kinarow import solve

    for width in (3, 4, 5):
        assert solve(f"{width}x4k3").value == "first"


def _tampered(data: dict[str, object], walk: bytes) -> dict[str, object]:
    from kinarow.proofs.tree import pack_walk

    return {**data, "walk": pack_walk(walk), "prescribed": len(walk)}


def test_tampered_window_walks_are_refused() -> None:
    from kinarow.proofs import check_data
    from kinarow.proofs.tree import read_walk

    data = window_certificate(4, 3)
    walk = read_walk(data, "walk")
    assert "walk ends" in check_data(_tampered(data, walk[:-1])).reason
    assert "more than the replay reads" in check_data(_tampered(data, walk + b"\x00")).reason
    assert "not an empty cell" in check_data(_tampered(data, bytes([walk[0], walk[0]]) + walk[2:])).reason


@given(st.binary(max_size=40))
@settings(max_examples=60, deadline=None)
def test_no_walk_wins_a_window_game_x_cannot_win(walk: bytes) -> None:
    """W(2) with k = 3 is not a win for X (brute force above), so every walk of it must be refused."""
    from kinarow.proofs import check_data
    from kinarow.proofs import window as PW

    assert brute_force(2, 3, 3) is False
    assert not check_data(PW.certificate(2, 3, walk)).ok


@pytest.mark.parametrize(("change", "words"), [
    ({"width": 17}, "'width' is 17"),
    ({"width": True}, "'width' is True"),
    ({"k": 5}, "'k' is 5"),
    ({"game": "9x4k3"}, "has the game '4x4k3'"),
    ({"moves": ["a1"]}, "no moves"),
    ({"claim": "first wins everything"}, "claims 'first wins everything'"),
])
def test_bad_window_certificates(change: dict[str, object], words: str) -> None:
    from kinarow.proofs import check_data

    verdict = check_data({**window_certificate(4, 3), **change})
    assert not verdict.ok
    assert words in verdict.reason


def test_kinarow_check_reads_a_window_certificate(tmp_path: object) -> None:
    import json
    import subprocess
    import sys
    from pathlib import Path

    path = Path(str(tmp_path)) / "w.json"
    path.write_text(json.dumps(window_certificate(3, 3)))
    done = subprocess.run([sys.executable, "-m", "kinarow", "check", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "VALID" in done.stdout and "at least 3 wide" in done.stdout
