"""A function's structure as the estimate reads it: its memories and its tree of loops, calls and ops.

The tree keeps the MLIR ops themselves (the body scheduler reads them); what it adds is what a
loop is to Vitis: its C label (as the HLS emitter writes it, `l_<stage>_<loop>` made unique in the
function), its trip count (a constant, or a range where the bounds move with an outer loop:
gaussian's `i` from `j + 1`), its directives (hcl.pipeline_ii, hcl.unroll, hcl.dataflow through
compiler/attrs) and its children. Memories are the function's array arguments and local buffers,
with their partitions: a local of at most COMPLETE_THRESHOLD elements is registers, as Vitis
partitions it completely (`syn.array_partition.complete_threshold`, default 4, UG1399). A
`memref.get_global` of a constant global (an hcl.const_tensor) keeps the table's values, so the
scheduler can fold a read of it at a constant address (schedule.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TypeAlias

import numpy as np
from mlir import ir

from hclbuild import c_names
from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.attrs import ArrayPartition
from hclbuild.compiler.dense import dense_array
from hclbuild.compiler.passes.stream import stream_depth
from hclbuild.compiler.work_estimate import constant_loop_bounds

COMPLETE_THRESHOLD = 4
LOOP_OPS = frozenset({"affine.for", "scf.for", "scf.while"})
LOADS = frozenset({"memref.load", "affine.load"})
STORES = frozenset({"memref.store", "affine.store"})

Range = tuple[int, int]


@dataclass(frozen=True)
class Memory:
    """An array argument or local buffer of a function."""

    value: ir.Value
    name: str
    shape: tuple[int, ...]
    width: int  # bits of an element
    argument: bool
    partitions: tuple[ArrayPartition, ...]
    stream: bool
    table: np.ndarray | None = None  # a constant global's values (an hcl.const_tensor), else None

    @property
    def elements(self) -> int:
        return math.prod(self.shape) if self.shape else 1

    @property
    def registers(self) -> bool:
        """Held in registers (read and written anywhere at once): a small local, or every dimension
        partitioned completely."""
        complete = {p.dim for p in self.partitions if p.kind == "complete"}
        if 0 in complete or (self.shape and complete >= set(range(1, len(self.shape) + 1))):
            return True
        return not self.argument and not self.stream and self.elements <= COMPLETE_THRESHOLD

    def __hash__(self) -> int:
        return hash(self.name) ^ id(self)

    def __eq__(self, other: object) -> bool:
        return self is other


@dataclass(eq=False)
class LoopNode:
    """A loop: its label, trips, directives and children (ops, loops, ifs, calls in order)."""

    op: ir.Operation
    uid: int
    name: str
    label: str
    lower: int | None
    step: int | None
    trips: Range | None  # (fewest, most); None when unbounded
    pipeline_ii: int | None
    unroll: int | None  # 0 full, n a factor
    dataflow: bool
    children: list[Node] = field(default_factory=list)

    @property
    def constant_trips(self) -> int | None:
        if self.trips is None or self.trips[0] != self.trips[1]:
            return None
        return self.trips[0]

    @property
    def iv(self) -> ir.Value | None:
        if self.op.name == "scf.while":
            return None
        return self.op.regions[0].blocks[0].arguments[0]

    def loops(self) -> list[LoopNode]:
        return [child for child in self.children if isinstance(child, LoopNode)]


@dataclass(eq=False)
class IfNode:
    """An scf.if holding loops or calls (one without them stays an op of its block)."""

    op: ir.Operation
    branches: list[list[Node]]


Node: TypeAlias = "LoopNode | IfNode | ir.Operation"


@dataclass
class FunctionStructure:
    """One function: its name, memories (by SSA value) and top-level tree."""

    name: str
    op: ir.Operation
    memories: dict[ir.Value, Memory]
    children: list[Node]
    dataflow: bool

    def all_loops(self) -> list[LoopNode]:
        found: list[LoopNode] = []

        def walk(nodes: list[Node]) -> None:
            for node in nodes:
                if isinstance(node, LoopNode):
                    found.append(node)
                    walk(node.children)
                elif isinstance(node, IfNode):
                    for branch in node.branches:
                        walk(branch)

        walk(self.children)
        return found


def element_width(element: ir.Type) -> int:
    if isinstance(element, ir.IntegerType):
        return int(ir.IntegerType(element).width)
    if isinstance(element, ir.F64Type):
        return 64
    if isinstance(element, ir.F16Type | ir.BF16Type):
        return 16
    if isinstance(element, ir.IndexType):
        return 64
    return 32


def _memory(
    value: ir.Value,
    name: str,
    argument: bool,
    partitions: list[ArrayPartition],
    table: np.ndarray | None = None,
) -> Memory | None:
    if not isinstance(value.type, ir.MemRefType):
        return None
    memref = ir.MemRefType(value.type)
    return Memory(
        value=value,
        name=name,
        shape=tuple(int(d) for d in memref.shape),
        width=element_width(memref.element_type),
        argument=argument,
        partitions=tuple(partitions),
        stream=stream_depth(value) is not None,
        table=table,
    )


def function_structure(func: ir.Operation) -> FunctionStructure:
    """The memories and loop tree of one func.func with a body."""
    name = upstream.symbol_name(func)
    block = func.regions[0].blocks[0]
    memories: dict[ir.Value, Memory] = {}
    names = attrs.arg_names(func) or []
    partitions = attrs.arg_partitions(func, f"@{name}") or []
    for index, value in enumerate(block.arguments):
        arg_name = names[index] if index < len(names) else f"arg{index}"
        found = _memory(value, arg_name, True, partitions[index] if index < len(partitions) else [])
        if found is not None:
            memories[value] = found
    builder = _TreeBuilder(func, memories)
    children = builder.block(block, [], {})
    return FunctionStructure(name, func, memories, children, attrs.is_dataflow(func))


class _TreeBuilder:
    def __init__(self, func: ir.Operation, memories: dict[ir.Value, Memory]) -> None:
        self.func = func
        self.memories = memories
        # the values of the constant tables this function reads, by symbol (decoded once each)
        self.tables: dict[str, np.ndarray | None] = {}
        self.labels: set[str] = set()
        self.uids = 0

    def table(self, symbol: str) -> np.ndarray | None:
        """The values of constant global `symbol` (an hcl.const_tensor), None for a writable one."""
        if symbol not in self.tables:
            found = upstream.module_global(self.func, symbol)
            value = upstream.constant_global_value(found) if found is not None else None
            self.tables[symbol] = dense_array(value) if value is not None else None
        return self.tables[symbol]

    def block(self, block: ir.Block, stages: list[str], ranges: dict[ir.Value, Range]) -> list[Node]:
        nodes: list[Node] = []
        for child in block.operations:
            op = child.operation
            if op.name in ("memref.alloc", "memref.alloca", "memref.get_global"):
                found = _memory(
                    op.results[0],
                    attrs.buffer_name(op) or f"buffer{len(self.memories)}",
                    False,
                    attrs.buffer_partitions(op),
                    self.table(upstream.global_symbol(op)) if op.name == "memref.get_global" else None,
                )
                if found is not None:
                    self.memories[op.results[0]] = found
                continue
            if op.name in LOOP_OPS:
                nodes.append(self.loop(op, stages, ranges))
            elif op.name == "scf.if" and _holds_structure(op):
                nodes.append(
                    IfNode(op, [self.block(b, stages, ranges) for r in op.regions for b in r.blocks])
                )
            else:
                nodes.append(op)
        return nodes

    def loop(self, op: ir.Operation, stages: list[str], ranges: dict[ir.Value, Range]) -> LoopNode:
        stage = attrs.stage_name(op)
        inner_stages = stages + [c_names.sanitize(stage)] if stage is not None else stages
        loop_name = attrs.loop_name(op) or "loop"
        base = (
            f"l_{inner_stages[-1]}_{c_names.sanitize(loop_name)}"
            if inner_stages
            else f"l_{c_names.sanitize(loop_name)}"
        )
        label = c_names.unique(base, self.labels)
        self.labels.add(label)
        directives = attrs.loop_directives(op)
        lower, step, trips = _bounds(op, ranges)
        self.uids += 1
        node = LoopNode(
            op=op,
            uid=self.uids,
            name=loop_name,
            label=label,
            lower=lower,
            step=step,
            trips=trips,
            pipeline_ii=directives.pipeline_ii,
            unroll=directives.unroll,
            dataflow=directives.dataflow,
        )
        inner = dict(ranges)
        if node.iv is not None and lower is not None and trips is not None and step is not None:
            inner[node.iv] = (lower, lower + step * max(trips[1] - 1, 0))
        for region in op.regions:
            for block in region.blocks:
                node.children.extend(self.block(block, inner_stages, inner))
        return node


def _holds_structure(op: ir.Operation) -> bool:
    """Whether an scf.if holds a loop or a call somewhere inside."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                inner = child.operation
                if inner.name in LOOP_OPS or inner.name == "func.call":
                    return True
                if inner.name == "scf.if" and _holds_structure(inner):
                    return True
    return False


def _bounds(op: ir.Operation, ranges: dict[ir.Value, Range]) -> tuple[int | None, int | None, Range | None]:
    """(lower, step, trips range) of a loop; trips None when no bound is known."""
    most = attrs.max_trip(op)
    constant = constant_loop_bounds(op)
    if constant is not None:
        lo, hi, step = constant
        trips = max(0, -(-(hi - lo) // step))
        return lo, step, (trips, trips)
    if op.name == "scf.for":
        lo_r, hi_r, step_r = (value_range(v, ranges) for v in list(op.operands)[:3])
        if lo_r is not None and hi_r is not None and step_r is not None and step_r[0] == step_r[1] > 0:
            step = step_r[0]
            fewest = max(0, -(-(hi_r[0] - lo_r[1]) // step))
            largest = max(0, -(-(hi_r[1] - lo_r[0]) // step))
            if most is not None:
                largest = min(largest, most)
            return (lo_r[0] if lo_r[0] == lo_r[1] else None), step, (fewest, largest)
    if most is not None:
        return None, None, (0, most)
    return None, None, None


def value_range(value: ir.Value, ranges: dict[ir.Value, Range]) -> Range | None:
    """The (least, largest) an integer value can take, from constants and the ranges of loop
    variables; None where unknown (a value read from memory)."""
    if value in ranges:
        return ranges[value]
    if not isinstance(value, ir.OpResult):
        return None
    op = value.owner
    name = op.name
    if name == "arith.constant":
        try:
            number = ir.IntegerAttr(upstream.constant_value(op)).value
        except (ValueError, TypeError):
            return None
        return (number, number)
    args = [value_range(v, ranges) for v in op.operands]
    if any(a is None for a in args):
        return None
    if name in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci"):
        return args[0]
    if len(args) != 2:
        return None
    (a0, a1), (b0, b1) = args  # type: ignore[misc]
    if name == "arith.addi":
        return (a0 + b0, a1 + b1)
    if name == "arith.subi":
        return (a0 - b1, a1 - b0)
    if name == "arith.muli":
        products = [a0 * b0, a0 * b1, a1 * b0, a1 * b1]
        return (min(products), max(products))
    if name in ("arith.maxsi", "arith.maxui"):
        return (max(a0, b0), max(a1, b1))
    if name in ("arith.minsi", "arith.minui"):
        return (min(a0, b0), min(a1, b1))
    if name in ("arith.ceildivsi", "arith.divsi", "arith.floordivsi", "arith.divui") and b0 == b1 and b0 > 0:
        if name == "arith.ceildivsi":
            return (-(-a0 // b0), -(-a1 // b0))
        return (a0 // b0, a1 // b0)
    return None


__all__ = [
    "COMPLETE_THRESHOLD",
    "FunctionStructure",
    "IfNode",
    "LoopNode",
    "Memory",
    "Node",
    "element_width",
    "function_structure",
    "value_range",
]
