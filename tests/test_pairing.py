"""Hales-Jewett pairings: SAT search, the rules-only checker, and agreement with the solver."""

import json

import pytest

from kinarow import Game, KinarowError, solve
from kinarow.cli import main
from kinarow.pairing import Pairing, check, find

PAPER = 'Tung & Lau, "Two methods for investigating the generalized tic-tac-toe"'


@pytest.mark.parametrize("k", range(5, 10))
def test_kkk_has_a_good_pairing(k):
    """Tung & Lau: (k,k,k,1,1) is a draw by a pairing strategy for k >= 5."""
    result = find(f"{k}x{k}k{k}")
    assert result.exists, PAPER
    assert check(result.pairing).ok


@pytest.mark.parametrize("k", [6, 7, 8])
def test_k_plus_one_square_has_a_good_pairing(k):
    """Tung & Lau: (k+1,k+1,k,1,1) is a draw by a pairing strategy for k >= 6."""
    result = find(f"{k + 1}x{k + 1}k{k}")
    assert result.exists, PAPER
    assert check(result.pairing).ok


@pytest.mark.parametrize("spec", ["7x4k5", "9x3k4", "10x5k6", "6x2k3"])
def test_fewer_rows_than_k_has_a_good_pairing(spec):
    """Tung & Lau: (m,n,k,1,1) with n < k is a draw by a pairing strategy."""
    result = find(spec)
    assert result.exists, PAPER
    assert check(result.pairing).ok


@pytest.mark.parametrize("spec", ["3x3k3", "4x4k4", "6x6k5"])
def test_no_good_pairing_is_proved_unsatisfiable(spec):
    result = find(spec)
    assert not result.exists
    assert result.pairing is None
    assert "unsatisfiable" in result.method


@pytest.mark.parametrize("spec", ["5x4k5", "6x4k5", "4x2k3", "5x3k4", "4x4k5"])
def test_a_pairing_agrees_with_the_solver(spec):
    # a good pairing proves the first player cannot win; the search must agree
    result = find(spec)
    assert result.exists
    assert solve(spec, time_limit=120).value in ("draw", "second")


def test_pairing_of_a_position_uses_empty_cells_and_covers_live_groups():
    result = find("5x5k5", moves="c3 a1 b2")
    assert result.exists
    pairing = result.pairing
    assert check(pairing).ok
    used = {c for pair in pairing.pairs for c in pair}
    assert not used & {"c3", "a1", "b2"}


def test_minimise_never_uses_more_pairs():
    plain = find("7x7k6")
    fewest = find("7x7k6", minimise=True)
    assert check(fewest.pairing).ok
    assert len(fewest.pairing.pairs) <= len(plain.pairing.pairs)


def _good(spec="5x5k5"):
    return find(spec).pairing


def test_checker_rejects_broken_pairings():
    good = _good()
    (a, b), *rest = good.pairs
    assert not check(Pairing(good.game, good.moves, rest))  # a group loses its pair
    assert not check(Pairing(good.game, good.moves, [(a, b), (a, rest[0][1]), *rest[1:]]))  # a cell twice
    assert not check(Pairing(good.game, good.moves, [("a1", "z9"), *rest]))  # off the board
    assert not check(Pairing(good.game, good.moves, [(a, a), *rest]))
    assert not check(Pairing("5x5k", good.moves, good.pairs))


def test_checker_rejects_a_pair_on_a_stone():
    good = _good()
    first = good.pairs[0][0]
    verdict = check(Pairing(good.game, [first], good.pairs))
    assert not verdict.ok
    assert "not empty" in verdict.reason


def test_json_round_trip():
    good = _good()
    again = Pairing.from_json(json.loads(json.dumps(good.to_json())))
    assert again == good


def test_cli_pairing_and_check(tmp_path, capsys):
    path = tmp_path / "p.json"
    assert main(["pairing", "6x6k6", "--out", str(path)]) == 0
    assert "A good pairing exists" in capsys.readouterr().out
    assert main(["check", str(path)]) == 0
    assert capsys.readouterr().out.startswith("VALID")
    data = json.loads(path.read_text())
    data["pairs"] = data["pairs"][1:]
    path.write_text(json.dumps(data))
    assert main(["check", str(path)]) == 1
    assert capsys.readouterr().out.startswith("REJECTED")


def test_cli_pairing_json_and_none(capsys):
    assert main(["pairing", "4x4k4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["exists"] is False
    assert set(data) >= {"exists", "pairs", "unpaired", "seconds"}
    assert main(["pairing", "4x4k4:foo"]) == 2


def test_game_is_accepted_as_a_value():
    assert find(Game("5x5k5")).exists


@pytest.mark.parametrize("spec", ["7x6k4:gravity", "5x5k5:misere", "6x6k4p2q1"])
def test_pairings_refuse_games_where_they_prove_nothing(spec, capsys):
    with pytest.raises(KinarowError, match="pairings need free placement"):
        find(spec)
    assert main(["pairing", spec]) == 2
    assert "\n" not in capsys.readouterr().err.rstrip("\n")
    assert not check(Pairing(spec, [], []))


def test_theorem_10_matches_direct_counting_of_lines():
    """Tung & Lau, Theorem 10, as the brief states it, against the line-by-line count (Lemma 9)."""
    from kinarow.pairing import paired_cells_needed, theorem10_bound

    for m in range(1, 13):
        for n in range(1, 13):
            for k in range(2, 13):
                assert paired_cells_needed(Game(f"{m}x{n}k{k}")) == theorem10_bound(m, n, k), (m, n, k)


def test_bound_is_necessary_for_the_pairings_found():
    from kinarow.pairing import paired_cells_needed

    for spec in ["5x5k5", "7x7k6", "9x4k5"]:
        result = find(spec)
        used = 2 * len(result.pairing.pairs)
        assert used >= paired_cells_needed(Game(spec))


def test_a_conflict_budget_leaves_a_hard_case_open():
    result = find("10x9k6", max_conflicts=10)
    assert result.exists is None
    assert "conflicts" in result.method


def test_small_existence_table():
    from kinarow.pairing import existence_table, table_markdown

    rows = existence_table(5)
    by_board = {(r.m, r.n, r.k): r for r in rows}
    assert by_board[(5, 5, 5)].exists is True
    assert by_board[(4, 4, 4)].exists is False
    assert by_board[(3, 3, 3)].exists is False
    assert all(r.bound_allows for r in rows if r.exists)
    assert "| 5 | 5 | 5 |" in table_markdown(rows, "kinarow pairing-table --max-side 5")
