"""Jobs: what a worker runs (in a local pool process or on a Dask worker).

A :class:`JobSpec` names a frontier position (by its line of play) and its
question: the exact value (:func:`kinarow.search.solve.solve`), one win test
(:func:`win_test`: can the first / second player force a win?), or the
winner's strategy as a walk (:func:`extract`). :func:`run_job` answers it as
a :class:`JobOutcome` (bounds on the value, nodes, seconds, peak memory). A
worker keeps one ``Searcher`` per game between jobs, so its table carries
over. The coordinator stops a job through shared flags (local pool) or Dask
events; the job looks at them while it searches.
"""

from __future__ import annotations

import os
import resource
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kinarow.errors import KinarowError, run_stoppable
from kinarow.game import Game
from kinarow.position import Position
from kinarow.search import connect
from kinarow.search.parallel.frontier import DRAW, EXACT, FIRST, FIRST_WINS, SECOND, SECOND_WINS
from kinarow.search.parallel.frontier import score_of as frontier_score
from kinarow.values import Bound, Value

__all__ = ["JobOutcome", "JobSpec", "extract", "init_local_worker", "run_job", "win_test"]

#: How often (seconds) a running win test reports its node count and looks for Ctrl-C or a stop.
TICK_SECONDS = 0.05
#: How often (seconds) a Dask job asks the scheduler whether it should stop.
DASK_POLL_SECONDS = 0.5


@dataclass(frozen=True)
class JobSpec:
    """One job: solve (or extract the winner's strategy from) the position after ``moves``."""

    job: int  # the frontier node's number
    game: str
    moves: tuple[int, ...]
    tt_mb: float | None
    strategy: bool = False
    gen: int = 0  # the job runs while the node's generation is this number
    dask_run: str | None = None  # name prefix of the Dask events that stop this job
    question: str = EXACT  # EXACT, or "does FIRST_WINS / SECOND_WINS hold?" (one win test)
    knowledge: str = "none"  # the workers' solver knowledge (see kinarow.solve)
    search: str = "alpha-beta"  # "proof": value and win tests by the proof-number search (free boards)
    walk_wins: bool = False  # proof search, one win test: a "yes" also walks the win from the job's own table
    share: bool = False  # proof search: a win's walk has shared replies (checkpoint.pack_shared), not version 3
    table: str | None = None  # proof search, one local worker: the file that keeps the worker's table between runs


@dataclass
class JobOutcome:
    job: int
    bounds: tuple[int, int] | None  # (lo, hi) on the value from the first player's view; None: stopped
    question: str
    nodes: int
    seconds: float
    walk: bytes | None  # a strategy job's walk (the winner's moves in replay order); None: not one, or stopped
    peak_rss_kb: int
    worker: str
    # a stopped proof-search win test where the tested player moves: its most promising move (or, when the walk of
    # a win it proved was stopped, the winning move)
    hint: int | None = None


class _StopRequestedError(Exception):
    pass


_LOCAL: dict[str, Any] = {}
_THREAD = threading.local()


def init_local_worker(flags: Any, live: Any) -> None:
    """Pool initializer: Ctrl-C is the coordinator's business; it stops jobs through ``flags``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _LOCAL["flags"] = flags
    _LOCAL["live"] = live


def _searcher(game: str, tt_mb: float | None, knowledge: str = "none") -> Any:
    """One Searcher per game and worker thread, kept between jobs (its table carries over)."""
    from kinarow.search.alphabeta import Searcher

    cache: dict[tuple[str, float | None, str], Any] = getattr(_THREAD, "searchers", None) or {}
    _THREAD.searchers = cache
    if (game, tt_mb, knowledge) not in cache:
        cache.clear()  # one table per thread at a time
        cache[(game, tt_mb, knowledge)] = Searcher(Game(game), tt_mb=tt_mb, knowledge=knowledge)
    return cache[(game, tt_mb, knowledge)]


def _proof_searcher(game: str, tt_mb: float | None, knowledge: str, table: str | None = None) -> Any:
    """One proof searcher per game and worker thread, kept between jobs (its table carries over); with
    ``table`` the table is also kept in that file between runs (loaded when the searcher is made, written
    when a job is stopped and otherwise at most every :data:`~kinarow.search.proof_search.TABLE_SECONDS`)."""
    from kinarow.limits import default_tt_mb
    from kinarow.search.proof_search import ProofSearcher

    cache: dict[tuple[str, float | None, str, str | None], Any] = getattr(_THREAD, "provers", None) or {}
    _THREAD.provers = cache
    key = (game, tt_mb, knowledge, table)
    if key not in cache:
        cache.clear()
        size = tt_mb if tt_mb is not None else min(default_tt_mb(Game(game)), 256)
        prover = ProofSearcher(game, tt_mb=size, knowledge=knowledge != "none")
        if table is not None:
            prover.keep_table(table, each_question=False)
        cache[key] = prover
    return cache[key]


def _stop_check(spec: JobSpec) -> Callable[[], bool]:
    if spec.dask_run is None:
        flags = _LOCAL.get("flags")
        if flags is None:
            return lambda: False
        return lambda: bool(flags[0] or flags[spec.job + 1] != spec.gen)
    from distributed import Event

    stop_all = Event(f"{spec.dask_run}-stop")
    stop_one = Event(f"{spec.dask_run}-stop-{spec.job}-{spec.gen}")
    last = [0.0, False]

    def check() -> bool:
        now = time.monotonic()
        if now - last[0] >= DASK_POLL_SECONDS:
            last[0] = now
            last[1] = bool(stop_all.is_set() or stop_one.is_set())
        return bool(last[1])

    return check


def _scores(game: Game, search: str, strategy: bool) -> bool:
    """Does a job of ``game`` go to the Connect-k score search (a value job or a win test on a board it takes)?"""
    return search != "proof" and not strategy and bool(connect.score_search_fit(game))


def load_kernels(game: Game, search: str, knowledge: str, strategy: bool) -> None:
    """Load the kernels a job of ``game`` runs from numba's cache, or compile them, said first
    (:func:`kinarow.engine.compiling.prepare`), in this process: the coordinator does it before its workers
    start, so that they fork with the kernels (or load them from the cache) instead of each compiling them
    unannounced."""
    from kinarow.search.alphabeta import Searcher
    from kinarow.search.proof_search import ProofSearcher

    if search == "proof":
        ProofSearcher(game, tt_mb=1, knowledge=knowledge != "none")._prepare()
    elif _scores(game, search, strategy):
        connect.ScoreSearcher(game, tt_mb=1).prepare()
    else:
        Searcher(game, tt_mb=1, knowledge=knowledge)  # (its constructor loads its kernel)


def run_job(spec: JobSpec) -> JobOutcome:
    """Solve one job in a worker (a pool process or a Dask worker)."""
    from kinarow.search.solve import solve as solve_one

    start = time.perf_counter()
    proving = spec.search == "proof"
    game = Game(spec.game)
    # Connect-k: a value job or a win test is answered exactly by the score search (and the shipped book)
    scoring = _scores(game, spec.search, spec.strategy)
    searcher = None if proving or scoring else _searcher(spec.game, spec.tt_mb, spec.knowledge)
    should_stop = _stop_check(spec)
    live = _LOCAL.get("live") if spec.dask_run is None else None
    pos = game.start()
    for c in spec.moves:
        pos.play(c)

    def score_of(result: Value | Bound) -> int:
        return frontier_score(pos.game, result)

    def tick(nodes: int) -> None:
        if live is not None:
            live[spec.job] = nodes
        if should_stop():
            raise KeyboardInterrupt  # solve() turns this into a clean stop of the kernel

    bounds: tuple[int, int] | None
    walk: bytes | None = None
    nodes = 0
    hint: int | None = None
    if proving:  # value jobs, win tests and strategy jobs alike
        bounds, nodes, walk, hint = _proof_job(spec, pos, score_of, tick)
    elif spec.strategy:
        try:
            known = {FIRST_WINS: 1, SECOND_WINS: 2}.get(spec.question)
            walk, winner = extract(pos, searcher, should_stop, known)
            bounds = (score_of(winner), score_of(winner))
        except _StopRequestedError:
            bounds = None
    elif spec.question == EXACT or scoring:
        if scoring:  # without a searcher, solve() takes the score search
            result = solve_one(pos, on_tick=tick, tt_mb=spec.tt_mb, knowledge=spec.knowledge)
        else:
            result = solve_one(pos, searcher=searcher, on_tick=tick)
        nodes = result.nodes
        bounds = None if result.value == Value.UNKNOWN else (score_of(result.value), score_of(result.value))
    else:
        tested = 1 if spec.question == FIRST_WINS else 2
        answer, nodes = win_test(searcher, pos, tested, tick)
        if answer is None:
            bounds = None
        elif tested == 1:
            bounds = (FIRST, FIRST) if answer else (SECOND, DRAW)
        else:
            bounds = (SECOND, SECOND) if answer else (DRAW, FIRST)
    if live is not None:
        live[spec.job] = 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    worker = f"{os.uname()[1]}:{os.getpid()}"
    return JobOutcome(spec.job, bounds, spec.question, nodes, time.perf_counter() - start, walk, peak, worker, hint)


def _proof_job(
    spec: JobSpec, pos: Position, score_of: Callable[[Value], int], tick: Callable[[int], None]
) -> tuple[tuple[int, int] | None, int, bytes | None, int | None]:
    """A job answered by the proof search: (bounds or None when stopped, nodes, the winner's walk or None, the
    most promising move when a win test of the player to move was stopped -- the winning move when it was
    stopped in the walk of its win -- else None).

    A value job answers the exact value or one win test; a win test's "yes" is also walked from the job's
    own table when ``spec.walk_wins`` asks (the table is full of the proof just found: walking it later, in
    another job, would search it all again); a walk that is stopped leaves the value without it. A strategy
    job (``spec.strategy``) proves the known winner's win and walks it."""
    from kinarow.search.proof_search import prove

    prover = _proof_searcher(spec.game, spec.tt_mb, spec.knowledge, spec.table)
    if spec.question == EXACT and not spec.strategy:
        try:
            proved = prove(pos, searcher=prover, on_tick=tick)
        except KeyboardInterrupt:  # stopped by the coordinator (tick) or Ctrl-C
            return None, 0, None, None
        if proved.value == Value.UNKNOWN:
            return None, proved.nodes, None, None
        return (score_of(proved.value), score_of(proved.value)), proved.nodes, None, None
    if spec.question not in (FIRST_WINS, SECOND_WINS):
        raise KinarowError("internal error: a proof-search strategy job needs its winner")
    tested = 1 if spec.question == FIRST_WINS else 2
    try:
        answer = prover.attacker_wins(pos, tested, on_tick=tick)
    except KeyboardInterrupt:  # the table says which move the search was following: the coordinator splits there
        return None, prover.stopped_nodes, None, prover.most_proving_move(pos, tested)
    if answer.wins is None:
        return None, answer.nodes, None, None
    if spec.strategy and not answer.wins:
        raise KinarowError("internal error: a strategy job's stored winner is not the one the search finds")
    bounds = ((FIRST, FIRST) if answer.wins else (SECOND, DRAW)) if tested == 1 else (
        (SECOND, SECOND) if answer.wins else (DRAW, FIRST))
    if not answer.wins or not (spec.strategy or spec.walk_wins):
        return bounds, answer.nodes, None, None
    try:
        if spec.share:
            from kinarow.search.parallel.checkpoint import pack_shared
            from kinarow.search.shared_walk import shared_walk

            written = shared_walk(prover, pos, tested, on_tick=tick)
            assert written is not None and written.tree.walk is not None  # no limit: it ends, or tick stops it
            walk = pack_shared(written.tree.walk, written.tree.size)
            prover.walk_nodes = written.nodes
        else:
            walk = prover.strategy_walk(pos, tested, on_tick=tick)
    except KeyboardInterrupt:
        # the value stands, with the winning move its proof found: a coordinator that stopped the job to split it
        # splits there (the children's jobs walk smaller trees, each kept when it ends), else the strategy is
        # left to a job of its own
        return (None if spec.strategy else bounds), answer.nodes, None, prover.most_proving_move(pos, tested)
    return bounds, answer.nodes + prover.walk_nodes, walk, None


def win_test(searcher: Any, pos: Position, tested: int, tick: Callable[[int], None]) -> tuple[bool | None, int]:
    """Can player ``tested`` (1 or 2) force a win from ``pos``? (answer or None if stopped, nodes).

    The solver's deepening win test for one side only (the same tests that
    :func:`kinarow.solve` interleaves for an exact value), run in a thread so
    that ``tick`` can stop it: ``tick`` raises KeyboardInterrupt to stop.
    """
    from kinarow.engine import kernel as K

    ctrl = searcher.ctrl
    searcher.new_root()

    def stop() -> None:
        ctrl[K.C_STOP] = 1

    try:
        answer = run_stoppable(lambda: searcher.forces_win(pos, tested), stop,
                               lambda: tick(int(ctrl[K.C_NODES])), every=TICK_SECONDS)
    except KeyboardInterrupt:
        answer = None
    return answer, int(ctrl[K.C_NODES])


def extract(
    position: Position, searcher: Any, should_stop: Callable[[], bool], winner: int | None = None
) -> tuple[bytes, Value]:
    """The winner's strategy from a won ``position`` as a walk, and the winner's name; stops between
    positions when asked.

    Same walk as :func:`kinarow.search.solve.extract_strategy` (the compiled
    :meth:`~kinarow.search.solve.Searcher.strategy_walk`): the kernel names a
    winning move at the winner's turns, every reply is followed at the loser's.
    """
    from kinarow.engine import kernel as K
    from kinarow.search.alphabeta import winner_of

    game = position.game
    # One exact solve first, also when the winner is known: the walk's win tests then find its table full.
    # Measured on (10,4,4) after 1. f3 g4 (pairing, 1 GiB table): the solve 12 s and the walk 0.0 s after
    # it; the walk alone, with no solve, had not finished after 300 s.
    value, _ = searcher.best_move(position)
    if value == K.DRAW:
        raise KinarowError("internal error: a strategy job was given a drawn position")
    found = position.to_move if value == K.WIN else 3 - position.to_move
    if winner is not None and winner != found:
        raise KinarowError("internal error: a strategy job's stored winner is not the one the search finds")
    winner = found
    walk = searcher.strategy_walk(position, winner, should_stop)
    if walk is None:  # asked to stop: the job ends here
        raise _StopRequestedError
    return walk, winner_of(game, winner, K.WIN)
