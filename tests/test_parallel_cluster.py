"""The Dask back-end of kinarow.search.parallel: a local cluster of two worker processes against ``solve``."""

from __future__ import annotations

import sys

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
    real_client = distributed.Client

    def client(*args, **kwargs):
        timeouts.append(kwargs.get("timeout"))
        return real_client(*args, **kwargs)

    monkeypatch.setattr(distributed, "Client", client)
    with pytest.raises(par.ClusterError) as err:
        par.solve("4x4k4", cluster="tcp://127.0.0.1:9")
    assert "tcp://HOST:PORT" in str(err.value) and "\n" not in str(err.value)
    assert timeouts == ["1s"]  # the patched timeout is the one the back end used


def test_missing_dask_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(KinarowError, match=r"pip install kinarow\[cluster\]"):
        par.solve("4x4k4", cluster="tcp://127.0.0.1:8786")
