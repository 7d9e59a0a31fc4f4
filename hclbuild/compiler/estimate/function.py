"""Functions: an outlined call costs its callee's latency (inline off, as the emitter's pragmas
ask); a dataflow function (or loop) takes its slowest process plus the others' fill; everything
else runs its top-level items one after another, a cycle between two. estimate_module walks the
module callees first.

m_axi arguments are not modelled (their latency depends on the bus, bursts and the memory
behind it): estimate_module raises HCLNotImplementedError naming them, so a caller can estimate
them as ap_memory and say so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mlir import ir

from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.estimate.devices import operator_table
from hclbuild.compiler.estimate.loops import Costing, parse_version, plan_loops
from hclbuild.compiler.estimate.records import FunctionEstimate, Resources
from hclbuild.compiler.estimate.resources import function_resources
from hclbuild.compiler.estimate.structure import Memory, Node, function_structure
from hclbuild.compiler.passes.constant_values import defined_functions
from hclbuild.compiler.passes.stream import stream_depth
from hclbuild.errors import HCLNotImplementedError

AUTO_PARTITION_FROM = (2023, 1)
# a pipeline at II n binds each operator kind to ceil(count / n) cores: the 2023.2 reports do
# (atax_36b6a539's lp1 at II 2: 64 fmul + 64 fadd lanes, 160 DSP), the 2022.2 ones do not
# (lap/matvec at II 15: 30 multipliers, 90 DSP)
SHARE_CORES_FROM = (2023, 1)  # syn.array_partition.throughput_driven: Vitis partitions local arrays


def estimate_module(
    module: ir.Module,
    *,
    part: str,
    clock_ns: float,
    vitis_version: str | None = None,
    m_axi: Mapping[str, Iterable[str]] | None = None,
) -> dict[str, FunctionEstimate]:
    """The estimate of every function with a body, by name.

    `m_axi` names, per function, the arguments the project makes m_axi ports: not modelled, so
    HCLNotImplementedError names them."""
    for function, arguments in (m_axi or {}).items():
        names = sorted(arguments)
        if names:
            raise HCLNotImplementedError(
                f"estimate: m_axi argument(s) {', '.join(names)} of {function} are not modelled "
                "(estimate them as ap_memory)"
            )
    table = operator_table(part, clock_ns)
    version = parse_version(vitis_version)
    results: dict[str, FunctionEstimate] = {}
    with module.context:
        bodies = {name: fn.operation for fn, name in defined_functions(module)}
        for name in _callees_first(bodies):
            results[name] = _estimate_function(bodies[name], table, version, results, part, clock_ns)
    return results


def _callees_first(bodies: dict[str, ir.Operation]) -> list[str]:
    order: list[str] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        for callee in _callees(bodies[name]):
            if callee in bodies:
                visit(callee)
        order.append(name)

    for name in bodies:
        visit(name)
    return order


def _callees(func: ir.Operation) -> list[str]:
    found: list[str] = []

    def walk(op: ir.Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    if child.operation.name == "func.call":
                        found.append(upstream.callee(child.operation))
                    walk(child.operation)

    walk(func)
    return found


def _accessed_here(func: ir.Operation, memories: Mapping[ir.Value, Memory]) -> set[ir.Value]:
    """The arrays an operation of this function (other than a call) reads or writes: Vitis can only
    partition an array by itself for accesses it schedules, so a top's buffer that is only passed
    from one call to the next stays one RAM (its BRAM is its size, not one block per row)."""
    found: set[ir.Value] = set()

    def walk(op: ir.Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    if child.operation.name != "func.call":
                        found.update(v for v in child.operation.operands if v in memories)
                    walk(child.operation)

    walk(func)
    return found


def _estimate_function(
    func: ir.Operation,
    table: object,
    version: tuple[int, int],
    done: dict[str, FunctionEstimate],
    part: str,
    clock_ns: float,
) -> FunctionEstimate:
    structure = function_structure(func)
    plan = plan_loops(structure.children, version)

    def callee_latency(name: str) -> int:
        estimate = done.get(name)
        return estimate.latency_max or 0 if estimate is not None else 0

    def auto_partitioned(memory: Memory) -> bool:
        return version >= AUTO_PARTITION_FROM and not memory.argument and not memory.stream

    costing = Costing(
        table,  # type: ignore[arg-type]
        structure.memories,
        callee_latency,
        auto_partitioned,
        plan,
        shares_pipeline_cores=version >= SHARE_CORES_FROM,
    )
    if structure.dataflow:
        latency, interval = _dataflow(costing, structure.children, done)
    else:
        body, items = costing.sequence(structure.children)
        latency = None if body is None else (body[0] + items, body[1] + items)
        interval = None if latency is None else latency[1] + 1
    callee_resources = Resources()
    for callee in dict.fromkeys(_callees(func)):
        if callee in done:
            callee_resources = callee_resources + done[callee].resources
    accessed = _accessed_here(func, structure.memories)
    resources = function_resources(
        costing.dsp,
        costing.operators,
        structure.memories.values(),
        lambda memory: auto_partitioned(memory) and memory.value in accessed,
        costing.pipeline_depths,
        len(structure.all_loops()),
        costing.folded_tables,
    )
    return FunctionEstimate(
        function=structure.name,
        part=part,
        clock_ns=clock_ns,
        latency_min=None if latency is None else latency[0],
        latency_max=None if latency is None else latency[1],
        interval=interval,
        loops=tuple(costing.loops),
        resources=resources + callee_resources,
    )


def _dataflow(
    costing: Costing, children: list[Node], done: dict[str, FunctionEstimate]
) -> tuple[tuple[int, int] | None, int | None]:
    """Processes overlap: the slowest sets the interval, and the latency adds each other process's
    fill. A process joined to the next by a stream passes on its first element after its fill (its
    latency less its longest loop's, plus that loop's first iteration); one joined by an array (a
    ping-pong buffer) only when it has finished, so its fill is all of its latency."""
    processes: list[tuple[tuple[int, int], int]] = []
    for node in children:
        single = costing.sequence([node])[0]
        if single is None:
            return None, None
        if single[1] <= 0:
            continue
        fill = single[1]
        if isinstance(node, ir.Operation) and node.name == "func.call":
            callee = done.get(upstream.callee(node))
            streamed = any(stream_depth(value) is not None for value in node.operands)
            if callee is not None and streamed and callee.loops:
                longest = max(callee.loops, key=lambda loop: loop.latency or 0)
                if longest.latency and longest.iteration_latency:
                    fill = single[1] - longest.latency + longest.iteration_latency
        processes.append((single, fill))
    if not processes:
        return (0, 0), 1
    slowest = max(range(len(processes)), key=lambda k: processes[k][0][1])
    fills = sum(fill for k, (_, fill) in enumerate(processes) if k != slowest)
    best, worst = processes[slowest][0]
    return (best + fills, worst + fills), worst


__all__ = ["estimate_module"]
