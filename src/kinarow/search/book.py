"""Opening books for Connect-k games: the exact score of every position with at most ``depth`` stones.

A book answers the shallow positions, whose searches are the longest, at once: :class:`ScoreSearcher`
(:mod:`kinarow.search.connect`) consults the book it is given before it searches, and
:func:`searcher_for` (the searcher of ``solve()``, ``analyse()``, ``kinarow play`` and
the web page) loads the book shipped in the package for its game, if there is one (7x6 Connect Four).
``KINAROW_BOOK=off`` in the environment turns the shipped books off, so that a benchmark measures the search.

How a book is made (:func:`build`): every position with ``depth`` stones that play can reach without a
finished game is listed (one of each mirror pair), the score kernel searches each for its exact score with one
transposition table for all, and the scores of the shallower positions follow from their children's
(negamax: a move that completes a line scores at once). Positions are keyed as the kernel keys them,
``cur | (mask + bottom)`` (:mod:`kinarow.engine.gravity_kernel`), made canonical as the smaller of the key and
its mirror image's; the score is the kernel's, from the side to move.

Each deepest position that is not lost also keeps a move that keeps its value (the column, in the frame of its
canonical key): the engine's answer there would otherwise need one more search ("at least the book's score?"),
which for a few positions takes seconds. A build finds it on the way (the search's cutoff at the root, or that
one test when the root's move falls short); :func:`add_moves` adds the moves to a book made without them.

The file is a NumPy ``.npz`` archive: ``version``, ``game`` (the game string), ``depth``, ``part`` (``book``, or
``checkpoint`` for a build's unfinished file), ``keys`` (sorted ``uint64``; from format version 3, for a board
whose layout needs two words, an ``(entries, 2)`` ``uint64`` array, low word first), ``scores`` (``int8``) and,
from format version 2, ``moves`` (``int8``: a column, or -1 where none is kept; version 1 files, without moves,
are still read), and in files written since, ``digest``: the SHA-256 of the game, the depth and the three arrays
(:func:`digest_of`), which catches a damaged entry that the checks below cannot (a deepest score). A book shipped
in the package is also held to the digest the package records for it (:data:`SHIPPED_DIGESTS`), so an edited
shipped file is refused even where it carries a digest of its own; it is then left out (the search answers without
it, and says so once on stderr). It is not trusted: :func:`load` bounds its size before it reads it and checks
every field (types, shapes, the game, that each key is a position of the game with at most ``depth`` stones, no
finished line, the side to move, the key canonical and sorted, each score possible for its position, each move a
column with room in it, kept for a deepest position not lost and only there), and that every entry shallower than
``depth`` is its children's best score, so that only the deepest entries, the searched ones, are taken on trust
(their scores and moves). Any failure is one sentence (:class:`BookError`).

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "4x4k3.book.npz")
>>> book = build("4x4k3:gravity", 3, path).book
>>> len(book), book.depth, book.lookup(Game("4x4k3:gravity").start())
(37, 3, 8)
>>> load(path, "4x4k3:gravity").lookup(Game("4x4k3:gravity").position("a"))
-2
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import time
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kinarow.errors import KinarowError, shown
from kinarow.game import Game
from kinarow.position import Position
from kinarow.search import connect

__all__ = [
    "ENV_VAR",
    "FORMAT_VERSION",
    "Book",
    "BookError",
    "BuildReport",
    "MovesReport",
    "ShippedBook",
    "add_moves",
    "build",
    "digest_of",
    "load",
    "searcher_for",
    "shipped_book",
    "shipped_opening",
    "shipped_path",
    "wanted",
]

FORMAT_VERSION = 2
#: the format version of a book of a board past one word of layout (its keys two ``uint64`` columns)
WIDE_VERSION = 3
#: the format versions this kinarow reads (version 1 has no moves)
READ_VERSIONS = (1, 2, 3)
#: the environment variable that turns the shipped books off (``off``) or on (``on``, the default)
ENV_VAR = "KINAROW_BOOK"
#: the largest book file read (bytes), and the most entries a book (or a build) may hold
MAX_BOOK_BYTES = 64 * 2**20
MAX_ENTRIES = 4_000_000
#: seconds between a build's checkpoints
CHECKPOINT_SECONDS = 60.0
_MEMBERS_V1 = frozenset({"version.npy", "game.npy", "depth.npy", "part.npy", "keys.npy", "scores.npy"})
_MEMBERS = _MEMBERS_V1 | {"moves.npy"}
_MEMBERS_DIGEST = _MEMBERS | {"digest.npy"}
#: the digest (:func:`digest_of`) of each book shipped in the package, by game: a shipped file that does not match
#: is refused (and searched without)
SHIPPED_DIGESTS = {"7x6k4:gravity": "2f0d93e14bdc1a27776b47354336ef4dcf72b127765f8d41f2460b98d90bfe0d"}
#: the depth of each book shipped in the package, by game, so that a searcher knows which positions it holds before
#: it reads the file (:class:`ShippedBook`; the digest covers the depth too)
SHIPPED_DEPTHS = {"7x6k4:gravity": 9}
#: the move of an entry that keeps none
NO_MOVE = -1
_OFF = ("off", "0", "no", "false")
_ON = ("on", "1", "yes", "true", "")


class BookError(KinarowError):
    """A book file cannot be used (unreadable, damaged, of another game) or a build cannot start."""


# -- the kernel's keys, for many positions at once ----------------------------------------------------
class _Layout:
    """The kernel's bit layout of one game (:mod:`kinarow.engine.gravity_kernel`).

    Many positions at once are NumPy arrays of keys: ``uint64`` where the layout fits one word (at most 64 bits),
    else arrays of Python ints (``object``), on which the same operators work element by element (slower, but the
    books of such boards are small: each deepest position is a long search)."""

    def __init__(self, game: Game) -> None:
        fit = connect.score_search_fit(game)
        if not fit:
            raise BookError(f"an opening book is made by the Connect-k score search, which cannot take {game}: "
                            f"{fit.reason}")
        self.game = game
        self.m, self.n, self.h, self.k = game.m, game.n, game.n + 1, game.k
        self.cells = game.cells
        self.bits = self.m * self.h
        #: whether the keys take two words (on disk: two ``uint64`` columns, low word first)
        self.wide = self.bits > connect.ONE_WORD_BITS
        #: the type of the keys' constants in array arithmetic (``np.uint64``, or ``int`` for wide keys)
        self.word: Callable[[int], Any] = int if self.wide else np.uint64
        self.bottom = sum(1 << (x * self.h) for x in range(self.m))
        self.board = sum(((1 << self.n) - 1) << (x * self.h) for x in range(self.m))
        self.colmask = [((1 << self.n) - 1) << (x * self.h) for x in range(self.m)]
        self.used = (1 << self.bits) - 1
        self.steps = (1, self.h, self.h + 1, self.h - 1)

    # Python ints (one position)
    def mirror(self, key: int) -> int:
        col = (1 << self.h) - 1
        out = 0
        for x in range(self.m):
            out |= ((key >> (x * self.h)) & col) << ((self.m - 1 - x) * self.h)
        return out

    def canonical(self, cur: int, mask: int) -> int:
        key = cur | (mask + self.bottom)
        return min(key, self.mirror(key))

    def has_line(self, pos: int) -> bool:
        for s in self.steps:
            run = pos
            for i in range(1, self.k):
                run &= pos >> (i * s)
                if not run:
                    break
            if run:
                return True
        return False

    # NumPy arrays of keys (many positions)
    def key_array(self, keys: Iterable[int]) -> np.ndarray:
        """Python ints as an array of this layout's keys."""
        return np.array(list(keys), dtype=object if self.wide else np.uint64).reshape(-1)

    def to_words(self, keys: np.ndarray) -> np.ndarray:
        """The keys as a file keeps them: ``uint64``, and for wide keys an ``(n, 2)`` array, low word first."""
        if not self.wide:
            return np.ascontiguousarray(keys, "<u8")
        low = (1 << 64) - 1
        return np.array([(int(k) & low, int(k) >> 64) for k in keys], "<u8").reshape(-1, 2)

    def from_words(self, words: np.ndarray) -> np.ndarray:
        """The inverse of :meth:`to_words`."""
        if not self.wide:
            return words
        return np.asarray(words[:, 0].astype(object) | (words[:, 1].astype(object) << 64))

    def mirror_all(self, keys: np.ndarray) -> np.ndarray:
        w = self.word
        col = w((1 << self.h) - 1)
        out = np.zeros_like(keys)
        for x in range(self.m):
            out |= ((keys >> w(x * self.h)) & col) << w((self.m - 1 - x) * self.h)
        return out

    def has_line_all(self, pos: np.ndarray) -> np.ndarray:
        found = np.zeros(pos.shape, bool)
        for s in self.steps:
            if (self.k - 1) * s >= self.bits:
                continue  # no line of k cells fits along this direction's bit steps
            run = pos.copy()
            for i in range(1, self.k):
                run &= pos >> self.word(i * s)
            found |= run != 0
        return found

    def decode_all(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(cur, mask, stones, well formed) of each key: ``cur`` the side to move's stones, ``mask`` every stone.
        A key is well formed when it sets no bit outside the board's columns and each column has its marker."""
        w = self.word
        ok = (keys & w(((1 << (64 * (1 + self.wide))) - 1) ^ self.used)) == 0
        mask = np.zeros_like(keys)
        stones = np.zeros(keys.shape, np.int64)
        for x in range(self.m):
            seg = ((keys >> w(x * self.h)) & w((1 << self.h) - 1)).astype(np.int64)
            ok &= seg != 0
            height = np.zeros(keys.shape, np.int64)
            for y in range(1, self.h):
                height += (seg >> y) != 0
            stones += height
            column = ((np.int64(1) << height) - 1).astype(keys.dtype)
            mask |= column << w(x * self.h)
        return keys & mask, mask, stones, ok

    def popcount_all(self, x: np.ndarray) -> np.ndarray:
        """The number of bits set in each key."""
        if self.wide:
            return np.array([int(v).bit_count() for v in x], np.int64).reshape(x.shape)
        return np.asarray(np.bitwise_count(x), np.int64)


# -- the book ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Book:
    """The exact scores of a game's positions with at most :attr:`depth` stones (one of each mirror pair)."""

    game: Game
    depth: int
    #: the positions' canonical kernel keys, sorted (``uint64``; Python ints, dtype ``object``, past one word)
    keys: np.ndarray
    #: each position's score from the side to move (``int8``; see :mod:`kinarow.search.connect`)
    scores: np.ndarray
    #: each position's kept move (``int8``): a column of its canonical key's frame whose move keeps the value, or
    #: -1 (:data:`NO_MOVE`) where none is kept (shallower positions, lost ones, a book made without moves)
    moves: np.ndarray | None = None
    #: the format version of the file it was read from (:func:`load`; a book made here is of the current one)
    version: int = FORMAT_VERSION
    _layout: _Layout = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_layout", _Layout(self.game))
        if self._layout.wide and self.version == FORMAT_VERSION:  # a book made here of a board past one word
            object.__setattr__(self, "version", WIDE_VERSION)
        if self.moves is None:
            object.__setattr__(self, "moves", np.full(self.keys.shape, NO_MOVE, np.int8))

    def __len__(self) -> int:
        return int(self.keys.size)

    def lookup(self, position: Position) -> int | None:
        """The score of ``position`` from the side to move, or None when the book does not hold it (deeper than
        the book, or over)."""
        if not isinstance(position, Position) or position.game != self.game:
            what = f"a position of {position.game}" if isinstance(position, Position) else type(position).__name__
            raise KinarowError(f"this book is of {self.game}; it cannot look up {what}")
        if position.stones > self.depth or position.is_over:
            return None
        cur, mask, _ = connect.kernel_words(self.game, position)
        return self.lookup_words(cur, mask)

    def lookup_words(self, cur: int, mask: int) -> int | None:
        """The score of the position with ``cur`` (the side to move's stones) and ``mask`` (every stone) in the
        kernel's layout, or None when the book does not hold it."""
        i = self._find(int(cur), int(mask))[0]
        return None if i is None else int(self.scores[i])

    def move_words(self, cur: int, mask: int) -> int | None:
        """The kept move of the position given as in :meth:`lookup_words`: a column (of the position as given, not
        mirrored) whose move keeps the position's value, or None when the book keeps none for it."""
        i, mirrored = self._find(int(cur), int(mask))
        if i is None or self.moves is None or int(self.moves[i]) == NO_MOVE:
            return None
        column = int(self.moves[i])
        return self.game.m - 1 - column if mirrored else column

    def from_parents(self, cur: int, mask: int) -> tuple[int | None, int | None]:
        """What the book says of a position one stone deeper than it (given as in :meth:`lookup_words`), through
        its parents (the positions before the last stone, any of the opponent's top stones): (a lower bound on
        its score, or None; its value -1, 0 or 1 when a parent's kept move leads to it, else None).

        A parent's score is the best of its children's, so each child scores at least minus its parent's score;
        a kept move keeps the parent's value, so the child it leads to has the opposite value."""
        layout = self._layout
        opp = cur ^ mask
        floor: int | None = None
        for x, col in enumerate(layout.colmask):
            top = mask & col
            if not top:
                continue
            stone = 1 << (top.bit_length() - 1)
            if not opp & stone:
                continue
            pcur, pmask = opp ^ stone, mask ^ stone
            i, mirrored = self._find(pcur, pmask)
            if i is None:
                continue
            score = int(self.scores[i])
            floor = -score if floor is None else max(floor, -score)
            kept = int(self.moves[i]) if self.moves is not None else NO_MOVE
            if kept != NO_MOVE and (layout.m - 1 - kept if mirrored else kept) == x:
                return floor, -((score > 0) - (score < 0))
        return floor, None

    def has_moves(self) -> bool:
        """Whether the book keeps any move (a book of format version 1, or built without them, keeps none)."""
        return self.moves is not None and bool(np.any(self.moves != NO_MOVE))

    def _find(self, cur: int, mask: int) -> tuple[int | None, bool]:
        """(the entry's index or None, whether its canonical key is the position's mirror image)."""
        layout = self._layout
        key = cur | (mask + layout.bottom)
        mirror = layout.mirror(key)
        canonical = min(key, mirror)
        i = int(np.searchsorted(self.keys, layout.word(canonical)))
        if i < self.keys.size and self.keys[i] == canonical:
            return i, mirror < key
        return None, False

    def stones(self) -> np.ndarray:
        """The number of stones of each entry's position (``int64``, in the order of :attr:`keys`)."""
        return self._layout.decode_all(self.keys)[2]

    def describe(self) -> str:
        """One line: the game, the depth and the number of positions."""
        kept = int(np.count_nonzero(self.moves != NO_MOVE)) if self.moves is not None else 0
        moves = f", a move kept for {kept:,}" if kept else ""
        return (f"{self.game}: every position with at most {self.depth} stones, {len(self):,} positions up to "
                f"mirror{moves}")


@dataclass(frozen=True)
class BuildReport:
    """What :func:`build` did: the book (None when it stopped first), the deepest positions searched of those
    to search, the nodes and seconds of this run, and why it stopped (None when the book is made)."""

    book: Book | None
    searched: int
    to_search: int
    nodes: int
    seconds: float
    stopped: str | None = None


def _save(
    path: str | Path, game: Game, depth: int, keys: np.ndarray, scores: np.ndarray, part: str,
    moves: np.ndarray | None = None,
) -> None:
    """Write a book (or a checkpoint) file whole or not at all: into a file beside it, then renamed."""
    if moves is None:
        moves = np.full(keys.shape, NO_MOVE, np.int8)
    layout = _Layout(game)
    target = Path(path)
    partial = target.with_name(target.name + ".tmp")
    try:
        with open(partial, "wb") as out:
            np.savez_compressed(
                out,
                version=np.array(WIDE_VERSION if layout.wide else FORMAT_VERSION, np.int64),
                game=np.array(str(game)),
                depth=np.array(depth, np.int64),
                part=np.array(part),
                keys=layout.to_words(keys),
                scores=np.ascontiguousarray(scores, np.int8),
                moves=np.ascontiguousarray(moves, np.int8),
                digest=np.array(digest_of(game, depth, keys, scores, moves)),
            )
        os.replace(partial, target)
    except OSError as error:
        raise BookError(f"cannot write the book file '{path}': {error.strerror or error}") from None


def digest_of(game: Game | str, depth: int, keys: np.ndarray, scores: np.ndarray, moves: np.ndarray) -> str:
    """The SHA-256 (hex) of a book's game, depth, keys, scores and moves, each part prefixed by its length."""
    digest = hashlib.sha256()
    words = _Layout(Game(game)).to_words(keys) if keys.dtype == object else np.ascontiguousarray(keys, "<u8")
    for part in (str(game).encode(), int(depth).to_bytes(2, "little"), words.tobytes(),
                 np.ascontiguousarray(scores, np.int8).tobytes(), np.ascontiguousarray(moves, np.int8).tobytes()):
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def save(book: Book, path: str | Path) -> None:
    """Write ``book`` to ``path`` (a ``.npz`` file; see the module docstring)."""
    _save(path, book.game, book.depth, book.keys, book.scores, "book", book.moves)


def _scalar(data: dict[str, np.ndarray], name: str, kind: str, where: str) -> object:
    value = data[name]
    if value.shape != () or value.dtype.kind != kind:
        raise BookError(f"{where} is not a usable book: its {name} is not a single "
                        f"{'number' if kind == 'i' else 'string'}")
    return value.item()


def _read(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays of a book file, each read only after its size is bounded."""
    where = f"'{path}'"
    try:
        size = os.path.getsize(path)
    except OSError as error:
        raise BookError(f"cannot read the book file {where}: {error.strerror or error}") from None
    if size > MAX_BOOK_BYTES:
        raise BookError(f"{where} is not a usable book: it has {size:,} bytes, more than the {MAX_BOOK_BYTES:,} "
                        "a book may have")
    try:
        with zipfile.ZipFile(path) as archive:
            infos = {info.filename: info for info in archive.infolist()}
            members = (_MEMBERS_DIGEST if "digest.npy" in infos else _MEMBERS if "moves.npy" in infos
                       else _MEMBERS_V1)
            if set(infos) != members:
                missing = sorted(name[:-4] for name in members - set(infos))
                extra = sorted(set(infos) - members)
                said = f"lacks {', '.join(missing)}" if missing else f"has members a book has not ({shown(extra[0])})"
                raise BookError(f"{where} is not a usable book: it {said}")
            bound = {"keys.npy": 16 * MAX_ENTRIES, "scores.npy": MAX_ENTRIES, "moves.npy": MAX_ENTRIES}
            for name, info in infos.items():
                if info.file_size > bound.get(name, 256) + 1024:
                    raise BookError(f"{where} is not a usable book: its {name[:-4]} is larger than a book's may be")
            data: dict[str, np.ndarray] = {}
            for name in sorted(members):
                with archive.open(name) as member:  # the header's shape must fit in the member's bytes
                    version = np.lib.format.read_magic(member)
                    if version == (1, 0):
                        shape, _, dtype = np.lib.format.read_array_header_1_0(member)
                    else:
                        shape, _, dtype = np.lib.format.read_array_header_2_0(member)
                    if int(np.prod(shape, dtype=np.float64)) * dtype.itemsize > infos[name].file_size:
                        raise BookError(f"{where} is not a usable book: its {name[:-4]} array is shorter than its "
                                        "header says")
                with archive.open(name) as member:
                    data[name[:-4]] = np.lib.format.read_array(member, allow_pickle=False)
            return data
    except BookError:
        raise
    except (OSError, EOFError, ValueError, zipfile.BadZipFile, KeyError, RuntimeError) as error:
        text = " ".join(str(error).split())[:120] or type(error).__name__
        raise BookError(f"{where} is not a usable book: it cannot be read as one ({text})") from None


def _check(
    data: dict[str, np.ndarray], where: str, game: Game | None, part: str, *, entries: bool = True
) -> tuple[Game, int, np.ndarray, np.ndarray, np.ndarray]:
    """The game, depth, keys, scores and moves of a file's arrays once every check passed (see the module
    docstring). ``entries=False`` checks the fields only (types, shapes, the game, the depth, the keys sorted),
    not each entry nor the file's own digest: for a shipped book, held to the digest the package records for it
    instead (the arrays the package's tests check in full)."""
    version = _scalar(data, "version", "i", where)
    if version not in READ_VERSIONS:
        raise BookError(f"{where} is a book of format version {version}; this kinarow reads versions "
                        f"{', '.join(map(str, READ_VERSIONS))}")
    if ("moves" in data) != (version >= 2):
        raise BookError(f"{where} is not a usable book: a book of format version {version} "
                        f"{'has' if version >= 2 else 'has no'} moves")
    text = str(_scalar(data, "game", "U", where))
    try:
        found = Game(text)
    except KinarowError as error:
        raise BookError(f"{where} is not a usable book: its game {shown(text)} is not a game ({error})") from None
    if game is not None and found != game:
        raise BookError(f"{where} is a book of {found}, not of {game}")
    layout = _Layout(found)
    if (version == WIDE_VERSION) != layout.wide:
        raise BookError(f"{where} is not a usable book: a book of format version {version} is of a board "
                        f"{'past' if version == WIDE_VERSION else 'within'} {connect.ONE_WORD_BITS} bits of layout, "
                        f"and {found} has {layout.bits}")
    kind = str(_scalar(data, "part", "U", where))
    if kind != part:
        said = "a build's checkpoint" if kind == "checkpoint" else f"a {shown(kind)}"
        raise BookError(f"{where} is {said}, not {'a book' if part == 'book' else 'a checkpoint'}")
    depth = _scalar(data, "depth", "i", where)
    assert isinstance(depth, int)
    if not 0 <= depth < layout.cells:
        raise BookError(f"{where} is not a usable book: its depth {depth} is not 0 to {layout.cells - 1}")
    keys, scores = data["keys"], data["scores"]
    if layout.wide and (keys.ndim != 2 or keys.shape[1] != 2 or keys.dtype != np.dtype("<u8")):
        raise BookError(f"{where} is not a usable book: the keys of a board of {layout.bits} bits of layout are not "
                        "pairs of 64-bit unsigned whole numbers")
    if not layout.wide and (keys.ndim != 1 or keys.dtype != np.dtype("<u8")):
        raise BookError(f"{where} is not a usable book: its keys are not a list of 64-bit unsigned whole numbers")
    words, keys = keys, layout.from_words(keys)  # the digest reads the file's words, not the keys again
    if scores.ndim != 1 or scores.dtype != np.dtype(np.int8):
        raise BookError(f"{where} is not a usable book: its scores are not a list of 8-bit whole numbers")
    if keys.size != scores.size:
        raise BookError(f"{where} is not a usable book: it has {keys.size:,} keys but {scores.size:,} scores")
    moves = data.get("moves", np.full(keys.shape, NO_MOVE, np.int8))
    if moves.ndim != 1 or moves.dtype != np.dtype(np.int8):
        raise BookError(f"{where} is not a usable book: its moves are not a list of 8-bit whole numbers")
    if moves.size != keys.size:
        raise BookError(f"{where} is not a usable book: it has {keys.size:,} keys but {moves.size:,} moves")
    if keys.size > MAX_ENTRIES:
        raise BookError(f"{where} is not a usable book: it has {keys.size:,} entries, more than {MAX_ENTRIES:,}")
    if part == "book" and keys.size == 0:
        raise BookError(f"{where} is not a usable book: it holds no position")
    if keys.size > 1 and not np.all(keys[1:] > keys[:-1]):
        raise BookError(f"{where} is not a usable book: its keys are not sorted without repeats")
    if not entries:
        return found, depth, keys, scores, moves

    def refuse(bad: np.ndarray, what: str) -> None:
        if np.any(bad):
            i = int(np.argmax(bad))
            raise BookError(f"{where} is not a usable book: entry {i:,} (key {int(keys[i])}) {what}")

    cur, mask, stones, ok = layout.decode_all(keys)
    refuse(~ok, f"is not a position of {found}")
    refuse(stones > depth if part == "book" else stones != depth,
           f"does not have {'at most ' if part == 'book' else ''}{depth} stones")
    refuse(layout.mirror_all(keys) < keys, "is not the smaller of its key and its mirror image's")
    refuse(layout.popcount_all(cur) != stones // 2, "does not give the side to move its share of the stones")
    refuse(layout.has_line_all(cur) | layout.has_line_all(cur ^ mask), "holds a finished game")
    s = scores.astype(np.int64)
    left = layout.cells - stones
    parity = np.where(s > 0, (left - s) % 2 != 0, np.where(s < 0, (left + s) % 2 != 1, False))
    refuse((np.abs(s) > left) | parity, "has a score its position cannot have")
    kept = moves != NO_MOVE
    refuse((moves < NO_MOVE) | (moves >= layout.m), f"has a move that is not a column 0 to {layout.m - 1} (or -1)")
    refuse(kept & (stones < depth), "keeps a move, which only the deepest positions keep")
    refuse(kept & (s < 0), "keeps a move for a lost position")
    column = np.maximum(moves, 0).astype(np.int64) * layout.h + layout.n - 1
    full = (mask >> column.astype(keys.dtype)) & layout.word(1)
    refuse(kept & (full != 0), "keeps a move into a full column")
    if part == "book":
        _check_children(layout, keys, s, cur, mask, stones, depth, refuse)
    if "digest" in data:  # last: what the checks above find is said in their words
        kept = str(_scalar(data, "digest", "U", where))
        if kept != digest_of(found, depth, words, scores, moves):
            raise BookError(f"{where} is not a usable book: its arrays do not match the digest it was written with "
                            "(an entry was damaged or edited)")
    return found, depth, keys, scores, moves


def _check_children(
    layout: _Layout,
    keys: np.ndarray,
    scores: np.ndarray,
    cur: np.ndarray,
    mask: np.ndarray,
    stones: np.ndarray,
    depth: int,
    refuse: Callable[[np.ndarray, str], None],
) -> None:
    """Every entry shallower than ``depth`` holds each child that is still in play, and its score is the best
    of its moves' (a move that completes a line wins at once, one that fills the board draws)."""
    inner = np.nonzero(stones < depth)[0]
    cur, mask, t = cur[inner], mask[inner], stones[inner]
    best = np.full(inner.size, -(layout.cells + 1), np.int64)
    w = layout.word
    bottom, board = w(layout.bottom), w(layout.board)
    for x in range(layout.m):
        move = (mask + bottom) & w(layout.colmask[x]) & board
        legal = move != 0
        wins = legal & layout.has_line_all(cur | move)
        draws = legal & ~wins & (t + 1 >= layout.cells)
        on = legal & ~wins & ~draws
        nmask = mask | move
        child = (cur ^ mask) | (nmask + bottom)
        child = np.minimum(child, layout.mirror_all(child))
        at = np.minimum(np.searchsorted(keys, child), keys.size - 1)
        held = keys[at] == child
        missing = np.zeros(keys.shape, bool)
        missing[inner] = on & ~held
        refuse(missing, "lacks a child position the book should hold")
        value = np.where(wins, layout.cells - t, np.where(draws, 0, -scores[at]))
        best = np.where(legal, np.maximum(best, value), best)
    wrong = np.zeros(keys.shape, bool)
    wrong[inner] = best != scores[inner]
    refuse(wrong, "has a score that is not the best of its moves' scores")


def file_version(path: str | Path) -> int:
    """The format version of the book file ``path`` (read as :func:`load` reads it)."""
    version = _scalar(_read(path), "version", "i", f"'{path}'")
    assert isinstance(version, int)
    return version


def load(path: str | Path, game: Game | str | None = None) -> Book:
    """The book in the file ``path`` (of ``game`` when one is given), every check passed (see the module
    docstring); a :class:`BookError` of one sentence otherwise."""
    expected = Game(game) if game is not None else None
    data = _read(path)
    found, depth, keys, scores, moves = _check(data, f"'{path}'", expected, "book")
    return Book(found, depth, keys, scores, moves, int(data["version"]))


# -- the shipped books ---------------------------------------------------------------------------------
def file_name(game: Game) -> str:
    """The name of ``game``'s shipped book file, e.g. ``7x6k4-gravity.book.npz``."""
    return str(game).replace(":", "-").replace(",", "-") + ".book.npz"


def shipped_path(game: Game | str) -> Path | None:
    """The book file shipped in the package for ``game``, or None when there is none."""
    path = Path(__file__).resolve().parent.parent / "data" / file_name(Game(game))
    return path if path.is_file() else None


def wanted(book: bool | None = None) -> bool:
    """Whether to use the shipped books: ``book`` when given, else ``$KINAROW_BOOK`` (``on`` or ``off``; on when
    unset)."""
    if book is not None:
        return bool(book)
    text = os.environ.get(ENV_VAR, "").strip().lower()
    if text in _OFF:
        return False
    if text in _ON:
        return True
    raise KinarowError(f"${ENV_VAR} must be on or off, not {shown(os.environ.get(ENV_VAR, ''))}")


_shipped: dict[Game, Book | None] = {}
_shipped_lock = threading.Lock()


def shipped_book(game: Game | str) -> Book | None:
    """The book shipped for ``game`` (loaded and checked once a process), or None when none is shipped."""
    game = Game(game)
    with _shipped_lock:
        if game not in _shipped:
            path = shipped_path(game)
            try:
                _shipped[game] = None if path is None else _shipped_load(path, game)
            except BookError as error:
                _shipped[game] = None  # searched without it, said once a process
                refused[game] = (f"the opening book shipped for {game} is refused and left out, so the search "
                                 f"answers without it ({error})")
                print(f"kinarow: note: {refused[game]}", file=sys.stderr)
        return _shipped[game]


#: the shipped books refused in this process, by game: why (each said once on stderr when it was refused)
refused: dict[Game, str] = {}


def _shipped_load(path: Path, game: Game) -> Book:
    """A shipped book, loaded and held to the digest the package records for it: its fields are checked as
    :func:`load` checks them, its entries by that digest alone (they are the entries the package's tests check
    in full, which takes :func:`load` about 0.4 s more)."""
    data = _read(path)
    found, depth, keys, scores, moves = _check(data, f"'{path}'", game, "book", entries=False)
    expected = SHIPPED_DIGESTS.get(str(game))
    if expected is None or digest_of(found, depth, keys, scores, moves) != expected:
        raise BookError(f"'{path}' is not the book shipped with this kinarow: its arrays do not match the digest the "
                        "package records for it (an entry was damaged or edited)")
    return Book(found, depth, keys, scores, moves, int(data["version"]))


class ShippedBook:
    """The book shipped for a game as a searcher holds it before it needs it: the file is read (and checked,
    :func:`shipped_book`) at the first position asked of it that is no deeper than :attr:`depth` (or one stone
    deeper, where a search asks what the book says of its parents), not before, so a process that asks only
    deeper positions never reads it. A shipped book that is refused answers nothing (the search answers)."""

    def __init__(self, game: Game, depth: int) -> None:
        self.game = game
        #: the depth the package records for the shipped book (:data:`SHIPPED_DEPTHS`)
        self.depth = depth

    @property
    def loaded(self) -> Book | None:
        """The book, read now if it was not yet (None when it is refused)."""
        return shipped_book(self.game)

    def lookup(self, position: Position) -> int | None:
        """:meth:`Book.lookup`; reads the book only for a position no deeper than it."""
        if isinstance(position, Position) and position.game == self.game and position.stones > self.depth:
            return None
        book = self.loaded
        return None if book is None else book.lookup(position)

    def lookup_words(self, cur: int, mask: int) -> int | None:
        """:meth:`Book.lookup_words`."""
        book = self.loaded
        return None if book is None else book.lookup_words(cur, mask)

    def move_words(self, cur: int, mask: int) -> int | None:
        """:meth:`Book.move_words`."""
        book = self.loaded
        return None if book is None else book.move_words(cur, mask)

    def from_parents(self, cur: int, mask: int) -> tuple[int | None, int | None]:
        """:meth:`Book.from_parents`."""
        book = self.loaded
        return (None, None) if book is None else book.from_parents(cur, mask)


def shipped_opening(game: Game | str) -> Book | ShippedBook | None:
    """The book shipped for ``game`` as a searcher takes it: the book itself once a process has read it, else a
    :class:`ShippedBook` that reads it at its first use (where the package records its depth), or None when
    none is shipped."""
    game = Game(game)
    with _shipped_lock:
        if game in _shipped:
            return _shipped[game]
    depth = SHIPPED_DEPTHS.get(str(game))
    if depth is None:
        return shipped_book(game)
    return ShippedBook(game, depth) if shipped_path(game) is not None else None


# -- building ------------------------------------------------------------------------------------------
def _levels(layout: _Layout, depth: int) -> list[dict[int, tuple[int, int]]]:
    """For each stone count up to ``depth``: the positions in play (canonical key -> (cur, mask) in the
    canonical frame), children in the order of their parents and then of the columns."""
    levels: list[dict[int, tuple[int, int]]] = [{layout.canonical(0, 0): (0, 0)}]
    total = 1
    for _ in range(depth):
        nxt: dict[int, tuple[int, int]] = {}
        for cur, mask in levels[-1].values():
            for col in layout.colmask:
                move = (mask + layout.bottom) & col
                if not move or layout.has_line(cur | move):
                    continue
                ncur, nmask = cur ^ mask, mask | move
                key = ncur | (nmask + layout.bottom)
                mkey = layout.mirror(key)
                if mkey < key:
                    nxt.setdefault(mkey, (layout.mirror(ncur), layout.mirror(nmask)))
                else:
                    nxt.setdefault(key, (ncur, nmask))
        total += len(nxt)
        if total > MAX_ENTRIES:
            raise BookError(f"a book of {layout.game} to depth {depth} would hold more than {MAX_ENTRIES:,} "
                            "positions; choose a smaller depth")
        levels.append(nxt)
    return levels


def _back_up(layout: _Layout, level: dict[int, tuple[int, int]], t: int, below: dict[int, int]) -> dict[int, int]:
    """The scores of the positions of ``level`` (``t`` stones) from those of their children (``below``)."""
    out: dict[int, int] = {}
    for key, (cur, mask) in level.items():
        best = -(layout.cells + 1)
        for col in layout.colmask:
            move = (mask + layout.bottom) & col
            if not move:
                continue
            if layout.has_line(cur | move):
                best = layout.cells - t
                break
            value = 0 if t + 1 == layout.cells else -below[layout.canonical(cur ^ mask, mask | move)]
            best = max(best, value)
        out[key] = best
    return out


def _resume(checkpoint: str | Path | None, game: Game, depth: int) -> dict[int, tuple[int, int]]:
    """The deepest positions' scores and moves a checkpoint holds (none when there is no checkpoint file yet)."""
    if checkpoint is None or not Path(checkpoint).exists():
        return {}
    where = f"the checkpoint '{checkpoint}'"
    _, found_depth, keys, scores, moves = _check(_read(checkpoint), where, game, "checkpoint")
    if found_depth != depth:
        raise BookError(f"{where} is of a build to depth {found_depth}, not {depth}; give another --checkpoint "
                        "file or the same depth")
    return dict(zip(keys.tolist(), zip(scores.tolist(), moves.tolist(), strict=True), strict=True))


def _needs_move(entry: tuple[int, int] | None) -> bool:
    """Whether a deepest position with this (score, move) still lacks the move it should keep."""
    return entry is not None and entry[0] >= 0 and entry[1] == NO_MOVE


def _value_move(
    searcher: connect.ScoreSearcher, cur: int, mask: int, t: int, score: int, threads: int
) -> tuple[int | None, int]:
    """(the column to keep for a deepest position of exact score ``score``, nodes searched): a column whose move
    keeps its value, from the root's cutoff of the search just made or else by one test ("at least this value?",
    whose cutoff at the root names it); :data:`NO_MOVE` for a lost position; None when the test was stopped."""
    if score < 0:
        return NO_MOVE, 0
    sign = int(score > 0)
    column = searcher.root_column(cur, mask, sign)
    if column is not None:
        return column, 0
    nodes = 0
    for fresh in (False, True):
        if fresh:  # the table's entry for the position answered the test at its root, naming no move
            searcher.forget()
        found = searcher.score_words(cur, mask, t, weak=True, known=sign, on_tick=lambda _: None, threads=threads)
        nodes += int(searcher.ctrl[connect.GK.G_NODES])
        if found is None:
            return None, nodes
        column = searcher.root_column(cur, mask, sign)
        if column is not None:
            return column, nodes
    raise BookError("internal error: the test of a book position's value named no move")


def _search_leaves(
    searcher: connect.ScoreSearcher,
    leaves: dict[int, tuple[int, int]],
    done: dict[int, tuple[int, int]],
    depth: int,
    threads: int,
    on_progress: Callable[[int, int], None] | None,
    keep: Callable[[], None],
    checkpoint_seconds: float,
) -> tuple[int, str | None]:
    """Give every deepest position (``leaves``, in their order) its score and move in ``done``, searching what is
    missing; ``keep()`` every ``checkpoint_seconds``. Returns (nodes, why it stopped or None)."""
    nodes, saved_at = 0, time.perf_counter()

    def finished() -> int:
        return sum(1 for key in leaves if key in done and not _needs_move(done[key]))

    count = finished()
    try:
        if on_progress is not None:
            on_progress(count, len(leaves))
        for key, (cur, mask) in leaves.items():
            entry = done.get(key)
            if entry is not None and not _needs_move(entry):
                continue
            if entry is None:
                found = searcher.score_words(cur, mask, depth, on_tick=lambda _: None, threads=threads)
                nodes += int(searcher.ctrl[connect.GK.G_NODES])
                if found is None:
                    return nodes, searcher.stopped or "interrupted"
                entry = done[key] = (found.score, NO_MOVE)
            move, spent = _value_move(searcher, cur, mask, depth, entry[0], threads)
            nodes += spent
            if move is None:
                return nodes, searcher.stopped or "interrupted"
            done[key] = (entry[0], move)
            count += 1
            if on_progress is not None:
                on_progress(count, len(leaves))
            if time.perf_counter() - saved_at >= checkpoint_seconds:
                keep()
                saved_at = time.perf_counter()
    except KeyboardInterrupt:
        return nodes, "interrupted"
    return nodes, None


def build(
    game: Game | str,
    depth: int,
    path: str | Path,
    *,
    checkpoint: str | Path | None = None,
    tt_mb: float = 256,
    on_progress: Callable[[int, int], None] | None = None,
    checkpoint_seconds: float = CHECKPOINT_SECONDS,
    threads: int = 1,
) -> BuildReport:
    """Make the book of ``game`` to ``depth`` stones and write it to ``path`` (see the module docstring).

    The deepest positions' scores and moves found so far are written to ``checkpoint`` (when given) every
    ``checkpoint_seconds`` and when the build stops; a build given a checkpoint file that exists resumes from
    it (the file is removed once the book is written). Ctrl-C stops the build at once, keeping what is done:
    the report then has no book and says ``interrupted``. ``on_progress(done, total)`` hears the deepest
    positions finished. ``threads`` searches of each position run at once, sharing the table (see
    :meth:`kinarow.search.connect.ScoreSearcher.score`).
    """
    game = Game(game)
    layout = _Layout(game)
    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth < game.cells:
        raise BookError(f"a book's depth is a whole number of stones from 0 to {game.cells - 1}, not {depth!r}")
    start = time.perf_counter()
    done = _resume(checkpoint, game, depth)
    levels = _levels(layout, depth)
    leaves = levels[depth]
    if set(done) - set(leaves):
        raise BookError(f"the checkpoint '{checkpoint}' holds positions a build of {game} to depth {depth} does "
                        "not search; give another --checkpoint file")
    searcher = connect.ScoreSearcher(game, tt_mb=tt_mb)
    last_saved: dict[int, tuple[int, int]] = dict(done)

    def keep() -> None:
        nonlocal last_saved
        if checkpoint is not None and done != last_saved:
            keys = layout.key_array(sorted(done))
            _save(checkpoint, game, depth, keys, np.array([done[int(k)][0] for k in keys], np.int8), "checkpoint",
                  np.array([done[int(k)][1] for k in keys], np.int8))
            last_saved = dict(done)

    nodes, stopped = _search_leaves(searcher, leaves, done, depth, threads, on_progress, keep, checkpoint_seconds)
    searched = sum(1 for key in leaves if key in done and not _needs_move(done[key]))
    if stopped is not None:
        keep()
        return BuildReport(None, searched, len(leaves), nodes, time.perf_counter() - start, stopped)
    scores: dict[int, int] = {key: score for key, (score, _) in done.items()}
    below = scores.copy()
    for t in range(depth - 1, -1, -1):
        below = _back_up(layout, levels[t], t, below)
        scores.update(below)
    keys = layout.key_array(sorted(scores))
    moves = np.array([done[int(k)][1] if int(k) in done else NO_MOVE for k in keys], np.int8)
    book = Book(game, depth, keys, np.array([scores[int(k)] for k in keys], np.int8), moves)
    save(book, path)
    if checkpoint is not None:
        Path(checkpoint).unlink(missing_ok=True)
    return BuildReport(book, len(done), len(leaves), nodes, time.perf_counter() - start)


@dataclass(frozen=True)
class MovesReport:
    """What :func:`add_moves` did: the book (with every move when ``stopped`` is None), the deepest positions
    that have their move (or need none: lost ones) of all, the nodes and seconds of this run, and why it
    stopped."""

    book: Book
    finished: int
    total: int
    nodes: int
    seconds: float
    stopped: str | None = None


def add_moves(
    path: str | Path,
    *,
    tt_mb: float = 256,
    on_progress: Callable[[int, int], None] | None = None,
    checkpoint_seconds: float = CHECKPOINT_SECONDS,
    threads: int = 1,
    book: Book | None = None,
) -> MovesReport:
    """Give each deepest position of the book in ``path`` that is not lost the move that keeps its value, by one
    test each (see the module docstring), and write the book back to ``path``: every ``checkpoint_seconds``
    while it runs and when it ends or stops (Ctrl-C), so the file itself is the checkpoint and the same call
    resumes. Positions are taken in the order a build takes them (siblings share most of their searches).
    ``book``: the book in ``path`` when the caller has loaded it already."""
    start = time.perf_counter()
    book = load(path) if book is None else book
    layout = _Layout(book.game)
    leaves = _levels(layout, book.depth)[book.depth]
    kept = book.moves
    assert kept is not None
    deep = np.nonzero(book.stones() == book.depth)[0]
    done = {int(book.keys[i]): (int(book.scores[i]), int(kept[i])) for i in deep}
    searcher = connect.ScoreSearcher(book.game, tt_mb=tt_mb)
    last_saved = dict(done)

    def current() -> Book:
        moves = kept.copy()
        at = np.searchsorted(book.keys, layout.key_array(done))
        moves[at] = np.array([move for _, move in done.values()], np.int8)
        return Book(book.game, book.depth, book.keys, book.scores, moves)

    def keep() -> None:
        nonlocal last_saved
        if done != last_saved:
            save(current(), path)
            last_saved = dict(done)

    nodes, stopped = _search_leaves(searcher, leaves, done, book.depth, threads, on_progress, keep,
                                    checkpoint_seconds)
    keep()
    finished = sum(1 for entry in done.values() if not _needs_move(entry))
    return MovesReport(current(), finished, len(leaves), nodes, time.perf_counter() - start, stopped)


# -- the score searcher of solve(), analyse(), kinarow play and the web page, with the shipped book ------------
_cache: dict[tuple[Game, float, bool], connect.ScoreSearcher] = {}
_cache_lock = threading.Lock()


def searcher_for(
    game: Game, tt_mb: float, *, book: bool | None = None
) -> tuple[connect.ScoreSearcher, threading.Lock | None]:
    """The score searcher of ``game`` kept from the last call (its table carries what earlier questions found)
    with a lock the caller holds while it searches, or a fresh one (and None) when the kept one is busy.

    The searcher answers from the opening book shipped for ``game`` when there is one
    (:func:`shipped_book`) unless ``book`` is False, or ``book`` is None and
    ``$KINAROW_BOOK`` is ``off``."""
    opening = shipped_opening(game) if wanted(book) else None
    with _cache_lock:
        found = _cache.get((game, tt_mb, opening is not None))
        if found is None:
            _cache.clear()  # one table at a time: tables are large
            found = connect.ScoreSearcher(game, tt_mb=tt_mb, book=opening)
            _cache[(game, tt_mb, opening is not None)] = found
            _locks[id(found)] = threading.Lock()
        lock = _locks[id(found)]
    if lock.acquire(blocking=False):
        return found, lock
    return connect.ScoreSearcher(game, tt_mb=tt_mb, book=opening), None


_locks: dict[int, threading.Lock] = {}
