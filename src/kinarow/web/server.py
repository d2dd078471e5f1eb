"""The local web page: ``kinarow serve``.

A small JSON API over the standard library's HTTP server, and one static page
(``index.html`` beside this file) that uses it. The server keeps no game
state: every request carries the game string and the moves so far, so a page
reload, two tabs or a restart of the server lose nothing.

Endpoints (all ``POST`` with a JSON object, answering a JSON object):

``/api/state``    ``{game, moves}`` -> the position: board SVG, whose turn, legal moves, result
``/api/play``     ``{game, moves, move}`` -> the position after ``move`` (a cell, or a column under gravity)
``/api/engine``   ``{game, moves, engine, pairs?, strategy?}`` -> the engine's whole turn played;
                  ``engine`` is ``solver`` (search within the think time), ``pairing`` (White answers
                  each Black stone in a pair with its partner), ``certificate`` (follow a strategy) or
                  ``strategy:NAME`` (a proven strategy of :mod:`kinarow.strategies`, e.g. ``strategy:take-even``)
``/api/strategy`` ``{game, strategy}`` -> the player a proven strategy plays in the game, or why it does not apply
``/api/pairing``  ``{game, moves}`` -> a good pairing (SAT) drawn over the board, or why there is none
``/api/matching`` ``{game, moves}`` -> a matching set for the first player's live groups drawn over the board,
                  or why there is none
``/api/proof``    ``{game, moves}`` -> the value and its certificate (as ``kinarow solve --proof``)
``/api/check``    ``{certificate}`` -> the checker's verdict and the certificate drawn

``GET /`` is the page, ``GET /api/info`` the version and example games. A bad
request gets a 4xx status and ``{"error": "one sentence"}``; the server never
stops on one.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import TYPE_CHECKING, Any, TextIO

from kinarow import __version__
from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import PLAYER_NAMES, Position, value_names
from kinarow.values import Value

if TYPE_CHECKING:
    from kinarow.search.solve import Searcher
    from kinarow.store import Store

MAX_BODY = 32 * 2**20  # bytes; strategy certificates of small boards are well below this
EXAMPLES = ("3x3k3", "4x4k4", "4x3k3", "5x4k4", "4x4k3:gravity", "5x5k4:maker-breaker", "7x6k4:gravity",
            "6x6k4p2q1", "5x5k5")
HIGHLIGHT = "#9be39b"
MATCHING_BUDGET = 30_000_000  # search nodes per matching-set search: a few seconds, so no request hangs


class RequestError(KinarowError):
    """A request the API cannot serve; carries its HTTP status."""

    def __init__(self, message: str, status: int = HTTPStatus.BAD_REQUEST) -> None:
        super().__init__(message)
        self.status = status


class App:
    """The API's logic, independent of HTTP (tests call :meth:`handle` directly)."""

    def __init__(self, *, think: float = 3.0, store: Store | None = None, max_searchers: int = 4) -> None:
        self.think = think
        self.store = store
        self._searchers: OrderedDict[str, tuple[Searcher, threading.Lock]] = OrderedDict()
        self._max_searchers = max_searchers
        self._lock = threading.Lock()

    # -- dispatch ----------------------------------------------------------------------
    def handle(self, path: str, body: Any) -> dict[str, Any]:
        routes = {
            "/api/state": self.state,
            "/api/play": self.play,
            "/api/engine": self.engine,
            "/api/strategy": self.strategy,
            "/api/pairing": self.pairing,
            "/api/matching": self.matching,
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
                "strategies": [{"name": s.name, "summary": s.summary, "where": s.where()} for s in STRATEGIES]}

    # -- positions ---------------------------------------------------------------------
    @staticmethod
    def _position(body: dict[str, Any]) -> Position:
        game = body.get("game")
        if not isinstance(game, str) or not game.strip():
            raise RequestError('the request needs "game", a game string such as "3x3k3"')
        moves = body.get("moves", [])
        if isinstance(moves, str):
            moves = moves.split()
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise RequestError('"moves" must be a list of cell names such as ["b2", "a1"]')
        position = Game(game.strip()).start()
        if len(moves) > position.game.cells:
            raise RequestError(f"{len(moves)} moves cannot fit on a board of {position.game.cells} cells")
        for token in moves:
            position.play(position.parse_move(token))
        return position

    def _view(self, position: Position, **extra: Any) -> dict[str, Any]:
        from kinarow import svg

        game = position.game
        over = position.is_over
        result = position.result
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
            "legal": [] if over else [position.name(c) for c in position.legal_moves()],
            "gravity": game.gravity,
            "svg": svg.board(position, fills=extra.pop("fills", None), pairs=extra.pop("pairs", ()),
                             labels=extra.pop("labels", None)),
            **extra,
        }

    def state(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._view(self._position(body))

    def play(self, body: dict[str, Any]) -> dict[str, Any]:
        position = self._position(body)
        move = body.get("move")
        if not isinstance(move, str) or not move.strip():
            raise RequestError('the request needs "move", a cell name such as "b2" (or a column under gravity)')
        position.play(position.parse_move(move.strip()))
        return self._view(position)

    # -- the engine --------------------------------------------------------------------
    def _searcher(self, game: Game) -> tuple[Searcher, threading.Lock]:
        from kinarow.search.solve import Searcher

        key = str(game)
        with self._lock:
            if key in self._searchers:
                self._searchers.move_to_end(key)
                return self._searchers[key]
        made = (Searcher(game), threading.Lock())
        with self._lock:
            self._searchers[key] = made
            while len(self._searchers) > self._max_searchers:
                self._searchers.popitem(last=False)
        return made

    def engine(self, body: dict[str, Any]) -> dict[str, Any]:
        position = self._position(body)
        kind = body.get("engine", "solver")
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
        from kinarow.search.solve import winner_of

        game = position.game
        searcher, lock = self._searcher(game)
        with lock:
            value, cell = searcher.choose_move(position, self.think)
        if value is None:
            return cell, f"not solved within {self.think:g} s, so it avoids every loss its search saw"
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
            ca, cb = geo.parse_cell(a), geo.parse_cell(b)
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

        try:
            tree = StrategyTree.from_json(strategy)
            cell = tree.move(position)  # a walk (version 3) is read into boards here
        except KinarowError as error:
            raise RequestError(f"the certificate engine needs a strategy certificate: {error}") from None
        if cell is None:
            raise RequestError("the strategy certificate prescribes no move in this position (it is not the winner's "
                               "turn in a position the strategy reaches)")
        return cell, "the move the winning strategy prescribes"

    def strategy(self, body: dict[str, Any]) -> dict[str, Any]:
        position = self._position(body)
        name = body.get("strategy")
        if not isinstance(name, str) or not name.strip():
            raise RequestError('the request needs "strategy", the name of a proven strategy such as "take-even"')
        rule = _proven_strategy(f"strategy:{name.strip()}", position.game, None)
        player = rule.check_applies(position.game)
        return {"strategy": rule.name, "player": player, "player_name": PLAYER_NAMES[player],
                "summary": rule.summary, "where": rule.where()}

    # -- proofs ------------------------------------------------------------------------
    def pairing(self, body: dict[str, Any]) -> dict[str, Any]:
        from kinarow.knowledge import pairing

        position = self._position(body)
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
            message = f"No good pairing exists here ({found.method})."
        return self._view(position, pairs=cells, pairing={"exists": found.exists, "pairs": [list(p) for p in pairs],
                                                          "certificate": found.pairing.to_json() if found.pairing
                                                          else None, "message": message})

    def matching(self, body: dict[str, Any]) -> dict[str, Any]:
        from kinarow import svg
        from kinarow.knowledge.matching import find_position
        from kinarow.proofs.matching import applicable

        position = self._position(body)
        reason = applicable(position.game)
        if reason is not None:
            raise RequestError(f"matching sets need free placement, one stone a turn and a normal or Maker-Breaker "
                               f"goal, but {reason}")
        if position.is_over:
            raise RequestError("the game is over, so there are no live groups to cover; take back a move")
        # with White to move, the search may try each opening cell: share the budget among them
        budget = MATCHING_BUDGET if position.to_move == 1 else MATCHING_BUDGET // (1 + len(position.legal_moves()))
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

    def proof(self, body: dict[str, Any]) -> dict[str, Any]:
        from kinarow.search.solve import solve

        position = self._position(body)
        searcher, lock = self._searcher(position.game)
        with lock:
            result = solve(position, time_limit=max(self.think, 10.0), strategy=True, searcher=searcher, proof=True,
                           store=self.store)
        proof = result.proof
        assert proof is not None  # asked for with proof=True
        return self._view(position, proof={"value": result.value, "describe": result.describe(),
                                           "certificate": proof.data, "what": proof.what,
                                           "from_store": result.from_store})

    def check(self, body: dict[str, Any]) -> dict[str, Any]:
        from kinarow.proofs import check_data

        data = body.get("certificate")
        verdict = check_data(data, compiled=True)  # a strategy is replayed by the compiled walk (same verdict)
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
        pairs = [(geo.parse_cell(a), geo.parse_cell(b)) for a, b in data.get("pairs", [])]
        fills: dict[int, str] = {}
        labels: dict[int, str] = {}
        choices = data.get("choices")
        if isinstance(choices, dict):
            from kinarow.proofs.tree import board_key

            first = choices.get(board_key(position))
            if isinstance(first, str):
                cell = geo.parse_cell(first)
                fills[cell], labels[cell] = HIGHLIGHT, "★"
        elif "walk" in data:
            start = _first_walk_move(position, data)
            if start is not None:
                fills[start], labels[start] = HIGHLIGHT, "★"
        return self._view(position, pairs=pairs, fills=fills, labels=labels)


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


def make_handler(app: App, log: TextIO | None = None) -> type[BaseHTTPRequestHandler]:
    """An HTTP request handler class serving ``app``."""

    class Handler(BaseHTTPRequestHandler):
        server_version = f"kinarow/{__version__}"

        def log_message(self, format: str, *args: Any) -> None:
            if log is not None:
                print(f"{time.strftime('%H:%M:%S')} {format % args}", file=log, flush=True)

        def _send(self, status: int, payload: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(payload)

        def _json(self, status: int, data: dict[str, Any]) -> None:
            self._send(status, json.dumps(data).encode("utf-8"), "application/json")

        def _error(self, status: int, message: str) -> None:
            self._json(status, {"error": " ".join(message.split())})

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path in ("/", "/index.html"):
                self._send(HTTPStatus.OK, _page(), "text/html; charset=utf-8")
            elif path == "/api/info":
                self._json(HTTPStatus.OK, app.info())
            elif path.startswith("/api/"):
                self._error(HTTPStatus.METHOD_NOT_ALLOWED, f"{path} answers POST requests with a JSON object")
            else:
                self._error(HTTPStatus.NOT_FOUND, f"there is no page '{path}'; the page is /")

        def do_POST(self) -> None:
            path = self.path.split("?", 1)[0]
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                self._error(HTTPStatus.BAD_REQUEST, "the Content-Length header is not a number")
                return
            if length > MAX_BODY:
                self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the request is larger than {MAX_BODY} bytes")
                return
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw.decode("utf-8")) if raw else {}
            except (UnicodeDecodeError, ValueError) as error:
                self._error(HTTPStatus.BAD_REQUEST, f"the request body is not valid JSON ({error})")
                return
            try:
                self._json(HTTPStatus.OK, app.handle(path, body))
            except RequestError as error:
                self._error(error.status, str(error))
            except KinarowError as error:
                self._error(HTTPStatus.BAD_REQUEST, str(error))
            except Exception as error:  # a bug: answer 500 and keep serving
                self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"internal error: {type(error).__name__}: {error}")

        def do_PUT(self) -> None:
            self._error(HTTPStatus.METHOD_NOT_ALLOWED, "the API answers GET / and POST /api/... only")

        do_DELETE = do_PATCH = do_PUT  # noqa: N815

    return Handler


def make_server(host: str = "127.0.0.1", port: int = 0, *, think: float = 3.0, store: Store | None = None,
                log: TextIO | None = None) -> ThreadingHTTPServer:
    """A server bound to ``host:port`` (port 0: any free port), not yet serving."""
    app = App(think=think, store=store)
    try:
        server = ThreadingHTTPServer((host, port), make_handler(app, log))
    except OSError as error:
        raise KinarowError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    server.daemon_threads = True
    return server


def serve(host: str = "127.0.0.1", port: int = 8765, *, think: float = 3.0, store: Store | None = None,
          out: TextIO | None = None, open_browser: bool = False) -> None:
    """Serve the page until Ctrl-C."""
    server = make_server(host, port, think=think, store=store, log=None)
    url = f"http://{host}:{server.server_address[1]}/"
    if out is not None:
        print(f"kinarow serves its page at {url} (Ctrl-C stops).", file=out, flush=True)
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        if out is not None:
            print("Stopped.", file=out)
    finally:
        server.server_close()
