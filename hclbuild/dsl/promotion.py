"""HeteroCL's type rules: the dtype an arithmetic operation on two dtypes computes in.

- integers (HeteroCL's rule, not C's: UInt(8) - UInt(8) is UInt(32)): the result is at least 32 bits wide, as wide as the widest operand,
  signed when either operand is signed (a mixed pair widens the unsigned side by one bit);
- fixed-point keeps full precision like ap_fixed (add: one more integer bit, mul: widths add);
- any float operand makes the operation float (the wider float);
- a Python number beside an operand takes the operand's type, widened so that it keeps its value.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

from hclbuild.dsl.types import MAX_INT_BITS, DType, Fixed, Float, Index, Int, UFixed, UInt
from hclbuild.errors import DTypeError, HCLNotImplementedError


def check_bits(bits: int, what: str) -> int:
    """`bits`, or a DTypeError naming `what` when no integer of hclbuild is that wide."""
    if bits > MAX_INT_BITS:
        raise DTypeError(f"{what}: the result would need {bits} bits (more than {MAX_INT_BITS})")
    return bits


def promote(a: DType, b: DType, op: str = "add") -> DType:
    """The dtype an arithmetic operation on a and b computes in (see the module docstring)."""
    if a.is_float or b.is_float:
        bits = max(x.bits for x in (a, b) if x.is_float)
        return Float(bits)
    if a.is_index and b.is_index:
        return Index()
    if a.is_index:
        a = Int(32) if b.bits <= 32 else Int(b.bits)
    if b.is_index:
        b = Int(32) if a.bits <= 32 else Int(a.bits)
    if a.is_fixed or b.is_fixed:
        fa, fb = as_fixed(a), as_fixed(b)
        signed = fa.is_signed or fb.is_signed
        ia = fa.int_bits + (1 if signed and not fa.is_signed else 0)
        ib = fb.int_bits + (1 if signed and not fb.is_signed else 0)
        if op == "mul":
            frac = fa.frac + fb.frac
            ibits = ia + ib
        elif op == "div":
            # ap_fixed's quotient: the dividend's fraction bits; dividing by the smallest divisor
            # (2**-frac) scales by 2**frac, and a signed divisor can flip the sign of the minimum
            frac = fa.frac
            ibits = fa.int_bits + fb.frac + (1 if fb.is_signed else 0)
        elif op in ("add", "sub"):
            frac = max(fa.frac, fb.frac)
            ibits = max(ia, ib) + 1
        else:
            frac = max(fa.frac, fb.frac)
            ibits = max(ia, ib)
        width = check_bits(ibits + frac, "fixed-point " + op)
        return Fixed(width, frac) if signed else UFixed(width, frac)
    # integers: C-like promotion to at least 32 bits
    if a.is_signed == b.is_signed:
        bits = max(a.bits, b.bits, 32)
        return Int(bits) if a.is_signed else UInt(bits)
    signed_bits = a.bits if a.is_signed else b.bits
    unsigned_bits = b.bits if a.is_signed else a.bits
    return Int(check_bits(max(signed_bits, unsigned_bits + 1, 32), "mixed signed/unsigned " + op))


def as_fixed(t: DType) -> DType:
    """An integer as the fixed-point type with no fraction bits."""
    return t if t.is_fixed else DType("fixed" if t.is_signed else "ufixed", t.bits, 0)


def literal_type(value: numbers.Real, like: DType | None) -> tuple[int | float, DType]:
    """The value and dtype of a Python number used beside an operand of dtype `like` (None: alone)."""
    if isinstance(value, bool):
        return int(value), like if like is not None else UInt(1)
    if isinstance(value, numbers.Integral):
        if like is None:
            like = Int(32) if -(2**31) <= int(value) < 2**31 else Int(64)
        if like.is_float:
            return float(value), like
        if like.is_fixed:
            return _fixed_literal(value, like)
        if like.is_index:
            return int(value), like
        # a literal never wraps at the other operand's width: x + 300 on a UInt(8) is 300
        wide = promote(like, like)
        lo, hi = (-(1 << (wide.bits - 1)), 1 << (wide.bits - 1)) if wide.is_signed else (0, 1 << wide.bits)
        if not lo <= int(value) < hi:
            wide = Int(64) if -(2**63) <= int(value) < 2**63 else Int(_literal_bits(int(value)))
        return int(value), wide
    if like is not None and like.is_fixed:
        return _fixed_literal(value, like)
    if like is None or not like.is_float:
        like = Float(64) if like is not None and like.is_int and like.bits > 32 else Float(32)
    return float(value), like


def _fixed_literal(value: numbers.Real, like: DType) -> tuple[float, DType]:
    """A literal beside a fixed-point operand: its fraction bits, and integer bits enough that the
    value does not wrap (x * 2 on a Fixed(13, 11) doubles x; in the operand's own format 2 had
    been -2), as an int or double converted by ap_fixed keeps its value."""
    if not math.isfinite(float(value)):
        return float(value), like
    exact = Fraction(value) if isinstance(value, numbers.Rational) else Fraction(float(value))
    raw = math.floor(exact * 2**like.frac)
    signed = like.is_signed or raw < 0
    needed = ((raw if raw >= 0 else ~raw).bit_length() + 1) if signed else raw.bit_length()
    bits = check_bits(
        max(like.bits + (1 if signed and not like.is_signed else 0), needed), f"the literal {value}"
    )
    return float(value), Fixed(bits, like.frac) if signed else UFixed(bits, like.frac)


def _literal_bits(value: int) -> int:
    """Signed width of a literal beyond 64 bits: 128, else just wide enough."""
    bits = (value if value >= 0 else ~value).bit_length() + 1
    return check_bits(max(bits, 128), f"the literal {value}")


def binary_dtype(op: str, a: DType, b: DType) -> DType:
    """The dtype of a binary operation (add sub mul div floordiv mod and or xor shl shr) on operands
    of dtypes a and b, or the error saying why they do not take it."""
    if op in ("and", "or", "xor", "shl", "shr") and (a.is_float or b.is_float):
        raise DTypeError(f"bitwise '{op}' needs integer operands, got {a!r} and {b!r}")
    if op in ("shl", "shr"):  # the shifted value's type (an integer widened as promote widens it)
        if a.is_index:
            return Index()
        if a.is_fixed:
            return a
        return promote(a, a)
    if op in ("and", "or", "xor") and (a.is_fixed or b.is_fixed):
        raise HCLNotImplementedError(f"bitwise '{op}' on fixed-point values (cast to an integer first)")
    fixed = (a.is_fixed or b.is_fixed) and not (a.is_float or b.is_float)
    if op in ("floordiv", "mod") and fixed:
        raise HCLNotImplementedError(f"'{op}' on fixed-point values (cast to float or integer first)")
    return promote(a, b, op)
