"""The web server's bounds on long work and slow clients: a proof within its budget, a searcher freed when it
stops, a clean stop on Ctrl-C and SIGTERM during a proof, and requests served while clients trickle headers."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import kinarow.web.server as web
from helpers import child
from kinarow.web.server import App

C4 = "7x6k4:gravity"  # one of the page's example games: the book gives its value, its strategy is huge
HANG_GUARD = 300.0  # seconds: only so that a request that ignores its budget fails instead of hanging the suite
SRC = str(Path(__file__).resolve().parents[1] / "src")


def test_a_proof_of_connect_four_keeps_its_budget_and_frees_its_searcher(monkeypatch):
    # before: the strategy was walked with no budget at all, for hours, holding a searcher of the pool
    monkeypatch.setattr(web, "PROOF_NODES", 2_000_000)
    app = App(think=3600.0, wait=HANG_GUARD)  # an hour: only the node budget can stop it
    view = app.handle("/api/proof", {"game": C4, "moves": []})
    proof = view["proof"]
    assert proof["value"] == "first" and proof["certificate"] is None
    assert "stopped (node limit)" in proof["what"]
    assert app.searchers._busy == 0 and len(app.searchers) == 1  # the searcher is back in the pool


def test_two_proofs_at_once_leave_the_engine_to_other_games(monkeypatch):
    # two clicks of "Prove the value" took both searchers for good, and every other game got a 503
    monkeypatch.setattr(web, "PROOF_NODES", 2_000_000)
    app = App(think=1.0, wait=HANG_GUARD)
    answers: list[dict] = []

    def prove() -> None:
        answers.append(app.handle("/api/proof", {"game": C4, "moves": []})["proof"])

    threads = [threading.Thread(target=prove) for _ in range(2)]
    for thread in threads:
        thread.start()
    view = app.handle("/api/engine", {"game": "3x3k3", "moves": ["b2"], "engine": "solver"})
    for thread in threads:
        thread.join(HANG_GUARD)
        assert not thread.is_alive()
    assert view["moves"][1] in ("a1", "a3", "c1", "c3")
    assert [a["certificate"] for a in answers] == [None, None]
    assert app.searchers._busy == 0


def _post(base: str, path: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=HANG_GUARD) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            return error.code, json.loads(raw)
        except ValueError:
            return error.code, {"error": raw.decode(errors="replace")}


def _cpu_seconds(pid: int) -> float:
    """The CPU time process ``pid`` has used so far (Linux: utime + stime of /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_the_server_stops_cleanly_during_a_proof(tmp_path, sig):
    # before: two CancelledError tracebacks on Ctrl-C and the server went on; SIGTERM waited for the proof
    env = {**os.environ, "PYTHONPATH": SRC, "KINAROW_STORE": str(tmp_path / "r.sqlite")}
    with child([sys.executable, "-m", "kinarow", "serve", "--port", "0"], env=env) as process:
        line = process.stdout.readline()
        assert line.startswith("kinarow serves its page at http://127.0.0.1:"), line + process.stderr.read()
        base = line.split(" at ")[1].split("/ ")[0]
        status, _ = _post(base, "/api/state", {"game": C4})
        assert status == 200
        answers: list[tuple[int, dict]] = []
        idle = _cpu_seconds(process.pid)
        thread = threading.Thread(target=lambda: answers.append(_post(base, "/api/proof", {"game": C4})))
        thread.start()
        while _cpu_seconds(process.pid) < idle + 1.0:  # the proof's walk is under way (the book's value costs none)
            thread.join(0.05)
            assert thread.is_alive(), answers
        process.send_signal(sig)
        out, err = process.communicate(timeout=HANG_GUARD)
        thread.join(HANG_GUARD)
    assert process.returncode == 0, err
    assert "Stopped." in out
    assert "Traceback" not in err and "CancelledError" not in err, err
    assert len(answers) == 1
    status, data = answers[0]
    assert status == 200 or (status == 503 and "stopping" in data["error"])


TRICKLERS = 64  # as many as the server takes connections at once (CONNECTIONS)


def test_clients_trickling_their_headers_are_closed_and_others_are_served():
    # before: uvicorn's keep-alive timer stopped at a connection's first byte, so 64 clients sending a header line
    # every few seconds held every connection, and every request from anyone was a 503 for as long as they did
    import socket
    import time

    assert web.CONNECTIONS == TRICKLERS
    srv = web.make_server("127.0.0.1", 0)
    srv.server.config.timeout_keep_alive = 1  # a short timeout for the test (the server's is 5 s)
    thread = srv.start()
    socks = [socket.create_connection(("127.0.0.1", srv.port), timeout=HANG_GUARD) for _ in range(TRICKLERS)]
    closed = [False] * TRICKLERS
    stop = threading.Event()

    def trickle() -> None:  # a header line to each open socket, several times within the timeout
        lines = iter([b"GET /api/info HTTP/1.1\r\n", b"Host: 127.0.0.1\r\n"] + [b"X-Slow: 1\r\n"] * 10**6)
        while not stop.is_set() and not all(closed):
            line = next(lines)
            for i, sock in enumerate(socks):
                if not closed[i]:
                    try:
                        sock.sendall(line)
                    except OSError:
                        closed[i] = True
            stop.wait(0.2)

    def watch(i: int) -> None:  # the server closes it: the read ends (or the connection is reset)
        try:
            while socks[i].recv(65536):
                pass
        except OSError:
            pass
        closed[i] = True

    workers = [threading.Thread(target=trickle)] + [threading.Thread(target=watch, args=(i,)) for i in range(TRICKLERS)]
    try:
        for worker in workers:
            worker.start()
        end = time.monotonic() + HANG_GUARD
        while True:  # a 503 while the slow clients hold every connection; served once the server drops them
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{srv.port}/api/info", timeout=HANG_GUARD) as answer:
                    assert json.loads(answer.read())["version"]
                    break
            except urllib.error.HTTPError as error:
                assert error.code == 503
            assert time.monotonic() < end, "the slow clients kept every connection"
            stop.wait(0.2)
        for worker in workers[1:]:
            worker.join(HANG_GUARD)
        assert all(closed)
    finally:
        stop.set()
        for sock in socks:
            sock.close()
        workers[0].join(HANG_GUARD)
        srv.stop()
        thread.join(30)
