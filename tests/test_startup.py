"""The start of a command: a kernel family's first compile said before it runs (and nothing said when numba's
cache holds it), and the shipped opening book read only when a position within it is asked.

The compile is checked on a tiny kernel written for the test, in a fresh Python with a cache folder of its own
(``NUMBA_CACHE_DIR``), so that it compiles in a moment; the book by the files a fresh Python opens (an audit hook).
Nothing here depends on how long anything takes.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
from contextlib import nullcontext
from pathlib import Path

import pytest

import kinarow.cli as cli
from kinarow.cli.common import compile_notices
from kinarow.engine.compiling import Family, listen

ROOT = Path(__file__).resolve().parent.parent

TINY = textwrap.dedent("""
    from numba import njit


    @njit(cache=True)
    def double(x):
        return 2 * x
""")

#: prepare() of the tiny kernel with the command line's notices on stderr; prints what it could tell before and after
PREPARE = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    import tiny
    from kinarow.cli.common import compile_row, compiles_said
    from kinarow.engine.compiling import Family, is_cached, prepare
    with compiles_said(sys.stderr):  # as the command line runs a command
        before = is_cached(tiny.double, (3,))
        prepare(Family("the tiny kernels", 1), tiny.double, 3)
        print(before, tiny.double(3), is_cached(tiny.double, (3,)), compile_row() is not None)
""")


def prepare_in_a_fresh_python(folder: Path) -> tuple[str, str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(folder / "cache")}
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run([sys.executable, "-c", PREPARE, str(folder)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip(), done.stderr


@pytest.fixture()
def tiny(tmp_path: Path) -> Path:
    (tmp_path / "tiny.py").write_text(TINY, encoding="utf-8")
    return tmp_path


def test_a_cold_cache_is_said_once_and_a_warm_one_not(tiny: Path) -> None:
    out, err = prepare_in_a_fresh_python(tiny)
    assert out == "False 6 True True"  # not cached, then compiled (and said in the report's row)
    assert err == "kinarow: compiling the tiny kernels (once; about 1 s) ...\n"
    out, err = prepare_in_a_fresh_python(tiny)
    assert out == "True 6 True False"  # loaded from numba's cache: nothing compiled, nothing said
    assert err == ""


def test_a_changed_source_is_a_cold_cache_again(tiny: Path) -> None:
    prepare_in_a_fresh_python(tiny)
    source = tiny / "tiny.py"
    source.write_text(TINY + "\n# changed\n", encoding="utf-8")
    stat = source.stat()
    os.utime(source, (stat.st_atime, stat.st_mtime + 10))  # numba's stamp: the file's time and size
    out, err = prepare_in_a_fresh_python(tiny)
    assert out.startswith("False ") and "compiling the tiny kernels" in err


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_notice_is_a_status_line() -> None:
    stream = Terminal()
    with compile_notices(stream)(Family("the tiny kernels", 1)):
        pass
    assert "compiling the tiny kernels (once; about 1 s) ..." in stream.getvalue()


def test_the_command_line_listens_while_a_command_runs(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    heard: list[object] = []

    def notices(stream: object) -> object:
        heard.append(stream)
        return lambda family: nullcontext()

    monkeypatch.setattr("kinarow.cli.common.compile_notices", notices)
    before = listen(None)
    listen(before)
    assert cli.main(["show", "3x3k3"]) == 0
    assert heard == [sys.stderr]
    assert listen(before) is before  # set back when the command ended
    heard.clear()
    assert cli.main(["check", str(ROOT / "certificates" / "4x4k4.matching.json.gz")]) == 0
    assert heard == []  # kinarow check runs no search kernel: no notices (and nothing of engine/ loaded)
    capsys.readouterr()


#: which book files a fresh Python opens while it imports kinarow, solves a free game and makes a Connect Four
#: searcher, asks it a position deeper than the book, then one the book holds
BOOK = textwrap.dedent("""
    import sys
    opened = []
    sys.addaudithook(lambda event, args: opened.append(event) if event == "open" and str(args[0]).endswith(
        ".book.npz") else None)
    import kinarow
    from kinarow import Game
    from kinarow.search import book
    kinarow.solve("3x3k3")
    print(len(opened))
    c4 = Game("7x6k4:gravity")
    searcher, lock = book.searcher_for(c4, 1)
    print(len(opened), searcher.book.lookup(c4.position("d d d d c c c e e e")))
    score = searcher.book.lookup(c4.start())
    print(len(opened) > 0, score > 0)
""")


def test_the_shipped_book_is_read_at_the_first_position_it_holds() -> None:
    if not (ROOT / "src" / "kinarow" / "data" / "7x6k4-gravity.book.npz").is_file():
        pytest.skip("no book is shipped for 7x6")
    env = {**os.environ, "KINAROW_BOOK": "on"}
    done = subprocess.run([sys.executable, "-c", BOOK], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    free, deep, held = done.stdout.strip().splitlines()
    assert free == "0"  # importing kinarow and solving a free game open no book
    assert deep == "0 None"  # a position deeper than the book is not looked up in it
    assert held == "True True"  # the empty board: the book is read now, and says the first player wins


#: each search's first question in a fresh Python: the overloads of its entry kernel then (prepare's and the call's)
ONE_OVERLOAD = textwrap.dedent("""
    from kinarow import Game, Searcher
    from kinarow.engine import gravity_kernel, kernel, pns_kernel
    from kinarow.search.connect import ScoreSearcher
    from kinarow.search.proof_search import ProofSearcher
    Searcher("3x3k3").value(Game("3x3k3").start())
    ScoreSearcher("4x4k3:gravity").score(Game("4x4k3:gravity").start())
    ProofSearcher("4x4k4").attacker_wins(Game("4x4k4").start(), 1)
    print(len(kernel.deepen.signatures), len(gravity_kernel.solve_score.signatures), len(pns_kernel.dfpn.signatures))
""")


def test_prepare_makes_the_overload_each_search_calls() -> None:
    """prepare() types the arguments as numba types the search's own call: one overload each, not two."""
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run([sys.executable, "-c", ONE_OVERLOAD], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.split() == ["1", "1", "1"]
