"""The ``kinarow`` command line, run in-process through ``main(argv)``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import feed, run
from kinarow import __version__
from kinarow.cli import main


# -- solve ---------------------------------------------------------------------------
def test_solve_text_names_value_best_move_and_counts(capsys):
    code, out, err = run(capsys, "solve", "3x3k3")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Draw with perfect play."
    for label in ("best move:", "nodes:", "seconds:", "nodes/s:"):
        assert any(line.startswith(label) for line in lines), label
    assert err == ""


def test_solve_json_is_one_object(capsys):
    code, out, _ = run(capsys, "solve", "4x3k3", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["game"] == "4x3k3"
    assert data["value"] == "first"
    assert data["best_move"] is not None
    assert data["nodes"] > 0
    assert {"seconds", "nodes_per_second", "to_move"} <= data.keys()


def test_solve_json_draw_with_a_given_table_size(capsys):
    _, out, _ = run(capsys, "solve", "3x3k3", "--json", "--tt-mb", "8")
    assert json.loads(out)["value"] == "draw"


def test_solve_after_moves(capsys):
    # After 1. b2 ... b1 Black has a winning attack on 4x3 (a centre reply holds, b1 does not).
    code, out, _ = run(capsys, "solve", "4x3k3", "--moves", "1. b2 ... b1", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["moves"] == "1. b2 ... b1"
    assert data["to_move"] == "first"
    assert data["value"] == "first"


def test_solve_after_a_finished_game(capsys):
    code, out, _ = run(capsys, "solve", "3x3k3", "--moves", "a1 b1 a2 b2 a3")
    assert code == 0
    assert out.splitlines()[0] == "The game is already over: Black (X) wins."


def test_solve_node_budget_gives_unknown(capsys):
    # (without knowledge: with it the empty 4x4 board is a draw in 1 node)
    code, out, _ = run(capsys, "solve", "4x4k4", "--max-nodes", "5", "--json", "--knowledge", "none")
    assert code == 0
    data = json.loads(out)
    assert data["value"] == "unknown"
    assert data["stopped"] == "node limit"
    code, out, _ = run(capsys, "solve", "4x4k4", "--max-nodes", "5", "--knowledge", "none")
    assert out.startswith("Unknown")
    assert "stopped: node limit" in out


def test_solve_interrupted_exits_130(capsys, monkeypatch):
    from kinarow.search.alphabeta import Searcher

    def interrupted(self, position, **_):
        return 99, None, 7, "interrupted"

    monkeypatch.setattr(Searcher, "search", interrupted)
    code, out, err = run(capsys, "solve", "3x3k3")
    assert code == 130
    assert out.startswith("Unknown")
    assert "stopped: interrupted" in out
    assert "Interrupted" in err


@pytest.mark.parametrize(
    "options",
    [
        ["--max-nodes", "-3"],
        ["--max-nodes", "many"],
        ["--time-limit", "0"],
        ["--tt-mb", "-1"],
        ["--tt-mb", "nan"],
        ["--tt-mb", "1e9"],
    ],
)
def test_solve_bad_numbers_are_one_sentence(capsys, options):
    code, out, err = run(capsys, "solve", "3x3k3", *options)
    assert code == 2
    assert out == ""
    assert err.startswith(f"kinarow: error: {options[0]} ")
    assert err.count("\n") == 1


# -- errors --------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["4x4", "4x4k4:foo", "0x3k3", "4x4k4:torus,gravity", ""])
@pytest.mark.parametrize("command", ["solve", "show", "play"])
def test_bad_game_string_is_one_line_exit_2(capsys, spec, command):
    code, out, err = run(capsys, command, spec)
    assert code == 2
    assert out == ""
    assert err.startswith("kinarow: error: ")
    assert err.count("\n") == 1
    assert "Traceback" not in err


@pytest.mark.parametrize("moves", ["a1 a1", "z9", "b2 q", "b2,c3"])
def test_bad_moves_are_one_line_exit_2(capsys, moves):
    code, out, err = run(capsys, "show", "3x3k3", "--moves", moves)
    assert code == 2
    assert out == ""
    assert err.startswith("kinarow: error: move ")
    assert err.count("\n") == 1


def test_board_too_large_for_the_solver(capsys):
    code, _, err = run(capsys, "solve", "17x16k5")
    assert code == 2
    assert "272 cells" in err and "64 cells" in err
    assert err.count("\n") == 1


def test_usage_errors_exit_2(capsys):
    assert main([]) == 2
    assert main(["solve"]) == 2
    assert main(["solve", "3x3k3", "--nonsense"]) == 2
    assert main(["play", "3x3k3", "--first", "--second"]) == 2
    assert "usage:" in capsys.readouterr().err


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0
    assert out.strip() == f"kinarow {__version__}"


# -- show ------------------------------------------------------------------------------
def test_show_board_and_turn(capsys):
    code, out, _ = run(capsys, "show", "3x3k3", "--moves", "b2 a1")
    assert code == 0
    assert out.splitlines() == [
        "game: 3x3k3",
        "moves: 1. b2 ... a1",
        "3 . . .",
        "2 . X .",
        "1 O . .",
        "  a b c",
        "Black (X) to move; 1 stone left this turn.",
    ]


def test_show_turn_rule_and_gravity(capsys):
    _, out, _ = run(capsys, "show", "6x6k4p2q1", "--moves", "1. c4 ... d3")
    assert out.splitlines()[-1] == "White (O) to move; 1 stone left this turn."
    _, out, _ = run(capsys, "show", "4x4k3:gravity", "--moves", "a b a b a")
    assert "3 X . . ." in out
    assert out.splitlines()[-1] == "Game over: Black (X) wins."


# -- play ------------------------------------------------------------------------------
CELLS_3X3 = ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"]


def test_play_a_whole_game_with_an_illegal_move(capsys, monkeypatch):
    # Every cell in turn: occupied ones are refused and the next is tried, so the game must end.
    prompts = feed(monkeypatch, ["z9", "help", "", "b2", "b2", *CELLS_3X3])
    code, out, _ = run(capsys, "play", "3x3k3")
    assert code == 0
    assert "'z9' is off the board" in out
    assert "b2 is occupied" in out
    assert "Commands: undo" in out
    assert "kinarow plays" in out
    last = out.splitlines()[-1]
    assert last.startswith("Game over: ")
    # Perfect play by the engine: the human never wins.
    assert "You win" not in last
    assert all(p.startswith("Your move as Black (X)") for p in prompts)


def test_play_second_under_gravity(capsys, monkeypatch):
    # 4x4k3:gravity is a first-player win, so the engine (Black) wins; columns by letter and number.
    feed(monkeypatch, ["e", "1", *"abcdabcdabcdabcd"])
    code, out, _ = run(capsys, "play", "4x4k3:gravity", "--second")
    assert code == 0
    assert "column 'e' is off the board" in out
    assert "kinarow plays column " in out
    assert out.splitlines()[-1] == "Game over: Black (X) wins. kinarow wins."


def test_play_undo_and_quit(capsys, monkeypatch):
    feed(monkeypatch, ["undo", "b2", "undo", "quit"])
    code, out, _ = run(capsys, "play", "3x3k3")
    assert code == 0
    assert "There is no move of yours to take back." in out
    assert "Took back your last turn (b2) and the reply (" in out
    boards = [line for line in out.splitlines() if line.startswith("2 ")]
    assert boards[-1] == "2 . . ."
    assert out.splitlines()[-1] == "Game abandoned."


def test_play_end_of_input_ends_cleanly(capsys, monkeypatch):
    feed(monkeypatch, [])
    code, out, _ = run(capsys, "play", "3x3k3")
    assert code == 0
    assert out.splitlines()[-1] == "Game abandoned."


def test_play_several_stones_per_turn(capsys, monkeypatch):
    # The engine opens with one stone, so at most one of the two pairs can be refused.
    feed(monkeypatch, ["a1 a2 a3", "a4,b4", "c4,d4", "quit"])
    code, out, _ = run(capsys, "play", "4x4k4p2q1", "--second")
    assert code == 0
    assert "you have 2 stones left this turn but gave 3 moves" in out
    assert out.count("kinarow plays") == 2


def test_play_a_single_letter_is_a_column_not_a_command(capsys, monkeypatch):
    # 'h' is column h of 8x4k4:gravity (not help); 'q' is column q of a board of 17 columns (not quit)
    feed(monkeypatch, ["h", "quit"])
    code, out, _ = run(capsys, "play", "8x4k4:gravity", "--think", "0.05")
    assert code == 0
    assert "Commands:" not in out
    assert any(row.split()[:9] == ["1", *".......", "X"] for row in out.splitlines())
    feed(monkeypatch, ["q", "exit"])
    code, out, _ = run(capsys, "play", "17x2k3:gravity", "--think", "0.05")
    assert code == 0
    assert any(row.split()[:18] == ["1", *"." * 16, "X"] for row in out.splitlines())
    assert out.splitlines()[-1].endswith("Game abandoned.")


@pytest.mark.parametrize("command", ["help", "?", " HELP "])
def test_play_help_is_a_word(capsys, monkeypatch, command):
    feed(monkeypatch, [command, "quit"])
    _, out, _ = run(capsys, "play", "3x3k3")
    assert "Commands are whole words, so a single letter is always a column." in out


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("hello world", "'hello' is not a cell name"),
        ("hello", "'hello' is not a cell name"),
        ("a\u0663", "is not a cell name"),
        ("2. b2", "'2.' opens Black's turn 2, but it is Black's turn 1"),
        ("1. ...", "'1. ...' names no move"),
        ("a" + "9" * 5000, "is off the board"),
    ],
)
def test_play_unreadable_lines_are_named_and_change_nothing(capsys, monkeypatch, line, said):
    feed(monkeypatch, [line, "quit"])
    code, out, _ = run(capsys, "play", "3x3k3")
    assert code == 0
    reply = next(row for row in out.splitlines() if "try again" in row)
    assert said in reply and len(reply) < 300
    assert "moves" not in reply  # not counted as moves
    assert "X" not in out.split("try again")[-1]  # no stone was placed


def test_play_undo_inside_a_turn_takes_back_only_that_turn(capsys, monkeypatch):
    # 5x5k4p2q2: you (Black) place two stones on the first turn; undo after one takes back that one only
    feed(monkeypatch, ["d4", "undo", "d4", "undo", "quit"])
    code, out, _ = run(capsys, "play", "5x5k4p2q2")
    assert code == 0
    assert out.count("Took back the stone you placed this turn (d4).") == 2
    assert "Took back your last turn" not in out
    assert "kinarow plays" not in out
    boards = [row for row in out.splitlines() if row.startswith("4 ")]
    assert boards == ["4 . . . . .", "4 . . . X .", "4 . . . . .", "4 . . . X .", "4 . . . . ."]


def test_play_undo_after_a_whole_turn_takes_back_the_reply_too(capsys, monkeypatch):
    # 4x4k4p2q1: you (Black) place one stone, kinarow (White) replies with two; undo takes back all three
    feed(monkeypatch, ["d4", "undo", "quit"])
    code, out, _ = run(capsys, "play", "4x4k4p2q1")
    assert code == 0
    assert "Took back your last turn (d4) and the reply (" in out
    boards = [row for row in out.splitlines() if row.startswith("4 ")]
    assert boards[-1] == "4 . . . ."


def test_solve_where_no_line_fits_says_why(capsys):
    code, out, _ = run(capsys, "solve", "3x3k9")
    assert code == 0
    assert out.splitlines()[0] == "Draw with perfect play: no line of 9 cells fits on this 3x3 board."
    code, out, _ = run(capsys, "solve", "3x3k9", "--json", "--no-store")
    assert json.loads(out)["note"] == "no line of 9 cells fits on this 3x3 board"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["solve", "3x3k3", "--max-nodes", str(10**26)], "--max-nodes = '100000000000000000000000000' is too large"),
        (["solve", "3x3k3", "--max-nodes", "9" * 5000], "the most allowed is 10**18"),
        (["solve", "3x3k3", "--max-nodes", "\u0661\u0660"], "--max-nodes must be a positive whole number"),
        (["solve", "3x3k3", "--max-nodes", "1_000"], "--max-nodes must be a positive whole number"),
        (["solve", "3x3k3", "--time-limit", "nan"], "--time-limit must be a positive number"),
        (["solve", "3x3k3", "--time-limit", "1e999"], "--time-limit must be a positive number"),
        (["solve", "3x3k3", "--tt-mb", "\uff14"], "--tt-mb must be a positive number"),
        (["solve", "3x3k3p99999999999999999999"], "P (stones a turn) = a 20-digit number"),
        (["solve", "\uff13x\uff13k\uff13"], "is not a board size"),
        (["show", "6x6k4p2q1", "--moves", "1. c4 ... d3 2. e5"], "White still places 1 stone in turn 1"),
        (["show", "3x3k3", "--moves", "1. b2 2. a1"], "it is White's turn 1"),
        (["show", "3x3k3", "--moves", "..."], "'...' opens White's turn"),
        (["show", "3x3k3", "--moves", "a" + "9" * 5000], "is off the board"),
    ],
)
def test_bad_numbers_and_notation_are_one_line_exit_2(capsys, argv, said):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("kinarow: error: ") and err.count("\n") == 1
    assert said in err and len(err) < 300


# -- check -----------------------------------------------------------------------------
@pytest.fixture
def certificate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "4x3k3.json"
    code, out, _ = run(capsys, "solve", "4x3k3", "--strategy", str(path))
    assert code == 0
    assert f"written to {path}" in out
    return path


def test_check_accepts_a_solver_certificate(capsys, certificate):
    code, out, _ = run(capsys, "check", str(certificate))
    assert code == 0
    assert out.startswith("VALID: in 4x3k3, the first player (Black) wins against every reply")


def test_check_rejects_a_tampered_certificate(capsys, certificate):
    data = json.loads(certificate.read_text())
    start = "." * 12
    data["choices"][start] = "a1"  # the tree does not cover the positions after a corner opening
    certificate.write_text(json.dumps(data))
    code, out, _ = run(capsys, "check", str(certificate))
    assert code == 1
    assert out.startswith("REJECTED: ")
    assert out.count("\n") == 1


def test_check_rejects_a_missing_move(capsys, certificate):
    data = json.loads(certificate.read_text())
    del data["choices"]["." * 12]
    certificate.write_text(json.dumps(data))
    code, out, _ = run(capsys, "check", str(certificate))
    assert code == 1
    assert "no move is given after (start)" in out


@pytest.mark.parametrize("tamper", ["none", "corner opening", "missing start"])
def test_check_compiled_says_what_the_python_walk_says(capsys, certificate, tamper):
    data = json.loads(certificate.read_text())
    if tamper == "corner opening":
        data["choices"]["." * 12] = "a1"
    elif tamper == "missing start":
        del data["choices"]["." * 12]
    certificate.write_text(json.dumps(data))
    walked = run(capsys, "check", str(certificate))
    compiled = run(capsys, "check", str(certificate), "--compiled")
    assert compiled == walked
    assert compiled[0] == (0 if tamper == "none" else 1)


def test_check_compiled_leaves_other_formats_to_their_checker(capsys, tmp_path):
    path = tmp_path / "p.json"
    assert run(capsys, "pairing", "5x5k5", "--proof", str(path))[0] == 0
    assert run(capsys, "check", str(path), "--compiled") == run(capsys, "check", str(path))


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"format": "kinarow.strategy", "version": 1}', "\xff"])
def test_check_unusable_files_exit_1(capsys, tmp_path, text):
    path = tmp_path / "bad.json"
    path.write_bytes(text.encode("latin-1"))
    code, out, err = run(capsys, "check", str(path))
    assert code == 1
    assert out == ""
    assert err.startswith("kinarow: error: ")
    assert err.count("\n") == 1


def test_check_missing_file_exit_1(capsys, tmp_path):
    code, _, err = run(capsys, "check", str(tmp_path / "absent.json"))
    assert code == 1
    assert "cannot read" in err


def test_strategy_for_a_draw_is_not_written(capsys, tmp_path):
    path = tmp_path / "draw.json"
    code, out, _ = run(capsys, "solve", "3x3k3", "--strategy", str(path))
    assert code == 0
    assert "No strategy written" in out
    assert "draw" in out
    assert not path.exists()


def test_strategy_with_json_keeps_stdout_one_object(capsys, tmp_path):
    path = tmp_path / "win.json"
    code, out, _ = run(capsys, "solve", "4x3k3", "--json", "--strategy", str(path))
    assert code == 0
    data = json.loads(out)
    assert data["strategy_file"] == str(path)
    assert data["strategy_positions"] > 0
    assert json.loads(path.read_text())["winner"] == "first"


# -- the installed script ----------------------------------------------------------------
def test_installed_script_end_to_end():
    script = shutil.which("kinarow") or str(Path(sys.executable).with_name("kinarow"))
    if not Path(script).exists():
        pytest.skip("the kinarow script is not installed in this environment")
    done = subprocess.run([script, "solve", "3x3k3", "--tt-mb", "8"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "Draw with perfect play."
    assert done.stderr == ""


def test_play_unsolved_game_answers_within_its_think_time(capsys, monkeypatch):
    # 7x6 Connect Four is far beyond a fraction of a second: the engine still answers, with a safe guess.
    monkeypatch.setenv("KINAROW_BOOK", "off")  # the opening book would answer at once
    feed(monkeypatch, ["d", "quit"])
    code, out, _ = run(capsys, "play", "7x6k4:gravity", "--think", "0.3")
    assert code == 0
    assert "not solved within 0.3 s" in out
    assert "kinarow plays column " in out


@pytest.mark.parametrize("think", ["0", "-1", "soon"])
def test_play_bad_think_time_is_one_line_exit_2(capsys, think):
    code, _, err = run(capsys, "play", "3x3k3", "--think", think)
    assert code == 2
    assert err.startswith("kinarow: error: ")
    assert err.count("\n") == 1


def test_a_closed_pipe_ends_quietly() -> None:
    # 'kinarow solve ... | head -1' must not print a traceback when head closes the pipe
    command = [sys.executable, "-m", "kinarow", "solve", "3x3k3", "--no-store"]
    shell = f"{' '.join(command)} | head -1"
    done = subprocess.run(shell, shell=True, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "Draw with perfect play."
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr


def test_a_dropped_interrupt_is_not_printed_as_a_traceback(capsys):
    """Ctrl-C raised inside a callback Python can only drop (a weakref callback, say) is remembered, not printed;
    any other dropped exception is still reported."""
    from kinarow import errors

    def dropped(exc: BaseException):
        """What Python hands sys.unraisablehook when a finaliser raises ``exc``."""
        seen = []

        class Boom:
            def __del__(self):
                raise exc

        hook, sys.unraisablehook = sys.unraisablehook, seen.append
        try:
            Boom()  # dropped at once: its finaliser runs and its exception is unraisable
        finally:
            sys.unraisablehook = hook
        return seen[0]

    errors.clear_interrupt()
    with pytest.raises(KeyboardInterrupt):
        errors.note_interrupt(2, None)  # as Ctrl-C does: noted, then raised
    errors.quiet_dropped_interrupt(dropped(KeyboardInterrupt()))
    assert capsys.readouterr().err == ""
    errors.quiet_dropped_interrupt(dropped(ValueError("something else")))
    assert "ValueError: something else" in capsys.readouterr().err
    errors.clear_interrupt()
    errors.quiet_dropped_interrupt(dropped(KeyboardInterrupt()))  # no Ctrl-C was noted: report it
    assert "KeyboardInterrupt" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["torus", "hex7", "--class", "\u0663", "--no-graph"], "--class must be a class number"),
        (["torus", "hex7", "--class", "9" * 5000, "--no-graph"], "--class must be a class number"),
        (["tiling", "search", "--k", "8", "--shape", "\uff13x4"], "--shape must be ROWSxWIDTH"),
        (["tiling", "search", "--k", "8", "--shape", "3x" + "9" * 5000], "--shape must be ROWSxWIDTH"),
        (["tiling", "search", "--k", "\u0668"], "--k must be a positive whole number"),
        (["serve", "--port", "\uff18\uff10"], "--port must be a port number"),
        (["serve", "--port", "9" * 5000], "--port must be a port number"),
        (["serve", "--threads", "0"], "--threads must be"),
        (["serve", "--threads", "65"], "the most allowed is 64"),
        (["play", "7x6k4:gravity", "--threads", "two"], "--threads must be"),
    ],
)
def test_other_numbers_on_the_command_line_are_ascii_and_bounded(capsys, argv, said):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert said in err and "Traceback" not in err
    assert all(len(line) < 300 for line in err.splitlines())
