"""Conversions between dtypes: ints wrap, a value converted into a fixed-point type is rounded and
brought into range by its modes as ap_fixed does (by default truncated toward minus infinity and
wrapped; fixed_point.py lowers the modes), floats convert as C does; index values go through i64.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from hclbuild.compiler.builder.fixed_point import FixedPointLowering
from hclbuild.compiler.builder.state import mlir_type
from hclbuild.dsl.types import DType, Int
from hclbuild.errors import CompileError


class ConversionLowering(FixedPointLowering):
    """resize and convert: a value of one dtype as another."""

    def resize(self, value: ir.Value, src: DType, bits: int) -> ir.Value:
        """Sign/zero-extend or truncate an integer value of dtype src to `bits` bits."""
        if src.bits == bits:
            return value
        ty = ir.IntegerType.get_signless(bits)
        if src.bits > bits:
            return arith.TruncIOp(ty, value).result
        return (arith.ExtSIOp if src.is_signed else arith.ExtUIOp)(ty, value).result

    def convert(self, value: ir.Value, src: DType, dst: DType | None) -> ir.Value:
        """value of dtype src as dtype dst: ints wrap, fixed point by dst's modes, like ap types."""
        if dst is None or src == dst:
            return value
        if src.is_index:
            if dst.is_index:
                return value
            as_i64 = arith.IndexCastOp(ir.IntegerType.get_signless(64), value).result
            return self.convert(as_i64, Int(64), dst)
        if dst.is_index:
            as_i64 = self.convert(value, src, Int(64))
            return arith.IndexCastOp(ir.IndexType.get(), as_i64).result
        if src.is_float and dst.is_float:
            if src.bits < dst.bits:
                return arith.ExtFOp(mlir_type(dst), value).result
            return arith.TruncFOp(mlir_type(dst), value).result
        if src.is_int and dst.is_int:
            return self.resize(value, src, dst.bits)
        if src.is_int and dst.is_float:
            op = arith.SIToFPOp if src.is_signed else arith.UIToFPOp
            return op(mlir_type(dst), value).result
        if src.is_float and dst.is_int:
            # an i64 fptosi overflows for UInt(64) values >= 2**63 and for wider types: convert at a
            # signed width that holds the whole range of the destination (i128 at least)
            wide = 64 if dst.bits < 64 or (dst.bits == 64 and dst.is_signed) else max(128, dst.bits + 1)
            as_int = arith.FPToSIOp(ir.IntegerType.get_signless(wide), value).result
            if wide > 64:
                # NaN is 0, as the C++'s ap_int conversion gives it: LLVM's wide fptosi is poison
                # there (the reference had 2**63 for a UInt(64) and csim failed)
                nan = arith.CmpFOp(arith.CmpFPredicate.UNO, value, value).result
                as_int = arith.SelectOp(nan, self.int_const(0, DType("int", wide)), as_int).result
            return self.resize(as_int, DType("int", wide), dst.bits)
        if src.is_integral_bits and dst.is_fixed and dst.has_modes:
            return self.requantize(value, src, dst)
        if src.is_int and dst.is_fixed:
            work = max(dst.bits, src.bits + dst.frac) + 1
            # each step recorded as the fixed type it holds (hcl.fixed): the emitter's ap_fixed conversion
            wide = self.fixed(self.resize(value, src, work), _as_fixed(src, work, 0))
            if dst.frac:
                shifted = arith.ShLIOp(wide, self.int_const(dst.frac, DType("uint", work))).result
                wide = self.fixed(shifted, _as_fixed(src, work, dst.frac))
            return self.fixed(self.resize(wide, DType("int", work), dst.bits), dst)
        if src.is_fixed and dst.is_int:
            # C-native conversion: truncate toward zero
            work = max(src.bits + 2, dst.bits)
            wide = self.resize(value, src, work)
            if src.frac:
                divisor = self.int_const(1 << src.frac, DType("int", work))
                wide = (arith.DivSIOp if src.is_signed else arith.DivUIOp)(wide, divisor).result
            return self.resize(wide, DType("int" if src.is_signed else "uint", work), dst.bits)
        if src.is_fixed and dst.is_fixed:
            shift = dst.frac - src.frac
            work = max(src.bits, dst.bits) + abs(shift) + 1
            wide = self.fixed(self.resize(value, src, work), _as_fixed(src, work, src.frac))
            if shift > 0:
                wide = arith.ShLIOp(wide, self.int_const(shift, DType("uint", work))).result
            elif shift < 0:
                op = arith.ShRSIOp if src.is_signed else arith.ShRUIOp
                wide = op(wide, self.int_const(-shift, DType("uint", work))).result
            wide = self.fixed(wide, _as_fixed(src, work, dst.frac))
            return self.fixed(self.resize(wide, DType("int", work), dst.bits), dst)
        if src.is_fixed and dst.is_float:
            f64 = ir.F64Type.get()
            as_float = (arith.SIToFPOp if src.is_signed else arith.UIToFPOp)(f64, value).result
            scale = arith.ConstantOp(f64, ir.FloatAttr.get(f64, 2.0**-src.frac)).result
            scaled = arith.MulFOp(as_float, scale).result
            return self.convert(scaled, DType("float", 64), dst)
        if src.is_float and dst.is_fixed:
            return self.float_to_fixed(self.convert(value, src, DType("float", 64)), dst)
        raise CompileError(f"builder: no conversion from {src!r} to {dst!r}")


def _as_fixed(src: DType, bits: int, frac: int) -> DType:
    """The fixed type of `bits` bits, `frac` of them fraction, with src's signedness."""
    return DType("fixed" if src.is_signed else "ufixed", bits, frac)
