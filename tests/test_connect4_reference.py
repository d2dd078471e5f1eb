"""7x6 Connect Four values against reference scores from an independent solver (Pascal Pons').

The reference file is tests/data/connect4-7x6-scored.txt; the test is skipped
when it is not there. A fixed random sample of the positions is
solved with one shared searcher and the sign of each score is compared.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kinarow import Game, Searcher, solve

DATA = Path(__file__).resolve().parent / "data" / "connect4-7x6-scored.txt"
SAMPLE = 30
SEED = 2024
PER_POSITION_NODES = 5_000_000  # the sample needs at most about 50,000 nodes a position; a budget, not a clock


def read_references(path: Path) -> list[tuple[str, int]]:
    refs: list[tuple[str, int]] = []
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit():
            refs.append((parts[0], int(parts[1])))
    return refs


def expected_value(moves: str, score: int) -> str:
    """The winner named by the sign of a score given from the side to move."""
    if score == 0:
        return "draw"
    first_to_move = len(moves) % 2 == 0
    return "first" if first_to_move == (score > 0) else "second"


def test_expected_value_reads_the_sign_from_the_side_to_move() -> None:
    assert expected_value("4", 5) == "second"  # White to move and wins
    assert expected_value("44", 5) == "first"
    assert expected_value("44", -3) == "second"
    assert expected_value("443", 0) == "draw"


@pytest.mark.skipif(not DATA.is_file(), reason="the Connect Four reference file (tests/data) is not present")
def test_connect4_values_match_reference_scores() -> None:
    refs = read_references(DATA)
    assert len(refs) >= SAMPLE
    sample = random.Random(SEED).sample(refs, SAMPLE)
    game = Game("7x6k4:gravity")
    searcher = Searcher(game, tt_mb=64)
    wrong: list[str] = []
    for moves, score in sample:
        result = solve(game.position(" ".join(moves)), searcher=searcher, max_nodes=PER_POSITION_NODES)
        if result.value != expected_value(moves, score):
            wrong.append(f"{moves} (score {score}): expected {expected_value(moves, score)}, got {result.value}")
    assert not wrong, "; ".join(wrong)
