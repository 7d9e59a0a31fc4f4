"""The buffers a design allocates: what its reference run holds besides the arguments
(ir/manifest.json's "buffers", which hclbuild.project.reference_memory checks against the memory)."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.dsl.types import parse_dtype


class AllocatedBuffer(NamedTuple):
    """A statically shaped memref.alloc/alloca: the function it is in, its name, shape and the bytes
    of one element as the reference run holds it."""

    function: str
    name: str
    shape: list[int]
    element_bytes: int

    @property
    def size(self) -> int:
        """Its bytes."""
        return math.prod(self.shape) * self.element_bytes

    def to_json(self) -> dict[str, Any]:
        """The JSON of ir/manifest.json's "buffers" entries."""
        return self._asdict()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AllocatedBuffer:
        """What to_json wrote."""
        return cls(
            str(data["function"]),
            str(data["name"]),
            [int(n) for n in data["shape"]],
            int(data["element_bytes"]),
        )


def allocated_buffers(module: Any) -> list[AllocatedBuffer]:
    """Every statically shaped memref.alloc/alloca of `module` (an MLIR module)."""
    found: list[AllocatedBuffer] = []
    for owner, func in upstream.symbols(module).items():

        def visit(op: Any, owner: str = owner) -> Any:
            if op.name in ("memref.alloc", "memref.alloca"):
                kind = ir.MemRefType(op.results[0].type)
                if kind.has_static_shape:
                    name = attrs.buffer_name(op) or "(unnamed)"
                    dtype = attrs.buffer_dtype(op)
                    if dtype is not None:
                        element = parse_dtype(dtype).storage_bits // 8
                    else:
                        element = _element_bytes(kind.element_type)
                    found.append(AllocatedBuffer(owner, name, list(kind.shape), element))
            return ir.WalkResult.ADVANCE

        func.walk(visit)
    return found


def _element_bytes(element: Any) -> int:
    if ir.IntegerType.isinstance(element):
        bits = ir.IntegerType(element).width
        return max(1, 1 << max(0, math.ceil(math.log2(max(1, math.ceil(bits / 8))))))
    text = str(element)
    return {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "index": 8}.get(text, 8)
