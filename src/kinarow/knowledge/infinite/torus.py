"""Every good domino pairing of the 8 x 8 torus (9-in-a-row) and of the hexagonal 6 x 6 torus (7-in-a-row).

Győrffy, London & Makay ("The structure of pairing strategies for k-in-a-row
type games", Acta Cybernetica 2017) showed that a good pairing of the
infinite board for 9-in-a-row is 8-toric or 16-toric (and the 16-toric ones
combine 8-toric ones), and counted the 8-toric ones: **194,543** classes
under the 512 symmetries of the 8 x 8 torus. On the hexagonal grid, a good
pairing for 7-in-a-row is 6-toric, with **26** classes.

A good pairing of the torus ``T_n`` is a set of dominoes covering every cell,
each domino joining two neighbours along one of the line directions, such
that every wrapped line holds exactly one domino lying along it.

This module enumerates the classes (with the kernel of
:mod:`kinarow.engine.torus_kernel`), builds their transition graph, writes the
class file and its certificate, and draws a class. The class file's format and
its checker are :mod:`kinarow.proofs.torus`.

>>> result = enumerate_classes("hex7")
>>> result.count
26
"""

from __future__ import annotations

import hashlib
import itertools
import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from kinarow.proofs import torus as checked
from kinarow.proofs.torus import CLASSES_FORMAT, FILE_MAGIC, FORMAT, VERSION, TorusError, bytes_per_class


class TorusGeometry(checked.TorusGeometry):
    """The torus of :class:`kinarow.proofs.torus.TorusGeometry` with the arrays the enumeration kernel reads."""

    @cached_property
    def line_masks(self) -> np.ndarray:
        """``line_masks[d, l]``: the cells of line l of direction d as a bitmask."""
        half = self.ncodes // 2
        masks = np.zeros((half, self.n), dtype=np.uint64)
        for d in range(half):
            for c in range(self.ncells):
                masks[d, int(self.line_index[d, c])] |= np.uint64(1) << np.uint64(c)
        return masks

    @cached_property
    def vector_array(self) -> np.ndarray:
        return np.array(self.vectors, dtype=np.int64)

    @cached_property
    def line_bits(self) -> np.ndarray:
        """``line_bits[code, cell]``: the bit of the line a domino from ``cell`` in direction ``code`` lies on."""
        half = self.ncodes // 2
        bits = np.zeros((self.ncodes, self.ncells), dtype=np.uint64)
        for k in range(self.ncodes):
            d = k % half
            for c in range(self.ncells):
                bits[k, c] = np.uint64(1) << np.uint64(d * self.n + int(self.line_index[d, c]))
        return bits


GEOMETRIES = {name: TorusGeometry(g.name, g.n, g.hexagonal, g.group) for name, g in checked.GEOMETRIES.items()}


def geometry(name: str, group: str | None = None) -> TorusGeometry:
    """The torus for ``name`` ('9' = 8 x 8 square, 'hex7' = 6 x 6 hexagonal), optionally with another group."""
    g = checked.geometry(name, group)  # one clear sentence for an unknown name or group
    if g.group == GEOMETRIES[name].group:
        return GEOMETRIES[name]
    return TorusGeometry(g.name, g.n, g.hexagonal, g.group)


# -- enumeration ---------------------------------------------------------------------
@dataclass
class Enumeration:
    """The classes of good pairings found on a torus."""

    geometry: TorusGeometry
    classes: np.ndarray  # (count, ncells) int8 canonical codes, sorted
    candidates: int  # complete pairings with an East domino at cell 0 that the search met
    nodes: int
    seconds: float
    stopped: bool = False

    @property
    def count(self) -> int:
        return int(self.classes.shape[0])

    @cached_property
    def keys(self) -> np.ndarray:
        return pack_keys(self.classes)


def pack_keys(classes: np.ndarray) -> np.ndarray:
    from kinarow.engine import torus_kernel as tk

    nwords = -(-classes.shape[1] // 21)
    keys = np.zeros((classes.shape[0], nwords), dtype=np.uint64)
    tk.pack(classes, keys)
    return keys


TASK_DEPTH = 3  # placements after the fixed domino that make one task


def _start(g: TorusGeometry) -> np.ndarray:
    start = -np.ones(g.ncells, dtype=np.int8)
    start[0] = 0
    start[int(g.neighbours[0, 0])] = g.ncodes // 2
    return start


def _starts(g: TorusGeometry, *, cell2_only: bool = False) -> list[np.ndarray]:
    """The partial pairings the search starts from.

    Always: an East-West domino on cells 0-1 (every smallest image starts so).
    A symmetry that maps this domino onto itself (fixing its cells, or
    swapping them) gives an image that also starts East-West and must not be
    smaller: its cell 2 is ``rot[s, C[src[s, p, 2]]]``, so the smallest image
    C has ``C[2] <= rot[s, C[src[s, p, 2]]]`` for each such symmetry. The
    starts assign cell 2 and those source cells in every way that keeps these
    inequalities (on the square torus: cells 2 and 7; the vertical flip alone
    forces a downward code on cell 2, and the complete pairings the search
    then meets are the paper's 6,210,560 candidates; the horizontal flip and
    the half turn remove some more).
    """
    base = _start(g)
    rot, src = g.tables
    half = g.ncodes // 2
    rules = []  # (s, cell whose code, mapped by s, bounds cell 2 from above)
    for sym in range(rot.shape[0]):
        for p in (0, 1):
            if rot[sym, base[p]] == 0 and not (sym == 0 and p == 0):
                rules.append((sym, int(src[sym, p, 2])))
    if cell2_only:  # the symmetries that keep cell 2 in place only (the vertical flip)
        rules = [r for r in rules if r[1] == 2]
    cells = sorted({2} | {cell for _, cell in rules})
    line_of = g.line_index
    starts: list[np.ndarray] = []

    def extend(k: int, code: np.ndarray, used: set[tuple[int, int]]) -> None:
        if k == len(cells):
            if all(rot[sym, code[cell]] >= code[2] for sym, cell in rules):
                starts.append(code.copy())
            return
        cell = cells[k]
        if code[cell] >= 0:
            extend(k + 1, code, used)
            return
        for c in range(g.ncodes):
            partner = int(g.neighbours[cell, c])
            if code[partner] >= 0:
                continue
            first = cell if c < half else partner
            line = (c % half, int(line_of[c % half, first]))
            if line in used:
                continue
            code[cell] = c
            code[partner] = (c + half) % g.ncodes
            extend(k + 1, code, used | {line})
            code[cell] = -1
            code[partner] = -1

    extend(0, base.copy(), {(0, int(line_of[0, 0]))})
    return starts


def _sort_rows(codes: np.ndarray) -> np.ndarray:
    if codes.shape[0] == 0:
        return codes
    order = np.lexsort(codes.T[::-1])
    return np.ascontiguousarray(codes[order])


def enumerate_classes(
    name: str = "9",
    *,
    group: str | None = None,
    max_tasks: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    workers: int = 2,
    torus: TorusGeometry | None = None,
    paper_candidates: bool = False,
) -> Enumeration:
    """Enumerate one canonical pairing per class of good pairings of the torus ``name``.

    The search fixes an East-West domino on cells 0-1 (every good pairing has
    one in each row, so its smallest image starts with it), fills cells in
    reading order, and keeps a complete pairing only when it is its own
    smallest image. The work is split into tasks (the partial pairings when
    a few dominoes are placed), run by ``workers`` threads; ``max_tasks`` stops after that many (a
    partial run), ``on_progress(done, total)`` is called between batches.
    ``paper_candidates`` breaks symmetry on cell 2 only (the vertical flip),
    so that the complete pairings met are the paper's 6,210,560 candidates.
    """
    from kinarow.engine import torus_kernel as tk

    g = torus if torus is not None else geometry(name, group)
    rot, src = g.tables
    args = (g.vector_array, g.neighbours, g.line_index, g.line_masks, g.ncodes, g.n, rot, src, rot.shape[0])
    t0 = time.perf_counter()
    counters = np.zeros(4, dtype=np.int64)
    cap = 1 << 12
    while True:
        tasks = np.zeros((cap, g.ncells), dtype=np.int8)
        counters[:] = 0
        for start in _starts(g, cell2_only=paper_candidates):
            tk.enumerate_from(start, *args, TASK_DEPTH, tasks, counters)
        if not counters[3]:
            break
        cap *= 4
    ntasks = int(counters[0])
    tasks = tasks[:ntasks]
    total = ntasks if max_tasks is None else min(ntasks, max_tasks)
    nodes = int(counters[2])
    candidates = 0
    found: list[np.ndarray] = []
    batch = max(1, min(2000, total // 200))
    bounds = [(lo, min(total, lo + batch)) for lo in range(0, total, batch)]

    def work(lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        size = 1 << 14
        while True:
            out = np.zeros((size, g.ncells), dtype=np.int8)
            c = np.zeros(4, dtype=np.int64)
            tk.enumerate_tasks(tasks, lo, hi, *args, out, c)
            if not c[3]:
                return out[: int(c[0])].copy(), c
            size *= 4

    done = 0
    stopped = False
    pool = ThreadPoolExecutor(max_workers=max(1, workers))
    try:
        futures = [pool.submit(work, lo, hi) for lo, hi in bounds]
        for future in as_completed(futures):
            part, c = future.result()
            found.append(part)
            candidates += int(c[1])
            nodes += int(c[2])
            done += 1
            if on_progress is not None:
                on_progress(done, len(bounds))
    except KeyboardInterrupt:
        stopped = True
        for f in futures:
            f.cancel()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    out = np.concatenate(found) if found else np.zeros((0, g.ncells), dtype=np.int8)
    classes = _sort_rows(out)
    return Enumeration(g, classes, candidates, nodes, time.perf_counter() - t0, stopped or total < ntasks)


# -- the transition graph --------------------------------------------------------------
@dataclass
class TransitionGraph:
    """Classes joined by a moving transition, with the figures the paper lists."""

    vertices: int
    edges: np.ndarray  # (count, 2) int64, u < v, sorted, unique
    transitions: int  # (class, start) pairs whose transition exists
    seconds: float
    stats: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def csr(self) -> tuple[np.ndarray, np.ndarray]:
        both = np.concatenate([self.edges, self.edges[:, ::-1]])
        order = np.lexsort((both[:, 1], both[:, 0]))
        both = both[order]
        indptr = np.zeros(self.vertices + 1, dtype=np.int64)
        np.add.at(indptr, both[:, 0] + 1, 1)
        return np.cumsum(indptr), np.ascontiguousarray(both[:, 1])


def transition_graph(
    result: Enumeration, *, workers: int = 2, on_progress: Callable[[int, int], None] | None = None
) -> TransitionGraph:
    """The graph of classes: an edge when a moving transition turns one class into another.

    From each class and each start (one of its dominoes, shifted forward or
    backward along its line) the transition (if any) is applied, the result
    brought to canonical form and looked up among the classes.
    """
    from kinarow.engine import torus_kernel as tk

    g = result.geometry
    rot, src = g.tables
    classes, keys = result.classes, result.keys
    t0 = time.perf_counter()
    nv = result.count
    batch = max(1, min(5000, nv // 100 + 1))
    bounds = [(lo, min(nv, lo + batch)) for lo in range(0, nv, batch)]

    def work(lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        out = np.zeros(((hi - lo) * g.ncells, 2), dtype=np.int64)
        c = np.zeros(4, dtype=np.int64)
        tk.transition_edges(classes, keys, g.neighbours, g.line_bits, g.ncodes, rot, src, rot.shape[0], out, lo, hi, c)
        if c[3]:
            raise AssertionError("a transition led outside the enumerated classes")
        return out[: int(c[0])], c

    parts: list[np.ndarray] = []
    transitions = 0
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(work, lo, hi) for lo, hi in bounds]
        for done, future in enumerate(as_completed(futures), start=1):
            part, c = future.result()
            parts.append(part)
            transitions += int(c[1])
            if on_progress is not None:
                on_progress(done, len(bounds))
    pairs = np.concatenate(parts) if parts else np.zeros((0, 2), dtype=np.int64)
    packed = np.unique(pairs[:, 0] * nv + pairs[:, 1])
    edges = np.stack([packed // nv, packed % nv], axis=1) if nv else np.zeros((0, 2), dtype=np.int64)
    graph = TransitionGraph(nv, edges, transitions, 0.0)
    graph.stats = graph_statistics(graph)
    graph.seconds = time.perf_counter() - t0
    return graph


def graph_statistics(graph: TransitionGraph) -> dict[str, Any]:
    """Vertices, edges, component sizes, degree histogram, diameters, triangles, 4-cycles, odd cycles."""
    from kinarow.engine import graph_kernel as gk

    nv = graph.vertices
    indptr, indices = graph.csr
    label = np.zeros(nv, dtype=np.int64)
    ncomp = int(gk.components(indptr, indices, label)) if nv else 0
    sizes = np.bincount(label, minlength=ncomp) if nv else np.zeros(0, dtype=np.int64)
    diam = np.zeros(ncomp, dtype=np.int64)
    runs = np.zeros(ncomp, dtype=np.int64)
    gk.diameters(indptr, indices, label, ncomp, diam, runs)
    degrees = np.diff(indptr)
    hist = np.bincount(degrees)
    on_tri = np.zeros(indices.shape[0], dtype=np.bool_)
    on_sq = np.zeros(indices.shape[0], dtype=np.bool_)
    gk.triangle_and_square_edges(indptr, indices, on_tri, on_sq)
    upper = np.repeat(np.arange(nv), degrees) < indices  # each edge once, as u < w
    odd = np.zeros(ncomp, dtype=np.bool_)
    gk.odd_cycle_components(indptr, indices, label, ncomp, odd)
    order = np.argsort(-sizes, kind="stable")
    comps = [{"size": int(sizes[c]), "diameter": int(diam[c]), "bipartite": not bool(odd[c])} for c in order]
    size_hist: dict[str, int] = {}
    for c in comps:
        size_hist[str(c["size"])] = size_hist.get(str(c["size"]), 0) + 1
    triangle_free = not bool(on_tri[upper].any())
    induced = induced_cycle_lengths(graph, bipartite=not bool(odd.any()))
    return {
        "vertices": nv,
        "edges": int(graph.edges.shape[0]),
        "components": [c["size"] for c in comps],
        "component_size_histogram": size_hist,
        "diameters": [c["diameter"] for c in comps],
        "diameter": comps[0]["diameter"] if comps else 0,
        "degree_histogram": {str(d): int(k) for d, k in enumerate(hist) if k},
        "triangle_free": triangle_free,
        "bipartite": not bool(odd.any()),
        "edges_on_4_cycles": int(on_sq[upper].sum()),
        "girth": _girth(triangle_free, bool(on_sq[upper].any()), bool(odd.any())),
        **{k: v for k, v in induced.items() if k != "induced_cycle_witnesses"},
        "diameter_bfs_runs": int(runs.sum()),
        "transitions": graph.transitions,
    }


INDUCED_CYCLE_BOUND = 1000  # longest induced cycle sought in a large graph
INDUCED_CYCLE_EXACT = 64  # graphs up to this many vertices: every length is sought
INDUCED_CYCLE_BUDGET = 20_000_000  # path extensions before a large graph's search gives up


def induced_cycle_lengths(
    graph: TransitionGraph, *, bipartite: bool | None = None, bound: int | None = None, budget: int | None = None
) -> dict[str, Any]:
    """The lengths of the induced (chordless) cycles of the graph, up to a bound.

    A graph of at most ``INDUCED_CYCLE_EXACT`` vertices is searched for every
    length (bound = its vertex count, so the list is exact); a larger one for
    lengths up to ``INDUCED_CYCLE_BOUND``, even lengths only when it is
    bipartite. Every length listed comes with a witness cycle
    (``induced_cycle_witnesses``). ``induced_cycle_search_complete`` is True when
    every start was searched within the budget, so a length up to the bound
    that is not listed does not occur; lengths above the bound are not sought.
    """
    from kinarow.engine import graph_kernel as gk

    nv = graph.vertices
    indptr, indices = graph.csr
    if bound is None:
        bound = nv if nv <= INDUCED_CYCLE_EXACT else INDUCED_CYCLE_BOUND
    if budget is None:
        budget = 0 if nv <= INDUCED_CYCLE_EXACT else INDUCED_CYCLE_BUDGET
    bound = max(3, min(bound, nv))
    wanted = np.zeros(bound + 1, dtype=np.bool_)
    wanted[3:] = True
    if bipartite:
        wanted[1::2] = False
    found = np.zeros(bound + 1, dtype=np.bool_)
    witness = np.zeros((bound + 1, bound), dtype=np.int64)
    counters = np.zeros(2, dtype=np.int64)
    t0 = time.perf_counter()
    complete = bool(gk.induced_cycles(indptr, indices, wanted, bound, 0, nv, budget, found, witness, counters))
    lengths = [int(L) for L in np.flatnonzero(found)]
    return {
        "induced_cycle_lengths": lengths,
        "induced_cycle_bound": int(bound),
        "induced_cycle_search_complete": complete or bool(found[wanted].all()),
        "induced_cycle_witnesses": {str(L): [int(v) for v in witness[L, :L]] for L in lengths},
        "induced_cycle_extensions": int(counters[0]),
        "induced_cycle_seconds": round(time.perf_counter() - t0, 3),
    }


def is_induced_cycle(edges: np.ndarray, cycle: list[int]) -> bool:
    """Whether ``cycle`` (distinct vertices, at least 3) is a chordless cycle of the graph with these edges (u < v).

    The subgraph induced by the cycle's vertices must hold exactly its
    ``len(cycle)`` consecutive pairs (the last joined to the first) as edges.
    """
    n = len(cycle)
    vs = np.asarray(cycle, dtype=np.int64)
    if n < 3 or np.unique(vs).shape[0] != n:
        return False
    inside = np.isin(edges[:, 0], vs) & np.isin(edges[:, 1], vs)
    present = {(int(u), int(v)) for u, v in edges[inside]}
    ring = {(min(a, b), max(a, b)) for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True)}
    return present == ring


def lengths_text(lengths: list[int]) -> str:
    """'3-12' / '4-1000 (even)' for runs of consecutive (or consecutive even) lengths, else the list."""
    if len(lengths) >= 4:
        step = lengths[1] - lengths[0]
        if step in (1, 2) and all(b - a == step for a, b in itertools.pairwise(lengths)):
            return f"{lengths[0]}-{lengths[-1]}" + (" (every even length)" if step == 2 else " (every length)")
    return ", ".join(map(str, lengths)) or "none"


def _girth(triangle_free: bool, has_square: bool, has_odd: bool) -> int | None:
    """3 or 4 when a triangle or a 4-cycle exists; None (unknown, >= 5) otherwise."""
    if not triangle_free:
        return 3
    if has_square:
        return 4
    return None


# -- the class file (read and checked by kinarow.proofs.torus) --------------------------
def file_header(result: Enumeration) -> dict[str, Any]:
    """The JSON header line of the class file of ``result``."""
    g = result.geometry
    return {
        "format": CLASSES_FORMAT,
        "version": VERSION,
        "torus": g.name,
        "n": g.n,
        "hexagonal": g.hexagonal,
        "group": g.group,
        "group_order": g.order,
        "codes": list(g.code_names),
        "cell_order": "rows from the top, each row from the left",
        "count": result.count,
        "bytes_per_class": bytes_per_class(g.n),
    }


def dumps_classes(result: Enumeration) -> bytes:
    """The class file: a magic line, a JSON header line, then 3 bits per cell (first cell first)."""
    header = json.dumps(file_header(result), sort_keys=True).encode() + b"\n"
    bits = np.unpackbits(result.classes.astype(np.uint8)[:, :, None], axis=2)[:, :, 5:]  # 3 low bits, MSB first
    packed = np.packbits(bits.reshape(result.count, -1), axis=1)
    return FILE_MAGIC + header + packed.tobytes()


def save_classes(result: Enumeration, path: str | Path) -> str:
    """Write the class file to ``path``; returns its SHA-256 (hex)."""
    data = dumps_classes(result)
    try:
        Path(path).write_bytes(data)
    except OSError as error:
        raise TorusError(f"cannot write the class file '{path}': {error.strerror or error}") from None
    return hashlib.sha256(data).hexdigest()


# -- the certificate -----------------------------------------------------------------
def certificate(result: Enumeration, class_file: str, sha256: str, graph: TransitionGraph | None) -> dict[str, Any]:
    """The enumeration certificate: counts, the class file's name and SHA-256, and the graph figures."""
    g = result.geometry
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "torus": g.name,
        "n": g.n,
        "hexagonal": g.hexagonal,
        "group": g.group,
        "group_order": g.order,
        "classes": result.count,
        "candidates": result.candidates,
        "class_file": class_file,
        "sha256": sha256,
    }
    if graph is not None:
        data["graph"] = {k: v for k, v in graph.stats.items() if k != "diameters"}
    return data



# -- pictures ------------------------------------------------------------------------
def dominoes_xy(g: TorusGeometry, code: np.ndarray) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The dominoes of a pairing as ((x, y), (dx, dy)) with y up (row 1 at the bottom), one per forward end."""
    half = g.ncodes // 2
    found = []
    for c in range(g.ncells):
        if int(code[c]) < half:
            x, r = g.xr(c)
            dx, dr = g.vectors[int(code[c])]
            found.append(((x, g.n - 1 - r), (dx, -dr)))
    return found


def svg_class(result: Enumeration, index: int) -> str:
    """An SVG picture of class ``index`` (0-based, in canonical order)."""
    from kinarow import svg

    if not 0 <= index < result.count:
        raise TorusError(f"there is no class {index}; the classes are numbered 0 to {result.count - 1}")
    g = result.geometry
    title = f"class {index} of {result.count:,}: good pairing of the {g.n}x{g.n} {'hex ' if g.hexagonal else ''}torus"
    return svg.torus_pairing(g.n, dominoes_xy(g, result.classes[index]), hexagonal=g.hexagonal, title=title)


def text_class(g: TorusGeometry, code: np.ndarray) -> str:
    """A pairing as rows of direction names (top row first)."""
    names = g.code_names
    return "\n".join(
        " ".join(f"{names[int(code[r * g.n + x])]:>2}" for x in range(g.n)) for r in range(g.n)
    )


def graph_chart(g: TorusGeometry, classes: int, stats: dict[str, Any], published: int | None = None) -> str:
    """An SVG chart of a transition graph's statistics (``stats``, as :func:`transition_graph` computes them):
    the class count beside the published one (when given), the degree histogram, and the component sizes."""
    from kinarow import svg

    count = [("ours", [classes])] + ([("published", [published])] if published is not None else [])
    degrees = stats["degree_histogram"]
    sizes = stats["components"]
    kind = "hexagonal " if g.hexagonal else ""
    charts = [
        svg.BarChart(["classes"], count, title="Classes", y_label="classes (vertices)"),
        svg.BarChart(list(degrees), [("ours", list(degrees.values()))], title="Degrees",
                     x_label="degree", y_label="vertices"),
        svg.BarChart([str(i + 1) for i in range(len(sizes))], [("ours", sizes)], title="Component sizes",
                     x_label="component, largest first", y_label="vertices", log=True,
                     note="The paper's figures for the graph are not in our copy: these are ours."),
    ]
    title = (f"Good pairings of the {g.n}x{g.n} {kind}torus ({g.order} symmetries) and their transition graph: "
             f"{stats['vertices']:,} vertices, {stats['edges']:,} edges")
    return svg.bar_charts(charts, title=title)
