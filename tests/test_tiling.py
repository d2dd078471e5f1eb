"""Periodic strategies: exact tilings, local strategies, runs, certificates, search, CLI."""

from __future__ import annotations

import json

import pytest

from kinarow.cli import main
from kinarow.knowledge.infinite import tiling
from kinarow.knowledge.infinite.tiling import H_TILE
from kinarow.proofs import tiling as checked
from kinarow.proofs.tiling import Tiling


def brute_force_runs(t: Tiling, reach: int = 40) -> dict[str, int]:
    """Longest runs by laying out translates on a patch and scanning lines cell by cell."""
    (a1, a2), (b1, b2) = t.lattice
    full: dict[str, set[tuple[tuple[int, int], ...]]] = {n: set() for n in t.directions}
    for i in range(-reach, reach + 1):
        for j in range(-reach, reach + 1):
            dx, dy = i * a1 + j * b1, i * a2 + j * b2
            if abs(dx) > 2 * reach or abs(dy) > 2 * reach:
                continue
            for g in t.groups:
                moved = tuple(sorted((x + dx, y + dy) for x, y in g))
                for name, (vx, vy) in t.directions.items():
                    if (moved[1][0] - moved[0][0], moved[1][1] - moved[0][1]) in ((vx, vy), (-vx, -vy)):
                        full[name].add(moved)
    result = {}
    for name, (vx, vy) in t.directions.items():
        by_cell: dict[tuple[int, int], list[set[tuple[int, int]]]] = {}
        for g in full[name]:
            for c in g:
                by_cell.setdefault(c, []).append(set(g))
        best = 0
        for sx in range(-3, 4):
            for sy in range(-3, 4):
                line = [(sx + s * vx, sy + s * vy) for s in range(-20, 21)]
                for u in range(len(line)):
                    owned: set[tuple[int, int]] = set()
                    for v in range(u, len(line)):
                        owned.add(line[v])
                        if any(g <= owned for g in by_cell.get(line[v], [])):
                            break
                        best = max(best, v - u + 1)
        result[name] = best
    return result


@pytest.mark.parametrize("name", tiling.NAMES)
def test_named_tilings_check_and_runs_agree_with_a_brute_force_patch(name: str) -> None:
    t = tiling.named(name)
    assert checked.check(t).ok
    assert checked.max_runs(t) == brute_force_runs(t)


def test_heptomino_all_five_groups_is_a_maker_win_the_published_four_a_breaker_win() -> None:
    t = tiling.named("heptomino")
    left_column = ((0, 0), (0, 1), (0, 2))
    assert checked.breaker_wins(H_TILE, t.groups)
    assert not checked.breaker_wins(H_TILE, (*t.groups, left_column))


def test_a_wrong_reply_rule_is_rejected() -> None:
    t = tiling.named("heptomino")
    rule = t.strategy["rule"]["replies"]
    rule[(1, 1)] = {"reply": (0, 0), "then": {"pairs": [((0, 2), (2, 0))]}}  # centre answered by a corner
    verdict = checked.check(t)
    assert not verdict.ok and "holds no pair" in verdict.reason


def test_overlapping_or_gapped_tilings_are_rejected() -> None:
    assert not checked.tiles_exactly(H_TILE, ((7, 0), (0, 1))).ok  # overlap
    assert not checked.tiles_exactly(H_TILE, ((8, 0), (3, 1))).ok  # 8 cells a period, 7 in the tile
    assert not checked.tiles_exactly(H_TILE, ((1, 1), (2, 2))).ok  # parallel vectors
    assert checked.tiles_exactly(H_TILE, ((7, 0), (3, 1))).ok


def test_pairing_without_a_pair_in_a_group_is_rejected() -> None:
    t = tiling.named("hj9")
    t.strategy = {"kind": "pairing", "pairs": list(t.strategy["pairs"])[1:]}
    assert "holds no pair" in checked.check(t).reason


def test_a_wrong_claimed_run_is_rejected() -> None:
    t = tiling.named("zetters")
    t.claimed_max_run = {"horizontal": 5}
    assert "claimed longest horizontal run" in checked.check(t).reason


def test_certificate_round_trip() -> None:
    for name in tiling.NAMES:
        t = tiling.named(name)
        again = Tiling.from_json(json.loads(json.dumps(t.to_json())))
        assert checked.check(again).ok
        assert again.to_json() == t.to_json()


def test_zetters_description_only_fits_a_block_tiled_with_its_mirror_image() -> None:
    from kinarow.knowledge.infinite import tiling_search

    hits = tiling_search.zetters(limit=1)
    assert hits and hits[0].runs == {"horizontal": 6, "vertical": 6, "diagonal": 7, "anti": 7}
    assert checked.check(hits[0].tiling).ok


@pytest.mark.verylong
def test_no_single_block_lattice_tiling_fits_the_zetters_description() -> None:
    from kinarow.knowledge.infinite import tiling_search

    assert tiling_search.zetters_single() == []


def test_cli_tiling_json_and_svg(capsys, tmp_path) -> None:
    svg = tmp_path / "h.svg"
    cert = tmp_path / "h.json"
    assert main(["tiling", "heptomino", "--json", "--svg", str(svg), "--out", str(cert)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["max_run"] == {"horizontal": 8, "vertical": 8, "diagonal": 8, "anti": 8}
    assert data["draw_for_k_at_least"] == 9
    assert svg.read_text().startswith("<svg")
    assert main(["check", str(cert)]) == 0
    assert "VALID" in capsys.readouterr().out
    doctored = json.loads(cert.read_text())
    doctored["lattice"] = [[7, 0], [2, 1]]
    cert.write_text(json.dumps(doctored))
    assert main(["check", str(cert)]) == 1


@pytest.mark.parametrize(("argv", "k"), [(["--k", "9"], 9), (["--k", "7", "--hex"], 7)])
def test_cli_search_rediscovers_the_pairing_strategies(capsys, argv, k) -> None:
    assert main(["tiling", "search", *argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["valid"] and data["draw_for_k_at_least"] == k


def test_cli_search_zetters(capsys) -> None:
    assert main(["tiling", "search", "--zetters", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["valid"] and data["draw_for_k_at_least"] == 8
    assert data["max_run"] == {"horizontal": 6, "vertical": 6, "diagonal": 7, "anti": 7}


@pytest.mark.verylong
def test_cli_search_k8_without_group_counts_matches_the_zetters_bound(capsys) -> None:
    """Zetters (1980), via Uiterwijk (Set Matching, Section 7): 8-in-a-row is a draw. The search is told
    only the block shape (3 rows of 4, tiled with its mirror image), not the groups."""
    assert main(["tiling", "search", "--k", "8", "--shape", "3x4", "--mirror", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["valid"] and data["draw_for_k_at_least"] == 8
    assert max(data["max_run"].values()) <= 7


def test_fast_game_agrees_with_the_rules_only_game() -> None:
    from kinarow.knowledge.infinite import tiling_search
    from kinarow.proofs.tiling import breaker_wins

    game = tiling_search.FastGame()
    block = tiling_search.ragged_block((0, -1, -2), 4)
    rows = [tuple((x - y, y) for x in range(4)) for y in range(3)]
    columns = [tuple((x - y, y) for y in (2, 1, 0)) for x in range(4)]
    for groups in (rows, rows + columns, rows + columns + [((-1, 1), (-1, 2)), ((1, 1), (1, 2))],
                   rows + columns + [((0, 0), (0, 1)), ((0, 1), (0, 2))], [((0, 0), (1, 0))]):
        assert game.breaker_wins(block, groups) == breaker_wins(block, groups)


def test_offsets_start_with_the_parallelograms() -> None:
    from kinarow.knowledge.infinite import tiling_search

    order = tiling_search._offsets_in_order(3, 4)
    assert order[:3] == [(0, 0), (-1, -2), (1, 2)] and len(order) == len(set(order)) == 49


def test_cli_tiling_hex_json_keys(capsys) -> None:
    assert main(["tiling", "hex7", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["max_run"] == {"horizontal": 6, "vertical": 6, "diagonal": 6}
    assert data["draw_for_k_at_least"] == 7


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["tiling", "octomino"], "no tiling called 'octomino'"),
        (["tiling", "search"], "needs --k"),
        (["tiling", "search", "--k", "2"], "at least 3"),
        (["tiling", "search", "--k", "x"], "--k must be"),
        (["tiling", "search", "--k", "8", "--shape", "3by4"], "--shape must be ROWSxWIDTH"),
        (["tiling", "search", "--k", "8", "--shape", "4x3"], "1 to 3 rows"),
    ],
)
def test_cli_tiling_bad_input_is_one_sentence(capsys, argv, words) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1
