"""What the checkers are given is not trusted: a certificate that claims a size its file cannot hold is refused
early, in one sentence and without allocating what it claims; and every public checker entry point refuses
input that is not a certificate (``None``, a number, a list) with a :class:`~kinarow.KinarowError` of one
sentence, as the README promises, never an AttributeError or a TypeError from deep inside (issue: hardening)."""

from __future__ import annotations

import base64
import gzip
import json
import resource
import subprocess
import sys
import tracemalloc
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kinarow import Game, KinarowError
from kinarow.proofs import (
    CHECKERS,
    GZIP_FLOOR_BYTES,
    MAX_GZIP_RATIO,
    CertificateError,
    check_data,
    check_text,
    checker,
    drat,
    draw,
    invariant,
    matching,
    narrow,
    read_certificate,
    tiling,
    torus,
    tree,
    verified,
    window,
)

SRC = str(Path(__file__).resolve().parents[1] / "src")
#: the most the Python side of a refusal may allocate (tracemalloc's peak): a few MB, whatever the claim
SMALL = 16 * 2**20


def examples(count: int) -> settings:
    """``count`` examples (scaled with the hypothesis profile), bounded by count, never by wall time."""
    scaled = max(1, count * settings.default.max_examples // 100)
    return settings(max_examples=scaled, deadline=None, suppress_health_check=list(HealthCheck))


def one_sentence(reason: str) -> str:
    assert "Traceback" not in reason and "\n" not in reason and reason.strip(), reason
    return reason


def peak(work: Callable[[], Any]) -> tuple[Any, int]:
    """``work()``'s result and the most memory Python (numpy included) held while it ran."""
    tracemalloc.start()
    try:
        result = work()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def packed(data: bytes) -> str:
    return base64.b64encode(zlib.compress(data, 9)).decode("ascii")


def strategy_walk(count: int, walk: bytes, version: int = 3) -> dict[str, Any]:
    """A walk strategy certificate of 4x4k4 whose walk is ``walk`` and that claims ``count``."""
    data = {"format": "kinarow.strategy", "version": version, "game": "4x4k4", "moves": [], "claim": "first wins",
            "winner": "first", "walk": packed(walk)}
    if version == 3:
        data["prescribed"] = count
    else:
        data.update(prescribed=0, length=count)
    return data


# -- claimed sizes ------------------------------------------------------------------------------------------
@examples(40)
@given(payload=st.binary(max_size=2000) | st.integers(0, 200_000).map(bytes),
       claim=st.integers(0, 2**62), version=st.sampled_from([3, 4]),
       where=st.sampled_from(["strategy", "draw", "window", "parts"]))
def test_a_walk_that_claims_more_than_its_bytes_is_refused_in_one_sentence(payload, claim, version, where):
    count = len(payload) + 1 + claim  # always more than the walk holds
    walk = strategy_walk(count, payload, version)
    if where == "draw":
        half = {"method": "non-losing-walk", "prescribed": count, "walk": walk["walk"]}
        data = {"format": "kinarow.draw", "version": 1, "game": "4x4k4", "moves": [], "claim": "draw",
                "first_cannot_win": half, "second_cannot_win": half}
    elif where == "window":
        data = {"format": "kinarow.window", "version": 1, "game": "5x4k4", "moves": [], "width": 5, "k": 4,
                "claim": window.claim(5, 4), "prescribed": count, "walk": walk["walk"]}
    elif where == "parts":
        data = {"format": "kinarow.strategy-parts", "version": 1, "game": "4x4k4", "moves": [], "claim": "first wins",
                "winner": "first", "first_move": "b2", "parts": [{**walk, "moves": ["b2", "a1"]}]}
    else:
        data = walk
    verdict, most = peak(lambda: check_data(data))
    assert not verdict.ok
    one_sentence(verdict.reason)
    assert most < SMALL, f"{most:,} bytes to refuse a claim of {count:,}"


def test_a_claim_beyond_what_zlib_can_unpack_is_refused_before_unpacking():
    data = strategy_walk(2**30, bytes(1000))  # 1,000 zero bytes pack into about 20; 2^30 cannot come of them
    verdict, most = peak(lambda: check_data(data))
    assert "which unpack to at most" in verdict.reason and "1,073,741,824" in verdict.reason, verdict.reason
    assert most < SMALL


def test_a_huge_claimed_walk_is_refused_at_its_move_without_gigabytes(tmp_path):
    # 100 M zero bytes, about 100 KB of zlib: the compiled walk sized its table from the claim (2 GB here, 8.7 GB
    # for 200 M) and died of a MemoryError traceback under a 1.5 GB limit; now the table starts at most at
    # START_ROWS and grows only as positions are proven
    z = zlib.compressobj(9)
    chunk = bytes(2**20)
    body = b"".join(z.compress(chunk) for _ in range(100)) + z.flush()
    data = strategy_walk(0, b"")
    data.update(prescribed=100 * 2**20, walk=base64.b64encode(body).decode("ascii"))
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(data))

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 29, 3 << 29))

    done = subprocess.run([sys.executable, "-m", "kinarow", "check", "--compiled", str(path)], capture_output=True,
                          text=True, preexec_fn=limit, env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
                          timeout=600)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr, done.stderr[-2000:]
    assert done.stdout.startswith("REJECTED:") and "move 2 is cell 0" in done.stdout, done.stdout


def test_a_gzip_bomb_is_refused_once_it_unpacks_past_its_ratio(tmp_path):
    # one pair over and over: 1.4 MB of JSON in a few KB of gzip (kinarow's own unpack to about 11 times)
    pairs = ",".join(['["a1","b2"]'] * 120_000)
    text = f'{{"format":"kinarow.pairing","version":1,"game":"4x4k4","moves":[],"pairs":[{pairs}]}}'
    path = tmp_path / "bomb.json.gz"
    path.write_bytes(gzip.compress(text.encode(), 9))
    assert len(text) > max(GZIP_FLOOR_BYTES, MAX_GZIP_RATIO * path.stat().st_size)
    with pytest.raises(CertificateError) as caught:
        read_certificate(path)
    reason = one_sentence(str(caught.value))
    assert f"more than {MAX_GZIP_RATIO} times" in reason and "at most" in reason

    def refused() -> None:
        with pytest.raises(CertificateError):
            read_certificate(path)

    _, most = peak(refused)
    assert most < 4 * GZIP_FLOOR_BYTES
    # the same JSON, uncompressed, is read (it is what the file holds), and refused by its pair count at once
    plain = tmp_path / "plain.json"
    plain.write_text(text)
    verdict, most = peak(lambda: check_text(read_certificate(plain)))
    assert "120,000 pairs" in verdict.reason and "at most 8" in verdict.reason, verdict.reason
    # a small gzip file that unpacks to less than the floor is read whatever its ratio
    small = tmp_path / "small.json.gz"
    small.write_bytes(gzip.compress(b" " * 100_000 + b"{}"))
    assert read_certificate(small).strip() == "{}"


def test_the_shipped_gzip_certificates_are_within_the_ratio():
    folder = Path(__file__).resolve().parents[1] / "certificates"
    for path in sorted(folder.glob("*.json.gz"))[:6]:
        assert read_certificate(path).startswith("{")


# -- every entry point refuses what is not a certificate ---------------------------------------------------
BAD = [None, 5, "text", [], {}, True]

ENTRY_POINTS: dict[str, Callable[[Any], Any]] = {
    "check_text": check_text,
    "read_certificate": read_certificate,
    "checker": checker,
    "tree.check": tree.check,
    "tree.read_walk": lambda bad: tree.read_walk(bad, "walk"),
    "tree.StrategyTree.from_json": tree.StrategyTree.from_json,
    "draw.check_tree": lambda bad: draw.check_tree(bad, 1, {}),
    "draw.check_tree(attacker)": lambda bad: draw.check_tree(Game("3x3k3").start(), bad, {}),
    "draw.check_tree(half)": lambda bad: draw.check_tree(Game("3x3k3").start(), 1, bad),
    "draw.check_walk": lambda bad: draw.check_walk("3x3k3", [], 1, bad, False, None),
    "invariant.check": invariant.check,
    "invariant.local_lines": lambda bad: invariant.local_lines(bad, 0, 4, (1, 0)),
    "invariant.InvariantCertificate.from_json": invariant.InvariantCertificate.from_json,
    "matching.check": matching.check,
    "matching.check_proof": matching.check_proof,
    "narrow.check": narrow.check,
    "tiling.check": tiling.check,
    "verified.check": verified.check,
    "drat.check_refutation": lambda bad: drat.check_refutation(bad, bad, bad),
    "drat.check_refutation(proof)": lambda bad: drat.check_refutation(3, [[1, 2]], bad),
    "torus.check_classes": lambda bad: torus.check_classes(bad, bad),
    "torus.check_complete": lambda bad: torus.check_complete(bad, bad),
    "torus.check_complete(codes)": lambda bad: torus.check_complete(torus.geometry("9"), bad),
    "torus.load_classes": torus.load_classes,
    "torus.parse_classes": torus.parse_classes,
}
# each format's checker, as check_data finds it (it takes the loaded JSON)
ENTRY_POINTS |= {f"{fmt} checker": checker(fmt) for fmt in sorted(CHECKERS)}
ENTRY_POINTS["check_data"] = check_data  # turns every refusal into a rejecting verdict


@pytest.mark.parametrize("bad", BAD, ids=repr)
@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_every_checker_entry_point_refuses_non_certificates_in_one_sentence(name, bad):
    if isinstance(bad, str) and name in ("check_text", "read_certificate", "checker", "torus.load_classes"):
        bad = "kinarow.none" if name == "checker" else "{" if name == "check_text" else "no/such/file"
    try:
        result = ENTRY_POINTS[name](bad)
    except KinarowError as error:
        one_sentence(" ".join(str(error).split()))
        assert str(error)
    else:  # a verdict that rejects is a refusal too (torus.check, a checker that reads fields itself)
        assert hasattr(result, "ok") and not result.ok, (name, bad, result)
        one_sentence(result.reason)


def test_the_readme_s_examples_of_refusal():
    with pytest.raises(KinarowError, match="takes a StrategyTree"):
        tree.check(None)  # type: ignore[arg-type]
    with pytest.raises(KinarowError, match="JSON text"):
        check_text(None)  # type: ignore[arg-type]
    assert not check_data(None).usable  # check_data turns everything into a verdict, never an exception
    with pytest.raises(KinarowError, match="not None"):
        tree.check(None)  # type: ignore[arg-type]
