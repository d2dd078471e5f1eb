"""Proof objects (certificates) and their checkers.

Checkers import the rules (game, geometry, position) and never the search code.

Every certificate is one JSON object with a common envelope::

    {"format": "kinarow.<kind>", "version": 1, "game": "4x3k3", "moves": ["b2"],
     "created_by": "kinarow 0.1.0", "claim": "first wins", ...the proof itself...}

``format`` and ``version`` say how to read the rest; ``game`` and ``moves`` the
position the proof is about; ``created_by`` which kinarow wrote it (for people;
never trusted); ``claim`` what the certificate proves, in a few words the
checker compares with what it actually verified.

:data:`CHECKERS` maps each format to its checker as a ``"module:function"``
string, imported only when a certificate of that format is checked. A checker
takes the loaded JSON object and returns a :class:`Verdict`, the one result
type of every checker in this package (the checkers' inner walks too, with
their counts in ``details``); it may raise :class:`~kinarow.errors.KinarowError`
when the object is not a usable certificate of its format. :func:`check_data` runs
the right checker and turns every failure into a verdict, never an exception:

>>> check_data({"format": "kinarow.pairing", "version": 1, "game": "3x3k3", "moves": [], "pairs": []}).ok
False
>>> check_data([1, 2]).reason
'a certificate is a JSON object with a "format" field, not a list'
"""

from __future__ import annotations

import gzip
import importlib
import json
import os
import stat
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.values import FITS, Fit, Goal

# One line per certificate format, sorted: format -> "module:function" of its checker.
CHECKERS: dict[str, str] = {
    "kinarow.draw": "kinarow.proofs.draw:check_certificate",
    "kinarow.invariant": "kinarow.proofs.invariant:check_certificate",
    "kinarow.matching": "kinarow.proofs.matching:check_certificate",
    "kinarow.narrow-draw": "kinarow.proofs.narrow:check_certificate",
    "kinarow.no-pairing": "kinarow.proofs.drat:check_certificate",
    "kinarow.pairing": "kinarow.proofs.pairing:check_certificate",
    "kinarow.strategy": "kinarow.proofs.tree:check_certificate",
    "kinarow.strategy-parts": "kinarow.proofs.parts:check_certificate",
    "kinarow.tiling": "kinarow.proofs.tiling:check_certificate",
    "kinarow.torus": "kinarow.proofs.torus:check_certificate",
    "kinarow.verified-strategy": "kinarow.proofs.verified:check_certificate",
    "kinarow.window": "kinarow.proofs.window:check_certificate",
}


#: Formats whose checkers take the ``exact`` rule (a line longer than K does not win): they replay play by the rules
#: alone (:mod:`kinarow.proofs.tree_kernel`'s flanks, :class:`~kinarow.position.Position`). Every other checker
#: rests on arguments that an overline breaks, or was not written for it, so it refuses such a game.
EXACT_FORMATS = frozenset({"kinarow.strategy", "kinarow.draw"})


# What ``kinarow settle`` writes for a value it has no certificate for: never accepted as a proof.
SEARCH_LOG_FORMAT = "kinarow.searchlog"

# Formats whose checker also reads a file named inside the certificate (it gets ``base=``, the certificate's own
# folder; with ``base=None`` such a certificate is refused: nothing outside the certificate itself is read).
NEEDS_BASE = frozenset({"kinarow.torus"})

# The most bytes a certificate file may hold, after decompression: about four times the largest certificate
# kinarow ships (8x8k5.draw.json.gz, 131 MiB of JSON), and far below what a compressed "bomb" would expand to.
MAX_CERTIFICATE_BYTES = 512 * 2**20
MAX_CERTIFICATE_WORDS = "512 MiB"
GZIP_MAGIC = b"\x1f\x8b"
# The most a gzip-compressed certificate may unpack to, as a multiple of the file's own size (at least
# GZIP_FLOOR_BYTES): kinarow's own .json.gz files unpack to at most about 11 times their size, and a 1.7 MB file
# that unpacks to 320 MB of JSON would take gigabytes to parse; such a file is refused as soon as this much is read.
MAX_GZIP_RATIO = 64
GZIP_FLOOR_BYTES = 2**20
# The most cells of a board whose certificate is checked (64x64): a checker builds the board's groups and
# symmetries, which on a 702x702 board alone take minutes and a GB; kinarow's certificates are of far smaller boards.
MAX_CHECK_CELLS = 4096
# Formats whose checker also has a compiled walk (``kinarow check --compiled``); the others ignore the option.
HAS_COMPILED = frozenset({"kinarow.draw", "kinarow.strategy", "kinarow.strategy-parts"})


class CertificateError(KinarowError):
    """A file or object is not a usable certificate (not JSON, unknown format, missing or bad field)."""


@dataclass
class Verdict:
    """What a checker concluded: ``ok``, one sentence ``reason``, and figures for people (``details``).

    Every checker returns one, and so do the walks inside them: a strategy
    walk's positions are in ``details["positions_checked"]``, a matching set's
    Black choices in ``details["lines"]``. ``format`` is the certificate format
    (set by :func:`check_data`). ``usable`` is False when the object was not a
    certificate that could be checked at all (as opposed to a certificate whose
    proof fails).
    """

    ok: bool
    reason: str
    details: dict[str, Any] = field(default_factory=dict)
    format: str | None = None
    usable: bool = True

    def __bool__(self) -> bool:
        return self.ok

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "usable": self.usable, "format": self.format, "reason": self.reason,
                "details": self.details}


def blocking_fit(game: Any, *, exact: bool = False) -> Fit:
    """Whether a blocking strategy (a pairing or a matching set: White answers each Black stone inside a
    group) is sound in ``game``, and why it proves nothing when it is not. ``exact``: the caller takes the exact
    rule itself (the proof search, whose pairing leaves only need blocking), so the rule is not refused here."""
    if game.gravity:
        return Fit.no(f"{game} has gravity, where White's prescribed reply may not be playable")
    if game.goal == Goal.MISERE:
        return Fit.no(f"{game} is misere, where owning a group loses, so blocking Black's groups is no defence")
    if (game.p, game.q) != (1, 1):
        return Fit.no(f"{game} places more than one stone a turn, so Black may take both cells White would block "
                      "with")
    if game.exact and not exact:
        # Blocking itself holds (a player who owns no group owns no line of exactly K), but the searches and
        # certificates built on it also lean on "an extra stone never hurts", which the exact rule breaks.
        return Fit.no(f"{game} has the exact rule, which kinarow's blocking searches and certificates do not take "
                      "yet (they rest on an extra stone never hurting its owner)")
    return FITS


def created_by() -> str:
    """The ``created_by`` value written into every certificate: the installed version (pyproject.toml's)."""
    return f"kinarow {installed_version()}"


def installed_version() -> str:
    """kinarow's version as installed (``pip install`` writes it from pyproject.toml, its one place), or
    ``0+unknown`` when the package runs from a source tree that was never installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kinarow")
    except PackageNotFoundError:
        return "0+unknown"


def envelope(fmt: str, version: int, game: str, moves: list[str], claim: str) -> dict[str, Any]:
    """The common head of a certificate; the proof's own fields follow it."""
    return {"format": fmt, "version": version, "game": game, "moves": list(moves), "created_by": created_by(),
            "claim": claim}


def kind_of(value: Any) -> str:
    """What ``value`` is, in a sentence's words: "None", "a list", "a string", "a StrategyTree", ..."""
    if value is None:
        return "None"
    words = {list: "a list", tuple: "a tuple", str: "a string", bytes: "bytes", int: "a number", float: "a number",
             bool: "a boolean", dict: "a JSON object (a dict)"}
    return words.get(type(value), f"a {type(value).__name__}")


def require_input(value: Any, kinds: type | tuple[type, ...], function: str, takes: str) -> None:
    """Raise one sentence (a :class:`CertificateError`) unless ``value`` is one of ``kinds``: what ``function``
    takes (``takes``, in words) and what it was given instead. Every public checker calls this on its input, so
    that ``check(None)`` is refused in words, not by an AttributeError from deep inside."""
    allowed = kinds if isinstance(kinds, tuple) else (kinds,)
    if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):  # True is no count
        raise CertificateError(f"{function} takes {takes}, not {kind_of(value)}")


def require_format(data: Any, fmt: str, version: int | tuple[int, ...], kind: str) -> None:
    """Raise one clear sentence unless ``data`` is a certificate of format ``fmt`` and ``version`` (or one of them)."""
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise CertificateError(f"this is not a {kind} certificate; its 'format' must be '{fmt}'")
    versions = (version,) if isinstance(version, int) else version
    if data.get("version") not in versions or isinstance(data.get("version"), bool):
        names = [str(v) for v in versions]
        expected = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
        raise CertificateError(
            f"{kind} certificate version {data.get('version')!r} is not supported; expected {expected}"
        )


def require_envelope(data: Any, fmt: str, version: int | tuple[int, ...], kind: str) -> tuple[str, list[str]]:
    """Check the common envelope (format, version, game, moves, optional claim); return (game, moves)."""
    require_format(data, fmt, version, kind)
    game, moves = data.get("game"), data.get("moves")
    if not isinstance(game, str):
        raise CertificateError(f"the {kind} certificate needs a 'game' string such as \"4x4k4\"")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise CertificateError(f"the {kind} certificate needs 'moves', a list of cell names (empty for the start)")
    if "claim" in data and not isinstance(data["claim"], str):
        raise CertificateError(f"the {kind} certificate's 'claim' must be a string")
    try:
        parsed = Game(game)
    except KinarowError:
        pass  # the checker says what is wrong with the game string, in its own words
    else:
        require_board(parsed)
    return game, [str(m) for m in moves]


def require_board(game: Game) -> None:
    """Raise one sentence when ``game``'s board is too large to check (more than :data:`MAX_CHECK_CELLS` cells)."""
    if game.cells > MAX_CHECK_CELLS:
        raise CertificateError(f"the certificate is for {game}, a board of {game.cells:,} cells; certificates are "
                               f"checked for boards of at most {MAX_CHECK_CELLS:,} cells (64x64)")


def require_claim(data: dict[str, Any], proved: str) -> None:
    """Raise unless the certificate's ``claim`` (when present) is exactly what was ``proved``."""
    claim = data.get("claim")
    if claim is not None and claim != proved:
        raise CertificateError(f"the certificate claims '{claim}', but what it proves is '{proved}'")


def checker(fmt: str) -> Callable[..., Verdict]:
    """The checker function of a certificate format (imported now)."""
    require_input(fmt, str, "checker()", "a certificate format's name, such as 'kinarow.strategy'")
    try:
        target = CHECKERS[fmt]
    except KeyError:
        known = ", ".join(sorted(CHECKERS))
        raise CertificateError(f"'{fmt}' is not a certificate format kinarow knows; the formats are: {known}") from None
    module_name, _, attr = target.partition(":")
    function: Callable[..., Any] = getattr(importlib.import_module(module_name), attr)
    return function


def check_data(data: Any, base: str | None = None, *, compiled: bool = False,
               on_tick: Callable[[int], None] | None = None) -> Verdict:
    """Check a loaded certificate of any known format; every problem becomes a rejecting verdict.

    ``base`` is the folder the certificate was read from: a certificate that
    names a data file beside it (a torus enumeration's class file) finds it there.
    ``compiled`` asks for the compiled walk where a format has one (:data:`HAS_COMPILED`);
    those formats also report the positions checked so far to ``on_tick``.
    """
    if not isinstance(data, dict):
        kind = {list: "list", str: "string", int: "number", float: "number", bool: "boolean"}.get(type(data), "value")
        if data is None:
            kind = "null"
        return Verdict(False, f'a certificate is a JSON object with a "format" field, not a {kind}', usable=False)
    fmt = data.get("format")
    if not isinstance(fmt, str):
        return Verdict(False, 'the object has no "format" field naming its kind of certificate', usable=False)
    if fmt == SEARCH_LOG_FORMAT:
        return Verdict(False, "it is a search log (evidence of a search: node counts, times), not a certificate",
                       format=fmt, usable=False)
    try:
        function = checker(fmt)
        refused = exact_refusal(fmt, data.get("game"))
        if refused:
            return Verdict(False, refused, format=fmt, usable=False)
        if fmt in NEEDS_BASE:
            if base is None:
                return Verdict(False, f"a {fmt} certificate names a file beside it, and files are not read here; "
                               "check it with 'kinarow check FILE' where the file is", format=fmt, usable=False)
            verdict = function(data, base=base)
        elif fmt in HAS_COMPILED:
            verdict = function(data, compiled=compiled, on_tick=on_tick)
        else:
            verdict = function(data)
    except CertificateError as error:
        return Verdict(False, _sentence(error), format=fmt, usable=False)
    except KinarowError as error:
        return Verdict(False, _sentence(error), format=fmt)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as error:
        detail = f"{type(error).__name__}: {' '.join(str(error).split())[:200]}"
        return Verdict(False, f"the {fmt} certificate has a missing or malformed field ({detail})", format=fmt,
                       usable=False)
    except RecursionError:
        return Verdict(False, f"the {fmt} certificate is nested too deeply to be a certificate", format=fmt,
                       usable=False)
    except MemoryError:  # the checks bound what a claim may allocate; this is a machine too small for a real one
        return Verdict(False, f"the {fmt} certificate could not be checked: the check needs more memory than it was "
                       "given", format=fmt, usable=False)
    verdict.format = fmt
    return verdict


def exact_refusal(fmt: str, game_text: Any) -> str | None:
    """The sentence refusing a certificate of format ``fmt`` for ``game_text`` when that game has the exact rule
    and the format's checker does not take it (:data:`EXACT_FORMATS`); None otherwise (a malformed game string is
    left to the checker, which says what is wrong with it)."""
    if fmt in EXACT_FORMATS or not isinstance(game_text, str):
        return None
    try:
        game = Game(game_text)
    except KinarowError:
        return None
    if not game.exact:
        return None
    return (f"the {fmt} certificate is for {game}, a game with the exact rule (an overline does not win), which its "
            f"checker does not take; the formats that do are {', '.join(sorted(EXACT_FORMATS))}")


def check_text(text: str, base: str | None = None, *, compiled: bool = False,
               on_tick: Callable[[int], None] | None = None) -> Verdict:
    """Check a certificate given as JSON text (read from the folder ``base``, if from a file; with ``base=None``
    a certificate that names another file is refused); anything but text (``str`` or ``bytes``) is refused with a
    :class:`CertificateError`."""
    require_input(text, (str, bytes, bytearray), "check_text()", "a certificate's JSON text (str or bytes)")
    try:
        data = json.loads(text)
    except RecursionError:
        return Verdict(False, "the file's JSON is nested too deeply to be a certificate", usable=False)
    except ValueError as error:
        return Verdict(False, f"the file is not valid JSON ({_sentence(error)})", usable=False)
    return check_data(data, base, compiled=compiled, on_tick=on_tick)


def read_certificate(path: str | os.PathLike[str], limit: int = MAX_CERTIFICATE_BYTES) -> str:
    """The JSON text of a certificate file (``.json``, or gzip-compressed ``.json.gz``), reading at most ``limit``
    bytes of it after decompression; a :class:`CertificateError` of one sentence when it cannot be read."""
    require_input(path, (str, bytes, os.PathLike), "read_certificate()", "the path of a certificate file")
    name = os.fsdecode(path)
    words = MAX_CERTIFICATE_WORDS if limit == MAX_CERTIFICATE_BYTES else f"{limit:,} bytes"
    too_large = f"'{name}' is larger than {words} (uncompressed), the most a certificate file may be"
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO must not block the check
        with open(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise CertificateError(f"'{name}' is not a regular file; a certificate is a .json or .json.gz file")
            head = file.read(2)
            file.seek(0)
            if head == GZIP_MAGIC:
                packed = os.fstat(fd).st_size
                ratio_limit = max(GZIP_FLOOR_BYTES, MAX_GZIP_RATIO * packed)
                with gzip.GzipFile(fileobj=file) as unpacked:
                    raw = unpacked.read(min(limit, ratio_limit) + 1)
                if ratio_limit < limit and len(raw) > ratio_limit:
                    raise CertificateError(f"'{name}' unpacks to more than {MAX_GZIP_RATIO} times its {packed:,} "
                                           f"bytes; a gzip-compressed certificate may unpack to at most "
                                           f"{MAX_GZIP_RATIO} times its size (or {GZIP_FLOOR_BYTES // 2**20} MiB)")
            else:
                raw = file.read(limit + 1)
    except (EOFError, gzip.BadGzipFile, zlib.error):
        raise CertificateError(f"'{name}' is not a readable gzip file (its compressed body is damaged or "
                               "cut short)") from None
    except OSError as error:
        raise CertificateError(f"cannot read '{name}': {error.strerror or error}") from None
    if len(raw) > limit:
        raise CertificateError(too_large)
    if not raw.strip():
        raise CertificateError(f"'{name}' is empty; a certificate is a JSON object")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CertificateError(f"'{name}' is not UTF-8 text (a bad byte at offset {error.start}); a certificate is "
                               "JSON") from None


def _sentence(error: Exception) -> str:
    return " ".join(str(error).split())
