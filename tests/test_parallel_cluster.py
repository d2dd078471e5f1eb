"""The Dask back-end of kinarow.search.parallel: a local cluster of two worker processes against ``solve``."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading

import pytest

from kinarow import KinarowError, solve
from kinarow.cli import main
from kinarow.proofs.tree import check
from kinarow.search import parallel as par
from kinarow.search.parallel import backends

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
        ) as local,
        distributed.Client(local) as client,
    ):
        yield local, client


@pytest.mark.parametrize(
    ("game", "moves"),
    [("4x4k4", None), ("6x6k4p2q1", None), ("5x4k4:gravity", None), ("4x3k3:gravity,misere", None), ("4x4k4", "b2 c3")],
)
def test_cluster_agrees_with_one_process(cluster, game, moves):
    _, client = cluster
    result = par.solve(game, moves=moves, cluster=client)
    assert result.value == solve(game, moves=moves).value
    assert result.backend == "dask" and result.workers == 2
    assert {entry["worker"] for entry in result.log}  # jobs report where they ran


def test_cluster_win_certificate(cluster):
    _, client = cluster
    result = par.solve("4x4k3p2q1", cluster=client, strategy=True, jobs=40)
    assert result.value == "first"
    assert check(result.strategy).ok


def test_cluster_by_address_from_the_command_line(cluster, capsys):
    local, _ = cluster
    code = main(["solve", "5x4k4:gravity", "--cluster", local.scheduler_address, "--json"])
    out = capsys.readouterr().out
    assert code == 0
    assert '"backend": "dask"' in out and '"value": "draw"' in out


def test_cluster_time_limit_stops_its_jobs(cluster):
    _, client = cluster
    # Connect Four on 8 x 7: no opening book is shipped for it, so the search runs (far longer than the limit)
    result = par.solve("8x7k4:gravity", moves="d d c", cluster=client, time_limit=1.0)
    assert result.value == "unknown" and result.stopped == "time limit"


def test_unreachable_cluster_is_one_sentence(monkeypatch):
    monkeypatch.setattr(backends, "CONNECT_TIMEOUT", "1s")  # the Dask back end reads it from its own module
    timeouts: list[object] = []
    real_connect = distributed.comm.connect

    def connect(*args, **kwargs):
        timeouts.append(kwargs.get("timeout"))
        return real_connect(*args, **kwargs)

    monkeypatch.setattr(distributed.comm, "connect", connect)
    with pytest.raises(par.ClusterError) as err:
        par.solve("4x4k4", cluster="tcp://127.0.0.1:9")
    assert "tcp://HOST:PORT" in str(err.value) and "\n" not in str(err.value)
    assert "'tcp://127.0.0.1:9' within 1 s" in str(err.value)
    assert timeouts == [1.0]  # the patched timeout is the one the back end used


@contextlib.contextmanager
def _server(answer: bytes | None):
    """A TCP server on this machine that sends ``answer`` to whoever connects (None: accepts and says nothing)."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = listener.accept()
                held.append(connection)  # kept open: the client is left waiting
                if answer is not None:
                    with contextlib.suppress(OSError):
                        connection.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()
        for connection in held:
            connection.close()


def _command_in_a_thread(args: list[str], capsys) -> tuple[int | None, str]:
    """``kinarow ARGS`` (in this process) with a hang guard: None when it did not end in a minute; and stderr."""
    code: list[int] = []
    thread = threading.Thread(target=lambda: code.append(main(args)), daemon=True)
    thread.start()
    thread.join(60)  # a hang guard only: the command ends within the connect timeout and a second
    return (code[0] if code else None), capsys.readouterr().err


# a web server's answer: its first bytes read as a frame count once made distributed allocate 3 EiB (a traceback)
JUNK = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n" * 50


@pytest.mark.parametrize("answer", [JUNK, b"\xff" * 4096, None], ids=["web-server", "noise", "silent"])
def test_a_server_that_is_no_scheduler_is_one_sentence(monkeypatch, capsys, answer):
    monkeypatch.setattr(backends, "CONNECT_TIMEOUT", "1s")
    with _server(answer) as address:
        code, err = _command_in_a_thread(["solve", "4x4k4", "--cluster", address], capsys)
    assert code is not None, "the command did not end"
    assert code != 0 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and address in err and "tcp://HOST:PORT" in err
    if answer is None:
        assert "did not answer within 1 s" in err


def test_an_address_of_no_transport_is_one_sentence(capsys):
    assert main(["solve", "4x4k4", "--cluster", "udp://127.0.0.1:8786"]) != 0
    err = capsys.readouterr().err
    assert "is not the address of a Dask scheduler" in err and len(err.strip().splitlines()) == 1


def test_missing_dask_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(KinarowError, match=r"pip install kinarow\[cluster\]"):
        par.solve("4x4k4", cluster="tcp://127.0.0.1:8786")
