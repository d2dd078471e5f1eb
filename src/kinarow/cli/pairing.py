"""``kinarow pairing`` and ``kinarow pairing-table``: good Hales-Jewett pairings (SAT), one board or a table."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from kinarow.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    MOVES_HELP,
    add_picture_options,
    add_store_options,
    check_output_folder,
    check_outputs,
    input_files,
    open_store,
    positive_int,
    progress_bar,
    save_pictures,
    spinner,
    write_json,
)
from kinarow.errors import interrupted
from kinarow.game import Game
from kinarow.knowledge import pairing
from kinarow.limits import MAX_WORKERS

if TYPE_CHECKING:
    pass


# -- pairing -----------------------------------------------------------------------------
def cmd_pairing(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow import svg

    budget = positive_int("--max-conflicts", args.max_conflicts)
    check_outputs(("--out", args.out), ("--svg", args.svg), ("--png", args.png), inputs=input_files(args))
    with spinner(f"deciding whether {args.game} has a good pairing", err):
        result = pairing.find(args.game, moves=args.moves, minimise=args.minimise, max_conflicts=budget,
                              certify=bool(args.out))
    certificate = result.certificate() if args.out else None
    if args.out and certificate is not None:
        write_json(args.out, certificate)
    position = Game(args.game).position(args.moves)
    parse = position.geometry.parse_cell
    cells = [(parse(a), parse(b)) for a, b in (result.pairing.pairs if result.pairing else [])]
    title = f"{result.game}: {'a good pairing' if result.exists else 'no good pairing'}"
    picture = lambda: svg.board(position, pairs=cells, title=title)  # noqa: E731
    if args.json:
        print(json.dumps(result.to_dict()), file=out)
        save_pictures(picture, args, err)
        return EXIT_OK
    after = f" after {result.moves}" if result.moves else ""
    if result.exists and result.pairing is not None:
        print(f"A good pairing exists for {result.game}{after}: the first player cannot win.", file=out)
        pairs = " ".join(f"{a}-{b}" for a, b in result.pairing.pairs)
        print(f"pairs ({len(result.pairing.pairs)}): {pairs}", file=out)
        print(f"unpaired:  {' '.join(result.unpaired) or '(none)'}", file=out)
        print(f"found by:  {result.method}", file=out)
    elif result.exists is None:
        print(f"Not settled for {result.game}{after}: {result.method}; try a larger --max-conflicts.", file=out)
    elif result.proved_by in (pairing.BY_THEOREM_10, pairing.BY_PROPOSITION_1):
        print(f"No good pairing exists for {result.game}{after}: {result.method}.", file=out)
    else:
        print(f"No good pairing exists for {result.game}{after} ({result.method}).", file=out)
    print(f"live groups: {result.live_groups}", file=out)
    print(f"seconds:   {result.seconds:.3f}", file=out)
    if args.out and certificate is not None:
        kind = "Pairing" if result.pairing is not None else "No-pairing (DRAT)"
        print(f"{kind} certificate written to {args.out}; check it with 'kinarow check {args.out}'.", file=out)
    elif args.out:
        print(f"No certificate written to {args.out}: the question is not settled.", file=out)
    elif result.exists is False:
        print("Not certified: run again with --proof FILE for a certificate that 'kinarow check' verifies.",
              file=out)
    save_pictures(picture, args, out)
    return EXIT_OK


def cmd_pairing_table(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    side = positive_int("--max-side", args.max_side, upper=pairing.MAX_TABLE_SIDE) or 12
    budget = positive_int("--max-conflicts", args.max_conflicts) or 1_000_000
    workers = positive_int("--workers", args.workers, upper=MAX_WORKERS) or 1
    check_output_folder("--proofs", args.proofs)

    store = open_store(args)
    boards = pairing.table_boards(side)
    done = pairing.stored_table_rows(store, side, budget) if store else {}
    finished = [len(done)]
    with progress_bar("pairing table", len(boards), err, len(done)) as update:

        def on_row(row: pairing.TableRow) -> None:
            finished[0] += 1
            if update is not None:
                update(finished[0])

        try:
            rows = pairing.existence_table(side, budget, done=done, on_row=on_row, workers=workers, store=store)
        except KeyboardInterrupt:
            kept = f"the finished rows are in the results store {store.path}; run the same command again to resume" \
                if store else "nothing was kept (--no-store)"
            print(f"{interrupted()} after {finished[0]} of {len(boards)} boards: {kept}.", file=err)
            return EXIT_INTERRUPTED
    if done and store is not None:
        print(f"{len(done)} of {len(boards)} rows came from the results store {store.path}; "
              f"{len(boards) - len(done)} were computed now.", file=err)
    written = _no_pairing_proofs(rows, Path(args.proofs), err) if args.proofs else None
    if args.json:
        print(json.dumps([vars(r) for r in rows]), file=out)
    else:
        command = f"kinarow pairing-table --max-side {side} --max-conflicts {budget}"
        print(pairing.table_markdown(rows, command), file=out)
    if written is None:
        return EXIT_OK
    certified, missing = written
    print(f"{certified} no-pairing certificates (DRAT refutations) written to {args.proofs}; check each with "
          f"'kinarow check FILE'." + (f" Not certified within the run: {', '.join(missing)}." if missing else ""),
          file=err if args.json else out)
    return EXIT_OK


def _no_pairing_proofs(rows: list[pairing.TableRow], folder: Path, err: TextIO) -> tuple[int, list[str]]:
    """``--proofs DIR``: a certified run for every board of the table with no good pairing, its refutation written
    as ``DIR/MxNkK.no-pairing.json.gz``; (how many were written, the boards that could not be certified)."""
    folder.mkdir(parents=True, exist_ok=True)
    boards = [f"{r.m}x{r.n}k{r.k}" for r in rows if r.exists is False]
    written, missing = 0, []
    with progress_bar("no-pairing certificates", len(boards), err) as update:
        for i, board in enumerate(boards):
            certificate = pairing.find(board, certify=True).certificate()
            if certificate is None or certificate.get("format") != "kinarow.no-pairing":
                missing.append(board)
            else:
                write_json(str(folder / f"{board}.no-pairing.json.gz"), certificate)
                written += 1
            if update is not None:
                update(i + 1)
    return written, missing


def add_commands(commands: Any) -> None:
    p = commands.add_parser("pairing", help="find a good Hales-Jewett pairing (SAT), or prove none exists")
    p.add_argument("game", metavar="GAME", help="game string, e.g. 5x5k5 or 7x7k6")
    p.add_argument("--moves", default=None, help=MOVES_HELP)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--minimise", action="store_true", help="use as few pairs as possible")
    p.add_argument("--out", "--proof", metavar="FILE", dest="out", default=None,
                   help="write the certificate (JSON; .gz to compress) to FILE: the pairing, or the DRAT refutation "
                   "when none exists (a certified run: no bounds, cuts or symmetry breaking)")
    add_picture_options(p)
    p.add_argument("--max-conflicts", metavar="C", default=None, help="SAT conflicts before giving up (default: none)")
    p.set_defaults(run=cmd_pairing)

    p = commands.add_parser("pairing-table", help="which empty m x n boards have a good pairing, beside the bound")
    p.add_argument("--max-side", metavar="N", default="12", help="largest m and n (default 12)")
    p.add_argument("--max-conflicts", metavar="C", default="1000000", help="SAT conflicts per board before 'open'")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    add_store_options(p)
    p.add_argument("--workers", metavar="N", default=None, help="compute rows in N processes (default 1)")
    p.add_argument("--proofs", metavar="DIR", default=None,
                   help="write a certificate (a DRAT refutation) for every board with no good pairing into DIR")
    p.set_defaults(run=cmd_pairing_table)
