"""Per-move analysis: ``analyse()`` (the search layer), ``kinarow analyse`` (text, JSON, SVG heat map) and the
``hint`` command of ``kinarow play``."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from helpers import feed, run
from kinarow import Game, Searcher, solve
from kinarow.errors import KinarowError
from kinarow.search.analyse import Analysis, analyse
from kinarow.values import Player, Value

SVG = "{http://www.w3.org/2000/svg}"


# -- the API -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "moves"),
    [
        ("4x4k3", ""),
        ("4x4k3:gravity", "b c"),
        ("3x3k3:misere", "b2"),
        ("4x3k3:maker-breaker", "b2 a1"),
        ("4x3k3p2q1", "b2"),
    ],
)
def test_each_move_agrees_with_a_strong_solve_of_its_child(spec: str, moves: str) -> None:
    position = Game(spec).position(moves)
    found = analyse(position)
    assert [m.cell for m in found.moves_list] == position.legal_moves()
    for m in found.moves_list:
        child = position.copy()
        child.play(m.cell)
        result = solve(child, strong=True)
        assert (m.value, m.last_move) == (result.value, result.last_move), m.move
        assert m.outcome == (
            "draw" if m.value == Value.DRAW else "win" if m.value.stone == position.to_move else "loss"
        )
    whole = solve(position, strong=True)
    assert (found.value, found.last_move) == (whole.value, whole.last_move)
    assert found.describe() == whole.describe()
    assert found.best and all(m.value == found.value and m.last_move == found.last_move for m in found.best)


def test_labels_and_best_moves() -> None:
    found = analyse("4x4k3:gravity")
    assert [m.label for m in found.moves_list] == ["W15", "W9", "W9", "W15"]
    assert [m.move for m in found.best] == ["b1", "c1"]
    assert found.to_move == Player.FIRST
    data = found.to_dict()
    assert data["value"] == "first" and data["last_move"] == 9 and data["best_moves"] == ["b1", "c1"]
    assert data["analysis"][0] == {"move": "a1", "column": "a", "value": "first", "outcome": "win", "last_move": 15}


def test_a_move_that_ends_the_game_has_its_own_number() -> None:
    found = analyse("3x3k3", moves="a1 b1 a2 b2")  # a3 wins at once, on move 5
    assert {m.move: m.label for m in found.moves_list}["a3"] == "W5"
    assert [m.move for m in found.best] == ["a3"]


def test_a_time_limit_leaves_moves_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KINAROW_BOOK", "off")  # the opening book would answer at once
    found = analyse("7x6k4:gravity", time_limit=0.2)
    assert found.stopped == "time limit"
    assert found.value == Value.UNKNOWN and found.best == [] and not found.complete
    assert any(m.outcome == "unknown" and m.label == "?" for m in found.moves_list)
    assert found.describe().startswith("Unknown: the analysis stopped (time limit)")
    assert found.to_dict()["stopped"] == "time limit"


@pytest.mark.parametrize("spec", ["5x4k4:gravity", "4x4k3"])
def test_a_node_budget_bounds_each_move_and_ticks_report_the_total(spec: str) -> None:
    ticks: list[int] = []
    cut = analyse(spec, max_nodes=20, on_tick=ticks.append)
    assert cut.stopped == "node limit" and not cut.complete
    assert cut.moves_list[-1].outcome == "unknown"  # the moves after the one that ran out are not searched
    assert ticks == sorted(ticks)  # a running total, never going back
    whole = analyse(spec, max_nodes=10**7)
    assert whole.stopped is None and whole.complete
    assert [m.label for m in whole.moves_list] == [m.label for m in analyse(spec).moves_list]


def test_one_searcher_serves_every_move() -> None:
    searcher = Searcher("4x4k3")
    assert analyse("4x4k3", searcher=searcher).last_move == 5
    with pytest.raises(KinarowError, match="bound to 4x4k3"):
        analyse("3x3k3", searcher=searcher)


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (
            lambda: analyse("3x3k3", moves="a1 b1 a2 b2 a3"),
            "the game is over after 1. a1 ... b1 2. a2 ... b2 3. a3 "
            "(won by the first player (Black)); there is no move",
        ),
        (lambda: analyse("3x3k3", moves="z9"), "off the board"),
        (lambda: analyse("3x3kk"), "not a board size"),
        (lambda: analyse(3), "analyse() takes a game or a position, not 3"),
        (lambda: analyse("3x3k3", time_limit=-1), "time_limit = -1 is not allowed"),
        (lambda: analyse("9x9k5"), "at most 64 cells"),
    ],
)
def test_bad_input_is_one_sentence(call, said: str) -> None:
    with pytest.raises(KinarowError, match=None) as caught:
        call()
    assert said in str(caught.value)
    assert "\n" not in str(caught.value)


# -- the command line ------------------------------------------------------------------------------------------
def test_cli_text_of_a_free_board(capsys) -> None:
    code, out, _ = run(capsys, "analyse", "4x4k3")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "First player (Black) wins on move 5 with perfect play."
    assert "best moves: b2, b3, c2, c3" in lines
    assert lines[-5:] == [
        "4 W11 W7  W7  W11",
        "3 W7  W5  W5  W7",
        "2 W7  W5  W5  W7",
        "1 W11 W7  W7  W11",
        "  a   b   c   d",
    ]


def test_cli_text_under_gravity_puts_the_marks_over_the_columns(capsys) -> None:
    code, out, _ = run(capsys, "analyse", "4x4k3:gravity", "--moves", "b c")
    assert code == 0
    lines = out.splitlines()
    assert "best move: b" in lines
    assert lines[-7:] == [
        "Each move of Black (X): Wn wins on move n, D draws, Ln loses on move n.",
        "  L8  W9  W11 L14",
        "4 .   .   .   .",
        "3 .   .   .   .",
        "2 .   .   .   .",
        "1 .   X   O   .",
        "  a   b   c   d",
    ]


def test_cli_json(capsys) -> None:
    code, out, _ = run(capsys, "analyse", "5x4k4:gravity", "--moves", "c", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["value"] == "draw" and data["last_move"] is None and data["to_move"] == "second"
    assert [row["column"] for row in data["analysis"]] == ["a", "b", "c", "d", "e"]
    assert set(data) >= {"game", "moves", "best_moves", "nodes", "seconds"}


@pytest.mark.parametrize(("spec", "moves"), [("4x4k3", "b2"), ("5x4k4:gravity", "c c"), ("4x4k3:hex", "b2")])
def test_cli_svg_heat_map_is_well_formed(capsys, tmp_path, spec: str, moves: str) -> None:
    path = tmp_path / "heat.svg"
    code, out, _ = run(capsys, "analyse", spec, "--moves", moves, "--svg", str(path))
    assert code == 0
    assert f"Picture written to {path}." in out
    root = ET.fromstring(path.read_text())
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert any(t and t.startswith("Wn:") for t in texts)  # the legend
    found = analyse(spec, moves=moves)
    for m in found.moves_list:
        assert m.label in texts
    badges = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "badge"]
    assert len(badges) == (Game(spec).m if Game(spec).gravity else 0)


def test_cli_svg_with_json_says_where_the_picture_went_on_stderr(capsys, tmp_path) -> None:
    path = tmp_path / "heat.svg"
    code, out, err = run(capsys, "analyse", "4x3k3", "--json", "--svg", str(path))
    assert code == 0
    json.loads(out)
    assert "Picture written" in err and path.is_file()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["analyse", "3x3kk"], "is not a board size"),
        (["analyse", "3x3k3", "--moves", "a1 a1"], "a1 is occupied"),
        (["analyse", "3x3k3", "--moves", "a1 b1 a2 b2 a3"], "there is no move to analyse"),
        (["analyse", "3x3k3", "--time-limit", "soon"], "--time-limit must be a positive number"),
        (["analyse", "3x3k3", "--max-nodes", "0"], "--max-nodes must be a positive whole number"),
        (["analyse", "3x3k3", "--svg", "/nonexistent-folder/x.svg"], "does not exist"),
        (["analyse", "9x9k5"], "at most 64 cells"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(capsys, argv: list[str], said: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("kinarow: error: ") and said in err and err.count("\n") == 1


def test_solve_strong_cli(capsys) -> None:
    code, out, _ = run(capsys, "solve", "4x4k3:gravity", "--strong", "--no-store")
    assert code == 0
    assert out.splitlines()[0] == "First player (Black) wins on move 9 with perfect play."
    code, out, _ = run(capsys, "solve", "4x4k3:gravity", "--strong", "--json", "--no-store")
    assert json.loads(out)["last_move"] == 9
    code, out, _ = run(capsys, "solve", "4x4k3:gravity", "--json", "--no-store")
    assert "last_move" not in json.loads(out)
    code, _, err = run(capsys, "solve", "4x4k3:gravity", "--strong", "--workers", "2")
    assert code == 2 and "--strong solves in one process" in err


def test_solve_strong_with_the_results_store_uses_the_score_search(capsys, tmp_path) -> None:
    """With the results store on (the CLI's default), a strong solve of a Connect-k game is still the score search
    (it once went to the general search's length search: 7x6 from the empty board ran for many minutes), and
    its value is kept in the store."""
    store = str(tmp_path / "results.sqlite")
    code, out, _ = run(capsys, "solve", "7x6k4:gravity", "--strong", "--json", "--store", store,
                       "--max-nodes", "1000000")
    data = json.loads(out)
    # (at once from the shipped opening book, which the search field names)
    assert code == 0 and data["last_move"] == 41 and data["nodes"] == 0 and data["search"] == "opening book"
    code, out, _ = run(capsys, "solve", "5x4k4:gravity", "--strong", "--json", "--store", store)
    assert code == 0 and json.loads(out)["search"] == "score search"
    code, out, _ = run(capsys, "solve", "5x4k4:gravity", "--json", "--store", store)
    assert code == 0 and json.loads(out)["from_store"] and json.loads(out)["value"] == "draw"


# -- play's hint -------------------------------------------------------------------------------------------------
def test_play_hint_shows_the_analysis(capsys, monkeypatch) -> None:
    feed(monkeypatch, ["hint", "quit"])
    code, out, _ = run(capsys, "play", "4x4k3:gravity")
    assert code == 0
    assert "First player (Black) wins on move 9 with perfect play." in out
    assert "best moves: b, c" in out
    assert "  W15 W9  W9  W15" in out.splitlines()


def test_play_hint_against_a_strategy_and_where_the_solver_cannot_go(capsys, monkeypatch) -> None:
    feed(monkeypatch, ["hint", "quit"])
    code, out, _ = run(capsys, "play", "4x2k3:gravity,misere", "--engine", "take-even")
    assert code == 0
    assert "Second player (White) wins on move 7 with perfect play." in out
    feed(monkeypatch, ["hint", "quit"])
    code, out, _ = run(capsys, "play", "13x10k4:gravity,misere", "--engine", "take-even", "--think", "0.1")
    assert code == 0
    assert "No hint: 13x10k4:gravity,misere has 130 cells" in out


def test_analysis_type_is_exported() -> None:
    assert Analysis.__module__ == "kinarow.search.analyse"
