"""Test-only helpers shared by the DSL tests: loop attributes of a lowered schedule, bit reference
semantics."""

from __future__ import annotations

from mlir import ir

import hclbuild as hcl


def loops(s) -> list[tuple[str, dict[str, str]]]:
    """(op name, {attribute: printed value}) of every loop of hcl.lower(s), in pre-order."""
    module = hcl.lower(s)
    found = []

    def visit(op):
        if op.name in ("affine.for", "scf.for", "scf.while"):
            attrs = op.attributes
            found.append((op.name, {attrs[k].name: str(attrs[k].attr) for k in range(len(attrs))}))
        return ir.WalkResult.ADVANCE

    with module.context:
        module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def bits_of(value: int, lo: int, hi: int, width: int) -> int:
    """value[lo:hi] of a `width`-bit value as the DSL reads it: positions outside [0, width) are 0."""
    if lo < 0 or lo >= width or hi <= lo:
        return 0
    return (int(value) >> lo) & ((1 << (min(hi, width) - lo)) - 1)


def reversed_bits(value: int, width: int) -> int:
    """The low `width` bits of value in reverse order."""
    return int(format(int(value) & ((1 << width) - 1), f"0{width}b")[::-1], 2)
