"""Positions: stones on a board, whose turn it is, play/undo and the outcome.

The first player is Black (1, Maker in Maker-Breaker), the second White (2).
Moves are cell indices (see :mod:`kinarow.geometry`); under gravity a move is
still the cell where the stone lands, and :meth:`Position.parse_move` turns a
column letter or number into that cell.

Move text comes in two forms, both accepted by :meth:`Position.play_moves`:

* plain: ``"b2 a1 c3"`` (under gravity also ``"d d c"`` or ``"4 4 3"``);
* the papers' notation: ``"1. b2 ... a1 2. c3"``, ``"1. b3,c3"`` -- ``N.`` opens
  Black's turn N, ``...`` (or ``…``, ``N...``, ``N. ...``) White's turn; the
  marks ``(F)`` (forced), ``#``, ``+``, ``!``, ``?`` are ignored; a comma joins
  the stones of one turn. Chess-like ``1. b2 a1 2. c3`` reads too.

Numbered text is checked against the game: a move number or ``...`` must come
where a turn begins, name the player whose turn it is (and the turn's number),
and be followed by a move; ``1. b2 2. a1`` is refused (after ``1. b2`` it is
White's turn, written ``1... a1``), as is ``1. c4 ... d3 2. e5`` in
6x6k4p2q1 (White's turn there has two stones).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kinarow.errors import IllegalMoveError, MoveError, shown
from kinarow.values import Goal, Value

if TYPE_CHECKING:
    from kinarow.game import Game

PLAYER_NAMES = {1: "Black", 2: "White"}
#: boards of more cells decide a group by walking its lines, not by the group masks (about cells**2 / 2 bytes)
MASK_CELLS = 4096
# one piece of a word of move text: a move number ("12." or "12..."), an ellipsis, or stones ("b3,c3(F)")
_PIECE_RE = re.compile(r"(?P<number>[0-9]+)(?P<dots>\.+|…)|(?P<ellipsis>\.\.+|…)|(?P<stones>[^.…]+|\.)", re.ASCII)
_MARKS_RE = re.compile(r"(\(f\)|[#+!?])+$", re.ASCII | re.IGNORECASE)
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class Marker:
    """A move number or an ellipsis in move text: the turn it says comes next."""

    text: str  #: as written ("2.", "1...", "...", "1. ...")
    player: int  #: 1 (``N.``) or 2 (``...``, ``N...``)
    number: int | None  #: the turn's number, None for a bare ellipsis


def value_names(game: Game) -> tuple[Value, Value]:
    """Names of a win for player 1 and player 2 in this game."""
    return Value.win(game.goal, 1), Value.win(game.goal, 2)


def read_moves(text: str | Iterable[str]) -> list[Marker | list[str]]:
    """Move text as markers (move numbers, ellipses) and turns (lists of stones; a comma joins one turn's stones).

    Letters are lowered (ASCII only); marks are dropped.

    >>> read_moves("1. b3,c3 ... d4 2. a1(F)")  # doctest: +NORMALIZE_WHITESPACE
    [Marker(text='1.', player=1, number=1), ['b3', 'c3'], Marker(text='...', player=2, number=None), ['d4'],
     Marker(text='2.', player=1, number=2), ['a1']]
    """
    if isinstance(text, str):
        words = text.split()
    elif isinstance(text, Iterable):
        words = [w for chunk in text for w in (chunk.split() if isinstance(chunk, str) else [_not_text(chunk)])]
    else:
        words = [_not_text(text)]
    out: list[Marker | list[str]] = []
    for word in words:
        for piece in _PIECE_RE.finditer(word.translate(_LOWER)):
            if piece["number"] is not None:
                digits = piece["number"]
                if len(digits) > 6:  # the largest board has 492,804 cells
                    raise MoveError(f"move number {shown(piece[0])} is larger than any game has turns")
                number = int(digits)
                white = piece["dots"] != "."
                out.append(Marker(piece[0], 2 if white else 1, number))
            elif piece["ellipsis"] is not None:
                last = out[-1] if out else None
                if isinstance(last, Marker) and last.player == 1 and last.text.endswith("."):
                    out[-1] = Marker(f"{last.text} {piece[0]}", 2, last.number)  # "1. ..." is White's turn 1
                else:
                    out.append(Marker(piece[0], 2, None))
            else:
                stones = [_MARKS_RE.sub("", s) for s in piece["stones"].split(",")]
                stones = [s for s in stones if s]
                if stones:
                    out.append(stones)
    return out


def _not_text(value: object) -> str:
    raise MoveError(f"moves must be given as text like 'b2 a1', not {type(value).__name__}")


def split_turns(text: str | Iterable[str]) -> list[list[str]]:
    """Split move text into turns of stones (move numbers and ellipses dropped, nothing checked).

    >>> split_turns("1. b3,c3 ... d4 2. a1(F)")
    [['b3', 'c3'], ['d4'], ['a1']]
    """
    return [item for item in read_moves(text) if isinstance(item, list)]


class Position:
    """A position of a :class:`~kinarow.game.Game`.

    >>> from kinarow import Game
    >>> pos = Game("3x3k3").position("b2 a1")
    >>> pos.to_move, pos.result
    (1, None)
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.geometry = game.geometry
        self.board: list[int] = [0] * self.geometry.size
        self.moves: list[int] = []
        self.bits = [0, 0, 0]  # bitmask of stones for players 1 and 2 (index 0 unused)
        self.heights = [0] * game.m
        self._results: list[Value | None] = [None]

    # -- state -----------------------------------------------------------------------
    def copy(self) -> Position:
        other = Position(self.game)
        other.board = self.board.copy()  # the state as it is (the moves were checked when they were played)
        other.moves = self.moves.copy()
        other.bits = self.bits.copy()
        other.heights = self.heights.copy()
        other._results = self._results.copy()
        return other

    @property
    def stones(self) -> int:
        return len(self.moves)

    @property
    def to_move(self) -> int:
        """1 or 2: the player who places the next stone."""
        return self.game.turn_state(self.stones)[0]

    @property
    def stones_left(self) -> int:
        """Stones the player to move still places this turn."""
        return self.game.turn_state(self.stones)[1]

    @property
    def result(self) -> Value | None:
        """``None`` while the game goes on, else ``first``/``second``/``draw`` (``maker``/``breaker``)."""
        return self._results[-1]

    @property
    def is_over(self) -> bool:
        return self.result is not None

    def legal_moves(self) -> list[int]:
        """Cells where the player to move may put a stone (none once the game is over)."""
        if self.is_over:
            return []
        if self.game.gravity:
            n = self.game.n
            return [x * n + h for x, h in enumerate(self.heights) if h < n]
        return [c for c, v in enumerate(self.board) if v == 0]

    # -- moves -----------------------------------------------------------------------
    def _check_legal(self, cell: int) -> int:
        """``cell`` as an int if a stone may go there now; an IllegalMoveError (a MoveError) saying why not."""
        geo = self.geometry
        if isinstance(cell, bool) or not hasattr(cell, "__index__"):
            raise MoveError(f"a cell is given by its number (0 to {geo.size - 1}), not {type(cell).__name__}; "
                            "name cells with play_moves('b2')")
        cell = operator.index(cell)
        if not 0 <= cell < geo.size:
            said = str(cell) if abs(cell) < 10**9 else "number too large"
            raise IllegalMoveError(f"cell {said} is off the board; cells are 0 to {geo.size - 1}")
        if self.is_over:
            raise IllegalMoveError(f"the game is over ({self.result}); no more moves can be played")
        if self.board[cell] != 0:
            owner = PLAYER_NAMES[self.board[cell]]
            raise IllegalMoveError(f"{geo.name(cell)} is occupied (by {owner}); choose an empty cell")
        if self.game.gravity:
            x, y = geo.xy(cell)
            h = self.heights[x]
            if y != h:
                raise IllegalMoveError(
                    f"{geo.name(cell)} is not where a stone dropped in column {geo.name(cell)[:-len(str(y + 1))]} "
                    f"lands ({geo.name(geo.cell(x, h))}); under gravity name the column"
                )
        return cell

    def play(self, cell: int) -> None:
        """Place a stone of the player to move on ``cell`` (an index)."""
        cell = self._check_legal(cell)
        player = self.to_move
        self.board[cell] = player
        self.bits[player] |= 1 << cell
        self.moves.append(cell)
        if self.game.gravity:
            self.heights[cell // self.game.n] += 1
        self._results.append(self._outcome_after(cell, player))

    def undo(self) -> int:
        """Take back the last stone and return its cell."""
        if not self.moves:
            raise IllegalMoveError("there is no move to undo; the board is empty")
        cell = self.moves.pop()
        player = self.board[cell]
        self.board[cell] = 0
        self.bits[player] &= ~(1 << cell)
        if self.game.gravity:
            self.heights[cell // self.game.n] -= 1
        self._results.pop()
        return cell

    def completes_group(self, cell: int, player: int) -> bool:
        """Does ``player`` own a whole group through ``cell`` (with a stone on it)?"""
        if self.board[cell] != player:
            return False
        if self.geometry.size > MASK_CELLS:  # the group masks of a large board do not fit in memory
            return self.geometry.owns_group_through(cell, self.board, player)
        own = self.bits[player]
        if self.game.exact:  # the group owned and neither cell that extends its line (else it is an overline)
            geo = self.geometry
            masks, flanks = geo.group_masks, geo.flank_masks
            return any(masks[g] & own == masks[g] and not flanks[g] & own for g in geo.cell_groups[cell])
        return any(mask & own == mask for mask in self.geometry.cell_group_masks[cell])

    def completed_lines(self) -> tuple[tuple[int, ...], ...]:
        """The lines that ended the game: when the last stone completed a group and so ended it, the runs of at
        least K stones of its player through it (:meth:`Geometry.runs_through`), each from one end to the other.

        That is the winner's line, under misère the loser's. Empty while the game goes on and when it ended
        otherwise (a full board without a line, or in Maker-Breaker a full board after Breaker's last stone).

        >>> from kinarow import Game
        >>> pos = Game("3x3k3").position("a1 b1 a2 b2 a3")
        >>> [[pos.name(c) for c in line] for line in pos.completed_lines()]
        [['a1', 'a2', 'a3']]
        """
        if not self.is_over or not self.moves:
            return ()
        last = self.moves[-1]
        player = self.board[last]
        if (self.game.goal == Goal.MAKER_BREAKER and player == 2) or not self.completes_group(last, player):
            return ()
        runs = self.geometry.runs_through(last, self.board, player)
        return tuple(run for run in runs if len(run) == self.game.k) if self.game.exact else runs

    def _outcome_after(self, cell: int, player: int) -> Value | None:
        first, second = value_names(self.game)
        goal = self.game.goal
        if self.completes_group(cell, player):
            if goal == Goal.MISERE:
                return second if player == 1 else first
            if goal == Goal.MAKER_BREAKER:
                if player == 1:
                    return first
            else:
                return first if player == 1 else second
        if self.stones == self.geometry.size:
            return second if goal == Goal.MAKER_BREAKER else Value.DRAW
        return None

    # -- text ------------------------------------------------------------------------
    def parse_move(self, token: str) -> int:
        """The cell a move token names in this position.

        Free placement takes a cell name (``b2``). Under gravity a column letter
        (``d``), a 1-based column number (``4``) or the landing cell's name work.
        """
        geo = self.geometry
        if not isinstance(token, str):
            raise MoveError(f"a move must be given as text like 'b2', not {type(token).__name__}")
        token = token.strip()
        if not token:
            raise MoveError("the move is empty; name a cell such as 'b2'")
        if self.game.gravity and token.isascii() and (token.isdigit() or token.isalpha()):
            x = geo.parse_column(token)
            if self.heights[x] >= self.game.n:
                raise IllegalMoveError(f"column {geo.name(geo.cell(x, 0))[:-1]} is full; choose another column")
            return geo.cell(x, self.heights[x])
        return geo.parse_cell(token)

    def play_moves(self, text: str | Iterable[str]) -> list[int]:
        """Play moves given as text (plain or the papers' notation); returns the cells played.

        On an illegal or unreadable move, or a move number that does not fit the
        game (see the module's notes), the position is left as it was and the
        error names the move and its number (or says where the move number stands).
        """
        start = len(self.moves)
        played: list[int] = []
        token = ""
        open_marker: Marker | None = None  # a marker not yet followed by a stone
        try:
            for item in read_moves(text):
                if isinstance(item, Marker):
                    if open_marker is not None:
                        raise MoveError(f"{self._where()}{shown(open_marker.text)} is followed by no move")
                    self._check_marker(item)
                    open_marker = item
                    continue
                open_marker = None
                token = ",".join(item)
                if len(item) > 1 and len(item) > self.stones_left:
                    who = PLAYER_NAMES[self.to_move]
                    raise MoveError(f"{shown(token)} is {len(item)} stones but {who} has {self.stones_left} left "
                                    "this turn")
                for token in item:
                    cell = self.parse_move(token)
                    self.play(cell)
                    played.append(cell)
                token = ""
            if open_marker is not None:
                raise MoveError(f"{self._where()}{shown(open_marker.text)} is followed by no move")
        except MoveError as err:
            while len(self.moves) > start:
                self.undo()
            if not token:  # a marker's error says where it stands
                raise
            raise type(err)(f"move {len(played) + 1} ({shown(token)}): {err}") from None
        return played

    def _where(self) -> str:
        """'after 1. b2: ' -- where in the game a move number stands."""
        return f"after {self.move_text()}: " if self.moves else "at the start: "

    def turn_number(self) -> int:
        """The number of the turn under way (or about to begin): Black's turn N and White's turn N share N."""
        game = self.game
        index = 0 if self.stones < game.q else 1 + (self.stones - game.q) // game.p
        return index // 2 + 1

    def _check_marker(self, marker: Marker) -> None:
        """A move number or ellipsis must open the turn that comes next: right player, right number."""
        game = self.game
        player, left = self.to_move, self.stones_left
        number = self.turn_number()
        size = game.q if self.stones < game.q else game.p
        here = f"{PLAYER_NAMES[player]}'s turn {number}"
        written = f"'{number}.'" if player == 1 else f"'{number}...' or '...'"
        if self.is_over:
            raise MoveError(f"{self._where()}{shown(marker.text)} opens a turn, but the game is over ({self.result})")
        if left != size:
            stones = "1 stone" if left == 1 else f"{left} stones"
            raise MoveError(f"{self._where()}{shown(marker.text)} opens a new turn, but {PLAYER_NAMES[player]} "
                            f"still places {stones} in turn {number}")
        if marker.player != player or (marker.number is not None and marker.number != number):
            said = f"{PLAYER_NAMES[marker.player]}'s turn" + ("" if marker.number is None else f" {marker.number}")
            raise MoveError(f"{self._where()}{shown(marker.text)} opens {said}, but it is {here} (written {written})")

    def name(self, cell: int) -> str:
        return self.geometry.name(cell)

    def move_text(self, cells: Iterable[int] | None = None) -> str:
        """The moves in the papers' notation (``1. b2 ... a1 2. c3``), turns joined by commas."""
        cells = list(self.moves if cells is None else cells)
        parts: list[str] = []
        number = 0
        for turn_player, turn_cells in _turns(self.game, cells):
            names = ",".join(self.geometry.name(c) for c in turn_cells)
            if turn_player == 1:
                number += 1
                parts.append(f"{number}. {names}")
            else:
                parts.append(f"{number}... {names}" if not parts or number == 0 else f"... {names}")
        return " ".join(parts)

    def __str__(self) -> str:
        return self.text()

    def text(self, marks: dict[int, str] | None = None) -> str:
        """The board as text: ``X`` Black, ``O`` White, ``.`` empty; row 1 at the bottom."""
        geo = self.geometry
        width = max(len(str(self.game.n)), 1)
        symbols = {0: ".", 1: "X", 2: "O"}
        colw = max(len(geo.name(geo.cell(self.game.m - 1, 0))) - 1, 1)
        lines = []
        for y in reversed(range(self.game.n)):
            row = []
            for x in range(self.game.m):
                c = geo.cell(x, y)
                sym = marks.get(c, symbols[self.board[c]]) if marks else symbols[self.board[c]]
                row.append(sym.rjust(colw))
            lines.append(f"{str(y + 1).rjust(width)} " + " ".join(row))
        footer = " ".join(geo.name(geo.cell(x, 0))[:-1].rjust(colw) for x in range(self.game.m))
        lines.append(" " * (width + 1) + footer)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Position({str(self.game)!r}, moves={self.move_text()!r})"

    def key(self) -> tuple[int, int]:
        """(Black's stones, White's stones) as bitmasks: identifies the position."""
        return self.bits[1], self.bits[2]


def _turns(game: Game, cells: list[int]) -> Iterator[tuple[int, list[int]]]:
    i = 0
    while i < len(cells):
        player, left = game.turn_state(i)
        yield player, cells[i : i + left]
        i += left
