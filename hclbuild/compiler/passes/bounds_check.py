"""Bounds checks for the reference run: an index outside a tensor is reported, never executed.

HeteroCL never checked subscripts: `A[i + 1]` on the last i read past the buffer, and the LLVM
run either crashed or produced garbage that then became the "golden" data. On the reference copy
of the module (never on the design), every memref.load/store of a static shape is guarded: when a
subscript is outside its dimension the access is skipped (a load yields 0) and
`hcl_probe(check, 2, dim, index)` reports it; hclbuild.project.flow turns the first report into
an error naming the function, stage, tensor and subscript.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mlir import ir
from mlir.dialects import arith, func, scf

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.work_estimate import constant_loop_bounds
from hclbuild.probes import PHASE_OUT_OF_BOUNDS, PROBE_FUNCTION


@dataclass(frozen=True)
class BoundsCheck:
    """What one guarded access is: for the error message when it fires."""

    check: int
    function: str
    stage: str
    tensor: str
    shape: tuple[int, ...]
    kind: str  # "load" | "store"

    def to_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "function": self.function,
            "stage": self.stage,
            "tensor": self.tensor,
            "shape": list(self.shape),
            "kind": self.kind,
        }


def out_of_bounds_message(check: dict[str, Any], dim: int, index: int) -> str:
    """What a fired check (its to_json()) says, e.g. `stage B reads A outside its shape (8,): subscript
    0 is 8`; `index` is the probe's unsigned 64-bit value of the subscript."""
    where = f"stage {check['stage']}" if check["stage"] else f"function {check['function']}"
    signed = index - (1 << 64) if index >= 1 << 63 else index
    verb = "reads" if check["kind"] == "load" else "writes"
    shape = tuple(check["shape"])
    return f"{where} {verb} {check['tensor']} outside its shape {shape}: subscript {dim} is {signed}"


def tensor_names(fn: ir.OpView) -> dict[Any, str]:
    """memref value -> tensor name (alloc `name`, or the function's hcl.arg_names)."""
    names: dict[Any, str] = {}
    block = fn.regions[0].blocks[0]
    for arg, name in zip(block.arguments, attrs.arg_names(fn) or []):
        names[arg] = name

    def visit(op: ir.Operation) -> ir.WalkResult:
        name = attrs.buffer_name(op) if op.name in ("memref.alloc", "memref.alloca") else None
        if name is not None:
            names[op.results[0]] = name
        return ir.WalkResult.ADVANCE

    fn.operation.walk(visit)
    return names


def stage_of(op: ir.Operation, fn: ir.Operation) -> str:
    """op_name of the outermost op of fn's body enclosing op (its stage)."""
    stage = ""
    node = op
    while node is not None and node != fn:
        stage = attrs.stage_name(node) or stage
        parent = node.parent
        node = parent.operation if parent is not None else None
    return stage


def declare_probe(module: ir.Module) -> None:
    for op in module.body.operations:
        if upstream.has_symbol(op) and upstream.symbol_name(op) == PROBE_FUNCTION:
            return
    i64 = ir.IntegerType.get_signless(64)
    with ir.InsertionPoint.at_block_begin(module.body):
        decl = func.FuncOp(PROBE_FUNCTION, ir.FunctionType.get([i64] * 4, []))
        upstream.set_private(decl)


class _IndexRanges:
    """Interval arithmetic on index values: a subscript provably inside its dimension needs no guard.

    Covers what the builder emits for affine subscripts (constants, loop variables of loops with
    constant bounds, addi/subi/muli, index_cast); anything else is unknown and stays guarded.
    Guards that cannot fire are most of a design's checks, and each costs ~40 ops to lower.
    """

    def __init__(self) -> None:
        self._known: dict[Any, tuple[int, int] | None] = {}

    def inside(self, value: ir.Value, extent: int) -> bool:
        """Whether 0 <= value < extent for every value it can take."""
        span = self.range(value)
        return span is not None and span[0] >= 0 and span[1] < extent

    def range(self, value: ir.Value) -> tuple[int, int] | None:
        if value not in self._known:
            self._known[value] = self._compute(value)
        return self._known[value]

    def _compute(self, value: ir.Value) -> tuple[int, int] | None:
        if isinstance(value, ir.BlockArgument):
            return _loop_variable_range(value)
        op = value.owner
        name = op.name
        if name == "arith.constant":
            attr = upstream.constant_value(op)
            return (attr.value, attr.value) if isinstance(attr, ir.IntegerAttr) else None
        if name == "arith.index_cast":
            return self.range(op.operands[0])
        if name in ("arith.addi", "arith.subi", "arith.muli"):
            a, b = self.range(op.operands[0]), self.range(op.operands[1])
            if a is None or b is None:
                return None
            if name == "arith.addi":
                return a[0] + b[0], a[1] + b[1]
            if name == "arith.subi":
                return a[0] - b[1], a[1] - b[0]
            products = [x * y for x in a for y in b]
            return min(products), max(products)
        return None


def _loop_variable_range(value: ir.BlockArgument) -> tuple[int, int] | None:
    """First and last value of the induction variable of an affine.for / scf.for with constant bounds."""
    block = value.owner
    loop = block.owner
    if loop is None or loop.name not in ("affine.for", "scf.for") or value.arg_number != 0:
        return None
    bounds = constant_loop_bounds(loop.operation)
    if bounds is None:
        return None
    lo, hi, step = bounds
    if hi <= lo:
        return None  # the body never runs; keep the guard rather than reason about it
    return lo, lo + (hi - 1 - lo) // step * step


def _guard(op: ir.Operation, check: int, subscripts: list[tuple[int, ir.Value, int]]) -> None:
    """Wrap the access op in scf.if(all indices in range), reporting the first bad dimension.

    `subscripts` are (dimension, index, extent) of the subscripts not provably inside."""
    i64 = ir.IntegerType.get_signless(64)
    index = ir.IndexType.get()
    with ir.InsertionPoint(op):
        ok = None
        for _, value, extent in subscripts:
            inside = arith.CmpIOp(
                arith.CmpIPredicate.ult, value, arith.ConstantOp(index, extent).result
            ).result
            ok = inside if ok is None else arith.AndIOp(ok, inside).result
        results = [r.type for r in op.results]
        guard = scf.IfOp(ok, results, has_else=True)
    with ir.InsertionPoint(guard.then_block):
        clone = op.clone()
        scf.YieldOp(list(clone.results))
    with ir.InsertionPoint(guard.else_block):
        for dim, value, extent in subscripts:
            bad = arith.CmpIOp(arith.CmpIPredicate.uge, value, arith.ConstantOp(index, extent).result).result
            report = scf.IfOp(bad)
            with ir.InsertionPoint(report.then_block):
                as_i64 = arith.IndexCastOp(i64, value).result
                func.CallOp(
                    [],
                    ir.FlatSymbolRefAttr.get(PROBE_FUNCTION),
                    [
                        arith.ConstantOp(i64, check).result,
                        arith.ConstantOp(i64, PHASE_OUT_OF_BOUNDS).result,
                        arith.ConstantOp(i64, dim).result,
                        as_i64,
                    ],
                )
                scf.YieldOp([])
        zeros = []
        for ty in results:
            if isinstance(ty, (ir.F32Type, ir.F64Type)):
                zeros.append(arith.ConstantOp(ty, ir.FloatAttr.get(ty, 0.0)).result)
            else:
                zeros.append(arith.ConstantOp(ty, ir.IntegerAttr.get(ty, 0)).result)
        scf.YieldOp(zeros)
    for old, new in zip(op.results, guard.results):
        old.replace_all_uses_with(new)
    op.erase()


def bounds_check(module: ir.Module) -> list[BoundsCheck]:
    """Guard every static-shape memref.load/store of every function (in place); the checks, in order.

    Subscripts provably inside their dimension (interval arithmetic, _IndexRanges) are not checked;
    an access with none left is not guarded."""
    checks: list[BoundsCheck] = []
    ranges = _IndexRanges()
    with module.context, ir.Location.unknown():
        accesses = []
        for fn in module.body.operations:
            if fn.operation.name != "func.func" or not fn.regions[0].blocks:
                continue
            fn_name = upstream.symbol_name(fn)
            names = tensor_names(fn)

            def visit(
                op: ir.Operation, fn_name: str = fn_name, names: dict = names, fn: ir.OpView = fn
            ) -> ir.WalkResult:
                if op.name in ("memref.load", "memref.store"):
                    memref_value = op.operands[0 if op.name == "memref.load" else 1]
                    indices = list(op.operands)[1 if op.name == "memref.load" else 2 :]
                    mtype = ir.MemRefType(memref_value.type)
                    shape = list(mtype.shape) if mtype.has_static_shape else []
                    unproven = [
                        (d, v, n) for d, (v, n) in enumerate(zip(indices, shape)) if not ranges.inside(v, n)
                    ]
                    if unproven:
                        accesses.append(
                            (
                                op,
                                unproven,
                                shape,
                                fn_name,
                                stage_of(op, fn.operation),
                                names.get(memref_value, "?"),
                            )
                        )
                return ir.WalkResult.ADVANCE

            fn.operation.walk(visit)
        if accesses:
            declare_probe(module)
        for check, (op, subscripts, shape, fn_name, stage, tensor) in enumerate(accesses):
            kind = "load" if op.name == "memref.load" else "store"
            checks.append(BoundsCheck(check, fn_name, stage, tensor, tuple(shape), kind))
            _guard(op, check, subscripts)
    return checks
