"""C types and names for the HLS emitter: C parameters and signatures, the C type of an SSA value,
literals that keep their value and sign, and identifiers that are legal and unique.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from mlir import ir

from hclbuild.c_names import CPP_RESERVED, sanitize, unique
from hclbuild.compiler.hls_types import ap_family, c_type
from hclbuild.dsl.types import DType, Float, Index, Int, UInt, parse_dtype
from hclbuild.errors import CompileError, DTypeError

_STANDARD_WIDTHS = (8, 16, 32, 64)
_INDEX_C_TYPE = "int"


# ---- C signatures ----------------------------------------------------------------------------


@dataclass(frozen=True)
class CArg:
    """One C++ parameter: a C array of the memref's shape or a scalar passed by value."""

    name: str
    c_type: str
    dtype: str
    shape: tuple[int, ...]
    is_array: bool
    stream: str = ""  # "read" | "write": an hls::stream of the array's elements, in FIFO order
    # the argument's name in the IR (the user's) when C needs another (`int` -> int_1); not part of the C signature
    source: str = field(default="", compare=False)

    def declaration(self) -> str:
        """`float A[16][22]`, `int32_t x` or `hls::stream<int32_t> &B`."""
        if self.stream:
            return f"hls::stream<{self.c_type}> &{self.name}"
        dims = "".join(f"[{dim}]" for dim in self.shape) if self.is_array else ""
        return f"{self.c_type} {self.name}{dims}"


@dataclass(frozen=True)
class CSignature:
    """The C++ signature of one func.func, from its IR attributes (never from printed C++)."""

    name: str
    args: list[CArg]
    ret_c_type: str | None
    ret_dtype: str | None = None

    def prototype(self) -> str:
        """`void top(float A[16][22], int32_t x)` (no semicolon)."""
        params = ", ".join(arg.declaration() for arg in self.args)
        return f"{self.ret_c_type or 'void'} {self.name}({params})"


# ---- names -----------------------------------------------------------------------------------


class Names:
    """Scoped C names: unique among the names visible where they are declared."""

    def __init__(self, reserved: set[str]):
        self._reserved = set(reserved)
        self._scopes: list[set[str]] = [set()]

    def taken(self, name: str) -> bool:
        return name in self._reserved or name in CPP_RESERVED or any(name in scope for scope in self._scopes)

    def fresh(self, base: str) -> str:
        name = unique(sanitize(base), self.taken)
        self._scopes[-1].add(name)
        return name

    def push(self) -> None:
        self._scopes.append(set())

    def pop(self) -> None:
        self._scopes.pop()


# ---- C types and literals -----------------------------------------------------------------------


@dataclass(frozen=True)
class CType:
    """The C type of one SSA value: an integer of `bits` with a signedness, `index`, or a float."""

    kind: str  # "int" | "index" | "float"
    bits: int
    signed: bool = True

    @property
    def is_bool(self) -> bool:
        return self.kind == "int" and self.bits == 1

    @property
    def is_ap(self) -> bool:
        return self.kind == "int" and self.bits not in _STANDARD_WIDTHS and self.bits != 1

    @property
    def is_native_int(self) -> bool:
        return self.kind == "int" and self.bits in _STANDARD_WIDTHS

    @property
    def spelling(self) -> str:
        if self.kind == "float":
            return "float" if self.bits == 32 else "double"
        if self.kind == "index":
            return _INDEX_C_TYPE
        if self.bits == 1:
            return "bool"
        if self.bits in _STANDARD_WIDTHS:
            return f"{'' if self.signed else 'u'}int{self.bits}_t"
        return f"ap_{'' if self.signed else 'u'}int<{self.bits}>"

    def with_sign(self, signed: bool) -> CType:
        return CType(self.kind, self.bits, signed)


BOOL = CType("int", 1, False)
INDEX = CType("index", 64)


@dataclass
class CppUses:
    """What emitted C++ spells that needs a header or a macro: ap types (and the widest), hls::stream,
    std::printf. The emitter records it as it writes each construct (never by reading the text back);
    file assembly turns it into the includes."""

    ap_int: bool = False
    ap_fixed: bool = False
    widest_ap: int = 0
    stream: bool = False
    printf: bool = False

    def spell(self, ctype: CType) -> str:
        """`ctype` as written in C++, recorded."""
        if ctype.is_ap:
            self.ap_int_of(ctype.bits)
        return ctype.spelling

    def c_type(self, dtype: DType | str) -> str:
        """The C++ type of a dtype's element (hls_types.c_type), recorded."""
        family = ap_family(dtype)
        if family == "int":
            self.ap_int_of(parse_dtype(dtype).bits)
        elif family == "fixed":
            self.ap_fixed = True
            self.widest_ap = max(self.widest_ap, parse_dtype(dtype).bits)
        return c_type(dtype)

    def ap_int_of(self, bits: int) -> None:
        """An ap_int<bits> / ap_uint<bits> was written."""
        self.ap_int = True
        self.widest_ap = max(self.widest_ap, bits)

    def argument(self, arg: CArg) -> str:
        """A parameter's declaration (CArg.declaration), recorded."""
        self.c_type(arg.dtype)
        self.stream |= bool(arg.stream)
        return arg.declaration()

    def prototype(self, signature: CSignature) -> str:
        """A function's prototype (CSignature.prototype), recorded."""
        for arg in signature.args:
            self.argument(arg)
        if signature.ret_dtype is not None:
            self.c_type(signature.ret_dtype)
        return signature.prototype()

    def merge(self, other: CppUses) -> None:
        self.ap_int |= other.ap_int
        self.ap_fixed |= other.ap_fixed
        self.widest_ap = max(self.widest_ap, other.widest_ap)
        self.stream |= other.stream
        self.printf |= other.printf


def ctype_of(mlir_type: ir.Type, signed: bool = True) -> CType:
    if isinstance(mlir_type, ir.IntegerType):
        return CType("int", mlir_type.width, signed and mlir_type.width != 1)
    if isinstance(mlir_type, ir.IndexType):
        return INDEX
    if isinstance(mlir_type, ir.F32Type):
        return CType("float", 32)
    if isinstance(mlir_type, ir.F64Type):
        return CType("float", 64)
    raise CompileError(f"the HLS emitter does not support the type {mlir_type}")


def c_int(value: int) -> str:
    """A C++ integer literal of `value` (which fits 64 bits) that keeps its value and sign."""
    if value == -(2**31):
        return "(-2147483647 - 1)"
    if -(2**31) < value < 2**31:
        return str(value)
    if 0 <= value < 2**32:
        return f"{value}U"
    if value == -(2**63):
        return "(-9223372036854775807LL - 1)"
    if -(2**63) < value < 2**63:
        return f"{value}LL"
    return f"{value}ULL"


def float_literal(value: float, bits: int) -> str:
    if math.isnan(value):
        return "NAN" if bits == 32 else "(double)NAN"
    if math.isinf(value):
        text = "INFINITY" if bits == 32 else "(double)INFINITY"
        return text if value > 0 else f"-{text}"
    # repr is the shortest text that reads back to the same double; an f32 value is one
    text = repr(value)
    return f"{text}f" if bits == 32 else text


def wide_literal(value: int, bits: int, uses: CppUses) -> str:
    """An ap_uint<bits> expression of a constant wider than 64 bits, from its nonzero 64-bit words."""
    uses.ap_int_of(bits)
    raw = value & ((1 << bits) - 1)
    words = [(k, (raw >> (64 * k)) & (2**64 - 1)) for k in range(-(-bits // 64))]
    parts = [
        f"((ap_uint<{bits}>){word:#x}ULL << {64 * k})" if k else f"(ap_uint<{bits}>){word:#x}ULL"
        for k, word in words
        if word or k == 0
    ]
    return "(" + " | ".join(parts) + ")"


def integer_attr_value(attr: ir.Attribute, bits: int) -> int:
    """The value of an integer attribute as a signed Python int (works beyond 64 bits)."""
    if isinstance(attr, ir.BoolAttr):
        return -int(attr.value)
    if bits <= 64:
        value = ir.IntegerAttr(attr).value
    else:
        # IntegerAttr.value aborts beyond 64 bits; the printed attribute is exact
        value = int(str(attr).split(":")[0].strip())
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def const_view(value: int, ctype: CType, signed: bool | None, uses: CppUses) -> str:
    """The literal of an integer constant seen signed/unsigned at its width."""
    if ctype.kind == "index":
        # index is a C int: its unsigned view is 32 bits wide
        return c_int(value & 0xFFFFFFFF if signed is False else value)
    bits = ctype.bits
    raw = value & ((1 << bits) - 1)
    if bits == 1:
        if signed:
            return "-1" if raw else "0"
        return "true" if raw else "false"
    if signed is False:
        number = raw
    else:
        number = raw - (1 << bits) if raw >> (bits - 1) else raw
    if -(2**63) <= number < 2**64:
        return c_int(number)
    # an unsigned view beyond 64 bits: convert the (64-bit) signed literal, ap types sign-extend it
    return f"({uses.spell(ctype.with_sign(False))}){c_int(raw - (1 << bits))}"


# ---- dtypes and array shapes -----------------------------------------------------------------


def parse_dtype_at(name: str, where: str) -> DType:
    try:
        return parse_dtype(name)
    except DTypeError as err:
        raise CompileError(f"{where}: {err}") from None


def check_element(dtype: DType, mlir_type: ir.Type, where: str) -> None:
    """The dtype name must describe the IR element type (same kind and width)."""
    if isinstance(mlir_type, ir.IntegerType):
        ok = dtype.is_integral_bits and dtype.bits == mlir_type.width
    elif isinstance(mlir_type, (ir.F32Type, ir.F64Type)):
        ok = dtype.is_float and dtype.bits == (32 if isinstance(mlir_type, ir.F32Type) else 64)
    elif isinstance(mlir_type, ir.IndexType):
        ok = dtype.is_index or (dtype.is_int and dtype.bits == 64)
    else:
        ok = False
    if not ok:
        raise CompileError(f"{where}: dtype {dtype.name} does not describe the IR type {mlir_type}")


def memref_shape(mlir_type: ir.MemRefType, where: str) -> tuple[int, ...]:
    """The C array shape of a memref (rank 0 becomes [1]); dynamic or strided memrefs are refused."""
    affine_map = mlir_type.affine_map
    if affine_map != ir.AffineMap.get_identity(affine_map.n_dims, context=mlir_type.context):
        raise CompileError(f"{where}: memref layout {mlir_type.layout} has no C array equivalent")
    if any(dim < 0 for dim in mlir_type.shape):
        raise CompileError(f"{where}: dynamic memref shape {mlir_type} has no C array equivalent")
    return tuple(mlir_type.shape) or (1,)


def default_dtype(element: ir.Type, where: str) -> DType:
    """The dtype of an alloc without hcl.dtype: signed ints, floats, index."""
    if isinstance(element, ir.IntegerType):
        return UInt(1) if element.width == 1 else Int(element.width)
    if isinstance(element, ir.F32Type):
        return Float(32)
    if isinstance(element, ir.F64Type):
        return Float(64)
    if isinstance(element, ir.IndexType):
        return Index()
    raise CompileError(f"{where}: unsupported element type {element}")
