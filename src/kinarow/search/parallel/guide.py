"""A job run guided by another width's checkpoint: each open win test is split at once at the move that won there.

Why: on boards four rows high the first player's winning attacks near the left edge are the same from width to
width, and the proof search's own choice at a position can be far harder to prove than the move that won the
same line on a narrower board (docs/results.md, "How each width was found": 2.4 M nodes at the narrower board's move
where the search's own had run for hours). A guide turns the hand method (one deeper job per reply, at the move
read from the narrower board's checkpoint) into one command: ``kinarow solve ... --question first-wins --guide
FILE``.

The guide is a checkpoint of the same game on another width (same rows, k, stones per turn and rules). A line of
this board is read on the guide's board column by column: a stone in the left half keeps its column, one in the
right half keeps its distance from the right edge. The guide's move at that line is, in this order, the first
move of the winner's walk it kept there, a move whose position it proved a win for that player, or the move a
split there asked first; read back the same way. A guide only orders the search (the split's children are the
same jobs whatever comes first, and each answer is proved as usual); a move that is no good costs time, never a
wrong value.
"""

from __future__ import annotations

import os

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position, value_names
from kinarow.proofs.tree import winning_stone
from kinarow.search.parallel.checkpoint import JobStore, unpack_shared
from kinarow.search.parallel.frontier import FIRST, FIRST_WINS, SECOND, SECOND_WINS, canonical_board, stored_frontier

__all__ = ["Guide"]


def _same_but_width(a: Game, b: Game) -> bool:
    return (a.n, a.k, a.p, a.q, a.flags) == (b.n, b.k, b.p, b.q, b.flags)


class Guide:
    """The moves that won another width of a game, read from its checkpoint (opened read-only)."""

    def __init__(self, path: str | os.PathLike[str], root: Position, winner: int) -> None:
        """``root``: the guided run's start; ``winner``: the player (1 or 2) whose win its jobs test. The guide's game
        is the one in the file of the same rows, k and rules as ``root``'s and the nearest width (the narrower of
        two as near); what its stored jobs settle below ``root``'s line there is read as a run resuming from the
        file would (:func:`~kinarow.search.parallel.frontier.stored_frontier`)."""
        game = root.game
        if not isinstance(path, str | os.PathLike) or not str(path):
            raise KinarowError(f"guide names a checkpoint file of another width, not {path!r}")
        if game.topology != "rect" or game.hex:
            raise KinarowError(f"a guide reads the columns of a rectangular board of square cells; {game} is not one")
        if winner not in (1, 2):
            raise KinarowError(f"the guided player is 1 or 2, not {winner!r}")
        self.store = JobStore(path, readonly=True)
        try:
            kin = []
            for text in self.store.games():
                try:
                    other = Game(text)
                except KinarowError:
                    continue
                if _same_but_width(other, game):
                    kin.append(other)
            if not kin:
                held = ", ".join(text[:24] for text in self.store.games()[:6]) or "no game"
                raise KinarowError(f"the guide '{path}' holds no game like {game} on another width (it holds "
                                   f"{held}); give the checkpoint of a {game.n}-row board with k={game.k} and the "
                                   "same rules")
            self.game = min(kin, key=lambda g: (abs(g.m - game.m), g.m))
            self.target, self.winner = game, winner
            self.name = value_names(self.game)[winner - 1]
            self.syms = self.game.geometry.symmetries
            start = self._there(root)
            if start is None:
                raise KinarowError(f"the start line '{root.move_text()}' does not play on the guide's board "
                                   f"({self.game})")
            self.frontier = stored_frontier(start, self.store, FIRST_WINS if winner == 1 else SECOND_WINS)
        except BaseException:
            self.store.close()
            raise

    def close(self) -> None:
        self.store.close()

    def _cell(self, cell: int, source: Game, dest: Game) -> int | None:
        """A cell of ``source``'s board on ``dest``'s: its column kept from the nearer edge (the left in the
        middle), its row the same."""
        x, y = source.geometry.xy(cell)
        col = x if 2 * x <= source.m - 1 else x - (source.m - dest.m)
        return dest.geometry.cell(col, y) if 0 <= col < dest.m and y < dest.n else None

    def _there(self, position: Position) -> Position | None:
        """``position``'s line played on the guide's board, or None where it does not play there."""
        there = self.game.start()
        for cell in position.moves:
            mapped = self._cell(cell, self.target, self.game)
            if mapped is None or there.is_over or mapped not in there.legal_moves():
                return None
            there.play(mapped)
        return there

    def move(self, position: Position) -> int | None:
        """The guide's move (a cell of ``position``'s board) for the guided player at ``position``, or None where
        the guide has none (or its move does not play here)."""
        if position.is_over or position.to_move != self.winner:
            return None
        there = self._there(position)
        if there is None or there.is_over:
            return None
        found = self._guide_move(there)
        if found is None:
            return None
        back = self._cell(found, self.game, self.target)
        return back if back is not None and back in position.legal_moves() else None

    def _guide_move(self, there: Position) -> int | None:
        """The guide's move at its own position ``there`` (a cell of its board): the stone that wins at once, the
        first move of a kept walk, a move to a position its jobs prove won (the split's lead first), or the move a
        split asked first."""
        won = winning_stone(there, self.name)
        if won is not None:  # a walk plays such a stone without a byte of its own
            return won
        fr = self.frontier
        key, sym = canonical_board(there.board, self.syms)
        real = {s: c for c, s in enumerate(sym)}  # a cell of the canonical frame -> the cell of ``there``
        blob = self.store.get_strategy(str(self.game), key, self.name)
        if blob:
            shared = unpack_shared(blob)
            walk = blob if shared is None else shared[0]
            if walk:
                return real.get(walk[0] & 127)
        node = fr.by_key.get(key)
        if node is None or not fr.nodes[node].children:
            return None
        lead = fr.nodes[node].children[0] if node in fr.led else None
        proved, first = [], None
        for cell in there.legal_moves():
            there.play(cell)
            child = fr.by_key.get(canonical_board(there.board, self.syms)[0])
            there.undo()
            if child is None:
                continue
            kid = fr.nodes[child]
            if (kid.lo == FIRST) if self.winner == 1 else (kid.hi == SECOND):
                proved.append((child != lead, cell))
            if child == lead:
                first = cell
        return min(proved)[1] if proved else first
