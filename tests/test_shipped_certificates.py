"""Every certificate shipped in certificates/ passes ``kinarow check`` (rules only, no search code)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kinarow.cli import main
from kinarow.papers import open_cases

HERE = Path(__file__).resolve().parents[1] / "certificates"
SHIPPED = sorted([*HERE.glob("*.strategy.json*"), *HERE.glob("*.draw.json*"), *HERE.glob("*.parts.json*"),
                  *HERE.glob("*.matching.json*")])
LOGS = sorted(HERE.glob("*.searchlog.json*"))


# The compiled check of a large certificate keeps the proven positions (a strategy's: all but its wins on the
# spot): Connect Four's win, 136,513,145 positions checked, 1.35 GB peak (about 60 s); the (8,8,5) draw,
# 15,395,855, 2.4 GiB (about 27 s); the (16,4,4) win, 409,105,418, 0.70 GB (about 60 s); the (17,4,4) win,
# 361,246,438, 0.75 GB (about 100 s, base-3 keys of two words). On a smaller machine such a test is skipped, saying
# why.
# the (m,4,4) widths settled by job runs kept in checkpoints/ (docs/results.md), up to 25 each merged into one walk
# with shared replies: checked in seconds, under 1 GB ((24,4,4): 918,578 moves, about a minute and 3.5 GB;
# (25,4,4): 2,284,220 moves, about 30 s and 3.9 GB)
# From 26 on the certificate is one strategy a reply (kinarow.strategy-parts, open_cases.PARTS_FOUR_HIGH), written
# from the checkpoint in seconds: (25,4,4)'s, written so for comparison, has 2,300,008 moves against the merged
# walk's 2,284,220, and the same check.
JOB_RUN = {w.m: w.certificate for w in open_cases.FOUR_HIGH
           if w.certificate and (w.m >= 19 or w.m in open_cases.PARTS_FOUR_HIGH)}
NEEDS_GIB = {"connect4.strategy.json.gz": 2, "8x8k5.draw.json.gz": 4, "16x4k4.strategy.json.gz": 2,
             "17x4k4.strategy.json.gz": 2, "18x4k4.strategy.json.gz": 2, "misere-cylinder-11x3k3.strategy.json.gz": 2,
             "misere-cylinder-9x5k3.strategy.json.gz": 4,
             **{name: 1 for name in JOB_RUN.values()}, "24x4k4.strategy.json.gz": 4,
             "25x4k4.strategy.json.gz": 4}


def _memory_gib() -> float:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30


# Certificates whose compiled check alone would take a large share of the suite's 15 minutes: checked with
# --runslow (and by the command in docs/results.md, whose figures say how long it takes).
# (16,4,4) and (17,4,4)'s first certificates, proof trees of 12.6 M and 9.6 M moves, were the two slowest tests
# (60-180 s each); the table's certificates of both are now parts files of 60,987 and 76,820 moves (about 1 and 3 s),
# and the proof trees are kept for the column counts of docs/results.md, checked with --runslow.
# The (11,3,3) misère cylinder's win, a walk of 37.0 M moves (19 MB), is checked in about 70 s, and the (9,5,3)
# one's, 67.0 M moves (36 MB), in about 130 s: with --runslow too.
VERYLONG: set[str] = {"16x4k4.strategy.json.gz", "17x4k4.strategy.json.gz", "misere-cylinder-11x3k3.strategy.json.gz",
                      "misere-cylinder-9x5k3.strategy.json.gz"}


# The (8,8,5) certificate and its part after 1. a1 are blocking trees of millions of positions: minutes (the part)
# to about an hour (the whole tree) in the Python walk, 2 s and 27 s in the compiled walk, which checks them here;
# tests/test_draw_kernel.py shows the two walks agree.
@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.verylong) if p.name in VERYLONG else p
                                  for p in SHIPPED], ids=[p.name for p in SHIPPED])
def test_shipped_certificate_passes_the_checker(path, capsys):
    need = NEEDS_GIB.get(path.name, 0)
    if need > _memory_gib():
        pytest.skip(f"checking {path.name} needs about {need} GiB of memory; this machine has {_memory_gib():.1f}")
    # a strategy (and a draw proof's non-losing walks and blocking trees) is replayed by the compiled walks: the
    # Python walk of a shipped win takes far longer, and the strategy and draw tests show on every game they solve
    # (and on tampered certificates) that the two walks give the same verdict
    code = main(["check", str(path), "--compiled"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.startswith("VALID")
    if path.name in PUBLISHED_DRAWS or path.name in SETTLED_DRAWS:  # checked once: here its claim too
        assert out.rstrip().endswith(": draw."), PUBLISHED_DRAWS.get(path.name) or SETTLED_DRAWS[path.name]


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_search_logs_are_not_accepted_as_certificates(path, capsys):
    assert main(["check", str(path)]) == 1
    assert "search log" in capsys.readouterr().err


# The published values the shipped draw proofs reproduce: each file's claim is the draw of the empty
# board, and the checker's verdict on it (above) ends in "draw".
PUBLISHED_DRAWS = {
    "7x4k4.draw.json.gz": "(7,4,4): a known draw in the literature (no paper of ours gives its proof)",
    "8x4k4.draw.json.gz": "(8,4,4): a known draw in the literature (no paper of ours gives its proof)",
    "7x7k5.draw.json.gz": "(7,7,5): a draw, Hsu et al. (Theoretical Computer Science, 2020)",
    "8x8k5.draw.json.gz": "(8,8,5): a draw, Hsu et al. (Theoretical Computer Science, 2020)",
}


# Draws kinarow settled itself, with no published value to compare: each file's claim is the draw of the empty
# board all the same (the checker's verdict above proves it).
SETTLED_DRAWS = {
    "8x7k5.draw.json.gz": "(8,7,5): a draw by kinarow's own search and certificate (2026-11-27)",
    "9x5k5.draw.json.gz": "(9,5,5): a draw by kinarow's own search and certificate (2026-12-04)",
    "10x5k5.draw.json.gz": "(10,5,5): a draw by kinarow's own search and certificate (2026-12-04)",
    "9x6k5.draw.json.gz": "(9,6,5): a draw by kinarow's own search and certificate (2026-12-04)",
}


@pytest.mark.parametrize("name", sorted([*PUBLISHED_DRAWS, *SETTLED_DRAWS]))
def test_shipped_draw_proofs_claim_the_published_draw(name):
    import gzip
    import json

    why = PUBLISHED_DRAWS.get(name) or SETTLED_DRAWS[name]
    assert (HERE / name) in SHIPPED  # so the test above checks it
    data = json.loads(gzip.decompress((HERE / name).read_bytes()))
    assert data["game"] == name.split(".")[0] and data["moves"] == [], why
    assert data["claim"] == "draw", why


# The shipped wins: each file's claim is the first player's win from the empty board of its game.
SETTLED_WINS = {
    "9x4k4.strategy.json.gz": ("9x4k4", "(9,4,4): Tung & Lau conjectured a draw; a 2017 bachelor thesis (not peer "
                               "reviewed) reported a first-player win; this certificate shows the win"),
    "10x4k4.strategy.json.gz": ("10x4k4", "(10,4,4): open, as (9,4,4) (a conjectured draw, an unreviewed "
                                "first-player-win claim); this certificate shows the win"),
    "11x4k4.strategy.json.gz": ("11x4k4", "(11,4,4): open in the literature (only 4 x 30 is reported, a win); this "
                                "certificate, the proof search's proof tree, shows the win"),
    "12x4k4.strategy.json.gz": ("12x4k4", "(12,4,4): open in the literature (only 4 x 30 is reported, a win); this "
                                "certificate, the proof search's proof tree, shows the win"),
    "13x4k4.strategy.json.gz": ("13x4k4", "(13,4,4): open in the literature (only 4 x 30 is reported, a win); this "
                                "certificate, the proof search's proof tree, shows the win"),
    "14x4k4.strategy.json.gz": ("14x4k4", "(14,4,4): open in the literature (only 4 x 30 is reported, a win); this "
                                "certificate, the proof search's proof tree, shows the win"),
    "15x4k4.strategy.json.gz": ("15x4k4", "(15,4,4): open in the literature (only 4 x 30 is reported, a win); this "
                                "certificate, the proof search's proof tree, shows the win"),
    "18x4k4.strategy.json.gz": ("18x4k4", "(18,4,4): open in the literature (only 4 x 30 is reported, a win); this "
                                "certificate, a walk with shared replies written from the proof search's table, "
                                "shows the win"),
    "connect4.strategy.json.gz": ("7x6k4:gravity", "Connect Four (7 x 6): a first-player win (Allen; Allis, 1988); "
                                  "this certificate is the whole winning strategy"),
}
SETTLED_WINS.update({
    name: (f"{m}x4k4", f"({m},4,4): open in the literature (only 4 x 30 is reported, a win); this certificate, the "
           f"job run's walks ({'one a reply' if m in open_cases.PARTS_FOUR_HIGH else 'merged into one'}), shows "
           "the win") for m, name in JOB_RUN.items()})


@pytest.mark.parametrize("name", sorted(SETTLED_WINS))
def test_shipped_wins_claim_the_first_players_win_from_the_start(name):
    import gzip
    import json

    assert (HERE / name) in SHIPPED  # so the first test checks it
    game, source = SETTLED_WINS[name]
    data = json.loads(gzip.decompress((HERE / name).read_bytes()))
    assert data["game"] == game and data["moves"] == [], source
    assert (data["claim"], data["winner"]) == ("first wins", "first"), source


# Connect Four on smaller boards: each file's claim is the published outcome of the empty board (John Tromp's
# table of Connect Four outcomes by board size), as a winning walk or as a draw of two non-losing walks.
CONNECT_FOUR = {
    "connect4-6x6.strategy.json.gz": ("6x6k4:gravity", "second wins", "6 x 6: a second-player win (Tromp's table)"),
    "connect4-7x4.draw.json.gz": ("7x4k4:gravity", "draw", "7 x 4: a draw (Tromp's table)"),
}


@pytest.mark.parametrize("name", sorted(CONNECT_FOUR))
def test_shipped_connect_four_boards_claim_the_published_outcome(name):
    import gzip
    import json

    assert (HERE / name) in SHIPPED  # so the first test checks it
    game, claim, source = CONNECT_FOUR[name]
    data = json.loads(gzip.decompress((HERE / name).read_bytes()))
    assert (data["game"], data["moves"], data["claim"]) == (game, [], claim), source
    if claim == "draw":  # both halves are non-losing walks: gravity has no blocking trees
        assert {data[h]["method"] for h in ("first_cannot_win", "second_cannot_win")} == {"non-losing-walk"}


# Misère Connect-k on cylinders past kinarow reproduce misere-cylinder's node budget (docs/misere.md): no paper gives
# these values (Steele & Larremore leave cylinders open); each file is the winner's walk found by kinarow's
# alpha-beta search, and the reproduction counts its cell by it (papers.steele_larremore.SHIPPED).
MISERE_CYLINDERS = {
    "misere-cylinder-9x3k3.strategy.json.gz": ("9x3k3:gravity,misere,cylinder", "first wins"),
    "misere-cylinder-11x3k3.strategy.json.gz": ("11x3k3:gravity,misere,cylinder", "second wins"),
    "misere-cylinder-7x7k3.strategy.json.gz": ("7x7k3:gravity,misere,cylinder", "second wins"),
    "misere-cylinder-9x5k3.strategy.json.gz": ("9x5k3:gravity,misere,cylinder", "first wins"),
}


@pytest.mark.parametrize("name", sorted(MISERE_CYLINDERS))
def test_shipped_misere_cylinders_claim_their_cells_value(name):
    import gzip
    import json

    from kinarow.papers.steele_larremore import SHIPPED as TABLE_SHIPPED

    assert (HERE / name) in SHIPPED  # so the first test checks it
    game, claim = MISERE_CYLINDERS[name]
    assert TABLE_SHIPPED[game] == name  # the reproduction reads this file for this cell
    data = json.loads(gzip.decompress((HERE / name).read_bytes()))
    assert (data["game"], data["moves"], data["claim"]) == (game, [], claim)
