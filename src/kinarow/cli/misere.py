"""Command line for strategies: ``kinarow verify STRATEGY GAME [--as first|second] [--json] [--out FILE]``."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from kinarow.errors import interrupted
from kinarow.values import Outcome


def add_commands(commands: Any) -> None:
    p = commands.add_parser(
        "verify", help="play a strategy against every reply of the opponent and state what it guarantees"
    )
    p.add_argument(
        "strategy", metavar="STRATEGY",
        help="take-even, delayed-take-even, pair-row, tally, canonical-boards or delayed-tally",
    )
    p.add_argument("game", metavar="GAME", help="a misere Connect-k game, e.g. 7x6k4:gravity,misere")
    p.add_argument("--as", dest="player", choices=("first", "second"), default=None,
                   help="the player the strategy plays (default: the one it is defined for)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--family", action="store_true",
                   help="prove the strategy for every board of GAME's family at once by an invariant certificate "
                   "(take-even: every even height and every width >= k)")
    p.add_argument("--max-positions", metavar="N", default=None,
                   help="stop after N positions (outcome 'unknown'; default 3,000,000)")
    p.add_argument("--proof", "--out", metavar="FILE", dest="out", default=None,
                   help="write a verified-strategy certificate to FILE (when the outcome is win or draw)")
    p.set_defaults(run=cmd_verify)


def cmd_verify(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.cli.common import EXIT_INTERRUPTED, EXIT_OK, check_outputs, positive_int, progress, write_text
    from kinarow.proofs.verified import VerifiedStrategy
    from kinarow.strategies import get
    from kinarow.strategies.verify import verify

    limit = positive_int("--max-positions", args.max_positions)
    check_outputs(("--out", args.out))
    strategy = get(args.strategy)
    if args.family:
        return _verify_family(args, strategy, out, err)
    with progress(f"verifying {strategy.name} in {args.game}", err) as tick:
        result = verify(strategy, args.game, args.player, max_positions=limit, on_tick=tick)
    note = None
    if args.out is not None:
        if result.outcome in (Outcome.WIN, Outcome.DRAW):
            cert = VerifiedStrategy(result.strategy, result.game, result.player, result.outcome, result.positions)
            write_text(args.out, json.dumps(cert.to_json()) + "\n", "the certificate")
            note = f"Certificate written to {args.out}; check it with 'kinarow check {args.out}'."
        else:
            note = f"No certificate written to {args.out}: the outcome is {result.outcome}."
    if args.json:
        print(json.dumps(result.to_dict()), file=out)
        if note:
            print(note, file=err)
    else:
        print(result.describe(), file=out)
        rows = [("strategy", result.strategy), ("game", result.game), ("player", result.player),
                ("outcome", result.outcome)]
        if result.counterexample is not None:
            rows.append(("counterexample", result.counterexample or "(the empty board)"))
        if result.longest is not None:
            rows.append(("longest game", f"{result.longest} stones"))
        rows += [("positions", f"{result.positions:,}"), ("seconds", f"{result.seconds:.3f}")]
        width = max(len(key) for key, _ in rows) + 1
        for key, value in rows:
            print(f"{key + ':':<{width}} {value}", file=out)
        if note:
            print(note, file=out)
    if result.outcome == Outcome.UNKNOWN and result.reason == "interrupted":
        print(f"{interrupted()}: the verification stopped before it had an answer.", file=err)
        return EXIT_INTERRUPTED
    return EXIT_OK


def _verify_family(args: argparse.Namespace, strategy: Any, out: TextIO, err: TextIO) -> int:
    """``kinarow verify STRATEGY GAME --family``: build the family's invariant certificate, check it, write it."""
    from kinarow.cli.common import EXIT_OK, write_text
    from kinarow.errors import KinarowError
    from kinarow.game import Game
    from kinarow.papers.misere_invariants import certificates
    from kinarow.proofs import check_data

    game = Game(args.game)
    player = strategy.check_applies(game, None if args.player is None else (1 if args.player == "first" else 2))
    if args.max_positions is not None:
        raise KinarowError("--family checks windows, not positions; leave out --max-positions")
    cylinder = game.topology == "cylinder"
    found = [c for c in certificates(game.k, cylinder) if c.strategy == strategy.name and c.player.stone == player
             and c.covers(game.k, game.m, game.n, cylinder)]
    if not found:
        raise KinarowError(f"kinarow has no invariant certificate of {strategy.name} for the family of {game}; "
                           "--family works for take-even on even heights, at widths >= k, and delayed-take-even on odd "
                           "heights >= 3 with k >= 3, at widths >= k (odd-width cylinders: >= 2k + 1)")
    cert = found[0]
    data = cert.to_json()
    verdict = check_data(data)
    if not verdict.ok:
        raise KinarowError(f"the invariant certificate for {cert.family} does not check: {verdict.reason}")
    if args.out is not None:
        write_text(args.out, json.dumps(data) + "\n", "the certificate")
    if args.json:
        print(json.dumps({"strategy": cert.strategy, "family": cert.family, "player": cert.player,
                          "outcome": "win", **verdict.details}), file=out)
    else:
        print(f"Proven: {verdict.reason}.", file=out)
        if args.out is not None:
            print(f"Certificate written to {args.out}; check it with 'kinarow check {args.out}'.", file=out)
    return EXIT_OK
