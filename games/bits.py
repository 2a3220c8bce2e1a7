"""Bit intrinsics for bitboards: population count and lowest-set-bit index, one LLVM instruction each."""

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of a uint64."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@intrinsic
def lowest_bit_index(typingctx, x):
    """Index of the lowest set bit of a non-zero uint64 (64 for zero)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.sext(builder.cttz(args[0], ir.Constant(ir.IntType(1), 0)), ir.IntType(64))

    return types.int64(types.uint64), codegen
