"""A win's walk with shared replies (version 4) against the walk of one subtree a reply (version 3), side by side.

For a position the proof search wins, it writes both certificates from one search's table: the shared walk
(:mod:`kinarow.search.shared_walk`: the loser's replies outside a proof's zone share one subtree) and, with
``--plain``, today's compiled walk (``ProofSearcher.strategy_walk``). For each it prints the winner's moves, the
walk's bytes and its certificate's size (gzipped JSON), the seconds to write it and the compiled check's seconds
and positions (the check must pass). ``--plain-limit`` bounds the compiled walk (it is stopped and counted as
unfinished: on wide boards it does not finish).

    python benchmarks/bench_shared_walk.py 9x4k4 --moves e2 --plain
    python benchmarks/bench_shared_walk.py 18x4k4 --moves "e1 g2" --tt-mb 4096
"""

from __future__ import annotations

import _thread
import argparse
import gzip
import threading
import time

from kinarow import Game
from kinarow.proofs.tree import StrategyTree, check
from kinarow.search.proof_search import ProofSearcher
from kinarow.search.shared_walk import shared_walk


def report(name: str, tree: StrategyTree, seconds: float) -> None:
    size = len(gzip.compress(tree.dumps().encode(), 9))
    start = time.perf_counter()
    verdict = check(tree, compiled=True)
    checked = time.perf_counter() - start
    assert verdict.ok, verdict.reason
    print(f"{name}: {tree.size:,} moves, {len(tree.walk or b''):,} walk bytes, {size:,} bytes gzipped, written in "
          f"{seconds:.1f} s; compiled check {checked:.2f} s, {verdict.details['positions_checked']:,} positions",
          flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--moves", default="")
    parser.add_argument("--tt-mb", type=float, default=1024)
    parser.add_argument("--plain", action="store_true", help="also today's walk, one subtree a reply")
    parser.add_argument("--plain-limit", type=float, default=3600.0, help="seconds for it (default 3600)")
    args = parser.parse_args(argv)
    game = Game(args.game)
    position = game.position(args.moves)
    searcher = ProofSearcher(game, tt_mb=args.tt_mb)
    start = time.perf_counter()
    who = position.to_move
    answer = searcher.attacker_wins(position, who)
    if not answer.wins:
        who = 3 - who
        answer = searcher.attacker_wins(position, who)
    if not answer.wins:
        print(f"{game} after '{args.moves}': neither player's win is proved; nothing to walk")
        return 1
    print(f"{game} after '{args.moves}': player {who} wins, {answer.nodes:,} nodes, "
          f"{time.perf_counter() - start:.1f} s", flush=True)
    written = shared_walk(searcher, position, who)
    assert written is not None
    print(f"shared walk: {written.sets:,} sets standing for {written.shared:,} replies, {written.positions:,} "
          f"positions walked, {written.searches:,} searches of {written.nodes:,} nodes", flush=True)
    report("shared walk (version 4)", written.tree, written.seconds)
    if args.plain:
        start = time.perf_counter()
        timer = threading.Timer(args.plain_limit, _thread.interrupt_main)  # stops the walk as Ctrl-C would
        timer.start()
        try:
            moves = searcher.strategy_walk(position, who)
        except KeyboardInterrupt:
            print(f"plain walk (version 3): not finished after {time.perf_counter() - start:.0f} s")
            return 0
        finally:
            timer.cancel()
        names = ("first", "second")
        plain = StrategyTree(str(game), position.move_text().split(), names[who - 1], walk=moves)
        report("plain walk (version 3)", plain, time.perf_counter() - start)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
