"""Bitboards of one or of two words: one kernel source for boards of at most 64 and of at most 128 cells.

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

The functions below are overloaded on that type, so a kernel written with them
compiles twice: with ``uint64`` boards it is the one-word kernel, operation for
operation (the same node counts, the same speed), and with pairs it is the
two-word kernel. Arrays of boards carry one more axis of length 2 in the
two-word form: a ``(G,)`` array of masks becomes ``(G, 2)``; :func:`get1`,
:func:`get2`, :func:`get3` and :func:`put1`, :func:`put2` read and write a
board whatever the form. A table row keeps a board in ``nwords`` consecutive
words (:func:`row_get`, :func:`row_put`).

The functions also run as plain Python on ``int``/``np.uint64`` and on pairs,
which the tests use to compare both forms with Python integers.
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

Board = Any  # np.uint64 or tuple[np.uint64, np.uint64]


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


def _pair(t: Any) -> bool:
    return isinstance(t, types.UniTuple) and t.count == 2


def _word(t: Any) -> bool:
    return isinstance(t, types.Integer)


def _py_pair(a: Any) -> bool:
    return isinstance(a, tuple)


# -- plain Python forms (the numba forms are registered below) ----------------------------------------------
def zero(like: Board) -> Board:
    """The empty board of ``like``'s form."""
    return (_ZERO, _ZERO) if _py_pair(like) else _ZERO


def ones(like: Board) -> Board:
    """The board of every bit set (a sentinel, not a board's cells)."""
    return (_ALL, _ALL) if _py_pair(like) else _ALL


def band(a: Board, b: Board) -> Board:
    return (a[0] & b[0], a[1] & b[1]) if _py_pair(a) else a & b


def bor(a: Board, b: Board) -> Board:
    return (a[0] | b[0], a[1] | b[1]) if _py_pair(a) else a | b


def bxor(a: Board, b: Board) -> Board:
    return (a[0] ^ b[0], a[1] ^ b[1]) if _py_pair(a) else a ^ b


def andnot(a: Board, b: Board) -> Board:
    """``a`` without the cells of ``b``."""
    return (a[0] & ~b[0], a[1] & ~b[1]) if _py_pair(a) else a & ~b


def bnot(a: Board) -> Board:
    return (~a[0], ~a[1]) if _py_pair(a) else ~a


def is_zero(a: Board) -> bool:
    return bool(a[0] == _ZERO and a[1] == _ZERO) if _py_pair(a) else bool(a == _ZERO)


def eq(a: Board, b: Board) -> bool:
    return bool(a[0] == b[0] and a[1] == b[1]) if _py_pair(a) else bool(a == b)


def less(a: Board, b: Board) -> bool:
    """``a < b`` as numbers (a pair is ``hi * 2**64 + lo``)."""
    if _py_pair(a):
        return bool(a[1] < b[1] or (a[1] == b[1] and a[0] < b[0]))
    return bool(a < b)


def count(a: Board) -> int:
    """The number of cells."""
    return int(popcount(a[0]) + popcount(a[1])) if _py_pair(a) else int(popcount(a))


def low(a: Board) -> Board:
    """The lowest cell of ``a`` (the empty board when ``a`` is empty)."""
    if _py_pair(a):
        if a[0] != _ZERO:
            return (a[0] & (~a[0] + _ONE), _ZERO)
        return (_ZERO, a[1] & (~a[1] + _ONE))
    return a & (~a + _ONE)


def drop_low(a: Board) -> Board:
    """``a`` without its lowest cell."""
    if _py_pair(a):
        if a[0] != _ZERO:
            return (a[0] & (a[0] - _ONE), a[1])
        return (_ZERO, a[1] & (a[1] - _ONE))
    return a & (a - _ONE)


def low_index(a: Board) -> int:
    """The number of the lowest cell of a non-empty board."""
    if _py_pair(a):
        return int(lowest_bit_index(a[0])) if a[0] != _ZERO else 64 + int(lowest_bit_index(a[1]))
    return int(lowest_bit_index(a))


def single(a: Board) -> bool:
    """At most one cell?"""
    return is_zero(drop_low(a))


def bit(c: int, like: Board) -> Board:
    """The board of cell ``c`` alone, in ``like``'s form."""
    if _py_pair(like):
        return (_ONE << np.uint64(c), _ZERO) if c < 64 else (_ZERO, _ONE << np.uint64(c - 64))
    return _ONE << np.uint64(c)


def has(a: Board, c: int) -> bool:
    """Is cell ``c`` in ``a``?"""
    if _py_pair(a):
        w = a[0] if c < 64 else a[1]
        return bool((w >> np.uint64(c & 63)) & _ONE != _ZERO)
    return bool((a >> np.uint64(c)) & _ONE != _ZERO)


def _word_int(w: Any) -> int:
    return int(w) & 0xFFFFFFFFFFFFFFFF


def shl(a: Board, d: int) -> Board:
    """``a`` moved ``d >= 0`` bits up (towards higher cells); bits moved past the top are lost, and a shift by
    the board's width or more gives the empty board."""
    if _py_pair(a):
        v = (_word_int(a[0]) | _word_int(a[1]) << 64) << d
        return (np.uint64(v & 0xFFFFFFFFFFFFFFFF), np.uint64((v >> 64) & 0xFFFFFFFFFFFFFFFF))
    return np.uint64((_word_int(a) << d) & 0xFFFFFFFFFFFFFFFF)


def shr(a: Board, d: int) -> Board:
    """``a`` moved ``d >= 0`` bits down (towards cell 0); bits moved below cell 0 are lost."""
    if _py_pair(a):
        v = (_word_int(a[0]) | _word_int(a[1]) << 64) >> d
        return (np.uint64(v & 0xFFFFFFFFFFFFFFFF), np.uint64(v >> 64))
    return np.uint64(_word_int(a) >> d)


def add(a: Board, b: Board) -> Board:
    """``a + b`` as numbers, the carry out of the top word lost (a pair is ``hi * 2**64 + lo``)."""
    if _py_pair(a):
        v = (_word_int(a[0]) | _word_int(a[1]) << 64) + (_word_int(b[0]) | _word_int(b[1]) << 64)
        return (np.uint64(v & 0xFFFFFFFFFFFFFFFF), np.uint64((v >> 64) & 0xFFFFFFFFFFFFFFFF))
    return np.uint64((_word_int(a) + _word_int(b)) & 0xFFFFFFFFFFFFFFFF)


def byte(a: Board, j: int) -> int:
    """Bits ``8j .. 8j + 7`` (cells ``8j ..``) as a number 0..255."""
    if _py_pair(a):
        w = a[0] if j < 8 else a[1]
        return int((w >> np.uint64(8 * (j & 7))) & np.uint64(255))
    return int((a >> np.uint64(8 * j)) & np.uint64(255))


def fold(a: Board) -> np.uint64:
    """One word for hashing: the board itself when it is one word."""
    return a[0] ^ (a[1] * _FOLD) if _py_pair(a) else a


def nwords(a: Board) -> int:
    return 2 if _py_pair(a) else 1


def get1(arr: np.ndarray, i: int) -> Board:
    """Board ``i`` of a 1-D array of boards (``(n,)`` one word, ``(n, 2)`` two)."""
    return (arr[i, 0], arr[i, 1]) if arr.ndim == 2 else arr[i]


def get2(arr: np.ndarray, i: int, j: int) -> Board:
    return (arr[i, j, 0], arr[i, j, 1]) if arr.ndim == 3 else arr[i, j]


def get3(arr: np.ndarray, i: int, j: int, k: int) -> Board:
    return (arr[i, j, k, 0], arr[i, j, k, 1]) if arr.ndim == 4 else arr[i, j, k]


def put1(arr: np.ndarray, i: int, a: Board) -> None:
    if arr.ndim == 2:
        arr[i, 0], arr[i, 1] = a
    else:
        arr[i] = a


def put2(arr: np.ndarray, i: int, j: int, a: Board) -> None:
    if arr.ndim == 3:
        arr[i, j, 0], arr[i, j, 1] = a
    else:
        arr[i, j] = a


def row_get(tt: np.ndarray, r: int, col: int, like: Board) -> Board:
    """The board kept in row ``r`` of a table from word ``col`` (``nwords(like)`` words)."""
    return (tt[r, col], tt[r, col + 1]) if _py_pair(like) else tt[r, col]


def row_put(tt: np.ndarray, r: int, col: int, a: Board) -> None:
    if _py_pair(a):
        tt[r, col], tt[r, col + 1] = a
    else:
        tt[r, col] = a


# -- the numba forms -----------------------------------------------------------------------------------
def _register(py: Any, one: Any, two: Any, pick: Any) -> None:
    """Register ``one`` and ``two`` as the compiled ``py``; ``pick(argument types)`` says which (or None).

    numba wants the typing function to take the implementations' parameters by name, so it is written out."""
    params = ", ".join(inspect.signature(one).parameters)
    space: dict[str, Any] = {"pick": pick, "one": one, "two": two}
    exec(f"def typing({params}):\n    return pick(({params},), one, two)\n", space)
    overload(py)(space["typing"])


def _form(t: Any, one: Any, two: Any) -> Any:
    return one if _word(t) else two if _pair(t) else None


def by_form(py: Any, one: Any, two: Any, argument: int = 0) -> None:
    """Compile ``py`` as ``one`` when its argument number ``argument`` is a one-word board, as ``two`` when it
    is a pair (a kernel's own function with a form of each: see :func:`kinarow.engine.pns_kernel.images`)."""
    _register(py, one, two, lambda args, one, two: _form(args[argument], one, two))


def _by_ndim(py: Any, ndim: int, one: Any, two: Any) -> None:
    """By the dimensions of the array argument: ``ndim`` for one-word boards, ``ndim + 1`` for pairs."""

    def pick(args: Any, one: Any, two: Any) -> Any:
        arr = args[0]
        if not isinstance(arr, types.Array):
            return None
        return one if arr.ndim == ndim else two if arr.ndim == ndim + 1 else None

    _register(py, one, two, pick)


by_form(zero, lambda like: np.uint64(0), lambda like: (np.uint64(0), np.uint64(0)))
by_form(ones, lambda like: ~np.uint64(0), lambda like: (~np.uint64(0), ~np.uint64(0)))
by_form(band, lambda a, b: a & b, lambda a, b: (a[0] & b[0], a[1] & b[1]))
by_form(bor, lambda a, b: a | b, lambda a, b: (a[0] | b[0], a[1] | b[1]))
by_form(bxor, lambda a, b: a ^ b, lambda a, b: (a[0] ^ b[0], a[1] ^ b[1]))
by_form(andnot, lambda a, b: a & ~b, lambda a, b: (a[0] & ~b[0], a[1] & ~b[1]))
by_form(bnot, lambda a: ~a, lambda a: (~a[0], ~a[1]))
by_form(is_zero, lambda a: a == np.uint64(0), lambda a: a[0] == np.uint64(0) and a[1] == np.uint64(0))
by_form(eq, lambda a, b: a == b, lambda a, b: a[0] == b[0] and a[1] == b[1])
by_form(less, lambda a, b: a < b, lambda a, b: a[1] < b[1] or (a[1] == b[1] and a[0] < b[0]))
by_form(count, lambda a: popcount(a), lambda a: popcount(a[0]) + popcount(a[1]))


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


by_form(shl, _shl1, _shl2)
by_form(shr, _shr1, _shr2)
by_form(add, lambda a, b: a + b, _add2)
by_form(low, lambda a: a & (~a + np.uint64(1)), _low2)
by_form(drop_low, lambda a: a & (a - np.uint64(1)), _drop_low2)
by_form(low_index, lambda a: lowest_bit_index(a), _low_index2)
by_form(single, lambda a: a & (a - np.uint64(1)) == np.uint64(0), lambda a: is_zero(drop_low(a)))
by_form(bit, lambda c, like: np.uint64(1) << np.uint64(c), _bit2, argument=-1)
by_form(has, lambda a, c: (a >> np.uint64(c)) & np.uint64(1) != np.uint64(0), _has2)
by_form(byte, lambda a, j: (a >> np.uint64(8 * j)) & np.uint64(255), _byte2)
by_form(fold, lambda a: a, lambda a: a[0] ^ (a[1] * np.uint64(0xD6E8FEB86659FD93)))
by_form(nwords, lambda a: 1, lambda a: 2)
_by_ndim(get1, 1, lambda arr, i: arr[i], lambda arr, i: (arr[i, 0], arr[i, 1]))
_by_ndim(get2, 2, lambda arr, i, j: arr[i, j], lambda arr, i, j: (arr[i, j, 0], arr[i, j, 1]))
_by_ndim(get3, 3, lambda arr, i, j, k: arr[i, j, k], lambda arr, i, j, k: (arr[i, j, k, 0], arr[i, j, k, 1]))


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


by_form(put1, _put1_1, _put1_2, argument=-1)
by_form(put2, _put2_1, _put2_2, argument=-1)
by_form(row_get, _row_get1, _row_get2, argument=-1)
by_form(row_put, _row_put1, _row_put2, argument=-1)


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


_WORDS = threading.local()  # two uint64 slots a thread: the words are written there and read back as scalars


def to_board(cells: int, words: int) -> Board:
    """The Python integer ``cells`` (bit c = cell c) as a board of ``words`` words."""
    if words == 1:
        return np.uint64(cells)
    slots = getattr(_WORDS, "slots", None)
    if slots is None:
        slots = _WORDS.slots = np.zeros(2, np.uint64)
    # a third of np.uint64(...) twice for a value past 2**63 (a shared walk converts boards millions of times)
    slots[0] = cells & 0xFFFFFFFFFFFFFFFF
    slots[1] = cells >> 64
    return (slots[0], slots[1])


def from_board(a: Board) -> int:
    """The board as a Python integer (bit c = cell c)."""
    if _py_pair(a):
        return int(a[0]) | int(a[1]) << 64
    return int(a)


def board_array(values: list[int], words: int) -> np.ndarray:
    """Python integers as an array of boards: ``(n,)`` for one word, ``(n, 2)`` for two."""
    if words == 1:
        return np.array(values, dtype=np.uint64).reshape(len(values))
    out = np.zeros((len(values), 2), np.uint64)
    for i, v in enumerate(values):
        out[i, 0] = v & 0xFFFFFFFFFFFFFFFF
        out[i, 1] = v >> 64
    return out
