"""A division or remainder whose divisor is the constant 0 is an error at build time.

`A[i] / 0` would be SIGFPE in the reference run and in C, or, folded by some optimizer, garbage
that becomes golden data. It is refused before any backend runs, naming the stage.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from hclbuild.compiler.passes.bounds_check import stage_of
from hclbuild.compiler.passes.constant_values import (
    constant_int,
    defined_functions,
    first_op,
    stage_label,
)
from hclbuild.errors import CompileError

INTEGER_DIVISIONS = frozenset(
    {
        "arith.divsi",
        "arith.divui",
        "arith.remsi",
        "arith.remui",
        "arith.floordivsi",
        "arith.ceildivsi",
        "arith.ceildivui",
    }
)


@dataclass(frozen=True)
class ConstantDivisorPass:
    """Raise CompileError at the first integer division by a constant 0."""

    name: str = "constant-divisor"

    def run(self, module: ir.Module) -> None:
        with module.context:
            for fn, function in defined_functions(module):
                op = first_op(fn, _by_constant_zero)
                if op is not None:
                    kind = "remainder" if "rem" in op.name else "division"
                    where = stage_label(stage_of(op, fn.operation), function)
                    raise CompileError(f"{where}: {kind} by the constant 0")


def _by_constant_zero(op: ir.Operation) -> bool:
    return op.name in INTEGER_DIVISIONS and constant_int(op.operands[1]) == 0


def check_constant_divisors(module: ir.Module) -> None:
    """ConstantDivisorPass().run(module)."""
    ConstantDivisorPass().run(module)
