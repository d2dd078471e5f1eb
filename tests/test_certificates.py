"""Certificates: the common envelope, the checker registry, tampering, and checkers that import no search code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import run
from kinarow import Game, __version__, solve
from kinarow.knowledge import pairing
from kinarow.proofs import CHECKERS, check_data, check_text

SEARCH_MODULES = ("kinarow.search", "kinarow.knowledge", "kinarow.engine", "pysat", "numba")



@pytest.fixture(scope="module")
def strategy() -> dict:
    result = solve(Game("4x3k3"), strategy=True)
    assert result.strategy is not None
    return result.strategy.to_json()


@pytest.fixture(scope="module")
def good_pairing() -> dict:
    found = pairing.find("5x5k5")
    assert found.pairing is not None
    return found.pairing.to_json()


def test_every_certificate_has_the_common_envelope(strategy, good_pairing):
    for data, claim in ((strategy, "first wins"), (good_pairing, "first cannot win")):
        assert {"format", "version", "game", "moves", "created_by", "claim"} <= data.keys()
        assert data["created_by"] == f"kinarow {__version__}"
        assert data["claim"] == claim
        assert data["format"] in CHECKERS
        verdict = check_data(data)
        assert verdict.ok and verdict.usable, verdict.reason


def test_registry_names_importable_checkers():
    import importlib

    for fmt, target in CHECKERS.items():
        module, _, function = target.partition(":")
        assert fmt.startswith("kinarow.")
        assert callable(getattr(importlib.import_module(module), function))


def _tampered(data: dict, how: str) -> dict:
    data = json.loads(json.dumps(data))
    if how == "changed move":
        key = next(iter(data["choices"])) if "choices" in data else None
        if key is not None:  # the first prescribed move becomes another empty cell
            data["choices"][key] = "a1" if data["choices"][key] != "a1" else "a2"
        else:
            data["pairs"][0][1] = data["pairs"][1][0]  # a cell in two pairs
    elif how == "changed game":
        data["game"] = "5x5k4" if data["game"] != "5x5k4" else "6x6k4"
    elif how == "wrong version":
        data["version"] = 99
    elif how == "missing field":
        del data["choices" if "choices" in data else "pairs"]
    elif how == "changed claim":
        data["claim"] = "second wins"
    elif how == "moves do not fit":
        data["moves"] = ["z9"]
    return data


@pytest.mark.parametrize("kind", ["strategy", "pairing"])
@pytest.mark.parametrize(
    "how", ["changed move", "changed game", "wrong version", "missing field", "changed claim", "moves do not fit"]
)
def test_tampered_certificates_are_rejected_in_one_line(capsys, tmp_path, request, kind, how):
    data = request.getfixturevalue("strategy" if kind == "strategy" else "good_pairing")
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(_tampered(data, how)))
    code, out, err = run(capsys, "check", str(path))
    assert code == 1
    text = out + err
    assert text.count("\n") == 1, text
    assert text.startswith(("REJECTED: ", "kinarow: error: "))
    assert "Traceback" not in text


@pytest.mark.parametrize(
    "text",
    ["{not json", "[]", "null", "42", '"text"', "{}", '{"format": 7}', '{"format": "kinarow.nothing", "version": 1}',
     '{"format": "kinarow.strategy", "version": 1, "game": "4x3k3", "moves": "b2", "winner": "first", "choices": {}}',
     '{"format": "kinarow.pairing", "version": 1, "game": "5x5k5", "moves": [], "pairs": [["a1"]]}',
     '{"format": "kinarow.pairing", "version": 1, "game": "5x5k5", "moves": [], "pairs": 3}'],
)
def test_unusable_files_are_one_line_exit_1(capsys, tmp_path, text):
    path = tmp_path / "bad.json"
    path.write_text(text)
    code, out, err = run(capsys, "check", str(path))
    assert code == 1
    assert out == ""
    assert err.startswith("kinarow: error: ") and err.count("\n") == 1
    assert not check_text(text).ok


def test_a_certificate_for_another_game_is_rejected(strategy):
    moved = dict(strategy, game="4x3k3:misere")
    verdict = check_data(moved)
    assert not verdict.ok
    assert "misere" in verdict.reason or "fails" in verdict.reason


def test_solve_proof_of_a_win_is_the_strategy(capsys, tmp_path):
    path = tmp_path / "win.json"
    code, out, _ = run(capsys, "solve", "4x3k3", "--moves", "b2 a1", "--proof", str(path))
    assert code == 0
    assert f"Proof written to {path}: the winning strategy of the first player" in out
    data = json.loads(path.read_text())
    assert data["format"] == "kinarow.strategy" and data["moves"] == ["b2", "a1"]
    code, out, _ = run(capsys, "check", str(path))
    assert code == 0 and out.startswith("VALID: in 4x3k3 after b2 a1, the first player (Black) wins")


def test_solve_proof_of_a_draw_is_a_pairing_with_strategy_stealing(capsys, tmp_path):
    path = tmp_path / "draw.json"
    # without knowledge in the search, the draw's certificate is a pairing plus strategy stealing
    code, out, _ = run(capsys, "solve", "5x4k5", "--knowledge", "none", "--proof", str(path))
    assert code == 0
    assert out.startswith("Draw with perfect play.")
    assert "a good pairing" in out and "strategy stealing" in out
    assert json.loads(path.read_text())["format"] == "kinarow.pairing"
    assert run(capsys, "check", str(path))[0] == 0


def test_solve_proof_of_a_draw_without_a_pairing_is_a_draw_proof(capsys, tmp_path):
    path = tmp_path / "draw.json"
    code, out, _ = run(capsys, "solve", "3x3k3", "--proof", str(path))
    assert code == 0
    assert "a draw proof: the first player cannot win by a blocking tree" in out
    assert "the second by strategy stealing" in out
    assert json.loads(path.read_text())["format"] == "kinarow.draw"
    code, out, _ = run(capsys, "check", str(path))
    assert code == 0 and out.startswith("VALID: in 3x3k3, the first player cannot win")


def test_solve_proof_says_plainly_when_there_is_none(capsys, tmp_path):
    path = tmp_path / "none.json"
    code, out, _ = run(capsys, "solve", "6x5k4", "--max-nodes", "1000", "--proof", str(path))
    assert code == 0
    assert f"No certificate written to {path}: the value is unknown, so there is nothing to prove" in out
    assert not path.exists()
    # a gravity draw and a gravity misere game: each value has its certificate now, and it checks
    for game in ("4x4k4:gravity", "4x4k3:gravity,misere"):
        code, out, _ = run(capsys, "solve", game, "--proof", str(path), "--json")
        data = json.loads(out)
        assert data["proof_file"] == str(path) and path.exists()
        assert run(capsys, "check", str(path))[0] == 0
        path.unlink()


def test_pairing_proof_option_writes_the_certificate(capsys, tmp_path):
    path = tmp_path / "p.json"
    code, _, _ = run(capsys, "pairing", "5x5k5", "--proof", str(path))
    assert code == 0 and path.exists()
    assert run(capsys, "check", str(path))[0] == 0


#: Every finder a certificate may come from, blocked while the checkers run: the draw-proof search, the
#: parallel search, the matching-set, pairing and SAT searches, the tiling search (and everything else under
#: search/, knowledge/ and engine/, the strategy verifier and python-sat).
FINDERS = ("kinarow.search.draw", "kinarow.search.parallel", "kinarow.search.solve", "kinarow.knowledge.matching",
           "kinarow.knowledge.pairing", "kinarow.knowledge.sat", "kinarow.knowledge.infinite.tiling_search",
           "kinarow.knowledge.infinite.torus", "kinarow.strategies.verify")
BLOCKED = ("kinarow.search", "kinarow.knowledge", "kinarow.engine", "kinarow.strategies.verify", "pysat")

CHILD = """
import importlib.abc, json, sys
BLOCKED = %r
tried = []

class Block(importlib.abc.MetaPathFinder):
    # an import of a finder fails here, and is recorded, even if the checker would catch the ImportError
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            tried.append(name)
            raise ImportError("blocked while checking: " + name)
        return None

sys.meta_path.insert(0, Block())
from kinarow.proofs import CHECKERS, check_data
checked = {}
for path in sys.argv[1:]:
    data = json.load(open(path))
    for compiled in (False, True):
        verdict = check_data(data, path.rsplit("/", 1)[0], compiled=compiled)
        assert verdict.ok, (path, verdict.reason)
    checked[data["format"]] = verdict.reason
# numba itself may load: a verified strategy's own rule is a compiled function (the strategy, not a search)
loaded = sorted(name for name in sys.modules if any(name == b or name.startswith(b + ".") for b in BLOCKED))
print(json.dumps({"formats": sorted(CHECKERS), "checked": checked, "search_modules": loaded, "tried": tried}))
"""


def one_certificate_of_each_format(folder: Path, strategy: dict, good_pairing: dict) -> list[str]:
    """A small certificate of every format, made by the searches (in this process)."""
    from kinarow.cli import main
    from kinarow.knowledge.infinite import torus
    from kinarow.knowledge.infinite.tiling import named
    from kinarow.proofs import verified
    from kinarow.proofs.invariant import delayed_take_even_certificate, take_even_certificate
    from kinarow.proofs.narrow import NarrowDraw
    from kinarow.proofs.parts import to_json as parts_certificate
    from kinarow.proofs.tree import StrategyTree
    from kinarow.proofs.window import certificate as window_certificate
    from kinarow.search.window import window_walk
    from kinarow.strategies.verify import verify
    from kinarow.values import Value

    files = {"strategy.json": strategy, "pairing.json": good_pairing, "tiling.json": named("hj9").to_json(),
             "invariant.json": take_even_certificate(4, False).to_json(), "narrow.json": NarrowDraw(4).to_json(),
             "invariant-pairs.json": delayed_take_even_certificate(3, first=True).to_json()}  # version 2
    v = verify("take-even", "4x2k3:gravity,misere")
    files["verified.json"] = verified.VerifiedStrategy(v.strategy, v.game, v.player, v.outcome, v.positions).to_json()
    files["window.json"] = window_certificate(3, 3, window_walk(3, k=3, tt_mb=1) or b"")
    # a win in parts: 1. b1 on a row of three, k = 2; the one reply up to symmetry, a1, loses at once
    files["parts.json"] = parts_certificate("3x1k2", [], "first", "b1",
                                            [StrategyTree("3x1k2", ["b1", "a1"], Value.FIRST, {}).to_json()])
    result = torus.enumerate_classes("hex7")
    files["torus.json"] = torus.certificate(result, "hex7.bin", torus.save_classes(result, folder / "hex7.bin"), None)
    for name, data in files.items():
        (folder / name).write_text(json.dumps(data))
    for name, game in (("draw.json", "3x3k3"), ("matching.json", "4x4k4")):
        assert main(["solve", game, "--proof", str(folder / name), "--no-store"]) == 0
    assert main(["pairing", "6x5k5", "--proof", str(folder / "no-pairing.json")]) == 0
    return [str(folder / name) for name in (*files, "draw.json", "matching.json", "no-pairing.json")]


def test_checkers_import_no_search_code(tmp_path, strategy, good_pairing, capsys):
    import importlib.util

    for finder in FINDERS:  # the blocked list names modules that exist (a renamed finder would slip through)
        assert importlib.util.find_spec(finder) is not None, finder
        assert any(finder == b or finder.startswith(b + ".") for b in BLOCKED), finder
    files = one_certificate_of_each_format(tmp_path, strategy, good_pairing)
    capsys.readouterr()
    src = str(Path(__file__).resolve().parents[1] / "src")
    done = subprocess.run([sys.executable, "-c", CHILD % (BLOCKED,), *files], capture_output=True, text=True,
                          timeout=300, env={"PYTHONPATH": src, "PATH": ""})
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert sorted(report["checked"]) == report["formats"] == sorted(CHECKERS), "every checker runs on a certificate"
    assert report["tried"] == [], f"checkers tried to import search code: {report['tried']}"
    assert report["search_modules"] == [], f"checkers imported search code: {report['search_modules']}"
