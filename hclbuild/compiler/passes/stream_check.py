"""FIFO-order checks of streams for the reference run (instrumented copy only, never the design).

Before every load and store of a stream (an alloc with `hcl.stream`, or an argument marked in
`hcl.arg_streams`), the pass calls `hcl_probe(check, phase, linear index, base address)`: phase
4 for a write, 5 for a read. hclbuild.runtime.fifo replays them as a FIFO per buffer: a read of
another element than the oldest unread write, a read of an empty FIFO, or values left unread are
errors naming the stages and the tensor; the write order also gives a stream's golden sequence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mlir import ir
from mlir.dialects import arith, memref
from mlir.dialects import func as func_d

from hclbuild.compiler import attrs
from hclbuild.compiler.passes.affine_access import walk
from hclbuild.compiler.passes.bounds_check import declare_probe, stage_of, tensor_names
from hclbuild.compiler.passes.outline import functions, symbol_name
from hclbuild.compiler.passes.stream import stream_depth
from hclbuild.probes import PHASE_STREAM_READ, PHASE_STREAM_WRITE, PROBE_FUNCTION


@dataclass(frozen=True)
class StreamCheck:
    """One checked access: for the error message when the FIFO order breaks."""

    check: int
    function: str
    stage: str
    tensor: str
    shape: tuple[int, ...]
    kind: str  # "read" | "write"

    def to_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "function": self.function,
            "stage": self.stage,
            "tensor": self.tensor,
            "shape": list(self.shape),
            "kind": self.kind,
        }


def _stage(op: ir.Operation, fn: ir.Operation) -> str:
    """The stage an access belongs to: its enclosing stage root, else the function's stage list."""
    stage = stage_of(op, fn)
    if not stage:  # an axis-outlined body holds no stage root
        site = attrs.outline_axis(fn)
        stages = attrs.outlined_stages(fn)
        stage = site.stage if site is not None else ",".join(stages) if stages else ""
    return stage or symbol_name(fn)


def _linear(indices: list[ir.Value], shape: list[int]) -> ir.Value:
    index = ir.IndexType.get()
    total = arith.ConstantOp(index, 0).result
    for value, extent in zip(indices, shape):
        total = arith.MulIOp(total, arith.ConstantOp(index, extent).result).result
        total = arith.AddIOp(total, value).result
    return total


def stream_checks(module: ir.Module) -> list[StreamCheck]:
    """Probe every stream access of every function (in place); the checks, in order."""
    checks: list[StreamCheck] = []
    with module.context, ir.Location.unknown():
        found = []
        for fn in functions(module):
            if not len(fn.regions[0].blocks):
                continue
            names = tensor_names(fn.opview)
            for op in walk(fn):
                if op.name not in ("memref.load", "memref.store"):
                    continue
                buffer = op.operands[0 if op.name == "memref.load" else 1]
                if stream_depth(buffer) is None:
                    continue
                found.append((fn, op, buffer, names.get(buffer, "?")))
        if found:
            declare_probe(module)
        i64 = ir.IntegerType.get_signless(64)
        for check, (fn, op, buffer, tensor) in enumerate(found):
            is_read = op.name == "memref.load"
            shape = list(ir.MemRefType(buffer.type).shape)
            checks.append(
                StreamCheck(
                    check,
                    symbol_name(fn),
                    _stage(op, fn),
                    tensor,
                    tuple(shape),
                    "read" if is_read else "write",
                )
            )
            indices = list(op.operands)[1 if is_read else 2 :]
            with ir.InsertionPoint(op):
                linear = arith.IndexCastOp(i64, _linear(indices, shape)).result
                address = memref.ExtractAlignedPointerAsIndexOp(buffer).result
                func_d.CallOp(
                    [],
                    PROBE_FUNCTION,
                    [
                        arith.ConstantOp(i64, check).result,
                        arith.ConstantOp(i64, PHASE_STREAM_READ if is_read else PHASE_STREAM_WRITE).result,
                        linear,
                        arith.IndexCastOp(i64, address).result,
                    ],
                )
    return checks


__all__ = ["StreamCheck", "stream_checks"]
