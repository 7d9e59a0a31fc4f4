"""Outline groups of stages of the top function into private `Stage_...` functions (HeteroCL outline).

A group is a list of stage names (one function holding them, in program order) or a range
`("range", start, end)`: the two stages and every stage on a dataflow path between them. The
pass plans every group on an abstract copy of the program first, so an APIError leaves the
module untouched, then moves the stages into new functions and leaves a `func.call` where the
last stage of each group was. See docs/IR.md for the conventions kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from mlir.dialects import func as func_d
from mlir.ir import (
    ArrayAttr,
    Block,
    BlockArgument,
    FlatSymbolRefAttr,
    FloatType,
    FunctionType,
    IndexType,
    InsertionPoint,
    IntegerType,
    Location,
    MemRefType,
    Module,
    Operation,
    OpResult,
    StringAttr,
    Type,
    UnitAttr,
    Value,
    WalkOrder,
    WalkResult,
)

from hclbuild.errors import APIError, CompileError

StageList = Sequence[str]
StageRange = tuple[str, str, str]
Group = StageList | StageRange | str

# Ops whose result is a view of operand 0: accesses through the view are accesses of the base.
_VIEW_OPS = frozenset(
    {
        "memref.subview",
        "memref.cast",
        "memref.reinterpret_cast",
        "memref.collapse_shape",
        "memref.expand_shape",
        "memref.reshape",
        "memref.view",
        "memref.transpose",
        "memref.memory_space_cast",
    }
)
# operand index of the memref each op reads / writes
_READ_OPERAND = {"memref.load": 0, "affine.load": 0, "affine.vector_load": 0, "vector.load": 0}
_WRITE_OPERAND = {"memref.store": 1, "affine.store": 1, "affine.vector_store": 1, "vector.store": 1}
# ops that use a memref without touching its contents
_NO_ACCESS_OPS = frozenset(
    {
        "memref.dim",
        "memref.rank",
        "memref.dealloc",
        "memref.extract_aligned_pointer_as_index",
        "memref.extract_strided_metadata",
    }
)
_ALLOC_OPS = frozenset({"memref.alloc", "memref.alloca"})
# attributes that name things rather than describe structure (ignored when unifying)
_NAMING_ATTRS = frozenset({"op_name", "loop_name", "name"})

READ, WRITE = "read", "write"


# ---------------------------------------------------------------- module helpers


def functions(module: Module) -> list[Operation]:
    """The `func.func` ops at module level, in module order."""
    return [op.operation for op in module.body.operations if op.operation.name == "func.func"]


def symbol_name(op: Operation) -> str:
    """The `sym_name` of a function op."""
    return StringAttr(op.attributes["sym_name"]).value


def find_top_function(module: Module, stage: str = "outline") -> Operation:
    """The function carrying `hcl.top`; CompileError naming `stage` if there is none or several."""
    tops = [f for f in functions(module) if "hcl.top" in f.attributes]
    if len(tops) != 1:
        raise CompileError(f"{stage}: expected one func.func with hcl.top, found {len(tops)}")
    return tops[0]


def callee_name(call: Operation) -> str:
    """The function a `func.call` names."""
    return FlatSymbolRefAttr(call.attributes["callee"]).value


def string_list(op: Operation, attr: str) -> list[str] | None:
    """An ArrayAttr of StringAttr attribute as a list, or None when absent."""
    if attr not in op.attributes:
        return None
    return [StringAttr(a).value for a in ArrayAttr(op.attributes[attr])]


def dtype_of_type(ty: Type) -> str:
    """A DSL dtype name for an MLIR scalar type when no hcl.dtype says better (signless is int)."""
    if isinstance(ty, MemRefType):
        ty = ty.element_type
    if isinstance(ty, IntegerType):
        return "uint1" if ty.width == 1 else f"int{ty.width}"
    if isinstance(ty, IndexType):
        return "index"
    if isinstance(ty, FloatType) and str(ty) in ("f16", "f32", "f64"):
        return f"float{ty.width}"
    return str(ty)


def _block_ops(block: Block) -> list[Operation]:
    return [op.operation for op in block.operations]


def _entry_block(func_op: Operation) -> Block:
    return func_op.regions[0].blocks[0]


def _is_memref(value: Value) -> bool:
    return isinstance(value.type, MemRefType)


def _defining_op(value: Value) -> Operation | None:
    if isinstance(value, OpResult):
        return value.owner.operation
    return None


# ---------------------------------------------------------------- memory accesses


class AccessAnalysis:
    """Which memrefs defined outside an op the op reads and writes, following calls into callees."""

    def __init__(self, module: Module) -> None:
        self._funcs = {symbol_name(f): f for f in functions(module)}
        self._callee_cache: dict[str, list[tuple[int, str]]] = {}
        self._in_progress: set[str] = set()

    def events(self, roots: Sequence[Operation]) -> list[tuple[Value, str]]:
        """(outside memref, READ|WRITE) for every access in `roots` (pre-order, program order)."""
        inside = _ops_inside(roots)
        base: dict[Value, Value] = {}  # inside view -> the outside memref it aliases
        out: list[tuple[Value, str]] = []

        def root_of(value: Value) -> Value | None:
            if value in base:
                return base[value]
            if _is_memref(value) and not _defined_inside(value, inside):
                return value
            return None

        def visit(op: Operation) -> WalkResult:
            name = op.name
            operands = list(op.operands)
            if name in _VIEW_OPS and operands:
                src = root_of(operands[0])
                if src is not None:
                    for res in op.results:
                        base[res] = src
                return WalkResult.ADVANCE
            if name in _READ_OPERAND:
                src = root_of(operands[_READ_OPERAND[name]])
                if src is not None:
                    out.append((src, READ))
                return WalkResult.ADVANCE
            if name in _WRITE_OPERAND:
                src = root_of(operands[_WRITE_OPERAND[name]])
                if src is not None:
                    out.append((src, WRITE))
                return WalkResult.ADVANCE
            if name in _NO_ACCESS_OPS:
                return WalkResult.ADVANCE
            effects = self._call_effects(op) if name == "func.call" else None
            for k, operand in enumerate(operands):
                src = root_of(operand)
                if src is None:
                    continue
                if name == "memref.copy":
                    kinds = (READ,) if k == 0 else (WRITE,)
                elif effects is not None:
                    kinds = tuple(kind for idx, kind in effects if idx == k)
                else:
                    # unknown op: assume the worst so that no reordering is wrongly allowed
                    kinds = (READ, WRITE)
                out.extend((src, kind) for kind in kinds)
            return WalkResult.ADVANCE

        for root in roots:
            root.walk(visit, WalkOrder.PRE_ORDER)
        return out

    def reads_writes(self, roots: Sequence[Operation]) -> tuple[set[Value], set[Value]]:
        """The sets of outside memrefs read and written by `roots`."""
        reads: set[Value] = set()
        writes: set[Value] = set()
        for value, kind in self.events(roots):
            (reads if kind == READ else writes).add(value)
        return reads, writes

    def _call_effects(self, call: Operation) -> list[tuple[int, str]] | None:
        """(argument index, READ|WRITE) pairs of a call, or None when the callee is opaque."""
        name = callee_name(call)
        callee = self._funcs.get(name)
        if callee is None or not callee.regions[0].blocks or name in self._in_progress:
            return None
        if name not in self._callee_cache:
            self._in_progress.add(name)
            try:
                block = _entry_block(callee)
                index = {arg: k for k, arg in enumerate(block.arguments)}
                effects = []
                for value, kind in self.events(_block_ops(block)):
                    if value in index and (index[value], kind) not in effects:
                        effects.append((index[value], kind))
                self._callee_cache[name] = effects
            finally:
                self._in_progress.discard(name)
        return self._callee_cache[name]


def _ops_inside(roots: Sequence[Operation]) -> set[Operation]:
    inside: set[Operation] = set()

    def add(op: Operation) -> WalkResult:
        inside.add(op)
        return WalkResult.ADVANCE

    for root in roots:
        root.walk(add, WalkOrder.PRE_ORDER)
    return inside


def _defined_inside(value: Value, inside: set[Operation]) -> bool:
    if isinstance(value, BlockArgument):
        return value.owner.owner.operation in inside
    return value.owner.operation in inside


# ---------------------------------------------------------------- planning


@dataclass(frozen=True)
class _Item:
    """One top-level op of the top function, as the planner sees it."""

    label: str  # a stage name, or "@callee" for calls
    stages: tuple[str, ...]
    reads: frozenset
    writes: frozenset


@dataclass(frozen=True)
class _Plan:
    """One resolved group: its stages in program order and its function name."""

    stages: tuple[str, ...]
    func_name: str
    spec: str  # how the user wrote the group, for messages


class _Program:
    """The stages of the top function, their accesses and the dataflow graph between them."""

    def __init__(self, module: Module, top: Operation, analysis: AccessAnalysis) -> None:
        self.top = top
        self.analysis = analysis
        self.items: list[_Item] = []
        self.stage_ops: dict[str, Operation] = {}
        self.duplicated: set[str] = set()
        self.value_names: dict[Value, str] = _memref_names(top)
        for op in _block_ops(_entry_block(top)):
            reads, writes = analysis.reads_writes([op])
            if "op_name" in op.attributes:
                stage = StringAttr(op.attributes["op_name"]).value
                if stage in self.stage_ops:
                    # only an error if a group names it: other stages may still be outlined
                    self.duplicated.add(stage)
                self.stage_ops.setdefault(stage, op)
                self.items.append(_Item(stage, (stage,), frozenset(reads), frozenset(writes)))
            elif reads or writes:
                label = f"@{callee_name(op)}" if op.name == "func.call" else op.name
                self.items.append(_Item(label, (), frozenset(reads), frozenset(writes)))
        self.order = [item.label for item in self.items if item.stages]
        self.position = {stage: k for k, stage in enumerate(self.order)}
        stage_items = [item for item in self.items if item.stages]
        # edge T -> S when S reads a memref that T, earlier in program order, writes
        self.succ: dict[str, list[str]] = {s: [] for s in self.order}
        self.pred: dict[str, list[str]] = {s: [] for s in self.order}
        for i, producer in enumerate(stage_items):
            for consumer in stage_items[i + 1 :]:
                if producer.writes & consumer.reads:
                    self.succ[producer.label].append(consumer.label)
                    self.pred[consumer.label].append(producer.label)

    def reachable(self, starts: Sequence[str], edges: dict[str, list[str]]) -> set[str]:
        """Stages reachable from `starts` (excluded unless on a cycle) following `edges`."""
        seen: set[str] = set()
        todo = [n for s in starts for n in edges[s]]
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(edges[node])
        return seen

    def check_stage(self, stage: object, spec: str) -> str:
        if not isinstance(stage, str):
            raise APIError(f"outline: stage names must be strings, got {stage!r} in {spec}")
        if stage not in self.stage_ops:
            known = ", ".join(self.order) or "none"
            raise APIError(f"outline: unknown stage '{stage}' in {spec} (stages: {known})")
        if stage in self.duplicated:
            raise CompileError(f"outline: stage '{stage}' appears more than once in @{symbol_name(self.top)}")
        return stage

    def resolve(self, group: Group) -> _Plan:
        """The stages of one group in program order, with its function name."""
        if isinstance(group, str):
            group = [group]
        if isinstance(group, tuple) and len(group) == 3 and group[0] == "range":
            return self._resolve_range(group[1], group[2])
        if not isinstance(group, Sequence) or not group:
            raise APIError(f"outline: a group must be a non-empty list of stage names, got {group!r}")
        spec = "[" + ", ".join(str(s) for s in group) + "]"
        names = [self.check_stage(s, spec) for s in group]
        dup = next((s for k, s in enumerate(names) if s in names[:k]), None)
        if dup is not None:
            raise APIError(f"outline: stage '{dup}' is listed twice in {spec}")
        stages = tuple(sorted(names, key=self.position.__getitem__))
        return _Plan(stages, "Stage_" + "_".join(stages), spec)

    def _resolve_range(self, start: object, end: object) -> _Plan:
        spec = f"range({start!r}, {end!r})"
        start, end = self.check_stage(start, spec), self.check_stage(end, spec)
        if self.position[start] > self.position[end]:
            raise APIError(f"outline: {spec}: start stage '{start}' comes after end stage '{end}'")
        if start == end:
            return _Plan((start,), f"Stage_{start}", spec)
        downstream = self.reachable([start], self.succ)
        if end not in downstream:
            raise APIError(f"outline: {spec} is not connected: no dataflow path from '{start}' to '{end}'")
        between = downstream & self.reachable([end], self.pred)
        stages = tuple(s for s in self.order if s in between or s in (start, end))
        return _Plan(stages, f"Stage_{start}_{end}", spec)

    def check_convex(self, plan: _Plan) -> None:
        """APIError naming a stage outside the group that consumes from it and feeds into it."""
        members = set(plan.stages)
        downstream = self.reachable(plan.stages, self.succ) - members
        upstream = self.reachable(plan.stages, self.pred) - members
        for stage in self.order:
            if stage in downstream and stage in upstream:
                raise APIError(
                    f"outline: {plan.spec} is not convex: stage '{stage}' consumes from the group "
                    "and feeds into it"
                )

    def simulate(self, plans: Sequence[_Plan]) -> None:
        """Replay the moves on the abstract program; APIError if one would reorder dependent ops."""
        items = list(self.items)
        for plan in plans:
            members = set(plan.stages)
            where = [k for k, item in enumerate(items) if item.stages and item.label in members]
            first, last = where[0], where[-1]
            for k in range(first + 1, last):
                other = items[k]
                if other.stages and other.label in members:
                    continue
                for moved in items[first:k]:
                    if moved.stages and moved.label in members:
                        self._check_move(plan, moved, other)
            merged = _Item(
                f"@{plan.func_name}",
                plan.stages,
                frozenset().union(*(items[k].reads for k in where)),
                frozenset().union(*(items[k].writes for k in where)),
            )
            kept = [item for k, item in enumerate(items) if k not in where[:-1]]
            items = [merged if item is items[last] else item for item in kept]

    def _check_move(self, plan: _Plan, moved: _Item, other: _Item) -> None:
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


def _memref_names(top: Operation) -> dict[Value, str]:
    """Readable names of the top function's arguments and allocs."""
    names: dict[Value, str] = {}
    block = _entry_block(top)
    arg_names = string_list(top, "hcl.arg_names") or []
    for k, arg in enumerate(block.arguments):
        names[arg] = arg_names[k] if k < len(arg_names) else f"arg{k}"
    for op in _block_ops(block):
        if op.name in _ALLOC_OPS and "name" in op.attributes:
            names[op.results[0]] = StringAttr(op.attributes["name"]).value
    return names


# ---------------------------------------------------------------- rewriting


@dataclass
class _Arg:
    """One argument of a new function: the caller's value and its C-level description."""

    value: Value
    name: str
    dtype: str
    partitions: ArrayAttr | None


def _describe(value: Value, top: Operation, fallback: str) -> tuple[str, str, ArrayAttr | None]:
    """(name, dtype name, partitions) of a caller value, from its alloc or the caller's attributes."""
    if isinstance(value, BlockArgument) and value.owner.owner.operation == top:
        k = value.arg_number
        names = string_list(top, "hcl.arg_names") or []
        types = string_list(top, "hcl.arg_types") or []
        parts = (
            ArrayAttr(top.attributes["hcl.arg_partitions"])
            if "hcl.arg_partitions" in top.attributes
            else None
        )
        return (
            names[k] if k < len(names) else fallback,
            types[k] if k < len(types) else dtype_of_type(value.type),
            ArrayAttr(parts[k]) if parts is not None and k < len(parts) else None,
        )
    op = _defining_op(value)
    if op is not None:
        attrs = op.attributes
        name = StringAttr(attrs["name"]).value if "name" in attrs else fallback
        dtype = StringAttr(attrs["hcl.dtype"]).value if "hcl.dtype" in attrs else dtype_of_type(value.type)
        parts = ArrayAttr(attrs["hcl.partition"]) if "hcl.partition" in attrs else None
        return name, dtype, parts
    return fallback, dtype_of_type(value.type), None


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
    return f"{op.name} {op.attributes['value']} : {op.results[0].type}"


class _Outliner:
    """Applies resolved plans to the module, one group at a time."""

    def __init__(self, module: Module, top: Operation, analysis: AccessAnalysis, unify: bool) -> None:
        self.module = module
        self.top = top
        self.analysis = analysis
        self.unify = unify

    def outline(self, plan: _Plan, stage_ops: dict[str, Operation]) -> str:
        stages = [stage_ops[s] for s in plan.stages]
        inside = _ops_inside(stages)
        memref_events = self.analysis.events(stages)
        outside_values = self._outside_operands(stages, inside)

        local_allocs, clones, memref_args, scalar_args = [], [], [], []
        for value in outside_values:
            op = _defining_op(value)
            if op is not None and op.name in ("arith.constant", "memref.get_global"):
                clones.append(op)
            elif _is_memref(value) and self._is_local(value, inside):
                local_allocs.append(op)
            elif not _is_memref(value):
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
            if _is_memref(value) and value not in memref_args and value not in is_local | is_clone:
                memref_args.append(value)
        args = self._describe_args(memref_args + scalar_args)
        func_op, block, ret = self._create_function(plan, args)

        # buffers first, as at the top of any function (docs/IR.md), then the cloned constants
        position = {op: k for k, op in enumerate(_block_ops(_entry_block(self.top)))}
        for alloc in sorted(local_allocs, key=position.__getitem__):
            alloc.move_before(ret)
        mapping: dict[Value, Value] = {a.value: block.arguments[k] for k, a in enumerate(args)}
        seen_constants: dict[str, Value] = {}
        for op in clones:
            key = _constant_key(op) if op.name == "arith.constant" else str(op.attributes["name"])
            if key not in seen_constants:
                seen_constants[key] = op.clone(ip=InsertionPoint(ret)).results[0]
            mapping[op.results[0]] = seen_constants[key]
        with InsertionPoint(stages[-1]), Location.unknown(self.module.context):
            call = func_d.CallOp([], plan.func_name, [a.value for a in args]).operation
        call.attributes["hcl.stages"] = StringAttr.get(",".join(plan.stages), self.module.context)
        for stage in stages:
            stage.move_before(ret)
        for dealloc in self._deallocs(local_allocs):
            dealloc.move_before(ret)
        self._remap(stages, mapping)

        if self.unify:
            twin = self._find_twin(func_op)
            if twin is not None:
                func_op.erase()
                call.attributes["callee"] = FlatSymbolRefAttr.get(twin, self.module.context)
                return twin
        return plan.func_name

    def _outside_operands(self, stages: Sequence[Operation], inside: set[Operation]) -> list[Value]:
        """Values used inside the group but defined outside it, in first-use order."""
        seen: dict[Value, None] = {}

        def visit(op: Operation) -> WalkResult:
            for operand in op.operands:
                if operand not in seen and not _defined_inside(operand, inside):
                    seen[operand] = None
            return WalkResult.ADVANCE

        for stage in stages:
            stage.walk(visit, WalkOrder.PRE_ORDER)
        return list(seen)

    def _is_local(self, value: Value, inside: set[Operation]) -> bool:
        """An alloc without operands whose uses (deallocs aside) all lie inside the group."""
        op = _defining_op(value)
        if op is None or op.name not in _ALLOC_OPS or len(op.operands) != 0:
            return False
        for use in value.uses:
            owner = use.owner.operation
            if owner.name != "memref.dealloc" and owner not in inside:
                return False
        return True

    def _deallocs(self, allocs: Sequence[Operation]) -> list[Operation]:
        out = []
        for alloc in allocs:
            out.extend(
                u.owner.operation for u in alloc.results[0].uses if u.owner.operation.name == "memref.dealloc"
            )
        return out

    def _describe_args(self, values: Sequence[Value]) -> list[_Arg]:
        described = [_describe(v, self.top, f"arg{k}") for k, v in enumerate(values)]
        names = unique_names([d[0] for d in described])
        return [_Arg(v, n, d[1], d[2]) for v, n, d in zip(values, names, described)]

    def _create_function(self, plan: _Plan, args: Sequence[_Arg]) -> tuple[Operation, Block, Operation]:
        ctx = self.module.context
        with InsertionPoint(self.top), Location.unknown(ctx):
            fn = func_d.FuncOp(plan.func_name, FunctionType.get([a.value.type for a in args], []))
            block = fn.add_entry_block()
            with InsertionPoint(block):
                ret = func_d.ReturnOp([]).operation
        attrs = fn.operation.attributes
        attrs["sym_visibility"] = StringAttr.get("private", ctx)
        attrs["hcl.outlined"] = UnitAttr.get(ctx)
        attrs["hcl.stages"] = StringAttr.get(",".join(plan.stages), ctx)
        attrs["hcl.arg_names"] = ArrayAttr.get([StringAttr.get(a.name, ctx) for a in args], ctx)
        attrs["hcl.arg_types"] = ArrayAttr.get([StringAttr.get(a.dtype, ctx) for a in args], ctx)
        if any(a.partitions is not None and len(a.partitions) for a in args):
            empty = ArrayAttr.get([], ctx)
            attrs["hcl.arg_partitions"] = ArrayAttr.get(
                [a.partitions if a.partitions is not None else empty for a in args], ctx
            )
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
        shape = _function_structure(func_op)
        for other in functions(self.module):
            if other == func_op:
                return None
            if "hcl.outlined" in other.attributes and _function_structure(other) == shape:
                return symbol_name(other)
        return None


def _function_structure(func_op: Operation) -> tuple:
    """What makes two outlined functions interchangeable: types, dtypes, partitions, body ops."""
    attrs = func_op.attributes
    header = (
        str(attrs["function_type"]),
        str(attrs["hcl.arg_types"]) if "hcl.arg_types" in attrs else "",
        str(attrs["hcl.arg_partitions"]) if "hcl.arg_partitions" in attrs else "",
    )
    numbers: dict[Value, int] = {}
    body: list[tuple] = []

    def number(value: Value) -> int:
        if value not in numbers:
            numbers[value] = len(numbers)
        return numbers[value]

    def visit(op: Operation) -> WalkResult:
        if op == func_op:
            for arg in _entry_block(op).arguments:
                number(arg)
            return WalkResult.ADVANCE
        attrs = op.attributes
        kept = sorted((key, str(attrs[key])) for key in attrs if key not in _NAMING_ATTRS)
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


def outline_stages(module: Module, groups: Sequence[Group], unify: bool = False) -> list[str]:
    """Outline each group of stages of the `hcl.top` function into one function; return their names.

    HeteroCL: `s.outline(*stage_lists, unify=False)`. A group is a list of stage names or
    `("range", start, end)`. `unify=True` reuses an earlier outlined function with an identical body.
    """
    top = find_top_function(module)
    analysis = AccessAnalysis(module)
    program = _Program(module, top, analysis)
    if isinstance(groups, (str, tuple)) and _looks_like_one_group(groups):
        raise APIError(f"outline: groups must be a list of groups, got {groups!r}")
    plans = [program.resolve(g) for g in groups]
    owner: dict[str, str] = {}
    for plan in plans:
        for stage in plan.stages:
            if stage in owner:
                raise APIError(f"outline: stage '{stage}' is outlined twice ({owner[stage]} and {plan.spec})")
            owner[stage] = plan.spec
    existing = {symbol_name(f) for f in functions(module)}
    names: set[str] = set()
    for plan in plans:
        if plan.func_name in existing or plan.func_name in names:
            raise APIError(f"outline: {plan.spec}: a function @{plan.func_name} already exists")
        names.add(plan.func_name)
        program.check_convex(plan)
    program.simulate(plans)

    outliner = _Outliner(module, top, analysis, unify)
    return [outliner.outline(plan, program.stage_ops) for plan in plans]


def _looks_like_one_group(groups: object) -> bool:
    # a bare ("range", a, b) or "stage" passed where a list of groups is expected
    return isinstance(groups, str) or (
        isinstance(groups, tuple) and len(groups) == 3 and groups[0] == "range"
    )


@dataclass(frozen=True)
class OutlinePass:
    """Pass form of `outline_stages`: groups and unify are options, run() returns function names."""

    name: ClassVar[str] = "outline"
    groups: Sequence[Group] = ()
    unify: bool = False

    def run(self, module: Module) -> list[str]:
        """Outline `groups` in `module` (in place)."""
        return outline_stages(module, list(self.groups), unify=self.unify)


__all__ = ["AccessAnalysis", "OutlinePass", "find_top_function", "outline_stages"]
