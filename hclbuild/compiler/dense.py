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
    values = ast.literal_eval(body.replace("true", "1").replace("false", "0"))
    return np.broadcast_to(np.array(values, dtype=object), shape).copy()
