"""Expression trees of the DSL, with HeteroCL operator semantics and dtype inference.

Nothing here touches MLIR: the builder walks these nodes. Type rules (documented in the README):
- integers promote like C: the result is at least 32 bits wide, as wide as the widest operand,
  signed when either operand is signed (a mixed pair widens the unsigned side by one bit);
- fixed-point keeps full precision like ap_fixed (add: one more integer bit, mul: widths add);
- any float operand makes the operation float (the wider float);
- comparisons give UInt(1); Python numbers take the type of the other operand.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from hclbuild.dsl.types import MAX_INT_BITS, DType, Fixed, Float, Index, Int, UFixed, UInt
from hclbuild.errors import APIError, DTypeError, HCLNotImplementedError

if TYPE_CHECKING:
    from hclbuild.dsl.tensor import Tensor


class Expr:
    """Base of every DSL expression; `dtype` is its DType."""

    dtype: DType

    # -- arithmetic --------------------------------------------------------------
    def __add__(self, other: object) -> Expr:
        return binary("add", self, other)

    def __radd__(self, other: object) -> Expr:
        return binary("add", other, self)

    def __sub__(self, other: object) -> Expr:
        return binary("sub", self, other)

    def __rsub__(self, other: object) -> Expr:
        return binary("sub", other, self)

    def __mul__(self, other: object) -> Expr:
        return binary("mul", self, other)

    def __rmul__(self, other: object) -> Expr:
        return binary("mul", other, self)

    def __truediv__(self, other: object) -> Expr:
        return binary("div", self, other)

    def __rtruediv__(self, other: object) -> Expr:
        return binary("div", other, self)

    def __floordiv__(self, other: object) -> Expr:
        return binary("floordiv", self, other)

    def __rfloordiv__(self, other: object) -> Expr:
        return binary("floordiv", other, self)

    def __mod__(self, other: object) -> Expr:
        return binary("mod", self, other)

    def __rmod__(self, other: object) -> Expr:
        return binary("mod", other, self)

    def __neg__(self) -> Expr:
        return binary("sub", 0, self)

    def __pos__(self) -> Expr:
        return self

    # -- bitwise -----------------------------------------------------------------
    def __and__(self, other: object) -> Expr:
        return binary("and", self, other)

    def __rand__(self, other: object) -> Expr:
        return binary("and", other, self)

    def __or__(self, other: object) -> Expr:
        return binary("or", self, other)

    def __ror__(self, other: object) -> Expr:
        return binary("or", other, self)

    def __xor__(self, other: object) -> Expr:
        return binary("xor", self, other)

    def __rxor__(self, other: object) -> Expr:
        return binary("xor", other, self)

    def __lshift__(self, other: object) -> Expr:
        return binary("shl", self, other)

    def __rlshift__(self, other: object) -> Expr:
        return binary("shl", other, self)

    def __rshift__(self, other: object) -> Expr:
        return binary("shr", self, other)

    def __rrshift__(self, other: object) -> Expr:
        return binary("shr", other, self)

    def __invert__(self) -> Expr:
        return binary("xor", self, -1)

    def __abs__(self) -> Expr:
        from hclbuild.dsl.operations import abs as hcl_abs

        return hcl_abs(self)

    def __pow__(self, other: object) -> Expr:
        from hclbuild.dsl.operations import power

        return power(self, other)

    def __rpow__(self, other: object) -> Expr:
        from hclbuild.dsl.operations import power

        return power(other, self)

    # -- Python conversions: an expression has no value while the kernel is traced -------------
    def __int__(self) -> int:
        raise APIError(
            "int() of a DSL expression: it has no value while the kernel is traced; "
            "hcl.cast(hcl.Int(32), x) converts it in the kernel"
        )

    def __float__(self) -> float:
        raise APIError(
            "float() of a DSL expression: it has no value while the kernel is traced; "
            "hcl.cast(hcl.Float(), x) converts it in the kernel"
        )

    def __index__(self) -> int:
        raise APIError(
            "a DSL expression used as a Python index or range() bound: it has no value while the "
            "kernel is traced (index a tensor with it, or loop with hcl.for_)"
        )

    def __round__(self, ndigits: object = None) -> Expr:
        raise APIError("round() of a DSL expression is not supported: hcl.cast to an integer type truncates")

    def __divmod__(self, other: object) -> Any:
        raise APIError("divmod() of a DSL expression is not supported: use // and % (two expressions)")

    __rdivmod__ = __divmod__

    # -- comparisons -------------------------------------------------------------
    def __lt__(self, other: object) -> Expr:
        return compare("lt", self, other)

    def __le__(self, other: object) -> Expr:
        return compare("le", self, other)

    def __gt__(self, other: object) -> Expr:
        return compare("gt", self, other)

    def __ge__(self, other: object) -> Expr:
        return compare("ge", self, other)

    def __eq__(self, other: object) -> Expr:  # type: ignore[override]
        return compare("eq", self, other)

    def __ne__(self, other: object) -> Expr:  # type: ignore[override]
        return compare("ne", self, other)

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise APIError(
            "a DSL expression has no Python truth value: use hcl.if_/hcl.select for conditions "
            "and hcl.and_/hcl.or_/hcl.not_ instead of and/or/not"
        )

    # -- bits and struct fields (hclbuild.dsl.bits) ---------------------------------
    def __getitem__(self, key: object) -> Expr:
        """x[i] is bit i, x[lo:hi] the bits lo..hi-1 (hi exclusive; lo, hi may be expressions)."""
        from hclbuild.dsl.bits import bit_access

        return bit_access(self, key)

    def __setitem__(self, key: object, value: object) -> None:
        """(B[i] + 1)[0] = v sets a bit of a temporary, which nothing reads: HeteroCL keeps B as is."""
        from hclbuild.dsl.bits import set_bits_of_temporary

        set_bits_of_temporary(self, key, value)

    def reverse(self) -> Expr:
        """The bits of an integer (a slice: of its width) in reverse order."""
        from hclbuild.dsl.bits import reverse_bits

        return reverse_bits(self)

    def __getattr__(self, key: str) -> Expr:
        """A field of a struct value: D[x].fa (only struct-typed expressions have fields)."""
        if key.startswith("_") or key == "dtype":
            raise AttributeError(key)
        try:
            dtype = self.dtype
        except AttributeError:
            raise AttributeError(key) from None
        if not dtype.is_struct:
            raise AttributeError(f"{type(self).__name__} of type {dtype!r} has no attribute {key!r}")
        from hclbuild.dsl.bits import struct_field

        try:
            return struct_field(self, key)
        except DTypeError as err:  # hasattr() and getattr(x, k, default) expect AttributeError
            raise AttributeError(str(err)) from None

    def astype(self, dtype: object) -> Expr:
        from hclbuild.dsl.types import parse_dtype

        return Cast(parse_dtype(dtype), self)


# ---- leaves --------------------------------------------------------------------------


@dataclass(eq=False)
class Const(Expr):
    value: int | float
    dtype: DType


@dataclass(eq=False)
class Var(Expr):
    """A loop variable (compute axis, reduce axis, for_ variable); dtype Index."""

    name: str
    lo: Any = 0
    hi: Any = None
    kind: str = "loop"  # "loop" | "reduce"
    dtype: DType = field(default_factory=Index)

    @property
    def extent(self) -> int:
        return int(self.hi) - int(self.lo)


@dataclass(eq=False)
class Load(Expr):
    tensor: Tensor
    indices: tuple[Expr, ...]

    @property
    def dtype(self) -> DType:  # type: ignore[override]
        return self.tensor.dtype

    def __setitem__(self, key: object, value: object) -> None:
        """A[i][bit] = v and A[i][lo:hi] = v: read-modify-write of one element's bits."""
        from hclbuild.dsl.bits import store_bits

        store_bits(self, key, value)

    def __setattr__(self, key: str, value: object) -> None:
        """D[x].fa = v writes one field of a struct element (the dataclass fields are set as usual)."""
        if key in ("tensor", "indices") or "tensor" not in self.__dict__ or not self.tensor.dtype.is_struct:
            object.__setattr__(self, key, value)
            return
        from hclbuild.dsl.bits import store_struct_field

        store_struct_field(self, key, value)


# ---- composite -----------------------------------------------------------------------


@dataclass(eq=False)
class Binary(Expr):
    op: str  # add sub mul div floordiv mod and or xor shl shr
    lhs: Expr
    rhs: Expr
    dtype: DType


@dataclass(eq=False)
class Compare(Expr):
    op: str  # lt le gt ge eq ne
    lhs: Expr
    rhs: Expr
    operand_dtype: DType
    dtype: DType = field(default_factory=lambda: UInt(1))


@dataclass(eq=False)
class Logical(Expr):
    op: str  # and or not
    args: tuple[Expr, ...]
    dtype: DType = field(default_factory=lambda: UInt(1))


@dataclass(eq=False)
class Cast(Expr):
    dtype: DType
    value: Expr


@dataclass(eq=False)
class Select(Expr):
    cond: Expr
    true_value: Expr
    false_value: Expr
    dtype: DType


@dataclass(eq=False)
class Intrinsic(Expr):
    name: str  # exp log log2 log10 sqrt sin cos tanh power abs
    args: tuple[Expr, ...]
    dtype: DType


@dataclass(eq=False)
class GetBit(Expr):
    """Bit `index` of an integer (0 when the index is out of range)."""

    value: Expr
    index: Expr
    dtype: DType = field(default_factory=lambda: UInt(1))


@dataclass(eq=False)
class GetSlice(Expr):
    """Bits lo .. lo+width-1 of an integer as UInt(width); with a `hi` whose distance from lo is not
    known when tracing (width None), bits lo .. hi-1 masked in an unsigned integer of the value's width."""

    value: Expr
    lo: Expr
    width: int | None
    hi: Expr | None = None

    @property
    def dtype(self) -> DType:  # type: ignore[override]
        return UInt(self.width if self.width is not None else self.value.dtype.bits)


@dataclass(eq=False)
class BitReverse(Expr):
    """The bits of an integer in reverse order (same dtype)."""

    value: Expr

    @property
    def dtype(self) -> DType:  # type: ignore[override]
        return self.value.dtype


@dataclass(eq=False)
class BitCast(Expr):
    """The raw bits of a value read as another dtype of the same width (hcl.bitcast, struct fields)."""

    dtype: DType
    value: Expr


@dataclass(eq=False)
class Reduce(Expr):
    """sum/max/min/reducer over reduce axes; the builder makes the accumulator and loops."""

    kind: str  # "sum" | "max" | "min" | "custom"
    init: Expr
    value: Expr
    axes: tuple[Var, ...]
    where: Expr | None
    dtype: DType
    name: str
    combine: Any = None  # custom: Python function (acc_expr, value_expr) -> Expr


@dataclass(eq=False)
class Call(Expr):
    """A call of a def_ function that returns a value."""

    function: Any  # hclbuild.dsl.functions.TracedFunction
    args: tuple[Any, ...]  # Tensor or Expr, already converted to the parameter types
    dtype: DType


@dataclass(eq=False)
class AccRef(Expr):
    """The running accumulator inside a custom reducer (builder-internal)."""

    dtype: DType


@dataclass(eq=False)
class ImperativeValue(Expr):
    """The value of imperative code: run `body` (statements); its hcl.return_ gives the value, and
    `default` when no return_ runs (a reducer whose function uses hcl.if_ / hcl.return_)."""

    body: list  # statements (hclbuild.dsl.stmt)
    default: Expr
    dtype: DType


# ---- constructors and type rules ------------------------------------------------------


def as_expr(value: object, like: DType | None = None) -> Expr:
    """A DSL expression for value: Exprs stay, Python numbers become Const of `like` or a default."""
    if isinstance(value, Expr):
        return value
    from hclbuild.dsl.tensor import Tensor, TensorSlice

    if isinstance(value, Tensor):
        if value.is_scalar:
            return value.v
        raise APIError(f"tensor {value.name!r} used as a value: index it, e.g. {value.name}[i]")
    if isinstance(value, TensorSlice):
        value._value()  # raises, naming the tensor and the indices it lacks
    if isinstance(value, tuple) and like is not None and like.is_struct:
        from hclbuild.dsl.bits import pack_struct

        return pack_struct(value, like)
    if isinstance(value, bool):
        return Const(int(value), like if like is not None else UInt(1))
    if isinstance(value, numbers.Integral):
        if like is None:
            like = Int(32) if -(2**31) <= int(value) < 2**31 else Int(64)
        if like.is_float:
            return Const(float(value), like)
        if like.is_fixed:
            return _fixed_literal(value, like)
        if like.is_index:
            return Const(int(value), like)
        # a literal never wraps at the other operand's width: x + 300 on a UInt(8) is 300
        wide = promote(like, like)
        lo, hi = (-(1 << (wide.bits - 1)), 1 << (wide.bits - 1)) if wide.is_signed else (0, 1 << wide.bits)
        if not lo <= int(value) < hi:
            wide = Int(64) if -(2**63) <= int(value) < 2**63 else Int(_literal_bits(int(value)))
        return Const(int(value), wide)
    if isinstance(value, numbers.Real):
        if like is not None and like.is_fixed:
            return _fixed_literal(value, like)
        if like is None or not like.is_float:
            like = Float(64) if like is not None and like.is_int and like.bits > 32 else Float(32)
        return Const(float(value), like)
    raise APIError(f"cannot use {type(value).__name__} {value!r} in a DSL expression")


def _fixed_literal(value: numbers.Real, like: DType) -> Const:
    """A literal beside a fixed-point operand: its fraction bits, and integer bits enough that the
    value does not wrap (x * 2 on a Fixed(13, 11) doubles x; in the operand's own format 2 had
    been -2), as an int or double converted by ap_fixed keeps its value."""
    if not math.isfinite(float(value)):
        return Const(float(value), like)
    raw = math.floor(Fraction(value) * 2**like.frac)
    signed = like.is_signed or raw < 0
    needed = ((raw if raw >= 0 else ~raw).bit_length() + 1) if signed else raw.bit_length()
    bits = _cap(max(like.bits + (1 if signed and not like.is_signed else 0), needed), f"the literal {value}")
    return Const(float(value), Fixed(bits, like.frac) if signed else UFixed(bits, like.frac))


def _literal_bits(value: int) -> int:
    """Signed width of a literal beyond 64 bits: 128, else just wide enough."""
    bits = (value if value >= 0 else ~value).bit_length() + 1
    return _cap(max(bits, 128), f"the literal {value}")


def _literal(value: object) -> bool:
    return isinstance(value, (numbers.Number, bool)) and not isinstance(value, Expr)


def _cap(bits: int, what: str) -> int:
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
        fa, fb = _as_fixed(a), _as_fixed(b)
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
        width = _cap(ibits + frac, "fixed-point " + op)
        return Fixed(width, frac) if signed else UFixed(width, frac)
    # integers: C-like promotion to at least 32 bits
    if a.is_signed == b.is_signed:
        bits = max(a.bits, b.bits, 32)
        return Int(bits) if a.is_signed else UInt(bits)
    signed_bits = a.bits if a.is_signed else b.bits
    unsigned_bits = b.bits if a.is_signed else a.bits
    return Int(_cap(max(signed_bits, unsigned_bits + 1, 32), "mixed signed/unsigned " + op))


def _as_fixed(t: DType) -> DType:
    """An integer as the fixed-point type with no fraction bits."""
    return t if t.is_fixed else DType("fixed" if t.is_signed else "ufixed", t.bits, 0)


def binary(op: str, lhs: object, rhs: object) -> Expr:
    """lhs <op> rhs with HeteroCL semantics (`/` truncates on ints, `//` floors, `%` is C's)."""
    if _literal(lhs) and _literal(rhs):
        raise APIError("binary() needs at least one DSL expression")
    a = as_expr(lhs, _hint(rhs) if _literal(lhs) else None)
    b = as_expr(rhs, _hint(lhs) if _literal(rhs) else None)
    if op in ("and", "or", "xor", "shl", "shr") and (a.dtype.is_float or b.dtype.is_float):
        raise DTypeError(f"bitwise '{op}' needs integer operands, got {a.dtype!r} and {b.dtype!r}")
    if op in ("shl", "shr"):
        if _literal(rhs) and a.dtype.is_fixed:
            # a shift amount counts bits: typed like a fixed operand, 3 would be 3.0 in its format
            # (wrapped when 3.0 is out of range) and shift by the converted value
            b = as_expr(rhs, Int(32))
        base = a.dtype
        if base.is_index:
            dtype = Index()
        elif base.is_fixed:
            dtype = base
        else:
            dtype = promote(base, base)
        return Binary(op, a, b, dtype)
    if op in ("and", "or", "xor") and (a.dtype.is_fixed or b.dtype.is_fixed):
        raise HCLNotImplementedError(f"bitwise '{op}' on fixed-point values (cast to an integer first)")
    fixed = (a.dtype.is_fixed or b.dtype.is_fixed) and not (a.dtype.is_float or b.dtype.is_float)
    if op in ("floordiv", "mod") and fixed:
        raise HCLNotImplementedError(f"'{op}' on fixed-point values (cast to float or integer first)")
    return Binary(op, a, b, promote(a.dtype, b.dtype, op))


def _hint(other: object) -> DType | None:
    if isinstance(other, Expr):
        return other.dtype
    return None


_MIRRORED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


def compare(op: str, lhs: object, rhs: object) -> Expr:
    if _literal(rhs) and isinstance(lhs, Expr) and lhs.dtype.is_fixed:
        return _fixed_versus_literal(op, lhs, rhs)
    if _literal(lhs) and isinstance(rhs, Expr) and rhs.dtype.is_fixed:
        return _fixed_versus_literal(_MIRRORED[op], rhs, lhs)
    a = as_expr(lhs, _hint(rhs) if _literal(lhs) else None)
    b = as_expr(rhs, _hint(lhs) if _literal(rhs) else None)
    operand = promote(a.dtype, b.dtype, "cmp")
    return Compare(op, a, b, operand)


def _fixed_versus_literal(op: str, x: Expr, value: object) -> Expr:
    """x <op> value for a fixed-point x and a Python number, as ap_fixed compares with a double
    (x.to_double() <op> d): with the number's exact value. Rounded down to x's fraction bits first,
    0.3 had been 76/256 on a Fixed(16, 8), so x >= 0.3 and x == 0.3 held for x = 0.296875.

    x is a multiple of 2**-frac: beside a number off that grid, >= is > and < is <= of the grid
    point below it, == never holds and != always does."""
    number = float(value)  # type: ignore[arg-type] - _literal: a Python number
    if math.isnan(number):
        return Const(int(op == "ne"), UInt(1))
    if math.isinf(number):
        above = number > 0  # every finite x is below +inf and above -inf
        holds = {"lt": above, "le": above, "gt": not above, "ge": not above, "eq": False, "ne": True}
        return Const(int(holds[op]), UInt(1))
    scaled = Fraction(value) * 2**x.dtype.frac  # type: ignore[arg-type]
    if scaled.denominator != 1:
        if op in ("eq", "ne"):
            return Const(int(op == "ne"), UInt(1))
        op = {"ge": "gt", "lt": "le"}.get(op, op)
    b = _fixed_literal(value, x.dtype)  # type: ignore[arg-type] - the grid point at or below it
    return Compare(op, x, b, promote(x.dtype, b.dtype, "cmp"))


def to_bool(value: object) -> Expr:
    """A condition as UInt(1): comparisons stay, other values are compared with zero."""
    expr = as_expr(value)
    if expr.dtype.kind == "uint" and expr.dtype.bits == 1:
        return expr
    return compare("ne", expr, 0)


def expr_list(values: Sequence[object], like: DType | None = None) -> tuple[Expr, ...]:
    return tuple(as_expr(v, like) for v in values)
