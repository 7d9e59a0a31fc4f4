"""Free every function-level memref.alloc before the function returns (LLVM path only).

The design module never deallocates: in HLS C++ the buffers are static arrays. Lowered to LLVM an
alloc is a malloc, so without this every call of a JIT-compiled function would leak its
intermediate buffers.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import memref


@dataclass(frozen=True)
class DeallocPass:
    """Insert memref.dealloc of each entry-block alloc before every func.return of its function."""

    name: str = "dealloc"

    def run(self, module: ir.Module) -> int:
        count = 0
        with module.context, ir.Location.unknown():
            for fn in module.body.operations:
                if fn.operation.name != "func.func" or not fn.regions[0].blocks:
                    continue
                entry = fn.regions[0].blocks[0]
                allocs = [op for op in entry.operations if op.operation.name == "memref.alloc"]
                if not allocs:
                    continue
                already = _deallocated(fn)
                returns = [
                    op for op in fn.regions[0].blocks[-1].operations if op.operation.name == "func.return"
                ]
                for ret in returns:
                    for alloc in allocs:
                        if alloc.result not in already:
                            memref.DeallocOp(alloc.result, ip=ir.InsertionPoint(ret))
                            count += 1
        return count


def _deallocated(fn: ir.Operation) -> set[ir.Value]:
    """The memrefs a function already deallocates somewhere."""
    found: set[ir.Value] = set()

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "memref.dealloc":
            found.add(op.operands[0])
        return ir.WalkResult.ADVANCE

    fn.operation.walk(visit)
    return found


def dealloc_allocs(module: ir.Module) -> int:
    """Run DeallocPass in place; returns how many deallocs it inserted."""
    return DeallocPass().run(module)
