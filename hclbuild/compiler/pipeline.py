"""The compiler as one call: schedule -> MLIR (built, outlined, verified) -> LLVM IR or HLS C++."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hclbuild.errors import CompileError
from hclbuild.schedule.schedule import Schedule


@dataclass
class CompiledDesign:
    """The verified module of a schedule and the names of its functions."""

    module: Any  # mlir.ir.Module
    top: str
    outlined: list[str]


def compile_schedule(schedule: Schedule) -> CompiledDesign:
    """Build the module, apply s.outline() requests, verify calls; every backend starts here."""
    from hclbuild.compiler.builder import build_module
    from hclbuild.compiler.passes.outline import outline_stages
    from hclbuild.compiler.passes.verify import verify_module

    module = build_module(schedule)
    with module.context:
        if not module.operation.verify():
            raise CompileError(f"builder produced invalid IR for {schedule.name!r}")
        outlined: list[str] = []
        for request in schedule.outlines:
            # the pass takes a list of stage names for a set and ("range", start, end) for a range
            groups = [list(g[1]) if g[0] == "set" else g for g in request.groups]
            outlined.extend(outline_stages(module, groups, unify=request.unify))
        verify_module(module)
    return CompiledDesign(module, schedule.name, outlined)
