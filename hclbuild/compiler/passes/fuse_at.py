"""compute_at of a stage its consumer does not read (HeteroCL's loop fusion of independent stages).

`s[A].compute_at(s[B], B.axis[k])` where B never reads A: A's loops 0..k become B's loops 0..k, and
the rest of A's nest runs inside B's loop k, before B's own body. Neither stage reads what the
other writes, so interleaving their iterations changes no value. Where A's extent is smaller than
B's the fused body is guarded (`if y < 8`); where it is larger, A's iterations beyond B's run in
nests of their own, before B (compute_at does not change what A computes, as in HeteroCL's MLIR
flow). The fused loops must be constant 0..N loops, A's a perfect nest down to level k.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, scf

from hclbuild.compiler import attrs
from hclbuild.compiler.passes.affine_access import (
    body_block,
    body_ops,
    constant_extent,
    enclosing,
    index_const,
    loop_named,
    loop_variable,
    memrefs_touched,
    replace_in,
    set_extent,
    set_lower_bound,
    stage_root,
)
from hclbuild.compiler.passes.outline import find_top_function
from hclbuild.errors import APIError, HCLNotImplementedError

_WHAT = "compute_at"


def _consumer_loops(c_root: ir.Operation, target: ir.Operation, consumer: str) -> list[ir.Operation]:
    chain = [*enclosing(target, c_root), target] if target != c_root else [target]
    if any(op.name != "affine.for" or constant_extent(op) is None for op in chain):
        raise HCLNotImplementedError(
            f"{_WHAT}: the loops of stage {consumer!r} down to the axis must be constant 0..N loops to "
            "fuse a stage it does not read into them"
        )
    return chain


def _producer_loops(p_root: ir.Operation, depth: int, producer: str) -> list[ir.Operation]:
    """The first `depth` loops of the producer's perfect nest (constants between them hoisted)."""
    loops = []
    loop = p_root
    while True:
        if loop.name != "affine.for" or constant_extent(loop) is None:
            raise HCLNotImplementedError(
                f"{_WHAT}: stage {producer!r} must be a nest of constant 0..N loops as deep as the axis "
                "to fuse it into a stage that does not read it"
            )
        loops.append(loop)
        if len(loops) == depth:
            return loops
        inner = [op for op in body_ops(body_block(loop)) if op.name != "arith.constant"]
        if len(inner) != 1:
            raise HCLNotImplementedError(
                f"{_WHAT}: stage {producer!r} must be a perfect loop nest down to the fused axis"
            )
        for op in body_ops(body_block(loop)):
            if op.name == "arith.constant":
                op.move_before(p_root)
        loop = inner[0]


def _check_independent(
    ops: list[ir.Operation], p_root: ir.Operation, c_root: ir.Operation, names: str
) -> None:
    p_reads, p_writes = memrefs_touched(p_root)
    c_reads, c_writes = memrefs_touched(c_root)
    if p_writes & (c_reads | c_writes) or c_writes & p_reads:
        raise APIError(f"{_WHAT}: {names} share a tensor one of them writes; they cannot be fused")
    for op in ops[ops.index(p_root) + 1 : ops.index(c_root)]:
        reads, writes = memrefs_touched(op)
        if writes & (p_reads | p_writes) or reads & p_writes:
            raise APIError(
                f"{_WHAT}: a stage between {names} uses what the first writes or writes what it reads"
            )


def _extent(loop: ir.Operation, stage: str) -> int:
    extent = constant_extent(loop)
    if extent is None:
        raise HCLNotImplementedError(f"{_WHAT}: a loop of stage {stage!r} has no constant bounds from 0")
    return extent


def fuse_at(module: ir.Module, producer: str, consumer: str, axis: str) -> None:
    """Fuse stage `producer` into stage `consumer` down to loop `axis` (in place)."""
    with module.context, ir.Location.unknown():
        top = find_top_function(module, _WHAT)
        p_root = stage_root(top, producer, _WHAT)
        c_root = stage_root(top, consumer, _WHAT)
        names = f"stages {producer!r} and {consumer!r}"
        ops = body_ops(body_block(top))
        if ops.index(p_root) > ops.index(c_root):
            raise APIError(f"{_WHAT}: stage {producer!r} comes after stage {consumer!r}")
        _check_independent(ops, p_root, c_root, names)
        target = loop_named(c_root, axis, consumer, _WHAT)
        c_loops = _consumer_loops(c_root, target, consumer)
        p_loops = _producer_loops(p_root, len(c_loops), producer)
        p_extents = [_extent(op, producer) for op in p_loops]
        c_extents = [_extent(op, consumer) for op in c_loops]
        # the producer's iterations beyond the consumer's, level by level: one nest each, disjoint
        for level, (mine, theirs) in enumerate(zip(p_extents, c_extents)):
            if mine <= theirs:
                continue
            rest = p_root.clone(ip=ir.InsertionPoint(p_root))
            attrs.clear_stage_name(rest)
            attrs.mark_dataflow(rest, False)
            band = [rest]
            while len(band) <= level:
                band.append(next(op for op in body_ops(body_block(band[-1])) if op.name == "affine.for"))
            for outer, (p_extent, c_extent) in zip(band[:level], zip(p_extents, c_extents)):
                set_extent(outer, min(p_extent, c_extent))
            set_lower_bound(band[level], theirs)
        moved = body_ops(body_block(p_loops[-1]))
        for p_loop, c_loop in zip(p_loops, c_loops):
            replace_in(moved, loop_variable(p_loop), loop_variable(c_loop))
        target_ops = list(body_block(target).operations)
        first = target_ops[0].operation
        guards = [
            (c_loop, p_extent)
            for c_loop, p_extent, c_extent in zip(c_loops, p_extents, c_extents)
            if p_extent < c_extent
        ]
        if guards:
            with ir.InsertionPoint(first):
                condition = None
                for c_loop, p_extent in guards:
                    below = arith.CmpIOp(
                        arith.CmpIPredicate.slt, loop_variable(c_loop), index_const(p_extent)
                    ).result
                    condition = below if condition is None else arith.AndIOp(condition, below).result
                guard = scf.IfOp(condition)
            with ir.InsertionPoint(guard.then_block):
                first = scf.YieldOp([]).operation
        for op in moved:
            op.move_before(first)
        p_root.erase()


@dataclass(frozen=True)
class FuseAtPass:
    """Pass form of `fuse_at`."""

    name: ClassVar[str] = "fuse-at"
    producer: str
    consumer: str
    axis: str

    def run(self, module: ir.Module) -> None:
        fuse_at(module, self.producer, self.consumer, self.axis)


__all__ = ["FuseAtPass", "fuse_at"]
