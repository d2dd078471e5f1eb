"""Command-line parts of parallel solving: ``solve --workers/--cluster/--checkpoint`` and ``kinarow settle``.

``kinarow settle [CASE ...]`` runs the long cases (open or recently solved
games) on every core or a Dask cluster, each with a time limit, and writes
what it found: a winning strategy (a certificate ``kinarow check`` verifies)
for a win, a search log for a draw (the jobs, their answers and node counts:
evidence, not a certificate), nothing but the figures for a case that did not
finish.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import time
from collections import Counter
from contextlib import nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from kinarow.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    UsageError,
    check_output_folder,
    check_outputs,
    file_fields,
    input_files,
    positive_float,
    positive_int,
    print_result,
    progress,
    progress_bar,
    same_file,
    walk_option,
    write_files,
    write_json,
)
from kinarow.errors import KinarowError, interrupted
from kinarow.game import Game
from kinarow.papers import open_cases
from kinarow.papers.open_cases import Case
from kinarow.position import Position, value_names
from kinarow.values import Bound, Value


# -- options on `kinarow solve` ------------------------------------------------------------
def add_solve_options(p: argparse.ArgumentParser) -> None:
    """The parallel options of ``kinarow solve``."""
    p.add_argument(
        "--workers", metavar="N", default=None,
        help="solve on N local processes: the tree is split at a frontier into jobs (default 1: one process)",
    )
    p.add_argument(
        "--cluster", metavar="ADDRESS", default=None,
        help="run the jobs on a Dask cluster, e.g. tcp://HOST:8786 (needs 'pip install kinarow[cluster]')",
    )
    p.add_argument(
        "--jobs", metavar="N", default=None, help="aim for about N frontier positions (default 24 per worker)"
    )
    p.add_argument(
        "--checkpoint", metavar="FILE", default=None,
        help="keep finished jobs in this SQLite file; run the same command again to resume",
    )
    p.add_argument(
        "--status", action="store_true",
        help="with --checkpoint: list the jobs of this game that the file holds, and stop (searches nothing)",
    )
    p.add_argument(
        "--question", choices=("exact", "first-wins", "second-wins"), default=None,
        help="ask less than the exact value: only whether the first (second) player can force a win; every job "
             "runs one win test, and a 'no' is a bound (solved in frontier jobs; default: exact)",
    )
    p.add_argument(
        "--max-job-seconds", metavar="S", default=None,
        help="split a job that has run S seconds into its children, even while every worker is busy, so that a "
             "stopped run loses at most about S seconds per worker (default: split only to feed an idle worker); "
             "a proof-search win test of the player to move is split at the move its search was following",
    )
    p.add_argument(
        "--guide", metavar="FILE", default=None,
        help="with --question first-wins/second-wins: split each open win test at once at the move that won the "
             "same line in FILE, the checkpoint of this game on another width (a stone's column is kept from the "
             "nearer edge); the guide orders the search, every answer is still proved",
    )


def wants_parallel(args: argparse.Namespace) -> bool:
    """Does this ``solve`` go through the frontier jobs (workers > 1, --jobs, a cluster, a checkpoint, job splits)?"""
    workers = positive_int("--workers", getattr(args, "workers", None))
    jobs = positive_int("--jobs", getattr(args, "jobs", None))
    cluster, checkpoint = getattr(args, "cluster", None), getattr(args, "checkpoint", None)
    split = getattr(args, "max_job_seconds", None) is not None
    one_sided = getattr(args, "question", None) not in (None, "exact")
    guided = getattr(args, "guide", None) is not None
    return (workers or 1) > 1 or bool(jobs) or bool(cluster) or bool(checkpoint) or split or one_sided or guided


def _job_status(position: Position, path: Path, as_json: bool, out: TextIO, question: str = "exact") -> int:
    """``solve GAME --checkpoint FILE --status``: the finished jobs of ``game`` that the checkpoint holds.

    Also what they settle about the position asked for (``--moves``) and
    which open positions can still change that (for ``--question``, as a run
    asking it would see them), searching nothing.
    """
    from kinarow.search import parallel

    if path.exists() and not path.is_file():
        raise UsageError(f"--checkpoint {path} is a directory; give the SQLite file of a solve's jobs")
    game = position.game
    rows: list[dict[str, Any]] = []
    kept: list[dict[str, Any]] = []
    busy: list[dict[str, Any]] = []
    splits = 0
    replies: list[tuple[str, Value | Bound]] = []
    line = " ".join(position.name(c) for c in position.moves)
    value: Value | Bound = Value.UNKNOWN
    open_lines = [line]
    if path.exists():
        store = parallel.JobStore(path)
        try:
            frontier = parallel.stored_frontier(position, store, question)
            value, open_lines = frontier.settled()
            replies = frontier.replies(position)
            rows = [{"moves": moves, "value": value, "nodes": nodes, "seconds": round(seconds, 1), "finished": when}
                    for moves, value, nodes, seconds, when in store.jobs(str(game))]
            kept = [{"moves": moves, "winner": winner, "prescribed_moves": size, "seconds": round(seconds, 1),
                     "finished": when} for moves, winner, size, seconds, when in store.strategies(str(game))]
            busy = [{"moves": moves, "question": question, "started": when}
                    for moves, question, when in store.running(str(game))]
            splits = len(store.splits(str(game), game.cells))
        finally:
            store.close()
    if as_json:
        print(json.dumps({"game": str(game), "moves": line, "checkpoint": str(path),
                          "jobs": rows, "strategies": kept, "running": busy, "splits": splits, "settled": value,
                          "open": open_lines,
                          "moves_from_here": [{"move": m, "settled": v} for m, v in replies]}),
              file=out)
        return EXIT_OK
    if not rows:
        print(f"{game}: no finished jobs in {path}", file=out)
        _print_running(busy, out)
        return EXIT_OK
    values = Counter(row["value"] for row in rows)
    print(f"{game}: {len(rows)} finished job{'s' if len(rows) != 1 else ''} in {path} ("
          + ", ".join(f"{n} {v}" for v, n in sorted(values.items())) + "; lines up to symmetry, as stored)",
          file=out)
    for row in rows:
        print(f"  {row['moves'] or '(start)':<24} {row['value']:<15} {row['nodes']:>16,} nodes "
              f"{row['seconds']:>10,.1f} s  {row['finished']} UTC", file=out)
    if kept:
        print(f"{len(kept)} winner's strateg{'ies' if len(kept) != 1 else 'y'} extracted (kept for the next run "
              "with --strategy or --proof):", file=out)
    for row in kept:
        print(f"  {row['moves'] or '(start)':<24} {row['winner']:<15} {row['prescribed_moves']:>10,} prescribed "
              f"moves {row['seconds']:>10,.1f} s  {row['finished']} UTC", file=out)
    _print_running(busy, out)
    if splits:
        print(f"{splits:,} job{'s were' if splits != 1 else ' was'} split (while running, --max-job-seconds, or at a "
              "guide's move, --guide); a resumed solve splits them again at once.", file=out)
    where = "From the start" if not position.moves else f"After {position.move_text()}"
    if open_lines:
        shown = ", ".join(open_lines[:3]) + (f" and {len(open_lines) - 3:,} more" if len(open_lines) > 3 else "")
        print(f"{where} the stored jobs settle: {value}; {len(open_lines):,} open "
              f"position{'s' if len(open_lines) != 1 else ''} can still change it ({shown}).", file=out)
    else:
        print(f"{where} the stored jobs settle: {value}.", file=out)
        if position.moves and kept and value == value_names(game)[position.to_move % 2]:  # won by the last mover
            print(f"Its certificate needs no more search: kinarow parts {game} --moves {shlex.quote(line)} "
                  f"--checkpoint {shlex.quote(str(path))} --out {game}.parts.json.gz", file=out)
    decided = [(m, v) for m, v in replies if v != Value.UNKNOWN]
    if open_lines and decided:
        print(f"Of the {len(replies):,} moves from here (up to symmetry), the stored jobs settle {len(decided):,}: "
              + ", ".join(f"{m} {v}" for m, v in decided) + ".", file=out)
    return EXIT_OK


#: what a running job is asked, in words
_QUESTIONS = {"exact": "the exact value", "first-wins": "can the first player win?",
              "second-wins": "can the second player win?", "strategy": "the winner's strategy"}


def _print_running(busy: list[dict[str, Any]], out: TextIO) -> None:
    """The jobs a solve writing the checkpoint is running now, with how long each has run."""
    if not busy:
        return
    now = datetime.now(UTC).replace(tzinfo=None)
    print(f"{len(busy)} job{'s' if len(busy) != 1 else ''} running (a solve that was killed leaves these marks "
          "until the next solve of the game starts):", file=out)
    for row in busy:
        started = datetime.fromisoformat(row["started"])
        minutes = max(0.0, (now - started).total_seconds() / 60)
        print(f"  {row['moves'] or '(start)':<24} {_QUESTIONS.get(row['question'], row['question']):<28} "
              f"since {row['started']} UTC ({minutes:,.0f} min)", file=out)


def cmd_solve_parallel(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.limits import MAX_TT_MB
    from kinarow.search import certify, parallel

    max_nodes = positive_int("--max-nodes", args.max_nodes)
    time_limit = positive_float("--time-limit", args.time_limit)
    tt_mb = positive_float("--tt-mb", args.tt_mb, upper=MAX_TT_MB)
    workers = _local_workers(args.workers, args.cluster)
    jobs = positive_int("--jobs", args.jobs)
    max_job_seconds = positive_float("--max-job-seconds", args.max_job_seconds)
    position = Game(args.game).position(args.moves)
    if not args.status:
        _check_tables(workers or 1, tt_mb, position.game, args.cluster)
    if args.status:
        return _job_status(position, Path(args.checkpoint), args.json, out, args.question or "exact")
    # (--table without --search proof, and --share without --search proof --walk: refused by kinarow solve's options)
    if args.table is not None and (args.cluster or (workers or 1) != 1):
        raise UsageError("--table keeps the table of one worker between runs; give it with one worker "
                         "(--workers 1, the default) and no --cluster")
    if args.guide is not None and (args.question or "exact") == "exact":
        raise UsageError("--guide splits the win tests at the moves that won another width; give it with "
                         "--question first-wins or --question second-wins")
    count = workers or 1
    if args.guide is not None and Path(args.guide).is_file():  # (a bad guide is refused by the solve)
        _note_unguided(position, args.question, jobs, count, err)
    where = f"on the cluster at {args.cluster}" if args.cluster else f"on {count} worker{'s' if count != 1 else ''}"
    with progress(f"solving {position.game} {where}", err) as tick:
        result = parallel.solve(
            position,
            workers=workers or 1,
            cluster=args.cluster,
            jobs=jobs,
            max_nodes=max_nodes,
            time_limit=time_limit,
            tt_mb=tt_mb,
            strategy=args.strategy is not None or args.proof is not None,
            checkpoint=args.checkpoint,
            on_tick=tick,
            knowledge=args.knowledge,
            max_job_seconds=max_job_seconds,
            question=args.question or "exact",
            search=args.search,
            share=args.share,
            table=args.table,
            guide=args.guide,
        )
    proof = args.proof is not None
    with walk_option(), progress("writing the certificate", err) if proof else nullcontext() as tick:
        result = certify.certify(position, result, proof=proof, walk=args.walk, tick=tick)
    note, proof_note = write_files(args, result)
    if args.json:
        print(json.dumps({**result.to_dict(), **file_fields(args, result)}), file=out)
        if note and result.strategy is None:
            print(note, file=err)
    else:
        if result.proof is None and result.checkpoint_note:  # said before the value that rests on it
            print(result.checkpoint_note, file=out)
        print_result(position, result, out)
        for key, value in _parallel_rows(result):
            print(f"{key + ':':<10} {value}", file=out)
        for line in (note, proof_note):
            if line:
                print(line, file=out)
    if result.stopped == "interrupted" or result.strategy_stopped == "interrupted":
        what = "the search had an answer" if result.stopped else "the winning strategy was written"
        print(f"{interrupted()}: the workers were stopped before {what}.", file=err)
        if args.checkpoint:
            print(f"Finished jobs are kept in {args.checkpoint}; run the same command to resume.", file=err)
        return EXIT_INTERRUPTED
    return EXIT_OK


def _local_workers(text: str | None, cluster: str | None) -> int | None:
    """``--workers``: a whole number, and with no ``--cluster`` at most a few local processes a core."""
    from kinarow.limits import check_workers

    workers = positive_int("--workers", text)
    return workers if workers is None or cluster else check_workers(workers, "--workers")


def _check_tables(workers: int, tt_mb: float | None, game: Game, cluster: str | None = None) -> None:
    """Refuse ``workers`` local processes whose tables (``--tt-mb``, else the game's default) do not fit in the
    machine's available memory; a cluster's workers are their own machines'."""
    from kinarow.limits import check_memory, default_tt_mb

    if cluster or (tt_mb is None and workers == 1):
        return
    check_memory(workers, tt_mb or default_tt_mb(game), "--tt-mb" if tt_mb is not None else "default table")


def _note_unguided(position: Position, question: str, jobs: int | None, workers: int, err: TextIO) -> None:
    """Say so when ``--jobs`` grows the frontier past the tested player's turns, where ``--guide`` splits jobs."""
    from kinarow.search.parallel.coordinator import JOBS_PER_WORKER
    from kinarow.search.parallel.frontier import expand

    tested = 1 if question == "first-wins" else 2
    frontier = expand(position, jobs=jobs or JOBS_PER_WORKER * workers)
    if position.is_over or any(n.to_move == tested for n in frontier.open_jobs()):
        return
    if position.to_move == tested:
        fit = "--jobs 1 (the start itself)"
    else:
        fit = f"--jobs {len(expand(position, jobs=2**30, max_depth=1).open_jobs()):,} (a job a reply, up to symmetry)"
    name = "first" if tested == 1 else "second"
    print(f"note: the frontier's jobs are all at the other player's turn, where --guide splits none (it splits the "
          f"{name} player's); give {fit} for a guided run.", file=err)


def _parallel_rows(result: Any) -> list[tuple[str, str]]:
    rows = [
        ("workers", f"{result.workers} ({result.backend})"),
        (
            "jobs",
            f"{result.jobs:,} frontier positions (depth {result.frontier_depth}); {result.jobs_solved:,} answered, "
            f"{result.jobs_stopped - (result.splits - result.guided):,} stopped as not needed"
            + (f", {result.splits:,} split into their children" if result.splits else "")
            + (f" ({result.guided:,} at once at the guide's move)" if result.guided else ""),
        ),
        ("peak RSS", f"{result.peak_rss_mb:,.0f} MiB (largest process)"),
    ]
    if result.jobs_from_checkpoint:
        rows.append(("resumed", f"{result.jobs_from_checkpoint:,} positions read from the checkpoint"))
    return rows


# -- kinarow settle ------------------------------------------------------------------------
#: Seconds per case unless --time-limit says otherwise (a resumable draw-proof walk has none).
DEFAULT_TIME_LIMIT = 600.0


def add_commands(commands: Any) -> None:
    p = commands.add_parser(
        "settle", help="solve the long cases (7x4k4 ... 8x8k5, Connect Four) in parallel, each with a time limit"
    )
    p.add_argument("cases", metavar="CASE", nargs="*", help="cases to run (default: --list shows them)")
    p.add_argument("--list", action="store_true",
                   help="list the cases with what the literature says, then the (m,4,4) table: every width from 1 "
                   "to 30 with its value and how it is known")
    p.add_argument("--workers", metavar="N", default=None, help="local worker processes (default: every core)")
    p.add_argument("--cluster", metavar="ADDRESS", default=None, help="run on a Dask cluster (tcp://HOST:PORT)")
    p.add_argument("--time-limit", metavar="S", default=None,
                   help=f"seconds per case (default {DEFAULT_TIME_LIMIT:.0f}; with --draw-proof and --checkpoint, "
                   "none: the walk keeps what it settles, and Ctrl-C stops it)")
    p.add_argument("--jobs", metavar="N", default=None, help="frontier positions per case (default 24 per worker)")
    p.add_argument("--tt-mb", metavar="MB", default=None, help="transposition table per worker in MiB")
    p.add_argument("--checkpoint", metavar="PATH", default=None,
                   help="SQLite file of finished jobs (resumable); with --draw-proof, a directory keeping the walks")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="write certificates here (a win's strategy, a draw's blocking tree; else a search log)")
    p.add_argument("--knowledge", choices=("none", "pairing", "matching"), default="pairing",
                   help="blocking proofs as cut-offs in the workers' search (default: pairing)")
    p.add_argument("--draw-proof", action="store_true",
                   help="settle by building the draw proof directly (free placement only): a finished proof is a "
                   "draw with its certificate; the first player's win is not searched for")
    p.add_argument("--safety-budget", metavar="NODES", default="1000000",
                   help="with --draw-proof: nodes per safety test of a defender move (default 1000000)")
    p.add_argument("--status", action="store_true",
                   help="with --draw-proof and --checkpoint: report how far each saved walk has got, and stop "
                   "(reads the walks; searches nothing)")
    p.add_argument("--json", action="store_true", help="print one JSON object per case")
    p.set_defaults(run=cmd_settle)
    add_parts_command(commands)
    add_rewalk_command(commands)


def add_rewalk_command(commands: Any) -> None:
    p = commands.add_parser(
        "rewalk", help="write a job run's kept walks again with today's writer of shared replies, keeping each "
        "new walk that is smaller (checked first)")
    p.add_argument("game", metavar="GAME", help="the game, e.g. 19x4k4")
    p.add_argument("--checkpoint", metavar="FILE", required=True, help="the job run's SQLite checkpoint")
    p.add_argument("--above", metavar="MOVES", default="10000",
                   help="only walks of more than this many of the winner's moves (default 10000)")
    p.add_argument("--tt-mb", metavar="MB", default="1024", help="the proof search's table in MiB (default 1024)")
    p.add_argument("--max-nodes", metavar="N", default="10000000",
                   help="leave a position whose question needs more nodes than this (default 10000000)")
    p.set_defaults(run=cmd_rewalk)


def cmd_rewalk(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.limits import MAX_TT_MB
    from kinarow.search.parallel import JobStore
    from kinarow.search.parallel.rewalk import Rewalked, rewalk

    game = Game(args.game)
    above = 0 if args.above.strip() in ("0", "+0") else positive_int("--above", args.above)
    tt_mb = positive_float("--tt-mb", args.tt_mb, upper=MAX_TT_MB)
    max_nodes = positive_int("--max-nodes", args.max_nodes)
    if not Path(args.checkpoint).is_file():
        raise UsageError(f"--checkpoint '{args.checkpoint}' is not a file; give the SQLite checkpoint of a job run")
    totals = [0, 0, 0]

    def said(r: Rewalked) -> None:
        totals[0] += r.kept
        totals[1] += r.before
        totals[2] += r.after if r.kept else r.before
        if not r.asked:
            print(f"{r.moves}: {r.before:,} moves, left (its question needs more than {max_nodes:,} nodes), "
                  f"{r.seconds:.1f} s", file=out, flush=True)
            return
        print(f"{r.moves}: {r.before:,} -> {r.after:,} moves ({'kept' if r.kept else 'not smaller, left'}), "
              f"{r.seconds:.1f} s", file=out, flush=True)

    store = JobStore(args.checkpoint)
    try:
        store.lock_for_run()  # it writes the walks: not while a run holds the file
        done = rewalk(store, str(game), above=above or 0, tt_mb=tt_mb or 1024.0, max_nodes=max_nodes, on_walk=said)
    except KeyboardInterrupt:
        print(f"Stopped: {totals[0]} walks replaced so far, each kept in the checkpoint.", file=err)
        return EXIT_INTERRUPTED
    finally:
        store.close()
    print(f"Wrote {len(done)} kept walks again and replaced {totals[0]}: {totals[1]:,} -> {totals[2]:,} of the "
          "winner's moves.", file=out)
    return EXIT_OK


def add_parts_command(commands: Any) -> None:
    p = commands.add_parser(
        "parts", help="write a win's certificate as one strategy a reply (kinarow.strategy-parts) from the walks "
        "a job run kept in its checkpoint, searching nothing")
    p.add_argument("game", metavar="GAME", help="the game, e.g. 19x4k4")
    p.add_argument("--moves", metavar="LINE", required=True,
                   help="the line up to the loser's turn, ending with the winner's move (e.g. e2)")
    p.add_argument("--checkpoint", metavar="FILE", required=True, help="the job run's SQLite checkpoint")
    p.add_argument("--out", metavar="FILE", required=True, help="the certificate to write (.json or .json.gz)")
    p.set_defaults(run=cmd_parts)


def cmd_parts(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.search.parallel import JobStore
    from kinarow.search.parallel.frontier import start_position
    from kinarow.search.parallel.merge import parts_certificate

    position = start_position(args.game, args.moves)
    if not Path(args.checkpoint).is_file():
        raise UsageError(f"--checkpoint '{args.checkpoint}' is not a file; give the SQLite checkpoint of a job run")
    check_outputs(("--out", args.out), inputs=input_files(args))
    store = JobStore(args.checkpoint)
    try:
        data, prescribed = parts_certificate(position, store)
    finally:
        store.close()
    write_json(args.out, data)
    print(f"Wrote {args.out}: {data['winner']} wins, playing {data['first_move']}, in {len(data['parts'])} parts "
          f"({prescribed:,} prescribed moves); check it with 'kinarow check {args.out} --compiled'.", file=out)
    return EXIT_OK


def cmd_settle(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.limits import MAX_TT_MB
    from kinarow.search import certify, parallel

    if args.list or not args.cases:
        for c in open_cases.CASES:
            print(f"{c.name:<9} {c.game:<14} literature: {c.literature:<6} {c.source}", file=out)
        print("\n(m,4,4), four in a row on boards four high, every width from 1 to 30:", file=out)
        for w in open_cases.FOUR_HIGH:
            shipped = f" [certificates/{w.certificate}]" if w.certificate else ""
            print(f"  {w.game:<7} {w.value:<5} {w.how}{shipped}", file=out)
        return EXIT_OK
    cases = [open_cases.case(name) for name in args.cases]
    workers = _local_workers(args.workers, args.cluster)
    time_limit = positive_float("--time-limit", args.time_limit)
    if args.time_limit is None and not (args.draw_proof and args.checkpoint):
        time_limit = DEFAULT_TIME_LIMIT
    jobs = positive_int("--jobs", args.jobs)
    tt_mb = positive_float("--tt-mb", args.tt_mb, upper=MAX_TT_MB)
    out_dir = Path(args.out) if args.out else None
    if not args.status:
        check_output_folder("--out", args.out)
        if args.out and args.checkpoint and same_file(args.out, args.checkpoint):
            raise UsageError(f"--out '{args.out}' is the same as --checkpoint '{args.checkpoint}', which the command "
                             "reads and keeps; give --out another folder")
    status = EXIT_OK
    if args.status:
        if not (args.draw_proof and args.checkpoint):
            raise UsageError("--status reports on saved draw-proof walks; give it with --draw-proof --checkpoint DIR")
        return _walk_status(cases, Path(args.checkpoint), args.json, out)
    if args.draw_proof:
        if args.cluster:
            raise UsageError("--draw-proof runs on local worker processes only; drop --cluster (or --draw-proof)")
        budget = positive_int("--safety-budget", args.safety_budget)
        from kinarow.search.draw import safety_table_mb

        for c in cases:  # (every core and the walk's own table, the defaults, are never refused)
            if workers is not None or tt_mb is not None:
                _check_tables(workers or os.cpu_count() or 1, safety_table_mb(Game(c.game), tt_mb), Game(c.game))
        return _settle_by_draw_proofs(cases, out_dir, time_limit, tt_mb, budget, args.json, out, err,
                                      workers=workers or os.cpu_count() or 1, checkpoint=args.checkpoint)
    for c in cases:
        with progress(f"{c.name}", err) as tick:
            if workers is not None or tt_mb is not None:
                _check_tables(workers or os.cpu_count() or 1, tt_mb, Game(c.game), args.cluster)
            result = parallel.solve(
                c.game,
                workers=workers,  # (None: every core)
                cluster=args.cluster,
                jobs=jobs,
                time_limit=time_limit,
                tt_mb=tt_mb,
                strategy=out_dir is not None,  # a win's certificate is only built where it can be written
                checkpoint=args.checkpoint,
                on_tick=tick,
                best_move=False,
                knowledge=args.knowledge,
            )
        written = None
        if out_dir is not None:
            left = None if time_limit is None else max(time_limit - result.seconds, 1.0)
            with progress(f"{c.name} certificate", err) as tick:
                found = certify.evidence(result, tt_mb=tt_mb, seconds=left, tick=tick)
            written = _write_case(out_dir, c, found)
        row = settle_row(c, result, written)
        if args.json:
            print(json.dumps(row), file=out)
        else:
            print(_settle_text(row), file=out)
        out.flush()
        if result.stopped == "interrupted":
            print(f"{interrupted()}: the workers were stopped.", file=err)
            status = EXIT_INTERRUPTED
            break
    return status


def _walk_status(cases: list[Case], folder: Path, as_json: bool, out: TextIO) -> int:
    """``settle --draw-proof --checkpoint DIR --status``: how far each case's saved walks have got."""
    from dataclasses import asdict

    from kinarow.proofs.draw import HALVES
    from kinarow.search.draw import walk_status

    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--checkpoint {folder} is a file; with --draw-proof give the directory of the walks")
    for c in cases:
        game = Game(c.game)
        where = folder / c.name
        halves = {name: walk_status(game.start(), player, where) if where.is_dir() else []
                  for player, name in HALVES.items()}
        walks = [w for found in halves.values() for w in found]
        started = [w for w in walks if w.settled]
        if as_json:
            print(json.dumps({"case": c.name, "game": c.game, "checkpoint": str(where),
                              "walks": {name: [asdict(w) for w in found] for name, found in halves.items() if found}}),
                  file=out)
            continue
        if not started:
            print(f"{c.name}: no saved draw-proof walk in {where}", file=out)
            continue
        print(f"{c.name}: draw-proof walks saved in {where} ({sum(w.settled for w in walks):,} positions "
              f"settled, {sum(w.refuted for w in walks):,} of them refuted)", file=out)
        for name, found in halves.items():
            if not any(w.settled for w in found):
                continue
            print(f"  {name.replace('_', ' ')}:", file=out)
            for w in found:
                label = w.line or "from the start"
                counts = f"{w.settled:>12,} settled {w.refuted:>8,} refuted" if w.settled else ""
                print(f"    {label:<14} {w.state:<12} {counts}".rstrip(), file=out)
                if w.state == "walking":
                    print(f"      at {w.current}", file=out)
                    print("      attacker moves settled on that line: "
                          + ", ".join(f"{done}/{moves}" for done, moves in w.levels), file=out)
    return EXIT_OK


def _settle_by_draw_proofs(cases: list[Case], out_dir: Path | None, time_limit: float | None, tt_mb: float | None,
                           budget: int | None, as_json: bool, out: TextIO, err: TextIO, *, workers: int = 1,
                           checkpoint: str | None = None) -> int:
    """``settle --draw-proof``: settle each case by building its draw proof (no search first).

    The walk proves each defender move safe with a win test of at most
    ``budget`` nodes (trying undecided moves and backing up when they fail); a
    finished walk plus strategy stealing is the draw, with its certificate.
    With ``workers > 1`` the first player's opening moves are walked as jobs
    in that many processes; ``checkpoint`` is a directory that keeps each
    case's walk (``DIR/CASE``), so a stopped run resumes.
    """
    from kinarow.proofs import blocking_fit
    from kinarow.search.certify import settle_by_draw_proof

    for c in cases:
        fit = blocking_fit(Game(c.game))
        if not fit:
            raise UsageError(f"--draw-proof cannot settle {c.name}: {fit.reason}")
    folder = None if checkpoint is None else Path(checkpoint)
    if folder is not None and folder.exists() and not folder.is_dir():
        raise UsageError(f"--checkpoint {checkpoint} is a file; with --draw-proof give a directory for the walks")
    for c in cases:
        game = Game(c.game)
        start = time.perf_counter()
        row: dict[str, Any] = {"case": c.name, "game": c.game, "literature": c.literature, "source": c.source,
                               "method": "draw proof", "safety_budget": budget, "workers": workers, "written": None}
        what = "positions settled" if workers == 1 else "opening jobs finished"
        bar = progress_bar(f"{c.name} draw proof, {what}", None, err)
        try:
            with bar as tick:
                run = settle_by_draw_proof(game, time_limit=time_limit, tt_mb=tt_mb, safety_budget=budget,
                                           workers=workers, checkpoint=None if folder is None else folder / c.name,
                                           tick=tick)
        except KeyboardInterrupt:
            print(f"{interrupted()} during {c.name}"
                  + (f"; its walk is kept in {folder / c.name} and resumes from there (add --status to see how "
                     "far it got)." if folder else "."), file=err)
            return EXIT_INTERRUPTED
        if run.value == Value.DRAW:
            tree = run.tree
            row.update(value=Value.DRAW, positions=tree.positions, leaves=tree.leaves, pairings=tree.pairings,
                       safety_tests=tree.safety_tests, backed_up=tree.refuted_candidates, walked=tree.walked,
                       resumed=tree.resumed)
            if out_dir is not None:
                out_dir.mkdir(parents=True, exist_ok=True)
                path = out_dir / f"{c.name}.draw.json.gz"
                write_json(str(path), run.data)
                row["written"] = str(path)
        elif run.stopped == "time limit":
            row.update(value=Value.UNKNOWN, stopped=run.stopped, walked=run.walked, resumed=run.resumed)
        else:
            row.update(value=Value.UNKNOWN, stopped=run.stopped)
        row["seconds"] = round(time.perf_counter() - start, 1)
        unsettled = row["value"] == Value.UNKNOWN or c.literature == "open"
        row["agrees"] = None if unsettled else row["value"] == c.literature
        if as_json:
            print(json.dumps(row), file=out)
        elif row["value"] == Value.DRAW:
            print(f"{c.name}: draw, by a draw proof ({row['positions']:,} positions, {row['leaves']:,} pairing "
                  f"leaves, {row['seconds']:.1f} s); literature: {c.literature} ({c.source})"
                  + (f"\n  wrote {row['written']}" if row["written"] else ""), file=out)
        else:
            walked = (f"; {row['walked']:,} positions settled in this run"
                      + (f" ({row['resumed']:,} read from earlier runs)" if row["resumed"] else "")
                      + (f", kept in {folder / c.name}" if folder else "")) if "walked" in row else ""
            print(f"{c.name}: not settled by a draw proof ({row['stopped']}) after {row['seconds']:.0f} s{walked}; "
                  f"literature: {c.literature} ({c.source})", file=out)
        out.flush()
    return EXIT_OK


def settle_row(c: Case, result: Any, written: str | None) -> dict[str, Any]:
    data = result.to_dict()
    data.update({"case": c.name, "literature": c.literature, "source": c.source, "written": written})
    if result.value == Value.UNKNOWN:
        data["agrees"] = None
    elif c.literature in (Value.DRAW, Value.FIRST, Value.SECOND):
        data["agrees"] = result.value == c.literature
    else:
        data["agrees"] = None
    if result.strategy is not None:
        data["strategy_positions"] = result.strategy.size
    if result.value in (Value.DRAW, Value.UNKNOWN):
        data.pop("best_move", None)  # not searched for (best_move=False)
    return data


def _settle_text(row: dict[str, Any]) -> str:
    if row["value"] == Value.UNKNOWN:
        head = (
            f"{row['case']}: measured: not finished in {row['seconds']:.0f} s ({row.get('stopped')}), "
            f"{row['nodes']:,} nodes"
        )
    else:
        head = f"{row['case']}: {row['value']} ({row['nodes']:,} nodes, {row['seconds']:.1f} s)"
        if row["agrees"] is False:
            head += f"  DIFFERS from the literature ({row['literature']})"
    lines = [
        head,
        f"  {row['game']}; literature: {row['literature']} ({row['source']})",
        f"  {row['nodes_per_second']:,} nodes/s on {row['workers']} workers ({row['backend']}); "
        f"{row['jobs']:,} jobs, {row['jobs_solved']:,} answered; peak RSS {row['peak_rss_mb']:,.0f} MiB",
    ]
    if row.get("strategy_stopped"):
        lines.append(f"  the winning strategy was not finished ({row['strategy_stopped']}): no certificate")
    if row.get("written"):
        lines.append(f"  wrote {row['written']}")
    return "\n".join(lines)


def _write_case(out_dir: Path, c: Case, found: Any) -> str | None:
    """What backs a case's answer (:func:`kinarow.search.certify.evidence`: a win's strategy, a draw's blocking
    tree, else a draw's search log) as gzip-compressed JSON; nothing when there is none."""
    if found.data is None:
        return None
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{c.name}.{found.kind}.json.gz"
    write_json(str(path), found.data)
    return str(path)


def read_json(path: str) -> Any:
    """Read a JSON file, gzip-compressed or not (certificates may ship as ``.json.gz``), as a certificate is read:
    at most :data:`kinarow.proofs.MAX_CERTIFICATE_BYTES` after decompression, and one sentence when it cannot be."""
    from kinarow.proofs import read_certificate

    text = read_certificate(path)
    try:
        return json.loads(text)
    except RecursionError:
        raise KinarowError(f"'{path}' holds JSON nested too deeply to read") from None
    except ValueError as error:
        raise KinarowError(f"'{path}' is not valid JSON ({' '.join(str(error).split())[:120]})") from None
