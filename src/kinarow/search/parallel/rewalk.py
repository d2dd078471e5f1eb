"""A job run's kept walks written again with today's writer of shared replies, kept where they are smaller.

A job run keeps each win's walk in its checkpoint as the writer of its day wrote it. The writer improves (until
2026-11-29 a turn the table proved no move of took the first winning move in cell order, often a far one that
does not hurry): (19,4,4)'s reply e2 o3, kept as 327,596 of the winner's moves, is 459 when written again, after
a question of 5,243 nodes. :func:`rewalk` asks each kept position again with one proof search (its table carried
from walk to walk), writes the walk with shared replies, checks it with the compiled strategy checker, and
replaces the kept walk only when the new one is smaller. Each replacement is written at once: a stop loses
nothing, and a run of the job run beside it is safe (it only adds rows).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import value_names

if TYPE_CHECKING:
    from kinarow.search.parallel.checkpoint import JobStore


@dataclass
class Rewalked:
    """One kept walk written again."""

    moves: str  # its position's line (the frame it was kept in)
    before: int  # the winner's moves it had
    after: int  # the winner's moves of the new walk
    kept: bool  # the new walk replaced the old one
    seconds: float
    asked: bool = True  # False: the question ran out of its nodes (``max_nodes``), nothing written


def rewalk(store: JobStore, game_text: str, *, above: int = 0, tt_mb: float = 1024.0, max_nodes: int | None = None,
           on_walk: Callable[[Rewalked], None] | None = None) -> list[Rewalked]:
    """Write again each kept walk of ``game_text`` in ``store`` (a
    :class:`~kinarow.search.parallel.checkpoint.JobStore`) with more than ``above`` of the winner's moves, the
    largest first, and keep the new one where it is smaller; a position whose question needs more than
    ``max_nodes`` nodes is left as it is. ``on_walk`` hears each as it ends."""
    from kinarow.proofs.tree import check_certificate
    from kinarow.search.parallel.checkpoint import pack_shared
    from kinarow.search.proof_search import ProofSearcher
    from kinarow.search.shared_walk import shared_walk, shared_walk_fit

    game = Game(game_text)
    fit = shared_walk_fit(game)
    if not fit:
        raise KinarowError(f"kept walks of {game} cannot be written again with shared replies: {fit.reason}")
    rows = store.kept_walks(game_text, above)
    if not rows:
        raise KinarowError(f"the checkpoint keeps no walk of {game_text} with more than {above:,} of the winner's "
                           "moves")
    searcher = ProofSearcher(game, tt_mb=tt_mb)
    names = value_names(game)
    done: list[Rewalked] = []

    def report(walk: Rewalked) -> None:
        done.append(walk)
        if on_walk is not None:
            on_walk(walk)

    for key, line, winner, before in rows:
        start = time.perf_counter()
        position = game.position(line)
        who = names.index(winner) + 1
        answer = searcher.attacker_wins(position, who, max_nodes=max_nodes)
        if answer.wins is None:  # over its budget: left as it is
            report(Rewalked(line, before, before, False, time.perf_counter() - start, asked=False))
            continue
        if not answer.wins:
            raise KinarowError(f"the proof search does not prove the kept win after {line}; the checkpoint's walk "
                               "is left as it was")
        written = shared_walk(searcher, position, who)
        assert written is not None and written.tree.walk is not None  # no limit: it ends
        after = written.tree.size
        kept = after < before
        if kept:  # a claim like any other: checked before it replaces a checked walk
            verdict = check_certificate(written.tree.to_json(), compiled=True)
            if not verdict.ok:
                raise KinarowError(f"internal error: the walk written again after {line} fails its check: "
                                   f"{verdict.reason}")
            store.put_strategy(game_text, key, line, winner, pack_shared(written.tree.walk, after),
                               time.perf_counter() - start)
        report(Rewalked(line, before, after, kept, time.perf_counter() - start))
    return done
