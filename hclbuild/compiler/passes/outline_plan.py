"""Planning for the outline pass: resolve groups to stages, check them, replay the moves.

The planner works on an abstract copy of the top function (one item per top-level op, with the
outside memrefs it reads and writes), so a group that cannot be outlined raises APIError before
the module changes. The program is analysed once for all groups. Dataflow edges only go forward
in program order, so every path between two stages stays between their positions: each check
searches only the window its group spans, and outlining N single-stage groups costs O(N).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from mlir.ir import Operation, Value

from hclbuild.compiler import attrs
from hclbuild.compiler.passes.outline_analysis import (
    ALLOC_OPS,
    AccessAnalysis,
    block_ops,
    callee_name,
    entry_block,
    symbol_name,
)
from hclbuild.errors import APIError, CompileError
from hclbuild.schedule.function_names import default_function_name
from hclbuild.schedule.schedule import StageRange, StageSet

# a group: a record of the schedule, or (for passes called directly) a list of stage names / one name
Group = StageSet | StageRange | Sequence[str] | str


@dataclass(frozen=True)
class StageItem:
    """One top-level op of the top function, as the planner sees it."""

    label: str  # a stage name, or "@callee" for calls
    stages: tuple[str, ...]
    reads: frozenset
    writes: frozenset


@dataclass(frozen=True)
class GroupPlan:
    """One resolved group: its stages in program order, its function name, whether to unify it."""

    stages: tuple[str, ...]
    func_name: str
    spec: str  # how the user wrote the group, for messages
    unify: bool = False


class StageProgram:
    """The stages of the top function, their accesses and the dataflow graph between them."""

    def __init__(self, top: Operation, analysis: AccessAnalysis) -> None:
        self.top = top
        self.items: list[StageItem] = []
        self.stage_ops: dict[str, Operation] = {}
        self.duplicated: set[str] = set()
        self.value_names: dict[Value, str] = memref_names(top)
        for op in block_ops(entry_block(top)):
            reads, writes = analysis.reads_writes([op])
            stage = attrs.stage_name(op)
            if stage is not None:
                if stage in self.stage_ops:
                    # only an error if a group names it: other stages may still be outlined
                    self.duplicated.add(stage)
                self.stage_ops.setdefault(stage, op)
                self.items.append(StageItem(stage, (stage,), frozenset(reads), frozenset(writes)))
            elif reads or writes:
                label = f"@{callee_name(op)}" if op.name == "func.call" else op.name
                self.items.append(StageItem(label, (), frozenset(reads), frozenset(writes)))
        self.order = [item.label for item in self.items if item.stages]
        self.position = {stage: k for k, stage in enumerate(self.order)}
        # edge T -> S when S reads a memref that T, earlier in program order, writes
        self.succ: dict[str, dict[str, None]] = {s: {} for s in self.order}
        self.pred: dict[str, dict[str, None]] = {s: {} for s in self.order}
        writers: dict[Value, list[str]] = {}
        for item in self.items:
            if not item.stages:
                continue
            for value in item.reads:
                for producer in writers.get(value, ()):
                    self.succ[producer][item.label] = None
                    self.pred[item.label][producer] = None
            for value in item.writes:
                writers.setdefault(value, []).append(item.label)

    def reachable(
        self, starts: Sequence[str], edges: dict[str, dict[str, None]], lo: int, hi: int
    ) -> set[str]:
        """Stages at positions lo..hi reachable from `starts` (excluded) following `edges`."""
        seen: set[str] = set()
        todo = [n for s in starts for n in edges[s]]
        while todo:
            node = todo.pop()
            if node not in seen and lo <= self.position[node] <= hi:
                seen.add(node)
                todo.extend(edges[node])
        return seen

    def check_stage(self, stage: object, spec: str) -> str:
        """`stage` if it names one stage of the top function, else APIError (CompileError if twice)."""
        if not isinstance(stage, str):
            raise APIError(f"outline: stage names must be strings, got {stage!r} in {spec}")
        if stage not in self.stage_ops:
            known = ", ".join(self.order) or "none"
            raise APIError(f"outline: unknown stage '{stage}' in {spec} (stages: {known})")
        if stage in self.duplicated:
            raise CompileError(f"outline: stage '{stage}' appears more than once in @{symbol_name(self.top)}")
        return stage

    def resolve(self, group: Group, unify: bool = False, function: str = "") -> GroupPlan:
        """The stages of one group in program order, with its function name (`function`, the
        schedule's name for it, or Stage_<stages>)."""
        if isinstance(group, StageRange):
            plan = self._resolve_range(group.start, group.end, unify)
            return replace(plan, func_name=function) if function else plan
        if isinstance(group, StageSet):
            group = list(group.stages)
        if isinstance(group, str):
            group = [group]
        if not isinstance(group, Sequence) or not group:
            raise APIError(f"outline: a group must be a non-empty list of stage names, got {group!r}")
        spec = "[" + ", ".join(str(s) for s in group) + "]"
        names = [self.check_stage(s, spec) for s in group]
        if len(set(names)) != len(names):
            dup = next(s for k, s in enumerate(names) if s in names[:k])
            raise APIError(f"outline: stage '{dup}' is listed twice in {spec}")
        stages = tuple(sorted(names, key=self.position.__getitem__))
        return GroupPlan(stages, function or default_function_name(stages), spec, unify)

    def _resolve_range(self, start: object, end: object, unify: bool) -> GroupPlan:
        spec = f"range({start!r}, {end!r})"
        start, end = self.check_stage(start, spec), self.check_stage(end, spec)
        lo, hi = self.position[start], self.position[end]
        if lo > hi:
            raise APIError(f"outline: {spec}: start stage '{start}' comes after end stage '{end}'")
        if start == end:
            return GroupPlan((start,), default_function_name([start]), spec, unify)
        downstream = self.reachable([start], self.succ, lo, hi)
        if end not in downstream:
            raise APIError(f"outline: {spec} is not connected: no dataflow path from '{start}' to '{end}'")
        between = downstream & self.reachable([end], self.pred, lo, hi)
        stages = tuple(s for s in self.order[lo : hi + 1] if s in between or s in (start, end))
        return GroupPlan(stages, default_function_name([start, end]), spec, unify)

    def check_convex(self, plan: GroupPlan) -> None:
        """APIError naming a stage outside the group that consumes from it and feeds into it."""
        if len(plan.stages) == 1:
            return  # edges go forward, so nothing both follows and precedes one stage
        members = set(plan.stages)
        lo = min(self.position[s] for s in plan.stages)
        hi = max(self.position[s] for s in plan.stages)
        downstream = self.reachable(plan.stages, self.succ, lo, hi) - members
        upstream = self.reachable(plan.stages, self.pred, lo, hi) - members
        for stage in self.order[lo : hi + 1]:
            if stage in downstream and stage in upstream:
                raise APIError(
                    f"outline: {plan.spec} is not convex: stage '{stage}' consumes from the group "
                    "and feeds into it"
                )

    def simulate(self, plans: Sequence[GroupPlan]) -> None:
        """Replay the moves on the abstract program; APIError if one would reorder dependent ops.

        Each group's stages move down to its last stage, where the call goes; an op in between
        that a moved stage must stay before is a conflict. Merged groups stay in the list as one
        item (at the call's place), dead entries are skipped, so indices never shift.
        """
        items = list(self.items)
        alive = [True] * len(items)
        index = {item.label: k for k, item in enumerate(items) if item.stages}
        for plan in plans:
            members = set(plan.stages)
            where = sorted(index[stage] for stage in plan.stages)
            for k in range(where[0] + 1, where[-1]):
                other = items[k]
                if not alive[k] or (other.stages and other.label in members):
                    continue
                for m in where:
                    if m >= k:
                        break
                    self._check_move(plan, items[m], other)
            last = where[-1]
            items[last] = StageItem(
                f"@{plan.func_name}",
                plan.stages,
                frozenset().union(*(items[k].reads for k in where)),
                frozenset().union(*(items[k].writes for k in where)),
            )
            for k in where[:-1]:
                alive[k] = False

    def _check_move(self, plan: GroupPlan, moved: StageItem, other: StageItem) -> None:
        """`moved` goes from before `other` to after it: they must not touch a memref in conflict."""
        kind = "stage" if other.stages else "op"
        where = f"outline: cannot move stage '{moved.label}' of {plan.spec} after {kind} '{other.label}'"
        used = sorted(self._value_name(v) for v in moved.writes & (other.reads | other.writes))
        if used:
            raise APIError(f"{where}: '{other.label}' uses '{used[0]}' that '{moved.label}' writes")
        overwritten = sorted(self._value_name(v) for v in moved.reads & other.writes)
        if overwritten:
            raise APIError(f"{where}: '{other.label}' writes '{overwritten[0]}' that '{moved.label}' reads")

    def _value_name(self, value: Value) -> str:
        return self.value_names.get(value, "<memref>")


def memref_names(top: Operation) -> dict[Value, str]:
    """Readable names of the top function's arguments and allocs."""
    names: dict[Value, str] = {}
    block = entry_block(top)
    arg_names = attrs.arg_names(top) or []
    for k, arg in enumerate(block.arguments):
        names[arg] = arg_names[k] if k < len(arg_names) else f"arg{k}"
    for op in block_ops(block):
        name = attrs.buffer_name(op) if op.name in ALLOC_OPS else None
        if name is not None:
            names[op.results[0]] = name
    return names


def plan_groups(
    program: StageProgram,
    groups: Sequence[Group],
    unify: Sequence[bool],
    existing: set[str],
    names: Sequence[str] = (),
) -> list[GroupPlan]:
    """Resolve and check every group (unify[k] and names[k], if given, for groups[k]) against the
    one analysed program."""
    given = list(names) or [""] * len(groups)
    plans = [program.resolve(g, u, n) for g, u, n in zip(groups, unify, given)]
    owner: dict[str, str] = {}
    for plan in plans:
        for stage in plan.stages:
            if stage in owner:
                raise APIError(f"outline: stage '{stage}' is outlined twice ({owner[stage]} and {plan.spec})")
            owner[stage] = plan.spec
    made: set[str] = set()
    for plan in plans:
        if plan.func_name in existing or plan.func_name in made:
            raise APIError(f"outline: {plan.spec}: a function @{plan.func_name} already exists")
        made.add(plan.func_name)
        program.check_convex(plan)
    program.simulate(plans)
    return plans


__all__ = ["Group", "GroupPlan", "StageItem", "StageProgram", "memref_names", "plan_groups"]
