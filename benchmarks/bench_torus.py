"""Time the enumeration of all good pairings of the 8x8 torus and the statistics of their graph.

Run from the repository root::

    python benchmarks/bench_torus.py            # T8: 194,543 classes, the transition graph, the checker
    python benchmarks/bench_torus.py --hex      # the hexagonal 6x6 torus only (seconds)
    python benchmarks/bench_torus.py --json
    python benchmarks/bench_torus.py --plot torus-seconds.svg   # also chart our seconds beside the published C's

Goals (on an idle 2-core machine, numba cache warm): enumeration and
canonicalisation <= 15 s, graph and all its statistics <= 15 s more, peak
memory <= 2 GiB. Published reference (Gyorffy, London & Makay 2017): their C
program took about 4 minutes for the classes and 1 minute for the graph on a
3.2 GHz Core i7. The kernels are compiled (or loaded from the cache) on the
hexagonal torus before the clock starts. The script asserts the published
class counts (194,543 and 26). Then the checker's ``check_classes`` runs on the
classes, completeness included (orbits against the row-by-row count of every
labelled pairing), and its time is reported; it must accept them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from kinarow import svg
from kinarow.cli.common import UsageError, check_outputs
from kinarow.knowledge.infinite import torus
from kinarow.papers.gyorffy_london_makay import PUBLISHED_CLASSES
from kinarow.proofs import torus as checked

#: the published C program's seconds, about 4 minutes for the classes and 1 for the graph (3.2 GHz Core i7)
PUBLISHED_SECONDS = {"9": (240.0, 60.0)}
PUBLISHED_NAME = "published C program (about; 3.2 GHz Core i7)"


def chart(name: str, enumeration_seconds: float, graph_seconds: float) -> str:
    """Our seconds for the classes and the graph of torus ``name`` as an SVG bar chart, beside the published C
    program's where the paper gives them (the 8x8 torus)."""
    g = torus.geometry(name, None)
    series = [("kinarow", [enumeration_seconds, graph_seconds])]
    if name in PUBLISHED_SECONDS:
        series.append((PUBLISHED_NAME, list(PUBLISHED_SECONDS[name])))
    title = f"Good pairings of the {g.n}x{g.n} {'hexagonal ' if g.hexagonal else ''}torus: seconds"
    return svg.bar_chart(svg.BarChart(["classes (enumeration)", "transition graph"], series, title=title,
                                      y_label="seconds"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hex", action="store_true", help="the hexagonal 6x6 torus only")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--plot", metavar="FILE", default=None, help="chart the seconds as SVG (or .png)")
    args = parser.parse_args()
    try:
        check_outputs(("--plot", args.plot))
    except UsageError as error:
        print(f"bench_torus.py: error: {error}", file=sys.stderr)
        return 2
    warm = torus.enumerate_classes("hex7", workers=1)
    torus.transition_graph(warm, workers=1)
    checked.check_classes(torus.file_header(warm), warm.classes)  # compiles the checker's kernels
    name = "hex7" if args.hex else "9"
    result = torus.enumerate_classes(name, workers=args.workers)
    assert result.count == PUBLISHED_CLASSES[name], result.count
    graph = torus.transition_graph(result, workers=args.workers)
    witnesses = torus.induced_cycle_lengths(graph, bipartite=graph.stats["bipartite"])["induced_cycle_witnesses"]
    assert all(torus.is_induced_cycle(graph.edges, c) for c in witnesses.values())
    start = time.perf_counter()
    verdict = checked.check_classes(torus.file_header(result), result.classes)
    check_seconds = time.perf_counter() - start
    assert verdict.ok, verdict.reason
    labelled = int(checked.labelled_count(result.geometry)[0])
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    stats = {k: v for k, v in graph.stats.items() if k not in ("diameters", "components")}
    figures = {
        "torus": name,
        "classes": result.count,
        "candidates": result.candidates,
        "nodes": result.nodes,
        "enumeration_seconds": round(result.seconds, 2),
        "graph_seconds": round(graph.seconds, 2),
        "check_seconds": round(check_seconds, 2),
        "labelled_pairings": labelled,
        "peak_mib": round(peak_mib),
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "load_average": os.getloadavg()[0],
        "graph": stats,
    }
    if args.plot:
        svg.save(chart(name, result.seconds, graph.seconds), args.plot)
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"classes:      {result.count:,} (published {PUBLISHED_CLASSES[name]:,})")
        print(f"enumeration:  {result.seconds:.2f} s ({result.nodes:,} nodes, {result.candidates:,} pairings met)")
        print(f"graph:        {graph.seconds:.2f} s ({stats['vertices']:,} vertices, {stats['edges']:,} edges)")
        print(f"induced cycles: lengths {torus.lengths_text(stats['induced_cycle_lengths'])}, bound "
              f"{stats['induced_cycle_bound']}, {stats['induced_cycle_seconds']:.2f} s of the graph time "
              "(each witness cycle re-checked)")
        print(f"check:        {check_seconds:.2f} s (the orbits hold {labelled:,} labelled pairings, the number "
              "counted row by row)")
        print(f"peak memory:  {peak_mib:.0f} MiB")
        print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other work inflates the times)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
