"""Bitboards of one, two or four words: one kernel source for boards of at most 64, 128 and 256 cells.

This is part of the rules layer (it imports nothing from kinarow): the search kernels and the certificate
checkers' compiled walks share it, as they share the cell numbering.

Bit layout
==========

A *board* (a set of cells) is either one ``uint64`` (boards of at most 64
cells: bit ``c`` is cell ``c``) or a pair ``(lo, hi)`` of them (boards of at
most 128 cells: cell ``c`` is bit ``c`` of ``lo`` when ``c < 64``, else bit
``c - 64`` of ``hi``). Cells are numbered as in :mod:`kinarow.engine.kernel`
(column-major, ``c = x * n + y``). For 17 x 4 (68 cells)::

          a  b  c ...  p  q
      4 | 3  7 11 ... 63 67          lo: cells 0..63
      3 | 2  6 10 ... 62 66          hi: cells 64..67 in bits 0..3,
      2 | 1  5  9 ... 61 65              bits 4..63 always 0
      1 | 0  4  8 ... 60 64

A board of at most 256 cells is a pair of such pairs, ``((w0, w1), (w2, w3))``:
the low pair holds cells 0..127, the high pair cells 128..255 (cell ``c`` is
bit ``c mod 64`` of word ``c // 64``). For 15 x 15 (225 cells)::

          a   b  ...   o
     15 | 14  29 ... 224          w0: cells   0.. 63    w1: cells  64..127
      . |  .   .       .          w2: cells 128..191    w3: cells 192..224 in bits 0..32,
      1 |  0  15 ... 210                                    bits 33..63 always 0

The functions below are overloaded on that type, so a kernel written with them
compiles once a form: with ``uint64`` boards it is the one-word kernel, operation for
operation (the same node counts, the same speed), and with pairs it is the
two-word kernel; with pairs of pairs, the four-word kernel, whose forms apply the
two-word forms to the halves. Arrays of boards carry one more axis of length 2 in the
two-word form and two more in the four-word form: a ``(G,)`` array of masks becomes
``(G, 2)`` or ``(G, 2, 2)``; :func:`get1`,
:func:`get2`, :func:`get3` and :func:`put1`, :func:`put2` read and write a
board whatever the form. A table row keeps a board in ``nwords`` consecutive
words (:func:`row_get`, :func:`row_put`).

The functions also run as plain Python on ``int``/``np.uint64``, on pairs and on
pairs of pairs, which the tests use to compare every form with Python integers.
"""

from __future__ import annotations

import inspect
import threading
from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)

Board = Any  # np.uint64, tuple[np.uint64, np.uint64] or a pair of those pairs


def _bit_intrinsic(name: str) -> Any:
    """A compiled call of LLVM's ``llvm.<name>.i64`` on one word (one instruction where the processor has it:
    a loop over the bits costs a cycle or more a bit), as an ``int64``."""

    def typer(typingctx, x):  # type: ignore[no-untyped-def]
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            i64 = ir.IntType(64)
            word = context.cast(builder, args[0], signature.args[0], types.uint64)
            extra = [ir.Constant(ir.IntType(1), 0)] if name == "cttz" else []  # cttz(0) is 64, not poison
            fnty = ir.FunctionType(i64, [i64] + [e.type for e in extra])
            fn = cgutils.get_or_insert_function(builder.module, fnty, f"llvm.{name}.i64")
            return builder.call(fn, [word, *extra])

        return types.int64(x), codegen

    typer.__name__ = f"_{name}"
    return intrinsic(typer)


_ctpop = _bit_intrinsic("ctpop")
_cttz = _bit_intrinsic("cttz")


@njit(cache=True, inline="always")
def popcount(x):  # type: ignore[no-untyped-def]
    """The set bits of one word."""
    return _ctpop(x)


@njit(cache=True, inline="always")
def lowest_bit_index(x):  # type: ignore[no-untyped-def]
    """The index of the lowest set bit of a word (64 for 0)."""
    return _cttz(x)


_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_ALL = ~np.uint64(0)
_FOLD = np.uint64(0xD6E8FEB86659FD93)  # odd multiplier folding the high word into one for hashing
_FOLD4 = np.uint64(0x9E3779B97F4A7C15)  # and the high pair of a four-word board, once folded


def _pair(t: Any) -> bool:
    return isinstance(t, types.UniTuple) and t.count == 2 and isinstance(t.dtype, types.Integer)


def _word(t: Any) -> bool:
    return isinstance(t, types.Integer)


def _quad(t: Any) -> bool:
    return isinstance(t, types.UniTuple) and t.count == 2 and _pair(t.dtype)


def _py_pair(a: Any) -> bool:
    """A pair of halves: of two words, or (a four-word board) of two pairs."""
    return isinstance(a, tuple)


def _py_quad(a: Any) -> bool:
    return isinstance(a, tuple) and isinstance(a[0], tuple)


# -- plain Python forms (the numba forms are registered below) ----------------------------------------------
# A four-word board is a pair of two-word boards, so most four-word forms apply the two-word form to the halves.
def zero(like: Board) -> Board:
    """The empty board of ``like``'s form."""
    if _py_quad(like):
        return (zero(like[0]), zero(like[1]))
    return (_ZERO, _ZERO) if _py_pair(like) else _ZERO


def ones(like: Board) -> Board:
    """The board of every bit set (a sentinel, not a board's cells)."""
    if _py_quad(like):
        return (ones(like[0]), ones(like[1]))
    return (_ALL, _ALL) if _py_pair(like) else _ALL


def band(a: Board, b: Board) -> Board:
    if _py_quad(a):
        return (band(a[0], b[0]), band(a[1], b[1]))
    return (a[0] & b[0], a[1] & b[1]) if _py_pair(a) else a & b


def bor(a: Board, b: Board) -> Board:
    if _py_quad(a):
        return (bor(a[0], b[0]), bor(a[1], b[1]))
    return (a[0] | b[0], a[1] | b[1]) if _py_pair(a) else a | b


def bxor(a: Board, b: Board) -> Board:
    if _py_quad(a):
        return (bxor(a[0], b[0]), bxor(a[1], b[1]))
    return (a[0] ^ b[0], a[1] ^ b[1]) if _py_pair(a) else a ^ b


def andnot(a: Board, b: Board) -> Board:
    """``a`` without the cells of ``b``."""
    if _py_quad(a):
        return (andnot(a[0], b[0]), andnot(a[1], b[1]))
    return (a[0] & ~b[0], a[1] & ~b[1]) if _py_pair(a) else a & ~b


def bnot(a: Board) -> Board:
    if _py_quad(a):
        return (bnot(a[0]), bnot(a[1]))
    return (~a[0], ~a[1]) if _py_pair(a) else ~a


def is_zero(a: Board) -> bool:
    if _py_quad(a):
        return is_zero(a[0]) and is_zero(a[1])
    return bool(a[0] == _ZERO and a[1] == _ZERO) if _py_pair(a) else bool(a == _ZERO)


def eq(a: Board, b: Board) -> bool:
    if _py_quad(a):
        return eq(a[0], b[0]) and eq(a[1], b[1])
    return bool(a[0] == b[0] and a[1] == b[1]) if _py_pair(a) else bool(a == b)


def less(a: Board, b: Board) -> bool:
    """``a < b`` as numbers (a pair is ``hi * 2**64 + lo``, a four-word board ``hi * 2**128 + lo``)."""
    if _py_pair(a):
        return less(a[1], b[1]) or (eq(a[1], b[1]) and less(a[0], b[0]))
    return bool(a < b)


def count(a: Board) -> int:
    """The number of cells."""
    return count(a[0]) + count(a[1]) if _py_pair(a) else int(popcount(a))


def low(a: Board) -> Board:
    """The lowest cell of ``a`` (the empty board when ``a`` is empty)."""
    if _py_pair(a):
        if not is_zero(a[0]):
            return (low(a[0]), zero(a[1]))
        return (a[0], low(a[1]))
    return a & (~a + _ONE) if a != _ZERO else a


def drop_low(a: Board) -> Board:
    """``a`` without its lowest cell."""
    if _py_pair(a):
        if not is_zero(a[0]):
            return (drop_low(a[0]), a[1])
        return (a[0], drop_low(a[1]))
    return a & (a - _ONE) if a != _ZERO else a


def _half(a: Board) -> int:
    """The cells a half of a pair holds (64 for a pair of words, 128 for a four-word board)."""
    return 128 if _py_quad(a) else 64


def low_index(a: Board) -> int:
    """The number of the lowest cell of a non-empty board."""
    if _py_pair(a):
        return low_index(a[0]) if not is_zero(a[0]) else _half(a) + low_index(a[1])
    return int(lowest_bit_index(a))


def single(a: Board) -> bool:
    """At most one cell?"""
    return is_zero(drop_low(a))


def bit(c: int, like: Board) -> Board:
    """The board of cell ``c`` alone, in ``like``'s form."""
    if _py_pair(like):
        h = _half(like)
        return (bit(c, like[0]), zero(like[1])) if c < h else (zero(like[0]), bit(c - h, like[1]))
    return _ONE << np.uint64(c)


def has(a: Board, c: int) -> bool:
    """Is cell ``c`` in ``a``?"""
    if _py_pair(a):
        h = _half(a)
        return has(a[0], c) if c < h else has(a[1], c - h)
    return bool((a >> np.uint64(c)) & _ONE != _ZERO)


def _bits(a: Board) -> int:
    return _as_int(a) & ((1 << (64 * nwords(a))) - 1)


def _as_int(a: Board) -> int:
    if _py_pair(a):
        return _as_int(a[0]) | _as_int(a[1]) << (64 * nwords(a[0]))
    return int(a) & 0xFFFFFFFFFFFFFFFF


def _of_int(v: int, like: Board) -> Board:
    """The low ``64 * nwords(like)`` bits of ``v`` as a board of ``like``'s form."""
    if _py_pair(like):
        h = 64 * nwords(like[0])
        return (_of_int(v & ((1 << h) - 1), like[0]), _of_int(v >> h, like[1]))
    return np.uint64(v & 0xFFFFFFFFFFFFFFFF)


def shl(a: Board, d: int) -> Board:
    """``a`` moved ``d >= 0`` bits up (towards higher cells); bits moved past the top are lost, and a shift by
    the board's width or more gives the empty board."""
    return _of_int(_bits(a) << d, a)


def shr(a: Board, d: int) -> Board:
    """``a`` moved ``d >= 0`` bits down (towards cell 0); bits moved below cell 0 are lost."""
    return _of_int(_bits(a) >> d, a)


def add(a: Board, b: Board) -> Board:
    """``a + b`` as numbers, the carry out of the top word lost (a pair is ``hi * 2**64 + lo``)."""
    return _of_int(_bits(a) + _bits(b), a)


def byte(a: Board, j: int) -> int:
    """Bits ``8j .. 8j + 7`` (cells ``8j ..``) as a number 0..255."""
    if _py_pair(a):
        h = _half(a) // 8
        return byte(a[0], j) if j < h else byte(a[1], j - h)
    return int((a >> np.uint64(8 * j)) & np.uint64(255))


def fold(a: Board) -> np.uint64:
    """One word for hashing: the board itself when it is one word."""
    if _py_quad(a):
        return fold(a[0]) ^ (fold(a[1]) * _FOLD4)
    return a[0] ^ (a[1] * _FOLD) if _py_pair(a) else a


def nwords(a: Board) -> int:
    return 2 * nwords(a[0]) if _py_pair(a) else 1


def get1(arr: np.ndarray, i: int) -> Board:
    """Board ``i`` of a 1-D array of boards (``(n,)`` one word, ``(n, 2)`` two, ``(n, 2, 2)`` four)."""
    if arr.ndim == 3:
        return ((arr[i, 0, 0], arr[i, 0, 1]), (arr[i, 1, 0], arr[i, 1, 1]))
    return (arr[i, 0], arr[i, 1]) if arr.ndim == 2 else arr[i]


def get2(arr: np.ndarray, i: int, j: int) -> Board:
    if arr.ndim == 4:
        return ((arr[i, j, 0, 0], arr[i, j, 0, 1]), (arr[i, j, 1, 0], arr[i, j, 1, 1]))
    return (arr[i, j, 0], arr[i, j, 1]) if arr.ndim == 3 else arr[i, j]


def get3(arr: np.ndarray, i: int, j: int, k: int) -> Board:
    if arr.ndim == 5:
        return ((arr[i, j, k, 0, 0], arr[i, j, k, 0, 1]), (arr[i, j, k, 1, 0], arr[i, j, k, 1, 1]))
    return (arr[i, j, k, 0], arr[i, j, k, 1]) if arr.ndim == 4 else arr[i, j, k]


def put1(arr: np.ndarray, i: int, a: Board) -> None:
    if _py_quad(a):
        (arr[i, 0, 0], arr[i, 0, 1]), (arr[i, 1, 0], arr[i, 1, 1]) = a
    elif arr.ndim == 2:
        arr[i, 0], arr[i, 1] = a
    else:
        arr[i] = a


def put2(arr: np.ndarray, i: int, j: int, a: Board) -> None:
    if _py_quad(a):
        (arr[i, j, 0, 0], arr[i, j, 0, 1]), (arr[i, j, 1, 0], arr[i, j, 1, 1]) = a
    elif arr.ndim == 3:
        arr[i, j, 0], arr[i, j, 1] = a
    else:
        arr[i, j] = a


def row_get(tt: np.ndarray, r: int, col: int, like: Board) -> Board:
    """The board kept in row ``r`` of a table from word ``col`` (``nwords(like)`` words)."""
    if _py_quad(like):
        return ((tt[r, col], tt[r, col + 1]), (tt[r, col + 2], tt[r, col + 3]))
    return (tt[r, col], tt[r, col + 1]) if _py_pair(like) else tt[r, col]


def row_put(tt: np.ndarray, r: int, col: int, a: Board) -> None:
    if _py_quad(a):
        (tt[r, col], tt[r, col + 1]), (tt[r, col + 2], tt[r, col + 3]) = a
    elif _py_pair(a):
        tt[r, col], tt[r, col + 1] = a
    else:
        tt[r, col] = a


# -- the numba forms -----------------------------------------------------------------------------------
def _register(py: Any, one: Any, two: Any, four: Any, pick: Any) -> None:
    """Register ``one``, ``two`` and ``four`` as the compiled ``py``; ``pick(argument types)`` says which (or None).

    numba wants the typing function to take the implementations' parameters by name, so it is written out."""
    params = ", ".join(inspect.signature(one).parameters)
    space: dict[str, Any] = {"pick": pick, "one": one, "two": two, "four": four}
    exec(f"def typing({params}):\n    return pick(({params},), one, two, four)\n", space)
    overload(py)(space["typing"])


def _form(t: Any, one: Any, two: Any, four: Any) -> Any:
    return one if _word(t) else two if _pair(t) else four if _quad(t) else None


def by_form(py: Any, one: Any, two: Any, four: Any = None, argument: int = 0) -> None:
    """Compile ``py`` as ``one`` when its argument number ``argument`` is a one-word board, as ``two`` when it
    is a pair, as ``four`` (if given) when it is a pair of pairs (a kernel's own function with a form of each:
    see :func:`kinarow.engine.pns_kernel.images`)."""
    _register(py, one, two, four, lambda args, one, two, four: _form(args[argument], one, two, four))


def _by_ndim(py: Any, ndim: int, one: Any, two: Any, four: Any) -> None:
    """By the dimensions of the array argument: ``ndim`` for one-word boards, ``ndim + 1`` for pairs, ``ndim + 2``
    for four words."""

    def pick(args: Any, one: Any, two: Any, four: Any) -> Any:
        arr = args[0]
        if not isinstance(arr, types.Array):
            return None
        return {ndim: one, ndim + 1: two, ndim + 2: four}.get(arr.ndim)

    _register(py, one, two, four, pick)


def _low2(a):  # type: ignore[no-untyped-def]
    if a[0] != np.uint64(0):
        return (a[0] & (~a[0] + np.uint64(1)), np.uint64(0))
    return (np.uint64(0), a[1] & (~a[1] + np.uint64(1)))


def _drop_low2(a):  # type: ignore[no-untyped-def]
    if a[0] != np.uint64(0):
        return (a[0] & (a[0] - np.uint64(1)), a[1])
    return (np.uint64(0), a[1] & (a[1] - np.uint64(1)))


def _low_index2(a):  # type: ignore[no-untyped-def]
    return lowest_bit_index(a[0]) if a[0] != np.uint64(0) else 64 + lowest_bit_index(a[1])


def _bit2(c, like):  # type: ignore[no-untyped-def]
    if c < 64:
        return (np.uint64(1) << np.uint64(c), np.uint64(0))
    return (np.uint64(0), np.uint64(1) << np.uint64(c - 64))


def _has2(a, c):  # type: ignore[no-untyped-def]
    w = a[0] if c < 64 else a[1]
    return (w >> np.uint64(c & 63)) & np.uint64(1) != np.uint64(0)


def _byte2(a, j):  # type: ignore[no-untyped-def]
    w = a[0] if j < 8 else a[1]
    return (w >> np.uint64(8 * (j & 7))) & np.uint64(255)


def _shl1(a, d):  # type: ignore[no-untyped-def]
    if d >= 64:
        return np.uint64(0)
    return a << np.uint64(d)


def _shl2(a, d):  # type: ignore[no-untyped-def]
    if d >= 128:
        return (np.uint64(0), np.uint64(0))
    if d >= 64:
        return (np.uint64(0), a[0] << np.uint64(d - 64))
    if d == 0:
        return a
    return (a[0] << np.uint64(d), (a[1] << np.uint64(d)) | (a[0] >> np.uint64(64 - d)))


def _shr1(a, d):  # type: ignore[no-untyped-def]
    if d >= 64:
        return np.uint64(0)
    return a >> np.uint64(d)


def _shr2(a, d):  # type: ignore[no-untyped-def]
    if d >= 128:
        return (np.uint64(0), np.uint64(0))
    if d >= 64:
        return (a[1] >> np.uint64(d - 64), np.uint64(0))
    if d == 0:
        return a
    return ((a[0] >> np.uint64(d)) | (a[1] << np.uint64(64 - d)), a[1] >> np.uint64(d))


def _add2(a, b):  # type: ignore[no-untyped-def]
    lo = a[0] + b[0]
    carry = np.uint64(1) if lo < a[0] else np.uint64(0)
    return (lo, a[1] + b[1] + carry)




def _put1_2(arr, i, a):  # type: ignore[no-untyped-def]
    arr[i, 0] = a[0]
    arr[i, 1] = a[1]


def _put1_1(arr, i, a):  # type: ignore[no-untyped-def]
    arr[i] = a


def _put2_2(arr, i, j, a):  # type: ignore[no-untyped-def]
    arr[i, j, 0] = a[0]
    arr[i, j, 1] = a[1]


def _put2_1(arr, i, j, a):  # type: ignore[no-untyped-def]
    arr[i, j] = a


def _row_get1(tt, r, col, like):  # type: ignore[no-untyped-def]
    return tt[r, col]


def _row_get2(tt, r, col, like):  # type: ignore[no-untyped-def]
    return (tt[r, col], tt[r, col + 1])


def _row_put1(tt, r, col, a):  # type: ignore[no-untyped-def]
    tt[r, col] = a


def _row_put2(tt, r, col, a):  # type: ignore[no-untyped-def]
    tt[r, col] = a[0]
    tt[r, col + 1] = a[1]




# -- four words: a pair of two-word boards (lo = cells 0..127, hi = cells 128..255), each operation on the halves
def _shl4(a, d):  # type: ignore[no-untyped-def]
    if d >= 256:
        return (zero(a[0]), zero(a[0]))
    if d >= 128:
        return (zero(a[0]), shl(a[0], d - 128))
    if d == 0:
        return a
    return (shl(a[0], d), bor(shl(a[1], d), shr(a[0], 128 - d)))


def _shr4(a, d):  # type: ignore[no-untyped-def]
    if d >= 256:
        return (zero(a[0]), zero(a[0]))
    if d >= 128:
        return (shr(a[1], d - 128), zero(a[0]))
    if d == 0:
        return a
    return (bor(shr(a[0], d), shl(a[1], 128 - d)), shr(a[1], d))


def _add4(a, b):  # type: ignore[no-untyped-def]
    lo = add(a[0], b[0])
    carry = (np.uint64(1), np.uint64(0)) if less(lo, a[0]) else (np.uint64(0), np.uint64(0))
    return (lo, add(add(a[1], b[1]), carry))


def _low4(a):  # type: ignore[no-untyped-def]
    if not is_zero(a[0]):
        return (low(a[0]), zero(a[1]))
    return (a[0], low(a[1]))


def _drop_low4(a):  # type: ignore[no-untyped-def]
    if not is_zero(a[0]):
        return (drop_low(a[0]), a[1])
    return (a[0], drop_low(a[1]))


def _bit4(c, like):  # type: ignore[no-untyped-def]
    if c < 128:
        return (bit(c, like[0]), zero(like[1]))
    return (zero(like[0]), bit(c - 128, like[1]))


def _has4(a, c):  # type: ignore[no-untyped-def]
    return has(a[0], c) if c < 128 else has(a[1], c - 128)


def _byte4(a, j):  # type: ignore[no-untyped-def]
    return byte(a[0], j) if j < 16 else byte(a[1], j - 16)


def _put1_4(arr, i, a):  # type: ignore[no-untyped-def]
    arr[i, 0, 0], arr[i, 0, 1] = a[0]
    arr[i, 1, 0], arr[i, 1, 1] = a[1]


def _put2_4(arr, i, j, a):  # type: ignore[no-untyped-def]
    arr[i, j, 0, 0], arr[i, j, 0, 1] = a[0]
    arr[i, j, 1, 0], arr[i, j, 1, 1] = a[1]


def _row_get4(tt, r, col, like):  # type: ignore[no-untyped-def]
    return ((tt[r, col], tt[r, col + 1]), (tt[r, col + 2], tt[r, col + 3]))


def _row_put4(tt, r, col, a):  # type: ignore[no-untyped-def]
    tt[r, col], tt[r, col + 1] = a[0]
    tt[r, col + 2], tt[r, col + 3] = a[1]


by_form(zero, lambda like: np.uint64(0), lambda like: (np.uint64(0), np.uint64(0)),
        lambda like: ((np.uint64(0), np.uint64(0)), (np.uint64(0), np.uint64(0))))
by_form(ones, lambda like: ~np.uint64(0), lambda like: (~np.uint64(0), ~np.uint64(0)),
        lambda like: ((~np.uint64(0), ~np.uint64(0)), (~np.uint64(0), ~np.uint64(0))))


by_form(band, lambda a, b: a & b, lambda a, b: (a[0] & b[0], a[1] & b[1]),
        lambda a, b: (band(a[0], b[0]), band(a[1], b[1])))
by_form(bor, lambda a, b: a | b, lambda a, b: (a[0] | b[0], a[1] | b[1]),
        lambda a, b: (bor(a[0], b[0]), bor(a[1], b[1])))
by_form(bxor, lambda a, b: a ^ b, lambda a, b: (a[0] ^ b[0], a[1] ^ b[1]),
        lambda a, b: (bxor(a[0], b[0]), bxor(a[1], b[1])))
by_form(andnot, lambda a, b: a & ~b, lambda a, b: (a[0] & ~b[0], a[1] & ~b[1]),
        lambda a, b: (andnot(a[0], b[0]), andnot(a[1], b[1])))
by_form(bnot, lambda a: ~a, lambda a: (~a[0], ~a[1]), lambda a: (bnot(a[0]), bnot(a[1])))
by_form(is_zero, lambda a: a == np.uint64(0), lambda a: a[0] == np.uint64(0) and a[1] == np.uint64(0),
        lambda a: is_zero(a[0]) and is_zero(a[1]))
by_form(eq, lambda a, b: a == b, lambda a, b: a[0] == b[0] and a[1] == b[1],
        lambda a, b: eq(a[0], b[0]) and eq(a[1], b[1]))
by_form(less, lambda a, b: a < b, lambda a, b: a[1] < b[1] or (a[1] == b[1] and a[0] < b[0]),
        lambda a, b: less(a[1], b[1]) or (eq(a[1], b[1]) and less(a[0], b[0])))
by_form(count, lambda a: popcount(a), lambda a: popcount(a[0]) + popcount(a[1]), lambda a: count(a[0]) + count(a[1]))
by_form(shl, _shl1, _shl2, _shl4)
by_form(shr, _shr1, _shr2, _shr4)
by_form(add, lambda a, b: a + b, _add2, _add4)
by_form(low, lambda a: a & (~a + np.uint64(1)), _low2, _low4)
by_form(drop_low, lambda a: a & (a - np.uint64(1)), _drop_low2, _drop_low4)
by_form(low_index, lambda a: lowest_bit_index(a), _low_index2,
        lambda a: low_index(a[0]) if not is_zero(a[0]) else 128 + low_index(a[1]))
by_form(single, lambda a: a & (a - np.uint64(1)) == np.uint64(0), lambda a: is_zero(drop_low(a)),
        lambda a: is_zero(drop_low(a)))
by_form(bit, lambda c, like: np.uint64(1) << np.uint64(c), _bit2, _bit4, argument=-1)
by_form(has, lambda a, c: (a >> np.uint64(c)) & np.uint64(1) != np.uint64(0), _has2, _has4)
by_form(byte, lambda a, j: (a >> np.uint64(8 * j)) & np.uint64(255), _byte2, _byte4)
by_form(fold, lambda a: a, lambda a: a[0] ^ (a[1] * np.uint64(0xD6E8FEB86659FD93)),
        lambda a: fold(a[0]) ^ (fold(a[1]) * np.uint64(0x9E3779B97F4A7C15)))
by_form(nwords, lambda a: 1, lambda a: 2, lambda a: 4)
_by_ndim(get1, 1, lambda arr, i: arr[i], lambda arr, i: (arr[i, 0], arr[i, 1]),
         lambda arr, i: ((arr[i, 0, 0], arr[i, 0, 1]), (arr[i, 1, 0], arr[i, 1, 1])))
_by_ndim(get2, 2, lambda arr, i, j: arr[i, j], lambda arr, i, j: (arr[i, j, 0], arr[i, j, 1]),
         lambda arr, i, j: ((arr[i, j, 0, 0], arr[i, j, 0, 1]), (arr[i, j, 1, 0], arr[i, j, 1, 1])))
_by_ndim(get3, 3, lambda arr, i, j, k: arr[i, j, k], lambda arr, i, j, k: (arr[i, j, k, 0], arr[i, j, k, 1]),
         lambda arr, i, j, k: ((arr[i, j, k, 0, 0], arr[i, j, k, 0, 1]), (arr[i, j, k, 1, 0], arr[i, j, k, 1, 1])))
by_form(put1, _put1_1, _put1_2, _put1_4, argument=-1)
by_form(put2, _put2_1, _put2_2, _put2_4, argument=-1)
by_form(row_get, _row_get1, _row_get2, _row_get4, argument=-1)
by_form(row_put, _row_put1, _row_put2, _row_put4, argument=-1)


@njit(cache=True, inline="always")
def apply_sym(symtab, s, nbytes, x):  # type: ignore[no-untyped-def]
    """The image of board ``x`` under symmetry ``s``: ``symtab[s, j, v]`` is the image of the cells ``8j ..
    8j + 7`` whose bits are ``v`` (a board; see :mod:`kinarow.engine.kernel`)."""
    out = zero(x)
    for j in range(nbytes):
        out = bor(out, get3(symtab, s, j, byte(x, j)))
    return out


@njit(cache=True)
def canonical(symtab, nsym, nbytes, p1, p2):  # type: ignore[no-untyped-def]
    """The smallest symmetric image of (p1, p2) (by p1, then p2) and the symmetry that gives it."""
    b1, b2, bs = p1, p2, 0
    for s in range(1, nsym):
        c1 = apply_sym(symtab, s, nbytes, p1)
        if less(b1, c1):
            continue
        c2 = apply_sym(symtab, s, nbytes, p2)
        if less(c1, b1) or less(c2, b2):
            b1, b2, bs = c1, c2, s
    return b1, b2, bs


_WORDS = threading.local()  # four uint64 slots a thread: the words are written there and read back as scalars


#: the trailing axes an array of boards has for each count of words (``(n,)``, ``(n, 2)``, ``(n, 2, 2)``)
TRAILING = {1: (), 2: (2,), 4: (2, 2)}


def words_for_cells(cells: int) -> int:
    """The fewest words (1, 2 or 4) that hold a board of ``cells`` cells (at most 256)."""
    if not 0 <= cells <= 256:
        raise ValueError(f"a board holds 0 to 256 cells, not {cells}")
    return 1 if cells <= 64 else 2 if cells <= 128 else 4


def to_board(cells: int, words: int) -> Board:
    """The Python integer ``cells`` (bit c = cell c) as a board of ``words`` words (1, 2 or 4)."""
    if words == 1:
        return np.uint64(cells)
    slots = getattr(_WORDS, "slots", None)
    if slots is None:
        slots = _WORDS.slots = np.zeros(4, np.uint64)
    # a third of np.uint64(...) twice for a value past 2**63 (a shared walk converts boards millions of times)
    slots[0] = cells & 0xFFFFFFFFFFFFFFFF
    slots[1] = (cells >> 64) & 0xFFFFFFFFFFFFFFFF
    if words == 2:
        return (slots[0], slots[1])
    slots[2] = (cells >> 128) & 0xFFFFFFFFFFFFFFFF
    slots[3] = cells >> 192
    return ((slots[0], slots[1]), (slots[2], slots[3]))


def from_board(a: Board) -> int:
    """The board as a Python integer (bit c = cell c)."""
    if _py_quad(a):
        return from_board(a[0]) | from_board(a[1]) << 128
    if _py_pair(a):
        return int(a[0]) | int(a[1]) << 64
    return int(a)


def board_array(values: list[int], words: int) -> np.ndarray:
    """Python integers as an array of boards: ``(n,)`` for one word, ``(n, 2)`` for two, ``(n, 2, 2)`` for
    four (the low pair first)."""
    if words == 1:
        return np.array(values, dtype=np.uint64).reshape(len(values))
    out = np.zeros((len(values), words), np.uint64)
    for i, v in enumerate(values):
        for w in range(words):
            out[i, w] = (v >> (64 * w)) & 0xFFFFFFFFFFFFFFFF
    return out.reshape(len(values), *TRAILING[words])


def board_ints(arr: np.ndarray, n: int) -> list[int]:
    """The first ``n`` boards of an array of boards (any form) as Python integers, in one pass."""
    if arr.ndim == 1:
        return [int(v) for v in arr[:n].tolist()]
    rows = arr[:n].reshape(n, int(np.prod(arr.shape[1:]))).tolist()
    if arr.shape[1:] == (2,):
        return [lo | hi << 64 for lo, hi in rows]
    return [sum(w << (64 * j) for j, w in enumerate(row)) for row in rows]
