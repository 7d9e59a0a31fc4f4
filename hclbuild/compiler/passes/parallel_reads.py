"""Partition the array arguments a pipelined loop touches at more places an iteration than its ports
serve at the II the schedule asks.

stream_pipeline's gray stage reads `rgb[0][y][x]`, `rgb[1][y][x]` and `rgb[2][y][x]` in every
iteration of a loop pipelined at II=1: one RAM serves two accesses a cycle, so Vitis settles at II=2.
Split along the colour dimension, each plane is a RAM of its own and the loop gets its II. Vitis
partitions local arrays itself for throughput (2023.1 on), but never an argument: a function's
arguments are its ports (each outlined function is the top of its own project), and on m_axi the
partition goes on the local copy the emitter makes.

For each function argument, the accesses of one iteration of each pipelined loop (the loops it
unrolls expanded into their lanes, the same element read twice counted once) are counted; when
there are more than 2 x II of them, a dimension along which they differ by constants only (same
loop variables, same coefficients) is partitioned: completely when it is indexed by constants
alone (colour planes), else cyclically by the smallest factor that leaves no bank more than
2 x II accesses (stencil offsets, unrolled lanes). An array the schedule partitions itself, a
stream, and accesses no single dimension separates are left as they are: the build-time II check
says what they cost. The partition goes on every function that array reaches through calls (the
caller's array and the callee's parameter are one array), as s.partition's does.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.array_access import Form, Loop, access_loop, argument_accesses, lane_addresses
from hclbuild.compiler.attrs import ArrayPartition
from hclbuild.compiler.passes.constant_values import defined_functions
from hclbuild.compiler.passes.stream import stream_depth

RAM_PORTS = 2  # a dual-port block RAM: two accesses a cycle
COMPLETE_LIMIT = 16  # a dimension indexed by constants alone, of at most this many elements, splits whole


@dataclass(frozen=True)
class ParallelReadPartition:
    """One partition the pass added: where, why."""

    function: str
    argument: str
    partition: ArrayPartition
    loop: str
    accesses: int
    ii: int


@dataclass(frozen=True)
class PartitionParallelReadsPass:
    """Partition arguments read or written in parallel beyond their ports; returns what it added."""

    name: str = "partition-parallel-reads"

    def run(self, module: ir.Module) -> list[ParallelReadPartition]:
        with module.context:
            functions = {name: fn.operation for fn, name in defined_functions(module)}
            arrays = _ArrayClasses(functions)
            added: list[ParallelReadPartition] = []
            for name, func in functions.items():
                names = attrs.arg_names(func) or []
                for index, value in enumerate(func.regions[0].blocks[0].arguments):
                    if not isinstance(value.type, ir.MemRefType) or arrays.excluded(value):
                        continue
                    found = _partition_for(functions, func, index, tuple(ir.MemRefType(value.type).shape))
                    if found is None:
                        continue
                    partition, loop, count, ii = found
                    arrays.partition(value, partition)
                    arg = names[index] if index < len(names) else f"arg{index}"
                    added.append(ParallelReadPartition(name, arg, partition, loop, count, ii))
        return added


def partition_parallel_reads(module: ir.Module) -> list[ParallelReadPartition]:
    """PartitionParallelReadsPass().run(module)."""
    return PartitionParallelReadsPass().run(module)


# ---- which partition -----------------------------------------------------------------------------


def _partition_for(
    functions: dict[str, ir.Operation], func: ir.Operation, index: int, shape: tuple[int, ...]
) -> tuple[ArrayPartition, str, int, int] | None:
    """(partition, loop label, accesses an iteration, II) for the first pipelined loop whose
    accesses of the argument exceed its ports, None when every loop fits (or none can be helped)."""
    found = argument_accesses(functions, func, index)
    if found.opaque:
        return None
    per_loop: dict[int, tuple[Loop, set[tuple[str, tuple[Form, ...]]]]] = {}
    for access in found.accesses:
        loop, unrolled = access_loop(access)
        if loop is None or loop.ii is None:
            continue
        addresses = per_loop.setdefault(loop.uid, (loop, set()))[1]
        lanes = lane_addresses(access, unrolled)
        if lanes is None:
            return None  # an address that is not affine: nothing to split by
        addresses.update((access.kind, lane) for lane in lanes)
    for loop, addresses in per_loop.values():
        ii = loop.ii or 1
        if len(addresses) <= RAM_PORTS * ii:
            continue
        partition = _split(sorted({address for _, address in addresses}, key=str), addresses, shape, ii)
        if partition is not None:
            return partition, loop.label, len(addresses), ii
    return None


def _split(
    addresses: list[tuple[Form, ...]],
    accesses: set[tuple[str, tuple[Form, ...]]],
    shape: tuple[int, ...],
    ii: int,
) -> ArrayPartition | None:
    """The partition of fewest banks along one dimension that leaves each bank at most 2 x II of
    the iteration's accesses, where the accesses differ in that dimension by constants only."""
    best: tuple[int, ArrayPartition] | None = None
    for dim, extent in enumerate(shape):
        forms = [address[dim] for address in addresses]
        if len({form.terms for form in forms}) != 1 or len({form.const for form in forms}) < 2:
            continue
        constants_only = not forms[0].terms
        for factor in range(2, extent + 1):
            banks: dict[int, int] = {}
            for _kind, address in accesses:
                bank = address[dim].const % factor
                banks[bank] = banks.get(bank, 0) + 1
            if max(banks.values()) <= RAM_PORTS * ii:
                break
        else:
            continue
        if (constants_only and extent <= COMPLETE_LIMIT) or factor >= extent:
            candidate = (extent, ArrayPartition("complete", dim + 1, 0))
        else:
            candidate = (factor, ArrayPartition("cyclic", dim + 1, factor))
        if best is None or candidate[0] < best[0]:
            best = candidate
    return best[1] if best is not None else None


# ---- one array, however many functions it reaches ------------------------------------------------------


class _ArrayClasses:
    """Arrays joined across calls: a call's memref operand and the callee's parameter are one array."""

    def __init__(self, functions: dict[str, ir.Operation]) -> None:
        self.functions = functions
        self.parent: dict[ir.Value, ir.Value] = {}
        for func in functions.values():
            for op in _ops(func):
                if op.name != "func.call" or upstream.callee(op) not in functions:
                    continue
                params = functions[upstream.callee(op)].regions[0].blocks[0].arguments
                for operand, param in zip(op.operands, params):
                    if isinstance(operand.type, ir.MemRefType):
                        self._join(operand, param)

    def _find(self, value: ir.Value) -> ir.Value:
        while self.parent.get(value, value) != value:
            value = self.parent[value]
        return value

    def _join(self, a: ir.Value, b: ir.Value) -> None:
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self.parent[rb] = ra

    def members(self, value: ir.Value) -> list[ir.Value]:
        root = self._find(value)
        values = set(self.parent) | set(self.parent.values()) | {value}
        return [v for v in values if self._find(v) == root]

    def excluded(self, value: ir.Value) -> bool:
        """Streams, and arrays the schedule (or this pass) partitioned already."""
        return any(stream_depth(v) is not None or _partitions(v) for v in self.members(value))

    def partition(self, value: ir.Value, partition: ArrayPartition) -> None:
        for member in self.members(value):
            if isinstance(member, ir.BlockArgument):
                func = member.owner.owner.operation
                per_arg = attrs.arg_partitions(func) or [[] for _ in func.regions[0].blocks[0].arguments]
                per_arg[member.arg_number] = [*per_arg[member.arg_number], partition]
                attrs.set_arg_partitions(func, per_arg)
            else:
                attrs.set_buffer_partitions(member.owner, [*attrs.buffer_partitions(member.owner), partition])


def _partitions(value: ir.Value) -> list[ArrayPartition]:
    if isinstance(value, ir.BlockArgument):
        owner = value.owner.owner
        if owner is None or owner.operation.name != "func.func":
            return []
        per_arg = attrs.arg_partitions(owner.operation) or []
        return per_arg[value.arg_number] if value.arg_number < len(per_arg) else []
    return attrs.buffer_partitions(value.owner)


def _ops(op: ir.Operation) -> list[ir.Operation]:
    found = []
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                found.append(child.operation)
                found.extend(_ops(child.operation))
    return found
