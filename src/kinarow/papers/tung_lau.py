"""Tung & Lau, "Two methods for investigating the generalized tic-tac-toe": the pairing reproductions.

Tung & Lau prove (m, n, k, 1, 1) draws by Hales-Jewett pairings for four
families of boards and bound the boards where a pairing can exist (Lemma 9,
Theorem 10; Proposition 1 on the infinite board). Their figures are lost:
each family is built by our own rule
(:mod:`kinarow.knowledge.pairing.constructions`) and verified by the
rules-only checker, and the bound is checked against direct counting. The
targets ``pairing-constructions`` and ``pairing-bounds`` of ``kinarow
reproduce`` run them.
"""

from __future__ import annotations

from typing import Any

from kinarow.game import Game
from kinarow.knowledge.pairing import check, construct, find
from kinarow.knowledge.pairing.bounds import infinite_exclusion, paired_cells_needed, theorem10_bound
from kinarow.knowledge.pairing.constructions import FAMILIES
from kinarow.papers import Report, Tally
from kinarow.proofs import check_data

PAPER = 'Tung & Lau, "Two methods for investigating the generalized tic-tac-toe"'


def family_boards(max_k: int) -> list[tuple[str, int, int, int]]:
    """(family, m, n, k) for every family and k up to ``max_k`` (a few boards with n < k per k)."""
    boards = []
    for k in range(3, max_k + 1):
        if k >= 5:
            boards.append((FAMILIES[0], k, k, k))
        if k >= 6:
            boards.append((FAMILIES[1], k + 1, k + 1, k))
        if k >= 7:
            boards.append((FAMILIES[2], 2 * k - 1, k, k))
        for m in (k, 2 * k + 1):
            for n in sorted({1, (k + 1) // 2, k - 1}):
                boards.append((FAMILIES[3], m, n, k))
    return boards


def reproduce_constructions(max_k: int = 30) -> Report:
    """Every Tung & Lau pairing family built by rule and verified by the checker, for k up to ``max_k``.

    Also the paper's remark that the counting bound leaves k = 5 out of the
    (k+1, k+1, k) family: computed, not assumed.
    """
    rows: list[dict[str, Any]] = []
    failures: list[str] = []
    for name, m, n, k in family_boards(max_k):
        verdict = check(construct(m, n, k))
        rows.append({"family": name, "m": m, "n": n, "k": k, "valid": verdict.ok})
        if not verdict.ok:
            failures.append(f"{m}x{n}k{k} ({name}): {verdict.reason}")
    six = Game("6x6k5")
    needed = paired_cells_needed(six)
    sat = find(six, certify=True)  # the "no" comes with a DRAT refutation, checked here by the rules-only checker
    certificate = sat.certificate()
    checked = check_data(certificate) if certificate is not None else None
    differences = list(failures)
    if sat.exists is False and (checked is None or not checked.ok):
        differences.append(f"the refutation for (6,6,5) is not accepted: {checked.reason if checked else 'none'}")
    if needed <= six.cells:
        differences.append(
            f"Tung & Lau say the counting bound excludes (6,6,5); Theorem 10 as stated asks for {needed} paired "
            f"cells on its {six.cells} cells, which fits (with no cell to spare), so the bound alone does not "
            f"exclude it; SAT proves no good pairing exists ({sat.method}, {sat.seconds:.2f} s; the DRAT refutation is "
            f"{'VALID' if checked and checked.ok else 'not accepted'})"
        )
    by_family: dict[str, list[int]] = {}
    for row in rows:
        by_family.setdefault(str(row["family"]), []).append(int(row["k"]))
    lines = [f"Pairing families of {PAPER}, built by rule and checked by the rules-only checker:"]
    for name, ks in by_family.items():
        valid = sum(1 for r in rows if r["family"] == name and r["valid"])
        lines.append(f"  {name:<30} k = {min(ks)}..{max(ks)}: {valid} of {len(ks)} boards valid")
    lines.append(f"(6,6,5): Theorem 10 needs {needed} paired cells of {six.cells}; "
                 f"SAT: {'a pairing exists' if sat.exists else 'no good pairing'}"
                 f"{' (DRAT refutation checked: VALID)' if checked and checked.ok and not sat.exists else ''}.")
    # compared: each family board (the paper: a pairing exists) and the (6,6,5) remark (the bound excludes it)
    tally = Tally(agree=len(rows) - len(failures) + (needed > six.cells), differ=len(failures) + (needed <= six.cells))
    return Report("pairing-constructions", {"paper": PAPER, "boards": rows, "six_six_five": {
        "cells_needed": needed, "cells": six.cells, "exists": sat.exists, "method": sat.method,
        "certificate_valid": bool(checked and checked.ok)}},
        "\n".join(lines), agrees=not differences, differences=differences, tally=tally)


def reproduce_bounds(max_side: int = 30, max_region: int = 400) -> Report:
    """Theorem 10's formula against direct counting of lines, and Proposition 1 on the infinite board."""
    mismatches = []
    checked = 0
    for m in range(1, max_side + 1):
        for n in range(1, max_side + 1):
            for k in range(2, max(m, n) + 1):
                checked += 1
                direct = paired_cells_needed(Game(f"{m}x{n}k{k}"))
                if direct != theorem10_bound(m, n, k):
                    mismatches.append(f"{m}x{n}k{k}: formula {theorem10_bound(m, n, k)}, lines {direct}")
    infinite = {}
    prop1_differ = 0
    differences = [f"Theorem 10 differs from direct counting on {x}" for x in mismatches[:10]]
    for grid, claimed in (("square", 8), ("hex", 6)):
        excluded = [k for k in range(3, claimed + 3) if infinite_exclusion(k, grid, max_region).side is not None]
        infinite[grid] = {k: infinite_exclusion(k, grid, max_region).side for k in range(3, claimed + 3)}
        if max(excluded, default=0) != claimed or excluded != list(range(3, claimed + 1)):
            differences.append(f"Proposition 1 on the {grid} grid excludes k in {excluded}, not k <= {claimed}")
            prop1_differ += 1
    lines = [
        f"Theorem 10 ({PAPER}) against the line-by-line count (Lemma 9): {checked} boards with m, n <= {max_side}, "
        f"{len(mismatches)} differences.",
        "Proposition 1 on s x s regions of the infinite board (first side where it fails; - = not up to "
        f"{max_region}):",
    ]
    for grid, sides in infinite.items():
        lines.append(f"  {grid:<6} " + "  ".join(f"k={k}: {s if s else '-'}" for k, s in sides.items()))
    # compared: Theorem 10 on each board, and Proposition 1's range of k on each grid
    tally = Tally(agree=checked - len(mismatches) + 2 - prop1_differ, differ=len(mismatches) + prop1_differ)
    return Report("pairing-bounds", {"paper": PAPER, "boards_checked": checked, "mismatches": mismatches,
                                     "infinite": infinite}, "\n".join(lines), agrees=not differences,
                  differences=differences, tally=tally)
