"""Hales-Jewett pairings: SAT search, the rules-only checker, and agreement with the solver."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinarow import Game, KinarowError, solve
from kinarow.cli import main
from kinarow.knowledge.pairing import Pairing, check, find

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
    result = find(spec, bounds=False, constructions=False, matching=False)
    assert not result.exists
    assert result.pairing is None
    assert "unsatisfiable" in result.method
    assert result.proved_by == "SAT"


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
    assert set(data) >= {"exists", "pairs", "unpaired", "seconds", "method", "proved_by"}
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
    from kinarow.knowledge.pairing import paired_cells_needed, theorem10_bound
    from kinarow.knowledge.pairing.bounds import line_lengths

    # the line lengths by formula against walking the board cell by cell
    for m in range(1, 9):
        for n in range(1, 9):
            for flag in ("", ":hex"):
                game = Game(f"{m}x{n}k3{flag}")
                walked = []
                for dx, dy in game.geometry.directions:
                    for x in range(m):
                        for y in range(n):
                            if not (0 <= x - dx < m and 0 <= y - dy < n):
                                length = 0
                                while 0 <= x + length * dx < m and 0 <= y + length * dy < n:
                                    length += 1
                                walked.append(length)
                assert sorted(walked) == sorted(line_lengths(game)), (m, n, flag)

    for m in range(1, 13):
        for n in range(1, 13):
            for k in range(2, 13):
                assert paired_cells_needed(Game(f"{m}x{n}k{k}")) == theorem10_bound(m, n, k), (m, n, k)


def test_bound_is_necessary_for_the_pairings_found():
    from kinarow.knowledge.pairing import paired_cells_needed

    for spec in ["5x5k5", "7x7k6", "9x4k5"]:
        result = find(spec)
        used = 2 * len(result.pairing.pairs)
        assert used >= paired_cells_needed(Game(spec))


def test_a_conflict_budget_leaves_a_hard_case_open():
    result = find("10x9k6", max_conflicts=10)
    assert result.proved_by == "SAT"
    assert result.exists is None
    assert "conflicts" in result.method


def test_small_existence_table():
    from kinarow.knowledge.pairing import existence_table, table_markdown

    rows = existence_table(5)
    by_board = {(r.m, r.n, r.k): r for r in rows}
    assert by_board[(5, 5, 5)].exists is True
    assert by_board[(4, 4, 4)].exists is False
    assert by_board[(3, 3, 3)].exists is False
    assert by_board[(3, 3, 3)].proved_by == "Theorem 10"
    assert by_board[(5, 5, 5)].proved_by in ("matching", "SAT")  # never the family construction
    assert by_board[(5, 5, 5)].family
    assert all(r.bound_allows and r.proposition1_allows for r in rows if r.exists)
    text = table_markdown(rows, "kinarow pairing-table --max-side 5")
    six = {(r.m, r.n, r.k): r for r in existence_table(6)}
    assert six[(6, 5, 5)].exists is False and six[(6, 5, 5)].proved_by == "SAT"
    assert six[(6, 6, 5)].exists is False and six[(6, 6, 5)].proved_by == "sub-board"  # 6x5 fits inside
    assert "| 5 | 5 | 5 |" in text
    assert "Generated by `kinarow pairing-table --max-side 5`" in text


# -- bounds ----------------------------------------------------------------------------------
def test_theorem_10_on_a_sub_board():
    """7x7k5 passes Theorem 10 as a whole, but its 5x7 sub-board does not; SAT agrees there is no pairing."""
    from kinarow.knowledge.pairing import paired_cells_needed
    from kinarow.knowledge.pairing.bounds import theorem10_sub_board

    game = Game("7x7k5")
    assert paired_cells_needed(game) <= game.cells
    assert theorem10_sub_board(game) == (5, 7)
    assert paired_cells_needed(Game("5x7k5")) > 35
    result = find(game)
    assert result.proved_by == "Theorem 10" and "5x7 sub-board" in result.method
    assert find(game, bounds=False, constructions=False, matching=False).exists is False
    assert theorem10_sub_board(Game("4x4k4")) == (4, 4)  # the whole board is named first


def test_every_bound_exclusion_is_confirmed_by_sat():
    """Whatever Theorem 10 or Proposition 1 excludes, the plain SAT encoding finds unsatisfiable."""
    excluded = 0
    for m in range(3, 8):
        for n in range(2, m + 1):
            for k in range(3, m + 1):
                bounded = find(f"{m}x{n}k{k}")
                if bounded.proved_by in ("Theorem 10", "Proposition 1"):
                    excluded += 1
                    assert bounded.exists is False
                    plain = find(f"{m}x{n}k{k}", bounds=False, constructions=False, matching=False,
                                 symmetry=False, cuts=False)
                    assert plain.exists is False, (m, n, k)
    assert excluded > 20


def test_proposition_1_on_a_position_and_on_sub_rectangles():
    from kinarow.knowledge.pairing import paired_cells_needed
    from kinarow.knowledge.pairing.bounds import PROPOSITION_1, exclusion, proposition1_rect, rect_counts

    # a 4x4 rhombus of the hexagonal grid holds 9 groups of 4 (3 + 4 + 2), d2 = 1, and 8 pairs at most
    assert rect_counts(4, 4, 4, ((1, 0), (0, 1), (1, -1))) == (9, 1)
    assert proposition1_rect(Game("6x6k4:hex")).bound == PROPOSITION_1
    assert paired_cells_needed(Game("6x6k4:hex")) <= 36  # Theorem 10 alone allows it
    assert find("6x6k4:hex", bounds=False, constructions=False, matching=False).exists is False
    assert proposition1_rect(Game("9x9k9")) is None
    # after moves: only Proposition 1 with X = the empty cells applies
    position = Game("4x4k3").position("a1")
    found = exclusion(position)
    assert found is not None and found.bound == PROPOSITION_1
    assert find("4x4k3", moves="a1").proved_by == PROPOSITION_1


@pytest.mark.parametrize(("grid", "largest_excluded"), [("square", 8), ("hex", 6)])
def test_proposition_1_on_the_infinite_board(grid, largest_excluded):
    """Growing regions: Proposition 1 rules out k <= 8 on the square grid and k <= 6 on the hexagonal one."""
    from kinarow.knowledge.pairing.bounds import infinite_exclusion

    for k in range(3, largest_excluded + 1):
        found = infinite_exclusion(k, grid, max_side=200)
        assert found.side is not None, (grid, k)
        assert found.d2 * (found.cells // 2) < found.groups
    for k in (largest_excluded + 1, largest_excluded + 2):
        assert infinite_exclusion(k, grid, max_side=300).side is None
    assert infinite_exclusion(8, "square").side == 82


# -- the matching path, symmetry breaking and cuts never change an answer ---------------------
SAT_ONLY = {"bounds": False, "constructions": False, "matching": False}


@pytest.mark.parametrize("spec", ["5x5k5", "6x6k6", "7x7k7", "6x5k6", "3x3k3", "4x4k4"])
def test_matching_path_agrees_with_sat(spec):
    fast = find(spec, bounds=False, constructions=False)
    assert fast.proved_by == "matching"
    assert fast.exists == find(spec, **SAT_ONLY).exists
    if fast.exists:
        assert check(fast.pairing).ok


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["5x5k5", "6x6k5", "5x5k4", "6x5k4", "7x7k6", "6x6k6"]), st.randoms(use_true_random=False))
def test_every_encoding_gives_the_same_answer(spec, rng):
    game = Game(spec)
    cells = list(range(game.cells))
    rng.shuffle(cells)
    moves = " ".join(game.geometry.name(c) for c in cells[: rng.randrange(0, 5)])
    position = game.position(moves)
    if position.result is not None:
        return
    answers = set()
    for cuts in (False, True):
        for symmetry in (False, True):
            result = find(spec, moves=moves, cuts=cuts, symmetry=symmetry, **SAT_ONLY)
            answers.add(result.exists)
            if result.exists:
                assert check(result.pairing).ok
    answers.add(find(spec, moves=moves).exists)
    assert len(answers) == 1, (spec, moves, answers)


def test_symmetry_breaking_only_uses_symmetries_of_the_position():
    from kinarow.knowledge.pairing import _position_symmetries

    assert len(_position_symmetries(Game("6x6k5").start())) == 7
    assert len(_position_symmetries(Game("6x6k5").position("a1"))) == 1  # the diagonal reflection
    assert len(_position_symmetries(Game("6x6k5").position("a2"))) == 0


def test_minimise_stops_at_the_lemma_9_bound():
    fewest = find("7x4k5", minimise=True)
    # each of the 4 rows of 7 cells needs floor(6 / 4) = 1 pair; nothing else holds a group
    assert len(fewest.pairing.pairs) == 4
    assert check(fewest.pairing).ok


def test_no_live_groups_and_dead_groups():
    assert find("4x1k3", moves="a1 b1").exists is True  # White's b1 lies in both groups
    result = find("4x1k3", moves="a1 d1 b1")  # Black needs only c1
    assert result.exists is False
    assert "fewer than two empty cells" in result.method


# -- constructions ------------------------------------------------------------------------------
def test_construct_refuses_boards_outside_the_families():
    from kinarow.knowledge.pairing import construct

    with pytest.raises(KinarowError, match="no published pairing family covers the 8x8 board with k = 6"):
        construct(8, 8, 6)
    assert find("7x7k6").proved_by == "construction"
    assert check(find("7x7k6").pairing).ok


def test_cli_names_the_bound(capsys):
    assert main(["pairing", "5x5k4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("No good pairing exists for 5x5k4: excluded by Theorem 10:")
    assert main(["pairing", "5x5k4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["exists"] is False and data["proved_by"] == "Theorem 10" and data["pairs"] == []
    assert main(["pairing", "10x9k6", "--max-conflicts", "5"]) == 0
    assert "Not settled" in capsys.readouterr().out
    assert main(["pairing", "10x9k6", "--max-conflicts", "many"]) == 2
    assert "--max-conflicts must be a positive whole number" in capsys.readouterr().err


def test_cli_pairing_table(capsys):
    assert main(["pairing-table", "--max-side", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Good pairings of the empty m x n board, k in a row")
    assert "Generated by `kinarow pairing-table --max-side 4 --max-conflicts 1000000`." in out
    assert main(["pairing-table", "--max-side", "4", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {"m", "n", "k", "exists", "proved_by", "seconds"} <= set(rows[0])
    for bad in (["--max-side", "0"], ["--max-conflicts", "x"]):
        assert main(["pairing-table", *bad]) == 2
        err = capsys.readouterr().err
        assert err.startswith("kinarow: error: ") and err.count("\n") == 1
