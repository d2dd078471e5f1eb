"""Can the first player win the window game W(w) of boards four high? One df-pn search per width.

Run from the repository root::

    python benchmarks/bench_window.py 5 6 7 8 9              # widths 5 to 9, 10^8 nodes each at most
    python benchmarks/bench_window.py 10 --max-nodes 3e8 --tt-mb 1024
    python benchmarks/bench_window.py 12 --max-nodes 1e9 --tt-mb 4096 --certificate-dir certificates

With ``--certificate-dir`` a width that X wins gets its certificate written there as ``window-W.json.gz`` (the
strategy read from the search's table, :func:`kinarow.search.window.window_walk`), for ``kinarow check``.

A win for X in W(w) would settle every (m,4,4) with m >= w at once (:mod:`kinarow.search.window` has the game
and the argument, :mod:`kinarow.proofs.window` its certificate's checker). The script prints each width's
answer, nodes and seconds; an answer is the search's, a result only with its checked certificate. The first
width compiles the kernel (about 10 s, not cached: the search is recursive). A live count of nodes shows on a
terminal (a line a minute in a log); Ctrl-C stops.
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import sys
from pathlib import Path

import numba

from kinarow.cli.common import progress
from kinarow.errors import KinarowError
from kinarow.proofs import window
from kinarow.search.window import PAIR_BUDGET, new_table, solve_window, window_walk


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("widths", nargs="+", type=int, help="window widths (1 to 16)")
    parser.add_argument("--max-nodes", type=float, default=1e8, help="node budget per width (default 1e8)")
    parser.add_argument("--tt-mb", type=int, default=512, help="table size in MB (default 512)")
    parser.add_argument("--pair-budget", type=int, default=PAIR_BUDGET,
                        help=f"nodes of one pairing test, 0 for none (default {PAIR_BUDGET})")
    parser.add_argument("--threat-budget", type=int, default=0,
                        help="tries of one threat-sequence search that cuts O's replies, 0 for none (default 0)")
    parser.add_argument("--certificate-dir", type=Path, help="write the certificate of each width X wins here")
    args = parser.parse_args(argv)
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"numba {numba.__version__}")
    print(f"# pairing budget {args.pair_budget}, threat budget {args.threat_budget}")
    print("| width | answer | nodes | pairing leaves / tests | seconds |")
    print("| ---: | --- | ---: | ---: | ---: |")
    for width in args.widths:
        try:
            table = new_table(args.tt_mb)
            with progress(f"W({width})", sys.stderr) as tick:
                found = solve_window(width, max_nodes=int(args.max_nodes), pair_budget=args.pair_budget,
                                     threat_budget=args.threat_budget, table=table,
                                     on_tick=tick)
        except KinarowError as err:
            print(f"bench_window: {err}", file=sys.stderr)
            return 2
        print(f"| {width} | {found.answer} | {found.nodes:,} | {found.pair_leaves:,} / {found.pair_tests:,} | "
              f"{found.seconds:.1f} |", flush=True)
        if args.certificate_dir is not None and found.answer == "X wins":
            walk = window_walk(width, max_nodes=int(args.max_nodes), table=table, threat_budget=args.threat_budget)
            if walk is None:
                print(f"bench_window: the search of width {width} did not prove the win again", file=sys.stderr)
                return 1
            path = args.certificate_dir / f"window-{width}.json.gz"
            with gzip.open(path, "wt") as handle:
                json.dump(window.certificate(width, 4, walk), handle)
            print(f"# wrote {path}: {len(walk):,} prescribed moves; check it with kinarow check {path}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("bench_window: stopped (Ctrl-C); the width being searched has no answer", file=sys.stderr)
        sys.exit(130)
