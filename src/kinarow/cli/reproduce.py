"""``kinarow reproduce``: reproduce a published table or figure and compare it with the paper."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

import kinarow.papers as reproduce
from kinarow.cli.common import EXIT_OK, positive_int
from kinarow.errors import KinarowError
from kinarow.limits import MAX_WORKERS

#: where shipped certificates are looked for unless --certificates says otherwise (when it exists)
CERTIFICATES = "certificates"


# -- reproduce -------------------------------------------------------------------------
def cmd_reproduce(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    workers = positive_int("--workers", args.workers, upper=MAX_WORKERS) or 1
    if args.list or args.name is None:
        if not reproduce.TARGETS:
            print("No reproduction targets yet.", file=out)
        for t in reproduce.TARGETS:
            print(f"{t.name:<24} {t.paper}: {t.figures}", file=out)
        return EXIT_OK
    options: dict[str, Any] = {}
    if workers > 1 and reproduce.target(args.name).takes("workers"):
        options["workers"] = workers
    elif workers > 1:
        print(f"'{args.name}' runs in one process; --workers is not used by this target.", file=err)
    if args.proof is not None:
        if not reproduce.target(args.name).takes("proof"):
            raise KinarowError(f"'{args.name}' writes no certificates; --proof DIR is for "
                               f"{_taking('proof')}")
        options["proof"] = args.proof
    if args.max_nodes is not None:
        if not reproduce.target(args.name).takes("max_nodes"):
            raise KinarowError(f"'{args.name}' takes no node budget; --max-nodes N is for {_taking('max_nodes')}")
        options["max_nodes"] = positive_int("--max-nodes", args.max_nodes)
    shipped = _certificates_folder(args.name, args.certificates)
    if shipped is not None:
        options["certificates"] = shipped
    report = reproduce.run(args.name, **options)
    if args.json:
        print(json.dumps(report.to_dict()), file=out)
    else:
        print(report.text.rstrip(), file=out)
        print(report.tally.sentence(), file=out)
        if report.differences:
            print("Differences and conflicts:", file=out)
            for line in report.differences:
                print(f"  - {line}", file=out)
    return EXIT_OK


def _taking(option: str) -> str:
    """The targets whose function takes ``option``, in words."""
    names = [t.name for t in reproduce.TARGETS if t.takes(option)]
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def _certificates_folder(name: str, given: str | None) -> str | None:
    """The folder of shipped certificates a target reads: ``given``, or ./certificates when it exists; None for
    'none', for a target that reads none, and when the default folder is not here."""
    takes = reproduce.target(name).takes("certificates")
    if given is None:
        return CERTIFICATES if takes and Path(CERTIFICATES).is_dir() else None
    if not takes:
        raise KinarowError(f"'{name}' reads no shipped certificates; --certificates DIR is for "
                           f"{_taking('certificates')}")
    if given == "none":
        return None
    if not Path(given).is_dir():
        raise KinarowError(f"--certificates '{given}' is not a folder; give the folder of shipped certificates "
                           "(or 'none')")
    return given


def add_commands(commands: Any) -> None:
    p = commands.add_parser("reproduce", help="reproduce a published table or figure and compare with the paper")
    p.add_argument("name", metavar="NAME", nargs="?", default=None, help="the target; --list names them all")
    p.add_argument("--list", action="store_true", help="list the targets with their papers")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--workers", metavar="N", default=None,
                   help="settle a table's cells in N processes (default 1); at most the idle cores, "
                   "since the solver's budget is seconds per board")
    p.add_argument("--proof", metavar="DIR", default=None,
                   help="write every settled cell's certificates to DIR, with DIR/index.json naming each cell's "
                   "(misere-table, misere-cylinder, connect4-table)")
    p.add_argument("--max-nodes", metavar="N", default=None,
                   help="connect4-table: the node budget of each board's search (default 20,000,000); a board "
                   "not solved within it stays open")
    p.add_argument("--certificates", metavar="DIR", default=None,
                   help=f"misere-cylinder: the folder of shipped certificates that settle cells past the solver's "
                   "budget; connect4-table: that stand behind a row's outcome; each checked before it counts "
                   f"(default ./{CERTIFICATES} when it exists; 'none' for none)")
    p.set_defaults(run=cmd_reproduce)
