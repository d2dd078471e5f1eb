"""Solve reference 7x6 Connect Four positions and compare with their known scores.

The reference file lists one position per line as ``MOVES SCORE``: MOVES are
the columns played from the empty board (1 = leftmost), SCORE is the exact
score from the side to move in Pascal Pons' convention (positive: the side to
move wins, 0: draw, negative: it loses). Only the sign is compared here.

Run from the repository root::

    python benchmarks/bench_connect4_positions.py [DATA_FILE] [--max-seconds S] [--json]

DATA_FILE defaults to ``../shared/data/connect4-7x6-scored.txt`` relative to
the repository root. One :class:`kinarow.Searcher` is shared by all positions,
so its transposition table carries over from one position to the next, as it
would for a program answering many queries; the table's pages are touched
before the clock starts.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from kinarow import Game, Position, Searcher, solve

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path("..") / "shared" / "data" / "connect4-7x6-scored.txt"
GAME = "7x6k4:gravity"


@dataclass
class Reference:
    """One reference position: the columns played (1-based digits) and Pons' score."""

    moves: str
    score: int

    @property
    def expected(self) -> str:
        """``first``, ``second`` or ``draw``: the winner the score's sign names."""
        if self.score == 0:
            return "draw"
        to_move_first = len(self.moves) % 2 == 0
        side_to_move_wins = self.score > 0
        return "first" if to_move_first == side_to_move_wins else "second"

    def position(self, game: Game) -> Position:
        return game.position(" ".join(self.moves))


@dataclass
class Outcome:
    moves: str
    score: int
    expected: str
    value: str
    nodes: int
    seconds: float

    @property
    def agrees(self) -> bool:
        return self.value == self.expected


def read_references(path: Path) -> list[Reference]:
    """Parse the reference file (``#`` lines are comments)."""
    refs: list[Reference] = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        parts = text.split()
        if len(parts) != 2 or not parts[0].isdigit():
            raise ValueError(f"line {number} of {path.name} is not 'MOVES SCORE': {text!r}")
        refs.append(Reference(parts[0], int(parts[1])))
    return refs


def data_path(arg: str | None) -> Path:
    """The data file: the argument as given, or the default relative to the repository root."""
    if arg is not None:
        return Path(arg).expanduser().resolve()
    return (REPO_ROOT / DEFAULT_DATA).resolve()


def solve_all(refs: list[Reference], max_seconds: float | None, tt_mb: float | None) -> tuple[list[Outcome], float]:
    """Solve every reference position with one searcher; returns the outcomes and the table set-up seconds."""
    game = Game(GAME)
    start = time.perf_counter()
    searcher = Searcher(game, tt_mb=tt_mb)
    searcher.prefault()
    setup = time.perf_counter() - start
    out: list[Outcome] = []
    for ref in refs:
        result = solve(ref.position(game), time_limit=max_seconds, searcher=searcher)
        out.append(Outcome(ref.moves, ref.score, ref.expected, result.value, result.nodes, result.seconds))
    return out, setup


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "data", nargs="?", help=f"reference file (default: {DEFAULT_DATA.as_posix()} from the repository root)"
    )
    parser.add_argument("--max-seconds", type=float, default=60.0, help="time budget per position (default 60)")
    parser.add_argument("--tt-mb", type=float, default=None, help="transposition table size in MiB (default: auto)")
    parser.add_argument("--limit", type=int, default=None, help="solve only the first N positions")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--verbose", action="store_true", help="one line per position")
    args = parser.parse_args(argv)

    path = data_path(args.data)
    if not path.is_file():
        print(f"reference file not found: {path}; give its path as the first argument", file=sys.stderr)
        return 2
    refs = read_references(path)[: args.limit]
    solve("4x4k4:gravity")  # load the numba kernel before the clock starts

    start = time.perf_counter()
    outcomes, setup = solve_all(refs, args.max_seconds, args.tt_mb)
    wall = time.perf_counter() - start

    nodes = sum(o.nodes for o in outcomes)
    search = sum(o.seconds for o in outcomes)
    unknown = [o for o in outcomes if o.value == "unknown"]
    wrong = [o for o in outcomes if o.value != "unknown" and not o.agrees]
    slowest = max(outcomes, key=lambda o: o.seconds) if outcomes else None
    summary = {
        "game": GAME,
        "positions": len(outcomes),
        "agree": sum(o.agrees for o in outcomes),
        "disagree": len(wrong),
        "unknown": len(unknown),
        "nodes": nodes,
        "setup_seconds": setup,
        "search_seconds": search,
        "wall_seconds": wall,
        "nodes_per_second": nodes / search if search > 0 else 0.0,
        "slowest": asdict(slowest) if slowest else None,
    }
    if args.json:
        print(json.dumps({"summary": summary, "positions": [asdict(o) for o in outcomes]}, indent=2))
        return 1 if wrong else 0

    if args.verbose:
        for o in outcomes:
            mark = "ok" if o.agrees else ("??" if o.value == "unknown" else "WRONG")
            print(f"{o.moves:<32} {o.score:>4} {o.expected:<7} {o.value:<8} {o.nodes:>12,} {o.seconds:>8.3f}  {mark}")
        print()
    print(f"{GAME}: {len(outcomes)} reference positions from {path.name}")
    print(f"  value sign agrees: {summary['agree']} / {len(outcomes)}  (disagree {len(wrong)}, unknown {len(unknown)})")
    print(f"  nodes {nodes:,}; search {search:.2f} s; {summary['nodes_per_second']:,.0f} nodes/s")
    print(f"  wall {wall:.2f} s, of which {setup:.2f} s table set-up (allocating and touching its pages)")
    if slowest is not None:
        played = len(slowest.moves)
        print(f"  slowest: {slowest.moves} ({played} moves) {slowest.seconds:.2f} s, {slowest.nodes:,} nodes")
    for o in wrong:
        print(f"  DISAGREES: {o.moves} score {o.score} expects {o.expected}, solver says {o.value}")
    for o in unknown:
        print(f"  out of time: {o.moves} ({len(o.moves)} moves)")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
