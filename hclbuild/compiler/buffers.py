"""The buffers a design allocates: what its reference run holds besides the arguments
(ir/manifest.json's "buffers", which hclbuild.project.reference_memory checks against the memory)."""

from __future__ import annotations

import math
from typing import Any

from mlir import ir

from hclbuild.dsl.types import parse_dtype


def allocated_buffers(module: Any) -> list[dict[str, Any]]:
    """Every statically shaped memref.alloc/alloca of `module` (an MLIR module): function, name,
    shape, element bytes (for ir/manifest.json)."""
    found: list[dict[str, Any]] = []
    for func in module.body.operations:
        if "sym_name" not in func.attributes:
            continue
        owner = func.attributes["sym_name"].value

        def visit(op: Any, owner: str = owner) -> Any:
            if op.name in ("memref.alloc", "memref.alloca"):
                kind = ir.MemRefType(op.results[0].type)
                if kind.has_static_shape:
                    attrs = op.attributes
                    name = attrs["name"].value if "name" in attrs else "(unnamed)"
                    if "hcl.dtype" in attrs:
                        element = parse_dtype(attrs["hcl.dtype"].value).storage_bits // 8
                    else:
                        element = _element_bytes(kind.element_type)
                    found.append(
                        {"function": owner, "name": name, "shape": list(kind.shape), "element_bytes": element}
                    )
            return ir.WalkResult.ADVANCE

        func.operation.walk(visit)
    return found


def _element_bytes(element: Any) -> int:
    if ir.IntegerType.isinstance(element):
        bits = ir.IntegerType(element).width
        return max(1, 1 << max(0, math.ceil(math.log2(max(1, math.ceil(bits / 8))))))
    text = str(element)
    return {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "index": 8}.get(text, 8)
