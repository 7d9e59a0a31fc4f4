"""Data types of the DSL: Int, UInt, Fixed, UFixed, Float, Index, Struct (HeteroCL names and strings).

A DType is an immutable value. Its `name` ("int32", "uint4", "fixed16_8", "float32") is the
string carried in the IR (`hcl.arg_types`, `hcl.dtype`) and in golden-vector manifests, so every
layer (builder, emitter, runtime, testbench) agrees on one spelling. `parse_dtype` reads it back.

Storage: in MLIR an Int/UInt/Fixed/UFixed of width w is the signless integer `iw`; the raw bits of a
fixed-point value are its value times 2**frac. In host memory (numpy, golden files, LLVM buffers) an
element takes a container of `storage_bits` (8, 16, 32 or 64 bits, else a multiple of 128: the
allocation size LLVM gives an `iN` on x86-64) holding the raw bits in its low w bits, little-endian
64-bit words, zero-extended when written; readers mask and sign-extend themselves.

A Struct is a packed unsigned integer of the summed field widths, first field in the low bits (as
HeteroCL packs it): every layer below the DSL sees that UInt, so the IR names it `uint<bits>`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from hclbuild.errors import DTypeError

MAX_INT_BITS = 2047  # HeteroCL's limit (ap_int needs AP_INT_MAX_W beyond 1024)
MAX_FRAC_BITS = 255  # HeteroCL's limit on fraction bits


@dataclass(frozen=True)
class DType:
    """One data type; construct it with Int/UInt/Fixed/UFixed/Float or parse_dtype."""

    kind: str  # "int" | "uint" | "fixed" | "ufixed" | "float" | "index"
    bits: int
    frac: int = 0

    # ---- classification -------------------------------------------------
    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_fixed(self) -> bool:
        return self.kind in ("fixed", "ufixed")

    @property
    def is_int(self) -> bool:
        """Int or UInt (not fixed, not index)."""
        return self.kind in ("int", "uint")

    @property
    def is_index(self) -> bool:
        return self.kind == "index"

    @property
    def is_integral_bits(self) -> bool:
        """Represented as an MLIR integer (ints and fixed-point)."""
        return self.kind in ("int", "uint", "fixed", "ufixed")

    @property
    def is_signed(self) -> bool:
        return self.kind in ("int", "fixed", "float", "index")

    @property
    def int_bits(self) -> int:
        """Integer bits of a fixed type including the sign bit (ap_fixed's I)."""
        return self.bits - self.frac

    @property
    def fracs(self) -> int:
        """HeteroCL's name: fraction bits of a fixed type, mantissa bits of a float (23, 52)."""
        if self.kind == "float":
            return {16: 10, 32: 23, 64: 52}[self.bits]
        return self.frac

    @property
    def exponent(self) -> int:
        """HeteroCL's name: exponent bits of a float (8, 11); only floats have one."""
        if self.kind != "float":
            raise AttributeError(f"{self!r} has no exponent (only floats do)")
        return {16: 5, 32: 8, 64: 11}[self.bits]

    @property
    def is_struct(self) -> bool:
        return False

    # ---- spellings ------------------------------------------------------
    @property
    def name(self) -> str:
        if self.kind in ("fixed", "ufixed"):
            return f"{self.kind}{self.bits}_{self.frac}"
        if self.kind == "index":
            return "index"
        return f"{self.kind}{self.bits}"

    @property
    def mlir(self) -> str:
        """The MLIR type as text (i12, f32, index)."""
        if self.kind == "float":
            return {16: "f16", 32: "f32", 64: "f64"}[self.bits]
        if self.kind == "index":
            return "index"
        return f"i{self.bits}"

    @property
    def storage_bits(self) -> int:
        """Container width of one element in memory, in bits: 8/16/32/64, else a multiple of 128."""
        if self.kind == "float" or self.kind == "index":
            return 64 if self.kind == "index" else self.bits
        for width in (8, 16, 32, 64):
            if self.bits <= width:
                return width
        return -(-self.bits // 128) * 128

    @property
    def words(self) -> int:
        """64-bit words of a container of 128 bits or more (0 for smaller containers)."""
        return self.storage_bits // 64 if self.storage_bits >= 128 else 0

    @property
    def np_storage(self) -> np.dtype:
        """The numpy dtype of the in-memory container (raw bits for int/fixed)."""
        if self.kind == "float":
            return np.dtype({16: np.float16, 32: np.float32, 64: np.float64}[self.bits])
        if self.kind == "index":
            return np.dtype(np.int64)
        width = self.storage_bits
        if width >= 128:
            return np.dtype((np.void, width // 8))
        signed = self.kind in ("int", "fixed")
        return np.dtype(f"{'i' if signed else 'u'}{width // 8}")

    def __repr__(self) -> str:
        if self.kind == "int":
            return f"Int({self.bits})"
        if self.kind == "uint":
            return f"UInt({self.bits})"
        if self.kind == "fixed":
            return f"Fixed({self.bits}, {self.frac})"
        if self.kind == "ufixed":
            return f"UFixed({self.bits}, {self.frac})"
        if self.kind == "float":
            return f"Float({self.bits})"
        return "Index()"

    __str__ = __repr__

    # ---- value ranges -----------------------------------------------------
    def wrap_int(self, value: int) -> int:
        """Wrap a Python int to this integer type's raw-bit range (two's complement)."""
        mask = (1 << self.bits) - 1
        value &= mask
        if self.is_signed and value >> (self.bits - 1):
            value -= 1 << self.bits
        return value


def _check_bits(bits: object, lo: int, hi: int, what: str) -> int:
    if not isinstance(bits, (int, np.integer)) or isinstance(bits, bool):
        raise DTypeError(f"{what}: bit width must be an integer, got {bits!r}")
    bits = int(bits)
    if not lo <= bits <= hi:
        raise DTypeError(f"{what}: bit width {bits} is out of range [{lo}, {hi}]")
    return bits


def Int(bits: int = 32) -> DType:
    """Signed integer of `bits` bits (1..2047), wrapping like ap_int."""
    return DType("int", _check_bits(bits, 1, MAX_INT_BITS, "Int"))


def UInt(bits: int = 32) -> DType:
    """Unsigned integer of `bits` bits (1..2047), wrapping like ap_uint."""
    return DType("uint", _check_bits(bits, 1, MAX_INT_BITS, "UInt"))


def Fixed(bits: int = 32, fracs: int = 0) -> DType:
    """Signed fixed point ap_fixed<bits, bits-fracs> (truncation, wrap-around)."""
    bits = _check_bits(bits, 2, MAX_INT_BITS, "Fixed")
    fracs = _check_bits(fracs, 0, min(bits, MAX_FRAC_BITS), "Fixed fraction")
    return DType("fixed", bits, fracs)


def UFixed(bits: int = 32, fracs: int = 0) -> DType:
    """Unsigned fixed point ap_ufixed<bits, bits-fracs> (truncation, wrap-around)."""
    bits = _check_bits(bits, 1, MAX_INT_BITS, "UFixed")
    fracs = _check_bits(fracs, 0, min(bits, MAX_FRAC_BITS), "UFixed fraction")
    return DType("ufixed", bits, fracs)


def Float(bits: int = 32) -> DType:
    """IEEE float of 32 or 64 bits."""
    if bits not in (32, 64):
        raise DTypeError(f"Float({bits}): only Float(32) and Float(64) are supported")
    return DType("float", bits)


def Index() -> DType:
    """Loop-variable type (MLIR index)."""
    return DType("index", 64)


# names a struct field cannot take: attributes of the expressions that carry struct values
# (D[x].value would read the expression, not the field); `stype["bits"]` reads a field that shares
# its name with a DType attribute
_RESERVED_FIELDS = frozenset(
    {
        "dtype",
        "tensor",
        "indices",
        "value",
        "cond",
        "true_value",
        "false_value",
        "function",
        "args",
        "param",
        "op",
        "lhs",
        "rhs",
        "astype",
        "reverse",
    }
)


@dataclass(frozen=True, init=False, repr=False)
class Struct(DType):
    """hcl.Struct({"fa": Int(8), "fb": "fixed13_11", ...}): named fields packed into one unsigned
    integer, the first field in the low bits. `stype.fa` and `stype["fa"]` are the field dtypes."""

    fields: tuple[tuple[str, DType], ...] = ()

    def __init__(self, dtype_dict: object):
        if isinstance(dtype_dict, Struct):
            items = list(dtype_dict.fields)
        elif isinstance(dtype_dict, dict):
            items = list(dtype_dict.items())
        else:
            raise DTypeError(
                f"Struct: expected a dict of field names to dtypes, got {type(dtype_dict).__name__}"
            )
        if not items:
            raise DTypeError("Struct: a struct needs at least one field")
        fields = []
        for key, spec in items:
            usable = isinstance(key, str) and key.isidentifier() and not key.startswith("_")
            if not usable or key in _RESERVED_FIELDS:
                raise DTypeError(
                    f"Struct: field name {key!r} must be an identifier that is not one of "
                    f"{', '.join(sorted(_RESERVED_FIELDS))} and does not start with '_'"
                )
            dtype = parse_dtype(spec)
            if dtype.is_index:
                raise DTypeError(f"Struct: field {key!r} cannot be an index")
            fields.append((key, dtype))
        bits = sum(dtype.bits for _, dtype in fields)
        if bits > MAX_INT_BITS:
            raise DTypeError(f"Struct: the fields take {bits} bits, more than {MAX_INT_BITS}")
        object.__setattr__(self, "kind", "uint")
        object.__setattr__(self, "bits", bits)
        object.__setattr__(self, "frac", 0)
        object.__setattr__(self, "fields", tuple(fields))

    @property
    def is_struct(self) -> bool:
        return True

    @property
    def dtype_dict(self) -> dict[str, DType]:
        """HeteroCL's spelling: field name -> dtype, in order."""
        return dict(self.fields)

    def field(self, key: str) -> tuple[int, DType]:
        """(bit offset, dtype) of one field; DTypeError naming the fields when there is none."""
        offset = 0
        for name, dtype in self.fields:
            if name == key:
                return offset, dtype
            offset += dtype.bits
        raise DTypeError(
            f"{key!r} is not a field of {self!r} (fields: {', '.join(n for n, _ in self.fields)})"
        )

    def __getattr__(self, key: str) -> DType:
        if key.startswith("_") or key == "fields":
            raise AttributeError(key)
        try:
            return self.field(key)[1]
        except DTypeError as err:
            raise AttributeError(str(err)) from None

    def __getitem__(self, key: str) -> DType:
        return self.field(key)[1]

    def __repr__(self) -> str:
        return "Struct({" + ", ".join(f"{n!r}: {d!r}" for n, d in self.fields) + "})"

    __str__ = __repr__


def get_bitwidth(dtype: object) -> int:
    """hcl.get_bitwidth(dtype): total bits of a dtype (or dtype string)."""
    return parse_dtype(dtype).bits


def get_fractional_bitwidth(dtype: object) -> int:
    """hcl.get_fractional_bitwidth(dtype): fraction bits (HeteroCL's `fracs`)."""
    return parse_dtype(dtype).fracs


_DTYPE_RE = re.compile(r"^(int|uint|float|fixed|ufixed)(\d+)?(?:_(\d+))?$")


def parse_dtype(spec: object) -> DType:
    """DType from a DType, a string ("int8", "uint4", "float32", "fixed16_8") or a numpy dtype."""
    if isinstance(spec, DType):
        return spec
    if spec is None:
        raise DTypeError("no data type given")
    if isinstance(spec, str):
        text = spec.strip().lower()
        if text == "index":
            return Index()
        match = _DTYPE_RE.match(text)
        if not match:
            raise DTypeError(
                f"unknown data type {spec!r} (expected e.g. 'int8', 'uint4', 'float32', 'fixed16_8')"
            )
        kind, bits, frac = match.group(1), match.group(2), match.group(3)
        nbits = int(bits) if bits else 32
        if kind in ("int", "uint", "float") and frac is not None:
            raise DTypeError(f"unknown data type {spec!r}: only fixed types take a fraction")
        if kind == "int":
            return Int(nbits)
        if kind == "uint":
            return UInt(nbits)
        if kind == "float":
            return Float(nbits)
        if kind == "fixed":
            return Fixed(nbits, int(frac or 0))
        return UFixed(nbits, int(frac or 0))
    if not isinstance(spec, (np.dtype, type)):  # a numpy dtype, or a scalar type such as np.int8
        raise DTypeError(f"unknown data type {spec!r}")
    try:
        npdt = np.dtype(spec)
    except TypeError:
        raise DTypeError(f"unknown data type {spec!r}") from None
    return from_numpy(npdt)


def from_numpy(npdt: np.dtype) -> DType:
    """The DType matching a plain numpy dtype (bool -> UInt(1))."""
    if npdt == np.bool_:
        return UInt(1)
    if npdt.kind == "i":
        return Int(npdt.itemsize * 8)
    if npdt.kind == "u":
        return UInt(npdt.itemsize * 8)
    if npdt.kind == "f" and npdt.itemsize in (4, 8):
        return Float(npdt.itemsize * 8)
    raise DTypeError(f"numpy dtype {npdt} has no hclbuild equivalent")
