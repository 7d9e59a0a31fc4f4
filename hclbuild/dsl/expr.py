"""Expression trees of the DSL, with HeteroCL operator semantics and dtype inference.

Nothing here touches MLIR: the builder walks these nodes. Arithmetic computes in the dtype
hclbuild.dsl.promotion gives; comparisons give UInt(1); Python numbers take the type of the other
operand. Everything a Python operator on an expression builds is here, bit access included; what
needs no node is decided below (promotion, type_limits, bit_access_checks, linear_forms):

- `x[i]` is bit i (UInt(1)), `x[lo:hi]` bits lo..hi-1 (hi exclusive), as UInt(hi - lo) whenever
  hi - lo is a constant, which is found by reading both bounds as linear forms over the same
  sub-expressions (`x[4*i : 4*i + 4]`, `x[A[0] : A[0] + 3]` are 4 and 3 bits wide) as HeteroCL's
  simplifier does, reading an element of a compute tensor defined linearly in its axes through that
  definition when that is what makes it constant (`x[A[0] : A[4]]` of `A = hcl.compute((10,),
  lambda i: i)` is 4 bits wide; the schedule then checks that no other stage writes A): see
  hclbuild.dsl.linear_forms, to which each node says its form (Expr._linear_form). When it is not
  (`x[0:A[1]]`), the slice keeps the width of x and its bits from hi upwards are zero. A bit index
  or slice start at or beyond the width reads 0 and writes nothing; the builder guards dynamic
  shifts so LLVM and C++ agree (a shift by the width is poison in LLVM and undefined in C).
- `x.field` of a struct value is its bits of that field (a struct is a packed unsigned integer,
  see hclbuild.dsl.types); `A[i][b] = v` and `D[x].field = v` record a read-modify-write of the
  element's bits.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

from hclbuild.dsl.bit_access_checks import (
    check_bit_index,
    check_integral_bits,
    check_slice_order,
    check_slice_range,
    check_slice_syntax,
)
from hclbuild.dsl.linear_forms import (
    LinearForm,
    combine,
    constant_distance,
    inferred_distance,
    linear_form,
    opaque_term,
    read_through_definition,
)
from hclbuild.dsl.promotion import binary_dtype, literal_type, promote
from hclbuild.dsl.stmt import StoreBits
from hclbuild.dsl.trace import record
from hclbuild.dsl.traced_value import TracedValue
from hclbuild.dsl.type_limits import check_comparison, fixed_versus_number
from hclbuild.dsl.types import DType, Float, Index, Int, Struct, UInt, parse_dtype
from hclbuild.errors import APIError, DTypeError

if TYPE_CHECKING:
    from hclbuild.dsl.tensor import Tensor

_INDEX_KINDS = ("int", "uint", "index")


class Expr(TracedValue):
    """Base of every DSL expression; `dtype` is its DType. Python's conversions (int(), `if x:`)
    are refused (hclbuild.dsl.traced_value): an expression has no value while the kernel is traced."""

    dtype: DType

    # -- what hclbuild.dsl.linear_forms reads for the width of a bit slice --------------
    # (underscored: a struct field never starts with "_", so these hide none of x.field)

    # term_key compares such a node by identity, not by its fields: a loop variable, a call (it may
    # have effects), a reduction (it owns its loops), a reducer's accumulator
    _compared_by_identity: ClassVar[bool] = False

    def _linear_form(self, inlined: list[Any] | None) -> LinearForm:
        """This expression as a linear form (see linear_forms.linear_form): by default one term."""
        return opaque_term(self)

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
        return absolute(self)

    def __pow__(self, other: object) -> Expr:
        return power(self, other)

    def __rpow__(self, other: object) -> Expr:
        return power(other, self)

    # -- comparisons -------------------------------------------------------------
    def __lt__(self, other: object) -> Expr:
        return compare("lt", self, other)

    def __le__(self, other: object) -> Expr:
        return compare("le", self, other)

    def __gt__(self, other: object) -> Expr:
        return compare("gt", self, other)

    def __ge__(self, other: object) -> Expr:
        return compare("ge", self, other)

    # `a == b` in the DSL is an expression (HeteroCL's), not object's bool: [override] on purpose
    def __eq__(self, other: object) -> Expr:  # type: ignore[override]
        return compare("eq", self, other)

    def __ne__(self, other: object) -> Expr:  # type: ignore[override]
        return compare("ne", self, other)

    __hash__ = object.__hash__

    # -- bits and struct fields (see the module docstring) ------------------------------
    def __getitem__(self, key: object) -> Expr:
        """x[i] is bit i, x[lo:hi] the bits lo..hi-1 (hi exclusive; lo, hi may be expressions)."""
        return bit_access(self, key)

    def __setitem__(self, key: object, value: object) -> None:
        """(B[i] + 1)[0] = v sets a bit of a temporary, which nothing reads: HeteroCL keeps B as is."""
        set_bits_of_temporary(self, key, value)

    def reverse(self) -> Expr:
        """The bits of an integer (a slice: of its width) in reverse order."""
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
        try:
            return struct_field(self, key)
        except DTypeError as err:  # hasattr() and getattr(x, k, default) expect AttributeError
            raise AttributeError(str(err)) from None

    def astype(self, dtype: object) -> Expr:
        return Cast(parse_dtype(dtype), self)


# ---- leaves --------------------------------------------------------------------------


@dataclass(eq=False)
class Const(Expr):
    value: int | float | Fraction  # a Fraction: a fixed-point value a float would round
    dtype: DType

    def _linear_form(self, inlined: list[Any] | None) -> LinearForm:
        constant = _const_int(self)
        return ({}, constant) if constant is not None else opaque_term(self)


@dataclass(eq=False)
class Load(Expr):
    tensor: Tensor
    indices: tuple[Expr, ...]

    # read-only, derived from what it reads; Expr declares a plain attribute, so [override]
    @property
    def dtype(self) -> DType:  # type: ignore[override]
        return self.tensor.dtype

    def _linear_form(self, inlined: list[Any] | None) -> LinearForm:
        form = read_through_definition(self, inlined) if inlined is not None else None
        return form if form is not None else opaque_term(self)

    def __setitem__(self, key: object, value: object) -> None:
        """A[i][bit] = v and A[i][lo:hi] = v: read-modify-write of one element's bits."""
        store_bits(self, key, value)

    def __setattr__(self, key: str, value: object) -> None:
        """D[x].fa = v writes one field of a struct element (the dataclass fields are set as usual)."""
        if key in ("tensor", "indices") or "tensor" not in self.__dict__ or not self.tensor.dtype.is_struct:
            object.__setattr__(self, key, value)
            return
        store_struct_field(self, key, value)


# ---- composite -----------------------------------------------------------------------


@dataclass(eq=False)
class Binary(Expr):
    op: str  # add sub mul div floordiv mod and or xor shl shr
    lhs: Expr
    rhs: Expr
    dtype: DType

    def _linear_form(self, inlined: list[Any] | None) -> LinearForm:
        if self.op not in ("add", "sub", "mul"):
            return opaque_term(self)
        # both sides first: what they read through is inlined even when their product is not linear
        lhs, rhs = linear_form(self.lhs, inlined), linear_form(self.rhs, inlined)
        form = combine(self.op, lhs, rhs)
        return form if form is not None else opaque_term(self)


@dataclass(eq=False)
class Compare(Expr):
    op: str  # lt le gt ge eq ne
    lhs: Expr
    rhs: Expr
    operand_dtype: DType
    dtype: DType = field(default_factory=lambda: UInt(1))


@dataclass(eq=False)
class Cast(Expr):
    dtype: DType
    value: Expr

    def _linear_form(self, inlined: list[Any] | None) -> LinearForm:
        # an index or integer conversion keeps an index's value; others (float) are one term
        if self.dtype.kind in _INDEX_KINDS:
            return linear_form(self.value, inlined)
        return opaque_term(self)


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
    # the compute tensors whose definitions gave the width (x[A[0] : A[4]] of A = compute(lambda i: i)),
    # checked when the schedule is made: nothing else may write them
    assumes: tuple[Any, ...] = ()

    # read-only, derived from what it reads; Expr declares a plain attribute, so [override]
    @property
    def dtype(self) -> DType:  # type: ignore[override]
        return UInt(self.width if self.width is not None else self.value.dtype.bits)


@dataclass(eq=False)
class BitReverse(Expr):
    """The bits of an integer in reverse order (same dtype)."""

    value: Expr

    # read-only, derived from what it reads; Expr declares a plain attribute, so [override]
    @property
    def dtype(self) -> DType:  # type: ignore[override]
        return self.value.dtype


@dataclass(eq=False)
class BitCast(Expr):
    """The raw bits of a value read as another dtype of the same width (hcl.bitcast, struct fields)."""

    dtype: DType
    value: Expr


class Operand:
    """What is not an expression but may stand for one: a tensor or a partly indexed one
    (hclbuild.dsl.tensor, which builds on this module). as_expr asks it for its value."""

    def as_value(self) -> Expr:
        """The expression this stands for, or an APIError saying what to index."""
        raise NotImplementedError


# ---- constructors ----------------------------------------------------------------------


def as_expr(value: object, like: DType | None = None) -> Expr:
    """A DSL expression for value: Exprs stay, Python numbers become Const of `like` or a default."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, Operand):
        return value.as_value()
    if isinstance(value, tuple) and isinstance(like, Struct):
        return pack_struct(value, like)
    if isinstance(value, numbers.Real):  # bool and int too
        return Const(*literal_type(value, like))
    raise APIError(f"cannot use {type(value).__name__} {value!r} in a DSL expression")


def _literal(value: object) -> bool:
    return isinstance(value, (numbers.Number, bool)) and not isinstance(value, Expr)


def binary(op: str, lhs: object, rhs: object) -> Expr:
    """lhs <op> rhs with HeteroCL semantics (`/` truncates on ints, `//` floors, `%` is C's)."""
    if _literal(lhs) and _literal(rhs):
        raise APIError("binary() needs at least one DSL expression")
    a = as_expr(lhs, _hint(rhs) if _literal(lhs) else None)
    b = as_expr(rhs, _hint(lhs) if _literal(rhs) else None)
    dtype = binary_dtype(op, a.dtype, b.dtype)
    if op in ("shl", "shr") and _literal(rhs) and a.dtype.is_fixed:
        # a shift amount counts bits: typed like a fixed operand, 3 would be 3.0 in its format
        # (wrapped when 3.0 is out of range) and shift by the converted value
        b = as_expr(rhs, Int(32))
    return Binary(op, a, b, dtype)


def _hint(other: object) -> DType | None:
    if isinstance(other, Expr):
        return other.dtype
    return None


_MIRRORED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


def compare(op: str, lhs: object, rhs: object) -> Expr:
    # an expression beside a Python number, on either side: its type may decide the comparison
    for x, number, x_op in ((lhs, rhs, op), (rhs, lhs, _MIRRORED[op])):
        if isinstance(number, numbers.Real) and _literal(number) and isinstance(x, Expr):
            if not isinstance(x, Const):
                check_comparison(x_op, x.dtype, number)
            if x.dtype.is_fixed:
                return _fixed_versus_literal(x_op, x, number)
    a = as_expr(lhs, _hint(rhs) if _literal(lhs) else None)
    b = as_expr(rhs, _hint(lhs) if _literal(rhs) else None)
    operand = promote(a.dtype, b.dtype, "cmp")
    return Compare(op, a, b, operand)


def _fixed_versus_literal(op: str, x: Expr, value: numbers.Real) -> Expr:
    """x <op> value for a fixed-point x and a Python number, with the number's exact value (see
    type_limits.fixed_versus_number): a constant when that decides it."""
    decision = fixed_versus_number(op, x.dtype.frac, value)
    if isinstance(decision, bool):
        return Const(int(decision), UInt(1))
    b = Const(*literal_type(value, x.dtype))  # the grid point at or below the number
    return Compare(decision, x, b, promote(x.dtype, b.dtype, "cmp"))


def to_bool(value: object) -> Expr:
    """A condition as UInt(1): comparisons stay, other values are compared with zero."""
    expr = as_expr(value)
    if expr.dtype.kind == "uint" and expr.dtype.bits == 1:
        return expr
    return compare("ne", expr, 0)


def expr_list(values: Sequence[object], like: DType | None = None) -> tuple[Expr, ...]:
    return tuple(as_expr(v, like) for v in values)


# ---- intrinsics that Python operators spell: abs(x), x ** y -------------------------


def float_operand(x: object) -> Expr:
    """x as an operand of a floating-point intrinsic: a float stays, an integer becomes float (double above 32 bits)."""
    value = as_expr(x)
    if value.dtype.is_float:
        return value
    return Cast(Float(64) if value.dtype.bits > 32 and not value.dtype.is_index else Float(32), value)


def power(x: object, y: object) -> Expr:
    """hcl.power(x, y): x ** y in floating point; in double when neither is a float (HeteroCL's
    pow_rule), which is exact to 2**53: in float an int32 square above 2**24 was rounded."""
    a, b = as_expr(x), as_expr(y)
    if not (a.dtype.is_float or b.dtype.is_float):
        a, b = Cast(Float(64), a), Cast(Float(64), b)
    a, b = float_operand(a), float_operand(b)
    dt = promote(a.dtype, b.dtype)
    return Intrinsic("power", (a, b), dt)


def absolute(x: object) -> Expr:
    """hcl.abs(x): absolute value, in x's own type."""
    value = as_expr(x)
    if value.dtype.is_index:
        value = Cast(promote(value.dtype, value.dtype), value)
    if not value.dtype.is_float and not value.dtype.is_signed:
        return value
    return Intrinsic("abs", (value,), value.dtype)


# ---- bits and struct fields -------------------------------------------------------------


def _integer(value: Expr, what: str) -> DType:
    check_integral_bits(value.dtype, what, "tensor" if isinstance(value, Load) else "expression")
    return value.dtype


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


def _slice_bounds(
    key: slice, dtype: DType, infer: bool = False
) -> tuple[Expr, int | None, Expr | None, tuple[Any, ...]]:
    """(lo, width, hi-if-the-width-is-not-constant, the compute tensors the width was read through,
    with `infer` only) of x[lo:hi] on a value of `dtype`."""
    check_slice_syntax(key)
    lo, hi = _bound(key.start, "a bit slice's lower bound"), _bound(key.stop, "a bit slice's upper bound")
    clo, chi = _const_int(lo), _const_int(hi)
    width = constant_distance(lo, hi)
    check_slice_order(clo, chi, width)
    assumes: tuple[Any, ...] = ()
    if width is None:
        inferred = inferred_distance(lo, hi) if infer else None
        if inferred is None or not 0 < inferred[0] <= dtype.bits:
            return lo, None, hi, ()
        width, assumes = inferred
    check_slice_range(clo, chi, width, dtype)
    return lo, width, None, assumes


# reads ---------------------------------------------------------------------------------------


def bit_access(value: Expr, key: object) -> Expr:
    """value[i] (UInt(1)) or value[lo:hi] (see the module docstring for the width)."""
    dtype = _integer(value, "bit access")
    if isinstance(key, slice):
        lo, width, hi, assumes = _slice_bounds(key, dtype, infer=True)
        return GetSlice(value, lo, width, hi, assumes)
    if isinstance(key, tuple):
        raise APIError("bit access takes one index: x[i] or x[lo:hi]")
    index = _bound(key, "a bit index")
    check_bit_index(_const_int(index), dtype)
    return GetBit(value, index)


def reverse_bits(value: Expr) -> Expr:
    """x.reverse(): bit k of the result is bit width-1-k of x."""
    _integer(value, ".reverse()")
    return BitReverse(value)


# writes --------------------------------------------------------------------------------------


def store_bits(load: Load, key: object, value: object) -> None:
    """A[i][bit] = v or A[i][lo:hi] = v: read-modify-write of one element's bits."""
    dtype = _integer(load, "bit assignment")
    load.tensor.check_writable("a bit assignment")
    if isinstance(key, slice):
        lo, width, hi, _ = _slice_bounds(key, dtype)
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


# structs -------------------------------------------------------------------------------------


def struct_field(value: Expr, key: str) -> Expr:
    """value.key of a struct value: its bits of that field read as the field's dtype."""
    offset, dtype = _struct(value.dtype).field(key)
    return BitCast(dtype, GetSlice(value, Const(offset, Index()), dtype.bits))


def store_struct_field(load: Load, key: str, value: object) -> None:
    """D[x].key = v: the field's bits of element D[x] are set to v converted to the field's dtype."""
    offset, dtype = _struct(load.tensor.dtype).field(key)
    load.tensor.check_writable(f"writing field {key!r}")
    raw = BitCast(UInt(dtype.bits), Cast(dtype, as_expr(value, dtype)))
    record(StoreBits(load.tensor, load.indices, Const(offset, Index()), dtype.bits, None, raw))


def _struct(dtype: DType) -> Struct:
    if not isinstance(dtype, Struct):
        raise DTypeError(f"{dtype!r} is not a struct: it has no fields")
    return dtype


def pack_struct(values: tuple, stype: Struct) -> Expr:
    """(v0, v1, ...) as a struct value: each converted to its field's dtype, field 0 in the low bits."""
    if len(values) != len(stype.fields):
        raise APIError(f"{stype!r} has {len(stype.fields)} fields, got a tuple of {len(values)} values")
    parts = []
    offset = 0
    wide = UInt(stype.bits)
    for value, (_, dtype) in zip(values, stype.fields):
        raw = Cast(wide, BitCast(UInt(dtype.bits), Cast(dtype, as_expr(value, dtype))))
        parts.append(binary("shl", raw, Const(offset, Index())) if offset else raw)
        offset += dtype.bits
    packed = parts[0]  # a Struct has at least one field
    for part in parts[1:]:
        packed = binary("or", packed, part)
    return Cast(stype, packed)
