"""Comparisons that the type of their operand decides, as g++'s -Wtype-limits finds them.

HeteroCL's rules keep `UInt(8) - UInt(8)` unsigned (UInt(32), `uint32_t` in the C++), so
`hcl.select(gx < 0, -gx, gx)` never takes its first value: csim passes while half the "absolute
values" are wrong. A comparison of an unsigned expression with a number its range lies wholly on
one side of is always true or always false; it is traced as written (HeteroCL compatibility) and
warned about at the user's line (hclbuild.dsl.diagnostics).

A fixed-point value is a multiple of 2**-frac: beside a Python number off that grid (or NaN, or an
infinity) some comparisons are decided by the number alone, as ap_fixed's with a double are
(fixed_versus_number; hclbuild.dsl.expr builds the comparison it leaves).
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

from hclbuild.dsl.diagnostics import warn
from hclbuild.dsl.types import DType
from hclbuild.errors import TypeLimitsWarning

_SYMBOL = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def unsigned_range(dtype: DType) -> tuple[Fraction, Fraction] | None:
    """The least and greatest value of an unsigned integer or fixed-point dtype; None for others."""
    if dtype.kind == "uint":
        return Fraction(0), Fraction(2**dtype.bits - 1)
    if dtype.kind == "ufixed":
        return Fraction(0), Fraction(2**dtype.bits - 1, 2**dtype.frac)
    return None


def decided(op: str, lo: Fraction, hi: Fraction, value: Fraction) -> bool | None:
    """What `x <op> value` is for every x in [lo, hi], or None when x decides it."""
    below, above = hi < value, lo > value  # the whole range on one side of value
    table = {
        "lt": True if below else False if lo >= value else None,
        "le": True if hi <= value else False if above else None,
        "gt": True if above else False if hi <= value else None,
        "ge": True if lo >= value else False if below else None,
        "eq": False if below or above else None,
        "ne": True if below or above else None,
    }
    return table[op]


def check_comparison(op: str, dtype: DType, value: numbers.Real) -> None:
    """Warn (TypeLimitsWarning) when `x <op> value` on an x of this dtype is always true or false."""
    span = unsigned_range(dtype)
    if span is None or isinstance(value, bool):
        return
    try:
        number = Fraction(value) if isinstance(value, numbers.Rational) else Fraction(float(value))
    except (ValueError, OverflowError):  # NaN and infinities: decided by the comparison itself
        return
    result = decided(op, *span, number)
    if result is None:
        return
    warn(
        TypeLimitsWarning,
        f"comparison of an unsigned {dtype} expression {_SYMBOL[op]} {value} is always "
        f"{'true' if result else 'false'} (HeteroCL's types: an unsigned operation stays unsigned; "
        "hcl.cast it to a signed type first if it can be negative)",
    )


def fixed_versus_number(op: str, frac: int, value: numbers.Real) -> bool | str:
    """x <op> value for a fixed-point x of `frac` fraction bits and a Python number, as ap_fixed
    compares with a double (x.to_double() <op> d): with the number's exact value. Rounded down to x's
    fraction bits first, 0.3 had been 76/256 on a Fixed(16, 8), so x >= 0.3 and x == 0.3 held for
    x = 0.296875. The truth when the number decides it, else the comparison to make with the grid
    point at or below the number.

    x is a multiple of 2**-frac: beside a number off that grid, >= is > and < is <= of the grid
    point below it, == never holds and != always does."""
    number = float(value)
    if math.isnan(number):
        return op == "ne"
    if math.isinf(number):
        above = number > 0  # every finite x is below +inf and above -inf
        holds = {"lt": above, "le": above, "gt": not above, "ge": not above, "eq": False, "ne": True}
        return holds[op]
    # exact: a float (np.float32 too: Fraction takes only Python's float) is a binary fraction
    exact = Fraction(value) if isinstance(value, numbers.Rational) else Fraction(number)
    scaled = exact * 2**frac
    if scaled.denominator != 1:
        if op in ("eq", "ne"):
            return op == "ne"
        return {"ge": "gt", "lt": "le"}.get(op, op)
    return op
