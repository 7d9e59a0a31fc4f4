"""HeteroCL's data operations: hcl.pack / hcl.unpack (several narrow elements in one wide one along
an axis), hcl.bitcast (tensor or value), hcl.const_tensor / hcl.copy (values known when tracing),
hcl.cast_np (numpy values as a dtype holds them).

pack puts element k of each group of `factor` in bits [k*w, (k+1)*w) of the packed element (w:
the element width), the first in the low bits, as HeteroCL does; unpack is its inverse. Both work
on the raw bits of any non-index dtype.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from hclbuild.dsl.expr import BitCast, Cast, Const, Expr, GetSlice, as_expr, binary
from hclbuild.dsl.operations import _dtype_or_default, _new_tensor, compute
from hclbuild.dsl.storage import from_storage, to_storage
from hclbuild.dsl.tensor import Tensor, check_name
from hclbuild.dsl.trace import active_program
from hclbuild.dsl.types import DType, Index, Int, UInt, parse_dtype
from hclbuild.errors import APIError, DTypeError


def _tensor_of(tensor: object, what: str) -> Tensor:
    if not isinstance(tensor, Tensor):
        raise APIError(f"hcl.{what}: expected a tensor, got {type(tensor).__name__}")
    if tensor.dtype.is_index:
        raise DTypeError(f"hcl.{what}: index tensors have no fixed width")
    return tensor


def _axis_of(tensor: Tensor, axis: object, what: str) -> int:
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral) or not 0 <= int(axis) < tensor.ndim:
        raise APIError(
            f"hcl.{what}: axis {axis!r} is not a dimension of {tensor.name!r} (shape {tensor.shape})"
        )
    return int(axis)


def _factor_of(factor: object, what: str) -> int:
    if isinstance(factor, bool) or not isinstance(factor, numbers.Integral) or int(factor) < 1:
        raise APIError(f"hcl.{what}: factor must be a positive int (or give dtype), got {factor!r}")
    return int(factor)


def _integer_like(bits: int, like: DType) -> DType:
    """Int(bits) or UInt(bits) with like's signedness (HeteroCL's result type)."""
    return Int(bits) if like.is_signed and not like.is_float else UInt(bits)


def pack(
    tensor: Tensor, axis: int = 0, factor: int | None = None, name: str | None = None, dtype: object = None
) -> Tensor:
    """hcl.pack(tensor, axis=0, factor=None, name=None, dtype=None): `factor` consecutive elements
    along `axis` in one element of `factor` times the width (dtype gives the factor when omitted)."""
    tensor = _tensor_of(tensor, "pack")
    axis = _axis_of(tensor, axis, "pack")
    width = tensor.dtype.bits
    out_dtype = parse_dtype(dtype) if dtype is not None else None
    if factor is None and out_dtype is not None:
        factor = out_dtype.bits // width
    factor = _factor_of(factor, "pack")
    if out_dtype is None:
        out_dtype = _integer_like(width * factor, tensor.dtype)
    if out_dtype.bits != width * factor or out_dtype.is_index:
        raise DTypeError(
            f"hcl.pack: {factor} elements of {tensor.dtype!r} take {width * factor} bits, "
            f"{out_dtype!r} has {out_dtype.bits}"
        )
    if tensor.shape[axis] % factor:
        raise APIError(
            f"hcl.pack: dimension {axis} of {tensor.name!r} ({tensor.shape[axis]}) is not a "
            f"multiple of the factor {factor}"
        )
    shape = tuple(n // factor if k == axis else n for k, n in enumerate(tensor.shape))
    wide = UInt(out_dtype.bits)

    def element(*index: Expr) -> Expr:
        parts = []
        for k in range(factor):
            at = tuple(
                binary("add", binary("mul", i, factor), k) if d == axis else i for d, i in enumerate(index)
            )
            raw = Cast(wide, BitCast(UInt(width), tensor.element(at)))
            parts.append(binary("shl", raw, Const(width * k, Index())) if k else raw)
        packed = parts[0]  # factor >= 1 (_factor_of)
        for part in parts[1:]:
            packed = binary("or", packed, part)
        return BitCast(out_dtype, Cast(wide, packed))

    return compute(shape, element, name=name, dtype=out_dtype)


def unpack(
    tensor: Tensor, axis: int = 0, factor: int | None = None, name: str | None = None, dtype: object = None
) -> Tensor:
    """hcl.unpack(tensor, axis=0, factor=None, name=None, dtype=None): each element along `axis` as
    `factor` elements of 1/factor its width, its low bits first (dtype gives the factor when omitted)."""
    tensor = _tensor_of(tensor, "unpack")
    axis = _axis_of(tensor, axis, "unpack")
    bits = tensor.dtype.bits
    out_dtype = parse_dtype(dtype) if dtype is not None else None
    if factor is None and out_dtype is not None:
        factor = bits // out_dtype.bits if out_dtype.bits else 0
    factor = _factor_of(factor, "unpack")
    if bits % factor:
        raise DTypeError(f"hcl.unpack: {tensor.dtype!r} does not split into {factor} equal parts")
    width = bits // factor
    if out_dtype is None:
        out_dtype = _integer_like(width, tensor.dtype)
    if out_dtype.bits != width or out_dtype.is_index:
        raise DTypeError(
            f"hcl.unpack: a {factor}th of {tensor.dtype!r} is {width} bits, {out_dtype!r} has "
            f"{out_dtype.bits}"
        )
    shape = tuple(n * factor if k == axis else n for k, n in enumerate(tensor.shape))

    def element(*index: Expr) -> Expr:
        at = tuple(binary("floordiv", i, factor) if d == axis else i for d, i in enumerate(index))
        lo = binary("mul", binary("mod", index[axis], factor), width)
        source = tensor.element(at) if not tensor.dtype.is_float else BitCast(UInt(bits), tensor.element(at))
        return BitCast(out_dtype, GetSlice(source, lo, width))

    return compute(shape, element, name=name, dtype=out_dtype)


def bitcast(tensor: Any, dst_dtype: object, name: str | None = None) -> Any:
    """hcl.bitcast(tensor_or_expr, dst_dtype, name=None): the same bits read as dst_dtype (same
    width); a tensor gives a new tensor (named <tensor>_<dtype> unless named), a value a value."""
    dtype = parse_dtype(dst_dtype)
    if isinstance(tensor, Tensor) and not tensor.is_scalar:
        if tensor.dtype.bits != dtype.bits or tensor.dtype.is_index or dtype.is_index:
            raise DTypeError(
                f"hcl.bitcast: {tensor.dtype!r} has {tensor.dtype.bits} bits, {dtype!r} has {dtype.bits}"
            )
        label = name if name is not None else f"{tensor.name}_{dtype.name}"
        return compute(tensor.shape, lambda *i: BitCast(dtype, tensor.element(i)), name=label, dtype=dtype)
    if not isinstance(tensor, (Expr, Tensor)):
        raise APIError(f"hcl.bitcast: expected a tensor or an expression, got {type(tensor).__name__}")
    return bitcast_value(tensor, dtype)


def cast_np(np_array: object, dtype: object) -> np.ndarray:
    """hcl.cast_np(array, dtype): the values `dtype` holds for them (wrapped ints, floored fixed)."""
    if not isinstance(np_array, np.ndarray):
        raise APIError(f"hcl.cast_np: expected a numpy array, got {type(np_array).__name__}")
    dt = parse_dtype(dtype)
    return from_storage(to_storage(np_array, dt), dt)


def const_tensor(values: object, name: str | None = None, dtype: object = None) -> Tensor:
    """hcl.const_tensor(values, name=None, dtype=None): a read-only tensor of values known when
    tracing: a constant array in the C++, a constant global in the LLVM run (memref.global)."""
    program = active_program()
    name = program.unique_name(check_name(name, "const_tensor")) if name else program.auto_name("const")
    dt = _dtype_or_default(dtype)
    if dt.is_index:
        raise DTypeError("hcl.const_tensor: index tensors have no fixed width")
    array = np.asarray(values.asnumpy() if hasattr(values, "asnumpy") else values)
    if array.size == 0:
        raise APIError(f"const_tensor {name!r}: no values")
    shape = array.shape or (1,)
    tensor = _new_tensor(name, tuple(int(n) for n in shape), dt, "const")
    tensor.constant = to_storage(array.reshape(shape), dt)
    return tensor


def copy(values: object, name: str | None = None, dtype: object = None) -> Tensor:
    """hcl.copy(values, name=None, dtype=None): a writable tensor holding the values, filled by a
    stage: from a const_tensor of them, or, as in HeteroCL, element by element from a tensor
    (of its dtype unless `dtype` is given)."""
    if isinstance(values, Tensor):
        out_dtype = values.dtype if dtype is None else parse_dtype(dtype)
        return compute(values.shape, lambda *i: as_expr(values[i]), name=name, dtype=out_dtype)
    source = const_tensor(values, None if name is None else f"{name}_init", dtype)
    return compute(source.shape, lambda *i: as_expr(source[i]), name=name, dtype=source.dtype)


def bitcast_value(value: object, dtype: DType) -> Expr:
    """The raw bits of value read as `dtype` (same width; floats, ints, fixed point and structs)."""
    expr = as_expr(value)
    if expr.dtype.is_index or dtype.is_index:
        raise DTypeError("hcl.bitcast: index values have no fixed width; hcl.cast them to an integer first")
    if expr.dtype.bits != dtype.bits:
        raise DTypeError(
            f"hcl.bitcast: {expr.dtype!r} has {expr.dtype.bits} bits, {dtype!r} has {dtype.bits}"
        )
    return BitCast(dtype, expr)
