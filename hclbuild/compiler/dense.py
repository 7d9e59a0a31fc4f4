"""Values of a dense elements attribute (a memref.global's initial value) as numpy, any width."""

from __future__ import annotations

import ast

import numpy as np
from mlir import ir


def dense_array(attr: ir.Attribute) -> np.ndarray:
    """Floats as float32/float64, integers as an object array of Python ints (signed, as printed),
    in the attribute's shape; splats are broadcast."""
    shaped = ir.ShapedType(ir.DenseElementsAttr(attr).type)
    shape = tuple(shaped.shape)
    if isinstance(shaped.element_type, (ir.F32Type, ir.F64Type)):
        return np.array(ir.DenseFPElementsAttr(attr)).reshape(shape)
    # the bindings read only i8..i64 elements; the printed form is exact for any width
    body = str(attr).split(":", 1)[0].strip().removeprefix("dense<").removesuffix(">")
    if body.startswith('"0x'):
        values = _from_hex(
            bytes.fromhex(body[3:-1]), ir.IntegerType(shaped.element_type).width, int(np.prod(shape))
        )
        return np.array(values, dtype=object).reshape(shape)
    values = ast.literal_eval(body.replace("true", "1").replace("false", "0"))
    return np.broadcast_to(np.array(values, dtype=object), shape).copy()


def _from_hex(data: bytes, width: int, count: int) -> list[int]:
    """The elements of MLIR's hex form, which it prints for attributes of more than 100 elements:
    each element's low `width` bits little-endian in whole bytes (i1 packed 8 to a byte), read
    back as the decimal form prints them (signed; i1 as 0 and 1, printed false and true)."""
    if width == 1 and len(data) != count:
        return [(data[k // 8] >> (k % 8)) & 1 for k in range(count)]
    size = (width + 7) // 8
    if len(data) == size and count > 1:  # a splat
        data = data * count
    top = 1 << (width - 1) if width > 1 else 2  # no sign bit in an i1
    values = []
    for k in range(count):
        raw = int.from_bytes(data[k * size : (k + 1) * size], "little") & ((1 << width) - 1)
        values.append(raw - 2 * top if raw & top else raw)
    return values
