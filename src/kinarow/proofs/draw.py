"""The ``kinarow.draw`` checker: blocking trees and strategy stealing, from the rules alone.

A draw is two facts: the first player cannot win, and the second player
cannot win. A certificate proves each *half* in one of two ways:

* ``strategy-stealing`` (only "the second player cannot win", only on the
  empty board of a normal game with free placement and one stone a turn):
  an extra stone never hurts, so a winning strategy for the second player
  would give the first player one too.
* ``blocking-tree``: a strategy for the *defender* that keeps the *attacker*
  from completing a group. At each of the defender's turns it names a move;
  every move of the attacker is followed; a branch ends when the game is over
  without an attacker win, or at a *leaf* where a Hales-Jewett pairing holds
  (every group the attacker can still complete contains a pair of empty
  cells, the pairs disjoint), after which the defender answers each attacker
  stone in a pair with its partner. (Not for Breaker as the attacker: Breaker
  wins by a full board, not by a group.)
* ``non-losing-walk`` (boards of at most 64 cells, any rules: gravity,
  misere, Maker-Breaker, several stones a turn): the *defender's* strategy
  that does not lose, written as a walk exactly as a ``kinarow.strategy``
  walk with ``"outcome": "not-lose"`` (:mod:`kinarow.proofs.tree`): fields
  ``walk`` and ``prescribed``. The replay follows every move of the attacker
  and fails where a line ends in the attacker's win.

A blocking tree is written as the walk that checks it, so it needs no
position keys. :func:`check_tree` walks it in Python, or (``compiled=True``,
boards of at most 64 cells) with the numba walk of
:mod:`kinarow.proofs.draw_kernel`, which walks the same positions in the same
order and says the same sentence when it fails. The walk is depth first from
the certificate's position, trying the attacker's moves in ascending cell
order and skipping every
position already proved (also when it is a symmetry image of one: the board's
symmetries are checked to map the groups onto the groups). Each new position
that is not over reads one token:

* ``+`` the attacker is to move: every legal move is followed;
* a cell name (``c2``) the defender is to move and plays there;
* ``=N`` a leaf, proved by pairing number ``N`` of the list ``pairings``
  (pairs whose cells are not both empty are ignored there).

The certificate::

    {"format": "kinarow.draw", "version": 1, "game": "7x4k4", "moves": [], "claim": "draw",
     "first_cannot_win": {"method": "blocking-tree", "pairings": ["a1-a2 b1-c2 ...", ...],
                          "tokens": "d2 + c1 =0 ..."},
     "second_cannot_win": {"method": "strategy-stealing"}}

With only one half present, the claim is "first cannot win" (Maker-Breaker:
"breaker wins") or "second cannot win". A draw of gravity, misere or
several-stones-a-turn rules has two ``non-losing-walk`` halves::

    {"format": "kinarow.draw", "version": 1, "game": "5x4k4:gravity", "moves": [], "claim": "draw",
     "first_cannot_win": {"method": "non-losing-walk", "prescribed": 7821, "walk": "eNrt..."},
     "second_cannot_win": {"method": "non-losing-walk", "prescribed": 4936, "walk": "eNrt..."}}
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Iterator
from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import OVERLINE_HURTS, Game
from kinarow.position import Position
from kinarow.proofs import CertificateError, Verdict, blocking_fit, require_claim, require_envelope, require_input
from kinarow.values import FITS, Fit, Goal, Value

FORMAT = "kinarow.draw"
VERSION = 1
HALVES = {1: "first_cannot_win", 2: "second_cannot_win"}
EXPAND = "+"
LEAF = "="
#: digits of a leaf's pairing index ("=12"): more than any list of pairings a certificate can hold
MAX_INDEX_DIGITS = 9
STEALING = "strategy-stealing"
TREE = "blocking-tree"
WALK = "non-losing-walk"
METHODS = (TREE, STEALING, WALK)


def stealing_fit(game: Game, moves: list[str] | list[int]) -> Fit:
    """Whether strategy stealing shows that the second player cannot win here, and why not when it does not."""
    if moves:
        return Fit.no("strategy stealing speaks of the empty board, and this position has stones on it")
    if game.gravity:
        return Fit.no(f"{game} has gravity, where a stone can take away a move the stolen strategy needs")
    if game.goal != Goal.NORMAL:
        return Fit.no(f"{game} is not a normal game (its goal is {game.goal}), where an extra stone may hurt")
    if (game.p, game.q) != (1, 1):
        return Fit.no(f"{game} places more than one stone a turn")
    if game.exact:
        return Fit.no(f"{game} has the exact rule: {OVERLINE_HURTS}")
    return FITS


def claim_for(game: Game, halves: set[int]) -> str:
    """The claim a certificate with these halves (1: first cannot win, 2: second cannot win) proves."""
    if halves == {1, 2}:
        return Value.DRAW
    (player,) = halves
    if game.goal == Goal.MAKER_BREAKER and player == 1:
        return f"{Value.BREAKER} wins"
    return f"{Value.win(game.goal, player)} cannot win"


def parse_pairing(text: str, position: Position, cell_of: dict[str, int] | None = None) -> list[tuple[int, int]]:
    """Cells of a pairing written ``"a1-b2 c3-d4"``; one clear sentence if malformed or not disjoint.

    ``cell_of`` (cell names to cells) is looked in first; other names are parsed by the geometry.
    """
    pairs: list[tuple[int, int]] = []
    used: set[int] = set()
    known = cell_of or {}
    parse = position.geometry.parse_cell
    for token in text.split():
        a_name, sep, b_name = token.partition("-")
        if not sep:
            raise CertificateError(f"the pair '{token}' is not two cell names joined by '-', like 'a1-b2'")
        a = known[a_name] if a_name in known else parse(a_name)
        b = known[b_name] if b_name in known else parse(b_name)
        if a == b or a in used or b in used:
            raise CertificateError(f"the pairing '{text[:60]}' is not a set of disjoint pairs of two cells")
        used.update((a, b))
        pairs.append((a, b))
    return pairs


def parse_pairings(texts: list[str], position: Position, cell_of: dict[str, int]) -> list[list[tuple[int, int]]]:
    """:func:`parse_pairing` of each of ``texts``, the same pairs or the same sentence, faster for many pairings
    that share their pairs: a pair of two known cell names is read once, and a pairing's pairs are disjoint
    exactly when the sum of their two-bit masks has two bits a pair (any shared cell makes a carry)."""
    pair_of: dict[str, tuple[int, int]] = {}
    mask_of: dict[str, int] = {}
    out: list[list[tuple[int, int]]] = []
    for text in texts:
        words = text.split()
        if not all(map(pair_of.__contains__, words)):
            for word in words:
                a, sep, b = word.partition("-")
                if word not in pair_of and sep and a in cell_of and b in cell_of:
                    pair_of[word] = (cell_of[a], cell_of[b])
                    mask_of[word] = (1 << cell_of[a]) | (1 << cell_of[b])
        if all(map(pair_of.__contains__, words)) and \
                sum(map(mask_of.__getitem__, words)).bit_count() == 2 * len(words):
            out.append(list(map(pair_of.__getitem__, words)))
        else:  # a name the geometry reads another way, or a sentence saying what is wrong
            out.append(parse_pairing(text, position, cell_of))
    return out


class Canon:
    """Keys of positions up to the board's symmetries (each checked to map the groups onto the groups)."""

    def __init__(self, position: Position) -> None:
        geo = position.geometry
        groups = {frozenset(g) for g in geo.groups}
        self.inverses: list[list[int]] = []
        for perm in geo.symmetries:
            if sorted(perm) != list(range(geo.size)) or {frozenset(perm[c] for c in g) for g in groups} != groups:
                continue  # not an automorphism of the groups: never used (a correct geometry has none)
            inverse = [0] * geo.size
            for c, image in enumerate(perm):
                inverse[image] = c
            self.inverses.append(inverse)
        # each image of a board as a tuple (itemgetter of one cell would give the value, not a tuple)
        self.images = [operator.itemgetter(*inverse) if len(inverse) > 1 else (lambda b, c=inverse[0]: (b[c],))
                       for inverse in self.inverses]

    def key(self, board: list[int]) -> bytes:
        return min(bytes(image(board)) for image in self.images) if self.images else bytes(board)


class _RefutedError(Exception):
    pass


def _read_tree(position: Position, half: dict[str, Any]) -> tuple[dict[str, int], list[list[tuple[int, int]]], str]:
    """A blocking tree's cell names (name to cell), parsed pairings and tokens; one sentence when malformed."""
    fit = blocking_fit(position.game)
    if not fit:
        raise CertificateError(f"a blocking tree proves nothing here: {fit.reason}")
    texts, tokens_text = half.get("pairings"), half.get("tokens")
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts) or not isinstance(tokens_text, str):
        raise CertificateError("a blocking tree needs 'pairings' (a list of strings) and 'tokens' (a string)")
    geo = position.geometry
    cell_of = {geo.name(c): c for c in range(geo.size)}
    return cell_of, parse_pairings(texts, position, cell_of), tokens_text


def leaf_index(token: str, pairings: int) -> int:
    """The pairing a leaf token (``=N``) names, or -1 when ``N`` is not an index into a list of ``pairings``."""
    # an ASCII index of a few digits (no '٣', no 5000-digit number for int() to refuse)
    digits = token[1:]
    index = int(digits) if digits.isascii() and digits.isdigit() and len(digits) <= MAX_INDEX_DIGITS else -1
    return index if 0 <= index < pairings else -1


def check_tree(position: Position, attacker: int, half: dict[str, Any],
               tick: Callable[[int], None] | None = None, *, compiled: bool = False) -> tuple[int, int]:
    """Walk a blocking tree; return (positions proved, leaves). Raises :class:`CertificateError` on failure.

    ``compiled=True`` walks boards of at most 64 cells with the numba walk of
    :mod:`kinarow.proofs.draw_kernel` (the same walk and rules over bitboards:
    the same count, or the same sentence); other boards are walked in Python.
    """
    require_input(position, Position, "kinarow.proofs.draw.check_tree()", "a Position")
    if attacker not in (1, 2) or isinstance(attacker, bool):
        raise CertificateError(f"check_tree() takes the attacker as 1 (first) or 2 (second), not {attacker!r:.40}")
    require_input(half, dict, "kinarow.proofs.draw.check_tree()",
                  "a blocking tree's half of a draw certificate (a dict)")
    if position.game.goal == Goal.MAKER_BREAKER and attacker == 2:
        raise CertificateError("a blocking tree proves nothing here: Breaker wins a Maker-Breaker game by a full "
                               "board without a Maker line, which blocking Breaker's groups does not prevent")
    cell_of, pairings, tokens_text = _read_tree(position, half)
    if compiled:
        if compiled_fit(position):
            return _check_tree_compiled(position, attacker, cell_of, pairings, tokens_text, tick)
    game = position.game
    geo = position.geometry
    defender = 3 - attacker
    group_masks = [sum(1 << c for c in g) for g in geo.groups]
    @functools.lru_cache(maxsize=4096)  # leaves that share a pairing come close together in the walk
    def pairs_inside(index: int) -> list[list[int]]:
        """Per group, the masks of pairing ``index``'s pairs inside the group."""
        masks = [(1 << a) | (1 << b) for a, b in pairings[index]]
        return [[m for m in masks if m & g == m] for g in group_masks]

    canon = Canon(position)
    tokens: Iterator[str] = iter(tokens_text.split())
    proved: set[bytes] = set()
    leaves = 0
    pos = position.copy()
    board = pos.board
    attacker_win = Value.win(game.goal, attacker)

    def line() -> str:
        return _line(pos, position)

    def covered(index: int) -> bool:
        theirs, occupied = pos.bits[defender], pos.bits[1] | pos.bits[2]
        for g, pairs in zip(group_masks, pairs_inside(index), strict=True):
            if g & theirs == 0 and not any(m & occupied == 0 for m in pairs):
                return False
        return True

    def visit() -> None:
        nonlocal leaves
        if pos.is_over:
            if pos.result == attacker_win:
                raise _RefutedError(_wins(line(), attacker_win))
            return
        key = canon.key(board)
        if key in proved:
            return
        token = next(tokens, None)
        if token is None:
            raise _RefutedError(_tokens_end(line()))
        if token == EXPAND:
            if pos.to_move != attacker:
                raise _RefutedError(_expand_at_defender(line()))
            for cell in pos.legal_moves():
                pos.play(cell)
                visit()
                pos.undo()
        elif token.startswith(LEAF):
            index = leaf_index(token, len(pairings))
            if index < 0:
                raise _RefutedError(_bad_leaf(line(), token))
            if not covered(index):
                raise _RefutedError(_not_covered(line(), index))
            leaves += 1
        else:
            if pos.to_move != defender:
                raise _RefutedError(_move_at_attacker(line(), token))
            _defend(pos, token, cell_of, position)
            visit()
            pos.undo()
        proved.add(key)
        if tick is not None and len(proved) % 4096 == 0:
            tick(len(proved))

    try:
        visit()
    except _RefutedError as err:
        raise CertificateError(f"{FAILS}{err}") from None
    if next(tokens, None) is not None:
        raise CertificateError(LEFT_OVER)
    return len(proved), leaves


# The sentences of a failing blocking tree, the same from both walks.
FAILS = "the blocking tree fails: "
#: characters of the tokens read at a time into the compiled walk's array (each piece ends at white space)
TOKEN_PIECE = 1 << 22
LEFT_OVER = "the blocking tree has tokens left over after its walk ended"


def _line(pos: Position, start: Position) -> str:
    return " ".join(pos.name(c) for c in pos.moves[len(start.moves):]) or "(start)"


def _wins(line: str, attacker_win: Value) -> str:
    return f"the line {line} ends in a {attacker_win} win"


def _tokens_end(line: str) -> str:
    return f"the tokens end before the position after {line} is proved"


def _expand_at_defender(line: str) -> str:
    return f"after {line} the defender is to move, but the tree follows every move"


def _bad_leaf(line: str, token: str) -> str:
    return f"after {line} the leaf names pairing '{token[1:]}', which is not in the list"


def _not_covered(line: str, index: int) -> str:
    return f"after {line} pairing {index} leaves a live group without an empty pair"


def _move_at_attacker(line: str, token: str) -> str:
    return f"after {line} the attacker is to move, but the tree names one move ({token})"


def _defend(pos: Position, token: str, cell_of: dict[str, int], start: Position) -> None:
    """Play the defender's move ``token`` at ``pos``; a :class:`_RefutedError` when it is no legal move."""
    try:
        cell = cell_of[token] if token in cell_of else pos.geometry.parse_cell(token)
        pos.play(cell)
    except KinarowError as err:
        raise _RefutedError(f"after {_line(pos, start)} the defender's move {token} is illegal: {err}") from None


def compiled_fit(position: Position) -> Fit:
    """Whether the compiled walk walks a blocking tree from ``position``, and why not when it does not (then the
    Python walk does)."""
    from kinarow.proofs.draw_kernel import MAX_CELLS

    if position.geometry.size > MAX_CELLS:
        return Fit.no(f"the compiled walk is for boards of at most {MAX_CELLS} cells")
    if position.is_over:
        return Fit.no("the game is over at the start")
    return FITS


def symmetry_bits(position: Position) -> Any:
    """The checked symmetries (:class:`Canon`) as the kernel reads them (``sym_bits``, see
    :mod:`kinarow.proofs.draw_kernel`); with none, the board is its own key, as in :meth:`Canon.key`."""
    import numpy as np

    size = position.geometry.size
    inverses = Canon(position).inverses or [list(range(size))]
    sym_bits = np.zeros((len(inverses), size), np.uint64)
    for s, inverse in enumerate(inverses):
        # the image's cell i holds the board's cell inverse[i]: cell inverse[i] goes to bit i
        sym_bits[s, inverse] = np.uint64(1) << np.arange(size, dtype=np.uint64)
    return sym_bits


def token_codes(tokens_text: str, cell_of: dict[str, int], position: Position, pairings: int) -> Any:
    """The tokens as the kernel reads them (``tokens`` in :mod:`kinarow.proofs.draw_kernel`), an int32 array."""
    import re

    import numpy as np

    from kinarow.proofs import draw_kernel as DK

    size = position.geometry.size
    parse = position.geometry.parse_cell

    def code(token: str) -> int:
        if token == EXPAND:
            return DK.EXPAND
        if token.startswith(LEAF):
            return DK.LEAF - (index if (index := leaf_index(token, pairings)) >= 0 else pairings)
        try:
            cell = cell_of[token] if token in cell_of else parse(token)
        except Exception:  # the walk says why (by the Python rules) if it reaches this token
            return size
        return cell if type(cell) is int and 0 <= cell < size else size  # else Position.play says why not

    codes: dict[str, int] = {}
    parts: list[Any] = []
    space = re.compile(r"\s")  # the whitespace str.split() splits at: a piece ends between two tokens
    lo, step = 0, TOKEN_PIECE
    while lo < len(tokens_text):
        found = space.search(tokens_text, lo + step) if lo + step < len(tokens_text) else None
        hi = found.start() if found else len(tokens_text)
        words = tokens_text[lo:hi].split()
        for token in set(words).difference(codes):
            codes[token] = code(token)
        parts.append(np.fromiter(map(codes.__getitem__, words), np.int32, len(words)))
        lo = hi
    return np.concatenate(parts) if parts else np.zeros(0, np.int32)


def _check_tree_compiled(position: Position, attacker: int, cell_of: dict[str, int],
                         pairings: list[list[tuple[int, int]]], tokens_text: str,
                         tick: Callable[[int], None] | None) -> tuple[int, int]:
    """:func:`check_tree` by the compiled walk (where :func:`compiled_fit` says it may)."""
    import numpy as np

    from kinarow.errors import run_stoppable
    from kinarow.proofs import draw_kernel as DK
    from kinarow.proofs import tree_kernel as TK

    game = position.game
    geo = position.geometry
    size = geo.size
    tokens = token_codes(tokens_text, cell_of, position, len(pairings))
    masks, flanks, cell_groups, start, turn_player, goal = TK.rules(game)
    pair_start = np.zeros(len(pairings) + 1, np.int64)
    pair_start[1:] = np.cumsum([len(p) for p in pairings])
    flat = np.fromiter(itertools.chain.from_iterable(itertools.chain.from_iterable(pairings)), np.int64,
                       2 * int(pair_start[-1])).reshape(-1, 2)
    words = (len(geo.groups) + 63) // 64
    pair_groups = np.zeros((size * size, max(words, 1)), np.uint64)
    for g, group in enumerate(geo.groups):
        bit = np.uint64(1) << np.uint64(g % 64)
        for a in group:
            for b in group:
                pair_groups[a * size + b, g // 64] |= bit
    sym_bits = symmetry_bits(position)
    line = np.zeros(size + 1, np.int64)
    ctrl = np.zeros(2, np.int64)
    bx, bo = np.uint64(position.bits[1]), np.uint64(position.bits[2])
    slots = DK.table_slots(len(tokens))

    def work() -> tuple[int, int, int, int, int]:
        return DK.walk(bx, bo, position.stones, attacker, size, goal, masks, flanks, cell_groups, start, turn_player,
                       tokens,
                       len(pairings), pair_start, np.ascontiguousarray(flat[:, 0]), np.ascontiguousarray(flat[:, 1]),
                       pair_groups, sym_bits, slots, line, ctrl)

    def stop() -> None:
        ctrl[1] = 1

    poll = (lambda: tick(int(ctrl[0]))) if tick is not None else None
    status, proved, leaves, depth, at = (int(v) for v in run_stoppable(work, stop, poll, every=0.25))
    if status == DK.OK:
        if at < len(tokens):
            raise CertificateError(LEFT_OVER)
        if tick is not None:
            tick(proved)
        return proved, leaves
    if status == DK.STOPPED:
        raise KeyboardInterrupt
    pos = position.copy()
    for c in line[:depth]:
        pos.play(int(c))
    where = _line(pos, position)
    token = tokens_text.split()[at] if at < len(tokens) else ""
    if status == DK.WINS:
        reason = _wins(where, Value.win(game.goal, attacker))
    elif status == DK.TOKENS_END:
        reason = _tokens_end(where)
    elif status == DK.EXPAND_AT_DEFENDER:
        reason = _expand_at_defender(where)
    elif status == DK.BAD_LEAF:
        reason = _bad_leaf(where, token)
    elif status == DK.NOT_COVERED:
        reason = _not_covered(where, leaf_index(token, len(pairings)))
    elif status == DK.MOVE_AT_ATTACKER:
        reason = _move_at_attacker(where, token)
    else:
        try:
            _defend(pos, token, cell_of, position)
        except _RefutedError as err:
            reason = str(err)
        else:
            raise AssertionError("internal error: the compiled walk called a legal defender's move illegal")
    raise CertificateError(f"{FAILS}{reason}")


def check_walk(game_text: str, moves: list[str], attacker: int, half: dict[str, Any], compiled: bool,
               tick: Callable[[int], None] | None) -> Verdict:
    """Replay a ``non-losing-walk`` half: the defender's strategy that does not lose, against every move of
    ``attacker`` (compiled or in Python, as :func:`kinarow.proofs.tree.check`)."""
    require_input(half, dict, "kinarow.proofs.draw.check_walk()",
                  "a non-losing walk's half of a draw certificate (a dict)")
    from kinarow.proofs.tree import NOT_LOSE, StrategyTree, check, read_walk

    game = Game(game_text)
    defender = Value.win(game.goal, 3 - attacker)
    tree = StrategyTree(game_text, moves, defender, walk=read_walk(half, "non-losing walk"), outcome=NOT_LOSE)
    return check(tree, compiled=compiled, on_tick=tick)


def check_certificate(data: dict[str, Any], tick: Callable[[int], None] | None = None, *, compiled: bool = False,
                      on_tick: Callable[[int], None] | None = None) -> Verdict:
    """Check a ``kinarow.draw`` certificate given as its JSON object; ``compiled`` replays its non-losing walks
    and walks its blocking trees with the compiled walks; ``tick`` (or ``on_tick``) hears the positions proved
    so far."""
    tick = tick or on_tick
    game_text, moves = require_envelope(data, FORMAT, VERSION, "draw")
    try:
        game = Game(game_text)
        position = game.position(" ".join(moves))
    except KinarowError as err:
        return Verdict(False, f"the certificate's game or moves are invalid: {err}", {"game": game_text})
    present = {player for player, name in HALVES.items() if name in data}
    if not present:
        raise CertificateError("the draw certificate needs 'first_cannot_win' or 'second_cannot_win'")
    require_claim(data, claim_for(game, present))
    after = f" after {' '.join(moves)}" if moves else ""
    details: dict[str, Any] = {"game": game_text, "moves": moves}
    said: list[str] = []
    for player in sorted(present):
        half = data[HALVES[player]]
        if not isinstance(half, dict) or half.get("method") not in METHODS:
            raise CertificateError(f"'{HALVES[player]}' needs a 'method': '{TREE}', '{STEALING}' or '{WALK}'")
        who = Value.win(game.goal, player)
        if half["method"] == WALK:
            walked = check_walk(game_text, moves, player, half, compiled, tick)
            if not walked.ok:
                return Verdict(False, f"in {game}{after}, the {who} player can win against the "
                               f"{Value.win(game.goal, 3 - player)} player's non-losing walk: {walked.reason}",
                               details)
            proved = walked.details["positions_checked"]
            details[HALVES[player]] = {"positions": proved, "prescribed": half["prescribed"]}
            said.append(f"the {who} player cannot win against the {Value.win(game.goal, 3 - player)} player's "
                        f"non-losing walk ({half['prescribed']:,} prescribed moves, {proved:,} positions)")
            continue
        if half["method"] == STEALING:
            fit = (stealing_fit(game, moves) if player == 2
                   else Fit.no("it shows only that the second player cannot win"))
            if not fit:
                return Verdict(False, f"strategy stealing does not apply: {fit.reason}", details)
            said.append(f"the {who} player cannot win by strategy stealing")
            continue
        try:
            proved, leaves = check_tree(position, player, half, tick, compiled=compiled)
        except CertificateError as err:
            return Verdict(False, f"in {game}{after}, {err}", details)
        details[HALVES[player]] = {"positions": proved, "leaves": leaves, "pairings": len(half["pairings"])}
        said.append(f"the {who} player cannot win against the blocking tree ({proved:,} positions, "
                    f"{leaves:,} pairing {'leaf' if leaves == 1 else 'leaves'})")
    return Verdict(True, f"in {game}{after}, " + "; ".join(said) + f": {claim_for(game, present)}", details)
