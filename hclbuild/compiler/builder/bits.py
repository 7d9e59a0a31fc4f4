"""Bit-level lowering: bit and slice reads and writes (constant or dynamic bounds), bit reversal and
bitcasts, as plain arith shifts and masks on the value's signless integer.

Dynamic shift amounts are guarded: an amount at or beyond the width gives 0 through arith.select
(LLVM makes such a shift poison, C leaves it undefined), so the reference run and the C++ agree.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref

from hclbuild.compiler.builder.state import FunctionState, mlir_type
from hclbuild.dsl import expr as E
from hclbuild.dsl import stmt as S
from hclbuild.dsl.types import DType, UInt
from hclbuild.errors import CompileError


class BitLowering(FunctionState):
    """GetBit, GetSlice, BitReverse, BitCast and StoreBits."""

    # ---- helpers -----------------------------------------------------------------------------
    def _position(self, expr: E.Expr, bits: int) -> tuple[ir.Value | None, ir.Value | None, int | None]:
        """A bit position for a value of `bits` bits: (amount as uint<bits>, amount < bits as i1,
        the position when constant). Read in a wider signed type first, so 300 is not 44 for 8 bits
        and -1 is out of range."""
        if isinstance(expr, E.Const):
            value = int(expr.value)
            return (self.int_const(value, UInt(bits)) if 0 <= value < bits else None), None, value
        wide = _signed_bound_type(expr, bits)
        position = self.convert(self.ev(expr), expr.dtype, wide)
        in_range = arith.CmpIOp(arith.CmpIPredicate.ult, position, self.int_const(bits, wide)).result
        return self.resize(position, wide, bits), in_range, None

    def _shift(self, op: type, value: ir.Value, position: tuple, bits: int) -> ir.Value:
        """value shifted by a position; 0 when the position is at or beyond the width."""
        amount, in_range, known = position
        if known is not None:
            if not 0 <= known < bits:
                return self.int_const(0, UInt(bits))
            return op(value, amount).result if known else value
        return arith.SelectOp(in_range, op(value, amount).result, self.int_const(0, UInt(bits))).result

    def _width_mask(self, lo: E.Expr, hi: E.Expr | None, bits: int) -> ir.Value:
        """The low hi - lo bits set (none when hi <= lo, all when hi - lo >= bits): the mask of a
        slice whose width is only known at run time. Bounds compare signed: x[0:-1] is empty."""
        if hi is None:  # the DSL sets hi whenever it leaves the width unknown
            raise CompileError("builder: a bit slice of run-time width has no upper bound")
        wide = _signed_bound_type(lo, bits, hi)
        lo_v = self.convert(self.ev(lo), lo.dtype, wide)
        hi_v = self.convert(self.ev(hi), hi.dtype, wide)
        above = arith.CmpIOp(arith.CmpIPredicate.sgt, hi_v, lo_v).result
        count = arith.SelectOp(above, arith.SubIOp(hi_v, lo_v).result, self.int_const(0, wide)).result
        count = arith.MinUIOp(count, self.int_const(bits, wide)).result
        # all ones >> (bits - count); the amount is the width itself (poison) only when count is 0
        amount = arith.SubIOp(self.int_const(bits, wide), count).result
        amount = self.resize(amount, wide, bits)
        uint = UInt(bits)
        mask = arith.ShRUIOp(self.int_const(-1, uint), amount).result
        empty = arith.CmpIOp(arith.CmpIPredicate.eq, count, self.int_const(0, wide)).result
        return arith.SelectOp(empty, self.int_const(0, uint), mask).result

    # ---- reads -------------------------------------------------------------------------------
    def expr_GetBit(self, expr: E.GetBit) -> ir.Value:
        bits = expr.value.dtype.bits
        shifted = self._shift(arith.ShRUIOp, self.ev(expr.value), self._position(expr.index, bits), bits)
        return arith.TruncIOp(ir.IntegerType.get_signless(1), shifted).result if bits > 1 else shifted

    def expr_GetSlice(self, expr: E.GetSlice) -> ir.Value:
        bits = expr.value.dtype.bits
        shifted = self._shift(arith.ShRUIOp, self.ev(expr.value), self._position(expr.lo, bits), bits)
        if expr.width is None:
            return arith.AndIOp(shifted, self._width_mask(expr.lo, expr.hi, bits)).result
        if expr.width < bits:
            return arith.TruncIOp(ir.IntegerType.get_signless(expr.width), shifted).result
        return shifted

    def expr_BitReverse(self, expr: E.BitReverse) -> ir.Value:
        """The classic log2 steps of swaps (halves, quarters, ... single bits) at the next power of
        two, then a shift back down: about 5 ops per step instead of 3 per bit."""
        bits = expr.value.dtype.bits
        value = self.ev(expr.value)
        if bits == 1:
            return value
        width = 1 << (bits - 1).bit_length()
        uint = DType("uint", width)  # the power of two above 2047 bits is 2048
        if width > bits:
            value = arith.ExtUIOp(mlir_type(uint), value).result
        step = width // 2
        while step:
            pattern = sum(((1 << step) - 1) << k for k in range(0, width, 2 * step))
            mask = self.int_const(pattern, uint)
            amount = self.int_const(step, uint)
            low = arith.AndIOp(value, mask).result
            high = arith.AndIOp(arith.ShRUIOp(value, amount).result, mask).result
            value = arith.OrIOp(high, arith.ShLIOp(low, amount).result).result
            step //= 2
        if width > bits:
            value = arith.ShRUIOp(value, self.int_const(width - bits, uint)).result
            value = arith.TruncIOp(ir.IntegerType.get_signless(bits), value).result
        return value

    def expr_BitCast(self, expr: E.BitCast) -> ir.Value:
        src, dst = expr.value.dtype, expr.dtype
        value = self.ev(expr.value)
        if src.bits != dst.bits or src.is_index or dst.is_index:
            raise CompileError(f"builder: no bitcast from {src!r} to {dst!r}")
        if src.is_float == dst.is_float:
            if src.is_float and src != dst:
                raise CompileError(f"builder: no bitcast from {src!r} to {dst!r}")
            return value  # ints, fixed point and structs of one width share their raw bits
        return arith.BitcastOp(mlir_type(dst), value).result

    # ---- writes ------------------------------------------------------------------------------
    def stmt_StoreBits(self, stmt: S.StoreBits) -> None:
        tensor = stmt.tensor
        bits = tensor.dtype.bits
        uint = UInt(bits)
        subs = self.subscripts(tensor, stmt.indices)
        old = memref.LoadOp(self.buffer(tensor), subs).result
        position = self._position(stmt.lo, bits)
        if stmt.width is None:
            ones = self._width_mask(stmt.lo, stmt.hi, bits)
            value = self.convert(self.ev(stmt.value), stmt.value.dtype, uint)
        else:
            ones = self.int_const((1 << stmt.width) - 1, uint)
            value = self.convert(self.ev(stmt.value), stmt.value.dtype, UInt(stmt.width))
            if stmt.width < bits:
                value = arith.ExtUIOp(mlir_type(uint), value).result
        mask = self._shift(arith.ShLIOp, ones, position, bits)
        placed = arith.AndIOp(self._shift(arith.ShLIOp, value, position, bits), mask).result
        kept = arith.AndIOp(old, arith.XOrIOp(mask, self.int_const(-1, uint)).result).result
        memref.StoreOp(arith.OrIOp(kept, placed).result, self.buffer(tensor), subs)


def _signed_bound_type(*bounds_and_bits: object) -> DType:
    """A signed type that holds every bound (index values as i64) and the width `bits` itself."""
    bits = next(b for b in bounds_and_bits if isinstance(b, int))
    width = bits.bit_length() + 1
    for bound in bounds_and_bits:
        if isinstance(bound, E.Expr):
            dtype = bound.dtype
            width = max(width, 64 if dtype.is_index else dtype.bits + (0 if dtype.is_signed else 1))
    return DType("int", width)
