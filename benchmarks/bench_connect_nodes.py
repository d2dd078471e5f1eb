"""Node counts of the Connect-k score kernel on fixed work, one thread (deterministic, whatever the load).

Rows:

* 6x5 Connect Four from the empty board, exact score (strong);
* 6x6 from the empty board, its sign only (weak), and with ``--strong`` its exact score too;
* the 300 scored 7x6 positions of tests/data, exact score each, the table forgotten between them (total);
* 6x5 again in the two-word form (a table of the same entries: the same nodes, the pair's cost a node);
* 13x4 (65 bits of layout: two words only) after 1. g g 2. h f 3. h f 4. i e 5. i, exact score.

Each row prints the nodes searched, those of them that reached the table (past the checks that score a position
without search: an immediate win, a double threat, a forced move, the bounds; the nodes c4 counts, as it scores
such positions before it enters them), and the CPU seconds taken (this process's: steadier than the wall clock
on a busy machine) (the first call compiles the kernel, so a warm-up
search runs before the clock starts). Run from the repository root::

    python benchmarks/bench_connect_nodes.py [--strong] [--full] [--tt-mb MB]

``--full`` adds 8x5 and 7x6 from the empty board, exact (about a minute each), for the side-by-side count with c4
built for one thread (``NUM_THREADS = 1``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from kinarow import Game
from kinarow.engine import gravity_kernel as GK
from kinarow.search.connect import ScoreSearcher

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "connect4-7x6-scored.txt"


def empty_board(spec: str, weak: bool, tt_mb: float, words: int | None = None,
                moves: str = "") -> tuple[int, int, int, float]:
    """(score, nodes, nodes that reached the table, seconds) of the empty board of ``spec`` (or the position
    after ``moves``); ``words``: the kernel's form (a two-word table gets 1.5 times the MiB, so the same number of
    entries)."""
    game = Game(spec)
    searcher = ScoreSearcher(game, tt_mb=tt_mb * (1.5 if words == 2 else 1), words=words)
    searcher.prepare()
    start = time.process_time()
    got = searcher.score(game.position(moves), weak=weak)
    assert got is not None
    return got.score, got.nodes, int(searcher.ctrl[GK.G_PROBED]), time.process_time() - start


def reference_positions(tt_mb: float) -> tuple[int, int, int, float]:
    """(positions, total nodes, of them those that reached the table, total seconds) over the scored 7x6
    positions."""
    game = Game("7x6k4:gravity")
    searcher = ScoreSearcher(game, tt_mb=tt_mb)
    lines = [line.split() for line in DATA.read_text().splitlines() if line.strip() and not line.startswith("#")]
    nodes = probed = 0
    start = time.process_time()
    for moves, _ in lines:
        searcher.forget()
        got = searcher.score(game.position(" ".join(moves)))
        assert got is not None
        nodes += got.nodes
        probed += int(searcher.ctrl[GK.G_PROBED])
    return len(lines), nodes, probed, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strong", action="store_true", help="also the exact score of the empty 6x6 board")
    parser.add_argument("--full", action="store_true", help="also 8x5 and 7x6 from the empty board, exact")
    parser.add_argument("--tt-mb", type=float, default=64, help="table size in MB (default 64)")
    args = parser.parse_args()
    ScoreSearcher(Game("4x4k4:gravity"), tt_mb=1).score(Game("4x4k4:gravity").start())  # compile
    rows = []
    t0 = time.perf_counter()
    rows.append(("6x5 empty, exact", *empty_board("6x5k4:gravity", False, args.tt_mb)))
    rows.append(("6x6 empty, weak", *empty_board("6x6k4:gravity", True, args.tt_mb)))
    if args.strong:
        rows.append(("6x6 empty, exact", *empty_board("6x6k4:gravity", False, args.tt_mb)))
    count, nodes, probed, secs = reference_positions(args.tt_mb)
    rows.append((f"{count} scored 7x6 positions, exact", "-", nodes, probed, secs))
    rows.append(("6x5 empty, exact, two words", *empty_board("6x5k4:gravity", False, args.tt_mb, words=2)))
    rows.append(("13x4 after g g h f h f i e i, exact (two words)",
                 *empty_board("13x4k4:gravity", False, args.tt_mb, moves="g g h f h f i e i")))
    if args.full:
        rows.append(("8x5 empty, exact", *empty_board("8x5k4:gravity", False, args.tt_mb)))
        rows.append(("7x6 empty, exact", *empty_board("7x6k4:gravity", False, args.tt_mb)))
    print("| work | score | nodes | reached the table | CPU seconds | Mnodes/s |")
    print("|---|---|---:|---:|---:|---:|")
    for name, score, nodes, probed, secs in rows:
        print(f"| {name} | {score} | {nodes:,} | {probed:,} | {secs:.2f} | {nodes / secs / 1e6:.2f} |")
    print(f"(wall {time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
