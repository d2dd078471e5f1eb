"""Files that kinarow reads or writes are not trusted: the results store's rows, certificate files (and the files a
certificate names), output paths and standard output. Each bad case is one sentence and a non-zero exit, never a
traceback and never a wrong answer (issue: hardening)."""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
import sys
import types
from pathlib import Path

import pytest

from helpers import run
from kinarow import Game
from kinarow.proofs import MAX_CERTIFICATE_BYTES, check_data, check_text, read_certificate
from kinarow.proofs.tree import board_key
from kinarow.search.solve import solve
from kinarow.store import Store

SRC = str(Path(__file__).resolve().parents[1] / "src")
CERTIFICATES = Path(__file__).resolve().parents[1] / "certificates"


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


def set_row(path: Path, text: str, table: str = "results") -> None:
    with sqlite3.connect(path) as db:
        db.execute(f"UPDATE {table} SET data = ?", (text,))


# -- 1. the results store ---------------------------------------------------------------------------
def test_another_knowledge_level_searches_again(capsys, tmp_path):
    store = str(tmp_path / "r.sqlite")
    code, first, _ = run(capsys, "solve", "4x4k4", "--store", store)
    assert code == 0 and "knowledge: matching" in first
    code, none, _ = run(capsys, "solve", "4x4k4", "--store", store, "--knowledge", "none")
    assert code == 0 and "Answered at once" not in none and "knowledge: none" in none
    code, again, _ = run(capsys, "solve", "4x4k4", "--store", store, "--knowledge", "none")
    assert "Answered at once" in again and "knowledge: none" in again


def test_a_searcher_s_own_options_key_the_store(tmp_path):
    from kinarow.search.alphabeta import Searcher

    with Store(tmp_path / "r.sqlite") as store:
        solve("4x3k3", store=store)  # symmetry on, knowledge matching
        searcher = Searcher(Game("4x3k3"), knowledge="none")
        assert not solve("4x3k3", store=store, searcher=searcher).from_store
        assert solve("4x3k3", store=store, knowledge="none").from_store  # kept under the searcher's own level
        searcher = Searcher(Game("4x3k3"), knowledge="matching", symmetry=False)
        assert not solve("4x3k3", store=store, searcher=searcher).from_store
        assert solve("4x3k3", store=store, symmetry=False).from_store


BAD_ROWS = [
    '{"value":"first","best_move":"zz9"}',
    "not json{",
    "[1,2,3]",
    '{"value":"draw","best_move":"b2","nodes":"abc"}',
    '{"value":"draw","best_move":"b2","nodes":-1}',
    '{"value":"maker","best_move":"b2"}',
    '{"value":"draw","best_move":"b2","knowledge":"everything"}',
    '{"value":"draw","best_move":"b2","seconds":NaN}',
    '{"value":"draw","best_move":"b2","root_proof":"yes"}',
    '{"value":"draw","best_move":"a1"}',  # a1 is taken after the moves below
    '{"value":"draw","best_move":["b2"]}',
    '{"best_move":"b2"}',
    "[" * 100_000 + "]" * 100_000,
    '"draw"',
    "null",
]


@pytest.mark.parametrize("row", BAD_ROWS)
def test_a_bad_stored_row_is_ignored_with_one_note_and_the_position_solved_again(capsys, tmp_path, row):
    store = tmp_path / "r.sqlite"
    code, first, _ = run(capsys, "solve", "4x4k4", "--moves", "a1", "--store", str(store))
    assert code == 0
    set_row(store, row)
    code, again, err = run(capsys, "solve", "4x4k4", "--moves", "a1", "--store", str(store))
    assert code == 0 and "Answered at once" not in again
    assert again.splitlines()[0] == first.splitlines()[0] and "zz9" not in again
    assert one_line(err).startswith("kinarow: note: ignored a bad row of the results store")
    # the search wrote a good row back: the next question is answered from it, quietly
    code, third, err = run(capsys, "solve", "4x4k4", "--moves", "a1", "--store", str(store))
    assert "Answered at once" in third and err == ""


def test_a_stored_value_is_served_with_a_proof_only_when_its_certificate_checks(capsys, tmp_path):
    store = tmp_path / "r.sqlite"
    run(capsys, "solve", "4x3k3", "--store", str(store), "--strategy", str(tmp_path / "s.json"))
    # a consistent-looking row that lies: a draw, where the first player wins
    set_row(store, '{"value":"draw","best_move":"b2","knowledge":"matching","root_proof":false,"revision":2}')
    proof = tmp_path / "p.json"
    code, out, err = run(capsys, "solve", "4x3k3", "--store", str(store), "--proof", str(proof))
    assert code == 0 and out.startswith("First player (Black) wins") and "Answered at once" not in out
    assert "ignored a bad row" in one_line(err)
    assert check_data(json.loads(proof.read_text())).ok


def test_a_tampered_stored_strategy_is_not_served(tmp_path):
    with Store(tmp_path / "r.sqlite", on_bad_row=None) as store:
        solve("4x3k3", store=store, strategy=True)
        key = board_key(Game("4x3k3").start())
        data = store.get_certificate("kinarow.strategy", "4x3k3", key)
        data = {**data, "winner": "second", "claim": "second wins"}
        store.put_certificate("kinarow.strategy", "4x3k3", key, data)
        again = solve("4x3k3", store=store, strategy=True)
        assert not again.from_store and again.value == "first" and again.strategy.winner == "first"
        assert len(store.ignored) == 1 and "strategy" in store.ignored[0]


def test_a_tampered_stored_pairing_is_not_served(tmp_path):
    from kinarow.search import certify

    position = Game("5x5k5").start()
    result = solve(position, knowledge="pairing")
    result.certificate = None  # not the root's matching sets: the draw is proved by a pairing
    with Store(tmp_path / "r.sqlite", on_bad_row=None) as store:
        first = certify.certificate(position, result, store)
        assert first.kind == "pairing" and check_data(first.data).ok
        key = board_key(position)
        data = store.get_certificate("kinarow.pairing", "5x5k5", key)
        store.put_certificate("kinarow.pairing", "5x5k5", key, {**data, "pairs": data["pairs"][1:]})
        again = certify.certificate(position, result, store)
        assert check_data(again.data).ok and len(store.ignored) == 1 and "checker rejects it" in store.ignored[0]


def test_bad_job_rows_are_skipped(tmp_path):
    with Store(tmp_path / "r.sqlite", on_bad_row=None) as store:
        store.put_job_row("job", "a", {"x": 1})
        store.put_job_row("job", "b", {"x": 2})
        with sqlite3.connect(store.path) as db:
            db.execute("UPDATE job_rows SET data = 'not json{' WHERE key = 'b'")
        assert store.job_rows("job") == {"a": {"x": 1}}
        assert len(store.ignored) == 1


@pytest.mark.parametrize("kind", ["text", "garbage", "directory", "unwritable"])
def test_a_bad_kinarow_store_is_the_same_clear_error_as_store(capsys, tmp_path, monkeypatch, kind):
    path = tmp_path / "store"
    if kind == "text":
        path.write_text("hello\n")
    elif kind == "garbage":
        path.write_bytes(os.urandom(4096))
    elif kind == "directory":
        path.mkdir()
    else:
        path.write_text("x")  # a file where a folder must be: nothing can be made below it
        path = path / "r.sqlite"
    monkeypatch.setenv("KINAROW_STORE", str(path))
    code, out, err = run(capsys, "solve", "3x3k3")
    assert code == 2 and out == ""
    line = one_line(err)
    assert line.startswith(f"kinarow: error: cannot use '{path}' as the results store") and "KINAROW_STORE" in line
    monkeypatch.delenv("KINAROW_STORE")
    code, _, err = run(capsys, "solve", "3x3k3", "--store", str(path))
    assert code == 2 and one_line(err).startswith(f"kinarow: error: cannot use '{path}'")


# -- 2. kinarow check on bad files --------------------------------------------------------------------
def bomb(path: Path, megabytes: int) -> None:
    """A gzip file of ``megabytes`` MiB of zeros (a few hundred KiB on disk: one member of 1 MiB, repeated)."""
    path.write_bytes(gzip.compress(b"0" * 2**20, 9) * megabytes)


@pytest.mark.parametrize("case, message", [
    ("garbage.gz", "is not a readable gzip file"),
    ("cut.json.gz", "is not a readable gzip file"),
    ("deep.json", "nested too deeply"),
    ("bomb.json.gz", "may unpack to at most 64 times its size"),
    ("latin1.json", "is not UTF-8 text"),
    ("empty.json", "is empty"),
    ("blank.json.gz", "is empty"),
    ("folder", "Is a directory"),
    ("missing.json", "No such file"),
    ("fifo.json", "is not a regular file"),
    ("deep.json --compiled", "nested too deeply"),
    ("garbage.gz --compiled", "is not a readable gzip file"),
])
def test_check_says_one_sentence_for_a_file_it_cannot_use(capsys, tmp_path, case, message):
    case, _, compiled = case.partition(" ")
    path = tmp_path / case
    if case == "garbage.gz":
        path.write_bytes(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + bytes(range(256)) * 4)
    elif case == "cut.json.gz":
        path.write_bytes(gzip.compress(b'{"format": "kinarow.pairing"}' * 100)[:40])
    elif case == "deep.json":
        path.write_text("[" * 200_000 + "]" * 200_000)
    elif case == "bomb.json.gz":
        bomb(path, MAX_CERTIFICATE_BYTES // 2**20 + 1)
    elif case == "latin1.json":
        path.write_bytes('{"game": "4x4k4 é"}'.encode("latin-1"))
    elif case == "empty.json":
        path.write_bytes(b"")
    elif case == "blank.json.gz":
        path.write_bytes(gzip.compress(b"  \n"))
    elif case == "folder":
        path.mkdir()
    elif case == "fifo.json":
        os.mkfifo(path)  # nobody writes to it: reading it must not wait
    code, out, err = run(capsys, "check", str(path), *([compiled] if compiled else []))
    assert code == 1 and out == ""
    line = one_line(err)
    assert line.startswith("kinarow: error:") and message in line


def test_the_cap_is_above_every_shipped_certificate():
    for path in CERTIFICATES.glob("*.json.gz"):
        with gzip.open(path, "rb") as file:
            assert len(file.read(MAX_CERTIFICATE_BYTES + 1)) <= MAX_CERTIFICATE_BYTES // 2, path.name
    assert read_certificate(CERTIFICATES / "10x4k4.strategy.json.gz").startswith("{")


def test_deep_json_is_a_verdict_not_an_exception():
    verdict = check_text("[" * 100_000 + "]" * 100_000)
    assert not verdict.ok and not verdict.usable and "nested too deeply" in verdict.reason
    deep: object = []
    for _ in range(50_000):
        deep = [deep]
    assert not check_data({"format": "kinarow.strategy", "version": 2, "game": "3x3k3", "moves": [],
                           "winner": "first", "choices": {"x": deep}}).ok


# -- 3. files a certificate names ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def torus_files(tmp_path_factory):
    from kinarow.knowledge.infinite import torus

    folder = tmp_path_factory.mktemp("torus")
    (folder / "sub").mkdir()
    result = torus.enumerate_classes("hex7")
    sha = torus.save_classes(result, folder / "sub" / "hex7.bin")
    (folder / "outside.bin").write_bytes((folder / "sub" / "hex7.bin").read_bytes())
    return folder, torus.certificate(result, "hex7.bin", sha, None)


REFUSED = "must be named by a relative path to a file in the certificate's own folder"


@pytest.mark.parametrize("name", ["/dev/zero", "/etc/passwd", "/no/such/file", "../outside.bin", "../nothing.bin",
                                  "a/../../outside.bin", "", "link-out.bin", "link-nowhere.bin", 7, None,
                                  "..\\outside.bin"])
def test_a_class_file_must_be_inside_the_certificate_s_folder(torus_files, name):
    from kinarow.proofs.torus import check

    folder, cert = torus_files
    sub = folder / "sub"
    if not (sub / "link-out.bin").exists():
        (sub / "link-out.bin").symlink_to(folder / "outside.bin")
        (sub / "link-nowhere.bin").symlink_to(folder / "nothing.bin")
    verdict = check({**cert, "class_file": name}, sub)
    assert not verdict.ok and REFUSED in verdict.reason
    # the answer is the same whether or not such a file exists outside
    assert verdict.reason.split(", not ")[0] == check({**cert, "class_file": "/x"}, sub).reason.split(", not ")[0]


def test_a_class_file_inside_the_folder_is_checked_and_bounded(torus_files):
    from kinarow.proofs.torus import check

    folder, cert = torus_files
    sub = folder / "sub"
    assert check(cert, sub).ok
    if not (sub / "link-in.bin").exists():
        (sub / "link-in.bin").symlink_to("hex7.bin")
        os.mkfifo(sub / "fifo.bin")
        (sub / "long.bin").write_bytes((sub / "hex7.bin").read_bytes() + b"\0" * 10_000)
    assert check({**cert, "class_file": "link-in.bin"}, sub).ok  # a link that stays inside is fine
    assert "not a regular file" in check({**cert, "class_file": "fifo.bin"}, sub).reason  # and does not hang
    assert "longer than its certificate's class count allows" in check({**cert, "class_file": "long.bin"}, sub).reason
    assert "not a regular file" in check({**cert, "class_file": "."}, sub).reason or \
        REFUSED in check({**cert, "class_file": "."}, sub).reason


def test_torus_load_reads_only_a_regular_file(capsys, tmp_path):
    os.mkfifo(tmp_path / "fifo.bin")
    code, _, err = run(capsys, "torus", "hex7", "--load", str(tmp_path / "fifo.bin"), "--no-graph")
    assert code == 2 and "is not a regular file" in one_line(err)


def test_without_a_folder_no_file_is_read(torus_files):
    folder, cert = torus_files
    verdict = check_data(cert)  # base=None: how the web server checks
    assert not verdict.ok and not verdict.usable and "files are not read here" in verdict.reason
    assert check_data(cert, str(folder / "sub")).ok


def test_check_refuses_a_class_file_outside_its_folder(capsys, torus_files):
    folder, cert = torus_files
    path = folder / "sub" / "bad.json"
    path.write_text(json.dumps({**cert, "class_file": "/dev/zero"}))
    code, out, err = run(capsys, "check", str(path))
    assert code == 1 and out.startswith("REJECTED:") and REFUSED in out and err == ""


# -- 4. output paths, standard output, start-up -------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["solve", "4x3k3", "--no-store", "--strategy", "{folder}"],
    ["solve", "4x3k3", "--no-store", "--proof", "{folder}"],
    ["solve", "4x3k3", "--no-store", "--proof", "{missing}/p.json"],
    ["solve", "4x3k3", "--no-store", "--strategy", ""],
    ["solve", "4x3k3", "--no-store", "--workers", "2", "--proof", "{folder}"],
    ["show", "3x3k3", "--svg", "{folder}"],
    ["show", "3x3k3", "--png", "{missing}/b.png"],
    ["pairing", "5x5k5", "--out", "{folder}"],
    ["pairing", "5x5k5", "--svg", "{missing}/x.svg"],
    ["matching", "4x4k4", "--out", "{folder}"],
    ["verify", "take-even", "5x4k4:gravity,misere", "--out", "{folder}"],
    ["torus", "hex7", "--out", "{folder}"],
    ["tiling", "hj9", "--svg", "{folder}"],
    ["settle", "7x7k5", "--out", "{file}", "--time-limit", "1"],
    ["settle", "7x7k5", "--out", "{file}/below", "--time-limit", "1"],
])
def test_output_paths_are_checked_before_the_work(capsys, tmp_path, argv):
    (tmp_path / "file").write_text("x")
    names = {"folder": str(tmp_path), "missing": str(tmp_path / "no" / "such"), "file": str(tmp_path / "file")}
    code, out, err = run(capsys, *[a.format(**names) for a in argv])
    assert code == 2 and out == ""
    line = one_line(err)
    assert line.startswith("kinarow: error: --") and ("folder" in line or "cannot" in line or "empty" in line)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # nothing was left behind


def test_an_output_path_that_can_be_written_is_left_as_it_was(capsys, tmp_path):
    from kinarow.cli.common import check_outputs

    existing = tmp_path / "kept.json"
    existing.write_text("old")
    check_outputs(("--proof", str(existing)), ("--strategy", str(tmp_path / "new.json")))
    assert existing.read_text() == "old" and not (tmp_path / "new.json").exists()


def cli(*argv: str, stdout: object = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run([sys.executable, "-m", "kinarow", *argv], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, env=env, timeout=300)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_is_one_sentence():
    with open("/dev/full", "w") as full:
        done = cli("solve", "4x3k3", "--no-store", stdout=full)
    assert done.returncode == 1
    assert one_line(done.stderr) == "kinarow: error: cannot write the output: No space left on device"


def test_a_reader_that_goes_away_ends_quietly():
    env = {**os.environ, "PYTHONPATH": SRC}
    done = subprocess.run(f"'{sys.executable}' -m kinarow reproduce --list | head -c 1", shell=True,
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.stderr == ""


def test_ctrl_c_while_starting_is_one_line(capsys, monkeypatch):
    import kinarow.__main__ as entry
    import kinarow.cli as cli_module

    def interrupted_import(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_module, "build_parser", interrupted_import)
    assert cli_module.main(["solve", "3x3k3"]) == 130
    assert one_line(capsys.readouterr().err) == entry.START_INTERRUPTED

    broken = types.ModuleType("kinarow.cli")
    broken.__getattr__ = interrupted_import  # type: ignore[method-assign]
    monkeypatch.setitem(sys.modules, "kinarow.cli", broken)
    assert entry.run(["solve", "3x3k3"]) == 130
    assert one_line(capsys.readouterr().err) == entry.START_INTERRUPTED


def test_a_pairing_table_row_of_the_wrong_types_is_worked_out_again(tmp_path):
    from kinarow.knowledge.pairing import TableRow, table_row_fits

    row = {name: 0 for name in TableRow.__dataclass_fields__}
    row |= {"bound_allows": True, "proposition1_allows": True, "exists": None, "seconds": 0.5,
            "theorem10_where": "", "family": "", "proved_by": "", "method": ""}
    with Store(tmp_path / "r.sqlite", on_bad_row=None) as store:
        assert table_row_fits(store, "job", "3x3k3", row) and not store.ignored
        assert not table_row_fits(store, "job", "3x3k3", {**row, "m": "abc"}) and len(store.ignored) == 1
        assert not table_row_fits(store, "job", "3x3k3", {**row, "pairs": True})
        assert not table_row_fits(store, "job", "3x3k3", {**row, "exists": "yes"})
        assert not table_row_fits(store, "job", "3x3k3", {"m": 3})  # another version's row: not a bad one
        assert len(store.ignored) == 3


def test_ctrl_c_while_importing_the_command_line_ends_the_process_with_one_line():
    # an import hook raises KeyboardInterrupt where Ctrl-C would land while 'python -m kinarow' imports
    code = (
        "import sys, runpy\n"
        "class Interrupt:\n"
        "    @staticmethod\n"
        "    def find_spec(name, path=None, target=None):\n"
        "        if name == 'kinarow.cli':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Interrupt)\n"
        "sys.argv = ['kinarow', 'solve', '3x3k3']\n"
        "runpy.run_module('kinarow', run_name='__main__', alter_sys=True)\n"
    )
    env = {**os.environ, "PYTHONPATH": SRC}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 130 and done.stdout == ""
    assert one_line(done.stderr) == "Interrupted (Ctrl-C) while kinarow was starting; nothing was done."


def test_a_tiling_certificate_cannot_make_the_check_run_for_ever():
    from kinarow.knowledge.infinite import tiling

    data = tiling.named("heptomino").to_json()
    assert check_data(data).ok
    huge = check_data({**data, "lattice": [[1_000_000, 0], [0, 1_000_000]]})  # det^2 steps a cell, were it built
    assert not huge.ok and "cells per period" in huge.reason
    many = check_data({**data, "tile": [[x, 0] for x in range(10_000)], "lattice": [[10_000, 0], [0, 1]]})
    assert not many.ok and "at most 256" in many.reason


def test_a_verified_strategy_check_stops_past_the_positions_it_claims(capsys, tmp_path):
    path = tmp_path / "te.json"
    code, _, _ = run(capsys, "verify", "take-even", "5x4k3:gravity,misere", "--out", str(path))
    data = json.loads(path.read_text())
    assert code == 0 and check_data(data).ok
    # a claim of 10 positions on a large board: the walk stops at 10, it does not walk the large board
    verdict = check_data({**data, "game": "7x6k4:gravity,misere", "positions": 10})
    assert not verdict.ok and "more than the 10 positions claimed" in verdict.reason
    assert verdict.details["positions_checked"] <= 10 + Game("7x6k4").cells  # one line deep past it
