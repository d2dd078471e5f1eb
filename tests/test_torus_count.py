"""The torus checker's completeness check: the row-by-row count of labelled good pairings, and the orbit sums."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from kinarow.knowledge.infinite import torus
from kinarow.proofs import torus as checked
from kinarow.proofs.torus_count import count_pairings, seam_sets


def brute_force_count(n: int, directions: tuple[tuple[int, int], ...]) -> int:
    """Every labelled good pairing of the n x n torus, one by one: each domino joins neighbours along a direction,
    every cell is covered once, every wrapped line holds exactly one domino along it (the line of (dx, dy)
    through (x, y) is named by where it meets the row y = 0 or the column x = 0)."""
    def line(x: int, y: int, dx: int, dy: int) -> tuple[int, int, int, int]:
        if dy == 0:
            return (dx, dy, 0, y % n)
        return (dx, dy, (x - dx * dy * y) % n, 0)  # (x, y) - y * (dx, dy) / dy lies on row 0

    lines_total = len(directions) * n
    cells = [(x, y) for y in range(n) for x in range(n)]
    covered: set[tuple[int, int]] = set()
    used: set[tuple[int, int, int, int]] = set()

    def extend(start: int) -> int:
        while start < len(cells) and cells[start] in covered:
            start += 1
        if start == len(cells):
            return int(len(used) == lines_total)
        x, y = cells[start]
        total = 0
        for dx, dy in directions:
            for sign in (1, -1):
                other = ((x + sign * dx) % n, (y + sign * dy) % n)
                key = line(x, y, dx, dy)
                if other in covered or other == (x, y) or key in used:
                    continue
                covered.update(((x, y), other))
                used.add(key)
                total += extend(start + 1)
                covered.difference_update(((x, y), other))
                used.discard(key)
        return total

    return extend(0)


SMALL = [
    (4, ((1, 0), (0, 1))),
    (4, ((1, 0), (1, 1))),
    (4, ((0, 1), (1, -1))),
    (4, ((1, 1), (1, -1))),
    (5, ((1, 0), (0, 1))),  # 25 cells: none
]


@pytest.mark.parametrize(("n", "directions"), SMALL)
def test_row_by_row_count_agrees_with_brute_force(n: int, directions: tuple[tuple[int, int], ...]) -> None:
    expected = brute_force_count(n, directions)
    assert count_pairings(n, directions, reduced=False)[0] == expected
    assert count_pairings(n, directions)[0] == expected  # counting one seam set per necklace and seam size


def test_hexagonal_count_agrees_with_brute_force() -> None:
    hexagonal = ((1, 0), (0, 1), (1, -1))
    expected = brute_force_count(6, hexagonal)
    assert count_pairings(6, hexagonal, reduced=False)[0] == expected
    assert count_pairings(6, hexagonal)[0] == expected


def test_brute_force_finds_pairings_at_all() -> None:
    assert brute_force_count(4, ((1, 0), (0, 1))) == 16
    assert brute_force_count(4, ((1, 0), (0, 1), (1, 1))) == 0  # 8 dominoes cannot meet 12 lines


def test_seam_sets_stand_for_every_subset_of_a_row() -> None:
    for n, horizontal in ((4, True), (6, True), (6, False), (8, True)):
        b = n - 2 if horizontal else n
        for a in range(n + 1):
            times = sum(t for u0, t in seam_sets(n, horizontal) if bin(u0).count("1") == a)
            assert times == (0 if 2 * a > b else math.comb(n, a) * (1 if 2 * a == b else 2))


def test_hex_orbits_hold_every_labelled_pairing() -> None:
    """Published: 26 classes of the hexagonal 6x6 torus (Győrffy, London & Makay, Acta Cybernetica 2017)."""
    for group, classes in (("d3-lines", 26), ("d3-between", 26), ("full", 16)):
        result = torus.enumerate_classes("hex7", group=group)
        g = checked.geometry("hex7", group)
        own = checked.own_group(g)
        assert own.shape[0] == g.order
        sizes, first = checked.orbit_sizes(g, result.classes, own)
        assert first == -1 and result.count == classes
        labelled = checked.labelled_count(g)[0]
        assert int(sizes.sum()) == labelled > 0  # the count itself is checked against brute force above
        verdict = checked.check_classes(torus.file_header(result), result.classes)
        assert verdict.ok and f"{labelled:,} labelled pairings" in verdict.reason


def test_own_group_is_the_geometry_group_as_a_set() -> None:
    """The group built from the rules and the one the enumeration shares with the checker are the same maps."""
    for name, group in (("9", "full"), ("hex7", "d3-lines"), ("hex7", "d3-between"), ("hex7", "full")):
        g = checked.geometry(name, group)
        _, src = g.tables
        shared = {tuple(np.argsort(src[s, p])) for s in range(src.shape[0]) for p in range(g.ncells)}
        own = {tuple(row) for row in checked.own_group(g)}
        assert len(own) == g.order and own == shared


def hex_classes() -> tuple[dict, np.ndarray]:
    result = torus.enumerate_classes("hex7")
    return torus.file_header(result), result.classes.copy()


def test_a_missing_class_is_found() -> None:
    header, codes = hex_classes()
    for drop in (0, 12, 25):
        fewer = np.delete(codes, drop, axis=0)
        verdict = checked.check_classes({**header, "count": 25}, fewer)
        assert not verdict.ok and "some class is missing" in verdict.reason
        assert checked.check_classes({**header, "count": 25}, fewer, complete=False).ok


def test_a_repeated_class_is_found() -> None:
    header, codes = hex_classes()
    twice = np.insert(codes, 5, codes[5], axis=0)
    verdict = checked.check_classes({**header, "count": 27}, twice)
    assert not verdict.ok and "repeat" in verdict.reason
    # the completeness check alone sees it too: the orbits then hold more pairings than the torus has
    g = checked.geometry("hex7")
    assert "too many" in checked.check_complete(g, twice).reason


def test_a_class_replaced_by_an_image_of_another_is_found() -> None:
    header, codes = hex_classes()
    g = checked.geometry("hex7")
    own = checked.own_group(g)
    n = g.n
    x, r = np.arange(g.ncells) % n, np.arange(g.ncells) // n
    step = np.array(g.vectors)
    code_of = {v: k for k, v in enumerate(g.vectors)}
    # an image of class 3 under a symmetry that moves it (built from cell pairs, not from the geometry's tables)
    partner = ((r + step[codes[3], 1]) % n) * n + (x + step[codes[3], 0]) % n
    for perm in own[1:]:
        image = np.empty(g.ncells, dtype=np.int8)
        for a in range(g.ncells):
            b = partner[a]
            pa, pb = perm[a], perm[b]
            d = ((pb % n - pa % n + 1) % n - 1, (pb // n - pa // n + 1) % n - 1)
            image[pa] = code_of[d]
        if (image != codes[3]).any():
            break
    swapped = codes.copy()
    swapped[7] = image
    verdict = checked.check_complete(g, swapped)
    assert not verdict.ok and "canonical" in verdict.reason
    assert not checked.check_classes(header, swapped).ok


def test_cli_torus_check_reports_both_numbers_and_rejects_a_missing_class(capsys, tmp_path) -> None:
    from kinarow.cli import main

    assert main(["torus", "hex7", "--check", "--no-graph"]) == 0
    out = capsys.readouterr().out
    assert "check: VALID" in out and "4,224 labelled pairings" in out
    result = torus.enumerate_classes("hex7")
    fewer = torus.Enumeration(result.geometry, result.classes[1:], 0, 0, 0.0)
    path = tmp_path / "fewer.bin"
    torus.save_classes(fewer, path)
    assert main(["torus", "hex7", "--load", str(path), "--check", "--no-graph", "--json"]) == 1
    check = json.loads(capsys.readouterr().out)["check"]
    assert not check["valid"] and "some class is missing" in check["reason"]
    cert = torus.certificate(fewer, path.name, torus.save_classes(fewer, path), None)
    (tmp_path / "fewer.bin.json").write_text(json.dumps(cert))
    assert main(["check", str(tmp_path / "fewer.bin.json")]) != 0
    assert "some class is missing" in capsys.readouterr().out


def test_a_tiling_that_is_not_good_is_rejected() -> None:
    header = {"torus": "hex7", "group": "d3-lines", "count": 1}
    g = checked.geometry("hex7")
    east, west = g.code_names.index("E"), g.code_names.index("W")
    rows_of_horizontals = np.array([[east, west] * (g.ncells // 2)], dtype=np.int8)  # a domino tiling, 3 per row
    verdict = checked.check_classes(header, rows_of_horizontals)
    assert not verdict.ok and "a line of direction E does not hold exactly one domino" in verdict.reason
    all_east = np.full((1, g.ncells), east, dtype=np.int8)
    assert "does not point back" in checked.check_classes(header, all_east).reason
