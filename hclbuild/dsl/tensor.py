"""Tensors of the DSL: placeholders, compute results, def_ parameters, scalars."""

from __future__ import annotations

import math
import numbers
from typing import Any

from hclbuild.dsl.expr import Expr, Load, Operand, as_expr
from hclbuild.dsl.stmt import Store
from hclbuild.dsl.trace import record, tracing
from hclbuild.dsl.types import DType, Index
from hclbuild.errors import APIError

MAX_ELEMENTS = 2**63 - 1  # a tensor's element count, as MLIR's int64 sizes hold it


def check_name(name: object, what: str) -> str:
    """A tensor, stage or loop name: any printable string (HeteroCL issue 454: "A A", "lambda");
    the C++ names and file names made from it are sanitized where they are made (hclbuild.c_names)."""
    if not isinstance(name, str) or not name or not name.isprintable():
        raise APIError(f"{what}: name {name!r} must be a non-empty string of printable characters")
    return name


def normalize_shape(shape: object, what: str) -> tuple[int, ...]:
    """A shape as a tuple of positive ints; () becomes (1,) as in HeteroCL."""
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise APIError(f"{what}: shape must be a tuple of positive integers, got {shape!r}")
    dims = []
    for dim in shape:
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
            raise APIError(f"{what}: shape must be a tuple of positive integers, got {tuple(shape)!r}")
        if int(dim) <= 0:
            raise APIError(f"{what}: shape dimensions must be positive, got {tuple(shape)!r}")
        dims.append(int(dim))
    count = math.prod(dims)
    if count > MAX_ELEMENTS:
        # MLIR sizes a memref in int64: beyond it, the bindings raise a TypeError or MLIR aborts
        raise APIError(f"{what}: shape {tuple(shape)!r} has {count} elements, more than 2**63 - 1")
    return tuple(dims) if dims else (1,)


class Tensor(Operand):
    """A named n-d buffer: `A[i, j]` reads an element, `A[i, j] = v` writes one (in imperative code)."""

    def __init__(self, name: str, shape: tuple[int, ...], dtype: DType, kind: str):
        self.name = name
        self.shape = shape
        self.dtype = dtype
        self.kind = kind  # "placeholder" | "compute" | "param" | "scalar" | "const"
        self.axis: list[Any] = []
        self.stage: Any = None  # the StageStmt that produced it (compute/scalar)
        self.zero_dim = False  # a placeholder declared with shape (): an argument given as a number
        self.constant: Any = None  # hcl.const_tensor: the values' raw-bit containers (numpy)

    def check_writable(self, what: str) -> None:
        """A const_tensor is read-only (a constant global in LLVM, a const array in C++)."""
        if self.kind == "const":
            raise APIError(
                f"{what}: tensor {self.name!r} is an hcl.const_tensor and cannot be written "
                "(hcl.copy makes a writable tensor)"
            )

    @property
    def is_scalar(self) -> bool:
        """hcl.scalar results and 0-d placeholders: used in expressions as their one value."""
        return self.kind == "scalar" or self.zero_dim

    @property
    def type(self) -> DType:
        """HeteroCL's older name of .dtype (train_images.type.bits)."""
        return self.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def _indices(self, key: object) -> tuple[Expr, ...]:
        if not isinstance(key, tuple):
            key = (key,)
        flat: list[object] = []
        for item in key:
            # lambda *args passes a tuple; A[args] and A[args][0] both work
            if isinstance(item, tuple):
                flat.extend(item)
            else:
                flat.append(item)
        if len(flat) > self.ndim:
            raise APIError(f"tensor {self.name!r} has {self.ndim} dimensions, indexed with {len(flat)}")
        return tuple(as_expr(i, Index()) for i in flat)

    def __getitem__(self, key: object) -> Expr | TensorSlice:
        idx = self._indices(key)
        if len(idx) < self.ndim:
            return TensorSlice(self, idx)
        return Load(self, idx)

    def element(self, key: object) -> Expr:
        """The load of one element: what tensor[key] is when `key` indexes every dimension."""
        idx = self._indices(key)
        if len(idx) != self.ndim:
            raise APIError(f"tensor {self.name!r}: an element needs {self.ndim} indices, got {len(idx)}")
        return Load(self, idx)

    def __setitem__(self, key: object, value: object) -> None:
        idx = self._indices(key)
        if len(idx) != self.ndim:
            raise APIError(f"tensor {self.name!r}: a store needs {self.ndim} indices, got {len(idx)}")
        self.check_writable("a store")
        record(Store(self, idx, as_expr(value, self.dtype)))

    @property
    def v(self) -> Expr:
        """The value of a one-element tensor (hcl.scalar)."""
        if self.shape != (1,):
            raise APIError(
                f".v is only defined for one-element tensors; {self.name!r} has shape {self.shape}"
            )
        return Load(self, (as_expr(0, Index()),))

    @v.setter
    def v(self, value: object) -> None:
        self[0] = value

    def __repr__(self) -> str:
        return f"Tensor({self.name!r}, {self.shape}, {self.dtype!r})"

    def as_value(self) -> Expr:
        """A one-element tensor's value; any other tensor is refused, naming what to index."""
        if self.is_scalar:
            return self.v
        raise APIError(f"tensor {self.name!r} used as a value: index it, e.g. {self.name}[i]")

    def _value(self, op: str) -> Expr:
        if not self.is_scalar:
            raise APIError(f"tensor {self.name!r} used as a value in '{op}': index it, e.g. {self.name}[i]")
        return self.v

    def __bool__(self) -> bool:
        return True


class TensorSlice(Operand):
    """A partially indexed tensor: A[i] of a 2-d A; index it again to reach an element."""

    def __init__(self, tensor: Tensor, prefix: tuple[Expr, ...]):
        self.tensor = tensor
        self.prefix = prefix

    def _full(self, key: object) -> tuple[object, ...]:
        key = key if isinstance(key, tuple) else (key,)
        return self.prefix + key

    def __getitem__(self, key: object) -> Expr | TensorSlice:
        return self.tensor[self._full(key)]

    def __setitem__(self, key: object, value: object) -> None:
        self.tensor[self._full(key)] = value

    @property
    def dtype(self) -> DType:
        return self.tensor.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        """The dimensions left to index (HeteroCL's TensorSlice.shape)."""
        return self.tensor.shape[len(self.prefix) :]

    def __repr__(self) -> str:
        return f"TensorSlice({self.tensor.name!r}, {len(self.prefix)} of {len(self.tensor.shape)} indices)"

    def as_value(self) -> Expr:
        """Refused, naming the tensor and the indices the slice lacks."""
        return self._value()

    def _value(self, op: str | None = None) -> Expr:
        """Refused: a slice has no value (as an operand of `op`, or anywhere an expression is needed)."""
        tensor = self.tensor
        where = f" in '{op}'" if op is not None else ""
        raise APIError(
            f"tensor {tensor.name!r} has {len(tensor.shape)} dimensions, indexed with "
            f"{len(self.prefix)}{where}: index every dimension to reach an element"
        )

    def __bool__(self) -> bool:
        return True


def _scalar_operator(name: str) -> Any:
    def operator(self: Tensor | TensorSlice, *other: object) -> Any:
        return getattr(self._value(name.strip("_")), name)(*other)

    operator.__name__ = name
    return operator


def _value_comparison(name: str) -> Any:
    def operator(self: Tensor | TensorSlice, other: object) -> Any:
        # against a number or a DSL expression: the value's comparison (`hcl.if_(v == 0)` on an
        # hcl.scalar, HeteroCL's issue 450), which had been Python's identity test, False, so the
        # if_ silently never ran; against anything else identity, so tensors stay usable in lists
        if isinstance(other, Expr) or (isinstance(other, numbers.Number) and not isinstance(other, bool)):
            return getattr(self._value(name.strip("_")), name)(other)
        if (
            self is not other
            and isinstance(self, Tensor)
            and isinstance(other, Tensor)
            and self.is_scalar
            and other.is_scalar
            and tracing()
        ):
            # two hcl.scalar values compared while an algorithm is traced: their values'
            # comparison, not an identity test that made hcl.if_(a == b) hcl.if_(False)
            return getattr(self.v, name)(other.v)
        return self is other if name == "__eq__" else self is not other

    operator.__name__ = name
    return operator


# a one-element tensor (hcl.scalar, a 0-d placeholder) reads as its value in arithmetic and
# comparisons with values, as in HeteroCL (`j >= 0`, `A[j + 1]`, `v == 0`); other tensors refuse
# to be values, naming what to index
for _name in ("__eq__", "__ne__"):
    setattr(Tensor, _name, _value_comparison(_name))
    setattr(TensorSlice, _name, _value_comparison(_name))
# __eq__ above builds an expression, which would leave tensors unhashable; they hash by identity
# (mypy refuses assigning a method on a class: [method-assign])
Tensor.__hash__ = object.__hash__  # type: ignore[method-assign]
TensorSlice.__hash__ = object.__hash__  # type: ignore[method-assign]
for _name in (
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__rtruediv__",
    "__floordiv__",
    "__rfloordiv__",
    "__mod__",
    "__rmod__",
    "__neg__",
    "__and__",
    "__rand__",
    "__or__",
    "__ror__",
    "__xor__",
    "__rxor__",
    "__lshift__",
    "__rlshift__",
    "__rshift__",
    "__rrshift__",
    "__invert__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
):
    setattr(Tensor, _name, _scalar_operator(_name))
    setattr(TensorSlice, _name, _scalar_operator(_name))  # refused with the missing indices named
