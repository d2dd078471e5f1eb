"""Boards of more than 64 cells: the two-word bitboards (kinarow.bitboards) and the proof search on them.

The two-word kernel is checked three ways: its board operations against Python integers; on boards of at most
64 cells forced into two words, against the one-word kernel, statistic for statistic; and on boards of 68 and
112 cells, against plain minimax over the positions' few empty cells.
"""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from kinarow import bitboards as W
from kinarow.engine import extract_kernel as X
from kinarow.engine.tables import board_tables, words_for
from kinarow.errors import SolverLimitError
from kinarow.game import Game
from kinarow.position import Position
from kinarow.proofs import tree_kernel as TK
from kinarow.search.proof_search import ProofSearcher, proof_search_fit
from kinarow.values import Value

BITS = st.integers(min_value=0, max_value=(1 << 128) - 1)
CELL = st.integers(min_value=0, max_value=127)
BITS4 = st.integers(min_value=0, max_value=(1 << 256) - 1)
CELL4 = st.integers(min_value=0, max_value=255)


@njit(cache=True)
def _ops(a, b, c):  # type: ignore[no-untyped-def]
    """Every board operation once, compiled, for the form of ``a``."""
    cells = np.zeros(256, np.int64)
    n = 0
    rest = a
    while not W.is_zero(rest):
        cells[n] = W.low_index(rest)
        n += 1
        rest = W.drop_low(rest)
    return (W.band(a, b), W.bor(a, b), W.bxor(a, b), W.andnot(a, b), W.count(a), W.less(a, b), W.eq(a, b),
            W.low(a), W.single(a), W.has(a, c), W.bor(W.zero(a), W.bit(c, a)), W.byte(a, c // 8), cells[:n].copy())


def _operations_match(a: int, b: int, c: int, words: int) -> None:
    pa, pb = W.to_board(a, words), W.to_board(b, words)
    got = _ops(pa, pb, c)
    low = a & -a
    cells = [i for i in range(64 * words) if a >> i & 1]
    want = (a & b, a | b, a ^ b, a & ~b, bin(a).count("1"), a < b, a == b, low, a & (a - 1) == 0, bool(a >> c & 1),
            1 << c, a >> (8 * (c // 8)) & 255)
    assert [W.from_board(x) for x in got[:4]] == list(want[:4])
    assert (int(got[4]), bool(got[5]), bool(got[6])) == want[4:7]
    assert W.from_board(got[7]) == want[7] and bool(got[8]) == want[8] and bool(got[9]) == want[9]
    assert W.from_board(got[10]) == want[10] and int(got[11]) == want[11]
    assert got[12].tolist() == cells
    # the plain Python forms agree with the compiled ones
    assert [W.from_board(f(pa, pb)) for f in (W.band, W.bor, W.bxor, W.andnot)] == list(want[:4])
    assert W.count(pa) == want[4] and W.less(pa, pb) == want[5] and W.eq(pa, pb) == want[6]
    assert W.from_board(W.low(pa)) == low and W.single(pa) == want[8] and W.has(pa, c) == want[9]
    assert W.from_board(W.bit(c, pa)) == want[10] and W.byte(pa, c // 8) == want[11]
    assert W.nwords(pa) == words and W.is_zero(W.zero(pa)) and W.from_board(W.bnot(W.zero(pa))) == 2 ** (64 * words) - 1
    if a:
        assert W.low_index(pa) == cells[0] and W.from_board(W.drop_low(pa)) == a & (a - 1)


@settings(max_examples=200, deadline=None)
@given(BITS, BITS, CELL)
def test_two_word_operations_match_python_integers(a: int, b: int, c: int) -> None:
    _operations_match(a, b, c, 2)


@settings(max_examples=200, deadline=None)
@given(BITS4, BITS4, CELL4)
def test_four_word_operations_match_python_integers(a: int, b: int, c: int) -> None:
    _operations_match(a, b, c, 4)


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=3), st.integers(min_value=0, max_value=(1 << 64) - 1),
       st.integers(min_value=0, max_value=255))
def test_four_word_operations_on_one_word_of_cells(word: int, v: int, c: int) -> None:
    """Boards with all their cells in one of the four words (each word's edge met by the random integers
    rarely), and the same board a word up or down."""
    a = v << (64 * word)
    _operations_match(a, a >> 64 | 1 << 255, c, 4)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=(1 << 64) - 1), st.integers(min_value=0, max_value=(1 << 64) - 1),
       st.integers(min_value=0, max_value=63))
def test_one_word_operations_match_python_integers(a: int, b: int, c: int) -> None:
    got = _ops(np.uint64(a), np.uint64(b), c)
    assert [int(x) for x in got[:5]] == [a & b, a | b, a ^ b, a & ~b & (2**64 - 1), bin(a).count("1")]
    assert int(got[7]) == a & -a and bool(got[9]) == bool(a >> c & 1)
    assert got[12].tolist() == [i for i in range(64) if a >> i & 1]


@njit(cache=True)
def _moves(a, b, d):  # type: ignore[no-untyped-def]
    """The shifts and the addition, compiled, for the form of ``a``."""
    return W.shl(a, d), W.shr(a, d), W.add(a, b)


@settings(max_examples=300, deadline=None)
@given(BITS, BITS, st.integers(min_value=0, max_value=140))
def test_shifts_and_addition_carry_across_the_words(a: int, b: int, d: int) -> None:
    top = (1 << 128) - 1
    want = ((a << d) & top, a >> d, (a + b) & top)
    pa, pb = W.to_board(a, 2), W.to_board(b, 2)
    assert tuple(W.from_board(x) for x in _moves(pa, pb, d)) == want
    assert (W.from_board(W.shl(pa, d)), W.from_board(W.shr(pa, d)), W.from_board(W.add(pa, pb))) == want
    # four words: the same numbers with bits spread over the high pair as well
    a4, b4 = a | (a ^ b) << 128, b | a << 128
    top4 = (1 << 256) - 1
    for d4 in (d, d + 100):
        want4 = ((a4 << d4) & top4, a4 >> d4, (a4 + b4) & top4)
        qa, qb = W.to_board(a4, 4), W.to_board(b4, 4)
        assert tuple(W.from_board(x) for x in _moves(qa, qb, d4)) == want4
        assert (W.from_board(W.shl(qa, d4)), W.from_board(W.shr(qa, d4)), W.from_board(W.add(qa, qb))) == want4
    one = (1 << 64) - 1
    a1, b1 = a & one, b & one
    want1 = ((a1 << d) & one, a1 >> d, (a1 + b1) & one)
    assert tuple(int(x) for x in _moves(np.uint64(a1), np.uint64(b1), d)) == want1
    assert (int(W.shl(np.uint64(a1), d)), int(W.shr(np.uint64(a1), d)), int(W.add(np.uint64(a1), np.uint64(b1)))) \
        == want1


def test_the_bit_instructions() -> None:
    for x in (0, 1, 6, 1 << 63, (1 << 64) - 1, 0x8000_0001_0000_0000):
        assert W.popcount(np.uint64(x)) == bin(x).count("1")
        assert W.lowest_bit_index(np.uint64(x)) == ((x & -x).bit_length() - 1 if x else 64)


def test_board_arrays_and_tables() -> None:
    values = [0, 1, (1 << 64) - 1, 1 << 64, (1 << 128) - 1, 12345 << 70]
    arr = W.board_array(values, 2)
    assert arr.shape == (6, 2)
    assert [W.from_board(W.get1(arr, i)) for i in range(6)] == values
    values4 = [*values, (1 << 256) - 1, 7 << 190, 1 << 128]
    arr4 = W.board_array(values4, 4)
    assert arr4.shape == (9, 2, 2)
    assert [W.from_board(W.get1(arr4, i)) for i in range(9)] == values4
    assert W.board_ints(arr4, 9) == values4 and W.board_ints(arr, 6) == values and W.board_ints(arr, 0) == []
    assert W.board_ints(W.board_array([3, 2**64 - 1], 1), 2) == [3, 2**64 - 1]
    assert words_for(Game("16x4k4")) == 1 and words_for(Game("17x4k4")) == 2 and words_for(Game("28x4k4")) == 2
    tables = board_tables(Game("17x4k4"))
    assert tables.words == 2 and tables.masks.shape[1] == 2 and tables.symtab.shape[-1] == 2
    geo = Game("17x4k4").geometry
    assert [W.from_board(W.get1(tables.masks, g)) for g in range(len(geo.groups))] == [
        sum(1 << c for c in group) for group in geo.groups]
    assert words_for(Game("12x11k4")) == 4 and words_for(Game("16x16k5")) == 4
    tables4 = board_tables(Game("15x15k5"))
    assert tables4.masks.shape[1:] == (2, 2) and tables4.symtab.shape[-2:] == (2, 2)
    assert [W.from_board(W.get1(tables4.masks, g)) for g in range(len(Game("15x15k5").geometry.groups))] == [
        sum(1 << c for c in group) for group in Game("15x15k5").geometry.groups]
    with pytest.raises(SolverLimitError, match="at most 256 cells"):
        words_for(Game("17x16k4"))
    with pytest.raises(SolverLimitError, match="needs 2 words"):
        board_tables(Game("17x4k4"), words=1)
    assert proof_search_fit(Game("28x4k4"))
    assert proof_search_fit(Game("12x11k4")) and proof_search_fit(Game("16x16k5"))
    assert "at most 256 cells" in proof_search_fit(Game("17x16k4")).reason


@pytest.mark.parametrize("game", ["4x4k3", "5x5k4", "6x6k4", "7x5k4:maker-breaker", "5x4k4:maker-breaker"])
def test_two_words_search_as_one_word_on_small_boards(game: str) -> None:
    """Forced into two words, the search is the same search: the same answer, nodes, pairing leaves and zone."""
    rng = random.Random(game)
    positions = [Game(game).start()]
    for _ in range(3):
        pos = Game(game).start()
        for _ in range(rng.randrange(2, 6)):
            moves = pos.legal_moves()
            if pos.is_over or not moves:
                break
            pos.play(rng.choice(moves))
        if not pos.is_over:
            positions.append(pos)
    # the same number of table rows (a row is 8 words with one-word boards, 10 with two)
    one, two = ProofSearcher(game, words=1, tt_mb=8), ProofSearcher(game, words=2, tt_mb=10)
    assert two.words == 2 and one.words == 1
    for pos in positions:
        for attacker in (1, 2):
            a = one.attacker_wins(pos, attacker)
            b = two.attacker_wins(pos, attacker)
            assert (a.wins, a.nodes, a.expanded, a.pairing_tests, a.pairing_leaves, a.zone_pruned, a.zone) == (
                b.wins, b.nodes, b.expanded, b.pairing_tests, b.pairing_leaves, b.zone_pruned, b.zone)
            if b.wins is False and pos.to_move != attacker:
                assert one.disproved_move(pos, attacker) == two.disproved_move(pos, attacker)


@pytest.mark.parametrize("game", ["4x4k3", "6x6k4", "7x5k4:maker-breaker", "17x4k4"])
def test_four_words_search_as_two_words(game: str) -> None:
    """Forced into four words, the search is the two-word search: the same answer, nodes, pairing leaves and
    zone (the same number of table rows: 10 words a row with two-word boards, 16 with four)."""
    rng = random.Random(game)
    positions = [Game(game).start()]
    while len(positions) < 3:
        pos = Game(game).start()
        for _ in range(rng.randrange(2, 6)):
            pos.play(rng.choice(pos.legal_moves()))
            if pos.is_over:
                break
        if not pos.is_over:
            positions.append(pos)
    two, four = ProofSearcher(game, words=2, tt_mb=10), ProofSearcher(game, words=4, tt_mb=16)
    assert four.words == 4 and four.tt.shape[0] == two.tt.shape[0]
    for pos in positions:
        for attacker in (1, 2):
            a = two.attacker_wins(pos, attacker, max_nodes=200_000)
            b = four.attacker_wins(pos, attacker, max_nodes=200_000)
            assert (a.wins, a.nodes, a.expanded, a.pairing_tests, a.pairing_leaves, a.zone_pruned, a.zone) == (
                b.wins, b.nodes, b.expanded, b.pairing_tests, b.pairing_leaves, b.zone_pruned, b.zone)
            if b.wins is False and pos.to_move != attacker:
                assert two.disproved_move(pos, attacker) == four.disproved_move(pos, attacker)
            if b.wins is not None and (attacker == 1 or Game(game).goal != "maker-breaker"):
                assert two.known_children(*_stones(pos, attacker), attacker) == \
                    four.known_children(*_stones(pos, attacker), attacker)


def _stones(pos: Position, attacker: int) -> tuple[int, int]:
    bits = pos.key()
    return bits[attacker - 1], bits[2 - attacker]


def _filled(game: Game, cells: range, rng: random.Random) -> Position | None:
    """A position of ``game`` (four rows high) with a few empty cells among ``cells`` and the others taken in a
    pattern with no four in a row ((column // 2 + row) even: Black), a few stones near the empty cells of the
    other colour, either side to move; None when the stone counts are not legal or a group is complete."""
    n = game.n
    colour = {c: (c // n // 2 + c % n) % 2 for c in range(game.cells)}
    empty = set(rng.sample(list(cells), k=min(len(cells), 10) - rng.randrange(0, 3)))
    near = {c // n + d for c in empty for d in (-1, 0, 1)}
    for c in range(game.cells):
        if c // n in near and rng.random() < 0.15:
            colour[c] ^= 1
    black = [c for c in range(game.cells) if c not in empty and colour[c] == 0]
    white = [c for c in range(game.cells) if c not in empty and colour[c] == 1]
    if len(black) - len(white) not in (0, 1):
        return None
    pos = game.start()
    for i in range(len(black) + len(white)):
        pos.play(black[i // 2] if i % 2 == 0 else white[i // 2])
        if pos.is_over:
            return None
    return pos


def _minimax_first_wins(pos: Position) -> bool:
    """Can the first player force a win? Plain memoised minimax over the empty cells."""

    @cache
    def wins(key: tuple[int, int]) -> bool:
        if p.result is not None:
            return p.result == Value.FIRST
        moves = p.legal_moves()
        if not moves:
            return False
        results = []
        for c in moves:
            p.play(c)
            results.append(wins(p.key()))
            p.undo()
            if results[-1] == (p.to_move == 1):
                break
        return any(results) if p.to_move == 1 else all(results)

    p = pos.copy()
    return wins(p.key())


@pytest.mark.parametrize("name, cells", [("17x4k4", range(52, 68)), ("28x4k4", range(0, 112, 12)),
                                         ("17x4k4", range(0, 68, 8)), ("36x4k4", range(120, 144, 2)),
                                         ("36x4k4", range(0, 144, 14)), ("64x4k4", range(180, 256, 7))])
def test_wide_board_search_agrees_with_minimax(name: str, cells: range) -> None:
    """Positions of 68- to 256-cell boards with their empty cells in two or all four words, against plain
    minimax."""
    game = Game(name)
    rng = random.Random(f"{name}{cells}")
    searcher = ProofSearcher(game, tt_mb=8)
    assert searcher.words == (2 if game.cells <= 128 else 4)
    seen = {True: 0, False: 0}
    tried = 0
    while sum(seen.values()) < 12 and tried < 400:
        tried += 1
        pos = _filled(game, cells, rng)
        if pos is None:
            continue
        want = _minimax_first_wins(pos)
        got = searcher.attacker_wins(pos, 1).wins
        assert got == want, pos.move_text()
        seen[want] += 1
    assert min(seen.values()) >= 2, seen  # both answers were met


@pytest.mark.parametrize("name", ["17x4k3", "15x15k3", "16x16k3"])
def test_wide_board_search_from_the_start(name: str) -> None:
    """(m,n,3): the first player wins at once on any board this wide; the search says so on 68 to 256 cells."""
    game = Game(name)
    answer = ProofSearcher(game, tt_mb=8).attacker_wins(game.start(), 1)
    assert answer.wins is True and answer.zone is not None
    assert ProofSearcher(game, tt_mb=8).attacker_wins(game.start(), 2).wins is False


@pytest.mark.parametrize("name", ["17x4k3", "28x4k3", "9x8k4:maker-breaker", "12x11k3", "16x16k3",
                                  "15x9k3:maker-breaker"])
def test_wide_board_strategies_check(name: str) -> None:
    """A win on a board of more than 64 cells: the proof tree read from the table, as a walk, VALID by both
    checkers (the compiled walk on two- or four-word bitboards, and the rules in Python); a wrong move is
    refused."""
    from kinarow.engine import extract_kernel as X
    from kinarow.proofs import tree

    game = Game(name)
    assert X.walk_inputs(game)[1][0] == X.FINGER  # the walk keys these boards by a one-word fingerprint
    searcher = ProofSearcher(game, tt_mb=16)
    assert searcher.words == (2 if game.cells <= 128 else 4)
    assert searcher.attacker_wins(game.start(), 1).wins is True
    walk = searcher.strategy_walk(game.start(), 1)
    strategy = tree.StrategyTree(str(game), [], Value.win(game.goal, 1), walk=walk)
    for compiled in (True, False):
        verdict = tree.check(strategy, compiled=compiled)
        assert verdict.ok, verdict.reason
    bad = bytearray(walk)
    bad[0] = (bad[0] + 1) % game.cells
    wrong = tree.StrategyTree(str(game), [], strategy.winner, walk=bytes(bad))
    assert [tree.check(wrong, compiled=c).ok for c in (True, False)] == [False, False]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=72, max_size=72), st.integers(0, 71))
def test_the_walks_fingerprint_tells_positions_apart(cells: list[int], flip: int) -> None:
    """The walk's one-word key of a two-word board is never 0 (the empty slot), and changing one cell changes it
    (a collision would only cost a certificate -- the checkers key exactly -- but it should be rare)."""
    from kinarow.engine import extract_kernel as X

    def key(cs: list[int]) -> tuple[int, ...]:
        x = sum(1 << c for c, v in enumerate(cs) if v == 1)
        o = sum(1 << c for c, v in enumerate(cs) if v == 2)
        pair = lambda b: (np.uint64(b & (2**64 - 1)), np.uint64(b >> 64))  # noqa: E731
        kt = np.zeros((1, 256), np.uint64)
        return tuple(int(w) for w in X._seen_key_two(pair(x), pair(o), X.FINGER, 72, 4, kt))

    k = key(cells)
    assert k[0] != 0 and k[1:] == (0, 0, 0)
    other = list(cells)
    other[flip] = (other[flip] + 1) % 3
    assert key(other)[0] != k[0]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=225, max_size=225), st.integers(0, 224))
def test_the_walks_fingerprint_of_a_four_word_board(cells: list[int], flip: int) -> None:
    """The same on boards of more than 128 cells (15 x 15): eight words folded into one."""
    from kinarow.engine import extract_kernel as X

    def key(cs: list[int]) -> tuple[int, ...]:
        x = W.to_board(sum(1 << c for c, v in enumerate(cs) if v == 1), 4)
        o = W.to_board(sum(1 << c for c, v in enumerate(cs) if v == 2), 4)
        return tuple(int(w) for w in X._seen_key_four(x, o, X.FINGER, 225, 15, np.zeros((1, 256), np.uint64)))

    k = key(cells)
    assert k[0] != 0 and k[1:] == (0,) * 7
    other = list(cells)
    other[flip] = (other[flip] + 1) % 3
    assert key(other)[0] != k[0]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([68, 80, 81, 112, 120, 121, 128, 129, 225, 256]), st.data())
def test_the_checkers_wide_keys_are_exact(size: int, data: st.DataObject) -> None:
    """The compiled checker's key of a board of more than 64 cells (base 3 by blocks of 40 cells, two or three
    words; four raw words past 120 cells, eight past 128) is a different key for every different position, and
    never has a 0 in its last used word (the empty slot's mark) but where White holds the whole top word of a
    128- or 256-cell board (not drawn here: see the kernel's notes)."""
    from kinarow.proofs import tree_kernel as TK

    kind, kt = TK.table_plan(size, 4, False)
    assert kind == (TK.BASE3_2 if size <= 80 else TK.BASE3_3 if size <= 120 else TK.WIDE2 if size <= 128
                    else TK.WIDE4)
    words = W.words_for_cells(size)
    width = TK.new_table(kind).shape[1]
    cells = st.lists(st.integers(0, 2), min_size=size, max_size=size)
    a = data.draw(cells)
    b = data.draw(st.one_of(st.just(a), cells, st.builds(lambda i, v: [*a[:i], v, *a[i + 1:]],
                                                             st.integers(0, size - 1), st.integers(0, 2))))

    def key(cs: list[int]) -> tuple[int, ...]:
        x = sum(1 << c for c, v in enumerate(cs) if v == 1)
        o = sum(1 << c for c, v in enumerate(cs) if v == 2)
        packed = tuple(int(w) for w in TK.pack(W.to_board(x, words), W.to_board(o, words), kind, size, 4, kt))
        assert packed[width - 1] != 0 and all(w == 0 for w in packed[width:])
        return packed

    assert (key(a) == key(b)) == (a == b)


def test_a_two_word_board_is_the_integer_it_came_from_in_every_thread() -> None:
    """to_board writes the words through a scratch array of the thread's own: each board read back is the
    integer given, also with threads converting at once."""
    import random
    import threading

    from kinarow.bitboards import from_board, to_board

    bad: list[int] = []

    def convert(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(3000):
            x = rng.getrandbits(rng.randint(1, 128))
            if from_board(to_board(x, 2)) != x or from_board(to_board(x & (2**64 - 1), 1)) != x & (2**64 - 1):
                bad.append(x)

    threads = [threading.Thread(target=convert, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert bad == []


@njit(cache=True)
def _compiled_keys(x, o, size, kt):  # type: ignore[no-untyped-def]
    return TK.finger(x, o), X.seen_key(x, o, X.FINGER, size, 5, kt)[0]


@pytest.mark.parametrize(("words", "size"), [(1, 40), (2, 100), (4, 225)])
def test_the_fingerprints_plain_python_forms_are_the_compiled_ones(words: int, size: int) -> None:
    """The walk's fingerprints called from Python (each form's own function) give what the compiled kernels give."""
    kt = np.zeros((1, 256), np.uint64)
    x, o = W.to_board(5 | 1 << (size - 1), words), W.to_board(10 << (size - 8), words)
    finger, seen = _compiled_keys(x, o, size, kt)
    assert int(TK.finger(x, o)) == int(finger) != 0
    if words > 1:  # one-word boards key the walk by the checker's own key, not a fingerprint
        assert int(X.seen_key(x, o, X.FINGER, size, 5, kt)[0]) == int(seen) != 0
