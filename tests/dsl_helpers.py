"""Test-only helpers shared by the DSL schedule tests."""

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
