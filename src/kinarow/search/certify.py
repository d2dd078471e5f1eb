"""The certificate of a solved value, and the results store behind :func:`kinarow.search.solve.solve`.

A value is only as good as its proof. This module chooses the certificate for
a result (the front ends -- ``kinarow solve``, ``kinarow settle``, the web
page -- only write or draw what it returns) and keeps results in a
:class:`kinarow.store.Store`:

* a win is proved by the winner's strategy tree (``kinarow.strategy``);
* a draw (or Breaker win) that knowledge settled at the root by the matching
  sets found there (``kinarow.matching``);
* a draw the proof search found by the blocking trees read from that search's
  own table (``kinarow.draw``; :func:`kinarow.search.disproof.draw_from_table`,
  as ``kinarow prove`` writes it): nothing is searched again;
* another draw (found by alpha-beta, or taken from the store) by a good pairing
  at the position when one exists (it shows the first player cannot win; on
  the empty board of a normal game with one stone a turn, strategy stealing
  shows the second player cannot win either; elsewhere, on boards of at most
  64 cells, the first player's non-losing walk is added and the two halves
  written as a draw proof), else by a draw proof of blocking trees
  (``kinarow.draw``);
* a draw where pairings do not apply (gravity, misere, several stones a turn)
  by a draw proof of two non-losing walks, one for each player (``kinarow.draw``,
  method ``non-losing-walk``), on boards of at most 64 cells;
* a win that the search found without the winner's strategy (the proof-number
  search) by the winner's strategy, extracted now (boards of at most 64 cells);
* other values have no certificate yet (a draw of a board of more than 64 cells
  where pairings do not apply), and :attr:`Proof.what` says why.

>>> from kinarow.search.solve import solve
>>> r = solve("3x3k3", proof=True)
>>> r.proof.kind, r.proof.format
('draw', 'kinarow.draw')
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from kinarow.engine.tables import MAX_CELLS, WIDE_CELLS
from kinarow.errors import ClaimMismatchError as ClaimMismatchError  # (raised here; defined with the other errors)
from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position
from kinarow.proofs import SEARCH_LOG_FORMAT, blocking_fit
from kinarow.proofs.draw import stealing_fit
from kinarow.proofs.tree import WALK_CELLS, StrategyTree, board_key
from kinarow.values import Goal, Player, Value

if TYPE_CHECKING:
    from kinarow.search.result import Result
    from kinarow.store import Store

R = TypeVar("R", bound="Result")  # a Result, or a parallel solve's (which adds the jobs' figures)

STRATEGY_FORMAT = "kinarow.strategy"
PAIRING_FORMAT = "kinarow.pairing"
SEARCHLOG_VERSION = 1


@dataclass
class Proof:
    """The certificate of a result's value, ready to write as JSON, and what it proves.

    ``data`` is the certificate (its ``format`` names the checker), or None
    when there is none; ``what`` says in words what it proves, or why there is
    none. ``kind`` is ``strategy``, ``matching``, ``pairing`` or ``draw`` (and
    ``searchlog`` for the evidence :func:`evidence` returns, which is not a
    certificate), None when there is no data.
    """

    data: dict[str, Any] | None
    what: str
    kind: str | None = None

    @property
    def format(self) -> str | None:
        """The certificate's format (``kinarow.strategy``, ``kinarow.pairing``, ...), or None."""
        return None if self.data is None else str(self.data.get("format"))

    @property
    def exists(self) -> bool:
        return self.data is not None


class WalkTooLargeError(KinarowError):
    """A strategy was asked for as a walk (version 3) on a board of more than :data:`WALK_CELLS` cells."""

    def __init__(self, game: str, cells: int) -> None:
        super().__init__(f"a strategy is written as a walk on boards of at most {WALK_CELLS} cells; {game} has "
                         f"{cells}; ask for the keyed form (walk=False)")
        self.game = game
        self.cells = cells


# -- the form of a strategy ---------------------------------------------------------------
def in_form(result: R, walk: bool) -> R:
    """``result`` with its strategy as a walk (version 3) when ``walk`` asks for it, else keyed by board.

    Raises :class:`WalkTooLargeError` for a walk on a board of more than
    :data:`~kinarow.proofs.tree.WALK_CELLS` cells.
    """
    if result.strategy is None:
        return result
    if not walk:
        result.strategy = result.strategy.expanded()
        return result
    cells = Game(result.game).cells
    if cells > WALK_CELLS:
        raise WalkTooLargeError(result.game, cells)
    result.strategy = result.strategy.compacted()
    return result


# -- the results store ----------------------------------------------------------------------
# The fields of a stored result and the types each may have (None: an answer of an older version that lacks it).
_INT, _NUM = (int,), (int, float)
_ROW_FIELDS: dict[str, tuple[type, ...]] = {
    "value": (str,), "best_move": (str, type(None)), "nodes": _INT, "seconds": _NUM, "moves": (str, type(None)),
    "knowledge": (str,), "knowledge_cuts": (int, type(None)), "knowledge_note": (str, type(None)),
    "root_proof": (bool,), "symmetry": (bool,), "stored_at": _NUM, "revision": _INT, "search": (str, type(None)),
}
# The search's revision, stored with each result. A result found with knowledge before revision 2 may name a
# losing best move where a knowledge cut settled the position (its value was right): such rows are not reused.
SEARCH_REVISION = 2


def row_problem(found: dict[str, Any], position: Position) -> str | None:
    """Why a stored result cannot be the answer for ``position`` (its fields' shapes and types, its value among
    the game's values, its best move a legal cell there), or None when it can."""
    from kinarow.limits import KNOWLEDGE_LEVELS
    from kinarow.position import value_names

    if "value" not in found:
        return "it has no value"
    for name, allowed in _ROW_FIELDS.items():
        if name not in found:
            continue
        item = found[name]
        if not isinstance(item, allowed) or (isinstance(item, bool) and bool not in allowed):
            return f"its field '{name}' is {type(item).__name__}, not {' or '.join(t.__name__ for t in allowed)}"
    if position.is_over:
        return "the game is already over in that position, so nothing is stored for it"
    values = {*value_names(position.game), *(() if position.game.goal == Goal.MAKER_BREAKER else (Value.DRAW,))}
    if found["value"] not in values | {Value.UNKNOWN}:
        return f"its value '{found['value']}' is not one of {', '.join(sorted(values))}"
    best = found.get("best_move")
    if best is not None and best not in {position.name(c) for c in position.legal_moves()}:
        return f"its best move '{best[:40]}' is not a legal move in that position"
    if found.get("knowledge", "none") not in KNOWLEDGE_LEVELS:
        return f"its knowledge level '{str(found['knowledge'])[:40]}' is not one of {', '.join(KNOWLEDGE_LEVELS)}"
    for name in ("nodes", "knowledge_cuts", "seconds", "stored_at"):
        number = found.get(name)
        if number is not None and not 0 <= number < float("inf"):
            return f"its field '{name}' is {number}, not a number of at least 0"
    return None


def _stored_strategy(data: dict[str, Any], position: Position, value: str) -> tuple[StrategyTree | None, str]:
    """The stored winning strategy of ``position`` when its checker accepts it and it proves ``value``; else
    (None, why not)."""
    from kinarow.proofs.tree import check

    try:
        tree = StrategyTree.from_json(data)
    except KinarowError as error:
        return None, f"its strategy is not a strategy certificate ({error})"
    if tree.game != str(position.game) or tree.winner != value:
        return None, (f"its strategy is for {tree.game[:40]} won by {tree.winner[:20]}, not {position.game} won by "
                      f"{value}")
    tree.moves = [position.name(c) for c in position.moves]
    try:
        verdict = check(tree, compiled=True)
    except (KinarowError, ValueError, TypeError, KeyError, IndexError) as error:  # CertificateError is a KinarowError
        return None, f"its strategy does not check ({error})"
    if not verdict.ok:
        return None, f"its strategy does not check: {verdict.reason}"
    return tree, ""


def _stored_root_proof(data: dict[str, Any] | None, position: Position, value: str) -> tuple[Any, str]:
    """The stored matching-set certificate of a value settled at the root, when it checks and proves ``value``;
    else (None, why not)."""
    from kinarow.proofs.matching import MatchingProof, check_proof

    if data is None:
        return None, "its matching-set certificate is missing"
    try:
        proof = MatchingProof.from_json(data)
    except KinarowError as error:
        return None, f"its matching-set certificate cannot be read ({error})"
    players = {player for player, _ in proof.covers}
    needed = ({Player.FIRST, Player.SECOND} if value == Value.DRAW else {Player.FIRST} if value == Value.BREAKER
              else None)
    if proof.game != str(position.game) or needed is None or not needed <= players:
        return None, f"its matching-set certificate does not prove the value '{value}'"
    proof.moves = [position.name(c) for c in position.moves]
    verdict = check_proof(proof)
    if not verdict.ok:
        return None, f"its matching-set certificate does not check: {verdict.reason}"
    return proof, ""


def stored_result(store: Store, position: Position, *, strategy: bool, knowledge: str | None = None,
                  symmetry: bool = True) -> Result | None:
    """The result ``store`` holds for ``position``, or None.

    Only an exact result is reused, and only when it was found with the same
    options: the same ``knowledge`` level and ``symmetry`` (an answer stored by
    an older version that did not record one is taken as found with it), and
    with the winner's strategy when ``strategy`` asks for it. The result's
    :attr:`~kinarow.search.solve.Result.stored_at` is when it was stored (0.0
    when not known).

    The store is not trusted: a row whose fields do not fit the position
    (:func:`row_problem`), or whose strategy or matching-set certificate is not
    accepted by its checker or proves another value, is ignored (the store says
    so, :meth:`~kinarow.store.Store.bad_row`) and None is returned, so the
    position is solved again.
    """
    from kinarow.search.result import Result

    game, key = str(position.game), board_key(position)
    found = store.get_result(game, key)
    if found is None:
        return None
    problem = row_problem(found, position)
    if problem is not None:
        store.bad_row(f"{game} {key}", problem)
        return None
    if found.get("knowledge", "none") != "none" and found.get("revision", 1) < SEARCH_REVISION:
        return None  # an older search's best move (see SEARCH_REVISION): solved again, and the row rewritten
    value = Value(found["value"])  # row_problem has checked it is one of the game's values
    if value == Value.UNKNOWN:
        return None
    if knowledge is not None and found.get("knowledge", knowledge) != knowledge:
        return None
    if found.get("symmetry", symmetry) != symmetry:
        return None
    tree = None
    if strategy and value != Value.DRAW:
        data = store.get_certificate(STRATEGY_FORMAT, game, key)
        if data is None:
            return None
        tree, why = _stored_strategy(data, position, found["value"])
        if tree is None:
            store.bad_row(f"{game} {key}", why)
            return None
    certificate = None
    if found.get("root_proof"):  # knowledge settled the value at the root: show the same proof as the search did
        from kinarow.proofs.matching import FORMAT as MATCHING_FORMAT

        certificate, why = _stored_root_proof(store.get_certificate(MATCHING_FORMAT, game, key), position,
                                              found["value"])
        if certificate is None:
            store.bad_row(f"{game} {key}", why)
            return None
    to_move = Player.of(position.to_move)
    note, cuts = found.get("knowledge_note"), found.get("knowledge_cuts")  # None in answers of older versions
    result = Result(game, position.move_text(), value, int(found.get("nodes", 0)),
                    float(found.get("seconds", 0.0)), found.get("best_move"), to_move, strategy=tree,
                    knowledge=str(found.get("knowledge", "none")), knowledge_note=str(note) if note else None,
                    certificate=certificate, knowledge_cuts=None if cuts is None else int(cuts),
                    search=found.get("search"))
    result.stored_at = float(found.get("stored_at", 0.0))
    return result


def save_result(store: Store, position: Position, result: Result, *, symmetry: bool = True) -> None:
    """Keep an exact result (and its strategy and root certificates) in ``store``; nothing for others."""
    if position.is_over or result.stopped or result.value == Value.UNKNOWN:
        return
    game, key = str(position.game), board_key(position)
    data: dict[str, Any] = {"value": result.value, "best_move": result.best_move, "nodes": result.nodes,
                            "seconds": round(result.seconds, 6), "moves": result.moves,
                            "knowledge": result.knowledge, "knowledge_cuts": result.knowledge_cuts,
                            "knowledge_note": result.knowledge_note, "root_proof": result.certificate is not None,
                            "revision": SEARCH_REVISION}
    if result.search:
        data["search"] = result.search
    if not symmetry:
        data["symmetry"] = False
    store.put_result(game, key, data)
    if result.strategy is not None:
        store.put_certificate(STRATEGY_FORMAT, game, key, result.strategy.to_json())
    if result.certificate is not None:
        from kinarow.proofs.matching import FORMAT as MATCHING_FORMAT

        store.put_certificate(MATCHING_FORMAT, game, key, result.certificate.to_json())


# -- the certificate of a value: the table of writers ------------------------------------------------
@dataclass(frozen=True)
class Writer:
    """One way to write the certificate of a solved value: what it proves, on which games, from what.

    ``fits(position, result)`` says whether it writes this result's certificate; ``write(position, result,
    store, tick)`` writes it. :data:`WRITERS` lists them in the order :func:`certificate` tries them."""

    name: str
    proves: str
    games: str
    source: str
    fits: Callable[[Position, Result], bool]
    write: Callable[[Position, Result, Store | None, Callable[[int], None] | None], Proof]


def _pairings_apply(position: Position) -> bool:
    return bool(blocking_fit(position.game))


def _the_strategy(position: Position, result: Result, store: Store | None,
                  tick: Callable[[int], None] | None) -> Proof:
    assert result.strategy is not None
    return Proof(result.strategy.to_json(), f"the winning strategy of the {result.strategy.winner} player "
                 f"({result.strategy.described})", "strategy")


def _table_trees(position: Position, result: Result, store: Store | None,
                 tick: Callable[[int], None] | None) -> Proof:
    assert result.draw_tree is not None
    return Proof(result.draw_tree.data, result.draw_tree.what, "draw")


def _root_matching(position: Position, result: Result, store: Store | None,
                   tick: Callable[[int], None] | None) -> Proof:
    assert result.certificate is not None
    return Proof(result.certificate.to_json(),
                 f"{result.certificate.method} showing {result.certificate.conclusion()}", "matching")


def _alpha_beta_takes(game: Game) -> bool:
    from kinarow.search.alphabeta import alpha_beta_cells

    return game.cells <= alpha_beta_cells(game)


#: The certificate writers, tried in order; the first that fits writes the certificate (:func:`certificate`).
#: The writers of ``kinarow prove``'s routes that read a search's own table (the proof tree, the blocking
#: trees of a proof search, the parts of a job run) are in :mod:`kinarow.search.prover`.
WRITERS: tuple[Writer, ...] = (
    Writer("the search's strategy", "a win", "any game", "the walk the search wrote with the value "
           "(alpha-beta, the score search, the proof search's table, merged jobs)",
           lambda position, result: result.strategy is not None, _the_strategy),
    Writer("matching sets at the root", "a draw or a Breaker win", "free placement, one stone a turn",
           "the matching sets knowledge found at the root",
           lambda position, result: result.certificate is not None, _root_matching),
    Writer("the proof search's blocking trees", "a draw", "free placement, one stone a turn (pairings apply)",
           "the blocking trees read from the table of the proof search that found the draw",
           lambda position, result: result.draw_tree is not None, _table_trees),
    Writer("alpha-beta walk", "a win", f"boards of at most {MAX_CELLS} cells ({WIDE_CELLS} with gravity, misere "
           "or several stones a turn)", "alpha-beta's win tests, from a fresh table (a value found without its "
           "strategy)",
           lambda position, result: result.value != Value.DRAW and _alpha_beta_takes(position.game),
           lambda position, result, store, tick: winning_walk(position)),
    Writer("non-losing walks", "a draw", f"gravity, misere, several stones a turn; at most {MAX_CELLS} cells",
           "each player's non-losing walk by alpha-beta's win tests",
           lambda position, result: result.value == Value.DRAW and not _pairings_apply(position)
           and position.game.cells <= MAX_CELLS,
           lambda position, result, store, tick: walk_draw(position, store, tick)),
    Writer("pairing or blocking trees", "a draw", "free placement, one stone a turn (pairings apply)",
           "a good pairing (SAT) with strategy stealing or the first player's non-losing walk; without one, "
           "the draw-proof walk's blocking trees",
           lambda position, result: result.value == Value.DRAW and _pairings_apply(position),
           lambda position, result, store, tick: _pairing_or_trees(position, store, tick)),
)


def certificate(position: Position, result: Result, store: Store | None = None,
                tick: Callable[[int], None] | None = None) -> Proof:
    """The certificate for a solved position's value, by the first of :data:`WRITERS` that fits, or why there is
    none (see the module's docstring).

    Pairings and draw proofs found here are kept in ``store`` (and taken from
    it); ``tick(count)`` hears the progress of a draw proof's walk.
    """
    if result.strategy is None:
        if result.value == Value.UNKNOWN:
            return Proof(None, "the value is unknown, so there is nothing to prove")
        if position.is_over:
            return Proof(None, "the game is already over")
        if result.stopped:  # a budget ran out (or Ctrl-C) after the value, before its strategy was written
            return Proof(None, f"the value {result.value} has no certificate here: the search stopped "
                         f"({result.stopped}) before its certificate was written")
    for writer in WRITERS:
        if writer.fits(position, result):
            return writer.write(position, result, store, tick)
    game = position.game
    if result.value != Value.DRAW:  # the alpha-beta search's walks (a proof search's strategy comes with the result)
        return Proof(None, f"no certificate is available yet for a {result.value} win here")
    return Proof(None, f"no certificate is available yet for a draw of {game}: pairings do not apply "
                 f"({blocking_fit(game).reason}), and non-losing walks are written for boards of at most "
                 f"{MAX_CELLS} cells")


def _pairing_or_trees(position: Position, store: Store | None, tick: Callable[[int], None] | None) -> Proof:
    """A draw where pairings apply: a good pairing of the position (taken from ``store`` or found), completed by
    strategy stealing or the first player's non-losing walk; without a pairing, the draw-proof walk's trees."""
    from kinarow.knowledge import pairing

    game = position.game
    key = board_key(position)
    data = store.get_certificate(PAIRING_FORMAT, str(game), key) if store is not None else None
    if data is not None and store is not None:
        data = _rechecked(store, position, data, "kinarow.proofs.pairing")
    if data is None:
        found = pairing.find(position)
        if found.exists and found.pairing is not None:
            data = found.pairing.to_json()
            if store is not None:
                store.put_certificate(PAIRING_FORMAT, str(game), key, data)
    if data is None:
        return draw_tree(position, store, tick)
    data = {**data, "moves": [position.name(c) for c in position.moves]}
    stealing = bool(stealing_fit(game, position.moves))
    if not stealing and game.cells <= MAX_CELLS:  # the other half: the first player's non-losing walk
        return walk_draw(position, store, tick, pairs=data["pairs"])
    other_half = (
        "; the second player cannot win either, by strategy stealing (an extra stone never hurts), so the draw "
        "is proved" if stealing else "; no certificate for the other half of the draw is available yet"
    )
    return Proof(data, f"a good pairing ({len(data['pairs'])} pairs), which proves the first player cannot "
                 f"win{other_half}", "pairing")


def _rechecked(store: Store, position: Position, data: dict[str, Any], checker: str,
               claim: str | None = None) -> dict[str, Any] | None:
    """A certificate taken from ``store`` for ``position``, when its checker (the module ``checker``) accepts it
    there (and its claim is ``claim``, when given); else None, and the store says the row was ignored."""
    import importlib

    moves = [position.name(c) for c in position.moves]
    why = ""
    if not isinstance(data.get("game"), str) or data["game"] != str(position.game):
        why = "it is for another game"
    elif claim is not None and data.get("claim") != claim:
        why = f"it does not claim '{claim}'"
    else:
        try:
            verdict = importlib.import_module(checker).check_certificate({**data, "moves": moves})
            why = "" if verdict.ok else f"its checker rejects it: {verdict.reason}"
        except (KinarowError, ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as error:
            why = f"its checker cannot read it ({error})"
    if why:
        store.bad_row(f"{data.get('format', 'a certificate')} of {position.game} {board_key(position)}", why)
        return None
    return {**data, "moves": moves}


def winning_walk(position: Position) -> Proof:
    """The winner's strategy of a won position, as a walk (a board of at most 128 cells)."""
    from kinarow.search.alphabeta import Searcher, extract_strategy

    tree = extract_strategy(position, Searcher(position.game, knowledge="none"), walk=True)
    return Proof(tree.to_json(), f"the winning strategy of the {tree.winner} player ({tree.described})", "strategy")


def walk_draw(position: Position, store: Store | None = None, tick: Callable[[int], None] | None = None,
              pairs: list[list[str]] | None = None, deadline: float | None = None) -> Proof:
    """A draw of a board of at most 64 cells, under any rules: a ``kinarow.draw`` certificate whose halves are
    each player's non-losing walk (the strategy of the defender that never lets the other player win). With
    ``pairs`` (a good pairing of the position), the first player's half is that pairing instead, written as a
    blocking tree of one leaf. ``tick(nodes)`` hears the win tests' nodes. A ``deadline`` (``time.perf_counter()``)
    that passes first gives a Proof without data."""
    from kinarow.proofs import envelope
    from kinarow.proofs.draw import FORMAT as DRAW_FORMAT
    from kinarow.proofs.draw import HALVES, TREE, WALK, claim_for
    from kinarow.proofs.draw import VERSION as DRAW_VERSION
    from kinarow.proofs.tree import check, pack_walk
    from kinarow.search.alphabeta import Searcher, non_losing_strategy

    game, key = position.game, board_key(position)
    data = store.get_certificate(DRAW_FORMAT, str(game), key) if store is not None else None
    if data is not None and store is not None:
        data = _rechecked(store, position, data, "kinarow.proofs.draw", claim="draw")
    if data is None:
        searcher = Searcher(game, knowledge="none")  # one table for both halves
        moves = [position.name(c) for c in position.moves]
        data = envelope(DRAW_FORMAT, DRAW_VERSION, str(game), moves, claim_for(game, {1, 2}))
        for attacker in (1, 2):
            if attacker == 1 and pairs is not None:
                data[HALVES[1]] = {"method": TREE, "pairings": [" ".join(f"{a}-{b}" for a, b in pairs)],
                                   "tokens": "=0"}
                continue
            stop = None if deadline is None else (lambda: time.perf_counter() >= deadline)
            tree = non_losing_strategy(position, 3 - attacker, searcher, tick, stop)
            if tree is None:
                return Proof(None, "the time ran out before the non-losing walks of the draw were written")
            verdict = check(tree, compiled=True)
            if not verdict.ok:
                raise KinarowError(f"internal error: the {tree.winner} player's non-losing walk fails its check: "
                                   f"{verdict.reason}")
            assert tree.walk is not None
            data[HALVES[attacker]] = {"method": WALK, "prescribed": len(tree.walk), "walk": pack_walk(tree.walk)}
        if store is not None:
            store.put_certificate(DRAW_FORMAT, str(game), key, data)
    halves = []
    for attacker, name in HALVES.items():
        half = data[name]
        halves.append(f"the {Value.win(game.goal, 3 - attacker)} player's non-losing walk "
                      f"({half['prescribed']:,} prescribed moves)" if half["method"] == WALK
                      else f"a good pairing ({len(half['pairings'][0].split())} pairs)")
    return Proof(data, f"a draw proof: the first player cannot win against {halves[0]}, the second against "
                 f"{halves[1]}", "draw")


def draw_tree(position: Position, store: Store | None = None, tick: Callable[[int], None] | None = None) -> Proof:
    """A draw without a pairing: the blocking tree of each side (or strategy stealing for the second player)."""
    from kinarow.proofs.draw import FORMAT as DRAW_FORMAT
    from kinarow.proofs.draw import HALVES
    from kinarow.search.draw import draw_certificate, safety_searcher

    game, key = position.game, board_key(position)
    data = store.get_certificate(DRAW_FORMAT, str(game), key) if store is not None else None
    if data is not None and store is not None:
        data = _rechecked(store, position, data, "kinarow.proofs.draw", claim="draw")
    if data is None:
        # the walk asks the solver many questions: a table of 1 GiB on boards where it pays
        searcher = safety_searcher(game, tt_mb=1024 if game.cells > 20 else None)
        data, _ = draw_certificate(position, searcher, tick=tick)
        if store is not None:
            store.put_certificate(DRAW_FORMAT, str(game), key, data)
    halves = []
    for name in HALVES.values():
        half = data[name]
        halves.append("strategy stealing" if half["method"] == "strategy-stealing"
                      else f"a non-losing walk of {half['prescribed']:,} moves" if half["method"] == "non-losing-walk"
                      else f"a blocking tree of {len(half['tokens'].split()):,} positions")
    return Proof(data, f"a draw proof: the first player cannot win by {halves[0]}, the second by {halves[1]}", "draw")


def claim_problem(game: Game, value: Value | str, proof: Proof) -> str | None:
    """Why the certificate ``proof`` does not prove ``value`` of a position of ``game`` (None when it does, or
    when there is no certificate): a strategy proves its winner's win; a draw certificate or a pairing its claim
    ("draw", "Breaker wins", "first cannot win"); matching sets that no player, or one, can win."""
    data = proof.data
    if data is None:
        return None
    first, second = Value.win(game.goal, 1), Value.win(game.goal, 2)
    claim = str(data.get("claim", ""))
    if proof.kind == "strategy":
        winner = data.get("winner")
        allowed = {winner} if data.get("outcome", "win") == "win" else set()
        said = f"the {winner} player's win"
    elif claim == Value.DRAW or claim.endswith(" wins"):
        allowed, said = {Value.DRAW if claim == Value.DRAW else claim[: -len(" wins")]}, f"'{claim}'"
    elif claim.endswith(" cannot win"):
        barred = claim[: -len(" cannot win")]
        allowed, said = {v for v in (first, second, Value.DRAW) if v != barred}, f"'{claim}'"
        if game.goal == Goal.MAKER_BREAKER:
            allowed.discard(Value.DRAW)
    elif proof.kind == "matching":
        allowed, said = {Value.DRAW, Value.BREAKER}, "that no player can win"
    else:
        return None  # a certificate that claims nothing comparable (checked by its own checker)
    if value in allowed:
        return None
    return f"the search answered '{value}' but its certificate proves {said}"


def certify(position: Position, result: R, *, proof: bool = True, walk: bool = False,
            store: Store | None = None, tick: Callable[[int], None] | None = None) -> R:
    """Finish a result of ``position`` (one process's or the parallel jobs'): its strategy in the form ``walk``
    asks (:func:`in_form`) and, with ``proof``, :attr:`~kinarow.search.solve.Result.proof` set to
    :func:`certificate`. The value and the certificate's claim are compared first: a
    :class:`ClaimMismatchError` of one sentence when they disagree (a result answered from a damaged book,
    store or checkpoint), so that neither is shown or written."""
    result = in_form(result, walk)
    if result.strategy is not None and result.value != Value.UNKNOWN and result.strategy.winner != result.value:
        raise ClaimMismatchError(f"the search answered '{result.value}' but its strategy is the "
                                 f"{result.strategy.winner} player's win; nothing is written")
    if proof:
        made = certificate(position, result, store, tick)
        problem = claim_problem(position.game, result.value, made)
        if problem is not None:
            raise ClaimMismatchError(f"{problem}; nothing is written")
        result.proof = made
    return result


def certified_from_store(store: Store, position: Position, result: R, *, walk: bool = False,
                         tick: Callable[[int], None] | None = None) -> R | None:
    """:func:`certify` for a result taken from ``store``: None (and the store says the row was ignored) when no
    certificate of its value can be made, as when the row claims a value the position does not have."""
    try:
        return certify(position, result, proof=True, walk=walk, store=store, tick=tick)
    except WalkTooLargeError:
        raise
    except KinarowError as error:
        store.bad_row(f"{position.game} {board_key(position)}",
                      f"no certificate of its value '{result.value}' can be made ({' '.join(str(error).split())})")
        return None


# -- the long cases (``kinarow settle``) ---------------------------------------------------------
def empty_board_draw(game: Game | str, *, tt_mb: float | None = None, seconds: float | None = None,
                     tick: Callable[[int], None] | None = None) -> dict[str, Any] | None:
    """The ``kinarow.draw`` certificate of a game's empty board, built within ``seconds``; None if it cannot be
    (blocking proofs do not apply, or time ran out)."""
    from kinarow.search.draw import StoppedError, draw_certificate, safety_searcher

    game = game if isinstance(game, Game) else Game(game)
    if not blocking_fit(game):
        return None
    deadline = None if seconds is None else time.perf_counter() + seconds
    try:
        data, _ = draw_certificate(game.start(), safety_searcher(game, tt_mb), tick=tick,
                                   deadline=deadline)
    except StoppedError:
        return None
    return data


@dataclass
class DrawProofRun:
    """What building a game's draw proof from the empty board came to (``kinarow settle --draw-proof``).

    ``value`` is :attr:`Value.DRAW` with the certificate in ``data`` and the first player's blocking tree in
    ``tree``, or :attr:`Value.UNKNOWN` with the reason in ``stopped`` (the time limit, or no defence found);
    ``walked`` and ``resumed`` count the positions this run settled and those read from its checkpoint.
    """

    value: Value
    data: dict[str, Any] | None = None
    tree: Any = None  # kinarow.search.draw.TreeStats of the first player's half
    stopped: str | None = None
    walked: int = 0
    resumed: int = 0


def default_draw_tt_mb(game: Game) -> float:
    """The table size a draw-proof walk uses when none is given (MiB)."""
    return 2048 if game.cells > 30 else 1024


def settle_by_draw_proof(game: Game, *, time_limit: float | None = None, tt_mb: float | None = None,
                         safety_budget: int | None = None, workers: int = 1, checkpoint: Path | None = None,
                         tick: Callable[[int], None] | None = None) -> DrawProofRun:
    """Settle ``game`` by building its draw proof with no search first: the defender's blocking trees
    (:func:`kinarow.search.draw.draw_certificate`), each defender move proved safe by a win test of at most
    ``safety_budget`` nodes. ``checkpoint`` is the folder that keeps the walk, so a stopped run resumes.

    Ctrl-C (KeyboardInterrupt) is raised to the caller; the walk keeps what it settled in ``checkpoint``.
    """
    from kinarow.search.draw import StoppedError, draw_certificate, safety_searcher

    fit = blocking_fit(game)
    if not fit:
        raise KinarowError(f"a draw proof cannot settle {game}: {fit.reason}")
    start = time.perf_counter()
    table_mb = tt_mb or default_draw_tt_mb(game)
    searcher = safety_searcher(game, table_mb if workers == 1 else 16)
    deadline = None if time_limit is None else start + time_limit
    try:
        data, stats = draw_certificate(game.start(), searcher, tick=tick, deadline=deadline,
                                       safety_budget=safety_budget, workers=workers, tt_mb=table_mb,
                                       checkpoint=checkpoint)
    except StoppedError as stopped:
        return DrawProofRun(Value.UNKNOWN, stopped="time limit", walked=stopped.walked, resumed=stopped.resumed)
    except KinarowError as error:
        return DrawProofRun(Value.UNKNOWN, stopped=f"no defence found ({error})")
    tree = stats["first_cannot_win"]
    return DrawProofRun(Value.DRAW, data=data, tree=tree, walked=tree.walked, resumed=tree.resumed)


def searchlog(result: Any) -> dict[str, Any]:
    """A parallel draw's evidence: every job with its question, answer and node count. Not a certificate."""
    return {
        "format": SEARCH_LOG_FORMAT,
        "version": SEARCHLOG_VERSION,
        "note": "a search log: the frontier jobs of a parallel solve and what each answered; "
        "it is evidence, not a certificate that a rules-only checker can verify",
        "game": result.game,
        "moves": result.moves,
        "value": result.value,
        "summary": {k: v for k, v in result.to_dict().items() if k not in ("game", "moves", "value")},
        "jobs": result.log,
    }


def evidence(result: Any, *, tt_mb: float | None = None, seconds: float | None = None,
             tick: Callable[[int], None] | None = None) -> Proof:
    """What backs a parallel solve's answer from the empty board (``kinarow settle --out``).

    A win: the winner's strategy (a walk where the board allows one, many times
    smaller). A finished draw: the draw proof of blocking trees when it can be
    built within ``seconds`` (where blocking does not apply, on boards of at
    most 64 cells, the draw proof of each player's non-losing walk), else the
    search log (evidence, not a certificate). An unknown value: nothing.
    """
    if result.value == Value.UNKNOWN:
        return Proof(None, "the value is unknown, so there is nothing to prove")
    if result.strategy is not None:
        tree = result.strategy
        if Game(tree.game).cells <= WALK_CELLS:
            tree = tree.compacted()  # the key-less form, many times smaller
        return Proof(tree.to_json(), f"the winning strategy of the {tree.winner} player ({tree.described})",
                     "strategy")
    if result.value == Value.DRAW and result.stopped is None:
        draw = empty_board_draw(result.game, tt_mb=tt_mb, seconds=seconds, tick=tick)
        if draw is not None:
            return Proof(draw, "a draw proof of blocking trees", "draw")
        game = Game(result.game)
        if not blocking_fit(game) and game.cells <= MAX_CELLS:  # gravity, misere, several stones
            walks = walk_draw(game.start(), tick=tick,
                              deadline=None if seconds is None else time.perf_counter() + seconds)
            if walks.exists:
                return walks
    return Proof(searchlog(result), "a search log of the frontier jobs (evidence, not a certificate)", "searchlog")
