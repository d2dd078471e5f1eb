"""A bounded load test of ``kinarow serve`` on 127.0.0.1, and a fuzz test of request bodies against the app.

The load test starts the real command in a child process and sends it a few
hundred requests from 8 threads, good ones and hostile ones mixed (bad JSON, a
wrong content type, another page's Origin, a foreign Host, huge bodies, huge
boards, deep JSON, 5000-digit numbers, malformed HTTP). Every answer must be
right or a 4xx with one sentence: never a 5xx, never a dropped connection. The
server's peak memory (VmHWM of /proc/PID/status) must stay under
:data:`MEMORY_CAP`, and the server must still answer at the end. The test is
bounded by its request count, not by time.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import random
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import ctrl_c, interruptible

REQUESTS = 320  # requests of the load test
THREADS = 8
MEMORY_CAP = 768 * 2**20  # bytes: the server's peak resident memory during the load test (measured: about 350 MiB)


def _memory(pid: int, field: str = "VmHWM") -> int:
    """A memory figure of process ``pid`` in bytes (VmHWM: its peak resident memory so far)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def _request(port: int, method: str, path: str, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
    """One request on its own connection: (status, content type, body). A dropped connection raises."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type") or "", response.read()
    finally:
        connection.close()


def _raw(port: int, data: bytes) -> tuple[int, str, bytes]:
    """Bytes sent as they are (malformed HTTP); the server's whole answer parsed."""
    with socket.create_connection(("127.0.0.1", port), timeout=120) as sock:
        sock.sendall(data)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    kind = next((line.split(":", 1)[1].strip() for line in lines[1:] if line.lower().startswith("content-type:")), "")
    return status, kind, body


JSON = {"Content-Type": "application/json"}
BIG_GAMES = ["8x8k5", "8x8k4", "8x8k6", "8x8k5:misere", "8x8k4:misere", "8x8k5:maker-breaker", "8x8k4:gravity",
             "8x8k5:gravity", "16x4k4", "16x4k5", "32x2k3", "4x16k4"]


def _cases(port: int, certificate: dict[str, Any]) -> list[tuple[str, Any]]:
    """(name, a function sending one request and checking its answer); about half good and half hostile."""

    def post(path: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        return _request(port, "POST", path, data, JSON if headers is None else headers)

    def good(path: str, body: Any, check: Any) -> Any:
        def run() -> None:
            status, kind, data = post(path, body)
            assert status == 200 and kind.startswith("application/json"), (path, body, status, data[:300])
            assert check(json.loads(data)), (path, body, data[:300])
        return run

    def refused(status_wanted: int, send: Any, words: str = "") -> Any:
        def run() -> None:
            status, kind, data = send()
            assert status == status_wanted, (status, data[:300])
            if kind.startswith("application/json"):
                message = json.loads(data)["error"]
                assert "\n" not in message and words in message, message
            else:  # Starlette's own answer to a foreign Host
                assert data == b"Invalid host header", data
        return run

    state = {"game": "3x3k3", "moves": ["b2"]}
    turns = itertools.count()
    deep = b"[" * 100_000 + b"]" * 100_000
    return [
        ("state", good("/api/state", state, lambda v: v["to_move"] == 2 and len(v["legal"]) == 8)),
        ("play", good("/api/play", {**state, "move": "a1"}, lambda v: v["moves"] == ["b2", "a1"])),
        ("engine", good("/api/engine", state, lambda v: v["moves"][1] in ("a1", "a3", "c1", "c3"))),
        ("engine 4x3k3", good("/api/engine", {"game": "4x3k3", "moves": []}, lambda v: len(v["moves"]) == 1)),
        # 64-cell games, a different one each time: the searchers' pool keeps two tables, not one per game
        ("engine 8x8", lambda: good("/api/engine", {"game": BIG_GAMES[next(turns) % len(BIG_GAMES)], "moves": ["b1"]},
                                    lambda v: len(v["moves"]) == 2)()),
        ("take-even", good("/api/engine", {"game": "4x2k3:gravity,misere", "moves": ["b"],
                                           "engine": "strategy:take-even"}, lambda v: v["moves"] == ["b1", "b2"])),
        ("pairing", good("/api/pairing", {"game": "5x5k5"}, lambda v: v["pairing"]["exists"] is True)),
        ("analyse", good("/api/analyse", {"game": "4x3k3", "moves": ["b2"]},
                         lambda v: len(v["analysis"]["moves"]) == 11)),
        ("check", good("/api/check", {"certificate": certificate}, lambda v: v["verdict"]["ok"] is True)),
        ("info", lambda: _check_info(port)),
        ("bad json", refused(400, lambda: post("/api/state", b"{not json"), "not valid JSON")),
        ("text/plain", refused(415, lambda: post("/api/play", {**state, "move": "a1"}, {"Content-Type": "text/plain"}),
                               "application/json")),
        ("no content type", refused(415, lambda: post("/api/state", state, {}), "application/json")),
        ("foreign origin", refused(403, lambda: post("/api/engine", state, {**JSON, "Origin": "http://evil.example"}),
                                   "own page")),
        ("foreign host", refused(400, lambda: post("/api/state", state, {**JSON, "Host": "evil.example"}))),
        ("huge declared body", refused(413, lambda: _request(port, "POST", "/api/check", b"{}",
                                                             {**JSON, "Content-Length": str(10**12)}), "KiB")),
        ("huge body", refused(413, lambda: post("/api/state", b"[" + b" " * 300_000 + b"]"), "KiB")),
        ("huge board", refused(400, lambda: post("/api/state", {"game": "702x702k5"}), "at most 400 cells")),
        ("board too big to solve", refused(400, lambda: post("/api/engine", {"game": "9x9k5"}), "64 cells")),
        ("deep json", refused(400, lambda: post("/api/check", deep), "deeper than")),
        ("5000 digits", refused(400, lambda: post("/api/state", {"game": "3x3k" + "3" * 5000}), "characters")),
        ("torus file", refused(400, lambda: post("/api/check", {"certificate": {
            "format": "kinarow.torus", "class_file": "/dev/zero"}}), "reads no files")),
        ("negative length", refused(400, lambda: _raw(port, b"POST /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                            b"Content-Length: -5\r\n\r\n{}"), "not valid HTTP")),
        ("unknown endpoint", refused(404, lambda: post("/api/nothing", {}), "no API endpoint")),
    ]


def _check_info(port: int) -> None:
    status, _, data = _request(port, "GET", "/api/info")
    assert status == 200 and json.loads(data)["version"]


def test_the_server_survives_a_mixed_load(tmp_path):
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": src, "KINAROW_STORE": str(tmp_path / "r.sqlite")}
    log = tmp_path / "server.log"  # uvicorn warns of each malformed request there
    with log.open("w") as errors, subprocess.Popen(
        [sys.executable, "-m", "kinarow", "serve", "--host", "127.0.0.1", "--port", "0", "--think", "1"],
        stdout=subprocess.PIPE, stderr=errors, text=True, env=env, preexec_fn=interruptible,
    ) as process:
        try:
            _load(process)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 0
    assert "Traceback" not in log.read_text()


def _load(process: subprocess.Popen[str]) -> None:
    """Send the load to the server ``process`` and stop it with Ctrl-C."""
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("kinarow serves its page at http://127.0.0.1:"), line
    port = int(line.split("127.0.0.1:")[1].split("/")[0])
    status, _, data = _request(port, "POST", "/api/proof", json.dumps({"game": "4x3k3", "moves": ["b2", "a1"]})
                               .encode(), JSON)
    assert status == 200, data
    cases = _cases(port, json.loads(data)["proof"]["certificate"])
    rng = random.Random(21)
    plan = [rng.choice(cases) for _ in range(REQUESTS)]

    def run(case: tuple[str, Any]) -> str:
        case[1]()
        return case[0]

    with ThreadPoolExecutor(THREADS) as pool:
        done = list(pool.map(run, plan))  # re-raises the first failed check
    assert len(done) == REQUESTS and len(set(done)) == len(cases)
    _check_info(port)  # still up
    peak = _memory(process.pid)  # VmHWM: the most it held at any moment of the run
    assert peak < MEMORY_CAP, f"the server's peak memory was {peak / 2**20:.0f} MiB"
    print(f"the server's peak memory: {peak / 2**20:.0f} MiB")
    out, _ = ctrl_c(process, timeout=60)
    assert "Stopped." in out


# -- fuzz: any body to any endpoint gets 2xx, or 4xx with one sentence ------------------------------------
GAMES = st.sampled_from(["3x3k3", "4x3k3", "4x4k3:gravity", "4x2k3:gravity,misere", "3x3k3p2q1",
                         "702x702k5", "3x3k", "", "4x4k4:torus", "3x3k3:misere,maker-breaker"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=20))
JSON_VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                           max_leaves=20)
MOVES = st.lists(st.sampled_from(["a1", "b2", "c3", "a", "b", "z9", "a0", "", "1. b2", "a" + "9" * 70]), max_size=6)
FORMATS = st.sampled_from(["kinarow.pairing", "kinarow.strategy", "kinarow.draw", "kinarow.matching",
                           "kinarow.tiling", "kinarow.torus", "kinarow.verified-strategy", "kinarow.searchlog"])
BODIES = st.one_of(
    st.fixed_dictionaries({"game": st.one_of(GAMES, SCALARS), "moves": st.one_of(MOVES, JSON_VALUES)},
                          optional={"move": st.one_of(MOVES.map(lambda m: m[0] if m else ""), SCALARS),
                                    "engine": st.one_of(st.sampled_from(["solver", "pairing", "certificate",
                                                                         "strategy:take-even", "strategy:x", "none"]),
                                                        SCALARS),
                                    "strategy": st.one_of(st.sampled_from(["take-even", "tally"]), JSON_VALUES),
                                    "pairs": st.one_of(st.lists(st.lists(st.sampled_from(["a1", "b2", "c3"]),
                                                                         min_size=2, max_size=2)), JSON_VALUES)}),
    st.fixed_dictionaries({"certificate": st.one_of(
        JSON_VALUES, st.fixed_dictionaries({"format": FORMATS, "version": st.integers(0, 4), "game": GAMES},
                                           optional={"moves": MOVES, "pairs": JSON_VALUES, "choices": JSON_VALUES,
                                                     "walk": JSON_VALUES, "winner": SCALARS, "claim": SCALARS,
                                                     "class_file": st.text(max_size=20)}))}),
    JSON_VALUES,
)
PATHS = st.sampled_from(["/api/state", "/api/play", "/api/engine", "/api/strategy", "/api/pairing", "/api/matching",
                         "/api/analyse", "/api/proof", "/api/check"])


@pytest.fixture(scope="module")
def fuzz_client():
    import warnings

    from kinarow.web.server import App, create_app

    with warnings.catch_warnings():  # Starlette 1.x would rather use httpx2 than httpx; either serves
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    with TestClient(create_app(App(think=0.2)), base_url="http://127.0.0.1:8765",
                    raise_server_exceptions=False) as client:
        yield client


def _one_sentence(response: Any) -> None:
    assert response.status_code < 500, (response.status_code, response.text[:500])
    if response.status_code >= 400:
        message = response.json()["error"]
        assert isinstance(message, str) and message and "\n" not in message and "Traceback" not in message


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(path=PATHS, body=BODIES)
def test_fuzzed_json_bodies_get_an_answer_or_one_sentence(fuzz_client, path, body):
    _one_sentence(fuzz_client.post(path, json=body))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=PATHS, raw=st.one_of(st.binary(max_size=200), st.text(max_size=200).map(str.encode)),
       kind=st.sampled_from(["application/json", "application/json; charset=utf-8", "text/plain", ""]))
def test_fuzzed_raw_bodies_get_an_answer_or_one_sentence(fuzz_client, path, raw, kind):
    _one_sentence(fuzz_client.post(path, content=raw, headers={"Content-Type": kind} if kind else {}))
