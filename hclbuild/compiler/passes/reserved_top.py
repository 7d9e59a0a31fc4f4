"""Give the top function a name C++ allows: not `main` (the testbench's) nor a C++ keyword.

HeteroCL's examples name designs `main`; their top is emitted as `top` (HeteroCL's VHLS name), or
`<name>_top` where the design already has a function `top`. c_top_name is the rule alone, for task
planning, which names a design's functions without compiling it.
"""

from __future__ import annotations

import keyword
from collections.abc import Collection
from typing import Any

from mlir import ir


def c_top_name(name: str, taken: Collection[str]) -> str:
    """`name`, or the name its top function gets in C++ when `name` cannot be one there."""
    if name != "main" and not keyword.iskeyword(name):
        return name
    return "top" if "top" not in taken else f"{name}_top"


def rename_reserved_top(design: Any) -> str:
    """Rename the top function of a CompiledDesign (pipeline.compile_schedule's) when C++ cannot
    have its name; design.top follows. Returns the top's name."""
    top = design.top_function()
    with design.module.context:
        taken = {
            op.attributes["sym_name"].value
            for op in design.module.body.operations
            if "sym_name" in op.attributes
        }
        name = c_top_name(design.top, taken - {design.top})
        if name != design.top:
            top.attributes["sym_name"] = ir.StringAttr.get(name)
            design.top = name
    return design.top
