"""The results store: an SQLite file that keeps what kinarow has worked out.

Solved positions, certificates (strategy trees, pairings, verified
strategies, ...) and the finished rows of long multi-part jobs (such as
``kinarow pairing-table``) are written as soon as each is found, one committed
transaction each, so a repeated question is answered at once and a run that is
interrupted -- by Ctrl-C or even ``kill -9`` -- resumes without redoing
finished work.

The file lives in the user's cache directory by default
(``platformdirs.user_cache_dir("kinarow")/results.sqlite``); the environment
variable ``KINAROW_STORE`` names another file, and the command line's
``--store FILE`` / ``--no-store`` choose per command.

Positions are keyed by the game string and the board written cell by cell
(``.``, ``x``, ``o`` in cell order), so move orders that reach the same
position share one entry; the side to move follows from the stone count.

The file is not trusted: a row that is not a JSON object is ignored (and
said once on stderr, or to ``on_bad_row``), and what a row claims is checked
by the caller before it is served (:func:`kinarow.search.certify.stored_result`
checks a result's fields against the position and re-checks a stored
certificate with its checker).

>>> import tempfile, os
>>> with Store(os.path.join(tempfile.mkdtemp(), "r.sqlite")) as store:
...     store.put_result("3x3k3", ".........", {"value": "draw", "best_move": "a1"})
...     store.get_result("3x3k3", ".........")["value"]
'draw'
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kinarow.errors import KinarowError

ENV_VAR = "KINAROW_STORE"
FILE_NAME = "results.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    game TEXT NOT NULL, board TEXT NOT NULL, data TEXT NOT NULL, created REAL NOT NULL,
    PRIMARY KEY (game, board));
CREATE TABLE IF NOT EXISTS certificates (
    format TEXT NOT NULL, game TEXT NOT NULL, board TEXT NOT NULL, data TEXT NOT NULL, created REAL NOT NULL,
    PRIMARY KEY (format, game, board));
CREATE TABLE IF NOT EXISTS job_rows (
    job TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL, created REAL NOT NULL,
    PRIMARY KEY (job, key));
"""


class StoreError(KinarowError):
    """The results store file cannot be opened or written."""


def default_path() -> Path:
    """``$KINAROW_STORE`` if set, else ``results.sqlite`` in the user's cache directory."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("kinarow")) / FILE_NAME


# The most characters a stored row may hold (a strategy of the largest boards the solver takes is far smaller).
MAX_ROW_CHARS = 256 * 2**20


def say_on_stderr(note: str) -> None:
    """The default ``on_bad_row``: the note as one line on stderr."""
    print(f"kinarow: note: {note}", file=sys.stderr)


class Store:
    """An open results store (usable from several threads; each write is its own transaction).

    ``on_bad_row(note)`` hears, in one sentence, each row that was ignored because it cannot be used (not a JSON
    object, or a result whose fields do not fit its position); by default the note goes to stderr. The notes are
    also kept in :attr:`ignored`.
    """

    def __init__(self, path: str | os.PathLike[str], *,
                 on_bad_row: Callable[[str], None] | None = say_on_stderr) -> None:
        self.path = Path(path)
        self.on_bad_row = on_bad_row
        self.ignored: list[str] = []
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as error:
            raise StoreError(f"cannot use '{self.path}' as the results store: {error}") from None
        self._lock = threading.Lock()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- low level -------------------------------------------------------------------
    def _get(self, sql: str, params: tuple[Any, ...]) -> dict[str, Any] | None:
        with self._lock:
            try:
                row = self._db.execute(sql, params).fetchone()
            except sqlite3.Error as error:
                raise StoreError(f"cannot read the results store '{self.path}': {error}") from None
        if row is None:
            return None
        what = f"{params[0]} {params[1]}" if len(params) == 2 else f"{params[0]} of {params[1]} {params[2]}"
        data = self.parse_row(row[0], what)
        if data is None:
            return None
        created = row[1]
        data.setdefault("stored_at", created if isinstance(created, (int, float)) else 0.0)
        return data

    def parse_row(self, text: object, what: str) -> dict[str, Any] | None:
        """The JSON object a row holds, or None (with a note, see :meth:`bad_row`) when it holds something else."""
        if not isinstance(text, str) or len(text) > MAX_ROW_CHARS:
            self.bad_row(what, "it is not JSON text of a reasonable size")
            return None
        try:
            data = json.loads(text)
        except RecursionError:
            self.bad_row(what, "its JSON is nested too deeply")
            return None
        except ValueError:
            self.bad_row(what, "it is not valid JSON")
            return None
        if not isinstance(data, dict):
            self.bad_row(what, "it is not a JSON object")
            return None
        return data

    def bad_row(self, what: str, reason: str) -> None:
        """Say that the row of ``what`` was ignored because of ``reason`` (to ``on_bad_row``; kept in ``ignored``)."""
        note = f"ignored a bad row of the results store {self.path} ({what}): {reason}; it is worked out again"
        self.ignored.append(note)
        if self.on_bad_row is not None:
            self.on_bad_row(note)

    def _put(self, sql: str, params: tuple[Any, ...]) -> None:
        with self._lock:
            try:
                self._db.execute(sql, params)
            except sqlite3.Error as error:
                raise StoreError(f"cannot write the results store '{self.path}': {error}") from None

    # -- solved positions ------------------------------------------------------------
    def get_result(self, game: str, board: str) -> dict[str, Any] | None:
        """The stored result of a position (a dict with ``value``, ``best_move``, ...), or None."""
        return self._get("SELECT data, created FROM results WHERE game = ? AND board = ?", (game, board))

    def put_result(self, game: str, board: str, data: dict[str, Any]) -> None:
        self._put("INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?)", (game, board, json.dumps(data), time.time()))

    # -- certificates ----------------------------------------------------------------
    def get_certificate(self, fmt: str, game: str, board: str) -> dict[str, Any] | None:
        """A stored certificate of format ``fmt`` for a position (its JSON object), or None."""
        found = self._get(
            "SELECT data, created FROM certificates WHERE format = ? AND game = ? AND board = ?", (fmt, game, board)
        )
        if found is not None:
            found.pop("stored_at", None)
        return found

    def put_certificate(self, fmt: str, game: str, board: str, data: dict[str, Any]) -> None:
        self._put(
            "INSERT OR REPLACE INTO certificates VALUES (?, ?, ?, ?, ?)",
            (fmt, game, board, json.dumps(data, separators=(",", ":")), time.time()),
        )

    # -- rows of long jobs -----------------------------------------------------------
    def job_rows(self, job: str) -> dict[str, dict[str, Any]]:
        """Every finished row of ``job`` by its key."""
        with self._lock:
            try:
                rows = self._db.execute("SELECT key, data FROM job_rows WHERE job = ?", (job,)).fetchall()
            except sqlite3.Error as error:
                raise StoreError(f"cannot read the results store '{self.path}': {error}") from None
        found: dict[str, dict[str, Any]] = {}
        for key, text in rows:
            data = self.parse_row(text, f"row {key} of job {job}")
            if data is not None:
                found[str(key)] = data
        return found

    def put_job_row(self, job: str, key: str, data: dict[str, Any]) -> None:
        self._put("INSERT OR REPLACE INTO job_rows VALUES (?, ?, ?, ?)", (job, key, json.dumps(data), time.time()))

    def counts(self) -> dict[str, int]:
        """How many results, certificates and job rows the store holds."""
        with self._lock:
            try:
                return {
                    table: int(self._db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
                    for table in ("results", "certificates", "job_rows")
                }
            except sqlite3.Error as error:
                raise StoreError(f"cannot read the results store '{self.path}': {error}") from None


def open_store(path: str | os.PathLike[str] | None = None, *, enabled: bool = True) -> Store | None:
    """The store at ``path`` (default :func:`default_path`), or None when ``enabled`` is False."""
    if not enabled:
        return None
    return Store(default_path() if path is None else path)
