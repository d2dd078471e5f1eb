"""The Connect-k score search on boards of two words (:mod:`kinarow.engine.gravity_kernel` past 64 bits of layout).

The kernel is one source compiled for one-word and two-word boards. On a board both forms hold they must search
the same tree: the same score and the same node count, given tables of the same number of entries. Past 64 bits
(13x4, 11x5, 10x6, 6x10, ...) the scores are checked against an exhaustive minimax over the rules, late in the
game where it is cheap, and the searches' moves and certificates against the checkers.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from kinarow import Game, KinarowError, Searcher, solve
from kinarow.position import Position
from kinarow.proofs import check_data
from kinarow.search import book as books
from kinarow.search.connect import GK, ScoreSearcher, kernel_words, layout_bits, score_search_fit
from test_connect_kernel import exhaustive, random_positions
from test_strong import references


def _pair(game: Game) -> tuple[ScoreSearcher, ScoreSearcher]:
    """A one-word and a two-word searcher of ``game`` with tables of the same number of entries."""
    one = ScoreSearcher(game, tt_mb=2, words=1)
    two = ScoreSearcher(game, tt_mb=3, words=2)  # an entry is 24 bytes instead of 16
    assert one.tt.shape[0] == two.tt.shape[0] and (one.tt.shape[1], two.tt.shape[1]) == (2, 3)
    return one, two


@pytest.mark.parametrize("spec", ["4x4k3:gravity", "5x4k4:gravity", "3x6k3:gravity", "6x5k4:gravity"])
def test_two_words_search_the_same_tree_as_one_word(spec: str) -> None:
    game = Game(spec)
    one, two = _pair(game)
    for pos in [game.start(), *random_positions(game, 12, seed=3)]:
        for weak in (False, True):
            one.forget()
            two.forget()
            a, b = one.score(pos, weak=weak), two.score(pos, weak=weak)
            assert a is not None and b is not None
            assert (a.score, a.nodes) == (b.score, b.nodes), (pos.move_text(), weak)
            # the nodes that reached the table (the count c4 reports) are the same too, and some of all
            probed = int(one.ctrl[GK.G_PROBED])
            assert probed == int(two.ctrl[GK.G_PROBED]) and probed <= a.nodes


def test_two_words_search_the_same_tree_on_the_scored_7x6_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KINAROW_BOOK", "off")
    game = Game("7x6k4:gravity")
    one, two = _pair(game)
    for moves, _ in references()[:20]:
        pos = game.position(" ".join(moves))
        one.forget()
        two.forget()
        a, b = one.score(pos), two.score(pos)
        assert a is not None and b is not None and (a.score, a.nodes) == (b.score, b.nodes), moves


def _wins_now(pos: Position) -> bool:
    """Can the side to move win with its next stone?"""
    for cell in pos.legal_moves():
        child = pos.copy()
        child.play(cell)
        if child.is_over and child.result != "draw":
            return True
    return False


def _late_positions(game: Game, count: int, empty: int, seed: int) -> list[Position]:
    """``count`` positions of random play with ``empty // 2`` to ``empty`` empty cells, the game not over: each
    stone one after which the opponent has no win with its next stone, where there is one (so that the
    positions are not all decided at once), the game started over when there is none."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        pos = game.start()
        target = game.cells - rng.randrange(empty // 2, empty + 1)
        while pos.stones < target:
            quiet = []
            for cell in pos.legal_moves():
                child = pos.copy()
                child.play(cell)
                if not child.is_over and not _wins_now(child):
                    quiet.append(child)
            if not quiet:
                break
            pos = rng.choice(quiet)
        if pos.stones == target:
            out.append(pos)
    return out


@pytest.mark.parametrize(("spec", "empty"), [("13x4k4:gravity", 12), ("11x5k4:gravity", 12),
                                             ("6x10k4:gravity", 11), ("8x8k4:gravity", 11)])
def test_two_word_boards_agree_with_exhaustive_minimax(spec: str, empty: int) -> None:
    game = Game(spec)
    assert layout_bits(game) > 64
    searcher = ScoreSearcher(game, tt_mb=2)
    assert searcher.board_words == 2
    for pos in _late_positions(game, 10, empty, seed=11):
        exact = exhaustive(pos)
        got = searcher.score(pos)
        assert got is not None and got.score == exact, pos.move_text()
        weak = searcher.score(pos, weak=True)
        assert weak is not None and weak.score == (exact > 0) - (exact < 0), pos.move_text()
        searcher.forget()
        both = searcher.score(pos, threads=2)
        assert both is not None and both.score == exact, pos.move_text()


def test_a_two_word_board_moves_keep_the_score() -> None:
    game = Game("13x4k4:gravity")
    searcher = ScoreSearcher(game, tt_mb=2)
    for pos in _late_positions(game, 8, 12, seed=2):
        score = searcher.score(pos)
        assert score is not None
        cell = searcher.best_move(pos, score)
        assert cell is not None
        child = pos.copy()
        child.play(cell)
        if child.is_over:
            assert score.score > 0 or child.result == "draw"
        else:
            assert -exhaustive(child) == score.score, pos.move_text()


def test_a_two_word_board_is_solved_and_certified() -> None:
    # a 13x4 position late in the game through the solver's front door: the score search, and its certificate
    # checked by the checker (which imports no search code)
    game = Game("13x4k4:gravity")
    pos = _late_positions(game, 1, 14, seed=9)[0]
    result = solve(pos, proof=True)
    assert result.search == "score search" and result.proof is not None
    exact = exhaustive(pos)
    assert result.value == ("draw" if exact == 0 else "first" if (exact > 0) == (pos.to_move == 1) else "second")
    assert check_data(result.proof.data).ok


@pytest.mark.parametrize(("spec", "why"), [("16x8k4:gravity", "<= 128"), ("17x4k4:gravity", "at most 16 columns")])
def test_boards_past_two_words_say_why(spec: str, why: str) -> None:
    fit = score_search_fit(Game(spec))
    assert not fit and why in fit.reason
    with pytest.raises(KinarowError, match="cannot take"):
        ScoreSearcher(Game(spec))


@pytest.mark.parametrize("words", [0, 3, True, "2"])
def test_the_words_must_be_one_or_two(words: object) -> None:
    with pytest.raises(KinarowError, match="words must be 1 or 2"):
        ScoreSearcher(Game("5x4k4:gravity"), words=words)  # type: ignore[arg-type]
    with pytest.raises(KinarowError, match="words must be 2 for 13x4k4"):
        ScoreSearcher(Game("13x4k4:gravity"), words=1)


@pytest.mark.parametrize("spec", ["13x4k4:gravity", "11x5k4:gravity"])
def test_two_word_boards_agree_with_the_general_kernel_in_the_middle_game(spec: str, monkeypatch) -> None:
    # an independent search on positions too deep for the minimax: the general alpha-beta kernel (cells numbered
    # without spare bits, its own win tests), which a Searcher uses when it is not given the score search
    game = Game(spec)
    searcher = ScoreSearcher(game, tt_mb=4)
    positions, scores = [], []
    for pos in _late_positions(game, 40, 30, seed=4):
        got = searcher.score(pos, weak=True)
        if got is not None and got.nodes >= 1000 and len(positions) < 8:  # positions the search works on
            positions.append(pos)
            scores.append(got)
    assert len(positions) >= 5
    monkeypatch.setattr(Searcher, "scores", property(lambda self: None))
    general = Searcher(game, tt_mb=16)
    for pos, got in zip(positions, scores, strict=True):
        assert got is not None
        want = "draw" if got.score == 0 else "first" if (got.score > 0) == (pos.to_move == 1) else "second"
        assert general.value(pos) == want, pos.move_text()


WIDE = "16x4k3:gravity"  # 80 bits of layout, every key past the low word; Connect-3 searches are short


@pytest.fixture(scope="module")
def wide_book(tmp_path_factory: pytest.TempPathFactory) -> tuple[books.Book, Path]:
    path = tmp_path_factory.mktemp("wide") / "13x4k3.book.npz"
    report = books.build(WIDE, 3, path)
    assert report.book is not None
    return report.book, path


def test_a_book_of_a_two_word_board_holds_the_searchs_scores(wide_book: tuple[books.Book, Path]) -> None:
    built, path = wide_book
    book = books.load(path, WIDE)
    assert book.version == books.WIDE_VERSION == books.file_version(path) and len(book) == len(built) == 1345
    with np.load(path, allow_pickle=False) as data:
        assert data["keys"].shape == (1345, 2) and data["keys"].dtype == np.dtype("<u8")
        assert np.all(data["keys"][:, 1] != 0)  # every key reaches past the low word
    assert [int(k) for k in book.keys] == [int(k) for k in built.keys]
    game = Game(WIDE)
    searcher = ScoreSearcher(game, tt_mb=4)
    assert searcher.board_words == 2
    stones = book.stones()
    rng = random.Random(3)
    picked = [i for i in range(len(book)) if stones[i] < 3] + rng.sample(
        [i for i in range(len(book)) if stones[i] == 3], 40)
    layout = book._layout
    for i in picked:
        cur, mask, _, _ = layout.decode_all(book.keys[i:i + 1])
        found = searcher.score_words(int(cur[0]), int(mask[0]), int(stones[i]), on_tick=lambda _: None)
        assert found is not None and found.score == int(book.scores[i])
        column = book.move_words(int(cur[0]), int(mask[0]))
        if column is not None:  # a kept move keeps the value
            move = (int(mask[0]) + layout.bottom) & layout.colmask[column]
            child = searcher.score_words(int(cur[0] ^ mask[0]), int(mask[0]) | move, int(stones[i]) + 1,
                                         on_tick=lambda _: None)
            assert child is not None and (child.score > 0) == (found.score < 0)
    # a searcher given the book answers its positions with no search; mirror images too
    booked = ScoreSearcher(game, tt_mb=4, book=book)
    for moves in ("", "a", "p", "g f"):
        position = game.position(moves) if moves else game.start()
        answer = booked.score(position)
        assert answer is not None and answer.score == book.lookup(position) and answer.nodes == 0
    # one stone deeper a weak search starts from what the book says through the position's parents
    for moves in ("g f c d", "a b c d", "h h h h"):
        child = game.position(moves)
        weak = booked.score(child, weak=True)
        cur, mask, t = kernel_words(game, child)
        plain = searcher.score_words(cur, mask, t, on_tick=lambda _: None)
        assert weak is not None and plain is not None and weak.score == (plain.score > 0) - (plain.score < 0)
    assert book.lookup(game.position("a")) == book.lookup(game.position("p"))


@pytest.mark.parametrize(("how", "said"), [
    ("one column", "the keys of a board of 80 bits of layout are not pairs of 64-bit unsigned whole numbers"),
    ("version 2", "a book of format version 2 is of a board within 64 bits of layout, and 16x4k3:gravity has 80"),
    ("past the columns", "is not a position of 16x4k3:gravity"),
    ("tampered", "is not the best of its moves' scores"),
])
def test_a_damaged_book_of_a_two_word_board_is_refused(wide_book: tuple[books.Book, Path], tmp_path: Path,
                                                       how: str, said: str) -> None:
    book, path = wide_book
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name].copy() for name in data.files}
    del arrays["digest"]  # the checks themselves, not the digest, must catch each
    if how == "one column":
        arrays["keys"] = arrays["keys"][:, 0].copy()
    elif how == "version 2":
        arrays["version"] = np.array(2)
    elif how == "past the columns":
        arrays["keys"][-1, 1] |= np.uint64(1) << np.uint64(21)  # bit 85: above the 80 bits of the columns
    else:
        stones = book.stones()
        i = int(np.nonzero((stones < 3) & (arrays["scores"] > 2))[0][0])
        arrays["scores"][i] -= 2
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    with pytest.raises(books.BookError) as caught:
        books.load(bad, WIDE)
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_a_book_of_a_two_word_board_by_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kinarow.cli import main

    out = tmp_path / "w.book.npz"
    assert main(["book", "build", WIDE, "--depth", "2", "--out", str(out), "--threads", "1"]) == 0
    assert main(["book", "info", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "format:    version 3" in shown and "positions: 137 (one of each mirror pair)" in shown



# -- play and the web page on boards of more than 64 cells (the score search alone serves them) ---------------
def test_a_board_of_more_than_64_cells_is_played_by_the_score_search_alone():
    from kinarow.errors import SolverLimitError
    from kinarow.search.alphabeta import check_searchable
    from kinarow.values import Player

    game = Game("9x8k4:gravity")  # 72 cells, 81 bits of layout
    check_searchable(game)  # no refusal
    with pytest.raises(SolverLimitError, match="at most 64 cells"):
        check_searchable(Game("9x9k5"))  # no gravity: the general kernel's 64 cells hold
    searcher = Searcher(game, tt_mb=4)
    assert searcher.score_only
    position = game.start()
    position.play_moves("a b a b a b")  # Black to move wins on a4 at once
    value, cell = searcher.choose_move(position, 5.0)
    assert value.winner is not None and value.winner.stone == 1 and position.name(cell) == "a4"
    assert searcher.move(position, value) == cell
    for ask in (lambda: searcher.forces_win(position, 1), lambda: searcher.strategy_walk(position, 1),
                lambda: searcher.game_length(position, 1), lambda: searcher.wins(position, Player.FIRST)):
        with pytest.raises(SolverLimitError) as refused:
            ask()
        assert "\n" not in str(refused.value) and "at most 64 cells" in str(refused.value)


def test_the_web_page_and_play_take_a_board_of_more_than_64_cells(capsys, monkeypatch):
    from helpers import feed, run
    from kinarow.web.server import App

    app = App(think=0.2)
    view = app.handle("/api/state", {"game": "11x6k4:gravity", "moves": [], "engine": "solver"})
    assert len(view["legal"]) == 11
    view = app.handle("/api/engine", {"game": "11x6k4:gravity", "moves": ["a", "b", "a", "b", "a", "b"],
                                      "engine": "solver"})
    assert view["moves"][-1] == "a4" and view["result"] is not None
    feed(monkeypatch, ["quit"])
    code, out, err = run(capsys, "play", "9x8k4:gravity", "--think", "0.2", "--second")
    assert code == 0, err
    assert "kinarow plays column" in out and "Game abandoned." in out


def test_the_nodes_that_reach_the_table_are_counted_apart() -> None:
    # a node scored by the checks before the table (an immediate win, a forced move, the bounds) is a node but
    # not one that reached the table: on 6x5 about 60 % of the nodes reach it
    searcher = ScoreSearcher(Game("6x5k4:gravity"), tt_mb=2)
    got = searcher.score(Game("6x5k4:gravity").start())
    assert got is not None and 0.3 * got.nodes < int(searcher.ctrl[GK.G_PROBED]) < 0.9 * got.nodes
