"""``solve()``: the game-theoretic value of a game or position.

Its budgets come as :class:`~kinarow.search.options.Limits` and its choices as
:class:`~kinarow.search.options.SolveOptions` (or as loose keywords, folded into them
first). Which search answers is one table, :data:`ROUTES`, tried in order: its
docstring is the map of routes (which question, which game, which engine, which
certificate follows). The engines are the :class:`Searcher` (alpha-beta, and
the front of the Connect-k score search), the score search
(:mod:`kinarow.search.connect`) and the proof search
(:mod:`kinarow.search.proof_search`).

>>> from kinarow import Game, solve
>>> solve(Game("3x3k3")).value
<Value.DRAW: 'draw'>
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Unpack

from kinarow.engine import kernel as K
from kinarow.engine.tables import MAX_CELLS
from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.limits import PROOF_SEARCH_CELLS, default_tt_mb, said
from kinarow.position import Position
from kinarow.proofs import blocking_fit
from kinarow.search import book as books
from kinarow.search import connect
from kinarow.search.alphabeta import Searcher, StrategyStoppedError, extract_strategy, knowledge_fit, winner_of
from kinarow.search.alphabeta import strategy_from_walk as _walk_tree
from kinarow.search.options import PROOF_SEARCH_RULE, Limits, OptionError, SolveKeywords, SolveOptions, folded
from kinarow.search.result import R, Result
from kinarow.values import Fit, Goal, Player, Value

if TYPE_CHECKING:
    from kinarow.store import Store

#: the name of each search in ``Result.search`` (``opening book``: the score search's answer read from the opening
#: book shipped for the game, :mod:`kinarow.search.book`, not searched)
PROOF_SEARCH, ALPHA_BETA, SCORE_SEARCH = "proof-number search", "alpha-beta", "score search"
OPENING_BOOK = "opening book"
#: the names in ``Result.search`` of each choice's searches
SEARCH_NAMES = {"auto": (PROOF_SEARCH, ALPHA_BETA, SCORE_SEARCH, OPENING_BOOK), "proof": (PROOF_SEARCH,),
                "alpha-beta": (ALPHA_BETA, SCORE_SEARCH, OPENING_BOOK)}


# -- the router: which search answers, tried in order ----------------------------------------------------------
@dataclass
class Ask:
    """One question to the router: the position and what :func:`solve` was given, checked."""

    position: Position
    limits: Limits
    options: SolveOptions
    searcher: Searcher | None = None
    store: Store | None = None
    on_tick: Callable[[int], None] | None = None
    on_proof_tick: Callable[[int], None] | None = None

    @property
    def game(self) -> Game:
        return self.position.game

    @property
    def keyed_knowledge(self) -> str:
        """The knowledge level that keys the results store: a given searcher's own, else the one asked."""
        return self.options.knowledge if self.searcher is None else self.searcher.knowledge

    @property
    def keyed_symmetry(self) -> bool:
        """Symmetry as it keys the results store: a given searcher's own, else the one asked."""
        return self.options.symmetry if self.searcher is None else self.searcher.symmetry

    def alpha_beta(self) -> Searcher:
        """The searcher given, or one made now with the options asked (and kept: a strong solve's length is
        found by the searcher that found the value)."""
        if self.searcher is None:
            self.searcher = Searcher(self.game, tt_mb=self.limits.tt_mb, symmetry=self.options.symmetry,
                                     knowledge=self.options.knowledge)
        return self.searcher


# "does this apply": each check in one predicate
def score_kernel_serves(game: Game) -> Fit:
    """Does the Connect-k score kernel serve ``game`` (:func:`kinarow.search.connect.score_search_fit`)?"""
    return connect.score_search_fit(game)


def proof_search_applies(game: Game, search: str, knowledge: str) -> bool:
    """Does :func:`solve` ask the proof search (``search``: ``auto``, ``proof`` or ``alpha-beta``)? ``proof``
    for a game it does not apply to is refused in one sentence."""
    from kinarow.search.proof_search import proof_search_fit

    if search == "alpha-beta":
        return False
    fit = proof_search_fit(game)
    if search == "proof":
        if not fit:
            raise KinarowError(f"the proof search does not apply: {fit.reason}; choose the auto or alpha-beta search")
        return True
    return bool(fit) and knowledge != "none" and game.cells >= PROOF_SEARCH_CELLS


def sharing_fit(game: Game) -> Fit:
    """Can a walk with shared replies be written for ``game`` (:mod:`kinarow.search.shared_walk`)?"""
    from kinarow.search.shared_walk import shared_walk_fit

    return shared_walk_fit(game)


def chooses_engine(ask: Ask) -> bool:
    """May the router choose the search? Not when a Searcher was given, nor for a strong solve (the alpha-beta
    Searcher that finds its value then finds its length), which the strong score search route has not taken."""
    return ask.searcher is None and not ask.options.strong


def _strong_scored(ask: Ask) -> bool:
    return (ask.options.strong and ask.searcher is None and not ask.options.wants_strategy
            and not ask.position.is_over and bool(score_kernel_serves(ask.game)))


def _scored(ask: Ask) -> bool:
    return chooses_engine(ask) and not ask.options.wants_strategy and bool(score_kernel_serves(ask.game))


def _for_certificate(ask: Ask) -> bool:
    # a draw's certificate needs no strategy, and a win's is read from the proof search's own table
    o = ask.options
    return (o.proof and (o.search == "proof" or not o.strategy) and chooses_engine(ask)
            and proof_search_applies(ask.game, o.search, o.knowledge))


def _proof_search_asked(ask: Ask) -> bool:
    o = ask.options
    wide = ask.game.cells > MAX_CELLS  # beyond the alpha-beta kernel: the proof search writes the strategy too
    return chooses_engine(ask) and (o.search == "proof" or not o.wants_strategy or wide) and proof_search_applies(
        ask.game, o.search, o.knowledge)


def _from_store(ask: Ask) -> Result | None:
    from kinarow.search import certify

    assert ask.store is not None
    o = ask.options
    result = certify.stored_result(ask.store, ask.position, strategy=o.wants_strategy,
                                   knowledge=ask.keyed_knowledge, symmetry=ask.keyed_symmetry)
    if result is None or (o.search != "auto" and result.search not in SEARCH_NAMES[o.search]):
        return None  # not held, or held from another search than the one asked for
    if o.proof:  # a stored value is served only with its certificate
        return certify.certified_from_store(ask.store, ask.position, result, walk=o.walk, tick=ask.on_proof_tick)
    return result


def _finished(ask: Ask) -> Result:
    assert ask.position.result is not None
    return Result(str(ask.game), ask.position.move_text(), ask.position.result, 0, 0.0, None, None)


def _proved(ask: Ask) -> Result | None:
    # nothing solved twice: a win's strategy is read from the table of the search that proved it
    result = _proof_search(ask, strategy=True, breaker_strategy=ask.options.search == "proof")
    if result.value == Value.UNKNOWN and ask.options.search == "proof":
        return result  # stopped by its budget: the next route asked would be the same search again
    return None if result.value not in (Value.DRAW, Value.BREAKER) and result.strategy is None else result


@dataclass(frozen=True)
class Route:
    """One way to a value: its name, when it applies, and what answers (None: the next route is asked)."""

    name: str
    applies: Callable[[Ask], bool]
    answer: Callable[[Ask], Result | None]
    #: is the answer kept in the results store (when one is given)?
    keeps: Callable[[Result], bool] = lambda result: True


ROUTES: tuple[Route, ...] = (
    Route("strong score search", _strong_scored, lambda ask: _score_search(ask, strong=True)),
    # (a stored strategy is a plain walk or keyed: a walk with shared replies is asked of the search again)
    Route("store", lambda ask: ask.store is not None and not (ask.options.share and ask.options.wants_strategy),
          _from_store, keeps=lambda result: False),
    Route("finished position", lambda ask: ask.position.is_over, _finished),
    Route("proof search for a certificate", _for_certificate, _proved,
          keeps=lambda result: result.value not in (Value.DRAW, Value.BREAKER)),  # a draw keeps its certificate
    Route("score search", _scored, lambda ask: _score_search(ask, strong=False)),
    Route("proof search", _proof_search_asked,
          lambda ask: _proof_search(ask, strategy=ask.options.wants_strategy, breaker_strategy=True)),
    Route("alpha-beta", lambda ask: True, lambda ask: _alpha_beta(ask)),
)
"""The routes to a value, tried in order by :func:`solve`: the first that applies and answers gives the result.

| route | when | what answers |
| --- | --- | --- |
| strong score search | ``strong``, a Connect-k game, no strategy asked | the score kernel: value and length at once |
| store | a results store is given | an answer it holds, found with the same options (with its certificate when \
``proof``); else the next route |
| finished position | the game is over | its result, without search |
| proof search for a certificate | ``proof`` where the proof search applies, without ``strategy`` (or with \
``search='proof'``) | the proof search; a win's strategy read from its own table (Breaker's win: the \
certificate step writes it); the next route when it stops |
| score search | a Connect-k game, no strategy asked | the score kernel |
| proof search | it applies and is chosen: ``search='proof'``, or no strategy asked, or more than 64 cells | the \
proof search; a win's strategy read from its table |
| alpha-beta | everything else | :class:`Searcher` (given or made); a win's strategy by its win tests |

Then, whichever answered: an exact answer is kept in the store; the strategy is put in the form asked
(``walk``) and, with ``proof``, :func:`kinarow.search.certify.certificate` chooses the certificate of the value
(a win: its strategy; a draw settled at the root: matching sets; another draw: a pairing, blocking trees or
non-losing walks); a strong solve's length is found by the alpha-beta Searcher (:func:`with_length`). Where
the router may choose the search at all is :func:`chooses_engine`; each "does this apply" check is one
predicate (:func:`score_kernel_serves`, :func:`proof_search_applies`, :func:`sharing_fit`,
:func:`kinarow.search.alphabeta.knowledge_fit`), each answered by a :class:`~kinarow.values.Fit`.
"""


def route(ask: Ask) -> tuple[Route, Result]:
    """The first route of :data:`ROUTES` that applies to ``ask`` and answers it, with its answer."""
    for way in ROUTES:
        if way.applies(ask):
            result = way.answer(ask)
            if result is not None:
                return way, result
    raise KinarowError("internal error: no route answered")  # alpha-beta always answers


def solve(
    target: Game | Position | str,
    *,
    moves: str | None = None,
    limits: Limits | None = None,
    options: SolveOptions | None = None,
    searcher: Searcher | None = None,
    store: Store | str | os.PathLike[str] | None = None,
    on_tick: Callable[[int], None] | None = None,
    on_proof_tick: Callable[[int], None] | None = None,
    **keywords: Unpack[SolveKeywords],
) -> Result:
    """Solve a game (from the empty board) or a position with perfect play.

    ``limits`` (:class:`~kinarow.search.options.Limits`) bounds the search: ``max_nodes``, ``time_limit`` (seconds)
    and ``tt_mb`` (the table's size); when a budget runs out the value is ``unknown``. ``options``
    (:class:`~kinarow.search.options.SolveOptions`) says what is asked besides the value; each of their fields may
    also be given as a keyword of its own, ``solve(game, max_nodes=10**6, proof=True)``: the compatibility
    form, folded into the two bundles before anything else is done (giving one field both ways is refused).
    :data:`ROUTES` is the map of which search answers.

    With ``strategy=True`` a win comes with the winner's
    strategy (:class:`~kinarow.proofs.tree.StrategyTree`), which
    :func:`kinarow.proofs.tree.check` verifies without the search code;
    ``walk=True`` keeps it as a walk (version 3), the form that large
    strategies need (written for boards of at most 256 cells: a larger one
    raises :class:`kinarow.search.certify.WalkTooLargeError`).
    ``share=True`` (with ``search="proof"`` and ``walk=True``) writes it as a
    walk with shared replies (version 4, :mod:`kinarow.search.shared_walk`):
    the loser's replies outside a proof's relevance zone share one subtree.

    ``knowledge`` (``none``, ``pairing`` or ``matching``) lets the search cut a
    node where a Hales-Jewett pairing or a matching set proves that a player
    cannot win (Uiterwijk, "Set Matching", ACG 2017); it applies only to free
    placement, one stone a turn, normal or Maker-Breaker goal, and does
    nothing elsewhere (``Result.knowledge_note`` says why). When knowledge
    settles the value at the root, ``Result.certificate`` is the matching-set
    certificate (:class:`kinarow.proofs.matching.MatchingProof`). When a
    ``searcher`` is given, its own knowledge level applies.

    With ``proof=True`` (which implies ``strategy``) ``Result.proof`` is the
    certificate of the value, ready to write as JSON, and what it proves
    (:class:`kinarow.search.certify.Proof`: a win's strategy, a draw's
    matching sets, pairing or draw proof; ``on_proof_tick`` hears the progress
    of a draw proof). Where the proof search answers the value, a win's
    strategy is read from its own table (the game is not searched again).
    With a results ``store`` (:class:`kinarow.store.Store`, or the path of its file: opened for this call and
    closed after it)
    an answer it holds is returned at once when it was found with the same
    options (knowledge level, symmetry, and with the strategy when one is
    asked for; ``Result.from_store``), and a new exact answer is saved there,
    with the certificates found for it.

    With ``strong=True`` the solution is strong: ``Result.last_move`` is the
    number of the stone (counting from the first of the game) on which the
    game ends with perfect play, the winner ending it as soon as it can and
    the loser as late as it can (None for a draw); see
    :meth:`Searcher.game_length`. The budgets cover both searches. Games
    the Connect-k score kernel serves (:func:`kinarow.search.connect.score_search_fit`:
    gravity on a rectangular board, normal goal, one stone a turn) get the
    value and the length from one score search.

    ``threads`` > 1 runs that many searches of the position at once, sharing
    one table (the Connect-k score kernel only; other games search in one
    thread, and use processes for more: :mod:`kinarow.search.parallel`).

    ``search`` chooses the search of a value question (no ``strategy``, ``strong`` or
    ``searcher``): ``proof`` is the proof-number search (:mod:`kinarow.search.proof_search`: free
    placement, one stone a turn, normal or Maker-Breaker goal, at most 128 cells), ``alpha-beta`` the
    :class:`Searcher`, and ``auto`` (the default) the proof search where it applies, on boards of at least
    :data:`PROOF_SEARCH_CELLS` cells (alpha-beta is faster on smaller ones) and when ``knowledge`` is not
    ``none`` (it stops at pairings), else alpha-beta. ``Result.search`` says which search answered.

    ``proof_table`` (with ``search='proof'``) names a file that keeps the proof search's table, so that a long
    search resumes where it stopped: loaded when it exists (the table's size is then the file's), written
    every :data:`kinarow.search.proof_search.TABLE_SECONDS` seconds of search and when the search stops
    (Ctrl-C, SIGTERM, a budget), and kept after an answer (the strategy is read from it). The walk that reads a
    win's strategy from it keeps its moves so far beside it (``proof_table + ".walk.npz"``) in the same way, and
    a later walk replays them and goes on.
    """
    limits, options = folded("solve", _SOLVE_TAKES, dict(keywords), limits, options, SolveOptions)
    from kinarow.store import Store as Opened

    if store is None or isinstance(store, Opened):
        return _solve(target, moves, limits, options, searcher, store, on_tick, on_proof_tick)
    if isinstance(store, bool) or not isinstance(store, str | os.PathLike) or not str(store):
        raise KinarowError(f"store must be a kinarow.store.Store or the path of a results store file, not "
                           f"{said(store)}")
    with Opened(store) as opened:
        return _solve(target, moves, limits, options, searcher, opened, on_tick, on_proof_tick)


def _solve(
    target: Game | Position | str,
    moves: str | None,
    limits: Limits,
    options: SolveOptions,
    searcher: Searcher | None,
    store: Store | None,
    on_tick: Callable[[int], None] | None,
    on_proof_tick: Callable[[int], None] | None,
) -> Result:
    """:func:`solve` once its bundles are folded and its ``store`` is open (or None)."""
    if options.search == "proof" and searcher is not None:
        raise OptionError(PROOF_SEARCH_RULE)
    for name, hook in (("on_tick", on_tick), ("on_proof_tick", on_proof_tick)):
        if hook is not None and not callable(hook):
            raise KinarowError(f"{name} must be a function of the node count, not {said(hook)}")
    position = target.copy() if isinstance(target, Position) else Game(target).start()
    if searcher is not None and (not isinstance(searcher, Searcher) or searcher.game != position.game):
        bound = f"bound to {searcher.game}" if isinstance(searcher, Searcher) else said(searcher)
        raise KinarowError(f"the searcher given is {bound}; it must be a Searcher of {position.game}")
    if moves:
        position.play_moves(moves)
    if options.search == "proof":
        proof_search_applies(position.game, options.search, options.knowledge)  # does not apply: one sentence
    if options.share and not (fit := sharing_fit(position.game)):
        raise KinarowError(f"a walk with shared replies cannot be written for {position.game}: {fit.reason}")
    ask = Ask(position, limits, options, searcher, store, on_tick, on_proof_tick)
    way, result = route(ask)
    from kinarow.search import certify

    if store is not None and way.keeps(result):
        certify.save_result(store, position, result, symmetry=ask.keyed_symmetry)
    if result.proof is None:  # (an answer from the store comes with its certificate)
        result = certify.certify(position, result, proof=options.proof, walk=options.walk, store=store,
                                 tick=on_proof_tick)
    result = with_reason(position, result)
    if not options.strong or result.strong:
        return result
    return with_length(position, result, None if position.is_over else ask.alpha_beta(), limits, on_tick)


#: the keywords :func:`solve` takes besides the compatibility form's
_SOLVE_TAKES = ("moves", "limits", "options", "searcher", "store", "on_tick", "on_proof_tick")


def with_length(
    position: Position,
    result: R,
    searcher: Searcher | None,
    limits: Limits | None = None,
    on_tick: Callable[[int], None] | None = None,
) -> R:
    """``result`` (the value of ``position``) made strong: ``last_move`` found by ``searcher``
    (:meth:`Searcher.game_length`) within what is left of the budgets (``limits``: ``max_nodes``,
    ``time_limit``) after the value's search; its nodes and seconds are added to the result's."""
    result.strong = True
    winner = result.value.stone if isinstance(result.value, Value) else None
    if winner is None or result.stopped:
        return result
    if position.is_over:
        result.last_move = position.stones
        return result
    assert searcher is not None
    max_nodes, time_limit = (None, None) if limits is None else (limits.max_nodes, limits.time_limit)
    nodes_left = None if max_nodes is None else max_nodes - result.nodes
    seconds_left = None if time_limit is None else time_limit - result.seconds
    if (nodes_left is not None and nodes_left < 1) or (seconds_left is not None and seconds_left <= 0):
        result.stopped = "node limit" if nodes_left is not None and nodes_left < 1 else "time limit"
        return result
    start = time.perf_counter()
    done = result.nodes
    last, nodes, stopped = searcher.game_length(
        position, winner, max_nodes=nodes_left, deadline=None if seconds_left is None else start + seconds_left,
        on_tick=None if on_tick is None else lambda more: on_tick(done + more))
    result.last_move, result.stopped = last, stopped
    result.nodes += nodes
    result.seconds += time.perf_counter() - start
    return result


def with_reason(position: Position, result: R) -> R:
    """A draw (or Breaker win) of a board where no group fits says so (``Result.note``).

    Every solve (one process or parallel) ends here, so each says it the same way.
    """
    reason = position.game.no_group_reason
    if reason is not None and result.value in ("draw", "breaker"):
        result.note = reason
    return result


def _alpha_beta(ask: Ask) -> Result:
    """The alpha-beta route: the value by :meth:`Searcher.search` (the given searcher or a new one), the
    matching sets when knowledge settled the root, and a win's strategy when one is asked for; under the
    searcher's lock, so that a searcher shared by threads answers one solve at a time."""
    with ask.alpha_beta().lock:
        return _alpha_beta_held(ask)


def _alpha_beta_held(ask: Ask) -> Result:
    position, on_tick = ask.position, ask.on_tick
    game = position.game
    moves_text = position.move_text()
    to_move = Player.of(position.to_move)
    searcher = ask.alpha_beta()
    start = time.perf_counter()
    deadline = start + ask.limits.time_limit if ask.limits.time_limit else None
    value, best, nodes, stopped = searcher.search(position, max_nodes=ask.limits.max_nodes, deadline=deadline,
                                                  on_tick=on_tick)
    seconds = time.perf_counter() - start
    know: dict[str, Any] = {"knowledge": searcher.knowledge, "knowledge_note": searcher.knowledge_note,
                            "knowledge_cuts": int(searcher.ctrl[K.C_KCUTS]),
                            "search": ALPHA_BETA if searcher.scores is None else _score_source(searcher.scores,
                                                                                                position)}
    if stopped:
        return Result(str(game), moves_text, Value.UNKNOWN, nodes, seconds, None, to_move, stopped=stopped, **know)
    result = Result(str(game), moves_text, winner_of(game, position.to_move, value), nodes, seconds,
                    position.name(best) if best is not None else None, to_move, **know)
    if searcher.ctrl[K.C_ROOT_EXACT] and result.value in (Value.DRAW, Value.BREAKER):
        result.certificate = root_certificate(position)
        result.seconds = time.perf_counter() - start
    if ask.options.wants_strategy and value != K.DRAW:  # within what is left of the budgets
        left = None if ask.limits.max_nodes is None else max(ask.limits.max_nodes - nodes, 1)
        try:
            result.strategy = extract_strategy(
                position, searcher, None if on_tick is None else lambda more: on_tick(nodes + more),
                walk=ask.options.walk, value=value, max_nodes=left, deadline=deadline)
        except StrategyStoppedError as stop:  # the value stands; its strategy (so its certificate) is missing
            result.stopped = stop.stopped
        except KeyboardInterrupt:
            result.stopped = "interrupted"
        result.seconds = time.perf_counter() - start
    return result


def _score_search(ask: Ask, *, strong: bool) -> Result:
    """The score search route, for the games the Connect-k score kernel serves (:mod:`kinarow.search.connect`):
    one search gives the value, and with ``strong`` the exact score, so the game's length too."""
    position, limits, knowledge = ask.position, ask.limits, ask.options.knowledge
    game = position.game
    to_move = Player.of(position.to_move)
    know: dict[str, Any] = {"knowledge": knowledge,
                            "knowledge_note": (knowledge_fit(game).reason or None) if knowledge != "none" else None}
    searcher, lock = books.searcher_for(game, limits.tt_mb if limits.tt_mb is not None else default_tt_mb(game))
    try:
        searcher.prepare()  # the kernel loaded (or compiled) before the clock, as the other searches do
        start = time.perf_counter()
        deadline = start + limits.time_limit if limits.time_limit else None
        searcher.forget()  # every solve() searches as if from an empty table, so its node count is its own
        score = searcher.score(position, weak=not strong, max_nodes=limits.max_nodes, deadline=deadline,
                               on_tick=ask.on_tick, threads=ask.options.threads)
        nodes = int(searcher.ctrl[connect.GK.G_NODES])
        if score is None:
            return Result(str(game), position.move_text(), Value.UNKNOWN, nodes, time.perf_counter() - start,
                          None, to_move, stopped=searcher.stopped, strong=strong, search=SCORE_SEARCH, **know,
                          threads=ask.options.threads)
        best = searcher.best_move(position, score, weak=not strong, max_nodes=limits.max_nodes, deadline=deadline,
                                  on_tick=ask.on_tick)
    finally:
        if lock is not None:
            lock.release()
    kernel_value = score.sign
    return Result(str(game), position.move_text(), winner_of(game, position.to_move, kernel_value), nodes,
                  time.perf_counter() - start, position.name(best) if best is not None else None, to_move,
                  strong=strong, last_move=score.last_move if strong else None,
                  search=_score_source(searcher, position), **know,
                  threads=ask.options.threads if score.nodes else 1)


def _score_source(searcher: connect.ScoreSearcher, position: Position) -> str:
    """What gave a score search's answer: its opening book, when the book holds the position, else the search."""
    booked = searcher.book is not None and searcher.book.lookup(position) is not None
    return OPENING_BOOK if booked else SCORE_SEARCH


def _proof_search(ask: Ask, *, strategy: bool, breaker_strategy: bool) -> Result:
    """The proof search routes (:mod:`kinarow.search.proof_search`): the value from its questions, then a move
    that keeps it (asked within what is left of the budgets); with ``strategy`` a win's strategy, the proof
    tree read from the search's table (:meth:`ProofSearcher.strategy_walk`, not bounded by the budgets), or
    with ``share`` a walk with shared replies. A Breaker win is no tree in the table: with ``breaker_strategy``
    alpha-beta writes its strategy here, else it comes without one."""
    from kinarow.engine import pns_kernel
    from kinarow.search.proof_search import ProofSearcher, prove, table_size_mb

    position, limits, options, on_tick = ask.position, ask.limits, ask.options, ask.on_tick
    game = position.game
    to_move = Player.of(position.to_move)
    max_nodes, time_limit, tt_mb = limits.max_nodes, limits.time_limit, limits.tt_mb
    proof_table, knowledge = options.proof_table, options.knowledge
    kept = None if proof_table is None else table_size_mb(proof_table, game)
    searcher = ProofSearcher(game, tt_mb=kept or (tt_mb if tt_mb is not None else min(default_tt_mb(game), 64)),
                             symmetry=options.symmetry, knowledge=knowledge != "none")
    searcher.attacker_wins(game.start(), 1, max_nodes=1)  # loads the compiled kernel before the clock
    if proof_table is not None:
        searcher.keep_table(proof_table)
    start = time.perf_counter()
    know: dict[str, Any] = {"knowledge": knowledge, "search": PROOF_SEARCH}
    try:
        proved = prove(position, max_nodes=max_nodes, time_limit=time_limit, searcher=searcher, on_tick=on_tick)
    except KeyboardInterrupt:
        return Result(str(game), position.move_text(), Value.UNKNOWN, int(searcher.ctrl[pns_kernel.C_NODES]),
                      time.perf_counter() - start, None, to_move, stopped="interrupted", **know)
    know["knowledge_cuts"] = sum(a.pairing_leaves for a in proved.answers) if knowledge != "none" else 0
    nodes = proved.nodes
    if proved.value == Value.UNKNOWN:
        return Result(str(game), position.move_text(), Value.UNKNOWN, nodes, time.perf_counter() - start, None,
                      to_move, stopped=proved.stopped or "node limit", **know)
    result = Result(str(game), position.move_text(), proved.value, nodes, 0.0, None, to_move, **know)
    if all(a.expanded == 0 for a in proved.answers) and proved.value in (Value.DRAW, Value.BREAKER):
        result.certificate = root_certificate(position)  # a pairing closed the root: show its matching sets
    seconds_left = None if time_limit is None else time_limit - (time.perf_counter() - start)
    try:
        best, more = searcher.keeping_move(position, proved.value, time_limit=seconds_left,
                                           max_nodes=None if max_nodes is None else max(max_nodes - nodes, 1))
    except KeyboardInterrupt:
        best, more = None, 0
    result.best_move = position.name(best) if best is not None else None
    result.nodes += more
    winner = proved.value.stone
    if options.proof and proved.value == Value.DRAW and result.certificate is None and blocking_fit(game):
        from kinarow.search.disproof import draw_from_table  # the draw's certificate from this search's table

        result.draw_tree = draw_from_table(position, searcher, tick=ask.on_proof_tick)
        result.nodes += result.draw_tree.nodes
    if not strategy or winner is None:
        pass
    elif game.goal == Goal.MAKER_BREAKER and winner == 2:
        if breaker_strategy:  # Breaker wins by blocking, which the table does not hold as a tree
            result.strategy = extract_strategy(position, Searcher(game, tt_mb=tt_mb, symmetry=options.symmetry,
                                                                  knowledge=knowledge), walk=options.walk)
    elif options.share:
        from kinarow.search.shared_walk import shared_walk

        done = result.nodes
        written = shared_walk(searcher, position, winner,
                              on_tick=None if on_tick is None else lambda more: on_tick(done + more),
                              keep=None if proof_table is None else proof_table + ".shared.npz")
        assert written is not None  # no time limit: it finishes (Ctrl-C is raised)
        result.walk_nodes, result.walk_seconds = written.nodes, written.seconds
        result.strategy = written.tree
    else:
        done = result.nodes
        walk_start = time.perf_counter()
        moves = searcher.strategy_walk(position, winner,
                                       on_tick=None if on_tick is None else lambda extra: on_tick(done + extra))
        result.walk_nodes, result.walk_seconds = searcher.walk_nodes, time.perf_counter() - walk_start
        tree = _walk_tree(position, winner, moves)
        result.strategy = tree if options.walk else tree.expanded()
    result.seconds = time.perf_counter() - start
    return result


def root_certificate(position: Position) -> Any:
    """The matching-set certificate of a draw (or Breaker win) that knowledge proved at the root, or None."""
    from kinarow.knowledge.matching import find_position

    players = (1,) if position.game.goal == Goal.MAKER_BREAKER else (1, 2)
    proof, _ = find_position(position, players=players, budget=2_000_000)
    return proof
