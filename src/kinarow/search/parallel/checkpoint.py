"""The checkpoint of a parallel solve: finished jobs (and extracted strategies) in an SQLite file.

A stopped solve resumes from it: the frontier reads the stored bounds of its
positions (:mod:`kinarow.search.parallel.frontier`), and a strategy run reads
the leaves' walks it kept. ``kinarow solve --checkpoint FILE --status`` lists it.

A checkpoint is not trusted. A row is a job's answer, reused so that the job is
not run again; before any row of a game is read, every row of that game is
checked against what else the file says and what the rules say at once
(:meth:`JobStore.check`): a value agrees with its bounds, a move line plays to
its position (in some frame) without ending the game, a position where the
player to move wins with one stone is not said to be lost, and a kept strategy
is the strategy of a player the row of its position lets win. A kept walk is
checked by the strategy checker before a value rests on it
(:meth:`JobStore.walk_checks`); a value resting on stored answers that carry
no such walk is reported as the checkpoint's (``ParallelResult.unchecked``).
Any failure is one sentence naming the file and the row.
"""

from __future__ import annotations

import fcntl
import gzip
import io
import json
import os
import pathlib
import sqlite3
import zlib

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position, value_names
from kinarow.proofs.tree import StrategyTree, check, winning_stone
from kinarow.values import Bound, Goal, Value, read

#: the most bytes a stored strategy unpacks to (a walk is a byte a move; the 9x4k4 strategy has 7 million moves)
MAX_WALK_BYTES = 2**28

__all__ = ["SYMBOLS", "JobStore", "canonical_board", "pack_shared", "prescribed_moves", "unpack_shared"]

#: a board's cells in a stored position (its canonical board): empty, first player's stone, second player's
SYMBOLS = ".xo"


def canonical_board(board: list[int], syms: tuple[tuple[int, ...], ...]) -> tuple[str, tuple[int, ...]]:
    """The smallest image of ``board`` under ``syms`` (a stored position, a frontier node's key) and the symmetry
    that gives it (``sym[c]``: the cell that ``c`` goes to)."""
    best_key: str | None = None
    best_sym = syms[0]
    size = len(board)
    for s in syms:
        image = [0] * size
        for c, v in enumerate(board):
            image[s[c]] = v
        key = "".join(SYMBOLS[v] for v in image)
        if best_key is None or key < best_key:
            best_key, best_sym = key, s
    assert best_key is not None
    return best_key, best_sym

#: the first byte of a stored part that is a walk with shared replies: never a cell of a version 3 walk (cells are
#: below 128); the 4 bytes after it are the number of the winner's moves (little-endian), then the walk
SHARED_MARK = 0xFF


def pack_shared(walk: bytes, moves: int) -> bytes:
    """A walk with shared replies (version 4) as a job hands it on and a checkpoint keeps it."""
    return bytes([SHARED_MARK]) + moves.to_bytes(4, "little") + walk


def unpack_shared(blob: bytes) -> tuple[bytes, int] | None:
    """``(walk, moves)`` of a part packed by :func:`pack_shared`, or None for a version 3 walk."""
    if not blob or blob[0] != SHARED_MARK:
        return None
    if len(blob) < 5:
        raise KinarowError("internal error: a part of a walk with shared replies is cut short")
    return blob[5:], int.from_bytes(blob[1:5], "little")


def prescribed_moves(blob: bytes) -> int:
    """The winner's moves in a stored part (either form)."""
    shared = unpack_shared(blob)
    return len(blob) if shared is None else shared[1]


class JobStore:
    """Finished jobs in an SQLite file: one row per (game, position), so a stopped solve can resume.

    ``position`` is the board in its canonical frame (the smallest image under
    the board's symmetries, cell by cell: ``.`` empty, ``x`` Black, ``o``
    White); ``moves`` is a line of play that reaches it. ``lo``/``hi`` bound
    the value from the first player's view (+1 first player wins, 0 draw,
    -1 second player wins); ``value`` says the same in words: ``first``,
    ``second``, ``draw`` (``maker``/``breaker``), or ``first-or-draw`` /
    ``second-or-draw`` when a job answered one win test. Only proven
    facts are stored, never a stopped job.

    A second table, ``strategies``, keeps the winner's strategy that an
    extraction job found from a position (canonical frame; ``choices`` is its
    walk, the prescribed moves in the checker's replay order as in a version 3
    certificate, zlib-compressed), so that a stopped extraction of a large win
    also resumes. Rows written before walks were kept there hold the
    gzip-compressed JSON object of the moves by board; they are read too.

    A third, ``splits``, keeps the jobs that were split while they ran (a
    long job stopped by ``max_job_seconds``) and the cell whose child each
    asks first, so that a resumed solve splits them again at once.
    """

    SCHEMA = """
        CREATE TABLE IF NOT EXISTS finished_jobs (
            game     TEXT NOT NULL,
            position TEXT NOT NULL,
            moves    TEXT NOT NULL,
            value    TEXT NOT NULL,
            lo       INTEGER NOT NULL,
            hi       INTEGER NOT NULL,
            nodes    INTEGER NOT NULL,
            seconds  REAL NOT NULL,
            finished TEXT NOT NULL DEFAULT (datetime('now')),
            PRIMARY KEY (game, position)
        )
    """

    STRATEGY_SCHEMA = """
        CREATE TABLE IF NOT EXISTS strategies (
            game       TEXT NOT NULL,
            position   TEXT NOT NULL,
            winner     TEXT NOT NULL,
            moves      TEXT NOT NULL,
            prescribed INTEGER NOT NULL,
            choices    BLOB NOT NULL,
            seconds    REAL NOT NULL,
            finished   TEXT NOT NULL DEFAULT (datetime('now')),
            PRIMARY KEY (game, position, winner)
        )
    """

    RUNNING_SCHEMA = """
        CREATE TABLE IF NOT EXISTS running_jobs (
            game     TEXT NOT NULL,
            position TEXT NOT NULL,
            moves    TEXT NOT NULL,
            question TEXT NOT NULL,
            started  TEXT NOT NULL DEFAULT (datetime('now')),
            PRIMARY KEY (game, position)
        )
    """

    SPLIT_SCHEMA = """
        CREATE TABLE IF NOT EXISTS splits (
            game     TEXT NOT NULL,
            position TEXT NOT NULL,
            moves    TEXT NOT NULL,
            first    INTEGER NOT NULL,
            split    TEXT NOT NULL DEFAULT (datetime('now')),
            PRIMARY KEY (game, position)
        )
    """

    def __init__(self, path: str | os.PathLike[str], readonly: bool = False) -> None:
        """Open (and create) the checkpoint at ``path``; ``readonly``: open an existing one only to read it (as a
        guide, :mod:`kinarow.search.parallel.guide`), never writing to the file."""
        self.path = str(path)
        self._lock: int | None = None  # the open lock file while a run holds the checkpoint (lock_for_run)
        self._checked: set[str] = set()  # the games whose rows passed check()
        self._walk_verdicts: dict[tuple[str, str, str], bool] = {}  # kept walks the strategy checker accepted
        try:
            if readonly:
                if not os.path.isfile(self.path):
                    raise KinarowError(f"the checkpoint '{self.path}' does not exist or is not a file")
                self.db = sqlite3.connect(f"{pathlib.Path(self.path).resolve().as_uri()}?mode=ro", uri=True)
                tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                if not {"finished_jobs", "strategies", "splits"} <= tables:
                    raise KinarowError(f"'{self.path}' is not the checkpoint of a solve (it has no table of "
                                       "finished jobs, strategies and splits)")
                return
            self.db = sqlite3.connect(self.path)
            self.db.execute(self.SCHEMA)
            self.db.execute(self.STRATEGY_SCHEMA)
            self.db.execute(self.RUNNING_SCHEMA)
            self.db.execute(self.SPLIT_SCHEMA)
            self.db.commit()
        except sqlite3.DatabaseError as err:
            raise KinarowError(f"cannot use '{self.path}' as a checkpoint file: {err}") from None

    def _refuse(self, line: object, why: str) -> KinarowError:
        """The one sentence that refuses the file: its row (by the row's move line) and what is wrong with it."""
        text = f"'{line[:60]}'" if isinstance(line, str) and line else "of the start"
        return KinarowError(f"the checkpoint '{self.path}' has a damaged row: the row {text} {why}; delete the "
                            "file to start again")

    def check(self, game: str) -> None:
        """Check every row of ``game`` against the rest of the file and the rules (once a file): each finished
        job's value says what its bounds say, its move line plays to its position (in some frame of the board)
        without ending the game, and a position where the player to move wins with one stone is not said to be
        lost; each kept strategy's line plays to its position and its winner is one the row of that position lets
        win; each kept split's line plays to its position. A :class:`KinarowError` of one sentence naming the file
        and the row otherwise."""
        if game in self._checked:
            return
        try:
            parsed = Game(game)
        except KinarowError as err:
            raise KinarowError(f"the checkpoint '{self.path}' has a damaged row: its game {game[:40]!r} is not a "
                               f"game ({err}); delete the file to start again") from None
        first, second = value_names(parsed)
        words = bound_words(parsed)
        syms = parsed.geometry.symmetries

        def reach(line: object, position: object, what: str) -> Position:
            if not isinstance(line, str) or not isinstance(position, str):
                raise self._refuse(line, f"has a {what} that is not text")
            pos = parsed.start()
            try:
                pos.play_moves(line)
            except KinarowError:
                raise KinarowError(f"the checkpoint '{self.path}' has a damaged row: the move line '{line[:60]}' "
                                   "does not play; delete the file to start again") from None
            if pos.is_over:
                raise self._refuse(line, "is of a finished game, which no job is asked")
            if canonical_board(pos.board, syms)[0] != position:
                raise self._refuse(line, f"has a {what} that its move line does not reach")
            return pos

        bounds: dict[str, tuple[int, int, str]] = {}
        for position, line, value, lo, hi in self.db.execute(
                "SELECT position, moves, value, lo, hi FROM finished_jobs WHERE game = ?", (game,)):
            lo, hi = (self._whole(v, "a finished job's bound", -1, 1) for v in (lo, hi))
            if lo > hi:
                raise self._refuse(line, f"has the bounds {lo} > {hi}")
            said = words.get((lo, hi))
            if said is None or value != said:
                raise self._refuse(line, f"says {str(value)[:20]!r}, but its bounds {lo} to {hi} say "
                                         f"{said or 'nothing a job answers'}")
            pos = reach(line, position, "position")
            mover = 1 if pos.to_move == 1 else -1
            if winning_stone(pos, Value.win(parsed.goal, pos.to_move)) is not None and not lo <= mover <= hi:
                raise self._refuse(line, f"says {value}, but the player to move there wins with one stone")
            bounds[position] = (lo, hi, str(value))
        for position, line, winner in self.db.execute(
                "SELECT position, moves, winner FROM strategies WHERE game = ?", (game,)):
            if winner not in (first, second):
                raise self._refuse(line, f"keeps a strategy of {str(winner)[:20]!r}, not of a player of {parsed}")
            reach(line, position, "strategy's position")
            score = 1 if winner == first else -1
            row = bounds.get(position)
            if row is not None and not row[0] <= score <= row[1]:
                raise self._refuse(line, f"keeps the {winner} player's winning strategy, but its finished job says "
                                         f"{row[2]}")
        for position, line in self.db.execute("SELECT position, moves FROM splits WHERE game = ?", (game,)):
            reach(line, position, "split's position")
        self._checked.add(game)

    def walk_checks(self, game: str, position: str, winner: Value) -> bool:
        """Does the strategy checker accept the walk kept for ``winner`` from ``position`` (canonical frame)?
        False when none is kept; a kept walk it rejects refuses the file (one sentence naming the row)."""
        found = self._walk_verdicts.get((game, position, winner))
        if found is not None:
            return found
        blob = self.get_strategy(game, position, winner)
        if blob is None:
            return False
        row = self.db.execute("SELECT moves FROM strategies WHERE game = ? AND position = ? AND winner = ?",
                              (game, position, winner)).fetchone()
        line = str(row[0])
        shared = unpack_shared(blob)
        tree = StrategyTree(game, line.split(), winner, {}, walk=blob if shared is None else shared[0],
                            shared=None if shared is None else shared[1])
        try:
            verdict = check(tree, compiled=Game(game).cells <= 64)
        except (KinarowError, ValueError, IndexError) as err:
            raise self._refuse(line, f"keeps a strategy the checker cannot read ({' '.join(str(err).split())[:80]})"
                               ) from None
        if not verdict.ok:
            raise self._refuse(line, f"keeps a strategy its checker rejects ({verdict.reason[:80]})")
        self._walk_verdicts[(game, position, winner)] = True
        return True

    def games(self) -> list[str]:
        """The games the file holds finished jobs, strategies or splits of."""
        return sorted(str(row[0]) for row in self.db.execute(
            "SELECT game FROM finished_jobs UNION SELECT game FROM strategies UNION SELECT game FROM splits"))

    def get(self, game: str, position: str) -> tuple[int, int] | None:
        """The stored bounds ``(lo, hi)`` of a position, or None."""
        self.check(game)
        row = self.db.execute(
            "SELECT lo, hi FROM finished_jobs WHERE game = ? AND position = ?", (game, position)
        ).fetchone()
        if row is None:
            return None
        lo, hi = (self._whole(v, "a finished job's bound", -1, 1) for v in row)
        if lo > hi:
            raise KinarowError(f"the checkpoint '{self.path}' has a damaged row: its bounds {lo} > {hi}; "
                               "delete the file to start again")
        return lo, hi

    def _whole(self, value: object, what: str, least: int = 0, most: int = 2**63 - 1) -> int:
        """A number of a row as a whole number from ``least`` to ``most`` (SQLite keeps whatever was written)."""
        if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
            raise KinarowError(f"the checkpoint '{self.path}' has a damaged row: {what} is {str(value)[:40]!r}, not "
                               f"a whole number from {least} to {most}; delete the file to start again")
        return value

    def _seconds(self, value: object) -> float:
        """A row's seconds: a finite number, not below 0 (shown, never trusted further)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
            raise KinarowError(f"the checkpoint '{self.path}' has a damaged row: seconds is {str(value)[:40]!r}; "
                               "delete the file to start again")
        return float(value)

    def put(
        self, game: str, position: str, moves: str, bounds: tuple[int, int], value: Value | Bound, nodes: int,
        seconds: float
    ) -> None:
        """Store what a job found; bounds narrow what is stored already (a second answer adds to the first)."""
        old = self.get(game, position)
        lo, hi = bounds if old is None else (max(bounds[0], old[0]), min(bounds[1], old[1]))
        if (lo, hi) != tuple(bounds):  # narrowed by the stored answer: its words follow the bounds kept
            value = bound_words(Game(game)).get((lo, hi), value)
        self._write(
            "INSERT OR REPLACE INTO finished_jobs (game, position, moves, value, lo, hi, nodes, seconds) "
            "VALUES (?,?,?,?,?,?,?,?)",
            (game, position, moves, value, lo, hi, nodes, seconds),
        )

    def _write(self, sql: str, params: tuple[object, ...]) -> None:
        """Run one write and commit it; an SQLite error (a read-only or full disk, a file removed under the
        run) is one sentence."""
        try:
            self.db.execute(sql, params)
            self.db.commit()
        except sqlite3.Error as err:
            raise KinarowError(f"cannot write to the checkpoint '{self.path}': {err}") from None

    def jobs(self, game: str) -> list[tuple[str, Value | Bound, int, float, str]]:
        """The finished jobs of ``game``: (moves, value, nodes, seconds, finished), in the order they finished."""
        self.check(game)
        return [(str(m), _value(v), self._whole(n, "nodes"), self._seconds(s), str(f))
                for m, v, n, s, f in self.db.execute(
            "SELECT moves, value, nodes, seconds, finished FROM finished_jobs WHERE game = ? ORDER BY finished, moves",
            (game,))]

    def get_strategy(self, game: str, position: str, winner: Value) -> bytes | None:
        """The stored strategy of ``winner`` from a position (canonical frame) as a walk, or None."""
        self.check(game)
        row = self.db.execute("SELECT choices, moves FROM strategies WHERE game = ? AND position = ? AND winner = ?",
                              (game, position, winner)).fetchone()
        if row is None:
            return None
        line = str(row[1])
        damaged = (f"the checkpoint '{self.path}' has a damaged strategy row (of {line[:40] or 'the start'}); "
                   "delete the file to start again")
        if not isinstance(row[0], bytes):  # SQLite keeps whatever was written: a walk is a blob
            raise KinarowError(damaged)
        blob = row[0]
        too_large = f"{damaged}: it unpacks to more than {MAX_WALK_BYTES:,} bytes"
        try:
            if blob[:2] != b"\x1f\x8b":
                unpacked = zlib.decompressobj()
                walk = unpacked.decompress(blob, MAX_WALK_BYTES + 1)
                if len(walk) <= MAX_WALK_BYTES and unpacked.eof:
                    return walk
                if len(walk) <= MAX_WALK_BYTES:
                    raise zlib.error("the stream ends early")
                raise OverflowError
            with gzip.GzipFile(fileobj=io.BytesIO(blob)) as packed:
                text = packed.read(MAX_WALK_BYTES + 1)
            if len(text) > MAX_WALK_BYTES:
                raise OverflowError
            # an older row: the moves by board; written again as the walk its line's position replays
            choices = dict(json.loads(text))
        except OverflowError:
            raise KinarowError(too_large) from None
        except (zlib.error, OSError, EOFError, ValueError, TypeError, RecursionError):
            raise KinarowError(damaged) from None
        tree = StrategyTree(game, line.split(), winner, choices).compacted()
        assert tree.walk is not None
        return tree.walk

    def put_strategy(self, game: str, position: str, moves: str, winner: Value, walk: bytes, seconds: float) -> None:
        """Store the strategy (a walk, or one with shared replies packed by
        :func:`pack_shared`) a job found from a position (canonical frame)."""
        self._write(
            "INSERT OR REPLACE INTO strategies (game, position, winner, moves, prescribed, choices, seconds) "
            "VALUES (?,?,?,?,?,?,?)", (game, position, winner, moves, prescribed_moves(walk), zlib.compress(walk, 6),
                                       seconds))

    def strategies(self, game: str) -> list[tuple[str, Value, int, float, str]]:
        """The stored strategies of ``game``: (moves, winner, prescribed moves, seconds, finished)."""
        self.check(game)
        return [(str(m), read(Value, w, "a stored strategy's winner", KinarowError), self._whole(n, "prescribed"),
                 self._seconds(s), str(f))
                for m, w, n, s, f in self.db.execute(
            "SELECT moves, winner, prescribed, seconds, finished FROM strategies WHERE game = ? "
            "ORDER BY finished, moves", (game,))]

    def kept_walks(self, game: str, above: int = 0) -> list[tuple[str, str, Value, int]]:
        """The stored strategies of ``game`` with more than ``above`` prescribed moves, the largest first:
        (position, moves, winner, prescribed moves)."""
        self.check(game)
        return [(str(p), str(m), read(Value, w, "a stored strategy's winner", KinarowError),
                 self._whole(n, "prescribed"))
                for p, m, w, n in self.db.execute(
            "SELECT position, moves, winner, prescribed FROM strategies WHERE game = ? AND prescribed > ? "
            "ORDER BY prescribed DESC, moves", (game, above))]

    def mark_running(self, game: str, position: str, moves: str, question: str) -> None:
        """Note that a job on ``position`` has started (``--status`` shows it while the solve runs)."""
        self._write("INSERT OR REPLACE INTO running_jobs (game, position, moves, question) VALUES (?,?,?,?)",
                    (game, position, moves, question))

    def unmark_running(self, game: str, position: str) -> None:
        self._write("DELETE FROM running_jobs WHERE game = ? AND position = ?", (game, position))

    def clear_running(self, game: str) -> None:
        """Forget every running mark of ``game`` (a run starts or ends; a killed run leaves marks behind)."""
        self._write("DELETE FROM running_jobs WHERE game = ?", (game,))

    def running(self, game: str) -> list[tuple[str, str, str]]:
        """The jobs of ``game`` marked running: (moves, question, started), oldest first."""
        return [(str(m), str(q), str(s)) for m, q, s in self.db.execute(
            "SELECT moves, question, started FROM running_jobs WHERE game = ? ORDER BY started, moves", (game,))]

    def put_split(self, game: str, position: str, moves: str, first: int | None) -> None:
        """Note that the job on ``position`` was split (``first``: the cell, in the canonical frame, whose child it
        asks first, or None), so that a resumed solve splits it again at once instead of running it again."""
        self._write("INSERT OR REPLACE INTO splits (game, position, moves, first) VALUES (?,?,?,?)",
                    (game, position, moves, -1 if first is None else first))

    def splits(self, game: str, cells: int) -> dict[str, int | None]:
        """The kept splits of ``game`` (a board of ``cells`` cells): canonical board -> the cell asked first, or
        None."""
        self.check(game)
        kept: dict[str, int | None] = {}
        for position, first in self.db.execute("SELECT position, first FROM splits WHERE game = ?", (game,)):
            cell = self._whole(first, "a split's first cell", -1, cells - 1)
            if not isinstance(position, str) or len(position) != cells:
                raise KinarowError(f"the checkpoint '{self.path}' has a damaged row: a split's position is not a "
                                   f"board of {cells} cells; delete the file to start again")
            kept[position] = None if cell < 0 else cell
        return kept

    def lines(self, game: str) -> list[str]:
        """The move lines (from the empty board, in the frame they were written in) of the finished jobs and the
        kept splits of ``game``."""
        self.check(game)
        return [str(row[0]) for row in self.db.execute(
            "SELECT moves FROM finished_jobs WHERE game = ? UNION SELECT moves FROM splits WHERE game = ?",
            (game, game))]

    def positions(self, game: str) -> list[str]:
        """The canonical boards of every finished job of ``game``."""
        self.check(game)
        return [str(row[0]) for row in self.db.execute(
            "SELECT position FROM finished_jobs WHERE game = ?", (game,))]

    def count(self, game: str | None = None) -> int:
        if game is None:
            return int(self.db.execute("SELECT COUNT(*) FROM finished_jobs").fetchone()[0])
        return int(self.db.execute("SELECT COUNT(*) FROM finished_jobs WHERE game = ?", (game,)).fetchone()[0])

    def lock_for_run(self) -> None:
        """Hold the checkpoint for one run until :meth:`close`: an advisory lock (``flock``) on the file
        ``PATH.lock`` beside it, which holds the run's process id. A second run of the same file is refused in one
        sentence naming that process (it would repeat the first one's jobs and clear its running marks); reading
        the file (``--status``) takes no lock. The lock file stays (removing it could let two runs hold two
        files); the lock ends with the process, however it ends."""
        if self._lock is not None:
            return
        where = self.path + ".lock"
        try:
            handle = os.open(where, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            raise KinarowError(f"cannot lock the checkpoint '{self.path}' for this run: {err.strerror or err}"
                               ) from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(handle, 32, 0).decode("ascii", "replace").strip()
            os.close(handle)
            who = f"pid {holder}" if holder.isdigit() else "a process that is starting"
            raise KinarowError(f"the checkpoint '{self.path}' is in use by another run ({who}); wait for it to end, "
                               "or stop it, before running on the same file") from None
        except OSError as err:
            os.close(handle)
            raise KinarowError(f"cannot lock the checkpoint '{self.path}' for this run: {err.strerror or err}"
                               ) from None
        os.ftruncate(handle, 0)
        os.pwrite(handle, f"{os.getpid()}\n".encode(), 0)
        self._lock = handle

    def close(self) -> None:
        self.db.close()
        if self._lock is not None:
            os.close(self._lock)  # (closing the file ends the lock)
            self._lock = None


def bound_words(game: Game) -> dict[tuple[int, int], Value | Bound]:
    """The value in words of each pair of bounds a finished job can store for ``game`` (a Maker-Breaker game has no
    draw, so only its two wins)."""
    first, second = value_names(game)
    words: dict[tuple[int, int], Value | Bound] = {(1, 1): first, (-1, -1): second}
    if game.goal != Goal.MAKER_BREAKER:
        words.update({(0, 0): Value.DRAW, (0, 1): Bound.FIRST_OR_DRAW, (-1, 0): Bound.SECOND_OR_DRAW})
    return words


def _value(text: object) -> Value | Bound:
    """A finished job's value as the checkpoint holds it (a value, or a one-sided bound)."""
    if isinstance(text, str) and text.endswith("-or-draw"):
        return read(Bound, text, "a finished job's value", KinarowError)
    return read(Value, text, "a finished job's value", KinarowError)
