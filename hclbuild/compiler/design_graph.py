"""The design as a graph: stages as nodes, tensors as edges, each function a box around its stages.

Read from the IR contract (docs/IR.md) of the whole design after outlining: a stage is a top-level
op with `hcl.op_name`; a `func.call` of an `hcl.outlined` function stands for that function's stages,
drawn inside its box; an edge goes from the last stage that wrote a tensor to each stage that reads
it (top-level inputs come from "inputs", the design's outputs go to "outputs"). A tensor that
`s.to` made a stream (its alloc carries `hcl.stream`) is marked as a stream. Plain data out, so
the report can draw it without MLIR.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.errors import CompileError

INPUTS = "inputs"
OUTPUTS = "outputs"


@dataclass(frozen=True)
class GraphStage:
    """One stage and the function whose body holds it."""

    name: str
    function: str


@dataclass(frozen=True)
class GraphEdge:
    """A tensor written by `source` and read by `target` (INPUTS / OUTPUTS at the design's edges)."""

    source: str
    target: str
    tensor: str
    stream: bool = False


@dataclass
class DesignGraph:
    """Stages, tensors between them, and the function tree (`parents[f]` is the function calling f)."""

    top: str
    functions: list[str] = field(default_factory=list)
    parents: dict[str, str] = field(default_factory=dict)
    stages: list[GraphStage] = field(default_factory=list)
    edges: list[GraphEdge] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict of the graph."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DesignGraph:
        """The graph back from to_json."""
        return cls(
            top=data["top"],
            functions=list(data["functions"]),
            parents=dict(data["parents"]),
            stages=[GraphStage(**s) for s in data["stages"]],
            edges=[GraphEdge(**e) for e in data["edges"]],
        )


def design_graph(module: ir.Module) -> DesignGraph:
    """The graph of a design module (the one with an `hcl.top` function)."""
    functions = {}
    for op in module.body.operations:
        if op.operation.name == "func.func" and len(op.operation.regions[0].blocks):
            functions[upstream.symbol_name(op)] = op.operation
    tops = [name for name, op in functions.items() if attrs.is_top(op)]
    if len(tops) != 1:
        raise CompileError(f"design_graph: expected one hcl.top function, found {len(tops)}")
    builder = _GraphBuilder(functions)
    top = functions[tops[0]]
    names = attrs.arg_names(top) or []
    ports = attrs.arg_streams(top) or [None] * len(names)
    block = top.regions[0].blocks[0]
    tensors = {arg: _Tensor(name, port is not None) for arg, name, port in zip(block.arguments, names, ports)}
    graph = builder.graph
    graph.top = tops[0]
    graph.functions.append(tops[0])
    for tensor in tensors.values():
        builder.writer[tensor.name] = INPUTS
    builder.visit(top, tops[0], tensors)
    streams = {tensor.name: tensor.stream for tensor in tensors.values()}
    for name in names:
        # a top argument some stage wrote is an output of the design (in place or not)
        source = builder.writer.get(name)
        if source is not None and source != INPUTS:
            graph.edges.append(GraphEdge(source, OUTPUTS, name, streams[name]))
    return graph


@dataclass(frozen=True)
class _Tensor:
    name: str
    stream: bool


class _GraphBuilder:
    def __init__(self, functions: dict[str, ir.Operation]):
        self.functions = functions
        self.graph = DesignGraph(top="")
        self.writer: dict[str, str] = {}

    def visit(self, func: ir.Operation, func_name: str, tensors: dict[Any, _Tensor]) -> None:
        block = func.regions[0].blocks[0]
        for op in block.operations:
            operation = op.operation
            name = attrs.buffer_name(operation) if operation.name == "memref.alloc" else None
            if name is not None:
                stream = attrs.buffer_stream_depth(operation) is not None
                tensors[operation.results[0]] = _Tensor(name, stream)
                continue
            if operation.name == "func.call":
                callee = upstream.callee(operation)
                target = self.functions.get(callee)
                if target is not None and attrs.is_outlined(target):
                    self._call(operation, callee, target, func_name, tensors)
                    continue
            stage = attrs.stage_name(operation)
            if stage is None:
                continue
            self.graph.stages.append(GraphStage(stage, func_name))
            reads, writes = _accesses(operation)
            for value in reads:
                tensor = tensors.get(value)
                if tensor is not None and tensor.name in self.writer and self.writer[tensor.name] != stage:
                    edge = GraphEdge(self.writer[tensor.name], stage, tensor.name, tensor.stream)
                    if edge not in self.graph.edges:
                        self.graph.edges.append(edge)
            for value in writes:
                tensor = tensors.get(value)
                if tensor is not None:
                    self.writer[tensor.name] = stage

    def _call(
        self, call: ir.Operation, callee: str, target: ir.Operation, caller: str, tensors: dict[Any, _Tensor]
    ) -> None:
        if callee not in self.graph.functions:
            self.graph.functions.append(callee)
            self.graph.parents[callee] = caller
        inner: dict[Any, _Tensor] = {}
        for arg, operand in zip(target.regions[0].blocks[0].arguments, call.operands):
            if operand in tensors:
                inner[arg] = tensors[operand]
        self.visit(target, callee, inner)


def _accesses(operation: ir.Operation) -> tuple[list[Any], list[Any]]:
    """Memrefs the op loads from and stores to, anywhere inside it (first-use order)."""
    reads: list[Any] = []
    writes: list[Any] = []

    def walk(op: ir.Operation) -> None:
        name = op.name
        if name in ("memref.load", "affine.load"):
            if op.operands[0] not in reads:
                reads.append(op.operands[0])
        elif name in ("memref.store", "affine.store"):
            if op.operands[1] not in writes:
                writes.append(op.operands[1])
        elif name == "func.call":
            # a def_ function or a nested call: its memref operands may be read and written
            for operand in op.operands:
                if isinstance(operand.type, ir.MemRefType):
                    for bucket in (reads, writes):
                        if operand not in bucket:
                            bucket.append(operand)
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    walk(child.operation)

    walk(operation)
    return reads, writes
