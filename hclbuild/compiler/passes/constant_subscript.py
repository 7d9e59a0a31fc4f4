"""A constant subscript outside its tensor is an error at build time.

`A[8]` on an 8-element tensor is known to be wrong before anything runs; the reference run's
bounds checks would only catch it if that access executes. Refused before any backend runs,
naming the stage, the tensor and the subscript.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from hclbuild.compiler.passes.bounds_check import stage_of, tensor_names
from hclbuild.compiler.passes.constant_values import (
    constant_int,
    defined_functions,
    first_op,
    stage_label,
)
from hclbuild.errors import CompileError

# op name -> (index of the memref operand, index of the first subscript)
_ACCESSES = {"memref.load": (0, 1), "memref.store": (1, 2)}


@dataclass(frozen=True)
class ConstantSubscriptPass:
    """Raise CompileError at the first load or store whose constant subscript is outside the shape."""

    name: str = "constant-subscript"

    def run(self, module: ir.Module) -> None:
        with module.context:
            for fn, function in defined_functions(module):
                op = first_op(fn, lambda op: _outside(op) is not None)
                outside = _outside(op) if op is not None else None
                if op is None or outside is None:
                    continue
                buffer, dim, value, extent = outside
                tensor = tensor_names(fn).get(buffer, "?")
                shape = tuple(ir.MemRefType(buffer.type).shape)
                verb = "reads" if op.name == "memref.load" else "writes"
                raise CompileError(
                    f"{stage_label(stage_of(op, fn.operation), function)} {verb} {tensor} outside its shape "
                    f"{shape}: subscript {dim} is the constant {value} (valid 0..{extent - 1})"
                )


def _outside(op: ir.Operation) -> tuple[ir.Value, int, int, int] | None:
    """(memref, dimension, constant, extent) of op's first constant subscript outside its shape."""
    if op.name not in _ACCESSES:
        return None
    where, first = _ACCESSES[op.name]
    mtype = ir.MemRefType(op.operands[where].type)
    if not mtype.has_static_shape:
        return None
    for dim, (index, extent) in enumerate(zip(list(op.operands)[first:], mtype.shape)):
        value = constant_int(index)
        if value is not None and not 0 <= value < extent:
            return op.operands[where], dim, value, extent
    return None


def check_constant_subscripts(module: ir.Module) -> None:
    """ConstantSubscriptPass().run(module)."""
    ConstantSubscriptPass().run(module)
