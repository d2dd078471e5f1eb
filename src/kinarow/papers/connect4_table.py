"""``kinarow reproduce connect4-table``: Connect Four on every board with w + h <= 16, against the published table.

Each board ``WxHk4:gravity`` (both sides at least 4) is solved strongly from the empty board by
:func:`kinarow.search.solve.solve`, which takes its score search route there (:mod:`kinarow.search.connect`:
value and game length in one search, one thread, so the node counts repeat on any machine), within a **node
budget** per board (:data:`DEFAULT_NODES`; ``max_nodes`` raises it). Its outcome and last move (``w * h`` for a
draw) are set against :data:`kinarow.papers.connect4_data.PUBLISHED`:

* ``agree``: both figures are the table's;
* ``differs``: either is not (a finding, listed plainly);
* ``open``: nothing is claimed, because the budget ran out.

The boards whose column layout needs more than one 64-bit word (``w * (h + 1) > 64``: 6 x 10, 7 x 9, 8 x 8,
9 x 7, 10 x 6, 11 x 5) are searched by the score search's two-word form.

Every value is a search value (the 7 x 6 board's is read from the opening book shipped for it, which this search
wrote). With ``proof=DIR``, each row whose search took at most :data:`PROOF_NODES` nodes also gets the certificate
of its outcome: :func:`~kinarow.search.solve.solve` with ``proof=True`` (an alpha-beta search, so a second method:
a winner's strategy as a walk, or each player's non-losing walk for a draw), checked by the compiled checker
before it is written, with ``DIR/index.json`` naming each row's. A certificate proves the outcome, not the last
move: the last move stays a search value.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.limits import check_count
from kinarow.papers import Report, Tally, checked_shipped
from kinarow.papers.connect4_data import MAX_SUM, PUBLISHED, SOURCE, boards
from kinarow.values import Value

#: nodes per board by default: every board up to 5 x 8 (18,477,903 nodes) and 6 x 6 (12,335,282) is settled, and
#: the 21 the budget does not settle cost 420 M nodes together (about two minutes on one core of a 2-core Xeon)
DEFAULT_NODES = 20_000_000
#: the rows that get a certificate with ``proof``: those whose search took at most this many nodes (5 x 7,
#: 4,545,496 nodes, writes its draw walks in about 18 s; 8 x 4, 6,256,260 nodes, took 126 s and 6.3 MB, and
#: 6 x 6 needs minutes and gigabytes: ``certificates/`` ships the 6 x 6 and 7 x 4 certificates)
PROOF_NODES = 5_000_000
#: the boards whose certificate is shipped in ``certificates/`` (``certificates/README.md`` gives the command that
#: writes each): with ``certificates=DIR`` each is checked, and then stands behind the row's outcome
SHIPPED: dict[tuple[int, int], str] = {
    (7, 4): "connect4-7x4.draw.json.gz",
    (6, 6): "connect4-6x6.strategy.json.gz",
    (7, 6): "connect4.strategy.json.gz",
}

Status = Literal["agree", "differs", "open"]


@dataclass
class Row:
    """One board: the published figures, kinarow's, what it took, and what stands behind kinarow's."""

    w: int
    h: int
    published: Value
    published_last: int
    value: Value | None = None  # None: open
    last_move: int | None = None  # kinarow's (w * h for a draw); None when open
    nodes: int = 0
    seconds: float = 0.0
    search: str | None = None  # which search answered (score search, opening book)
    status: Status = "open"
    note: str = ""  # why open, or the evidence in words
    certificate: str | None = None  # the file in the proof folder, when one was written
    shipped: str | None = None  # the shipped certificate that was checked for the row's outcome

    @property
    def game(self) -> str:
        return f"{self.w}x{self.h}k4:gravity"

    def searched(self) -> str:
        """What the search value rests on, in words."""
        return "search value" + (" (the opening book shipped for the board)" if self.search == "opening book"
                                 else "")

    def figures(self) -> str:
        return "" if self.value is None else f"{self.value}, {self.last_move}"


def solve_row(w: int, h: int, max_nodes: int) -> Row:
    """The row of the board ``w`` x ``h``: the strong solve of its empty board within ``max_nodes`` nodes (one
    thread), compared with the published figures."""
    from kinarow.search.connect import score_search_fit
    from kinarow.search.solve import solve

    published, published_last = PUBLISHED[(w, h)]
    row = Row(w, h, published, published_last)
    game = Game(row.game)
    fit = score_search_fit(game)
    if not fit:
        row.note = f"not reachable by this version ({fit.reason})"
        return row
    result = solve(game, strong=True, max_nodes=max_nodes, threads=1)
    if result.stopped == "interrupted":  # Ctrl-C: stop the table, not just this board
        raise KeyboardInterrupt
    row.nodes, row.seconds, row.search = result.nodes, result.seconds, result.search
    if not isinstance(result.value, Value) or result.value == Value.UNKNOWN:
        row.note = f"no answer within {max_nodes:,} nodes"
        return row
    row.value = result.value
    row.last_move = game.cells if result.value == Value.DRAW else result.last_move
    same = (row.value, row.last_move) == (published, published_last)
    row.status = "agree" if same else "differs"
    row.note = row.searched()
    return row


def _row_job(job: tuple[int, int, int]) -> Row:
    """A worker's cell: one row (:func:`solve_row`)."""
    return solve_row(*job)


def table(max_nodes: int = DEFAULT_NODES, workers: int = 1,
          only: list[tuple[int, int]] | None = None) -> list[Row]:
    """Every row (``only``: those boards), each within ``max_nodes`` nodes, in order of w + h, then w;
    ``workers`` processes solve rows side by side, smallest boards first (the same rows as one: each row's budget
    is its own)."""
    from kinarow.engine.pool import run_cells

    check_count(max_nodes, "max_nodes")
    wanted = boards() if only is None else [wh for wh in boards() if wh in set(only)]
    rows: dict[int, Row] = {}
    run_cells(_row_job, len(wanted), lambda i: (*wanted[i], max_nodes), rows.__setitem__, workers=workers)
    return sorted(rows.values(), key=lambda r: (r.w + r.h, r.w))


def write_proofs(rows: list[Row], directory: str, proof_nodes: int = PROOF_NODES) -> list[tuple[bool, str]]:
    """Write the certificate of the outcome of every row settled by the search within ``proof_nodes`` nodes to
    ``directory`` (each checked first), with ``index.json`` naming each row's; what went wrong, one line a row
    (a certificate the checker rejects, or one that proves another value than the search's, is not written)."""
    from kinarow.proofs import check_data
    from kinarow.search.certify import claim_problem
    from kinarow.search.solve import SCORE_SEARCH, solve

    root = Path(directory)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise KinarowError(f"cannot make the proof folder '{directory}': {error.strerror or error}") from None
    problems: list[tuple[bool, str]] = []  # (a conflict between the two searches?, what went wrong)
    index = []
    for row in rows:
        if row.value is None or row.search != SCORE_SEARCH or row.nodes > proof_nodes:
            continue
        game = Game(row.game)
        made = solve(game, proof=True, strategy=True, walk=True)
        proof = made.proof
        if proof is None or proof.data is None:
            problems.append((False, f"{row.game}: no certificate: "
                             f"{proof.what if proof is not None else 'none was made'}"))
            continue
        problem = claim_problem(game, row.value, proof)
        if made.value != row.value or problem is not None:
            problems.append((True, f"{row.game}: the certificate's search finds {made.value}, the score search "
                             f"{row.value}" + (f" ({problem})" if problem else "")))
            continue
        verdict = check_data(proof.data, compiled=True)
        if not verdict.ok:
            problems.append((False, f"{row.game}: the certificate is rejected: {verdict.reason}"))
            continue
        name = f"connect4-{row.w}x{row.h}.{proof.kind}.json"
        try:
            (root / name).write_text(json.dumps(proof.data) + "\n", encoding="utf-8")
        except OSError as error:
            raise KinarowError(f"cannot write the certificate to '{root / name}': {error.strerror or error}") from None
        row.certificate = name
        row.note = f"outcome: certificate {name} (checked); last move: search value"
        index.append({"w": row.w, "h": row.h, "game": row.game, "value": str(row.value), "certificate": name,
                      "proves": proof.what})
    try:
        (root / "index.json").write_text(json.dumps({"rows": index}, indent=1) + "\n", encoding="utf-8")
    except OSError as error:
        raise KinarowError(f"cannot write the certificates' index to '{directory}': {error.strerror or error}") \
            from None
    return problems


def read_shipped(rows: list[Row], folder: str) -> list[tuple[bool, str]]:
    """Check the certificate shipped in ``folder`` (:data:`SHIPPED`) for each of ``rows`` that has one, and let it
    stand behind the row's outcome; what went wrong, one line a row, as in :func:`write_proofs` (a certificate
    that proves another outcome than the search's is a conflict; one that proves another than the table's, on a
    row the search left open, a finding)."""
    problems: list[tuple[bool, str]] = []
    for row in rows:
        name = SHIPPED.get((row.w, row.h))
        if name is None:
            continue
        value, said = checked_shipped(folder, name, Game(row.game))
        if value is None:
            problems.append((False, f"{row.game}: the shipped certificate is not counted: {said}"))
            continue
        if row.value is None:
            row.shipped = name
            row.note += (f"; the outcome, {value}, is proven by the shipped certificate {name} (checked), the last "
                         "move is open")
            if value != row.published:
                problems.append((False, f"{row.game}: the shipped certificate {name} proves {value}; the table says "
                                 f"{row.published}"))
        elif value != row.value:
            problems.append((True, f"{row.game}: the shipped certificate {name} proves {value}, the score search "
                             f"finds {row.value}"))
        else:
            row.shipped = name
            row.note = (f"outcome: shipped certificate {name} (checked)"
                        + (f" and certificate {row.certificate} (checked)" if row.certificate else "")
                        + f"; last move: {row.searched()}")
    return problems


def rows_text(rows: list[Row]) -> list[str]:
    """The rows as a Markdown table: the published figures beside kinarow's, with what it took."""
    lines = ["| w | h | published | kinarow | nodes | s | result | evidence |",
             "|---:|---:|---|---|---:|---:|---|---|"]
    for r in rows:
        nodes = f"{r.nodes:,}" if r.nodes or r.search else ""
        seconds = f"{r.seconds:.2f}" if r.search else ""
        result = "**differs**" if r.status == "differs" else r.status
        lines.append(f"| {r.w} | {r.h} | {r.published}, {r.published_last} | {r.figures()} | {nodes} | {seconds} "
                     f"| {result} | {r.note} |")
    return lines


def reproduce(max_nodes: int | None = None, workers: int = 1, proof: str | None = None,
              certificates: str | None = None, only: list[tuple[int, int]] | None = None) -> Report:
    """``kinarow reproduce connect4-table [--max-nodes N] [--workers N] [--proof DIR] [--certificates DIR]``:
    every row (:func:`table`; ``only``: those boards), compared with the published table; with ``proof``, the
    certificates of the rows settled within :data:`PROOF_NODES` nodes (:func:`write_proofs`); with
    ``certificates``, the folder of shipped certificates (:data:`SHIPPED`), each checked before it stands behind
    a row's outcome (:func:`read_shipped`)."""
    budget = DEFAULT_NODES if max_nodes is None else max_nodes
    check_count(budget, "max_nodes")
    if only is not None:
        missing = [f"{w}x{h}" for w, h in only if (w, h) not in PUBLISHED]
        if missing:
            raise KinarowError(f"the table has no board {', '.join(missing)}: its boards have w, h >= 4 and "
                               f"w + h <= {MAX_SUM}")
    start = time.perf_counter()
    rows = table(budget, workers, only)
    problems = write_proofs(rows, proof) if proof is not None else []
    problems += read_shipped(rows, certificates) if certificates is not None else []
    seconds = time.perf_counter() - start
    differ = [r for r in rows if r.status == "differs"]
    agree = sum(r.status == "agree" for r in rows)
    unreachable = sum(r.status == "open" and r.search is None for r in rows)
    still = sum(r.status == "open" and r.search is not None for r in rows)
    differences = [f"{r.w}x{r.h}: kinarow finds {r.value}, last move {r.last_move} ({r.nodes:,} nodes); "
                   f"the table says {r.published}, last move {r.published_last}" for r in differ]
    differences += [text for _, text in problems]
    lines = [
        f"Connect Four on every board with w + h <= {MAX_SUM} (w, h >= 4): outcome and last move (the stone that "
        "ends the game with perfect play; w x h for a draw)",
        f"published: {SOURCE}",
        f"kinarow: the strong score search from the empty board, {budget:,} nodes per board, one thread",
        "",
        *rows_text(rows),
        "",
        f"{agree} rows agree, {len(differ)} differ, {still + unreachable} open ({still} past the budget, "
        f"{unreachable} not reachable by this version); {seconds:.1f} s",
    ]
    if proof is not None:
        written = sum(r.certificate is not None for r in rows)
        lines.append(f"Certificates of the outcome of {written} rows (searches of at most {PROOF_NODES:,} nodes) in "
                     f"{proof}, each checked before it was written (index.json names each row's; check one with "
                     "'kinarow check FILE').")
    wanted = [r for r in rows if (r.w, r.h) in SHIPPED]
    if certificates is not None and wanted:
        lines.append(f"Shipped certificates from {certificates}, each checked by the compiled checker: "
                     f"{sum(r.shipped is not None for r in wanted)} of {len(wanted)} stand behind their row's outcome "
                     f"({', '.join(f'{r.w}x{r.h}' for r in wanted if r.shipped)}).")
    elif wanted:
        lines.append(f"Shipped certificates: none read (no folder given); {len(wanted)} of these rows have one in "
                     "certificates/.")
    if still:
        lines.append(f"To settle more rows, raise the budget: kinarow reproduce connect4-table --max-nodes N "
                     f"(now {budget:,}).")
    data = {"source": SOURCE, "max_nodes": budget, "proof_nodes": PROOF_NODES if proof is not None else None,
            "seconds": round(seconds, 3), "rows": [{**asdict(r), "game": r.game} for r in rows]}
    conflicts = sum(conflict for conflict, _ in problems)
    tally = Tally(agree=agree, differ=len(differ), open=still + unreachable, conflicts=conflicts)
    return Report("connect4-table", data, "\n".join(lines), not differences, differences, tally)
