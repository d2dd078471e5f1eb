"""Fuzzing what a user types: game strings, move text and the lines of ``kinarow play``.

Whatever the text -- Unicode digits, numbers of thousands of digits, stray punctuation, move numbers in the
wrong place -- the answer is a valid object (that reads back the same) or a :class:`KinarowError` of one short
line; on the command line, one ``kinarow: error:`` line and a non-zero exit, never a traceback. Every test is
bounded by its number of examples (and the solver by a node budget), never by the clock.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from helpers import feed, run
from kinarow import Game, KinarowError, Position
from kinarow.geometry import MAX_SIDE

#: an error message is one line, and short even when the input was 5000 characters long
LONGEST_MESSAGE = 400

# -- the pieces of generated text ------------------------------------------------------------------------------
UNICODE_DIGITS = ["\u0663", "\uff13", "\u00b2", "\u0969", "\U0001d7d1", "\u2163"]  # Arabic-Indic, full-width, ...
HUGE = ["9" * 5000, str(10**20), str(2**64), "0" * 30 + "3", str(MAX_SIDE + 1)]
PUNCTUATION = list(".,;:!?#+-_()[]{}'\"/\\*&%$@^~`|<>=…\u200b\u00a0\t")



def numbers(largest: str = str(MAX_SIDE)) -> st.SearchStrategy[str]:
    """Numbers as a user might type them: small, the largest allowed, too large, Unicode digits, not numbers."""
    return st.one_of(
        st.integers(0, 9).map(str),
        st.integers(10, 14).map(str),
        st.sampled_from([largest, *HUGE, "", "-1", "+3", "1_0", "3.0"]),
        st.sampled_from(UNICODE_DIGITS),
        st.builds(lambda a, b: a + b, st.sampled_from(UNICODE_DIGITS), st.integers(0, 9).map(str)),
    )


flags = st.lists(
    st.one_of(
        st.sampled_from(["gravity", "misere", "maker-breaker", "torus", "cylinder", "hex", "misère", "GRAVITY"]),
        st.sampled_from(["ma\u212aer-breaker", "gravity ", "", "torus,", "foo"]),
        st.text(max_size=6),
    ),
    max_size=3,
)


@st.composite
def game_strings(draw: st.DrawFn, largest: str = str(MAX_SIDE)) -> str:
    """Game strings near the grammar: numbers of every kind, optional turn rule and flags, stray characters.
    (The command line's tests give ``largest`` for the board's sides: a 702 x 702 board takes long to print.)"""
    side, number = numbers(largest), numbers()
    times = draw(st.sampled_from(["x", "X", "\u00d7", ""]))  # the multiplication sign is no x
    text = f"{draw(side)}{times}{draw(side)}k{draw(number)}"
    rule = draw(st.sampled_from(["", "p", "pq", "q"]))
    if "p" in rule:
        text += f"p{draw(number)}"
    if "q" in rule:
        text += f"q{draw(number)}"
    chosen = draw(flags)
    if chosen or draw(st.booleans()):
        text += ":" + ",".join(chosen)
    if draw(st.booleans()):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(PUNCTUATION)) + text[at:]
    return text


any_game_text = st.one_of(game_strings(), st.text(max_size=30))
small_game_text = st.one_of(game_strings(largest="20"), st.text(max_size=30))

#: small games of every kind, to read move text in
GAMES = ["3x3k3", "6x6k4p2q1", "5x5k4p2q2", "7x6k4:gravity", "4x4k3:torus", "5x4k3:hex,cylinder",
         "3x3k3:maker-breaker", "30x2k3:gravity", "3x3k9"]

move_words = st.one_of(
    st.sampled_from(["a1", "b2", "c3", "d4", "A1", "zz9", "d", "4", "g", "aa1", "b", "7"]),
    st.sampled_from(["1.", "2.", "1...", "2...", "...", "…", "1. ...", "1.b2", "...a1", "(F)", "#", "b2!", "a1(F)"]),
    st.sampled_from(["b2,c3", "c4,d3,d4", "a1,", ",", "a1,,b1"]),
    st.builds(lambda letter, digit: letter + digit, st.sampled_from(["a", "b", "\u212a", "é", ""]),
              st.sampled_from(UNICODE_DIGITS + HUGE + ["1", "2", "0", "01"])),
    st.sampled_from(PUNCTUATION),
    st.text(max_size=5),
)
move_texts = st.one_of(st.lists(move_words, max_size=8).map(" ".join), st.lists(move_words, max_size=8).map("".join))


def one_line(error: BaseException) -> str:
    message = str(error)
    assert message and "\n" not in message and len(message) < LONGEST_MESSAGE, message
    return message


# -- the API ------------------------------------------------------------------------------------------------------
@given(any_game_text)
@example("3x3k3p" + "9" * 5000)
@example("\uff13x\uff13k\uff13")
@example("3x3k3p99999999999999999999")
@example(f"{MAX_SIDE}x1k{MAX_SIDE}p{MAX_SIDE}q{MAX_SIDE}:gravity")
def test_a_game_string_gives_a_game_or_one_line(text: str) -> None:
    try:
        game = Game(text)
    except KinarowError as error:
        one_line(error)
        return
    assert Game(str(game)) == game  # what was read is what the canonical string says
    for value in (game.m, game.n, game.k, game.p, game.q):
        assert 1 <= value <= MAX_SIDE
    assert text.strip().partition(":")[0].isascii()


@settings(max_examples=200)
@given(st.sampled_from(GAMES), move_texts)
@example("3x3k3", "1. b2 2. a1")
@example("6x6k4p2q1", "1. c4 ... d3 2. e5")
@example("3x3k3", "1. ...")
@example("3x3k3", "a\u0663")
def test_move_text_gives_a_position_or_one_line(game_text: str, text: str) -> None:
    game = Game(game_text)
    position = game.start()
    try:
        position.play_moves(text)
    except KinarowError as error:
        one_line(error)
        assert position.stones == 0  # a refused line leaves nothing on the board
        return
    assert isinstance(position, Position)
    again = game.position(position.move_text())  # the moves read back the same in the papers' notation
    assert again.moves == position.moves and again.result == position.result
    names = " ".join(position.name(c) for c in position.moves)
    assert game.position(names).moves == position.moves


# -- the command line -----------------------------------------------------------------------------------------------
FIXTURES = settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])


def check_cli(code: int, out: str, err: str) -> None:
    assert "Traceback" not in err
    if code == 0:
        assert out
        return
    assert code == 2, (code, err)
    assert out == ""
    assert err.startswith("kinarow: error: ") and err.count("\n") == 1 and len(err) < LONGEST_MESSAGE, err


@FIXTURES
@given(small_game_text, st.one_of(st.none(), move_texts))
@example("3x3k3p" + "9" * 5000, None)
@example("6x6k4p2q1", "1. c4 ... d3 2. e5")
@example("3x3k3", "a" + "9" * 5000)
def test_show_answers_or_says_one_line(capsys: pytest.CaptureFixture[str], text: str, moves: str | None) -> None:
    if text.startswith("-"):
        text = " " + text  # an option to argparse, not a game string
    argv = ["show", text] + ([] if moves is None else [f"--moves={moves}"])
    check_cli(*run(capsys, *argv))


BUDGETS = ["1", "10**26", "9" * 5000, "\u0661", "1.5", "nan", "500"]


@settings(max_examples=25)
@given(st.one_of(game_strings(largest="20"), st.sampled_from(GAMES)), st.sampled_from(BUDGETS))
def test_solve_answers_or_says_one_line(text: str, budget: str) -> None:
    import contextlib
    import io

    from kinarow.cli import main

    if text.startswith("-"):
        text = " " + text
    budget = str(10**26) if budget == "10**26" else budget
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["solve", text, "--max-nodes", budget, "--tt-mb", "1", "--knowledge", "none", "--no-store"])
    check_cli(code, out.getvalue(), err.getvalue())


@FIXTURES
@given(st.lists(st.one_of(move_texts, st.sampled_from(["help", "?", "undo", "h", "q", "Undo", "HELP"])),
                max_size=5))
def test_play_answers_every_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                 lines: list[str]) -> None:
    feed(monkeypatch, lines)  # then the end of input, which ends the game
    code, out, err = run(capsys, "play", "3x3k3", "--think", "1")
    assert code == 0, err
    assert "Traceback" not in out + err
    for row in out.splitlines():
        assert len(row) < LONGEST_MESSAGE
