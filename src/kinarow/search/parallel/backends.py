"""Back ends: where the jobs run, behind one interface (:class:`Backend`).

``workers=N`` runs a local pool of N processes (:class:`LocalBackend`,
``concurrent.futures``), no extra install; ``cluster=ADDRESS`` (or a
``distributed.Client``) runs the same jobs on a Dask cluster
(:class:`DaskBackend`, ``pip install kinarow[cluster]``). A back end submits
a :class:`~kinarow.search.parallel.jobs.JobSpec`, reports which jobs are
done, and stops one job or all of them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import contextlib
import multiprocessing as mp
import os
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import numpy as np

from kinarow.engine.pool import die_with_parent
from kinarow.errors import KinarowError, shown
from kinarow.search.parallel.jobs import JobOutcome, JobSpec, init_local_worker, run_job

__all__ = ["Backend", "ClusterError", "DaskBackend", "LocalBackend"]

#: Frontier positions a local pool can track (shared stop flags and node counters; splits stop at this).
LOCAL_JOB_SLOTS = 1 << 16
#: How long to try reaching a Dask scheduler: the connect and its handshake, then the client's start (each)
CONNECT_TIMEOUT = "10s"


class ClusterError(KinarowError):
    """The cluster back-end is missing or the cluster cannot be reached."""


def _reason(err: BaseException) -> str:
    """An error of the connection in a few words: its type and the first line of its text, cut short."""
    text = str(err).strip().splitlines()[0] if str(err).strip() else ""
    text = text if len(text) <= 80 else text[:77] + "..."
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _connect_error(address: str, seconds: float, err: BaseException) -> ClusterError:
    """The one sentence that says why ``address`` gave no Dask scheduler."""
    where = shown(address, 80)
    if isinstance(err, TimeoutError):
        return ClusterError(f"the Dask scheduler at {where} did not answer within {seconds:g} s; give the address "
                            "of a running scheduler as tcp://HOST:PORT")
    if isinstance(err, OSError) or type(err).__name__ in ("CommClosedError", "FatalCommClosedError"):
        return ClusterError(f"cannot reach a Dask scheduler at {where} within {seconds:g} s ({_reason(err)}); "
                            "give ADDRESS as tcp://HOST:PORT")
    return ClusterError(f"the server at {where} does not answer as a Dask scheduler ({_reason(err)}); give the "
                        "address of a running scheduler as tcp://HOST:PORT")


def _check_address(address: str) -> None:
    """Refuse an address that names no transport Dask knows (``udp://...``), before connecting anywhere."""
    from distributed.comm import parse_address
    from distributed.comm.registry import get_backend

    try:
        get_backend(parse_address(address)[0])
    except (ValueError, TypeError) as err:
        raise ClusterError(f"{shown(address, 80)} is not the address of a Dask scheduler ({_reason(err)}); give "
                           "ADDRESS as tcp://HOST:PORT") from None


def _handshake(address: str, seconds: float) -> None:
    """Connect to ``address`` and read its handshake, all within ``seconds``; raise what went wrong.

    distributed bounds the connect by its timeout but then waits for the server's handshake without one, so a
    server that accepts and says nothing held ``Client(address, timeout=...)`` for good. The probe runs on an
    event loop of its own, in a thread of its own (the caller's thread may run a loop already, as in Jupyter).
    """
    from distributed.comm import connect

    async def probe() -> None:
        # a second more than the connect's own bound, so that its own error (refused, unknown host) is the one told
        comm = await asyncio.wait_for(connect(address, timeout=seconds), seconds + 1)
        await comm.close()

    failed: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(probe())
        except BaseException as err:  # handed to the caller's thread
            failed.append(err)

    thread = threading.Thread(target=run, name="kinarow-dask-handshake", daemon=True)
    thread.start()
    thread.join(seconds + 10)
    if thread.is_alive():
        raise TimeoutError(address)
    if failed:
        raise failed[0]


class Backend:
    """What the coordinator asks of a back end: submit a job, collect the finished ones, stop one or all."""

    workers = 1
    name = "local"
    max_jobs = 1 << 62  # frontier positions it can track

    def submit(self, spec: JobSpec) -> Any:
        raise NotImplementedError

    def done(self, handles: Iterable[Any], timeout: float) -> list[Any]:
        raise NotImplementedError

    def outcome(self, handle: Any) -> JobOutcome:
        raise NotImplementedError

    def stop_job(self, job: int, handle: Any) -> None:
        raise NotImplementedError

    def stop_all(self) -> None:
        raise NotImplementedError

    def live_nodes(self) -> int:
        return 0

    def close(self) -> None:
        raise NotImplementedError


def _start_local_worker(parent: int, flags: Any, live: Any) -> None:
    """Pool initializer: the worker ends with the coordinator ``parent`` (even one killed with ``kill -9``),
    and stops its jobs through ``flags``."""
    die_with_parent(parent)
    init_local_worker(flags, live)


class LocalBackend(Backend):
    """A pool of worker processes on this machine; jobs are stopped through shared flags."""

    name = "local"

    def __init__(self, workers: int, n_jobs: int) -> None:
        # fork where there is one: workers start at once and a user's script needs no main guard
        ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        self.workers = workers
        self.max_jobs = n_jobs
        # [0]: stop everything; [j + 1]: generation of node j's current job (a job of another generation stops)
        self.flags = ctx.Array("i", n_jobs + 1, lock=False)
        self.live = ctx.Array("q", max(n_jobs, 1), lock=False)  # nodes of each running job so far
        self._live = np.frombuffer(self.live, dtype=np.int64)  # (summed by numpy: a Python loop over 65,536
        # slots at every poll took a third of a core)
        self.pool = cf.ProcessPoolExecutor(
            max_workers=workers, mp_context=ctx, initializer=_start_local_worker,
            initargs=(os.getpid(), self.flags, self.live)
        )

    def submit(self, spec: JobSpec) -> Any:
        gen = self.flags[spec.job + 1] + 1
        self.flags[spec.job + 1] = gen
        return self.pool.submit(run_job, replace(spec, gen=gen))

    def done(self, handles: Iterable[Any], timeout: float) -> list[Any]:
        finished, _ = cf.wait(list(handles), timeout=timeout, return_when=cf.FIRST_COMPLETED)
        return list(finished)

    def outcome(self, handle: Any) -> JobOutcome:
        try:
            return handle.result()  # type: ignore[no-any-return]
        except cf.process.BrokenProcessPool as err:
            raise KinarowError(f"a worker process died ({err}); the solve cannot go on") from None

    def stop_job(self, job: int, handle: Any) -> None:
        if not handle.cancel():
            self.flags[job + 1] += 1

    def stop_all(self) -> None:
        self.flags[0] = 1

    def live_nodes(self) -> int:
        return int(self._live.sum())

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class DaskBackend(Backend):
    """The same jobs on a Dask cluster; jobs are stopped through Dask events."""

    name = "dask"

    def __init__(self, cluster: Any) -> None:
        try:
            import dask
            from distributed import Client, Event
        except ImportError:
            raise ClusterError(
                "running on a cluster needs Dask's 'distributed' package; "
                "install it with 'pip install kinarow[cluster]'"
            ) from None
        self._Event = Event
        if isinstance(cluster, str):
            seconds = dask.utils.parse_timedelta(CONNECT_TIMEOUT, default="seconds")
            _check_address(cluster)
            try:
                _handshake(cluster, seconds)
                # distributed's own bounds for the connection that stays: the connect, and the client's start
                with dask.config.set({"distributed.comm.timeouts.connect": CONNECT_TIMEOUT}):
                    self.client = Client(cluster, timeout=CONNECT_TIMEOUT)
            except Exception as err:
                raise _connect_error(cluster, seconds, err) from None
            self.own_client = True
        else:
            self.client = cluster
            self.own_client = False
        try:
            info = self.client.scheduler_info()
        except Exception as err:
            if self.own_client:
                with contextlib.suppress(Exception):
                    self.client.close(timeout=CONNECT_TIMEOUT)
            raise ClusterError(f"the Dask scheduler at {shown(str(cluster))} did not say which workers it has "
                               f"({_reason(err)}); check that it is a running Dask scheduler") from None
        self.workers = max(1, sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()))
        self.run = f"kinarow-{uuid.uuid4().hex[:12]}"
        self.events: list[Any] = []
        self.gens: dict[int, int] = {}

    def submit(self, spec: JobSpec) -> Any:
        gen = self.gens.get(spec.job, 0) + 1
        self.gens[spec.job] = gen
        spec = replace(spec, dask_run=self.run, gen=gen)
        return self.client.submit(run_job, spec, pure=False, key=f"{self.run}-{spec.job}-{gen}")

    def done(self, handles: Iterable[Any], timeout: float) -> list[Any]:
        handles = list(handles)
        end = time.monotonic() + timeout
        while True:
            finished = [h for h in handles if h.done()]
            if finished or time.monotonic() >= end:
                return finished
            time.sleep(min(0.01, timeout))

    def outcome(self, handle: Any) -> JobOutcome:
        try:
            return handle.result()  # type: ignore[no-any-return]
        except KinarowError:
            raise
        except Exception as err:
            raise ClusterError(
                f"a job failed on the cluster ({type(err).__name__}: {err}); every worker needs kinarow installed"
            ) from None

    def stop_job(self, job: int, handle: Any) -> None:
        event = self._Event(f"{self.run}-stop-{job}-{self.gens.get(job, 0)}", client=self.client)
        event.set()
        self.events.append(event)
        handle.cancel()

    def stop_all(self) -> None:
        event = self._Event(f"{self.run}-stop", client=self.client)
        event.set()
        self.events.append(event)

    def close(self) -> None:
        for event in self.events:
            with contextlib.suppress(Exception):  # a cluster going away at the end is not our failure
                event.clear()
        if self.own_client:
            self.client.close()
