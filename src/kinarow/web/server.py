"""The local web page: ``kinarow serve``.

A small JSON API on Starlette, served by uvicorn, and one static page
(``index.html`` beside this file) that uses it. The server keeps no game
state: every request carries the game string and the moves so far, so a page
reload, two tabs or a restart of the server lose nothing.

Endpoints (all ``POST`` with a JSON object, answering a JSON object):

``/api/state``    ``{game, moves, engine?}`` -> the position: board SVG, whose turn, legal moves, result
                  (with ``engine``, first checks that this opponent can play the game)
``/api/play``     ``{game, moves, move}`` -> the position after ``move`` (a cell, or a column under gravity)
``/api/engine``   ``{game, moves, engine, pairs?, strategy?}`` -> the engine's whole turn played;
                  ``engine`` is ``solver`` (search within the think time), ``pairing`` (White answers
                  each Black stone in a pair with its partner), ``certificate`` (follow a strategy) or
                  ``strategy:NAME`` (a proven strategy of :mod:`kinarow.strategies`, e.g. ``strategy:take-even``)
``/api/strategy`` ``{game, strategy}`` -> the player a proven strategy plays in the game, or why it does not apply
``/api/pairing``  ``{game, moves}`` -> a good pairing (SAT) drawn over the board, or why there is none
``/api/matching`` ``{game, moves}`` -> a matching set for the first player's live groups drawn over the board,
                  or why there is none
``/api/analyse``  ``{game, moves}`` -> every legal move's value and game length drawn over the board, and the
                  position's value in words (as ``kinarow analyse``, within the think time)
``/api/proof``    ``{game, moves}`` -> the value and its certificate (as ``kinarow solve --proof``)
``/api/check``    ``{certificate}`` -> the checker's verdict and the certificate drawn

``GET /`` is the page, ``GET /api/info`` the version and example games. A bad
request gets a 4xx status and ``{"error": "one sentence"}``; the server never
stops on one.

The server is for the user's own browser. It answers only requests addressed
to its own host names (``Host``: against DNS rebinding), takes a ``POST`` only
as ``Content-Type: application/json`` and from its own page (``Origin``), so
another web page the user visits cannot drive it, and it bounds every request:
body size, JSON nesting, board size, the engine's memory (a small pool of
searchers) and its search (a node budget besides the think time). The limits
are the constants below; docs/web.md lists them.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from http import HTTPStatus
from importlib import resources
from types import FrameType
from typing import TYPE_CHECKING, Any, TextIO

from kinarow import __version__
from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import PLAYER_NAMES, Position, value_names
from kinarow.values import Value

if TYPE_CHECKING:
    import uvicorn
    from starlette.applications import Starlette

    from kinarow.search.alphabeta import Searcher
    from kinarow.store import Store

EXAMPLES = ("3x3k3", "4x4k4", "4x3k3", "5x4k4", "4x4k3:gravity", "5x5k4:maker-breaker", "7x6k4:gravity",
            "6x6k4p2q1", "5x5k5")
HIGHLIGHT = "#9be39b"
LINE = "#f5c542"  # the cells of the line that ended the game
MATCHING_BUDGET = 30_000_000  # search nodes per matching-set search: a few seconds, so no request hangs

# -- limits (docs/web.md, "The web server") -------------------------------------------------
MAX_BODY = 32 * 2**20  # bytes, for /api/check and /api/engine: strategy certificates of small boards fit
MAX_SMALL_BODY = 256 * 2**10  # bytes, for every other endpoint: a game, its moves and a few names
MAX_DEPTH = 32  # JSON nesting; certificates nest 4 deep
MAX_GAME_TEXT = 100  # characters of a game string
MAX_NAME_TEXT = 64  # characters of a cell, column, engine or strategy name
MAX_CELLS = 400  # cells of a board drawn or played (20x20)
MAX_PRESCRIBED = 2**24  # moves of a strategy walk (a byte each once unpacked); the (9,4,4) certificate has 7 million
PROOF_CELLS = 144  # cells of a board searched for a pairing or a matching set (12x12)
ENGINE_NODES = 50_000_000  # search nodes per engine stone, besides the think time
PROOF_NODES = 200_000_000  # search nodes per proof, besides its time limit
SEARCHERS = 2  # searchers (one transposition table each) kept for the engine and proofs
TABLE_MB = 64  # MiB: the most one searcher's transposition table may take, so at most 128 MiB in all
WAIT = 20.0  # seconds a request waits for a searcher or a checker before it is answered 503
HEAVY = 2  # pairing and matching searches at once
CHECKS = 1  # certificate checks (and certificate engines) at once: a large strategy takes GiB
READ_TIMEOUT = 30.0  # seconds to receive a request body
KEEP_ALIVE = 5  # seconds an idle connection stays open, and a request line and headers may take to arrive
CONNECTIONS = 64  # open connections at once; beyond, uvicorn answers 503
MAX_HEADERS = 64 * 2**10  # bytes of a request line and headers (h11)
LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]")
WARM_TABLE_MB = 8  # MiB: the transposition table of the warm-up's own searcher
#: The requests the warm-up replays at start-up, one per kernel family the page uses (numba compiles a kernel on
#: its first call, or loads it from its cache: 15-25 s in all on a cold cache, which the first analysis waited for)
WARM_UP: tuple[tuple[str, dict[str, Any]], ...] = (
    ("/api/analyse", {"game": "4x4k3:gravity", "moves": []}),  # Connect-k score search (and alpha-beta's threats)
    ("/api/analyse", {"game": "4x3k3", "moves": []}),  # free-board alpha-beta
    ("/api/engine", {"game": "3x3k3", "moves": ["b2"], "engine": "solver"}),
    ("/api/proof", {"game": "3x3k3", "moves": ["b2"]}),  # a draw: proof search, pairings, the blocking tree
    ("/api/proof", {"game": "4x4k3:gravity", "moves": []}),  # a win: the strategy's extraction and its check
    ("/api/proof", {"game": "4x3k3", "moves": []}),
)


class RequestError(KinarowError):
    """A request the API cannot serve; carries its HTTP status."""

    def __init__(self, message: str, status: int = HTTPStatus.BAD_REQUEST) -> None:
        super().__init__(message)
        self.status = status


class Gate:
    """At most ``slots`` holders at once; a request that waits more than ``wait`` seconds gets a 503 sentence."""

    def __init__(self, slots: int, what: str, wait: float = WAIT) -> None:
        self._slots = threading.BoundedSemaphore(slots)
        self.what = what
        self.wait = wait

    @contextmanager
    def held(self) -> Iterator[None]:
        if not self._slots.acquire(timeout=self.wait):
            raise RequestError(f"the server is busy with other {self.what}; try again in a moment",
                               HTTPStatus.SERVICE_UNAVAILABLE)
        try:
            yield
        finally:
            self._slots.release()


class SearcherPool:
    """A few :class:`~kinarow.search.solve.Searcher` objects, one per game, reused least recently used first.

    At most ``size`` searchers exist at once, each with a transposition table
    of at most ``table_mb`` MiB, and each serves one request at a time. A
    request for another game takes the least recently used idle searcher's
    place; when all are busy it waits up to ``wait`` seconds, then gets a 503.
    """

    def __init__(self, size: int = SEARCHERS, table_mb: float = TABLE_MB, wait: float = WAIT,
                 threads: int = 1) -> None:
        self.size = size
        self.table_mb = table_mb
        self.threads = threads  # of each searcher's Connect-k score search (:class:`Searcher`'s ``threads``)
        self.wait = wait
        self._idle: OrderedDict[str, Searcher] = OrderedDict()  # least recently used first
        self._busy = 0
        self._ready = threading.Condition()

    @contextmanager
    def searcher(self, game: Game) -> Iterator[Searcher]:
        from kinarow.engine.tables import MAX_CELLS as ENGINE_CELLS
        from kinarow.limits import default_tt_mb
        from kinarow.search.alphabeta import Searcher, check_searchable

        check_searchable(game, ENGINE_CELLS)  # one word a board: the page's searches stay short
        key = str(game)
        deadline = time.monotonic() + self.wait
        with self._ready:
            while True:
                found = self._idle.pop(key, None)
                if found is not None or self._busy + len(self._idle) < self.size:
                    break
                if self._idle:  # make room: the least recently used idle searcher goes
                    self._idle.popitem(last=False)
                    break
                left = deadline - time.monotonic()
                if left <= 0 or not self._ready.wait(left):
                    raise RequestError("the engine is busy with other games; try again in a moment",
                                       HTTPStatus.SERVICE_UNAVAILABLE)
            self._busy += 1
        try:
            if found is None:
                found = Searcher(game, tt_mb=min(default_tt_mb(game), self.table_mb), threads=self.threads)
            yield found
        finally:
            with self._ready:
                self._busy -= 1
                if found is not None:
                    self._idle[key] = found
                self._ready.notify()

    def __len__(self) -> int:
        """How many searchers exist now (busy or idle)."""
        with self._ready:
            return self._busy + len(self._idle)


class App:
    """The API's logic, independent of HTTP (tests call :meth:`handle` directly)."""

    def __init__(self, *, think: float = 3.0, store: Store | None = None, searchers: int = SEARCHERS,
                 wait: float = WAIT, threads: int | None = None, table_mb: float = TABLE_MB) -> None:
        self.think = think
        self.store = store
        from kinarow.limits import engine_threads

        self.searchers = SearcherPool(searchers, table_mb=table_mb, wait=wait,
                                      threads=engine_threads() if threads is None else threads)
        self.heavy = Gate(HEAVY, "pairing and matching searches", wait)
        self.checks = Gate(CHECKS, "certificate checks", wait)
        self.stopping = threading.Event()
        self.warming = threading.Event()  # set while the warm-up runs (:meth:`warm`)

    def stop(self) -> None:
        """The server is stopping: searches and checks still running end at their next progress report."""
        self.stopping.set()

    def warm(self) -> None:
        """Replay :data:`WARM_UP`'s requests, so that numba compiles (or loads) the page's kernels now rather than
        in the first request that needs them. They run in an app of their own (one small searcher, no results
        store), so the warm-up takes none of this app's searchers; a request arriving meanwhile is served as
        usual, waiting only for a kernel being compiled. Stops early when the server stops."""
        # think time enough for these small games even while numba compiles, so that every kernel is called
        helper = App(think=max(self.think, 30.0), searchers=1, wait=WAIT, threads=self.searchers.threads,
                     table_mb=WARM_TABLE_MB)
        helper.stopping = self.stopping
        self.warming.set()
        try:
            for path, body in WARM_UP:
                if self.stopping.is_set():
                    return
                with suppress(KinarowError, KeyboardInterrupt):  # a stop during the warm-up ends it quietly
                    helper.handle(path, body)
        finally:
            self.warming.clear()

    def start_warming(self) -> threading.Thread:
        """Run :meth:`warm` in a daemon thread (``kinarow serve`` does at start-up)."""
        self.warming.set()  # at once: /api/info says so before the thread has started
        thread = threading.Thread(target=self.warm, name="kinarow-warm-up", daemon=True)
        thread.start()
        return thread

    def _tick(self, _progress: int) -> None:
        """The progress callback of searches and checks: it stops them when the server stops."""
        if self.stopping.is_set():
            raise KeyboardInterrupt

    def _stopped(self) -> RequestError:
        return RequestError("the server is stopping, so the request was not finished",
                            HTTPStatus.SERVICE_UNAVAILABLE)

    # -- dispatch ----------------------------------------------------------------------
    def handle(self, path: str, body: Any) -> dict[str, Any]:
        routes = {
            "/api/state": self.state,
            "/api/play": self.play,
            "/api/engine": self.engine,
            "/api/strategy": self.strategy,
            "/api/pairing": self.pairing,
            "/api/matching": self.matching,
            "/api/analyse": self.analyse,
            "/api/proof": self.proof,
            "/api/check": self.check,
        }
        route = routes.get(path)
        if route is None:
            raise RequestError(f"there is no API endpoint '{path}'; the endpoints are {', '.join(routes)}",
                               HTTPStatus.NOT_FOUND)
        if not isinstance(body, dict):
            raise RequestError("the request body must be a JSON object")
        return route(body)

    def info(self) -> dict[str, Any]:
        from kinarow.strategies import STRATEGIES

        return {"version": __version__, "examples": list(EXAMPLES), "think": self.think,
                "warming": self.warming.is_set(),
                "strategies": [{"name": s.name, "summary": s.summary, "where": s.where()} for s in STRATEGIES]}

    # -- positions ---------------------------------------------------------------------
    @staticmethod
    def _game(text: Any, cells: int = MAX_CELLS, what: str = "the page plays") -> Game:
        """The game of a request, refused if its string or its board is over the server's limits."""
        if not isinstance(text, str) or not text.strip():
            raise RequestError('the request needs "game", a game string such as "3x3k3"')
        if len(text) > MAX_GAME_TEXT:
            raise RequestError(f"the game string has {len(text)} characters; the server takes at most "
                               f"{MAX_GAME_TEXT}")
        game = Game(text.strip())
        if game.k > game.cells:  # no line holds K stones, and the engine would size its tables by K
            raise RequestError(f"K = {game.k} in {game} is more than the board's {game.cells} cells, so no line "
                               "holds K stones")
        if game.cells > cells:
            raise RequestError(f"{game} has {game.cells} cells; {what} boards of at most {cells} cells "
                               "(use the command line for larger ones)")
        return game

    @staticmethod
    def _name(text: Any, what: str) -> Any:
        """A cell, column or strategy name, refused when it is longer than any real one."""
        if isinstance(text, str) and len(text) > MAX_NAME_TEXT:
            raise RequestError(f"{what} '{text[:MAX_NAME_TEXT]}...' is {len(text)} characters long; names have at "
                               f"most {MAX_NAME_TEXT}")
        return text

    def _position(self, body: dict[str, Any], cells: int = MAX_CELLS, what: str = "the page plays") -> Position:
        game = self._game(body.get("game"), cells, what)
        moves = body.get("moves", [])
        if isinstance(moves, str):
            moves = moves.split()
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise RequestError('"moves" must be a list of cell names such as ["b2", "a1"]')
        position = game.start()
        if len(moves) > position.game.cells:
            raise RequestError(f"{len(moves)} moves cannot fit on a board of {position.game.cells} cells")
        for token in moves:
            position.play(position.parse_move(self._name(token, "the move")))
        return position

    def _view(self, position: Position, **extra: Any) -> dict[str, Any]:
        from kinarow import svg

        game = position.game
        over = position.is_over
        result = position.result
        lines = position.completed_lines()
        fills = {**(extra.pop("fills", None) or {}), **{c: LINE for line in lines for c in line}}
        return {
            "game": str(game),
            "moves": [position.name(c) for c in position.moves],
            "players": [position.board[c] for c in position.moves],
            "move_text": position.move_text(),
            "to_move": None if over else position.to_move,
            "to_move_name": None if over else PLAYER_NAMES[position.to_move],
            "stones_left": 0 if over else position.stones_left,
            "over": over,
            "result": result,
            "message": _status_sentence(position),
            "lines": [[position.name(c) for c in line] for line in lines],
            "legal": [] if over else [position.name(c) for c in position.legal_moves()],
            "gravity": game.gravity,
            "svg": svg.board(position, fills=fills, pairs=extra.pop("pairs", ()), labels=extra.pop("labels", None),
                             # a line through each completed line (on a wrapped board it may go round: fills only)
                             groups=lines if game.topology == "rect" else (),
                             frame=game.gravity),  # under gravity a rack: discs in a frame, a column takes a click
            **extra,
        }

    def state(self, body: dict[str, Any]) -> dict[str, Any]:
        position = self._position(body)
        if "engine" in body:  # the page asks before a game starts whether this opponent can play it
            self._check_engine(body["engine"], position.game)
        return self._view(position)

    def _check_engine(self, kind: Any, game: Game) -> None:
        """Refuse an opponent that cannot play ``game`` with the sentence its first move would get."""
        if kind == "solver":
            from kinarow.engine.tables import MAX_CELLS as ENGINE_CELLS
            from kinarow.search.alphabeta import check_searchable

            check_searchable(game, ENGINE_CELLS)
        elif isinstance(kind, str) and kind.startswith("strategy:"):
            _proven_strategy(self._name(kind, "the engine"), game, None)
        elif kind not in ("pairing", "certificate", "none"):
            raise RequestError(f"unknown engine '{kind}'; use 'solver', 'pairing', 'certificate' or "
                               "'strategy:NAME' (e.g. 'strategy:take-even')")

    def play(self, body: dict[str, Any]) -> dict[str, Any]:
        position = self._position(body)
        move = self._name(body.get("move"), "the move")
        if not isinstance(move, str) or not move.strip():
            raise RequestError('the request needs "move", a cell name such as "b2" (or a column under gravity)')
        position.play(position.parse_move(move.strip()))
        return self._view(position)

    # -- the engine --------------------------------------------------------------------
    def engine(self, body: dict[str, Any]) -> dict[str, Any]:
        position = self._position(body)
        kind = self._name(body.get("engine", "solver"), "the engine")
        if kind == "certificate":
            with self.checks.held():  # reading a strategy certificate may take much memory: one at a time
                return self._engine(position, kind, body)
        return self._engine(position, kind, body)

    def _engine(self, position: Position, kind: Any, body: dict[str, Any]) -> dict[str, Any]:
        if position.is_over:
            raise RequestError("the game is over; start a new game or take back a move")
        mover = position.to_move
        placed: list[str] = []
        note = ""
        rule = _proven_strategy(kind, position.game, mover) if isinstance(kind, str) and kind.startswith(
            "strategy:") else None
        while not position.is_over and position.to_move == mover:
            if kind == "solver":
                cell, note = self._solver_move(position)
            elif kind == "pairing":
                cell, note = self._pairing_move(position, body.get("pairs"))
            elif kind == "certificate":
                cell, note = self._certificate_move(position, body.get("strategy"))
            elif rule is not None:
                cell, note = _strategy_move(rule, position)
            else:
                raise RequestError(f"unknown engine '{kind}'; use 'solver', 'pairing', 'certificate' or "
                                   "'strategy:NAME' (e.g. 'strategy:take-even')")
            position.play(cell)
            placed.append(position.name(cell))
        sentence = f"{PLAYER_NAMES[mover]} (engine) plays {', '.join(placed)}; {note}."
        return self._view(position, engine={"played": placed, "note": note, "sentence": sentence},
                          fills={position.moves[-1]: HIGHLIGHT} if placed else None)

    def _solver_move(self, position: Position) -> tuple[int, str]:
        from kinarow.search.alphabeta import winner_of

        game = position.game
        with self.searchers.searcher(game) as searcher:
            value, best, _, stopped = searcher.search(position, max_nodes=ENGINE_NODES,
                                                      deadline=time.perf_counter() + self.think, on_tick=self._tick)
            guess = searcher.guess
        if stopped == "interrupted":
            raise self._stopped()
        if stopped or best is None:
            legal = position.legal_moves()
            cell = guess if guess in legal else legal[0]
            return cell, (f"not solved within {self.think:g} s or {ENGINE_NODES // 10**6} million nodes, so it "
                          "avoids every loss its search saw")
        cell = best
        outlook = winner_of(game, position.to_move, value)
        if outlook == Value.DRAW:
            return cell, "it expects a draw with perfect play"
        winner = outlook.stone
        return cell, "it expects to win" if winner == position.to_move else "it expects to lose against best play"

    @staticmethod
    def _pairing_move(position: Position, pairs: Any) -> tuple[int, str]:
        if not isinstance(pairs, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(c, str) for c in p) for p in pairs
        ):
            raise RequestError('the pairing engine needs "pairs", a list of two-cell lists like [["a1", "b2"]]')
        if position.to_move != 2:
            raise RequestError("the pairing strategy plays White (the second player); let Black move first")
        geo = position.geometry
        partner: dict[int, int] = {}
        for a, b in pairs:
            ca, cb = geo.parse_cell(App._name(a, "the cell")), geo.parse_cell(App._name(b, "the cell"))
            partner[ca], partner[cb] = cb, ca
        last = position.moves[-1] if position.moves else None
        legal = position.legal_moves()
        if last is not None and last in partner and partner[last] in legal:
            return partner[last], f"the partner of {position.name(last)} in its pair"
        free = [c for c in legal if c not in partner] or legal
        return free[0], "Black's stone was in no pair, so any cell does"

    @staticmethod
    def _certificate_move(position: Position, strategy: Any) -> tuple[int, str]:
        from kinarow.proofs.tree import StrategyTree

        if isinstance(strategy, dict):
            _certificate_limits(strategy)
        try:
            tree = StrategyTree.from_json(strategy)
            cell = tree.move(position)  # a walk (version 3) is read into boards here
        except KinarowError as error:
            raise RequestError(f"the certificate engine needs a strategy certificate: {error}") from None
        if cell is None:
            raise RequestError("the strategy certificate prescribes no move in this position (it is not the winner's "
                               "turn in a position the strategy reaches)")
        return cell, f"the move the {'winning' if tree.outcome == 'win' else 'non-losing'} strategy prescribes"

    def strategy(self, body: dict[str, Any]) -> dict[str, Any]:
        position = self._position(body)
        name = self._name(body.get("strategy"), "the strategy")
        if not isinstance(name, str) or not name.strip():
            raise RequestError('the request needs "strategy", the name of a proven strategy such as "take-even"')
        rule = _proven_strategy(f"strategy:{name.strip()}", position.game, None)
        player = rule.check_applies(position.game)
        return {"strategy": rule.name, "player": player, "player_name": PLAYER_NAMES[player],
                "summary": rule.summary, "where": rule.where()}

    # -- proofs ------------------------------------------------------------------------
    def pairing(self, body: dict[str, Any]) -> dict[str, Any]:
        from kinarow.knowledge import pairing

        position = self._position(body, PROOF_CELLS, "the page searches for pairings on")
        with self.heavy.held():
            found = pairing.find(position, max_conflicts=2_000_000)
        pairs = found.pairing.pairs if found.pairing else []
        geo = position.geometry
        cells = [(geo.parse_cell(a), geo.parse_cell(b)) for a, b in pairs]
        if found.exists:
            message = (f"A good pairing: every one of the {found.live_groups} groups still open to Black holds one of "
                       f"these {len(pairs)} pairs, so White answering each Black stone with its partner stops every "
                       "line: the first player cannot win.")
        elif found.exists is None:
            message = "The SAT search did not settle within its budget whether a good pairing exists."
        else:
            moves = f' --moves "{position.move_text()}"' if position.moves else ""
            message = (f"No good pairing exists here ({found.method}). The page does not send its proof (it can be "
                       f"megabytes): 'kinarow pairing {position.game}{moves} --proof FILE' writes the DRAT "
                       "refutation, and 'kinarow check FILE' verifies it.")
        return self._view(position, pairs=cells, pairing={"exists": found.exists, "pairs": [list(p) for p in pairs],
                                                          "certificate": found.pairing.to_json() if found.pairing
                                                          else None, "message": message})

    def matching(self, body: dict[str, Any]) -> dict[str, Any]:
        from kinarow import svg
        from kinarow.knowledge.matching import find_position
        from kinarow.proofs import blocking_fit

        position = self._position(body, PROOF_CELLS, "the page searches for matching sets on")
        fit = blocking_fit(position.game)
        if not fit:
            raise RequestError(f"matching sets need free placement, one stone a turn and a normal or Maker-Breaker "
                               f"goal, but {fit.reason}")
        if position.is_over:
            raise RequestError("the game is over, so there are no live groups to cover; take back a move")
        # with White to move, the search may try each opening cell: share the budget among them
        budget = MATCHING_BUDGET if position.to_move == 1 else MATCHING_BUDGET // (1 + len(position.legal_moves()))
        with self.heavy.held():
            proof, why = find_position(position, players=(1,), budget=budget)
        view = self._view(position)
        if proof is None:
            view["matching"] = {"exists": False, "markers": [], "groups": [], "certificate": None,
                                "message": f"No matching set: {why}" + (
                                    f" (the page searches at most {MATCHING_BUDGET // 10**6} million nodes)."
                                    if "budget" in why else ".")}
            return view
        _, found = proof.covers[0]
        opening = proof.openings[0] if proof.openings else None
        move = f" after White opens on {opening}" if opening else ""
        message = (f"A matching set{move}: {len(found.markers)} lettered markers and {len(found.groups)} groups "
                   f"({found.kind}): White answering Black on the markers leaves every live group of Black blocked, so "
                   f"{proof.conclusion()}.")
        view["svg"] = svg.matching_set(position, found.markers, found.groups,
                                       title=f"{position.game}: a matching set for Black's groups")
        view["matching"] = {"exists": True, "markers": list(found.markers),
                            "groups": [list(g) for g in found.groups], "opening": opening,
                            "certificate": proof.to_json(), "message": message}
        return view

    # -- analysis ----------------------------------------------------------------------
    def analyse(self, body: dict[str, Any]) -> dict[str, Any]:
        """Every legal move's value (for the player to move) and the move on which the game then ends, drawn
        over the board, within the think time (as ``kinarow analyse``)."""
        from kinarow import svg
        from kinarow.limits import default_tt_mb
        from kinarow.search.analyse import analyse

        position = self._position(body)
        if position.is_over:
            raise RequestError("the game is over, so there is no move to analyse; take back a move or start a new "
                               "game")
        if self.stopping.is_set():
            raise self._stopped()
        with self.searchers.searcher(position.game) as searcher:  # a slot of the pool: at most SEARCHERS at once
            # bounded by the think time (the whole analysis, not each move); a table it makes of its own is no
            # larger than the pool's
            found = analyse(position, time_limit=self.think, searcher=searcher,
                            tt_mb=min(default_tt_mb(position.game), self.searchers.table_mb))
        if found.stopped == "interrupted" or self.stopping.is_set():
            raise self._stopped()
        gravity = position.game.gravity

        def named(move: str) -> str:  # under gravity the page names a move by its column
            return move.rstrip("0123456789") if gravity else move

        moves = [{"move": named(m.move), "cell": m.move, "label": m.label, "outcome": m.outcome, "value": m.value,
                  "last_move": m.last_move} for m in found.moves_list]
        solved = sum(m.outcome != "unknown" for m in found.moves_list)
        sentence = found.describe()
        if found.stopped:
            sentence += (f" {solved} of {len(moves)} moves were solved within the think time ({self.think:g} s); "
                         "the others show ?.")
        who = PLAYER_NAMES[position.to_move]
        legend = [("win", f"Wn: {who} wins on move n"), ("draw", "D: a draw"),
                  ("loss", f"Ln: {who} loses on move n")]
        if solved < len(moves):
            legend.append(("unknown", "?: not solved in time"))
        view = self._view(position)
        view["svg"] = svg.heat_map(position, {m.cell: (m.outcome, m.label) for m in found.moves_list},
                                   frame=gravity)
        view["analysis"] = {"describe": found.describe(), "sentence": sentence, "value": found.value,
                            "last_move": found.last_move, "best_moves": [named(m.move) for m in found.best],
                            "moves": moves, "legend": [[svg.HEAT_COLOURS[kind], words] for kind, words in legend],
                            "stopped": found.stopped, "nodes": found.nodes}
        return view

    def proof(self, body: dict[str, Any]) -> dict[str, Any]:
        from kinarow.search.solve import solve

        position = self._position(body)
        try:
            with self.searchers.searcher(position.game) as searcher:
                result = solve(position, time_limit=max(self.think, 10.0), max_nodes=PROOF_NODES, strategy=True,
                               searcher=searcher, proof=True, store=self.store, on_tick=self._tick)
        except KeyboardInterrupt:
            if self.stopping.is_set():
                raise self._stopped() from None
            raise
        if self.stopping.is_set():
            raise self._stopped()
        proof = result.proof
        assert proof is not None  # asked for with proof=True
        return self._view(position, proof={"value": result.value, "describe": result.describe(),
                                           "certificate": proof.data, "what": proof.what,
                                           "from_store": result.from_store})

    def check(self, body: dict[str, Any]) -> dict[str, Any]:
        from kinarow.proofs import NEEDS_BASE, check_data

        data = body.get("certificate")
        if isinstance(data, dict):
            if data.get("format") in NEEDS_BASE:  # never open a file a request names
                raise RequestError(f"a {data['format']} certificate names a data file beside it, and the page "
                                   "reads no files; check it with 'kinarow check FILE'")
            _certificate_limits(data)
        try:
            with self.checks.held():  # a strategy is replayed by the compiled walk (the same verdict)
                verdict = check_data(data, compiled=True, on_tick=self._tick)
        except KeyboardInterrupt:
            if self.stopping.is_set():
                raise self._stopped() from None
            raise
        answer: dict[str, Any] = {"verdict": verdict.to_dict()}
        try:
            answer.update(self._draw_certificate(data))
        except (KinarowError, KeyError, TypeError, ValueError, AttributeError):
            answer["svg"] = None  # the verdict already says what is wrong with it
        return answer

    def _draw_certificate(self, data: Any) -> dict[str, Any]:
        """The certificate's position, with its pairs or the strategy's first move marked."""
        if not isinstance(data, dict):
            raise RequestError("not a certificate")
        position = self._position({"game": data.get("game"), "moves": data.get("moves", [])})
        geo = position.geometry
        pairs = [(geo.parse_cell(self._name(a, "the cell")), geo.parse_cell(self._name(b, "the cell")))
                 for a, b in data.get("pairs", [])]
        fills: dict[int, str] = {}
        labels: dict[int, str] = {}
        choices = data.get("choices")
        if isinstance(choices, dict):
            from kinarow.proofs.tree import board_key

            first = choices.get(board_key(position))
            if isinstance(first, str):
                cell = geo.parse_cell(self._name(first, "the cell"))
                fills[cell], labels[cell] = HIGHLIGHT, "★"
        elif "walk" in data:
            start = _first_walk_move(position, data)
            if start is not None:
                fills[start], labels[start] = HIGHLIGHT, "★"
        return self._view(position, pairs=pairs, fills=fills, labels=labels)


def _certificate_limits(data: dict[str, Any]) -> None:
    """Refuse a certificate over the page's limits before it is read: its board, and a walk's stated length
    (which bounds how far its compressed bytes are unpacked)."""
    if isinstance(data.get("game"), str):
        try:
            game: Game | None = Game(data["game"][:MAX_GAME_TEXT + 1])
        except KinarowError:
            game = None  # the checker says what is wrong with it
        if game is not None and game.cells > MAX_CELLS:
            raise RequestError(f"the certificate's game {game} has {game.cells} cells; the page takes certificates "
                               f"of boards of at most {MAX_CELLS} cells (use 'kinarow check')")
    halves = [data.get(name) for name in ("first_cannot_win", "second_cannot_win")]  # a draw's non-losing walks
    for part in (data, *(half for half in halves if isinstance(half, dict))):
        prescribed = part.get("prescribed")
        if isinstance(prescribed, int) and prescribed > MAX_PRESCRIBED:
            raise RequestError(f"the certificate's walk has {prescribed} prescribed moves; the page takes walks of "
                               f"at most {MAX_PRESCRIBED} (use 'kinarow check')")


def _first_walk_move(position: Position, data: dict[str, Any]) -> int | None:
    """The first move a walk (strategy version 3) prescribes at its own position, without reading the rest."""
    from kinarow.proofs.tree import StrategyTree, winning_stone

    try:
        tree = StrategyTree.from_json(data)
    except KinarowError:
        return None
    names = value_names(position.game)
    if not tree.walk or position.is_over or tree.winner not in names:
        return None
    if position.to_move != names.index(tree.winner) + 1 or winning_stone(position, tree.winner) is not None:
        return None
    return tree.walk[0] if tree.walk[0] in position.legal_moves() else None


def _proven_strategy(kind: str, game: Game, player: int | None) -> Any:
    """The proven strategy named by ``strategy:NAME``, checked to apply to ``game`` for ``player``."""
    from kinarow.strategies import get

    rule = get(kind.split(":", 1)[1].strip())
    rule.check_applies(game, player)
    return rule


def _strategy_move(rule: Any, position: Position) -> tuple[int, str]:
    """The strategy's move and which of its rules chose it."""
    from kinarow.strategies import rules

    cell = rule.move(position)
    if cell is None:
        return position.legal_moves()[0], f"{rule.name} prescribes nothing here, so the leftmost legal move"
    n = position.game.n
    last = position.moves[-1] if position.moves else None
    if last is not None and cell == last + 1 and cell // n == last // n:
        why = f"directly on top of {position.name(last)}"
    elif rule.code in (rules.DELAYED_TAKE_EVEN, rules.PAIR_ROW) and (last is None or last % n == 0):
        why = ("the pair rule opens on the rightmost cell of row 1" if last is None else
               f"the pair rule answers {position.name(last)} in row 1")
    elif rule.code in (rules.TALLY, rules.DELAYED_TALLY):
        why = "the tally rule in row 1"
    elif rule.code == rules.CANONICAL_BOARDS:
        why = "the canonical-boards segment rule"
    else:
        why = rule.summary
    return cell, f"by {rule.name}: {why}"


def _status_sentence(position: Position) -> str:
    if position.is_over:
        result = position.result
        if result == Value.DRAW:
            return "Game over: a draw."
        winner = 1 if result is not None and result.stone == 1 else 2
        return f"Game over: {PLAYER_NAMES[winner]} wins."
    left = position.stones_left
    stones = "" if left == 1 else f" ({left} stones this turn)"
    return f"{PLAYER_NAMES[position.to_move]} to move{stones}."


def _page() -> bytes:
    return resources.files("kinarow.web").joinpath("index.html").read_bytes()


def _depth_over(data: Any, limit: int) -> bool:
    """Does ``data`` (parsed JSON) nest deeper than ``limit`` lists and objects? (iterative: no recursion)"""
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        elif not isinstance(item, list):
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in item if isinstance(child, (dict, list)))
    return False


def _sentence(message: str) -> str:
    return " ".join(message.split())


def answer(app: App, path: str, raw: bytes) -> tuple[int, dict[str, Any]]:
    """Parse a request body and serve it: (status, JSON object). Runs in a worker thread."""
    try:
        body = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except UnicodeDecodeError:
        return HTTPStatus.BAD_REQUEST, {"error": "the request body is not UTF-8 text"}
    except RecursionError:
        return HTTPStatus.BAD_REQUEST, {"error": f"the request body nests deeper than {MAX_DEPTH} levels"}
    except ValueError as error:
        return HTTPStatus.BAD_REQUEST, {"error": _sentence(f"the request body is not valid JSON ({error})")}
    if _depth_over(body, MAX_DEPTH):
        return HTTPStatus.BAD_REQUEST, {"error": f"the request body nests deeper than {MAX_DEPTH} levels"}
    try:
        return HTTPStatus.OK, app.handle(path, body)
    except RequestError as error:
        return error.status, {"error": _sentence(str(error))}
    except KinarowError as error:
        return HTTPStatus.BAD_REQUEST, {"error": _sentence(str(error))}


ROUTES = ("/api/state", "/api/play", "/api/engine", "/api/strategy", "/api/pairing", "/api/matching", "/api/analyse",
          "/api/proof", "/api/check")
BIG_BODY_ROUTES = ("/api/engine", "/api/check")  # they may carry a certificate


def allowed_hosts(host: str) -> list[str]:
    """The host names the server answers to when bound to ``host`` (the ``Host`` header's name part)."""
    names = list(LOCAL_HOSTS)
    if host in ("0.0.0.0", "::", ""):  # every interface: the machine's own names and addresses
        machine = socket.gethostname()
        names += [machine, socket.getfqdn()]
        with suppress(OSError):
            names += socket.gethostbyname_ex(machine)[2]
    elif host:
        names.append(f"[{host}]" if ":" in host and not host.startswith("[") else host)
    return sorted({name.lower() for name in names if name})


def _same_origin(origin: str, host: str, scheme: str) -> bool:
    """Is ``origin`` (an ``Origin`` header) the page's own origin, ``scheme://host``?"""
    default = {"http": "80", "https": "443"}.get(scheme, "")

    def split(netloc: str) -> tuple[str, str]:
        name, colon, port = netloc.rpartition(":") if not netloc.endswith("]") else (netloc, "", "")
        if not colon:
            name, port = netloc, ""
        return name.lower(), port or default

    prefix = f"{scheme}://"
    if not origin.lower().startswith(prefix):
        return False
    return split(origin[len(prefix):]) == split(host)


def create_app(app: App | None = None, *, hosts: Sequence[str] = LOCAL_HOSTS) -> Starlette:
    """The ASGI application: the page, ``/api/info`` and the JSON API of ``app``, with the server's checks.

    ``hosts`` are the names the server answers to (the ``Host`` header;
    :func:`allowed_hosts`). Anything else gets a 400, so a web page whose
    domain name was pointed at this machine (DNS rebinding) cannot reach it.
    """
    import anyio
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    api = app if app is not None else App()
    no_store = {"Cache-Control": "no-store"}

    def error(status: int, message: str) -> Response:
        return JSONResponse({"error": _sentence(message)}, status_code=status, headers=no_store)

    async def page(request: Request) -> Response:
        return Response(_page(), media_type="text/html; charset=utf-8", headers=no_store)

    async def info(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(api.info), headers=no_store)

    async def post(request: Request) -> Response:
        kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if kind != "application/json":
            return error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                         f"the API takes a JSON object with 'Content-Type: application/json', not "
                         f"'{kind[:40] or 'no Content-Type'}'")
        origin = request.headers.get("origin")
        if origin is not None and not _same_origin(origin, request.headers.get("host", ""), request.url.scheme):
            return error(HTTPStatus.FORBIDDEN, f"the API answers only its own page, not a page from "
                                               f"'{origin[:80]}'")
        path = request.url.path
        limit = MAX_BODY if path in BIG_BODY_ROUTES else MAX_SMALL_BODY
        too_large = error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                          f"the request body is larger than {path} takes ({limit // 1024} KiB)")
        declared = request.headers.get("content-length")  # h11 has refused one that is not a number
        if declared is not None and int(declared) > limit:
            return too_large
        chunks: list[bytes] = []
        size = 0
        try:
            with anyio.fail_after(READ_TIMEOUT):
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > limit:
                        return too_large
                    chunks.append(chunk)
        except TimeoutError:
            return error(HTTPStatus.REQUEST_TIMEOUT, f"the request body did not arrive within {READ_TIMEOUT:g} s")
        raw = b"".join(chunks)
        status, data = await run_in_threadpool(answer, api, path, raw)
        body = json.dumps(data).encode("utf-8")
        return Response(body, status_code=status, media_type="application/json", headers=no_store)

    def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        path = request.url.path
        status = exc.status_code
        if status == HTTPStatus.NOT_FOUND and path.startswith("/api/"):
            return error(status, f"there is no API endpoint '{path[:80]}'; the endpoints are {', '.join(ROUTES)}")
        if status == HTTPStatus.NOT_FOUND:
            return error(status, f"there is no page '{path[:80]}'; the page is /")
        if status == HTTPStatus.METHOD_NOT_ALLOWED and path in ROUTES:
            return error(status, f"{path} answers POST requests with a JSON object")
        if status == HTTPStatus.METHOD_NOT_ALLOWED:
            return error(status, "the server answers GET / and /api/info, and POST /api/... only")
        return error(status, f"{exc.detail}")

    def server_error(request: Request, exc: Exception) -> Response:  # a bug: answer 500 and keep serving
        return error(HTTPStatus.INTERNAL_SERVER_ERROR, f"internal error: {type(exc).__name__}: {str(exc)[:200]}")

    routes = [Route("/", page, methods=["GET"]), Route("/index.html", page, methods=["GET"]),
              Route("/api/info", info, methods=["GET"])]
    routes += [Route(path, post, methods=["POST"]) for path in ROUTES]
    handlers: dict[Any, Callable[[Request, Exception], Response]] = {HTTPException: http_error,
                                                                    Exception: server_error}
    return Starlette(routes=routes, middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))],
                     exception_handlers=handlers)


def _protocol() -> type[asyncio.Protocol]:
    """uvicorn's HTTP/1.1 protocol (h11), answering a request that is not valid HTTP with a JSON sentence,
    and closing a connection whose request line and headers have not all arrived within the keep-alive timeout
    (a new connection, or one after its last response).

    uvicorn has no timeout for reading a request's head: its keep-alive timer is cancelled by the first byte
    that arrives, so a client sending a header line every few seconds held its connection (and one of
    :data:`CONNECTIONS`) for good. Here the same timer runs on until h11 has the whole head (uvicorn cancels
    it then, when the request starts); the body has :data:`READ_TIMEOUT`."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Protocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive,
                                                                self.timeout_keep_alive_handler)

        def data_received(self, data: bytes) -> None:
            # uvicorn's own, without cancelling the timer first: handle_events cancels it on a whole request head
            self.conn.receive_data(data)
            self.handle_events()

        def send_400_response(self, msg: str) -> None:
            body = json.dumps({"error": "the request is not valid HTTP/1.1 (a malformed request line, header or "
                                        "Content-Length, or headers over "
                                        f"{MAX_HEADERS // 1024} KiB)"}).encode("utf-8")
            headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
            for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
                          h11.Data(data=body), h11.EndOfMessage()):
                self.transport.write(self.conn.send(event))
            self.transport.close()

    return Protocol


def _server(config: uvicorn.Config, app: App) -> uvicorn.Server:
    """A uvicorn server that, on Ctrl-C (or SIGTERM), also stops the searches still running in ``app``."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            app.stop()
            super().handle_exit(sig, frame)

    return Server(config)


class WebServer:
    """``kinarow serve``'s server: uvicorn serving :func:`create_app` on a socket bound at construction."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, think: float = 3.0, store: Store | None = None,
                 app: App | None = None, threads: int | None = None, warm: bool = False) -> None:
        import uvicorn

        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        try:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.socket.bind((host.strip("[]"), port))
            self.socket.listen(128)
        except OSError as error:
            self.socket.close()
            raise KinarowError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
        except OverflowError:
            self.socket.close()
            raise KinarowError(f"cannot listen on {host}:{port}: the port is out of range") from None
        self.host = host
        self.port: int = self.socket.getsockname()[1]
        self.app = app if app is not None else App(think=think, store=store, threads=threads)
        self.warm = warm  # warm the search kernels in the background when serving starts (App.warm)
        config = uvicorn.Config(create_app(self.app, hosts=allowed_hosts(host)), log_config=None, access_log=False,
                                lifespan="off", http=_protocol(), timeout_keep_alive=KEEP_ALIVE,
                                limit_concurrency=CONNECTIONS, h11_max_incomplete_event_size=MAX_HEADERS,
                                timeout_graceful_shutdown=5, server_header=False)
        self.server: uvicorn.Server = _server(config, self.app)

    @property
    def url(self) -> str:
        name = f"[{self.host}]" if ":" in self.host and not self.host.startswith("[") else self.host
        return f"http://{name}:{self.port}/"

    def run(self) -> None:
        """Serve until Ctrl-C (SIGINT) or SIGTERM; from the main thread, as uvicorn catches the signals there."""
        if self.warm:
            self.app.start_warming()
        try:
            self.server.run(sockets=[self.socket])
        finally:
            self.socket.close()

    def start(self) -> threading.Thread:
        """Serve from a daemon thread (tests); :meth:`stop` ends it."""
        thread = threading.Thread(target=self.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        return thread

    def stop(self) -> None:
        self.server.should_exit = True


def make_server(host: str = "127.0.0.1", port: int = 0, *, think: float = 3.0,
                store: Store | None = None, threads: int | None = None, warm: bool = False) -> WebServer:
    """A server bound to ``host:port`` (port 0: any free port), not yet serving. ``threads``: of each engine
    search (Connect-k games; :func:`kinarow.limits.engine_threads` when None); ``warm``: warm the search kernels
    in the background when it starts serving (:meth:`App.warm`)."""
    return WebServer(host, port, think=think, store=store, threads=threads, warm=warm)


def serve(host: str = "127.0.0.1", port: int = 8765, *, think: float = 3.0, store: Store | None = None,
          out: TextIO | None = None, open_browser: bool = False, threads: int | None = None) -> None:
    """Serve the page until Ctrl-C."""
    server = make_server(host, port, think=think, store=store, threads=threads, warm=True)
    if out is not None:
        print(f"kinarow serves its page at {server.url} (Ctrl-C stops).", file=out)
        print("Warming the search kernels in the background, so that the first analysis is quick.", file=out,
              flush=True)
    if open_browser:
        import webbrowser

        webbrowser.open(server.url)
    with suppress(KeyboardInterrupt):  # uvicorn stops on the signal, then raises it again
        server.run()
    if out is not None:
        print("Stopped.", file=out)
