"""Fuzzed edits of a job checkpoint and of opening books: each is refused in one sentence naming the file, or
the value the file leads to is still the true one. Never a wrong value.

The checkpoint is a copy of the committed ``checkpoints/10x4k4-e2.sqlite`` (the first player wins after 1. e2:
``certificates/10x4k4.strategy.json.gz``, which the rules-only checker verifies); one cell of one row is edited,
and what a value run reads of the file is asked: the checks of its rows, the frontier over them and the check
of the kept walks it rests on. Bounded by example counts (each example reads the file once; a run that reaches
the walks replays about 160,000 moves, about 3 s).
"""

from __future__ import annotations

import itertools
import shutil
import sqlite3
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.search import book as books
from kinarow.search import parallel as par
from kinarow.search.parallel.coordinator import _check_walks
from kinarow.search.parallel.frontier import FIRST, start_position, stored_frontier

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "checkpoints" / "10x4k4-e2.sqlite"
SCRATCH = Path(tempfile.mkdtemp(prefix="fuzz-trust-"))
COUNT = itertools.count()

COLUMNS = {
    "finished_jobs": ("game", "position", "moves", "value", "lo", "hi", "nodes", "seconds", "finished"),
    "strategies": ("game", "position", "winner", "moves", "prescribed", "choices", "seconds"),
}
WORDS = ["first", "second", "draw", "first-or-draw", "second-or-draw", "maker", "breaker", "", "10x4k4", "e3 g2"]


def one_sentence(error: BaseException, path: Path) -> None:
    text = str(error)
    assert "\n" not in text and "Traceback" not in text and str(path) in text, text


def new_cell(data: st.DataObject, db: sqlite3.Connection, table: str, column: str) -> object:
    """A value for the edited cell: another row's, a word or number a row could hold, or random text or bytes."""
    others = [row[0] for row in db.execute(f"SELECT {column} FROM {table}")]
    return data.draw(st.one_of(
        st.sampled_from(others),
        st.sampled_from(WORDS),
        st.integers(-2, 2),
        st.integers(-(2**40), 2**40),
        st.text(max_size=45),
        st.binary(max_size=64),
    ), label=f"{table}.{column}")


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_an_edited_checkpoint_is_refused_or_still_gives_the_true_value(data: st.DataObject) -> None:
    path = SCRATCH / f"edited-{next(COUNT)}.sqlite"
    shutil.copyfile(COMMITTED, path)
    table = data.draw(st.sampled_from(sorted(COLUMNS)), label="table")
    column = data.draw(st.sampled_from(COLUMNS[table]), label="column")
    with sqlite3.connect(path) as db:
        rowids = [row[0] for row in db.execute(f"SELECT rowid FROM {table}")]
        rowid = data.draw(st.sampled_from(rowids), label="row")
        value = new_cell(data, db, table, column)
        try:
            db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (value, rowid))
        except sqlite3.IntegrityError:
            return  # the edit makes two rows of one position (or a NULL): SQLite refuses it itself
    store = par.JobStore(path)
    try:
        frontier = stored_frontier(start_position("10x4k4", "e2"), store)
        _check_walks(frontier, store)
        root = frontier.nodes[frontier.root]
    except KinarowError as error:
        one_sentence(error, path)
        return
    finally:
        store.close()
    assert root.lo <= FIRST <= root.hi  # the true value, or an open bound a run would search on from


# -- books ----------------------------------------------------------------------------------------------
SMALL = Game("4x4k3:gravity")


@pytest.fixture(scope="module")
def small_book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("book") / "small.npz"
    report = books.build(SMALL, 3, path, tt_mb=4)
    assert report.book is not None
    return path


def edited_book(path: Path, target: Path, edits: list[tuple[int, int]], compressed: bool = False) -> bool:
    """A copy of the book ``path`` at ``target`` with ``(entry, score)`` edits; whether any score changed."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    scores = arrays["scores"].copy()
    for i, score in edits:
        scores[i % scores.size] = score
    changed = not np.array_equal(scores, arrays["scores"])
    arrays["scores"] = scores
    (np.savez_compressed if compressed else np.savez)(target, **arrays)
    return changed


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.integers(0, 10**6), st.integers(-128, 127)), min_size=1, max_size=3))
def test_a_book_with_edited_scores_is_refused(small_book: Path, edits: list[tuple[int, int]]) -> None:
    target = SCRATCH / f"book-{next(COUNT)}.npz"
    changed = edited_book(small_book, target, edits)
    if not changed:
        assert np.array_equal(books.load(target, SMALL).scores, books.load(small_book, SMALL).scores)
        return
    with pytest.raises(books.BookError) as error:
        books.load(target, SMALL)
    one_sentence(error.value, target)


@settings(max_examples=4, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(entry=st.integers(0, 10**6), score=st.integers(-33, 33))
def test_an_edited_shipped_book_is_left_out(entry: int, score: int, monkeypatch: pytest.MonkeyPatch) -> None:
    c4 = Game("7x6k4:gravity")
    shipped = books.shipped_path(c4)
    if shipped is None:
        pytest.skip("no book is shipped for 7x6")
    target = SCRATCH / f"shipped-{next(COUNT)}" / "7x6k4-gravity.book.npz"
    target.parent.mkdir()
    if not edited_book(shipped, target, [(entry, score)], compressed=True):
        return
    with monkeypatch.context() as patch:
        patch.setattr(books, "shipped_path", lambda game: target if Game(game) == c4 else None)
        patch.setattr(books, "_shipped", {})
        patch.setattr(books, "refused", {})
        assert books.shipped_book(c4) is None  # left out: the search answers without it
        assert str(target) in books.refused[c4] and "\n" not in books.refused[c4]
