"""Which array arguments each function may write: what a C simulation of it can observe.

A function whose stores all go to its own local buffers (an outlined dead stage) computes
nothing its caller can see; csim then compares only inputs handed back unchanged, and says so
instead of claiming a plain pass (README, "Dead stages").
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler.passes.outline import callee_name, functions, symbol_name

_STORES = frozenset({"memref.store", "affine.store"})
_READS = frozenset({"memref.load", "affine.load", "memref.dealloc"})


def written_arguments(module: ir.Module) -> dict[str, list[str]]:
    """For every defined func.func, the hcl.arg_names of the memref arguments it may write.

    A store into an argument writes it; a call passes on the writes of the callee's parameters
    (a callee without a body writes all of them); any other use counts as a write.
    """
    bodies = {symbol_name(f): f for f in functions(module) if len(f.regions[0].blocks)}
    flags: dict[str, list[bool]] = {}

    def writes(callee: str, index: int) -> bool:
        if callee not in bodies:
            return True
        if callee not in flags:
            arguments = list(bodies[callee].regions[0].blocks[0].arguments)
            flags[callee] = [False] * len(arguments)  # recursion (never in HLS designs) adds no write
            flags[callee] = [_may_write(value, writes) for value in arguments]
        return flags[callee][index]

    result = {}
    for name, func in bodies.items():
        names = attrs.arg_names(func) or []
        result[name] = [arg_name for index, arg_name in enumerate(names) if writes(name, index)]
    return result


def _may_write(value: ir.Value, writes: Callable[[str, int], bool]) -> bool:
    if not isinstance(value.type, ir.MemRefType):
        return False
    for use in value.uses:
        owner = use.owner.operation
        if owner.name in _READS or (owner.name in _STORES and use.operand_number == 0):
            continue
        if owner.name == "func.call":
            if writes(callee_name(owner), use.operand_number):
                return True
            continue
        return True
    return False
