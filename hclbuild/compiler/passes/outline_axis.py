"""outline(stage, axis=...): the body below one loop of a stage becomes a function (HeteroCL).

`s[B].outline(axis=B.axis[1])` moves the body of loop `x` of stage B into
`func.func private @Stage_B(memrefs..., y: index, x: index)`: the memrefs it uses (those read,
in first-read order, then those only written), then the loop variables of `x` and the loops
around it that the body uses (outermost first, named after their loops), then any other value
from outside. The loop stays in its stage, calling the function once per iteration (the call carries `hcl.stages`, the
function `hcl.outline_axis = "<stage>:<loop>"`). Only accumulators the body sets before reading
move into the function; any other buffer (a line buffer keeps rows across iterations) stays in
the caller and is passed.

With `unify`, the new body is compared with an earlier outlined function: identical bodies share
it; bodies that differ only in the constant upper bounds of their loops share it too, each such
bound becoming an extra `index` argument (named `<loop>_bound`), which the earlier calls pass
as well, as HeteroCL's unify does. Memref arguments must have the same types.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import func as func_d

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.attrs import ArrayPartition, AxisSite
from hclbuild.compiler.passes.affine_access import (
    body_block,
    body_ops,
    constant_extent,
    enclosing,
    is_loop_variable,
    loop_name,
    loop_named,
    loop_variable,
    memref_dtype,
    stage_root,
    walk,
)
from hclbuild.compiler.passes.outline import (
    dtype_of_type,
    find_top_function,
    functions,
    symbol_name,
    unique_names,
)
from hclbuild.compiler.passes.unify import unify_with
from hclbuild.errors import APIError
from hclbuild.schedule.function_names import default_function_name


def _outside_values(ops: list[ir.Operation]) -> list[ir.Value]:
    """Values the ops use but do not define, in first-use order."""
    inside = {op for root in ops for op in walk(root)}
    seen: dict[ir.Value, None] = {}
    for root in ops:
        for op in walk(root):
            for value in op.operands:
                owner = value.owner.owner if isinstance(value, ir.BlockArgument) else value.owner
                if owner is not None and owner.operation in inside:
                    continue
                seen.setdefault(value, None)
    return list(seen)


def _memref_order(ops: list[ir.Operation], memrefs: list[ir.Value]) -> list[ir.Value]:
    """The memrefs read (first-read order), then the ones only written (first-write order)."""
    reads: dict[ir.Value, None] = {}
    writes: dict[ir.Value, None] = {}
    wanted = set(memrefs)
    for root in ops:
        for op in walk(root):
            if op.name == "memref.load" and op.operands[0] in wanted:
                reads.setdefault(op.operands[0], None)
            elif op.name == "memref.store" and op.operands[1] in wanted:
                writes.setdefault(op.operands[1], None)
    ordered = list(reads) + [v for v in writes if v not in reads]
    return ordered + [v for v in memrefs if v not in ordered]


def _describe(top: ir.Operation, value: ir.Value, fallback: str) -> tuple[str, str, list[ArrayPartition]]:
    """(name, dtype, partitions) of a value the body takes as an argument."""
    if isinstance(value.type, ir.MemRefType):
        if isinstance(value, ir.BlockArgument):
            name = (attrs.arg_names(top) or [])[value.arg_number]
            parts = attrs.arg_partitions(top)
            return name, memref_dtype(top, value), parts[value.arg_number] if parts is not None else []
        name = attrs.buffer_name(value.owner) or fallback
        return name, memref_dtype(top, value), attrs.buffer_partitions(value.owner)
    if is_loop_variable(value):
        return loop_name(value.owner.owner) or fallback, "index", []
    return fallback, dtype_of_type(value.type), []


def _private_to_each_call(value: ir.Value, body: list[ir.Operation], inside: set[ir.Operation]) -> bool:
    """A one-element buffer (an accumulator) that each iteration sets before it reads it, and that
    nothing outside the body uses: it can live in the function. Any other buffer the body uses may
    carry values from one iteration to the next (a line buffer does) and stays in the caller."""
    if math.prod(ir.MemRefType(value.type).shape) != 1:
        return False
    if not all(use.owner.operation in inside or use.owner.name == "memref.dealloc" for use in value.uses):
        return False
    for root in body:
        for op in walk(root):
            if op.name == "memref.load" and op.operands[0] == value:
                return False
            if op.name == "memref.store" and op.operands[1] == value:
                # set unconditionally: nothing but loops of at least one trip around the store
                around = [] if op == root else enclosing(op, root)
                return all(o.name == "affine.for" and constant_extent(o) for o in around)
    return False


def outline_axis(
    module: ir.Module, stage: str, axis: str, unify: bool | str = False, function: str = ""
) -> str:
    """Outline the body of loop `axis` of `stage` (in place); the name of the function it calls.

    HeteroCL: `s[stage].outline(axis=..., unify=...)`. `unify` is False, True (any earlier outlined
    function that fits) or the name of the function to share. `function` names the new function
    (the schedule's name for it; default Stage_<stage>).
    """
    with module.context, ir.Location.unknown():
        top = find_top_function(module, "outline")
        root = stage_root(top, stage, "outline")
        loop = loop_named(root, axis, stage, "outline")
        name = function or default_function_name([stage])
        taken = {symbol_name(f) for f in functions(module)}
        if name in taken:
            raise APIError(f"outline: stage {stage!r} at loop {axis!r}: a function @{name} already exists")
        body = body_ops(body_block(loop))
        inside = {op for r in body for op in walk(r)}
        outside = _outside_values(body)
        constants = [v for v in outside if isinstance(v, ir.OpResult) and v.owner.name == "arith.constant"]
        entry = body_block(top)
        locals_ = [
            v
            for v in outside
            if isinstance(v, ir.OpResult)
            and v.owner.name == "memref.alloc"
            and v.owner.operation.parent == top
            and not len(v.owner.operands)
            and _private_to_each_call(v, body, inside)
        ]
        memrefs = _memref_order(
            body, [v for v in outside if isinstance(v.type, ir.MemRefType) and v not in locals_]
        )
        loops = [
            loop_variable(op) for op in enclosing(loop, root) + [loop] if op.name in ("affine.for", "scf.for")
        ]
        scalars = [v for v in loops if v in outside] + [
            v
            for v in outside
            if not isinstance(v.type, ir.MemRefType) and v not in loops and v not in constants
        ]
        args = memrefs + scalars
        described = [_describe(top, v, f"v{k}") for k, v in enumerate(args)]
        arg_names = unique_names([d[0] for d in described])

        with ir.InsertionPoint(top):
            fn = func_d.FuncOp(name, ir.FunctionType.get([v.type for v in args], []))
        block = fn.add_entry_block()
        with ir.InsertionPoint(block):
            ret = func_d.ReturnOp([])
        upstream.set_private(fn)
        attrs.mark_outlined(fn)
        # not hcl.stages: the stage itself stays where it was, only its loop body moved
        attrs.set_outline_axis(fn, AxisSite(stage, axis))
        attrs.set_arg_names(fn, arg_names)
        attrs.set_arg_types(fn, [d[1] for d in described])
        attrs.set_arg_partitions(fn, [d[2] for d in described])

        with ir.InsertionPoint(body[0]):
            call = func_d.CallOp([], name, args).operation
        attrs.set_outlined_stages(call, [stage])
        positions = {op: k for k, op in enumerate(body_ops(entry))}
        for value in sorted(locals_, key=lambda v: positions[v.owner.operation]):
            value.owner.operation.move_before(ret)
        mapping = {value: block.arguments[k] for k, value in enumerate(args)}
        for value in constants:
            mapping[value] = value.owner.operation.clone(ip=ir.InsertionPoint(ret)).results[0]
        for op in body:
            op.move_before(ret)
        for root_op in body:
            for op in walk(root_op):
                for operand in list(op.operands):
                    if operand in mapping:
                        op.replace_uses_of_with(operand, mapping[operand])
        if unify:
            return unify_with(module, fn.operation, call, None if unify is True else str(unify))
        return name


@dataclass(frozen=True)
class OutlineAxisPass:
    """Pass form of `outline_axis`."""

    name: ClassVar[str] = "outline-axis"
    stage: str
    axis: str
    unify: bool | str = False
    function: str = ""

    def run(self, module: ir.Module) -> str:
        """Outline the loop body; the callee's name."""
        return outline_axis(module, self.stage, self.axis, self.unify, self.function)


__all__ = ["OutlineAxisPass", "outline_axis"]
