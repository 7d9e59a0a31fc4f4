"""get_affine_loop_nests(func): the loop bands of a function, in HeteroCL's result shape.

A list with one entry per top-level loop of the function body (a stage's root, in order); each
entry lists the loops from that root down while a loop's body holds exactly one loop, as
`{"name": loop_name, "body": the loop op}`. Lets loop-structure assertions written against
HeteroCL (`loops[0][1]["name"] == "j.outer"`) run against hclbuild's IR.
"""

from __future__ import annotations

from typing import Any

from hclbuild.compiler import attrs

LOOP_OPS = ("affine.for", "scf.for", "scf.while")


def get_affine_loop_nests(func: Any) -> list[list[dict[str, Any]]]:
    """The loop nests of a func.func (e.g. s.top_func): [[{"name", "body"}, ...], ...]."""
    op = getattr(func, "operation", func)
    if op.name != "func.func":
        raise TypeError(f"get_affine_loop_nests expects a func.func, got {op.name}")
    nests = []
    for child in op.regions[0].blocks[0].operations:
        if child.operation.name in LOOP_OPS:
            nests.append(_band(child.operation))
    return nests


def _band(loop: Any) -> list[dict[str, Any]]:
    band = []
    while loop is not None:
        name = attrs.loop_name(loop) or ""
        band.append({"name": name, "body": loop})
        inner = [
            op.operation
            for region in loop.regions
            for block in region.blocks
            for op in block.operations
            if op.operation.name in LOOP_OPS
        ]
        loop = inner[0] if len(inner) == 1 else None
    return band
