"""reuse_at: a shift register, line buffer or window buffer for a tensor a stage reads (HeteroCL).

`s.reuse_at(A, s[B], B.axis[k])` finds every read of A inside loop k of stage B. Their subscripts
must be affine (docs/IR.md), and exactly one dimension of A, the reuse dimension, must slide with
loop k: `A[y + r, x + c]` with reduction loops r, c reused at y slides in dimension 0. The reads of
one iteration cover a window of `span` elements along it (span = 3 here) which the next
iteration reuses but for one new slice.

The pass allocates the buffer `<A>_reuse_<k>` (or the given name) of shape, per dimension of A:
- the reuse dimension: span;
- a dimension indexed by a spatial loop inside loop k (x above): the range those reads cover
  (the row a line buffer holds);
- any other dimension: the range of its offsets (a window's rows), dropped when that is 1.
Loop k then runs span - 1 iterations more; each iteration first shifts the buffer by one along
the reuse dimension and loads the new slice of A into its last position, then, from the
span-th iteration on (`scf.if k >= span - 1`), runs the original body with k replaced by
`k - (span - 1)`, reading the buffer instead of A. A buffer read whole in one iteration (a shift
register or window) is completely partitioned, a line buffer along its window dimensions,
unless the schedule partitions it itself.

The loop that loads a line buffer's new row is marked `hcl.reuse_fill`; once every record is
applied, `fuse_fill_loops` merges it into the loop right after it when that loop runs over the
same columns and reads the buffer only at its own column (a window buffer on the line buffer, or
a stencil that reads the line buffer straight down): one loop then shifts the line buffer,
shifts the window and computes, as a hand-written HLS line buffer does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import affine, arith, memref

from hclbuild.compiler import attrs
from hclbuild.compiler.attrs import ArrayPartition, LoopDirectives
from hclbuild.compiler.passes.affine_access import (
    Access,
    Linear,
    accesses,
    body_block,
    body_ops,
    computed_from,
    constant_extent,
    enclosing,
    erase_dead_arith,
    guard,
    index_const,
    insert_alloc,
    linear,
    loop_extents,
    loop_name,
    loop_named,
    loop_variable,
    materialize,
    memref_dtype,
    memref_named,
    replace_in,
    set_extent,
    stage_root,
    symbols_of,
    value_range,
    walk,
)
from hclbuild.compiler.passes.outline import find_top_function, symbol_name
from hclbuild.errors import APIError, CompileError, HCLNotImplementedError

_PURE_PREFIX = ("arith.constant", "arith.addi", "arith.subi", "arith.muli", "arith.cmpi", "arith.index_cast")


@dataclass
class _Dim:
    """One dimension of the reuse buffer: which dimension of the tensor it holds, and how."""

    kind: str  # "reuse" | "full" (indexed by a spatial loop inside the reuse loop) | "window"
    tensor_dim: int
    size: int
    offset: int  # buffer index 0 holds tensor index outer + offset
    outer: Linear  # the part of the subscript fixed while the reuse loop runs
    spatial: ir.Value | None = None  # the inner loop variable of a "full" dimension


@dataclass
class _Plan:
    dims: list[_Dim]  # kept dimensions, in tensor order
    dropped: dict[int, Linear]  # tensor dimension -> its one subscript (outer part + offset)
    span: int

    @property
    def shape(self) -> list[int]:
        return [d.size for d in self.dims]

    def reuse_position(self) -> int:
        return next(k for k, d in enumerate(self.dims) if d.kind == "reuse")


class _Where:
    """Names for messages."""

    def __init__(self, target: str, stage: str, axis: str):
        self.target, self.stage, self.axis = target, stage, axis
        self.what = "reuse_at"

    def unsupported(self, detail: str) -> HCLNotImplementedError:
        return HCLNotImplementedError(
            f"reuse_at({self.target!r}, stage {self.stage!r}, loop {self.axis!r}): {detail}"
        )


def _plan(
    found: list[Access],
    axis_iv: ir.Value,
    outer: set[ir.Value],
    spatial: set[ir.Value],
    reduction: set[ir.Value],
    extents: dict[ir.Value, int],
    rank: int,
    where: _Where,
) -> _Plan:
    for access in found:
        for d, form in enumerate(access.forms):
            if form is None:
                raise where.unsupported(
                    f"subscript {d} of a read of {where.target!r} is not an affine "
                    "function of the stage's loops"
                )
            unknown = set(form.terms) - outer - spatial - reduction - {axis_iv}
            if unknown:
                raise where.unsupported(
                    f"subscript {d} of a read of {where.target!r} uses a loop variable "
                    "that is not a constant-bound loop of the stage"
                )
    reuse_dims = {d for access in found for d, form in enumerate(access.affine) if axis_iv in form.terms}
    if not reuse_dims:
        raise APIError(
            f"reuse_at: stage {where.stage!r} reads {where.target!r} inside loop {where.axis!r}, but no "
            f"subscript depends on {where.axis!r}: nothing is reused along it"
        )
    if len(reuse_dims) > 1:
        raise where.unsupported(f"loop {where.axis!r} appears in several subscripts of {where.target!r}")
    reuse_dim = reuse_dims.pop()
    dims: list[_Dim] = []
    dropped: dict[int, Linear] = {}
    span = 0
    for d in range(rank):
        forms = [access.affine[d] for access in found]
        outers = [f.only(outer) for f in forms]
        if any(not o.same_terms(outers[0]) for o in outers):
            raise where.unsupported(
                f"reads of {where.target!r} differ in subscript {d} by more than a constant"
            )
        inner_spatial = [f.only(spatial) for f in forms]
        if d == reuse_dim:
            if any(f.terms.get(axis_iv) != 1 for f in forms):
                raise where.unsupported(
                    f"subscript {d} of {where.target!r} must be {where.axis!r} plus offsets (no stride)"
                )
            if any(s.terms for s in inner_spatial):
                raise where.unsupported(
                    f"subscript {d} of {where.target!r} mixes {where.axis!r} with another spatial loop"
                )
            ranges = [value_range(f.without(outer | {axis_iv}), extents) for f in forms]
            low, high = min(r[0] for r in ranges), max(r[1] for r in ranges)
            span = high - low + 1
            dims.append(_Dim("reuse", d, span, low, outers[0]))
            continue
        keys = {tuple(s.terms.items()) for s in inner_spatial}
        if len(keys) > 1:
            raise where.unsupported(f"reads of {where.target!r} use different loops in subscript {d}")
        key = keys.pop()
        if key and (len(key) > 1 or key[0][1] != 1):
            raise where.unsupported(
                f"subscript {d} of {where.target!r} must be one loop variable plus offsets"
            )
        ranges = [value_range(f.without(outer | spatial), extents) for f in forms]
        low, high = min(r[0] for r in ranges), max(r[1] for r in ranges)
        if key:
            variable = key[0][0]
            dims.append(_Dim("full", d, high + extents[variable] - 1 - low + 1, low, outers[0], variable))
        elif high > low:
            dims.append(_Dim("window", d, high - low + 1, low, outers[0]))
        else:
            dropped[d] = outers[0].plus(Linear({}, low))
    if span <= 1:
        raise APIError(
            f"reuse_at: loop {where.axis!r} of stage {where.stage!r} reads each element of "
            f"{where.target!r} once: nothing is reused along it"
        )
    return _Plan(dims, dropped, span)


def _check_bounds(
    plan: _Plan, shape: list[int], extent: int, extents: dict[ir.Value, int], where: _Where
) -> None:
    """The new loads cover what the original reads covered; refuse when that is outside the tensor."""
    for dim in plan.dims:
        low, high = value_range(dim.outer, extents)
        first = low + dim.offset
        last = high + dim.offset + dim.size - 1 + (extent - 1 if dim.kind == "reuse" else 0)
        if first < 0 or last >= shape[dim.tensor_dim]:
            raise APIError(
                f"reuse_at: stage {where.stage!r} reads {where.target!r} outside its shape "
                f"{tuple(shape)} in dimension {dim.tensor_dim} (indices {first}..{last})"
            )


def _auto_partitions(plan: _Plan) -> list[ArrayPartition]:
    """Complete partitioning of the dimensions one iteration reads whole (window and reuse)."""
    whole = [k for k, d in enumerate(plan.dims) if d.kind != "full"]
    if len(whole) == len(plan.dims):
        return [ArrayPartition("complete", 0)]
    return [ArrayPartition("complete", k + 1) for k in whole]


def _new_loop(extent: int, name: str, unroll: bool = False) -> affine.AffineForOp:
    loop = affine.AffineForOp(0, extent, 1)
    attrs.set_loop_name(loop, name)
    if unroll:
        attrs.set_loop_directives(loop, LoopDirectives(unroll=0))
    return loop


def _emit_fill(plan: _Plan, buffer: ir.Value, source: ir.Value, axis_iv: ir.Value, name: str) -> None:
    """Shift the buffer along the reuse dimension and load the new slice of the source (in place)."""
    loops: dict[int, ir.Value] = {}  # buffer position -> loop variable
    exits = []
    for position, dim in enumerate(plan.dims):
        if dim.kind == "reuse":
            continue
        if dim.kind == "full":
            if dim.spatial is None:  # _plan gives every "full" dimension its loop variable
                raise CompileError(f"reuse_at: dimension {dim.tensor_dim} of {name!r} has no loop")
            loop = _new_loop(dim.size, f"{name}_{loop_name(dim.spatial.owner.owner) or f'd{dim.tensor_dim}'}")
            attrs.set_reuse_fill(loop, position)
        else:
            loop = _new_loop(dim.size, f"{name}_d{dim.tensor_dim}", unroll=True)
        loops[position] = loop.induction_variable
        point = ir.InsertionPoint(loop.body)
        point.__enter__()
        exits.append(point)
    reuse = plan.reuse_position()

    def subscripts(shift: ir.Value) -> list[ir.Value]:
        return [shift if k == reuse else loops[k] for k in range(len(plan.dims))]

    if plan.span > 2:
        shift = _new_loop(plan.span - 1, f"{name}_shift", unroll=True)
        with ir.InsertionPoint(shift.body):
            step = shift.induction_variable
            value = memref.LoadOp(buffer, subscripts(arith.AddIOp(step, index_const(1)).result)).result
            memref.StoreOp(value, buffer, subscripts(step))
            affine.AffineYieldOp([])
    else:
        value = memref.LoadOp(buffer, subscripts(index_const(1))).result
        memref.StoreOp(value, buffer, subscripts(index_const(0)))
    rank = len(plan.dims) + len(plan.dropped)
    by_dim = {dim.tensor_dim: (k, dim) for k, dim in enumerate(plan.dims)}
    source_subscripts = []
    for d in range(rank):
        if d in plan.dropped:
            source_subscripts.append(materialize(plan.dropped[d]))
            continue
        k, dim = by_dim[d]
        moving = Linear({axis_iv: 1}) if dim.kind == "reuse" else Linear({loops[k]: 1})
        source_subscripts.append(materialize(dim.outer.plus(moving).plus(Linear({}, dim.offset))))
    value = memref.LoadOp(source, source_subscripts).result
    memref.StoreOp(value, buffer, subscripts(index_const(plan.span - 1)))
    for point in reversed(exits):
        affine.AffineYieldOp([])
        point.__exit__(None, None, None)


def _redirect(
    found: list[Access], plan: _Plan, buffer: ir.Value, outer: set[ir.Value], axis_iv: ir.Value
) -> None:
    """Each read of the source becomes a read of the buffer."""
    by_dim = {dim.tensor_dim: dim for dim in plan.dims}
    for access in found:
        with ir.InsertionPoint(access.op):
            subscripts = []
            for d, form in enumerate(access.affine):
                dim = by_dim.get(d)
                if dim is None:
                    continue
                local = form.without(outer | {axis_iv}).plus(Linear({}, dim.offset), -1)
                subscripts.append(materialize(local))
            value = memref.LoadOp(buffer, subscripts).result
        access.result.replace_all_uses_with(value)
        access.op.erase()


def _stage_anywhere(top: ir.Operation, stage: str) -> ir.Operation:
    """The root of `stage` in the top function: a top-level stage or one nested in another's body."""
    for op in walk(top):
        if op != top and stage in (attrs.stage_name(op), attrs.nested_stage(op)):
            return op
    return stage_root(top, stage, "reuse_at")  # its error names what may have moved the stage


def reuse_at(
    module: ir.Module,
    target: str,
    stage: str,
    axis: str,
    buffer: str,
    reduction_loops: frozenset[str] = frozenset(),
    partitions: tuple[ArrayPartition, ...] = (),
) -> tuple[int, ...]:
    """Apply one reuse_at (in place); the shape of the buffer it creates.

    HeteroCL: `s.reuse_at(target, parent, axis, name=None)`. `reduction_loops` are the names of the
    stage's reduction loops; `partitions` (the schedule's s.partition of the buffer) replace the automatic ones.
    """
    where = _Where(target, stage, axis)
    with module.context, ir.Location.unknown():
        top = find_top_function(module, "reuse_at")
        root = _stage_anywhere(top, stage)
        loop = loop_named(root, axis, stage, "reuse_at")
        extent = constant_extent(loop)
        if extent is None:
            raise where.unsupported("the loop must run from 0 with step 1 to a constant bound")
        source = memref_named(top, target)
        if source is None:
            raise APIError(f"reuse_at: @{symbol_name(top)} has no tensor {target!r}")
        axis_iv = loop_variable(loop)
        # the loops around the reuse loop, up to the function (a nested stage's parents too), are
        # fixed while it runs: each of their iterations runs the whole warm-up again
        chain = enclosing(loop, top)
        outermost = chain[1] if len(chain) > 1 else loop
        outer = {
            loop_variable(op) for op in enclosing(loop, outermost) if op.name in ("affine.for", "scf.for")
        }
        found = accesses(loop, source, stage, target, "reuse_at", computed_from(outer))
        if not found:
            raise APIError(f"reuse_at: stage {stage!r} does not read {target!r} inside loop {axis!r}")
        if any(a.is_store for a in found):
            raise APIError(
                f"reuse_at: stage {stage!r} writes {target!r} inside loop {axis!r}; a reuse buffer "
                "only holds data the loop reads"
            )
        outer |= symbols_of(found)
        inner = [op for op in walk(loop) if op != loop and op.name in ("affine.for", "scf.for")]
        reduction = {loop_variable(op) for op in inner if loop_name(op) in reduction_loops}
        spatial = {loop_variable(op) for op in inner} - reduction
        extents = loop_extents(outermost, stage, "reuse_at")
        shape = list(ir.MemRefType(source.type).shape)
        plan = _plan(found, axis_iv, outer, spatial, reduction, extents, len(shape), where)
        _check_bounds(plan, shape, extent, extents, where)

        element = ir.MemRefType(source.type).element_type
        alloc = insert_alloc(
            top,
            buffer,
            memref_dtype(top, source),
            element,
            plan.shape,
            list(partitions) or _auto_partitions(plan),
        )
        if all(d.kind != "full" for d in plan.dims):
            # a register (shift register, window): its warm-up shifts move lanes not yet loaded,
            # whose values never reach an output; zeroing it costs no cycle in registers and lets
            # g++ -Werror see every read preceded by a write (a line buffer in BRAM is left as is)
            attrs.mark_zero_init(alloc.owner)
        set_extent(loop, extent + plan.span - 1)
        block = body_block(loop)
        original = body_ops(block)
        anchor = original[0] if original else list(block.operations)[-1].operation
        with ir.InsertionPoint(anchor):
            _emit_fill(plan, alloc, source, axis_iv, buffer)
            warm = arith.CmpIOp(arith.CmpIPredicate.sge, axis_iv, index_const(plan.span - 1)).result
            body = guard(warm)
        terminator = list(body.then_block.operations)[-1].operation
        for op in original:
            op.move_before(terminator)
        with ir.InsertionPoint(body_ops(body.then_block)[0]):
            shifted = arith.SubIOp(axis_iv, index_const(plan.span - 1)).result
        made = {shifted.owner.operation, shifted.owner.operands[1].owner.operation}
        _redirect(found, plan, alloc, outer, axis_iv)
        # the original body sees the iteration it was written for: k - (span - 1)
        replace_in([op for op in body_ops(body.then_block) if op not in made], axis_iv, shifted)
        erase_dead_arith(loop)
        return tuple(plan.shape)


# ---- fusing a line buffer's row load into the loop after it -------------------------------------


def _pure(op: ir.Operation) -> bool:
    return op.name.startswith(_PURE_PREFIX)


def _buffer_of(fill: ir.Operation) -> ir.Value:
    stores = [op for op in walk(fill) if op.name == "memref.store"]
    return stores[-1].operands[1]


def _candidate(fill: ir.Operation) -> tuple[ir.Operation | None, ir.Operation | None]:
    """(the guard, the loop) right after the fill loop, skipping pure ops; (None, None) if no fit."""
    siblings = [op.operation for op in fill.block.operations]
    after = siblings[siblings.index(fill) + 1 :]
    while after and _pure(after[0]):
        after = after[1:]
    if not after:
        return None, None
    nxt = after[0]
    if nxt.name == "affine.for":
        return None, nxt
    if nxt.name == "scf.if" and len(nxt.regions[1].blocks) == 0:
        inside = [op for op in body_ops(body_block(nxt)) if not _pure(op)]
        if len(inside) == 1 and inside[0].name == "affine.for":
            return nxt, inside[0]
    return None, None


def _fusable(fill: ir.Operation, loop: ir.Operation) -> bool:
    extent = constant_extent(loop)
    if extent is None or extent != constant_extent(fill) or attrs.reuse_fill(loop) is not None:
        return False
    buffer = _buffer_of(fill)
    position = attrs.reuse_fill(fill)
    if position is None:
        return False
    touched = {op.operands[0] for op in walk(fill) if op.name == "memref.load"} | {buffer}
    column = loop_variable(loop)
    for op in walk(loop):
        if op.name == "memref.store" and op.operands[1] in touched:
            return False
        if op.name == "memref.load" and op.operands[0] == buffer:
            form = linear(list(op.operands)[1 + position])
            if form is None or form.terms != {column: 1} or form.const != 0:
                return False
        elif op.name not in ("memref.load", "memref.store") and any(v == buffer for v in op.operands):
            return False
    return True


def _fuse(fill: ir.Operation, wrapper: ir.Operation | None, loop: ir.Operation) -> None:
    if wrapper is not None:
        for op in body_ops(body_block(wrapper)):
            if op != loop:
                op.move_before(wrapper)  # pure index arithmetic: safe to compute unconditionally
        loop.move_before(wrapper)
        inner = body_ops(body_block(loop))
        with ir.InsertionPoint(inner[0]):
            kept = guard(wrapper.operands[0])
        terminator = list(kept.then_block.operations)[-1].operation
        for op in inner:
            op.move_before(terminator)
        wrapper.erase()
    anchor = body_ops(body_block(loop))[0]
    moved = body_ops(body_block(fill))
    for op in moved:
        op.move_before(anchor)
    replace_in(moved, loop_variable(fill), loop_variable(loop))
    fill.erase()


def fuse_fill_loops(module: ir.Module) -> int:
    """Merge every line-buffer fill loop into the loop after it where that is exact; drop the marks."""
    fused = 0
    with module.context, ir.Location.unknown():
        changed = True
        while changed:
            changed = False
            for op in walk(module.operation):
                if op.name == "affine.for" and attrs.reuse_fill(op) is not None:
                    wrapper, loop = _candidate(op)
                    if loop is not None and _fusable(op, loop):
                        _fuse(op, wrapper, loop)
                        fused += 1
                        changed = True
                        break
        for op in walk(module.operation):
            attrs.clear_reuse_fill(op)
    return fused


@dataclass(frozen=True)
class ReuseAtPass:
    """Pass form of `reuse_at`: one record's target, stage, loop and buffer are its options."""

    name: ClassVar[str] = "reuse-at"
    target: str
    stage: str
    axis: str
    buffer: str
    reduction_loops: frozenset[str] = frozenset()
    partitions: tuple[ArrayPartition, ...] = ()

    def run(self, module: ir.Module) -> tuple[int, ...]:
        """Create the buffer and rewrite the stage; the buffer's shape."""
        return reuse_at(
            module, self.target, self.stage, self.axis, self.buffer, self.reduction_loops, self.partitions
        )


__all__ = ["ReuseAtPass", "fuse_fill_loops", "reuse_at"]
