"""``kinarow prove``: every result by one command, ending with a certificate it has checked.

A *case* is a game, or a position after some moves. :func:`plan` picks the route that proves it, the first
of :data:`ROUTES` that fits, and :func:`prove` runs it, keeping its state in one folder per case (resumed
when the same command runs again) and checking the certificate it writes with the compiled checker before
it is kept. The map of routes, in the order they are tried:

=====================  ==============================================  ===========================================
route                  when it fits                                    what proves it (engine -> certificate)
=====================  ==============================================  ===========================================
``blocking tree over   a job checkpoint of the case itself whose       the proof search (df-pn): the defender's
jobs``                 jobs settle "the first player cannot win"       replies near the root taken from the jobs,
                       (``checkpoints/8x8k5.sqlite``): free placement  each position three moves on a unit with a
                       of one stone a turn, normal goal                search and table of its own, on every core
                                                                       -> ``kinarow.draw``: the second player's
                                                                       blocking tree, plus strategy stealing on
                                                                       the empty board
``job run``            a job checkpoint of the case after its first    proof-search jobs, one a reply to the first
                       move (``checkpoints/26x4k4-f2.sqlite``), or of  move, each "yes" walked with shared replies
                       the same game three columns narrower as a       in its job (guided: split at once at the
                       guide (the (m,4,4) family)                      move that won there)
                                                                       -> ``kinarow.strategy-parts``, one walk a
                                                                       reply, read from the checkpoint
``proof search``       free placement, one stone a turn, normal goal,  df-pn in one process, its table kept in the
                       at least ``PROOF_SEARCH_CELLS`` (36) cells and  case folder -> a win: the proof tree read
                       at most 256                                     from that table (shared replies past
                                                                       :data:`SHARE_CELLS` cells); a draw: each
                                                                       side's blocking tree from the same table
``solve``              every other game (small boards, gravity,        :func:`kinarow.search.solve.solve` with
                       misere, Maker-Breaker, several stones a turn)   ``proof=True``: knowledge at the root,
                                                                       alpha-beta or the Connect-k score search,
                                                                       and the certificate
                                                                       :mod:`kinarow.search.certify` writes; on
                                                                       a board the score search holds, first its
                                                                       value and last move (``--strong``), which
                                                                       the certificate's value must match
=====================  ==============================================  ===========================================

Checkpoints are not trusted: a job checkpoint only orders the search (its answers name the replies to try
first, its walks are checked with the rest of the certificate), and a certificate is kept only when its
checker accepts it and it claims the value the search found.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.limits import PROOF_SEARCH_CELLS, check_memory, fitting_tt_mb
from kinarow.position import Position
from kinarow.values import Bound, Fit, Goal, Value

#: a win on a board of more than this many cells is walked with shared replies (version 4): (10,4,4), 40
#: cells, plain 51,713 moves; (18,4,4), 72 cells, 836,966 shared against millions plain
SHARE_CELLS = 40
#: the proof search's table in MiB for a case in one process, by the board's cells (the shipped wins used 2-12
#: GiB; the walk asks again where rows were overwritten, so a small table costs time and moves, not correctness)
PROOF_TT_MB = ((49, 256), (64, 2048), (256, 4096))
#: the table of the solve route on boards of more than 36 cells (Connect Four 7x6: its winning walk took 22
#: minutes with 8 GiB, far longer with the default 64 MiB), at most a third of the machine's memory
SOLVE_TT_MB = 8192
#: each worker's table in a job run (the guided (m,4,4) runs: 4096 MiB, 2.7 GB peak a worker)
JOB_TT_MB = 4096  # (cut down where the workers' tables would not fit: limits.fitting_tt_mb)
#: a job of a job run that has run this long is split into its children, so a stop loses at most this much
JOB_SECONDS = 3600.0
#: the state of a case: these files in its folder (the plan, the proof search's kept table, a job checkpoint,
#: the blocking trees' memories)
PLAN_FILE = "plan.json"
TABLE_FILE = "table.npz"
JOBS_FILE = "jobs.sqlite"


@dataclass(frozen=True)
class Plan:
    """How a case is proved: the route (a name in :data:`ROUTES`), why it fits, and what it starts from.

    ``position`` is where the search starts: the case, or for a job run the position after its first move
    (``first_move``). ``jobs_from`` is a job checkpoint of the case that the run copies into its folder and
    resumes; ``guide`` a checkpoint of a related case that orders a job run's splits."""

    route: str
    why: str
    position: Position
    first_move: str | None = None
    jobs_from: Path | None = None
    guide: Path | None = None
    jobs: int | None = None

    def describe(self) -> str:
        """The plan in one paragraph, for ``kinarow prove --plan``."""
        route = next(r for r in ROUTES if r.name == self.route)
        lines = [f"route:     {self.route} ({route.proves})", f"why:       {self.why}"]
        if self.first_move:
            lines.append(f"first move: {self.first_move}, then {self.jobs:,} jobs (one a reply up to symmetry)")
        if self.jobs_from is not None:
            lines.append(f"resumes:   the job checkpoint {self.jobs_from}")
        if self.guide is not None:
            lines.append(f"guide:     {self.guide}")
        return "\n".join(lines)


@dataclass
class Outcome:
    """What :func:`prove` found: the value, the checked certificate (None when the value stayed unknown), its
    kind (``strategy``, ``parts``, ``draw``, ...), what it proves in words, and the figures of the run."""

    plan: Plan
    value: Value | str
    data: dict[str, Any] | None
    kind: str | None
    what: str
    nodes: int = 0
    seconds: float = 0.0
    check_seconds: float = 0.0
    check_reason: str = ""
    stopped: str | None = None
    figures: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Settings:
    """The choices of a run that a user may set: processes, the table size, where related checkpoints are
    looked for, and the progress hooks (``on_tick(count)``; ``say(line)`` for a step that begins)."""

    workers: int = 0  # 0: every core
    tt_mb: float | None = None
    checkpoints: Path | None = None
    on_tick: Callable[[int], None] | None = None
    say: Callable[[str], None] | None = None

    @property
    def processes(self) -> int:
        return self.workers or os.cpu_count() or 1


@dataclass(frozen=True)
class Route:
    """One way to prove a case: ``fits(position, settings)`` gives its :class:`Plan` or the reason it does not
    fit; ``run(plan, folder, settings)`` proves it."""

    name: str
    proves: str
    fits: Callable[[Position, Settings], Plan | str]
    run: Callable[[Plan, Path, Settings], Outcome]


# -- naming ----------------------------------------------------------------------------------------
def case_name(position: Position) -> str:
    """The case's name, safe as a file name: the game (flags joined by ``_``) and its moves, e.g.
    ``26x4k4-f2``, ``7x6k4_gravity``."""
    game = re.sub(r"[:,]", "_", str(position.game))
    moves = [position.name(c) for c in position.moves]
    return "-".join([game, *moves])


def _free_normal(game: Game) -> Fit:
    """Whether the blocking-tree, job-run and proof-search routes apply to ``game`` (free placement, one stone a
    turn, the normal goal, at most 256 cells)."""
    from kinarow.search.proof_search import proof_search_fit

    if game.goal != Goal.NORMAL:
        return Fit.no(f"{game} does not have the normal goal")
    return proof_search_fit(game)


def _checkpoint_folder(settings: Settings) -> Path | None:
    folder = settings.checkpoints
    return folder if folder is not None and folder.is_dir() else None


# -- route: a blocking tree over the jobs of a one-sided job run ----------------------------------
def _fits_tree_over_jobs(position: Position, settings: Settings) -> Plan | str:
    game = position.game
    fit = _free_normal(game)
    if not fit:
        return fit.reason
    folder = _checkpoint_folder(settings)
    own = None if folder is None else folder / f"{case_name(game.start())}.sqlite"
    if own is None or not own.is_file():
        return "no job checkpoint of this game's first-player question is at hand"
    settled = _settled_by(own, position)
    if settled not in (Bound.SECOND_OR_DRAW, Value.DRAW):
        return f"the jobs of {own} do not settle that the first player cannot win here (they say {settled})"
    return Plan("blocking tree over jobs", f"the jobs of {own} settle that the first player cannot win",
                position, jobs_from=own)


def _settled_by(checkpoint: Path, position: Position) -> Value | Bound | str:
    """What the finished jobs of ``checkpoint`` settle about ``position``, read from a copy (the file is
    never written; an older file lacks tables a checkpoint opened for reading needs)."""
    from kinarow.search.parallel import JobStore, stored_value

    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / checkpoint.name
        shutil.copyfile(checkpoint, copy)
        store = JobStore(copy)
        try:
            settled, _ = stored_value(position.copy(), store)
        except KinarowError as error:
            raise KinarowError(str(error).replace(str(copy), str(checkpoint))) from None
        finally:
            store.close()
    return settled


def _rows_checked(checkpoint: Path, game: Game) -> None:
    """Refuse (one sentence naming the file and the row) a checkpoint of ``game`` whose rows disagree with each
    other or with the rules (:meth:`~kinarow.search.parallel.checkpoint.JobStore.check`), before a plan rests on
    it; read from a copy, as :func:`_settled_by` reads it."""
    from kinarow.search.parallel import JobStore

    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / checkpoint.name
        shutil.copyfile(checkpoint, copy)
        store = JobStore(copy)
        try:
            store.check(str(game))
        except KinarowError as error:
            raise KinarowError(str(error).replace(str(copy), str(checkpoint))) from None
        finally:
            store.close()


def _run_tree_over_jobs(plan: Plan, folder: Path, settings: Settings) -> Outcome:
    from kinarow.proofs import envelope
    from kinarow.proofs.draw import FORMAT, HALVES, STEALING, VERSION, claim_for, stealing_fit
    from kinarow.search.disproof import extract_tree, job_hints

    position = plan.position
    jobs = _copied_jobs(plan, folder)
    hint = job_hints(position, 1, jobs)
    _say(settings, f"writing the second player's blocking tree (the defender's replies near the root from {jobs})")
    start = time.perf_counter()
    said = [-1]  # the count said last

    def share(done: int, total: int) -> None:  # at the start and at a save that settled more of them
        if total and done != said[0]:
            said[0] = done
            _say(settings, f"blocking tree: {done:,} of {total:,} positions three moves on are settled "
                           f"({100 * done / total:.0f}%)")

    half, stats, work = extract_tree(position, 1, checkpoint=folder / "tree-1.npz", hint=hint,
                                     tick=settings.on_tick, tt_mb=256, defender_pairings=False, on_share=share,
                                     workers=settings.processes)
    names = [position.name(c) for c in position.moves]
    halves = {HALVES[1]: half}
    if stealing_fit(position.game, names):
        halves[HALVES[2]] = {"method": STEALING}
    data = {**envelope(FORMAT, VERSION, str(position.game), names, claim_for(position.game, {1} if len(halves) == 1
                                                                             else {1, 2})), **halves}
    value: Value | str = Value.DRAW if len(halves) == 2 else data["claim"]
    what = (f"the second player's blocking tree ({stats.positions:,} positions, {stats.leaves:,} pairing leaves)"
            + (" and strategy stealing" if len(halves) == 2 else ""))
    return Outcome(plan, value, data, "draw", what, nodes=work.nodes, seconds=time.perf_counter() - start,
                   figures={"positions": stats.positions, "pairing_leaves": stats.leaves,
                            "asked_again": work.reasked})


def _copied_jobs(plan: Plan, folder: Path) -> Path:
    """The case folder's job checkpoint, copied from ``plan.jobs_from`` when the folder has none yet (the
    committed file is never written to)."""
    path = folder / JOBS_FILE
    if not path.exists() and plan.jobs_from is not None:
        part = path.with_suffix(".part")
        shutil.copyfile(plan.jobs_from, part)
        os.replace(part, path)
    return path


# -- route: a job run after the first move, one strategy a reply -------------------------------------
_WIDTH = re.compile(r"^(\d+)x(\d+)k(\d+)$")


def _fits_job_run(position: Position, settings: Settings) -> Plan | str:
    game = position.game
    fit = _free_normal(game)
    if not fit:
        return fit.reason
    if position.moves:
        return "a job run starts from the empty board (its first move is the one its checkpoint names)"
    folder = _checkpoint_folder(settings)
    if folder is None:
        return "no folder of job checkpoints is at hand"
    name = case_name(position)
    own = sorted(folder.glob(f"{name}-*.sqlite"))
    guide = None
    if own:
        jobs_from: Path | None = own[0]
        first = own[0].stem[len(name) + 1:]
        why_fits = f"the job checkpoint {own[0]} of this case after 1. {first}"
    else:
        width = _WIDTH.match(name)
        if width is None:
            return "no job checkpoint of this case, nor of a narrower width of it, is at hand"
        m, n, k = map(int, width.groups())
        narrower = sorted(folder.glob(f"{m - 3}x{n}k{k}-*.sqlite"))
        if not narrower:
            return f"no job checkpoint of this case, nor of {m - 3}x{n}k{k} to guide it, is at hand"
        jobs_from, guide = None, narrower[0]
        first = guide.stem.split("-", 1)[1]
        why_fits = (f"the job checkpoint {guide} of the width three columns narrower: a job a reply to 1. {first}, "
                    "each split at once at the move that won there")
    start = position.copy()
    try:
        start.play_moves(first)
    except KinarowError as error:
        return f"the checkpoint's first move '{first}' cannot be played here ({error})"
    source = jobs_from if jobs_from is not None else guide
    assert source is not None
    _rows_checked(source, game)
    from kinarow.search.parallel.frontier import expand

    replies = len(expand(start, jobs=2**30, max_depth=1).open_jobs())
    return Plan("job run", why_fits, start, first_move=first, jobs_from=jobs_from, guide=guide, jobs=replies)


def _run_job_run(plan: Plan, folder: Path, settings: Settings) -> Outcome:
    from kinarow.search import parallel
    from kinarow.search.parallel.merge import parts_certificate

    workers = settings.processes
    tt_mb = settings.tt_mb or fitting_tt_mb(workers, JOB_TT_MB)  # (the user's table was checked by prove())
    jobs = _copied_jobs(plan, folder)
    _say(settings, f"job run after 1. {plan.first_move}: {plan.jobs:,} jobs on {workers} worker"
         f"{'s' if workers != 1 else ''}, each win walked with shared replies")
    result = parallel.solve(plan.position, workers=workers, jobs=plan.jobs, tt_mb=tt_mb,
                            strategy=True, merge=False, checkpoint=jobs, on_tick=settings.on_tick,
                            knowledge="matching", max_job_seconds=JOB_SECONDS, question="first-wins"
                            if plan.position.to_move == 2 else "second-wins", search="proof", share=True,
                            guide=plan.guide)
    figures = {"jobs": result.jobs, "jobs_answered": result.jobs_solved, "peak_rss_mb": round(result.peak_rss_mb)}
    if result.stopped:
        return Outcome(plan, Value.UNKNOWN, None, None, "the job run stopped before it had an answer",
                       nodes=result.nodes, seconds=result.seconds, stopped=result.stopped, figures=figures)
    winner = 3 - plan.position.to_move
    if result.value != Value.win(plan.position.game.goal, winner):
        return Outcome(plan, result.value, None, None, f"after 1. {plan.first_move} the job run answers "
                       f"{result.value}: this first move does not win, and no other route is tried",
                       nodes=result.nodes, seconds=result.seconds, figures=figures)
    store = parallel.JobStore(jobs)
    try:
        data, prescribed = parts_certificate(plan.position, store)
    finally:
        store.close()
    figures["prescribed"] = prescribed
    what = (f"the {data['winner']} player's win, playing {data['first_move']}, in {len(data['parts'])} parts "
            f"({prescribed:,} prescribed moves)")
    return Outcome(plan, result.value, data, "parts", what, nodes=result.nodes, seconds=result.seconds,
                   figures=figures)


# -- route: the proof search in one process ------------------------------------------------------------
def _fits_proof_search(position: Position, settings: Settings) -> Plan | str:
    game = position.game
    fit = _free_normal(game)
    if not fit:
        return fit.reason
    if game.cells < PROOF_SEARCH_CELLS:
        return f"{game} has {game.cells} cells, fewer than {PROOF_SEARCH_CELLS}: alpha-beta's certificates come first"
    return Plan("proof search", f"the proof search applies to {game} ({game.cells} cells)", position)


def _run_proof_search(plan: Plan, folder: Path, settings: Settings) -> Outcome:
    from kinarow.proofs.tree import StrategyTree
    from kinarow.search.proof_search import ProofSearcher, prove, table_size_mb
    from kinarow.search.shared_walk import shared_walk_fit

    position = plan.position
    game = position.game
    table = str(folder / TABLE_FILE)
    tt_mb = table_size_mb(table, game) or settings.tt_mb or next(mb for cells, mb in PROOF_TT_MB
                                                                 if game.cells <= cells)
    searcher = ProofSearcher(game, tt_mb=tt_mb)
    searcher.keep_table(table)
    _say(settings, f"proof search of {game} ({tt_mb:,.0f} MiB table, kept in {table})")
    start = time.perf_counter()
    proved = prove(position, searcher=searcher, on_tick=settings.on_tick)
    nodes = proved.nodes
    # the walks and trees below ask many small questions: the table is written only now and then, and on a stop
    searcher.table_each_question = False
    if proved.value == Value.UNKNOWN:
        return Outcome(plan, Value.UNKNOWN, None, None, "the proof search stopped before it had an answer",
                       nodes=nodes, seconds=time.perf_counter() - start, stopped=proved.stopped or "stopped")
    winner = proved.value.stone
    if winner is not None:
        share = game.cells > SHARE_CELLS and bool(shared_walk_fit(game))
        _say(settings, f"{proved.value} wins: walking the proof tree from the table"
             + (" with shared replies" if share else ""))
        if share:
            from kinarow.search.shared_walk import shared_walk

            written = shared_walk(searcher, position, winner, on_tick=settings.on_tick,
                                  keep=table + ".shared.npz")
            assert written is not None  # no time limit: it finishes (Ctrl-C is raised)
            tree, walk_nodes = written.tree, written.nodes
        else:
            walk = searcher.strategy_walk(position, winner, on_tick=settings.on_tick)
            tree = StrategyTree(str(game), [position.name(c) for c in position.moves], proved.value, walk=walk)
            walk_nodes = searcher.walk_nodes
        data = tree.to_json()
        return Outcome(plan, proved.value, data, "strategy", f"the winning strategy of the {tree.winner} player "
                       f"({tree.described})", nodes=nodes + walk_nodes, seconds=time.perf_counter() - start,
                       figures={"walk_nodes": walk_nodes})
    return _draw_from_table(plan, folder, settings, searcher, nodes, start)


def _draw_from_table(plan: Plan, folder: Path, settings: Settings, searcher: Any, nodes: int,
                     start: float) -> Outcome:
    """A draw the proof search found, written from its own table: the blocking tree against each player (the
    second player's half by strategy stealing where it applies)."""
    from kinarow.search.disproof import draw_from_table

    written = draw_from_table(plan.position, searcher, folder=folder, tick=settings.on_tick,
                              say=lambda line: _say(settings, line))
    return Outcome(plan, Value.DRAW, written.data, "draw", written.what, nodes=nodes + written.nodes,
                   seconds=time.perf_counter() - start, figures={"positions": written.positions})


# -- route: solve() with its certificate ------------------------------------------------------------------
def _fits_solve(position: Position, settings: Settings) -> Plan | str:
    from kinarow.engine.tables import MAX_CELLS
    from kinarow.search import connect
    from kinarow.search.alphabeta import alpha_beta_cells

    game = position.game
    if game.cells > alpha_beta_cells(game):
        return (f"{game} has {game.cells} cells; the solver's certificates are written for boards of at most "
                f"{alpha_beta_cells(game)} cells, and the proof search (up to 256) takes free placement, one stone "
                "a turn and the normal goal only")
    if game.cells > MAX_CELLS and connect.score_search_fit(game):
        return (f"{game} has {game.cells} cells, and a Connect-k board of more than {MAX_CELLS} cells is searched "
                "by the score search alone, which writes no certificate yet")
    return Plan("solve", "the solver's own certificate: knowledge at the root, alpha-beta or the score search",
                position)


def _run_solve(plan: Plan, folder: Path, settings: Settings) -> Outcome:
    from kinarow.search import connect
    from kinarow.search.solve import solve

    position = plan.position
    game = position.game
    tt_mb = settings.tt_mb or (_at_most_a_third(SOLVE_TT_MB) if game.cells > 36 else None)
    figures: dict[str, Any] = {}
    if connect.score_search_fit(game):
        # the game's length, by the score search (a search value: no certificate claims it); its value must be
        # the one the certificate's search finds below
        strong = solve(position, strong=True, on_tick=settings.on_tick, threads=settings.processes)
        if strong.stopped:
            return Outcome(plan, Value.UNKNOWN, None, None, "the score search stopped before it had an answer",
                           nodes=strong.nodes, seconds=strong.seconds, stopped=strong.stopped)
        figures["last_move"] = strong.last_move if strong.value != Value.DRAW else game.cells
        _say(settings, f"the score search: {strong.value}, the last move stone {figures['last_move']} "
             f"({strong.nodes:,} nodes); now the value's certificate")
    _say(settings, f"solving {game} with its certificate")
    result = solve(position, proof=True, walk=game.cells <= 128, tt_mb=tt_mb, on_tick=settings.on_tick,
                   on_proof_tick=settings.on_tick, threads=settings.processes if figures else 1)
    if figures and not result.stopped and result.value != strong.value:
        raise KinarowError(f"internal error: the score search found {strong.value} but the certificate's search "
                           f"{result.value}")
    proof = result.proof
    data = None if proof is None else proof.data
    kind = None if proof is None else proof.kind
    what = "no certificate" if proof is None else proof.what
    nodes = result.nodes + (strong.nodes if figures else 0)
    return Outcome(plan, result.value, data, kind, what, nodes=nodes, seconds=result.seconds,
                   stopped=result.stopped, figures=figures)


def _at_most_a_third(mb: float) -> float:
    """``mb``, or a third of the machine's memory in MiB when that is less."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    except (ValueError, OSError, AttributeError):
        return mb
    return max(64.0, min(mb, total / 3))


#: the routes, tried in order (see the module docstring's map)
ROUTES: tuple[Route, ...] = (
    Route("blocking tree over jobs", "kinarow.draw: a blocking tree written over a job run's answers",
          _fits_tree_over_jobs, _run_tree_over_jobs),
    Route("job run", "kinarow.strategy-parts: one walk a reply, from proof-search jobs",
          _fits_job_run, _run_job_run),
    Route("proof search", "a win's proof tree or a draw's blocking trees, from one proof search's table",
          _fits_proof_search, _run_proof_search),
    Route("solve", "the certificate of solve(proof=True)", _fits_solve, _run_solve),
)


def plan(position: Position, settings: Settings | None = None) -> Plan:
    """The route that proves ``position`` (the first of :data:`ROUTES` that fits) and what it starts from."""
    settings = settings or Settings()
    reason = ""
    for route in ROUTES:
        fit = route.fits(position, settings)
        if isinstance(fit, Plan):
            return fit
        reason = fit
    raise KinarowError(f"no route of kinarow prove takes this case: {reason}")


# -- the run ---------------------------------------------------------------------------------------------
def prove(position: Position, folder: str | os.PathLike[str], settings: Settings | None = None) -> Outcome:
    """Prove ``position`` by the route :func:`plan` picks, keeping the state in ``folder`` (made when missing;
    a folder of another case is refused), and check the certificate: the outcome's ``data`` is set only when
    the checker accepts it and its claim is the value found."""
    settings = settings or Settings()
    path = Path(folder)
    chosen = plan(position, settings)
    if chosen.route == "job run" and settings.tt_mb is not None:  # every worker a table (a default is fitted)
        check_memory(settings.processes, settings.tt_mb, "--tt-mb")
    _open_folder(path, position, chosen)
    run = next(r for r in ROUTES if r.name == chosen.route).run
    start = time.perf_counter()
    outcome = run(chosen, path, settings)
    outcome.seconds = time.perf_counter() - start  # the whole run: the value and its certificate
    if outcome.data is not None:
        _check(outcome, settings)
    return outcome


def _open_folder(path: Path, position: Position, chosen: Plan) -> None:
    """Make the case folder, or resume one: its plan file must name the same case (a folder of another case,
    or one whose plan file is not kinarow's, is refused in one sentence)."""
    if path.exists() and not path.is_dir():
        raise KinarowError(f"the case folder '{path}' is a file; give a folder for the run's state")
    path.mkdir(parents=True, exist_ok=True)
    mine = {"format": "kinarow.prove-state", "version": 1, "case": case_name(position), "game": str(position.game),
            "moves": [position.name(c) for c in position.moves], "route": chosen.route}
    plan_file = path / PLAN_FILE
    if plan_file.exists():
        try:
            kept = json.loads(plan_file.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            kept = None
        if not isinstance(kept, dict) or kept.get("format") != mine["format"]:
            raise KinarowError(f"'{plan_file}' is not the state of a kinarow prove run; give another --dir")
        if kept.get("case") != mine["case"] or kept.get("route") != mine["route"]:
            raise KinarowError(f"the folder '{path}' holds the run of {kept.get('case')} by the route "
                               f"'{kept.get('route')}', not of {mine['case']} by '{mine['route']}'; give another --dir")
        return
    part = plan_file.with_suffix(".part")
    part.write_text(json.dumps(mine, indent=1) + "\n", encoding="utf-8")
    os.replace(part, plan_file)


def _check(outcome: Outcome, settings: Settings) -> None:
    """Check the certificate with the compiled checker; keep it only when it is accepted and claims the value
    found (else a KinarowError: a certificate that fails is an internal error, never written)."""
    from kinarow.proofs import check_data

    assert outcome.data is not None
    _say(settings, "checking the certificate (compiled checker)")
    start = time.perf_counter()
    verdict = check_data(outcome.data, compiled=True, on_tick=settings.on_tick)
    outcome.check_seconds = time.perf_counter() - start
    outcome.check_reason = verdict.reason
    if not verdict.ok:
        raise KinarowError(f"internal error: the certificate written by the route '{outcome.plan.route}' fails "
                           f"its check: {verdict.reason}")
    claim = _claim_in(outcome.data, outcome.plan.position.game)
    if claim != claim_of(outcome.value):
        raise KinarowError(f"internal error: the certificate claims '{claim}', but the search found "
                           f"{outcome.value}")
    outcome.figures["positions_checked"] = verdict.details.get("positions_checked")


def _claim_in(data: dict[str, Any], game: Game) -> str | None:
    """What a certificate claims: its ``claim`` field, or for matching sets (which name the players each set
    stops) the claim of those players' halves."""
    from kinarow.proofs.draw import claim_for
    from kinarow.proofs.matching import FORMAT as MATCHING

    if "claim" in data:
        return str(data["claim"])
    if data.get("format") == MATCHING:
        stopped = {1 if str(cover.get("player")) == "first" else 2 for cover in data.get("covers", [])}
        return str(claim_for(game, stopped)) if stopped else None
    return None


def claim_of(value: Value | str) -> str:
    """The claim a certificate of ``value`` makes: ``draw``, ``first wins``, ...; a one-sided claim (``first
    cannot win``) is its own."""
    if value in (Value.DRAW, Value.UNKNOWN) or not isinstance(value, Value):
        return str(value)
    return f"{value} wins"


def _say(settings: Settings, line: str) -> None:
    if settings.say is not None:
        settings.say(line)
