"""Board geometry: cell names, groups (winning lines) and symmetries."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinarow import Game, MoveError
from kinarow.geometry import column_index, column_name

# -- cell names -----------------------------------------------------------------------------------


def test_a1_is_bottom_left_and_names_run_by_column_then_row():
    geo = Game("4x3k3").geometry
    assert geo.name(geo.cell(0, 0)) == "a1"
    assert geo.name(geo.cell(3, 0)) == "d1"
    assert geo.name(geo.cell(0, 2)) == "a3"
    assert geo.name(geo.cell(3, 2)) == "d3"
    assert geo.name(geo.cell(1, 1)) == "b2"
    names = {geo.name(c) for c in range(geo.size)}
    assert names == {f"{col}{row}" for col in "abcd" for row in (1, 2, 3)}


def test_cell_and_xy_are_inverse():
    geo = Game("5x7k4").geometry
    assert sorted(geo.cell(x, y) for x in range(5) for y in range(7)) == list(range(35))
    for c in range(geo.size):
        assert geo.cell(*geo.xy(c)) == c


@pytest.mark.parametrize(
    ("x", "name"),
    [(0, "a"), (1, "b"), (25, "z"), (26, "aa"), (27, "ab"), (51, "az"), (52, "ba"), (701, "zz")],
)
def test_column_names(x, name):
    assert column_name(x) == name
    assert column_index(name) == x


def test_column_names_are_bijective_up_to_zz():
    letters = "abcdefghijklmnopqrstuvwxyz"
    expected = list(letters) + [a + b for a in letters for b in letters]
    assert [column_name(x) for x in range(702)] == expected
    assert [column_index(name) for name in expected] == list(range(702))


def test_wide_board_names():
    geo = Game("30x2k3").geometry
    assert geo.name(geo.cell(26, 0)) == "aa1"
    assert geo.name(geo.cell(27, 1)) == "ab2"
    assert geo.parse_cell("ab2") == geo.cell(27, 1)
    assert geo.parse_cell("AD1") == geo.cell(29, 0)


def test_parse_cell_round_trip_every_cell():
    geo = Game("9x11k4").geometry
    for c in range(geo.size):
        assert geo.parse_cell(geo.name(c)) == c
        assert geo.parse_cell(" " + geo.name(c).upper() + " ") == c


@pytest.mark.parametrize("text", ["d1", "a4", "a0", "z9", "aa1", "c10"])
def test_parse_cell_off_the_board(text):
    geo = Game("3x3k3").geometry
    with pytest.raises(MoveError) as info:
        geo.parse_cell(text)
    message = str(info.value)
    assert "off the board" in message
    assert text in message
    assert "\n" not in message


@pytest.mark.parametrize("text", ["", "b", "2", "2b", "b2x", "b-1", "b 2", "#", "b2,c3"])
def test_parse_cell_not_a_cell_name(text):
    geo = Game("3x3k3").geometry
    with pytest.raises(MoveError) as info:
        geo.parse_cell(text)
    assert "\n" not in str(info.value)


def test_parse_column():
    geo = Game("7x6k4:gravity").geometry
    assert geo.parse_column("a") == 0
    assert geo.parse_column("G") == 6
    assert geo.parse_column("1") == 0
    assert geo.parse_column("7") == 6
    for bad in ["h", "8", "0", "", "d4x", "-1"]:
        with pytest.raises(MoveError):
            geo.parse_column(bad)


# -- groups ---------------------------------------------------------------------------------------


def rect_group_count(m, n, k):
    """Closed form: rows, columns and both diagonals of a rectangular board."""
    h = max(m - k + 1, 0) * n
    v = m * max(n - k + 1, 0)
    d = max(m - k + 1, 0) * max(n - k + 1, 0)
    return h + v + 2 * d


def brute_groups(m, n, k, directions, wrap_x, wrap_y):
    """Every set of k distinct cells c, c+d, ..., c+(k-1)d, as sets of (x, y)."""
    out = set()
    for x0, y0 in itertools.product(range(m), range(n)):
        for dx, dy in directions:
            line = []
            for i in range(k):
                x, y = x0 + i * dx, y0 + i * dy
                if wrap_x:
                    x %= m
                if wrap_y:
                    y %= n
                if 0 <= x < m and 0 <= y < n:
                    line.append((x, y))
            if len(line) == k and len(set(line)) == k:
                out.add(frozenset(line))
    return out


def groups_xy(game):
    geo = game.geometry
    return [frozenset(geo.xy(c) for c in g) for g in geo.groups]


SQUARE = [(1, 0), (0, 1), (1, 1), (1, -1)]
HEX = [(1, 0), (0, 1), (1, -1)]


@pytest.mark.parametrize(("text", "count"), [("3x3k3", 8), ("7x6k4", 69), ("4x4k4", 10), ("4x3k3", 14), ("9x4k4", 45)])
def test_known_group_counts(text, count):
    assert len(Game(text).geometry.groups) == count


@pytest.mark.parametrize(
    ("m", "n", "k"),
    [(m, n, k) for m in range(1, 9) for n in range(1, 8) for k in range(1, 7)],
)
def test_rect_group_count_formula(m, n, k):
    game = Game(f"{m}x{n}k{k}")
    groups = groups_xy(game)
    assert len(groups) == len(set(groups))
    if k == 1:
        # every direction gives the same single cell: one group per cell
        assert len(groups) == m * n
    else:
        assert len(groups) == rect_group_count(m, n, k)
    assert set(groups) == brute_groups(m, n, k, SQUARE, False, False)
    assert all(len(g) == k for g in groups)


def test_torus_8x8k8_has_the_32_wrapped_lines():
    game = Game("8x8k8:torus")
    groups = groups_xy(game)
    assert len(groups) == 32
    assert all(len(g) == 8 for g in groups)
    rows = {frozenset((x, y) for x in range(8)) for y in range(8)}
    cols = {frozenset((x, y) for y in range(8)) for x in range(8)}
    diags = {frozenset(((x + i) % 8, i) for i in range(8)) for x in range(8)}
    antis = {frozenset(((x - i) % 8, i) for i in range(8)) for x in range(8)}
    assert set(groups) == rows | cols | diags | antis


@pytest.mark.parametrize(
    "text",
    [
        "5x4k3:torus", "4x4k3:torus", "4x4k4:torus", "3x3k3:torus", "6x4k4:torus", "5x5k2:torus",
        "4x4k3:cylinder", "6x4k3:cylinder", "4x6k4:cylinder", "5x5k5:cylinder", "7x6k4:cylinder,gravity",
        "4x4k4:hex", "5x4k3:hex", "3x6k3:hex", "7x7k7:hex", "4x4k3:hex,torus", "6x5k4:hex,cylinder",
    ],
)
def test_wrapped_and_hex_groups_match_brute_enumeration(text):
    game = Game(text)
    directions = HEX if game.hex else SQUARE
    wrap_x = game.topology in ("torus", "cylinder")
    wrap_y = game.topology == "torus"
    groups = groups_xy(game)
    assert len(groups) == len(set(groups))
    assert set(groups) == brute_groups(game.m, game.n, game.k, directions, wrap_x, wrap_y)


@pytest.mark.parametrize(("m", "n", "k"), [(5, 4, 3), (6, 6, 4), (7, 5, 4), (9, 9, 5)])
def test_torus_group_count_when_k_is_short(m, n, k):
    # every cell starts one group in each of the 4 directions
    assert len(Game(f"{m}x{n}k{k}:torus").geometry.groups) == 4 * m * n


@pytest.mark.parametrize(("m", "n", "k"), [(5, 4, 3), (6, 6, 4), (7, 5, 4), (8, 6, 6)])
def test_cylinder_group_count(m, n, k):
    # rows wrap (m groups per row when k < m); columns and diagonals do not wrap vertically
    expected = m * n + m * (n - k + 1) + 2 * m * (n - k + 1)
    assert len(Game(f"{m}x{n}k{k}:cylinder").geometry.groups) == expected


@pytest.mark.parametrize(("m", "n", "k"), [(4, 4, 4), (5, 4, 3), (7, 7, 7), (9, 6, 4)])
def test_hex_group_count(m, n, k):
    # three directions: rows, columns and the (1, -1) diagonal
    expected = (m - k + 1) * n + m * (n - k + 1) + (m - k + 1) * (n - k + 1)
    assert len(Game(f"{m}x{n}k{k}:hex").geometry.groups) == expected


def test_hex_uses_the_anti_diagonal_only():
    groups = set(groups_xy(Game("3x3k3:hex")))
    assert frozenset({(0, 2), (1, 1), (2, 0)}) in groups
    assert frozenset({(0, 0), (1, 1), (2, 2)}) not in groups


def test_cell_groups_is_the_incidence_of_groups():
    geo = Game("6x5k4").geometry
    for c in range(geo.size):
        assert set(geo.cell_groups[c]) == {i for i, g in enumerate(geo.groups) if c in g}


def test_group_directions():
    geo = Game("7x6k4").geometry
    counts = {}
    for d in geo.group_directions:
        counts[d] = counts.get(d, 0) + 1
    assert counts == {(1, 0): 24, (0, 1): 21, (1, 1): 12, (1, -1): 12}


# -- symmetries -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("3x3k3", 8),
        ("4x4k4", 8),
        ("6x6k4p2q1", 8),
        ("4x3k3", 4),
        ("7x6k4", 4),
        ("9x4k4", 4),
        ("7x6k4:gravity", 2),
        ("4x4k4:gravity", 2),
        ("8x8k8:torus", 512),
        ("4x4k4:torus", 128),
    ],
)
def test_symmetry_group_sizes(text, size):
    assert len(Game(text).geometry.symmetries) == size


def compose(a, b):
    """The permutation 'first b, then a'."""
    return tuple(a[b[c]] for c in range(len(b)))


@pytest.mark.parametrize(
    "text",
    [
        "3x3k3", "4x4k4", "4x3k3", "7x6k4", "7x6k4:gravity", "5x4k3:gravity,misere", "8x8k8:torus",
        "5x4k3:torus", "4x4k3:cylinder", "6x4k3:cylinder,gravity", "4x4k4:hex", "5x4k3:hex", "4x4k3:hex,torus",
        "3x3k3:torus",
    ],
)
def test_symmetries_are_automorphisms_forming_a_group(text):
    game = Game(text)
    geo = game.geometry
    syms = geo.symmetries
    identity = tuple(range(geo.size))
    assert syms[0] == identity
    assert len(set(syms)) == len(syms)
    groups = {frozenset(g) for g in geo.groups}
    for perm in syms:
        assert sorted(perm) == list(identity)
        assert {frozenset(perm[c] for c in g) for g in groups} == groups
        if game.gravity:
            # under gravity a symmetry keeps every row and maps columns onto columns
            for c in range(geo.size):
                assert geo.xy(perm[c])[1] == geo.xy(c)[1]
            for x in range(game.m):
                assert len({geo.xy(perm[geo.cell(x, y)])[0] for y in range(game.n)}) == 1
    symset = set(syms)
    if len(syms) <= 200:
        for a in syms:
            for b in syms:
                assert compose(a, b) in symset
    for a in syms:
        inverse = [0] * geo.size
        for c, image in enumerate(a):
            inverse[image] = c
        assert tuple(inverse) in symset


def test_square_board_symmetries_are_the_dihedral_group():
    geo = Game("4x4k4").geometry
    expected = set()
    for flip_x, flip_y, swap in itertools.product((False, True), repeat=3):
        perm = []
        for c in range(16):
            x, y = geo.xy(c)
            if flip_x:
                x = 3 - x
            if flip_y:
                y = 3 - y
            if swap:
                x, y = y, x
            perm.append(geo.cell(x, y))
        expected.add(tuple(perm))
    assert set(geo.symmetries) == expected


def test_gravity_symmetry_is_the_mirror():
    geo = Game("7x6k4:gravity").geometry
    mirror = tuple(geo.cell(6 - x, y) for x, y in map(geo.xy, range(geo.size)))
    assert set(geo.symmetries) == {tuple(range(geo.size)), mirror}


def test_torus_symmetries_include_every_translation():
    geo = Game("8x8k8:torus").geometry
    syms = set(geo.symmetries)
    for tx, ty in itertools.product(range(8), repeat=2):
        shift = tuple(geo.cell((x + tx) % 8, (y + ty) % 8) for x, y in map(geo.xy, range(64)))
        assert shift in syms


# -- groups through a cell without the group table (large boards) ---------------------------------------------
@settings(max_examples=200)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 8),
       st.sampled_from(["", ":torus", ":cylinder", ":hex", ":torus,hex", ":cylinder,hex"]), st.data())
def test_walking_the_lines_agrees_with_the_group_masks(m, n, k, flags, data):
    geo = Game(f"{m}x{n}k{k}{flags}").geometry
    board = data.draw(st.lists(st.sampled_from([0, 1, 2]), min_size=geo.size, max_size=geo.size))
    cell = data.draw(st.integers(0, geo.size - 1))
    player = board[cell] or 1
    board[cell] = player
    own = sum(1 << c for c, v in enumerate(board) if v == player)
    expected = any(mask & own == mask for mask in geo.cell_group_masks[cell])
    assert geo.owns_group_through(cell, board, player) == expected
    runs = geo.runs_through(cell, board, player)  # the lines that hold those groups, end to end
    assert bool(runs) == expected
    for run in runs:
        assert cell in run and len(set(run)) == len(run) >= k and all(board[c] == player for c in run)
    for g in geo.cell_groups[cell]:
        if all(board[c] == player for c in geo.groups[g]):
            assert any(set(geo.groups[g]) <= set(run) for run in runs)


def test_a_large_board_plays_without_the_group_table():
    pos = Game("702x702k5").position("a1 b1 a2 b2 a3 b3 a4 b4")
    assert pos.result is None
    pos.play_moves("a5")
    assert pos.result == "first"
    assert "cell_group_masks" not in vars(pos.geometry)  # the table was never built


@pytest.mark.parametrize("name", [5, None, 2.0, ["b2"], b"b2"])
def test_cell_and_column_names_must_be_text(name):
    geo = Game("4x4k4").geometry
    with pytest.raises(MoveError):
        geo.parse_cell(name)
    with pytest.raises(MoveError):
        geo.parse_column(name)


@pytest.mark.parametrize(("name", "cell"), [("a01", (0, 0)), (" B2 ", (1, 1)), ("d4", (3, 3))])
def test_cell_names_read_leading_zeros_and_any_case(name, cell):
    geo = Game("4x4k4").geometry
    assert geo.parse_cell(name) == geo.cell(*cell)
