"""The ``kinarow.no-pairing`` checker: a DRAT refutation of "a good pairing exists", checked against our own formula.

A *good pairing* of a position is a set of disjoint pairs of empty cells such
that every group still live for the first player (no White stone on it) holds
both cells of some pair (Tung & Lau, Section 2; :mod:`kinarow.proofs.pairing`).
"None exists" is proved by refuting a CNF formula that says one does. The
certificate carries only the refutation: this module builds the formula
itself, from the game and the moves, with the encoding below, and checks the
proof forward, lemma by lemma, in :mod:`kinarow.proofs.drat_kernel`. It imports
the rules and nothing of the SAT search that wrote the proof.

The encoding (``pairing-cnf/1``)
================================

* The live groups: the board's groups (``geometry.groups``, in that order)
  with no White stone; each group's *empty cells* in increasing cell order.
* The candidate pairs: every pair ``(a, b)``, ``a < b``, of empty cells lying
  together in some live group, numbered 1, 2, ... in the order they first
  appear when each live group's pairs are listed in turn, in
  ``itertools.combinations`` order of its empty cells. Variable i is true when
  pair i is in the pairing. (This order, not the sorted one, keeps CaDiCaL
  fast: sorted numbering took 10 times the conflicts on 6x5k5, and 8x7k6 ran
  past 500 s where this takes 2 s.)
* One clause per live group, in order: the variables of its pairs, in that
  order ("the group holds a pair"). A group with fewer than two empty cells
  gives the empty clause.
* For each empty cell with two or more candidate pairs ``x1 < ... < xn``,
  cells taken in the order of first appearance in the pair list (``a`` before
  ``b`` within a pair): "at most one of them" by the sequential counter
  (Sinz 2005) with new variables ``s1 .. s(n-1)`` numbered on from the last
  one used: ``(-x1 s1)``; for ``1 < i < n``: ``(-xi si) (-s(i-1) si)
  (-xi -s(i-1))``; and ``(-xn -s(n-1))``.

A model gives a good pairing (its true pair variables; the counter lets at
most one pair use a cell), and a good pairing gives a model (keep its pairs
lying in a live group; ``si`` true when one of ``x1 .. xi`` is), so the
formula is unsatisfiable exactly when no good pairing exists.

The certificate::

    {"format": "kinarow.no-pairing", "version": 1, "game": "6x5k5", "moves": [],
     "created_by": "kinarow 0.1.0", "claim": "no good pairing exists",
     "encoding": "pairing-cnf/1", "variables": 480, "clauses": 920,
     "proof": {"format": "drat", "compression": "xz", "data": "<base64>"}}

``variables`` and ``clauses`` must be those of the checker's own formula (a
proof made for another encoding is refused in one sentence, not checked);
``data`` is the DRAT proof as text (``d`` lines delete, the first literal of
a lemma is its RAT pivot), xz-compressed and base64-encoded, at most
:data:`MAX_PROOF_BYTES` once decompressed.
"""

from __future__ import annotations

import base64
import binascii
import lzma
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position
from kinarow.proofs import CertificateError, Verdict, require_claim, require_envelope, require_input

FORMAT = "kinarow.no-pairing"
VERSION = 1
CLAIM = "no good pairing exists"
ENCODING = "pairing-cnf/1"

#: The most bytes a DRAT proof may hold as text (decompressed): a proof of 8x7k6 takes 5 MB, and the
#: certificate file limit (512 MiB) leaves room for this much.
MAX_PROOF_BYTES = 256 * 2**20
MAX_PROOF_WORDS = "256 MiB"


@dataclass
class PairingFormula:
    """The CNF of "a good pairing exists" for one position, in the encoding of the module docstring."""

    variables: int
    clauses: list[list[int]]
    pairs: list[tuple[int, int]]  # candidate pair i is variable i + 1

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(literals, start, length) of the clauses, flat, for the kernel."""
        return _flat(self.clauses)


def pairing_formula(position: Position) -> PairingFormula:
    """The formula ``pairing-cnf/1`` of ``position``: satisfiable exactly when a good pairing exists."""
    board = position.board
    live = [g for g in position.geometry.groups if all(board[c] != 2 for c in g)]
    empty_of = [sorted(c for c in g if board[c] == 0) for g in live]
    variable: dict[tuple[int, int], int] = {}
    clauses = [[variable.setdefault(p, len(variable) + 1) for p in combinations(cells, 2)] for cells in empty_of]
    pairs = list(variable)
    by_cell: dict[int, list[int]] = {}
    for (a, b), x in variable.items():
        by_cell.setdefault(a, []).append(x)
        by_cell.setdefault(b, []).append(x)
    top = len(pairs)
    for xs in by_cell.values():  # cells in the order their first pair was numbered; xs increasing
        n = len(xs)
        if n < 2:
            continue
        s = list(range(top + 1, top + n))  # s[i] is s(i+1) of the docstring
        top += n - 1
        clauses.append([-xs[0], s[0]])
        for i in range(1, n - 1):
            clauses += [[-xs[i], s[i]], [-s[i - 1], s[i]], [-xs[i], -s[i - 1]]]
        clauses.append([-xs[n - 1], -s[n - 2]])
    return PairingFormula(top, clauses, pairs)


def _flat(clauses: list[list[int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    length = np.array([len(c) for c in clauses], np.int32)
    start = np.zeros(len(clauses), np.int64)
    if len(clauses) > 1:
        np.cumsum(length[:-1], out=start[1:])
    lits = np.array([lit for c in clauses for lit in c], np.int32)
    return lits, start, length


@dataclass
class Refutation:
    """What the DRAT check of one proof found: ``ok``, one sentence ``reason``, and figures."""

    ok: bool
    reason: str
    steps: int = 0
    lemmas: int = 0
    rat_lemmas: int = 0
    deletions: int = 0
    deletions_missing: int = 0
    rebuilds: int = 0

    def figures(self) -> dict[str, int]:
        return {"proof_steps": self.steps, "lemmas_checked": self.lemmas, "rat_lemmas": self.rat_lemmas,
                "deletions": self.deletions, "deletions_of_absent_clauses": self.deletions_missing}


def check_refutation(variables: int, clauses: list[list[int]], proof: bytes) -> Refutation:
    """Is ``proof`` (DRAT text) a refutation of the CNF ``clauses`` over ``variables`` variables?

    Every lemma must be RUP or RAT (on its first literal) against the clauses
    alive when it is added; deletions are honoured; the proof must add the
    empty clause. ``clauses`` use literals in ``1..variables``.
    """
    require_input(variables, int, "check_refutation()", "the number of variables (a whole number)")
    require_input(clauses, (list, tuple), "check_refutation()", "the clauses as a list of lists of literals")
    if not all(isinstance(c, (list, tuple)) and all(isinstance(v, int) for v in c) for c in clauses):
        raise CertificateError("check_refutation() takes the clauses as a list of lists of whole-number literals")
    require_input(proof, (bytes, bytearray), "check_refutation()", "the DRAT proof as bytes")
    from kinarow.proofs import drat_kernel as kernel

    bad = next((lit for c in clauses for lit in c if lit == 0 or abs(lit) > variables), None)
    if bad is not None:
        raise KinarowError(f"the formula's literal {bad} is not a variable of 1..{variables}")
    status, where, kind, pstart, plen, plits = kernel.parse(np.frombuffer(proof, np.uint8))
    if status == kernel.BAD_BYTE:
        byte = proof[where:where + 1]
        return Refutation(False, f"the DRAT proof has the byte {byte!r} at offset {where:,}, where only numbers, "
                          "'d', comment lines and white space may stand")
    if status == kernel.NUMBER_TOO_LARGE:
        return Refutation(False, f"the DRAT proof has a literal beyond 2^31 - 1 at offset {where:,}")
    if status == kernel.UNFINISHED:
        return Refutation(False, "the DRAT proof's last line is not ended by 0 (the proof is cut short)")
    lits, start, length = _flat(clauses)
    counts = np.zeros(5, np.int64)
    status, step = kernel.check(variables, lits, start, length, kind, pstart, plen, plits, counts)
    figures = {"steps": int(kind.shape[0]), "lemmas": int(counts[0]), "rat_lemmas": int(counts[1]),
               "deletions": int(counts[2]), "deletions_missing": int(counts[3]), "rebuilds": int(counts[4])}
    if status == kernel.ACCEPTED:
        return Refutation(True, f"its {figures['lemmas']:,} lemmas are each RUP or RAT and end in the empty clause",
                          **figures)
    if status == kernel.NOT_IMPLIED:
        shown = " ".join(str(x) for x in plits[pstart[step]:pstart[step] + min(int(plen[step]), 8)])
        more = " ..." if plen[step] > 8 else ""
        return Refutation(False, f"proof step {step + 1:,} (lemma '{shown}{more} 0') is neither RUP nor RAT",
                          **figures)
    if status == kernel.VARIABLE_OUT_OF_RANGE:
        return Refutation(False, f"proof step {step + 1:,} names a variable beyond the formula's {variables:,} and "
                          "one new variable per lemma", **figures)
    return Refutation(False, "the proof never adds the empty clause, so it refutes nothing", **figures)


def encode_proof(proof: bytes) -> dict[str, Any]:
    """The certificate's ``proof`` field for a DRAT proof given as text."""
    if len(proof) > MAX_PROOF_BYTES:
        raise KinarowError(f"the DRAT proof is {len(proof) / 2**20:,.0f} MiB, larger than the {MAX_PROOF_WORDS} a "
                           "no-pairing certificate may hold")
    data = base64.b64encode(lzma.compress(proof, preset=6)).decode("ascii")
    return {"format": "drat", "compression": "xz", "data": data}


def decode_proof(field: Any) -> bytes:
    """The DRAT text inside a certificate's ``proof`` field; a :class:`CertificateError` of one sentence if bad."""
    if not isinstance(field, dict) or field.get("format") != "drat" or field.get("compression") != "xz" \
            or not isinstance(field.get("data"), str):
        raise CertificateError('the no-pairing certificate needs "proof": {"format": "drat", "compression": "xz", '
                               '"data": base64 text}')
    try:
        packed = base64.b64decode(field["data"], validate=True)
    except (binascii.Error, ValueError):
        raise CertificateError("the proof's data is not base64 text") from None
    unpacker = lzma.LZMADecompressor()
    try:
        proof = unpacker.decompress(packed, max_length=MAX_PROOF_BYTES + 1)
    except lzma.LZMAError:
        raise CertificateError("the proof's data is not xz-compressed (or is damaged)") from None
    if len(proof) > MAX_PROOF_BYTES:
        raise CertificateError(f"the DRAT proof is larger than {MAX_PROOF_WORDS} once decompressed, the most a "
                               "no-pairing certificate's proof may be")
    if not unpacker.eof:
        raise CertificateError("the proof's xz data is cut short")
    return proof


def check_certificate(data: dict[str, Any]) -> Verdict:
    """Check a no-pairing certificate given as its JSON object."""
    game_text, moves = require_envelope(data, FORMAT, VERSION, "no-pairing")
    require_claim(data, CLAIM)
    if data.get("encoding") != ENCODING:
        raise CertificateError(f"the no-pairing certificate's 'encoding' must be '{ENCODING}', the formula this "
                               "checker builds")
    proof = decode_proof(data.get("proof"))
    details: dict[str, Any] = {"game": game_text, "moves": moves, "proof_bytes": len(proof)}
    try:
        game = Game(game_text)
        position = game.position(" ".join(moves))
    except KinarowError as err:
        return Verdict(False, f"the certificate's game or moves are invalid: {err}", details)
    after = f" after {' '.join(moves)}" if moves else ""
    formula = pairing_formula(position)
    details |= {"variables": formula.variables, "clauses": len(formula.clauses)}
    stated = (data.get("variables"), data.get("clauses"))
    if stated != (formula.variables, len(formula.clauses)):
        return Verdict(False, f"the certificate's formula ({stated[0]} variables, {stated[1]} clauses) is not the "
                       f"pairing formula of {game}{after} ({formula.variables} variables, {len(formula.clauses)} "
                       "clauses): the proof is for another position or encoding", details)
    result = check_refutation(formula.variables, formula.clauses, proof)
    details |= result.figures()
    if not result.ok:
        return Verdict(False, f"the refutation for {game}{after} fails: {result.reason}", details)
    return Verdict(True, f"in {game}{after}, no good pairing exists: the pairing formula ({formula.variables:,} "
                   f"variables, {len(formula.clauses):,} clauses) is refuted, {result.reason}", details)
