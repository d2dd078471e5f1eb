"""Torus pairings: enumeration, canonical forms, transitions, class files, graph statistics, CLI."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinarow import Game
from kinarow.cli import main
from kinarow.engine import torus_kernel as tk
from kinarow.knowledge.infinite import torus
from kinarow.proofs import torus as checked

NS = "{http://www.w3.org/2000/svg}"


def brute_force_pairings(game: Game) -> list[frozenset[frozenset[int]]]:
    """Every good pairing of a k = n torus game from its groups alone: a domino of consecutive
    cells of each wrapped line, all cells covered once."""
    geo = game.geometry
    groups = [tuple(g) for g in geo.groups]
    options = []  # (cells, group index)
    for gi, g in enumerate(groups):
        for i in range(len(g)):
            options.append((frozenset((g[i], g[(i + 1) % len(g)])), gi))
    by_cell: dict[int, list[int]] = {c: [] for c in range(geo.size)}
    for k, (cells, _) in enumerate(options):
        for c in cells:
            by_cell[c].append(k)
    found: list[frozenset[frozenset[int]]] = []

    def extend(covered: set[int], used: set[int], chosen: list[frozenset[int]]) -> None:
        free = [c for c in range(geo.size) if c not in covered]
        if not free:
            if len(used) == len(groups):
                found.append(frozenset(chosen))
            return
        cell = free[0]
        for k in by_cell[cell]:
            cells, gi = options[k]
            if gi in used or cells & covered:
                continue
            extend(covered | cells, used | {gi}, [*chosen, cells])

    extend(set(), set(), [])
    return found


def kernel_pairing_as_game_pairs(g: torus.TorusGeometry, code: np.ndarray) -> frozenset[frozenset[int]]:
    pairs = set()
    for (x, y), (dx, dy) in torus.dominoes_xy(g, code):
        a = x * g.n + y
        b = ((x + dx) % g.n) * g.n + (y + dy) % g.n
        pairs.add(frozenset((a, b)))
    return frozenset(pairs)


def orbit_key(pairing: frozenset[frozenset[int]], symmetries: tuple[tuple[int, ...], ...]) -> tuple:
    return min(tuple(sorted(tuple(sorted(s[c] for c in p)) for p in pairing)) for s in symmetries)


def test_hex_classes_agree_with_a_brute_force_count_under_all_432_symmetries() -> None:
    game = Game("6x6k6:torus,hex")
    syms = game.geometry.symmetries
    assert len(syms) == 432
    every = set(brute_force_pairings(game))
    assert len(every) == checked.labelled_count(checked.geometry("hex7"))[0]  # the checker's row-by-row count
    orbit_of: dict[frozenset[frozenset[int]], int] = {}
    for p in sorted(every, key=lambda q: sorted(tuple(sorted(d)) for d in q)):
        if p in orbit_of:
            continue
        number = len(set(orbit_of.values()))
        for s in syms:
            orbit_of[frozenset(frozenset(s[c] for c in d) for d in p)] = number
    assert set(orbit_of) == every  # the symmetries map good pairings to good pairings
    orbits = len(set(orbit_of.values()))
    result = torus.enumerate_classes("hex7", group="full")
    assert result.geometry.order == 432
    mine = [orbit_of[kernel_pairing_as_game_pairs(result.geometry, c)] for c in result.classes]
    assert len(set(mine)) == len(mine) == result.count  # distinct classes, each a real orbit
    assert result.count == orbits == 16


def test_both_hexagonal_d3_groups_have_order_216_and_give_26_classes() -> None:
    for group in ("d3-lines", "d3-between"):
        result = torus.enumerate_classes("hex7", group=group)
        assert result.geometry.order == 216
        assert result.count == 26


def test_every_class_starts_with_an_east_west_domino_and_passes_the_checker() -> None:
    result = torus.enumerate_classes("hex7")
    assert (result.classes[:, 0] == 0).all()
    header = torus.file_header(result)
    assert checked.check_classes(header, result.classes).ok


def test_partial_t8_run_gives_valid_distinct_classes() -> None:
    result = torus.enumerate_classes("9", max_tasks=2)
    assert result.stopped  # a partial run says so
    assert 0 < result.count <= result.candidates
    assert checked.check_classes(torus.file_header(result), result.classes, complete=False).ok
    # independent: no two classes are images of each other under the game's 512 symmetries
    game = Game("8x8k8:torus")
    syms = game.geometry.symmetries
    assert len(syms) == 512
    sample = result.classes[:40]
    keys = {orbit_key(kernel_pairing_as_game_pairs(result.geometry, c), syms) for c in sample}
    assert len(keys) == len(sample)


def test_canonical_form_is_the_same_for_every_image() -> None:
    g = torus.geometry("9")
    result = torus.enumerate_classes("9", max_tasks=1)
    rot, src = g.tables
    rng = np.random.default_rng(7)
    out = np.empty(g.ncells, dtype=np.int8)
    for code in result.classes[rng.choice(result.count, size=10, replace=False)]:
        for _ in range(5):
            s = int(rng.integers(rot.shape[0]))
            p = int(rng.integers(g.ncells))
            image = rot[s][code[src[s, p]]]  # any image: point map s, then a translation
            tk.canonical(image.astype(np.int8), rot, src, rot.shape[0], g.ncells, out)
            assert (out == code).all()


def test_transitions_are_undone_by_the_reverse_transition() -> None:
    g = torus.geometry("9")
    result = torus.enumerate_classes("9", max_tasks=1)
    res = np.empty(g.ncells, dtype=np.int8)
    back = np.empty(g.ncells, dtype=np.int8)
    half = g.ncodes // 2
    seen = 0
    for code in result.classes[:30]:
        for a in range(g.ncells):
            if code[a] >= half:
                continue
            for forward in (True, False):
                if not tk.transition(code, a, forward, g.neighbours, g.line_bits, g.ncodes, res):
                    continue
                seen += 1
                header = {"torus": "9", "group": "full", "count": 1}
                assert checked.check_classes(header, res[None, :], complete=False).reason != (
                    "some cell's partner does not point back to it (the dominoes do not cover the torus)"
                )
                # the domino moved from a: shift it back the other way
                start = int(g.neighbours[a, code[a]]) if forward else int(g.neighbours[a, code[a] + half])
                assert res[start] == code[a]
                assert tk.transition(res, start, not forward, g.neighbours, g.line_bits, g.ncodes, back)
                assert (back == code).all()
    assert seen > 0


def test_transition_keeps_a_good_pairing() -> None:
    g = torus.geometry("hex7")
    result = torus.enumerate_classes("hex7")
    res = np.empty(g.ncells, dtype=np.int8)
    for code in result.classes:
        for a in range(g.ncells):
            if code[a] < g.ncodes // 2:
                for forward in (True, False):
                    if tk.transition(code, a, forward, g.neighbours, g.line_bits, g.ncodes, res):
                        header = {"torus": "hex7", "group": "d3-lines", "count": 1}
                        verdict = checked.check_classes(header, res[None, :], complete=False)
                        assert verdict.ok or "canonical" in verdict.reason


def test_class_file_round_trip_and_tampering(tmp_path) -> None:
    result = torus.enumerate_classes("hex7")
    path = tmp_path / "hex7.bin"
    sha = torus.save_classes(result, path)
    assert path.stat().st_size < 100 + 26 * 14 + 300
    header, codes, sha2 = checked.load_classes(path)
    assert sha == sha2 and (codes == result.classes).all()
    cert = torus.certificate(result, path.name, sha, None)
    assert checked.check(cert, tmp_path).ok
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF
    path.write_bytes(bytes(data))
    assert not checked.check(cert, tmp_path).ok
    header, codes, _ = checked.load_classes(path)
    assert not checked.check_classes(header, codes).ok


def test_graph_statistics_on_small_graphs() -> None:
    # a 6-cycle plus a separate triangle with a pendant vertex
    edges = np.array([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [0, 5], [6, 7], [7, 8], [6, 8], [8, 9]])
    graph = torus.TransitionGraph(10, edges, 0, 0.0)
    s = torus.graph_statistics(graph)
    assert s["components"] == [6, 4]
    assert s["diameters"] == [3, 2]
    assert not s["triangle_free"] and not s["bipartite"]
    assert s["degree_histogram"] == {"1": 1, "2": 8, "3": 1}
    square = torus.TransitionGraph(4, np.array([[0, 1], [1, 2], [2, 3], [0, 3]]), 0, 0.0)
    s = torus.graph_statistics(square)
    assert s["triangle_free"] and s["bipartite"] and s["girth"] == 4 and s["diameter"] == 2


def test_diameter_matches_all_pairs_bfs_on_the_hex_graph() -> None:
    import networkx as nx

    result = torus.enumerate_classes("hex7")
    graph = torus.transition_graph(result, workers=1)
    h = nx.Graph()
    h.add_nodes_from(range(graph.vertices))
    h.add_edges_from(map(tuple, graph.edges.tolist()))
    comps = sorted((h.subgraph(c) for c in nx.connected_components(h)), key=len, reverse=True)
    assert graph.stats["components"] == [len(c) for c in comps]
    assert graph.stats["diameters"] == [nx.diameter(c) for c in comps]
    triangles = sum(nx.triangles(h).values()) // 3
    assert graph.stats["triangle_free"] == (triangles == 0)


def _is_induced_cycle(edges: set[tuple[int, int]], cycle: list[int]) -> bool:
    n = len(cycle)
    if n < 3 or len(set(cycle)) != n:
        return False
    for i in range(n):
        for j in range(i + 1, n):
            adjacent = (min(cycle[i], cycle[j]), max(cycle[i], cycle[j])) in edges
            if adjacent != (j == i + 1 or (i == 0 and j == n - 1)):
                return False
    return True


def test_induced_cycle_lengths_of_the_hex_graph_agree_with_networkx() -> None:
    import networkx as nx

    graph = torus.transition_graph(torus.enumerate_classes("hex7"), workers=1)
    h = nx.Graph(map(tuple, graph.edges.tolist()))
    expected = sorted({len(c) for c in nx.chordless_cycles(h)})
    s = graph.stats
    assert s["induced_cycle_lengths"] == expected
    assert s["induced_cycle_bound"] == 26 and s["induced_cycle_search_complete"]
    found = torus.induced_cycle_lengths(graph)
    edges = set(map(tuple, graph.edges.tolist()))
    assert all(_is_induced_cycle(edges, c) and len(c) == int(L) for L, c in found["induced_cycle_witnesses"].items())
    assert all(torus.is_induced_cycle(graph.edges, c) for c in found["induced_cycle_witnesses"].values())
    assert not torus.is_induced_cycle(graph.edges, found["induced_cycle_witnesses"]["4"][::2])


@settings(max_examples=60, deadline=None)
@given(st.integers(4, 11).flatmap(
    lambda n: st.tuples(st.just(n), st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))))
def test_induced_cycle_lengths_agree_with_networkx_on_small_graphs(case) -> None:
    import networkx as nx

    n, pairs = case
    edges = sorted({(min(a, b), max(a, b)) for a, b in pairs if a != b})
    h = nx.Graph()
    h.add_nodes_from(range(n))
    h.add_edges_from(edges)
    graph = torus.TransitionGraph(n, np.array(edges, dtype=np.int64).reshape(-1, 2), 0, 0.0)
    found = torus.induced_cycle_lengths(graph)
    assert found["induced_cycle_lengths"] == sorted({len(c) for c in nx.chordless_cycles(h) if len(c) >= 3})
    assert found["induced_cycle_search_complete"]
    assert all(_is_induced_cycle(set(edges), c) for c in found["induced_cycle_witnesses"].values())
    arr = np.array(edges, dtype=np.int64).reshape(-1, 2)
    for c in nx.simple_cycles(h, length_bound=6):
        if len(c) >= 3:
            assert torus.is_induced_cycle(arr, c) == _is_induced_cycle(set(edges), c)


def test_induced_cycle_bound_and_budget_are_honest() -> None:
    # a 20-cycle with a pendant path: its only induced cycle has length 20
    edges = np.array([[i, (i + 1) % 20] for i in range(20)] + [[0, 20], [20, 21]])
    edges = np.sort(edges, axis=1)
    graph = torus.TransitionGraph(22, edges, 0, 0.0)
    short = torus.induced_cycle_lengths(graph, bound=12)
    assert short["induced_cycle_lengths"] == [] and short["induced_cycle_search_complete"]
    assert short["induced_cycle_bound"] == 12
    assert torus.induced_cycle_lengths(graph)["induced_cycle_lengths"] == [20]
    # a 7x7 grid holds induced cycles of every even length from 8 to 32 and 4, never 6
    grid = [(7 * x + y, 7 * x + y + 1) for x in range(7) for y in range(6)]
    grid += [(7 * x + y, 7 * x + y + 7) for x in range(6) for y in range(7)]
    g = torus.TransitionGraph(49, np.array(grid), 0, 0.0)
    found = torus.induced_cycle_lengths(g, bipartite=True, bound=12, budget=10**6)
    assert found["induced_cycle_lengths"] == [4, 8, 10, 12] and found["induced_cycle_search_complete"]
    starved = torus.induced_cycle_lengths(g, bipartite=True, bound=12, budget=3)
    assert not starved["induced_cycle_search_complete"]
    assert torus.lengths_text([4, 6, 8, 10]) == "4-10 (every even length)"
    assert torus.lengths_text([4, 8, 10, 12]) == "4, 8, 10, 12"


def test_cli_torus_hex7_json_and_plot(capsys, tmp_path) -> None:
    plot = tmp_path / "graph.svg"
    assert main(["torus", "hex7", "--json", "--plot", str(plot)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["classes"] == 26 and data["group_order"] == 216
    assert {"vertices", "edges", "components", "degree_histogram", "diameter", "triangle_free"} <= data["graph"].keys()
    assert data["graph"]["vertices"] == 26
    assert sum(data["graph"]["degree_histogram"].values()) == 26
    assert data["graph"]["induced_cycle_lengths"] == list(range(3, 13))
    assert data["graph"]["induced_cycle_bound"] == 26
    # the chart holds the figures the command printed: the class count beside the published one, each degree, each
    # component
    chart = ET.fromstring(plot.read_text())
    bars: dict[str, list[tuple[str, float]]] = {}
    for panel in chart.iter(f"{NS}g"):
        bars[panel.get("data-title", "")] = [(b.get("data-category", ""), float(b.get("data-value", "nan")))
                                             for b in panel.iter(f"{NS}rect") if b.get("class") == "bar"]
    assert bars["Classes"] == [("classes", 26), ("classes", data["published_classes"])]
    assert bars["Degrees"] == [(d, k) for d, k in data["graph"]["degree_histogram"].items()]
    assert [v for _, v in bars["Component sizes"]] == data["graph"]["components"]


def test_cli_torus_out_load_svg_and_check(capsys, tmp_path) -> None:
    out = tmp_path / "h.bin"
    svg = tmp_path / "h.svg"
    assert main(["torus", "hex7", "--out", str(out), "--svg", str(svg), "--class", "2", "--no-graph"]) == 0
    assert svg.read_text().startswith("<svg")
    assert main(["check", str(out) + ".json"]) == 0
    assert "VALID" in capsys.readouterr().out
    assert main(["torus", "hex7", "--load", str(out), "--json", "--no-graph"]) == 0
    assert json.loads(capsys.readouterr().out)["classes"] == 26


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["torus", "10"], "no torus enumeration called '10'"),
        (["torus", "hex7", "--class", "99", "--no-graph"], "no class 99"),
        (["torus", "hex7", "--class", "x", "--no-graph"], "--class must be"),
        (["torus", "9", "--group", "d3-lines"], "not known for '9'"),
        (["torus", "hex7", "--load", "/nonexistent/file"], "cannot read"),
        (["torus", "hex7", "--plot", "/nonexistent/folder/graph.svg"], "its folder '/nonexistent/folder' does not"),
        (["torus", "hex7", "--plot", "/nonexistent/graph.svg", "--no-graph"], "cannot be combined with --no-graph"),
    ],
)
def test_cli_torus_bad_input_is_one_sentence(capsys, argv, words) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


@pytest.mark.verylong
def test_t8_graph_has_induced_cycles_of_every_even_length_up_to_the_bound() -> None:
    graph = torus.transition_graph(torus.enumerate_classes("9"))
    found = torus.induced_cycle_lengths(graph, bipartite=True)
    assert found["induced_cycle_lengths"] == list(range(4, torus.INDUCED_CYCLE_BOUND + 1, 2))
    assert all(torus.is_induced_cycle(graph.edges, c) for c in found["induced_cycle_witnesses"].values())
