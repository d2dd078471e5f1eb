"""The DRAT checker (proofs/drat.py, drat_kernel.py) and the no-pairing certificates it checks."""

from __future__ import annotations

import base64
import gzip
import itertools
import json
import lzma

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinarow import Game
from kinarow.cli import main
from kinarow.knowledge.pairing import find
from kinarow.proofs import check_data
from kinarow.proofs.drat import check_refutation, pairing_formula

# (x or y) and the three other sign patterns: unsatisfiable, and not by unit propagation alone
XOR_SQUARE = [[1, 2], [1, -2], [-1, 3], [-1, -3]]


def refutation(game: str, moves: str | None = None) -> dict:
    result = find(game, moves=moves, certify=True)
    assert result.exists is False and result.refutation is not None
    data = result.certificate()
    assert data is not None and data["format"] == "kinarow.no-pairing"
    return data


def proof_text(data: dict) -> bytes:
    return lzma.decompress(base64.b64decode(data["proof"]["data"]))


def with_proof(data: dict, proof: bytes) -> dict:
    return {**data, "proof": {**data["proof"], "data": base64.b64encode(lzma.compress(proof)).decode()}}


def lines(proof: bytes) -> list[bytes]:
    return [line for line in proof.splitlines() if line.strip()]


@pytest.mark.parametrize(("game", "moves"), [("6x5k5", None), ("6x6k5", None), ("5x5k4", None), ("4x4k3", "a1"),
                                             ("3x3k3", "b2 a1")])
def test_real_refutations_are_accepted(game, moves):
    verdict = check_data(refutation(game, moves))
    assert verdict.ok, verdict.reason
    assert "no good pairing exists" in verdict.reason
    assert verdict.details["lemmas_checked"] >= 1


@pytest.mark.slow
def test_a_long_refutation_is_accepted():
    verdict = check_data(refutation("8x7k6"))
    assert verdict.ok, verdict.reason
    assert verdict.details["lemmas_checked"] > 10_000


def test_tampered_refutations_are_rejected():
    data = refutation("6x5k5")
    steps = lines(proof_text(data))
    assert steps[-1] == b"0"
    formula = pairing_formula(Game("6x5k5").start())
    # the formula alone is not refuted by unit propagation, so every lemma below matters
    assert not check_refutation(formula.variables, formula.clauses, b"0\n").ok
    lemmas = [s for s in steps[:-1] if not s.startswith(b"d")]
    cases = {
        "every lemma deleted before the empty clause": steps[:-1] + [b"d " + s for s in lemmas] + [b"0"],
        "every group clause deleted first": [b"d " + " ".join(map(str, c)).encode() + b" 0"
                                             for c in formula.clauses[:20]] + steps,
        "a lemma that is neither RUP nor RAT": [b"0", *steps],
        "no empty clause": steps[:-1],
    }
    for what, tampered in cases.items():
        verdict = check_data(with_proof(data, b"\n".join(tampered) + b"\n"))
        assert not verdict.ok, what
        assert verdict.usable, what
    assert "neither RUP nor RAT" in check_data(with_proof(data, b"\n".join(cases["a lemma that is neither RUP "
                                                                               "nor RAT"]) + b"\n")).reason
    assert "never adds the empty clause" in check_data(with_proof(data, b"\n".join(steps[:-1]) + b"\n")).reason


def test_a_refutation_for_another_position_or_game_is_rejected():
    data = refutation("6x5k5")
    for other in ({"game": "7x5k5"}, {"moves": ["a1"]}, {"game": "5x6k5"}):
        verdict = check_data({**data, **other})
        assert not verdict.ok, other
    # the other position's formula sizes written in: the proof itself must then fail against that formula
    moved = pairing_formula(Game("6x5k5").position("c3"))
    verdict = check_data({**data, "moves": ["c3"], "variables": moved.variables, "clauses": len(moved.clauses)})
    assert not verdict.ok and "refutation for 6x5k5 after c3 fails" in verdict.reason


def test_garbage_is_rejected_in_one_sentence():
    data = refutation("4x4k3", "a1")
    bad = [
        with_proof(data, b"1 2 x 0\n0\n"),
        with_proof(data, b"1 2\n"),
        with_proof(data, b"99999999999 0\n0\n"),
        with_proof(data, bytes(range(256))),
        {**data, "proof": {**data["proof"], "data": "not base64!"}},
        {**data, "proof": {**data["proof"], "data": base64.b64encode(b"garbage").decode()}},
        {**data, "proof": "0"},
        {**data, "encoding": "another"},
        {**data, "claim": "first wins"},
    ]
    for certificate in bad:
        verdict = check_data(json.loads(json.dumps(certificate)))
        assert not verdict.ok
        assert "\n" not in verdict.reason and verdict.reason.count(". ") == 0


def test_rat_lemmas_and_deletions():
    # a lemma on a fresh variable is RAT on it (no clause holds its negation); the other order is not
    assert check_refutation(4, [[1, 2], [-2, 3]], b"4 -1 0\n").reason.startswith("the proof never")
    assert "neither RUP nor RAT" in check_refutation(4, [[1, 2], [-2, 3]], b"-1 4 0\n").reason
    assert check_refutation(3, XOR_SQUARE, b"1 0\n0\n").ok
    # deletions are honoured: without the unit 1, the empty clause is no longer RUP
    assert not check_refutation(3, XOR_SQUARE, b"1 0\nd 1 0\n0\n").ok
    assert not check_refutation(3, XOR_SQUARE, b"d 1 -2 0\n0\n").ok
    # deleting the clause that propagated a literal, when a unit lemma holds it, changes nothing
    assert check_refutation(3, XOR_SQUARE, b"1 0\n3 0\nd -1 3 0\n0\n").ok
    # a deletion of an absent clause is ignored; a variable far beyond the formula is refused
    assert check_refutation(3, XOR_SQUARE, b"d 2 3 0\n1 0\n0\n").ok
    assert "beyond" in check_refutation(3, XOR_SQUARE, b"1000 0\n0\n").reason


def satisfiable(variables: int, clauses: list[list[int]]) -> bool:
    for bits in itertools.product((False, True), repeat=variables):
        if all(any(bits[abs(lit) - 1] == (lit > 0) for lit in c) for c in clauses):
            return True
    return False


literal = st.integers(1, 5).flatmap(lambda v: st.sampled_from([v, -v]))
cnf = st.lists(st.lists(literal, min_size=1, max_size=3), min_size=1, max_size=14)
lemmas = st.lists(st.lists(literal, min_size=0, max_size=3), max_size=6)


@settings(max_examples=150, deadline=None)
@given(cnf, lemmas)
def test_random_cnfs(clauses, extra):
    from pysat.solvers import Solver

    if satisfiable(5, clauses):
        # no proof refutes a satisfiable formula: random lemmas ending in the empty clause are never accepted
        proof = b"".join(" ".join(map(str, [*lemma, 0])).encode() + b"\n" for lemma in [*extra, []])
        assert not check_refutation(5, clauses, proof).ok
    else:
        with Solver(name="cadical300", bootstrap_with=clauses, with_proof=True) as solver:
            assert solver.solve() is False
            proof = ("\n".join(solver.get_proof()) + "\n").encode()
        assert check_refutation(5, clauses, proof).ok


def test_the_formula_agrees_with_the_finder():
    # the checker's own encoding is satisfiable exactly when find (bounds, matching, SAT) finds a pairing
    from pysat.solvers import Solver

    for game, moves in [("4x4k4", None), ("5x5k4", None), ("6x5k5", None), ("5x5k5", "c3 a1"), ("5x5k5", "a1"),
                        ("6x6k6", "b2"), ("4x4k3", None)]:
        position = Game(game).position(moves or "")
        formula = pairing_formula(position)
        with Solver(name="cadical300", bootstrap_with=formula.clauses) as solver:
            assert solver.solve() == find(position).exists, (game, moves)


def test_cli_round_trip(tmp_path, capsys):
    path = tmp_path / "none.json.gz"
    assert main(["pairing", "6x5k5", "--proof", str(path)]) == 0
    assert "No-pairing (DRAT) certificate written" in capsys.readouterr().out
    assert main(["check", str(path)]) == 0
    assert capsys.readouterr().out.startswith("VALID: in 6x5k5, no good pairing exists")
    data = json.loads(__import__("gzip").decompress(path.read_bytes()))
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(with_proof(data, b"\n".join(lines(proof_text(data))[:-1]) + b"\n")))
    assert main(["check", str(tampered)]) == 1
    assert capsys.readouterr().out.startswith("REJECTED: the refutation for 6x5k5 fails")
    # a board with a pairing still writes the pairing certificate
    found = tmp_path / "found.json"
    assert main(["pairing", "5x5k5", "--moves", "c3 a1", "--proof", str(found)]) == 0
    assert main(["check", str(found)]) == 0


def test_an_oversized_proof_is_refused(monkeypatch):
    from kinarow.errors import KinarowError
    from kinarow.knowledge import pairing

    monkeypatch.setattr(pairing, "MAX_PROOF_BYTES", 1000)
    with pytest.raises(KinarowError, match="longer than"):
        find("6x5k5", certify=True)


@settings(max_examples=60, deadline=None)
@given(cnf, st.permutations(list(itertools.product((1, -1), repeat=3))), st.permutations([1, 2, 3, 4, 5]))
def test_random_unsatisfiable_cnfs(clauses, signs, names):
    # random clauses plus all eight sign patterns over three random variables: always unsatisfiable
    from pysat.solvers import Solver

    core = [[s * v for s, v in zip(pattern, names[:3], strict=True)] for pattern in signs]
    formula = clauses[: len(clauses) // 2] + core + clauses[len(clauses) // 2:]
    assert not satisfiable(5, formula)
    with Solver(name="cadical300", bootstrap_with=formula, with_proof=True) as solver:
        assert solver.solve() is False
        proof = ("\n".join(solver.get_proof()) + "\n").encode()
    assert check_refutation(5, formula, proof).ok
    # the same proof never refutes the formula without its core's first clause when that is satisfiable
    if satisfiable(5, [c for c in formula if c != core[0]]):
        assert not check_refutation(5, [c for c in formula if c != core[0]], proof).ok


def test_the_checker_imports_no_search_code(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    path = tmp_path / "none.json"
    path.write_text(json.dumps(refutation("6x5k5")))
    child = (
        "import json, sys\n"
        "from kinarow.proofs import check_data\n"
        "verdict = check_data(json.load(open(sys.argv[1])))\n"
        "assert verdict.ok, verdict.reason\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'pysat' or m.startswith(\n"
        "    ('kinarow.search', 'kinarow.knowledge', 'kinarow.engine', 'kinarow.strategies')))))\n"
    )
    src = str(Path(__file__).resolve().parents[1] / "src")
    done = subprocess.run([sys.executable, "-c", child, str(path)], capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": src, "PATH": ""})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_the_pairing_table_certifies_every_no(tmp_path, capsys):
    """``pairing-table --proofs DIR``: a checked refutation for every board of the table with no good pairing."""
    from kinarow.knowledge.pairing import existence_table

    folder = tmp_path / "proofs"
    assert main(["pairing-table", "--max-side", "5", "--no-store", "--proofs", str(folder)]) == 0
    out = capsys.readouterr().out
    nos = [f"{r.m}x{r.n}k{r.k}" for r in existence_table(5) if r.exists is False]
    assert nos and f"{len(nos)} no-pairing certificates (DRAT refutations) written to {folder}" in out
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{b}.no-pairing.json.gz" for b in nos)
    for board in nos:
        with gzip.open(folder / f"{board}.no-pairing.json.gz", "rt") as f:
            verdict = check_data(json.load(f))
        assert verdict.ok and board in verdict.reason, verdict.reason


def test_the_pairing_table_refuses_a_file_as_its_proof_folder(tmp_path, capsys):
    target = tmp_path / "a-file"
    target.write_text("")
    assert main(["pairing-table", "--max-side", "3", "--no-store", "--proofs", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--proofs" in err and "is a file" in err
