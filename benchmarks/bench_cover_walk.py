"""How large is a win's proof tree when the loser's replies outside a proof's relevance zone share one subtree?

A measurement for a certificate format not built yet (docs/parallel.md, "(18,4,4)"): the walk of a win in which,
at each of the loser's turns, a proved reply ``y`` and every legal reply outside ``y``'s proof zone form one set
``K``, and the position where the loser was given all of ``K`` at once (the winner to move) stands for each of
them: fewer loser stones never hurt the winner (see "Given stones" in :mod:`kinarow.engine.pns_kernel`). Each
such position is searched as it is (``ProofSearcher.attacker_wins_stones`` with the loser's extra stones).
``--plain`` walks one subtree a reply, as today's certificates do, with the same move choice (the first move
in cell order whose child is proved), so the two counts compare like with like.

It counts the winner's prescribed moves and the positions met, and writes nothing. Free placement, normal goal.

    python benchmarks/bench_cover_walk.py 9x4k4 --moves e2
    python benchmarks/bench_cover_walk.py 9x4k4 --moves e2 --plain
    python benchmarks/bench_cover_walk.py 18x4k4 --moves "e1 g2" --tt-mb 2048
"""

from __future__ import annotations

import argparse
import sys
import time

from kinarow import Game
from kinarow.search.proof_search import ProofSearcher

BUDGETS = (2, 1_000, 100_000, 10_000_000)  # nodes: a table read first, then growing searches


class Walk:
    def __init__(self, game: Game, searcher: ProofSearcher, cover: bool, time_limit: float) -> None:
        self.groups = [sum(1 << c for c in g) for g in game.geometry.groups]
        self.cells = game.cells
        self.searcher = searcher
        self.cover = cover
        self.deadline = time.monotonic() + time_limit
        self.seen: set[tuple[int, int, bool]] = set()
        self.moves = self.covers = self.covered = self.searches = self.nodes = 0
        self.most_given = 0
        self.winner = 1

    def proved(self, a: int, d: int, extra: int, budgets: tuple[int, ...] = BUDGETS) -> int | None:
        """The zone of (a, d) if the winner wins there, else None (budgets growing)."""
        for budget in budgets:
            answer = self.searcher.attacker_wins_stones(a, d, self.winner, extra=extra, max_nodes=budget)
            self.searches += 1
            self.nodes += answer.nodes
            if answer.wins is not None:
                return answer.zone if answer.wins else None
        return None

    def wins_now(self, a: int, d: int) -> bool:
        return any(g & d == 0 and bin(g & ~a).count("1") == 1 for g in self.groups)

    def winner_turn(self, a: int, d: int, extra: int) -> None:
        if time.monotonic() > self.deadline:
            raise TimeoutError
        if self.wins_now(a, d) or (a, d, True) in self.seen:
            return
        self.seen.add((a, d, True))
        for budget in BUDGETS:  # every move with a small budget before any with a larger one
            for x in range(self.cells):
                if not (a | d) >> x & 1 and self.proved(a | 1 << x, d, extra, (budget,)) is not None:
                    self.moves += 1
                    self.loser_turn(a | 1 << x, d, extra)
                    return
        raise RuntimeError("no proved move: the position is not a win")

    def loser_turn(self, a: int, d: int, extra: int) -> None:
        if any(g & a == g for g in self.groups) or (a, d, False) in self.seen:
            return
        self.seen.add((a, d, False))
        left = [c for c in range(self.cells) if not (a | d) >> c & 1]
        zones = {y: self.proved(a, d | 1 << y, extra) for y in left}
        todo = set(left)
        while todo:
            best: set[int] = set()
            for y in sorted(todo):
                zone = zones[y]
                if zone is None:
                    raise RuntimeError("a reply the winner does not answer: the position is not a win")
                k = {c for c in todo if c == y or not zone >> c & 1} if self.cover else {y}
                if len(k) > len(best):
                    best = k
            todo -= best
            if len(best) > 1:
                self.covers += 1
                self.covered += len(best)
                self.most_given = max(self.most_given, extra + len(best) - 1)
            self.winner_turn(a, d | sum(1 << c for c in best), extra + len(best) - 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--moves", default="")
    parser.add_argument("--tt-mb", type=float, default=1024)
    parser.add_argument("--plain", action="store_true", help="one subtree a reply (today's walks)")
    parser.add_argument("--time-limit", type=float, default=3600.0, help="seconds (default 3600)")
    args = parser.parse_args(argv)
    game = Game(args.game)
    position = game.position(args.moves)
    searcher = ProofSearcher(game, tt_mb=args.tt_mb)
    walk = Walk(game, searcher, not args.plain, args.time_limit)
    start = time.perf_counter()
    who = position.to_move
    first = searcher.attacker_wins(position, who)
    if not first.wins:
        who = 3 - who
        first = searcher.attacker_wins(position, who)
        if not first.wins:
            print(f"{game} after '{args.moves}': neither player's win is proved; nothing to walk")
            return 1
    walk.winner = who
    print(f"{game} after '{args.moves}': player {who} wins, {first.nodes:,} nodes, "
          f"{time.perf_counter() - start:.1f} s", flush=True)
    a, d = position.bits[who], position.bits[3 - who]
    sys.setrecursionlimit(100_000)
    try:
        (walk.winner_turn if position.to_move == who else walk.loser_turn)(a, d, 0)
        ended = "walked"
    except TimeoutError:
        ended = "time limit (counts so far)"
    print(f"{'plain' if args.plain else 'cover'} walk, {ended}: {walk.moves:,} prescribed moves, "
          f"{len(walk.seen):,} positions, {walk.covers:,} shared sets standing for {walk.covered:,} replies "
          f"(at most {walk.most_given} stones given), {walk.searches:,} searches of {walk.nodes:,} nodes, "
          f"{time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
