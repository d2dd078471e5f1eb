"""Threat sequences in the proof search: positions settled, nodes and seconds, with and without them.

Run from the repository root::

    python benchmarks/bench_threats.py                                  # 9x9k5 and 15x15k5, the defaults below
    python benchmarks/bench_threats.py --games 9x9k5:20 --count 40 --cap 200000 --budgets 0,64,256

For each game (``text:stones``): ``--count`` random positions of ``stones`` stones (uniform random legal moves,
seed 1; positions already won are drawn again), each asked "does the player to move win?" by a fresh
:class:`kinarow.search.proof_search.ProofSearcher` table within ``--cap`` nodes, once per threat-sequence
budget (``vcf=``: attacker stones tried by one search for a victory by continuous fours; 0 turns them off).
Printed: the positions settled, the wins among them, the nodes and the seconds over all positions, and the
threat-sequence searches run. Where both settle a position their answers must agree (the script stops
otherwise). Seconds are wall-clock on one core; the kernels are loaded before the clock.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time

DEFAULTS = ("9x9k5:20", "15x15k5:40")


def positions(text: str, stones: int, count: int, seed: int = 1) -> list:
    from kinarow import Game

    game = Game(text)
    rng = random.Random(seed)
    out: list = []
    while len(out) < count:
        pos = game.start()
        for _ in range(stones):
            pos.play(rng.choice(pos.legal_moves()))
            if pos.is_over:
                break
        if not pos.is_over:
            out.append(pos)
    return out


def measure(text: str, stones: int, count: int, cap: int, budgets: list[int]) -> list[tuple]:
    from kinarow.engine import pns_kernel as P
    from kinarow.search.proof_search import ProofSearcher

    cases = positions(text, stones, count)
    rows = []
    answers: dict[int, bool] = {}
    for budget in budgets:
        searcher = ProofSearcher(cases[0].game, vcf=budget)
        searcher.attacker_wins(cases[0].game.start(), 1, max_nodes=1)  # loads the kernel
        settled = wins = nodes = tests = 0
        seconds = 0.0
        for i, pos in enumerate(cases):
            searcher.clear()
            start = time.perf_counter()
            answer = searcher.attacker_wins(pos, int(pos.to_move), max_nodes=cap)
            seconds += time.perf_counter() - start
            nodes += answer.nodes
            tests += int(searcher.ctrl[P.C_VCF_TESTS])
            if answer.wins is None:
                continue
            settled += 1
            wins += answer.wins
            if answers.setdefault(i, answer.wins) != answer.wins:
                raise SystemExit(f"{text} after '{pos.move_text()}': the answers differ with budget {budget}")
        rows.append((f"{text}:{stones}", budget, settled, count, wins, nodes, seconds, tests))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(DEFAULTS), help="text:stones, e.g. 9x9k5:20")
    parser.add_argument("--count", type=int, default=20, help="positions per game (default 20)")
    parser.add_argument("--cap", type=int, default=50_000, help="nodes per position (default 50,000)")
    parser.add_argument("--budgets", default="0,256", help="threat-sequence budgets, comma-separated")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"python {platform.python_version()}; {args.count} positions a game, {args.cap:,} nodes each")
    print(f"{'game:stones':14} {'vcf':>5} {'settled':>9} {'wins':>5} {'nodes':>11} {'seconds':>8} {'vcf tests':>10}")
    for spec in args.games:
        text, _, stones = spec.partition(":")
        for game, budget, settled, count, wins, nodes, seconds, tests in measure(
            text, int(stones or 20), args.count, args.cap, budgets
        ):
            print(f"{game:14} {budget:>5} {settled:>4} / {count:<2} {wins:>5} {nodes:>11,} {seconds:>8.2f} "
                  f"{tests:>10,}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
