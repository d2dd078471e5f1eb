"""What a solve found: :class:`Result`, the answer of every route to a value (one process or parallel jobs,
from the search or the results store), and how a value is said in words (:func:`strong_sentence`).

It imports no search, so that the searches, the certificate writers (:mod:`kinarow.search.certify`) and the
front ends share one answer type without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from kinarow.proofs.tree import StrategyTree
from kinarow.values import Bound, Player, Value

if TYPE_CHECKING:
    from kinarow.search.certify import Proof
    from kinarow.search.disproof import DrawFromTable


@dataclass
class Result:
    """What :func:`solve` found.

    ``value`` is a :class:`~kinarow.values.Value`: ``first``, ``second`` or
    ``draw`` (``maker`` / ``breaker`` for Maker-Breaker), or ``unknown`` when
    the node or time budget ran out or the search was interrupted; a parallel
    solve asked one side's question may answer with a
    :class:`~kinarow.values.Bound` (``first-or-draw``, ``second-or-draw``).
    ``to_move`` is the :class:`~kinarow.values.Player` to move (None when the
    game is over). Both are string enums, so JSON shows the same words.
    """

    game: str
    moves: str
    value: Value | Bound
    nodes: int
    seconds: float
    best_move: str | None
    to_move: Player | None
    stopped: str | None = None
    strategy: StrategyTree | None = field(default=None, repr=False)
    knowledge: str = "none"
    knowledge_note: str | None = None
    certificate: Any = field(default=None, repr=False)
    #: a proof search's draw solved with ``proof=True``: its ``kinarow.draw`` certificate, read from that search's
    #: own table (:func:`kinarow.search.disproof.draw_from_table`); None otherwise
    draw_tree: DrawFromTable | None = field(default=None, repr=False)
    knowledge_cuts: int | None = 0  # None: not known (an answer stored by an older version)
    #: the certificate of the value (``solve(..., proof=True)``): :class:`kinarow.search.certify.Proof`
    proof: Proof | None = field(default=None, repr=False)
    #: when the results store kept this answer (``solve(..., store=...)``); None when it was searched now
    stored_at: float | None = field(default=None, repr=False)
    #: why the value holds without search, said with it: 'no line of 9 cells fits on this 3x3 board'
    note: str | None = None
    #: the number of the stone (counting from the first of the game) on which the game ends with perfect play,
    #: the winner ending it as soon as it can and the loser as late as it can; None for a draw, or when the
    #: solve was not strong or stopped first (``solve(..., strong=True)``, :meth:`Searcher.game_length`)
    last_move: int | None = None
    #: was the game length asked for (``strong=True``)? Then :meth:`to_dict` has ``last_move``
    strong: bool = False
    #: which search answered: ``proof-number search``, ``alpha-beta`` or ``score search`` (None: no search ran,
    #: e.g. an answer from the results store or a game already over)
    search: str | None = None
    #: the threads that searched at once, sharing one table (the Connect-k score search: ``threads``)
    threads: int = 1
    #: a proof search's win with its strategy: the nodes and seconds the walk over its table took (the search
    #: again where the table did not prove a move); None otherwise
    walk_nodes: int | None = None
    walk_seconds: float | None = None

    @property
    def from_store(self) -> bool:
        """Did this answer come from the results store (no search)?"""
        return self.stored_at is not None

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": self.game,
            "moves": self.moves,
            "to_move": self.to_move,
            "value": self.value,
            "best_move": self.best_move,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
            "nodes_per_second": round(self.nodes_per_second),
        }
        if self.stopped:
            out["stopped"] = self.stopped
        out["knowledge"] = self.knowledge
        out["knowledge_cuts"] = self.knowledge_cuts
        if self.knowledge_note:
            out["knowledge_note"] = self.knowledge_note
        if self.certificate is not None:
            out["certificate"] = self.certificate.to_json()
        if self.note:
            out["note"] = self.note
        if self.strong:
            out["last_move"] = self.last_move
        if self.search:
            out["search"] = self.search
        if self.threads > 1:
            out["threads"] = self.threads
        if self.walk_nodes is not None:
            out["walk_nodes"] = self.walk_nodes
            out["walk_seconds"] = round(self.walk_seconds or 0.0, 6)
        return out

    def describe(self) -> str:
        """The value in words, e.g. ``draw`` -> 'Draw with perfect play.' (:data:`kinarow.values.SENTENCES`),
        with the move on which the game ends when the solve was strong ('First player (Black) wins on move 7
        with perfect play.') and the reason where the result has one (``note``)."""
        text = strong_sentence(self.value, self.last_move)
        if self.strong and self.stopped and self.value not in (Value.DRAW, Value.UNKNOWN):
            text = f"{text[:-1]}; the search stopped ({self.stopped}) before it found on which move the game ends."
        return f"{text[:-1]}: {self.note}." if self.note else text


R = TypeVar("R", bound=Result)


def strong_sentence(value: Value | Bound, last_move: int | None) -> str:
    """A value in words (:data:`kinarow.values.SENTENCES`), with the move on which the game ends when it is known:
    'First player (Black) wins on move 7 with perfect play.'"""
    text = value.sentence
    if last_move is None:
        return text
    return text.replace(" with perfect play", f" on move {last_move} with perfect play", 1)
