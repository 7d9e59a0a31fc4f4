"""Which one-element arguments the C++ takes by value (`hcl.scalar_args`, docs/IR.md).

A 0-d placeholder (`alpha`, `n`) is a memref<1xT> in the IR, so that the LLVM reference, the golden
data and the testbench's files treat it as any argument. In C it is a scalar by value, as Vitis
kernels and HeteroCL's own HLS output write it (`int32_t n`, an ap_none / s_axilite port), not a
one-element RAM (`int32_t n[1]`, an ap_memory port). The builder names the top's 0-d placeholders;
this pass keeps those the program only reads, and marks an outlined function's argument by value
when every call passes it one of its caller's by-value arguments. An argument stays an array when
anything stores to it or it reaches a function argument that is not by value: a value cannot be
written back, and a call cannot make an array of it.
"""

from __future__ import annotations

import math
from typing import Any

from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.passes.constant_values import defined_functions

_LOADS = frozenset({"memref.load", "affine.load"})


def mark_scalar_arguments(module: ir.Module) -> None:
    """Set hcl.scalar_args on every function: the by-value arguments, by name."""
    functions = {name: fn for fn, name in defined_functions(module)}
    candidates = {name: _candidates(fn) for name, fn in functions.items()}
    calls = {name: _calls(fn) for name, fn in functions.items()}
    changed = True
    while changed:  # each round only removes candidates: it ends
        changed = False
        for name, fn in functions.items():
            for index in sorted(candidates[name]):
                if not _stays_scalar(name, index, fn, functions, candidates, calls):
                    candidates[name].discard(index)
                    changed = True
    for name, fn in functions.items():
        names = attrs.arg_names(fn) or []
        attrs.set_scalar_args(fn, [names[index] for index in sorted(candidates[name])])


def _candidates(fn: Any) -> set[int]:
    """The top's marked 0-d placeholders; every one-element array argument of an outlined function."""
    names = attrs.arg_names(fn) or []
    inputs = list(upstream.function_type(fn).inputs)
    streams = attrs.arg_streams(fn) or [None] * len(inputs)
    if attrs.is_top(fn):
        marked = set(attrs.scalar_args(fn))
        chosen = {index for index, name in enumerate(names) if name in marked}
    elif attrs.is_outlined(fn):
        chosen = set(range(len(inputs)))
    else:
        chosen = set()
    return {
        index
        for index in chosen
        if isinstance(inputs[index], ir.MemRefType)
        and math.prod(ir.MemRefType(inputs[index]).shape) == 1
        and streams[index] is None
    }


def _calls(fn: Any) -> list[ir.Operation]:
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "func.call":
            found.append(op)
        return ir.WalkResult.ADVANCE

    fn.operation.walk(visit)
    return found


def _stays_scalar(
    name: str,
    index: int,
    fn: Any,
    functions: dict[str, Any],
    candidates: dict[str, set[int]],
    calls: dict[str, list[ir.Operation]],
) -> bool:
    argument = fn.regions[0].blocks[0].arguments[index]
    for use in argument.uses:
        owner = use.owner.operation
        if owner.name in _LOADS and use.operand_number == 0:
            continue
        if owner.name == "func.call":
            callee = upstream.callee(owner)
            if callee in functions and use.operand_number in candidates[callee]:
                continue
        return False  # a store, a call to an array argument, anything else
    if attrs.is_top(fn):
        return True
    callers = [
        (caller, call) for caller, found in calls.items() for call in found if upstream.callee(call) == name
    ]
    if not callers:
        return False  # an outlined function no one calls keeps its arrays
    for caller, call in callers:
        operand = call.operands[index]
        arguments = list(functions[caller].regions[0].blocks[0].arguments)
        if not any(operand == arguments[k] for k in candidates[caller]):
            return False
    return True
