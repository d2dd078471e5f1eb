"""Fuzzing what kinarow reads from files: certificate files and results-store rows.

Every example must end in a verdict or one sentence -- never an exception, never a hang, never a wrong answer:

* certificates: valid ones (fresh small solves, and the smallest shipped one) mutated in their JSON (a field
  replaced, removed or nudged) or in their bytes (flipped, cut, gzip-compressed or not), random JSON, and compressed
  junk. A mutant the checker accepts must still make a true claim: what it proves (the values it rules out for its
  game and moves, read from the fields the checker reads) is compared with the solver's value of that position.
* store rows: random JSON (and random text) in a result row. With ``proof=True`` the answer must be the true value
  with a certificate that checks; without, either the true value from a search, or the row's own value served as
  stored (the store is the user's cache: a row is validated, not re-proved; see docs/security.md).

Bounded by example counts and by the size caps of the readers, never by wall time.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import gzip
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kinarow.cli import main
from kinarow.game import Game
from kinarow.position import value_names
from kinarow.proofs import MAX_CERTIFICATE_BYTES, check_data, check_text
from kinarow.proofs.draw import HALVES
from kinarow.search.solve import solve
from kinarow.store import Store

CERTIFICATES = Path(__file__).resolve().parents[1] / "certificates"


def fuzz(examples: int) -> settings:
    """Settings for ``examples`` examples under the default profile ("ci", 100 examples a property), scaled with
    the profile (``HYPOTHESIS_PROFILE=thorough`` runs twenty times more); each fuzz test stays under a second in
    the fast tier."""
    scaled = max(1, examples * settings.default.max_examples // 100)
    return settings(max_examples=scaled, deadline=None, suppress_health_check=list(HealthCheck))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
CELLS = st.sampled_from(["a1", "b2", "c3", "d4", "e5", "a9", "z1", "aa1", "b0", "", "a01", "A1"])


FRESH_NAMES = ["strategy", "walk", "midgame strategy", "maker-breaker strategy", "draw", "matching", "pairing"]


@functools.cache
def fresh(name: str) -> dict[str, Any]:
    """A small certificate of each kind the solver writes (made once, when first asked for)."""
    from kinarow.knowledge import pairing

    if name == "pairing":
        found = pairing.find("5x5k5").pairing
        assert found is not None
        return found.to_json()
    game, moves, walk = {"strategy": ("4x3k3", None, False), "walk": ("4x3k3", None, True),
                         "midgame strategy": ("3x3k3", "b2 b1", False),
                         "maker-breaker strategy": ("3x3k3:maker-breaker", None, False),
                         "draw": ("3x3k3", None, False), "matching": ("4x4k4", None, False)}[name]
    data = solve(game, moves=moves, proof=True, walk=walk).proof.data
    assert data is not None
    return data


# -- what an accepted certificate claims ---------------------------------------------------------------------
def excluded_values(data: dict[str, Any]) -> set[str]:
    """The values an accepted certificate rules out for its position (from the fields its checker reads)."""
    game = Game(data["game"])
    first, second = value_names(game)
    every = {first, second} | (set() if game.goal == "maker-breaker" else {"draw"})
    fmt = data["format"]
    if fmt == "kinarow.strategy":
        return every - {data["winner"]}
    if fmt == "kinarow.pairing":
        return {first}
    if fmt == "kinarow.draw":
        return {(first, second)[player - 1] for player, name in HALVES.items() if name in data}
    if fmt == "kinarow.matching":
        return {first if cover["player"] == "first" else second for cover in data["covers"]}
    raise AssertionError(f"no claim known for {fmt}")


TRUTH: dict[tuple[str, tuple[str, ...]], str] = {}


def true_value(game: str, moves: list[str]) -> str | None:
    """The solver's value of a position (None when it is too large to settle within a small budget)."""
    key = (game, tuple(moves))
    if key not in TRUTH:
        if Game(game).cells > 30:
            return None
        TRUTH[key] = solve(game, moves=" ".join(moves) or None, max_nodes=300_000).value
    return None if TRUTH[key] == "unknown" else TRUTH[key]


def assert_sound(data: Any, verdict: Any, original: dict[str, Any] | None = None) -> None:
    """A verdict is one line; an accepted certificate's claim is true."""
    assert isinstance(verdict.reason, str) and "\n" not in verdict.reason and verdict.reason
    if not verdict.ok:
        return
    ruled_out = excluded_values(data)
    if original is not None and (data["game"], data["moves"]) == (original["game"], original["moves"]) and \
            ruled_out <= excluded_values(original):
        return  # it claims no more than the certificate it came from, which is true
    truth = true_value(data["game"], data["moves"])
    assume(truth is not None)  # a position too large to settle here: no verdict on the claim
    assert truth not in ruled_out, f"a mutated certificate was accepted with a false claim: {data}"


# -- mutations ------------------------------------------------------------------------------------------------
def paths(value: Any, prefix: tuple[Any, ...] = (), limit: int = 400) -> list[tuple[Any, ...]]:
    """Paths to the parts of a JSON value (at most ``limit``, breadth first)."""
    found: list[tuple[Any, ...]] = []
    queue = [(prefix, value)]
    while queue and len(found) < limit:
        here, item = queue.pop(0)
        found.append(here)
        if isinstance(item, dict):
            queue += [((*here, key), child) for key, child in item.items()]
        elif isinstance(item, list):
            queue += [((*here, i), child) for i, child in enumerate(item)]
    return found


def nudged(value: Any, draw: Any) -> Any:
    """A value near ``value``: another cell name, a number off by one, an element dropped, a type swapped."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + draw(st.sampled_from([-1, 1, 2**63, -(2**63)]))
    if isinstance(value, str):
        return draw(st.one_of(CELLS, st.sampled_from(["first", "second", "draw", "maker", "breaker", "4x3k3",
                                                      "3x3k3", "first wins", "draw", value[:-1], value + value])))
    if isinstance(value, list) and value:
        i = draw(st.integers(0, len(value) - 1))
        return draw(st.sampled_from([value[:i] + value[i + 1:], [*value, value[i]], list(reversed(value))]))
    return draw(JSON)


@st.composite
def json_mutant(draw: Any, original: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(original)
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(paths(data)[1:]))
        parent = data
        for step in where[:-1]:
            parent = parent[step]
        last = where[-1]
        action = draw(st.sampled_from(["replace", "nudge", "delete"]))
        if action == "delete":
            del parent[last]
        elif action == "nudge":
            parent[last] = nudged(parent[last], draw)
        else:
            parent[last] = draw(JSON)
    return data


@given(data=st.data(), name=st.sampled_from(FRESH_NAMES))
@fuzz(100)
def test_a_mutated_certificate_is_rejected_or_still_true(data, name):
    original = fresh(name)
    mutant = data.draw(json_mutant(original))
    for compiled in (False, True):
        verdict = check_data(copy.deepcopy(mutant), compiled=compiled)
        if verdict.ok:
            assert_sound(mutant, verdict, original)


@given(data=st.data(), name=st.sampled_from(FRESH_NAMES))
@fuzz(60)
def test_a_certificate_file_with_damaged_bytes_is_one_sentence(tmp_path_factory, data, name):
    text = json.dumps(fresh(name)).encode()
    raw = bytearray(text)
    for _ in range(data.draw(st.integers(0, 4))):
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.integers(0, 255))
    raw = raw[: data.draw(st.integers(0, len(raw)))] if data.draw(st.booleans()) else raw
    packed = gzip.compress(bytes(raw)) if data.draw(st.booleans()) else bytes(raw)
    if data.draw(st.booleans()):  # damage the compressed bytes too
        cut = data.draw(st.integers(0, len(packed)))
        packed = packed[:cut] + bytes(data.draw(st.binary(max_size=20)))
    path = tmp_path_factory.mktemp("fuzz") / "c.json.gz"
    path.write_bytes(packed)
    code, _out, _err = check_file(path)
    if code == 0:  # accepted: then it is the same certificate as the original, or a true one
        loaded = json.loads(gzip.decompress(packed) if packed[:2] == b"\x1f\x8b" else packed)
        assert_sound(loaded, check_data(loaded), fresh(name))


def check_file(path: Path, *options: str) -> tuple[int, str, str]:
    """``kinarow check`` on a file: exit status, stdout and stderr, each answer one line and no traceback."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["check", str(path), *options])
    text = out.getvalue() + err.getvalue()
    assert "Traceback" not in text and len(text.strip().splitlines()) == 1, text
    assert code in (0, 1)
    return code, out.getvalue(), err.getvalue()


@given(value=JSON)
@fuzz(100)
def test_random_json_is_never_a_proof(value):
    verdict = check_text(json.dumps(value))
    assert not verdict.ok and "\n" not in verdict.reason


@given(fmt=st.sampled_from(["kinarow.strategy", "kinarow.draw", "kinarow.pairing", "kinarow.matching",
                            "kinarow.torus", "kinarow.tiling", "kinarow.verified-strategy", "kinarow.searchlog"]),
       version=st.sampled_from([1, 2, 3, "1", None, True]), game=st.sampled_from(["3x3k3", "4x3k3", "x", "9x9k99"]),
       fields=st.dictionaries(st.sampled_from(["moves", "winner", "choices", "walk", "prescribed", "pairs", "covers",
                                               "first_cannot_win", "second_cannot_win", "claim", "class_file",
                                               "classes", "torus", "tile", "lattice"]), JSON, max_size=6))
@fuzz(60)
def test_random_fields_of_every_format_are_never_a_proof(fmt, version, game, fields):
    verdict = check_data({"format": fmt, "version": version, "game": game, **fields})
    assert "\n" not in verdict.reason
    if verdict.ok:  # an empty strategy can be right (a win on the spot is found by the checker): then it is true
        assert_sound({"format": fmt, "version": version, "game": game, **fields}, verdict)


@given(junk=st.binary(max_size=300), gz=st.booleans(), head=st.sampled_from([b"", b"\x1f\x8b", b"\x1f\x8b\x08\x00"]))
@fuzz(50)
def test_compressed_junk_is_one_sentence(tmp_path_factory, junk, gz, head):
    path = tmp_path_factory.mktemp("junk") / "j.json.gz"
    path.write_bytes(gzip.compress(junk) if gz else head + junk)
    code, _, _err = check_file(path)
    assert code == 1


def test_a_file_larger_than_the_cap_is_refused_without_reading_it_all(tmp_path):
    path = tmp_path / "big.json"
    with open(path, "wb") as file:
        file.truncate(MAX_CERTIFICATE_BYTES + 10)  # sparse: no disk used
    code, _, err = check_file(path)
    assert code == 1 and "larger than" in err


SHIPPED = sorted(p for p in CERTIFICATES.glob("*.json.gz") if p.stat().st_size < 40_000)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
@given(data=st.data())
@fuzz(1)
def test_a_mutated_shipped_certificate_is_rejected_or_still_true(path, data):
    original = json.loads(gzip.decompress(path.read_bytes()))
    mutant = data.draw(json_mutant(original))
    verdict = check_data(mutant, compiled=True)
    if verdict.ok:
        assert_sound(mutant, verdict, original)


# -- store rows -----------------------------------------------------------------------------------------------
ROW_VALUES = st.sampled_from(["first", "second", "draw", "maker", "breaker", "unknown", "", "FIRST"])
PLAUSIBLE_ROW = st.fixed_dictionaries(
    {},
    optional={"value": ROW_VALUES | JSON, "best_move": CELLS | JSON, "nodes": st.integers(-5, 2**70) | JSON,
              "seconds": st.floats() | JSON, "knowledge": st.sampled_from(["none", "pairing", "matching"]) | JSON,
              "knowledge_cuts": st.integers(-2, 5) | st.none(), "knowledge_note": JSON, "root_proof": JSON,
              "symmetry": JSON, "moves": JSON, "stored_at": JSON},
)


@pytest.fixture(scope="module")
def truths() -> dict[str, str]:
    return {game: solve(game).value for game in ("4x3k3", "3x3k3", "4x4k4")}


@given(row=st.one_of(PLAUSIBLE_ROW.map(json.dumps), JSON.map(json.dumps), st.text(max_size=40)),
       game=st.sampled_from(["4x3k3", "3x3k3", "4x4k4"]), proof=st.booleans())
@fuzz(15)
def test_a_random_store_row_never_gives_a_traceback_or_an_unproved_answer(tmp_path_factory, truths, row, game,
                                                                           proof):
    path = tmp_path_factory.mktemp("store") / "r.sqlite"
    with Store(path, on_bad_row=None) as store:
        solve(game, store=store, proof=proof)  # a good row and its certificates
        with sqlite3.connect(path) as db:
            db.execute("UPDATE results SET data = ?", (row,))
        result = solve(game, store=store, proof=proof)
    if proof or not result.from_store:
        assert result.value == truths[game]
        if proof and result.proof is not None and result.proof.data is not None:
            assert check_data(result.proof.data).ok
    else:  # served as stored (plain solve): the row was well formed, and the answer is exactly what it says
        claimed = json.loads(row).get("value")  # (only a row that parses is served: "{" is ignored, not read here)
        assert result.value == claimed and not store.ignored
        assert result.best_move is None or result.best_move in {f"{c}{r}" for c in "abcd" for r in "1234"}
