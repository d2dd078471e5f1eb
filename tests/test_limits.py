"""Limits on work that grows with the board or with a number the user gives: each cap is one named constant beside
the code it protects, and going past it is refused with one sentence that names the cap (issue: hardening). Also
the leftovers of the hardening sweep: the same note from every solve, verify()'s checked options, ASCII numbers."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kinarow
import kinarow.values
from helpers import run
from kinarow import Game, KinarowError
from kinarow.knowledge import matching, pairing
from kinarow.proofs import MAX_CHECK_CELLS, check_data
from kinarow.strategies import get


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


# -- a board where no line fits says so, whichever solve answers --------------------------------------------------
def test_the_parallel_solve_notes_that_no_line_fits_on_a_finished_board() -> None:
    from kinarow.search.parallel.coordinator import solve

    result = solve("3x3k9", moves="a1 b1 c1 a2 b2 c2 a3 b3 c3", workers=1)
    assert result.value == "draw"
    assert result.note == "no line of 9 cells fits on this 3x3 board"


def test_the_parallel_solve_notes_that_no_line_fits() -> None:
    from kinarow.search.parallel.coordinator import solve

    result = solve("3x3k9", workers=1)
    assert (result.value, result.note) == ("draw", kinarow.solve("3x3k9").note)
    assert result.describe().startswith("Draw with perfect play: no line of 9 cells fits on this 3x3 board.")


def test_show_says_that_no_line_fits(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "3x3k9")
    assert code == 0
    assert "Nobody can complete a line: no line of 9 cells fits on this 3x3 board." in out
    code, out, _ = run(capsys, "show", "3x3k3")
    assert code == 0 and "Nobody can" not in out


# -- huge boards -------------------------------------------------------------------------------------------------
def test_pictures_of_huge_boards_are_refused_before_anything_is_printed(
        capsys: pytest.CaptureFixture[str], tmp_path: object) -> None:
    from kinarow import svg

    with pytest.raises(KinarowError, match=f"at most {svg.MAX_PICTURE_CELLS:,} cells"):
        svg.board(Game("101x100k5").start())
    assert svg.board(Game("100x100k5").start()).startswith("<svg")
    code, out, err = run(capsys, "show", "702x702k5", "--svg", str(tmp_path) + "/board.svg")
    assert code == 2 and out == ""
    assert "492,804 cells; pictures are drawn of boards of at most 10,000 cells" in one_line(err)


def test_pairing_searches_of_huge_boards_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(KinarowError, match=f"at most {pairing.MAX_PAIRING_CELLS:,} cells"):
        pairing.find("65x64k5")
    with pytest.raises(KinarowError, match=f"at most {pairing.MAX_PAIRING_CELLS:,} cells"):
        pairing.construct(702, 702, 702)
    code, _, err = run(capsys, "pairing", "702x702k5")
    assert code == 2 and "pairings are searched on boards of at most 4,096 cells" in one_line(err)
    code, _, err = run(capsys, "pairing-table", "--max-side", str(pairing.MAX_TABLE_SIDE + 1))
    assert code == 2 and "the most allowed is 64" in one_line(err)
    with pytest.raises(KinarowError, match="runs from 1 to 64"):
        pairing.table_boards(65)


def test_matching_searches_of_huge_boards_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(KinarowError, match=f"at most {matching.MAX_MATCHING_CELLS:,} cells"):
        matching.find_position("65x64k5")
    code, _, err = run(capsys, "matching", "702x702k5")
    assert code == 2 and "matching sets are searched on boards of at most 4,096 cells" in one_line(err)


def test_a_matching_search_with_too_many_markers_is_refused_before_naming_its_groups() -> None:
    # 16x16k5 has 256 live empty cells: refused at once (the groups were compared pairwise before)
    with pytest.raises(KinarowError, match=f"256 markers is too many; .* at most {matching.MAX_MARKERS}"):
        matching.find_position("16x16k5")


ENVELOPE = {"moves": [], "claim": "draw"}
HUGE_CERTIFICATES = [
    {"format": "kinarow.pairing", "version": 1, "game": "702x702k5", "pairs": [], **ENVELOPE},
    {"format": "kinarow.draw", "version": 1, "game": "702x702k5", **ENVELOPE},
    {"format": "kinarow.strategy", "version": 2, "game": "702x702k5", **ENVELOPE},
    {"format": "kinarow.matching", "version": 1, "game": "702x702k5", "covers": [], **ENVELOPE},
    {"format": "kinarow.verified-strategy", "version": 1, "game": "702x702k5:gravity,misere",
     "strategy": "take-even", "player": "second", "outcome": "win", "positions": 5},
]


@pytest.mark.parametrize("data", HUGE_CERTIFICATES, ids=[d["format"] for d in HUGE_CERTIFICATES])
def test_certificates_of_huge_boards_are_refused_at_once(data: dict) -> None:
    verdict = check_data(data)
    assert not verdict.ok
    assert f"certificates are checked for boards of at most {MAX_CHECK_CELLS:,} cells" in verdict.reason


# -- a draw certificate's leaf names its pairing in ASCII digits -------------------------------------------------
@pytest.fixture(scope="module")
def draw_3x3() -> dict:
    from kinarow.search.alphabeta import Searcher
    from kinarow.search.draw import draw_certificate

    game = Game("3x3k3")
    data, _ = draw_certificate(game.start(), Searcher(game, knowledge="pairing"))
    assert check_data(data).ok
    return data


@pytest.mark.parametrize("index", ["\u0660", "\uff10", "1" * 5000, "0" * 20])
def test_a_leaf_index_is_a_few_ascii_digits(draw_3x3: dict, index: str) -> None:
    data = copy.deepcopy(draw_3x3)
    half = next(h for h in data.values() if isinstance(h, dict) and "=0" in h.get("tokens", "").split())
    half["tokens"] = " ".join("=" + index if t == "=0" else t for t in half["tokens"].split())
    verdict = check_data(data)
    assert not verdict.ok
    assert "which is not in the list" in verdict.reason


# -- verify() checks its arguments as solve() does ---------------------------------------------------------------
GAME = "4x2k3:gravity,misere"


@pytest.mark.parametrize(("options", "said"), [
    ({"max_positions": 1.5}, "max_positions must be a positive whole number, not 1.5"),
    ({"max_positions": "10"}, "max_positions must be a positive whole number, not '10'"),
    ({"max_positions": True}, "max_positions must be a positive whole number, not True"),
    ({"max_positions": 10**30}, "is too large; the most allowed is 10**18"),
    ({"on_tick": 3}, "on_tick must be a function of the position count, not 3"),
    ({"player": 5}, "the player must be 1, 2, 'first' or 'second', not 5"),
    ({"player": True}, "the player must be 1, 2, 'first' or 'second', not True"),
    ({"player": 2.0}, "the player must be 1, 2, 'first' or 'second', not 2.0"),
    ({"foo": 1}, "verify() has no option 'foo'; its options are max_positions, on_tick"),
])
def test_verify_checks_its_options(options: dict, said: str) -> None:
    with pytest.raises(KinarowError) as caught:
        kinarow.verify("take-even", GAME, **options)
    assert said in str(caught.value)


def test_verify_checks_its_strategy_and_still_verifies() -> None:
    with pytest.raises(KinarowError, match="the strategy must be a Strategy or the name of one, not 3"):
        kinarow.verify(3, GAME)
    assert kinarow.verify(get("take-even"), GAME, 2).outcome == "win"
    assert kinarow.verify("take-even", GAME, "second", max_positions=10**6).outcome == "win"


# -- the sweep: numbers read from files are JSON whole numbers in range; searches sized by the user are capped -----
VERIFIED = {"format": "kinarow.verified-strategy", "version": 1, "game": "4x2k3:gravity,misere",
            "strategy": "take-even", "player": "second", "outcome": "win"}


@pytest.mark.parametrize("positions", ["5", "\u0665", 5.5, True, -1, 10**30])
def test_a_verified_strategy_claims_a_whole_number_of_positions(positions: object) -> None:
    verdict = check_data({**VERIFIED, "positions": positions})
    assert not verdict.ok
    assert "'positions' must be a whole number from 0 to 20,000,000" in verdict.reason


def test_a_verified_strategy_may_claim_no_positions_only_when_the_walk_meets_none() -> None:
    # on 1x1 the first player's stone ends the game: there is no position of the opponent to re-examine
    one = {**VERIFIED, "game": "1x1k3:gravity,misere", "strategy": "pair-row", "player": "first", "outcome": "draw"}
    assert check_data({**one, "positions": 0}).ok
    assert not check_data({**one, "positions": 1}).ok
    assert not check_data({**VERIFIED, "positions": 0}).ok  # 4x2 has positions to walk: zero is a false claim


@pytest.mark.parametrize("coordinate", ["0", "\u0660", 0.0, True, 10**30])
def test_a_tiling_coordinate_is_a_whole_number_in_range(coordinate: object) -> None:
    from kinarow.knowledge.infinite import tiling

    data = tiling.named("hj9").to_json()
    assert check_data(data).ok
    data["tile"][0] = [coordinate, data["tile"][0][1]]
    verdict = check_data(data)
    assert not verdict.ok
    assert verdict.reason.startswith("a coordinate in the tiling certificate must be a whole number")


@pytest.mark.parametrize("count", ["\u0661", "1", 1.0, -1, 2**40])
def test_a_torus_class_file_header_holds_whole_numbers(count: object) -> None:
    import json

    from kinarow.proofs.torus import FILE_MAGIC, TorusError, parse_classes

    header = json.dumps({"count": count, "n": 2, "bytes_per_class": 2}).encode()
    with pytest.raises(TorusError, match="count, n and bytes_per_class must be whole numbers"):
        parse_classes(FILE_MAGIC + header + b"\n" + b"\0\0")


@pytest.mark.parametrize(("argv", "said"), [
    (["matching-search", "--exhaustive", "13"], "--exhaustive = '13' is too large; the most allowed is 12"),
    (["matching-search", "--max-markers", "1000"], "--max-markers = '1000' is too large; the most allowed is 16"),
    (["matching-search", "--tries", "1000000000"], "--tries = '1000000000' is too large; the most allowed is 100,000"),
    (["tiling", "search", "--k", "1000000000000"], "--k = '1000000000000' is too large; the most allowed is 64"),
    (["tiling", "search", "--k", "5", "--max-cells", "100000"], "--max-cells = '100000' is too large"),
])
def test_searches_sized_by_the_user_are_capped(capsys: pytest.CaptureFixture[str], argv: list[str], said: str) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2 and said in one_line(err)


def test_the_search_functions_hold_their_caps_too() -> None:
    from kinarow.knowledge.infinite import tiling_search
    from kinarow.knowledge.matching import search

    with pytest.raises(KinarowError, match="runs from 1 to 12"):
        search.exhaustive(search.MAX_EXHAUSTIVE_MARKERS + 1)
    with pytest.raises(KinarowError, match="runs from 1 to 16"):
        search.search_abstract(search.MAX_GREEDY_MARKERS + 1)
    with pytest.raises(KinarowError, match="takes k from 3 to 64"):
        tiling_search.search(tiling_search.MAX_K + 1, 12)
    with pytest.raises(KinarowError, match="runs from 2 to 64 cells"):
        tiling_search.search(5, tiling_search.MAX_BLOCK_CELLS + 1)


def test_stray_files_beside_a_draw_checkpoint_are_not_deltas(tmp_path: Path) -> None:
    from kinarow.search.draw import _deltas_of

    main = tmp_path / "walk.npz"
    for name in ("walk.npz.g1.d0.npz", "walk.npz.g1.dabc.npz", "walk.npz.g\u0661.d0.npz", "walk.npz.g1.d\u0660.npz"):
        (tmp_path / name).write_bytes(b"")
    assert [p.name for p in _deltas_of(main)] == ["walk.npz.g1.d0.npz"]


def test_read_json_is_bounded_and_one_sentence(tmp_path: Path) -> None:
    from kinarow.cli.scale import read_json

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(KinarowError, match="nested too deeply"):
        read_json(str(deep))
    bad = tmp_path / "bad.json"
    bad.write_text("not json{")
    with pytest.raises(KinarowError, match="is not valid JSON"):
        read_json(str(bad))


@pytest.mark.parametrize("argv", [["pairing-table", "--workers", "100000"],
                                  ["reproduce", "--list", "--workers", "100000"]])
def test_worker_processes_are_capped(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    from kinarow.limits import MAX_WORKERS

    code, _, err = run(capsys, *argv)
    assert code == 2 and f"--workers = '100000' is too large; the most allowed is {MAX_WORKERS:,}" in one_line(err)


def test_a_pool_holds_its_worker_cap() -> None:
    from kinarow.limits import MAX_WORKERS, WORKERS_PER_CORE, check_workers, cores

    assert MAX_WORKERS == WORKERS_PER_CORE * cores() >= 4  # two workers (the tests') run on a machine of one core
    assert check_workers(MAX_WORKERS) == MAX_WORKERS and check_workers(cores()) == cores()  # the default fits
    with pytest.raises(KinarowError, match=f"the most allowed is {MAX_WORKERS:,} \\({WORKERS_PER_CORE} a core\\)"):
        check_workers(MAX_WORKERS + 1)


@pytest.mark.parametrize("argv", [
    ["solve", "4x4k4", "--workers", "{n}"],
    ["settle", "7x4k4", "--workers", "{n}", "--time-limit", "5"],
    ["settle", "8x4k4", "--draw-proof", "--workers", "{n}", "--time-limit", "5"],
    ["prove", "16x4k4", "--workers", "{n}", "--plan"],
], ids=["solve", "settle", "settle-draw-proof", "prove"])
def test_local_workers_are_a_few_a_core(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    # --workers 1,024 was accepted, each worker with its own table
    from kinarow.limits import MAX_WORKERS, cores

    code, _, err = run(capsys, *(a.format(n=MAX_WORKERS + 1) for a in argv))
    assert code == 2 and "Traceback" not in err
    assert f"--workers = {MAX_WORKERS + 1} is too many local processes for this machine's {cores():,} core" in err
    assert f"the most allowed is {MAX_WORKERS:,}" in one_line(err) and len(err.strip().splitlines()) == 1


def test_a_cluster_s_workers_are_not_bounded_by_the_local_cores() -> None:
    from kinarow.limits import MAX_WORKERS
    from kinarow.search.parallel.coordinator import ParallelOptions

    assert ParallelOptions(cluster="tcp://127.0.0.1:8786", workers=MAX_WORKERS + 1).workers == MAX_WORKERS + 1
    with pytest.raises(KinarowError, match="too many local processes"):
        ParallelOptions(workers=MAX_WORKERS + 1)


# -- workers x tables against the machine's memory ---------------------------------------------------------------
#: the machine the tests pretend to run on: 1,400 MiB available (raising=False: before the check there was nothing
#: to patch, and the commands ran)
SMALL = 1400.0


@pytest.mark.parametrize("argv", [
    ["solve", "4x4k4", "--workers", "2", "--tt-mb", "600"],
    ["settle", "7x4k4", "--workers", "2", "--tt-mb", "600", "--time-limit", "5"],
    ["settle", "8x4k4", "--draw-proof", "--workers", "2", "--tt-mb", "600", "--time-limit", "5"],
    ["prove", "16x4k4", "--workers", "2", "--tt-mb", "600", "--dir", "{tmp}/case", "--checkpoints", "{checkpoints}"],
], ids=["solve", "settle", "settle-draw-proof", "prove"])
def test_tables_that_do_not_fit_in_memory_are_refused(capsys: pytest.CaptureFixture[str], monkeypatch:
                                                      pytest.MonkeyPatch, tmp_path: Path, argv: list[str]) -> None:
    # --workers 2 --tt-mb 16384 on a 24 GB machine was accepted and reached 22 GB in 54 s
    import kinarow.limits

    monkeypatch.setattr(kinarow.limits, "available_memory_mb", lambda: SMALL, raising=False)
    checkpoints = Path(__file__).resolve().parents[1] / "checkpoints"
    code, _, err = run(capsys, *(a.format(tmp=tmp_path, checkpoints=checkpoints) for a in argv))
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    table = 256 if "--draw-proof" in argv else 600  # (the walk's proof search takes at most 256 MiB)
    assert (f"2 workers with a table of {table} MiB each (--tt-mb) need about {2 * (table + 512):,} MiB (512 MiB a "
            "worker besides its table), more than the 1,400 MiB this machine has available; with 2 workers a table "
            "of at most 188 MiB fits, or up to 1 worker with this table") in one_line(err)
    assert not (tmp_path / "case").exists()  # refused before anything was written


def test_the_parallel_solve_refuses_tables_that_do_not_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    import kinarow.limits
    from kinarow.search import parallel

    monkeypatch.setattr(kinarow.limits, "available_memory_mb", lambda: 4096.0, raising=False)
    with pytest.raises(KinarowError, match=r"^3 workers with a table of 2,048 MiB each \(tt_mb\) need about 7,680 "
                       r"MiB .* more than the 4,096 MiB this machine has available; with 3 workers a table of at "
                       r"most 853 MiB fits, or up to 1 worker with this table$"):
        parallel.solve("4x4k4", workers=3, tt_mb=2048)
    assert parallel.solve("4x4k4", workers=2, tt_mb=64).value == "draw"  # 2 x 576 MiB fit


def test_defaults_are_never_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import kinarow.limits
    from kinarow.limits import check_memory, cores, fitting_tt_mb
    from kinarow.search import parallel
    from kinarow.search.prover import JOB_TT_MB

    # a 2-core machine of 24 GiB, busy with another run: kinarow prove's job run keeps its 4 GiB tables
    monkeypatch.setattr(kinarow.limits, "available_memory_mb", lambda: 16 * 1024.0)
    assert fitting_tt_mb(2, JOB_TT_MB) == JOB_TT_MB
    check_memory(2, fitting_tt_mb(2, JOB_TT_MB))
    # a small CI machine (4 cores, 7 GiB): the default is cut down to a power of two that fits, not refused
    monkeypatch.setattr(kinarow.limits, "available_memory_mb", lambda: 7 * 1024.0)
    assert fitting_tt_mb(4, JOB_TT_MB) == 512
    check_memory(4, fitting_tt_mb(4, JOB_TT_MB))
    # far too little memory for every core with the default table: the parallel solve's defaults still run
    monkeypatch.setattr(kinarow.limits, "available_memory_mb", lambda: 1.0)
    assert fitting_tt_mb(cores(), JOB_TT_MB) == kinarow.limits.SMALLEST_DEFAULT_TT_MB
    assert parallel.solve("4x4k4").value == "draw"


def test_available_memory_is_read_from_the_machine() -> None:
    from kinarow.limits import available_memory_mb

    mb = available_memory_mb()
    assert mb is None or mb > 0


# -- a checkpoint's rows are checked as they are read (SQLite keeps whatever was written) ---------------------------
def test_damaged_checkpoint_rows_are_one_sentence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3
    import zlib

    from kinarow.search.parallel import checkpoint
    from kinarow.search.parallel.checkpoint import JobStore

    monkeypatch.setattr(checkpoint, "MAX_WALK_BYTES", 1000)

    path = tmp_path / "jobs.sqlite"
    store = JobStore(path)
    key = "." * 8 + "x"  # the board after a1, in its canonical frame
    store.put("3x3k3", key, "a1", (1, 1), kinarow.values.Value.FIRST, 10, 0.5)
    store.put_strategy("3x3k3", key, "a1", kinarow.values.Value.FIRST, b"\x01\x02", 0.5)
    assert store.get("3x3k3", key) == (1, 1)
    assert store.get_strategy("3x3k3", key, kinarow.values.Value.FIRST) == b"\x01\x02"
    store.close()
    for edit, damage in (("UPDATE finished_jobs SET lo = 'abc'", "has a damaged row: a finished job's bound is 'abc'"),
                         ("UPDATE finished_jobs SET lo = 1, nodes = '\u0663', seconds = 'nan'",
                          "has a damaged row: nodes is")):
        with sqlite3.connect(path) as db:
            db.execute(edit)
        store = JobStore(path)
        with pytest.raises(KinarowError, match=damage):
            store.jobs("3x3k3")
        store.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE finished_jobs SET nodes = 10, seconds = 0.5")
        db.execute("UPDATE strategies SET choices = ?", (b"not zlib",))
    store = JobStore(path)
    with pytest.raises(KinarowError, match="damaged strategy row"):
        store.get_strategy("3x3k3", key, kinarow.values.Value.FIRST)
    with sqlite3.connect(path) as db:  # a zlib bomb: refused at the cap, not unpacked into memory
        db.execute("UPDATE strategies SET choices = ?", (zlib.compress(bytes(1001), 9),))
    with pytest.raises(KinarowError, match="unpacks to more than"):
        store.get_strategy("3x3k3", key, kinarow.values.Value.FIRST)
    store.close()


# -- the knowledge searches check their arguments as solve() does ---------------------------------------------------
@pytest.mark.parametrize(("call", "said"), [
    (lambda: pairing.find("4x4k4", max_conflicts="10"), "max_conflicts must be a positive whole number, not '10'"),
    (lambda: pairing.find("4x4k4", max_conflicts=-5), "max_conflicts must be a positive whole number, not -5"),
    (lambda: pairing.find("4x4k4", minimise="yes"), "minimise must be True or False, not 'yes'"),
    (lambda: pairing.existence_table("3"), "the existence table's side '3' is not allowed"),
    (lambda: pairing.existence_table(3, max_conflicts=1.5), "max_conflicts must be a positive whole number, not 1.5"),
    (lambda: matching.find("a b, b c", budget=-3), "budget must be a positive whole number, not -3"),
    (lambda: matching.find_position("4x4k4", budget="x"), "budget must be a positive whole number, not 'x'"),
    (lambda: matching.find_position("4x4k4", players=(5,)), "players must be a tuple of 1 and/or 2, not (5,)"),
    (lambda: matching.find_position("4x4k4", players=(True,)), "players must be a tuple of 1 and/or 2"),
])
def test_knowledge_searches_check_their_arguments(call: object, said: str) -> None:
    with pytest.raises(KinarowError) as caught:
        call()  # type: ignore[operator]
    assert said in str(caught.value)


def test_knowledge_searches_still_answer() -> None:
    assert pairing.find("4x4k4", max_conflicts=10).exists is False
    assert matching.find("a b, b c", budget=0).breaker_wins is False
    proof, _ = matching.find_position("4x4k4", players=(1, 2))
    assert proof is not None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.text(max_size=12) | st.integers(-5, 10**6).map(str))
def test_any_leaf_index_is_a_verdict(draw_3x3: dict, index: str) -> None:
    data = copy.deepcopy(draw_3x3)
    half = next(h for h in data.values() if isinstance(h, dict) and "=0" in h.get("tokens", "").split())
    if not index or any(c.isspace() for c in index):
        return  # not one token
    half["tokens"] = " ".join("=" + index if t == "=0" else t for t in half["tokens"].split())
    verdict = check_data(data)  # never raises
    if verdict.ok:
        assert index.isascii() and index.isdigit()


@pytest.mark.parametrize("prescribed", [-1, 10**18])
def test_a_walk_is_unpacked_only_to_a_stated_cap(prescribed: int) -> None:
    import base64
    import zlib

    from kinarow.proofs.tree import MAX_WALK_MOVES

    walk = base64.b64encode(zlib.compress(bytes(10**6), 9)).decode()  # a small zlib "bomb"
    data = {"format": "kinarow.strategy", "version": 3, "game": "4x3k3", "moves": [], "claim": "first",
            "winner": "first", "walk": walk, "prescribed": prescribed}
    verdict = check_data(data)
    assert not verdict.ok
    assert f"a walk holds from 0 to {MAX_WALK_MOVES:,} moves" in verdict.reason


def test_a_loaded_class_file_must_fit_its_torus(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import json

    from kinarow.proofs.torus import FILE_MAGIC, geometry

    g = geometry("9", None)
    header = {"torus": g.name, "group": g.group, "count": 1, "n": 2, "bytes_per_class": 2}  # a 2x2 class
    path = tmp_path / "small.classes"
    path.write_bytes(FILE_MAGIC + json.dumps(header).encode() + b"\n" + b"\xff\xff")
    code, out, err = run(capsys, "torus", "9", "--load", str(path), "--no-graph")
    assert code == 2 and "classes" not in out  # it printed "1 classes" of the 8x8 torus before
    assert "does not hold classes of the 8x8 torus: each class must give 64 cells" in one_line(err)
