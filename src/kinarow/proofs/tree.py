"""Winning strategies ("strategy trees") and their independent checker.

A strategy for the winner maps each position where the winner is to move to
the winner's move; every reply of the loser must be covered. Positions are
keyed by the board written cell by cell (cell order of
:mod:`kinarow.geometry`): ``.`` empty, ``x`` Black, ``o`` White. Positions
reached by several move orders share one entry, so the tree is stored as a
DAG. A position where the winner can end the game in its own win with the
stone it places needs no entry (since version 2): the checker plays the first
such cell in cell order itself. Wins on the spot are most of a strategy's
positions (88 % of the (6,5,4) first-player win), so the files are several
times smaller; a version 1 file, which names those moves too, still checks.

Version 3 (boards of at most 256 cells) drops the board keys as well: the
``walk`` is the winner's moves as cell numbers, one byte each, in the order a
fixed depth-first replay asks for them, zlib-compressed and base64-encoded.
The replay starts at the certificate's position; at a position met before (and
proven) it turns back; at the winner's turn it plays the first cell that wins
on the spot, else the next move of the walk; at the loser's turn it tries every
legal cell in increasing order. Both checkers replay exactly that, so a walk
needs no keys: the (6,5,4) win takes 6 KB, against 84 KB of gzipped version 2.

A strategy claims either a win or, with ``"outcome": "not-lose"``, that its
player does not lose: the same replay, but a line may end in a draw or in the
player's own win, only not in the opponent's. The player is then named by
``player`` (not ``winner``) and the envelope's claim is "first does not lose".
A file without ``outcome`` claims a win, as every file before it did. The
shortcut is the same in both: at the player's turn the replay plays the first
cell that ends the game at once in the player's own win (none in misere play,
where completing a line loses; for Breaker only the last empty cell).
Non-losing walks of both players prove a draw (:mod:`kinarow.proofs.draw`).

Version 4 (a walk with *shared replies*) lets several replies of the loser
share one subtree: a winner's move byte ``c + 128`` is followed, when the
replay expands the loser's turn after it, by that turn's sets (a count, then
each set as its size and its cells in increasing order, or as 128 plus a count
and the cells it leaves out of the replies left); a walk that starts at
the loser's turn begins with the start's count (0 for none). Each set is
replayed as one position in which the loser was given all its cells at once
and the winner is to move; the loser's other legal replies follow as usual.
Fewer stones never help the loser (free placement, one stone a turn, the normal
goal or Maker's win: the only games version 4 is read for), so a win after
the whole set is a win after each of its replies. Such positions are proven
under their board and the loser's extra stones, as the same board may be met
with the other player to move. Version 5 is version 4 on a board of more than
128 cells, every number two bytes (little-endian) and the flag 32768 for 128.

:func:`check` replays the strategy against every legal reply using only the
rules (:mod:`kinarow.position`); it imports nothing from the search code.
"""

from __future__ import annotations

import base64
import json
import sys
import threading
import zlib
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kinarow.errors import IllegalMoveError, KinarowError
from kinarow.game import OVERLINE_HURTS, Game
from kinarow.position import Position, value_names
from kinarow.proofs import CertificateError, Verdict, envelope, require_claim, require_envelope, require_input
from kinarow.values import FITS, Fit, Goal, Value, read

FORMAT = "kinarow.strategy"
VERSION = 2
WALK_VERSION = 3  # the key-less form (a walk of moves)
SHARED_VERSION = 4  # a walk with shared replies (sets of the loser's replies that share one subtree)
WIDE_VERSION = 5  # version 4 on a board of more than 128 cells: every number of the walk two bytes
READS = (1, 2, 3, 4, 5)  # versions the checker reads (version 1 names the wins on the spot as well)
SHARED = 128  # a version 4 move byte with this bit: the loser's turn after it begins with its sets
SHARED_WIDE = 32768  # the same flag in version 5 (two-byte numbers, little-endian)
#: the values a strategy certificate's ``winner`` may name
WINNERS = (Value.FIRST, Value.SECOND, Value.MAKER, Value.BREAKER)
WALK_CELLS = 256  # the largest board a walk is written for (one byte a move; the compiled walk's four-word bitboards)
SHARED_CELLS = 128  # the largest board of a walk with shared replies (version 4): a move byte's top bit is its flag
WIN, NOT_LOSE = "win", "not-lose"  # what a strategy claims for its player (``outcome``)
OUTCOMES = (WIN, NOT_LOSE)
_SYMBOLS = ".xo"


def number_bytes(cells: int) -> int:
    """The bytes of each number of a walk with shared replies on a board of ``cells`` cells: 1 (version 4) up
    to :data:`SHARED_CELLS`, 2 (version 5, little-endian) beyond."""
    return 1 if cells <= SHARED_CELLS else 2


def shared_flag(nbytes: int) -> int:
    """The flag bit of a move (and of a set "but" count) in a walk of ``nbytes``-byte numbers."""
    return SHARED if nbytes == 1 else SHARED_WIDE


def put_number(out: bytearray, x: int, nbytes: int) -> None:
    """Append the number ``x`` to a walk of ``nbytes``-byte numbers."""
    if nbytes == 1:
        out.append(x)
    else:
        out.extend(x.to_bytes(2, "little"))


def walk_numbers(walk: bytes, nbytes: int) -> Sequence[int]:
    """The numbers of a walk of ``nbytes``-byte numbers (its bytes themselves for one; an even length for two)."""
    if nbytes == 1:
        return walk
    numbers = array("H")
    numbers.frombytes(walk)
    if sys.byteorder == "big":
        numbers.byteswap()
    return numbers


_KEY_TABLE = bytes.maketrans(b"\x00\x01\x02", _SYMBOLS.encode())


def board_key(position: Position) -> str:
    return bytes(position.board).translate(_KEY_TABLE).decode()


def winning_stone(position: Position, winner: Value) -> int | None:
    """The first cell (in cell order) where the player to move ends the game with result ``winner`` at once.

    Rules only: the candidates are the empty cells that complete a group of the
    player to move (and the last empty cell, which ends the game), each played
    and taken back to read the result.
    """
    if position.is_over:
        return None
    player = position.to_move
    own, other = position.bits[player], position.bits[3 - player]
    candidates = [rest.bit_length() - 1 for mask in position.geometry.group_masks
                  if not mask & other and (rest := mask & ~own) and not rest & (rest - 1)]
    if position.stones == position.geometry.size - 1:
        candidates.append(position.board.index(0))
    for cell in sorted(set(candidates)):
        try:
            position.play(cell)
        except IllegalMoveError:  # under gravity, a cell that is not yet playable
            continue
        won = position.result == winner
        position.undo()
        if won:
            return cell
    return None


def follow(
    position: Position,
    winner: int,
    choose: Callable[[Position], int],
    stop: Callable[[Position], bool] | None = None,
) -> dict[str, str]:
    """The winner's prescribed moves from ``position``: ``choose(pos)`` names the winner's cell at each of
    its turns, and every legal reply of the other player is followed (transpositions once). A position
    where ``stop(pos)`` is true is not expanded (another part of the strategy covers it).

    The result maps :func:`board_key` of each position where the winner moves to the chosen cell's name,
    except where the winner wins with this stone (:func:`winning_stone`): the checker finds those itself.
    """
    choices: dict[str, str] = {}
    seen: set[str] = set()
    pos = position.copy()
    name = value_names(position.game)[winner - 1]

    def visit() -> None:
        if pos.is_over:
            return
        if pos.to_move == winner and winning_stone(pos, name) is not None:
            return
        key = board_key(pos)
        if key in seen:
            return
        seen.add(key)
        if stop is not None and stop(pos):
            return
        if pos.to_move == winner:
            cell = choose(pos)
            choices[key] = pos.name(cell)
            pos.play(cell)
            visit()
            pos.undo()
        else:
            for cell in pos.legal_moves():
                pos.play(cell)
                visit()
                pos.undo()

    visit()
    return choices


@dataclass
class StrategyTree:
    """The winner's move in every position the strategy can reach."""

    game: str
    moves: list[str]
    winner: Value  # the player who follows the strategy (with ``outcome`` "not-lose", it need not win)
    choices: dict[str, str] = field(default_factory=dict)
    walk: bytes | None = None  # the version 3 form: the moves in replay order (then ``choices`` is empty)
    outcome: str = WIN  # what it claims: WIN, or NOT_LOSE (no line ends in the other player's win)
    shared: int | None = None  # version 4: the walk has shared replies, and this many moves (its bytes hold sets)

    @property
    def claim(self) -> str:
        """What the strategy proves, in the envelope's words: "first wins" or "first does not lose"."""
        return f"{self.winner} wins" if self.outcome == WIN else f"{self.winner} does not lose"

    @property
    def described(self) -> str:
        """The size in words: "14 prescribed moves" (wins on the spot are not counted; "... with shared replies"
        for a walk of version 4)."""
        shared = " with shared replies" if self.shared is not None else ""
        return f"{self.size:,} prescribed move{'' if self.size == 1 else 's'}{shared}"

    @property
    def size(self) -> int:
        """Number of positions where the winner's move is prescribed (wins on the spot are not counted)."""
        if self.shared is not None:
            return self.shared
        return len(self.walk) if self.walk is not None else len(self.choices)

    def move(self, position: Position) -> int | None:
        """The winner's move in ``position``: the prescribed one, else a win on the spot, else None.

        A walk is read into boards on the first call (the tree keeps the keyed form from then on).
        """
        if self.walk is not None:
            self.choices, self.walk = self.expanded().choices, None
        name = self.choices.get(board_key(position))
        if name is not None:
            return position.geometry.parse_cell(name)
        return winning_stone(position, self.winner)

    def compacted(self) -> StrategyTree:
        """The same strategy as a walk (version 3): the moves in replay order, no board keys.

        The strategy must hold and the board have at most 256 cells; a win on the
        spot is played by the replay, so an entry for one is dropped.
        """
        if self.walk is not None:
            return self
        start = _walk_start(self, "the strategy cannot be written as a walk")
        out: list[int] = []
        result = _check_compiled(self, start, walk_out=out)
        if not result.ok:
            raise KinarowError(f"the strategy cannot be written as a walk: {result.reason}")
        return StrategyTree(self.game, self.moves, self.winner, walk=bytes(out), outcome=self.outcome)

    def expanded(self) -> StrategyTree:
        """The same strategy keyed by board (version 2 form) from a walk; itself when it is keyed already.

        The walk must hold: replaying it is how the boards are found. A walk with shared replies (version 4)
        has positions that no board key names (the loser given several stones in one turn): it stays a walk.
        """
        if self.walk is None:
            return self
        if self.shared is not None:
            raise KinarowError("a walk with shared replies (version 4) cannot be read into boards: its positions "
                               "after a set of replies have the loser's stones given at once; check it as a walk")
        start = _walk_start(self, "the walk cannot be read into boards")
        found: dict[str, str] = {}
        result = _check_compiled(self, start, walk_keys=found)
        if not result.ok:
            raise KinarowError(f"the walk cannot be read into boards: {result.reason}")
        return StrategyTree(self.game, self.moves, self.winner, found, outcome=self.outcome)

    def opened(self) -> StrategyTree:
        """The same walk from one move earlier, when the last of ``moves`` is the winner's: that move becomes the
        walk's first (version 4: flagged when the start's turn had sets, whose count then follows it). The
        result is a claim like any other: check it."""
        if self.walk is None or not self.moves:
            raise KinarowError("only a walk after at least one move can be opened by its last move")
        game = Game(self.game)
        before = game.position(" ".join(self.moves[:-1]))
        if value_names(game)[before.to_move - 1] != self.winner:
            raise KinarowError(f"the last move, {self.moves[-1]}, is not the {self.winner} player's")
        cell = before.geometry.parse_cell(self.moves[-1])
        nbytes = number_bytes(game.cells) if self.shared is not None else 1
        first = bytearray()
        if self.shared is None or self.walk[:nbytes] == bytes(nbytes):  # no sets at the start: the move alone
            put_number(first, cell, nbytes)
            walk = bytes(first) + self.walk[nbytes if self.shared is not None else 0:]
        else:
            put_number(first, cell | shared_flag(nbytes), nbytes)
            walk = bytes(first) + self.walk
        return replace(self, moves=self.moves[:-1], walk=walk,
                       shared=None if self.shared is None else self.shared + 1)

    def to_json(self) -> dict[str, Any]:
        who = {"winner": self.winner} if self.outcome == WIN else {"outcome": NOT_LOSE, "player": self.winner}
        if self.walk is not None and self.shared is not None:
            version = SHARED_VERSION if number_bytes(Game(self.game).cells) == 1 else WIDE_VERSION
            return {
                **envelope(FORMAT, version, self.game, self.moves, self.claim),
                **who,
                "prescribed": self.shared,
                "length": len(self.walk),
                "walk": pack_walk(self.walk),
            }
        if self.walk is not None:
            return {
                **envelope(FORMAT, WALK_VERSION, self.game, self.moves, self.claim),
                **who,
                "prescribed": len(self.walk),
                "walk": pack_walk(self.walk),
            }
        return {**envelope(FORMAT, VERSION, self.game, self.moves, self.claim), **who, "choices": self.choices}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StrategyTree:
        game, moves = require_envelope(data, FORMAT, READS, "strategy")
        outcome = data.get("outcome", WIN)
        if outcome not in OUTCOMES:
            raise CertificateError(f"the strategy certificate's 'outcome' is {str(outcome)[:40]!r}; it is "
                                   f"'{WIN}' (the default) or '{NOT_LOSE}'")
        field_name = "winner" if outcome == WIN else "player"
        winner, choices = data.get(field_name), data.get("choices")
        if not isinstance(winner, str):
            raise CertificateError(f"the strategy certificate needs a '{field_name}' string such as \"first\"")
        winner = read(Value, winner, f"the strategy certificate's '{field_name}'", CertificateError, WINNERS)
        if data.get("version") == WALK_VERSION:
            return cls(game, moves, winner, walk=read_walk(data, "strategy certificate"), outcome=outcome)
        if data.get("version") in (SHARED_VERSION, WIDE_VERSION):
            version = data["version"]
            try:
                cells = Game(game).cells
            except KinarowError as err:
                raise CertificateError(f"the strategy certificate's game is invalid: {err}") from None
            if (version == WIDE_VERSION) != (cells > SHARED_CELLS):
                raise CertificateError(f"a walk with shared replies is version {SHARED_VERSION} on boards of at most "
                                       f"{SHARED_CELLS} cells (a byte a number) and version {WIDE_VERSION} on larger "
                                       f"ones (two bytes a number); this is version {version} on {cells} cells")
            walk = read_walk(data, "strategy certificate", "length")
            nbytes = number_bytes(cells)
            if len(walk) % nbytes:
                raise CertificateError(f"the strategy certificate's walk of two-byte numbers (version {WIDE_VERSION}) "
                                       f"has an odd length, {len(walk):,} bytes")
            count = data.get("prescribed")
            if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= len(walk) // nbytes:
                raise CertificateError("the strategy certificate's 'prescribed' is the number of the winner's moves "
                                       f"in its walk, from 0 to its numbers ({len(walk) // nbytes:,})")
            return cls(game, moves, winner, walk=walk, outcome=outcome, shared=count)
        if not isinstance(choices, dict) or not all(isinstance(v, str) for v in choices.values()):
            raise CertificateError("the strategy certificate needs 'choices', an object from boards to cell names")
        return cls(game, moves, winner, {str(k): v for k, v in choices.items()}, outcome=outcome)

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))


#: the most moves a version 3 walk may prescribe: a byte each once unpacked (Connect Four's walk has 41 million)
MAX_WALK_MOVES = 2**30
#: the most bytes one byte of zlib data can unpack to (deflate's limit: a 258-byte match in two bits), so a walk
#: that claims more bytes than this many times its packed size is refused before anything is unpacked
ZLIB_MAX_RATIO = 1032


def pack_walk(walk: bytes) -> str:
    """A walk as written in a certificate's 'walk': base64 of its zlib-compressed bytes."""
    return base64.b64encode(zlib.compress(walk, 9)).decode("ascii")


def read_walk(data: dict[str, Any], kind: str, length: str = "prescribed") -> bytes:
    """The bytes of a walk written in ``data`` (a version 3 strategy certificate, or a draw proof's half):
    'walk' (base64 of zlib-compressed bytes) and ``length`` (how many bytes: 'prescribed', the moves, in
    version 3; 'length' in version 4, whose bytes hold sets too); ``kind`` names it in errors."""
    require_input(data, dict, "read_walk()", "a certificate's JSON object (a dict)")
    text, count = data.get("walk"), data.get(length)
    unit = "moves" if length == "prescribed" else "bytes"
    if not isinstance(text, str) or not isinstance(count, int) or isinstance(count, bool):
        raise CertificateError(f"the {kind} needs 'walk', a base64 string, and '{length}', the number of {unit} "
                               "in it")
    if not 0 <= count <= MAX_WALK_MOVES:  # the walk is unpacked to at most this many bytes (0 would mean no cap)
        raise CertificateError(f"the {kind}'s '{length}' is {count:,}; a walk holds from 0 to "
                               f"{MAX_WALK_MOVES:,} {unit}")
    try:
        packed = base64.b64decode(text, validate=True)
    except ValueError:
        raise CertificateError(f"the {kind}'s 'walk' is not base64 of zlib-compressed bytes") from None
    if count > ZLIB_MAX_RATIO * len(packed):  # more than the packed bytes can hold: refused before unpacking
        raise CertificateError(f"the {kind}'s '{length}' claims {count:,} {unit}, but its 'walk' is {len(packed):,} "
                               f"bytes of zlib data, which unpack to at most {ZLIB_MAX_RATIO * len(packed):,}")
    try:
        walk = zlib.decompressobj().decompress(packed, count + 1)  # no more than told
    except (ValueError, zlib.error):
        raise CertificateError(f"the {kind}'s 'walk' is not base64 of zlib-compressed bytes") from None
    if len(walk) != count:
        raise CertificateError(f"the {kind}'s 'walk' holds {len(walk):,} {unit}, but '{length}' says {count:,}")
    return walk


def shared_replies_fit(game: Game, outcome: str, winner: Value) -> Fit:
    """Whether a walk with shared replies (version 4) can prove ``outcome`` for ``winner`` in ``game``, and why
    not when it cannot.

    The rule it adds (a win after the loser was given a whole set of cells is a win after each of them) holds
    when more stones never help the loser: free placement, one stone a turn, and the normal goal or Maker's win.
    """
    if outcome != WIN:
        return Fit.no("shared replies prove wins only")
    if game.gravity:
        return Fit.no("under gravity a given stone changes which cells are playable")
    if (game.p, game.q) != (1, 1):
        return Fit.no("the game places more than one stone a turn")
    if game.goal == Goal.MISERE:
        return Fit.no("in misere play more stones can hurt their owner")
    if game.exact:
        return Fit.no(f"under the exact rule {OVERLINE_HURTS}")
    if game.goal == Goal.MAKER_BREAKER and winner != Value.MAKER:
        return Fit.no("Breaker's win is not proven by sharing Maker's replies")
    return FITS


def _start(tree: StrategyTree) -> Position:
    """The certificate's position (its game and moves must be valid)."""
    return Game(tree.game).position(" ".join(tree.moves))


def _walk_start(tree: StrategyTree, failing: str) -> Position:
    """The certificate's position, where a walk can start; else an error that begins with ``failing``."""
    start = _start(tree)
    if start.geometry.size > WALK_CELLS or start.is_over:
        raise KinarowError(f"{failing}: walks are for games under way on boards of at most {WALK_CELLS} cells, "
                           f"and {tree.game} has {start.geometry.size}" + (" and is over" if start.is_over else ""))
    return start


def walked(ok: bool, reason: str, positions: int) -> Verdict:
    """The verdict of a walk, with the positions it proved in ``details["positions_checked"]``."""
    return Verdict(ok, reason, {"positions_checked": positions})


class _RefutedError(Exception):
    pass


class _Given(Position):
    """A position of a walk with shared replies: the loser may have been given a set of stones in one turn, so
    the player to move follows the turns taken, not the stones (:meth:`give`, :meth:`take_back`)."""

    def __init__(self, pos: Position) -> None:
        super().__init__(pos.game)
        self.board, self.moves, self.bits = pos.board.copy(), pos.moves.copy(), pos.bits.copy()
        self.heights, self._results = pos.heights.copy(), pos._results.copy()
        self.turns = pos.stones

    @property
    def to_move(self) -> int:
        return self.game.turn_state(self.turns)[0]

    @property
    def extra(self) -> int:
        """Stones placed beyond one a turn (given with sets)."""
        return self.stones - self.turns

    def play(self, cell: int) -> None:
        super().play(cell)
        self.turns += 1

    def undo(self) -> int:
        cell = super().undo()
        self.turns -= 1
        return cell

    def give(self, cells: list[int]) -> None:
        """The player to move places all of ``cells`` (empty) in one turn; a line through any of them ends the
        game as that player's line would, else a full board does."""
        player = self.to_move
        for c in cells:
            self.board[c] = player
            self.bits[player] |= 1 << c
            self.moves.append(c)
            self._results.append(None)
        lines = [r for c in cells if self.completes_group(c, player) and (r := self._outcome_after(c, player))]
        self._results[-1] = lines[0] if lines else self._outcome_after(cells[-1], player)
        self.turns += 1

    def take_back(self, cells: list[int]) -> None:
        for _ in cells:
            super().undo()
        self.turns -= 1


def shared_name(pos: Position, cells: list[int]) -> str:
    """A set of replies given at once, as a line names it: ``{a1,b1,c1}``."""
    return "{" + ",".join(pos.name(c) for c in cells) + "}"


def bad_sets(where: str, read: int) -> str:
    """Why a walk's sets (version 4) at byte ``read`` are refused."""
    return (f"after {where} the walk's sets at byte {read:,} break the format: a turn has at least one set (none "
            "only at the start), each set at least two cells, listed (or left out of the replies left) in "
            "increasing order, each empty and in no earlier set of the turn")


def check(tree: StrategyTree, *, compiled: bool = False, on_tick: Callable[[int], None] | None = None) -> Verdict:
    """Verify that following ``tree`` wins (or, with ``outcome`` "not-lose", does not lose) against every reply
    (rules only, no search).

    The walk is Python, importing nothing beyond the rules. ``compiled=True``
    replays boards of at most 256 cells with the numba walk of
    :mod:`kinarow.proofs.tree_kernel` instead (the same rules, written again
    over bitboards; same verdict, reason and count, about 80 times faster).
    ``on_tick(positions)`` hears the positions proven so far, a few times a
    second; Ctrl-C stops either walk (KeyboardInterrupt is raised again).
    """
    require_input(tree, StrategyTree, "kinarow.proofs.tree.check()",
                  "a StrategyTree (StrategyTree.from_json reads one from a certificate)")
    try:
        game = Game(tree.game)
        pos = game.position(" ".join(tree.moves))
    except KinarowError as err:
        return walked(False, f"the certificate's game or moves are invalid: {err}", 0)
    if tree.walk is not None and pos.geometry.size > WALK_CELLS:
        return walked(False, f"a walk (version 3) is only written for boards of at most {WALK_CELLS} cells; "
                      f"{tree.game} has {pos.geometry.size}", 0)
    if tree.shared is not None:
        fit = shared_replies_fit(game, tree.outcome, tree.winner)
        length = len(tree.walk or b"")
        version = SHARED_VERSION if number_bytes(pos.geometry.size) == 1 else WIDE_VERSION
        if fit and length % number_bytes(pos.geometry.size):
            fit = Fit.no(f"past {SHARED_CELLS} cells its numbers are two bytes each, and the walk has an odd length "
                         f"({length:,} byte{'' if length == 1 else 's'})")
        if not fit:
            return walked(False, f"a walk with shared replies (version {version}) does not apply to {tree.game}: "
                          f"{fit.reason}", 0)
    if compiled and pos.geometry.size <= WALK_CELLS and not pos.is_over and tree.winner in value_names(game):
        return _check_compiled(tree, pos, on_tick=on_tick)
    return _check_python(tree, on_tick)


def replay(pos: Position, winner: int, mode: int, keys: Any, cells: Any, used: Any, out: Any,
           on_tick: Callable[[int], None] | None = None, outcome: str = WIN,
           shared: list[Any] | None = None) -> tuple[int, int, int, int, Any]:
    """Run the compiled checker (:func:`kinarow.proofs.tree_kernel.check`) from ``pos`` for ``winner`` (1 or 2),
    whose claim is ``outcome`` (a win, or not to lose).

    ``mode``, ``keys``, ``cells``, ``used`` (the kernel's ``reached``) and
    ``out`` are the kernel's. The kernel runs in a thread so that Ctrl-C stops
    it; ``on_tick(proven)`` hears how many positions are proven, four times a
    second and once at the end. Returns ``(status, proven, depth, read, line)``.
    ``shared`` (a list) reads a walk with shared replies (version 4, STREAM) and
    gets ``(moves, scell, sbeg)``: the winner's moves read and the sets along the
    line (the kernel's arrays).
    """
    import numpy as np

    from kinarow import bitboards as W
    from kinarow.proofs import tree_kernel as TK

    game = pos.game
    size = pos.geometry.size
    masks, flanks, cell_groups, start, turn_player, goal = TK.rules(game)
    kind, kt = TK.table_plan(size, game.n, bool(game.gravity))
    line = np.zeros(size + 1, np.int64)
    words = W.words_for_cells(size)
    bx, bo = W.to_board(pos.bits[1], words), W.to_board(pos.bits[2], words)
    ctrl = np.zeros(3, np.int64)
    rows = size - pos.stones + 2 if shared is not None else 1
    scell, sbeg = np.zeros((rows, size), np.int64), np.zeros((rows, size + 1), np.int64)
    found: list[tuple[int, int, int, int]] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            found.append(TK.check(bx, bo, pos.stones, winner, size, game.n, bool(game.gravity), goal, masks,
                                  flanks, cell_groups, start, turn_player, keys, cells, line, used, mode, out, ctrl,
                                  kind, kt, TK.CLAIM_CODES[outcome],
                                  0 if shared is None else shared_flag(number_bytes(size)), scell, sbeg))
        except BaseException as error:  # handed to the waiting thread
            errors.append(error)

    walker = threading.Thread(target=work, daemon=True)  # the kernel releases the GIL: Ctrl-C reaches us
    walker.start()
    try:
        while walker.is_alive():
            walker.join(0.25)
            if on_tick is not None:
                on_tick(int(ctrl[0]))
    except KeyboardInterrupt:
        ctrl[1] = 1
        walker.join()
        raise
    if errors:
        raise errors[0]
    status, proven, depth, read = found[0]
    if on_tick is not None:
        on_tick(int(proven))
    if shared is not None:
        shared.extend((int(ctrl[2]), scell, sbeg))
    return int(status), int(proven), int(depth), int(read), line


def _check_compiled(tree: StrategyTree, pos: Position, reached: set[str] | None = None, *,
                    walk_out: list[int] | None = None, walk_keys: dict[str, str] | None = None,
                    on_tick: Callable[[int], None] | None = None) -> Verdict:
    """:func:`check` by the compiled walk (a board of at most 256 cells, the game not over).

    A keyed tree: the keys of the prescribed moves that play reaches are added
    to ``reached``, and ``walk_out`` (when given) gets the moves in replay
    order, the walk form. A walk: ``walk_keys`` (when given) gets each move it
    reads under its board key.
    """
    import numpy as np

    from kinarow import bitboards as W
    from kinarow.proofs import tree_kernel as TK

    geo = pos.geometry
    size = geo.size
    winner = 1 if tree.winner == value_names(pos.game)[0] else 2
    names: list[str] = []
    wide = tree.shared is not None and number_bytes(size) == 2  # version 5: two-byte numbers
    if tree.walk is not None:
        mode = TK.STREAM
        cells = np.frombuffer(tree.walk, "<u2" if wide else np.uint8)
        keys = np.zeros((len(cells) if walk_keys is not None else 0, 2 * W.words_for_cells(size)), np.uint64)
    else:
        mode = TK.ENCODE if walk_out is not None else TK.DICT
        names, keys, cells = keyed_rows(tree, geo)
    used = np.zeros(len(keys), np.uint8)
    out = np.zeros(len(keys) if mode == TK.ENCODE else 0, np.int64)
    sets: list[Any] | None = [] if tree.shared is not None else None
    unit = ("two-byte numbers" if wide else "bytes") if sets is not None else "moves"
    status, proven, depth, read, line = replay(pos, winner, mode, keys, cells, used, out, on_tick, tree.outcome,
                                               sets)
    if reached is not None:
        reached.update(names[int(i)] for i in np.flatnonzero(used))
    if status == TK.OK:
        if mode == TK.STREAM and read < len(cells):
            return walked(False, f"the walk has {len(cells) - read:,} {unit} more than the "
                          "replay reads", int(proven))
        if sets and sets[0] != tree.shared:
            return walked(False, f"the walk holds {sets[0]:,} of the winner's moves, but 'prescribed' says "
                          f"{tree.shared:,}", int(proven))
        if walk_out is not None:
            walk_out.extend(int(c) for c in out[:read])
        if walk_keys is not None:
            found = TK.board_keys(keys[:read], size)
            walk_keys.update(zip(found, (geo.name(int(c)) for c in cells[:read]), strict=True))
        return walked(True, f"{tree.claim} against every reply", int(proven))
    given = _Given(pos)
    names_played = []
    for d in range(depth):
        c = int(line[d])
        if c >= 0:
            names_played.append(given.name(c))
            given.play(c)
        else:  # set -1 - c of the loser's turn at depth d
            _, scell, sbeg = sets  # type: ignore[misc]
            group = [int(x) for x in scell[d, sbeg[d, -1 - c]:sbeg[d, -c]]]
            names_played.append(shared_name(given, group))
            given.give(group)
    where = " ".join(names_played) or "(start)"
    pos = given
    if status == TK.ENDS:
        reason = ended(where, pos.result, tree)
    elif status == TK.NO_MOVE:
        reason = (f"the walk ends after {read:,} {unit}, before the replay reaches {where}" if mode == TK.STREAM
                  else f"no move is given after {where}")
    elif status == TK.BAD_SET:
        reason = bad_sets(where, read)
    elif mode == TK.STREAM:
        reason = (f"after {where} the walk's {unit[:-1]} {read:,} is cell "
                  f"{int(line[depth])}, which is not a legal move")
    else:
        name = tree.choices[board_key(pos)]
        try:
            pos.play(pos.geometry.parse_cell(name))
            raise AssertionError("internal error: the compiled checker called a legal move illegal")
        except KinarowError as err:
            reason = f"after {where} the prescribed move {name} is illegal: {err}"
    return walked(False, reason, int(proven))


def keyed_rows(tree: StrategyTree, geo: Any) -> tuple[list[str], Any, Any]:
    """The keyed strategy as the compiled walk reads it: (names, keys, cells), sorted by key; ``names[i]``
    is the board key of row i (keys with foreign symbols, which match no board, are left out)."""
    import numpy as np

    from kinarow import bitboards as W

    size = geo.size
    words = W.words_for_cells(size)
    names = [k for k in tree.choices if len(k) == size and k.isascii()]
    keys = np.zeros((len(names), 2 * words), np.uint64)
    cells = np.full(len(names), -1, np.int64)
    parsed: dict[str, int] = {}
    for lo in range(0, len(names), 1 << 20):
        chunk = names[lo:lo + (1 << 20)]
        raw = np.frombuffer("".join(chunk).encode(), np.uint8).reshape(len(chunk), size)
        wide = np.zeros((len(chunk), 64 * words), np.uint8)
        wide[:, :size] = raw
        for side, symbol in enumerate("xo"):
            packed = np.packbits(wide == ord(symbol), axis=1, bitorder="little").view("<u8")
            keys[lo:lo + len(chunk), side * words:(side + 1) * words] = packed
        foreign = np.asarray(~np.isin(raw, np.frombuffer(_SYMBOLS.encode(), np.uint8)).all(axis=1))
        for i, key in enumerate(chunk):
            name = tree.choices[key]
            if name not in parsed:
                try:
                    parsed[name] = geo.parse_cell(name)
                except KinarowError:
                    parsed[name] = -1
            cells[lo + i] = -2 if foreign[i] else parsed[name]
    keep = cells != -2
    keys, cells = keys[keep], cells[keep]
    # by Black's board, then White's, each high word first (the compiled walk's order)
    order = np.lexsort(tuple(keys[:, side * words + j] for side in (1, 0) for j in range(words)))
    kept = np.flatnonzero(keep)[order]
    return ([names[int(i)] for i in kept], np.ascontiguousarray(keys[order]), np.ascontiguousarray(cells[order]))


def ended(where: str, result: Any, tree: StrategyTree) -> str:
    """Why the line ``where``, which ends in ``result``, refutes ``tree``."""
    if tree.outcome == WIN:
        return f"the line {where} ends in '{result}', not a {tree.winner} win"
    return f"the line {where} ends in a {result} win, so {tree.winner} loses"


TICK_POSITIONS = 0x10000  # the Python walk reports its progress each time this many more positions are checked


def _check_python(tree: StrategyTree, on_tick: Callable[[int], None] | None = None) -> Verdict:
    """:func:`check` walked in Python (any board size)."""
    try:
        game = Game(tree.game)
        pos = game.position(" ".join(tree.moves))
    except KinarowError as err:
        return walked(False, f"the certificate's game or moves are invalid: {err}", 0)
    first, second = value_names(game)
    if tree.winner not in (first, second):
        return walked(False, f"winner '{tree.winner}' is not a player of {game}; use '{first}' or '{second}'", 0)
    winner = 1 if tree.winner == first else 2
    loses = second if winner == 1 else first  # the result a non-losing strategy must never reach
    proven: set[str] = set()
    shared = tree.shared is not None
    nbytes = number_bytes(pos.geometry.size) if shared else 1
    flag = shared_flag(nbytes)
    numbers = walk_numbers(tree.walk, nbytes) if tree.walk is not None else None
    walk = iter(numbers) if numbers is not None else None
    read = heard = 0  # numbers read from the walk (moves, but in versions 4 and 5); positions last reported
    spot = 0  # wins on the spot met (checked each time, not kept in ``proven``)
    unit = ("bytes" if nbytes == 1 else "two-byte numbers") if shared else "moves"
    moves = 0  # the winner's moves read from the walk

    def byte(where: str) -> int:
        nonlocal read
        b = next(walk, None)  # type: ignore[arg-type]
        if b is None:
            raise _RefutedError(f"the walk ends after {read:,} {unit}, before the replay reaches {where}")
        read += 1
        return b

    def sets_of(p: _Given, where: str) -> list[list[int]]:
        """The sets the walk gives the loser's turn at ``p`` (see the module's notes)."""
        count = byte(where)
        if count == 0 and p.stones > len(tree.moves):
            raise _RefutedError(bad_sets(where, read))
        taken: set[int] = set()
        out: list[list[int]] = []
        legal = set(p.legal_moves())
        for s in range(count):
            m = byte(where)
            but, m = m >= flag, m % flag  # but: every reply left but the cells listed
            if (m < 2 and not but) or s >= p.geometry.size:
                raise _RefutedError(bad_sets(where, read))
            listed: list[int] = []
            for _ in range(m):
                c = byte(where)
                if (listed and c <= listed[-1]) or c not in legal or c in taken:
                    raise _RefutedError(bad_sets(where, read))
                listed.append(c)
            group = sorted(legal - taken - set(listed)) if but else listed
            if len(group) < 2:
                raise _RefutedError(bad_sets(where, read))
            taken.update(group)
            out.append(group)
        return out

    def visit(p: Position, line: list[str], follow: bool = False) -> None:
        if p.is_over:
            if p.result != tree.winner and (tree.outcome == WIN or p.result == loses):
                raise _RefutedError(ended(" ".join(line) or "(start)", p.result, tree))
            return
        key = board_key(p)
        if shared and p.extra:  # type: ignore[attr-defined]
            key += f"/{p.extra}"  # type: ignore[attr-defined]
        if key in proven:
            return
        nonlocal read, heard, spot, moves
        if on_tick is not None and len(proven) + spot >= heard + TICK_POSITIONS:
            heard = (len(proven) + spot) // TICK_POSITIONS * TICK_POSITIONS
            on_tick(heard)
        if p.to_move == winner:
            name = tree.choices.get(key) if walk is None else None
            if name is None and winning_stone(p, tree.winner) is not None:
                spot += 1  # the winner wins with this stone (not kept: found again as fast, as in the compiled walk)
                return
            where = " ".join(line) or "(start)"
            flagged = False
            if walk is not None:
                cell = byte(where)
                moves += 1
                if shared and cell >= flag:
                    cell, flagged = cell - flag, True
                if cell not in p.legal_moves():
                    raise _RefutedError(f"after {where} the walk's {unit[:-1]} {read:,} is cell "
                                        f"{cell}, which is not a legal move")
                name = p.name(cell)
            if name is None:
                raise _RefutedError(f"no move is given after {where}")
            try:
                cell = p.geometry.parse_cell(name)
                p.play(cell)
            except KinarowError as err:
                raise _RefutedError(f"after {where} the prescribed move {name} is illegal: {err}") from None
            visit(p, [*line, name], flagged)
            p.undo()
        else:
            groups = sets_of(p, " ".join(line) or "(start)") if follow else []  # type: ignore[arg-type]
            for group in groups:
                p.give(group)  # type: ignore[attr-defined]
                visit(p, [*line, shared_name(p, group)])
                p.take_back(group)  # type: ignore[attr-defined]
            taken = {c for group in groups for c in group}
            for cell in p.legal_moves():
                if cell in taken:
                    continue
                p.play(cell)
                visit(p, [*line, p.name(cell)])
                p.undo()
        proven.add(key)

    try:
        visit(_Given(pos) if shared else pos, [], shared)
    except _RefutedError as err:
        return walked(False, str(err), len(proven) + spot)
    if numbers is not None and read < len(numbers):
        return walked(False, f"the walk has {len(numbers) - read:,} {unit} more than the replay reads",
                      len(proven) + spot)
    if shared and moves != tree.shared:
        return walked(False, f"the walk holds {moves:,} of the winner's moves, but 'prescribed' says "
                      f"{tree.shared:,}", len(proven) + spot)
    return walked(True, f"{tree.claim} against every reply", len(proven) + spot)


def check_certificate(data: dict[str, Any], compiled: bool = False,
                      on_tick: Callable[[int], None] | None = None) -> Verdict:
    """The ``kinarow.strategy`` checker for :mod:`kinarow.proofs`: load, check the claim, replay every reply
    (with the compiled walk when ``compiled``)."""
    tree = StrategyTree.from_json(data)
    require_claim(data, tree.claim)
    after = f" after {' '.join(tree.moves)}" if tree.moves else ""
    try:
        cells = Game(tree.game).cells
    except KinarowError as err:
        return Verdict(False, f"the certificate's game is invalid: {err}", {"game": tree.game})
    misfit = next((key for key in tree.choices if len(key) != cells or set(key) - set(_SYMBOLS)), None)
    if misfit is not None:
        return Verdict(False, f"the strategy does not fit {tree.game}: a board key has {len(misfit)} cells or foreign "
                       f"symbols, but the game has {cells} cells written with '.', 'x' and 'o'", {"game": tree.game})
    result = check(tree, compiled=compiled, on_tick=on_tick)
    positions = result.details["positions_checked"]
    details = {"game": tree.game, "moves": tree.moves, "winner": tree.winner, "outcome": tree.outcome,
               "prescribed_moves": tree.size, "positions_checked": positions}
    if not result.ok:
        return Verdict(False, f"the strategy for {tree.game}{after} fails: {result.reason}", details)
    words = f"{tree.winner.winner_words} wins" if tree.outcome == WIN else \
        f"{tree.winner.winner_words} does not lose (a draw at worst)"
    return Verdict(
        True,
        f"in {tree.game}{after}, {words} against every reply by following the certificate "
        f"({tree.described}, {positions:,} position{'' if positions == 1 else 's'} checked)",
        details,
    )
