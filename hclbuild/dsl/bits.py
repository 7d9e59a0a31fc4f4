"""Bit access of the DSL: x[i], x[lo:hi] with constant or expression bounds, their assignment, bit
reversal, and struct fields (a struct is a packed unsigned integer, see hclbuild.dsl.types).

Slice widths. `x[lo:hi]` is UInt(hi - lo) whenever hi - lo is a constant, which is found by reading
both bounds as linear forms over the same sub-expressions (`x[4*i : 4*i + 4]`, `x[A[0] : A[0] + 3]`
are 4 and 3 bits wide) as HeteroCL's simplifier does. When it is not (`x[0:A[1]]`), the slice keeps
the width of x and its bits from hi upwards are zero.

Out-of-range bit indices. A bit index or slice start at or beyond the width reads 0 and writes
nothing; the builder guards dynamic shifts so LLVM and C++ agree (a shift by the width is poison
in LLVM and undefined in C).
"""

from __future__ import annotations

import numbers
from dataclasses import fields, is_dataclass
from typing import Any

from hclbuild.dsl.expr import (
    Binary,
    BitCast,
    BitReverse,
    Cast,
    Const,
    Expr,
    GetBit,
    GetSlice,
    Load,
    Var,
    as_expr,
    binary,
)
from hclbuild.dsl.types import DType, Index, UInt
from hclbuild.errors import APIError, DTypeError

_INDEX_KINDS = ("int", "uint", "index")
# expressions compared by identity: a call may have effects, a reduction owns its loops
_OPAQUE = frozenset({"Call", "Reduce", "AccRef"})


def _integer(value: Expr, what: str) -> DType:
    dtype = value.dtype
    if not dtype.is_integral_bits:  # fixed point too: its raw bits
        raise APIError(
            f"{what} needs an integer {'tensor' if isinstance(value, Load) else 'expression'}, "
            f"got {dtype!r} (hcl.bitcast it to an integer first)"
        )
    return dtype


def _bound(bound: object, what: str) -> Expr:
    """A slice bound or bit index as an index-typed expression (ints and index values only)."""
    expr = as_expr(bound, Index())
    if expr.dtype.kind not in _INDEX_KINDS:
        raise DTypeError(
            f"{what} must be an integer or index expression, got {expr.dtype!r} "
            "(convert it with hcl.cast(hcl.Index(), expr))"
        )
    return expr


def _const_int(expr: Expr) -> int | None:
    return int(expr.value) if isinstance(expr, Const) and isinstance(expr.value, numbers.Integral) else None


# ---- width of a slice: hi - lo as a constant when both are linear in the same terms -------------


def _key(node: Any) -> Any:
    """A hashable description of an expression: equal keys compute equal values."""
    if isinstance(node, Var) or not is_dataclass(node) or type(node).__name__ in _OPAQUE:
        if isinstance(node, (list, tuple)):
            return tuple(_key(item) for item in node)
        if isinstance(node, (int, float, str, DType)) or node is None:
            return node
        return ("id", id(node))  # tensors, functions, loop variables: by identity
    return (type(node).__name__,) + tuple(_key(getattr(node, f.name)) for f in fields(node))


def _linear(expr: Expr) -> tuple[dict[Any, int], int]:
    """expr as (term -> coefficient, constant), terms being the sub-expressions it adds up."""
    constant = _const_int(expr)
    if constant is not None:
        return {}, constant
    if isinstance(expr, Cast) and expr.dtype.kind in _INDEX_KINDS:
        return _linear(expr.value)
    if isinstance(expr, Binary) and expr.op in ("add", "sub", "mul"):
        (lt, lc), (rt, rc) = _linear(expr.lhs), _linear(expr.rhs)
        if expr.op == "mul":
            if not lt:
                return {k: v * lc for k, v in rt.items()}, lc * rc
            if not rt:
                return {k: v * rc for k, v in lt.items()}, lc * rc
        else:
            sign = 1 if expr.op == "add" else -1
            terms = dict(lt)
            for k, v in rt.items():
                terms[k] = terms.get(k, 0) + sign * v
            return {k: v for k, v in terms.items() if v}, lc + sign * rc
    return {_key(expr): 1}, 0


def constant_distance(lo: Expr, hi: Expr) -> int | None:
    """hi - lo when it does not depend on what the bounds read, else None."""
    (lt, lc), (ht, hc) = _linear(lo), _linear(hi)
    return hc - lc if lt == ht else None


def _slice_bounds(key: slice, dtype: DType) -> tuple[Expr, int | None, Expr | None]:
    """(lo, width, hi-if-the-width-is-not-constant) of x[lo:hi] on a value of `dtype`."""
    if key.step is not None:
        raise APIError("bit slices take no step")
    if key.start is None or key.stop is None:
        raise APIError("bit slices need both bounds: x[lo:hi] (hi exclusive)")
    lo, hi = _bound(key.start, "a bit slice's lower bound"), _bound(key.stop, "a bit slice's upper bound")
    clo, chi = _const_int(lo), _const_int(hi)
    if clo is not None and chi is not None and clo > chi:
        raise APIError(
            f"bit slice [{clo}:{chi}]: the lower bound is above the upper one "
            "(use .reverse() to reverse bits)"
        )
    width = constant_distance(lo, hi)
    if width == 0:
        shown = f"[{clo}:{chi}]" if clo is not None else "[lo:hi] with hi == lo"
        raise APIError(f"bit slice {shown} is empty: hi is exclusive, so x[k:k+1] (or x[k]) is bit k")
    if width is None:
        return lo, None, hi
    if clo is not None and chi is not None and not 0 <= clo < chi <= dtype.bits:
        raise APIError(f"bit slice [{clo}:{chi}] is out of range for {dtype!r} (hi is exclusive)")
    if not 0 < width <= dtype.bits:
        raise APIError(f"bit slice of width {width} on {dtype!r}: the width must be 1..{dtype.bits}")
    return lo, width, None


# ---- reads ---------------------------------------------------------------------------------------


def bit_access(value: Expr, key: object) -> Expr:
    """value[i] (UInt(1)) or value[lo:hi] (see the module docstring for the width)."""
    dtype = _integer(value, "bit access")
    if isinstance(key, slice):
        lo, width, hi = _slice_bounds(key, dtype)
        return GetSlice(value, lo, width, hi)
    if isinstance(key, tuple):
        raise APIError("bit access takes one index: x[i] or x[lo:hi]")
    index = _bound(key, "a bit index")
    constant = _const_int(index)
    if constant is not None and not 0 <= constant < dtype.bits:
        raise APIError(f"bit {constant} is out of range for {dtype!r}")
    return GetBit(value, index)


def reverse_bits(value: Expr) -> Expr:
    """x.reverse(): bit k of the result is bit width-1-k of x."""
    _integer(value, ".reverse()")
    return BitReverse(value)


def bitcast(value: object, dtype: DType) -> Expr:
    """The raw bits of value read as `dtype` (same width; floats, ints, fixed point and structs)."""
    expr = as_expr(value)
    if expr.dtype.is_index or dtype.is_index:
        raise DTypeError("hcl.bitcast: index values have no fixed width; hcl.cast them to an integer first")
    if expr.dtype.bits != dtype.bits:
        raise DTypeError(
            f"hcl.bitcast: {expr.dtype!r} has {expr.dtype.bits} bits, {dtype!r} has {dtype.bits}"
        )
    return BitCast(dtype, expr)


# ---- writes --------------------------------------------------------------------------------------


def store_bits(load: Load, key: object, value: object) -> None:
    """A[i][bit] = v or A[i][lo:hi] = v: read-modify-write of one element's bits."""
    from hclbuild.dsl.stmt import StoreBits
    from hclbuild.dsl.trace import record

    dtype = _integer(load, "bit assignment")
    load.tensor.check_writable("a bit assignment")
    if isinstance(key, slice):
        lo, width, hi = _slice_bounds(key, dtype)
        target = UInt(width if width is not None else dtype.bits)
        record(StoreBits(load.tensor, load.indices, lo, width, hi, as_expr(value, target)))
        return
    index = bit_access(load, key).index
    record(StoreBits(load.tensor, load.indices, index, 1, None, as_expr(value, UInt(1))))


def set_bits_of_temporary(expr: Expr, key: object, value: object) -> None:
    """(B[i] + 1)[0] = v: checked like any bit assignment, then dropped (nothing holds the value)."""
    dtype = _integer(expr, "bit assignment")
    if isinstance(key, slice):
        _slice_bounds(key, dtype)
    else:
        bit_access(expr, key)
    as_expr(value)


# ---- structs -------------------------------------------------------------------------------------


def struct_field(value: Expr, key: str) -> Expr:
    """value.key of a struct value: its bits of that field read as the field's dtype."""
    offset, dtype = value.dtype.field(key)
    return BitCast(dtype, GetSlice(value, Const(offset, Index()), dtype.bits))


def store_struct_field(load: Load, key: str, value: object) -> None:
    """D[x].key = v: the field's bits of element D[x] are set to v converted to the field's dtype."""
    from hclbuild.dsl.stmt import StoreBits
    from hclbuild.dsl.trace import record

    offset, dtype = load.tensor.dtype.field(key)
    load.tensor.check_writable(f"writing field {key!r}")
    raw = BitCast(UInt(dtype.bits), Cast(dtype, as_expr(value, dtype)))
    record(StoreBits(load.tensor, load.indices, Const(offset, Index()), dtype.bits, None, raw))


def pack_struct(values: tuple, stype: DType) -> Expr:
    """(v0, v1, ...) as a struct value: each converted to its field's dtype, field 0 in the low bits."""
    if len(values) != len(stype.fields):
        raise APIError(f"{stype!r} has {len(stype.fields)} fields, got a tuple of {len(values)} values")
    packed: Expr | None = None
    offset = 0
    wide = UInt(stype.bits)
    for value, (_, dtype) in zip(values, stype.fields):
        raw = Cast(wide, BitCast(UInt(dtype.bits), Cast(dtype, as_expr(value, dtype))))
        part = binary("shl", raw, Const(offset, Index())) if offset else raw
        packed = part if packed is None else binary("or", packed, part)
        offset += dtype.bits
    return Cast(stype, packed)
