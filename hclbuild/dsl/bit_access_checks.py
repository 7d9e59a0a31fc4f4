"""Which bit accesses x[i] and x[lo:hi] are errors, decided without a node: on the value's dtype,
on the bounds that are constants and on the slice's width (hi - lo, hi exclusive) where it is one.

Separate from hclbuild.dsl.expr, which builds the bit nodes after these checks: they need no node
(expr reads the constants, hclbuild.dsl.linear_forms the width), and expr.py, which every node
class and Python operator keeps together, stays under the module size rule.
"""

from __future__ import annotations

from hclbuild.dsl.types import DType
from hclbuild.errors import APIError


def check_integral_bits(dtype: DType, what: str, noun: str) -> None:
    """`what` (bit access, a bit assignment, .reverse()) on a `noun` (tensor, expression) of `dtype`
    needs integer bits."""
    if not dtype.is_integral_bits:  # fixed point too: its raw bits
        raise APIError(f"{what} needs an integer {noun}, got {dtype!r} (hcl.bitcast it to an integer first)")


def check_slice_syntax(key: slice) -> None:
    """x[lo:hi] takes both bounds and no step."""
    if key.step is not None:
        raise APIError("bit slices take no step")
    if key.start is None or key.stop is None:
        raise APIError("bit slices need both bounds: x[lo:hi] (hi exclusive)")


def check_slice_order(lo: int | None, hi: int | None, width: int | None) -> None:
    """Bounds lo, hi (None: not constant) in order, and a slice of width hi - lo (None: not constant)
    that is not empty."""
    if lo is not None and hi is not None and lo > hi:
        raise APIError(
            f"bit slice [{lo}:{hi}]: the lower bound is above the upper one (use .reverse() to reverse bits)"
        )
    if width == 0:
        shown = f"[{lo}:{hi}]" if lo is not None else "[lo:hi] with hi == lo"
        raise APIError(f"bit slice {shown} is empty: hi is exclusive, so x[k:k+1] (or x[k]) is bit k")


def check_slice_range(lo: int | None, hi: int | None, width: int, dtype: DType) -> None:
    """A slice of a constant width within a value of `dtype` (and so are its bounds when constant)."""
    if lo is not None and hi is not None and not 0 <= lo < hi <= dtype.bits:
        raise APIError(f"bit slice [{lo}:{hi}] is out of range for {dtype!r} (hi is exclusive)")
    if not 0 < width <= dtype.bits:
        raise APIError(f"bit slice of width {width} on {dtype!r}: the width must be 1..{dtype.bits}")


def check_bit_index(index: int | None, dtype: DType) -> None:
    """A constant bit index (None: not constant) within a value of `dtype`."""
    if index is not None and not 0 <= index < dtype.bits:
        raise APIError(f"bit {index} is out of range for {dtype!r}")
