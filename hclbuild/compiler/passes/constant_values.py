"""The integer value an SSA value has whatever the inputs: an arith.constant seen through casts.

The build-time checks (constant_divisor, constant_subscript) ask this of a divisor or a
subscript; a value computed from loop variables or loaded from memory has none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from mlir import ir

from hclbuild.compiler import upstream_attrs as upstream

# value-preserving for the small constants that matter here (0, -1, a subscript)
_CASTS = frozenset(
    {"arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci", "arith.bitcast"}
)


def constant_int(value: ir.Value) -> int | None:
    """The integer of an arith.constant behind `value` (through casts), else None."""
    for _ in range(32):  # a chain of casts is short; the bound keeps a malformed cycle finite
        owner = value.owner
        if not isinstance(owner, ir.Operation) and not isinstance(owner, ir.OpView):
            return None  # a block argument: a loop variable or a function argument
        op = owner.operation if isinstance(owner, ir.OpView) else owner
        if op.name == "arith.constant":
            attr = upstream.constant_value(op)
            return attr.value if isinstance(attr, ir.IntegerAttr) else None
        if op.name in _CASTS:
            value = op.operands[0]
            continue
        return None
    return None


def stage_label(stage: str, function: str) -> str:
    """'stage S' when the op sits in a stage, else 'function f' (for one-line errors)."""
    return f"stage {stage}" if stage else f"function {function}"


def defined_functions(module: ir.Module) -> Iterator[tuple[Any, str]]:
    """(func.func op, its name) of every function with a body."""
    for fn in module.body.operations:
        if fn.operation.name == "func.func" and fn.regions[0].blocks:
            yield fn, upstream.symbol_name(fn)


def first_op(fn: Any, matches: Callable[[ir.Operation], bool]) -> ir.Operation | None:
    """The first op below fn (pre-order walk) for which matches(op) is true, else None."""
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if matches(op):
            found.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    fn.operation.walk(visit)
    return found[0] if found else None
