"""The coordinator: one parallel solve from frontier to answer (:func:`solve`).

It grows the frontier (:mod:`~kinarow.search.parallel.frontier`), hands the
jobs the frontier's alpha-beta walk needs to a back end
(:mod:`~kinarow.search.parallel.backends`) a few at a time, records each
answer in the frontier and the checkpoint
(:mod:`~kinarow.search.parallel.checkpoint`), stops jobs whose answer is no
longer needed, and splits a long job into its children when a worker would
otherwise sit idle (or when it has run ``max_job_seconds``).

A win comes with the winner's strategy (:class:`~kinarow.proofs.tree.StrategyTree`)
when asked for: the frontier part is read off the solved DAG (the winner
takes a child whose value is a win for it; every reply of the loser is
followed) and each frontier leaf it reaches is extracted by a job, in the
leaf's own canonical frame and mapped to every symmetric image where it is
used (:mod:`~kinarow.search.parallel.merge`). The result is checked by
:func:`kinarow.proofs.tree.check` like any other strategy.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from typing import Any, TypedDict, Unpack

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.limits import (
    SEARCHES,
    check_count,
    check_flag,
    check_knowledge,
    check_memory,
    check_seconds,
    check_workers,
    default_tt_mb,
    said,
)
from kinarow.position import Position
from kinarow.proofs.tree import StrategyTree, follow
from kinarow.search.alphabeta import knowledge_fit
from kinarow.search.options import Limits, OptionError, folded
from kinarow.search.parallel.backends import LOCAL_JOB_SLOTS, Backend, DaskBackend, LocalBackend
from kinarow.search.parallel.checkpoint import JobStore, unpack_shared
from kinarow.search.parallel.frontier import (
    DRAW,
    EXACT,
    FIRST,
    FIRST_WINS,
    INNER,
    JOB,
    SECOND,
    SECOND_WINS,
    STORED,
    Frontier,
    Node,
    ordered_moves,
    start_position,
)
from kinarow.search.parallel.guide import Guide
from kinarow.search.parallel.jobs import JobOutcome, JobSpec, load_kernels
from kinarow.search.parallel.merge import SharedMerge, fingered, mapped, merged_walk, rows_of_choices, rows_of_walk
from kinarow.search.result import Result
from kinarow.search.solve import (
    ALPHA_BETA,
    PROOF_SEARCH,
    SCORE_SEARCH,
    proof_search_applies,
    score_kernel_serves,
    sharing_fit,
    with_reason,
)
from kinarow.values import Player, Value

__all__ = ["ParallelOptions", "ParallelResult", "solve", "splits_well"]

#: Open positions per worker that the frontier aims for when ``jobs`` is not given.
JOBS_PER_WORKER = 2
#: bound of the ``jobs`` argument (frontier positions, each kept in memory); ``workers`` is bounded as a pool's
MAX_JOBS = 1_000_000
#: How often (seconds) the coordinator looks at the clock, the node count and Ctrl-C.
POLL_SECONDS = 0.05
#: A job that has run this long (seconds) is split into its children when a worker has nothing to do.
SPLIT_AFTER_SECONDS = 1.0
#: the most of the winner's moves, over all kept walks, that a run checks before its value rests on them (a
#: compiled check replays about 50,000 moves a second: (10,4,4) after 1. e2 has 161,958 in 39 walks)
CHECK_MOVES = 500_000
#: the boards on which kept walks are checked so (the compiled checker's; larger ones replay in Python)
WALK_CHECK_CELLS = 64


@dataclass
class ParallelResult(Result):
    """A :class:`~kinarow.search.solve.Result` with what the parallel solve did.

    ``nodes`` is the sum over every job run (also those stopped because their
    answer was no longer needed); ``seconds`` is wall time from the start of
    the frontier expansion to the answer (and the strategy, when asked for).
    """

    workers: int = 1
    backend: str = "local"
    frontier_depth: int = 0
    frontier_nodes: int = 0
    jobs: int = 0
    jobs_solved: int = 0
    jobs_stopped: int = 0
    jobs_from_checkpoint: int = 0
    splits: int = 0
    guided: int = 0  # of the splits: jobs split at once at the guide's move
    job_seconds: float = 0.0
    peak_rss_mb: float = 0.0
    strategy_stopped: str | None = None  # the value is proved but its strategy was not finished (why)
    #: the positions whose bounds were read from the checkpoint with no kept walk that the strategy checker
    #: accepted behind them: the value rests on those rows as written (0: on none, or on checked walks only)
    unchecked: int = 0
    checkpoint: str | None = None  # the checkpoint file read (None: none)
    log: list[dict[str, Any]] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out.update(
            {
                "workers": self.workers,
                "backend": self.backend,
                "frontier_depth": self.frontier_depth,
                "frontier_nodes": self.frontier_nodes,
                "jobs": self.jobs,
                "jobs_solved": self.jobs_solved,
                "jobs_stopped": self.jobs_stopped,
                "jobs_from_checkpoint": self.jobs_from_checkpoint,
                "splits": self.splits,
                "guided": self.guided,
                "job_seconds": round(self.job_seconds, 3),
                "peak_rss_mb": round(self.peak_rss_mb, 1),
            }
        )
        if self.strategy_stopped:
            out["strategy_stopped"] = self.strategy_stopped
        if self.unchecked:
            out["unchecked_from_checkpoint"] = self.unchecked
        return out

    @property
    def checkpoint_note(self) -> str | None:
        """The sentence that says the value rests on rows of the checkpoint that nothing checked, or None."""
        if not self.unchecked or self.checkpoint is None or self.value == Value.UNKNOWN:
            return None
        rows = f"{self.unchecked:,} answer{'s' if self.unchecked != 1 else ''}"
        return (f"This value rests on {rows} read from the checkpoint '{self.checkpoint}' as written (no kept "
                "strategy that the checker accepts backs them); --proof FILE writes its certificate and checks it.")


@dataclass(frozen=True)
class ParallelOptions:
    """What :func:`solve` (the parallel solve) is asked to do; each field means what its keyword of the same name
    means there. Its fields, and the rules between them, are checked once, when it is made; the rules that need
    the game too are :func:`solve`'s.

    Where the jobs run (``workers`` local processes, or a Dask ``cluster``), about how many frontier positions
    to make (``jobs``), the SQLite ``checkpoint`` that keeps finished jobs, when a running job is split
    (``max_job_seconds``), what the root is asked (``question``), whether a move that keeps a stolen draw is
    proved (``best_move``), the jobs' ``knowledge`` and ``search``, whether a win's ``strategy`` is written and
    with shared replies (``share``), the file that keeps one worker's proof ``table``, the checkpoint of
    another width to ``guide`` the splits, and whether the jobs' walks are merged into one strategy (``merge``).
    """

    workers: int | None = None
    cluster: Any = None
    jobs: int | None = None
    checkpoint: str | os.PathLike[str] | None = None
    max_job_seconds: float | None = None
    question: str = EXACT
    best_move: bool = True
    knowledge: str = "matching"
    search: str = "auto"
    strategy: bool = False
    share: bool = False
    table: str | os.PathLike[str] | None = None
    guide: str | os.PathLike[str] | None = None
    merge: bool = True

    def __post_init__(self) -> None:
        check_knowledge(self.knowledge)
        if self.search not in SEARCHES:
            raise OptionError(f"search must be one of {', '.join(SEARCHES)}, not {said(self.search)}")
        if self.workers is not None:  # (local processes are bounded by the cores; a cluster's are its own)
            object.__setattr__(self, "workers", check_workers(self.workers) if self.cluster is None
                               else check_count(self.workers, "workers"))
        object.__setattr__(self, "jobs", check_count(self.jobs, "jobs", upper=MAX_JOBS))
        object.__setattr__(self, "max_job_seconds", check_seconds(self.max_job_seconds, "max_job_seconds"))
        for name in ("strategy", "best_move", "share", "merge"):
            object.__setattr__(self, name, check_flag(getattr(self, name), name))
        if not isinstance(self.question, str) or self.question not in QUESTIONS:
            raise OptionError(f"the question {said(self.question)} is unknown; allowed are {', '.join(QUESTIONS)}")
        if self.table is not None and (not isinstance(self.table, str | os.PathLike) or not str(self.table)):
            raise OptionError(f"table names the file that keeps the worker's proof table, not {said(self.table)}")
        if self.guide is not None and self.question == EXACT:
            raise OptionError("guide splits the jobs of a win test at the moves that won another width: give it "
                              "with question='first-wins' or 'second-wins'")
        if self.share and (not self.strategy or self.search == "alpha-beta"):
            raise OptionError(SHARE_RULE)

    @property
    def one_worker(self) -> bool:
        """Do the jobs run on one local worker (``workers`` 1, or not given on a machine of one core)?"""
        return self.cluster is None and (self.workers or os.cpu_count() or 1) == 1


#: the parallel solve's share rule (:func:`solve` adds the game's reason where it has one)
SHARE_RULE = ("share walks the jobs' wins with shared replies from the proof search's zones: give it with "
              "strategy=True and search='proof'")
#: the questions a parallel solve may ask of the root
QUESTIONS = (EXACT, FIRST_WINS, SECOND_WINS)


class ParallelKeywords(TypedDict, total=False):
    """The keywords of :func:`solve`'s compatibility form: each a field of :class:`~kinarow.search.options.Limits` or
    :class:`ParallelOptions`."""

    max_nodes: int | None
    time_limit: float | None
    tt_mb: float | None
    workers: int | None
    cluster: Any
    jobs: int | None
    checkpoint: str | os.PathLike[str] | None
    max_job_seconds: float | None
    question: str
    best_move: bool
    knowledge: str
    search: str
    strategy: bool
    share: bool
    table: str | os.PathLike[str] | None
    guide: str | os.PathLike[str] | None
    merge: bool


def solve(
    target: Game | Position | str,
    *,
    moves: str | None = None,
    limits: Limits | None = None,
    options: ParallelOptions | None = None,
    on_tick: Callable[[int], None] | None = None,
    **keywords: Unpack[ParallelKeywords],
) -> ParallelResult:
    """Solve a game or position on several processes (or a Dask cluster); same values as :func:`kinarow.solve`.

    ``limits`` (:class:`~kinarow.search.options.Limits`: ``max_nodes``, ``time_limit``, ``tt_mb`` per worker) and
    ``on_tick`` mean what they mean for :func:`kinarow.solve`; ``options`` is a :class:`ParallelOptions`. Each
    of their fields may also be given as a keyword of its own (the compatibility form, folded into the two
    bundles first):

    ``workers`` local processes (default: every core) run the jobs, unless
    ``cluster`` names a Dask scheduler (``tcp://HOST:PORT``) or is a
    ``distributed.Client``. ``jobs`` is about how many frontier positions to
    make (default :data:`JOBS_PER_WORKER` per worker). ``checkpoint`` is an
    SQLite file that keeps finished jobs: run the same call again to resume.
    ``strategy`` means what it means for :func:`kinarow.solve`. When the value
    comes from strategy stealing (a draw of an empty board), finding a move
    that keeps it takes more search; ``best_move=False`` skips that search.
    ``knowledge`` is the workers' solver knowledge (``none``, ``pairing`` or
    ``matching``, as for :func:`kinarow.solve`). ``max_job_seconds`` splits
    a job that has run that long into its children, even while every worker
    is busy: with a checkpoint, a run that is stopped then loses at most
    about that much work per worker (a search that takes many runs needs
    this); without it a job is split only when a worker would sit idle.
    ``question`` asks the root less than its exact value: ``"first-wins"``
    (can the first player force a win?) or ``"second-wins"``; every job then
    runs one win test, and a "no" comes back as a bound (``second-or-draw``,
    ``first-or-draw``). ``search`` chooses the jobs' search as for :func:`kinarow.solve`: ``proof`` (the
    proof-number search, free boards of up to 128 cells), ``alpha-beta`` (up to 64 cells), or ``auto`` (the proof
    search where :func:`kinarow.solve` would take it). With the proof search a strategy is the proof read from
    each job's own table: a job that answers a win test "yes" walks it at once (kept in the checkpoint beside
    its value), so a ``question`` run with ``strategy`` searches each leaf once; alpha-beta extracts the leaves'
    strategies in jobs of their own after the value is known. ``share`` (the proof search, with ``strategy``)
    walks each win with shared replies and merges them into a strategy of version 4
    (:mod:`kinarow.search.shared_walk`). ``table`` (the proof search on one local worker) keeps the worker's
    table in that file between runs, as :meth:`~kinarow.search.proof_search.ProofSearcher.keep_table` does
    (loaded at the start, written when the run is stopped and at most every half hour of search besides), so
    that a job stopped with the run resumes from the table it had built; ``tt_mb`` must then stay the same.
    ``guide`` (with a one-sided ``question``) names the checkpoint of another width of the same game: each open
    win test of the tested player is split at once at the move that won the same line there
    (:mod:`kinarow.search.parallel.guide`), and the split is kept in ``checkpoint``. ``merge=False`` (with
    ``strategy``) leaves the jobs' walks in ``checkpoint`` unmerged (``ParallelResult.strategy`` stays None), for
    a certificate of one strategy a reply (:func:`kinarow.search.parallel.merge.parts_certificate`).
    """
    limits, options = folded("solve", ("moves", "limits", "options", "on_tick"), dict(keywords), limits, options,
                             ParallelOptions)
    position = start_position(target, moves)
    game = position.game
    proving = proof_search_applies(game, options.search, options.knowledge)
    if options.table is not None:
        if not proving or not options.one_worker:
            raise KinarowError("table keeps the table of one worker's proof search: give it with search='proof', "
                               "workers=1 and no cluster")
        from kinarow.search.proof_search import table_size_mb

        kept = table_size_mb(str(options.table), game)  # a kept table resumes with its own size
        if kept:
            limits = replace(limits, tt_mb=kept)
    if options.share:
        fit = sharing_fit(game)
        if not proving or not fit:
            raise KinarowError(SHARE_RULE + (f"; and {game} does not allow it ({fit.reason})" if not fit else ""))
    if game.cells > 64 and not proving:
        from kinarow.errors import SolverLimitError
        from kinarow.search.proof_search import proof_search_fit

        fit = proof_search_fit(game)
        other = ("; the proof search takes such boards (search 'proof')" if fit
                 else f", and the proof search does not apply ({fit.reason})")
        raise SolverLimitError(f"{game} has {game.cells} cells; alpha-beta jobs handle boards of at most 64 cells"
                               f"{other}")
    to_move = None if position.is_over else Player.of(position.to_move)
    if position.is_over:
        assert position.result is not None
        return with_reason(position, ParallelResult(str(game), position.move_text(), position.result, 0, 0.0, None,
                                                    to_move))
    start = time.perf_counter()
    deadline = start + limits.time_limit if limits.time_limit else None
    n_workers = options.workers or os.cpu_count() or 1
    if options.cluster is None and (limits.tt_mb is not None or (options.workers or 1) > 1):  # (defaults fit)
        check_memory(n_workers, limits.tt_mb or default_tt_mb(game))

    store = JobStore(options.checkpoint) if options.checkpoint is not None else None
    backend: Backend | None = None
    run: _Run | None = None
    if store is not None:
        try:
            store.lock_for_run()  # one run at a time on a file: a second is refused in one sentence
        except KinarowError:
            store.close()
            raise
        store.clear_running(str(game))  # marks left by a run that was killed (none can be running now)
    try:
        frontier = Frontier(position, store)
        frontier.ask(options.question)
        if options.cluster is not None:
            backend = DaskBackend(options.cluster)
            n_workers = backend.workers
        frontier.expand(options.jobs or JOBS_PER_WORKER * n_workers)
        checked = _check_walks(frontier, store) if store is not None and not options.strategy else set()
        if backend is None and any(n.kind in (JOB, STORED) for n in frontier.nodes):
            load_kernels(game, "proof" if proving else "alpha-beta", options.knowledge, options.strategy)
            backend = LocalBackend(n_workers, max(4 * len(frontier.nodes), LOCAL_JOB_SLOTS))
        run = _Run(frontier, backend, store, limits, options, proving, deadline, on_tick, n_workers)
        if options.guide is not None:
            run.follow(Guide(options.guide, position, 1 if options.question == FIRST_WINS else 2))
        stopped = run.values()
        root = frontier.nodes[frontier.root]
        strategy_stopped: str | None = None
        if (not stopped and options.best_move and options.question == EXACT and root.kind == INNER
                and frontier.best_move(position) is None):
            # the value rests on strategy stealing; prove a move that keeps it (the value stands if this stops)
            root.prior_lo = SECOND
            frontier.recompute(root)
            if run.values() is not None:
                root.prior_lo = DRAW
                frontier.recompute(root)
        tree: StrategyTree | None = None
        if not stopped and options.strategy and options.merge and root.resolved and root.lo != DRAW:
            tree, strategy_stopped = run.strategy(position)
        if backend is not None:
            run._drain(backend, 30.0)  # the stopped jobs report within a poll of their kernels
    finally:
        if backend is not None:
            backend.close()
        if store is not None:
            store.clear_running(str(game))
            store.close()
    seconds = time.perf_counter() - start
    best = None if stopped else frontier.best_move(position)
    peak_kb = max(run.peak_rss_kb, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    if backend is not None and backend.name == "local":
        peak_kb = max(peak_kb, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    knowledge = options.knowledge
    return with_reason(position, ParallelResult(
        str(game),
        position.move_text(),
        Value.UNKNOWN if stopped else frontier.bounds_name(root.lo, root.hi),
        run.nodes,
        seconds,
        best,
        to_move,
        stopped=stopped,
        strategy=tree,
        workers=n_workers,
        backend=backend.name if backend is not None else "local",
        frontier_depth=frontier.depth,
        frontier_nodes=len(frontier.nodes),
        jobs=sum(1 for n in frontier.nodes if n.kind == JOB),
        jobs_solved=run.solved,
        jobs_stopped=run.stopped_jobs,
        jobs_from_checkpoint=sum(1 for n in frontier.nodes if n.stored),
        splits=run.splits,
        guided=run.guided,
        job_seconds=run.job_seconds,
        peak_rss_mb=peak_kb / 1024,
        strategy_stopped=strategy_stopped,
        unchecked=sum(1 for n in frontier.nodes if n.stored and n.id not in checked),
        checkpoint=None if options.checkpoint is None else str(options.checkpoint),
        log=run.log,
        knowledge=knowledge,
        knowledge_note=(knowledge_fit(game).reason or None) if knowledge != "none" else None,
        search=_search_name(run.search, game),
    ))


def _check_walks(frontier: Frontier, store: JobStore) -> set[int]:
    """The stored wins of the frontier whose kept walks the strategy checker accepts, checked now (at most
    :data:`CHECK_MOVES` of the winner's moves in all, the smallest walks first); a walk it rejects refuses the
    checkpoint. The other stored rows are answers taken as written (``ParallelResult.unchecked``); on boards of
    more than :data:`WALK_CHECK_CELLS` cells no walk is checked here."""
    sizes = {(p, w): n for p, _, w, n in store.kept_walks(frontier.game_text)}
    wins = []
    for node in frontier.nodes:
        if node.stored and node.resolved and node.lo != DRAW:
            winner = frontier.result_name(node.lo)
            if (node.key, winner) in sizes:
                wins.append((sizes[node.key, winner], node.id, winner))
    checked: set[int] = set()
    if frontier.game.cells > WALK_CHECK_CELLS:
        return checked
    budget = CHECK_MOVES
    for size, node_id, winner in sorted(wins):
        if size > budget:
            break
        budget -= size
        if store.walk_checks(frontier.game_text, frontier.nodes[node_id].key, winner):
            checked.add(node_id)
    return checked


def _search_name(search: str, game: Game) -> str:
    """The name of the search that answered a run's value jobs (``Result.search``): the proof search when asked,
    the score search on the games the Connect-k kernel serves, else alpha-beta (see :func:`jobs.run_job`)."""
    if search == "proof":
        return PROOF_SEARCH
    return SCORE_SEARCH if score_kernel_serves(game) else ALPHA_BETA


def _tested_moves(node: Node, question: str) -> bool:
    """Is the job a one-sided win test of the player to move (whose split needs that player's move)?"""
    return (question == FIRST_WINS and node.to_move == 1) or (question == SECOND_WINS and node.to_move == 2)


def splits_well(node: Node, question: str) -> bool:
    """Is splitting this job likely to pay: a one-sided win test where the *other* player moves?

    Then a "yes" needs every child (no speculation), and a "no" needs one.
    Where the tested player moves, the kernel's own move order finds a win far
    faster than children tried in the frontier's static order, so such jobs
    (and exact-value jobs) are left whole.
    """
    if question == FIRST_WINS:
        return node.to_move == 2
    if question == SECOND_WINS:
        return node.to_move == 1
    return False


class _Run:
    """The coordinator's loop: hand out needed jobs, collect values, stop what is no longer needed.

    A job's number is its frontier node's number.
    """

    def __init__(
        self,
        frontier: Frontier,
        backend: Backend | None,
        store: JobStore | None,
        limits: Limits,
        options: ParallelOptions,
        proving: bool,
        deadline: float | None,
        on_tick: Callable[[int], None] | None,
        workers: int,
    ) -> None:
        self.frontier = frontier
        self.backend = backend
        self.tt_mb = limits.tt_mb
        self.knowledge = options.knowledge
        self.search = "proof" if proving else "alpha-beta"  # the jobs' search
        # proof search: a win test's "yes" walks the win in the same job, from its own full table
        self.walk_wins = options.strategy and proving and options.question != EXACT
        self.share = options.share  # proof search: the wins' walks have shared replies (a strategy of version 4)
        # proof search, one local worker: the file keeping its table between runs
        self.table: str | None = None if options.table is None else str(options.table)
        self.walks: dict[int, bytes] = {}  # node -> the winner's walk from it, found by its value job
        self.splitting: set[int] = set()  # jobs told to stop so that they are split at the move they report
        self.store = store
        self.max_nodes = limits.max_nodes
        self.deadline = deadline
        self.on_tick = on_tick
        self.capacity = workers
        self.split_after = SPLIT_AFTER_SECONDS
        self.max_job_seconds = options.max_job_seconds  # split any job this old, busy workers or not
        self.splits = 0
        self.guided = 0
        self.nodes = 0
        self.solved = 0
        self.stopped_jobs = 0
        self.job_seconds = 0.0
        self.peak_rss_kb = 0
        self.log: list[dict[str, Any]] = []
        self._marked: set[int] = set()  # the jobs the checkpoint shows as running
        self._stopped: list[Any] = []  # handles of jobs told to stop whose outcome is not awaited: their nodes count

    def _budget_stop(self, backend: Backend) -> str | None:
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            return "time limit"
        if self.max_nodes is not None and self.nodes + backend.live_nodes() >= self.max_nodes:
            return "node limit"
        return None

    def _count(self, backend: Backend, handle: Any) -> JobOutcome | None:
        """A finished job's outcome, its nodes, seconds and memory added to the run's (None: cancelled unstarted)."""
        if handle.cancelled():
            return None
        out = backend.outcome(handle)
        self.nodes += out.nodes
        self.job_seconds += out.seconds
        self.peak_rss_kb = max(self.peak_rss_kb, out.peak_rss_kb)
        return out

    def _stop(self, backend: Backend, job: int, handle: Any) -> None:
        """Stop a job whose answer is no longer awaited; its nodes still count once it reports (:meth:`_drain`)."""
        backend.stop_job(job, handle)
        self.stopped_jobs += 1
        self._stopped.append(handle)

    def _drain(self, backend: Backend, timeout: float = 0.0) -> None:
        """Count the stopped jobs that have reported (waiting at most ``timeout`` seconds for all of them)."""
        end = time.monotonic() + timeout
        while self._stopped:
            finished = backend.done(self._stopped, max(0.0, min(POLL_SECONDS, end - time.monotonic())))
            ended = {id(h) for h in finished}
            self._stopped = [h for h in self._stopped if id(h) not in ended]
            for handle in finished:
                out = self._count(backend, handle)
                if out is not None:
                    self._log(out)["value"] = "stopped"
            if time.monotonic() >= end:
                return

    def _collect(self, backend: Backend, running: dict[int, Any], timeout: float) -> list[JobOutcome]:
        self._drain(backend)
        if not running:
            return []
        finished = backend.done(running.values(), timeout)
        by_handle = {id(h): j for j, h in running.items()}
        outs: list[JobOutcome] = []
        for handle in finished:
            del running[by_handle[id(handle)]]
            out = self._count(backend, handle)
            if out is not None:
                outs.append(out)
        return outs

    def _shutdown(self, backend: Backend, running: dict[int, Any]) -> None:
        """Stop every job and wait (at most half a minute) for the workers to report back."""
        backend.stop_all()
        end = time.monotonic() + 30
        while running and time.monotonic() < end:
            for out in self._collect(backend, running, 0.1):
                self._log(out)
        self._drain(backend, max(0.0, end - time.monotonic()))

    def _mark_running(self, running: Collection[int], asked: dict[int, str]) -> None:
        """Keep the checkpoint's running marks equal to the jobs running now (written only on a change)."""
        if self.store is None:
            return
        now = set(running)
        if now == self._marked:
            return
        fr = self.frontier
        for job in self._marked - now:
            self.store.unmark_running(fr.game_text, fr.nodes[job].key)
        for job in now - self._marked:
            line = " ".join(fr.cell_names(fr.nodes[job].moves))
            self.store.mark_running(fr.game_text, fr.nodes[job].key, line, asked.get(job, "strategy"))
        self._marked = now

    def _tick(self, backend: Backend) -> None:
        if self.on_tick is not None:
            self.on_tick(self.nodes + backend.live_nodes())

    def values(self) -> str | None:
        """Run value jobs until the root is decided; returns why it stopped early, or None."""
        fr = self.frontier
        backend = self.backend
        if fr.decided() or backend is None:
            return None
        running: dict[int, Any] = {}
        asked: dict[int, str] = {}  # the question each running job answers
        started: dict[int, float] = {}
        try:
            while not fr.decided():
                needed = fr.needed(running)
                wanted = dict(needed)
                for job, handle in list(running.items()):
                    question = wanted.get(job)
                    # keep a job while its answer still helps: same question, or one of them is the exact value
                    if question is None or (EXACT not in (question, asked[job]) and question != asked[job]):
                        if job in self.splitting:  # told to stop for a split (counted then): not awaited now
                            self.splitting.discard(job)
                            self._stopped.append(handle)
                        else:
                            self._stop(backend, job, handle)
                        del running[job]
                if not needed and not running:
                    raise KinarowError("internal error: the root is open but no job is needed")
                for job, question in needed:
                    if len(running) >= self.capacity:
                        break
                    if job not in running:
                        spec = JobSpec(job, fr.game_text, fr.nodes[job].moves, self.tt_mb, question=question,
                                       knowledge=self.knowledge, search=self.search,
                                       walk_wins=self.walk_wins and question != EXACT, share=self.share,
                                       table=self.table)
                        running[job] = backend.submit(spec)
                        asked[job] = question
                        started[job] = time.monotonic()
                # split the oldest job that is due: past max_job_seconds, or (a worker idle and nothing else
                # needed) past split_after with a question that splits well; its children take over
                now = time.monotonic()
                due: list[int] = []
                if len(fr.nodes) + fr.game.cells <= backend.max_jobs:
                    if self.max_job_seconds is not None:
                        due = [j for j in running if fr.nodes[j].kind == JOB and j not in self.splitting
                               and now - started[j] >= self.max_job_seconds]
                    if not due and len(running) < self.capacity and all(job in running for job, _ in needed):
                        due = [j for j in running
                               if fr.nodes[j].kind == JOB and now - started[j] >= self.split_after
                               and splits_well(fr.nodes[j], asked[j])]
                if due:
                    oldest = min(due, key=lambda j: started[j])
                    if self.search == "proof" and _tested_moves(fr.nodes[oldest], asked[oldest]):
                        # a proof-search win test of the player to move: split it when it has stopped and named the
                        # move its search was following (_record), so that the children try that move first
                        backend.stop_job(oldest, running[oldest])
                        self.splitting.add(oldest)
                        self.stopped_jobs += 1
                        continue
                    self._split(oldest)
                    self._stop(backend, oldest, running.pop(oldest))
                    continue
                for out in self._collect(backend, running, POLL_SECONDS):
                    self._record(out)
                self._mark_running(running, asked)
                self._tick(backend)
                why = self._budget_stop(backend)
                if why is not None and not fr.decided():
                    self._shutdown(backend, running)
                    return why
        except KeyboardInterrupt:
            self._shutdown(backend, running)
            return "interrupted"
        for job, handle in running.items():
            self._stop(backend, job, handle)
        running.clear()
        return None

    def _log(self, out: JobOutcome) -> dict[str, Any]:
        fr = self.frontier
        entry: dict[str, Any] = {
            "moves": " ".join(fr.cell_names(fr.nodes[out.job].moves)),
            "question": "strategy" if out.walk is not None else out.question,
            "value": "stopped" if out.bounds is None else fr.bounds_name(*out.bounds),
            "nodes": out.nodes,
            "seconds": round(out.seconds, 3),
            "worker": out.worker,
        }
        self.log.append(entry)
        return entry

    def follow(self, guide: Guide) -> None:
        """Split every open job of the tested player at once at the guide's move there (kept in the checkpoint,
        so a resumed run splits it again whether or not it is given the guide)."""
        fr = self.frontier
        try:
            for node in list(fr.nodes):
                if node.kind == JOB and not node.resolved:
                    move = guide.move(fr.position(node))
                    if move is not None:
                        self._split(node.id, move)
                        self.guided += 1
        finally:
            guide.close()

    def _split(self, job: int, first: int | None = None) -> None:
        """Split a running job's leaf (its children become jobs; ``first``: the cell whose child is asked first) and
        keep the split in the checkpoint, so that a resumed solve splits it again at once."""
        fr = self.frontier
        node = fr.nodes[job]
        fr.split(job, first=first)
        self.splits += 1
        if self.store is not None:
            self.store.put_split(fr.game_text, node.key, " ".join(fr.cell_names(node.moves)), first)

    def _record(self, out: JobOutcome) -> None:
        entry = self._log(out)
        fr = self.frontier
        if out.job in self.splitting:
            self.splitting.discard(out.job)
            # stopped in its walk: a win proved but not walked. Split it at the winning move too, value unsettled:
            # the children's jobs prove and walk smaller trees, each kept as it ends, where the walk of the whole
            # would be lost at the next stop and left to one strategy job that no split can shorten
            walk_stopped = (self.walk_wins and out.bounds is not None and out.walk is None
                            and out.bounds[0] == out.bounds[1] != DRAW and out.hint is not None)
            if (out.bounds is None or walk_stopped) and fr.nodes[out.job].kind == JOB:
                self._split(out.job, out.hint)
                if walk_stopped:
                    # the winning move's child would prove nearly the same tree again and run out of time as this job
                    # did: its replies are the jobs at once
                    lead = fr.nodes[fr.nodes[out.job].children[0]]
                    if lead.kind == JOB and not lead.resolved:
                        self._split(lead.id)
                    entry["value"] = "split while walking"
                    return
        if out.bounds is None:
            return
        node = fr.nodes[out.job]
        self.solved += 1
        fr.settle(node.id, *out.bounds)
        if self.store is not None:
            bounds = (node.lo, node.hi)
            value = fr.bounds_name(*bounds)
            self.store.put(fr.game_text, node.key, entry["moves"], bounds, value, out.nodes, out.seconds)
        if out.walk is not None and out.bounds[0] == out.bounds[1] != DRAW:  # a win, walked by its value job
            self.walks[node.id] = out.walk
            if self.store is not None:
                winner = fr.result_name(out.bounds[0])
                self.store.put_strategy(fr.game_text, node.key, entry["moves"], winner, out.walk, out.seconds)

    # -- the winner's strategy --------------------------------------------------------------
    def strategy(self, position: Position) -> tuple[StrategyTree | None, str | None]:
        """The winner's strategy: the frontier part from the DAG, the leaves' parts from extraction jobs."""
        fr = self.frontier
        win = fr.nodes[fr.root].lo
        winner = 1 if win == FIRST else 2
        tree = StrategyTree(fr.game_text, [position.name(c) for c in position.moves], fr.result_name(win), {})
        uses: dict[int, list[tuple[int, ...]]] = {}  # leaf node -> symmetries that map a real board onto it

        def leaf(pos: Position) -> bool:
            """A job's (or stored) position: its part of the strategy comes from an extraction job."""
            ckey, sym = fr.canonical(pos.board)
            node = fr.nodes[fr.by_key[ckey]]
            proved_here = node.own_lo == node.own_hi == win  # by its own job (a job split while it ran)
            if node.kind in (JOB, STORED) or (proved_here and not fr.children_prove(pos, winner, win)):
                if sym not in uses.setdefault(node.id, []):
                    uses[node.id].append(sym)
                return True
            return False

        def choose(pos: Position) -> int:
            for cell in ordered_moves(pos):
                pos.play(cell)
                ok = pos.result == tree.winner if pos.is_over else fr.child_score(pos) == win
                pos.undo()
                if ok:
                    return cell
            raise KinarowError(f"internal error: no winning move after {pos.move_text() or '(start)'}")

        frontier_part = follow(position, winner, choose, leaf)
        shared = SharedMerge(fr.game, winner) if self.share else None  # parts read into rows of version 4
        parts = [] if shared is not None else [fingered(rows_of_choices(fr.game, frontier_part))]
        if shared is not None:
            shared.add_choices(frontier_part)
        who = FIRST_WINS if win == FIRST else SECOND_WINS  # the winner, known from the frontier
        backend = self.backend
        if uses and backend is None:
            raise KinarowError("internal error: frontier leaves to extract but no workers")

        def add_leaf(n: int, walk: bytes) -> None:
            if shared is not None:
                shared.add_walk(fr.position(fr.nodes[n]), walk, uses[n])
                return
            rows = rows_of_walk(fr.position(fr.nodes[n]), winner, walk)
            parts.extend(fingered(mapped(rows, sym)) for sym in uses[n])  # 9 bytes a move, kept until the merge

        running: dict[int, Any] = {}
        from_store = False  # does a leaf's walk come from the checkpoint (so that a failed merge names it)?
        budget = CHECK_MOVES
        try:
            pending = []
            for n in uses:
                node = fr.nodes[n]
                kept = self.walks.get(n)
                if kept is None and self.store is not None:
                    kept = self.store.get_strategy(fr.game_text, node.key, tree.winner)
                    if kept is not None and len(kept) <= budget and fr.game.cells <= WALK_CHECK_CELLS:
                        # checked before it is merged, while cheap (the compiled checker's boards)
                        budget -= len(kept)
                        self.store.walk_checks(fr.game_text, node.key, tree.winner)
                    from_store = from_store or kept is not None
                if kept is not None and (unpack_shared(kept) is None) == (shared is not None):
                    kept = None  # kept in the other form: walked again in this run's (the merge reads one form)
                if kept is not None:  # extracted by an earlier run
                    add_leaf(n, kept)
                    continue
                pending.append(JobSpec(n, fr.game_text, node.moves, self.tt_mb, strategy=True, question=who,
                                       knowledge=self.knowledge, search=self.search, share=self.share,
                                       table=self.table))
            if not pending and backend is not None and backend.name == "local":
                backend.close()  # the merge needs no worker: free their tables first (they can hold most memory)
            stored_leaves = [fr.nodes[spec.job] for spec in pending if fr.nodes[spec.job].stored]
            while pending or running:
                assert backend is not None
                while pending and len(running) < self.capacity:
                    spec = pending.pop(0)
                    running[spec.job] = backend.submit(spec)
                try:
                    outs = self._collect(backend, running, POLL_SECONDS)
                except KinarowError as err:
                    if not stored_leaves or self.store is None:
                        raise
                    lines = ", ".join(" ".join(fr.cell_names(n.moves)) or "the start" for n in stored_leaves[:3])
                    raise KinarowError(f"the checkpoint '{self.store.path}' has a damaged row: a win it stores "
                                       f"without a kept strategy (of {lines}) is not one the strategy job finds "
                                       f"({' '.join(str(err).split())[:100]}); delete the file to start again"
                                       ) from None
                for out in outs:
                    if out.walk is None:
                        self._shutdown(backend, running)
                        return None, "interrupted"
                    self._log(out)
                    if self.store is not None:
                        node = fr.nodes[out.job]
                        line = " ".join(fr.cell_names(node.moves))
                        self.store.put_strategy(fr.game_text, node.key, line, tree.winner, out.walk, out.seconds)
                    add_leaf(out.job, out.walk)
                self._mark_running(running, {})
                self._tick(backend)
                why = self._budget_stop(backend)
                if why is not None:
                    self._shutdown(backend, running)
                    return None, why
            try:
                if shared is not None:
                    walk, moves = shared.walk(position)
                    return replace(tree, walk=walk, shared=moves), None
                walk = merged_walk(position, winner, parts)
            except KinarowError as err:
                if not from_store or self.store is None:
                    raise
                raise KinarowError(f"the checkpoint '{self.store.path}' has a damaged row: a kept strategy does not "
                                   f"merge into a win ({' '.join(str(err).split())[:100]}); delete the file to "
                                   "start again") from None
        except KeyboardInterrupt:
            if backend is not None:
                self._shutdown(backend, running)
            return None, "interrupted"
        return replace(tree, walk=walk), None
