"""Give the top function a name C++ allows: not `main` (the testbench's) nor a C++ keyword.

HeteroCL's examples name designs `main`; their top is emitted as `top` (HeteroCL's VHLS name), or
`<name>_top` where the design already has a function `top`. c_top_name is the rule alone, for task
planning, which names a design's functions without compiling it.
"""

from __future__ import annotations

import keyword
from collections.abc import Collection
from typing import Any

from hclbuild.compiler import upstream_attrs as upstream


def c_top_name(name: str, taken: Collection[str]) -> str:
    """`name`, or the name its top function gets in C++ when `name` cannot be one there."""
    if name != "main" and not keyword.iskeyword(name):
        return name
    return "top" if "top" not in taken else f"{name}_top"


def rename_reserved_top(design: Any) -> str:
    """Rename the top function of a CompiledDesign (pipeline.compile_schedule's) when C++ cannot
    have its name; design.top follows. Returns the top's name."""
    with design.module.context:
        top = design.top_function()
        taken = set(upstream.symbols(design.module)) - {design.top}
        name = c_top_name(design.top, taken)
        if name != design.top:
            upstream.set_symbol_name(top, name)
            design.top = name
    return design.top
