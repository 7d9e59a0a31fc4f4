"""Checked integer division: a zero divisor (or the most negative value divided by -1) is reported,
never executed.

x86 traps on both (SIGFPE), which kills the Python process running JIT code. On a copy of the
module used for running (hcl.build's callable, the reference run), every integer div/rem whose
divisor is not a safe constant is wrapped in `scf.if`: when the divisor is 0, or it is -1 and the
dividend is the type's minimum, the operation is skipped (its result is 0) and
`hcl_probe(check, 3, kind, 0)` reports it (kind 0: division by zero, 1: overflow). The caller
turns the first report into an error naming the function and the stage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mlir import ir
from mlir.dialects import arith, func, scf

from hclbuild.compiler.passes.bounds_check import declare_probe, stage_of
from hclbuild.compiler.passes.constant_divisor import INTEGER_DIVISIONS
from hclbuild.compiler.passes.constant_values import (
    constant_int,
    defined_functions,
    stage_label,
)
from hclbuild.probes import PHASE_DIVISION, PROBE_FUNCTION

KIND_ZERO, KIND_OVERFLOW = 0, 1
_SIGNED = frozenset({"arith.divsi", "arith.remsi", "arith.floordivsi", "arith.ceildivsi"})


@dataclass(frozen=True)
class DivisionCheck:
    """One guarded division: for the error message when it fires."""

    check: int
    function: str
    stage: str
    op: str
    bits: int
    signed: bool

    def message(self, kind: int) -> str:
        """One line naming where and what: 'function f, stage S divides by zero'."""
        where = stage_label(self.stage, self.function)
        if self.stage:
            where = f"function {self.function}, {where}"
        verb = "takes a remainder" if "rem" in self.op else "divides"
        if kind == KIND_OVERFLOW:
            return f"{where} {verb} the most negative {self.bits}-bit integer by -1 (the quotient overflows)"
        return f"{where} {verb} by zero"

    def to_json(self) -> dict[str, Any]:
        """The check with its two messages (by kind), so a reader needs no MLIR to report it."""
        return {
            "check": self.check,
            "function": self.function,
            "stage": self.stage,
            "op": self.op,
            "messages": [self.message(KIND_ZERO), self.message(KIND_OVERFLOW)],
        }


def _needs_guard(op: ir.Operation) -> bool:
    divisor = constant_int(op.operands[1])
    if divisor is None:
        return True
    # a constant divisor other than 0 (a build-time error) and -1 can never trap
    return op.name in _SIGNED and divisor == -1


def _guard(op: ir.Operation, check: int, signed: bool) -> None:
    i64 = ir.IntegerType.get_signless(64)
    lhs, rhs = op.operands[0], op.operands[1]
    ty = rhs.type
    width = ir.IntegerType(ty).width
    with ir.InsertionPoint(op):
        zero = arith.ConstantOp(ty, 0).result
        is_zero = arith.CmpIOp(arith.CmpIPredicate.eq, rhs, zero).result
        bad = is_zero
        if signed:
            minus_one = arith.ConstantOp(ty, -1).result
            # the minimum as 1 << (width - 1): no constant wider than 64 bits is needed
            one, shift = arith.ConstantOp(ty, 1).result, arith.ConstantOp(ty, width - 1).result
            minimum = arith.ShLIOp(one, shift).result
            overflow = arith.AndIOp(
                arith.CmpIOp(arith.CmpIPredicate.eq, rhs, minus_one).result,
                arith.CmpIOp(arith.CmpIPredicate.eq, lhs, minimum).result,
            ).result
            bad = arith.OrIOp(is_zero, overflow).result
        guard = scf.IfOp(bad, [ty], has_else=True)
    with ir.InsertionPoint(guard.then_block):
        kind = arith.SelectOp(
            is_zero, arith.ConstantOp(i64, KIND_ZERO).result, arith.ConstantOp(i64, KIND_OVERFLOW).result
        ).result
        func.CallOp(
            [],
            ir.FlatSymbolRefAttr.get(PROBE_FUNCTION),
            [
                arith.ConstantOp(i64, check).result,
                arith.ConstantOp(i64, PHASE_DIVISION).result,
                kind,
                arith.ConstantOp(i64, 0).result,
            ],
        )
        scf.YieldOp([arith.ConstantOp(ty, 0).result])
    with ir.InsertionPoint(guard.else_block):
        clone = op.clone()
        scf.YieldOp([clone.results[0]])
    op.results[0].replace_all_uses_with(guard.results[0])
    op.erase()


@dataclass(frozen=True)
class CheckedDivisionPass:
    """Guard every integer division that could trap (in place); returns the checks, in order."""

    name: str = "checked-division"

    def run(self, module: ir.Module) -> list[DivisionCheck]:
        checks: list[DivisionCheck] = []
        with module.context, ir.Location.unknown():
            found: list[tuple[ir.Operation, str, str]] = []
            for fn, function in defined_functions(module):

                def visit(op: ir.Operation, function: str = function, fn: Any = fn) -> ir.WalkResult:
                    if (
                        op.name in INTEGER_DIVISIONS
                        and isinstance(op.operands[1].type, ir.IntegerType)
                        and _needs_guard(op)
                    ):
                        found.append((op, function, stage_of(op, fn.operation)))
                    return ir.WalkResult.ADVANCE

                fn.operation.walk(visit)
            if found:
                declare_probe(module)
            for check, (op, function, stage) in enumerate(found):
                signed = op.name in _SIGNED
                bits = ir.IntegerType(op.operands[1].type).width
                checks.append(DivisionCheck(check, function, stage, op.name, bits, signed))
                _guard(op, check, signed)
        return checks


def check_divisions(module: ir.Module) -> list[DivisionCheck]:
    """CheckedDivisionPass().run(module)."""
    return CheckedDivisionPass().run(module)
