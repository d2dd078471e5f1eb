"""Győrffy, London & Makay, "The structure of pairing strategies for k-in-a-row type games"
(Acta Cybernetica 2017): the classes of good pairings of the 8 x 8 torus and the hexagonal 6 x 6 torus.

The paper shows that a good pairing of the infinite board for 9-in-a-row is
8-toric or 16-toric (the 16-toric ones combine 8-toric ones) and counts the
8-toric ones: **194,543** classes under the 512 symmetries of the 8 x 8 torus;
on the hexagonal grid a good pairing for 7-in-a-row is 6-toric, with **26**
classes. ``kinarow reproduce torus-9`` and ``torus-hex7`` enumerate them with
:mod:`kinarow.knowledge.infinite.torus` and compare.
"""

from __future__ import annotations

from typing import Any

from kinarow.knowledge.infinite.torus import enumerate_classes, transition_graph
from kinarow.papers import Report, Tally

#: the published class counts, by torus name
PUBLISHED_CLASSES = {"9": 194_543, "hex7": 26}


def reproduce(name: str) -> Report:
    """Enumerate the classes of the torus ``name`` ('9' or 'hex7'), build their graph, compare the count."""
    result = enumerate_classes(name)
    graph = transition_graph(result)
    published = PUBLISHED_CLASSES[name]
    stats = {k: v for k, v in graph.stats.items() if k != "diameters"}
    data: dict[str, Any] = {
        "torus": name,
        "group_order": result.geometry.order,
        "classes": result.count,
        "published_classes": published,
        "seconds": round(result.seconds + graph.seconds, 3),
        "graph": stats,
    }
    differences = [] if result.count == published else [f"classes: we find {result.count:,}, the paper {published:,}"]
    g = result.geometry
    text = (
        f"Good pairings of the {g.n}x{g.n} {'hexagonal ' if g.hexagonal else ''}torus, classes under "
        f"{g.order} symmetries: {result.count:,} (published {published:,}).\n"
        f"Transition graph (our figures; the paper's are not compared): {stats['vertices']:,} vertices, "
        f"{stats['edges']:,} edges, {len(stats['components'])} components (largest {stats['components'][0]:,}), "
        f"diameter {stats['diameter']}, triangle-free: {stats['triangle_free']}."
    )
    tally = Tally(agree=not differences, differ=len(differences))  # one figure: the class count
    return Report(f"torus-{name}", data, text, not differences, differences, tally)


def reproduce_torus_9() -> Report:
    """Győrffy, London & Makay: 194,543 classes of good pairings of T8, and the transition graph."""
    return reproduce("9")


def reproduce_torus_hex7() -> Report:
    """Győrffy, London & Makay: 26 classes of good pairings of the hexagonal 6x6 torus, and their graph."""
    return reproduce("hex7")

