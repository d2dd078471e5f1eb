"""``kinarow prove``: prove a game or position by one command, ending with a certificate it has checked.

The route (one process or frontier jobs, the engine, the walk's form, a guide) is picked by
:func:`kinarow.search.prover.plan`; the run keeps its state in one folder per case and resumes from it when
the same command runs again.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from kinarow.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    MOVES_HELP,
    UsageError,
    check_outputs,
    positive_float,
    positive_int,
    progress,
    write_json,
)
from kinarow.errors import interrupted

#: where a case keeps its state unless --dir says otherwise: proofs/CASE
STATE_ROOT = "proofs"
#: where related job checkpoints are looked for unless --checkpoints says otherwise (when it exists)
CHECKPOINTS = "checkpoints"


def cmd_prove(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.game import Game
    from kinarow.limits import MAX_TT_MB, check_workers
    from kinarow.search import prover

    workers = positive_int("--workers", args.workers)
    workers = 0 if workers is None else check_workers(workers, "--workers")
    tt_mb = positive_float("--tt-mb", args.tt_mb, upper=MAX_TT_MB)
    position = Game(args.game).position(args.moves)
    if position.is_over:
        raise UsageError(f"the game is already over after {position.move_text()}; there is nothing to prove")
    checkpoints = None if args.checkpoints == "none" else Path(args.checkpoints or CHECKPOINTS)
    if args.checkpoints not in (None, "none") and checkpoints is not None and not checkpoints.is_dir():
        raise UsageError(f"--checkpoints '{args.checkpoints}' is not a folder; give the folder of job checkpoints "
                         "(or 'none')")
    settings = prover.Settings(workers=workers, tt_mb=tt_mb, checkpoints=checkpoints)
    chosen = prover.plan(position, settings)
    name = prover.case_name(position)
    folder = Path(args.dir) if args.dir else Path(STATE_ROOT) / name
    if args.plan:
        if args.json:
            print(json.dumps({"case": name, "route": chosen.route, "why": chosen.why, "folder": str(folder),
                              "first_move": chosen.first_move, "jobs": chosen.jobs,
                              "resumes": None if chosen.jobs_from is None else str(chosen.jobs_from),
                              "guide": None if chosen.guide is None else str(chosen.guide)}), file=out)
        else:
            print(f"case:      {name} ({position.game}{', after ' + position.move_text() if position.moves else ''})",
                  file=out)
            print(chosen.describe(), file=out)
            print(f"state:     {folder} (run the same command again to resume)", file=out)
        return EXIT_OK
    state = [("the state folder's", folder / f) for f in (prover.PLAN_FILE, prover.TABLE_FILE, prover.JOBS_FILE,
                                                          "tree-1.npz", "tree-2.npz")]
    if args.out is not None:
        check_outputs(("--out", args.out), inputs=state)
    with progress(f"proving {name}", err, "nodes or positions") as tick:
        settings = prover.Settings(workers=workers, tt_mb=tt_mb, checkpoints=checkpoints, on_tick=tick,
                                   say=None if args.json else (lambda line: print(f"{line}", file=err)))
        try:
            outcome = prover.prove(position, folder, settings)
        except KeyboardInterrupt:
            print(f"{interrupted()}: the proof stopped; what it finished is kept in {folder}; run the same "
                  "command to resume.", file=err)
            return EXIT_INTERRUPTED
    written = None
    if outcome.data is not None:
        written = args.out or f"{name}.{outcome.kind}.json.gz"
        if args.out is None:
            check_outputs(("--out", written), inputs=state)
        write_json(written, outcome.data)
    row = _row(name, folder, outcome, written)
    if args.json:
        print(json.dumps(row), file=out)
    else:
        _print(row, out)
    if outcome.stopped == "interrupted":
        print(f"{interrupted()}: the proof stopped; run the same command to resume from {folder}.", file=err)
        return EXIT_INTERRUPTED
    return EXIT_OK


def _row(name: str, folder: Path, outcome: Any, written: str | None) -> dict[str, Any]:
    return {"case": name, "game": str(outcome.plan.position.game), "value": str(outcome.value),
            "route": outcome.plan.route, "first_move": outcome.plan.first_move, "certificate": written,
            "kind": outcome.kind, "proves": outcome.what, "nodes": outcome.nodes,
            "seconds": round(outcome.seconds, 3), "check_seconds": round(outcome.check_seconds, 3),
            "checked": outcome.check_reason or None, "stopped": outcome.stopped, "folder": str(folder),
            **{k: v for k, v in outcome.figures.items() if v is not None}}


def _print(row: dict[str, Any], out: TextIO) -> None:
    if row["certificate"] is None:
        print(f"No certificate for {row['case']}: {row['proves']} (value {row['value']}).", file=out)
    else:
        print(f"Proved: {row['proves']}.", file=out)
    print(f"{'route:':<10} {row['route']}", file=out)
    print(f"{'value:':<10} {row['value']}", file=out)
    if row.get("last_move") is not None:
        print(f"{'last move:':<10} stone {row['last_move']} (the score search's value; the certificate claims the "
              "value only)", file=out)
    print(f"{'nodes:':<10} {row['nodes']:,}", file=out)
    print(f"{'seconds:':<10} {row['seconds']:,.1f}", file=out)
    print(f"{'state:':<10} {row['folder']}", file=out)
    if row["certificate"] is not None:
        print(f"{'checked:':<10} VALID in {row['check_seconds']:,.1f} s: {row['checked']}.", file=out)
        print(f"Certificate written to {row['certificate']}; check it again with "
              f"'kinarow check {row['certificate']} --compiled'.", file=out)


# -- kinarow window --------------------------------------------------------------------------------
def cmd_window(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.proofs import check_data
    from kinarow.proofs.window import certificate
    from kinarow.search.window import MAX_WIDTH, new_table, solve_window, window_walk

    width = positive_int("WIDTH", args.width, upper=MAX_WIDTH)
    assert width is not None
    k = positive_int("--k", args.k, upper=4) or 4
    if k < 2:
        raise UsageError("--k is the length of a line, 2 to 4 (the window game's board is four high)")
    max_nodes = positive_int("--max-nodes", args.max_nodes)
    tt_mb = positive_int("--tt-mb", args.tt_mb, upper=16384) or 256
    check_outputs(("--out", args.out))
    table = new_table(tt_mb)
    print("compiling the window game's search (about 20 s each run: its recursive kernel is not cached)", file=err)
    with progress(f"window game W({width}), k = {k}", err) as tick:
        try:
            found = solve_window(width, k=k, max_nodes=max_nodes, table=table, on_tick=tick)
        except KeyboardInterrupt:
            print(f"{interrupted()}: the window game's search stopped before it had an answer.", file=err)
            return EXIT_INTERRUPTED
    row: dict[str, Any] = {"width": width, "k": k, "answer": found.answer, "nodes": found.nodes,
                           "seconds": round(found.seconds, 3), "certificate": None}
    if found.answer == "X wins" and args.out is not None:
        walk = window_walk(width, k=k, max_nodes=max_nodes, table=table)
        if walk is None:
            raise UsageError(f"the win of W({width}) was not proved again within --max-nodes; give a larger budget")
        data = certificate(width, k, walk)
        verdict = check_data(data)
        if not verdict.ok:
            raise UsageError(f"internal error: the window strategy fails its check: {verdict.reason}")
        write_json(args.out, data)
        row["certificate"] = args.out
    if args.json:
        print(json.dumps(row), file=out)
        return EXIT_OK
    meaning = {"X wins": f"the first player wins {k} in a row on every board four high at least {width} wide",
               "X does not win": "the window is too narrow for this argument (the search's answer: no certificate)",
               "unknown": "the node budget ran out first"}[found.answer]
    print(f"W({width}), k = {k}: {found.answer}: {meaning}.", file=out)
    print(f"{'nodes:':<10} {found.nodes:,}", file=out)
    print(f"{'seconds:':<10} {found.seconds:,.3f}", file=out)
    if row["certificate"]:
        print(f"Certificate written to {args.out}; check it with 'kinarow check {args.out}'.", file=out)
    return EXIT_OK


def add_commands(commands: Any) -> None:
    p = commands.add_parser(
        "window", help="the window game W(w) of boards four high: a first-player win there wins every width from "
        "w on (a search; a win gets its certificate)")
    p.add_argument("width", metavar="WIDTH", help="the window's columns (1 to 16)")
    p.add_argument("--k", metavar="K", default=None, help="the length of a line, 2 to 4 (default 4)")
    p.add_argument("--max-nodes", metavar="N", default=None, help="stop after about N nodes (answer 'unknown')")
    p.add_argument("--tt-mb", metavar="MB", default=None, help="the search table in MiB (default 256)")
    p.add_argument("--out", metavar="FILE", default=None, help="write X's window strategy here when X wins")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.set_defaults(run=cmd_window)

    p = commands.add_parser(
        "prove", help="prove a game or position by one command: picks the route, keeps its state in a folder "
        "(resumable), and writes a certificate it has checked")
    p.add_argument("game", metavar="GAME", help="game string, e.g. 7x7k5, 26x4k4 or 7x4k4:gravity")
    p.add_argument("--moves", default=None, help=MOVES_HELP)
    p.add_argument("--out", metavar="FILE", default=None,
                   help="the certificate to write (.json or .json.gz; default CASE.KIND.json.gz here)")
    p.add_argument("--dir", metavar="DIR", default=None,
                   help=f"the folder that keeps the run's state (default {STATE_ROOT}/CASE); the same command "
                   "resumes from it")
    p.add_argument("--workers", metavar="N", default=None,
                   help="processes for frontier jobs and a blocking tree's units (default every core)")
    p.add_argument("--tt-mb", metavar="MB", default=None,
                   help="the search table in MiB (default: chosen by the route; per worker in a job run)")
    p.add_argument("--checkpoints", metavar="DIR", default=None,
                   help=f"where job checkpoints of this or a related case are looked for (default ./{CHECKPOINTS} "
                   "when it exists; 'none' to use none)")
    p.add_argument("--plan", action="store_true", help="print the route it would take and why, searching nothing")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.set_defaults(run=cmd_prove)
