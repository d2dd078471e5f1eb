"""A compiled hint to the processor: fetch a table row's cache line before it is read.

The searches read their transposition tables at random, and most reads of a large table miss the caches;
asking for the lines a node will read a little before it reads them lets the misses overlap (several loads
in flight at once) instead of waiting for each in turn. The hint changes no value.
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)


@intrinsic
def prefetch_word(typingctx, table, row, col):
    """Ask the CPU to fetch ``table[row, col]``'s cache line early (LLVM's prefetch; no effect on values)."""
    if not isinstance(table, types.Array) or table.ndim != 2:
        return None
    sig = types.void(table, row, col)

    def codegen(context, builder, signature, args):
        table_t = signature.args[0]
        ary = context.make_array(table_t)(context, builder, args[0])
        index = [context.cast(builder, args[i], signature.args[i], types.intp) for i in (1, 2)]
        ptr = cgutils.get_item_pointer(context, builder, table_t, ary, index)
        i8p = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        # read (0), keep in every cache level (3), data cache (1)
        builder.call(fn, [i8p, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline="always")
def prefetch_row(table, row):
    """Ask the CPU to fetch the cache line of ``table[row, 0]`` early."""
    prefetch_word(table, row, 0)
