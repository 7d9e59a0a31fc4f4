"""hcl.lower and hcl.build: the compiler's entry points with HeteroCL's signatures."""

from __future__ import annotations

from typing import Any

from hclbuild.errors import APIError, HCLNotImplementedError
from hclbuild.schedule.schedule import Schedule


def lower(schedule: Schedule, name: str | None = None, **_: Any) -> Any:
    """hcl.lower(s): the MLIR module after outlining and verification (print it to read it)."""
    from hclbuild.compiler.pipeline import compile_schedule

    _check(schedule, "lower")
    return compile_schedule(schedule).module


def build(
    schedule: Schedule,
    target: Any = None,
    name: str | None = None,
    checked_division: bool = True,
    checked_bounds: bool = True,
    **_: Any,
) -> Any:
    """hcl.build(s, target=None|"llvm"|"vhls"|hcl.Platform): a callable (LLVM JIT), the Vitis HLS
    C++ text, or what the platform's mode asks for (hclbuild/platform.py).

    With `checked_division` (the default) the callable raises hclbuild.errors.DivisionError naming
    the function and stage when an integer division meets a zero divisor (or the most negative
    value divided by -1) instead of letting the process die of SIGFPE; False drops the checks.
    With `checked_bounds` (the default) an access outside a tensor's shape is skipped (a load reads
    0) and the call raises hclbuild.errors.BoundsError naming the stage, tensor and subscript,
    where HeteroCL read or wrote past the buffer (heap corruption, a signal); False drops them.
    """
    from hclbuild.compiler.pipeline import compile_schedule

    _check(schedule, "build")
    from hclbuild.platform import Platform, build_for_platform

    if isinstance(target, Platform):
        return build_for_platform(schedule, target)
    if target in ("ihls", "vhls_csim", "soda", "soda_xhls", "merlinc", "aocl", "sdaccel"):
        raise HCLNotImplementedError(
            f"build: target {target!r} (HeteroCL's) is not generated here; use "
            "'vhls', or an hcl.Platform in mode 'csim' for a g++-simulated project"
        )
    if target not in (None, "llvm", "vhls"):
        raise APIError(f"build: unknown target {target!r} (use None, 'llvm', 'vhls' or an hcl.Platform)")
    design = compile_schedule(schedule)
    if target == "vhls":
        from hclbuild.compiler.emit_hls import emit_module

        with design.module.context:
            _rename_reserved_top(design)
            return emit_module(design.module)
    from hclbuild.compiler.signature import top_signature
    from hclbuild.compiler.to_llvm import lower_to_llvm_ir
    from hclbuild.runtime.llvm import JITModule

    with design.module.context:
        signature = top_signature(design.module)
    divisions, bounds = [], []
    if checked_division:
        from hclbuild.compiler.passes.checked_division import check_divisions

        divisions = check_divisions(design.module)
    if checked_bounds:
        from hclbuild.compiler.passes.bounds_check import bounds_check

        bounds = bounds_check(design.module)
    probe = _check_probe(divisions, bounds)
    ir_text = lower_to_llvm_ir(design.module)
    from hclbuild.host_args import HostFunction

    function = JITModule(ir_text, probe=probe).function(signature)
    return HostFunction(function, list(schedule.inputs) + list(schedule.outputs), _unlisted_outputs(schedule))


def _unlisted_outputs(schedule: Schedule) -> list[str]:
    """For an algorithm written at module level (HeteroCL's create_schedule([A]) with no func): the
    tensors it computed at its top level that are not arguments, the outputs a caller may pass."""
    if schedule.func is not None:
        return []
    from hclbuild.dsl.stmt import StageStmt

    listed = {id(t) for t in schedule.inputs}
    names = []
    for stmt in schedule.program.top.body:
        output = getattr(stmt, "output", None) if isinstance(stmt, StageStmt) else None
        if output is not None and id(output) not in listed and output.kind == "compute":
            names.append(output.name)
    return names


def _check_probe(divisions: list[Any], bounds: list[Any]) -> Any:
    """The probe handler of a checked build: a division or bounds check that fires raises its error."""
    from hclbuild.compiler.passes.bounds_check import out_of_bounds_message
    from hclbuild.errors import BoundsError, DivisionError
    from hclbuild.probes import PHASE_DIVISION, PHASE_OUT_OF_BOUNDS

    def probe(check: int, phase: int, kind: int, index: int) -> None:
        # raised once native code returns (runtime.llvm keeps the first until then)
        if phase == PHASE_DIVISION:
            raise DivisionError(divisions[check].message(kind))
        if phase == PHASE_OUT_OF_BOUNDS:
            raise BoundsError(out_of_bounds_message(bounds[check].to_json(), kind, index))

    return probe if divisions or bounds else None


def _rename_reserved_top(design: Any) -> None:
    """A design named like HeteroCL's examples (name="main") cannot keep that name in C++, where
    main() is the testbench's: its top function is emitted as `top` (HeteroCL's VHLS name)."""
    import keyword

    from hclbuild.compiler import attrs
    from hclbuild.compiler import upstream_attrs as upstream

    tops = attrs.top_functions(design.module)
    if not tops:
        raise APIError("module has no top function")
    name = upstream.symbol_name(tops[0])
    if name != "main" and not keyword.iskeyword(name):
        return
    taken = set(upstream.symbols(design.module))
    upstream.set_symbol_name(tops[0], "top" if "top" not in taken else f"{name}_top")


def _check(schedule: object, what: str) -> None:
    if not isinstance(schedule, Schedule):
        raise APIError(f"{what}: expected a schedule from hcl.create_schedule, got {type(schedule).__name__}")
