"""kinarow's perfect player against OpenSpiel's MCTS bot, on tic_tac_toe and connect_four.

Needs OpenSpiel (``pip install -e ".[openspiel]"``). Run from the repository root::

    python benchmarks/openspiel_mcts.py                            # 4 games of each, 1,000 simulations a move
    python benchmarks/openspiel_mcts.py --games 10 --simulations 5000
    python benchmarks/openspiel_mcts.py --games tic_tac_toe=20 connect_four=2

Each game is played by ``open_spiel.python.algorithms.evaluate_bots.evaluate_bots`` between kinarow's bot
(:func:`kinarow.search.openspiel.bot`, seeded) and OpenSpiel's ``MCTSBot`` with a ``RandomRolloutEvaluator``
(UCT constant ``--uct``, ``--simulations`` a move, ``--rollouts`` random rollouts a leaf, solved subtrees backed
up), the seats alternating: kinarow moves first in the even-numbered games. Game ``i`` seeds both bots with
``--seed + i``, so a run gives the same games again. The script prints, for each game and seat, kinarow's wins,
draws and losses, the mean number of moves, and the seconds each side spent; it exits with 1 if kinarow lost a
game (a perfect player never does).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from typing import Any

GAMES = ("tic_tac_toe", "connect_four")


@dataclass
class Tally:
    """kinarow's results in one game, in one seat."""

    game: str
    seat: str  #: "first" or "second"
    wins: int = 0
    draws: int = 0
    losses: int = 0
    moves: list[int] = field(default_factory=list)
    kinarow_seconds: float = 0.0
    mcts_seconds: float = 0.0

    @property
    def played(self) -> int:
        return self.wins + self.draws + self.losses


class Timed:
    """A bot whose ``step`` is timed; every other call passes through."""

    def __init__(self, bot: Any) -> None:
        self.bot, self.seconds = bot, 0.0

    def step(self, state: Any) -> int:
        start = time.perf_counter()
        try:
            return int(self.bot.step(state))
        finally:
            self.seconds += time.perf_counter() - start

    def restart_at(self, state: Any) -> None:
        self.bot.restart_at(state)

    def inform_action(self, state: Any, player: int, action: int) -> None:
        self.bot.inform_action(state, player, action)


def play(name: str, games: int, *, simulations: int, rollouts: int, uct: float, seed: int) -> list[Tally]:
    """``games`` games of ``name`` between kinarow's bot and MCTS, the seats alternating; kinarow's tallies."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import evaluate_bots, mcts

    from kinarow.search.openspiel import bot

    game = pyspiel.load_game(name)
    tallies = {seat: Tally(name, seat) for seat in ("first", "second")}
    for i in range(games):
        rng = np.random.RandomState(seed + i)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=rollouts, random_state=rng)
        opponent = Timed(mcts.MCTSBot(game, uct, simulations, evaluator, solve=True, random_state=rng))
        perfect = Timed(bot(game, seed=seed + i))
        ours = i % 2  # kinarow's player id: 0 moves first
        bots = [perfect, opponent] if ours == 0 else [opponent, perfect]
        state = game.new_initial_state()
        returns = evaluate_bots.evaluate_bots(state, bots, rng)
        tally = tallies["first" if ours == 0 else "second"]
        mine = returns[ours]
        if mine > 0:
            tally.wins += 1
        elif mine < 0:
            tally.losses += 1
        else:
            tally.draws += 1
        tally.moves.append(len(state.history()))
        tally.kinarow_seconds += perfect.seconds
        tally.mcts_seconds += opponent.seconds
    return [t for t in tallies.values() if t.played]


def report(tallies: list[Tally]) -> str:
    """The tallies as a table."""
    lines = ["game          kinarow plays  games  wins  draws  losses  moves  kinarow s  MCTS s"]
    for t in tallies:
        mean = sum(t.moves) / len(t.moves)
        lines.append(f"{t.game:<13} {t.seat:<13} {t.played:>6} {t.wins:>5} {t.draws:>6} {t.losses:>7} {mean:>6.1f} "
                     f"{t.kinarow_seconds:>10.2f} {t.mcts_seconds:>7.1f}")
    return "\n".join(lines)


def _counts(words: list[str], default: int) -> dict[str, int]:
    """``--games``: one count for every game, or ``name=count`` words."""
    if len(words) == 1 and words[0].isdigit():
        return dict.fromkeys(GAMES, int(words[0]))
    counts: dict[str, int] = {}
    for word in words:
        name, _, count = word.partition("=")
        if name not in GAMES or not count.isdigit():
            raise SystemExit(f"--games takes a count or NAME=COUNT with NAME one of {', '.join(GAMES)}, not {word!r}")
        counts[name] = int(count)
    return counts or dict.fromkeys(GAMES, default)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["4"], metavar="N",
                        help="games of each (default 4), or NAME=N for each game named")
    parser.add_argument("--simulations", type=int, default=1000, help="MCTS simulations a move (default 1000)")
    parser.add_argument("--rollouts", type=int, default=1, help="random rollouts a leaf (default 1)")
    parser.add_argument("--uct", type=float, default=2.0, help="the UCT exploration constant (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="the seed of game 0; game i uses seed + i (default 0)")
    args = parser.parse_args(argv)
    counts = _counts(args.games, 4)
    print(f"OpenSpiel MCTS ({args.simulations:,} simulations a move, {args.rollouts} random rollout"
          f"{'s' if args.rollouts != 1 else ''} a leaf, UCT {args.uct:g}) against kinarow's perfect player, "
          f"seed {args.seed}")
    tallies: list[Tally] = []
    for name, games in counts.items():
        if games > 0:
            tallies += play(name, games, simulations=args.simulations, rollouts=args.rollouts, uct=args.uct,
                            seed=args.seed)
    print(report(tallies))
    lost = sum(t.losses for t in tallies)
    print("kinarow lost no game." if lost == 0 else f"kinarow lost {lost} game{'s' if lost != 1 else ''}.")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
