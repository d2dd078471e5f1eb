"""benchmarks/strategy_moves.py: the move a strategy certificate prescribes at a position (how the job runs of
wider (m,4,4) boards are guided by the narrower widths' certificates, docs/parallel.md)."""

from __future__ import annotations

from types import ModuleType

import pytest

from helpers import load_benchmark
from kinarow import Game, solve
from kinarow.proofs.tree import StrategyTree


def _script() -> ModuleType:
    return load_benchmark("strategy_moves")


@pytest.fixture(scope="module")
def win() -> StrategyTree:
    result = solve("6x5k4", strategy=True, walk=True, tt_mb=16, store=None)
    assert result.strategy is not None and result.strategy.walk is not None
    return result.strategy


def test_the_walk_s_move_is_the_keyed_tree_s_at_every_reply(win):
    script = _script()
    game = Game(win.game)
    walk = StrategyTree.from_json(win.to_json())  # a copy: move() below expands the walk into boards
    first = win.move(game.start())  # (the other reading)
    assert first is not None
    lines = []
    for reply in range(game.cells):
        if reply != first:
            lines.append(f"{game.start().name(first)} {game.start().name(reply)}")
    found = script.prescribed(walk, lines)
    compared = 0
    for line, name in found.items():
        pos = game.start()
        pos.play_moves(line)
        expected = win.move(pos)
        if pos.is_over or expected is None:
            continue
        assert name == pos.name(expected), line
        compared += 1
    assert compared >= game.cells // 2


def test_a_line_off_the_strategy_is_not_reached_and_bad_input_is_one_sentence(win, tmp_path, capsys):
    script = _script()
    game = Game(win.game)
    walk = StrategyTree.from_json(win.to_json())
    first = win.move(game.start())
    assert first is not None
    other = next(c for c in range(game.cells) if c != first)
    line = f"{game.start().name(other)}"  # the winner's first move is not the certificate's: never reached
    assert script.prescribed(walk, [f"{line} {game.start().name(first)}"]) == {f"{line} {game.start().name(first)}":
                                                                                None}
    assert script.main([str(tmp_path / "none.json.gz"), "a1"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
