"""Which loops Vitis pipelines, unrolls and flattens, and what each costs in cycles.

Rules (UG1399, checked against calibration/):

- A loop with `hcl.pipeline_ii` is pipelined at that II target; every loop inside it is unrolled
  completely. `hcl.unroll = 0` unrolls a loop completely; `hcl.unroll = n` on a pipelined loop
  makes each pipelined iteration n of the original ones.
- Loops without directives (Vitis HLS 2020.1 on, `syn.compile.pipeline_loops` 64): an innermost
  loop is pipelined; where its trip count is below the threshold (or at it, for a loop that only
  accumulates into one address, whose own pipeline would be bound by the recurrence) its parent is
  pipelined instead and the loop unrolled, unless the parent's trip count is not a constant (lap
  gaussian) or the innermost loop carries a directive of its own. Vivado HLS does not pipeline by
  itself.
- A pipelined loop whose parent holds nothing but it (and address arithmetic) is flattened into it,
  upwards while that holds and its own bounds are constants (the outer one may vary): one pipeline
  of the product of the trips.
- A pipelined loop takes (TC - 1) * II + depth; II = max(requested, memory-port-limited,
  recurrence-limited) (schedule.py). Each pipelined loop is a sub-module of its function (Vitis
  2022 on): two cycles to start and finish it. A sequential loop takes TC * (its body + 2 cycles,
  + 1 per sub-loop it calls); a loop of one trip is its body.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from mlir import ir

from hclbuild.compiler.array_access import Form, access_subscript
from hclbuild.compiler.estimate.devices import OperatorTable
from hclbuild.compiler.estimate.records import LoopEstimate
from hclbuild.compiler.estimate.schedule import BodyResult, BodyScheduler
from hclbuild.compiler.estimate.structure import STORES, IfNode, LoopNode, Memory, Node

AUTO_PIPELINE_THRESHOLD = 64
MODULE_OVERHEAD = 2  # cycles to start and finish a pipelined loop's sub-module
Latency = tuple[int, int] | None  # (best, worst) cycles; None when unbounded


def parse_version(version: str | None) -> tuple[int, int]:
    """(year, release) of a Vitis version string ("2023.2" -> (2023, 2)); recent when unknown."""
    if not version:
        return (2025, 1)
    parts = version.split(".")
    try:
        return (int(parts[0]), int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 1)
    except ValueError:
        return (2025, 1)


@dataclass
class LoopPlan:
    """What Vitis does with each loop (by uid)."""

    pipelined: dict[int, tuple[int, str]] = field(default_factory=dict)  # uid -> (II asked, why)
    unrolled: set[int] = field(default_factory=set)
    removed: set[int] = field(default_factory=set)  # loops of one trip: their body stands in their place
    flattened_into: dict[int, list[LoopNode]] = field(default_factory=dict)  # outermost uid -> chain
    absorbed: set[int] = field(default_factory=set)  # inner loops of a flattened chain


def plan_loops(children: list[Node], version: tuple[int, int]) -> LoopPlan:
    plan = LoopPlan()
    auto = version >= (2020, 1)

    def has_pipeline(loop: LoopNode) -> bool:
        return loop.pipeline_ii is not None or any(has_pipeline(c) for c in loop.loops())

    def mark_unrolled(loop: LoopNode) -> None:
        for child in _all_loops(loop.children):
            plan.unrolled.add(child.uid)

    def visit(nodes: list[Node], parent: LoopNode | None, inside_pipeline: bool) -> None:
        for node in nodes:
            if isinstance(node, IfNode):
                for branch in node.branches:
                    visit(branch, parent, inside_pipeline)
                continue
            if not isinstance(node, LoopNode):
                continue
            if node.trips == (1, 1) and node.pipeline_ii is None:
                plan.unrolled.add(node.uid)  # Vitis removes a loop of one trip
                if not inside_pipeline:
                    plan.removed.add(node.uid)
                visit(node.children, parent, inside_pipeline)
                continue
            if inside_pipeline or node.unroll == 0:
                plan.unrolled.add(node.uid)
                visit(node.children, node, True)
                continue
            if node.pipeline_ii is not None:
                plan.pipelined[node.uid] = (node.pipeline_ii, "requested")
                mark_unrolled(node)
                continue
            inner = [c for c in _all_loops(node.children) if c.unroll != 0 and c.trips != (1, 1)]
            if not inner and auto and not has_pipeline(node):
                pick = _auto_pipeline_target(node, parent)
                if pick is node:
                    plan.pipelined[node.uid] = (1, "automatic")
                    mark_unrolled(node)
                elif pick is not None and pick.uid not in plan.pipelined:
                    plan.pipelined[pick.uid] = (1, "automatic")
                    mark_unrolled(pick)
                continue
            visit(node.children, node, False)

    visit(children, None, False)
    # a parent the rule picked may have had other children visited first: drop plans inside it
    for uid in list(plan.pipelined):
        if uid in plan.unrolled:
            del plan.pipelined[uid]
    _flatten(children, plan)
    return plan


def _all_loops(nodes: list[Node]) -> list[LoopNode]:
    found: list[LoopNode] = []
    for node in nodes:
        if isinstance(node, LoopNode):
            found.append(node)
            found.extend(_all_loops(node.children))
        elif isinstance(node, IfNode):
            for branch in node.branches:
                found.extend(_all_loops(branch))
    return found


def _auto_pipeline_target(loop: LoopNode, parent: LoopNode | None) -> LoopNode | None:
    trips = loop.constant_trips
    if parent is None or loop.unroll is not None or trips is None or parent.constant_trips is None:
        return loop
    if parent.pipeline_ii is not None or parent.unroll is not None:
        return loop
    siblings = [s for s in _all_loops(parent.children) if s.trips != (1, 1)]
    small = trips < AUTO_PIPELINE_THRESHOLD or (trips == AUTO_PIPELINE_THRESHOLD and _accumulates(loop))
    if not small:
        return loop
    for sibling in siblings:
        if sibling is loop:
            continue
        if (
            sibling.constant_trips is None
            or [x for x in _all_loops(sibling.children) if x.trips != (1, 1)]
            or (sibling.constant_trips > AUTO_PIPELINE_THRESHOLD)
        ):
            return loop
    return parent


def _accumulates(loop: LoopNode) -> bool:
    """Whether the loop stores to an address that does not move with its own variable."""
    if loop.iv is None:
        return False
    forms: dict[ir.Value, Form | None] = {loop.iv: Form(((loop.uid, 1),), 0)}
    for node in loop.children:
        if isinstance(node, ir.Operation) and node.name in STORES:
            address = access_subscript(node, forms)
            # an outer loop's variable has no form here (None): it does not move with this loop
            if all(f is None or loop.uid not in f.loops() for f in address):
                return True
    return False


def _only_child(loop: LoopNode) -> LoopNode | None:
    """The single loop a loop holds when nothing else but index arithmetic is beside it."""
    inner = None
    for node in loop.children:
        if isinstance(node, LoopNode):
            if inner is not None:
                return None
            inner = node
        elif (
            isinstance(node, IfNode)
            or node.name in STORES
            or node.name.endswith("load")
            or node.name == "func.call"
            or (
                node.name not in ("affine.yield", "scf.yield")
                and not all(isinstance(r.type, ir.IndexType) for r in node.results)
            )
        ):
            return None
    return inner


def _flatten(children: list[Node], plan: LoopPlan) -> None:
    parents: dict[int, LoopNode] = {}
    for loop in _all_loops(children):
        for child in loop.loops():
            parents[child.uid] = loop
    for uid in list(plan.pipelined):
        chain = [next(loop for loop in _all_loops(children) if loop.uid == uid)]
        while True:
            inner = chain[0]
            outer = parents.get(inner.uid)
            if (
                outer is None
                or inner.constant_trips is None
                or outer.uid in plan.unrolled
                or outer.uid in plan.pipelined
                or outer.dataflow
                or outer.pipeline_ii is not None
                or _only_child(outer) is not inner
            ):
                break
            chain.insert(0, outer)
        plan.flattened_into[chain[0].uid] = chain
        plan.absorbed.update(loop.uid for loop in chain[1:])


@dataclass
class Costing:
    """Everything latency needs: the device table, memories, callees, the plan, Vitis's habits."""

    table: OperatorTable
    memories: dict[ir.Value, Memory]
    callee_latency: Callable[[str], int]
    auto_partitioned: Callable[[Memory], bool]
    plan: LoopPlan
    shares_pipeline_cores: bool = False  # Vitis 2023 on: a pipeline at II n shares a core n ways
    loops: list[LoopEstimate] = field(default_factory=list)
    dsp: int = 0
    operators: Counter[str] = field(default_factory=Counter)
    pipeline_depths: list[int] = field(default_factory=list)
    # constant tables read at constant addresses somewhere, and those read at run-time addresses
    tables_folded: set[Memory] = field(default_factory=set)
    tables_read: set[Memory] = field(default_factory=set)
    # the variables of the sequential loops around what is being scheduled, as affine forms: a
    # subscript like tmp1[i][j] is then one known address while the inner loop runs
    outer_forms: dict[ir.Value, Form | None] = field(default_factory=dict)

    # ---- sequences --------------------------------------------------------------------------------
    def sequence(self, nodes: list[Node]) -> tuple[Latency, int]:
        """(latency, loop items) of nodes run one after another."""
        best = worst = 0
        items = 0
        block: list[Node] = []
        unbounded = False

        def flush() -> None:
            nonlocal best, worst
            if block:
                depth = self.block(list(block))
                best += depth
                worst += depth
                block.clear()

        for node in nodes:
            if isinstance(node, LoopNode) and node.uid in self.plan.removed and _all_loops(node.children):
                flush()
                inner, inner_items = self.sequence(node.children)
                items += inner_items
                if inner is None:
                    unbounded = True
                else:
                    best += inner[0]
                    worst += inner[1]
            elif isinstance(node, LoopNode) and node.uid not in self.plan.unrolled:
                flush()
                latency = self.loop(node)
                items += 1
                if latency is None:
                    unbounded = True
                else:
                    best += latency[0]
                    worst += latency[1]
            elif isinstance(node, IfNode):
                flush()
                branches = [self.sequence(branch)[0] for branch in node.branches]
                if any(b is None for b in branches):
                    unbounded = True
                else:
                    best += min((b[0] for b in branches if b is not None), default=0)
                    worst += max((b[1] for b in branches if b is not None), default=0)
                items += 1
            else:
                block.append(node)
        flush()
        return (None if unbounded else (best, worst)), items

    def block(self, nodes: list[Node]) -> int:
        scheduler = self.scheduler(None, None, dict(self.outer_forms))
        result = scheduler.run(nodes)
        self.tables(result)
        self.dsp += result.dsp
        self.operators.update(result.operators)
        return result.depth

    def tables(self, result: BodyResult) -> None:
        self.tables_folded |= result.tables_folded
        self.tables_read |= result.tables_read

    @property
    def folded_tables(self) -> set[Memory]:
        """Constant tables only ever read at constant addresses: Vitis keeps no memory for them."""
        return self.tables_folded - self.tables_read

    def scheduler(
        self, carried: int | None, ii: int | None, forms: dict[ir.Value, Form | None]
    ) -> BodyScheduler:
        return BodyScheduler(
            self.table, self.memories, self.callee_latency, self.auto_partitioned, carried, ii, forms
        )

    # ---- one loop ---------------------------------------------------------------------------------
    def loop(self, loop: LoopNode) -> Latency:
        if loop.uid in self.plan.pipelined:
            return self.pipelined(self.plan.flattened_into.get(loop.uid, [loop]))
        if (
            loop.uid in self.plan.flattened_into
            and self.plan.flattened_into[loop.uid][-1].uid in self.plan.pipelined
        ):
            return self.pipelined(self.plan.flattened_into[loop.uid])
        if loop.iv is not None:
            self.outer_forms[loop.iv] = Form(((loop.uid, loop.step or 1),), loop.lower or 0)
        if loop.trips == (1, 1):
            return self.sequence(loop.children)[0]
        body, items = self.sequence(loop.children)
        trips = loop.trips
        if body is None or trips is None:
            self.record(loop, trips, None, None, "not pipelined", None, None)
            return None
        extra = items + 2 if items else 1
        iteration = (body[0] + extra, body[1] + extra)
        latency = (trips[0] * iteration[0], trips[1] * iteration[1])
        self.record(loop, trips, None, None, "not pipelined", iteration[1], latency[1])
        return latency

    def pipelined(self, chain: list[LoopNode]) -> Latency:
        inner = chain[-1]
        requested, why = self.plan.pipelined[inner.uid]
        factor = inner.unroll if inner.unroll and inner.unroll > 1 else 1
        trips_range = _product([loop.trips for loop in chain[:-1]] + [_divided(inner.trips, factor)])
        forms: dict[ir.Value, Form | None] = dict(self.outer_forms)
        for loop in chain[:-1]:
            if loop.iv is not None:
                forms[loop.iv] = Form(((loop.uid, loop.step or 1),), loop.lower or 0)
        first = self.run_lanes(inner, factor, forms, None)
        ii = max(requested, first.port_ii, first.recurrence, first.bank_ii)
        if ii == requested:
            reason = f"{why} II={requested}" if why == "requested" else "II=1 (pipelined automatically)"
        elif first.bank_ii == ii and first.recurrence < ii and first.port_ii < ii:
            reason = first.bank_reason
        elif first.recurrence >= first.port_ii:
            reason = first.recurrence_reason
        else:
            reason = first.port_reason
        final = self.run_lanes(inner, factor, forms, ii)
        self.tables(final)
        depth = max(final.depth, 1)
        if self.shares_pipeline_cores and ii > 1:
            self.dsp += sum(
                -(-count // ii) * final.dsp_per_core.get(kind, 0) for kind, count in final.operators.items()
            )
        else:
            self.dsp += final.dsp
        self.operators.update(final.operators)
        self.pipeline_depths.append(depth)
        if trips_range is None:
            self.record(chain[0], None, requested, ii, reason, depth, None, chain)
            return None
        latency = tuple((max(t, 1) - 1) * ii + depth if t else 0 for t in trips_range)
        self.record(chain[0], trips_range, requested, ii, reason, depth, latency[1], chain)
        for loop in chain[1:]:
            self.record(
                loop, trips_range, requested, ii, f"flattened into {chain[0].label}", depth, latency[1]
            )
        return (latency[0] + MODULE_OVERHEAD, latency[1] + MODULE_OVERHEAD)

    def run_lanes(self, loop: LoopNode, factor: int, forms: dict[ir.Value, Form | None], ii: int | None):  # type: ignore[no-untyped-def]
        scheduler = self.scheduler(loop.uid, ii, forms)
        step = loop.step or 1
        for lane in range(factor):
            if loop.iv is not None:
                scheduler.forms[loop.iv] = Form(((loop.uid, step * factor),), (loop.lower or 0) + lane * step)
            scheduler.nodes(loop.children, 0.0)
        return scheduler.run([])

    def record(
        self,
        loop: LoopNode,
        trips: tuple[int, int] | None,
        requested: int | None,
        ii: int | None,
        reason: str,
        iteration: int | None,
        latency: int | None,
        chain: list[LoopNode] | None = None,
    ) -> None:
        self.loops.append(
            LoopEstimate(
                label=loop.label,
                trip_count=trips[1] if trips else None,
                ii_requested=requested,
                ii=ii,
                limited_by=reason,
                iteration_latency=iteration,
                latency=latency,
                trip_count_min=trips[0] if trips else None,
                flattened=tuple(item.label for item in chain) if chain and len(chain) > 1 else (),
            )
        )


def _divided(trips: tuple[int, int] | None, factor: int) -> tuple[int, int] | None:
    if trips is None:
        return None
    return (math.ceil(trips[0] / factor), math.ceil(trips[1] / factor))


def _product(ranges: list[tuple[int, int] | None]) -> tuple[int, int] | None:
    low = high = 1
    for item in ranges:
        if item is None:
            return None
        low *= item[0]
        high *= item[1]
    return (low, high)


__all__ = ["AUTO_PIPELINE_THRESHOLD", "Costing", "LoopPlan", "parse_version", "plan_loops"]
