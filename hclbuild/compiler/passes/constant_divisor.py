"""A division or remainder whose divisor is the constant 0 is an error at build time.

`A[i] / 0` would be SIGFPE in the reference run and in C, or, folded by some optimizer, garbage
that becomes golden data. It is refused before any backend runs, naming the stage.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from hclbuild.compiler.passes.bounds_check import stage_of
from hclbuild.compiler.passes.constant_values import constant_int, stage_label
from hclbuild.errors import CompileError

INTEGER_DIVISIONS = frozenset({"arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.floordivsi",
                               "arith.ceildivsi", "arith.ceildivui"})


@dataclass(frozen=True)
class ConstantDivisorPass:
    """Raise CompileError at the first integer division by a constant 0."""

    name: str = "constant-divisor"

    def run(self, module: ir.Module) -> None:
        with module.context:
            for fn in module.body.operations:
                if fn.operation.name != "func.func" or not fn.regions[0].blocks:
                    continue
                function = ir.StringAttr(fn.operation.attributes["sym_name"]).value
                found: list[ir.Operation] = []

                def visit(op: ir.Operation, found: list = found) -> ir.WalkResult:
                    if op.name in INTEGER_DIVISIONS and constant_int(op.operands[1]) == 0:
                        found.append(op)
                        return ir.WalkResult.INTERRUPT
                    return ir.WalkResult.ADVANCE

                fn.operation.walk(visit)
                if found:
                    where = stage_label(stage_of(found[0], fn.operation), function)
                    kind = "remainder" if "rem" in found[0].name else "division"
                    raise CompileError(f"{where}: {kind} by the constant 0")


def check_constant_divisors(module: ir.Module) -> None:
    """ConstantDivisorPass().run(module)."""
    ConstantDivisorPass().run(module)
