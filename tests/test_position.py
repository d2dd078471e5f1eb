"""Positions: play/undo, legal moves, turn rules, outcomes and move text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kinarow import Game, IllegalMoveError, KinarowError, MoveError, Position


def snapshot(pos: Position):
    return (list(pos.board), list(pos.moves), pos.key(), list(pos.heights), pos.result, pos.to_move, pos.stones_left)


def cells(pos: Position, names: str) -> list[int]:
    return [pos.geometry.parse_cell(n) for n in names.split()]


# -- play / undo ----------------------------------------------------------------------------------


def test_play_and_undo():
    pos = Game("3x3k3").start()
    start = snapshot(pos)
    b2 = pos.geometry.parse_cell("b2")
    pos.play(b2)
    assert pos.board[b2] == 1
    assert pos.to_move == 2
    assert pos.stones == 1
    assert b2 not in pos.legal_moves()
    assert pos.key() == (1 << b2, 0)
    assert pos.undo() == b2
    assert snapshot(pos) == start


def test_undo_on_empty_board_raises():
    with pytest.raises(IllegalMoveError):
        Game("3x3k3").start().undo()


def test_copy_is_independent():
    pos = Game("4x4k4").position("a1 b2")
    other = pos.copy()
    other.play_moves("c3")
    assert pos.stones == 2
    assert other.stones == 3
    assert other.moves[:2] == pos.moves


def test_legal_moves_free_placement():
    pos = Game("3x3k3").position("b2 a1")
    assert sorted(pos.legal_moves()) == sorted(set(range(9)) - set(cells(pos, "b2 a1")))


def test_legal_moves_gravity():
    game = Game("4x3k3:gravity")
    pos = game.position("a a a b")
    geo = pos.geometry
    # column a is full; b has one stone; c and d are empty
    assert sorted(pos.legal_moves()) == sorted([geo.cell(1, 1), geo.cell(2, 0), geo.cell(3, 0)])


def test_legal_moves_empty_once_the_game_is_over():
    pos = Game("3x3k3").position("a1 b1 a2 b2 a3")
    assert pos.result == "first"
    assert pos.legal_moves() == []


# -- turn rule ------------------------------------------------------------------------------------


def players_by_stone(text: str, count: int) -> list[int]:
    pos = Game(text).start()
    out = []
    for _ in range(count):
        out.append(pos.to_move)
        pos.play(pos.legal_moves()[0])
    return out


def test_turn_rule_p2q1():
    # (6,6,4,2,1): Black places 1 stone, then White 2, Black 2, ...
    assert players_by_stone("6x6k4p2q1", 9) == [1, 2, 2, 1, 1, 2, 2, 1, 1]


def test_turn_rule_p2q2():
    assert players_by_stone("5x5k4p2q2", 8) == [1, 1, 2, 2, 1, 1, 2, 2]


def test_turn_rule_p1q1():
    assert players_by_stone("4x4k4", 6) == [1, 2, 1, 2, 1, 2]


def test_turn_rule_p3q2():
    assert players_by_stone("6x6k5p3q2", 10) == [1, 1, 2, 2, 2, 1, 1, 1, 2, 2]


def test_stones_left():
    pos = Game("6x6k4p2q1").start()
    lefts = []
    for _ in range(5):
        lefts.append(pos.stones_left)
        pos.play(pos.legal_moves()[0])
    assert lefts == [1, 2, 1, 2, 1]


# -- outcomes -------------------------------------------------------------------------------------


def test_normal_win_and_draw():
    assert Game("3x3k3").position("a1 b1 a2 b2 a3").result == "first"
    assert Game("3x3k3").position("c3 a1 b1 a2 b2 a3").result == "second"
    pos = Game("3x3k3").position("a3 b3 c3 b2 a2 c2 b1 a1 c1")
    assert pos.result == "draw"
    assert pos.is_over


def test_game_goes_on_until_a_group_is_complete():
    pos = Game("3x3k3").position("a1 b1 a2 b2")
    assert pos.result is None
    assert not pos.is_over


def test_misere_completing_a_group_loses():
    assert Game("3x3k3:misere").position("a1 b1 a2 b2 a3").result == "second"
    assert Game("3x3k3:misere").position("c3 a1 b1 a2 b2 a3").result == "first"
    assert Game("3x3k3:misere").position("a3 b3 c3 b2 a2 c2 b1 a1 c1").result == "draw"


def test_maker_breaker():
    game = Game("3x3k3:maker-breaker")
    assert game.position("a1 b1 a2 b2 a3").result == "maker"
    # Breaker completing a group does not end the game
    pos = game.position("a1 b1 a2 b2 c3 b3")
    assert pos.result is None
    assert pos.to_move == 1
    # a full board without a Maker group is a Breaker win
    assert game.position("a3 b3 c3 b2 a2 c2 b1 a1 c1").result == "breaker"


def test_maker_wins_on_the_last_cell():
    # X: a3 c3 a2 b1, then c1 completes nothing ... choose a fill whose last stone completes a1-b2-c3
    pos = Game("3x3k3:maker-breaker").position("a3 b3 a2 a1 c1 c2 b1 c3 b2")
    assert pos.stones == 9
    assert pos.result == "maker"


def test_normal_win_on_the_last_cell_is_a_win_not_a_draw():
    pos = Game("3x3k3").position("a3 b3 a2 a1 c1 c2 b1 c3 b2")
    assert pos.result == "first"


def test_gravity_outcome():
    pos = Game("7x6k4:gravity").position("d e d e d e")
    assert pos.result is None
    pos.play_moves("d")
    assert pos.result == "first"


def test_p2q1_outcome():
    # Black a1; White b1,b2; Black a2,a3; White b3,b4: four in column b
    pos = Game("6x6k4p2q1").position("a1 b1 b2 a2 a3 b3 b4")
    assert pos.result == "second"


def test_torus_wrapped_group_wins():
    # d1, a1, b1 are three consecutive cells of the wrapped first row
    assert Game("4x4k3").position("d1 b2 a1 b3 b1").result is None
    assert Game("4x4k3:torus").position("d1 b2 a1 b3 b1").result == "first"
    assert Game("4x4k3:cylinder").position("d1 b2 a1 b3 b1").result == "first"
    # wrapped vertically only on the torus
    assert Game("4x4k3:cylinder").position("a4 b2 a1 b3 a2").result is None
    assert Game("4x4k3:torus").position("a4 b2 a1 b3 a2").result == "first"


def test_hex_outcome_uses_only_its_diagonal():
    assert Game("3x3k3:hex").position("a1 a2 b2 a3 c3").result is None
    assert Game("3x3k3:hex").position("a3 a2 b2 a1 c1").result == "first"



@pytest.mark.parametrize(
    ("game", "moves", "lines"),
    [
        ("3x3k3", "a1 b1 a2 b2 a3", [["a1", "a2", "a3"]]),
        ("3x3k3", "a3 b3 a2 a1 c1 c2 b1 c3 b2", [["a3", "b2", "c1"]]),  # on the last cell: a win, with its line
        ("5x5k3", "a1 e5 b1 e3 d1 a5 e1 a3 c1", [["a1", "b1", "c1", "d1", "e1"]]),  # the whole run, past K
        ("5x5k3", "a1 e5 c1 e3 a3 d5 c3 d3 b2", [["a1", "b2", "c3"], ["a3", "b2", "c1"]]),  # two lines at once
        ("3x3k3:misere", "c3 a1 b1 a2 b2 a3", [["a1", "a2", "a3"]]),  # the loser's line
        ("3x3k3:maker-breaker", "a3 b3 a2 a1 c1 c2 b1 c3 b2", [["a3", "b2", "c1"]]),
        ("3x3k3:hex", "a3 a2 b2 a1 c1", [["a3", "b2", "c1"]]),
        ("7x6k4:gravity", "d e d e d e d", [["d1", "d2", "d3", "d4"]]),
        ("6x6k4p2q1", "a1 b1 b2 a2 a3 b3 b4", [["b1", "b2", "b3", "b4"]]),
        ("4x4k3:torus", "d1 b2 a1 b3 b1", [["d1", "a1", "b1"]]),
        ("4x4k4:torus", "a1 a2 b1 b2 d1 d2 c1", [["c1", "d1", "a1", "b1"]]),  # a whole wrapped line, once
        ("3x3k3", "a1 b1 a2 b2", []),  # the game goes on
        ("3x3k3", "a3 b3 c3 b2 a2 c2 b1 a1 c1", []),  # a draw
        ("3x3k3:maker-breaker", "a1 b1 a2 b2 c3 b3", []),  # Breaker's group ends nothing
        ("3x3k3:maker-breaker", "a3 b3 c3 b2 a2 c2 b1 a1 c1", []),  # a full board: Breaker wins without a line
    ],
)
def test_completed_lines_are_the_lines_that_ended_the_game(game, moves, lines):
    pos = Game(game).position(moves)
    assert [[pos.name(c) for c in line] for line in pos.completed_lines()] == lines
    for line in pos.completed_lines():
        assert len(line) >= pos.game.k and all(pos.board[c] == pos.board[pos.moves[-1]] for c in line)

# -- move text ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "text", "expected"),
    [
        ("3x3k3", "b2 a1 c3", "b2 a1 c3"),
        ("3x3k3", "1. b2 … a1 2. c3", "b2 a1 c3"),
        ("3x3k3", "1. b2 ... a1 2. c3", "b2 a1 c3"),
        ("3x3k3", "1.b2 ...a1 2.c3", "b2 a1 c3"),
        ("3x3k3", "1. b2 (F) ... a1 2. c3#", "b2 a1 c3"),
        ("3x3k3", "1. b2(F) ... a1(F) 2. c3", "b2 a1 c3"),
        ("3x3k3", "B2 A1 C3", "b2 a1 c3"),
        ("3x3k3", ["b2", "a1", "c3"], "b2 a1 c3"),
        ("5x5k4p2q2", "1. b3,c3", "b3 c3"),
        ("5x5k4p2q2", "1. b3,c3 ... d4,d3 2. a1(F)", "b3 c3 d4 d3 a1"),
        ("6x6k4p2q1", "1. c4 ... d3,d4", "c4 d3 d4"),
        ("7x6k4:gravity", "d d c", "d1 d2 c1"),
        ("7x6k4:gravity", "4 4 3", "d1 d2 c1"),
        ("7x6k4:gravity", "D 4 c", "d1 d2 c1"),
        ("7x6k4:gravity", "d1 d2 c1", "d1 d2 c1"),
        ("7x6k4:gravity", "1. d ... d 2. c", "d1 d2 c1"),
    ],
)
def test_move_text_forms(game, text, expected):
    pos = Game(game).position(text)
    assert [pos.name(c) for c in pos.moves] == expected.split()


def test_a_turn_of_two_stones_is_written_with_a_comma():
    pos = Game("6x6k4p2q1").position("c4 d3 d4 a1 a2")
    assert pos.move_text() == "1. c4 ... d3,d4 2. a1,a2"
    pos = Game("5x5k4p2q2").position("b3 c3 d4")
    assert pos.move_text() == "1. b3,c3 ... d4"


def test_play_moves_returns_the_cells():
    pos = Game("3x3k3").start()
    assert pos.play_moves("b2 a1") == cells(pos, "b2 a1")


@st.composite
def random_lines(draw):
    text = draw(
        st.sampled_from(
            ["3x3k3", "4x4k4", "5x5k4p2q2", "6x6k4p2q1", "5x4k3:gravity", "4x4k3:misere", "4x4k3:maker-breaker",
             "5x5k3:torus", "5x4k3:hex,cylinder", "6x5k4p3q2:gravity"]
        )
    )
    pos = Game(text).start()
    length = draw(st.integers(0, pos.geometry.size))
    for _ in range(length):
        legal = pos.legal_moves()
        if not legal:
            break
        pos.play(draw(st.sampled_from(legal)))
    return pos


@given(random_lines())
def test_move_text_round_trip(pos):
    again = pos.game.position(pos.move_text())
    assert again.moves == pos.moves
    assert again.result == pos.result
    plain = pos.game.position(" ".join(pos.name(c) for c in pos.moves))
    assert plain.moves == pos.moves


def referee(game: Game, moves: list[int]) -> str | None:
    """The outcome after ``moves``, computed from scratch over the groups."""
    geo = game.geometry
    owner: dict[int, int] = {}
    first, second = ("maker", "breaker") if game.goal == "maker-breaker" else ("first", "second")
    for i, c in enumerate(moves):
        player = game.turn_state(i)[0]
        owner[c] = player
        done = any(all(owner.get(x) == player for x in g) for g in geo.groups if c in g)
        if done:
            if game.goal == "normal":
                return first if player == 1 else second
            if game.goal == "misere":
                return second if player == 1 else first
            if player == 1:
                return first
    if len(owner) == geo.size:
        return second if game.goal == "maker-breaker" else "draw"
    return None


def expected_legal(pos: Position) -> set[int]:
    if pos.result is not None:
        return set()
    geo = pos.geometry
    if pos.game.gravity:
        out = set()
        for x in range(pos.game.m):
            for y in range(pos.game.n):
                if pos.board[geo.cell(x, y)] == 0:
                    out.add(geo.cell(x, y))
                    break
        return out
    return {c for c in range(geo.size) if pos.board[c] == 0}


@given(random_lines())
def test_random_lines_against_a_referee_and_undo(pos):
    game = pos.game
    # replay stone by stone, checking the outcome, the legal moves and who moves
    replay = game.start()
    for i, c in enumerate(pos.moves):
        assert replay.to_move == game.turn_state(i)[0]
        assert set(replay.legal_moves()) == expected_legal(replay)
        replay.play(c)
        assert replay.result == referee(game, pos.moves[: i + 1])
    assert set(pos.legal_moves()) == expected_legal(pos)
    # stones agree with the board
    black = {c for c in range(game.cells) if pos.board[c] == 1}
    white = {c for c in range(game.cells) if pos.board[c] == 2}
    assert pos.key() == (sum(1 << c for c in black), sum(1 << c for c in white))
    # undo everything: back to the empty board
    while pos.moves:
        pos.undo()
    assert snapshot(pos) == snapshot(game.start())


# -- illegal moves --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "before", "move", "reason"),
    [
        ("3x3k3", "b2 a1", "b2", "occupied"),
        ("3x3k3", "b2 a1", "a1", "occupied"),
        ("3x3k3", "b2", "d4", "off the board"),
        ("3x3k3", "b2", "a4", "off the board"),
        ("7x6k4:gravity", "d d d d d d", "d", "full"),
        ("7x6k4:gravity", "d d d d d d", "4", "full"),
        ("7x6k4:gravity", "d", "h", "off the board"),
        ("7x6k4:gravity", "d", "9", "off the board"),
        ("3x3k3", "a1 b1 a2 b2 a3", "c3", "over"),
        ("7x6k4:gravity", "a b a b a b a", "c", "over"),
        ("3x3k3:maker-breaker", "a1 b1 a2 b2 a3", "c3", "over"),
    ],
)
def test_illegal_moves_name_the_reason_and_change_nothing(game, before, move, reason):
    pos = Game(game).position(before)
    start = snapshot(pos)
    with pytest.raises(IllegalMoveError) as info:
        pos.play_moves(move)
    message = str(info.value)
    assert reason in message
    assert "\n" not in message
    assert snapshot(pos) == start


def test_illegal_cell_index():
    pos = Game("3x3k3").start()
    for bad in (-1, 9, 100):
        with pytest.raises(IllegalMoveError, match="off the board"):
            pos.play(bad)
    assert snapshot(pos) == snapshot(Game("3x3k3").start())


def test_gravity_stone_must_land_where_it_drops():
    pos = Game("7x6k4:gravity").position("d")
    start = snapshot(pos)
    with pytest.raises(IllegalMoveError):
        pos.play_moves("d3")
    with pytest.raises(IllegalMoveError):
        pos.play(pos.geometry.parse_cell("c2"))
    assert snapshot(pos) == start


def test_a_failing_line_is_rolled_back_completely():
    pos = Game("3x3k3").position("b2")
    start = snapshot(pos)
    with pytest.raises(IllegalMoveError) as info:
        pos.play_moves("a1 c3 a1")
    assert "move 3" in str(info.value)
    assert snapshot(pos) == start


@pytest.mark.parametrize(
    ("game", "text"),
    [
        ("3x3k3", "xx"),
        ("3x3k3", "b2 2b"),
        ("3x3k3", "b2,c3"),  # one stone per turn
        ("3x3k3", "b2 c3,a1"),
        ("6x6k4p2q1", "c4 d3,d4,d5"),
        ("5x5k4p2q2", "b3,c3,d3"),
        ("7x6k4:gravity", "d d5x"),
    ],
)
def test_unreadable_or_overlong_turns_raise_move_error_and_change_nothing(game, text):
    pos = Game(game).start()
    start = snapshot(pos)
    with pytest.raises(MoveError) as info:
        pos.play_moves(text)
    assert "\n" not in str(info.value)
    assert snapshot(pos) == start


def test_an_overlong_turn_is_named_in_the_error():
    with pytest.raises(MoveError) as info:
        Game("3x3k3").position("b2 c3,a1")
    message = str(info.value)
    assert "move 2" in message
    assert "c3,a1" in message
    assert "('b2')" not in message


def test_move_errors_are_kinarow_errors():
    assert issubclass(IllegalMoveError, MoveError)
    assert issubclass(MoveError, KinarowError)


# -- numbered notation must fit the game --------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "text", "reason"),
    [
        # White's turn in (6,6,4,2,1) has two stones: '2.' cannot come after one of them
        ("6x6k4p2q1", "1. c4 ... d3 2. e5", "after 1. c4 ... d3: '2.' opens a new turn, but White still places 1"),
        # after 1. b2 it is White's turn 1, written '1...' or '...'
        ("3x3k3", "1. b2 2. a1", "after 1. b2: '2.' opens Black's turn 2, but it is White's turn 1"),
        ("3x3k3", "1. b2 2. a1", "'1...' or '...'"),
        ("3x3k3", "...", "at the start: '...' opens White's turn, but it is Black's turn 1"),
        ("3x3k3", "1. ...", "at the start: '1. ...' opens White's turn 1"),
        ("3x3k3", "1... b2", "it is Black's turn 1"),
        ("3x3k3", "1. b2 ... a1 3. c3", "'3.' opens Black's turn 3, but it is Black's turn 2"),
        ("3x3k3", "1. b2 2... a1", "'2...' opens White's turn 2, but it is White's turn 1"),
        # zero moves after a move number or an ellipsis
        ("3x3k3", "1.", "'1.' is followed by no move"),
        ("3x3k3", "1. b2 ...", "after 1. b2: '...' is followed by no move"),
        ("3x3k3", "1. b2 ... 2. c3", "'...' is followed by no move"),
        ("3x3k3", "1. b2 1. ... 2. a1", "'1. ...' is followed by no move"),
        ("3x3k3", "1. a1 ... b1 2. a2 ... b2 3. a3 ... c3", "the game is over"),
        ("3x3k3", "9" * 5000 + ". b2", "larger than any game has turns"),
    ],
)
def test_numbered_text_that_does_not_fit_the_game_is_refused(game, text, reason):
    pos = Game(game).start()
    with pytest.raises(MoveError) as info:
        pos.play_moves(text)
    message = str(info.value)
    assert reason in message
    assert "\n" not in message and len(message) < 300
    assert snapshot(pos) == snapshot(Game(game).start())


@pytest.mark.parametrize(
    ("game", "text", "expected"),
    [
        ("3x3k3", "1. b2 1. ... a1 2. c3", "b2 a1 c3"),  # the chess form of White's turn
        ("3x3k3", "1. b2 1... a1", "b2 a1"),
        ("3x3k3", "1. b2 a1 2. c3 c1", "b2 a1 c3 c1"),  # chess-like: both turns after one number
        ("6x6k4p2q1", "1. c4 ... d3 d4 2. e5", "c4 d3 d4 e5"),  # a turn's stones given one by one
        ("6x6k4p2q1", "1. c4 ... d3", "c4 d3"),  # the text may end inside a turn
        ("3x3k3", "b2 a1", "b2 a1"),  # unnumbered text is not checked for numbers
        ("3x3k3", "", ""),
    ],
)
def test_numbered_text_that_fits_is_read(game, text, expected):
    pos = Game(game).position(text)
    assert " ".join(pos.name(c) for c in pos.moves) == expected


def test_numbers_are_checked_against_the_moves_already_on_the_board():
    pos = Game("3x3k3").position("b2")
    pos.play_moves("1... a1 2. c3")
    assert pos.move_text() == "1. b2 ... a1 2. c3"
    with pytest.raises(MoveError, match="it is White's turn 2"):
        pos.play_moves("3. c1")


@pytest.mark.parametrize(
    ("game", "text"),
    [
        ("3x3k3", "1. b2 ... b1"),  # README
        ("6x6k4p2q1", "1. c4 ... d3,d4"),  # docs/cli.md
        ("7x6k4:gravity", "d d c"),
        ("7x6k4:gravity", "d d c e c"),
        ("5x5k5", "c3 b2"),
    ],
)
def test_the_documented_move_texts_still_read(game, text):
    assert Game(game).position(text).moves


# -- ASCII only, and bounded ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "move", "error"),
    [
        ("3x3k3", "a\u0663", MoveError),  # an Arabic-Indic three is not a row number
        ("3x3k3", "a\uff13", MoveError),  # nor is a full-width one
        ("3x3k3", "\u212a1", MoveError),  # the Kelvin sign is no 'k'
        ("3x3k3", "a" + "9" * 5000, IllegalMoveError),
        ("3x3k3", "zzzzzzzzzzzzzzzzzzzzzzzz1", MoveError),  # no board has a column of three letters
        ("3x3k3", "zz1", IllegalMoveError),
        ("3x3k3", "a0", IllegalMoveError),
        ("7x6k4:gravity", "\u0663", MoveError),
        ("7x6k4:gravity", "é", MoveError),
        ("7x6k4:gravity", "9" * 5000, IllegalMoveError),
        ("7x6k4:gravity", "z" * 5000, MoveError),
        ("7x6k4:gravity", "zz", IllegalMoveError),
        ("7x6k4:gravity", "hello", MoveError),
        ("150x3k3:gravity", "é", MoveError),  # 'é' would be column 137 if its code point were read
    ],
)
def test_non_ascii_and_huge_moves_are_refused_in_one_short_line(game, move, error):
    pos = Game(game).start()
    with pytest.raises(error) as info:
        pos.play_moves(move)
    message = str(info.value)
    assert "\n" not in message and len(message) < 300
    assert pos.stones == 0


@pytest.mark.parametrize("value", [5, None, 4.0, [1, 2], b"b2"])
def test_moves_that_are_not_text_are_a_move_error(value):
    with pytest.raises(MoveError):
        Game("3x3k3").start().play_moves(value)


@pytest.mark.parametrize("cell", [1.5, "b2", None, True, 10**5000, -(10**30)],
                         ids=["float", "name", "none", "bool", "huge", "negative"])
def test_play_takes_a_cell_number_only(cell):
    pos = Game("3x3k3").start()
    with pytest.raises(MoveError) as info:
        pos.play(cell)
    assert "\n" not in str(info.value) and len(str(info.value)) < 200
    assert pos.stones == 0


def test_play_keeps_cells_as_python_ints():
    import numpy as np

    pos = Game("9x9k5").start()
    pos.play(np.int64(80))
    assert type(pos.moves[0]) is int and pos.key() == (1 << 80, 0)
