"""Threat sequences in the proof search: the compiled search for a victory by continuous fours
(:func:`kinarow.engine.pns_kernel.vcf`) against a plain recursive one, its zones against plain minimax, the
proof search with and without it against the exact solver, and the strategy walks through its lines against
both checkers."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import numpy as np
import pytest

from helpers import reference_wins
from kinarow import Game, Position, solve
from kinarow import bitboards as W
from kinarow.engine import pns_kernel as P
from kinarow.search.proof_search import ProofSearcher
from kinarow.values import Goal, Value


def threats(masks: list[int], own: int, other: int) -> int:
    """The cells that complete a group of the player holding ``own`` (``other``: the opponent's stones)."""
    out = 0
    for m in masks:
        r = m & ~own
        if m & other == 0 and r and r & (r - 1) == 0:
            out |= r
    return out


def plain_vcf(masks: list[int], A: int, D: int, normal: bool) -> bool:
    """A victory by continuous fours, the attacker to move (neither side has a threat but maybe the defender's
    one), by the rules written out, every group read at every step."""
    dthr = threats(masks, D, A) if normal else 0
    if dthr.bit_count() > 1:
        return False
    fours = 0
    for m in masks:
        if m & D == 0 and (m & ~A).bit_count() == 2:
            fours |= m & ~A
    cand = fours & dthr if dthr else fours
    while cand:
        x = cand & -cand
        cand ^= x
        t = threats(masks, A | x, D)
        if t.bit_count() > 1:
            return True
        if t and plain_vcf(masks, A | x, D | t, normal):
            return True
    return False


class Kernel:
    """The compiled search's arguments for one game."""

    def __init__(self, text: str) -> None:
        self.game = Game(text)
        self.searcher = ProofSearcher(self.game, tt_mb=1)
        self.words = self.searcher.words
        self.masks = self.searcher.masks
        self.full = self.searcher.full
        self.cgroups = P.cell_groups(self.masks, self.game.cells)
        self.normal = self.game.goal != Goal.MAKER_BREAKER
        self.scratch = [P.images(self.game.cells + 2, self.full) for _ in range(6)]
        self.ctrl = np.zeros(P.N_CTRL, np.int64)
        self.vh = np.zeros(1 << 12, np.uint64)  # the positions without a sequence, shared by the calls
        self.ints = [sum(1 << c for c in g) for g in self.game.geometry.groups]

    def board(self, x: int) -> object:
        return W.to_board(x, self.words)

    def evaluate(self, A: int, D: int) -> tuple[int, int, bool]:
        status, _, moves, forced = P.evaluate(self.masks, None, self.board(A), self.board(D), self.full, True,
                                              self.normal)
        return int(status), W.from_board(moves), bool(forced)

    def vcf(self, A: int, D: int, budget: int = 10**6) -> int:
        _, moves, forced = self.evaluate(A, D)
        return int(P.vcf(self.masks, self.cgroups, self.board(A), self.board(D), self.full, self.normal,
                         self.board(moves), np.bool_(forced), budget, P.ALL, *self.scratch, self.vh, self.ctrl))

    def zones(self, levels: int, most: int) -> None:
        """The zones of the last line found again, for at most ``most - 1`` added stones."""
        P.vcf_zones(self.masks, self.cgroups, self.normal, levels, most, *self.scratch)

    def level(self, i: int) -> tuple[int, ...]:
        """(OR node's A, D, the attacker's stone, the block, the OR node's zone, the AND node's zone) of level i."""
        vA, vD, vC, vX, vT, vZ = self.scratch
        return tuple(W.from_board(W.get1(a, i)) for a in (vA, vD, vX, vT, vZ, vC))


def open_games(kernel: Kernel, seed: int, low: int, high: int) -> Iterator[tuple[Position, int, int]]:
    """Random positions after ``low`` to ``high - 1`` random moves, with the stones of the player to move and of
    the other, OPEN by the evaluation (Maker-Breaker: Maker to move)."""
    rng = random.Random(seed)
    while True:
        pos = kernel.game.start()
        for _ in range(rng.randrange(low, high)):
            if pos.is_over:
                break
            pos.play(rng.choice(pos.legal_moves()))
        if pos.is_over:
            continue
        A, D = pos.bits[pos.to_move], pos.bits[3 - pos.to_move]
        if kernel.game.goal == Goal.MAKER_BREAKER and pos.to_move != 1:
            continue
        if kernel.evaluate(A, D)[0] == P.OPEN:
            yield pos, A, D


def open_positions(kernel: Kernel, count: int, seed: int, most: int) -> list[tuple[int, int]]:
    """``count`` of :func:`open_games`' positions (the attacker's stones, the defender's), the attacker to move."""
    return [(A, D) for _, A, D in itertools.islice(open_games(kernel, seed, 2, most), count)]


@pytest.mark.parametrize(("text", "count", "most"), [("5x5k4", 150, 16), ("6x5k4", 120, 20), ("6x6k4", 120, 24),
                                                     ("5x5k4:maker-breaker", 100, 14), ("9x9k5", 80, 50),
                                                     ("12x11k5", 30, 90), ("15x15k5", 20, 140)])
def test_the_compiled_search_finds_what_the_plain_one_finds(text, count, most):
    # the same answer on one-, two- and four-word boards; each line found is a line of the rules: every stone
    # makes one threat, blocked at once, and the last makes two
    kernel = Kernel(text)
    found = 0
    for A, D in open_positions(kernel, count, seed=len(text) + count, most=most):
        levels = kernel.vcf(A, D)
        assert (levels > 0) == plain_vcf(kernel.ints, A, D, kernel.normal), (text, A, D)
        found += levels > 0
        for i in range(levels):
            a, d, x, t, _, _ = kernel.level(i)
            assert i > 0 or (a, d) == (A, D)
            made = threats(kernel.ints, a | x, d)
            if i == levels - 1:
                assert made.bit_count() >= 2 and t == 0
            else:
                assert made == t and kernel.level(i + 1)[:2] == (a | x, d | t)
    assert found >= 3 and found < count  # lines found, and not everywhere


@pytest.mark.parametrize("text", ["5x5k4", "6x5k4", "5x5k4:maker-breaker", "4x4k3"])
def test_the_zones_of_a_line_have_their_property(text):
    # (Q) at the line's first OR node and its AND node: whatever empty cells outside the zone the defender is
    # given, the attacker still wins (plain minimax)
    kernel = Kernel(text)
    rng = random.Random(3)
    full = (1 << kernel.game.cells) - 1
    checked = single = 0
    for A, D in open_positions(kernel, 600, seed=9, most=kernel.game.cells - 6):
        empty = full & ~(A | D)
        levels = kernel.vcf(A, D)
        if empty.bit_count() > 13 or levels <= 0:
            continue
        _, _, x, _, zone_or, zone_and = kernel.level(0)
        memo: dict = {}
        assert reference_wins(kernel.ints, A, D, True, kernel.normal, full, memo)
        for zone, attacker_moves, stones in ((zone_or, True, A), (zone_and, False, A | x)):
            outside = [c for c in range(kernel.game.cells) if (empty & ~x & ~zone) >> c & 1]
            for _ in range(3):
                S = sum(1 << c for c in outside if rng.random() < 0.6)
                assert reference_wins(kernel.ints, stones, D | S, attacker_moves, kernel.normal, full, memo), (
                    text, A, D, zone, S)
                checked += 1
        # the zones for one added stone (the cut of a threatened node's moves): every single stone outside
        kernel.zones(levels, most=2)
        _, _, x, _, zone_or, zone_and = kernel.level(0)
        for zone, attacker_moves, stones in ((zone_or, True, A), (zone_and, False, A | x)):
            for c in range(kernel.game.cells):
                if (empty & ~x & ~zone) >> c & 1:
                    assert reference_wins(kernel.ints, stones, D | 1 << c, attacker_moves, kernel.normal, full,
                                          memo), (text, A, D, zone, c)
                    single += 1
    assert checked >= 24 and single >= 24


@pytest.mark.parametrize("text", ["5x5k4", "6x5k4", "5x5k4:maker-breaker", "6x6k5"])
def test_the_search_with_and_without_threat_sequences_agrees_with_the_solver(text):
    from test_proof_search import random_positions

    game = Game(text)
    with_vcf = ProofSearcher(game, tt_mb=4)
    without = ProofSearcher(game, tt_mb=4, vcf=0)
    proofs = 0
    values = set()
    for pos in random_positions(text, 25, seed=17):
        expected = solve(pos, tt_mb=4, search="alpha-beta").value
        values.add(expected)
        for player in (1,) if game.goal == Goal.MAKER_BREAKER else (1, 2):
            wins = expected == Value.win(game.goal, player)
            for ps in (with_vcf, without):
                answer = ps.attacker_wins(pos, player)
                assert answer.wins == wins, (text, pos.move_text(), player, ps.params[P.R_VCF])
            proofs += int(with_vcf.ctrl[P.C_VCF_PROOFS])
            assert without.ctrl[P.C_VCF_TESTS] == 0
    assert proofs > 0 and len(values) >= 2


def line_position(text: str, seed: int, least: int) -> tuple[Position, int]:
    """A random position of ``text`` whose player to move wins by a line of ``least`` levels or more, and that
    player."""
    kernel = Kernel(text)
    for pos, A, D in open_games(kernel, seed, 10, kernel.game.cells // 2):
        if kernel.vcf(A, D) >= least:
            return pos, int(pos.to_move)
    raise AssertionError("unreachable")


@pytest.mark.parametrize("text", ["9x9k5", "12x10k5", "15x15k5"])
def test_a_walk_through_a_line_is_accepted_by_both_checkers(text):
    from kinarow.proofs import tree
    from kinarow.search.alphabeta import strategy_from_walk

    pos, winner = line_position(text, seed=5, least=3)
    ps = ProofSearcher(pos.game, tt_mb=8)
    answer = ps.attacker_wins(pos, winner)
    assert answer.wins is True and answer.nodes <= 10  # the line, from the root's test
    strategy = strategy_from_walk(pos, winner, ps.strategy_walk(pos, winner))
    compiled = tree.check(strategy, compiled=True)
    assert compiled.ok, compiled.reason
    assert tree.check(strategy).details == compiled.details


def test_a_zone_widened_near_keeps_two_cells_of_the_groups_with_few_empty_cells():
    # widen_near(most): every live group (of the player whose stones come first) with at most `most` empty cells
    # keeps two of them (or all) in the zone, and no cell is added for the other groups
    kernel = Kernel("9x9k5")
    for A, D in open_positions(kernel, 40, seed=6, most=40):
        empty = ((1 << kernel.game.cells) - 1) & ~(A | D)
        for most in (2, 3, int(P.ALL)):
            zone = W.from_board(P.widen_near(kernel.masks, kernel.board(A), kernel.board(D), kernel.board(0),
                                             np.int64(2), kernel.board(0), np.int64(most)))
            assert zone & ~empty == 0
            wanted = 0
            for m in kernel.ints:
                e = m & ~A
                if m & D == 0 and e.bit_count() <= most:
                    assert (e & zone).bit_count() >= min(2, e.bit_count())
                    wanted |= e
            assert zone & ~wanted == 0
        assert W.from_board(P.widen(kernel.masks, kernel.board(A), kernel.board(D), kernel.board(0), np.int64(2),
                                    kernel.board(0))) == zone  # most = ALL is widen


def test_the_budget_is_checked():
    from kinarow.errors import KinarowError

    for bad in (-1, 1.5, True, 10**10):
        with pytest.raises(KinarowError, match="vcf must be a whole number"):
            ProofSearcher("5x5k4", vcf=bad)


def test_a_walk_through_threatened_nodes_is_accepted_by_both_checkers():
    # a 9x9k5 position (20 random stones) that the attacker wins only by search: its walk passes through
    # defender nodes cut by a threat's zone for one stone, whose replies the walk asks again
    from kinarow.proofs import tree
    from kinarow.search.alphabeta import strategy_from_walk

    pos = Game("9x9k5").start()
    for cell in (33, 63, 21, 61, 69, 5, 37, 72, 13, 59, 9, 51, 10, 67, 2, 27, 80, 26, 55, 7):
        pos.play(cell)
    winner = int(pos.to_move)
    ps = ProofSearcher(pos.game, tt_mb=16)
    answer = ps.attacker_wins(pos, winner)
    assert answer.wins is True and answer.nodes > 1000
    assert ps.ctrl[P.C_VCF_PROOFS] > 0 and ps.ctrl[P.C_ZONE_PRUNED] > 0
    strategy = strategy_from_walk(pos, winner, ps.strategy_walk(pos, winner))
    compiled = tree.check(strategy, compiled=True)
    assert compiled.ok, compiled.reason
    assert tree.check(strategy).details == compiled.details
