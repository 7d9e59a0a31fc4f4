"""hcl.const_tensor as IR: one private constant `memref.global` per tensor at module level (its
values as a dense attribute of the dtype's raw bits) named `hcl_const_<tensor>`, and a
`memref.get_global` at the top of each function that reads it, carrying `hcl.name` (the tensor's
name) and `hcl.dtype` (docs/IR.md, "Buffers").

A constant is read-only: passing one to a def_ function that writes that argument is refused here,
before LLVM would fault on a write into read-only memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from mlir import ir
from mlir.dialects import func, memref

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.builder.state import FunctionState, mlir_type
from hclbuild.dsl.storage import raw_ints
from hclbuild.dsl.tensor import Tensor
from hclbuild.dsl.types import DType
from hclbuild.errors import APIError


def dense_values(tensor: Tensor) -> ir.Attribute:
    """The tensor's values as a dense elements attribute of its MLIR element type."""
    dtype: DType = tensor.dtype
    shaped = ir.RankedTensorType.get(list(tensor.shape), mlir_type(dtype))
    storage = np.asarray(tensor.constant).reshape(tensor.shape)
    if dtype.is_float:
        return ir.DenseElementsAttr.get(np.ascontiguousarray(storage, dtype=dtype.np_storage), type=shaped)
    # integers and fixed point as their raw bits, signed (a decimal literal of any width parses);
    # i1 literals are 0 and 1
    signed = DType("int" if dtype.bits > 1 else "uint", dtype.bits)
    values = raw_ints(storage.view(signed.np_storage) if signed.words == 0 else storage, signed)

    def nested(array: np.ndarray) -> str:
        if array.ndim == 1:
            return "[" + ", ".join(str(int(v)) for v in array) + "]"
        return "[" + ", ".join(nested(row) for row in array) + "]"

    return ir.Attribute.parse(f"dense<{nested(np.asarray(values, dtype=object))}> : {shaped}")


class ConstantLowering(FunctionState):
    """get_global of const tensors, and the read-only check of calls that receive them."""

    def constant_buffer(self, tensor: Tensor) -> ir.Value:
        """A `memref.get_global` of the tensor's global (declared once per module)."""
        symbol = self.mb.declare_global(tensor)
        op = memref.GetGlobalOp(ir.MemRefType.get(list(tensor.shape), mlir_type(tensor.dtype)), symbol)
        attrs.set_buffer_name(op, tensor.name)
        attrs.set_buffer_dtype(op, tensor.dtype.name)
        attrs.set_buffer_partitions(op, self.mb.partitions_of(tensor))
        return op.result

    def check_read_only_arguments(self, callee: str, args: list[Any], values: list[ir.Value]) -> None:
        """A const tensor must not reach an argument the called function (or its callees) writes."""
        for k, (arg, _value) in enumerate(zip(args, values)):
            if isinstance(arg, Tensor) and arg.kind == "const" and self.mb.writes_argument(callee, k):
                raise APIError(
                    f"def_ function {callee!r} writes its argument {k}, which is passed the "
                    f"hcl.const_tensor {arg.name!r} (pass an hcl.copy of it)"
                )


def writes_argument(
    module_ops: dict[str, func.FuncOp], callee: str, index: int, seen: set | None = None
) -> bool:
    """Whether @callee stores into its memref argument `index`, itself or through the calls it makes."""
    seen = set() if seen is None else seen
    if (callee, index) in seen or callee not in module_ops:
        return False
    seen.add((callee, index))
    entry = module_ops[callee].regions[0].blocks[0]
    target = entry.arguments[index]
    found = False

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal found
        name = op.name
        if name in ("memref.store", "affine.store") and op.operands[1] == target:
            found = True
        elif name == "func.call":
            inner = upstream.callee(op)
            for k, operand in enumerate(op.operands):
                if operand == target and writes_argument(module_ops, inner, k, seen):
                    found = True
        return ir.WalkResult.INTERRUPT if found else ir.WalkResult.ADVANCE

    module_ops[callee].operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found
