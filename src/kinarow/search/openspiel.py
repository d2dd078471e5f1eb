"""A bridge to OpenSpiel: its ``tic_tac_toe``, ``mnk`` and ``connect_four`` states as kinarow positions, their
exact values and game lengths, and a perfect player that OpenSpiel can use as a bot.

OpenSpiel (``pip install "kinarow[openspiel]"``, the ``open_spiel`` package) is imported the first time a function
here needs it, so importing this module costs nothing and works without it.

How the games map (:func:`game_of`):

* ``tic_tac_toe`` is ``3x3k3``; ``mnk(m=M,n=N,k=K)`` is ``MxNkK`` (M columns, N rows; OpenSpiel's default
  ``mnk`` is 15x15k5); ``connect_four(columns=C,rows=R,x_in_row=K)`` is ``CxRkK:gravity`` (7x6k4:gravity by
  default). OpenSpiel's first player (0, ``x``) is kinarow's Black (1, ``X``).
* A move of ``tic_tac_toe`` or ``mnk`` is the action ``row * M + column``, its row 0 the top row as OpenSpiel
  prints the board; kinarow numbers the cells column-major from the bottom left (:mod:`kinarow.geometry`: cell
  ``x * N + y``, ``a1`` = 0), so the action ``r * M + c`` is the cell ``c * N + (N - 1 - r)`` and both print the
  same board. A move of ``connect_four`` is its column (0 = ``a``), and the cell is where the stone lands.

The functions: :func:`position_of` (a state as a :class:`~kinarow.position.Position`, its moves replayed),
:func:`state_of` (back), :func:`cell_of` and :func:`action_of` (one move either way), :func:`score` (the exact
value and game length with perfect play, by :func:`kinarow.search.solve.solve` with ``strong=True``; for Connect
Four the score search, whose opening book answers the first nine stones at once), and :func:`bot`, a
``pyspiel.Bot`` that plays a move keeping the value (the shortest win, the longest loss), ties broken by a seeded
random choice.

>>> from kinarow.search.openspiel import SUPPORTED
>>> SUPPORTED
('tic_tac_toe', 'mnk', 'connect_four')
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position
from kinarow.search.analyse import MoveValue, analyse
from kinarow.search.result import Result
from kinarow.search.solve import solve
from kinarow.values import Value

#: the OpenSpiel games this bridge maps (their short names)
SUPPORTED = ("tic_tac_toe", "mnk", "connect_four")
#: how to install OpenSpiel for this module
INSTALL = 'pip install "kinarow[openspiel]"'
#: OpenSpiel's returns (player 0, player 1) for each value
RETURNS: dict[Value, tuple[float, float]] = {Value.FIRST: (1.0, -1.0), Value.SECOND: (-1.0, 1.0),
                                             Value.DRAW: (0.0, 0.0)}


def pyspiel() -> Any:
    """The ``pyspiel`` module, imported now; one sentence saying how to install it when it is missing."""
    try:
        import pyspiel as module
    except ImportError:
        raise KinarowError(f"OpenSpiel is not installed; install it with {INSTALL}") from None
    return module


def _parameters(game: Any) -> dict[str, Any]:
    """An OpenSpiel game's parameters, its defaults filled in (``load_game("mnk")`` reports none)."""
    defaults = dict(game.get_type().parameter_specification)
    return {**defaults, **game.get_parameters()}


def _name(game: Any) -> str:
    name = str(game.get_type().short_name)
    if name not in SUPPORTED:
        raise KinarowError(f"kinarow maps the OpenSpiel games {', '.join(SUPPORTED)}, not {name!r}")
    return name


def game_of(game: Any) -> Game:
    """The kinarow :class:`~kinarow.game.Game` of an OpenSpiel game (a ``pyspiel.Game``, or a state of one).

    ``tic_tac_toe`` is ``3x3k3``, ``mnk`` ``MxNkK`` and ``connect_four`` ``CxRkK:gravity``; another game is refused
    in one sentence.
    """
    if hasattr(game, "get_game"):  # a state
        game = game.get_game()
    if not hasattr(game, "get_type"):
        raise KinarowError(f"game_of() takes an OpenSpiel game or state, not {type(game).__name__}")
    return _game_of(str(game))


@functools.cache
def _game_of(spec: str) -> Game:
    """The kinarow game of an OpenSpiel game by its string (``mnk(k=3,m=4,n=4)``), the game loaded again to read
    its parameters (kept: a bot asks once a move)."""
    game = pyspiel().load_game(spec)
    name, p = _name(game), _parameters(game)
    if name == "tic_tac_toe":
        return Game("3x3k3")
    if name == "mnk":
        return Game(f"{p['m']}x{p['n']}k{p['k']}")
    return Game(f"{p['columns']}x{p['rows']}k{p['x_in_row']}:gravity")


def load_game(game: Game | str) -> Any:
    """The OpenSpiel game (``pyspiel.Game``) of a kinarow game: ``3x3k3`` is ``tic_tac_toe``, another free board
    ``mnk``, a board with gravity ``connect_four``; rules OpenSpiel has no game for (a torus, misère, more than
    one stone a turn) are refused in one sentence."""
    game = Game(game)
    if not game.flags <= {"gravity"} or (game.p, game.q) != (1, 1):
        raise KinarowError(f"OpenSpiel has no game for {game}: its tic_tac_toe, mnk and connect_four are a "
                           "rectangle, one stone a turn, the normal goal")
    module = pyspiel()
    if game.gravity:
        return module.load_game("connect_four", {"columns": game.m, "rows": game.n, "x_in_row": game.k})
    if (game.m, game.n, game.k) == (3, 3, 3):
        return module.load_game("tic_tac_toe")
    return module.load_game("mnk", {"m": game.m, "n": game.n, "k": game.k})


def cell_of(position: Position, action: int) -> int:
    """The kinarow cell of the OpenSpiel ``action`` played in ``position`` (under gravity, where the stone lands);
    an action off the board or in a full column is refused in one sentence."""
    game = position.game
    if isinstance(action, bool) or not hasattr(action, "__index__"):
        raise KinarowError(f"an OpenSpiel action is a whole number, not {type(action).__name__}")
    action = int(action)
    if game.gravity:
        if not 0 <= action < game.m:
            raise KinarowError(f"action {action} is no column of {game} (0 to {game.m - 1})")
        height = position.heights[action]
        if height >= game.n:
            raise KinarowError(f"column {action} of {game} is full; it takes no more stones")
        return action * game.n + height
    if not 0 <= action < game.cells:
        raise KinarowError(f"action {action} is no cell of {game} (0 to {game.cells - 1})")
    row, column = divmod(action, game.m)
    return column * game.n + (game.n - 1 - row)


def action_of(position: Position, move: int | str) -> int:
    """The OpenSpiel action of a kinarow move in ``position``: a cell (its index, or its name such as ``b2``;
    under gravity also a column, ``d``)."""
    game = position.game
    cell = position.parse_move(move) if isinstance(move, str) else move
    if isinstance(cell, bool) or not hasattr(cell, "__index__") or not 0 <= int(cell) < game.cells:
        raise KinarowError(f"{move!r} is no cell of {game} (0 to {game.cells - 1}, or a name such as 'b2')")
    x, y = divmod(int(cell), game.n)
    return x if game.gravity else (game.n - 1 - y) * game.m + x


def position_of(state: Any) -> Position:
    """The kinarow :class:`~kinarow.position.Position` of an OpenSpiel state: its game's start with the state's
    moves (``state.history()``) played in order."""
    if not hasattr(state, "history") or not hasattr(state, "get_game"):
        raise KinarowError(f"position_of() takes an OpenSpiel state, not {type(state).__name__}")
    position = game_of(state.get_game()).start()
    for action in state.history():
        position.play(cell_of(position, action))
    return position


def state_of(position: Position, game: Any = None) -> Any:
    """The OpenSpiel state of a kinarow position: ``game`` (a ``pyspiel.Game``; :func:`load_game` of the
    position's game when not given) from its start, the position's moves applied in order."""
    if game is None:
        game = load_game(position.game)
    elif game_of(game) != position.game:
        raise KinarowError(f"the OpenSpiel game {game} is {game_of(game)}, not the position's {position.game}")
    state = game.new_initial_state()
    replay = position.game.start()
    for cell in position.moves:
        state.apply_action(action_of(replay, cell))
        replay.play(cell)
    return state


@dataclass(frozen=True)
class Score:
    """The exact value of an OpenSpiel state with perfect play (:func:`score`)."""

    #: who wins with perfect play: ``first`` (OpenSpiel's player 0), ``second`` (player 1) or ``draw``
    value: Value
    #: OpenSpiel's returns (player 0, player 1) at the end of the game with perfect play
    returns: tuple[float, float]
    #: the number of moves the whole game has with perfect play, counted from its first move: the winner ending it
    #: as soon as it can and the loser as late as it can (kinarow's ``Result.last_move``); a draw fills the board
    length: int
    #: how many of them are still to come (``length`` minus the moves played)
    moves_left: int
    #: an action that keeps the value (None when the game is over)
    best_action: int | None
    #: kinarow's answer, with its search's figures (None when the game is over)
    result: Result | None = field(default=None, repr=False, compare=False)


def score(state: Any, *, max_nodes: int | None = None, time_limit: float | None = None,
          tt_mb: float | None = None) -> Score:
    """The exact value and game length of an OpenSpiel state with perfect play (:class:`Score`), by
    :func:`kinarow.search.solve.solve` with ``strong=True`` (Connect Four: the score search and its opening book).

    The budgets are :func:`~kinarow.search.solve.solve`'s; a search they stop is one sentence
    (:class:`~kinarow.errors.KinarowError`), not a guess.
    """
    position = position_of(state)
    if position.result is not None:
        over = position.result
        return Score(over, RETURNS[over], position.stones, 0, None)
    result = solve(position, strong=True, max_nodes=max_nodes, time_limit=time_limit, tt_mb=tt_mb)
    value = result.value
    if not isinstance(value, Value) or value not in RETURNS or (value is not Value.DRAW and result.last_move is None):
        raise KinarowError(f"the search of {position.game} after {position.move_text() or 'no move'} stopped "
                           f"({result.stopped or 'unfinished'}) before it found the value and length; give it a "
                           "larger budget")
    length = position.game.cells if value is Value.DRAW else result.last_move
    assert length is not None
    best = None if result.best_move is None else action_of(position, result.best_move)
    return Score(value, RETURNS[value], length, length - position.stones, best, result)


def best_moves(position: Position, *, max_nodes: int | None = None, time_limit: float | None = None,
               searcher: Any = None) -> list[MoveValue]:
    """The moves of ``position`` that keep its value with the shortest win or the longest loss (every drawing move
    of a draw), in cell order (:func:`kinarow.search.analyse.analyse`); a search the budgets stop is one
    sentence."""
    found = analyse(position, max_nodes=max_nodes, time_limit=time_limit, searcher=searcher)
    if not found.best:
        raise KinarowError(f"the analysis of {position.game} after {position.move_text() or 'no move'} stopped "
                           f"({found.stopped or 'unfinished'}) before every move had its value; give it a larger "
                           "budget")
    return found.best


@functools.cache
def bot_class() -> type:
    """The class of :func:`bot`'s players, a subclass of ``pyspiel.Bot`` (made the first time it is asked, as
    OpenSpiel is imported then)."""
    module = pyspiel()

    class KinarowBot(module.Bot):  # type: ignore[misc, name-defined]
        """A perfect player of an OpenSpiel ``tic_tac_toe``, ``mnk`` or ``connect_four`` game (see :func:`bot`)."""

        def __init__(self, game: Any, seed: int | None, max_nodes: int | None, time_limit: float | None) -> None:
            module.Bot.__init__(self)
            from kinarow.search.alphabeta import Searcher

            self.game = game_of(game)
            self.seed = seed
            self.rng = random.Random(seed)
            self.max_nodes, self.time_limit = max_nodes, time_limit
            # one table for every move of a free board (Connect-k's score search keeps its own, with the book)
            self.searcher = None if self.game.gravity else Searcher(self.game)

        def _best(self, state: Any) -> tuple[Position, list[MoveValue]]:
            position = position_of(state)
            if position.game != self.game:
                raise KinarowError(f"this bot plays {self.game}, not {position.game}")
            if position.is_over:
                raise KinarowError(f"the game is over ({position.result}); there is no move to play")
            return position, best_moves(position, max_nodes=self.max_nodes, time_limit=self.time_limit,
                                        searcher=self.searcher)

        def _actions(self, state: Any) -> list[int]:
            """The best moves of ``state`` as OpenSpiel actions, in increasing order."""
            position, best = self._best(state)
            return sorted(action_of(position, m.cell) for m in best)

        def _choose(self, actions: list[int]) -> int:
            return actions[0] if self.seed is None else self.rng.choice(actions)

        def step(self, state: Any) -> int:
            """The action to play in ``state``: a move that keeps its value (see :func:`bot`)."""
            return self._choose(self._actions(state))

        def step_with_policy(self, state: Any) -> tuple[list[tuple[int, float]], int]:
            """The policy (:meth:`get_policy`) and the action :meth:`step` plays, from one analysis."""
            actions = self._actions(state)
            share = 1.0 / len(actions)
            return [(action, share) for action in actions], self._choose(actions)

        def get_policy(self, state: Any) -> list[tuple[int, float]]:
            """Equal chances on every best move (those :meth:`step` chooses from)."""
            return self.step_with_policy(state)[0]

        def provides_policy(self) -> bool:
            return True

        def restart_at(self, state: Any) -> None:
            """Nothing to do: the bot reads the whole state at every step."""

        def restart(self) -> None:
            """Nothing to do (see :meth:`restart_at`)."""

        def inform_action(self, state: Any, player_id: int, action: int) -> None:
            """Nothing to do (see :meth:`restart_at`)."""

    return KinarowBot


def bot(game: Any, *, seed: int | None = None, max_nodes: int | None = None, time_limit: float | None = None) -> Any:
    """A perfect player of ``game`` (an OpenSpiel game of :data:`SUPPORTED`) as a ``pyspiel.Bot``, for
    ``evaluate_bots`` and the other places OpenSpiel takes a bot.

    At each ``step(state)`` it analyses every legal move (:func:`kinarow.search.analyse.analyse`) and plays one that
    keeps the value of the state, with the shortest win or the longest loss: the smallest such action when ``seed``
    is None, else a choice among them by ``random.Random(seed)``, so that a seed gives the same games again.
    ``max_nodes`` and ``time_limit`` bound each move's analysis (a move it could not finish is one sentence, never a
    guess). ``get_policy`` gives equal chances to those moves. The bot keeps no state between moves:
    ``restart_at`` and ``inform_action`` do nothing.
    """
    return bot_class()(game, seed, max_nodes, time_limit)
