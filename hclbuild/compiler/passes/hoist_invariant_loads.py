"""Loads a pipelined loop repeats with the same subscripts move in front of the loop.

gemm's product pipelines `j` under `for i: for k:` and reads `A[i][k]` in every iteration (and in
every lane of the unrolled j.inner): the address changes once per 35 iterations. Left in the loop,
each iteration spends a port of A on it, and on an m_axi argument it is one AXI read a cycle that
no burst can serve. Moved in front of the loop, it is one read per run of the pipeline, held in a
register.

A load moves when the memory is never written in the function (no store, no call that could write
it, not a stream, whose read() takes a value), its subscripts do not change in the pipelined loop
(defined outside it, or computed inside it by pure index arithmetic on such values, which moves
along), nothing but loops that surely run lies between it and the pipelined loop (no scf.if: a
guarded load may be out of bounds when its guard is false), and the pipelined loop surely runs and
sits in another loop (a stage's root loop keeps its loads: nothing but stages lives at the top of a
function, docs/IR.md). The reference run takes the same IR: a load that moves reads the same element.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.passes.constant_values import defined_functions
from hclbuild.compiler.passes.stream import stream_depth

_LOOPS = frozenset({"affine.for", "scf.for", "scf.while"})
_LOADS = frozenset({"memref.load", "affine.load"})
_STORES = frozenset({"memref.store", "affine.store"})
_PURE_INDEX_OPS = frozenset(
    {
        "arith.constant",
        "arith.addi",
        "arith.subi",
        "arith.muli",
        "arith.index_cast",
        "arith.index_castui",
        "arith.extsi",
        "arith.extui",
        "arith.trunci",
        "affine.apply",
    }
)


@dataclass(frozen=True)
class HoistInvariantLoadsPass:
    """Move loop-invariant loads of read-only memory out of pipelined loops; returns how many moved."""

    name: str = "hoist-invariant-loads"

    def run(self, module: ir.Module) -> int:
        moved = 0
        with module.context:
            for fn, _ in defined_functions(module):
                for loop in _pipelined_loops(fn.operation):
                    moved += _hoist_from(loop)
        return moved


def hoist_invariant_loads(module: ir.Module) -> int:
    """HoistInvariantLoadsPass().run(module)."""
    return HoistInvariantLoadsPass().run(module)


def _ops(op: ir.Operation) -> list[ir.Operation]:
    """Every op nested in `op`, pre-order."""
    found = []
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                found.append(child.operation)
                found.extend(_ops(child.operation))
    return found


def _pipelined_loops(fn: ir.Operation) -> list[ir.Operation]:
    """Pipelined loops nested in another loop and sure to run."""
    return [
        op
        for op in _ops(fn)
        if op.name == "affine.for"
        and attrs.loop_directives(op).pipeline_ii is not None
        and _parent_op(op).name in _LOOPS
        and _runs(op)
    ]


def _parent_op(op: ir.Operation) -> ir.Operation:
    return op.parent.operation if hasattr(op.parent, "operation") else op.parent


def _runs(loop: ir.Operation) -> bool:
    """An affine.for of constant bounds that makes at least one trip."""
    if loop.name != "affine.for":
        return False
    low = list(upstream.lower_bound_map(loop).results)
    high = list(upstream.upper_bound_map(loop).results)
    constant = (ir.AffineConstantExpr,)
    if (
        len(low) != 1
        or len(high) != 1
        or not isinstance(low[0], constant)
        or not isinstance(high[0], constant)
    ):
        return False
    return high[0].value > low[0].value


def _read_only(memref: ir.Value) -> bool:
    """Memory only loaded from in its function: no store, no call taking it, not a stream."""
    if stream_depth(memref) is not None:
        return False
    for use in memref.uses:
        owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if owner.name not in _LOADS and owner.name != "memref.dealloc":
            return False
    return True


def _inside(op: ir.Operation, loop: ir.Operation) -> bool:
    while op.name != "func.func":
        if op == loop:
            return True
        op = _parent_op(op)
    return False


def _hoist_from(loop: ir.Operation) -> int:
    moved = 0
    for op in _ops(loop):
        if op.name not in _LOADS or not _read_only(op.operands[0]):
            continue
        if not _only_running_loops_between(op, loop):
            continue
        chain: list[ir.Operation] = []
        if all(_invariant(value, loop, chain) for value in list(op.operands)[1:]):
            for definition in chain:
                definition.move_before(loop)
            op.move_before(loop)
            moved += 1
    return moved


def _only_running_loops_between(op: ir.Operation, loop: ir.Operation) -> bool:
    parent = _parent_op(op)
    while parent != loop:
        if not _runs(parent):
            return False
        parent = _parent_op(parent)
    return True


def _invariant(value: ir.Value, loop: ir.Operation, chain: list[ir.Operation]) -> bool:
    """Whether `value` is the same in every iteration of `loop`; appends the pure ops inside the loop
    that compute it to `chain`, operands before users."""
    if isinstance(value, ir.BlockArgument):
        owner = value.owner.owner
        owner = owner.operation if owner is not None and hasattr(owner, "operation") else owner
        return owner is None or not _inside(owner, loop)
    definition = value.owner.operation if hasattr(value.owner, "operation") else value.owner
    if not _inside(definition, loop):
        return True
    if definition.name not in _PURE_INDEX_OPS or definition.regions:
        return False
    if definition in chain:
        return True
    if not all(_invariant(operand, loop, chain) for operand in definition.operands):
        return False
    chain.append(definition)
    return True
