"""Game strings: parsing, the canonical form, and one-line errors for bad strings."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from kinarow import Game, GameSpecError, KinarowError

# The canonical order in which str(Game) writes flags (as documented in game.py).
CANONICAL_ORDER = ("gravity", "misere", "maker-breaker", "torus", "cylinder", "hex")


@pytest.mark.parametrize(
    "text",
    [
        "3x3k3",
        "4x4k4",
        "4x3k3",
        "9x4k4",
        "6x6k4p2q1",
        "5x5k4p2q2",
        "19x19k6p2q1",
        "7x6k4:gravity",
        "7x6k4:gravity,misere",
        "8x8k8:torus",
        "8x8k8:cylinder",
        "7x7k7:hex",
        "3x3k3:maker-breaker",
        "5x5k4:gravity,maker-breaker,cylinder,hex",
        "1x1k1",
        "702x1k1",
    ],
)
def test_canonical_strings_round_trip(text):
    game = Game(text)
    assert str(game) == text
    assert Game(str(game)) == game
    assert repr(game) == f"Game({text!r})"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("7x6k4:misere,gravity", "7x6k4:gravity,misere"),
        ("4x4k4:hex,torus,misere", "4x4k4:misere,torus,hex"),
        ("5x5k4:cylinder,maker-breaker,gravity", "5x5k4:gravity,maker-breaker,cylinder"),
        ("4x4k4p1q1", "4x4k4"),
        ("5x5k4p2", "5x5k4p2q2"),
        ("  4X4K4:Gravity ", "4x4k4:gravity"),
        ("7x6k4: gravity , misere", "7x6k4:gravity,misere"),
        ("3x3k3:misère", "3x3k3:misere"),
    ],
)
def test_flags_and_turn_rule_are_canonicalised(text, canonical):
    assert str(Game(text)) == canonical
    assert Game(text) == Game(canonical)


def test_fields():
    game = Game("6x6k4p2q1:gravity,misere")
    assert (game.m, game.n, game.k, game.p, game.q) == (6, 6, 4, 2, 1)
    assert game.flags == frozenset({"gravity", "misere"})
    assert game.gravity and not game.hex
    assert game.goal == "misere"
    assert game.topology == "rect"
    assert game.cells == 36
    assert Game("4x4k4").goal == "normal"
    assert Game("4x4k4:maker-breaker").goal == "maker-breaker"
    assert Game("8x8k8:torus").topology == "torus"
    assert Game("8x8k8:cylinder").topology == "cylinder"
    assert Game("7x7k7:hex").hex
    assert Game(Game("7x6k4:gravity")) == Game("7x6k4:gravity")


def test_columns_and_rows_are_not_swapped():
    game = Game("7x6k4")
    assert (game.m, game.n) == (7, 6)


@pytest.mark.parametrize(
    ("text", "stones", "expected"),
    [
        # (m, n, k, p, q): the first player places q stones on the first turn, then p per turn.
        ("6x6k4p2q1", range(7), [(1, 1), (2, 2), (2, 1), (1, 2), (1, 1), (2, 2), (2, 1)]),
        ("5x5k4p2q2", range(6), [(1, 2), (1, 1), (2, 2), (2, 1), (1, 2), (1, 1)]),
        ("3x3k3", range(4), [(1, 1), (2, 1), (1, 1), (2, 1)]),
        ("9x9k5p3q1", range(8), [(1, 1), (2, 3), (2, 2), (2, 1), (1, 3), (1, 2), (1, 1), (2, 3)]),
    ],
)
def test_turn_state(text, stones, expected):
    game = Game(text)
    assert [game.turn_state(s) for s in stones] == expected


# -- generated specs ------------------------------------------------------------------------------


@st.composite
def game_specs(draw):
    """A valid game string (flags in random order, random case) and its expected fields."""
    m = draw(st.integers(1, 40))
    n = draw(st.integers(1, 40))
    k = draw(st.integers(1, 12))
    rule = draw(st.sampled_from(["none", "p", "pq"]))
    p = q = 1
    text = f"{m}x{n}k{k}"
    if rule == "p":
        p = q = draw(st.integers(1, 5))
        text += f"p{p}"
    elif rule == "pq":
        p, q = draw(st.integers(1, 5)), draw(st.integers(1, 5))
        text += f"p{p}q{q}"
    flags = set()
    goal = draw(st.sampled_from([None, "misere", "maker-breaker"]))
    if goal:
        flags.add(goal)
    topology = draw(st.sampled_from([None, "torus", "cylinder"]))
    if topology:
        flags.add(topology)
    if topology != "torus" and draw(st.booleans()):
        flags.add("gravity")
    if draw(st.booleans()):
        flags.add("hex")
    order = draw(st.permutations(sorted(flags)))
    if order:
        text += ":" + ",".join(order)
    if draw(st.booleans()):
        text = text.upper()
    return text, (m, n, k, p, q, frozenset(flags))


def canonical_string(m, n, k, p, q, flags):
    text = f"{m}x{n}k{k}"
    if (p, q) != (1, 1):
        text += f"p{p}q{q}"
    if flags:
        text += ":" + ",".join(f for f in CANONICAL_ORDER if f in flags)
    return text


@given(game_specs())
def test_generated_specs_round_trip(spec):
    text, fields = spec
    game = Game(text)
    assert (game.m, game.n, game.k, game.p, game.q, game.flags) == fields
    assert str(game) == canonical_string(*fields)
    again = Game(str(game))
    assert again == game
    assert str(again) == str(game)
    assert hash(again) == hash(game)


# -- bad strings ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("4x4", "4x4"),
        ("4x4k", "4x4k"),
        ("axbkc", "axbkc"),
        ("4x4k4q2", "4x4k4q2"),
        ("4x4k4p2q1x", "4x4k4p2q1x"),
        ("-1x4k4", "-1x4k4"),
        ("4x4k4:foo", "foo"),
        ("4x4k4:gravity,foo", "foo"),
        ("4x4k4:torus,cylinder", "cylinder"),
        ("4x4k4:misere,maker-breaker", "maker-breaker"),
        ("4x4k4:torus,gravity", "torus"),
        ("4x4k4:gravity,torus", "gravity"),
        ("0x4k4", "0"),
        ("4x0k4", "0"),
        ("703x1k1", "703"),
        ("4x4k0", "0"),
        ("4x4k4p0q1", "4x4k4p0q1"),
        ("4x4k4p1q0", "4x4k4p1q0"),
        ("4x4k4:", "4x4k4:"),
        ("4x4k4:gravity,gravity", "gravity"),
        ("", "empty"),
        ("   ", "empty"),
    ],
)
def test_bad_strings_raise_one_line_error_naming_the_bad_part(text, named):
    with pytest.raises(GameSpecError) as info:
        Game(text)
    message = str(info.value)
    assert message
    assert "\n" not in message
    assert named.lower() in message.lower()
    assert isinstance(info.value, KinarowError)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("text", "which"),
    [
        ("4x4k4:torus,cylinder", ("torus", "cylinder")),
        ("4x4k4:misere,maker-breaker", ("misere", "maker-breaker")),
        ("4x4k4:torus,gravity", ("torus", "gravity")),
    ],
)
def test_conflicting_flags_name_both(text, which):
    with pytest.raises(GameSpecError) as info:
        Game(text)
    for flag in which:
        assert flag in str(info.value)


def test_unknown_flag_lists_allowed_flags():
    with pytest.raises(GameSpecError) as info:
        Game("4x4k4:foo")
    for flag in CANONICAL_ORDER:
        assert flag in str(info.value)


@pytest.mark.parametrize("value", [5, None, 4.0, ["4x4k4"]])
def test_non_strings_are_rejected(value):
    with pytest.raises(GameSpecError):
        Game(value)


@given(st.text(max_size=20))
@example("0\n0")
@example("4x4k4:foo\nbar")
def test_arbitrary_text_either_parses_canonically_or_raises_game_spec_error(text):
    try:
        game = Game(text)
    except GameSpecError as err:
        assert "\n" not in str(err)
        return
    assert Game(str(game)) == game


# -- bounds and ASCII ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("3x3k3p99999999999999999999", "1 to 702"),
        ("3x3k3p" + "9" * 5000, "5000-digit"),
        ("9" * 5000 + "x3k3", "5000-digit"),
        ("3x3k" + "9" * 5000, "K (in a row)"),
        ("3x3k703", "1 to 702"),
        ("3x3k3p2q703", "Q (stones of the first turn)"),
        ("3x3k3p703", "P (stones a turn)"),
        ("3x703k3", "N (rows)"),
    ],
)
def test_every_number_is_bounded_and_the_limit_is_named(text, named):
    with pytest.raises(GameSpecError) as info:
        Game(text)
    message = str(info.value)
    assert named in message
    assert "\n" not in message
    assert len(message) < 300  # a pasted 5000-digit number is not echoed whole


@pytest.mark.parametrize(
    "text",
    [
        "\uff13x\uff13k\uff13",
        "3x3k\u0663",
        "\u0663x\u0663k\u0663",
        "3x3k3p\u00b2",
        "3x3\u212a3",
        "3x3k3:ma\u212aer-breaker",
        "\uff13x3k3",
        "3x3k3\u200b",
    ],
)
def test_only_ascii_digits_and_letters_are_read(text):
    with pytest.raises(GameSpecError) as info:
        Game(text)
    assert "\n" not in str(info.value)


def test_the_largest_numbers_allowed_parse():
    game = Game("702x702k702p702q702")
    assert (game.m, game.n, game.k, game.p, game.q) == (702, 702, 702, 702, 702)


def test_k_longer_than_every_line_is_a_game_without_groups():
    game = Game("3x3k9")
    assert not game.has_groups
    assert game.no_group_reason == "no line of 9 cells fits on this 3x3 board"
    assert Game("3x3k3").no_group_reason is None
    # a torus's diagonal wraps round until it meets itself after lcm(m, n) cells
    assert Game("2x3k6:torus").has_groups
    assert Game("2x3k7:torus").no_group_reason == "no line of 7 cells fits on this 2x3 torus board"


@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 13),
       st.sampled_from(["", ":torus", ":cylinder", ":hex", ":torus,hex", ":cylinder,hex"]))
def test_has_groups_agrees_with_the_groups(m, n, k, flags):
    game = Game(f"{m}x{n}k{k}{flags}")
    assert game.has_groups == bool(game.geometry.groups)
