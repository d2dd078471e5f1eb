"""Strong solutions: ``solve(..., strong=True)`` gives the move on which the game ends with perfect play.

Checked two ways that share nothing with the search kernel:

* an exhaustive minimax written here over the rules alone (``Position.play``,
  ``undo``, ``legal_moves``, ``result``), where the winner ends the game as soon
  as it can and the loser as late as it can, on tiny games of every kind
  (gravity, misère, Maker-Breaker, torus, cylinder, hex, several stones a turn),
  from the start and from random positions;
* Pascal Pons' scores of 300 Connect Four positions (tests/data): a score s
  from the side to move says the winner completes its four with its
  (22 - |s|)-th stone.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kinarow import Game, Position, Searcher, solve
from kinarow.errors import KinarowError
from kinarow.search.result import Result
from kinarow.values import Value

DATA = Path(__file__).resolve().parent / "data" / "connect4-7x6-scored.txt"


def brute_length(position: Position, memo: dict[tuple[int, ...], int]) -> tuple[int, int | None]:
    """(the winner's stone, or 0 for a draw; the number of the stone that ends the game, or None) with perfect
    play, the winner ending the game as soon as it can and the loser as late as it can.

    Plain minimax on a score for the first player: ``C - L`` when it wins on stone L, ``L - C`` when the second
    player does, 0 for a draw (C is more than any stone count), so each side's preference is one number.
    ``memo`` (board -> score) may be shared between positions of one game.
    """
    big = position.game.cells + 1

    def score(pos: Position) -> int:
        key = tuple(pos.board)
        found = memo.get(key)
        if found is not None:
            return found
        result = pos.result
        if result is not None:
            stone = result.stone
            value = 0 if stone is None else (big - pos.stones) * (1 if stone == 1 else -1)
        else:
            sign = 1 if pos.to_move == 1 else -1
            best_possible = big - pos.stones - 1  # a win with the next stone
            best: int | None = None
            for cell in pos.legal_moves():
                pos.play(cell)
                child = score(pos)
                pos.undo()
                if best is None or child * sign > best * sign:
                    best = child
                    if child * sign == best_possible:
                        break
            assert best is not None
            value = best
        memo[key] = value
        return value

    s = score(position.copy())
    return (0, None) if s == 0 else (1 if s > 0 else 2, big - abs(s))


def random_positions(game: Game, count: int, seed: int) -> list[Position]:
    """``count`` positions still in play, each after a random number of random legal moves."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        pos = game.start()
        for _ in range(rng.randrange(game.cells)):
            pos.play(rng.choice(pos.legal_moves()))
            if pos.is_over:
                pos.undo()
                break
        out.append(pos)
    return out


def strong_answer(result: Result) -> tuple[int, int | None]:
    assert result.strong and result.stopped is None
    return result.value.stone or 0, result.last_move


def check_positions(game: Game, positions: list[Position], knowledge: str = "matching") -> None:
    memo: dict[tuple[int, ...], int] = {}
    searcher = Searcher(game, tt_mb=1, knowledge=knowledge)
    wrong = []
    for pos in positions:
        expected = brute_length(pos, memo)
        got = strong_answer(solve(pos, searcher=searcher, strong=True))
        if got != expected:
            wrong.append(f"after {pos.move_text() or 'the start'}: expected {expected}, got {got}")
    assert not wrong, f"{game}: " + "; ".join(wrong)


# every kind of game, from the start and from 20 random positions each
TINY = [
    "3x3k3",
    "3x3k3:misere",
    "3x3k3:maker-breaker",
    "3x3k3:torus",
    "3x3k3:cylinder",
    "3x3k3:hex",
    "3x3k3p2q1",
    "4x3k3:gravity",
    "4x4k3:gravity",
    "4x4k3:gravity,misere",
    "4x3k3:gravity,maker-breaker",
    "3x3k2p2q1:misere",
]
#: positions of games too large to search exhaustively from the start in the fast tier
MIDGAME = [
    ("4x3k3", "b2 a1"),
    ("4x3k3:misere", "b2 a1"),
    ("4x3k3:maker-breaker", "a1 b2"),
    ("4x3k3p2q1", "b2 a1 a2"),
    ("4x4k3", "b2 c3 a1 c2"),
    ("4x4k3", "a1 d4 b1 c3"),
    ("4x4k3:cylinder", "b2 c3 a1 c2"),
    ("4x4k3:hex", "b2 c3 a1 c2"),
    ("4x4k3p2q1", "b2 c3,c2 a1,a2"),
    ("5x4k4:gravity", "c c b d c b d"),
]


@pytest.mark.parametrize("spec", TINY)
def test_lengths_agree_with_exhaustive_minimax_on_tiny_games(spec: str) -> None:
    game = Game(spec)
    check_positions(game, [game.start(), *random_positions(game, 20, seed=len(spec))])


@pytest.mark.parametrize(("spec", "moves"), MIDGAME)
def test_lengths_agree_with_exhaustive_minimax_in_the_middle_of_games(spec: str, moves: str) -> None:
    check_positions(Game(spec), [Game(spec).position(moves)])


@pytest.mark.parametrize("spec", ["4x3k3", "4x3k3:misere", "4x3k3:maker-breaker", "4x3k3p2q1"])
def test_lengths_agree_with_exhaustive_minimax_on_small_games(spec: str) -> None:  # slow tier: seconds each
    game = Game(spec)
    check_positions(game, [game.start(), *random_positions(game, 30, seed=7)])
    check_positions(game, random_positions(game, 10, seed=8), knowledge="none")


def test_known_lengths() -> None:
    assert solve("4x3k3", strong=True).last_move == 7
    assert solve("4x4k3:gravity", strong=True).last_move == 9
    result = solve("4x4k4:maker-breaker", strong=True)  # Breaker wins when the board is full
    assert (result.value, result.last_move) == (Value.BREAKER, 16)
    assert solve("3x3k3", strong=True).last_move is None  # a draw


def test_a_finished_game_ends_on_its_last_stone() -> None:
    result = solve("3x3k3", moves="a1 b1 a2 b2 a3", strong=True)
    assert (result.value, result.last_move, result.nodes) == (Value.FIRST, 5, 0)


def test_last_move_is_in_the_json_and_the_sentence_only_when_asked() -> None:
    plain = solve("4x3k3")
    assert "last_move" not in plain.to_dict()
    assert plain.describe() == "First player (Black) wins with perfect play."
    strong = solve("4x3k3", strong=True)
    assert strong.to_dict()["last_move"] == 7
    assert strong.describe() == "First player (Black) wins on move 7 with perfect play."
    assert strong.nodes >= plain.nodes
    draw = solve("3x3k3", strong=True)
    assert draw.to_dict()["last_move"] is None
    assert draw.describe() == "Draw with perfect play."


def test_a_budget_that_runs_out_keeps_the_value_and_says_the_length_is_unknown() -> None:
    value_nodes = solve("4x3k3").nodes
    result = solve("4x3k3", strong=True, max_nodes=value_nodes + 1)  # one node left for the length
    assert (result.value, result.last_move, result.stopped) == (Value.FIRST, None, "node limit")
    assert result.describe() == (
        "First player (Black) wins with perfect play; the search stopped (node limit) "
        "before it found on which move the game ends."
    )
    assert result.to_dict()["last_move"] is None


def test_a_value_from_the_store_or_with_its_proof_gets_its_length_too(tmp_path: Path) -> None:
    from kinarow.store import open_store

    store = open_store(str(tmp_path / "store.sqlite"))
    first = solve("4x3k3", store=store, strong=True)
    again = solve("4x3k3", store=store, strong=True)
    assert (first.from_store, again.from_store) == (False, True)
    assert first.last_move == again.last_move == 7
    proved = solve("4x3k3", proof=True, strong=True)
    assert proved.proof is not None and proved.last_move == 7


def test_bad_arguments_are_one_sentence() -> None:
    with pytest.raises(KinarowError, match="strong must be True or False"):
        solve("3x3k3", strong="yes")  # type: ignore[arg-type]
    searcher = Searcher("3x3k3")
    with pytest.raises(KinarowError, match="cannot force a win"):
        searcher.game_length(Game("3x3k3").start(), 1)
    with pytest.raises(KinarowError, match="still in play"):
        searcher.game_length(Game("3x3k3").position("a1 b1 a2 b2 a3"), 1)
    with pytest.raises(KinarowError, match="bound to 3x3k3"):
        searcher.game_length(Game("4x3k3").start(), 1)


# -- Pons' scores --------------------------------------------------------------------------------------------
def references() -> list[tuple[str, int]]:
    refs = []
    for line in DATA.read_text().splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit():
            refs.append((parts[0], int(parts[1])))
    return refs


def expected(moves: str, score: int) -> tuple[int, int | None]:
    """(winner's stone or 0, last move) from a score s given from the side to move: the winner completes its four
    with its (22 - |s|)-th stone, which is stone 2w - 1 of the game for the first player and 2w for the second."""
    if score == 0:
        return 0, None
    to_move = 1 if len(moves) % 2 == 0 else 2
    winner = to_move if score > 0 else 3 - to_move
    w = 22 - abs(score)
    return winner, 2 * w - 1 if winner == 1 else 2 * w


def test_expected_reads_pons_scores() -> None:
    assert expected("", 1) == (1, 41)  # the first player wins with its 21st stone
    assert expected("4", 5) == (2, 34)  # White to move, 17th stone
    assert expected("44", -3) == (2, 38)
    assert expected("443", 0) == (0, None)


def check_references(refs: list[tuple[str, int]]) -> None:
    game = Game("7x6k4:gravity")
    searcher = Searcher(game, tt_mb=16)
    wrong = []
    for moves, score in refs:
        got = strong_answer(solve(game.position(" ".join(moves)), searcher=searcher, strong=True))
        if got != expected(moves, score):
            wrong.append(f"{moves} (score {score}): expected {expected(moves, score)}, got {got}")
    assert not wrong, "; ".join(wrong)


def test_connect4_lengths_match_pons_scores_on_a_sample() -> None:
    refs = references()
    check_references(random.Random(26).sample(refs, 30))


def test_connect4_lengths_match_pons_scores_on_all_300_positions() -> None:  # slow tier: about 2 s
    refs = references()
    assert len(refs) == 300
    check_references(refs)
