"""Outline groups of stages of the top function into private `Stage_...` functions (HeteroCL outline).

A group is a StageSet or a list of stage names (one function holding them, in program order) or
a StageRange: the two stages and every stage on a dataflow path between them. All
groups of a design are planned in one pass over one analysis of the program (outline_plan), so
an APIError leaves the module untouched and the cost is linear in the number of stages; then
the stages move into new functions and a `func.call` takes the place of each group's last
stage. See docs/IR.md for the conventions kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from mlir.dialects import func as func_d
from mlir.ir import (
    Block,
    BlockArgument,
    FunctionType,
    InsertionPoint,
    Location,
    Module,
    Operation,
    Value,
    WalkOrder,
    WalkResult,
)

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.attrs import ArrayPartition
from hclbuild.compiler.passes.outline_analysis import (
    ALLOC_OPS,
    READ,
    WRITE,
    AccessAnalysis,
    block_ops,
    callee_name,
    defined_inside,
    defining_op,
    dtype_of_type,
    entry_block,
    find_top_function,
    functions,
    is_memref,
    ops_inside,
    symbol_name,
)
from hclbuild.compiler.passes.outline_plan import Group, GroupPlan, StageProgram, plan_groups
from hclbuild.errors import APIError
from hclbuild.schedule.schedule import StageRange, StageSet

# ---------------------------------------------------------------- rewriting


@dataclass
class _Arg:
    """One argument of a new function: the caller's value and its C-level description."""

    value: Value
    name: str
    dtype: str
    partitions: list[ArrayPartition]


def _describe(value: Value, top: Operation, fallback: str) -> tuple[str, str, list[ArrayPartition]]:
    """(name, dtype name, partitions) of a caller value, from its alloc or the caller's attributes."""
    if isinstance(value, BlockArgument) and value.owner.owner.operation == top:
        k = value.arg_number
        names = attrs.arg_names(top) or []
        types = attrs.arg_types(top) or []
        parts = attrs.arg_partitions(top) or []
        return (
            names[k] if k < len(names) else fallback,
            types[k] if k < len(types) else dtype_of_type(value.type),
            parts[k] if k < len(parts) else [],
        )
    op = defining_op(value)
    if op is not None:
        return (
            attrs.buffer_name(op) or fallback,
            attrs.buffer_dtype(op) or dtype_of_type(value.type),
            attrs.buffer_partitions(op),
        )
    return fallback, dtype_of_type(value.type), []


def c_identifier(name: str) -> str:
    """`name` made a C identifier (non-word characters become `_`, no leading digit)."""
    ident = re.sub(r"\W", "_", name, flags=re.ASCII) or "v"
    return f"v_{ident}" if ident[0].isdigit() else ident


def unique_names(names: Sequence[str]) -> list[str]:
    """`names` as C identifiers, later duplicates suffixed `_1`, `_2`... (deterministic)."""
    taken: set[str] = set()
    out = []
    for name in names:
        base = c_identifier(name)
        candidate, k = base, 0
        while candidate in taken:
            k += 1
            candidate = f"{base}_{k}"
        taken.add(candidate)
        out.append(candidate)
    return out


def _constant_key(op: Operation) -> str:
    return f"{op.name} {upstream.constant_value(op)} : {op.results[0].type}"


class _Outliner:
    """Applies resolved plans to the module, one group at a time."""

    def __init__(self, module: Module, top: Operation, analysis: AccessAnalysis) -> None:
        self.module = module
        self.top = top
        self.analysis = analysis
        # the top's original op order: moved allocs keep it in their new function
        self.position = {op: k for k, op in enumerate(block_ops(entry_block(top)))}
        # unify candidates in module order; hashed only when a group asks, each at most once
        self._unhashed = [f for f in functions(module) if attrs.is_outlined(f)]
        self._by_structure: dict[tuple, str] = {}

    def outline(self, plan: GroupPlan, stage_ops: dict[str, Operation]) -> str:
        stages = [stage_ops[s] for s in plan.stages]
        inside = ops_inside(stages)
        memref_events = self.analysis.events(stages)
        outside_values = self._outside_operands(stages, inside)

        local_allocs: list[Operation] = []
        clones: list[Operation] = []
        memref_args: list[Value] = []
        scalar_args: list[Value] = []
        for value in outside_values:
            op = defining_op(value)
            if op is not None and op.name in ("arith.constant", "memref.get_global"):
                clones.append(op)
            elif op is not None and is_memref(value) and self._is_local(value, inside):
                local_allocs.append(op)
            elif not is_memref(value):
                scalar_args.append(value)
        # memrefs read (first-read order), then written but never read (first-write order)
        is_local = {op.results[0] for op in local_allocs}
        is_clone = {op.results[0] for op in clones}
        for wanted in (READ, WRITE):
            for value, kind in memref_events:
                if kind == wanted and value not in memref_args and value not in is_local | is_clone:
                    memref_args.append(value)
        # memrefs used without a load/store (e.g. only their dims) still need passing
        for value in outside_values:
            if is_memref(value) and value not in memref_args and value not in is_local | is_clone:
                memref_args.append(value)
        args = self._describe_args(memref_args + scalar_args)
        func_op, block, ret = self._create_function(plan, args)

        # buffers first, as at the top of any function (docs/IR.md), then the cloned constants
        for alloc in sorted(local_allocs, key=self.position.__getitem__):
            alloc.move_before(ret)
        mapping: dict[Value, Value] = {a.value: block.arguments[k] for k, a in enumerate(args)}
        seen_constants: dict[str, Value] = {}
        for op in clones:
            key = _constant_key(op) if op.name == "arith.constant" else upstream.global_symbol(op)
            if key not in seen_constants:
                seen_constants[key] = op.clone(ip=InsertionPoint(ret)).results[0]
            mapping[op.results[0]] = seen_constants[key]
        with InsertionPoint(stages[-1]), Location.unknown(self.module.context):
            call = func_d.CallOp([], plan.func_name, [a.value for a in args]).operation
        attrs.set_outlined_stages(call, plan.stages)
        for stage in stages:
            stage.move_before(ret)
        for dealloc in self._deallocs(local_allocs):
            dealloc.move_before(ret)
        self._remap(stages, mapping)

        if plan.unify:
            twin = self._find_twin(func_op)
            if twin is not None:
                func_op.erase()
                upstream.set_callee(call, twin)
                return twin
        self._unhashed.append(func_op)
        return plan.func_name

    def _outside_operands(self, stages: Sequence[Operation], inside: set[Operation]) -> list[Value]:
        """Values used inside the group but defined outside it, in first-use order."""
        seen: dict[Value, None] = {}

        def visit(op: Operation) -> WalkResult:
            for operand in op.operands:
                if operand not in seen and not defined_inside(operand, inside):
                    seen[operand] = None
            return WalkResult.ADVANCE

        for stage in stages:
            stage.walk(visit, WalkOrder.PRE_ORDER)
        return list(seen)

    def _is_local(self, value: Value, inside: set[Operation]) -> bool:
        """An alloc without operands whose uses (deallocs aside) all lie inside the group."""
        op = defining_op(value)
        if op is None or op.name not in ALLOC_OPS or len(op.operands) != 0:
            return False
        for use in value.uses:
            owner = use.owner.operation
            if owner.name != "memref.dealloc" and owner not in inside:
                return False
        return True

    def _deallocs(self, allocs: Sequence[Operation]) -> list[Operation]:
        out: list[Operation] = []
        for alloc in allocs:
            out.extend(
                u.owner.operation for u in alloc.results[0].uses if u.owner.operation.name == "memref.dealloc"
            )
        return out

    def _describe_args(self, values: Sequence[Value]) -> list[_Arg]:
        described = [_describe(v, self.top, f"arg{k}") for k, v in enumerate(values)]
        names = unique_names([d[0] for d in described])
        return [_Arg(v, n, d[1], d[2]) for v, n, d in zip(values, names, described)]

    def _create_function(self, plan: GroupPlan, args: Sequence[_Arg]) -> tuple[Operation, Block, Operation]:
        ctx = self.module.context
        with InsertionPoint(self.top), Location.unknown(ctx):
            fn = func_d.FuncOp(plan.func_name, FunctionType.get([a.value.type for a in args], []))
            block = fn.add_entry_block()
            with InsertionPoint(block):
                ret = func_d.ReturnOp([]).operation
        upstream.set_private(fn)
        attrs.mark_outlined(fn)
        attrs.set_outlined_stages(fn, plan.stages)
        attrs.set_arg_names(fn, [a.name for a in args])
        attrs.set_arg_types(fn, [a.dtype for a in args])
        attrs.set_arg_partitions(fn, [a.partitions for a in args])
        return fn.operation, block, ret

    def _remap(self, roots: Sequence[Operation], mapping: dict[Value, Value]) -> None:
        """Point every use of a caller value inside the moved ops at its function-side value."""

        def visit(op: Operation) -> WalkResult:
            for operand in list(op.operands):
                if operand in mapping:
                    op.replace_uses_of_with(operand, mapping[operand])
            return WalkResult.ADVANCE

        for root in roots:
            root.walk(visit, WalkOrder.PRE_ORDER)

    def _find_twin(self, func_op: Operation) -> str | None:
        """An earlier outlined function structurally identical to `func_op`, by name."""
        for other in self._unhashed:
            self._by_structure.setdefault(_function_structure(other), symbol_name(other))
        self._unhashed.clear()
        return self._by_structure.get(_function_structure(func_op))


def _function_structure(func_op: Operation) -> tuple:
    """What makes two outlined functions interchangeable: types, dtypes, partitions, body ops."""
    header = (
        str(upstream.function_type(func_op)),
        tuple(attrs.arg_types(func_op) or ()),
        tuple(tuple(parts) for parts in attrs.arg_partitions(func_op) or ()),
    )
    numbers: dict[Value, int] = {}
    body: list[tuple] = []

    def number(value: Value) -> int:
        if value not in numbers:
            numbers[value] = len(numbers)
        return numbers[value]

    def visit(op: Operation) -> WalkResult:
        if op == func_op:
            for arg in entry_block(op).arguments:
                number(arg)
            return WalkResult.ADVANCE
        kept = attrs.structural_attributes(op)
        blocks = tuple(
            tuple((number(arg), str(arg.type)) for arg in blk.arguments)
            for region in op.regions
            for blk in region.blocks
        )
        body.append(
            (
                op.name,
                tuple(number(v) for v in op.operands),
                tuple((number(r), str(r.type)) for r in op.results),
                tuple(kept),
                blocks,
            )
        )
        return WalkResult.ADVANCE

    func_op.walk(visit, WalkOrder.PRE_ORDER)
    return header, tuple(body)


# ---------------------------------------------------------------- public API


def outline_stages(
    module: Module, groups: Sequence[Group], unify: bool | Sequence[bool] = False, names: Sequence[str] = ()
) -> list[str]:
    """Outline each group of stages of the `hcl.top` function into one function; return their names.

    HeteroCL: `s.outline(*stage_lists, unify=False)`. A group is a list of stage names or
    a StageRange. `unify=True` reuses an earlier outlined function with an identical
    body; a list gives the flag per group (all of a schedule's s.outline() requests in one pass).
    `names` gives each group's function name (the schedule's); by default Stage_<stages>.
    """
    if isinstance(groups, (str, StageSet, StageRange)):
        raise APIError(f"outline: groups must be a list of groups, got {groups!r}")
    groups = list(groups)
    flags = [bool(unify)] * len(groups) if isinstance(unify, bool) else [bool(u) for u in unify]
    if len(flags) != len(groups):
        raise APIError(f"outline: {len(flags)} unify flags for {len(groups)} groups")
    top = find_top_function(module)
    analysis = AccessAnalysis(module)
    program = StageProgram(top, analysis)
    existing = {symbol_name(f) for f in functions(module)}
    if names and len(names) != len(groups):
        raise APIError(f"outline: {len(names)} function names for {len(groups)} groups")
    plans = plan_groups(program, groups, flags, existing, names)
    outliner = _Outliner(module, top, analysis)
    return [outliner.outline(plan, program.stage_ops) for plan in plans]


@dataclass(frozen=True)
class OutlinePass:
    """Pass form of `outline_stages`: groups and unify are options, run() returns function names."""

    name: ClassVar[str] = "outline"
    groups: Sequence[Group] = ()
    unify: bool = False

    def run(self, module: Module) -> list[str]:
        """Outline `groups` in `module` (in place)."""
        return outline_stages(module, list(self.groups), unify=self.unify)


# the module queries moved to outline_analysis; verify, instrument and split_functions import them here
__all__ = [
    "AccessAnalysis",
    "OutlinePass",
    "callee_name",
    "dtype_of_type",
    "find_top_function",
    "functions",
    "outline_stages",
    "symbol_name",
]
