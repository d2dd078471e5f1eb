"""Merging strategies as bitboard rows (kinarow.strategy_merge) against the board-keyed forms they replace."""

from __future__ import annotations

import gzip
import json
import sqlite3

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinarow import Game, KinarowError, solve
from kinarow.proofs import tree_kernel as TK
from kinarow.proofs.tree import StrategyTree, check
from kinarow.search.parallel import JobStore
from kinarow.search.parallel.merge import fingered, joined, mapped, merged_walk, rows_of_choices, rows_of_walk


@pytest.fixture(scope="module")
def won():
    """(4,4,3) from the empty board: a first-player win, as a walk and keyed by board."""
    tree = solve("4x4k3", strategy=True, tt_mb=8).strategy
    assert tree is not None
    walk = tree.compacted()
    return Game("4x4k3"), walk, walk.expanded()


def _as_choices(game, rows):
    keys, cells = rows
    return dict(zip(TK.board_keys(keys, game.cells), (game.geometry.name(int(c)) for c in cells), strict=True))


def test_a_walk_read_into_rows_is_the_walk_read_into_boards(won):
    game, walk, keyed = won
    rows = rows_of_walk(game.start(), 1, walk.walk)
    assert len(rows[0]) == len(walk.walk) == len(keyed.choices)
    assert _as_choices(game, rows) == keyed.choices
    assert _as_choices(game, rows_of_choices(game, keyed.choices)) == keyed.choices


@settings(max_examples=60, deadline=None)
@given(text=st.sampled_from(["5x5k4", "6x4k4", "4x4k3", "17x4k3", "11x11k5"]), data=st.data())
def test_mapped_rows_are_the_boards_and_moves_mapped_cell_by_cell(text, data):
    """Also on boards of two words a side (17 x 4: 68 cells; 11 x 11: 121 cells, whose eight symmetries move
    cells between the words)."""
    game = Game(text)
    geo, size = game.geometry, game.cells
    boards = data.draw(st.lists(st.text(".xo", min_size=size, max_size=size), min_size=1, max_size=20, unique=True))
    moves = data.draw(st.lists(st.integers(0, size - 1), min_size=len(boards), max_size=len(boards)))
    sym = data.draw(st.sampled_from(geo.symmetries))
    choices = {b: geo.name(c) for b, c in zip(boards, moves, strict=True)}
    # written here, on the text of the keys: canonical[sym[c]] = real[c]
    inverse = {s: c for c, s in enumerate(sym)}
    expected = {"".join(b[sym[c]] for c in range(size)): geo.name(inverse[geo.parse_cell(m)])
                for b, m in choices.items()}
    rows = rows_of_choices(game, choices)
    assert rows[0].shape[1] == (2 if size <= 64 else 4)
    assert _as_choices(game, mapped(rows, sym)) == expected
    fingers, moves = joined([fingered(rows)])  # one row a position, sorted by fingerprint, each with its move
    assert len(fingers) == len(boards) and (np.diff(fingers[:, 0].astype(np.float64)) >= 0).all()
    by_finger = dict(zip(fingered(rows)[0][:, 0].tolist(), rows[1].tolist(), strict=True))
    assert [by_finger[f] for f in fingers[:, 0].tolist()] == moves.tolist()


def test_joined_keeps_the_first_part_s_row_for_each_fingerprint():
    first = (np.array([[5], [1], [3]], np.uint64), np.array([10, 11, 12], np.uint8))
    second = (np.array([[1], [7]], np.uint64), np.array([20, 21], np.uint8))
    k, c = joined([first, second])
    assert k.tolist() == [[1], [3], [5], [7]]
    assert c.tolist() == [11, 12, 10, 21]
    k, c = joined([second, first])
    assert c.tolist() == [20, 12, 10, 21]
    assert joined([])[0].shape == (0, 1)


def test_fingerprints_differ_for_boards_that_differ_in_one_cell():
    """Two words a side (72 cells): a stone of either colour on any cell changes the fingerprint; none is 0."""
    size = 72
    rows = np.zeros((1 + 2 * size, 4), np.uint64)  # the empty board, then each single stone of each colour
    for c in range(size):
        for side in range(2):
            rows[1 + 2 * c + side, 2 * side + c // 64] = np.uint64(1) << np.uint64(c % 64)
    fingers = fingered((rows, np.zeros(len(rows), np.int64)))[0][:, 0]
    assert len(set(fingers.tolist())) == len(rows) and (fingers != 0).all()


def test_a_strategy_merged_with_its_mirror_image_is_a_checked_walk(won):
    game, walk, _ = won
    start = game.start()
    rows = rows_of_walk(start, 1, walk.walk)
    assert merged_walk(start, 1, [fingered(rows)]) == walk.walk  # its own rows give the same walk back
    for sym in game.geometry.symmetries[1:]:  # the empty board is its own image: each image wins from it too
        merged = merged_walk(start, 1, [fingered(mapped(rows, sym)), fingered(rows)])
        tree = StrategyTree(str(game), [], "first", walk=merged)
        assert check(tree).ok and check(tree, compiled=True).ok


def test_a_wide_board_strategy_merged_with_its_mirror_images_is_a_checked_walk():
    """Rows of two words a side (68 cells): read from a walk, mapped, joined and written as one walk."""
    game = Game("17x4k3")
    start = game.start()
    start.play_moves("h2")
    tree = solve(start, search="proof", strategy=True, walk=True, tt_mb=16).strategy
    assert tree is not None and tree.walk
    rows = rows_of_walk(start, 1, tree.walk)
    assert rows[0].shape[1] == 4
    assert merged_walk(start, 1, [fingered(rows)]) == tree.walk
    for sym in game.geometry.symmetries[1:]:
        # the real board that sym sends onto the one after h2 has its stone where canonical[sym[c]] = real[c]
        image = game.start()
        image.play(list(sym).index(start.moves[0]))
        merged = merged_walk(image, 1, [fingered(mapped(rows, sym))])
        checked = StrategyTree(str(game), [image.name(image.moves[0])], "first", walk=merged)
        assert check(checked, compiled=True).ok and check(checked).ok


def test_moves_no_line_of_play_reaches_are_left_out(won):
    game, walk, keyed = won
    padded = {**keyed.choices, "x" + "." * 15: "b2",  # White to move: the winner never moves there
              "xo" + "." * 14: "c2"}  # Black to move, after an opening the strategy never plays
    assert not keyed.choices.keys() & {"x" + "." * 15, "xo" + "." * 14}
    merged = merged_walk(game.start(), 1, [fingered(rows_of_choices(game, padded))])
    assert merged == walk.walk


def test_a_part_that_does_not_win_is_an_internal_error(won):
    game, walk, keyed = won
    start = game.start()
    board = next(b for b in keyed.choices if "x" in b)
    bad = {**keyed.choices, board: game.geometry.name(board.index("x"))}  # a stone already there
    with pytest.raises(KinarowError, match="internal error: the merged strategy fails its check"):
        merged_walk(start, 1, [fingered(rows_of_choices(game, bad))])
    with pytest.raises(KinarowError, match="does not replay"):
        rows_of_walk(start, 1, walk.walk[:-1])


def test_a_strategy_kept_by_board_in_an_older_checkpoint_is_read_as_its_walk(tmp_path, won):
    game, walk, keyed = won
    path = tmp_path / "old.sqlite"
    store = JobStore(path)
    store.put_strategy(str(game), "." * game.cells, "", "first", walk.walk, 1.0)
    assert store.get_strategy(str(game), "." * game.cells, "first") == walk.walk
    store.close()
    db = sqlite3.connect(path)
    blob = gzip.compress(json.dumps(keyed.choices).encode())
    db.execute("UPDATE strategies SET choices = ?", (blob,))
    db.commit()
    db.close()
    store = JobStore(path)
    assert store.get_strategy(str(game), "." * game.cells, "first") == walk.walk
    assert store.strategies(str(game))[0][2] == len(walk.walk)
    store.close()
