"""What the checkers are given is not trusted: a certificate that claims a size its file cannot hold is refused
early, in one sentence and without allocating what it claims; and every public checker entry point refuses
input that is not a certificate (``None``, a number, a list) with a :class:`~kinarow.KinarowError` of one
sentence, as the README promises, never an AttributeError or a TypeError from deep inside (issue: hardening)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kinarow import Game, KinarowError
from kinarow.proofs import (
    CHECKERS,
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
)


def one_sentence(reason: str) -> str:
    assert "Traceback" not in reason and "\n" not in reason and reason.strip(), reason
    return reason


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
