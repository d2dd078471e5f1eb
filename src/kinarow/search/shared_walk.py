"""A win's strategy as a walk with shared replies (strategy certificates, version 4), written with the proof search.

At each of the loser's turns the replies are grouped: a reply ``y`` the search proves, with its relevance zone
``Z`` (a win stays a win with any cells outside ``Z`` given to the loser), forms a set with every other reply
outside ``Z``; the set's position, where the loser was given all of it at once and the winner is to move, is
asked again (so a set stands only where the search proves it) and walked once for all of its replies. The
largest set first, then the next among the replies left; a set of one reply is an ordinary reply. At the
winner's turns the move is one the search's table (or a position's evaluation) proves, the least work below it
first, read for every move of a turn in one compiled pass (:meth:`ProofSearcher.known_children`); when the table
proves none, the position itself is asked (its search's proof names a move), and failing that each move, most
promising first, with budgets growing. The walk follows
the checkers' replay (:mod:`kinarow.proofs.tree`) move for move, so each byte is written when the replay would
read it.

On wide boards most replies are far from the play and share one subtree: (18,4,4) after e1 g2 needs 1,889 of
the winner's moves this way, written in 2.6 s (12,613 moves in 46 s when an unknown turn took the first move in
cell order that wins, often a far one that does not hurry), where the walk of one subtree a
reply did not finish in 40 minutes (CHANGELOG.md, 2026-11-28). Narrow boards gain less: a proof's zone keeps most
columns of a nine or ten wide board.

The walk runs in Python over the search's answers (free placement, one stone a turn, the normal goal). A walk
given a file to keep (``keep``) saves its bytes now and then and when stopped, and a later walk of the same
position replays them without searching and goes on.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.limits import check_count, check_seconds
from kinarow.position import Position, value_names
from kinarow.proofs.tree import (
    StrategyTree,
    number_bytes,
    put_number,
    shared_flag,
    shared_replies_fit,
    walk_numbers,
)
from kinarow.search.proof_search import ProofSearcher, load_walk, save_walk
from kinarow.values import Fit, Goal

#: nodes of the growing searches a position is asked with: the table first, then more, at last with no bound
BUDGETS: tuple[int | None, ...] = (2, 1_000, 100_000, 10_000_000, 1_000_000_000, None)
#: a question of at least this many nodes (or none) writes the kept table as a search of its own would
KEPT_QUESTION = 10_000_000
#: the form of a stopped walk's checkpoint (beside a kept table: TABLE.shared.npz)
SHARED_CHECKPOINT = "kinarow.shared-walk-checkpoint"


@dataclass
class SharedWalk:
    """A walk with shared replies and how it was found."""

    tree: StrategyTree  # the certificate's strategy (version 4)
    sets: int  # sets of two or more replies written
    shared: int  # replies that those sets stand for
    positions: int  # positions walked (the wins on the spot not counted)
    searches: int  # questions asked of the proof search
    nodes: int  # their nodes
    seconds: float


class _StoppedError(Exception):
    pass


Rows = dict[tuple[int, int, int], int]  # (winner's stones, loser's, loser's extra) -> the winner's move
SetRows = dict[tuple[int, int, int], list[list[int]]]  # the same keys -> the sets of the loser's turn there


def encode_sets(out: bytearray, groups: list[list[int]], left: list[int], start: bool = False,
                nbytes: int = 1) -> None:
    """Append the sets of a loser's turn whose replies are ``left`` as a walk of ``nbytes``-byte numbers holds
    them (a count, then each set as its cells, or as the replies left but some, whichever is shorter); at the
    start, the count even when 0, else nothing for none."""
    if not groups and not start:
        return
    flag = shared_flag(nbytes)
    put_number(out, len(groups), nbytes)
    rest = list(left)
    for g in groups:
        but = [c for c in rest if c not in g]
        listed = but if len(but) < len(g) else g
        put_number(out, flag + len(but) if listed is but else len(g), nbytes)
        for c in listed:
            put_number(out, c, nbytes)
        rest = [c for c in rest if c not in g]


def decode_sets(byte: Callable[[], int], left: list[int], nbytes: int = 1) -> list[list[int]]:
    """The sets :func:`encode_sets` wrote for a turn whose replies are ``left``, read a number at a time with
    ``byte()``; one sentence when they do not fit."""
    flag = shared_flag(nbytes)
    rest = list(left)
    groups: list[list[int]] = []
    for _ in range(byte()):
        m = byte()
        listed = [byte() for _ in range(m % flag)]
        group = [c for c in rest if c not in listed] if m >= flag else listed
        if any(c not in rest for c in listed) or len(group) < 2:
            raise KinarowError("a walk's sets do not fit the position they are read at")
        groups.append(group)
        rest = [c for c in rest if c not in group]
    return groups


class Stones:
    """The rules a walk with shared replies is read and written by, over bitmasks: the winner's stones ``a``,
    the loser's ``d`` (free placement, one stone a turn, the normal goal)."""

    def __init__(self, game: Game) -> None:
        self.cells = game.cells
        self.groups = [sum(1 << c for c in g) for g in game.geometry.groups]
        #: the bytes of a number in the walk (two past 128 cells: version 5) and its flag bit
        self.nbytes = number_bytes(self.cells)
        self.flag = shared_flag(self.nbytes)

    def empty(self, a: int, d: int) -> list[int]:
        return [c for c in range(self.cells) if not (a | d) >> c & 1]

    def spot(self, a: int, d: int) -> bool:
        """Does the winner complete a group with one stone (the replay plays that itself)?"""
        for g in self.groups:  # noqa: SIM110 -- a plain loop is a quarter faster than any(), and it runs often
            if not g & d and (g & ~a).bit_count() == 1:
                return True
        return False

    def replies(self, a: int, d: int, e: int, groups: list[list[int]], visit: Callable[[int, int, int], None]) -> None:
        """The loser's turn at (a, d) (``e`` extra stones) in the replay's order: ``visit`` each set's position
        (the loser given all of it), then each other reply's."""
        for g in groups:
            visit(a, d | sum(1 << c for c in g), e + len(g) - 1)
        taken = {c for g in groups for c in g}
        for y in self.empty(a, d):
            if y not in taken:
                visit(a, d | 1 << y, e)

    def from_start(self, position: Position, winner: int, winner_turn: Callable[[int, int, int], None],
                   loser_turn: Callable[[int, int, int, list[list[int]]], None],
                   start_sets: Callable[[int, int], list[list[int]]]) -> None:
        """A replay from ``position``: ``winner_turn`` at the winner's turn, else ``loser_turn`` with the
        start's sets (``start_sets(a, d)``)."""
        a, d = position.bits[winner], position.bits[3 - winner]
        with _deep(self.cells):
            if position.to_move == winner:
                winner_turn(a, d, 0)
            else:
                loser_turn(a, d, 0, start_sets(a, d))

    def carrier(self, inverse: list[int]) -> Callable[[int], int]:
        """The map of bitmasks that sends cell ``c`` to ``inverse[c]`` (by tables of 8 cells)."""
        tables = []
        for lo in range(0, self.cells, 8):
            table = []
            for b in range(256):
                table.append(sum(1 << inverse[lo + i] for i in range(8) if b >> i & 1 and lo + i < self.cells))
            tables.append(table)

        def carry(x: int) -> int:
            out = 0
            for j, table in enumerate(tables):
                out |= table[x >> (8 * j) & 255]
            return out

        return carry

    def read(self, position: Position, winner: int, walk: bytes, shared: bool) -> tuple[Rows, SetRows]:
        """The rows of a walk (version 4 when ``shared``, else 3) from ``position``: the replay of the
        checkers (:mod:`kinarow.proofs.tree`), noting each move and each turn's sets."""
        moves: Rows = {}
        sets: SetRows = {}
        proven: set[tuple[int, int, int]] = set()
        at = 0
        nbytes = self.nbytes if shared else 1
        numbers = walk_numbers(walk, nbytes)

        def byte() -> int:
            nonlocal at
            if at == len(numbers):
                raise KinarowError("internal error: a part's walk ends before its replay")
            at += 1
            return numbers[at - 1]

        def winner_turn(a: int, d: int, e: int) -> None:
            if not self.empty(a, d) or self.spot(a, d) or (a, d, e) in proven:
                return
            b = byte()
            move = b % self.flag if shared else b
            moves[(a, d, e)] = move
            child = a | 1 << move
            if (child, d, e) not in proven:
                groups = decode_sets(byte, self.empty(child, d), nbytes) if shared and b >= self.flag else []
                loser_turn(child, d, e, groups)
            proven.add((a, d, e))

        def loser_turn(a: int, d: int, e: int, groups: list[list[int]]) -> None:
            if groups:
                sets[(a, d, e)] = groups
            self.replies(a, d, e, groups, winner_turn)
            proven.add((a, d, e))

        self.from_start(position, winner, winner_turn, loser_turn,
                        lambda a, d: decode_sets(byte, self.empty(a, d), nbytes) if shared else [])
        if at != len(numbers):
            raise KinarowError("internal error: a part's walk is longer than its replay")
        return moves, sets

    def write(self, position: Position, winner: int, moves: Rows, sets: SetRows) -> tuple[bytes, int]:
        """The walk with shared replies from ``position`` that plays ``moves`` and gives each loser's turn its
        ``sets``, and the winner's moves in it."""
        out = bytearray()
        proven: set[tuple[int, int, int]] = set()
        count = 0

        def winner_turn(a: int, d: int, e: int) -> None:
            nonlocal count
            if not self.empty(a, d) or self.spot(a, d) or (a, d, e) in proven:
                return
            move = moves.get((a, d, e))
            if move is None:
                raise KinarowError("internal error: the merged parts give no move at a position their walk reaches")
            child = a | 1 << move
            groups = sets.get((child, d, e), []) if (child, d, e) not in proven else []
            put_number(out, move | self.flag if groups else move, self.nbytes)
            count += 1
            if (child, d, e) not in proven:
                if groups:
                    encode_sets(out, groups, self.empty(child, d), nbytes=self.nbytes)
                loser_turn(child, d, e, groups)
            proven.add((a, d, e))

        def loser_turn(a: int, d: int, e: int, groups: list[list[int]]) -> None:
            self.replies(a, d, e, groups, winner_turn)
            proven.add((a, d, e))

        def start_sets(a: int, d: int) -> list[list[int]]:
            groups = sets.get((a, d, 0), [])
            encode_sets(out, groups, self.empty(a, d), start=True, nbytes=self.nbytes)
            return groups

        self.from_start(position, winner, winner_turn, loser_turn, start_sets)
        return bytes(out), count


@contextmanager
def _deep(cells: int) -> Iterator[None]:
    """Room for the recursion of a walk on a board of ``cells`` cells."""
    depth = sys.getrecursionlimit()
    sys.setrecursionlimit(max(depth, 20 * cells + 1000))
    try:
        yield
    finally:
        sys.setrecursionlimit(depth)


class _Writer:
    def __init__(self, searcher: ProofSearcher, winner: int, deadline: float | None,
                 on_tick: Callable[[int], None] | None, prefix: bytes = b"",
                 save: Callable[[bytes, bool], None] | None = None, save_seconds: float = 60.0) -> None:
        self.searcher, self.winner = searcher, winner
        self.board = Stones(searcher.game)
        self.cells = self.board.cells
        self.deadline, self.on_tick = deadline, on_tick
        self.out = bytearray(prefix)
        self.prefix, self.at = prefix, 0  # a stopped walk's bytes, replayed (no search) before going on
        self.save, self.save_seconds = save, save_seconds
        self.safe = 0  # the bytes that end with a whole record (what a stop keeps)
        self.proven: set[tuple[int, int, int]] = set()
        self.moves = self.sets = self.shared = self.searches = self.nodes = 0
        self.ticked = self.saved = self.table_saved = time.monotonic()
        self.table = searcher.table_path  # written by the large questions and with each save, not by each one
        self.max_nodes: int | None = None

    def proved(self, a: int, d: int, extra: int, budgets: tuple[int | None, ...] = BUDGETS) -> int | None:
        """The relevance zone of (a, d) (``extra`` stones of the loser beyond its turns) if the winner wins
        there, else None (asked with growing budgets)."""
        for budget in budgets:
            large = budget is None or budget >= KEPT_QUESTION
            self.searcher.table_path = self.table if large else None
            try:
                answer = self.searcher.attacker_wins_stones(a, d, self.winner, extra=extra, max_nodes=budget)
            finally:
                self.searcher.table_path = self.table
            self.searches += 1
            self.nodes += answer.nodes
            if answer.wins is not None:
                return (answer.zone or 0) if answer.wins else None
        return None

    @property
    def replaying(self) -> bool:
        return self.at < len(self.prefix)

    def byte(self) -> int:
        """The next number (a byte, or two past 128 cells) of the stopped walk being replayed."""
        if not self.replaying or self.at + self.board.nbytes > len(self.prefix):
            raise KinarowError("the kept walk ends inside a record; remove it to walk from the start")
        self.at += self.board.nbytes
        return int.from_bytes(self.prefix[self.at - self.board.nbytes:self.at], "little")

    def read_sets(self, a: int, d: int) -> list[list[int]]:
        """The sets of the loser's turn at (a, d) as the stopped walk wrote them (see :meth:`write_sets`)."""
        try:
            groups = decode_sets(self.byte, self.empty(a, d), self.board.nbytes)
        except KinarowError:
            raise KinarowError("the kept walk's sets do not fit its position; remove it to walk from the start") \
                from None
        self.sets += len(groups)
        self.shared += sum(len(g) for g in groups)
        return groups

    def empty(self, a: int, d: int) -> list[int]:
        return self.board.empty(a, d)

    def spot(self, a: int, d: int) -> bool:
        return self.searcher.wins_at_once(a, d)  # compiled: Stones.spot's answer in a tenth of its time

    def tick(self) -> None:
        """Between two records: report, stop at the deadline, save now and then."""
        if self.replaying:
            return
        self.safe = len(self.out)
        now = time.monotonic()
        if (self.deadline is not None and now > self.deadline) or (self.max_nodes is not None
                                                                    and self.nodes >= self.max_nodes):
            raise _StoppedError
        if self.on_tick is not None and now - self.ticked > 0.25:
            self.ticked = now
            self.on_tick(self.nodes)
        if self.save is not None and now - self.saved > self.save_seconds:
            self.keep(table=now - self.table_saved > self.searcher.table_seconds)

    def keep(self, table: bool = True) -> None:
        """Save the whole records written so far (and the kept table, when ``table``: it can be gigabytes)."""
        if self.save is not None and not self.replaying:
            self.save(bytes(self.out[:self.safe]), table)
            self.saved = time.monotonic()
            if table:
                self.table_saved = self.saved

    def winner_turn(self, a: int, d: int, extra: int) -> None:
        if (a, d, extra) in self.proven or self.spot(a, d):
            return
        self.tick()
        if self.replaying:
            b = self.byte()
            flag = self.board.flag
            move = b % flag
            child = a | 1 << move
            if move >= self.cells or (a | d) >> move & 1 or (b >= flag and (child, d, extra) in self.proven):
                raise KinarowError("the kept walk plays on a taken cell when replayed; remove it to walk from the "
                                   "start")
            self.moves += 1
            groups = self.read_sets(child, d) if b >= flag else []
            if (child, d, extra) not in self.proven:
                self.loser_turn(child, d, extra, groups)
            self.proven.add((a, d, extra))
            return
        # of the moves the table (or the evaluation) proves, read in one compiled pass, the one with the least work
        # below it (a win by the evaluation first). None known (a position proved through a sibling's zone, or
        # overwritten): the position's own search names one, in its order of moves; and failing that, every move,
        # most promising first, with a small budget before any with a larger one. In cell order instead, the walk
        # took far moves that also win but do not hurry (each a new turn of every reply): (19,4,4) after o2 f3 n2
        # m2 p2 q2 wrote 229,080 moves in 300 s unfinished, its mirror image 926 in all.
        found = self.least_work(a, d, extra)
        if found is None and self.proved(a, d, extra) is not None:
            found = self.least_work(a, d, extra)
        for budget in BUDGETS[1:] if found is None else ():
            found = next((x for x in self.searcher.ordered_cells(a, d)
                          if self.proved(a | 1 << x, d, extra, (budget,)) is not None), None)
            if found is not None:
                break
        if found is None:
            raise KinarowError(f"the proof search proves no move of the winner in a position of this walk "
                               f"({self.moves:,} moves written before it)")
        move = found
        child = a | 1 << move
        self.moves += 1
        if (child, d, extra) in self.proven:  # the replay does not expand it: no sets
            put_number(self.out, move, self.board.nbytes)
        else:
            groups = self.grouped(child, d, extra)
            put_number(self.out, move | self.board.flag if groups else move, self.board.nbytes)
            self.write_sets(groups, self.empty(child, d))
            self.loser_turn(child, d, extra, groups)
        self.proven.add((a, d, extra))

    def least_work(self, a: int, d: int, extra: int) -> int | None:
        """Of the winner's moves at (a, d) the table (or the evaluation) proves, the one with the least work
        below it: the smallest proof, likely (a win by the evaluation first); None when it proves none."""
        winning = [(work, x) for x, wins, _, work in self.searcher.known_children(a, d, self.winner, extra=extra)
                   if wins]
        return min(winning)[1] if winning else None

    def grouped(self, a: int, d: int, extra: int) -> list[list[int]]:
        """The sets of the loser's turn at (a, d): each a proved reply and the replies outside its zone."""
        left = self.empty(a, d)
        known = {y: zone for y, wins, zone, _ in self.searcher.known_children(a, d, self.winner, extra=extra)
                 if wins}
        zones: dict[int, int] = {}
        for y in left:
            zone = known[y] if y in known else self.proved(a, d | 1 << y, extra, BUDGETS[1:])
            if zone is None:
                raise KinarowError(f"the proof search does not prove the winner's answer to a reply of this walk "
                                   f"({self.moves:,} moves written before it)")
            zones[y] = zone
        todo = sum(1 << y for y in left)  # the replies not yet in a set, as a bitmask
        groups: list[list[int]] = []
        while todo:
            best = count = 0
            for y in left:  # the first reply whose set is the largest
                if todo >> y & 1:
                    k = (todo & ~zones[y]) | 1 << y
                    if k.bit_count() > count:
                        best, count = k, k.bit_count()
            if count < 2:  # every reply left is a set of one, an ordinary reply
                break
            todo &= ~best
            if self.proved(a, d | best, extra + count - 1) is not None:
                groups.append([c for c in left if best >> c & 1])
        return groups

    def write_sets(self, groups: list[list[int]], left: list[int], start: bool = False) -> None:
        """The sets of a turn whose replies are ``left`` (:func:`encode_sets`)."""
        encode_sets(self.out, groups, left, start, self.board.nbytes)
        self.sets += len(groups)
        self.shared += sum(len(g) for g in groups)

    def loser_turn(self, a: int, d: int, extra: int, groups: list[list[int]]) -> None:
        self.board.replies(a, d, extra, groups, self.winner_turn)
        self.proven.add((a, d, extra))


def _write(writer: _Writer, position: Position, winner: int, a: int, d: int) -> None:
    """The walk from the start (a, d): at the winner's turn, or at the loser's with the start's sets first."""
    if position.to_move == winner:
        writer.winner_turn(a, d, 0)
    elif writer.replaying:
        writer.loser_turn(a, d, 0, writer.read_sets(a, d))
    else:
        groups = writer.grouped(a, d, 0)
        writer.write_sets(groups, writer.empty(a, d), start=True)
        writer.loser_turn(a, d, 0, groups)


def shared_walk_fit(game: Game) -> Fit:
    """Whether this writer can write a walk with shared replies for ``game``, and why not when it cannot."""
    fit = shared_replies_fit(game, "win", value_names(game)[0])
    if fit and game.goal != Goal.NORMAL:
        return Fit.no("the proof search gives the loser stones in the normal game only")
    return fit


def shared_walk(
    searcher: ProofSearcher,
    position: Position,
    winner: int,
    *,
    time_limit: float | None = None,
    on_tick: Callable[[int], None] | None = None,
    keep: str | None = None,
    save_seconds: float = 60.0,
    max_nodes: int | None = None,
) -> SharedWalk | None:
    """The winner's strategy from ``position`` as a walk with shared replies (version 4), written with the
    answers of ``searcher`` (a proof search of the position's game). None when ``time_limit`` seconds, or
    ``max_nodes`` nodes of its searches, run out first (checked between the winner's moves). ``on_tick(nodes)``
    hears the nodes of its searches so far. The game must be one of free placement,
    one stone a turn, with the normal goal; the position a win of ``winner`` (1 or 2).

    ``keep`` is a file that keeps a stopped walk (the time limit, Ctrl-C, SIGTERM): its bytes so far, saved
    every ``save_seconds`` too, and the searcher's table when it keeps one (:meth:`ProofSearcher.keep_table`;
    written when stopped and every ``table_seconds`` of the searcher);
    the next walk of the same position replays them without searching and goes on. The file is removed when
    the walk is done."""
    game = position.game
    if not isinstance(position, Position) or game != searcher.game:
        raise KinarowError(f"this proof search is bound to {searcher.game}; give it a position of that game")
    if isinstance(winner, bool) or winner not in (1, 2):
        raise KinarowError(f"the winner is player 1 or 2, not {winner!r}")
    names = value_names(game)
    fit = shared_walk_fit(game)
    if not fit:
        raise KinarowError(f"a walk with shared replies cannot be written for {game}: {fit.reason}")
    if game.cells > 256:
        raise KinarowError(f"walks are written for boards of at most 256 cells; {game} has {game.cells}")
    if position.is_over:
        raise KinarowError("the game is over; there is no strategy to walk")
    time_limit = check_seconds(time_limit, "time_limit")
    start = time.perf_counter()
    prefix = b"" if keep is None else load_walk(keep, position, winner, SHARED_CHECKPOINT)

    def save(walk: bytes, table: bool) -> None:
        assert keep is not None
        if table and searcher.table_path is not None:  # the table first: the walk's bytes then never run ahead of it
            searcher._keep(0, 0.0)
        save_walk(keep, position, winner, np.frombuffer(walk, np.uint8), SHARED_CHECKPOINT)

    writer = _Writer(searcher, winner, None if time_limit is None else time.monotonic() + time_limit, on_tick,
                     prefix, None if keep is None else save, save_seconds)
    writer.max_nodes = check_count(max_nodes, "max_nodes")
    a, d = position.bits[winner], position.bits[3 - winner]
    if writer.proved(a, d, 0) is None:
        raise KinarowError(f"the proof search does not prove a win of the {names[winner - 1]} player here")
    try:
        with _deep(game.cells):
            _write(writer, position, winner, a, d)
    except _StoppedError:
        writer.keep()
        return None
    except KeyboardInterrupt:
        writer.keep()
        raise
    if writer.replaying:
        raise KinarowError(f"the kept walk '{keep}' is longer than this walk; remove it to walk from the start")
    if keep is not None and os.path.exists(keep):
        os.remove(keep)
    moves = [position.name(c) for c in position.moves]
    tree = StrategyTree(str(game), moves, names[winner - 1], walk=bytes(writer.out), shared=writer.moves)
    return SharedWalk(tree, writer.sets, writer.shared, len(writer.proven), writer.searches, writer.nodes,
                      time.perf_counter() - start)
