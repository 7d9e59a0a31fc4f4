"""compute_at: a producer stage computed inside a loop of its consumer, on demand (HeteroCL).

`s[B].compute_at(s[C], C.axis[k])` moves B's loop nest into the body of C's loop k. One iteration
of that loop reads a region of B: per dimension, the part of the subscript fixed by the loops
around the insertion point plus the range the loops inside it (and constants) add. B becomes a
local of exactly that region (HeteroCL's shrinking: `allocate B[1 * 1 * 30]` for an elementwise
consumer at axis 1 of a 10x20x30 nest; a 3x3 stencil keeps 3x3), B's loops run over the region
(with their variables offset to its origin), and C reads the local. Producer loops of one trip
are dropped. B must store `B[i, j, ...]` with one loop per dimension (no split loops), be read
by C alone and write nothing else that survives it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, memref

from hclbuild.compiler import attrs
from hclbuild.compiler.passes.affine_access import (
    Linear,
    access_ranges,
    accesses,
    body_block,
    body_ops,
    computed_from,
    constant_extent,
    enclosing,
    erase_dead_arith,
    index_const,
    insert_alloc,
    linear,
    loop_extents,
    loop_named,
    loop_variable,
    materialize,
    memref_dtype,
    memref_named,
    memrefs_touched,
    replace_in,
    set_extent,
    stage_root,
    symbols_of,
    walk,
)
from hclbuild.compiler.passes.outline import find_top_function
from hclbuild.errors import APIError, HCLNotImplementedError

_LOOPS = ("affine.for", "scf.for")


def _insertion_block(loop: ir.Operation, loads: list[ir.Operation]) -> ir.Block:
    """The body of `loop`, or the then-block of the one guard (a split's) that holds every read."""
    block = body_block(loop)
    while True:
        ops = [op for op in body_ops(block) if not op.name.startswith("arith.")]
        if len(ops) != 1 or ops[0].name != "scf.if" or len(ops[0].regions[1].blocks):
            return block
        inner = set(walk(ops[0]))
        if not all(load in inner for load in loads):
            return block
        block = ops[0].regions[0].blocks[0]


def _producer_loops(stores: list, shape: list[int], producer: str, tensor: str) -> list[ir.Operation]:
    """The loop of the producer that runs over each dimension of the tensor."""
    loops: list[ir.Operation] | None = None
    for store in stores:
        found = []
        for form in store.forms:
            if form is None or form.const or len(form.terms) != 1 or next(iter(form.terms.values())) != 1:
                raise HCLNotImplementedError(
                    f"compute_at: stage {producer!r} must write {tensor}[i, j, ...] with one loop variable per "
                    "subscript (split or fused producer loops are not supported)"
                )
            variable = next(iter(form.terms))
            found.append(variable.owner.owner.operation)
        if loops is not None and found != loops:
            raise HCLNotImplementedError(
                f"compute_at: stage {producer!r} writes {tensor!r} from different loops"
            )
        loops = found
    assert loops is not None
    if len(set(loops)) != len(loops) or any(constant_extent(op) != n for op, n in zip(loops, shape)):
        raise HCLNotImplementedError(
            f"compute_at: stage {producer!r} must run one 0..N loop over each dimension of {tensor!r}"
        )
    return loops


def compute_at(module: ir.Module, producer: str, consumer: str, axis: str, tensor: str) -> tuple[int, ...]:
    """Move stage `producer` into loop `axis` of stage `consumer` (in place); the shape `tensor` shrinks to."""
    with module.context, ir.Location.unknown():
        top = find_top_function(module, "compute_at")
        p_root = stage_root(top, producer, "compute_at")
        c_root = stage_root(top, consumer, "compute_at")
        ops = body_ops(body_block(top))
        if ops.index(p_root) > ops.index(c_root):
            raise APIError(f"compute_at: stage {producer!r} comes after stage {consumer!r}")
        buffer = memref_named(top, tensor)
        if buffer is None or isinstance(buffer, ir.BlockArgument):
            raise APIError(
                f"compute_at: {tensor!r} of stage {producer!r} is an argument of the design; only a "
                "tensor between two stages can move into its consumer"
            )
        for op in ops:
            if (
                op not in (p_root, c_root)
                and op.name != "memref.alloc"
                and any(any(v == buffer for v in inner.operands) for inner in walk(op))
            ):
                name = attrs.stage_name(op) or op.name
                raise APIError(
                    f"compute_at: stage {name!r} also uses {tensor!r}; only its consumer "
                    f"{consumer!r} may read it"
                )
        stores = accesses(p_root, buffer, producer, tensor, "compute_at")
        loads = accesses(c_root, buffer, consumer, tensor, "compute_at")
        if any(not s.is_store for s in stores):
            raise HCLNotImplementedError(f"compute_at: stage {producer!r} reads its own output {tensor!r}")
        if any(a.is_store for a in loads):
            raise APIError(f"compute_at: stage {consumer!r} writes {tensor!r}; it must only read it")
        loop = loop_named(c_root, axis, consumer, "compute_at")
        inside = set(walk(loop))
        if not loads or not all(a.op in inside for a in loads):
            raise APIError(f"compute_at: stage {consumer!r} reads {tensor!r} outside its loop {axis!r}")
        _check_order(ops, p_root, c_root, buffer, producer, consumer, top)

        block = _insertion_block(loop, [a.op for a in loads])
        anchor_op = block.owner.operation
        outer = {loop_variable(op) for op in enclosing(anchor_op, c_root) + [anchor_op] if op.name in _LOOPS}
        symbol = computed_from(outer)  # e.g. a fused loop's i = fused / 20 % 10
        for access in loads:
            access.forms = [linear(v, symbol) for v in access.indices]
        outer |= symbols_of(loads)
        extents = loop_extents(c_root, consumer, "compute_at")
        shape = list(ir.MemRefType(buffer.type).shape)
        ranges = access_ranges(loads, outer, extents, "compute_at", tensor, consumer)
        lows = [low for _, low, _ in ranges]
        sizes = [high - low + 1 for _, low, high in ranges]
        bases = [fixed.plus(Linear({}, low)) for fixed, low, _ in ranges]
        p_loops = _producer_loops(stores, shape, producer, tensor)

        local = insert_alloc(
            top,
            tensor,
            memref_dtype(top, buffer),
            ir.MemRefType(buffer.type).element_type,
            sizes,
            attrs.buffer_partitions(buffer.owner, f"compute_at: {tensor!r}"),
        )
        anchor = body_ops(block)[0] if body_ops(block) else list(block.operations)[-1].operation
        p_root.move_before(anchor)
        attrs.clear_stage_name(p_root)
        attrs.mark_dataflow(p_root, False)
        with ir.InsertionPoint(p_root):
            origins = [None if not base.terms and not base.const else materialize(base) for base in bases]
            zero = index_const(0)
        written = []
        for store in stores:
            with ir.InsertionPoint(store.op):
                subscripts = [loop_variable(op) if size > 1 else zero for op, size in zip(p_loops, sizes)]
                written.append(memref.StoreOp(store.op.operands[0], local, subscripts).operation)
            store.op.erase()
        for p_loop, origin, size in zip(p_loops, origins, sizes):
            original = body_ops(body_block(p_loop))
            if size == 1:  # one trip: the loop goes, its variable is the region's origin
                replace_in(original, loop_variable(p_loop), origin if origin is not None else zero)
                for op in original:
                    op.move_before(p_loop)
                p_loop.erase()
                continue
            set_extent(p_loop, size)
            if origin is not None:
                with ir.InsertionPoint(original[0]):
                    index = arith.AddIOp(origin, loop_variable(p_loop)).result
                replace_in(original, loop_variable(p_loop), index, keep=tuple(written))
        for access in loads:
            with ir.InsertionPoint(access.op):
                subscripts = [
                    materialize(f.without(outer).plus(Linear({}, low), -1))
                    for f, low in zip(access.affine, lows)
                ]
                value = memref.LoadOp(local, subscripts).result
            access.result.replace_all_uses_with(value)
            access.op.erase()
        buffer.owner.erase()
        erase_dead_arith(c_root)
        return tuple(sizes)


def _check_order(
    ops: list[ir.Operation],
    p_root: ir.Operation,
    c_root: ir.Operation,
    buffer: ir.Value,
    producer: str,
    consumer: str,
    top: ir.Operation,
) -> None:
    """Computing the producer later must not change what it reads, nor leave anything it writes unset."""
    p_reads, p_writes = memrefs_touched(p_root)
    for value in p_writes - {buffer}:
        users = {use.owner.operation for use in value.uses}
        if any(not any(user == op for op in walk(p_root)) for user in users):
            raise HCLNotImplementedError(
                f"compute_at: stage {producer!r} writes another tensor besides its output"
            )
    between = ops[ops.index(p_root) + 1 : ops.index(c_root) + 1]
    for op in between:
        _, writes = memrefs_touched(op)
        clash = writes & p_reads
        if clash:
            name = attrs.stage_name(op) or op.name
            raise APIError(
                f"compute_at: stage {name!r} writes a tensor that stage {producer!r} reads, so "
                f"{producer!r} cannot move into {consumer!r}"
            )


@dataclass(frozen=True)
class ComputeAtPass:
    """Pass form of `compute_at`."""

    name: ClassVar[str] = "compute-at"
    producer: str
    consumer: str
    axis: str
    tensor: str

    def run(self, module: ir.Module) -> tuple[int, ...]:
        """Move the producer; the shrunk shape of its tensor."""
        return compute_at(module, self.producer, self.consumer, self.axis, self.tensor)


__all__ = ["ComputeAtPass", "compute_at"]
