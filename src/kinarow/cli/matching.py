"""``kinarow matching``: matching sets for a hypergraph of groups, or for a position.

    kinarow matching GROUPS [--json] [--out FILE]
    kinarow matching GAME [--moves MOVES] [--player first|second|both] [--json] [--out FILE]

GROUPS is space-separated groups, each a comma-separated list of marker
names or a run of one-letter names (``"ab acd bce"``).
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any, TextIO

_GAME = re.compile(r"^\d+x\d+k\d+", re.IGNORECASE)


def add_commands(commands: Any) -> None:
    p = commands.add_parser(
        "matching",
        help="find a matching set (Uiterwijk's set matching) for groups or a position",
        description="Solve the Maker-Breaker game on the groups (Black = Maker, moving first) and, when Breaker "
        "(White) wins, print a matching set: markers, groups, coverage ratio and White's replies.",
    )
    p.add_argument("target", nargs="+", metavar="GROUPS|GAME",
                   help="groups like 'ab acd bce' or 'a1,b1 a1,c2', or a game string like 4x4k4")
    p.add_argument("--moves", default=None, help="with a GAME: moves played before, e.g. 'b2 a1'")
    p.add_argument("--player", choices=("first", "second", "both"), default="first",
                   help="with a GAME: whose live groups to cover (default first: 'the first player cannot win')")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--proof", "--out", metavar="FILE", dest="out", default=None,
                   help="write the matching-set certificate (JSON) to FILE")
    p.add_argument("--svg", metavar="FILE", default=None,
                   help="with a GAME: draw the board with the markers lettered and the groups as lines")
    p.add_argument("--png", metavar="FILE", default=None, help="with a GAME: the same picture as PNG (needs cairosvg)")
    p.set_defaults(run=cmd_matching)

    p = commands.add_parser(
        "matching-search",
        help="search non-overlapping hypergraphs for Breaker wins with a low coverage ratio (new configurations)",
    )
    p.add_argument("--exhaustive", metavar="V", default="8",
                   help="prove the most groups possible for up to V markers (default 8; 9 takes long)")
    p.add_argument("--max-markers", metavar="N", default="10", help="random greedy search up to N markers (default 10)")
    p.add_argument("--tries", metavar="T", default="200", help="random orders per marker count (default 200)")
    p.add_argument("--seed", metavar="S", default="1", help="random seed (default 1)")
    p.add_argument("--no-grid", action="store_true", help="skip placing the best ones on a 4-in-a-row board")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_matching_search)


def cmd_matching(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.cli.common import EXIT_OK, UsageError, check_outputs

    check_outputs(("--out", args.out), ("--svg", args.svg), ("--png", args.png))

    if len(args.target) == 1 and _GAME.match(args.target[0]):
        return _position(args, out)
    if args.moves is not None:
        raise UsageError("--moves needs a GAME (like 4x4k4) as the first argument, not groups")
    if args.svg is not None or args.png is not None:
        raise UsageError("--svg and --png need a GAME (like 4x4k4): abstract groups have no board to draw on")
    from kinarow.knowledge import matching

    result = matching.find(" ".join(args.target))
    ms = result.matching_set
    if args.out and ms is not None:
        _write(args.out, ms.to_json())
    if args.json:
        print(json.dumps(result.to_dict()), file=out)
        return EXIT_OK
    if result.breaker_wins:
        print(f"Breaker (White, moving second) wins: a matching set covers all {len(result.groups)} groups.", file=out)
    else:
        print("Maker (Black, moving first) wins: no matching set covers these groups.", file=out)
    print(f"markers:   {len(result.markers)}", file=out)
    print(f"groups:    {len(result.groups)}", file=out)
    print(f"reduction: {2 * len(result.groups) - len(result.markers)}", file=out)
    print(f"ratio:     {result.ratio:.2f}", file=out)
    if ms is not None:
        print(f"main markers: {' '.join(ms.main_markers) or '(none: a plain pairing)'}", file=out)
        print("matching set:", file=out)
        for line in render(ms):
            print("  " + line, file=out)
    overlaps = matching.overlapping(result.groups)
    if overlaps:
        i, j = overlaps[0]
        print(f"note: groups {' '.join(result.groups[i])} and {' '.join(result.groups[j])} share two or more "
              "markers (the paper's configurations do not overlap; the game is solved all the same)", file=out)
    print(f"nodes:     {result.nodes:,}   seconds: {result.seconds:.3f}", file=out)
    if args.out and ms is not None:
        print(f"Certificate written to {args.out}; check it with 'kinarow check {args.out}'.", file=out)
    return EXIT_OK


def _position(args: argparse.Namespace, out: TextIO) -> int:
    from kinarow.cli.common import EXIT_OK
    from kinarow.knowledge import matching

    players = {"first": (1,), "second": (2,), "both": (1, 2)}[args.player]
    proof, why = matching.find_position(args.target[0], moves=args.moves, players=players)
    if args.out and proof is not None:
        _write(args.out, proof.to_json())
    if args.json:
        data: dict[str, Any] = {"game": args.target[0], "moves": args.moves or "", "proved": proof is not None,
                                "conclusion": why}
        if proof is not None:
            data["covers"] = [
                {"player": p, "markers": len(ms.markers), "groups": len(ms.groups),
                 "ratio": round(ms.coverage_ratio, 4), "main_markers": ms.main_markers, "depth": ms.depth}
                for p, ms in proof.covers
            ]
            data["certificate"] = proof.to_json()
        print(json.dumps(data), file=out)
        return EXIT_OK
    if proof is None:
        print(f"No proof: {why}.", file=out)
        return EXIT_OK
    print(f"Proved: {why}.", file=out)
    for player, ms in proof.covers:
        print(f"{player} player's live groups: {len(ms.groups)}, markers {len(ms.markers)}, "
              f"ratio {ms.coverage_ratio:.2f}, levels {ms.depth}", file=out)
        for line in render(ms):
            print("  " + line, file=out)
    if args.out:
        print(f"Certificate written to {args.out}; check it with 'kinarow check {args.out}'.", file=out)
    _save_picture(args, proof, out)
    return EXIT_OK


def _save_picture(args: argparse.Namespace, proof: Any, out: TextIO) -> None:
    """``--svg`` / ``--png``: the position with every cover's markers lettered and its groups drawn."""
    from kinarow import svg
    from kinarow.cli.common import save_pictures
    from kinarow.game import Game

    def picture() -> str:
        position = Game(args.target[0]).position(args.moves)
        markers = [m for _, ms in proof.covers for m in ms.markers]
        groups = [g for _, ms in proof.covers for g in ms.groups]
        title = f"{position.game}: {proof.conclusion()}"
        return svg.matching_set(position, list(dict.fromkeys(markers)), groups, title=title)

    save_pictures(picture, args, out)


def cmd_matching_search(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.cli.common import EXIT_OK, positive_int
    from kinarow.knowledge.matching import search as S

    upto = positive_int("--exhaustive", args.exhaustive, upper=S.MAX_EXHAUSTIVE_MARKERS) or 8
    most = positive_int("--max-markers", args.max_markers, upper=S.MAX_GREEDY_MARKERS) or 10
    tries = positive_int("--tries", args.tries, upper=S.MAX_TRIES) or 200
    seed = positive_int("--seed", args.seed) or 1
    exact = []
    for v in range(4, upto + 1):
        groups, _nodes, finished = S.exhaustive(v)
        exact.append(S.Found(v, [[S.LETTERS[i] for i in range(v) if g >> i & 1] for g in groups]))
        if not finished:
            print(f"note: the exhaustive search for {v} markers ran out of its node budget", file=err)
    greedy = S.search_abstract(most, tries, 3, seed)
    pool = sorted(exact + greedy, key=lambda f: (f.ratio, f.markers))
    grid = None
    for f in [] if args.no_grid else pool:
        grid = S.place_on_grid(f)
        if grid is not None:
            break
    if args.json:
        print(json.dumps({"exhaustive": [f.to_dict() for f in exact], "greedy": [f.to_dict() for f in greedy],
                          "grid": grid.to_dict() if grid else None, "published_best_ratio": 8 / 7}), file=out)
        return EXIT_OK
    print("Breaker-win hypergraphs, groups of 2 or 3 markers, no two groups sharing two markers", file=out)
    print("(published best: FlatStar/Line, 8 markers, 7 groups, ratio 1.14)", file=out)
    print("most groups, proved by exhaustive search:", file=out)
    for f in exact:
        print(f"  {f.markers:>2} markers: {len(f.groups)} groups, ratio {f.ratio:.3f}   {f.spec}", file=out)
    print(f"most groups found by random greedy search ({tries} orders each):", file=out)
    for f in greedy:
        print(f"  {f.markers:>2} markers: {len(f.groups)} groups, ratio {f.ratio:.3f}   {f.spec}", file=out)
    best = pool[0]
    print(f"best ratio: {best.ratio:.3f} ({best.markers} markers, {len(best.groups)} groups: {best.spec})", file=out)
    if grid is not None:
        print(f"best on the square grid (4 in a row): ratio {grid.ratio:.3f} ({grid.spec}) on {grid.board} "
              f"after {grid.moves}", file=out)
    return EXIT_OK


def _write(path: str, data: dict[str, Any]) -> None:
    from kinarow.cli.common import write_text

    write_text(path, json.dumps(data) + "\n", "the certificate")


def render(ms: Any, limit: int = 60) -> list[str]:
    """The strategy as indented lines: 'x -> y, then ...' (at most ``limit`` lines)."""
    lines: list[str] = []

    def walk(node: Any, indent: str) -> None:
        if len(lines) >= limit:
            return
        if node.kind == "pairing":
            pairs = " ".join(f"{a}-{b}" for a, b in node.pairs or [])
            lines.append(f"{indent}pairs {pairs or '(none needed)'}")
            return
        if node.kind == "parts":
            for i, part in enumerate(node.parts or [], 1):
                lines.append(f"{indent}part {i} (markers {' '.join(part.markers)}):")
                walk(part, indent + "  ")
            return
        for x, (y, child) in node.coverings.items():
            if child.kind == "pairing":
                pairs = " ".join(f"{a}-{b}" for a, b in child.pairs or [])
                lines.append(f"{indent}{x} -> {y}, then pairs {pairs or '(none needed)'}")
            else:
                lines.append(f"{indent}{x} -> {y}, then:")
                walk(child, indent + "  ")

    walk(ms, "")
    if len(lines) >= limit:
        lines = [*lines[:limit], f"... ({ms.size:,} strategy nodes in all; --out writes the whole certificate)"]
    return lines
