"""Walks with shared replies (strategy certificates, version 4): a set of the loser's replies shares one subtree,
replayed as the position where the loser was given all of the set at once, the winner to move.

The walks are written here by a writer of this file (its own minimax over bitmasks, its own replay order from the
documented format), so the checkers are tested against code that shares nothing with them.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from functools import cache

import pytest

from helpers import run
from kinarow import Game, KinarowError
from kinarow.position import value_names
from kinarow.proofs import CertificateError
from kinarow.proofs.tree import SHARED, StrategyTree, check, check_certificate, pack_walk
from test_tree import both

Sets = Callable[[int, int, list[int]], list[list[int]]]


class Writer:
    """A win of the first player (normal goal, free placement) as a walk with shared replies."""

    def __init__(self, text: str, moves: str = "") -> None:
        self.game = Game(text)
        self.text, self.moves = text, moves.split()
        geo = self.game.geometry
        self.size = geo.size
        self.groups = [sum(1 << c for c in g) for g in geo.groups]
        pos = self.game.position(moves)
        self.start = (pos.bits[1], pos.bits[2], pos.to_move == 1)
        self.wins = cache(self._wins)

    def line(self, stones: int) -> bool:
        return any(g & stones == g for g in self.groups)

    def empty(self, a: int, d: int) -> list[int]:
        return [c for c in range(self.size) if not (a | d) >> c & 1]

    def spot(self, a: int, d: int) -> bool:
        return any(self.line(a | 1 << c) for c in self.empty(a, d))

    def _wins(self, a: int, d: int, mine: bool) -> bool:
        """Does the first player (stones ``a``) win, ``mine`` if it is to move? (The loser's stones ``d``
        may be more than the turns account for.)"""
        if self.line(d):
            return False
        left = self.empty(a, d)
        if mine:
            return any(self.line(a | 1 << c) or (len(left) > 1 and self.wins(a | 1 << c, d, False)) for c in left)
        return bool(left) and all(self.wins(a, d | 1 << c, True) for c in left)

    def greedy(self, a: int, d: int, replies: list[int]) -> list[list[int]]:
        """Sets as large as the first reply left allows: each later reply joins while the winner still wins."""
        out: list[list[int]] = []
        left = list(replies)
        while left:
            group = [left.pop(0)]
            for z in list(left):
                given = d | sum(1 << c for c in [*group, z])
                if self.wins(a, given, True):
                    group.append(z)
                    left.remove(z)
            if len(group) > 1:
                out.append(sorted(group))
        return out

    def write(self, sets: Sets | None = None, but: bool = True) -> StrategyTree:
        """The walk; ``but``: a set may be written as the replies left but some (when that is shorter)."""
        sets = sets or self.greedy
        out = bytearray()
        proven: set[tuple[int, int, int]] = set()
        moves = 0

        def visit(a: int, d: int, mine: bool, e: int, follow: bool) -> None:
            nonlocal moves
            if self.line(a) or self.line(d) or not self.empty(a, d):
                return
            if mine and self.spot(a, d):
                return
            if (a, d, e) in proven:
                return
            if mine:
                c = next(c for c in self.empty(a, d) if self.wins(a | 1 << c, d, False))
                child = a | 1 << c
                expanded = (child, d, e) not in proven and not self.line(child) and len(self.empty(child, d)) > 0
                groups = sets(child, d, self.empty(child, d)) if expanded else []
                out.append(c | SHARED if groups else c)
                moves += 1
                write_sets(groups, self.empty(child, d))
                visit(child, d, False, e, bool(groups))
            else:
                groups = given_sets.pop() if follow else []
                for group in groups:
                    visit(a, d | sum(1 << x for x in group), True, e + len(group) - 1, False)
                taken = {x for g in groups for x in g}
                for c in self.empty(a, d):
                    if c not in taken:
                        visit(a, d | 1 << c, True, e, False)
            proven.add((a, d, e))

        given_sets: list[list[list[int]]] = []

        def write_sets(groups: list[list[int]], left: list[int]) -> None:
            if groups:
                encode(groups, left)
                given_sets.append(groups)

        def encode(groups: list[list[int]], left: list[int]) -> None:
            """Each set as its cells, or (byte 128 + count) as the cells it leaves out of the replies left."""
            out.append(len(groups))
            rest = list(left)
            for g in groups:
                if len(rest) - len(g) < len(g) and but:
                    out.append(SHARED + len(rest) - len(g))
                    out.extend(c for c in rest if c not in g)
                else:
                    out.append(len(g))
                    out.extend(g)
                rest = [c for c in rest if c not in g]

        a, d, mine = self.start
        assert self.wins(a, d, mine)
        follow = False
        if not mine:  # the walk starts with the start's sets
            groups = sets(a, d, self.empty(a, d))
            encode(groups, self.empty(a, d))
            given_sets.append(groups)
            follow = True
        visit(a, d, mine, 0, follow)
        return StrategyTree(self.text, self.moves, value_names(self.game)[0], walk=bytes(out), shared=moves)


GAMES = [("4x3k3", ""), ("4x4k3", ""), ("4x4k3", "b2 a1"), ("5x3k3", "c2"), ("4x4k3:torus", "")]


@pytest.mark.parametrize(("text", "moves"), GAMES)
def test_a_walk_with_shared_replies_checks_and_is_smaller(text, moves):
    writer = Writer(text, moves)
    shared = writer.write()
    plain = writer.write(lambda a, d, replies: [])
    verdict = both(shared)
    assert verdict.ok, verdict.reason
    assert both(plain).ok
    assert shared.walk is not None and any(b >= SHARED for b in shared.walk)
    assert shared.size <= plain.size  # never more of the winner's moves
    if not moves:  # a whole game: fewer moves and positions
        assert shared.size < plain.size
        assert verdict.details["positions_checked"] < both(plain).details["positions_checked"]


@pytest.mark.parametrize(("text", "moves"), GAMES[:3])
def test_each_reply_of_a_set_is_a_win_on_its_own(text, moves):
    """The rule the format adds, tested on the sets written: a win after the whole set is a win after each
    of its replies (more stones never help the loser)."""
    writer = Writer(text, moves)
    seen = []

    def sets(a: int, d: int, replies: list[int]) -> list[list[int]]:
        groups = writer.greedy(a, d, replies)
        seen.extend((a, d, g) for g in groups)
        return groups

    writer.write(sets)
    assert seen
    for a, d, group in seen:
        assert writer.wins(a, d | sum(1 << c for c in group), True)
        assert all(writer.wins(a, d | 1 << c, True) for c in group)


def _tampered(tree: StrategyTree, walk: bytes, shared: int | None = None) -> StrategyTree:
    return StrategyTree(tree.game, tree.moves, tree.winner, walk=walk,
                        shared=tree.shared if shared is None else shared)


def _first_set(walk: bytes) -> int:
    """The index of the first flagged move byte (its sets follow it)."""
    return next(i for i, b in enumerate(walk) if b >= SHARED)


def test_a_set_of_a_losing_position_is_refused():
    """A set with a reply outside what the winner can give away: every empty cell added to the first set."""
    tree = Writer("4x4k3").write()
    walk = tree.walk
    assert walk is not None
    i = _first_set(walk)
    count, size = walk[i + 1], walk[i + 2]
    cells = list(walk[i + 3:i + 3 + size])
    assert count >= 1
    verdicts = []
    for extra in range(16):
        if extra in cells:
            continue
        grown = sorted({*cells, extra})
        changed = walk[:i + 2] + bytes([len(grown), *grown]) + walk[i + 3 + size:]
        verdicts.append(both(_tampered(tree, changed)))
    assert any(not v.ok for v in verdicts)
    for v in verdicts:
        if not v.ok:
            assert v.reason  # one sentence, the same from both checkers (both() compares them)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda s: [s[0], 1, *s[2:]], "break the format"),  # a set of one cell
        (lambda s: [s[0], s[1], *reversed(s[2:2 + s[1]]), *s[2 + s[1]:]], "break the format"),  # not increasing
        (lambda s: [s[0], s[1], s[2], s[2], *s[4:]], "break the format"),  # a cell twice
        (lambda s: [0, *s[1:]], "break the format"),  # no set after a flagged move
    ],
)
def test_malformed_sets_are_refused_alike(change, words):
    tree = Writer("4x4k3").write()
    walk = tree.walk
    assert walk is not None
    i = _first_set(walk)
    rest = list(walk[i + 1:])
    changed = bytes(walk[:i + 1]) + bytes(change(rest))
    verdict = both(_tampered(tree, changed))
    assert not verdict.ok and words in verdict.reason


def test_an_occupied_cell_in_a_set_is_refused():
    tree = Writer("4x4k3").write()
    walk = tree.walk
    assert walk is not None
    i = _first_set(walk)
    taken = walk[i] - SHARED  # the winner's own move just played
    size = walk[i + 2]
    cells = sorted({*walk[i + 3:i + 3 + size], taken})
    changed = walk[:i + 2] + bytes([len(cells), *cells]) + walk[i + 3 + size:]
    verdict = both(_tampered(tree, changed))
    assert not verdict.ok and "break the format" in verdict.reason


def test_every_changed_byte_is_judged_alike_by_both_checkers():
    tree = Writer("4x3k3").write()
    walk = tree.walk
    assert walk is not None
    rejected = 0
    rng = random.Random(7)
    for i in range(len(walk)):
        for b in rng.sample(range(256), 6):
            if b == walk[i]:
                continue
            verdict = both(_tampered(tree, walk[:i] + bytes([b]) + walk[i + 1:]))
            rejected += not verdict.ok
    assert rejected > 0


def test_short_long_and_miscounted_walks_are_refused():
    tree = Writer("4x4k3").write()
    walk = tree.walk
    assert walk is not None
    assert "the walk ends after" in both(_tampered(tree, walk[:-1])).reason
    assert both(_tampered(tree, walk + b"\x00")).reason == "the walk has 1 bytes more than the replay reads"
    wrong = both(_tampered(tree, walk, shared=(tree.shared or 0) + 1))
    assert not wrong.ok and "'prescribed' says" in wrong.reason


def test_the_start_at_the_losers_turn_reads_its_sets_first():
    tree = Writer("4x4k3", "b2").write(lambda a, d, replies: [])  # the second player to move: a count of 0
    assert tree.walk is not None and tree.walk[0] == 0
    assert both(tree).ok
    writer = Writer("4x4k3", "b2")
    shared = writer.write()
    assert both(shared).ok
    assert both(_tampered(tree, tree.walk[1:])).ok is False  # without its count the walk is read wrong


@pytest.mark.parametrize(
    ("text", "words"),
    [("4x4k3:gravity", "under gravity"), ("4x4k3:misere", "misere"), ("4x4k3p2q1", "more than one stone")],
)
def test_games_where_more_stones_can_help_refuse_shared_walks(text, words):
    tree = Writer("4x4k3").write()
    changed = StrategyTree(text, [], tree.winner, walk=tree.walk, shared=tree.shared)
    for compiled in (False, True):
        verdict = check(changed, compiled=compiled)
        assert not verdict.ok and words in verdict.reason


def test_a_shared_walk_round_trips_through_json_and_the_check_command(tmp_path, capsys):
    tree = Writer("4x4k3").write()
    data = tree.to_json()
    assert data["version"] == 4 and data["prescribed"] == tree.size and data["length"] == len(tree.walk or b"")
    again = StrategyTree.from_json(data)
    assert again.walk == tree.walk and again.shared == tree.shared
    assert check_certificate(data).ok and check_certificate(data, compiled=True).ok
    path = tmp_path / "shared.json"
    path.write_text(tree.dumps())
    code, out, _ = run(capsys, "check", str(path))
    assert code == 0 and "VALID" in out
    code, out, _ = run(capsys, "check", str(path), "--compiled")
    assert code == 0 and "VALID" in out
    with pytest.raises(KinarowError, match="cannot be read into boards"):
        tree.expanded()


@pytest.mark.parametrize(
    ("mutate", "words"),
    [
        (lambda d: d.update(length=d["length"] + 1), "'length' says"),
        (lambda d: d.pop("length"), "needs 'walk'"),
        (lambda d: d.update(prescribed=-1), "number of the winner's moves"),
        (lambda d: d.update(prescribed=10**9), "number of the winner's moves"),
    ],
)
def test_malformed_version_4_fields_get_one_sentence(mutate, words):
    data = Writer("4x3k3").write().to_json()
    mutate(data)
    with pytest.raises(CertificateError, match=words):
        StrategyTree.from_json(data)


# -- the writer of kinarow (the proof search's zones) ---------------------------------------------------------------

WRITTEN = [("4x4k3", ""), ("4x3k3", ""), ("5x3k3", "c2"), ("4x4k3", "b2"), ("4x4k3:torus", ""), ("4x4k3:hex", ""),
           ("5x5k4", "c3 a1"), ("9x8k3", ""), ("17x4k3", "")]  # the last two: more than 64 cells (two words a side)


@pytest.mark.parametrize(("text", "moves"), WRITTEN)
def test_the_proof_search_writes_shared_walks_both_checkers_accept(text, moves):
    from kinarow.search.proof_search import ProofSearcher
    from kinarow.search.shared_walk import shared_walk

    game = Game(text)
    position = game.position(moves)
    searcher = ProofSearcher(game, tt_mb=16)
    winner = next(w for w in (1, 2) if searcher.attacker_wins(position, w).wins)
    written = shared_walk(searcher, position, winner)
    assert written is not None
    verdict = both(written.tree)
    assert verdict.ok, verdict.reason
    plain = searcher.strategy_walk(position, winner)
    assert written.tree.size <= len(plain)  # never more of the winner's moves than one subtree a reply
    assert written.sets > 0 and written.shared >= 2 * written.sets


def test_the_solve_command_writes_and_checks_a_shared_walk(tmp_path, capsys):
    path = tmp_path / "s.json"
    code, out, _ = run(capsys, "solve", "4x4k3", "--search", "proof", "--walk", "--share", "--proof", str(path),
                       "--no-store")
    assert code == 0 and "wins with perfect play" in out
    data = __import__("json").loads(path.read_text())
    assert data["version"] == 4
    for extra in ([], ["--compiled"]):
        code, out, _ = run(capsys, "check", str(path), *extra)
        assert code == 0 and "VALID" in out


def test_share_is_not_answered_by_a_stored_plain_walk(tmp_path, capsys):
    """A strategy in the results store is a plain walk: asked for shared replies, the search writes them."""
    store = ["--store", str(tmp_path / "results.sqlite")]
    plain, shared = tmp_path / "plain.json", tmp_path / "shared.json"
    code, _, _ = run(capsys, "solve", "4x4k3", "--search", "proof", "--walk", "--strategy", str(plain), *store)
    assert code == 0 and json.loads(plain.read_text())["version"] == 3
    code, out, _ = run(capsys, "solve", "4x4k3", "--search", "proof", "--walk", "--share", "--strategy", str(shared),
                       *store)
    assert code == 0 and "results store" not in out
    assert json.loads(shared.read_text())["version"] == 4


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["4x4k3", "--walk", "--share"], "--share writes a walk with the proof search's zones"),
        (["4x4k3", "--search", "proof", "--share"], "--share writes a walk with the proof search's zones"),
        (["4x4k3:maker-breaker", "--search", "proof", "--walk", "--share"], "in the normal game only"),
        (["4x4k3", "--walk", "--share", "--workers", "2"], "--share writes a walk with the proof search's zones"),
    ],
)
def test_share_refuses_what_it_cannot_do_in_one_sentence(capsys, args, words):
    code, _, err = run(capsys, "solve", *args, "--no-store")
    assert code == 2 and words in err and "Traceback" not in err


def test_tampered_wide_shared_walks_are_refused_alike():
    """On a board of more than 64 cells: a set grown by a cell the winner cannot give away, and a byte cut."""
    from kinarow.search.proof_search import ProofSearcher
    from kinarow.search.shared_walk import shared_walk

    game = Game("9x8k3")
    written = shared_walk(ProofSearcher(game, tt_mb=16), game.position(""), 1)
    assert written is not None
    tree = written.tree
    walk = tree.walk
    assert walk is not None and both(tree).ok
    assert not both(_tampered(tree, walk[:-1])).ok
    assert _refused_changes(tree, walk, 3) > 0


def _refused_changes(tree: StrategyTree, walk: bytes, seed: int) -> int:
    """Of 40 walks with one byte changed, how many both checkers refuse (they must say the same of each)."""
    rng = random.Random(seed)
    return sum(not both(_tampered(tree, walk[:i] + bytes([(walk[i] + 1) % 256]) + walk[i + 1:])).ok
               for i in rng.sample(range(len(walk)), 40))


@pytest.mark.parametrize("text", ["4x4k3", "4x3k3"])
def test_a_set_written_as_the_replies_left_but_some_reads_as_the_same_set(text):
    listed, left_out = Writer(text).write(but=False), Writer(text).write()
    assert listed.walk is not None and left_out.walk is not None
    assert len(left_out.walk) < len(listed.walk) and listed.size == left_out.size
    assert both(listed).details == both(left_out).details and both(left_out).ok


def test_a_stopped_shared_walk_is_kept_and_resumed(tmp_path):
    """Stopped by its node budget, the walk keeps its whole records; the next walk replays them without
    searching and goes on; the result checks, begins with what was kept, and the file is gone."""
    from kinarow.search.proof_search import ProofSearcher, load_walk
    from kinarow.search.shared_walk import SHARED_CHECKPOINT, shared_walk

    game = Game("9x8k3")
    position = game.position("")
    keep = str(tmp_path / "walk.npz")
    stopped = shared_walk(ProofSearcher(game, tt_mb=16), position, 1, keep=keep, max_nodes=100, save_seconds=0)
    assert stopped is None
    kept = load_walk(keep, position, 1, SHARED_CHECKPOINT)
    assert len(kept) > 0
    searcher = ProofSearcher(game, tt_mb=16)
    done = shared_walk(searcher, position, 1, keep=keep)
    assert done is not None and done.tree.walk is not None
    assert done.tree.walk.startswith(kept)
    assert both(done.tree).ok
    assert not (tmp_path / "walk.npz").exists()
    with pytest.raises(KinarowError, match="max_nodes"):
        shared_walk(searcher, position, 1, max_nodes=-1)


def test_a_kept_walk_of_another_position_is_refused(tmp_path):
    import numpy as np

    from kinarow.search.proof_search import ProofSearcher, save_walk
    from kinarow.search.shared_walk import SHARED_CHECKPOINT, shared_walk

    game = Game("4x4k3")
    keep = str(tmp_path / "walk.npz")
    save_walk(keep, game.position("b2"), 1, np.zeros(3, np.uint8), SHARED_CHECKPOINT)
    with pytest.raises(KinarowError, match="is not of this walk"):
        shared_walk(ProofSearcher(game, tt_mb=16), game.position(""), 1, keep=keep)
    save_walk(keep, game.position(""), 1, np.array([200, 1, 2], np.uint8), SHARED_CHECKPOINT)
    with pytest.raises(KinarowError, match="remove it to walk from the start"):
        shared_walk(ProofSearcher(game, tt_mb=16), game.position(""), 1, keep=keep)


def test_the_parallel_solve_command_writes_a_shared_walk(tmp_path, capsys):
    path = tmp_path / "jobs.json"
    code, out, _ = run(capsys, "solve", "9x8k3", "--moves", "e4", "--workers", "2", "--jobs", "8", "--search", "proof",
                       "--question", "first-wins", "--walk", "--share", "--proof", str(path), "--no-store")
    assert code == 0 and "with shared replies" in out
    code, out, _ = run(capsys, "check", str(path), "--compiled")
    assert code == 0 and "VALID" in out


@pytest.mark.parametrize(("text", "moves"), [("4x4k3", "b2"), ("17x4k3", "h2"), ("4x4k3", "b2 a1 c3")])
def test_a_walk_after_the_winners_move_opens_to_one_from_before_it(text, moves):
    """The first player's certificate after its move, opened by that move, checks from the position before it
    (version 4 and version 3 alike); a walk whose last move is the loser's is refused."""
    from kinarow import solve
    from kinarow.search.proof_search import ProofSearcher
    from kinarow.search.shared_walk import shared_walk

    game = Game(text)
    position = game.position(moves)
    written = shared_walk(ProofSearcher(game, tt_mb=16), position, 1)
    assert written is not None and written.tree.moves == moves.split()
    plain = solve(text, moves=moves, strategy=True, walk=True, tt_mb=16).strategy
    assert plain is not None
    for tree in (written.tree, plain):
        opened = tree.opened()
        assert opened.moves == moves.split()[:-1] and opened.size == tree.size + 1
        assert both(opened).ok
    with pytest.raises(KinarowError, match="is not the first player's"):
        StrategyTree(text, [*moves.split(), "d4"], written.tree.winner, walk=b"", shared=0).opened()


def test_the_merge_of_shared_parts_reads_a_version_3_walk_and_carries_a_part_by_a_symmetry():
    """A version 3 walk read into rows and written again is a walk of version 4 without sets that checks; a
    part found on the mirror image of the position, carried back by the mirror, checks from the position."""
    from kinarow import solve
    from kinarow.search.parallel.checkpoint import pack_shared
    from kinarow.search.parallel.merge import SharedMerge
    from kinarow.search.proof_search import ProofSearcher
    from kinarow.search.shared_walk import shared_walk

    game = Game("9x8k3")
    position = game.position("b2")
    plain = solve("9x8k3", moves="b2", strategy=True, walk=True, tt_mb=16).strategy
    assert plain is not None and plain.walk is not None
    merge = SharedMerge(game, 1)
    merge.add_walk(position, plain.walk, [list(range(game.cells))])
    walk, moves = merge.walk(position)
    assert moves == plain.size and not any(b >= SHARED for b in walk)
    assert both(StrategyTree("9x8k3", ["b2"], plain.winner, walk=walk, shared=moves)).ok
    geo = game.geometry
    mirror = [geo.cell(game.m - 1 - geo.xy(c)[0], geo.xy(c)[1]) for c in range(game.cells)]  # real -> mirror
    image = game.position(geo.name(mirror[geo.parse_cell("b2")]))
    written = shared_walk(ProofSearcher(game, tt_mb=16), image, 1)
    assert written is not None and written.tree.walk is not None
    merge = SharedMerge(game, 1)
    merge.add_walk(image, pack_shared(written.tree.walk, written.tree.size), [mirror])
    walk, moves = merge.walk(position)
    assert both(StrategyTree("9x8k3", ["b2"], plain.winner, walk=walk, shared=moves)).ok


@pytest.mark.parametrize("words", [1, 2])
@pytest.mark.parametrize("text, moves", [("4x4k3", ""), ("4x4k3", "b2"), ("5x3k3", "c2")])
def test_what_the_table_knows_of_each_move_agrees_with_minimax(text, moves, words):
    """``known_children`` (one compiled pass over the table, what the shared writer reads first): every win or
    loss it reports is the minimax value of this file's writer, and every win's zone holds -- the win stands
    with up to two more of the loser's stones outside it; also at a position where the loser was given a set, and
    on boards laid out in two words (as boards of 65 to 128 cells are)."""
    from itertools import combinations

    from kinarow.search.proof_search import ProofSearcher

    w = Writer(text, moves)
    a, d, mine = w.start
    position = w.game.position(moves)
    searcher = ProofSearcher(w.game, tt_mb=8, words=words)
    assert searcher.attacker_wins(position, 1).wins
    starts = [(a, d, 0)]
    if not mine:  # the loser to move: a set given to it, asked so that the table holds rows of that tag
        given = next(k for k in combinations(w.empty(a, d), 2) if w.wins(a, d | 1 << k[0] | 1 << k[1], True)
                     and not w.spot(a, d | 1 << k[0] | 1 << k[1]))
        assert searcher.attacker_wins(position, 1, given=list(given)).wins
        starts.append((a, d | 1 << given[0] | 1 << given[1], 1))
    known = 0
    for sa, sd, extra in starts:
        to_move = sd.bit_count() - extra == sa.bit_count()
        for cell, wins, zone, work in searcher.known_children(sa, sd, 1, extra=extra):
            ca, cd = (sa | 1 << cell, sd) if to_move else (sa, sd | 1 << cell)
            assert work >= 0 and (wins or work == 0)  # the work below a win only
            if wins is None:
                continue
            known += 1
            assert wins == (not w.line(cd) and (w.line(ca) or w.wins(ca, cd, not to_move))), (sa, sd, cell)
            if wins and not w.line(ca):
                outside = [c for c in w.empty(ca, cd) if not zone >> c & 1]
                for r in (1, 2):
                    for more in combinations(outside, r):
                        assert w.wins(ca, cd | sum(1 << c for c in more), not to_move), (sa, sd, cell, more)
    assert known > 0


@pytest.mark.parametrize(("args", "extra", "said"), [
    ((0, 0, 3), 0, "player 1 or 2"),
    ((0, 0, 1), -1, "extra stones are a count"),
    ((0b11, 0, 1), 0, "not a position of play"),
    ((0b1, 0b1, 1), 0, "share a cell"),
    ((1 << 16, 0, 1), 0, "bitmask of the board's 16 cells"),
    ((-1, 0, 1), 0, "bitmask of the board's 16 cells"),
])
def test_known_children_refuses_what_is_not_a_position(args: tuple[int, int, int], extra: int, said: str) -> None:
    """known_children and attacker_wins_stones check a position by stones alike, in one sentence."""
    from kinarow.search.proof_search import ProofSearcher

    searcher = ProofSearcher(Game("4x4k3"), tt_mb=1)
    with pytest.raises(KinarowError, match=said):
        searcher.known_children(*args, extra=extra)
    with pytest.raises(KinarowError, match=said):
        searcher.attacker_wins_stones(*args, extra=extra)


@pytest.mark.parametrize("name", ["4x4k3", "7x7k5", "19x4k4"])
def test_the_compiled_spot_test_agrees_with_the_rules(name: str) -> None:
    """The writer's compiled "wins with one stone" (ProofSearcher.wins_at_once) says what Stones.spot, written from
    the groups alone, says -- a complete group is no threat -- on one- and two-word boards."""
    from kinarow.search.proof_search import ProofSearcher
    from kinarow.search.shared_walk import Stones

    game = Game(name)
    searcher, stones = ProofSearcher(game, tt_mb=1), Stones(game)
    rng = random.Random(7)
    seen = set()
    for _ in range(2000):
        cells = rng.sample(range(game.cells), rng.randint(0, min(14, game.cells)))
        k = rng.randint(0, len(cells))
        a, d = sum(1 << c for c in cells[:k]), sum(1 << c for c in cells[k:])
        said = stones.spot(a, d)
        assert searcher.wins_at_once(a, d) == said, (name, cells, k)
        seen.add(said)
        whole = a | d  # the compiled "holds a whole group" of the questions' first look
        assert searcher._completed(whole) == any(whole & g == g for g in stones.groups)
    assert seen == {True, False}


@pytest.mark.parametrize(("name", "moves"), [("7x7k5", "d4 c3 e5"), ("19x4k4", "e2 n3 f2 g2")])
def test_the_searchs_order_of_moves_holds_every_empty_cell_once(name: str, moves: str) -> None:
    """ProofSearcher.ordered_cells (the writer's order when the table proves no move) is the empty cells, each
    once, the cells of most live groups first on an empty board's centre."""
    from kinarow.search.proof_search import ProofSearcher

    game = Game(name)
    position = game.position(moves)
    searcher = ProofSearcher(game, tt_mb=1)
    a, d = position.bits[1], position.bits[2]
    order = searcher.ordered_cells(a, d)
    assert sorted(order) == sorted(position.legal_moves())
    first = searcher.ordered_cells(0, 0)[0]
    assert first not in (0, game.cells - 1)  # a corner lies in the fewest groups


@pytest.mark.parametrize("moves", ["o2 f3 n2 m2 p2 q2", "e2 n3 f2 g2 d2 c2"])  # one position, mirror images
def test_a_walk_hurries_where_the_table_proves_no_move(moves: str) -> None:
    """Where the table proves none of the winner's moves, the writer asks the position, then the moves most
    promising first. In cell order it took far moves that win without hurrying: (19,4,4) after o2 f3 n2 m2 p2
    q2 wrote 229,080 moves without finishing, its mirror image 926; both are a few hundred now."""
    from kinarow.search.proof_search import ProofSearcher
    from kinarow.search.shared_walk import shared_walk

    game = Game("19x4k4")
    position = game.position(moves)
    searcher = ProofSearcher(game, tt_mb=64)
    assert searcher.attacker_wins(position, 1).wins
    written = shared_walk(searcher, position, 1, max_nodes=1_000_000)
    assert written is not None
    assert written.tree.size < 600
    verdict = both(written.tree)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize("text", ["12x11k3", "16x16k3"])
def test_past_128_cells_a_shared_walk_is_version_5_and_both_checkers_read_it(text):
    """On boards of 129 to 256 cells the walk's numbers are two bytes (version 5): the proof search writes one,
    both checkers accept it with the same count, it round-trips through JSON, and its version is its board's."""
    from kinarow.search.proof_search import ProofSearcher
    from kinarow.search.shared_walk import shared_walk

    game = Game(text)
    written = shared_walk(ProofSearcher(game, tt_mb=16), game.start(), 1)
    assert written is not None and written.sets > 0
    tree = written.tree
    data = tree.to_json()
    assert data["version"] == 5 and data["length"] == len(tree.walk) and len(tree.walk) % 2 == 0
    assert both(tree).ok
    assert check_certificate(data).ok and check_certificate(data, compiled=True).ok
    assert StrategyTree.from_json(data) == tree
    with pytest.raises(CertificateError, match="version 5 on larger ones"):  # its bytes as version 4's
        StrategyTree.from_json({**data, "version": 4})
    odd = {**data, "length": data["length"] - 1, "walk": pack_walk(tree.walk[:-1])}
    with pytest.raises(CertificateError, match="odd length"):
        StrategyTree.from_json(odd)
    small = Game("4x4k3")
    little = shared_walk(ProofSearcher(small, tt_mb=8), small.start(), 1)
    assert little is not None
    with pytest.raises(CertificateError, match="this is version 5 on 16 cells"):
        StrategyTree.from_json({**little.tree.to_json(), "version": 5})


def test_tampered_version_5_walks_are_refused_alike():
    """A number cut in half, a number cut, and numbers changed (their low or high byte): both checkers say the
    same, and some changes are refused."""
    from kinarow.search.proof_search import ProofSearcher
    from kinarow.search.shared_walk import shared_walk

    game = Game("12x11k3")
    written = shared_walk(ProofSearcher(game, tt_mb=16), game.start(), 1)
    assert written is not None
    tree = written.tree
    walk = tree.walk
    assert walk is not None
    half = both(_tampered(tree, walk[:-1]))
    assert not half.ok and "odd length" in half.reason
    assert not both(_tampered(tree, walk[:-2])).ok
    assert _refused_changes(tree, walk, 5) > 0


def test_a_version_5_walk_opens_to_one_from_before_the_winners_move():
    from kinarow.search.proof_search import ProofSearcher
    from kinarow.search.shared_walk import shared_walk

    game = Game("12x11k3")
    position = game.position("f6")
    written = shared_walk(ProofSearcher(game, tt_mb=16), position, 1)
    assert written is not None and both(written.tree).ok
    opened = written.tree.opened()
    assert opened.moves == [] and opened.shared == written.tree.shared + 1
    assert both(opened).ok
