"""``solve()``: the game-theoretic value of a game or position.

>>> from kinarow import Game, solve
>>> solve(Game("3x3k3")).value
<Value.DRAW: 'draw'>
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kinarow.engine import kernel as K
from kinarow.engine.tables import MAX_CELLS
from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.limits import (
    DEFAULT_KNOWLEDGE,
    PROOF_SEARCH_CELLS,
    check_flag,
    check_knowledge,
    check_limits,
    check_search,
    check_threads,
    default_tt_mb,
    said,
)
from kinarow.position import Position
from kinarow.search import book as books
from kinarow.search import connect
from kinarow.search.alphabeta import Searcher, extract_strategy, knowledge_reason, winner_of
from kinarow.search.alphabeta import walk_tree as _walk_tree
from kinarow.search.result import R, Result
from kinarow.values import Goal, Player, Value

if TYPE_CHECKING:
    from kinarow.store import Store

#: the name of each search in ``Result.search``
PROOF_SEARCH, ALPHA_BETA, SCORE_SEARCH = "proof-number search", "alpha-beta", "score search"
#: the names in ``Result.search`` of each choice's searches
SEARCH_NAMES = {"auto": (PROOF_SEARCH, ALPHA_BETA, SCORE_SEARCH), "proof": (PROOF_SEARCH,),
                "alpha-beta": (ALPHA_BETA, SCORE_SEARCH)}


def solve(
    target: Game | Position | str,
    *,
    moves: str | None = None,
    max_nodes: int | None = None,
    time_limit: float | None = None,
    tt_mb: float | None = None,
    symmetry: bool = True,
    strategy: bool = False,
    walk: bool = False,
    searcher: Searcher | None = None,
    on_tick: Callable[[int], None] | None = None,
    knowledge: str = DEFAULT_KNOWLEDGE,
    proof: bool = False,
    store: Store | None = None,
    on_proof_tick: Callable[[int], None] | None = None,
    strong: bool = False,
    threads: int = 1,
    search: str = "auto",
    proof_table: str | None = None,
    share: bool = False,
) -> Result:
    """Solve a game (from the empty board) or a position with perfect play.

    ``max_nodes`` / ``time_limit`` bound the search; when either runs out the
    value is ``unknown``. With ``strategy=True`` a win comes with the winner's
    strategy (:class:`~kinarow.proofs.tree.StrategyTree`), which
    :func:`kinarow.proofs.tree.check` verifies without the search code;
    ``walk=True`` keeps it as a walk (version 3), the form that large
    strategies need (written for boards of at most 64 cells: a larger one
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
    of a draw proof). With a results ``store`` (:class:`kinarow.store.Store`)
    an answer it holds is returned at once when it was found with the same
    options (knowledge level, symmetry, and with the strategy when one is
    asked for; ``Result.from_store``), and a new exact answer is saved there,
    with the certificates found for it.

    With ``strong=True`` the solution is strong: ``Result.last_move`` is the
    number of the stone (counting from the first of the game) on which the
    game ends with perfect play, the winner ending it as soon as it can and
    the loser as late as it can (None for a draw); see
    :meth:`Searcher.game_length`. The budgets cover both searches. Games
    the Connect-k score kernel serves (:func:`kinarow.search.connect.serves`:
    gravity on a rectangular board, normal goal, one stone a turn) get the
    value and the length from one score search.

    ``threads`` > 1 runs that many searches of the position at once, sharing
    one table (the Connect-k score kernel only; other games search in one
    thread, and use processes for more: :mod:`kinarow.search.parallel`).

    ``search`` chooses the search of a value question (no ``strategy``, ``proof``, ``strong`` or
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
    max_nodes, time_limit, tt_mb = check_limits(max_nodes, time_limit, tt_mb)
    knowledge = check_knowledge(knowledge)
    search = check_search(search)
    if proof_table is not None and (search != "proof" or not isinstance(proof_table, str) or not proof_table):
        raise KinarowError("proof_table names the file that keeps the proof search's table; give a file name and "
                           "search='proof'")
    if search == "proof" and (strong or searcher is not None):
        raise KinarowError("search='proof' answers value questions, with a win's strategy read from its table; "
                           "leave out strong and searcher, or use search='auto'")
    for name, flag in (("symmetry", symmetry), ("strategy", strategy), ("walk", walk), ("proof", proof),
                       ("strong", strong), ("share", share)):
        check_flag(flag, name)
    if share and (search != "proof" or not walk):
        raise KinarowError("share lets the loser's replies share subtrees in a walk written with the proof search's "
                           "zones; give it with search='proof' and walk=True")
    for name, hook in (("on_tick", on_tick), ("on_proof_tick", on_proof_tick)):
        if hook is not None and not callable(hook):
            raise KinarowError(f"{name} must be a function of the node count, not {said(hook)}")
    position = target.copy() if isinstance(target, Position) else Game(target).start()
    if searcher is not None and (not isinstance(searcher, Searcher) or searcher.game != position.game):
        bound = f"bound to {searcher.game}" if isinstance(searcher, Searcher) else said(searcher)
        raise KinarowError(f"the searcher given is {bound}; it must be a Searcher of {position.game}")
    if moves:
        position.play_moves(moves)
    threads = check_threads(threads)
    if search == "proof":
        proof_search_applies(position.game, search, knowledge)  # a game it does not apply to: one sentence
    if share:
        from kinarow.search.shared_walk import sharing_refused_for

        why = sharing_refused_for(position.game)
        if why is not None:
            raise KinarowError(f"a walk with shared replies cannot be written for {position.game}: {why}")
    scored = connect.serves(position.game) is None and searcher is None and not (strategy or proof)
    if strong and scored and not position.is_over:  # one score search gives both (the store keeps no lengths)
        scored_result = with_reason(position, _score_search(position, max_nodes=max_nodes, time_limit=time_limit,
                                                            tt_mb=tt_mb, on_tick=on_tick, knowledge=knowledge,
                                                            strong=True, threads=threads))
        if store is not None:
            from kinarow.search import certify

            certify.save_result(store, position, scored_result, symmetry=symmetry)
        return scored_result
    if strong and searcher is None and not position.is_over:  # the value's searcher then finds the length
        searcher = Searcher(position.game, tt_mb=tt_mb, symmetry=symmetry, knowledge=knowledge)
    result = with_reason(position, _solve(position, max_nodes=max_nodes, time_limit=time_limit, tt_mb=tt_mb,
                                           symmetry=symmetry, strategy=strategy, walk=walk, searcher=searcher,
                                           on_tick=on_tick, knowledge=knowledge, proof=proof, store=store,
                                           on_proof_tick=on_proof_tick, threads=threads, search=search,
                                           proof_table=proof_table, share=share))
    if not strong:
        return result
    assert searcher is not None or position.is_over
    return with_length(position, result, searcher, max_nodes=max_nodes, time_limit=time_limit, on_tick=on_tick)


def with_length(
    position: Position,
    result: R,
    searcher: Searcher | None,
    *,
    max_nodes: int | None = None,
    time_limit: float | None = None,
    on_tick: Callable[[int], None] | None = None,
) -> R:
    """``result`` (the value of ``position``) made strong: ``last_move`` found by ``searcher``
    (:meth:`Searcher.game_length`) within what is left of the budgets (``max_nodes``, ``time_limit``) after
    the value's search; its nodes and seconds are added to the result's."""
    result.strong = True
    winner = result.value.stone if isinstance(result.value, Value) else None
    if winner is None or result.stopped:
        return result
    if position.is_over:
        result.last_move = position.stones
        return result
    assert searcher is not None
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


def _solve(
    position: Position,
    *,
    max_nodes: int | None,
    time_limit: float | None,
    tt_mb: float | None,
    symmetry: bool,
    strategy: bool,
    walk: bool,
    searcher: Searcher | None,
    on_tick: Callable[[int], None] | None,
    knowledge: str,
    proof: bool,
    store: Store | None,
    on_proof_tick: Callable[[int], None] | None,
    threads: int = 1,
    search: str = "auto",
    proof_table: str | None = None,
    share: bool = False,
) -> Result:
    """:func:`solve` once its arguments are checked: from the store, or by search, with the certificate asked."""
    from kinarow.search import certify

    if store is None and not proof:
        return certify.in_form(_search(position, max_nodes=max_nodes, time_limit=time_limit, tt_mb=tt_mb,
                                       symmetry=symmetry, strategy=strategy, walk=walk, searcher=searcher,
                                       on_tick=on_tick, knowledge=knowledge, threads=threads, search=search,
                                       proof_table=proof_table, share=share), walk)

    asked = knowledge if searcher is None else searcher.knowledge  # a searcher's own options key the store
    symmetry = symmetry if searcher is None else searcher.symmetry
    result = certify.stored_result(store, position, strategy=strategy or proof, knowledge=asked,
                                   symmetry=symmetry) if store is not None else None
    if result is not None and search != "auto" and result.search not in SEARCH_NAMES[search]:
        result = None  # the search asked for answers again
    if result is not None and store is not None and proof:  # a stored value is served only with its certificate
        proved = certify.certified_from_store(store, position, result, walk=walk, tick=on_proof_tick)
        if proved is not None:
            return proved
        result = None
    if result is None and proof and (search == "proof" or not strategy) and searcher is None \
            and not position.is_over and proof_search_applies(position.game, search, knowledge):
        # a draw's certificate needs no strategy; a win's is the winner's strategy, which alpha-beta writes
        # unless the proof search was asked for (then its table gives the proof tree)
        result = _proof_search(position, max_nodes=max_nodes, time_limit=time_limit, tt_mb=tt_mb, symmetry=symmetry,
                               on_tick=on_tick, knowledge=knowledge, strategy=search == "proof", walk=walk,
                               proof_table=proof_table, share=share)
        if result.value not in (Value.DRAW, Value.BREAKER) and result.strategy is None:
            result = None
    if result is None:
        result = _search(position, max_nodes=max_nodes, time_limit=time_limit, tt_mb=tt_mb, symmetry=symmetry,
                         strategy=strategy or proof, walk=walk, searcher=searcher, on_tick=on_tick,
                         knowledge=knowledge, threads=threads, search=search, proof_table=proof_table, share=share)
        if store is not None:
            certify.save_result(store, position, result, symmetry=symmetry)
    return certify.certify(position, result, proof=proof, walk=walk, store=store, tick=on_proof_tick)


def _search(
    position: Position,
    *,
    max_nodes: int | None,
    time_limit: float | None,
    tt_mb: float | None,
    symmetry: bool,
    strategy: bool,
    walk: bool,
    searcher: Searcher | None,
    on_tick: Callable[[int], None] | None,
    knowledge: str,
    threads: int = 1,
    search: str = "auto",
    proof_table: str | None = None,
    share: bool = False,
) -> Result:
    """:func:`solve`'s search of ``position`` (a copy the caller owns), without the store or the proof."""
    game = position.game
    start = time.perf_counter()
    moves_text = position.move_text()
    to_move = None if position.is_over else Player.of(position.to_move)
    if position.is_over:
        assert position.result is not None
        return Result(str(game), moves_text, position.result, 0, 0.0, None, to_move)
    if searcher is None and not strategy and connect.serves(game) is None:
        return _score_search(position, max_nodes=max_nodes, time_limit=time_limit, tt_mb=tt_mb, on_tick=on_tick,
                             knowledge=knowledge, strong=False, threads=threads)
    wide = game.cells > MAX_CELLS  # beyond the alpha-beta kernel: the proof search writes the strategy too
    if searcher is None and (search == "proof" or not strategy or wide) and proof_search_applies(game, search,
                                                                                               knowledge):
        return _proof_search(position, max_nodes=max_nodes, time_limit=time_limit, tt_mb=tt_mb, symmetry=symmetry,
                             on_tick=on_tick, knowledge=knowledge, strategy=strategy, walk=walk,
                             proof_table=proof_table, share=share)
    if searcher is None:
        searcher = Searcher(game, tt_mb=tt_mb, symmetry=symmetry, knowledge=knowledge)
    start = time.perf_counter()
    deadline = start + time_limit if time_limit else None
    value, best, nodes, stopped = searcher.search(position, max_nodes=max_nodes, deadline=deadline, on_tick=on_tick)
    seconds = time.perf_counter() - start
    know: dict[str, Any] = {"knowledge": searcher.knowledge, "knowledge_note": searcher.knowledge_note,
                             "knowledge_cuts": int(searcher.ctrl[K.C_KCUTS])}
    if stopped:
        return Result(str(game), moves_text, Value.UNKNOWN, nodes, seconds, None, to_move, stopped=stopped,
                      search=SCORE_SEARCH if searcher.scores is not None else ALPHA_BETA, **know)
    result = Result(
        str(game),
        moves_text,
        winner_of(game, position.to_move, value),
        nodes,
        seconds,
        position.name(best) if best is not None else None,
        to_move,
        search=SCORE_SEARCH if searcher.scores is not None else ALPHA_BETA,
        **know,
    )
    if searcher.ctrl[K.C_ROOT_EXACT] and result.value in (Value.DRAW, Value.BREAKER):
        result.certificate = root_certificate(position)
        result.seconds = time.perf_counter() - start
    if strategy and value != K.DRAW:
        result.strategy = extract_strategy(
            position, searcher, None if on_tick is None else lambda more: on_tick(nodes + more), walk=walk
        )
        result.seconds = time.perf_counter() - start
    return result


def _score_search(
    position: Position,
    *,
    max_nodes: int | None,
    time_limit: float | None,
    tt_mb: float | None,
    on_tick: Callable[[int], None] | None,
    knowledge: str,
    strong: bool,
    threads: int = 1,
) -> Result:
    """:func:`_search` for the games the Connect-k score kernel serves (:mod:`kinarow.search.connect`): one
    search gives the value, and with ``strong`` the exact score, so the game's length too."""
    game = position.game
    to_move = Player.of(position.to_move)
    start = time.perf_counter()
    deadline = start + time_limit if time_limit else None
    know: dict[str, Any] = {"knowledge": knowledge,
                            "knowledge_note": knowledge_reason(game) if knowledge != "none" else None}
    searcher, lock = books.searcher_for(game, tt_mb if tt_mb is not None else default_tt_mb(game))
    try:
        searcher.forget()  # every solve() searches as if from an empty table, so its node count is its own
        score = searcher.score(position, weak=not strong, max_nodes=max_nodes, deadline=deadline, on_tick=on_tick,
                               threads=threads)
        nodes = int(searcher.ctrl[connect.GK.G_NODES])
        if score is None:
            return Result(str(game), position.move_text(), Value.UNKNOWN, nodes, time.perf_counter() - start,
                          None, to_move, stopped=searcher.stopped, strong=strong, search=SCORE_SEARCH, **know)
        best = searcher.best_move(position, score, weak=not strong, max_nodes=max_nodes, deadline=deadline,
                                  on_tick=on_tick)
    finally:
        if lock is not None:
            lock.release()
    kernel_value = score.sign
    return Result(str(game), position.move_text(), winner_of(game, position.to_move, kernel_value), nodes,
                  time.perf_counter() - start, position.name(best) if best is not None else None, to_move,
                  strong=strong, last_move=score.last_move if strong else None, search=SCORE_SEARCH, **know)


def proof_search_applies(game: Game, search: str, knowledge: str) -> bool:
    """Does :func:`solve` ask the proof search (``search``: ``auto``, ``proof`` or ``alpha-beta``)? ``proof``
    for a game it does not apply to is refused in one sentence."""
    from kinarow.search.proof_search import unsupported

    if search == "alpha-beta":
        return False
    reason = unsupported(game)
    if search == "proof":
        if reason is not None:
            raise KinarowError(f"the proof search does not apply: {reason}; choose the auto or alpha-beta search")
        return True
    return reason is None and knowledge != "none" and game.cells >= PROOF_SEARCH_CELLS


def _proof_search(
    position: Position,
    *,
    max_nodes: int | None,
    time_limit: float | None,
    tt_mb: float | None,
    symmetry: bool,
    on_tick: Callable[[int], None] | None,
    knowledge: str,
    strategy: bool = False,
    walk: bool = False,
    proof_table: str | None = None,
    share: bool = False,
) -> Result:
    """:func:`_search` by the proof-number search (:mod:`kinarow.search.proof_search`): the value from its
    questions, then a move that keeps it (asked within what is left of the budgets); with ``strategy`` a
    win's strategy, the proof tree read from the search's table (:meth:`ProofSearcher.strategy_walk`,
    not bounded by the budgets)."""
    from kinarow.engine import pns_kernel
    from kinarow.search.proof_search import ProofSearcher, prove, table_size_mb

    game = position.game
    to_move = Player.of(position.to_move)
    kept = None if proof_table is None else table_size_mb(proof_table, game)
    searcher = ProofSearcher(game, tt_mb=kept or (tt_mb if tt_mb is not None else min(default_tt_mb(game), 64)),
                             symmetry=symmetry, knowledge=knowledge != "none")
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
    if strategy and winner is not None and game.goal == Goal.MAKER_BREAKER and winner == 2:
        # Breaker wins by blocking, which the table does not hold as a tree: alpha-beta writes its strategy
        result.strategy = extract_strategy(position, Searcher(game, tt_mb=tt_mb, symmetry=symmetry,
                                                              knowledge=knowledge), walk=walk)
    elif strategy and winner is not None and share:
        from kinarow.search.shared_walk import shared_walk

        done = result.nodes
        written = shared_walk(searcher, position, winner,
                              on_tick=None if on_tick is None else lambda more: on_tick(done + more),
                              keep=None if proof_table is None else proof_table + ".shared.npz")
        assert written is not None  # no time limit: it finishes (Ctrl-C is raised)
        result.walk_nodes, result.walk_seconds = written.nodes, written.seconds
        result.strategy = written.tree
    elif strategy and winner is not None:
        done = result.nodes
        walk_start = time.perf_counter()
        moves = searcher.strategy_walk(position, winner,
                                       on_tick=None if on_tick is None else lambda extra: on_tick(done + extra))
        result.walk_nodes, result.walk_seconds = searcher.walk_nodes, time.perf_counter() - walk_start
        tree = _walk_tree(position, winner, moves)
        result.strategy = tree if walk else tree.expanded()
    result.seconds = time.perf_counter() - start
    return result


def root_certificate(position: Position) -> Any:
    """The matching-set certificate of a draw (or Breaker win) that knowledge proved at the root, or None."""
    from kinarow.knowledge.matching import find_position

    players = (1,) if position.game.goal == Goal.MAKER_BREAKER else (1, 2)
    proof, _ = find_position(position, players=players, budget=2_000_000)
    return proof
