"""Local copies of a top function's array arguments, for arguments whose port cannot be partitioned.

`#pragma HLS array_partition` is invalid on an m_axi argument (the array lives in external memory)
and on an argument of a function synthesized as an RTL blackbox (a blackbox maps one C argument to
one RTL RAM). Such an argument, when the schedule partitions it, is read into a local array of the
same shape in a pipelined copy loop at the start of the function, the local array gets the
partitions, the body works on it, and a second pipelined loop writes it back at the end when the
function may write the argument. An m_axi argument passed to an RTL blackbox is copied the same
way (the blackbox takes a RAM, not an AXI master); its local copy is not partitioned, because it
goes to the blackbox whole.

The copies keep C semantics exactly: every element is read in whenever the argument is used at
all (an output that is only partly written keeps its other elements), and written back only when
something may store to it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from mlir import ir

from hclbuild.c_names import unique
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.attrs import ArrayPartition
from hclbuild.compiler.emit_hls.c_types import CArg
from hclbuild.compiler.emit_hls.core import EmitterCore, walk
from hclbuild.compiler.emit_hls.interfaces import FunctionInterfaces
from hclbuild.compiler.emit_hls.pragmas import partition_pragmas

_LOADS = ("memref.load", "affine.load")
_STORES = ("memref.store", "affine.store")


@dataclass(frozen=True)
class LocalCopy:
    """One argument worked on through a local array: its partitions and the copies it needs."""

    index: int
    arg: CArg
    partitions: tuple[ArrayPartition, ...]  # on the local array
    copy_in: bool
    copy_out: bool
    note: str = ""  # why the schedule's partitions are not on the copy, when they are not


def plan_local_copies(
    func: ir.Operation,
    args: list[CArg],
    partitions: list[list[ArrayPartition]],
    interfaces: FunctionInterfaces,
    functions: dict[str, ir.Operation],
    blackboxes: Collection[str],
) -> list[LocalCopy]:
    """The arguments of a top function that need a local copy, in argument order."""
    block = func.regions[0].blocks[0]
    copies = []
    for index, (arg, parts, value) in enumerate(zip(args, partitions, block.arguments)):
        if not arg.is_array or arg.stream:
            continue
        m_axi = interfaces.of(arg.name).mode == "m_axi"
        to_blackbox = _passed_to(value, blackboxes)
        unpartitionable = m_axi or interfaces.single_ram_arrays
        if not ((parts and unpartitionable) or (m_axi and to_blackbox)):
            continue
        reads, writes = argument_access(functions, func, index)
        note = f"it goes whole to the RTL blackbox {to_blackbox}" if to_blackbox and parts else ""
        kept = () if to_blackbox else tuple(parts)
        copies.append(LocalCopy(index, arg, kept, copy_in=reads or writes, copy_out=writes, note=note))
    return copies


def argument_access(
    functions: dict[str, ir.Operation], func: ir.Operation, index: int, _seen: frozenset[str] = frozenset()
) -> tuple[bool, bool]:
    """(may read, may write) argument `index` of `func`, following calls into their callees.

    Any use that is not a load, a store into it, a call or a dealloc counts as both.
    """
    value = func.regions[0].blocks[0].arguments[index]
    reads = writes = False
    for use in value.uses:
        owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        name = owner.name
        if name in _LOADS:
            reads = True
        elif name in _STORES and use.operand_number == 1:
            writes = True
        elif name == "func.call":
            callee = upstream.callee(owner)
            if callee in functions and callee not in _seen:
                read, written = argument_access(
                    functions, functions[callee], use.operand_number, _seen | {callee}
                )
            else:
                read = written = True
            reads, writes = reads or read, writes or written
        elif name != "memref.dealloc":
            reads = writes = True
    return reads, writes


def values_to_blackboxes(func: ir.Operation, blackboxes: Collection[str]) -> dict[ir.Value, str]:
    """Every array value `func` passes to a blackboxed callee, with that callee's name."""
    found: dict[ir.Value, str] = {}
    for op in walk(func):
        if op.name == "func.call":
            callee = upstream.callee(op)
            if callee in blackboxes:
                for operand in op.operands:
                    if isinstance(operand.type, ir.MemRefType):
                        found.setdefault(operand, callee)
    return found


def _passed_to(value: ir.Value, blackboxes: Collection[str]) -> str:
    """The first blackboxed callee `value` is passed to, or ""."""
    for use in value.uses:
        owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if owner.name == "func.call":
            callee = upstream.callee(owner)
            if callee in blackboxes:
                return callee
    return ""


def declare_local(emitter: EmitterCore, copy: LocalCopy) -> str:
    """Declare the local array of `copy` (and its partitions); returns its C name."""
    arg = copy.arg
    name = emitter.names.fresh(f"{arg.name}_local")
    emitter._line(f"{emitter.uses.c_type(arg.dtype)} {name}{''.join(f'[{dim}]' for dim in arg.shape)};")
    if copy.note:
        emitter._line(f"// {name} is not partitioned here: {copy.note}")
    for pragma in partition_pragmas(name, list(copy.partitions), len(arg.shape), emitter._where(arg.name)):
        emitter._line(pragma)
    return name


def emit_copy(emitter: EmitterCore, copy: LocalCopy, local: str, inbound: bool) -> None:
    """The pipelined loop nest copying the argument into its local array (or back)."""
    arg = copy.arg
    direction = "in" if inbound else "out"
    ivs = []
    for dim, extent in enumerate(arg.shape):
        label = unique(f"l_{arg.name}_copy_{direction}_{dim}", emitter.labels)
        emitter.labels.add(label)
        iv = emitter.names.fresh(f"i{dim}")
        ivs.append(iv)
        emitter._line(f"{label}: for (int {iv} = 0; {iv} < {extent}; {iv}++) {{")
        emitter.indent += 1
    # one element a cycle; the nest is perfect, so HLS flattens it into one burst
    emitter._line("#pragma HLS pipeline II=1")
    subscripts = "".join(f"[{iv}]" for iv in ivs)
    target, source = (local, arg.name) if inbound else (arg.name, local)
    emitter._line(f"{target}{subscripts} = {source}{subscripts};")
    for _ in arg.shape:
        emitter.indent -= 1
        emitter._line("}")
