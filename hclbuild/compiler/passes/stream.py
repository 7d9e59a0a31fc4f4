"""s.to(tensor, s[consumer]): a tensor between two stages becomes a FIFO (hls::stream).

In the IR a stream stays a memref, so every pass and the LLVM lowering see plain memory; the
alloc carries `hcl.stream = <depth>` and the contract is FIFO order: the k-th load of the stream
reads the element of the k-th store (the reference run checks it, passes/stream_check.py), so
reading the memory at the load's subscript gives what `stream.read()` gives in C++.

`mark_stream` (before outlining) checks that only the producer stage stores into the tensor and
only the consumer stage loads from it, and marks the alloc. `annotate_stream_arguments` (after
outlining) marks every function argument a stream is passed to, in `hcl.arg_streams`
("read:<depth>" / "write:<depth>", "" for other arguments), following calls into callees, and
makes each function that holds a stream alloc a dataflow region (its stages, or the calls of its
outlined functions, are the processes the streams connect).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler.attrs import StreamPort
from hclbuild.compiler.passes.affine_access import body_block, body_ops, memref_named, walk
from hclbuild.compiler.passes.outline import callee_name, find_top_function, functions, symbol_name
from hclbuild.errors import APIError, CompileError, HCLNotImplementedError


def _stage_name(op: ir.Operation) -> str:
    return attrs.stage_name(op) or op.name


def mark_stream(module: ir.Module, tensor: str, producer: str, consumer: str, depth: int) -> None:
    """Mark `tensor` of the top function as a stream from stage `producer` to stage `consumer`."""
    with module.context, ir.Location.unknown():
        top = find_top_function(module, "s.to")
        buffer = memref_named(top, tensor)
        if buffer is None or isinstance(buffer, ir.BlockArgument):
            raise APIError(f"s.to: {tensor!r} is not a tensor between two stages of @{symbol_name(top)}")
        for op in body_ops(body_block(top)):
            if op.name == "memref.alloc":
                continue
            stage = _stage_name(op)
            for inner in walk(op):
                if inner.name == "memref.store" and inner.operands[1] == buffer and stage != producer:
                    raise APIError(
                        f"s.to: stage {stage!r} writes stream {tensor!r}; only its producer {producer!r} may"
                    )
                if inner.name == "memref.load" and inner.operands[0] == buffer and stage != consumer:
                    raise APIError(
                        f"s.to: stage {stage!r} reads stream {tensor!r}; only its consumer "
                        f"{consumer!r} may (a stream is read once, in order)"
                    )
                other = inner.name not in ("memref.load", "memref.store") and any(
                    v == buffer for v in inner.operands
                )
                if other and (inner.name != "func.call" or stage not in (producer, consumer)):
                    raise APIError(f"s.to: stage {stage!r} uses stream {tensor!r} through {inner.name}")
        _read_each_element_once(top, buffer, consumer)
        attrs.set_buffer_stream_depth(buffer.owner, depth)


def _read_each_element_once(top: ir.Operation, buffer: ir.Value, consumer: str) -> None:
    """A consumer that reads one element twice (`select(B[i] > 0, B[i], 0)`, `if_(B[i] > 0): C[i] = B[i]`)
    would pop two values from the FIFO: a later load at an equal subscript that the first dominates
    takes the first one's value instead (only the producer writes the stream: they are one value)."""
    loads = [
        inner
        for op in body_ops(body_block(top))
        if _stage_name(op) == consumer
        for inner in walk(op)
        if inner.name == "memref.load" and inner.operands[0] == buffer
    ]
    kept: list[ir.Operation] = []
    for load in loads:
        first = next(
            (
                k
                for k in kept
                if _dominates(k, load)
                and len(k.operands) == len(load.operands)
                and all(_equal(a, b) for a, b in zip(list(k.operands)[1:], list(load.operands)[1:]))
            ),
            None,
        )
        if first is None:
            kept.append(load)
        else:
            load.result.replace_all_uses_with(first.result)
            load.erase()


def _dominates(first: ir.Operation, later: ir.Operation) -> bool:
    """`first` comes before `later`, or before an op that holds it, in first's block."""
    node = later
    while node.block != first.block:
        parent = node.parent
        if parent is None or parent.name == "func.func":
            return False
        node = parent.operation
    return first.is_before_in_block(node)


def _equal(a: ir.Value, b: ir.Value) -> bool:
    """Equal by construction: one value, or one pure index computation of equal operands."""
    if a == b:
        return True
    if isinstance(a, ir.BlockArgument) or isinstance(b, ir.BlockArgument) or a.type != b.type:
        return False
    op_a, op_b = a.owner, b.owner
    if op_a.name != op_b.name or not (op_a.name.startswith("arith.") or op_a.name == "affine.apply"):
        return False
    return (
        attrs.all_attributes(op_a) == attrs.all_attributes(op_b)
        and len(op_a.operands) == len(op_b.operands)
        and all(_equal(x, y) for x, y in zip(op_a.operands, op_b.operands))
    )


def stream_depth(value: ir.Value) -> int | None:
    """The depth of a stream alloc or argument, None for plain memory."""
    if isinstance(value, ir.OpResult):
        return attrs.buffer_stream_depth(value.owner)
    if isinstance(value, ir.BlockArgument):
        fn = value.owner.owner
        fn = fn.operation if fn is not None else None  # (an OpView's `name` is a func's sym_name)
        if fn is not None and fn.name == "func.func":
            ports = attrs.arg_streams(fn, f"@{symbol_name(fn)}")
            port = ports[value.arg_number] if ports is not None else None
            return port.depth if port is not None else None
    return None


Ports = dict[str, list[StreamPort | None]]  # function name -> the stream port of each argument


def _direction(fn: ir.Operation, arg: ir.Value, entries: Ports) -> str:
    """ "read" or "write": what `fn` does with stream argument `arg` (never both)."""
    kinds = set()
    for op in walk(fn):
        if op.name == "memref.load" and op.operands[0] == arg:
            kinds.add("read")
        elif op.name == "memref.store" and op.operands[1] == arg:
            kinds.add("write")
        elif op.name == "func.call":
            for k, operand in enumerate(op.operands):
                if operand == arg:
                    callee = entries.get(callee_name(op))
                    port = callee[k] if callee is not None else None
                    if port is not None and port.direction:
                        kinds.add(port.direction)
    name = (attrs.arg_names(fn) or [])[arg.arg_number]
    if len(kinds) > 1:
        raise APIError(f"s.to: @{symbol_name(fn)} both reads and writes stream argument {name!r}")
    if not kinds:
        raise CompileError(f"s.to: @{symbol_name(fn)} takes stream {name!r} but never reads or writes it")
    return kinds.pop()


def annotate_stream_arguments(module: ir.Module) -> None:
    """hcl.arg_streams on every function a stream reaches; dataflow on every function holding one."""
    with module.context, ir.Location.unknown():
        fns = {symbol_name(f): f for f in functions(module) if len(f.regions[0].blocks)}
        entries: Ports = {n: [None] * len(list(body_block(f).arguments)) for n, f in fns.items()}
        calls = [
            (name, op)
            for name, fn in fns.items()
            for op in walk(fn)
            if op.name == "func.call" and callee_name(op) in fns
        ]
        changed = True
        while changed:  # a stream passed on by a callee reaches the callee's callees next round
            changed = False
            for name, op in calls:
                callee = callee_name(op)
                for k, operand in enumerate(op.operands):
                    depth = _depth_in(operand, name, entries)
                    if depth is not None and attrs.outline_axis(fns[callee]) is not None:
                        # its golden case is one iteration, which takes part of the stream only
                        raise HCLNotImplementedError(
                            f"s.to: a stream reaches @{callee}, a loop body outlined with axis=; outline "
                            "the whole stage instead"
                        )
                    if depth is not None and entries[callee][k] is None:
                        entries[callee][k] = StreamPort("", depth)  # its direction is found next
                        changed = True
            for name, fn in fns.items():
                for k, port in enumerate(entries[name]):
                    if port is not None and not port.direction:
                        direction = _direction(fn, body_block(fn).arguments[k], entries)
                        entries[name][k] = StreamPort(direction, port.depth)
                        changed = True
        for name, op in calls:
            callee = callee_name(op)
            for k, operand in enumerate(op.operands):
                if entries[callee][k] is not None and _depth_in(operand, name, entries) is None:
                    raise APIError(
                        f"s.to: @{callee} takes a stream as argument {k} from one call and an "
                        f"array from @{name} (a shared function cannot take both)"
                    )
        for name, fn in fns.items():
            attrs.set_arg_streams(fn, entries[name])
            if any(
                op.name == "memref.alloc" and attrs.buffer_stream_depth(op) is not None
                for op in body_ops(body_block(fn))
            ):
                attrs.mark_dataflow(fn)


def _depth_in(value: ir.Value, fn_name: str, entries: Ports) -> int | None:
    if isinstance(value, ir.OpResult):
        return attrs.buffer_stream_depth(value.owner)
    if (
        isinstance(value, ir.BlockArgument)
        and value.owner.owner is not None
        and value.owner.owner.operation.name == "func.func"
    ):
        port = entries[fn_name][value.arg_number]
        return port.depth if port is not None else None
    return None


@dataclass(frozen=True)
class StreamPass:
    """Pass form of `mark_stream`."""

    name: ClassVar[str] = "stream"
    tensor: str
    producer: str
    consumer: str
    depth: int

    def run(self, module: ir.Module) -> None:
        """Mark the tensor as a stream (in place)."""
        mark_stream(module, self.tensor, self.producer, self.consumer, self.depth)


__all__ = [
    "StreamPass",
    "annotate_stream_arguments",
    "mark_stream",
    "stream_depth",
]
