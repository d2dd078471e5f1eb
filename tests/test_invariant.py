"""Parametric (invariant) certificates: take-even and delayed take-even proven for whole families of boards at once."""

from __future__ import annotations

import dataclasses

import pytest

from kinarow.proofs import check_data
from kinarow.proofs.invariant import (
    InvariantCertificate,
    Pattern,
    Response,
    check,
    delayed_take_even_certificate,
    local_lines,
    take_even_certificate,
)
from kinarow.values import Player


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_take_even_is_proven_for_its_whole_family(k):
    cert = take_even_certificate(k)
    verdict = check_data(cert.to_json())
    assert verdict.ok, verdict.reason
    assert verdict.format == "kinarow.invariant"
    assert verdict.details["windows"] > 0 and verdict.details["small_positions"] > 0
    assert cert.covers(k, 12, 12) and cert.covers(k, k, 2)
    assert not cert.covers(k, 12, 11) and not cert.covers(k, k - 1, 12) and not cert.covers(k + 1, 12, 12)


def test_a_strategy_that_answers_one_move_wrongly_is_rejected():
    good = take_even_certificate(4)
    # a stone on row 3 is answered beside it instead of on top of it
    wrong = dataclasses.replace(good, responses=(Response(2, 2, (1, 0)), *good.responses))
    verdict = check(wrong)
    assert not verdict.ok and "row 3" in verdict.reason, verdict.reason
    # two rows up: not a legal move
    verdict = check(dataclasses.replace(good, responses=(Response(0, None, (0, 2)),)))
    assert not verdict.ok and "not a legal move" in verdict.reason


def test_an_invariant_too_weak_for_the_outcome_is_rejected():
    good = take_even_certificate(4)
    # every height allowed: the opponent's stone on an odd height breaks the alternation
    verdict = check(dataclasses.replace(good, heights=Pattern((), (True,))))
    assert not verdict.ok and "invariant does not hold" in verdict.reason
    # the family widened to width k - 1: a full board has no line, the game may be drawn
    verdict = check(dataclasses.replace(good, min_width=3))
    assert not verdict.ok and "draw" in verdict.reason
    # the owners swapped: the first player's stone breaks the invariant at once
    verdict = check(dataclasses.replace(good, owners=Pattern((), (Player.SECOND, Player.FIRST))))
    assert not verdict.ok and "not the opponent's" in verdict.reason


def test_the_local_line_check_finds_a_line_of_the_strategist_first():
    # Rows owned the wrong way round (second, first, ...): the strategist's reply on row 2 can finish a diagonal
    # of row 1, 2, 3 stones while the opponent has no line; the local check sees it in a window.
    swapped = dataclasses.replace(take_even_certificate(3), owners=Pattern((), (Player.SECOND, Player.FIRST)))
    verdict = local_lines(swapped, 0, 4, (1, 1))
    assert not verdict.ok and "direction (1, 1)" in verdict.reason
    assert local_lines(take_even_certificate(3), 0, 4, (1, 1)).ok


def test_the_named_strategy_must_play_the_declared_replies(monkeypatch):
    cert = dataclasses.replace(take_even_certificate(3), strategy="pair-row")
    verdict = check(cert)
    assert not verdict.ok and "pair-row does not play the second player on 3x2k3" in verdict.reason, verdict.reason
    # with the name's binding to its rule left out, the small boards' walk still finds the two apart
    import kinarow.proofs.invariant as invariant

    monkeypatch.setattr(invariant, "_named_rule", lambda fam, strategy: None)
    verdict = check(cert)
    assert not verdict.ok and "differ" in verdict.reason


# Relabelled certificates on boards too large for the small boards' walk (over SMALL_CELLS cells): the name is
# bound to the rule on every board, so each relabelling is refused, however wide the family starts.
@pytest.mark.parametrize(("base", "width"), [("delayed-second", 12), ("delayed-second", 20), ("delayed-first", 11),
                                             ("delayed-first", 21), ("take-even", 16), ("take-even", 40)])
@pytest.mark.parametrize("name", ["take-even", "delayed-take-even", "tally", "canonical-boards", "pair-row",
                                  "delayed-tally"])
def test_a_relabelled_certificate_is_refused_on_boards_over_30_cells(base, width, name):
    from kinarow.proofs.invariant import SMALL_CELLS

    first = base == "delayed-first"
    cert = take_even_certificate(4) if base == "take-even" else delayed_take_even_certificate(4, first)
    cert = dataclasses.replace(cert, min_width=width)
    assert cert.min_width * cert.min_height > SMALL_CELLS  # no small board is walked
    verdict = check_data(dataclasses.replace(cert, strategy=name).to_json())
    if name == cert.strategy:
        assert verdict.ok, verdict.reason  # under its own name it is still proven
        assert verdict.details["small_positions"] == 0
    else:
        assert not verdict.ok
        assert f"{name} does not play the {cert.player} player on {width}x" in verdict.reason, verdict.reason


def test_the_rule_that_defines_a_name_is_compared_row_by_row():
    from kinarow.proofs.invariant import _Family, _named_rule
    from kinarow.strategies import get

    good = dataclasses.replace(take_even_certificate(4), min_width=20)
    assert _named_rule(_Family(good), get("take-even")) is None
    # the same rule written as two ranges of rows is the same rule
    split = dataclasses.replace(good, responses=(Response(0, 3, (0, 1)), Response(4, None, (0, 1))))
    assert _named_rule(_Family(split), get("take-even")) is None
    # another reply on row 5 is another rule, whatever the windows say of it
    other = dataclasses.replace(good, responses=(Response(4, 4, (1, 0)), *good.responses))
    assert "row 5" in _named_rule(_Family(other), get("take-even"))
    # delayed take-even's opening belongs to its first player
    first = delayed_take_even_certificate(4, first=True)
    assert _named_rule(_Family(first), get("delayed-take-even")) is None
    assert "opens" in _named_rule(_Family(dataclasses.replace(first, opening=False)), get("delayed-take-even"))


def test_bad_certificates_get_one_sentence():
    data = take_even_certificate(4).to_json()
    assert not check_data({**data, "claim": "something else"}).ok
    assert "whole number" in check_data({**data, "family": {**data["family"], "k": "4"}}).reason
    assert "offset" in check_data({**data, "responses": [{"rows": [0, None], "offset": [0, 5]}]}).reason
    assert "smallest board" in check_data({**data, "game": "9x9k4:gravity,misere"}).reason
    first = dataclasses.replace(take_even_certificate(4), player=Player.FIRST)
    assert "second player" in check(first).reason
    assert isinstance(InvariantCertificate.from_json(data), InvariantCertificate)


@pytest.mark.parametrize("k", [3, 4, 6])
def test_take_even_on_cylinders_from_width_k(k):
    cert = take_even_certificate(k, cylinder=True)
    verdict = check_data(cert.to_json())
    assert verdict.ok, verdict.reason
    assert cert.covers(k, k, 4, cylinder=True) and not cert.covers(k, k - 1, 4, cylinder=True)
    assert not cert.covers(k, 12, 4) and not take_even_certificate(k).covers(k, 12, 4, cylinder=True)
    # narrower cylinders: a line would wrap onto itself, so the checker refuses the family
    narrow = dataclasses.replace(cert, min_width=k - 1)
    assert "wrap onto itself" in check(narrow).reason


def test_a_family_of_tall_boards_is_checked_at_its_own_heights():
    # a family starting at height 10: the rows and heights checked reach past its smallest board
    tall = dataclasses.replace(take_even_certificate(4), min_height=10)
    assert check(tall).ok
    odd = dataclasses.replace(take_even_certificate(4), min_height=11)  # odd heights: the reply may leave the board
    assert not check(odd).ok
    data = take_even_certificate(4).to_json()
    assert "64" in check_data({**data, "family": {**data["family"], "min_height": 5000}}).reason


@pytest.mark.parametrize(("k", "first"), [(3, False), (3, True), (4, False), (4, True),
                                          pytest.param(6, False, marks=pytest.mark.slow),
                                          pytest.param(6, True, marks=pytest.mark.slow)])
def test_delayed_take_even_is_proven_for_its_whole_family(k, first):
    cert = delayed_take_even_certificate(k, first=first)
    data = cert.to_json()
    assert data["version"] == 2 and data["invariant"]["bottom_pairs"] is True
    verdict = check_data(data)
    assert verdict.ok, verdict.reason
    assert verdict.details["windows"] > 0 and verdict.details["small_positions"] > 0
    odd = 1 if first else 0  # the first player on odd widths, the second on even ones
    wide = 12 + odd
    assert cert.covers(k, wide, 11) and cert.covers(k, wide, 3) and not cert.covers(k, wide, 12)
    assert not cert.covers(k, wide + 1, 11) and not cert.covers(k, wide, 1)
    assert cert.player == (Player.FIRST if first else Player.SECOND)
    assert InvariantCertificate.from_json(data) == cert


def test_delayed_take_even_for_k_2_is_rejected():
    # with k = 2 the paired bottom row is not safe: two pairs (X O)(O X) put two of the second player's stones
    # side by side, and the local check finds it
    verdict = check(delayed_take_even_certificate(2))
    assert not verdict.ok and "direction (1, 0)" in verdict.reason and "row 1" in verdict.reason


def test_a_delayed_take_even_that_answers_wrongly_is_rejected():
    good = delayed_take_even_certificate(4)
    # a bottom-row stone answered on top of it: the reply lies on the opponent's row 2 (and the pair is left
    # half full)
    on_top = dataclasses.replace(good, responses=(Response(0, None, (0, 1)),))
    verdict = check(on_top)
    assert not verdict.ok and "after the reply: row 2 is not the strategist's" in verdict.reason, verdict.reason
    # a bottom-row stone answered one column to the right: wrong for a stone in a pair's right column
    beside = dataclasses.replace(good, responses=(Response(0, 0, (1, 0)), good.responses[1]))
    verdict = check(beside)
    assert not verdict.ok and "row 1" in verdict.reason, verdict.reason
    # a stone above the bottom row answered in the pair: a 'pair' reply is for the bottom row only
    verdict = check(dataclasses.replace(good, responses=(Response(0, None, "pair"),)))
    assert not verdict.ok and "bottom row only" in verdict.reason
    # the first player's strategy must open on the unpaired cell: without the opening it is refused
    verdict = check(dataclasses.replace(delayed_take_even_certificate(4, first=True), opening=False))
    assert not verdict.ok and "second player" in verdict.reason


def test_a_delayed_take_even_invariant_too_weak_is_rejected():
    good = delayed_take_even_certificate(4)
    # every height allowed: an opponent's stone on an even height lands on the strategist's row
    verdict = check(dataclasses.replace(good, heights=Pattern((True,), (True,))))
    assert not verdict.ok and "invariant does not hold" in verdict.reason
    # rows above the bottom swapped: the reply on row 2 lies on the opponent's row
    swapped = dataclasses.replace(good, owners=Pattern((None,), (Player.SECOND, Player.FIRST)))
    verdict = check(swapped)
    assert not verdict.ok and "invariant does not hold" in verdict.reason
    # without the pairs the bottom row has no owner at all
    verdict = check(dataclasses.replace(good, bottom_pairs=False, opening=False))
    assert not verdict.ok


def test_delayed_take_even_with_wrong_family_bounds_is_rejected():
    good = delayed_take_even_certificate(4)
    # widths from 2: a full 2-column board has no line of the opponent, the game may be drawn
    verdict = check(dataclasses.replace(good, min_width=2))
    assert not verdict.ok and "draw" in verdict.reason
    # heights from 1: the one-row board fills up with no line
    verdict = check(dataclasses.replace(good, min_height=1))
    assert not verdict.ok and "draw" in verdict.reason
    # every width: odd widths have an unpaired column nobody opened on
    verdict = check(dataclasses.replace(good, width_step=1))
    assert not verdict.ok and "even" in verdict.reason
    # odd widths for the second player: the unpaired cell would be the opponent's to take
    verdict = check(dataclasses.replace(good, min_width=5))
    assert not verdict.ok and "unpaired" in verdict.reason
    # even heights: the reply on top of a stone on the last row is off the board
    verdict = check(dataclasses.replace(good, min_height=4))
    assert not verdict.ok and "not a legal move" in verdict.reason


@pytest.mark.parametrize("k", [4, 5])
def test_delayed_take_even_on_cylinders(k):
    # new results on the annulus (the paper's open problem): the second player wins every odd height on even
    # widths >= k and, for k >= 4, the first player on odd widths >= 2k + 1
    for first in (False, True):
        cert = delayed_take_even_certificate(k, first=first, cylinder=True)
        assert cert.min_width == (2 * k + 1 if first else k + k % 2)
        verdict = check(cert)
        assert verdict.ok, verdict.reason
        assert cert.covers(k, cert.min_width + 10, 7, cylinder=True) and not cert.covers(k, cert.min_width, 7)
    # odd widths narrower than 2k + 1: the window would hold the seam twice, so the checker refuses the family
    narrow = dataclasses.replace(delayed_take_even_certificate(k, first=True, cylinder=True), min_width=2 * k - 1)
    assert "seam" in check(narrow).reason and "twice" in check(narrow).reason


def test_delayed_take_even_first_on_k_3_cylinders_is_rejected():
    # on a cylinder the unpaired column meets its neighbours across the seam: (O X)(X)(X O) is three in a row
    verdict = check(delayed_take_even_certificate(3, first=True, cylinder=True))
    assert not verdict.ok and "seam" in verdict.reason and "direction (1, 0)" in verdict.reason


def test_version_1_certificates_have_no_pairs():
    data = delayed_take_even_certificate(4).to_json()
    assert "version 2" in check_data({**data, "version": 1}).reason
    assert check_data(take_even_certificate(4).to_json()).ok  # still written and read as version 1
    assert take_even_certificate(4).to_json()["version"] == 1
    assert "opening" in check_data({**data, "opening": "leftmost"}).reason


def _declared_replies_win(cert: InvariantCertificate, w: int, h: int) -> bool:
    """Every game on the w x h board of the family, the strategist playing the declared replies: it always wins."""
    from kinarow.game import Game

    game = Game(f"{w}x{h}k{cert.k}:{cert.flags}")
    geometry, pos, seen = game.geometry, game.start(), set()
    winner = "first" if cert.player == Player.FIRST else "second"
    if cert.opening:
        pos.play(geometry.cell(w - 1, 0))

    def reply(x: int, y: int) -> int | None:
        offset = next(r.offset for r in cert.responses if r.holds(y))
        tx, ty = ((x ^ 1, 0) if y == 0 else (-1, -1)) if offset == "pair" else (x + offset[0], y + offset[1])
        if not (0 <= tx < w and 0 <= ty < h) or geometry.cell(tx, ty) not in pos.legal_moves():
            return None
        return geometry.cell(tx, ty)

    def walk() -> bool:
        if pos.key() in seen:
            return True
        seen.add(pos.key())
        for cell in pos.legal_moves():
            pos.play(cell)
            try:
                if pos.is_over:
                    if pos.result != winner:
                        return False
                    continue
                answer = reply(*geometry.xy(cell))
                if answer is None:
                    return False
                pos.play(answer)
                try:
                    if (pos.is_over and pos.result != winner) or (not pos.is_over and not walk()):
                        return False
                finally:
                    pos.undo()
            finally:
                pos.undo()
        return True

    return walk()


def test_every_certificate_the_windows_accept_wins_on_its_small_boards(monkeypatch):
    # Soundness, tested: mutate take-even's and delayed take-even's certificates (replies, patterns, family
    # bounds) at random; whenever the window checks alone accept one, its declared replies must win every game
    # of its small boards, walked with the plain rules
    import random

    import kinarow.proofs.invariant as invariant

    monkeypatch.setattr(invariant, "_small_boards", lambda fam: (0, None))  # the windows alone
    rng = random.Random(23)
    bases = [take_even_certificate(3), delayed_take_even_certificate(3), delayed_take_even_certificate(3, first=True),
             delayed_take_even_certificate(2)]  # false for k = 2, and only the line check sees it
    offsets = [(0, 1), (1, 0), (-1, 0), (1, 1), (0, 2), "pair"]
    accepted = 0
    for _ in range(60):
        cert = rng.choice(bases)
        change = rng.randrange(4)
        if change == 0:
            cert = dataclasses.replace(cert, responses=tuple(
                Response(r.low, r.high, rng.choice(offsets)) if rng.random() < 0.5 else r for r in cert.responses))
        elif change == 1:
            repeat = tuple(rng.random() < 0.5 for _ in range(rng.choice([1, 2, 3])))
            cert = dataclasses.replace(cert, heights=Pattern(cert.heights.prefix, repeat))
        elif change == 2:
            repeat = tuple(rng.choice([Player.FIRST, Player.SECOND]) for _ in range(rng.choice([1, 2])))
            cert = dataclasses.replace(cert, owners=Pattern(cert.owners.prefix, repeat))
        else:
            cert = dataclasses.replace(cert, min_width=max(1, cert.min_width + rng.choice([-2, -1, 1])),
                                       min_height=max(1, cert.min_height + rng.choice([-1, 1])),
                                       height_step=rng.choice([1, 2, 3]))
        if not check(cert).ok:
            continue
        accepted += 1
        for w in (cert.min_width, cert.min_width + cert.width_step):
            for h in (cert.min_height, cert.min_height + cert.height_step):
                if w * h <= 20:
                    assert _declared_replies_win(cert, w, h), (cert, w, h)
    assert accepted >= 5  # the mutants include sound ones (a taller or wider family, an equivalent pattern)
