"""``kinarow solve`` and ``kinarow show``: a game's value (with its certificate) and its board.

``solve`` parses its options, asks :func:`kinarow.search.solve.solve` (which
answers from the results store, searches, and chooses the certificate) and
prints the answer; ``solve --workers/--cluster/--checkpoint`` runs in frontier
jobs (:mod:`kinarow.cli.scale`).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TextIO

from kinarow.cli import scale
from kinarow.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    MOVES_HELP,
    UsageError,
    add_picture_options,
    add_store_options,
    check_outputs,
    check_pictures,
    file_fields,
    input_files,
    open_store,
    positive_float,
    positive_int,
    print_result,
    progress_steps,
    result_sentence,
    save_pictures,
    store_sentence,
    table_option,
    tt_help,
    turn_sentence,
    walk_option,
    write_files,
)
from kinarow.errors import interrupted
from kinarow.game import Game
from kinarow.limits import (
    DEFAULT_KNOWLEDGE,
    KNOWLEDGE_LEVELS,
    MAX_THREADS,
    PROOF_SEARCH_CELLS,
    SEARCHES,
    default_threads,
)

if TYPE_CHECKING:
    from kinarow.search.options import SolveOptions


# -- solve -----------------------------------------------------------------------------
def cmd_solve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.search import connect
    from kinarow.search.options import Limits
    from kinarow.search.solve import solve

    if args.status and not args.checkpoint:
        raise UsageError("--status lists the finished jobs of a checkpoint; give it with --checkpoint FILE")
    check_outputs(("--strategy", args.strategy), ("--proof", args.proof), inputs=input_files(args))
    options = solve_options(args)
    if scale.wants_parallel(args):  # --workers N > 1, --cluster or --checkpoint: frontier jobs
        if args.strong:
            raise UsageError("--strong solves in one process; leave out --workers, --jobs, --cluster, --checkpoint, "
                             "--max-job-seconds and --question")
        return scale.cmd_solve_parallel(args, out, err)
    max_nodes = positive_int("--max-nodes", args.max_nodes)
    time_limit = positive_float("--time-limit", args.time_limit)
    tt_mb = table_option(args.tt_mb)
    asked = positive_int("--threads", args.threads, upper=MAX_THREADS)
    position = Game(args.game).position(args.moves)
    scored = connect.score_search_fit(position.game)
    if asked is not None and asked > 1 and not scored:
        raise UsageError(f"--threads serves the Connect-k score search only, and {position.game} is not its game "
                         f"({scored.reason}); use --workers N for frontier jobs in N processes")
    threads = asked or (default_threads() if scored else 1)  # every core by default, where the search has threads
    store = open_store(args)
    proof = args.proof is not None
    steps = [(f"solving {position.game}", "nodes")] + ([("writing the certificate", "nodes")] if proof else [])
    with progress_steps(err, *steps) as ticks, walk_option():
        result = solve(position, limits=Limits(max_nodes, time_limit, tt_mb), options=replace(options, threads=threads),
                       store=store, on_tick=ticks[0], on_proof_tick=ticks[-1] if proof else None)
    note, proof_note = write_files(args, result)
    if args.json:
        data = {**result.to_dict(), **file_fields(args, result)}
        data["from_store"] = result.from_store
        print(json.dumps(data), file=out)
        if note and result.strategy is None:
            print(note, file=err)
    else:
        print_result(position, result, out)
        for line in (note, proof_note, store_sentence(result, store) if result.from_store and store else None):
            if line:
                print(line, file=out)
    if result.stopped == "interrupted":
        print(f"{interrupted()}: the search stopped before it had an answer.", file=err)
        return EXIT_INTERRUPTED
    return EXIT_OK


def solve_options(args: argparse.Namespace) -> SolveOptions:
    """The choices of ``kinarow solve`` as :class:`~kinarow.search.options.SolveOptions`, whose rules between options
    (``--share`` needs ``--search proof --walk``, ``--table`` needs ``--search proof``, ...) are checked where it
    is made, once for both the one-process and the job run; a broken rule is said in the command line's words."""
    from kinarow.search.options import OptionError, SolveOptions

    try:
        return SolveOptions(knowledge=args.knowledge, search=args.search, strategy=args.strategy is not None,
                            walk=args.walk, proof=args.proof is not None, strong=args.strong, proof_table=args.table,
                            share=args.share)
    except OptionError as error:
        raise UsageError(error.command_line) from None


# -- show ------------------------------------------------------------------------------
def cmd_show(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow import svg

    check_pictures(args)
    game = Game(args.game)
    if args.svg is not None or args.png is not None:
        svg.check_picture_size(game)  # before the board is printed
    position = game.position(args.moves)
    print(f"game: {position.game}", file=out)
    if position.moves:
        print(f"moves: {position.move_text()}", file=out)
    print(position.text(), file=out)
    if position.result is not None:
        print(f"Game over: {result_sentence(position.game, position.result)}", file=out)
    else:
        print(turn_sentence(position), file=out)
    if position.game.no_group_reason is not None:  # as solve says it: nobody can ever own a line
        print(f"Nobody can complete a line: {position.game.no_group_reason}.", file=out)

    save_pictures(lambda: svg.board(position, title=str(position.game)), args, out)
    return EXIT_OK


def add_commands(commands: Any) -> None:
    p = commands.add_parser("solve", help="solve a game or position with perfect play")
    p.add_argument("game", metavar="GAME", help="game string, e.g. 4x4k4 or 5x4k4:gravity")
    p.add_argument("--moves", default=None, help=MOVES_HELP)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument("--strong", action="store_true",
                   help="also find on which move the game ends with perfect play, the winner ending it as soon as "
                   "it can and the loser as late as it can (JSON: last_move)")
    p.add_argument("--threads", metavar="N", default=None,
                   help="Connect-k (gravity) games: N searches at once sharing one table (default: every core; "
                   "1 for node counts that repeat)")
    p.add_argument("--max-nodes", metavar="N", default=None, help="stop after about N nodes (value 'unknown')")
    p.add_argument("--time-limit", metavar="S", default=None, help="stop after S seconds (value 'unknown')")
    p.add_argument("--tt-mb", metavar="MB", default=None, help=tt_help())
    p.add_argument("--strategy", metavar="FILE", default=None, help="write the winner's strategy certificate to FILE")
    p.add_argument("--walk", action="store_true",
                   help="write a win's strategy (--strategy, --proof) as a walk: the moves in replay order without "
                   "board keys, often a hundred times smaller (format version 3; boards of at most 128 cells)")
    p.add_argument("--share", action="store_true",
                   help="with --search proof --walk: let the loser's replies outside a proof's relevance zone share "
                   "one subtree (format version 4; free placement, one stone a turn, normal goal); far smaller "
                   "strategies on wide boards")
    p.add_argument("--proof", "--certificate", metavar="FILE", default=None, dest="proof",
                   help="write the certificate of the value to FILE (a win: strategy; a draw settled by knowledge: "
                   "matching sets; another draw: a pairing or blocking trees, and where those do not apply (gravity, "
                   "misere, several stones a turn) each player's non-losing walk)")
    add_store_options(p)
    p.add_argument(
        "--knowledge", choices=KNOWLEDGE_LEVELS, default=DEFAULT_KNOWLEDGE,
        help="cut nodes where a pairing or a matching set proves a player cannot win "
        f"(free placement, one stone a turn, normal or Maker-Breaker goal; default {DEFAULT_KNOWLEDGE})",
    )
    p.add_argument(
        "--search", choices=SEARCHES, default="auto",
        help="the search of a value question: proof (proof-number search: free placement, one stone a turn, normal "
        "or Maker-Breaker goal, at most 128 cells), alpha-beta, or auto (default: the proof search on such boards "
        f"of at least {PROOF_SEARCH_CELLS} cells, else alpha-beta); --strategy and --strong use "
        "alpha-beta under auto (the proof search beyond 64 cells), --proof the proof search where it answers; "
        "the proof search writes a win's strategy (--strategy, --proof) from its own table, "
        "and --search proof refuses --strong",
    )
    p.add_argument("--table", metavar="FILE", default=None,
                   help="--search proof: keep the search's table in FILE, so that a long search resumes where it "
                   "stopped (loaded when FILE exists, its size then the table's; written every 30 minutes of "
                   "search and when the search stops or answers); with --strategy the walk that writes a win's "
                   "strategy keeps its progress beside it in FILE.walk.npz the same way (with --share, "
                   "FILE.shared.npz); with --checkpoint (one worker) the worker's table is kept between runs, "
                   "written when the run stops and at most every 30 minutes")
    scale.add_solve_options(p)
    p.set_defaults(run=cmd_solve)

    p = commands.add_parser("show", help="print the board after some moves")
    p.add_argument("game", metavar="GAME", help="game string, e.g. 3x3k3")
    p.add_argument("--moves", default=None, help=MOVES_HELP)
    add_picture_options(p)
    p.set_defaults(run=cmd_show)
