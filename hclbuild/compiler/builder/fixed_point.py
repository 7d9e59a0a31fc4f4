"""Conversion into a fixed-point type with ap_fixed's quantization and overflow modes, lowered to
integer arithmetic (hclbuild.dsl.fixed_point states the rules on Python ints; both give the bits
ap_fixed gives, tests/dsl/test_fixed_modes.py checks the three against each other).

A value is first brought to the destination's fraction bits: the dropped bits decide a rounding
increment (the highest dropped bit, whether any lower one is set, the sign, the lowest kept bit),
then an out-of-range value is wrapped, saturated or zeroed. A float goes through its IEEE bits
(sign, exponent, 53-bit significand), so every double converts exactly, infinities and NaN as
ap_fixed reads them (numbers too large for any range).
"""

from __future__ import annotations

from fractions import Fraction

from mlir import ir
from mlir.dialects import arith

from hclbuild.compiler.builder.state import FunctionState
from hclbuild.dsl.fixed_point import value_range
from hclbuild.dsl.types import DType
from hclbuild.errors import CompileError

_SIGNIFICAND_BITS = 52  # stored significand bits of a double
_EXPONENT_BIAS = 1075  # a double is significand * 2**(exponent - 1075), significand of 53 bits
# a right shift by more than this leaves less than half a unit of a 55-bit signed significand: the
# rounding then depends only on its sign and whether it is zero, as at this shift
_FLOAT_SHIFT_LIMIT = 55


class FixedPointLowering(FunctionState):
    """requantize (int/fixed -> fixed) and float_to_fixed, with the destination's modes."""

    def _signed(self, value: int, bits: int) -> ir.Value:
        return self.int_const(value, DType("int", bits))

    def requantize(self, value: ir.Value, src: DType, dst: DType) -> ir.Value:
        """An int or fixed value of dtype src converted into fixed-point dst (ap_fixed's assignment)."""
        shift = dst.frac - src.frac  # the value's fraction bits after it, minus before
        lo, hi = _reachable(src, shift, dst.quantization)
        lowest, highest = value_range(dst.bits, dst.is_signed, dst.overflow)
        fits = lowest <= lo and hi <= highest
        work = max(src.bits + max(shift, 0), dst.bits) + 2  # the sign, a rounding carry
        wide = self.resize(value, src, work)
        if shift > 0:
            wide = arith.ShLIOp(wide, self._signed(shift, work)).result
        elif shift < 0:
            wide = self._round(wide, -shift, src.is_signed, dst.quantization, work)
        if not fits:
            wide = self._into_range(wide, dst, work)
        return self.resize(wide, DType("int", work), dst.bits)

    def float_to_fixed(self, value: ir.Value, dst: DType) -> ir.Value:
        """A double converted into fixed-point dst, exactly as ap_fixed's constructor from double."""
        i64 = DType("int", 64)
        work = max(dst.bits + _FLOAT_SHIFT_LIMIT + 4, 64)
        bits = arith.BitcastOp(ir.IntegerType.get_signless(64), value).result
        exponent = arith.AndIOp(
            arith.ShRUIOp(bits, self._signed(_SIGNIFICAND_BITS, 64)).result, self._signed(0x7FF, 64)
        ).result
        stored = arith.AndIOp(bits, self._signed((1 << _SIGNIFICAND_BITS) - 1, 64)).result
        # the hidden bit of a normal number; a subnormal's exponent reads as 1
        normal = arith.CmpIOp(arith.CmpIPredicate.ne, exponent, self._signed(0, 64)).result
        hidden = arith.SelectOp(normal, self._signed(1 << _SIGNIFICAND_BITS, 64), self._signed(0, 64)).result
        significand = self.resize(arith.OrIOp(stored, hidden).result, i64, work)
        negative = arith.CmpIOp(arith.CmpIPredicate.slt, bits, self._signed(0, 64)).result
        negated = arith.SubIOp(self._signed(0, work), significand).result
        signed = arith.SelectOp(negative, negated, significand).result
        # the value is signed * 2**scale in units of dst's last fraction bit
        exponent = arith.MaxSIOp(exponent, self._signed(1, 64)).result
        scale = arith.AddIOp(exponent, self._signed(dst.frac - _EXPONENT_BIAS, 64)).result
        # left: beyond dst.bits + 1 every kept bit is shifted out, and the value stays out of range
        left = arith.MinSIOp(scale, self._signed(dst.bits + 1, 64)).result
        left = self.resize(arith.MaxSIOp(left, self._signed(0, 64)).result, i64, work)
        shifted_left = arith.ShLIOp(signed, left).result
        right = arith.SubIOp(self._signed(0, 64), scale).result
        right = arith.MinSIOp(right, self._signed(_FLOAT_SHIFT_LIMIT, 64)).result
        right = self.resize(arith.MaxSIOp(right, self._signed(1, 64)).result, i64, work)
        rounded = self._round(signed, right, True, dst.quantization, work)
        is_left = arith.CmpIOp(arith.CmpIPredicate.sge, scale, self._signed(0, 64)).result
        wide = arith.SelectOp(is_left, shifted_left, rounded).result
        return self.resize(self._into_range(wide, dst, work), DType("int", work), dst.bits)

    def _round(
        self, value: ir.Value, drop: int | ir.Value, signed: bool, quantization: str, work: int
    ) -> ir.Value:
        """value (signed, `work` bits) without its `drop` (>= 1, known or at run time) low bits,
        rounded by the mode."""
        known = isinstance(drop, int)
        amount = self._signed(drop, work) if known else drop
        kept = arith.ShRSIOp(value, amount).result  # floor: AP_TRN
        if quantization == "AP_TRN" or (quantization == "AP_TRN_ZERO" and not signed):
            return kept
        one = self._signed(1, work)
        zero = self._signed(0, work)
        if known:
            half_mask, rest_mask = (
                self._signed(1 << (drop - 1), work),
                self._signed((1 << (drop - 1)) - 1, work),
            )
        else:
            below = arith.SubIOp(drop, one).result
            half_mask = arith.ShLIOp(one, below).result
            rest_mask = arith.SubIOp(half_mask, one).result
        half = arith.CmpIOp(arith.CmpIPredicate.ne, arith.AndIOp(value, half_mask).result, zero).result
        rest = arith.CmpIOp(arith.CmpIPredicate.ne, arith.AndIOp(value, rest_mask).result, zero).result
        odd = arith.TruncIOp(ir.IntegerType.get_signless(1), kept).result
        negative = arith.CmpIOp(arith.CmpIPredicate.slt, value, zero).result if signed else None
        increment = _increment(quantization, negative, half, rest, odd)
        step = arith.ExtUIOp(ir.IntegerType.get_signless(work), increment).result
        return arith.AddIOp(kept, step).result

    def _into_range(self, value: ir.Value, dst: DType, work: int) -> ir.Value:
        """A rounded value (signed, `work` bits) wrapped, saturated or zeroed into dst's range."""
        if dst.overflow == "AP_WRAP":
            return value  # the final truncation to dst.bits wraps
        lowest, highest = value_range(dst.bits, dst.is_signed, dst.overflow)
        low, high = self._signed(lowest, work), self._signed(highest, work)
        above = arith.CmpIOp(arith.CmpIPredicate.sgt, value, high).result
        below = arith.CmpIOp(arith.CmpIPredicate.slt, value, low).result
        if dst.overflow == "AP_SAT_ZERO":
            outside = arith.OrIOp(above, below).result
            return arith.SelectOp(outside, self._signed(0, work), value).result
        return arith.SelectOp(above, high, arith.SelectOp(below, low, value).result).result


def _increment(
    quantization: str, negative: ir.Value | None, half: ir.Value, rest: ir.Value, odd: ir.Value
) -> ir.Value:
    """The i1 rounding increment of a mode (as hclbuild.dsl.fixed_point.rounding_increment);
    `negative` is None for an unsigned value."""

    def either(a: ir.Value, b: ir.Value) -> ir.Value:
        return arith.OrIOp(a, b).result

    def both(a: ir.Value, b: ir.Value) -> ir.Value:
        return arith.AndIOp(a, b).result

    if quantization == "AP_TRN_ZERO" and negative is not None:
        return both(negative, either(half, rest))
    if quantization == "AP_RND":
        return half
    if quantization == "AP_RND_ZERO":
        return both(half, rest if negative is None else either(negative, rest))
    if quantization == "AP_RND_INF":
        if negative is None:
            return half
        true = arith.ConstantOp(negative.type, ir.IntegerAttr.get(negative.type, 1)).result
        return both(half, either(arith.XOrIOp(negative, true).result, rest))
    if quantization == "AP_RND_MIN_INF":
        return both(half, rest)
    if quantization == "AP_RND_CONV":
        return both(half, either(odd, rest))
    raise CompileError(f"builder: unknown quantization mode {quantization!r}")


def _reachable(src: DType, shift: int, quantization: str) -> tuple[int, int]:
    """The lowest and highest raw value src's values can have at `shift` more fraction bits,
    after any rounding: when these fit, no overflow mode has anything to do."""
    lowest, highest = value_range(src.bits, src.is_signed, "AP_WRAP")
    if shift >= 0:
        return lowest << shift, highest << shift
    scale = Fraction(1, 1 << -shift)
    low, high = lowest * scale, highest * scale
    if quantization == "AP_TRN":
        return int(low // 1), int(high // 1)
    return int(low // 1), -int(-high // 1)  # rounding may go up to the ceiling
