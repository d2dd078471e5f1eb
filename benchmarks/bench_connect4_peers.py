"""Connect Four side by side: kinarow and two public C++ solvers, timed in one run on one machine.

What it measures, one row per piece of work:

* Connect Four from the empty board on 6x5 and 6x6 (and 7x6 with ``--full``):
  wall seconds of each tool's run (a peer's whole process, table allocation
  included; kinarow's ``solve()`` call), the nodes it reports, the value and,
  where the tool gives it, the move (1-based ply) on which the game ends with
  perfect play.
* ``--boards WxH ...``: other empty boards instead (10x4, 9x5, 8x6: the issue's wider targets), c4 built for
  each size; Pons' solver only on the three above.
* N random 7x6 positions (16 to 30 stones, no finished game, made by random
  legal play from a fixed seed): Pascal Pons' solver answers all of them in
  one process (positions on its standard input), kinarow answers them with one
  ``solve()`` each sharing one :class:`kinarow.Searcher`. The values are
  compared (the sign of Pons' score against kinarow's value).

The peers are not part of kinarow; build them yourself and give their paths:

* c4 by Christophe Steininger (github.com/ChristopheSteininger/c4): the board
  size and thread count are compile-time constants in ``src/solver/settings.h``
  (``BOARD_WIDTH``, ``BOARD_HEIGHT``, ``NUM_THREADS``; set the threads to the
  cores you give it). Configure with CMake (``-DMODE=OPTIMISE
  -DCMAKE_BUILD_TYPE=Release``), build the ``c4`` target and copy it as
  ``c4-7x6``, ``c4-6x6``, ``c4-6x5`` into one directory (``--c4-dir`` or the
  environment variable ``KINAROW_C4``). This program solves the empty board
  strongly and prints the move the game ends on; it takes no position.
* Pascal Pons' solver (github.com/PascalPons/connect4): the board size is
  ``WIDTH`` and ``HEIGHT`` in ``Position.hpp``; ``make c4solver``. It reads one
  position a line (columns played, 1-based digits) and prints the position and
  its score (positive: the side to move wins). Built from the commit before
  move analysis (``-a``) was added, it also prints nodes and microseconds per
  position and clears its table between positions; the newest commit prints the
  score only and keeps its table. Either works here. Its opening book
  (``7x6.book``) is not in the repository, so it searches without one. Give
  the 7x6 build with ``--pons`` (``KINAROW_PONS``) and the others with
  ``--pons-6x6`` / ``--pons-6x5`` (``KINAROW_PONS_6X6`` / ``KINAROW_PONS_6X5``).

A peer not given is shown as "not given". Run from the repository root::

    python benchmarks/bench_connect4_peers.py [--quick | --full] [--c4-dir DIR] [--pons PATH] ...

The Markdown table at the end is written for docs/benchmarks.md. ``--plot FILE``
also draws its seconds as a bar chart (SVG, or PNG when FILE ends in .png);
``--from-table FILE --plot FILE`` redraws the chart from a saved table (the
first ``| work | c4 | Pons | kinarow |`` table in FILE, e.g. docs/benchmarks.md)
without running anything.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from kinarow import Game, solve, svg
from kinarow.cli.common import UsageError, check_outputs

#: kinarow's table (MB) on the empty boards of ``--boards`` that EMPTY_TT_MB does not name (c4's own is 1 GB)
OTHER_TT_MB = 1024
POSITIONS_BOARD = "7x6"
#: kinarow's table (MB) for each empty board: the search waits on its table reads, and a table that more of the
#: caches hold answers sooner, so a small table is faster even where it keeps fewer entries (7x6 on one thread,
#: 2026-11-27: 64 MB 202.8 M nodes in 39.8 s, 1 GB 184.1 M nodes in 63.3 s); c4 allocates 1 GB whatever the board
EMPTY_TT_MB = {"6x5": 16, "6x6": 64, "7x6": 128}


@dataclass
class Run:
    """One tool's answer to one piece of work (``note`` instead when it did not run)."""

    seconds: float | None = None
    nodes: int | None = None
    value: str | None = None  # first, second, draw
    last_move: int | None = None
    note: str | None = None
    extra: str = ""

    def cell(self) -> str:
        """The run in one Markdown table cell."""
        if self.note is not None:
            return self.note
        parts = [f"{self.seconds:.2f} s"]
        if self.nodes is not None:
            parts.append(f"{self.nodes / 1e6:.1f} M nodes")
        if self.value is not None:
            parts.append(self.value if self.last_move is None else f"{self.value}, move {self.last_move}")
        if self.extra:
            parts.append(self.extra)
        return ", ".join(parts)


def dims(board: str) -> tuple[int, int]:
    """(width, height) of a board written ``WxH`` (both 4 to 16)."""
    w, _, h = board.lower().partition("x")
    if not (w.isdigit() and h.isdigit() and 4 <= int(w) <= 16 and 4 <= int(h) <= 16):
        raise UsageError(f"a board is WxH with both sides 4 to 16 (e.g. 9x5), not {board!r}")
    return int(w), int(h)


def game_string(board: str) -> str:
    return f"{board}k4:gravity"


def value_of_score(score: int, stones: int) -> str:
    """``first``/``second``/``draw`` from a score of the side to move after ``stones`` stones (Pons' sign)."""
    if score == 0:
        return "draw"
    first_to_move = stones % 2 == 0
    return "first" if first_to_move == (score > 0) else "second"


def last_move_of_score(score: int, stones: int, cells: int) -> int:
    """The ply the game ends on, from Pons' exact score: the winner ends with ``(cells + 1) // 2 + 1 - |score|``
    stones (22 - |score| on 7x6); a draw fills the board."""
    if score == 0:
        return cells
    winner_stones = (cells + 1) // 2 + 1 - abs(score)
    return 2 * winner_stones - (1 if value_of_score(score, stones) == "first" else 0)


# -- the peers ------------------------------------------------------------------------------------------------
def run_c4(binary: Path | None, board: str, timeout: float) -> Run:
    """c4 solves the empty board of its compiled size strongly: 'Final strong score is S (... on move #N)'."""
    if binary is None or not binary.is_file():
        return Run(note="not given" if binary is None else f"not found: {binary.name}")
    width, height = dims(board)
    with tempfile.TemporaryDirectory() as tmp:  # it could write table files to its working directory
        start = time.perf_counter()
        try:
            out = subprocess.run(
                [str(binary)],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=tmp,
                env={**os.environ, "LC_ALL": "C"},
            )
        except subprocess.TimeoutExpired:
            return Run(note=f"> {timeout:.0f} s")
        seconds = time.perf_counter() - start
    text = out.stdout
    size = re.search(r"Using a (\d+) x (\d+) board", text)
    if size and (int(size[1]), int(size[2])) != (width, height):
        return Run(note=f"built for {size[1]}x{size[2]}")
    final = re.search(r"Final (?:strong|weak) score is (-?\d+)(?:.*?move #(\d+))?", text)
    if final is None:
        return Run(note=f"no result (exit {out.returncode})")
    score = int(final[1])
    total = re.search(r"Total\s*=\s*([\d,.' ]+)", text)
    nodes = int(re.sub(r"\D", "", total[1])) if total else None
    inner = re.search(r"Time to solve\s*=\s*([\d.]+) s", text)
    last = int(final[2]) if final[2] else (width * height if score == 0 else None)
    return Run(seconds, nodes, value_of_score(score, 0), last, extra=f"{inner[1]} s in search" if inner else "")


@dataclass
class PonsLine:
    score: int
    nodes: int | None
    micros: int | None


def run_pons(binary: Path, lines: list[str], timeout: float, weak: bool = False) -> tuple[dict[str, PonsLine], float]:
    """Pons' solver on ``lines`` (one process): each answer by position, and the process's wall seconds."""
    args = [str(binary)] + (["-w"] if weak else [])
    with tempfile.TemporaryDirectory() as tmp:  # no opening book there: it searches without one
        start = time.perf_counter()
        out = subprocess.run(
            args, input="".join(f"{line}\n" for line in lines), capture_output=True, text=True, timeout=timeout, cwd=tmp
        )
        seconds = time.perf_counter() - start
    answers: dict[str, PonsLine] = {}
    for row in out.stdout.splitlines():
        fields = row.split()
        if not fields:
            continue
        if not row.startswith(" "):  # the position comes first (empty for the empty board)
            moves, fields = fields[0], fields[1:]
        else:
            moves = ""
        numbers = [int(f) for f in fields]
        answers[moves] = PonsLine(numbers[0], *(numbers[1:3] if len(numbers) >= 3 else (None, None)))
    return answers, seconds


def pons_empty(binary: Path | None, board: str, timeout: float) -> Run:
    if binary is None or not binary.is_file():
        return Run(note="not given" if binary is None else f"not found: {binary.name}")
    width, height = dims(board)
    try:
        answers, seconds = run_pons(binary, [""], timeout)
    except subprocess.TimeoutExpired:
        return Run(note=f"> {timeout:.0f} s")
    if "" not in answers:
        return Run(note="no result")
    line = answers[""]
    return Run(
        seconds,
        line.nodes,
        value_of_score(line.score, 0),
        last_move_of_score(line.score, 0, width * height),
        extra=f"score {line.score}",
    )


# -- kinarow ------------------------------------------------------------------------------------------------------
def kinarow_empty(board: str, max_seconds: float | None, tt_mb: float, threads: int) -> Run:
    """kinarow's strong solve of the empty board (value and the move the game ends on), as c4 does it."""
    start = time.perf_counter()
    result = solve(game_string(board), strong=True, time_limit=max_seconds, tt_mb=tt_mb, threads=threads)
    seconds = time.perf_counter() - start
    if result.value == "unknown":
        return Run(note=f"> {max_seconds:.0f} s")
    last = result.last_move if result.last_move is not None else Game(game_string(board)).cells
    return Run(seconds, result.nodes, str(result.value), last, extra=f"{threads} threads" if threads > 1 else "")


# -- random positions -----------------------------------------------------------------------------------------
def wins(grid: list[list[int]], x: int, y: int, width: int, height: int) -> bool:
    """Does the stone at column x, row y make four in a row?"""
    who = grid[x][y]
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            cx, cy = x + sign * dx, y + sign * dy
            while 0 <= cx < width and 0 <= cy < height and grid[cx][cy] == who:
                count += 1
                cx, cy = cx + sign * dx, cy + sign * dy
        if count >= 4:
            return True
    return False


def random_positions(count: int, seed: int, board: str = POSITIONS_BOARD, low: int = 16, high: int = 30) -> list[str]:
    """``count`` positions as 1-based column digits, each of ``low``..``high`` stones, made by random legal play;
    a game that ends on the way is thrown away and played again."""
    width, height = dims(board)
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        stones = rng.randint(low, high)
        grid = [[0] * height for _ in range(width)]
        heights = [0] * width
        moves: list[int] = []
        while len(moves) < stones:
            x = rng.choice([c for c in range(width) if heights[c] < height])
            grid[x][heights[x]] = 1 + len(moves) % 2
            heights[x] += 1
            moves.append(x)
            if wins(grid, x, heights[x] - 1, width, height):
                break
        else:
            out.append("".join(str(x + 1) for x in moves))
    return out


@dataclass
class PositionsRow:
    pons: Run
    pons_weak: Run
    kinarow: Run
    kinarow_weak: Run
    mismatches: list[str]


def compare_positions(
    lines: list[str], pons: Path | None, timeout: float, max_seconds: float | None, tt_mb: float | None
) -> PositionsRow:
    """Pons (exact score, then ``-w``) over all lines in one process each; kinarow one ``solve()`` each, exact
    (``strong=True``: value and the move the game ends on) and then the value only. Every answer is compared."""
    pons_answers: list[dict[str, PonsLine]] = []  # per run (exact, weak): position -> answer
    runs = []
    for weak in (False, True):
        if pons is None or not pons.is_file():
            runs.append(Run(note="not given" if pons is None else f"not found: {pons.name}"))
            pons_answers.append({})
            continue
        try:
            answers, seconds = run_pons(pons, lines, timeout, weak=weak)
        except subprocess.TimeoutExpired:
            runs.append(Run(note=f"> {timeout:.0f} s"))
            pons_answers.append({})
            continue
        missing = sum(line not in answers for line in lines)
        nodes = [a.nodes for a in answers.values()]
        runs.append(
            Run(seconds, sum(nodes) if None not in nodes else None, extra=f"{missing} unanswered" if missing else "")
        )
        pons_answers.append(answers)

    game = Game(game_string(POSITIONS_BOARD))
    mismatches: list[str] = []
    kinarow_runs = []
    for strong in (True, False):
        start = time.perf_counter()
        nodes = unknown = agree = 0
        for line in lines:
            result = solve(game.position(" ".join(line)), time_limit=max_seconds, tt_mb=tt_mb, strong=strong)
            nodes += result.nodes
            if result.value == "unknown":
                unknown += 1
                continue
            theirs = pons_answers[0 if strong else 1].get(line)
            if theirs is None:
                continue
            want = value_of_score(theirs.score, len(line))
            got = str(result.value)
            if strong:
                want_last = last_move_of_score(theirs.score, len(line), game.cells)
                got_last = result.last_move if result.last_move is not None else game.cells
                want, got = f"{want}, move {want_last}", f"{got}, move {got_last}"
            if want == got:
                agree += 1
            else:
                mismatches.append(f"{line}: Pons {want}, kinarow {got}")
        seconds = time.perf_counter() - start
        checked = len(pons_answers[0 if strong else 1])
        extra = [f"{unknown} out of time" if unknown else "",
                 f"agrees with Pons on {agree} / {checked}" if checked else ""]
        kinarow_runs.append(Run(seconds, nodes, extra=", ".join(filter(None, extra))))
    return PositionsRow(runs[0], runs[1], kinarow_runs[0], kinarow_runs[1], mismatches)


# -- the chart -----------------------------------------------------------------------------------------------
PEERS = ("c4", "Pons", "kinarow")
HEADER = "| work | c4 | Pons | kinarow |"


def short_label(what: str) -> str:
    """A row's work in a few words, for the chart: '6x6, empty board', '400 7x6 positions, exact'."""
    empty = re.match(r"(\d+x\d+) from the empty board", what)
    if empty:
        return f"{empty.group(1)}, empty board"
    positions = re.match(r"(\d+) random (\d+x\d+) positions", what)
    if positions:
        kind = "win/draw/loss" if "win/draw/loss" in what else "exact"
        return f"{positions.group(1)} {positions.group(2)} positions, {kind}"
    return what


def chart(rows: list[tuple[str, Run, Run, Run]]) -> str:
    """The seconds of ``rows`` (work, c4, Pons, kinarow) as an SVG bar chart on a log scale; a run that did not
    finish or did not apply has no bar, and the note under the chart says why."""
    categories = [short_label(what) for what, *_ in rows]
    series = [(name, [runs[i].seconds if runs[i].note is None else None for _, *runs in rows])
              for i, name in enumerate(PEERS)]
    missing = [f"{name} on {label}: {run.note}" for label, (_, *runs) in zip(categories, rows, strict=True)
               for name, run in zip(PEERS, runs, strict=True) if run.note not in (None, "takes no position")]
    note = "No bar: " + "; ".join(missing) + ". c4 takes no position." if missing else "c4 takes no position."
    return svg.bar_chart(svg.BarChart(categories, series, title="Connect Four side by side: wall seconds",
                                      y_label="seconds (log scale)", log=True, note=note))


def rows_from_table(text: str) -> list[tuple[str, Run, Run, Run]]:
    """The rows of the first side-by-side table in ``text`` (Markdown, as :func:`main` prints it), each cell read
    back into a :class:`Run`: its seconds and nodes, or its note when it has no seconds."""
    lines = text.splitlines()
    if HEADER not in lines:
        raise UsageError(f"there is no table headed '{HEADER}' to redraw")
    rows: list[tuple[str, Run, Run, Run]] = []
    for line in lines[lines.index(HEADER) + 2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 4:
            break
        runs = []
        for cell in cells[1:]:
            timed = re.match(r"([\d.]+) s(?:, ([\d.]+) M nodes)?", cell)
            if timed:
                nodes = round(float(timed.group(2)) * 1e6) if timed.group(2) else None
                runs.append(Run(float(timed.group(1)), nodes, extra=cell[timed.end():].lstrip(", ")))
            else:
                runs.append(Run(note=cell))
        rows.append((cells[0], runs[0], runs[1], runs[2]))
    return rows


# -- the report -----------------------------------------------------------------------------------------------
def machine() -> str:
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    system = f"{platform.system()} {platform.release()}, Python {platform.python_version()}"
    return f"{model}, {cores} cores available; {system}"


def peer_path(arg: str | None, env: str) -> Path | None:
    text = arg or os.environ.get(env)
    return Path(text).expanduser().resolve() if text else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="6x5 only and 50 positions")
    mode.add_argument("--full", action="store_true", help="also 7x6 from the empty board (kinarow: minutes)")
    parser.add_argument("--c4-dir", help="directory holding c4-6x5, c4-6x6, c4-7x6, c4-WxH (default: $KINAROW_C4)")
    parser.add_argument("--pons", help="Pons' solver built for 7x6 (default: $KINAROW_PONS)")
    parser.add_argument("--pons-6x6", help="Pons' solver built for 6x6 (default: $KINAROW_PONS_6X6)")
    parser.add_argument("--pons-6x5", help="Pons' solver built for 6x5 (default: $KINAROW_PONS_6X5)")
    parser.add_argument("--boards", nargs="+", metavar="WxH",
                        help="these empty boards instead (c4 as DIR/c4-WxH; Pons' only for 6x5, 6x6, 7x6)")
    parser.add_argument("--positions", type=int, default=None,
                        help="random 7x6 positions (default 400; quick 50; 0: none)")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the random positions (default 2024)")
    parser.add_argument("--peer-timeout", type=float, default=600.0, help="seconds a peer's run may take (600)")
    parser.add_argument("--max-seconds", type=float, default=None, help="kinarow's time limit per solve (none)")
    parser.add_argument("--tt-mb", type=float, default=None, help="kinarow's table for the positions (auto)")
    parser.add_argument("--empty-tt-mb", type=float, default=None,
                        help="kinarow's table for the empty boards (default: 16 MB on 6x5, 64 on 6x6, 128 on 7x6, "
                             "1024 on the others)")
    parser.add_argument("--threads", type=int, default=2, help="kinarow's threads for the empty boards (default 2)")
    parser.add_argument("--verbose", action="store_true", help="print each run as it ends")
    parser.add_argument("--plot", metavar="FILE", help="also chart the seconds as SVG (PNG if FILE ends in .png)")
    parser.add_argument("--from-table", metavar="FILE", help="with --plot: redraw the chart from FILE's table only")
    args = parser.parse_args(argv)
    try:
        check_outputs(("--plot", args.plot))
        for board in args.boards or []:
            dims(board)
        if args.from_table:
            if not args.plot:
                raise UsageError("--from-table redraws a chart, so it needs --plot FILE")
            try:
                text = Path(args.from_table).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise UsageError(f"cannot read the table '{args.from_table}': {error}") from None
            svg.save(chart(rows_from_table(text)), args.plot)
            return 0
    except UsageError as error:
        print(f"bench_connect4_peers.py: error: {error}", file=sys.stderr)
        return 2
    os.environ["KINAROW_BOOK"] = "off"  # measure the search: the shipped opening book answers the empty 7x6 board

    boards = args.boards or (["6x5"] if args.quick else ["6x5", "6x6"] + (["7x6"] if args.full else []))
    count = args.positions if args.positions is not None else (50 if args.quick else 400)
    c4_dir = peer_path(args.c4_dir, "KINAROW_C4")
    pons = {
        "7x6": peer_path(args.pons, "KINAROW_PONS"),
        "6x6": peer_path(args.pons_6x6, "KINAROW_PONS_6X6"),
        "6x5": peer_path(args.pons_6x5, "KINAROW_PONS_6X5"),
    }
    board_tt = {board: args.empty_tt_mb or EMPTY_TT_MB.get(board, OTHER_TT_MB) for board in boards}
    solve("4x4k4:gravity")  # load the numba kernel before the clock starts

    rows: list[tuple[str, Run, Run, Run]] = []
    for board in boards:
        c4 = run_c4(c4_dir / f"c4-{board}" if c4_dir else None, board, args.peer_timeout)
        pons_run = pons_empty(pons.get(board), board, args.peer_timeout)
        kin = kinarow_empty(board, args.max_seconds, board_tt[board], args.threads)
        rows.append((f"{board} from the empty board", c4, pons_run, kin))
        if args.verbose:
            print(f"{board}: c4 {c4.cell()} | Pons {pons_run.cell()} | kinarow {kin.cell()}", flush=True)

    mismatches: list[str] = []
    if count > 0:
        lines = random_positions(count, args.seed)
        compared = compare_positions(lines, pons["7x6"], args.peer_timeout, args.max_seconds, args.tt_mb)
        mismatches = compared.mismatches
        no_position = Run(note="takes no position")
        what = f"{count} random 7x6 positions (16-30 stones, seed {args.seed})"
        rows.append((what + ", exact score", no_position, compared.pons, compared.kinarow))
        rows.append((what + ", win/draw/loss only (Pons -w)", no_position, compared.pons_weak,
                     compared.kinarow_weak))

    print(f"Machine: {machine()}")
    print("Seconds are wall seconds of the whole run: a peer's process (table allocation included), kinarow's")
    print("solve() calls (its kernel loaded before the clock). Moves are plies, counted from 1.")
    print()
    print("| work | c4 | Pons | kinarow |")
    print("| --- | --- | --- | --- |")
    for what, *runs in rows:
        print(f"| {what} | " + " | ".join(run.cell() for run in runs) + " |")
    for line in mismatches:
        print(f"MISMATCH {line}")
    if args.plot:
        svg.save(chart(rows), args.plot)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
