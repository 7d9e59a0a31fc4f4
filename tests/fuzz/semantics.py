"""The fuzzer's own statement of hclbuild's value semantics (README "The DSL"), written without
hclbuild's compiler: dtypes, the promotion rules, conversions and every operation on Python ints.

Values: ints are Python ints in their type's range (signed or unsigned reading); fixed-point values
are their raw bits as such an int (value * 2**frac); floats are numpy float32 scalars. A value
converted into a fixed-point type is rounded and brought into range by the type's ap_fixed modes,
stated here by their definitions on exact fractions (hclbuild lowers them to bit tests).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

MAX_BITS = 128


QUANTIZATION_MODES = (
    "AP_TRN",
    "AP_TRN_ZERO",
    "AP_RND",
    "AP_RND_ZERO",
    "AP_RND_INF",
    "AP_RND_MIN_INF",
    "AP_RND_CONV",
)
OVERFLOW_MODES = ("AP_WRAP", "AP_SAT", "AP_SAT_ZERO", "AP_SAT_SYM")


@dataclass(frozen=True)
class Ty:
    """A dtype: kind int | uint | fixed | ufixed | float | index; fixed types carry ap_fixed's modes."""

    kind: str
    bits: int
    frac: int = 0
    quantization: str = "AP_TRN"
    overflow: str = "AP_WRAP"

    @property
    def has_modes(self) -> bool:
        return (self.quantization, self.overflow) != ("AP_TRN", "AP_WRAP")

    @property
    def signed(self) -> bool:
        return self.kind in ("int", "fixed", "float", "index")

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_fixed(self) -> bool:
        return self.kind in ("fixed", "ufixed")

    @property
    def is_int(self) -> bool:
        return self.kind in ("int", "uint")

    @property
    def is_index(self) -> bool:
        return self.kind == "index"

    @property
    def int_bits(self) -> int:
        return self.bits - self.frac

    @property
    def name(self) -> str:
        """The DSL's spelling (README): fixed16_4, and the modes when not the defaults."""
        if self.is_fixed:
            modes = f"_{self.quantization[3:]}_{self.overflow[3:]}".lower() if self.has_modes else ""
            return f"{self.kind}{self.bits}_{self.frac}{modes}"
        return "index" if self.is_index else f"{self.kind}{self.bits}"

    def source(self) -> str:
        """The hcl constructor spelling: hcl.Int(8), hcl.Fixed(16, 4, quantization="AP_RND")."""
        if self.is_fixed:
            modes = ""
            if self.quantization != "AP_TRN":
                modes += f", quantization={self.quantization!r}"
            if self.overflow != "AP_WRAP":
                modes += f", overflow={self.overflow!r}"
            return f"hcl.{'Fixed' if self.kind == 'fixed' else 'UFixed'}({self.bits}, {self.frac}{modes})"
        return {
            "int": f"hcl.Int({self.bits})",
            "uint": f"hcl.UInt({self.bits})",
            "float": f"hcl.Float({self.bits})",
        }[self.kind]

    def lowest(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    def highest(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1


def Int(bits: int) -> Ty:
    return Ty("int", bits)


def UInt(bits: int) -> Ty:
    return Ty("uint", bits)


FLOAT32 = Ty("float", 32)
INDEX = Ty("index", 64)
BOOL = UInt(1)


class TypeTooWide(Exception):
    """An operation whose result would need more than MAX_BITS bits (the DSL refuses it)."""


def wrap(value: int, ty: Ty) -> int:
    """Two's complement wrap of an int to ty's width, read with ty's signedness."""
    value &= (1 << ty.bits) - 1
    if ty.signed and value >> (ty.bits - 1):
        value -= 1 << ty.bits
    return value


def _as_fixed(ty: Ty) -> Ty:
    """An int as fixed point with no fraction bits; arithmetic on fixed point has the default modes."""
    return Ty("fixed" if ty.signed else "ufixed", ty.bits, ty.frac)


def promote(a: Ty, b: Ty, op: str = "add") -> Ty:
    """README: C-like integer promotion (>= 32 bits), full-precision fixed point, any float wins."""
    if a.is_float or b.is_float:
        return Ty("float", max(t.bits for t in (a, b) if t.is_float))
    if a.is_index and b.is_index:
        return INDEX
    if a.is_index:
        a = Int(32) if b.bits <= 32 else Int(b.bits)
    if b.is_index:
        b = Int(32) if a.bits <= 32 else Int(a.bits)
    if a.is_fixed or b.is_fixed:
        fa, fb = _as_fixed(a), _as_fixed(b)
        signed = fa.signed or fb.signed
        ia = fa.int_bits + (1 if signed and not fa.signed else 0)
        ib = fb.int_bits + (1 if signed and not fb.signed else 0)
        if op == "mul":
            frac, ibits = fa.frac + fb.frac, ia + ib
        elif op in ("add", "sub"):
            frac, ibits = max(fa.frac, fb.frac), max(ia, ib) + 1
        else:
            frac, ibits = max(fa.frac, fb.frac), max(ia, ib)
        if ibits + frac > MAX_BITS:
            raise TypeTooWide(op)
        return Ty("fixed" if signed else "ufixed", ibits + frac, frac)
    if a.signed == b.signed:
        return Ty(a.kind, max(a.bits, b.bits, 32))
    signed_bits, unsigned_bits = (a.bits, b.bits) if a.signed else (b.bits, a.bits)
    bits = max(signed_bits, unsigned_bits + 1, 32)
    if bits > MAX_BITS:
        raise TypeTooWide(op)
    return Int(bits)


def literal_type(value: int | float, like: Ty) -> Ty:
    """The type a Python number takes next to an operand of type `like` (as_expr's rule)."""
    if like.is_fixed:
        # its fraction bits, and integer bits enough that the value does not wrap (x * 2 doubles x)
        raw = math.floor(value * 2**like.frac)
        signed = like.signed or raw < 0
        needed = (raw if raw >= 0 else ~raw).bit_length() + 1 if signed else raw.bit_length()
        bits = max(like.bits + (1 if signed and not like.signed else 0), needed)
        return Ty("fixed" if signed else "ufixed", bits, like.frac)
    if isinstance(value, float) or like.is_float:
        if like.is_float:
            return like
        return Ty("float", 64 if like.is_int and like.bits > 32 else 32)
    if like.is_index:
        return INDEX
    wide = promote(like, like)
    if not wide.lowest() <= value <= wide.highest():
        return Int(64) if -(1 << 63) <= value < (1 << 63) else Int(MAX_BITS)
    return wide


def literal_value(value: int | float, ty: Ty) -> int | np.float32:
    """A literal as a value of its type (fixed literals are exact multiples of 2**-frac here)."""
    if ty.is_float:
        return np.float32(value)
    if ty.is_fixed:
        return wrap(math.floor(value * 2**ty.frac), ty)
    return int(value)


# ---- conversions ---------------------------------------------------------------------------


def int_to_float32(value: int) -> np.float32:
    """Round an int to the nearest float32, ties to even (one rounding, as sitofp/uitofp)."""
    if abs(value) < 1 << 53:
        return np.float32(float(value))
    magnitude = abs(value)
    shift = magnitude.bit_length() - 24
    quotient, rest = divmod(magnitude, 1 << shift)
    half = 1 << (shift - 1)
    if rest > half or (rest == half and quotient & 1):
        quotient += 1
    result = math.ldexp(float(quotient), shift) if quotient.bit_length() + shift <= 1024 else math.inf
    with np.errstate(over="ignore"):
        return np.float32(-result if value < 0 else result)


def _rounded(scaled: Fraction, quantization: str) -> int:
    """An exact value in units of the last fraction bit, rounded to an integer by the mode's
    definition (Fraction's round() ties to even)."""
    half = Fraction(1, 2)
    if quantization == "AP_TRN":
        return math.floor(scaled)
    if quantization == "AP_TRN_ZERO":
        return math.trunc(scaled)
    if quantization == "AP_RND":
        return math.floor(scaled + half)
    if quantization == "AP_RND_ZERO":
        return math.ceil(scaled - half) if scaled > 0 else math.floor(scaled + half)
    if quantization == "AP_RND_INF":
        return math.floor(scaled + half) if scaled >= 0 else math.ceil(scaled - half)
    if quantization == "AP_RND_MIN_INF":
        return math.ceil(scaled - half)
    if quantization == "AP_RND_CONV":
        return round(scaled)
    raise ValueError(quantization)


def to_fixed(exact: Fraction, dst: Ty) -> int:
    """An exact value as fixed-point dst's raw bits: rounded by its quantization mode, then out of
    range values wrapped, clamped (AP_SAT_SYM: to [-max, max] when signed) or zeroed."""
    raw = _rounded(exact * 2**dst.frac, dst.quantization)
    lowest, highest = dst.lowest(), dst.highest()
    if dst.overflow == "AP_SAT_SYM" and dst.signed:
        lowest = -highest
    if lowest <= raw <= highest or dst.overflow == "AP_WRAP":
        return wrap(raw, dst)
    if dst.overflow == "AP_SAT_ZERO":
        return 0
    return min(max(raw, lowest), highest)


def exact_double(value: float) -> Fraction:
    """A double's exact value; ap_fixed reads an infinity's or a NaN's exponent as 2**1024, a number
    outside every fixed-point range (wrapped it is 0)."""
    if math.isfinite(value):
        return Fraction(value)
    return Fraction(-(2**1024) if math.copysign(1.0, value) < 0 else 2**1024)


def convert(value, src: Ty, dst: Ty):
    """value of type src as type dst: ints wrap, fixed point by dst's modes, floats as C."""
    if src == dst:
        return value
    if src.is_index:
        src = Int(64)
    if dst.is_index:
        dst = Int(64)
    if src.is_float and dst.is_float:
        return np.float32(value) if dst.bits == 32 else np.float64(value)
    if src.is_float:
        as_double = float(value)
        if dst.is_fixed:
            return to_fixed(exact_double(as_double), dst)
        return wrap(math.trunc(as_double), dst)  # C: toward zero
    if dst.is_float:
        if src.is_fixed:
            return np.float32(float(value) * 2.0**-src.frac)  # through f64, as the builder
        return int_to_float32(value)
    if dst.is_fixed:  # from fixed point or an int
        return to_fixed(Fraction(value, 2**src.frac), dst)
    if src.is_fixed:  # to an int: toward zero (ap_fixed's to_int)
        scaled = abs(value) >> src.frac
        return wrap(-scaled if value < 0 else scaled, dst)
    return wrap(value, dst)


# ---- operations ------------------------------------------------------------------------------


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def arith(op: str, a, b, ty: Ty):
    """a <op> b, both already of type ty (the promoted type), wrapped to it."""
    if ty.is_float:
        a, b = np.float32(a), np.float32(b)
        with np.errstate(all="ignore"):
            return {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b}[op]
    if ty.is_index:
        ty = Int(64)
    if op == "add":
        result = a + b
    elif op == "sub":
        result = a - b
    elif op == "mul":
        result = a * b
        if ty.is_fixed:  # operands were aligned to ty.frac: one factor's scale too many
            result >>= ty.frac
    elif op == "div":
        result = _tdiv(a, b)
    elif op == "floordiv":
        result = a // b
    elif op == "mod":
        result = a - b * _tdiv(a, b)
    elif op == "and":
        result = a & b
    elif op == "or":
        result = a | b
    elif op == "xor":
        result = a ^ b
    else:
        raise ValueError(op)
    return wrap(result, ty)


def compare(op: str, a, b) -> int:
    """1 or 0; a and b of one type (ints exactly, fixed on aligned raw bits, floats ordered)."""
    return int({"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b, "eq": a == b, "ne": a != b}[op])
