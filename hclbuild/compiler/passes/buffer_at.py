"""buffer_at: a local buffer for the slice of a tensor one iteration of a loop uses (HeteroCL).

`s.buffer_at(C, s[S], S.axis[k])`: inside loop k of stage S, every access of C goes to a local
buffer holding the region one iteration of loop k touches (per dimension: the fixed part of the
subscript plus the range the inner loops add; dimensions of one element are dropped, as in
HeteroCL's `memref<1024xf32>` row of a GEMM buffered at i). When S reads C there, or may not
write the whole region, the iteration starts by loading the region (loops `<loop>_init`);
when S writes C, the iteration ends by writing the buffer back (loops `<loop>_back`). Both
innermost loops are pipelined (II=1). The loop must have loops inside it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import affine, memref

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.attrs import ArrayPartition, LoopDirectives
from hclbuild.compiler.passes.affine_access import (
    Linear,
    access_ranges,
    accesses,
    body_block,
    body_ops,
    computed_from,
    enclosing,
    erase_dead_arith,
    index_const,
    insert_alloc,
    loop_extents,
    loop_name,
    loop_named,
    loop_variable,
    materialize,
    memref_dtype,
    memref_named,
    stage_root,
    symbols_of,
    walk,
)
from hclbuild.compiler.passes.outline import find_top_function
from hclbuild.errors import APIError

_LOOPS = ("affine.for", "scf.for")


@dataclass
class _Region:
    bases: list[Linear]  # tensor index of buffer element 0, per tensor dimension
    kept: list[int]  # tensor dimensions the buffer keeps
    sizes: list[int]  # their extents
    loop_names: list[str]  # a name for the copy loop over each kept dimension


def _region(
    found: list, outer: set[ir.Value], extents: dict[ir.Value, int], target: str, stage: str
) -> _Region:
    bases, kept, sizes, names = [], [], [], []
    for d, (fixed, low, high) in enumerate(access_ranges(found, outer, extents, "buffer_at", target, stage)):
        bases.append(fixed.plus(Linear({}, low)))
        if high > low:
            kept.append(d)
            sizes.append(high - low + 1)
            inner = {v for a in found for v in a.affine[d].without(outer).terms}
            only = next(iter(inner)) if len(inner) == 1 else None
            names.append((loop_name(only.owner.owner) if only is not None else None) or f"d{d}")
    return _Region(bases, kept, sizes, names)


def _covers(
    found: list, region: _Region, outer: set[ir.Value], extents: dict[ir.Value, int], loop: ir.Operation
) -> bool:
    """Whether the one store of the loop writes every element of the region (no read, no guard)."""
    if len(found) != 1 or not found[0].is_store:
        return False
    store = found[0]
    if any(op.name == "scf.if" for op in enclosing(store.op, loop)):
        return False
    for d, size in zip(region.kept, region.sizes):
        inner = store.affine[d].without(outer)
        if len(inner.terms) != 1 or next(iter(inner.terms.values())) != 1:
            return False
        if extents[next(iter(inner.terms))] != size:
            return False
    return True


def _copy_nest(
    region: _Region, suffix: str, body: Callable[[list[ir.Value], list[ir.Value]], object]
) -> None:
    """Loops over the kept dimensions (innermost pipelined), calling body(buffer subscripts, tensor subscripts)."""
    variables: list[ir.Value] = []
    points = []
    for k, (size, name) in enumerate(zip(region.sizes, region.loop_names)):
        loop = affine.AffineForOp(0, size, 1)
        attrs.set_loop_name(loop, f"{name}_{suffix}")
        if k == len(region.sizes) - 1:
            attrs.set_loop_directives(loop, LoopDirectives(pipeline_ii=1))
        variables.append(loop.induction_variable)
        point = ir.InsertionPoint(loop.body)
        point.__enter__()
        points.append(point)
    local = dict(zip(region.kept, variables))
    tensor_subscripts = [
        materialize(base.plus(Linear({local[d]: 1})) if d in local else base)
        for d, base in enumerate(region.bases)
    ]
    body(variables or [index_const(0)], tensor_subscripts)
    for point in reversed(points):
        affine.AffineYieldOp([])
        point.__exit__(None, None, None)


def buffer_at(
    module: ir.Module,
    target: str,
    stage: str,
    axis: str,
    buffer: str,
    partitions: tuple[ArrayPartition, ...] = (),
) -> tuple[int, ...]:
    """Apply one buffer_at (in place); the shape of the buffer it creates.

    HeteroCL: `s.buffer_at(target, parent, axis, name=None)`.
    """
    with module.context, ir.Location.unknown():
        top = find_top_function(module, "buffer_at")
        root = stage_root(top, stage, "buffer_at")
        loop = loop_named(root, axis, stage, "buffer_at")
        source = memref_named(top, target)
        if source is None:
            raise APIError(f"buffer_at: @{upstream.symbol_name(top)} has no tensor {target!r}")
        outer = {loop_variable(op) for op in enclosing(loop, root) + [loop] if op.name in _LOOPS}
        found = accesses(loop, source, stage, target, "buffer_at", computed_from(outer))
        if not found:
            raise APIError(f"buffer_at: stage {stage!r} does not access {target!r} inside loop {axis!r}")
        if not any(op != loop and op.name in _LOOPS for op in walk(loop)):
            raise APIError(
                f"buffer_at: loop {axis!r} is the innermost loop of stage {stage!r}; buffer "
                f"{target!r} at a loop that has loops inside it"
            )
        outer |= symbols_of(found)
        extents = loop_extents(root, stage, "buffer_at")
        region = _region(found, outer, extents, target, stage)
        shape = region.sizes or [1]
        reads = any(not a.is_store for a in found)
        writes = any(a.is_store for a in found)
        covered = _covers(found, region, outer, extents, loop)
        alloc = insert_alloc(
            top,
            buffer,
            memref_dtype(top, source),
            ir.MemRefType(source.type).element_type,
            shape,
            list(partitions),
        )
        block = body_block(loop)
        original = body_ops(block)
        if reads or not covered:
            with ir.InsertionPoint(original[0]):
                _copy_nest(
                    region,
                    "init",
                    lambda local, far: memref.StoreOp(memref.LoadOp(source, far).result, alloc, local),
                )
        by_dim = set(region.kept)
        for access in found:
            with ir.InsertionPoint(access.op):
                # base = the fixed part (no constant) + the region's lowest offset
                local = [
                    materialize(form.without(outer).plus(Linear({}, base.const), -1))
                    for d, (form, base) in enumerate(zip(access.affine, region.bases))
                    if d in by_dim
                ]
                local = local or [index_const(0)]
                if access.is_store:
                    memref.StoreOp(access.op.operands[0], alloc, local)
                else:
                    access.result.replace_all_uses_with(memref.LoadOp(alloc, local).result)
            access.op.erase()
        if writes:
            with ir.InsertionPoint(list(block.operations)[-1]):
                _copy_nest(
                    region,
                    "back",
                    lambda local, far: memref.StoreOp(memref.LoadOp(alloc, local).result, source, far),
                )
        erase_dead_arith(loop)
        return tuple(shape)


@dataclass(frozen=True)
class BufferAtPass:
    """Pass form of `buffer_at`."""

    name: ClassVar[str] = "buffer-at"
    target: str
    stage: str
    axis: str
    buffer: str
    partitions: tuple[ArrayPartition, ...] = ()

    def run(self, module: ir.Module) -> tuple[int, ...]:
        """Create the buffer and route the loop's accesses through it; the buffer's shape."""
        return buffer_at(module, self.target, self.stage, self.axis, self.buffer, self.partitions)


__all__ = ["BufferAtPass", "buffer_at"]
