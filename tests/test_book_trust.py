"""An opening book is not trusted: a file whose arrays do not match their digest is refused in one sentence, a
shipped book edited in place is left out (the search answers without it, saying so), an answer read from the
book says so, and a value is never shown beside a certificate that proves another.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from helpers import run
from kinarow import Game, Position, solve
from kinarow.search import book as books
from kinarow.search.certify import ClaimMismatchError
from kinarow.values import Value

GAME = Game("5x4k4:gravity")
C4 = Game("7x6k4:gravity")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[books.Book, Path]:
    path = tmp_path_factory.mktemp("book") / "tiny.npz"
    report = books.build(GAME, 4, path, tt_mb=4)
    assert report.book is not None
    return report.book, path


def lost_deepest(book: books.Book) -> int:
    """An entry of the deepest positions that is lost for the side to move (its score can be made a win of the
    right parity, which no structural check can tell from the truth)."""
    stones = book.stones()
    found = np.nonzero((stones == book.depth) & (book.scores < 0))[0]
    assert found.size
    return int(found[0])


def flipped(book: books.Book, i: int) -> int:
    """A winning score that entry ``i``'s position could have, for its losing one (-4 -> 3, as by hand)."""
    left = book.game.cells - int(book.stones()[i])
    lost = -int(book.scores[i])
    score = lost - 1 if lost > 1 else lost + 1  # a win needs (left - score) even, a loss (left - lost) odd
    assert 0 < score <= left and (left - score) % 2 == 0
    return score


def position_of(book: books.Book, i: int) -> Position:
    """The position of entry ``i`` (its canonical frame), found by walking the game to its key."""
    layout = book._layout
    target = int(book.keys[i])
    level = [book.game.start()]
    for _ in range(book.depth):
        nxt = []
        seen = set()
        for pos in level:
            for cell in pos.legal_moves():
                child = pos.copy()
                child.play(cell)
                if child.is_over:
                    continue
                from kinarow.search import connect

                cur, mask, _ = connect.kernel_words(book.game, child)
                key = layout.canonical(cur, mask)
                if key in seen:
                    continue
                seen.add(key)
                if key == target and child.stones == book.depth:
                    return child
                nxt.append(child)
        level = nxt
    raise AssertionError("no position has that key")


def test_a_saved_book_with_an_edited_deepest_score_is_refused_by_its_digest(tiny, tmp_path):
    book, path = tiny
    i = lost_deepest(book)
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    assert "digest" in arrays  # written by save()
    arrays["scores"] = arrays["scores"].copy()
    arrays["scores"][i] = flipped(book, i)
    edited = tmp_path / "edited.npz"
    np.savez(edited, **arrays)
    with pytest.raises(books.BookError) as error:
        books.load(edited, GAME)
    text = str(error.value)
    assert "\n" not in text and str(edited) in text and "do not match the digest" in text


def test_an_edited_shipped_book_is_left_out_and_the_search_says_so(tmp_path, monkeypatch, capsys):
    shipped = books.shipped_path(C4)
    if shipped is None:
        pytest.skip("no book is shipped for 7x6")
    with np.load(shipped, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    book = books.load(shipped, C4)
    i = lost_deepest(book)
    arrays["scores"] = arrays["scores"].copy()
    arrays["scores"][i] = flipped(book, i)  # -4 -> 3 on a position of 9 stones, as by hand
    edited = tmp_path / "7x6k4-gravity.book.npz"
    np.savez_compressed(edited, **arrays)
    books.load(edited, C4)  # every structural check passes: only the digest tells
    monkeypatch.setattr(books, "shipped_path", lambda game: edited if Game(game) == C4 else None)
    monkeypatch.setattr(books, "_shipped", {})
    monkeypatch.setattr(books, "refused", {})
    books._cache.clear()
    try:
        assert books.shipped_book(C4) is None
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "the opening book shipped for 7x6k4:gravity is refused" in err
        assert str(edited) in err and "digest" in err
        assert books.shipped_book(C4) is None and capsys.readouterr().err == ""  # said once
    finally:
        books._cache.clear()


def test_a_book_answer_is_named_the_opening_book(tiny, monkeypatch, capsys):
    book, _ = tiny
    monkeypatch.setenv(books.ENV_VAR, "on")
    monkeypatch.setitem(books._shipped, GAME, book)
    books._cache.clear()
    try:
        assert solve(GAME.position("c c")).search == "opening book"
        code, out, _ = run(capsys, "solve", str(GAME), "--moves", "c c", "--no-store")
        assert code == 0 and "search:    opening book\n" in out
        code, out, _ = run(capsys, "solve", str(GAME), "--moves", "c c", "--no-store", "--json")
        assert json.loads(out)["search"] == "opening book"
        deep = GAME.position("a b c d e")  # deeper than the book: searched
        assert solve(deep).search == "score search"
    finally:
        books._cache.clear()


def test_a_value_and_a_certificate_that_disagree_are_never_shown(tiny, monkeypatch, capsys, tmp_path):
    book, _ = tiny
    i = lost_deepest(book)
    scores = book.scores.copy()
    scores[i] = flipped(book, i)
    wrong = books.Book(book.game, book.depth, book.keys, scores, book.moves)
    position = position_of(book, i)
    monkeypatch.setenv(books.ENV_VAR, "on")
    monkeypatch.setitem(books._shipped, GAME, wrong)  # as if the shipped book had been edited and not caught
    books._cache.clear()
    try:
        assert solve(position).value == Value.win(GAME.goal, position.to_move)  # the edited entry's (wrong) word
        with pytest.raises(ClaimMismatchError, match=r"but its (strategy|certificate) "):
            solve(position, proof=True)
        out_file = tmp_path / "proof.json"
        code, out, err = run(capsys, "solve", str(GAME), "--moves", position.move_text(), "--no-store",
                             "--proof", str(out_file))
        assert code != 0 and "wins" not in out and not out_file.exists()
        assert err.count("\n") == 1 and "nothing is written" in err and "Traceback" not in err
    finally:
        books._cache.clear()


def test_a_book_answer_is_named_so_on_every_route(monkeypatch):
    # the alpha-beta route asks the score search (and so the book) for a Connect Four value it then walks
    monkeypatch.setenv(books.ENV_VAR, "on")
    assert solve("7x6k4:gravity", store=None).search == "opening book"
    assert solve("7x6k4:gravity", strategy=True, time_limit=1, store=None).search == "opening book"
