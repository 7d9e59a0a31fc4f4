"""HeteroCL's entry points with its signatures: hcl.create_schedule (whose schedules know s.module and
s.top_func), hcl.lower and hcl.build."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hclbuild.compiler.pipeline import CompiledDesign, compile_schedule
from hclbuild.errors import APIError, HCLNotImplementedError
from hclbuild.platform import Platform, build_for_platform
from hclbuild.project.config import DEFAULT_CLOCK_PERIOD_NS, DEFAULT_PART
from hclbuild.project.estimation import EstimateTarget, estimate_records
from hclbuild.project.in_process import hls_text, llvm_function
from hclbuild.schedule import schedule as schedules
from hclbuild.schedule import scheme as schemes
from hclbuild.schedule import tracing


class Schedule(schedules.Schedule):
    """HeteroCL's hcl.Schedule: the schedule's records (hclbuild.schedule), and its MLIR module."""

    @property
    def module(self) -> Any:
        """The MLIR module of this schedule (HeteroCL's s.module), built and verified."""
        return self._compiled().module

    def _compiled(self) -> CompiledDesign:
        design = compile_schedule(self)
        # kept on the schedule: ops taken from it (s.top_func) must not outlive their module
        self._module = design.module
        return design

    @property
    def top_func(self) -> Any:
        """The top func.func of s.module (HeteroCL's s.top_func)."""
        return self._compiled().top_function()

    # HeteroCL's older names of module and top_func (its tests read s.device_top)
    device_module = module
    device_top = top_func


def create_schedule(
    inputs: object, func: Callable[..., Any] | None = None, name: str | None = None
) -> Schedule:
    """hcl.create_schedule(inputs, func=None, name=None): trace func(*inputs) into a schedule.

    Without func, the algorithm is what was written at module level since hcl.init() (or the last
    create_schedule), and `inputs` lists every argument of the design in order, outputs included.
    """
    return tracing.create_schedule(inputs, func, name, schedule_class=Schedule)


def create_schedule_from_scheme(scheme: schemes.Scheme, name: str | None = None) -> Schedule:
    """hcl.create_schedule_from_scheme(scheme): the algorithm traced again with the scheme's dtypes."""
    return schemes.create_schedule_from_scheme(scheme, name, schedule_class=Schedule)


def lower(schedule: schedules.Schedule, name: str | None = None, **_: Any) -> Any:
    """hcl.lower(s): the MLIR module after outlining and verification (print it to read it)."""
    _check(schedule, "lower")
    return compile_schedule(schedule).module


def estimate(
    schedule: schedules.Schedule,
    part: str = DEFAULT_PART,
    clock_ns: float = DEFAULT_CLOCK_PERIOD_NS,
    vitis_version: str | None = None,
) -> dict[str, dict[str, Any]]:
    """hcl.estimate(s): every function of hcl.lower(s) -> its QoR estimate, the record the estimate
    task writes to estimate/<func>.json (latency_min/max, interval, loops, resources; "estimated":
    a model's figures, not a synthesis result), for `part` at `clock_ns` as `vitis_version` builds
    it. The model's HCLError (HCLNotImplementedError, naming what it lacks) when it refuses a function."""
    _check(schedule, "estimate")
    return estimate_records(compile_schedule(schedule).module, EstimateTarget(part, clock_ns, vitis_version))


def build(
    schedule: schedules.Schedule,
    target: Any = None,
    name: str | None = None,
    checked_division: bool = True,
    checked_bounds: bool = True,
    **_: Any,
) -> Any:
    """hcl.build(s, target=None|"llvm"|"vhls"|"estimate"|hcl.Platform): a callable (LLVM JIT), the
    Vitis HLS C++ text, every function's QoR estimate (hcl.estimate), or what the platform's mode
    asks for (hclbuild/platform.py).

    With `checked_division` (the default) the callable raises hclbuild.errors.DivisionError naming
    the function and stage when an integer division meets a zero divisor (or the most negative
    value divided by -1) instead of letting the process die of SIGFPE; False drops the checks.
    With `checked_bounds` (the default) an access outside a tensor's shape is skipped (a load reads
    0) and the call raises hclbuild.errors.BoundsError naming the stage, tensor and subscript,
    where HeteroCL read or wrote past the buffer (heap corruption, a signal); False drops them.
    """
    _check(schedule, "build")
    if isinstance(target, Platform):
        return build_for_platform(schedule, target)
    if target in ("ihls", "vhls_csim", "soda", "soda_xhls", "merlinc", "aocl", "sdaccel"):
        raise HCLNotImplementedError(
            f"build: target {target!r} (HeteroCL's) is not generated here; use "
            "'vhls', or an hcl.Platform in mode 'csim' for a g++-simulated project"
        )
    if target == "estimate":
        return estimate(schedule)  # hcl.estimate with the default part and clock
    if target not in (None, "llvm", "vhls"):
        raise APIError(
            f"build: unknown target {target!r} (use None, 'llvm', 'vhls', 'estimate' or an hcl.Platform)"
        )
    if target == "vhls":
        return hls_text(schedule)
    return llvm_function(schedule, checked_division=checked_division, checked_bounds=checked_bounds)


def _check(schedule: object, what: str) -> None:
    if not isinstance(schedule, schedules.Schedule):
        raise APIError(f"{what}: expected a schedule from hcl.create_schedule, got {type(schedule).__name__}")
