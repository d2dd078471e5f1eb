"""The compiled blocking-tree walk (``kinarow check --compiled``) against the Python walk of the draw checker.

Both walks must give the same verdict, the same counts of positions and
leaves, and on a failing tree the same sentence, on shipped, generated and
tampered certificates.
"""

from __future__ import annotations

import copy
import gzip
import json
import random
from pathlib import Path

import numpy as np
import pytest

from kinarow import Game
from kinarow.proofs import check_data
from kinarow.proofs.draw import Canon, check_tree, compiled_fit, parse_pairing, parse_pairings, symmetry_bits
from kinarow.search.alphabeta import Searcher
from kinarow.search.draw import draw_certificate

CERTIFICATES = Path(__file__).resolve().parents[1] / "certificates"


def _certificate(game: str, moves: str = "") -> dict:
    g = Game(game)
    data, _ = draw_certificate(g.position(moves), Searcher(g, knowledge="pairing"))
    return data


def _both(data: dict) -> tuple:
    """The Python and the compiled verdicts of ``data``, which must agree in every word and figure."""
    python = check_data(copy.deepcopy(data))
    compiled = check_data(copy.deepcopy(data), compiled=True)
    assert (python.ok, python.reason, python.details, python.usable) == \
        (compiled.ok, compiled.reason, compiled.details, compiled.usable)
    return python


@pytest.fixture(scope="module")
def cert_5x5() -> dict:
    return _certificate("5x5k4")


def test_the_shipped_7x7k5_draw_checks_the_same_compiled():
    data = json.loads(gzip.decompress((CERTIFICATES / "7x7k5.draw.json.gz").read_bytes()))
    verdict = _both(data)
    assert verdict.ok, verdict.reason
    assert verdict.details["first_cannot_win"]["positions"] == 13_085  # the figure the shipped file was checked at


@pytest.mark.parametrize(("game", "moves"), [("4x4k4", ""), ("5x4k4", ""), ("5x5k4", ""), ("6x4k4", ""),
                                             ("5x4k4", "a1 e4"), ("4x4k4:torus", ""), ("4x4k4:hex", ""),
                                             ("5x5k5:torus", "")])
def test_generated_draw_certificates_check_the_same_compiled(game, moves):
    data = _certificate(game, moves)
    verdict = _both(data)
    assert verdict.ok, verdict.reason
    position = Game(game).position(moves)
    assert compiled_fit(position)  # so the compiled walk did walk it
    heard: list[int] = []
    proved, leaves = check_tree(position, 1, data["first_cannot_win"], heard.append, compiled=True)
    assert (proved, leaves) == check_tree(position, 1, data["first_cannot_win"])
    assert heard[-1] == proved  # the last tick is the count


def _tokens(data: dict) -> list[str]:
    return data["first_cannot_win"]["tokens"].split()


def _with_tokens(data: dict, tokens: list[str]) -> dict:
    out = copy.deepcopy(data)
    out["first_cannot_win"]["tokens"] = " ".join(tokens)
    return out


def _reject(data: dict, words: str) -> None:
    verdict = _both(data)
    assert not verdict.ok
    assert words in verdict.reason, verdict.reason


def test_a_leaf_that_names_a_pairing_that_does_not_cover_is_refuted_by_both(cert_5x5):
    tokens = _tokens(cert_5x5)
    leaves = [i for i, t in enumerate(tokens) if t.startswith("=")]
    pairings = len(cert_5x5["first_cannot_win"]["pairings"])
    assert pairings >= 2
    refuted = 0
    for i in leaves[:20]:
        wrong = tokens.copy()
        wrong[i] = f"={(int(tokens[i][1:]) + 1) % pairings}"
        verdict = _both(_with_tokens(cert_5x5, wrong))
        refuted += not verdict.ok
        assert verdict.ok or "live group without an empty pair" in verdict.reason, verdict.reason
    assert refuted > 0


@pytest.mark.parametrize("leaf", ["=99999", "=", "=x", "=-1", "=٣", "=1234567890", "= 1"])
def test_a_leaf_with_an_index_not_in_the_list_is_refuted_by_both(cert_5x5, leaf):
    tokens = _tokens(cert_5x5)
    i = next(i for i, t in enumerate(tokens) if t.startswith("="))
    _reject(_with_tokens(cert_5x5, [*tokens[:i], leaf, *tokens[i + 1:]]), "which is not in the list")


def test_a_defender_move_on_an_occupied_cell_is_refuted_by_both(cert_5x5):
    tokens = _tokens(cert_5x5)
    assert tokens[0] == "+"  # the attacker's first move is a1, then the defender's answer is token 1
    _reject(_with_tokens(cert_5x5, ["+", "a1", *tokens[2:]]), "after a1 the defender's move a1 is illegal")


@pytest.mark.parametrize("name", ["z9", "a0", "A1", "a1-b2", "e5e5", "x", "٣"])
def test_a_defender_move_that_names_no_cell_is_refuted_by_both(cert_5x5, name):
    tokens = _tokens(cert_5x5)
    _reject(_with_tokens(cert_5x5, ["+", name, *tokens[2:]]), f"after a1 the defender's move {name} is illegal")


def test_a_defender_move_that_lets_the_attacker_complete_a_line_is_refuted_by_both():
    # Black has a1 a2 a3; White, to move, plays elsewhere; Black's first move in cell order, a4, completes the column
    data = {"format": "kinarow.draw", "version": 1, "game": "4x4k4", "moves": ["a1", "d4", "a2", "d3", "a3"],
            "claim": "first cannot win",
            "first_cannot_win": {"method": "blocking-tree", "pairings": ["a4-b4"], "tokens": "c1 + =0"}}
    _reject(data, "the line c1 a4 ends in a first win")
    data["first_cannot_win"]["tokens"] = "a4 + =0"  # blocked: the walk goes on, and this pairing leaves b1-b4 open
    verdict = _both(data)
    assert not verdict.ok


def test_a_generated_tree_whose_defender_stops_blocking_is_refuted_by_both():
    data = _certificate("5x5k4", "a1 e5 a2 e4 a3")  # Black a1 a2 a3: White's first move must be a4
    tokens = _tokens(data)
    assert tokens[:2] == ["a4", "+"]
    for cell in ("a5", "b1", "c3", "e1"):
        _reject(_with_tokens(data, [cell, *tokens[1:]]), f"the line {cell} a4 ends in a first win")


def test_the_turn_is_checked_by_both(cert_5x5):
    tokens = _tokens(cert_5x5)
    _reject(_with_tokens(cert_5x5, ["c3", *tokens[1:]]), "the attacker is to move, but the tree names one move (c3)")
    _reject(_with_tokens(cert_5x5, ["+", "+", *tokens[2:]]), "after a1 the defender is to move, but the tree follows")


def test_truncated_and_extra_tokens_are_refuted_by_both(cert_5x5):
    tokens = _tokens(cert_5x5)
    for cut in (0, 1, len(tokens) // 2, len(tokens) - 1):
        _reject(_with_tokens(cert_5x5, tokens[:cut]), "the tokens end before the position after")
    for extra in ("+", "=0", "a1", "zz"):
        _reject(_with_tokens(cert_5x5, [*tokens, extra]), "tokens left over")


@pytest.mark.parametrize(("pairing", "words"), [("a1-z9", "z9"), ("a1-a2 a2-a3", "disjoint"), ("a1", "joined by"),
                                                ("a1-a1", "disjoint"), ("a1-b1-c1", "b1-c1")])
def test_a_bad_pairing_is_refused_by_both(cert_5x5, pairing, words):
    data = copy.deepcopy(cert_5x5)
    data["first_cannot_win"]["pairings"][-1] = pairing
    _reject(data, words)


KINDS = ["ends in a first win", "tokens end", "follows every move", "names one move", "is illegal",
         "not in the list", "without an empty pair", "left over"]


def test_random_tampering_gets_the_same_sentence_from_both(cert_5x5):
    rng = random.Random(27)
    tokens = _tokens(cert_5x5)
    pairings = len(cert_5x5["first_cannot_win"]["pairings"])
    cells = [Game("5x5k4").geometry.name(c) for c in range(25)]
    vocabulary = ["+", *cells, *(f"={i}" for i in range(pairings + 2)), "zz"]
    kinds = set()
    for _ in range(40):
        tampered = tokens.copy()
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(tampered))
            action = rng.random()
            if action < 0.7:
                tampered[i] = rng.choice(vocabulary)
            elif action < 0.85:
                del tampered[i]
            else:
                tampered.insert(i, rng.choice(vocabulary))
        verdict = _both(_with_tokens(cert_5x5, tampered))
        kinds.add(next((kind for kind in KINDS if kind in verdict.reason), verdict.reason))
    assert len(kinds) >= 3, kinds  # several kinds of failure, each worded alike by both walks


def test_the_compiled_walk_leaves_large_boards_to_the_python_walk():
    position = Game("9x8k4").start()  # 72 cells: more than a bitboard word
    assert "at most 64 cells" in compiled_fit(position).reason
    data = {"format": "kinarow.draw", "version": 1, "game": "9x8k4", "moves": [], "claim": "first cannot win",
            "first_cannot_win": {"method": "blocking-tree", "pairings": [], "tokens": "a1"}}
    _reject(data, "the attacker is to move, but the tree names one move (a1)")
    over = Game("4x4k4").position("a1 b1 a2 b2 a3 b3 a4")
    assert "over" in compiled_fit(over).reason


@pytest.mark.parametrize("game", ["5x5k4", "7x7k5", "8x8k5", "4x4k4:torus", "5x5k5:torus", "4x4k4:hex", "6x3k3"])
def test_the_kernel_keys_a_position_by_the_image_the_python_walk_keys_it_by(game):
    # the 5 x 5 torus's checked symmetries are not closed under composition: the key must be the same image
    from kinarow.proofs.draw_kernel import least_image, set_images

    start = Game(game).start()
    canon, sym_bits = Canon(start), symmetry_bits(start)
    img_x, img_o = (np.zeros(len(sym_bits), np.uint64) for _ in range(2))
    rng = random.Random(game)
    for _ in range(300):
        board = [rng.choice((0, 0, 1, 2)) for _ in range(start.geometry.size)]
        bits = [sum(1 << c for c, v in enumerate(board) if v == who) for who in (1, 2)]
        key = canon.key(board)
        expected = tuple(sum(1 << c for c, v in enumerate(key) if v == who) for who in (1, 2))
        set_images(np.uint64(bits[0]), np.uint64(bits[1]), sym_bits, img_x, img_o)
        assert tuple(int(w) for w in least_image(img_x, img_o)) == expected


def test_pairings_read_together_give_the_pairs_or_the_sentence_one_by_one():
    position = Game("5x5k4").start()
    cell_of = {position.name(c): c for c in range(25)}
    texts = ["a1-a2 b1-b2", "a1-a2 b1-b2", "", "b1-a1 c3-e5", "a1-a1", "a1-b1 b1-c1"]
    good = texts[:4]
    assert parse_pairings(good, position, cell_of) == [parse_pairing(t, position, cell_of) for t in good]
    for bad in texts[4:]:
        with pytest.raises(Exception, match="disjoint"):
            parse_pairings([*good, bad], position, cell_of)


@pytest.mark.verylong
def test_the_python_and_compiled_walks_agree_on_the_8x8k5_part_after_a1():
    # minutes in the Python walk (753,442 positions at 4,000 to 6,000 a second), so only with --runslow
    data = json.loads(gzip.decompress((CERTIFICATES / "8x8k5.a1.draw.json.gz").read_bytes()))
    verdict = _both(data)
    assert verdict.ok, verdict.reason
    assert verdict.details["first_cannot_win"]["positions"] == 753_442


def test_a_blocking_tree_cannot_show_that_breaker_cannot_win():
    # Breaker wins 4x4k4:maker-breaker; blocking Breaker's groups says nothing about a full board without a Maker line
    data = {"format": "kinarow.draw", "version": 1, "game": "4x4k4:maker-breaker", "moves": [], "claim": "draw",
            "first_cannot_win": {"method": "blocking-tree", "tokens": "+ a4 =0 a1 =1 a1 =2",
                                 "pairings": ["d1-d3 c3-d4 c2-c4 b1-c1 b2-b4 a2-d2 a3-b3",
                                              "d2-d3 c1-c4 b4-d4 b2-c2 b1-b3 a4-d1 a3-c3",
                                              "d2-d3 c1-c4 b4-d4 b1-b3 a4-d1 a3-c3 a2-c2"]},
            "second_cannot_win": {"method": "blocking-tree", "tokens": "a1 =0",
                                  "pairings": ["d2-d3 c1-c2 b4-c4 b1-b3 a4-d1 a3-c3 a2-b2"]}}
    _reject(data, "Breaker wins a Maker-Breaker game by a full board")
    maker = copy.deepcopy(data)
    del maker["second_cannot_win"]
    maker["claim"] = "breaker wins"  # the Maker half alone is true, and both walks accept it
    verdict = _both(maker)
    assert verdict.ok, verdict.reason


def test_tokens_read_in_pieces_are_the_tokens_read_at_once(monkeypatch, cert_5x5):
    import kinarow.proofs.draw as D

    position = Game("5x5k4").start()
    cell_of = {position.name(c): c for c in range(25)}
    pairings = len(cert_5x5["first_cannot_win"]["pairings"])
    text = cert_5x5["first_cannot_win"]["tokens"].replace(" ", " \t", 7).replace(" ", "\n", 5).replace(" ", "\u2003", 3)
    text += "  =x zz =99999  "
    whole = D.token_codes(text, cell_of, position, pairings)
    for piece in (1, 2, 3, 7, 50):
        monkeypatch.setattr(D, "TOKEN_PIECE", piece)
        assert D.token_codes(text, cell_of, position, pairings).tolist() == whole.tolist()
    assert len(whole) == len(text.split())
    assert whole[-3:].tolist() == [-2 - pairings, 25, -2 - pairings]  # a bad leaf, no cell, an index not in the list


def test_a_table_that_starts_small_grows_and_keeps_every_proved_position(monkeypatch):
    from kinarow.proofs import draw_kernel as DK

    data = _certificate("6x4k4")
    position = Game("6x4k4").start()
    expected = check_tree(position, 1, data["first_cannot_win"])
    assert expected[0] > 1024 // 2  # more than a table of 1,024 slots holds (it grows when half full)
    monkeypatch.setattr(DK, "START_SLOTS", 1 << 10)
    assert DK.table_slots(expected[0]) == 1 << 10
    assert check_tree(position, 1, data["first_cannot_win"], compiled=True) == expected
