"""ap_fixed's quantization and overflow modes, and conversion of exact values into a fixed-point
type with them, on Python ints (host data, constants; the builder lowers the same rules to IR).

A value converted into ap_fixed<W, I, Q, O> is first rounded to the type's fraction bits by the
quantization mode Q, then brought into the type's range by the overflow mode O:

  AP_TRN          toward minus infinity (the default)      AP_WRAP      keep the low W bits (the default)
  AP_TRN_ZERO     toward zero                              AP_SAT       clamp to the type's range
  AP_RND          to nearest, ties toward plus infinity    AP_SAT_ZERO  zero when out of range
  AP_RND_ZERO     to nearest, ties toward zero             AP_SAT_SYM   clamp to [-max, max] (signed),
  AP_RND_MIN_INF  to nearest, ties toward minus infinity                as AP_SAT (unsigned)
  AP_RND_INF      to nearest, ties away from zero
  AP_RND_CONV     to nearest, ties to even
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

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
DEFAULT_QUANTIZATION = "AP_TRN"
DEFAULT_OVERFLOW = "AP_WRAP"


def rounding_increment(quantization: str, negative: bool, half: bool, rest: bool, odd: bool) -> bool:
    """Whether rounding adds one unit to the floor of a value whose dropped bits are not all kept:
    `half` is the highest dropped bit, `rest` whether any lower dropped bit is set, `odd` the lowest
    kept bit, `negative` the sign of the value (ap_fixed's quantization_adjust)."""
    if quantization == "AP_TRN":
        return False
    if quantization == "AP_TRN_ZERO":
        return negative and (half or rest)
    if quantization == "AP_RND":
        return half
    if quantization == "AP_RND_ZERO":
        return half and (negative or rest)
    if quantization == "AP_RND_INF":
        return half and (not negative or rest)
    if quantization == "AP_RND_MIN_INF":
        return half and rest
    if quantization == "AP_RND_CONV":
        return half and (odd or rest)
    raise ValueError(quantization)


def value_range(bits: int, signed: bool, overflow: str) -> tuple[int, int]:
    """The lowest and highest raw value an overflow mode leaves (AP_SAT_SYM: -max for signed)."""
    if not signed:
        return 0, (1 << bits) - 1
    highest = (1 << (bits - 1)) - 1
    return (-highest if overflow == "AP_SAT_SYM" else -highest - 1), highest


def requantize(
    raw: int, frac: int, bits: int, to_frac: int, signed: bool, quantization: str, overflow: str
) -> int:
    """The raw bits (read signed or unsigned) of the exact value raw * 2**-frac converted into a
    fixed-point type of `bits` bits, `to_frac` fraction bits and the given modes."""
    drop = frac - to_frac
    if drop <= 0:
        value = raw << -drop
    else:
        value = raw >> drop  # floor
        half = bool((raw >> (drop - 1)) & 1)
        rest = raw & ((1 << (drop - 1)) - 1) != 0
        value += rounding_increment(quantization, raw < 0, half, rest, bool(value & 1))
    return into_range(value, bits, signed, overflow)


def into_range(value: int, bits: int, signed: bool, overflow: str) -> int:
    """A rounded raw value brought into the range of `bits` bits by an overflow mode."""
    lowest, highest = value_range(bits, signed, overflow)
    if lowest <= value <= highest:
        return value
    if overflow == "AP_WRAP":
        value &= (1 << bits) - 1
        return value - (1 << bits) if signed and value >> (bits - 1) else value
    if overflow == "AP_SAT_ZERO":
        return 0
    return highest if value > highest else lowest


def float_requantize(
    value: float, bits: int, to_frac: int, signed: bool, quantization: str, overflow: str
) -> int:
    """A double converted as ap_fixed converts it: exactly, then rounded and brought into range.
    Infinities and NaN are out of every range (AP_WRAP gives 0, the saturating modes clamp by the
    sign bit), as ap_fixed reads their exponent."""
    if math.isnan(value) or math.isinf(value):
        negative = math.copysign(1.0, value) < 0
        if overflow == "AP_WRAP" or overflow == "AP_SAT_ZERO":
            return 0
        lowest, highest = value_range(bits, signed, overflow)
        return lowest if negative else highest
    numerator, denominator = value.as_integer_ratio()
    return requantize(numerator, denominator.bit_length() - 1, bits, to_frac, signed, quantization, overflow)


def exact_requantize(
    value: numbers.Real | int | float | Fraction,
    bits: int,
    to_frac: int,
    signed: bool,
    quantization: str,
    overflow: str,
) -> int:
    """Any real number (a float, an int or an exact Fraction, which need not be dyadic) converted
    into a fixed-point type: the raw bits, as ap_fixed gives them."""
    if not isinstance(value, numbers.Rational):  # a float of any precision: through its double
        return float_requantize(float(value), bits, to_frac, signed, quantization, overflow)
    scaled = Fraction(value) * 2**to_frac
    floor = math.floor(scaled)
    below = scaled - floor  # the dropped part, in [0, 1)
    half = below >= Fraction(1, 2)
    rest = below > Fraction(1, 2) if half else below > 0
    floor += rounding_increment(quantization, scaled < 0, half, rest, bool(floor & 1))
    return into_range(floor, bits, signed, overflow)
