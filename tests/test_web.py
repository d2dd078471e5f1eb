"""The local web page: the JSON API, HTTP errors, and the page itself in a real headless Chromium."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import child, ctrl_c
from kinarow.cli import main
from kinarow.game import Game
from kinarow.web.server import App, RequestError, make_server


@pytest.fixture(scope="module")
def app() -> App:
    return App(think=2.0)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    srv = make_server("127.0.0.1", 0, think=2.0)
    thread = srv.start()
    yield f"http://127.0.0.1:{srv.port}"
    srv.stop()
    thread.join(30)


def post(base: str, path: str, body: bytes | dict | None, method: str = "POST") -> tuple[int, dict]:
    data = body if isinstance(body, bytes) else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


# -- the API without HTTP ----------------------------------------------------------------
def test_state_play_and_engine(app):
    view = app.handle("/api/state", {"game": "3x3k3", "moves": []})
    assert view["to_move"] == 1 and len(view["legal"]) == 9 and view["svg"].startswith("<svg")
    assert 'data-cell="b2"' in view["svg"]
    view = app.handle("/api/play", {"game": "3x3k3", "moves": [], "move": "b2"})
    assert view["moves"] == ["b2"] and view["to_move"] == 2
    view = app.handle("/api/engine", {"game": "3x3k3", "moves": ["b2"], "engine": "solver"})
    assert len(view["moves"]) == 2
    assert view["moves"][1] in ("a1", "a3", "c1", "c3")  # only a corner reply draws
    assert "expects a draw" in view["engine"]["sentence"]


def test_engine_plays_a_whole_turn_under_p_q(app):
    view = app.handle("/api/engine", {"game": "5x5k4p2q1", "moves": ["c3"]})
    assert len(view["moves"]) == 3  # White places two stones
    assert view["players"] == [1, 2, 2]


def test_gravity_moves_by_column(app):
    view = app.handle("/api/play", {"game": "4x4k3:gravity", "moves": ["b"], "move": "b"})
    assert view["moves"] == ["b1", "b2"]


def test_pairing_engine_answers_with_the_partner(app):
    found = app.handle("/api/pairing", {"game": "5x5k5", "moves": []})
    assert found["pairing"]["exists"] is True
    pairs = found["pairing"]["pairs"]
    a, b = pairs[0]
    view = app.handle("/api/engine", {"game": "5x5k5", "moves": [a], "engine": "pairing", "pairs": pairs})
    assert view["moves"] == [a, b]


def test_a_missing_pairing_names_the_command_that_certifies_it(app, tmp_path):
    """The page says "no good pairing" without sending the proof; the command it names writes a certificate
    that the rules-only checker accepts."""
    import shlex

    from kinarow.cli import main
    from kinarow.proofs import check_data

    found = app.handle("/api/pairing", {"game": "6x5k5", "moves": ["c3"]})
    assert found["pairing"]["exists"] is False
    said = found["pairing"]["message"]
    assert said.startswith("No good pairing exists here") and "kinarow check FILE" in said
    command = shlex.split(said.split("'kinarow ")[1].split("'")[0])
    assert command[:2] == ["pairing", "6x5k5"] and command[-1] == "FILE", said
    path = tmp_path / "none.json"
    assert main([*command[:-1], str(path)]) == 0
    assert check_data(json.loads(path.read_text())).ok


def test_certificate_engine_follows_the_strategy(app):
    proof = app.handle("/api/proof", {"game": "4x3k3", "moves": []})["proof"]
    assert proof["value"] == "first" and proof["certificate"]["format"] == "kinarow.strategy"
    view = app.handle("/api/engine", {"game": "4x3k3", "moves": [], "engine": "certificate",
                                      "strategy": proof["certificate"]})
    assert view["moves"] == [proof["certificate"]["choices"]["." * 12]]


def test_matching_set_is_drawn_and_its_certificate_checks(app):
    from kinarow.proofs import check_data

    view = app.handle("/api/matching", {"game": "4x4k4", "moves": []})
    found = view["matching"]
    assert found["exists"] is True and "the first player cannot win" in found["message"]
    assert len(found["markers"]) == 16 and len(found["groups"]) == 10  # every line of 4x4k4 is live
    assert "a matching set for Black" in view["svg"] and view["svg"].count("<line") >= len(found["groups"])
    assert check_data(found["certificate"]).ok
    none = app.handle("/api/matching", {"game": "3x3k3", "moves": []})["matching"]
    assert none["exists"] is False and none["certificate"] is None
    assert none["message"].startswith("No matching set") and "Maker wins" in none["message"]
    # a search too big for a page request stops at its node budget and says so, rather than hang
    big = app.handle("/api/matching", {"game": "5x5k4", "moves": ["c3"]})["matching"]
    assert big["exists"] is False and "ran out of budget" in big["message"] and "million nodes" in big["message"]


def test_proven_strategy_engine_plays_its_rule(app):
    view = app.handle("/api/engine", {"game": "4x2k3:gravity,misere", "moves": ["b"], "engine": "strategy:take-even"})
    assert view["moves"] == ["b1", "b2"]
    assert view["engine"]["sentence"] == "White (engine) plays b2; by take-even: directly on top of b1."
    rule = app.handle("/api/strategy", {"game": "7x6k4:gravity,misere", "strategy": "take-even"})
    assert rule["player"] == 2 and rule["player_name"] == "White"
    # delayed-take-even opens as the first player on an odd width, by its pair rule
    view = app.handle("/api/engine", {"game": "5x3k3:gravity,misere", "moves": [],
                                      "engine": "strategy:delayed-take-even"})
    assert len(view["moves"]) == 1 and "pair rule" in view["engine"]["sentence"]
    names = [s["name"] for s in app.info()["strategies"]]
    assert names[0] == "take-even" and "delayed-tally" in names


def test_take_even_wins_misere_connect_four_rows(app):
    """Against a first player who always takes the leftmost free column, take-even wins: Black makes three."""
    moves: list[str] = []
    game = "4x2k3:gravity,misere"
    view = app.handle("/api/state", {"game": game, "moves": moves})
    while not view["over"]:
        view = app.handle("/api/play", {"game": game, "moves": view["moves"], "move": view["legal"][0]})
        if not view["over"]:
            view = app.handle("/api/engine", {"game": game, "moves": view["moves"], "engine": "strategy:take-even"})
    assert view["moves"] == ["a1", "a2", "b1", "b2", "c1"] and view["message"] == "Game over: White wins."


def test_the_line_that_ended_the_game_is_marked(app):
    from kinarow.web.server import LINE

    view = app.handle("/api/play", {"game": "7x6k4:gravity", "moves": list("dedede"), "move": "d"})
    assert view["over"] and view["message"] == "Game over: Black wins."
    assert view["lines"] == [["d1", "d2", "d3", "d4"]]
    assert view["svg"].count(f'fill="{LINE}"') == 4 and view["svg"].count("<line") == 1  # filled, and a line through
    two = app.handle("/api/play", {"game": "5x5k3", "moves": "a1 e5 c1 e3 a3 d5 c3 d3", "move": "b2"})
    assert two["lines"] == [["a1", "b2", "c3"], ["a3", "b2", "c1"]]
    for moves in ("a1", "a3 b3 c3 b2 a2 c2 b1 a1 c1"):  # the game goes on; a draw
        view = app.handle("/api/state", {"game": "3x3k3", "moves": moves})
        assert view["lines"] == [] and LINE not in view["svg"]


@pytest.fixture(scope="module")
def patient() -> App:
    """An app whose think time (ten minutes) no analysis below comes near: no test here waits on the clock."""
    return App(think=600.0)


def test_analyse_gives_every_column_its_value_and_length(patient):
    from kinarow.svg import HEAT_COLOURS

    view = patient.handle("/api/analyse", {"game": "5x4k4:gravity", "moves": ["c", "c"]})
    found = view["analysis"]
    assert {m["move"]: m["label"] for m in found["moves"]} == {"a": "L20", "b": "L20", "c": "D", "d": "L20", "e": "L20"}
    assert [m["cell"] for m in found["moves"]] == ["a1", "b1", "c3", "d1", "e1"]  # where each stone lands
    assert found["describe"] == found["sentence"] == "Draw with perfect play."
    assert found["best_moves"] == ["c"] and found["value"] == "draw" and found["stopped"] is None
    assert view["moves"] == ["c1", "c2"] and view["to_move"] == 1  # the position itself, as /api/state gives it
    assert view["svg"].count('class="badge"') == 5 and view["svg"].count(">L20</text>") == 4  # over each column
    assert found["legend"] == [[HEAT_COLOURS["win"], "Wn: Black wins on move n"], [HEAT_COLOURS["draw"], "D: a draw"],
                               [HEAT_COLOURS["loss"], "Ln: Black loses on move n"]]


def test_analyse_labels_the_empty_cells_of_a_free_board(patient):
    found = patient.handle("/api/analyse", {"game": "4x3k3", "moves": []})
    analysis = found["analysis"]
    labels = {m["move"]: m["label"] for m in analysis["moves"]}
    assert labels == {"a1": "W9", "a2": "L10", "a3": "W9", "b1": "W7", "b2": "W7", "b3": "W7", "c1": "W7", "c2": "W7",
                      "c3": "W7", "d1": "W9", "d2": "L10", "d3": "W9"}
    assert analysis["describe"] == "First player (Black) wins on move 7 with perfect play."
    assert analysis["best_moves"] == ["b1", "b2", "b3", "c1", "c2", "c3"] and analysis["last_move"] == 7
    assert found["svg"].count(">W7</text>") == 6 and 'class="badge"' not in found["svg"]  # in the cells


def test_moves_not_solved_within_the_think_time_show_a_question_mark():
    # Connect Four on 8 x 7 after four stones in column d: no opening book is shipped for it, and no move there
    # is settled by a quick threat
    found = App(think=0.001).handle("/api/analyse", {"game": "8x7k4:gravity", "moves": ["d", "d", "d", "d"]})
    found = found["analysis"]
    assert found["stopped"] == "time limit" and [m["label"] for m in found["moves"]] == ["?"] * 8
    assert found["sentence"].startswith("Unknown: the analysis stopped (time limit)")
    assert found["sentence"].endswith("0 of 8 moves were solved within the think time (0.001 s); the others show ?.")
    assert found["legend"][-1][1] == "?: not solved in time"


def test_check_draws_the_certificate(app):
    proof = app.handle("/api/proof", {"game": "4x3k3", "moves": ["b2", "a1"]})["proof"]
    answer = app.handle("/api/check", {"certificate": proof["certificate"]})
    assert answer["verdict"]["ok"] is True
    assert answer["moves"] == ["b2", "a1"] and "★" in answer["svg"]
    broken = dict(proof["certificate"], version=99)
    answer = app.handle("/api/check", {"certificate": broken})
    assert answer["verdict"]["ok"] is False and "version" in answer["verdict"]["reason"]
    # a gravity draw: its proof is both players' non-losing walks, and the page checks it
    proof = app.handle("/api/proof", {"game": "4x4k4:gravity", "moves": []})["proof"]
    assert proof["value"] == "draw" and proof["certificate"]["format"] == "kinarow.draw"
    answer = app.handle("/api/check", {"certificate": proof["certificate"]})
    assert answer["verdict"]["ok"] is True and answer["verdict"]["reason"].endswith("draw")


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/api/state", {"moves": []}, 400),
        ("/api/state", {"game": "3x3k"}, 400),
        ("/api/state", {"game": "3x3k3", "moves": "b2 b2"}, 400),
        ("/api/state", {"game": "3x3k3", "moves": [1, 2]}, 400),
        ("/api/play", {"game": "3x3k3", "moves": []}, 400),
        ("/api/play", {"game": "3x3k3", "moves": [], "move": "z9"}, 400),
        ("/api/engine", {"game": "3x3k3", "moves": ["b2", "a1", "c1", "a3", "a2", "c3", "b3", "b1", "c2"]}, 400),
        ("/api/engine", {"game": "3x3k3", "moves": [], "engine": "oracle"}, 400),
        ("/api/engine", {"game": "3x3k3", "moves": ["b2"], "engine": "pairing"}, 400),
        ("/api/engine", {"game": "3x3k3", "moves": [], "engine": "certificate", "strategy": {}}, 400),
        ("/api/pairing", {"game": "4x4k3:gravity", "moves": []}, 400),
        ("/api/matching", {"game": "4x4k3:gravity", "moves": []}, 400),
        ("/api/matching", {"game": "4x4k4:misere", "moves": []}, 400),
        ("/api/matching", {"game": "5x5k4p2q1", "moves": []}, 400),
        ("/api/matching", {"game": "3x3k3", "moves": ["a1", "b1", "a2", "b2", "a3"]}, 400),
        ("/api/engine", {"game": "4x2k3:gravity,misere", "moves": [], "engine": "strategy:take-even"}, 400),
        ("/api/engine", {"game": "4x3k3:gravity,misere", "moves": ["a"], "engine": "strategy:take-even"}, 400),
        ("/api/engine", {"game": "3x3k3", "moves": ["a1"], "engine": "strategy:take-even"}, 400),
        ("/api/engine", {"game": "4x2k3:gravity,misere", "moves": ["a"], "engine": "strategy:best"}, 400),
        ("/api/strategy", {"game": "4x2k3:gravity,misere"}, 400),
        ("/api/strategy", {"game": "4x2k3:gravity,misere", "strategy": "tally"}, 400),
        ("/api/engine", {"game": "9x9k5", "moves": []}, 400),
        ("/api/analyse", {"moves": []}, 400),
        ("/api/analyse", {"game": "3x3k", "moves": []}, 400),
        ("/api/analyse", {"game": "3x3k3", "moves": ["z9"]}, 400),
        ("/api/analyse", {"game": "3x3k3", "moves": "a1 b1 a2 b2 a3"}, 400),
        ("/api/analyse", {"game": "9x9k5", "moves": []}, 400),
        ("/api/nothing", {}, 404),
        ("/api/state", [1, 2], 400),
    ],
)
def test_bad_requests_get_4xx_with_one_sentence(app, path, body, status):
    with pytest.raises(Exception) as caught:
        app.handle(path, body)
    error = caught.value
    assert getattr(error, "status", 400) == status
    assert isinstance(error, (RequestError, ValueError))
    assert "\n" not in str(error)


# -- over HTTP ---------------------------------------------------------------------------
def test_http_page_info_and_errors(server):
    with urllib.request.urlopen(server + "/", timeout=30) as response:
        page = response.read().decode()
    assert response.headers["Content-Type"].startswith("text/html")
    assert '<div id="board">' in page
    with urllib.request.urlopen(server + "/api/info", timeout=30) as response:
        assert json.loads(response.read())["examples"]
    assert post(server, "/api/state", b"{not json")[0] == 400
    assert post(server, "/api/state", {"game": "3x3k3", "moves": ["q"]})[0] == 400
    assert post(server, "/api/nothing", {})[0] == 404
    assert post(server, "/api/state", None, method="GET")[0] == 405
    assert post(server, "/api/state", {}, method="DELETE")[0] == 405
    try:
        urllib.request.urlopen(server + "/secret", timeout=30)
    except urllib.error.HTTPError as error:
        assert error.code == 404
    status, view = post(server, "/api/play", {"game": "3x3k3", "moves": [], "move": "a1"})  # still serving
    assert status == 200 and view["moves"] == ["a1"]


def test_server_binds_to_this_machine_only():
    srv = make_server()
    try:
        assert srv.socket.getsockname()[0] == "127.0.0.1"
    finally:
        srv.socket.close()


def test_serve_rejects_a_bad_port(capsys):
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port must be a port number" in capsys.readouterr().err


# -- the server's checks and limits (in process, through Starlette's TestClient) ---------------------------
@pytest.fixture(scope="module")
def client(app):
    import warnings

    from kinarow.web.server import create_app

    with warnings.catch_warnings():  # Starlette 1.x would rather use httpx2 than httpx; either serves
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    with TestClient(create_app(app), base_url="http://127.0.0.1:8765") as test_client:
        yield test_client


JSON = {"Content-Type": "application/json"}


def _refused(response, status: int, *words: str) -> str:
    """The one-sentence JSON error of a refused request, checked for its status and words."""
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert isinstance(message, str) and "\n" not in message and "Traceback" not in message
    for word in words:
        assert word in message, message
    return message


def test_only_the_served_host_names_are_answered(client):
    """DNS rebinding: a page of evil.example whose name now points at 127.0.0.1 sends 'Host: evil.example'."""
    body = json.dumps({"game": "3x3k3"})
    for host in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765", "LOCALHOST"):
        assert client.post("/api/state", content=body, headers={**JSON, "Host": host}).status_code == 200, host
    for host in ("evil.example", "evil.example:8765", "127.0.0.1.evil.example", "localhost.evil.example"):
        response = client.post("/api/state", content=body, headers={**JSON, "Host": host})
        assert response.status_code == 400 and "host" in response.text.lower()
        assert client.get("/", headers={"Host": host}).status_code == 400


def test_allowed_hosts_follow_the_bound_address():
    from kinarow.web.server import allowed_hosts

    assert allowed_hosts("127.0.0.1") == ["127.0.0.1", "[::1]", "localhost"]
    assert "[fe80::1]" in allowed_hosts("fe80::1") and "192.168.1.5" in allowed_hosts("192.168.1.5")
    assert len(allowed_hosts("0.0.0.0")) > 3  # the machine's own name and addresses


def test_state_changing_requests_need_json_from_the_page_itself(client):
    body = json.dumps({"game": "3x3k3", "moves": [], "move": "b2"})
    # a form or a text/plain fetch from any page needs no CORS preflight: refused
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
        headers = {"Content-Type": kind} if kind else {}
        _refused(client.post("/api/play", content=body, headers=headers), 415, "application/json")
    # another page's Origin (or none at all, as a sandboxed page sends 'null'), even with JSON
    for origin in ("http://evil.example", "null", "http://127.0.0.1:9999", "https://127.0.0.1:8765",
                   "http://localhost:8765"):
        _refused(client.post("/api/play", content=body, headers={**JSON, "Origin": origin}), 403, "own page")
    # the page's own origin, and a script without a browser (no Origin), are served
    for headers in ({**JSON, "Origin": "http://127.0.0.1:8765"}, {"Content-Type": "application/json; charset=utf-8"}):
        response = client.post("/api/play", content=body, headers=headers)
        assert response.status_code == 200 and response.json()["moves"] == ["b2"]
    # a CORS preflight gets no permission
    preflight = client.options("/api/play", headers={"Origin": "http://evil.example",
                                                     "Access-Control-Request-Method": "POST"})
    assert preflight.status_code == 405 and "access-control-allow-origin" not in preflight.headers


def test_request_bodies_are_bounded_in_size_and_nesting(client):
    from kinarow.web.server import MAX_BODY, MAX_DEPTH, MAX_SMALL_BODY

    padding = " " * (MAX_SMALL_BODY + 1)
    _refused(client.post("/api/state", content='{"game": "3x3k3"}' + padding, headers=JSON), 413, "256 KiB")
    big = {**JSON, "Content-Length": str(MAX_BODY + 1)}
    _refused(client.post("/api/check", content=b"{}", headers=big), 413, "/api/check")

    def chunks():  # no Content-Length: counted as it arrives
        yield b'{"game": "3x3k3"'
        for _ in range(300):
            yield b" " * 1024
        yield b"}"

    _refused(client.post("/api/state", content=chunks(), headers=JSON), 413)
    for depth in (MAX_DEPTH + 1, 5000, 200_000):
        deep = "[" * depth + "]" * depth
        _refused(client.post("/api/check", content=deep, headers=JSON), 400, f"deeper than {MAX_DEPTH}")
    nested = {"certificate": {"format": "kinarow.pairing", "pairs": [[[[[[[["a1"]]]]]]]]}}
    assert client.post("/api/check", json=nested).status_code == 200  # under the limit: the checker's verdict
    _refused(client.post("/api/state", content=b"\xff\xfe", headers=JSON), 400, "UTF-8")
    _refused(client.post("/api/state", content=b"{not json", headers=JSON), 400, "not valid JSON")


@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        ("/api/state", {"game": "702x702k5"}, ("492804 cells", "at most 400")),
        ("/api/state", {"game": "3x3k3" + "9" * 5000}, ("characters",)),
        ("/api/state", {"game": "3x3k3", "moves": ["a" + "9" * 5000]}, ("the move", "characters")),
        ("/api/play", {"game": "3x3k3", "moves": [], "move": "9" * 5000}, ("the move",)),
        ("/api/engine", {"game": "5x5k5", "moves": ["a1"], "engine": "pairing", "pairs": [["a1", "b" + "1" * 5000]]},
         ("the cell",)),
        ("/api/engine", {"game": "3x3k3", "engine": "strategy:" + "x" * 5000}, ("the engine",)),
        ("/api/strategy", {"game": "3x3k3", "strategy": "x" * 5000}, ("the strategy",)),
        ("/api/engine", {"game": "3x3k700"}, ("more than the board's 9 cells",)),
        ("/api/engine", {"game": "3x3k99999999"}, ("out of range; allowed is 1 to 702",)),
        ("/api/pairing", {"game": "13x13k5"}, ("169 cells", "pairings")),
        ("/api/matching", {"game": "20x20k5"}, ("400 cells", "matching")),
        ("/api/engine", {"game": "9x9k5"}, ("81 cells", "64 cells")),
        ("/api/proof", {"game": "9x9k5"}, ("81 cells", "64 cells")),
        ("/api/analyse", {"game": "9x9k5"}, ("81 cells", "64 cells")),
        ("/api/analyse", {"game": "21x21k5"}, ("441 cells", "400 cells")),
        ("/api/analyse", {"game": "3x3k3", "moves": ["a1", "b1", "a2", "b2", "a3"]}, ("game is over", "take back")),
        ("/api/analyse", {"game": "7x6k4:gravity", "moves": ["d"] * 7}, ("column d is full",)),
        ("/api/state", {"game": "9x9k5", "engine": "solver"}, ("81 cells", "64 cells")),
        ("/api/state", {"game": "4x3k3:gravity,misere", "engine": "strategy:take-even"}, ("take-even",)),
        ("/api/state", {"game": "3x3k3", "engine": "oracle"}, ("unknown engine",)),
        ("/api/check", {"certificate": {"format": "kinarow.pairing", "game": "30x30k5", "pairs": []}},
         ("900 cells", "kinarow check")),
        ("/api/check", {"certificate": {"format": "kinarow.strategy", "version": 3, "game": "9x4k4", "walk": "eNo=",
                                        "prescribed": 10**10}}, ("10000000000 prescribed moves",)),
        ("/api/check", {"certificate": {"format": "kinarow.draw", "version": 1, "game": "7x4k4:gravity",
                                        "first_cannot_win": {"method": "non-losing-walk", "walk": "eNo=",
                                                             "prescribed": 10**10}}},
         ("10000000000 prescribed moves",)),
        ("/api/engine", {"game": "9x4k4", "engine": "certificate", "strategy": {
            "format": "kinarow.strategy", "version": 3, "game": "9x4k4", "walk": "eNo=", "prescribed": 10**10}},
         ("prescribed moves", "kinarow check")),
        ("/api/check", {"certificate": {"format": "kinarow.torus", "game": "4x4k4:torus",
                                        "class_file": "/dev/zero"}}, ("reads no files",)),
        ("/api/check", {"certificate": {"format": "kinarow.torus", "class_file": "../../etc/passwd"}},
         ("reads no files",)),
    ],
)
def test_requests_over_a_limit_get_a_4xx_sentence(client, path, body, words):
    _refused(client.post(path, json=body), 400, *words)


def test_analyse_over_http_answers_or_refuses_in_one_sentence(client):
    ok = client.post("/api/analyse", json={"game": "4x3k3", "moves": ["b2"]})
    assert ok.status_code == 200 and len(ok.json()["analysis"]["moves"]) == 11
    _refused(client.post("/api/analyse", json={"game": "3x3k3", "moves": "a1 b1 a2 b2 a3"}), 400, "game is over")
    _refused(client.post("/api/analyse", content=b"{", headers=JSON), 400, "not valid JSON")
    _refused(client.post("/api/analyse", json={"game": "3x3k3"}, headers={"Origin": "http://evil.example"}), 403)
    _refused(client.post("/api/analyse", content=b"{}", headers={"Content-Type": "text/plain"}), 415)
    _refused(client.get("/api/analyse"), 405, "POST")


def test_a_game_the_engine_can_play_is_accepted_up_front(client):
    for engine in ("solver", "pairing", "certificate", "none"):
        assert client.post("/api/state", json={"game": "7x6k4:gravity", "engine": engine}).status_code == 200
    ok = client.post("/api/state", json={"game": "7x6k4:gravity,misere", "engine": "strategy:take-even"})
    assert ok.status_code == 200 and "engine" not in ok.json()  # the answer is the position, as without "engine"


def test_the_engine_keeps_a_small_pool_of_searchers():
    """16 games at once once took 2.9 GiB (a table per game): now two searchers of at most 64 MiB each."""
    from kinarow.game import Game
    from kinarow.web.server import SearcherPool

    pool = SearcherPool(size=2, table_mb=64, wait=0.05)
    with pool.searcher(Game("8x8k5")) as big:
        assert big.tt.nbytes <= 64 * 2**20
        with pool.searcher(Game("3x3k3")):
            with pytest.raises(RequestError) as busy, pool.searcher(Game("4x3k3")):
                pass
            assert busy.value.status == 503 and "busy" in str(busy.value)
            assert len(pool) == 2
    with pool.searcher(Game("4x3k3")) as third:  # the least recently used idle searcher (8x8k5) made room
        assert len(pool) == 2
    with pool.searcher(Game("4x3k3")) as again:
        assert again is third  # reused: its table keeps what it learnt
    # many games from many threads: never more than two searchers at once
    seen: list[int] = []

    def ask(spec: str) -> None:
        with pool.searcher(Game(spec)):
            seen.append(len(pool))

    for spec in ("3x3k3", "4x3k3", "4x4k3", "5x3k3", "3x3k3"):
        ask(spec)
    pool = SearcherPool(size=2, wait=30)
    threads = [threading.Thread(target=lambda s=s: ask(s)) for s in ("3x3k3", "4x3k3", "4x4k3", "5x3k3", "5x4k3")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 10 and max(seen) <= 2


def test_the_engine_has_a_node_budget_besides_its_think_time(monkeypatch):
    import kinarow.web.server as web

    monkeypatch.setenv("KINAROW_BOOK", "off")  # the opening book would answer the empty 7x6 board at once

    app = App(think=3600.0)  # an hour: only the node budget can stop it
    budget = web.ENGINE_NODES
    web.ENGINE_NODES = 2000
    try:
        view = app.handle("/api/engine", {"game": "7x6k4:gravity", "moves": []})
    finally:
        web.ENGINE_NODES = budget
    assert "not solved within" in view["engine"]["note"] and len(view["moves"]) == 1


def test_a_stopping_server_ends_its_searches_with_a_sentence(monkeypatch):
    """Ctrl-C stops the server: a search still running ends at its next progress report (every 50 ms)."""
    monkeypatch.setenv("KINAROW_BOOK", "off")  # the opening book would answer after d without a search
    app = App(think=3600.0)
    app.stop()
    for path in ("/api/engine", "/api/proof", "/api/analyse"):
        with pytest.raises(RequestError) as stopped:
            app.handle(path, {"game": "7x6k4:gravity", "moves": ["d"]})
        assert stopped.value.status == 503 and "stopping" in str(stopped.value)


def test_busy_gates_answer_503_with_a_sentence():
    from kinarow.web.server import Gate

    gate = Gate(1, "certificate checks", wait=0.01)
    with gate.held(), pytest.raises(RequestError) as busy, gate.held():
        pass
    assert busy.value.status == 503 and str(busy.value) == ("the server is busy with other certificate checks; try "
                                                           "again in a moment")


def test_http_errors_the_server_itself_answers_are_json_sentences(server):
    """Malformed HTTP (a negative or garbage Content-Length) is refused by h11, answered with a JSON sentence."""
    import socket
    from urllib.parse import urlsplit

    address = urlsplit(server)
    for length in (b"-5", b"abc", b"1e3"):
        with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
            sock.sendall(b"POST /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Content-Length: " + length + b"\r\n\r\n{}")
            reply = b""
            while chunk := sock.recv(65536):
                reply += chunk
        head, _, body = reply.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400"), reply
        assert "not valid HTTP" in json.loads(body)["error"]


def test_an_idle_connection_is_closed():
    import socket

    srv = make_server("127.0.0.1", 0)
    srv.server.config.timeout_keep_alive = 0.2  # a short keep-alive for the test (the server's is 5 s)
    thread = srv.start()
    try:
        with socket.create_connection(("127.0.0.1", srv.port), timeout=30) as sock:
            assert sock.recv(1) == b""  # closed by the server, without a request ever sent
    finally:
        srv.stop()
        thread.join(30)


# -- in a real browser -------------------------------------------------------------------
def _chromium() -> tuple[str, str] | None:
    browser = next((shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None)
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    found = _chromium()
    if found is None and os.environ.get("CI") == "true":
        pytest.fail("CI must test the page in a browser, but chromium and chromedriver are missing (.ci/run installs "
                    "them with apt-get)")
    if found is None:
        pytest.skip("no chromium and chromedriver on this machine (CI installs them: apt-get install chromium "
                    "chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,900"):
        options.add_argument(argument)
    downloads = tmp_path_factory.mktemp("downloads")
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(found[1]), options=options)
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    driver.downloads = downloads
    yield driver
    driver.quit()


def _wait(driver, condition, seconds: float = 60.0):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds, poll_frequency=0.1).until(condition)


def _text(driver, element_id: str) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id).text


def test_browser_play_prove_download_and_check(browser, server, capsys, tmp_path):
    """A new user's evening: play 4x3k3 against a perfect player, download the proof, check it, open it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = browser
    driver.get(server + "/")
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#board [data-cell='b2']"))
    game = driver.find_element(By.ID, "game")
    game.clear()
    game.send_keys("4x3k3")
    Select(driver.find_element(By.ID, "side")).select_by_value("2")  # we play White; the solver opens
    driver.find_element(By.ID, "new").click()
    _wait(driver, lambda d: "Black (engine) plays" in _text(d, "engine-msg"))
    opening = driver.find_element(By.ID, "board").get_attribute("data-moves").split()
    assert len(opening) == 1
    # click an empty cell; the engine must answer
    empty = next(c for c in ("a1", "d3", "a3", "d1") if c not in opening)
    driver.find_element(By.CSS_SELECTOR, f"#board [data-cell='{empty}']").click()
    _wait(driver, lambda d: len(d.find_element(By.ID, "board").get_attribute("data-moves").split()) == 3)
    assert "Black (engine) plays" in _text(driver, "engine-msg")
    assert "expects to win" in _text(driver, "engine-msg")
    moves = driver.find_element(By.ID, "board").get_attribute("data-moves").split()
    assert moves[1] == empty
    # prove the value of the position and download the certificate
    driver.find_element(By.ID, "prove").click()
    _wait(driver, lambda d: "Certificate:" in _text(d, "proof-msg"))
    assert "First player (Black) wins" in _text(driver, "proof-msg")
    link = driver.find_element(By.ID, "download")
    name = link.get_attribute("download")
    link.click()
    target = Path(browser.downloads) / name
    deadline = time.time() + 30
    while not target.exists() and time.time() < deadline:
        time.sleep(0.1)
    assert target.exists(), "the browser did not download the certificate"
    certificate = target
    assert json.loads(certificate.read_text()) == json.loads(driver.execute_script("return window.kinarowProofText;"))
    assert main(["check", str(certificate)]) == 0
    assert capsys.readouterr().out.startswith(f"VALID: in 4x3k3 after {' '.join(moves)}, the first player")
    # open the certificate in the page: the checker's verdict and the drawing
    driver.find_element(By.ID, "cert-file").send_keys(str(certificate))
    _wait(driver, lambda d: _text(d, "verdict").startswith("VALID"))
    tampered = tmp_path / "tampered.json"
    data = json.loads(certificate.read_text())
    data["game"] = "4x3k3:misere"
    tampered.write_text(json.dumps(data))
    driver.find_element(By.ID, "cert-file").send_keys(str(tampered))
    _wait(driver, lambda d: _text(d, "verdict").startswith("REJECTED"))
    shot = os.environ.get("KINAROW_SCREENSHOT")
    if shot:
        driver.save_screenshot(shot)


def test_browser_pairing_overlay_and_errors(browser, server):
    from selenium.webdriver.common.by import By

    driver = browser
    driver.get(server + "/")
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#board [data-cell='b2']"))
    game = driver.find_element(By.ID, "game")
    game.clear()
    game.send_keys("5x5k5")
    driver.find_element(By.ID, "new").click()
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#board [data-cell='e5']"))
    driver.find_element(By.ID, "show-pairing").click()
    _wait(driver, lambda d: "A good pairing" in _text(d, "pairing-msg"))
    assert driver.find_elements(By.CSS_SELECTOR, "#board circle.pair-end")
    game.clear()
    game.send_keys("5x5k")
    driver.find_element(By.ID, "new").click()
    _wait(driver, lambda d: "not a board size" in _text(d, "error"))
    # a pairing opponent where pairings do not apply: the page says why and the solver plays
    from selenium.webdriver.support.ui import Select

    game.clear()
    game.send_keys("4x4k3:gravity")
    Select(driver.find_element(By.ID, "engine")).select_by_value("pairing")
    driver.find_element(By.ID, "new").click()
    _wait(driver, lambda d: "The solver plays instead" in _text(d, "engine-msg"))
    assert "gravity" in _text(driver, "engine-msg")
    driver.find_element(By.CSS_SELECTOR, "#board [data-cell='b1']").click()
    _wait(driver, lambda d: len(d.find_element(By.ID, "board").get_attribute("data-moves").split()) == 2)


def test_browser_matching_set_and_a_proven_strategy(browser, server):
    """Show a matching set over 4x4k4; then play misère Connect-3 on 4x2 against take-even."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = browser
    driver.get(server + "/")
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#board [data-cell='b2']"))
    game = driver.find_element(By.ID, "game")
    game.clear()
    game.send_keys("4x4k4")
    Select(driver.find_element(By.ID, "engine")).select_by_value("none")
    driver.find_element(By.ID, "new").click()
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#board [data-cell='d4']"))
    driver.find_element(By.ID, "show-matching").click()
    _wait(driver, lambda d: "A matching set" in _text(d, "matching-msg"))
    assert "the first player cannot win" in _text(driver, "matching-msg")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#board svg line")) >= 10
    shot = os.environ.get("KINAROW_SCREENSHOT_MATCHING")
    if shot:
        driver.save_screenshot(shot)
    # a game where matching sets do not apply: one sentence in the error line
    game.clear()
    game.send_keys("4x4k3:gravity")
    driver.find_element(By.ID, "new").click()
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#board [data-cell='d4']"))
    driver.find_element(By.ID, "show-matching").click()
    _wait(driver, lambda d: "has gravity" in _text(d, "error"))
    # take-even plays White, so the page seats the user as Black
    game.clear()
    game.send_keys("4x2k3:gravity,misere")
    Select(driver.find_element(By.ID, "side")).select_by_value("2")
    Select(driver.find_element(By.ID, "engine")).select_by_value("strategy:take-even")
    driver.find_element(By.ID, "new").click()
    _wait(driver, lambda d: "proven strategy take-even" in _text(d, "engine-msg"))
    assert Select(driver.find_element(By.ID, "side")).first_selected_option.get_attribute("value") == "1"
    driver.find_element(By.CSS_SELECTOR, "#board [data-cell='c1']").click()
    _wait(driver, lambda d: "White (engine) plays c2; by take-even: directly on top of c1" in _text(d, "engine-msg"))
    assert driver.find_element(By.ID, "board").get_attribute("data-moves").split() == ["c1", "c2"]
    shot = os.environ.get("KINAROW_SCREENSHOT_STRATEGY")
    if shot:
        driver.save_screenshot(shot)


def test_browser_refuses_stale_and_doubled_moves(browser, server, app, tmp_path):
    """The page's guards: a game too large for the engine and a bad game string leave no playable board; two fast
    clicks play one move; Take back during the engine's search is not undone by its reply; opening a certificate
    says that it changed your side."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = browser
    driver.get(server + "/")
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#board [data-cell='b2']"))
    game = driver.find_element(By.ID, "game")
    cells = lambda d: d.find_elements(By.CSS_SELECTOR, "#board [data-cell]")  # noqa: E731
    moves = lambda d: d.find_element(By.ID, "board").get_attribute("data-moves").split()  # noqa: E731
    idle = lambda d: d.execute_script("return pending === 0 && busy !== epoch;")  # noqa: E731

    def new_game(name: str) -> None:
        game.clear()
        game.send_keys(name)
        driver.find_element(By.ID, "new").click()

    # a board too large for the solver is refused before the game starts, in the server's words
    new_game("9x9k5")
    _wait(driver, lambda d: "at most 64 cells" in _text(d, "error"))
    assert not cells(driver) and _text(driver, "status").startswith("No game: 9x9k5 has 81 cells")
    # a bad game string clears the old board rather than leave it looking playable
    new_game("3x3k3")
    _wait(driver, lambda d: len(cells(d)) == 9)
    new_game("3x3k")
    _wait(driver, lambda d: "not a board size" in _text(d, "error"))
    assert not cells(driver) and _text(driver, "status").startswith("No game")
    # two clicks in a row: the second one waits for the first (and the engine's answer), so one search
    new_game("3x3k3")
    _wait(driver, lambda d: len(cells(d)) == 9 and idle(d))
    driver.execute_script("""
        window.engineCalls = 0; const plain = window.fetch;
        window.fetch = (path, options) => { if (path === "/api/engine") { window.engineCalls += 1; }
                                            return plain(path, options); };
        window.plainFetch = plain;
        for (const cell of ["a1", "b1"]) {
          document.querySelector("#board [data-cell='" + cell + "']").dispatchEvent(new MouseEvent("click",
                                                                                                  {bubbles: true}));
        }""")
    _wait(driver, lambda d: len(moves(d)) == 2 and idle(d))
    assert moves(driver)[0] == "a1" and driver.execute_script("return window.engineCalls;") == 1
    # Take back while the engine thinks: its reply, when it comes, is dropped
    new_game("3x3k3")
    _wait(driver, lambda d: len(cells(d)) == 9 and idle(d))
    driver.execute_script("""
        window.held = []; const plain = window.plainFetch;
        window.fetch = (path, options) => path === "/api/engine"
          ? new Promise((resolve) => window.held.push(() => resolve(plain(path, options)))) : plain(path, options);""")
    driver.find_element(By.CSS_SELECTOR, "#board [data-cell='c3']").click()
    _wait(driver, lambda d: d.execute_script("return window.held.length;") == 1)
    assert moves(driver) == ["c3"]
    assert "waiting" in driver.find_element(By.ID, "board").get_attribute("class")  # no hover, no click
    driver.execute_script("""document.querySelector("#board [data-cell='a3']").dispatchEvent(
                               new MouseEvent("click", {bubbles: true}));""")  # ignored: the engine is to move
    driver.find_element(By.ID, "undo").click()
    _wait(driver, lambda d: _text(d, "engine-msg") == "Taken back." and moves(d) == [])
    driver.execute_script("window.held.forEach((release) => release()); window.fetch = window.plainFetch;")
    _wait(driver, idle)
    time.sleep(0.3)
    assert moves(driver) == [] and _text(driver, "engine-msg") == "Taken back."
    # the engine still answers a move afterwards
    driver.find_element(By.CSS_SELECTOR, "#board [data-cell='b2']").click()
    _wait(driver, lambda d: len(moves(d)) == 2 and "White (engine) plays" in _text(d, "engine-msg"))
    # opening a strategy certificate: the old message goes, and the page says it changed your side
    proof = app.handle("/api/proof", {"game": "4x3k3", "moves": []})["proof"]["certificate"]
    path = tmp_path / "4x3k3.json"
    path.write_text(json.dumps(proof))
    assert Select(driver.find_element(By.ID, "side")).first_selected_option.get_attribute("value") == "1"
    driver.find_element(By.ID, "cert-file").send_keys(str(path))
    _wait(driver, lambda d: _text(d, "verdict").startswith("VALID"))
    assert "You will play White" in _text(driver, "verdict")
    assert _text(driver, "engine-msg") == "The board shows the certificate's position."
    assert Select(driver.find_element(By.ID, "side")).first_selected_option.get_attribute("value") == "2"
    shot = os.environ.get("KINAROW_SCREENSHOT_GUARDS")
    if shot:
        driver.save_screenshot(shot)


def test_browser_an_opened_certificate_is_shown_not_played(browser, server, app, tmp_path):
    """Opening a certificate said "Your move." while the side it seats you on was not to move, and nothing
    moved: the board shows the certificate's position, which no game plays until a new game starts."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = browser
    driver.get(server + "/")
    moves = lambda d: d.find_element(By.ID, "board").get_attribute("data-moves").split()  # noqa: E731
    idle = lambda d: d.execute_script("return pending === 0 && busy !== epoch;")  # noqa: E731
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#board [data-cell='b2']") and idle(d))
    game = driver.find_element(By.ID, "game")
    game.clear()
    game.send_keys("4x3k3")
    Select(driver.find_element(By.ID, "side")).select_by_value("1")  # you play Black against the solver
    driver.find_element(By.ID, "new").click()
    _wait(driver, lambda d: _text(d, "status") == "Your move." and idle(d))
    # the first player's winning strategy from the empty board: it seats you on White, and Black is to move
    proof = app.handle("/api/proof", {"game": "4x3k3", "moves": []})["proof"]["certificate"]
    path = tmp_path / "4x3k3.json"
    path.write_text(json.dumps(proof))
    driver.find_element(By.ID, "cert-file").send_keys(str(path))
    _wait(driver, lambda d: _text(d, "verdict").startswith("VALID") and idle(d))
    assert _text(driver, "status") == "The certificate's position: Black to move. Start a new game to play."
    driver.find_element(By.CSS_SELECTOR, "#board [data-cell='a1']").click()  # not a game: the click plays nothing
    driver.find_element(By.ID, "undo").click()
    _wait(driver, idle)
    assert moves(driver) == [] and "not a game" in _text(driver, "engine-msg")
    # a new game against the loaded strategy: it opens as Black, and then it is your move as White
    Select(driver.find_element(By.ID, "engine")).select_by_value("certificate")
    driver.find_element(By.ID, "new").click()
    _wait(driver, lambda d: len(moves(d)) == 1 and idle(d))
    assert "Black (engine) plays" in _text(driver, "engine-msg") and _text(driver, "status") == "Your move."


@pytest.fixture(scope="module")
def patient_server() -> Iterator[str]:
    """A server whose think time (ten minutes) the small games below never come near: no waiting on the clock."""
    srv = make_server("127.0.0.1", 0, think=600.0)
    thread = srv.start()
    yield f"http://127.0.0.1:{srv.port}"
    srv.stop()
    thread.join(30)


def test_browser_shows_the_analysis_and_the_winning_line_on_a_phone(browser, patient_server, patient):
    """At 400 x 800: play 5x4k4:gravity against the solver, turn the analysis on and read every column's value,
    then finish a two-player game and see its line marked; nothing is wider than the screen."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from kinarow.web.server import LINE

    driver = browser
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 400, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    try:
        driver.get(patient_server + "/")
        _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#board [data-cell='b2']"))
        board = driver.find_element(By.ID, "board")
        moves = lambda d: board.get_attribute("data-moves").split()  # noqa: E731
        fits = "return document.documentElement.scrollWidth <= 400 && document.body.scrollWidth <= 400;"
        assert driver.execute_script("return window.innerWidth;") == 400
        game = driver.find_element(By.ID, "game")
        game.clear()
        game.send_keys("5x4k4:gravity")
        driver.find_element(By.ID, "new").click()
        _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#board [data-cell='e4']"))
        assert _text(driver, "status") == "Your move."  # not "Black to move": the engine plays White
        driver.find_element(By.CSS_SELECTOR, "#board [data-cell='c4']").click()  # any cell of column c drops to c1
        _wait(driver, lambda d: len(moves(d)) == 2 and "White (engine) plays" in _text(d, "engine-msg"))
        assert moves(driver)[0] == "c1" and _text(driver, "status") == "Your move."
        assert not board.get_attribute("data-analysis") and not _text(driver, "analysis-msg")
        driver.find_element(By.ID, "show-analysis").click()
        _wait(driver, lambda d: board.get_attribute("data-analysis"))
        shown = dict(pair.split("=") for pair in board.get_attribute("data-analysis").split())
        expected = patient.handle("/api/analyse", {"game": "5x4k4:gravity", "moves": moves(driver)})["analysis"]
        assert shown == {m["move"]: m["label"] for m in expected["moves"]} and set(shown) == set("abcde")
        assert len(driver.find_elements(By.CSS_SELECTOR, "#board svg rect.badge")) == 5  # a label over each column
        badges = [t.text for t in driver.find_elements(By.CSS_SELECTOR, "#board svg text") if t.text in shown.values()]
        assert sorted(badges) == sorted(shown.values())
        assert _text(driver, "analysis-msg") == expected["sentence"] and "perfect play" in expected["sentence"]
        assert len(driver.find_elements(By.CSS_SELECTOR, "#legend span")) == len(expected["legend"])
        assert driver.execute_script(fits), "the page is wider than a 400 px screen"
        shot = os.environ.get("KINAROW_SCREENSHOT_ANALYSIS")
        if shot:
            driver.save_screenshot(shot)
        driver.find_element(By.ID, "show-analysis").click()  # off: the plain board again
        _wait(driver, lambda d: not board.get_attribute("data-analysis") and not _text(d, "analysis-msg"))
        assert not driver.find_elements(By.CSS_SELECTOR, "#board svg rect.badge")
        # two people at one board: "Black to move", and the line that ends the game is marked
        Select(driver.find_element(By.ID, "engine")).select_by_value("none")
        game.clear()
        game.send_keys("4x3k3:gravity")
        driver.find_element(By.ID, "new").click()
        _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#board [data-cell='d3']") and not moves(d))
        assert _text(driver, "status") == "Black to move."
        for i, column in enumerate("aabbc"):
            driver.find_element(By.CSS_SELECTOR, f"#board [data-cell='{column}1']").click()
            _wait(driver, lambda d, i=i: len(moves(d)) == i + 1)
        assert _text(driver, "status") == "Game over: Black wins."
        marked = driver.find_elements(By.CSS_SELECTOR, f"#board svg [data-cell][fill='{LINE}']")  # holes of the rack
        assert sorted(cell.get_attribute("data-cell") for cell in marked) == ["a1", "b1", "c1"]
        assert driver.execute_script(fits), "the page is wider than a 400 px screen"
        shot = os.environ.get("KINAROW_SCREENSHOT_LINE")
        if shot:
            driver.save_screenshot(shot)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def _idle(driver) -> bool:
    """The page shows a game and waits for nothing (no request on its way, no move pending)."""
    return driver.execute_script("return pending === 0 && busy !== epoch && game.view !== null;")


def _moves(driver) -> list[str]:
    from selenium.webdriver.common.by import By

    return (driver.find_element(By.ID, "board").get_attribute("data-moves") or "").split()


def _move_rows(driver) -> list[list[str]]:
    from selenium.webdriver.common.by import By

    return [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
            for row in driver.find_elements(By.CSS_SELECTOR, "#move-list tbody tr")]


def _open(driver, url: str) -> None:
    """Load ``url`` afresh (not as a jump within the page already shown)."""
    driver.get("about:blank")
    driver.get(url)


def test_browser_connect_four_from_a_link_drops_discs_and_keeps_its_address(browser, patient_server):
    """The board is there on load; Connect Four is a rack whose columns take a click anywhere and preview the
    disc; every move goes into the address and the move list, and a reload restores the position."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    driver = browser
    _open(driver, patient_server + "/")
    _wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board [data-cell]")) == 9 and _idle(d))  # no click
    assert _text(driver, "status") == "Your move." and driver.execute_script("return location.hash;") == "#game=3x3k3"
    assert _text(driver, "no-moves") == "No moves yet."
    _open(driver, patient_server + "/#game=7x6k4:gravity&opponent=none")
    _wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board g.column")) == 7 and _idle(d))
    assert not driver.find_elements(By.CSS_SELECTOR, "#board rect.cell")  # holes in a frame, not squares
    assert len(driver.find_elements(By.CSS_SELECTOR, "#board circle.cell")) == 42
    assert _text(driver, "status") == "Black to move."
    column = lambda name: driver.find_element(By.CSS_SELECTOR, f"#board g.column[data-column='{name}'] .column-hit")  # noqa: E731
    preview = "return getComputedStyle(document.querySelector(\"#board g[data-column='d'] .preview\")).opacity;"
    assert driver.execute_script(preview) == "0"
    ActionChains(driver).move_to_element(column("d")).perform()  # the frame between d3 and d4
    _wait(driver, lambda d: d.execute_script(preview) == "0.5")  # a translucent disc where the next one lands
    landing = driver.execute_script("""const p = document.querySelector("#board g[data-column='d'] .preview");
        const hole = document.querySelector("#board [data-cell='d1']");
        return [p.getAttribute('cy') === hole.getAttribute('cy'), p.getAttribute('fill')];""")
    assert landing == [True, "#1a1a1a"]  # in d1, and Black's
    column("d").click()  # a click on the frame, not on a hole: the disc drops to the bottom
    _wait(driver, lambda d: _moves(d) == ["d1"] and _idle(d))
    driver.find_element(By.CSS_SELECTOR, "#board [data-cell='d6']").click()  # the top hole of d: it lands on d2
    _wait(driver, lambda d: _moves(d) == ["d1", "d2"] and _idle(d))
    column("c").click()
    _wait(driver, lambda d: _moves(d) == ["d1", "d2", "c1"] and _idle(d))
    stones = driver.find_elements(By.CSS_SELECTOR, "#board circle.stone")
    assert len(stones) == 3
    assert driver.execute_script("return location.hash;") == "#game=7x6k4:gravity&moves=d1,d2,c1&opponent=none"
    assert _move_rows(driver) == [["1.", "d1", "d2"], ["2.", "c1", ""]]
    driver.refresh()
    _wait(driver, lambda d: _moves(d) == ["d1", "d2", "c1"] and _idle(d))
    assert len(driver.find_elements(By.CSS_SELECTOR, "#board circle.stone")) == 3
    assert _move_rows(driver) == [["1.", "d1", "d2"], ["2.", "c1", ""]] and _text(driver, "status") == "White to move."
    driver.find_element(By.ID, "undo").click()  # Take back: the move list and the address follow
    _wait(driver, lambda d: _moves(d) == ["d1", "d2"] and _idle(d))
    assert _move_rows(driver) == [["1.", "d1", "d2"]]
    assert driver.execute_script("return location.hash;") == "#game=7x6k4:gravity&moves=d1,d2&opponent=none"
    driver.find_element(By.CSS_SELECTOR, "#move-list td[data-upto='1']").click()  # back to the position after d1
    _wait(driver, lambda d: _moves(d) == ["d1"] and _idle(d))
    assert _move_rows(driver) == [["1.", "d1", ""]] and _text(driver, "engine-msg") == "Back to move 1."
    assert driver.execute_script("return location.hash;") == "#game=7x6k4:gravity&moves=d1&opponent=none"
    # against the solver, from a link: the engine's answers are numbered with your moves
    _open(driver, patient_server + "/#game=4x4k3:gravity&moves=b1")
    _wait(driver, lambda d: len(_moves(d)) == 2 and _idle(d))
    assert _moves(driver)[0] == "b1" and "White (engine) plays" in _text(driver, "engine-msg")
    assert _move_rows(driver) == [["1.", "b1", _moves(driver)[1]]]


@pytest.mark.parametrize(("link", "words"), [
    ("#game=7x6k4:gravity&moves=d1,d1", "d1 is occupied"),
    ("#game=7x6k4:gravity&moves=d2", "d2"),
    ("#game=9x9q", "is not a"),
    ("#game=9x9k5", "at most 64 cells"),
    ("#game=3x3k3&opponent=magic", "opponent 'magic' is not one the page offers"),
    ("#moves=a1", "names no game"),
])
def test_browser_a_bad_link_says_why_and_opens_the_default_game(browser, server, link, words):
    from selenium.webdriver.common.by import By

    driver = browser
    _open(driver, server + "/" + link)
    _wait(driver, lambda d: _text(d, "notice") and _idle(d))
    notice = _text(driver, "notice")
    assert notice.startswith("The link could not be opened (") and words in notice, notice
    assert notice.endswith(", so the page shows a new game of 3x3k3.")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#board [data-cell]")) == 9
    assert _text(driver, "status") == "Your move."
    assert driver.execute_script("return location.hash;") == "#game=3x3k3" and not _text(driver, "error")
    driver.find_element(By.CSS_SELECTOR, "#board [data-cell='b2']").click()  # and it plays
    _wait(driver, lambda d: len(_moves(d)) == 2 and _idle(d))
    assert not _text(driver, "notice")  # the sentence goes with your first move


OVERLAP = """const boxes = arguments[0].map((id) => document.getElementById(id).getBoundingClientRect());
    const [a, b] = boxes;
    return {overlap: a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom,
            width: document.documentElement.scrollWidth,
            boxes: boxes.map((r) => [r.left, r.top, r.right, r.bottom])};"""


@pytest.mark.parametrize("width", [1280, 400])
def test_browser_the_boxes_do_not_overlap(browser, patient_server, width):
    """At 1280 px the Game box ran under the board column (a fieldset grows to its widest option); at 1280 and at
    400 px wide, the Game box, the board column, the board and the move list each keep to their own rectangle."""
    from selenium.webdriver.common.by import By

    driver = browser
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    try:
        for link, name in (("#game=7x6k4:gravity&moves=d1,d2,c1,e1,d3,c2,c3&opponent=none", "C4"),
                           ("#game=5x5k4&moves=c3,b2,d4,a1&opponent=none", "FREE")):
            _open(driver, patient_server + "/" + link)
            _wait(driver, lambda d: len(_moves(d)) >= 4 and _idle(d))
            assert driver.execute_script("return window.innerWidth;") == width
            for pair in (["game-box", "play"], ["controls", "play"], ["board-box", "move-box"], ["game-box", "board"]):
                found = driver.execute_script(OVERLAP, pair)
                assert not found["overlap"], (pair, found["boxes"])
            assert driver.execute_script(OVERLAP, ["board", "play"])["overlap"]  # (the check sees an overlap)
            assert found["width"] <= width, "the page is wider than the window"
            assert len(_move_rows(driver)) >= 2 and driver.find_element(By.ID, "move-list").is_displayed()
            shot = os.environ.get(f"KINAROW_SCREENSHOT_{name}_{width}")
            if shot:
                driver.save_screenshot(shot)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_warm_up_replays_the_pages_requests_and_takes_no_searcher():
    """The warm-up (kinarow serve starts it) calls each kernel family the page uses once, in searchers of its own;
    a request that arrives meanwhile is served as usual."""
    from kinarow.web.server import WARM_UP

    assert {path for path, _ in WARM_UP} == {"/api/analyse", "/api/engine", "/api/proof"}
    assert {Game(body["game"]).gravity for _, body in WARM_UP} == {True, False}  # score search and alpha-beta
    app = App(think=600.0)
    thread = app.start_warming()
    assert app.info()["warming"] is True
    found = app.handle("/api/analyse", {"game": "5x4k4:gravity", "moves": ["c", "c"]})["analysis"]
    assert found["describe"] == "Draw with perfect play."
    thread.join(600)
    assert not thread.is_alive() and app.info()["warming"] is False
    assert len(app.searchers) == 1  # the request's own: the warm-up used none of the pool's
    stopped = App(think=600.0)
    stopped.stop()
    stopped.warm()  # a server that is stopping does not warm
    assert not stopped.warming.is_set()


def test_kinarow_serve_command_starts_answers_and_stops(tmp_path):
    import sys

    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": src, "KINAROW_STORE": str(tmp_path / "r.sqlite")}
    with child([sys.executable, "-m", "kinarow", "serve", "--port", "0"], env=env) as process:
        line = process.stdout.readline()
        assert line.startswith("kinarow serves its page at http://127.0.0.1:"), line + process.stderr.read()
        base = line.split(" at ")[1].split("/ ")[0]
        assert process.stdout.readline().startswith("Warming the search kernels in the background")
        with urllib.request.urlopen(base + "/api/info", timeout=30) as response:
            assert json.loads(response.read())["version"]
        status, view = post(base, "/api/engine", {"game": "3x3k3", "moves": ["a1"]})
        assert status == 200 and view["moves"][1] == "b2"  # the only reply to a corner that does not lose
        out, err = ctrl_c(process, timeout=30)
    assert process.returncode == 0, err
    assert "Stopped." in out and "Traceback" not in err


def test_a_walk_certificate_is_checked_drawn_and_followed(app):
    from kinarow.proofs.tree import StrategyTree

    proof = app.handle("/api/proof", {"game": "4x3k3", "moves": ["b2", "a1"]})["proof"]
    keyed = StrategyTree.from_json(proof["certificate"])
    walk = keyed.compacted().to_json()
    answer = app.handle("/api/check", {"certificate": walk})
    assert answer["verdict"]["ok"] is True and "★" in answer["svg"]
    view = app.handle("/api/engine", {"game": "4x3k3", "moves": ["b2", "a1"], "engine": "certificate",
                                      "strategy": walk})
    assert len(view["moves"]) == 3  # the engine played Black's third stone from the walk
    start = app.handle("/api/engine", {"game": "4x3k3", "moves": ["b2", "a1"], "engine": "certificate",
                                       "strategy": proof["certificate"]})
    assert view["moves"] == start["moves"]
