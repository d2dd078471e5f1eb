"""Draw certificates: blocking trees with pairing leaves plus strategy stealing (``kinarow.draw``)."""

from __future__ import annotations

import copy

import pytest

from kinarow import Game
from kinarow.drawproof import blocking_tree, draw_certificate
from kinarow.errors import KinarowError
from kinarow.proofs import check_data
from kinarow.proofs.draw import Canon, stealing_applies
from kinarow.solve import Searcher, solve


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
    assert stealing_applies(Game("5x4k4:gravity"), []) is not None
    assert stealing_applies(Game("5x4k4:misere"), []) is not None
    assert stealing_applies(Game("6x6k4p2q1"), []) is not None
    assert stealing_applies(Game("5x4k4"), []) is None


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
