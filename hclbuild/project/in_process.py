"""The flow in this process, without doit: what hcl.build returns (an LLVM function, the C++ text),
and run_design, a schedule in hand through compile -> reference -> emit -> csim of every function.

hcl.Platform, the tests and bench/ call run_design; the doit tasks call the same steps
(hclbuild.project.flow), one task each, and cache their files.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hclbuild.compiler.emit_hls import emit_module
from hclbuild.compiler.passes.bounds_check import bounds_check, out_of_bounds_message
from hclbuild.compiler.passes.checked_division import check_divisions
from hclbuild.compiler.passes.reserved_top import rename_reserved_top
from hclbuild.compiler.pipeline import compile_schedule
from hclbuild.compiler.signature import signature_of
from hclbuild.compiler.to_llvm import lower_to_llvm_units
from hclbuild.dsl.stmt import StageStmt
from hclbuild.errors import BoundsError, DivisionError
from hclbuild.probes import PHASE_DIVISION, PHASE_OUT_OF_BOUNDS
from hclbuild.project.config import ProjectConfig
from hclbuild.project.flow import compile_design, csim_design_function, emit_design_function
from hclbuild.project.layout import BuildLayout
from hclbuild.project.manifest import DesignManifest
from hclbuild.project.reference import reference_design
from hclbuild.runtime.csim import CsimResult
from hclbuild.runtime.host_args import HostFunction
from hclbuild.runtime.llvm import JITModule
from hclbuild.schedule.schedule import Schedule


def hls_text(schedule: Schedule) -> str:
    """hcl.build(s, target="vhls"): the Vitis HLS C++ of every function of the design."""
    design = compile_schedule(schedule)
    rename_reserved_top(design)
    with design.module.context:
        return emit_module(design.module)


def llvm_function(
    schedule: Schedule, checked_division: bool = True, checked_bounds: bool = True
) -> HostFunction:
    """hcl.build(s): the design JIT-compiled by LLVM, called with HeteroCL's argument rules
    (runtime.host_args); see hclbuild.api.build for the checks."""
    design = compile_schedule(schedule)
    with design.module.context:
        signature = signature_of(design.top_function())
    divisions = check_divisions(design.module) if checked_division else []
    bounds = bounds_check(design.module) if checked_bounds else []
    probe = _check_probe(divisions, bounds)
    function = JITModule(lower_to_llvm_units(design.module), probe=probe).function(signature)
    return HostFunction(function, list(schedule.inputs) + list(schedule.outputs), _unlisted_outputs(schedule))


def _unlisted_outputs(schedule: Schedule) -> list[str]:
    """For an algorithm written at module level (HeteroCL's create_schedule([A]) with no func): the
    tensors it computed at its top level that are not arguments, the outputs a caller may pass."""
    if schedule.func is not None:
        return []
    listed = {id(t) for t in schedule.inputs}
    names = []
    for stmt in schedule.program.top.body:
        output = getattr(stmt, "output", None) if isinstance(stmt, StageStmt) else None
        if output is not None and id(output) not in listed and output.kind == "compute":
            names.append(output.name)
    return names


def _check_probe(divisions: list[Any], bounds: list[Any]) -> Callable[[int, int, int, int], None] | None:
    """The probe handler of a checked build: a division or bounds check that fires raises its error."""

    def probe(check: int, phase: int, kind: int, index: int) -> None:
        # raised once native code returns (runtime.llvm keeps the first until then)
        if phase == PHASE_DIVISION:
            raise DivisionError(divisions[check].message(kind))
        if phase == PHASE_OUT_OF_BOUNDS:
            raise BoundsError(out_of_bounds_message(bounds[check].to_json(), kind, index))

    return probe if divisions or bounds else None


@dataclass
class DesignRun:
    """What run_design did: the design's manifest, whether the kernel's model was checked against the
    LLVM reference, and each function's csim (all passed: a failure raises)."""

    manifest: DesignManifest
    model_checked: bool
    csim: dict[str, CsimResult] = field(default_factory=dict)

    @property
    def functions(self) -> list[str]:
        """The design's functions, the top first."""
        return list(self.manifest.functions)


def run_design(
    schedule: Schedule,
    layout: BuildLayout,
    config: ProjectConfig,
    inputs_fn: Callable[..., Any] | None = None,
    model_fn: Callable[..., Any] | None = None,
) -> DesignRun:
    """compile -> LLVM reference (on inputs_fn(rng)'s arrays, else seeded random ones; checked
    against model_fn when given) -> emit -> g++ csim of every function, into `layout`.

    Raises the step's HCLError when one fails (CsimError for a csim that does not pass)."""
    compiled = compile_design(schedule, layout, config.name)
    reference = reference_design(layout, config.name, config, inputs_fn, model_fn)
    run = DesignRun(compiled.design, reference.model_checked)
    for func in run.functions:
        emit_design_function(layout, config, func)
        run.csim[func] = csim_design_function(layout, config.name, func).check()
    return run
