"""The ``kinarow.torus`` checker: a file of classes of good domino pairings of a torus.

A good pairing of the torus ``T_n`` is a set of dominoes covering every cell,
each domino joining two neighbours along one of the line directions, such
that every wrapped line holds exactly one domino lying along it
(Győrffy, London & Makay, Acta Cybernetica 2017). An enumeration lists one
pairing per class under the torus's symmetries, in canonical form (its
smallest image), in a class file; its certificate names the file and its
SHA-256. The checker re-verifies every class with the rules alone, sharing
no code with the enumeration (:mod:`kinarow.knowledge.infinite.torus`): a good
pairing (NumPy), its own canonical form under a symmetry group built from the
rules' geometry (:func:`own_group`), all distinct; and that no class is
missing: the orbits of the listed classes must hold as many labelled pairings
as a row-by-row count of every good pairing gives
(:mod:`kinarow.proofs.torus_count`). Distinct canonical forms put the classes
in distinct orbits, so their orbits cover every good pairing exactly when
their sizes add up to that count.

The class file: the magic line :data:`FILE_MAGIC`, a JSON header line, then
3 bits per cell for each class (first cell first; cells in reading order,
rows from the top), a direction code clockwise from East.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import stat
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.proofs import Verdict, require_format, require_input, torus_count

FORMAT = "kinarow.torus"
VERSION = 1
CLASSES_FORMAT = "kinarow.torus-classes"  # the class file's header names this format
FILE_MAGIC = b"KINAROW-TORUS-PAIRINGS\n"

# Direction vectors (dx, dr) in reading coordinates (r counts rows downwards),
# numbered clockwise from East; the first half are the "forward" codes.
SQUARE_CODES = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
SQUARE_NAMES = ("E", "SE", "S", "SW", "W", "NW", "N", "NE")
# The hexagonal grid's three directions (1, 0), (0, 1), (1, -1) of kinarow's hex
# geometry (y up) are, in reading coordinates, E, N-S and SE-NW.
HEX_CODES = ((1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1))
HEX_NAMES = ("E", "SE", "S", "W", "NW", "N")


class TorusError(KinarowError):
    """A torus pairing request or file that cannot be used."""


@dataclass(frozen=True)
class TorusGeometry:
    """The n x n torus with its line directions and the symmetry group used for classes."""

    name: str
    n: int
    hexagonal: bool
    group: str  # "full" (all point symmetries), or for hex also "d3-lines" / "d3-between"

    @property
    def vectors(self) -> tuple[tuple[int, int], ...]:
        return HEX_CODES if self.hexagonal else SQUARE_CODES

    @property
    def code_names(self) -> tuple[str, ...]:
        return HEX_NAMES if self.hexagonal else SQUARE_NAMES

    @property
    def ncodes(self) -> int:
        return len(self.vectors)

    @property
    def ncells(self) -> int:
        return self.n * self.n

    def xr(self, cell: int) -> tuple[int, int]:
        """Column and row (counted from the top) of a cell."""
        return cell % self.n, cell // self.n

    def cell(self, x: int, r: int) -> int:
        return (r % self.n) * self.n + (x % self.n)

    @cached_property
    def neighbours(self) -> np.ndarray:
        nb = np.zeros((self.ncells, self.ncodes), dtype=np.int64)
        for c in range(self.ncells):
            x, r = self.xr(c)
            for k, (dx, dr) in enumerate(self.vectors):
                nb[c, k] = self.cell(x + dx, r + dr)
        return nb

    @cached_property
    def line_index(self) -> np.ndarray:
        """``line_index[d, cell]``: which of the n lines of direction d holds the cell."""
        half = self.ncodes // 2
        index = -np.ones((half, self.ncells), dtype=np.int64)
        for d in range(half):
            count = 0
            for c in range(self.ncells):
                if index[d, c] >= 0:
                    continue
                cur = c
                while index[d, cur] < 0:
                    index[d, cur] = count
                    cur = int(self.neighbours[cur, d])
                count += 1
            if count != self.n:
                raise AssertionError("every direction has n wrapped lines")
        return index

    @cached_property
    def point_maps(self) -> list[tuple[int, int, int, int]]:
        """The linear maps (a, b, c, d): (x, r) -> (a x + b r, c x + d r) of the group, identity first."""
        vecs = set(self.vectors)
        found = []
        for a in (-1, 0, 1):
            for b in (-1, 0, 1):
                for c in (-1, 0, 1):
                    for d in (-1, 0, 1):
                        if a * d - b * c not in (1, -1):
                            continue
                        if all((a * x + b * y, c * x + d * y) in vecs for x, y in vecs):
                            found.append((a, b, c, d))
        found.sort(key=lambda m: m != (1, 0, 0, 1))
        if self.group == "full":
            return found
        # Hexagonal D3 subgroups: the rotations by 0, 120 and 240 degrees and the three
        # reflections whose mirror runs along a line direction ("d3-lines") or
        # between two line directions ("d3-between").
        chosen = []
        for m in found:
            a, b, c, d = m
            det = a * d - b * c
            if det == 1:
                square = (a * a + b * c, a * b + b * d, c * a + d * c, c * b + d * d)
                cube = (
                    square[0] * a + square[1] * c,
                    square[0] * b + square[1] * d,
                    square[2] * a + square[3] * c,
                    square[2] * b + square[3] * d,
                )
                if cube == (1, 0, 0, 1):
                    chosen.append(m)
            else:
                fixes_line = any((a * x + b * y, c * x + d * y) == (x, y) for x, y in self.vectors)
                if fixes_line == (self.group == "d3-lines"):
                    chosen.append(m)
        return chosen

    @property
    def order(self) -> int:
        """The order of the symmetry group (translations times point maps)."""
        return self.ncells * len(self.point_maps)

    @cached_property
    def tables(self) -> tuple[np.ndarray, np.ndarray]:
        """``rot[s, code]`` (image of a direction code) and ``src[s, p, i]`` (see the kernel)."""
        maps = self.point_maps
        code_of = {v: k for k, v in enumerate(self.vectors)}
        rot = np.zeros((len(maps), self.ncodes), dtype=np.int8)
        src = np.zeros((len(maps), self.ncells, self.ncells), dtype=np.int16)
        for s, (a, b, c, d) in enumerate(maps):
            det = a * d - b * c
            ia, ib, ic, id_ = d * det, -b * det, -c * det, a * det  # inverse (det is +-1)
            for k, (x, y) in enumerate(self.vectors):
                rot[s, k] = code_of[(a * x + b * y, c * x + d * y)]
            for p in range(self.ncells):
                px, pr = self.xr(p)
                for i in range(self.ncells):
                    ix, ir = self.xr(i)
                    src[s, p, i] = self.cell(px + ia * ix + ib * ir, pr + ic * ix + id_ * ir)
        return rot, src


GEOMETRIES = {
    "9": TorusGeometry("9", 8, False, "full"),
    "hex7": TorusGeometry("hex7", 6, True, "d3-lines"),
}


def geometry(name: str, group: str | None = None) -> TorusGeometry:
    """The torus for ``name`` ('9' = 8 x 8 square, 'hex7' = 6 x 6 hexagonal), optionally with another group."""
    if name not in GEOMETRIES:
        raise TorusError(f"there is no torus enumeration called '{name}'; use '9' (8x8, 9-in-a-row) or 'hex7'")
    g = GEOMETRIES[name]
    if group is None or group == g.group:
        return g
    allowed = ("full",) if not g.hexagonal else ("full", "d3-lines", "d3-between")
    if group not in allowed:
        raise TorusError(f"the symmetry group '{group}' is not known for '{name}'; use one of {', '.join(allowed)}")
    return TorusGeometry(g.name, g.n, g.hexagonal, group)


# -- the class file ------------------------------------------------------------------
def bytes_per_class(n: int) -> int:
    """The bytes one class of the n x n torus takes in the class file (3 bits a cell, rounded up)."""
    return -(-3 * n * n // 8)


# The most bytes a class file named on the command line (``kinarow torus --load``) may hold: far above the 8 x 8
# torus's full enumeration.
MAX_CLASS_FILE_BYTES = 2**30
#: the largest number a class file's header may give (count, n, bytes_per_class): a class file is at most 1 GiB
MAX_HEADER_NUMBER = 2**31


def load_classes(path: str | Path) -> tuple[dict[str, Any], np.ndarray, str]:
    """Read a class file: (header, codes array (count, cells) int8, SHA-256 of the file).

    At most :data:`MAX_CLASS_FILE_BYTES` are read, and only from a regular file.
    """
    require_input(path, (str, Path), "load_classes()", "the path of a class file")
    data = read_confined(Path(path), MAX_CLASS_FILE_BYTES, str(path), "a class file may be")
    return (*parse_classes(data, str(path)), hashlib.sha256(data).hexdigest())


def parse_classes(data: bytes, name: str = "the class file") -> tuple[dict[str, Any], np.ndarray]:
    """The header and the codes array (count, cells) int8 of a class file's bytes (``name`` for messages)."""
    require_input(data, (bytes, bytearray), "parse_classes()", "a class file's bytes")
    if not data.startswith(FILE_MAGIC):
        raise TorusError(f"'{name}' is not a torus class file (it must start with {FILE_MAGIC.strip().decode()})")
    stream = io.BytesIO(data[len(FILE_MAGIC) :])
    try:
        header = json.loads(stream.readline(MAX_HEADER_BYTES))
        count, n, width = (header[key] for key in ("count", "n", "bytes_per_class"))
    except (ValueError, KeyError, TypeError, RecursionError):
        raise TorusError(f"'{name}' has a damaged header line") from None
    if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_HEADER_NUMBER
               for v in (count, n, width)):
        raise TorusError(f"'{name}' has a damaged header line: count, n and bytes_per_class must be whole numbers "
                         f"from 0 to {MAX_HEADER_NUMBER:,}")
    body = stream.read()
    if len(body) != count * width or width != bytes_per_class(n):
        raise TorusError(f"'{name}' should hold {count} classes of {width} bytes but its size does not match")
    bits = np.unpackbits(np.frombuffer(body, dtype=np.uint8).reshape(count, width), axis=1)[:, : 3 * n * n]
    triples = bits.reshape(count, n * n, 3)
    codes = (triples[:, :, 0] * 4 + triples[:, :, 1] * 2 + triples[:, :, 2]).astype(np.int8)
    return header, codes


# -- completeness: orbits against a count of every labelled pairing ---------------------
def rules_game(g: TorusGeometry) -> Game:
    """The k = n torus game whose groups are the wrapped lines of ``g`` (the rules' own geometry)."""
    return Game(f"{g.n}x{g.n}k{g.n}:torus{',hex' if g.hexagonal else ''}")


@functools.lru_cache(maxsize=8)
def own_group(g: TorusGeometry) -> np.ndarray:
    """The symmetry group of ``g`` as cell permutations in reading order, built from the rules alone.

    The rules' geometry gives every symmetry of the k = n torus game (the affine maps that send wrapped lines onto
    wrapped lines: all 512 of the 8 x 8 torus, all 432 of the hexagonal 6 x 6). For a hexagonal D3 group the
    linear part of each map (read off the images of the origin and its two unit neighbours) is kept when it is a
    rotation of order 1 or 3, or a reflection that fixes a line direction ("d3-lines") or fixes none
    ("d3-between"). Shares nothing with :attr:`TorusGeometry.point_maps`.
    """
    geo = rules_game(g).geometry
    n = g.n

    def reading(cell: int) -> int:  # rules cell x * n + y (y up) -> reading order (rows from the top)
        x, y = divmod(cell, n)
        return (n - 1 - y) * n + x

    def small(v: int) -> int:
        return v - n if v > n // 2 else v

    kept = []
    for perm in geo.symmetries:
        if g.group != "full":
            t = geo.xy(perm[geo.cell(0, 0)])
            e1, e2 = geo.xy(perm[geo.cell(1, 0)]), geo.xy(perm[geo.cell(0, 1)])
            a, c = small((e1[0] - t[0]) % n), small((e1[1] - t[1]) % n)
            b, d = small((e2[0] - t[0]) % n), small((e2[1] - t[1]) % n)
            m = np.array([[a, b], [c, d]])
            if a * d - b * c == 1:
                if not (np.linalg.matrix_power(m, 3) == np.eye(2)).all():
                    continue
            else:
                fixes_line = any((m @ np.array(v) == np.array(v)).all() for v in geo.directions)
                if fixes_line != (g.group == "d3-lines"):
                    continue
        image = np.empty(g.ncells, dtype=np.int64)
        for cell in range(geo.size):
            image[reading(cell)] = reading(perm[cell])
        kept.append(image)
    group = np.array(kept, dtype=np.int64)
    group.flags.writeable = False  # shared by every caller (cached)
    return group


@functools.lru_cache(maxsize=8)
def labelled_count(g: TorusGeometry) -> tuple[int, int]:
    """The number of labelled good pairings of ``g``'s torus, counted row by row (no symmetry classes), and the
    most states one row of the count held (:func:`kinarow.proofs.torus_count.count_pairings`, directions from the
    rules)."""
    return torus_count.count_pairings(g.n, rules_game(g).geometry.directions)


def orbit_sizes(g: TorusGeometry, codes: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, int]:
    """Each class's orbit size |group| / |stabiliser| under ``group`` (cell permutations in reading order), and the
    first class with a smaller image under the group (-1 when every class is its own canonical form)."""
    n = g.n
    vectors = g.vectors
    cells = np.arange(g.ncells, dtype=np.int16)
    x, r = cells % n, cells // n
    step = np.array(vectors, dtype=np.int16)
    codes = np.ascontiguousarray(codes, dtype=np.int8)
    partners = ((r[None, :] + step[codes, 1]) % n) * n + (x[None, :] + step[codes, 0]) % n  # int16: 2 bytes a cell
    code_of = -np.ones((g.ncells, g.ncells), dtype=np.int8)
    for k, (dx, dr) in enumerate(vectors):
        code_of[cells, ((r + dr) % n) * n + (x + dx) % n] = k
    inverse = np.argsort(group, axis=1)
    stabiliser = np.zeros(codes.shape[0], dtype=np.int64)
    first = torus_count.orbit_scan(partners.astype(np.int16), codes, group, inverse, code_of, stabiliser)
    if first >= 0:
        return stabiliser, int(first)
    return group.shape[0] // stabiliser, -1


def canonical_orbits(g: TorusGeometry, codes: np.ndarray) -> np.ndarray | Verdict:
    """The orbit sizes of the classes under the group built from the rules (:func:`own_group`), or a rejection:
    the group has not the order of ``g``'s, or some class has a smaller image (is not in canonical form)."""
    group = own_group(g)
    if group.shape[0] != g.order:
        return Verdict(False, f"the rules give the {g.n}x{g.n} torus {group.shape[0]} symmetries in the "
                              f"'{g.group}' group, not {g.order}")
    sizes, first = orbit_sizes(g, codes, group)
    if first >= 0:
        return Verdict(False, f"class {first} is not in canonical form (an image under the rules' symmetries is "
                              f"smaller)")
    return sizes


def compare_orbits(g: TorusGeometry, sizes: np.ndarray) -> Verdict:
    """The orbit sizes of the classes must sum to the labelled good pairings counted row by row."""
    orbits = int(sizes.sum())
    labelled, _ = labelled_count(g)
    if orbits != labelled:
        return Verdict(False, f"the classes' orbits hold {orbits:,} labelled pairings but the torus has {labelled:,} "
                              f"(counted row by row): {'some class is missing' if orbits < labelled else 'too many'}")
    return Verdict(True, f"their orbits under the {g.order} symmetries hold {orbits:,} labelled pairings and a "
                         f"row-by-row count of every good pairing gives {labelled:,}, so no class is missing")


def check_complete(g: TorusGeometry, codes: np.ndarray) -> Verdict:
    """No class is missing and none is listed twice: under a group built from the rules (:func:`own_group`) every
    class is its own smallest image (so no two listed classes share an orbit), and the orbit sizes sum to the
    number of labelled good pairings counted row by row (:func:`labelled_count`), so the orbits cover them all."""
    require_input(g, TorusGeometry, "check_complete()", "a TorusGeometry (geometry() builds one)")
    require_input(codes, np.ndarray, "check_complete()", "the classes as an array of codes")
    sizes = canonical_orbits(g, codes)
    return sizes if isinstance(sizes, Verdict) else compare_orbits(g, sizes)


# -- the checker ---------------------------------------------------------------------
def check_classes(header: dict[str, Any], codes: np.ndarray, *, complete: bool = True) -> Verdict:
    """Re-verify a class file with the rules only: every entry a good pairing, its own canonical form under the
    symmetries built from the rules (:func:`own_group`), all distinct, and (``complete``) no class missing: the
    orbits hold every labelled good pairing (:func:`check_complete`).
    """
    require_input(header, dict, "check_classes()", "a class file's header (a dict)")
    require_input(codes, np.ndarray, "check_classes()", "the classes as an array of codes")
    try:
        g = geometry(str(header["torus"]), str(header["group"]))
    except KinarowError as error:
        return Verdict(False, str(error))
    if codes.ndim != 2 or codes.shape[1] != g.ncells:
        return Verdict(False, f"each class must have {g.ncells} cells")
    count = codes.shape[0]
    if count != int(header["count"]):
        return Verdict(False, f"the header says {header['count']} classes but the file holds {count}")
    if count and ((codes < 0).any() or (codes >= g.ncodes).any()):
        return Verdict(False, f"a direction code lies outside 0..{g.ncodes - 1}")
    half = g.ncodes // 2
    nb = g.neighbours.astype(np.int16)
    cells = np.arange(g.ncells)
    c16 = codes.astype(np.int16)  # 2 bytes a cell: T8's 194,543 classes take 25 MB an array
    partner = nb[cells[None, :], c16]
    back = np.take_along_axis(c16, partner.astype(np.intp), axis=1)
    if not (back == (c16 + half) % g.ncodes).all():
        return Verdict(False, "some cell's partner does not point back to it (the dominoes do not cover the torus)")
    del partner, back
    # every line holds exactly one domino along it: count the forward ends per (class, direction, line)
    for d in range(half):
        rows, cols = np.nonzero(c16 == d)
        per_line = np.bincount(rows * g.n + g.line_index[d][cols], minlength=count * g.n)
        if not (per_line == 1).all():
            return Verdict(False, f"a line of direction {g.code_names[d]} does not hold exactly one domino")
    if count > 1:
        diff = c16[1:] != c16[:-1]
        first = diff.argmax(axis=1)
        idx = np.arange(count - 1)
        if not (diff.any(axis=1) & (c16[1:][idx, first] > c16[:-1][idx, first])).all():
            return Verdict(False, "the classes are not listed in strictly increasing order (a repeat?)")
    sizes = canonical_orbits(g, codes)
    if isinstance(sizes, Verdict):
        return sizes
    torus = f"{g.n}x{g.n} {'hexagonal ' if g.hexagonal else ''}torus"
    found = f"{count:,} distinct classes of good pairings of the {torus}, each in canonical form"
    if not complete:
        return Verdict(True, found)
    verdict = compare_orbits(g, sizes)
    if not verdict.ok:
        return verdict
    return Verdict(True, f"{found}; {verdict.reason}")


# The most a class file's header line may take (the line after the magic one).
MAX_HEADER_BYTES = 4096


def confined(base: str | Path, name: object) -> Path:
    """The file a certificate in folder ``base`` names as ``name``, if it is allowed: a relative path inside the
    folder (no absolute path, no ``..``, no symbolic link leading out of it). A :class:`TorusError` otherwise, which
    says the same whether or not a file exists there."""
    refused = TorusError(
        f"the class file must be named by a relative path to a file in the certificate's own folder (no absolute "
        f"path, no '..', no link leading out of the folder), not {str(name)[:200]!r}")
    if not isinstance(name, str) or not name or "\x00" in name or "\\" in name:
        raise refused
    relative = Path(name)
    if relative.is_absolute() or relative.drive or ".." in relative.parts:
        raise refused
    folder = os.path.realpath(base)
    target = os.path.realpath(os.path.join(folder, name))
    if os.path.commonpath([folder, target]) != folder or target == folder:
        raise refused
    return Path(target)


def read_confined(path: Path, limit: int, shown: str, allowed: str = "its certificate's class count allows") -> bytes:
    """At most ``limit`` bytes of the regular file ``path`` (named ``shown`` in messages); a TorusError when it is
    not a regular file, cannot be read, or is longer."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise TorusError(f"cannot read the class file '{shown}': {error.strerror or error}") from None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise TorusError(f"the class file '{shown}' is not a regular file")
        data = file.read(limit + 1)
    if len(data) > limit:
        raise TorusError(f"the class file '{shown}' is longer than {allowed} ({limit:,} bytes)")
    return data


def check(data: dict[str, Any], base: str | Path = ".") -> Verdict:
    """Check an enumeration certificate: the class file's hash, its count, and every class in it.

    The class file must lie in ``base`` (the certificate's own folder, see :func:`confined`), and no more is read
    of it than the certificate's class count needs.
    """
    require_format(data, FORMAT, VERSION, "torus enumeration")
    classes = data.get("classes")
    if not isinstance(classes, int) or isinstance(classes, bool) or classes < 0:
        return Verdict(False, "the certificate needs 'classes', the number of classes in its class file")
    try:
        g = geometry(str(data.get("torus")), None)
        path = confined(base, data.get("class_file"))
        limit = len(FILE_MAGIC) + MAX_HEADER_BYTES + classes * bytes_per_class(g.n)
        raw = read_confined(path, limit, str(data.get("class_file")))
        header, codes = parse_classes(raw, str(data.get("class_file")))
    except TorusError as error:
        return Verdict(False, str(error))
    sha = hashlib.sha256(raw).hexdigest()
    if sha != data.get("sha256"):
        return Verdict(False, f"the SHA-256 of '{path.name}' is not the one in the certificate")
    if int(header.get("count", -1)) != data.get("classes") or header.get("torus") != data.get("torus"):
        return Verdict(False, "the class file's header does not match the certificate's counts")
    if header.get("group") != data.get("group"):
        return Verdict(False, "the class file uses another symmetry group than the certificate")
    return check_classes(header, codes)


def check_certificate(data: dict[str, Any], base: str | Path = ".") -> Verdict:
    """The ``kinarow.torus`` checker for :mod:`kinarow.proofs` (the class file is looked for in ``base``)."""
    verdict = check(data, base)
    if verdict.ok:
        return Verdict(True, f"{verdict.reason}; the class file matches its SHA-256")
    return verdict
