"""Commands for the infinite board: ``kinarow torus`` (all good torus pairings) and ``kinarow tiling``.

::

    kinarow torus 9|hex7 [--json] [--out FILE] [--load FILE] [--svg FILE] [--class N] [--plot FILE] [--no-graph]
                  [--check]
    kinarow tiling hj9|heptomino|zetters|hex7 [--json] [--svg FILE] [--out FILE]
    kinarow tiling search (--zetters | --k K [--hex] [--max-cells N] [--shape RxW] [--mirror])
                          [--json] [--svg FILE] [--out FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any, TextIO

from kinarow.errors import interrupted, shown


def progress_bar(label: str, stream: TextIO) -> Any:
    """The project's progress bar (:func:`kinarow.cli.common.progress_bar`); the total comes with each tick."""
    from kinarow.cli.common import progress_bar as bar

    return bar(label, None, stream)


def _write(path: str, text: str | bytes) -> None:
    """Write ``text`` to ``path`` atomically (:func:`kinarow.cli.common.write_file`)."""
    from kinarow.cli.common import write_file

    write_file(path, text if isinstance(text, bytes) else text.encode("utf-8"))


# -- torus -----------------------------------------------------------------------------
def cmd_torus(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.cli.common import EXIT_INTERRUPTED, EXIT_OK, EXIT_REJECTED, UsageError, check_outputs, input_files
    from kinarow.knowledge.infinite import torus
    from kinarow.papers.gyorffy_london_makay import PUBLISHED_CLASSES
    from kinarow.proofs.torus import check_classes, load_classes

    g = torus.geometry(args.name, args.group)
    if args.plot and args.no_graph:
        raise UsageError("--plot draws the transition graph, so it cannot be combined with --no-graph")
    check_outputs(("--out", args.out), ("--out", None if args.out is None else args.out + ".json"), ("--svg", args.svg),
                  ("--plot", args.plot), inputs=input_files(args))
    if args.plot and args.plot.lower().endswith(".png"):  # before the search: PNG needs cairosvg
        from kinarow import svg

        svg.to_png('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>')
    index = None
    if args.class_index is not None:
        text = args.class_index.strip()
        if not (text.isascii() and text.isdigit() and len(text) <= 9):  # digits 0-9 only, and no 5000 of them
            raise UsageError(f"--class must be a class number (0, 1, ...), not {shown(args.class_index)}")
        index = int(text)
    if args.load:
        header, codes, _ = load_classes(args.load)
        if header.get("torus") != g.name or header.get("group") != g.group:
            raise UsageError(f"'{args.load}' holds classes of '{header.get('torus')}' ({header.get('group')} group)")
        fits = codes.ndim == 2 and codes.shape[1] == g.ncells
        if not fits or (codes.size and not 0 <= codes.min() <= codes.max() < g.ncodes):
            raise UsageError(f"'{args.load}' does not hold classes of the {g.n}x{g.n} torus: each class must give "
                             f"{g.ncells} cells a direction code from 0 to {g.ncodes - 1}")
        result = torus.Enumeration(g, codes, 0, 0, 0.0)
    else:
        with progress_bar(f"enumerating the {g.n}x{g.n} torus pairings", err) as tick:
            result = torus.enumerate_classes(g.name, group=g.group, on_progress=tick)
        if result.stopped:
            print(f"{interrupted()}: {result.count:,} classes found before the stop; nothing saved.", file=err)
            return EXIT_INTERRUPTED
    if index is not None and not 0 <= index < result.count:
        raise UsageError(f"there is no class {index}; the classes are numbered 0 to {result.count - 1}")
    graph = None
    if not args.no_graph:
        with progress_bar("building the transition graph", err) as tick:
            graph = torus.transition_graph(result, on_progress=tick)
    cert = None
    if args.out:
        classes = torus.dumps_classes(result)
        _write(args.out, classes)
        sha = hashlib.sha256(classes).hexdigest()
        cert = torus.certificate(result, Path(args.out).name, sha, graph)
        _write(args.out + ".json", json.dumps(cert, indent=1) + "\n")
    if args.svg:
        _write(args.svg, torus.svg_class(result, index or 0))
    published = PUBLISHED_CLASSES.get(g.name) if g.group == torus.GEOMETRIES[g.name].group else None
    if args.plot and graph is not None:
        from kinarow.cli.common import write_picture

        write_picture(torus.graph_chart(g, result.count, graph.stats, published), args.plot)
    check = None
    if args.check:
        with progress_bar("checking the classes (rules only; orbits against a row-by-row count)", err):
            check = check_classes(torus.file_header(result), result.classes)
    code = EXIT_OK if check is None or check.ok else EXIT_REJECTED
    if args.json:
        data: dict[str, Any] = {
            "torus": g.name,
            "n": g.n,
            "hexagonal": g.hexagonal,
            "group": g.group,
            "group_order": g.order,
            "classes": result.count,
            "published_classes": published,
            "candidates": result.candidates,
            "nodes": result.nodes,
            "seconds": round(result.seconds, 3),
        }
        if graph is not None:
            data["graph"] = {k: v for k, v in graph.stats.items() if k != "diameters"}
            data["graph"]["component_diameters"] = graph.stats["diameters"]
            data["graph_seconds"] = round(graph.seconds, 3)
        if index is not None:
            data["class"] = {"index": index, "codes": [int(c) for c in result.classes[index]]}
        if check is not None:
            data["check"] = {"valid": check.ok, "reason": check.reason}
        print(json.dumps(data), file=out)
        return code
    kind = "hexagonal " if g.hexagonal else ""
    print(f"Good pairings of the {g.n}x{g.n} {kind}torus ({g.order} symmetries): {result.count:,} classes", file=out)
    if published is not None:
        verdict = "agrees" if published == result.count else "DIFFERS"
        print(f"published (Gyorffy, London & Makay 2017): {published:,} ({verdict})", file=out)
    if not args.load:
        print(f"pairings met:  {result.candidates:,} (East-West on cells 0-1, a downward domino from cell 2)", file=out)
        print(f"search nodes:  {result.nodes:,}", file=out)
        print(f"seconds:       {result.seconds:.2f}", file=out)
    if graph is not None:
        s = graph.stats
        hist = ", ".join(f"{d}: {k:,}" for d, k in s["degree_histogram"].items())
        sizes = ", ".join(f"{k} x {size}" for size, k in s["component_size_histogram"].items())
        print(f"Transition graph: {s['vertices']:,} vertices, {s['edges']:,} edges", file=out)
        print(f"  components:      {len(s['components'])} ({sizes})", file=out)
        print(f"  diameters:       {s['diameters']}", file=out)
        print(f"  degrees:         {hist}", file=out)
        print(f"  triangle-free:   {s['triangle_free']}; bipartite: {s['bipartite']}; girth: {s['girth']}", file=out)
        induced = " (induced cycles, as there are no triangles)" if s["triangle_free"] else ""
        print(f"  edges on 4-cycles{induced}: {s['edges_on_4_cycles']:,}", file=out)
        bound = s["induced_cycle_bound"]
        if s["induced_cycle_search_complete"] and bound >= s["vertices"]:
            scope = "all of them"
        elif s["induced_cycle_search_complete"]:
            scope = f"lengths above {bound} not searched"
        else:
            scope = f"the search stopped at its budget: lengths up to {bound} not listed may still occur"
        print(f"  induced cycles:  lengths {torus.lengths_text(s['induced_cycle_lengths'])}; {scope}", file=out)
        print(f"  seconds:         {graph.seconds:.2f}", file=out)
    if index is not None:
        print(f"class {index}:", file=out)
        print(torus.text_class(g, result.classes[index]), file=out)
    if check is not None:
        print(f"check: {'VALID' if check.ok else 'INVALID'}: {check.reason}", file=out)
    if args.out:
        print(f"Classes written to {args.out}, certificate to {args.out}.json (check: kinarow check {args.out}.json)",
              file=out)
    if args.svg:
        print(f"Picture of class {index or 0} written to {args.svg}.", file=out)
    if args.plot:
        print(f"Chart of the transition graph written to {args.plot}.", file=out)
    return code


# -- tiling ---------------------------------------------------------------------------
def cmd_tiling(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.cli.common import EXIT_OK, EXIT_REJECTED, UsageError, check_outputs, positive_int
    from kinarow.knowledge.infinite import tiling
    from kinarow.proofs import tiling as checked

    check_outputs(("--out", args.out), ("--svg", args.svg))

    if args.name == "search":
        from kinarow.knowledge.infinite import tiling_search

        if args.zetters:
            with progress_bar("searching for the Zetters block", err):
                hits = tiling_search.zetters(limit=1)
            found = hits[0] if hits else None
        else:
            if args.k is None:
                raise UsageError("tiling search needs --k K (the k to prove a draw for) or --zetters")
            k = positive_int("--k", args.k, upper=tiling_search.MAX_K) or 0
            if k < 3:
                raise UsageError(f"--k must be at least 3, not {k}")
            cells = positive_int("--max-cells", args.max_cells, upper=tiling_search.MAX_BLOCK_CELLS) or 12
            shapes = None
            if args.shape is not None:
                parts = args.shape.lower().split("x")
                if len(parts) != 2 or not all(
                    p.isascii() and p.isdigit() and len(p) <= 4 and 1 <= int(p) <= 3 * cells for p in parts
                ):
                    raise UsageError(f"--shape must be ROWSxWIDTH (such as 3x4), not {shown(args.shape)}")
                rows, width = int(parts[0]), int(parts[1])
                if rows > 3 or rows * width > cells or rows * width < 2:
                    raise UsageError(f"--shape {args.shape} is not searched: blocks have 1 to 3 rows and 2 to "
                                     f"{cells} cells (--max-cells)")
                shapes = [(rows, width)]
            with progress_bar(f"searching periodic strategies for {k}-in-a-row", err) as tick:
                # first the Hales-Jewett family: a domino pairing with period k - 1
                pairing = tiling_search.torus_pairing(k, args.hex)
                if pairing is not None:
                    found = tiling_search.Found(pairing, checked.max_runs(pairing))
                elif args.hex:
                    found = None
                else:
                    found = tiling_search.search(k, cells, mirror=args.mirror, shapes=shapes, on_progress=tick)
        if found is None:
            if args.json:
                print(json.dumps({"found": False}), file=out)
            else:
                print("No strategy found in the range searched (the search is not exhaustive).", file=out)
            return EXIT_OK
        strategy = found.tiling
    elif args.name in tiling.NAMES:
        strategy = tiling.named(args.name)
    else:
        raise UsageError(f"there is no tiling called '{args.name}'; use one of {', '.join(tiling.NAMES)} or 'search'")
    verdict = checked.check(strategy)
    runs = checked.max_runs(strategy)
    k_drawn = checked.draw_for_k_at_least(runs)
    if args.out:
        if strategy.claimed_max_run is None:
            strategy.claimed_max_run = {n: int(r) for n, r in runs.items() if r is not None}
        _write(args.out, json.dumps(strategy.to_json()) + "\n")
    if args.svg:
        _write(args.svg, tiling.svg(strategy))
    if args.json:
        print(json.dumps({
            "name": strategy.name,
            "valid": verdict.ok,
            "reason": verdict.reason,
            "cells": len(strategy.tile),
            "lattice": [list(v) for v in strategy.lattice],
            "groups": len(strategy.groups),
            "local_strategy": strategy.strategy["kind"],
            "max_run": runs,
            "draw_for_k_at_least": k_drawn,
            "source": strategy.source,
        }), file=out)
    else:
        print(f"{strategy.name}: {'VALID' if verdict.ok else 'REJECTED'}: {verdict.reason}.", file=out)
        print(f"tile:     {len(strategy.tile)} cells; lattice {strategy.lattice[0]}, {strategy.lattice[1]}", file=out)
        print(f"groups:   {len(strategy.groups)}; local strategy: {strategy.strategy['kind']}", file=out)
        print("max runs: " + ", ".join(f"{n} {r}" for n, r in runs.items()), file=out)
        print(f"draw for every k >= {k_drawn}", file=out)
        if strategy.source:
            print(f"source:   {strategy.source}", file=out)
        if args.out:
            print(f"Certificate written to {args.out}; check it with 'kinarow check {args.out}'.", file=out)
        if args.svg:
            print(f"Picture written to {args.svg}.", file=out)
    return EXIT_OK if verdict.ok else EXIT_REJECTED


def add_commands(commands: Any) -> None:
    p = commands.add_parser("torus", help="every good domino pairing of the 8x8 torus (9-in-a-row) or the hex 6x6")
    p.add_argument("name", metavar="NAME", help="'9' (8x8 torus, 9-in-a-row) or 'hex7' (6x6 hex, 7-in-a-row)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", metavar="FILE", default=None, help="save the classes to FILE, a certificate to FILE.json")
    p.add_argument("--load", metavar="FILE", default=None, help="reload the classes from FILE instead of searching")
    p.add_argument("--svg", metavar="FILE", default=None, help="draw a class (see --class) as SVG")
    p.add_argument("--class", dest="class_index", metavar="N", default=None, help="show class N (0-based)")
    p.add_argument("--plot", metavar="FILE", default=None,
                   help="chart the class count, degrees and component sizes as SVG (PNG if FILE ends in .png)")
    p.add_argument("--group", default=None, help="hex7 only: d3-lines (default), d3-between or full (order 432)")
    p.add_argument("--no-graph", action="store_true", help="skip the transition graph")
    p.add_argument("--check", action="store_true",
                   help="check the classes with the rules only: good, canonical, distinct, and none missing")
    p.set_defaults(run=cmd_torus)

    p = commands.add_parser("tiling", help="periodic strategies for the infinite board: verify a named one, or search")
    p.add_argument("name", metavar="NAME", help="hj9, heptomino, zetters, hex7, or 'search'")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--svg", metavar="FILE", default=None, help="draw a patch with groups and longest runs")
    p.add_argument("--proof", "--out", metavar="FILE", dest="out", default=None,
                   help="write the tiling certificate (JSON) to FILE")
    p.add_argument("--k", metavar="K", default=None, help="search: prove k-in-a-row a draw (runs <= k - 1)")
    p.add_argument("--max-cells", metavar="N", default=None, help="search: largest block (default 12)")
    p.add_argument("--shape", metavar="RxW", default=None,
                   help="search: only blocks of R rows of W cells (such as 3x4)")
    p.add_argument("--mirror", action="store_true", help="search: tile each block together with its mirror image")
    p.add_argument("--zetters", action="store_true", help="search: reconstruct the Zetters block (8-in-a-row)")
    p.add_argument("--hex", action="store_true", help="search: the hexagonal grid (pairings only)")
    p.set_defaults(run=cmd_tiling)


