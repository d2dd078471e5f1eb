"""Opening books (kinarow.search.book): built, looked up, refused when damaged, and used by the searches.

A tiny book (5x4 Connect Four to 4 stones) is built once and each of its entries compared with a fresh search
without it; the shipped 7x6 book, when the package has one, is checked on a sample of its deepest entries.
"""

from __future__ import annotations

import random
import zipfile
from pathlib import Path

import numpy as np
import pytest

from helpers import feed, run
from kinarow import Game, Position, solve
from kinarow.errors import KinarowError
from kinarow.search import book as books
from kinarow.search import connect
from kinarow.search.analyse import analyse
from kinarow.values import Value

GAME = Game("5x4k4:gravity")
DEPTH = 4


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[books.Book, Path]:
    path = tmp_path_factory.mktemp("book") / "tiny.npz"
    report = books.build(GAME, DEPTH, path, tt_mb=4)
    assert report.book is not None and report.stopped is None
    return report.book, path


def positions(game: Game, depth: int) -> list[Position]:
    """Every position in play with at most ``depth`` stones (every move order's, mirror images too)."""
    found: dict[tuple[int, int], Position] = {}
    level = [game.start()]
    for _ in range(depth + 1):
        nxt = []
        for pos in level:
            if pos.key() in found:
                continue
            found[pos.key()] = pos
            for cell in pos.legal_moves():
                child = pos.copy()
                child.play(cell)
                if not child.is_over:
                    nxt.append(child)
        level = nxt if len(next(iter(found.values())).moves) <= depth else []
        level = [p for p in level if p.stones <= depth]
    return list(found.values())


def fresh(position: Position) -> int:
    searcher = connect.ScoreSearcher(position.game, tt_mb=4)
    got = searcher.score(position)
    assert got is not None
    return got.score


def test_every_entry_is_the_score_a_fresh_search_gives(tiny: tuple[books.Book, Path]) -> None:
    book, path = tiny
    every = positions(GAME, DEPTH)
    canonical = {book._layout.canonical(*connect.kernel_words(GAME, p)[:2]) for p in every}
    assert len(book) == len(canonical) == int(np.count_nonzero(book.stones() <= DEPTH))
    searcher = connect.ScoreSearcher(GAME, tt_mb=4)
    for pos in every:
        searcher.forget()
        got = searcher.score(pos)
        assert got is not None and book.lookup(pos) == got.score, pos.move_text()
    assert books.load(path, GAME).describe() == book.describe()


def test_a_mirrored_position_has_its_image_s_entry(tiny: tuple[books.Book, Path]) -> None:
    book, _ = tiny
    rng = random.Random(5)
    names = "abcde"
    for _ in range(30):
        cols = [rng.randrange(GAME.m) for _ in range(rng.randrange(DEPTH + 1))]
        pos = GAME.position(" ".join(names[c] for c in cols))
        image = GAME.position(" ".join(names[GAME.m - 1 - c] for c in cols))
        assert book.lookup(pos) == book.lookup(image) == fresh(pos)
    assert book.lookup(GAME.position("a b a b a")) is None  # deeper than the book


def test_lookup_refuses_another_game_s_position(tiny: tuple[books.Book, Path]) -> None:
    with pytest.raises(KinarowError, match="this book is of 5x4k4:gravity"):
        tiny[0].lookup(Game("7x6k4:gravity").start())


def test_the_searcher_answers_from_its_book(tiny: tuple[books.Book, Path]) -> None:
    book, _ = tiny
    searcher = connect.ScoreSearcher(GAME, tt_mb=4, book=book)
    pos = GAME.position("c b")
    got, weak = searcher.score(pos), searcher.score(pos, weak=True)
    assert got is not None and weak is not None
    assert (got.score, got.nodes, weak.score, weak.nodes) == (fresh(pos), 0, int(np.sign(got.score)), 0)
    with pytest.raises(KinarowError, match="cannot use a book of 5x4k4:gravity"):
        connect.ScoreSearcher("6x5k4:gravity", book=book)


def test_solve_and_analyse_give_the_same_answers_with_the_book(
    tiny: tuple[books.Book, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    book, _ = tiny
    lines = ["", "c", "a", "c c", "b d", "a e a"]
    monkeypatch.setenv(books.ENV_VAR, "off")
    books._cache.clear()
    without = [solve(GAME.position(m), strong=True) for m in lines]
    plain = [analyse(GAME.position(m)).to_dict()["analysis"] for m in lines]
    monkeypatch.setenv(books.ENV_VAR, "on")
    monkeypatch.setitem(books._shipped, GAME, book)  # as if the package shipped this book for the game
    books._cache.clear()
    try:
        with_book = [solve(GAME.position(m), strong=True) for m in lines]
        booked = [analyse(GAME.position(m)).to_dict()["analysis"] for m in lines]
        assert with_book[0].nodes == 0  # answered from the book
    finally:
        books._cache.clear()
    assert [(r.value, r.last_move, r.best_move) for r in with_book] == [
        (r.value, r.last_move, r.best_move) for r in without]
    assert booked == plain


def test_the_book_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(books.ENV_VAR, "off")
    assert not books.wanted() and books.wanted(True)
    monkeypatch.setenv(books.ENV_VAR, "ON")
    assert books.wanted() and not books.wanted(False)
    monkeypatch.setenv(books.ENV_VAR, "maybe")
    with pytest.raises(KinarowError, match=r"\$KINAROW_BOOK must be on or off, not 'maybe'"):
        books.wanted()
    monkeypatch.setenv(books.ENV_VAR, "off")
    searcher, lock = books.searcher_for(Game("7x6k4:gravity"), 4)
    if lock is not None:
        lock.release()
    assert searcher.book is None
    books._cache.clear()


# -- damaged files ---------------------------------------------------------------------------------------
def rewrite(path: Path, target: Path, **changes: np.ndarray) -> Path:
    """A copy of the book file ``path`` at ``target`` with the members ``changes`` names replaced."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    arrays.update(changes)
    np.savez(target, **arrays)
    return target


def one_sentence(error: BaseException) -> str:
    text = str(error)
    assert "\n" not in text and "Traceback" not in text, text
    return text


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"game": np.array("6x5k4:gravity")}, "is a book of 6x5k4:gravity, not of 5x4k4:gravity"),
        ({"game": np.array("not a game")}, "its game 'not a game' is not a game"),
        ({"game": np.array(7)}, "its game is not a single string"),
        ({"version": np.array(4)}, "format version 4; this kinarow reads versions 1, 2, 3"),
        ({"version": np.array(3)}, "a book of format version 3 is of a board past 64 bits of layout, and "
                                   "5x4k4:gravity has 25"),
        ({"version": np.array(1)}, "a book of format version 1 has no moves"),
        ({"moves": "int16"}, "its moves are not a list of 8-bit whole numbers"),
        ({"moves": "short"}, "keys but"),
        ({"moves": "off the board"}, "has a move that is not a column 0 to 4 (or -1)"),
        ({"moves": "shallow"}, "keeps a move, which only the deepest positions keep"),
        ({"moves": "lost"}, "keeps a move for a lost position"),
        ({"moves": "full"}, "keeps a move into a full column"),
        ({"part": np.array("checkpoint")}, "is a build's checkpoint, not a book"),
        ({"depth": np.array(30)}, "its depth 30 is not 0 to 19"),
        ({"keys": "int64"}, "its keys are not a list of 64-bit unsigned whole numbers"),
        ({"scores": "int16"}, "its scores are not a list of 8-bit whole numbers"),
        ({"keys": "reversed"}, "its keys are not sorted without repeats"),
        ({"keys": "short"}, "keys but"),
        ({"scores": "big"}, "has a score its position cannot have"),
        ({"scores": "parity"}, "has a score its position cannot have"),
        ({"scores": "tampered"}, "is not the best of its moves' scores"),
        ({"keys": "missing child"}, "lacks a child position the book should hold"),
        ({"keys": "foreign"}, "is not a position of 5x4k4:gravity"),
        ({"depth": np.array(2)}, "does not have at most 2 stones"),
    ],
)
def test_a_damaged_book_is_refused_in_one_sentence(
    tiny: tuple[books.Book, Path], tmp_path: Path, change: dict[str, object], said: str
) -> None:
    book, path = tiny
    keys, scores = book.keys.copy(), book.scores.copy()
    assert book.moves is not None
    moves = book.moves.copy()
    stones = book.stones()
    edits: dict[str, np.ndarray] = {}
    for name, how in change.items():
        if isinstance(how, np.ndarray):
            edits[name] = how
        elif how in ("int64", "int16"):
            edits[name] = {"keys": keys, "scores": scores, "moves": moves}[name].astype(how)
        elif how == "reversed":
            edits = {"keys": keys[::-1].copy(), "scores": scores[::-1].copy(), "moves": moves[::-1].copy()}
        elif how == "short":
            edits = {name: {"keys": keys, "moves": moves}[name][:-1].copy()}
        elif how in ("off the board", "shallow", "lost", "full"):
            if how == "full":  # a deepest position not lost with a full column: four stones in column a
                _, mask, _, _ = books._Layout(book.game).decode_all(keys)
                column = np.uint64(book.game.n - 1)
                pick = (stones == DEPTH) & (scores >= 0) & (((mask >> column) & np.uint64(1)) != 0)
            else:
                pick = (stones == DEPTH) & (scores >= 0) if how == "off the board" else (
                    (stones < DEPTH) if how == "shallow" else (stones == DEPTH) & (scores < 0))
            i = int(np.nonzero(pick)[0][0])
            moves[i] = {"off the board": 5, "shallow": 0, "lost": 0, "full": 0}[how]
            edits = {"moves": moves}
        elif how == "big":
            scores[5] = 100
            edits = {"scores": scores}
        elif how == "parity":
            i = int(np.nonzero(np.abs(scores) >= 2)[0][0])
            scores[i] += -1 if scores[i] > 0 else 1  # the same winner, a stone of the loser's
            edits = {"scores": scores}
        elif how == "tampered":
            stones = book.stones()
            i = int(np.nonzero((stones < DEPTH) & (scores > 2))[0][0])
            scores[i] -= 2  # still a score of the right parity
            edits = {"scores": scores}
        elif how == "missing child":
            drop = int(np.nonzero(book.stones() == 2)[0][0])
            edits = {"keys": np.delete(keys, drop), "scores": np.delete(scores, drop), "moves": np.delete(moves, drop)}
        elif how == "foreign":
            keys[-1] = np.uint64(1) << np.uint64(40)  # a bit above the board's columns
            edits = {"keys": keys}
    if change.get("version") is not None and int(change["version"]) == 1:  # type: ignore[call-overload]
        edits["moves"] = moves  # a version 1 file with moves
    bad = rewrite(path, tmp_path / "bad.npz", **edits)
    with pytest.raises(books.BookError) as caught:
        books.load(bad, GAME)
    assert said in one_sentence(caught.value)


def test_a_truncated_or_foreign_file_is_refused(tiny: tuple[books.Book, Path], tmp_path: Path) -> None:
    _, path = tiny
    data = path.read_bytes()
    cut = tmp_path / "cut.npz"
    cut.write_bytes(data[: len(data) // 2])
    text = tmp_path / "text.npz"
    text.write_text("not a book\n")
    extra = tmp_path / "extra.npz"
    with zipfile.ZipFile(extra, "w") as archive:
        archive.writestr("keys.npy", b"")
        archive.writestr("payload.npy", b"")
    pickled = rewrite(path, tmp_path / "pickled.npz", game=np.array(["x", None], dtype=object))
    for bad, said in ((cut, "cannot be read as one"), (text, "cannot be read as one"),
                      (extra, "it lacks depth, game, part, scores, version"),
                      (pickled, "cannot be read as one"), (tmp_path / "none.npz", "cannot read the book file")):
        with pytest.raises(books.BookError) as caught:
            books.load(bad, GAME)
        assert said in one_sentence(caught.value), bad


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        tiny: tuple[books.Book, Path]) -> None:
    monkeypatch.setattr(books, "MAX_BOOK_BYTES", 100)
    with pytest.raises(books.BookError, match="more than the 100 a book may have"):
        books.load(tiny[1], GAME)


# -- building: resuming, the command line ---------------------------------------------------------------
def test_a_stopped_build_resumes_from_its_checkpoint(tiny: tuple[books.Book, Path], tmp_path: Path) -> None:
    book, _ = tiny
    out, checkpoint = tmp_path / "b.npz", tmp_path / "b.checkpoint.npz"

    def stop_at_20(done: int, total: int) -> None:
        if done >= 20:
            raise KeyboardInterrupt

    report = books.build(GAME, DEPTH, out, checkpoint=checkpoint, tt_mb=4, on_progress=stop_at_20)
    assert report.book is None and report.stopped == "interrupted" and report.searched >= 20
    assert checkpoint.exists() and not out.exists()
    heard: list[int] = []
    report = books.build(GAME, DEPTH, out, checkpoint=checkpoint, tt_mb=4, on_progress=lambda d, t: heard.append(d))
    assert report.book is not None and heard[0] >= 20
    assert np.array_equal(report.book.keys, book.keys) and np.array_equal(report.book.scores, book.scores)
    assert not checkpoint.exists()
    with pytest.raises(books.BookError, match="is a build's checkpoint, not a book"):
        books._save(checkpoint, GAME, DEPTH, book.keys[:0], book.scores[:0], "checkpoint")
        books.load(checkpoint)
    with pytest.raises(books.BookError, match="of a build to depth 4, not 3"):
        books.build(GAME, 3, out, checkpoint=checkpoint)


def test_the_book_commands(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "small.npz"
    code, printed, _ = run(capsys, "book", "build", "5x4k4:gravity", "--depth", "3", "--out", str(out),
                           "--tt-mb", "4")
    assert code == 0 and f"Book written to {out}: 5x4k4:gravity: every position with at most 3 stones" in printed
    code, printed, _ = run(capsys, "book", "info", str(out))
    assert code == 0
    assert "game:      5x4k4:gravity" in printed and "by stones: 0:1 1:3 2:13 3:49" in printed
    threaded = tmp_path / "threaded.npz"  # two searches of each position sharing the table: the same book
    code, _, _ = run(capsys, "book", "build", "5x4k4:gravity", "--depth", "3", "--out", str(threaded),
                     "--tt-mb", "4", "--threads", "2")
    one, two = books.load(out), books.load(threaded)
    assert code == 0 and np.array_equal(one.keys, two.keys) and np.array_equal(one.scores, two.scores)
    assert "start:     Draw with perfect play." in printed
    assert "format:    version 2" in printed and "moves:     kept for " in printed
    with np.load(out, allow_pickle=False) as data:  # the same book as format version 1 wrote it: no moves, no digest
        arrays = {name: data[name] for name in data.files if name not in ("moves", "digest")}
    np.savez(tmp_path / "old.npz", **(arrays | {"version": np.array(1)}))
    code, printed, _ = run(capsys, "book", "info", str(tmp_path / "old.npz"))
    assert code == 0 and "format:    version 1" in printed and "moves:     kept for 0 of the 49" in printed
    code, printed, _ = run(capsys, "book", "moves", str(tmp_path / "old.npz"), "--tt-mb", "4")
    assert code == 0 and f"Book written to {tmp_path / 'old.npz'}: 5x4k4:gravity" in printed
    assert np.array_equal(books.load(tmp_path / "old.npz").moves != books.NO_MOVE, one.moves != books.NO_MOVE)
    for argv, said in [
        (["book", "info", str(tmp_path / "none.npz")], "cannot read the book file"),
        (["book", "build", "5x4k4", "--depth", "3"], "cannot take 5x4k4: it needs gravity"),
        (["book", "build", "5x4k4:gravity", "--depth", "-1"], "--depth must be a whole number of stones"),
        (["book", "build", "5x4k4:gravity"], "needs --depth D"),
        (["book", "build", "5x4k4:gravity", "--depth", "3", "--threads", "0"], "--threads must be"),
        (["book", "info", str(out), "--threads", "2"], "--threads is an option of 'kinarow book build'"),
        (["book", "info", str(out), "--depth", "3"], "--depth is an option of 'kinarow book build'"),
        (["book", "build", "5x4k4:gravity", "--depth", "3", "--out", str(tmp_path)], "is a folder"),
        (["book", "moves", str(out), "--depth", "3"],
         "--depth is an option of 'kinarow book build'; 'kinarow book moves' takes a FILE, --tt-mb and --threads"),
        (["book", "moves", str(tmp_path / "none.npz")], "cannot read the book file"),
        (["book", "moves", str(out), "--threads", "x"], "--threads must be"),
    ]:
        code, _, err = run(capsys, *argv)
        assert code == 2 and said in err and err.count("\n") == 1, (argv, err)


def test_a_build_refuses_what_it_cannot_make(tmp_path: Path) -> None:
    with pytest.raises(KinarowError, match="depth is a whole number of stones from 0 to 19"):
        books.build(GAME, 20, tmp_path / "x.npz")
    with pytest.raises(KinarowError, match="cannot take 5x5k4"):
        books.build("5x5k4", 2, tmp_path / "x.npz")


# -- the shipped book ----------------------------------------------------------------------------------
SHIPPED = books.shipped_path("7x6k4:gravity")
C4 = Game("7x6k4:gravity")


@pytest.mark.skipif(SHIPPED is None, reason="no 7x6 book in the package")
def test_the_shipped_book_gives_the_published_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped 7x6 book loads (every check of load() passes, so each shallower entry is its children's best)
    and gives the values known since Allis and Tromp, with Pons' game lengths: the first player wins on move 41
    by playing d; c and e draw; b and f lose on move 42, a and g on move 40."""
    book = books.shipped_book(C4)
    assert book is not None and book.depth >= 1
    assert book.lookup(C4.start()) == 2  # cells + 1 - 41
    after = [book.lookup(C4.position(column)) for column in "abcdefg"]  # scores of the second player, to move
    assert after == [43 - 40, 43 - 42, 0, -(43 - 41), 0, 43 - 42, 43 - 40]
    monkeypatch.setenv(books.ENV_VAR, "on")
    books._cache.clear()
    try:
        result = solve(C4.start(), strong=True)
    finally:
        books._cache.clear()
    assert (result.value, result.last_move, result.best_move, result.nodes) == ("first", 41, "d1", 0)


@pytest.mark.skipif(SHIPPED is None, reason="no 7x6 book in the package")
def test_play_opens_7x6_from_the_book(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(books.ENV_VAR, "on")
    feed(monkeypatch, ["quit"])
    code, out, _ = run(capsys, "play", "7x6k4:gravity", "--second", "--think", "0.3")
    assert code == 0 and "kinarow plays column d (d1); it expects to win." in out
    feed(monkeypatch, ["a", "quit"])
    code, out, _ = run(capsys, "play", "7x6k4:gravity", "--think", "0.3")
    assert code == 0 and "; it expects to win." in out  # a loses for the first player


@pytest.mark.parametrize("threads", [1, 2])
def test_the_engine_on_two_threads_keeps_the_values(threads: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine of ``kinarow play`` and the web page runs two searches of each position where the machine has
    two cores (``Searcher(threads=...)``): its moves keep the values all the same (checked by searches of the
    positions after them, without the book), one stone deeper than the shipped book and further."""
    from kinarow.limits import engine_threads
    from kinarow.search.alphabeta import Searcher

    assert 1 <= engine_threads() <= 2
    with pytest.raises(KinarowError, match="threads must be a whole number from 1 to 64"):
        Searcher(C4, threads=0)
    searcher = Searcher(C4, threads=threads)
    rng = random.Random(31)
    for stones in (10, 10, 12, 14, 16):
        position = C4.start()
        while position.stones < stones or position.is_over:
            position = C4.start() if position.is_over else position
            position.play(rng.choice(position.legal_moves()))
        value, cell = searcher.choose_move(position, 60)
        assert value is not Value.UNKNOWN and cell in position.legal_moves()
        assert keeps_value(position, cell, fresh(position)), position.move_text()


@pytest.mark.skipif(SHIPPED is None, reason="no 7x6 book in the package")
def test_the_web_engine_opens_7x6_from_the_book(monkeypatch: pytest.MonkeyPatch) -> None:
    from kinarow.web.server import App

    monkeypatch.setenv(books.ENV_VAR, "on")
    view = App(think=0.3).handle("/api/engine", {"game": "7x6k4:gravity", "moves": []})
    assert view["engine"]["played"] == ["d1"] and view["engine"]["note"] == "it expects to win"


def kept_move_keeps_value(book: books.Book, i: int, searcher: connect.ScoreSearcher) -> bool:
    """Whether entry ``i``'s kept move keeps its value: the child (after the move, in the entry's frame) searched
    without the book."""
    layout = book._layout
    cur, mask, _, _ = (int(a[0]) for a in layout.decode_all(book.keys[i : i + 1]))
    move = (mask + layout.bottom) & layout.colmask[int(book.moves[i])]
    score = int(book.scores[i])
    if layout.has_line(cur | move):
        return score > 0
    child = searcher.score_words(cur ^ mask, mask | move, book.depth + 1, weak=True)
    assert child is not None
    return -child.score == (score > 0) - (score < 0)


def check_kept_moves(count: int, seed: int, tt_mb: int) -> None:
    """``count`` of the shipped book's kept moves (drawn with ``seed``) each keep their position's value."""
    book = books.shipped_book(C4)
    assert book is not None and book.moves is not None
    kept = np.nonzero(book.moves != books.NO_MOVE)[0]
    if kept.size == 0:
        pytest.skip("the shipped book keeps no moves")
    searcher = connect.ScoreSearcher(C4, tt_mb=tt_mb)
    for i in random.Random(seed).sample(list(kept), count):
        assert kept_move_keeps_value(book, int(i), searcher), int(book.keys[i])


@pytest.mark.skipif(SHIPPED is None, reason="no 7x6 book in the package")
def test_a_sample_of_the_shipped_book_s_kept_moves_keeps_the_values() -> None:
    """The moves the shipped book keeps for its deepest positions are taken on trust like their scores; 3 of
    them (a fixed sample) are checked by a search of the position after the move, without the book."""
    check_kept_moves(3, 2, 64)


@pytest.mark.verylong
@pytest.mark.skipif(SHIPPED is None, reason="no 7x6 book in the package")
def test_the_shipped_book_s_kept_moves_keep_the_values() -> None:
    """30 of the shipped book's kept moves, checked by searches without the book (seconds each)."""
    check_kept_moves(30, 13, 1024)


@pytest.mark.verylong
@pytest.mark.skipif(SHIPPED is None, reason="no 7x6 book in the package")
def test_the_shipped_book_s_deepest_entries_agree_with_fresh_searches() -> None:
    """20 of the shipped book's deepest entries (the searched ones: the shallower are checked against them on
    loading) against a fresh search without the book: up to seconds each at the depth of 8 stones."""
    book = books.shipped_book(C4)
    assert book is not None
    deepest = np.nonzero(book.stones() == book.depth)[0]
    searcher = connect.ScoreSearcher(C4, tt_mb=1024)
    for i in random.Random(11).sample(list(deepest), min(20, deepest.size)):
        cur, mask, _, _ = book._layout.decode_all(book.keys[i : i + 1])
        got = searcher.score_words(int(cur[0]), int(mask[0]), book.depth)
        assert got is not None and got.score == int(book.scores[i]), int(book.keys[i])


def test_a_member_that_claims_more_than_it_holds_is_refused(tiny: tuple[books.Book, Path], tmp_path: Path) -> None:
    """An array header claiming 10**12 keys in a small file is refused before anything is allocated."""
    _, path = tiny
    bad = tmp_path / "huge.npz"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(bad, "w") as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "keys.npy":
                data = data.replace(b"'shape': (", b"'shape': (1000000000000", 1)
            target.writestr(info.filename, data)
    with pytest.raises(books.BookError, match="its keys array is shorter than its header says"):
        books.load(bad, GAME)


def test_a_book_value_does_not_lift_the_budget_of_the_best_move() -> None:
    """The shipped book gives the value of a position with as many stones as its depth at once; finding its best
    move searches (the book lacks the children), and that search keeps the caller's node budget (the engine's
    think time on the web page). The lines below are among the slowest positions met with 8 and 9 stones."""
    from kinarow.search.alphabeta import Searcher

    game = Game("7x6k4:gravity")
    searcher = Searcher(game)
    if searcher.scores is None or searcher.scores.book is None:
        pytest.skip("no book is shipped for 7x6 (or it is turned off)")
    lines = {8: "e1 b1 c1 f1 c2 c3 a1 g1", 9: "a1 g1 f1 c1 c2 f2 f3 f4 g2"}
    if searcher.scores.book.depth not in lines:
        pytest.skip(f"no line of this test has as many stones as the shipped book's depth ({lines})")
    position = game.position(lines[searcher.scores.book.depth])
    shipped = searcher.scores.book
    searcher.scores.book = books.Book(shipped.game, shipped.depth, shipped.keys, shipped.scores)  # no moves kept
    value, best, nodes, stopped = searcher.search(position, max_nodes=2_000)
    assert (value, best, stopped) == (1, None, "node limit")  # the book's value, the move not yet found
    assert 0 < nodes <= 7 * 2_000 + 7
    guess = searcher.guess
    assert guess in position.legal_moves()
    child = position.copy()
    child.play(guess)  # the guess lets the opponent win at once nowhere
    for reply in child.legal_moves():
        after = child.copy()
        after.play(reply)
        assert not after.is_over
    searcher.scores.book = shipped
    cur, mask, _ = connect.kernel_words(game, position)
    if shipped.move_words(cur, mask) is not None:  # the shipped book keeps this position's move: no search at all
        value, best, nodes, stopped = searcher.search(position, max_nodes=2_000)
        assert (value, nodes, stopped) == (1, 0, None) and best is not None
        assert best // game.n == shipped.move_words(cur, mask)


def keeps_value(position: Position, cell: int, score: int) -> bool:
    """Whether playing ``cell`` keeps the value (win, draw or loss) of ``position``, whose exact score is
    ``score``, by a fresh search of the child."""
    child = position.copy()
    child.play(cell)
    got = (0 if child.result == "draw" else position.game.cells + 1 - child.stones) if child.is_over else -fresh(child)
    return (got > 0) - (got < 0) == (score > 0) - (score < 0)


def test_each_deepest_position_not_lost_keeps_a_move_that_keeps_its_value(tiny: tuple[books.Book, Path]) -> None:
    book, _ = tiny
    assert book.moves is not None and book.moves.dtype == np.int8
    stones = book.stones()
    assert np.all(book.moves[stones < DEPTH] == books.NO_MOVE)
    assert np.all(book.moves[(stones == DEPTH) & (book.scores < 0)] == books.NO_MOVE)
    assert np.all(book.moves[(stones == DEPTH) & (book.scores >= 0)] != books.NO_MOVE)
    assert_moves_keep_values(book)
    assert "a move kept for" in book.describe() and book.has_moves()
    searcher = connect.ScoreSearcher(GAME, tt_mb=4)  # the check the shipped book's sample gets, and what it refuses
    kept = np.nonzero(book.moves != books.NO_MOVE)[0]
    assert all(kept_move_keeps_value(book, int(i), searcher) for i in kept)
    refused = 0
    for i in kept:
        right = int(book.moves[i])
        for column in range(GAME.m):
            book.moves[i] = column
            _, mask, _, _ = (int(a[0]) for a in book._layout.decode_all(book.keys[i : i + 1]))
            if column != right and (mask >> (column * (GAME.n + 1) + GAME.n - 1)) & 1 == 0:
                refused += not kept_move_keeps_value(book, int(i), searcher)
        book.moves[i] = right
    assert refused > 0


def assert_moves_keep_values(book: books.Book) -> None:
    """Every deepest position of the tiny book (mirror images too) not lost has a kept move, and it keeps the
    position's value."""
    for position in (p for p in positions(GAME, DEPTH) if p.stones == DEPTH):
        cur, mask, _ = connect.kernel_words(GAME, position)
        score, column = book.lookup_words(cur, mask), book.move_words(cur, mask)
        assert score is not None and (column is None) == (score < 0), position.move_text()
        if column is not None:
            cell = next(c for c in position.legal_moves() if c // GAME.n == column)
            assert keeps_value(position, cell, score), position.move_text()


def test_the_engine_plays_the_kept_move_without_a_search(tiny: tuple[books.Book, Path]) -> None:
    book, _ = tiny
    searcher = connect.ScoreSearcher(GAME, tt_mb=4, book=book)
    won = [p for p in positions(GAME, DEPTH) if p.stones == DEPTH and (book.lookup(p) or 0) > 0]
    for position in won[:10]:
        score = searcher.score(position, weak=True)
        assert score is not None and score.score == 1
        cell = searcher.best_move(position, score, weak=True)
        cur, mask, _ = connect.kernel_words(GAME, position)
        assert cell is not None and cell // GAME.n == book.move_words(cur, mask) and searcher.move_nodes == 0


def test_one_stone_deeper_the_parents_bound_the_search(tiny: tuple[books.Book, Path]) -> None:
    """A position one stone deeper than the book: its parents' scores bound it from below and a parent's kept move
    gives its value; the weak answers and the moves found stay those of a search without the book, for every
    such position of the tiny book's game."""
    book, _ = tiny
    deeper = [p for p in positions(GAME, DEPTH + 1) if p.stones == DEPTH + 1]
    searcher = connect.ScoreSearcher(GAME, tt_mb=4, book=book)
    plain = connect.ScoreSearcher(GAME, tt_mb=4)
    told = {"lost": 0, "drawn": 0, "bound": 0}
    for position in deeper:
        cur, mask, _ = connect.kernel_words(GAME, position)
        floor, value = book.from_parents(cur, mask)
        told["lost"] += value == -1
        told["drawn"] += value == 0
        told["bound"] += value is None and floor is not None and floor >= 0
        plain.forget()
        expected = plain.score(position, weak=True)
        searcher.forget()
        got = searcher.score(position, weak=True)
        assert got is not None and expected is not None and got.score == expected.score, position.move_text()
        assert floor is None or fresh(position) >= floor
        assert got.nodes == 0 or value != -1  # a loss the book shows is answered without a search
        cell = searcher.best_move(position, got, weak=True)
        assert cell is not None and keeps_value(position, cell, fresh(position)), position.move_text()
    assert min(told.values()) > 0, told  # every shortcut was taken


def test_a_version_1_book_is_read_and_given_its_moves(tiny: tuple[books.Book, Path], tmp_path: Path) -> None:
    """A book written before moves were kept (format version 1) is still read, with no move; ``add_moves``
    gives it one for each deepest position not lost, stopping and resuming with the file as its checkpoint."""
    book, path = tiny
    with np.load(path, allow_pickle=False) as data:  # (nor a digest, which later files hold)
        arrays = {name: data[name] for name in data.files if name not in ("moves", "digest")}
    arrays["version"] = np.array(1)
    old = tmp_path / "old.npz"
    np.savez(old, **arrays)
    read = books.load(old, GAME)
    assert np.array_equal(read.scores, book.scores) and not read.has_moves() and books.file_version(old) == 1

    heard: list[int] = []

    def stop_at_the_30th(done: int, total: int) -> None:
        heard.append(done)
        if len(heard) == 30:
            raise KeyboardInterrupt

    report = books.add_moves(old, tt_mb=4, on_progress=stop_at_the_30th)
    assert report.stopped == "interrupted" and heard[0] + 29 == report.finished < report.total
    partial = books.load(old, GAME)
    assert books.file_version(old) == books.FORMAT_VERSION and partial.has_moves()
    report = books.add_moves(old, tt_mb=4)
    assert report.stopped is None and report.finished == report.total
    again = books.load(old, GAME)
    assert np.array_equal(again.moves != books.NO_MOVE, book.moves != books.NO_MOVE)
    assert_moves_keep_values(again)


@pytest.mark.parametrize("weak", [False, True])
def test_a_move_at_the_books_depth_keeps_the_books_score(tiny: tuple[books.Book, Path], weak: bool) -> None:
    """At the book's depth the score is read and the children are not in the book: one test of the position
    ("at least this score?") names the move, and it keeps the score (checked by a search of the child)."""
    book, _ = tiny
    deepest = [p for p in positions(GAME, DEPTH) if p.stones == DEPTH]
    searcher = connect.ScoreSearcher(GAME, tt_mb=4, book=book)
    for position in random.Random(5).sample(deepest, 40):
        score = searcher.score(position, weak=weak)
        assert score is not None and score.nodes == 0  # from the book
        cell = searcher.best_move(position, score, weak=weak)
        assert cell is not None
        child = position.copy()
        child.play(cell)
        got = (0 if child.result == "draw" else GAME.cells + 1 - child.stones) if child.is_over else -fresh(child)
        assert (got if not weak else (got > 0) - (got < 0)) == score.score


KEPT = sorted((Path(__file__).resolve().parent.parent / "checkpoints").glob("7x6k4-gravity.d*.checkpoint.npz"))


@pytest.mark.parametrize("path", KEPT, ids=[p.name for p in KEPT])
def test_a_kept_book_checkpoint_reads_and_agrees_with_the_search(path: Path) -> None:
    """A deeper 7x6 book is built across sessions; its checkpoint, kept in checkpoints/, must stay readable by the
    build that resumes it, and a sample of its scores must agree with a fresh search."""
    depth = int(path.name.split(".")[1][1:])
    done = books._resume(path, C4, depth)  # every check of a book file, for a build's checkpoint
    assert done
    layout = books._Layout(C4)
    searcher = connect.ScoreSearcher(C4, tt_mb=16)
    for key in random.Random(3).sample(sorted(done), min(4, len(done))):
        cur, mask, stones, _ = layout.decode_all(np.array([key], np.uint64))
        found = searcher.score_words(int(cur[0]), int(mask[0]), int(stones[0]))
        assert found is not None and found.score == done[key]


@pytest.mark.skipif(SHIPPED is None, reason="no 7x6 book in the package")
def test_a_sample_of_the_shipped_book_s_deepest_entries_agrees_with_the_search() -> None:
    """Each run re-searches 4 of the shipped book's deepest entries, drawn at random (the searched ones; the
    shallower entries are checked against them on loading), without the book: about a second each."""
    book = books.shipped_book(C4)
    assert book is not None
    deepest = np.nonzero(book.stones() == book.depth)[0]
    searcher = connect.ScoreSearcher(C4, tt_mb=16)
    for i in random.Random().sample(list(deepest), 4):
        cur, mask, stones, _ = book._layout.decode_all(book.keys[i : i + 1])
        found = searcher.score_words(int(cur[0]), int(mask[0]), int(stones[0]))
        assert found is not None and found.score == int(book.scores[i]), int(book.keys[i])
