"""``kinarow play``: what the human's input is told (the game loop itself is tested in test_cli.py)."""

from __future__ import annotations

import pytest

from helpers import feed, run


@pytest.mark.parametrize("line", ["a1,a1", "a1 a1", "b3, b3"])
def test_play_a_cell_named_twice_in_one_turn_is_refused_in_one_sentence(capsys, monkeypatch, line):
    # 5x5k4p2q2: Black places two stones on the first turn; the same empty cell twice is one mistake, not
    # an occupied cell (it was empty when the line was typed)
    cell = line.replace(",", " ").split()[0]
    feed(monkeypatch, [line, "quit"])
    code, out, _ = run(capsys, "play", "5x5k4p2q2")
    assert code == 0
    reply = next(row for row in out.splitlines() if "try again" in row)
    assert reply == f"{cell} is given twice in one turn; each stone needs a cell of its own; try again."
    assert "occupied" not in out
    assert "X" not in out.split("try again")[-1]  # no stone was placed
    assert "kinarow plays" not in out


def test_play_an_occupied_cell_is_still_named_with_its_owner(capsys, monkeypatch):
    # 5x5k4p2q2: Black a1 a2; the engine (White) replies with two stones; Black then names one of its own
    feed(monkeypatch, ["a1 a2", "a2 e5", "quit"])
    code, out, _ = run(capsys, "play", "5x5k4p2q2", "--think", "0.05")
    assert code == 0
    assert "a2 is occupied (by Black); choose an empty cell; try again." in out


def test_play_a_column_twice_under_gravity_stacks_two_stones(capsys, monkeypatch):
    # a column is not a cell: two stones in column a this turn are a1 and a2
    feed(monkeypatch, ["a,a", "quit"])
    code, out, _ = run(capsys, "play", "4x4k4p2q2:gravity", "--think", "0.05")
    assert code == 0
    assert "twice" not in out
    assert "try again" not in out
    assert "kinarow plays" in out  # the turn was played: two stones stacked in column a
