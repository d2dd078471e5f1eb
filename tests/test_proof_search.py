"""The proof search (df-pn with pairing leaves and relevance zones) against the exact solver.

Every small free board from the empty board, in normal play and as a
Maker-Breaker game, and positions in the middle of games (random legal
prefixes, fixed seeds): both questions ("can the first player win?", "can
the second?") must agree with :func:`kinarow.solve`, with the zones and the
pairing leaves on and off.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from helpers import reference_wins
from kinarow import Game, Position, solve
from kinarow.engine import pns_kernel as P
from kinarow.errors import KinarowError, SolverLimitError
from kinarow.search.proof_search import ProofSearcher, attacker_wins, inverse_symmetries, proof_search_fit, prove
from kinarow.values import Goal, Value

_SEARCHERS: dict[tuple[str, bool, bool], ProofSearcher] = {}


def searcher(game: Game, zones: bool = True, knowledge: bool = True) -> ProofSearcher:
    key = (str(game), zones, knowledge)
    if key not in _SEARCHERS:
        _SEARCHERS[key] = ProofSearcher(game, tt_mb=4, zones=zones, knowledge=knowledge)
    return _SEARCHERS[key]


def check(pos: Position, zones: bool = True, knowledge: bool = True) -> Value:
    """Both questions of ``pos`` by proof search against the solver's value; returns the value."""
    expected = solve(pos, tt_mb=4, search="alpha-beta").value
    ps = searcher(pos.game, zones, knowledge)
    where = f"{pos.game} after '{pos.move_text()}'"
    for player in (1, 2):
        answer = ps.attacker_wins(pos, player)
        assert answer.wins is not None, where
        wins = expected == Value.win(pos.game.goal, player)
        assert answer.wins == wins, f"{where}: player {player} wins? proof search {answer.wins}, solver {expected}"
    proved = prove(pos, searcher=ps)
    assert proved.value == expected, f"{where}: prove() says {proved.value}, the solver {expected}"
    return expected


SMALL = [f"{m}x{n}k{k}" for m in range(3, 6) for n in range(3, m + 1) for k in (3, 4) if (m, n) != (5, 5) or k == 4]


@pytest.mark.parametrize("text", SMALL)
@pytest.mark.parametrize("goal", ["", ":maker-breaker"])
def test_empty_board(text, goal):
    check(Game(text + goal).start())


@pytest.mark.parametrize("text", ["4x4k4:torus", "3x3k3:hex", "4x3k3:cylinder", "5x4k4:maker-breaker"])
def test_other_geometries(text):
    check(Game(text).start())


def random_positions(text: str, count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    game = Game(text)
    out = []
    while len(out) < count:
        pos = game.start()
        for _ in range(rng.randrange(1, game.cells - 2)):
            if pos.is_over:
                break
            pos.play(rng.choice(pos.legal_moves()))
        out.append(pos)
    return out


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("4x4k3", 40),
        ("4x4k4", 40),
        ("5x4k4", 40),
        ("5x5k4", 25),
        ("4x4k4:maker-breaker", 40),
        ("5x4k4:maker-breaker", 30),
        ("5x5k4:maker-breaker", 20),
        ("4x4k4:torus", 20),
        ("6x5k4", 8),
        ("6x6k5", 12),
        ("7x6k5", 6),
    ],
)
def test_positions_in_play(text, count):
    values = {check(pos) for pos in random_positions(text, count, seed=len(text) * 7 + count)}
    assert len(values) >= 2  # more than one outcome, so a constant answer could not pass


@pytest.mark.parametrize(("zones", "knowledge"), [(False, True), (True, False), (False, False)])
def test_without_zones_or_pairings(zones, knowledge):
    for pos in [*random_positions("5x4k4", 15, seed=5), Game("4x4k4").start()]:
        check(pos, zones, knowledge)


def test_every_position_of_3x3():
    for text in ("3x3k3", "3x3k3:maker-breaker"):
        game = Game(text)
        seen: set[tuple[int, int]] = set()
        stack = [game.start()]
        while stack:
            pos = stack.pop()
            if pos.key() in seen:
                continue
            seen.add(pos.key())
            check(pos)
            for cell in pos.legal_moves():
                child = pos.copy()
                child.play(cell)
                stack.append(child)
        assert len(seen) > 4000


def test_zones_prune_and_the_root_zone_is_kept():
    ps = ProofSearcher("5x5k4", tt_mb=4)
    answer = ps.attacker_wins(Game("5x5k4").start(), 1)
    assert answer.wins is False
    assert answer.zone is not None and answer.zone > 0
    assert answer.pairing_leaves > 0


def test_budget_and_arguments():
    game = Game("6x6k5")
    ps = ProofSearcher(game, tt_mb=1)
    answer = ps.attacker_wins(game.start(), 1, max_nodes=5)
    assert answer.wins is None
    assert prove(game, max_nodes=5, searcher=ps).value == Value.UNKNOWN
    with pytest.raises(KinarowError):
        ps.attacker_wins(Game("5x5k4").start(), 1)
    for bad in (3, True, "1"):
        with pytest.raises(KinarowError):
            ps.attacker_wins(game.start(), bad)
    for limits in ({"max_nodes": 0}, {"max_nodes": 1.5}, {"time_limit": -1.0}, {"time_limit": float("nan")}):
        with pytest.raises(KinarowError):
            ps.attacker_wins(game.start(), 1, **limits)
    for options in ({"tt_mb": 0}, {"zones": 1}, {"eager": -1}, {"pair_budget": 2.5}, {"heuristic": 4}):
        with pytest.raises(KinarowError):
            ProofSearcher(game, **options)
    for text in ("7x6k4:gravity", "3x3k3:misere", "6x6k4p2q1", "17x16k5"):
        assert not proof_search_fit(Game(text))
        with pytest.raises(SolverLimitError):
            ProofSearcher(text)
    over = Game("3x3k3").position("a1 b1 a2 b2 a3")
    assert over.is_over
    assert attacker_wins(over, 1) is True
    assert attacker_wins(over, 2) is False


def test_maker_breaker_questions_are_one():
    pos = Game("4x4k3:maker-breaker").start()
    ps = ProofSearcher(pos.game, tt_mb=1)
    assert ps.attacker_wins(pos, 1).wins is True
    assert ps.attacker_wins(pos, 2).wins is False
    assert prove(pos, searcher=ps).value == Value.MAKER
    assert Game("4x4k3:maker-breaker").goal == Goal.MAKER_BREAKER


def test_inverse_symmetries():
    perms = np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1]])
    assert list(inverse_symmetries(perms)) == [0, 2, 1]
    assert inverse_symmetries(np.array([[0, 1, 2], [1, 2, 0]])) is None


def test_widen_keeps_two_cells_per_group():
    masks = np.array([0b0111, 0b1110], np.uint64)
    zone = P.widen(masks, np.uint64(0), np.uint64(0), np.uint64(0b0001), 2, np.uint64(0))
    for g in masks:
        assert bin(int(g) & int(zone)).count("1") >= 2


@pytest.mark.parametrize("text", ["5x5k4", "5x5k4:maker-breaker", "7x7k5", "17x4k4"])
def test_a_childs_evaluation_from_its_parents_tally_is_the_full_evaluation(text):
    from kinarow import bitboards as W

    searcher = ProofSearcher(text, tt_mb=1)
    game, words = searcher.game, searcher.words
    normal = searcher.params[P.R_GOAL] == P.NORMAL
    groups = P.cell_groups(searcher.masks, game.cells)
    acnt = np.zeros(game.cells, np.int64)
    dcnt = np.zeros(game.cells, np.int64)
    rng = random.Random(text)
    group_ints = [W.from_board(W.get1(searcher.masks, i)) for i in range(searcher.masks.shape[0])]
    children = settled = 0
    for _ in range(150):
        cells = rng.sample(range(game.cells), rng.randrange(game.cells))
        a = sum(1 << c for c in cells[0::2])
        d = sum(1 << c for c in cells[1::2])
        A, D = W.to_board(a, words), W.to_board(d, words)
        for is_or in (True, False):
            status, _zone, moves, _forced = P.evaluate(searcher.masks, None, A, D, searcher.full, is_or, normal)
            if status != P.OPEN:
                continue
            score = np.zeros(game.cells, np.float64)
            cand, nlive = P.tally(searcher.masks, None, A, D, normal, acnt, dcnt, score)
            cand = W.to_board(W.from_board(cand), words)
            a_, d_ = W.from_board(A), W.from_board(D)  # the move order's weights, by the rule written out
            weights = [0.0] * game.cells
            for m in group_ints:
                empty = m & ~(a_ | d_)
                both = normal and m & (a_ | d_) == 0
                if m & d_ == 0 or (normal and m & a_ == 0):
                    for c in (c for c in range(game.cells) if empty >> c & 1):
                        weights[c] += (2.0 if both else 1.0) / 2 ** bin(empty).count("1")
            assert list(score) == weights, (text, a, d)
            before = (acnt.copy(), dcnt.copy())
            for c in (c for c in range(game.cells) if W.from_board(moves) >> c & 1):
                bit = W.to_board(1 << c, words)
                A1, D1 = (W.bor(A, bit), D) if is_or else (A, W.bor(D, bit))
                want = P.evaluate(searcher.masks, None, A1, D1, searcher.full, not is_or, normal)
                got = P.evaluate_child(
                    searcher.masks, None, groups, A, D, searcher.full, is_or, normal, c, cand, nlive, acnt, dcnt
                )
                plain = [(int(x[0]), W.from_board(x[1]), W.from_board(x[2]), bool(x[3])) for x in (want, got)]
                assert plain[0] == plain[1], (text, a, d, is_or, c)
                children += 1
                settled += want[0] != P.OPEN
            assert all((x == y).all() for x, y in zip(before, (acnt, dcnt), strict=True))  # the tally is kept
    assert children > 1000 and settled > 10  # both kinds of children were met


@pytest.mark.parametrize("text", ["5x4k4", "5x4k4:maker-breaker", "4x4k4", "5x5k4", "5x5k4:maker-breaker"])
def test_zones_have_their_property(text):
    """(P): the attacker still cannot win once any empty cells outside the root's zone are given to it; and
    (Q): an attacker that wins still wins once any empty cells outside the zone are given to the defender."""
    game = Game(text)
    masks = [sum(1 << c for c in g) for g in game.geometry.groups]
    full = (1 << game.cells) - 1
    normal = game.goal != Goal.MAKER_BREAKER
    rng = random.Random(11)
    ps = ProofSearcher(game, tt_mb=4)
    checked = {False: 0, True: 0}  # additions of at least one stone, to a "no" and to a "yes"
    for pos in random_positions(text, 200, seed=12):
        empty_cells = [c for c in range(game.cells) if pos.board[c] == 0]
        if pos.is_over or not 4 <= len(empty_cells) <= 11:
            continue
        for attacker in (1, 2) if normal else (1,):
            answer = ps.attacker_wins(pos, attacker)
            assert answer.zone is not None
            A, D = pos.bits[attacker], pos.bits[3 - attacker]
            attacker_moves = pos.to_move == attacker
            outside = [c for c in empty_cells if not answer.zone >> c & 1]
            memo: dict = {}
            for _ in range(4):
                S = sum(1 << c for c in outside if rng.random() < 0.6)
                if S == 0:
                    continue
                if answer.wins:
                    still = reference_wins(masks, A, D | S, attacker_moves, normal, full, memo)
                else:
                    still = not reference_wins(masks, A | S, D, attacker_moves, normal, full, memo)
                assert still, f"{game} after '{pos.move_text()}', attacker {attacker} wins? {answer.wins}: " + (
                    f"zone {answer.zone:#x}, added {S:#x}"
                )
                checked[answer.wins] += 1
    assert min(checked.values()) >= 20


@pytest.mark.parametrize("text", ["4x4k3", "5x4k4", "5x3k3"])
def test_cells_given_to_the_defender_at_once(text):
    """A position where the defender, to move, is given several cells at once (the attacker then to move) is
    answered as plain minimax answers it, whatever positions of ordinary play the table holds; and a win there is
    a win after each single reply among the given cells (the fact that lets one proof stand for them all)."""
    game = Game(text)
    masks = [sum(1 << c for c in g) for g in game.geometry.groups]
    full = (1 << game.cells) - 1
    rng = random.Random(5)
    ps = ProofSearcher(game, tt_mb=4)
    seen = {False: 0, True: 0}
    for pos in random_positions(text, 150, seed=6):
        empty_cells = [c for c in range(game.cells) if pos.board[c] == 0]
        if pos.is_over or not 3 <= len(empty_cells) <= 10:
            continue
        attacker = 3 - pos.to_move
        ps.attacker_wins(pos, attacker)  # the table holds ordinary positions with the same stones too
        A, D = pos.bits[attacker], pos.bits[3 - attacker]
        memo: dict = {}
        for _ in range(3):
            given = rng.sample(empty_cells, rng.randint(1, min(4, len(empty_cells) - 1)))
            S = sum(1 << c for c in given)
            wins = ps.attacker_wins(pos, attacker, given=given).wins
            assert wins == reference_wins(masks, A, D | S, True, True, full, memo), (pos.move_text(), given)
            seen[wins] += 1
            if wins:
                for y in given:
                    assert reference_wins(masks, A, D | 1 << y, True, True, full, memo), (pos.move_text(), given, y)
    assert min(seen.values()) >= 10


def test_given_cells_are_checked():
    ps = ProofSearcher("4x4k3", tt_mb=4)
    pos = Game("4x4k3").position("a1")
    for given, said in ((["a2"], "an empty cell"), ([0], "an empty cell"), ([1, 1], "distinct"), ("12", "a list")):
        with pytest.raises(KinarowError, match=said):
            ps.attacker_wins(pos, 1, given=given)
    with pytest.raises(KinarowError, match="here the attacker is to move"):
        ps.attacker_wins(pos, 2, given=[1])
    assert ps.attacker_wins(pos, 1, given=[4, 5, 6]).wins is False  # the given cells complete b1-b3
    game = Game("4x4k3:maker-breaker")
    with pytest.raises(KinarowError, match="normal game"):
        ProofSearcher(game, tt_mb=4).attacker_wins(game.position("a1"), 1, given=[1])
    with pytest.raises(KinarowError, match="Maker"):
        ProofSearcher(game, tt_mb=4).attacker_wins_stones(2, 1, 2)
    for args, extra, said in (((1 << 16, 0, 1), 0, "bitmask of the board's 16 cells"), ((1, 1, 1), 0, "share a cell"),
                              ((1, 6, 1), 0, "not a position of play"), ((1, 6, 1), -1, "a count"),
                              ((1, 0, 3), 0, "player 1 or 2")):
        with pytest.raises(KinarowError, match=said):
            ps.attacker_wins_stones(*args, extra=extra)
    wide = ProofSearcher("17x4k4", tt_mb=4)  # two-word boards too
    assert wide.attacker_wins(Game("17x4k4").position("a1"), 1, given=[4, 5, 6, 7]).wins is False
    assert wide.attacker_wins_stones(1 << 67, 1 << 66 | 1 << 65, 1, extra=1, max_nodes=10).wins is None
    # the same question asked by stones: b1, b2 and b3 given to the second player after a1 (cells 4, 5, 6)
    assert ps.attacker_wins_stones(1, 0b1110000, 1, extra=2).wins is False
    assert ps.attacker_wins_stones(1, 0b1100000, 1, extra=1).wins == ps.attacker_wins(pos, 1, given=[5, 6]).wins


def winning_positions(text: str, count: int, seed: int) -> list[tuple[Position, int]]:
    """Positions of ``text`` won by the side that can force it (alpha-beta's value), with that player."""
    out = []
    for pos in random_positions(text, 6 * count, seed):
        if pos.is_over:
            continue
        value = solve(pos, tt_mb=4, search="alpha-beta").value
        if value.stone is not None and value != Value.BREAKER:  # Breaker wins by blocking: no group to prove
            out.append((pos, value.stone))
        if len(out) == count:
            break
    return out


@pytest.mark.parametrize(("text", "count"), [("4x4k3", 12), ("5x4k4", 10), ("5x5k4", 8), ("6x5k4", 3),
                                             ("5x4k4:maker-breaker", 8)])
@pytest.mark.parametrize("tt_mb", [4, 0.01])
def test_the_strategy_walk_from_the_table_wins_against_every_reply(text, count, tt_mb):
    # the proof tree read from the table (one proved move at the winner's turns, every reply at the loser's) is
    # a strategy the rules-only checkers accept, both walks alike; with a table of a few rows most proofs are
    # evicted and asked again, which the walk does itself
    from kinarow.proofs import tree
    from kinarow.search.alphabeta import strategy_from_walk as _walk_tree

    cases = winning_positions(text, count, seed=len(text) + count)
    assert {winner for _, winner in cases} == {1, 2} or text.endswith("maker-breaker")
    for pos, winner in cases:
        ps = ProofSearcher(pos.game, tt_mb=tt_mb)
        assert ps.attacker_wins(pos, winner).wins is True
        walk = ps.strategy_walk(pos, winner)
        strategy = _walk_tree(pos, winner, walk)
        where = f"{pos.game} after '{pos.move_text()}'"
        compiled = tree.check(strategy, compiled=True)
        assert compiled.ok, f"{where}: {compiled.reason}"
        assert tree.check(strategy).details == compiled.details, where


def test_a_walk_from_a_position_the_winner_cannot_win_is_refused():
    ps = ProofSearcher("4x4k4", tt_mb=4)
    with pytest.raises(KinarowError, match="proves no move of the winner"):
        ps.strategy_walk(Game("4x4k4").start(), 1)
    with pytest.raises(KinarowError, match="player 1 or 2"):
        ps.strategy_walk(Game("4x4k4").start(), 3)
    with pytest.raises(KinarowError, match="Maker's wins only"):
        ProofSearcher("4x4k4:maker-breaker", tt_mb=4).strategy_walk(Game("4x4k4:maker-breaker").start(), 2)


def test_solve_with_the_proof_search_writes_a_wins_strategy_from_its_table():
    from kinarow.proofs import tree

    result = solve("6x5k4", search="proof", strategy=True, walk=True, tt_mb=16)
    assert (result.value, result.search) == (Value.FIRST, "proof-number search")
    assert result.walk_nodes is not None and result.walk_seconds is not None
    assert result.to_dict()["walk_nodes"] == result.walk_nodes
    assert tree.check(result.strategy, compiled=True).ok
    breaker = solve("5x4k4:maker-breaker", search="proof", strategy=True, walk=True, tt_mb=16)
    assert breaker.value == Value.BREAKER and tree.check(breaker.strategy, compiled=True).ok  # by alpha-beta
    draw = solve("5x5k4", search="proof", strategy=True, tt_mb=16)
    assert draw.value == Value.DRAW and draw.strategy is None and draw.walk_nodes is None


# -- the kept table: a long search resumes where it stopped ----------------------------------------------------
def test_a_kept_table_resumes_the_search(tmp_path):
    from kinarow.search.proof_search import load_table

    path = str(tmp_path / "t.npz")
    game = Game("6x6k4")
    fresh = ProofSearcher(game, tt_mb=1).attacker_wins(game.start(), 1)
    first = ProofSearcher(game, tt_mb=1)
    first.keep_table(path, seconds=0.01)  # a write after (nearly) every poll: many slices
    stopped = first.attacker_wins(game.start(), 1, max_nodes=3000)
    assert stopped.wins is None and stopped.stopped == "node limit" and stopped.nodes >= 3000
    again = ProofSearcher(game, tt_mb=1)
    again.keep_table(path)
    assert again.table_nodes == stopped.nodes
    answer = again.attacker_wins(game.start(), 1)
    assert answer.wins is fresh.wins is True
    tt, nodes, seconds = load_table(path, again)
    assert nodes == stopped.nodes + answer.nodes and seconds > 0 and (tt == again.tt).all()
    done = ProofSearcher(game, tt_mb=1)
    done.keep_table(path)
    assert done.attacker_wins(game.start(), 1).nodes <= 2  # the root is proved in the kept table


def test_a_slice_stop_polled_twice_is_still_a_slice(tmp_path, monkeypatch):
    """On a busy machine the waiting thread may poll again before the kernel has seen the stop that ends a slice
    of a kept-table search; that must still read as the slice's end, not as the end of the search (a CI run
    found a search stopped at 2,049 nodes of a 3,000-node budget)."""
    from kinarow.search import proof_search

    real = proof_search.run_stoppable

    def polled_twice(work, stop, poll, every=0.02):
        def twice() -> None:
            poll()
            poll()

        return real(work, stop, twice, every=every)

    monkeypatch.setattr(proof_search, "run_stoppable", polled_twice)
    game = Game("6x6k4")
    searcher = ProofSearcher(game, tt_mb=1)
    searcher.keep_table(str(tmp_path / "t.npz"), seconds=0.01)
    answer = searcher.attacker_wins(game.start(), 1)  # no budget: only an answer ends it (before: "node limit")
    assert answer.wins is True and answer.stopped is None


def test_a_stopped_search_keeps_its_table(tmp_path):
    path = tmp_path / "t.npz"
    game = Game("8x8k5")  # not answered within millions of nodes: the interrupt comes first on any machine
    searcher = ProofSearcher(game, tt_mb=1)
    searcher.keep_table(str(path))

    def interrupt(nodes):
        if nodes > 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        searcher.attacker_wins(game.start(), 1, on_tick=interrupt)
    assert path.exists() and not (tmp_path / "t.npz.part").exists() and searcher.table_nodes > 0


def test_a_kept_table_of_another_search_is_refused(tmp_path):
    from kinarow.search.proof_search import table_size_mb

    path = tmp_path / "t.npz"
    game = Game("5x5k4")
    searcher = ProofSearcher(game, tt_mb=1)
    searcher.keep_table(str(path))
    searcher.attacker_wins(game.start(), 1)
    assert table_size_mb(str(path), game) == 1.0 and table_size_mb(str(tmp_path / "none.npz"), game) is None
    with pytest.raises(KinarowError, match="is of 5x5k4, not 6x5k4"):
        table_size_mb(str(path), Game("6x5k4"))
    for other in (ProofSearcher(game, tt_mb=2), ProofSearcher(game, tt_mb=1, symmetry=False),
                  ProofSearcher(game, tt_mb=1.25, words=2)):
        with pytest.raises(KinarowError, match="kept by another search"):
            other.keep_table(str(path))
    meta = json.loads(str(np.load(path)["meta"]))
    bad = tmp_path / "bad.npz"
    for wrong, message in [({"rows": 12345}, "is not one the search makes"), ({"format": "x"}, "not a kinarow"),
                           ({"nodes": "many"}, "no whole numbers"), ({"rows": 1 << 20}, "holds")]:
        with open(bad, "wb") as out:
            np.savez(out, meta=np.array(json.dumps({**meta, **wrong})), tt=searcher.tt)
        with pytest.raises(KinarowError, match=message):
            ProofSearcher(game, tt_mb=1).keep_table(str(bad))
    bad.write_bytes(b"not a table")
    with pytest.raises(KinarowError, match="cannot read the proof table"):
        ProofSearcher(game, tt_mb=1).keep_table(str(bad))


def test_the_table_option_of_solve(tmp_path, capsys):
    from kinarow.cli import main

    path = tmp_path / "t.npz"
    assert main(["solve", "6x6k4", "--search", "proof", "--table", str(path), "--no-store", "--max-nodes",
                 "2000"]) == 0
    assert path.exists() and "Unknown" in capsys.readouterr().out
    assert main(["solve", "6x6k4", "--search", "proof", "--table", str(path), "--no-store"]) == 0
    assert capsys.readouterr().out.startswith("First player (Black) wins")
    for argv, message in [(["solve", "6x6k4", "--table", str(path)], "give it with --search proof"),
                          (["solve", "6x5k4", "--search", "proof", "--table", str(path)], "is of 6x6k4, not 6x5k4")]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


# -- a walk from a kept table resumes where it stopped --------------------------------------------------------
def test_a_kept_walk_is_replayed_and_the_walk_goes_on_from_it(tmp_path):
    import os

    from kinarow.proofs import tree
    from kinarow.search.alphabeta import strategy_from_walk as _walk_tree
    from kinarow.search.proof_search import save_walk, walk_checkpoint_path

    game = Game("6x5k4")
    pos = game.start()
    plain = ProofSearcher(game, tt_mb=16)
    assert plain.attacker_wins(pos, 1).wins is True
    want = plain.strategy_walk(pos, 1)
    path = str(tmp_path / "t.npz")
    keep = walk_checkpoint_path(path)
    for n in (0, 1, len(want) // 3, len(want)):
        ps = ProofSearcher(game, tt_mb=0.01)  # a table of a few rows: the rest of the walk searches again
        ps.keep_table(path)
        save_walk(keep, pos, 1, np.frombuffer(want[:n], np.uint8))
        got = ps.strategy_walk(pos, 1)
        assert got[:n] == want[:n]  # the kept moves, replayed
        assert tree.check(_walk_tree(pos, 1, got), compiled=True).ok
        assert not os.path.exists(keep)  # done: the checkpoint is gone


def test_a_walk_stopped_to_save_goes_on_from_what_it_saved(tmp_path, monkeypatch):
    # the walk is stopped (as the periodic save stops it) at every other run of the kernel, right after the moves
    # it replays; each stop saves the moves and the next run replays them
    from kinarow.engine import extract_kernel as X
    from kinarow.proofs import tree
    from kinarow.search import proof_search
    from kinarow.search.alphabeta import strategy_from_walk as _walk_tree

    real, runs, saved = X.extract_proof, [], []

    def stopping(*args):
        runs.append(int(args[7][X.X_PREFIX]))
        if len(runs) % 2 == 1:
            args[7][X.X_STOP] = 1
        return real(*args)

    def save(path, position, winner, moves):
        saved.append(len(moves))
        save_walk(path, position, winner, moves)

    save_walk = proof_search.save_walk
    game = Game("6x5k4")
    pos = game.start()
    want = ProofSearcher(game, tt_mb=16)
    assert want.attacker_wins(pos, 1).wins is True
    first = want.strategy_walk(pos, 1)
    monkeypatch.setattr(X, "extract_proof", stopping)
    monkeypatch.setattr(proof_search, "save_walk", save)
    ps = ProofSearcher(game, tt_mb=16)
    ps.keep_table(str(tmp_path / "t.npz"))
    assert ps.attacker_wins(pos, 1).wins is True
    save_walk(str(tmp_path / "t.npz.walk.npz"), pos, 1, np.frombuffer(first[:40], np.uint8))
    walk = ps.strategy_walk(pos, 1)
    assert runs == [40, 40] and saved == [40]  # stopped after the replay, saved, replayed again, finished
    assert walk[:40] == first[:40] and tree.check(_walk_tree(pos, 1, walk), compiled=True).ok
    assert list(tmp_path.iterdir()) == [tmp_path / "t.npz"]


def test_the_table_option_of_solve_resumes_a_kept_walk(tmp_path, capsys):
    import base64
    import gzip
    import zlib

    from kinarow.cli import main
    from kinarow.search.proof_search import save_walk, walk_checkpoint_path

    game = Game("6x5k4")
    first = ProofSearcher(game, tt_mb=16)
    assert first.attacker_wins(game.start(), 1).wins is True
    prefix = first.strategy_walk(game.start(), 1)[:25]
    table, out = tmp_path / "t.npz", tmp_path / "s.json.gz"
    save_walk(walk_checkpoint_path(str(table)), game.start(), 1, np.frombuffer(prefix, np.uint8))
    assert main(["solve", "6x5k4", "--search", "proof", "--table", str(table), "--strategy", str(out), "--walk",
                 "--tt-mb", "16", "--no-store"]) == 0
    assert capsys.readouterr().out.startswith("First player (Black) wins")
    assert not (tmp_path / "t.npz.walk.npz").exists()
    with gzip.open(out, "rt") as handle:
        walk = zlib.decompress(base64.b64decode(json.load(handle)["walk"]))
    assert walk[:25] == prefix  # the kept moves, replayed into the certificate
    assert main(["check", str(out), "--compiled"]) == 0 and capsys.readouterr().out.startswith("VALID")


def test_a_kept_walk_that_does_not_fit_is_refused(tmp_path):
    from kinarow.search.proof_search import save_walk, walk_checkpoint_path

    game = Game("6x5k4")
    path = str(tmp_path / "t.npz")
    keep = walk_checkpoint_path(path)
    ps = ProofSearcher(game, tt_mb=16)
    ps.keep_table(path)
    assert ps.attacker_wins(game.start(), 1).wins is True
    save_walk(keep, game.start(), 1, np.array([12, 12], np.uint8))  # the winner's second move on its first stone
    with pytest.raises(KinarowError, match="plays on a taken cell when replayed"):
        ps.strategy_walk(game.start(), 1)
    other = game.start()
    other.play_moves("c3")
    save_walk(keep, other, 1, np.array([12], np.uint8))
    with pytest.raises(KinarowError, match=r"is not of this walk \(6x5k4 after '', player 1 winning\)"):
        ps.strategy_walk(game.start(), 1)
    (tmp_path / "t.npz.walk.npz").write_bytes(b"not a walk")
    with pytest.raises(KinarowError, match="cannot be read"):
        ps.strategy_walk(game.start(), 1)


def test_an_interrupted_stoppable_run_waits_for_its_kernel():
    # a signal that lands while the waiting thread is in Thread.join marks the worker stopped on Python 3.11
    # although it still runs: run_stoppable must still wait for the work to end before the interrupt goes on
    import os
    import signal
    import threading
    import time

    from kinarow.errors import clear_interrupt, note_interrupt, run_stoppable

    done, stopped = threading.Event(), threading.Event()

    def work() -> None:
        stopped.wait(5)  # a kernel that ends once it is asked to stop
        time.sleep(0.3)
        done.set()

    old = signal.signal(signal.SIGINT, note_interrupt)
    timer = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            run_stoppable(work, stopped.set)
        assert done.is_set()  # the interrupt came out only after the work had ended
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, old)
        clear_interrupt()
