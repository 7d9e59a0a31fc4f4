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

PHASE_OUT_OF_BOUNDS = 2
PROBE = "hcl_probe"


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
        return {"check": self.check, "function": self.function, "stage": self.stage, "tensor": self.tensor,
                "shape": list(self.shape), "kind": self.kind}


def _names(fn: ir.OpView) -> dict[Any, str]:
    """memref value -> tensor name (alloc `name`, or the function's hcl.arg_names)."""
    names: dict[Any, str] = {}
    attrs = fn.operation.attributes
    block = fn.regions[0].blocks[0]
    if "hcl.arg_names" in attrs:
        for arg, name in zip(block.arguments, ir.ArrayAttr(attrs["hcl.arg_names"])):
            names[arg] = ir.StringAttr(name).value

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name in ("memref.alloc", "memref.alloca") and "name" in op.attributes:
            names[op.results[0]] = ir.StringAttr(op.attributes["name"]).value
        return ir.WalkResult.ADVANCE

    fn.operation.walk(visit)
    return names


def _stage_of(op: ir.Operation, fn: ir.Operation) -> str:
    """op_name of the outermost op of fn's body enclosing op (its stage)."""
    stage = ""
    node = op
    while node is not None and node != fn:
        if "op_name" in node.attributes:
            stage = ir.StringAttr(node.attributes["op_name"]).value
        parent = node.parent
        node = parent.operation if parent is not None else None
    return stage


def _declare_probe(module: ir.Module) -> None:
    for op in module.body.operations:
        if "sym_name" in op.attributes and ir.StringAttr(op.attributes["sym_name"]).value == PROBE:
            return
    i64 = ir.IntegerType.get_signless(64)
    with ir.InsertionPoint.at_block_begin(module.body):
        decl = func.FuncOp(PROBE, ir.FunctionType.get([i64] * 4, []))
        decl.attributes["sym_visibility"] = ir.StringAttr.get("private")


def _guard(op: ir.Operation, check: int, memref_value: ir.Value, indices: list[ir.Value], shape: list[int]) -> None:
    """Wrap the access op in scf.if(all indices in range), reporting the first bad dimension."""
    i64 = ir.IntegerType.get_signless(64)
    index = ir.IndexType.get()
    with ir.InsertionPoint(op):
        ok = None
        for value, extent in zip(indices, shape):
            inside = arith.CmpIOp(arith.CmpIPredicate.ult, value, arith.ConstantOp(index, extent).result).result
            ok = inside if ok is None else arith.AndIOp(ok, inside).result
        results = [r.type for r in op.results]
        guard = scf.IfOp(ok, results, has_else=True)
    with ir.InsertionPoint(guard.then_block):
        clone = op.clone()
        scf.YieldOp(list(clone.results))
    with ir.InsertionPoint(guard.else_block):
        for dim, (value, extent) in enumerate(zip(indices, shape)):
            bad = arith.CmpIOp(arith.CmpIPredicate.uge, value, arith.ConstantOp(index, extent).result).result
            report = scf.IfOp(bad)
            with ir.InsertionPoint(report.then_block):
                as_i64 = arith.IndexCastOp(i64, value).result
                func.CallOp([], ir.FlatSymbolRefAttr.get(PROBE),
                            [arith.ConstantOp(i64, check).result,
                             arith.ConstantOp(i64, PHASE_OUT_OF_BOUNDS).result,
                             arith.ConstantOp(i64, dim).result, as_i64])
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
    """Guard every static-shape memref.load/store of every function (in place); the checks, in order."""
    checks: list[BoundsCheck] = []
    with module.context, ir.Location.unknown():
        accesses = []
        for fn in module.body.operations:
            if fn.operation.name != "func.func" or not fn.regions[0].blocks:
                continue
            fn_name = ir.StringAttr(fn.operation.attributes["sym_name"]).value
            names = _names(fn)

            def visit(op: ir.Operation, fn_name: str = fn_name, names: dict = names, fn: ir.OpView = fn) -> ir.WalkResult:
                if op.name in ("memref.load", "memref.store"):
                    memref_value = op.operands[0 if op.name == "memref.load" else 1]
                    indices = list(op.operands)[1 if op.name == "memref.load" else 2:]
                    mtype = ir.MemRefType(memref_value.type)
                    if mtype.has_static_shape and indices:
                        accesses.append((op, memref_value, indices, list(mtype.shape), fn_name,
                                         _stage_of(op, fn.operation), names.get(memref_value, "?")))
                return ir.WalkResult.ADVANCE

            fn.operation.walk(visit)
        if accesses:
            _declare_probe(module)
        for check, (op, memref_value, indices, shape, fn_name, stage, tensor) in enumerate(accesses):
            kind = "load" if op.name == "memref.load" else "store"
            checks.append(BoundsCheck(check, fn_name, stage, tensor, tuple(shape), kind))
            _guard(op, check, memref_value, indices, shape)
    return checks
