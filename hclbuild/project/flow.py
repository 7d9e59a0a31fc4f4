"""One project's flow as steps with files in between; the doit tasks call exactly these.

    write_project_ir  kernel.py -> ir/top.mlir, ir/<func>.mlir, ir/manifest.json
    lower_design      ir/top.mlir -> llvm/units/<unit>.ll, llvm/manifest.json (project.lowering)
    run_reference     llvm/units/ (no MLIR) -> golden/<func>/ vectors at every outlined call,
                      linked into hls/<func>/data/ (project.reference)
    emit_function     ir/<func>.mlir -> hls/<func>/ (C++, testbench, tcl, cfg, ...)
    csim_function     hls/<func>/ -> csim/<func>.json (g++ against the golden outputs)

Every file is written only when its bytes change, so doit's content check keeps unchanged
functions up to date. project.in_process runs them all on a schedule in hand.
"""

from __future__ import annotations

import functools
import math
import sys
from pathlib import Path
from typing import Any, NamedTuple

from mlir import ir

from hclbuild.atomic import write_if_changed
from hclbuild.compiler.buffers import allocated_buffers
from hclbuild.compiler.context import new_context
from hclbuild.compiler.design_graph import design_graph
from hclbuild.compiler.emit_hls import c_signature, emit_function_files, pragma_syntax
from hclbuild.compiler.passes.reserved_top import rename_reserved_top
from hclbuild.compiler.passes.split_functions import call_graph, callees_first, function_modules
from hclbuild.compiler.pipeline import compile_schedule
from hclbuild.compiler.port_limits import port_limited_loops
from hclbuild.compiler.recurrence_limits import recurrence_limited_loops
from hclbuild.compiler.signature import signature_of
from hclbuild.compiler.upstream_attrs import symbols
from hclbuild.compiler.work_estimate import function_work
from hclbuild.compiler.written_args import written_arguments
from hclbuild.dsl.types import Struct
from hclbuild.errors import CompileError, ConfigError, HCLError
from hclbuild.project.config import Project, ProjectConfig
from hclbuild.project.golden import read_manifest
from hclbuild.project.hls_project import DATA_DIR, write_function_project
from hclbuild.project.interfaces import (
    blackboxes_of,
    check_fifo_arrays,
    check_interface_functions,
    function_interfaces,
    is_blackboxed,
)
from hclbuild.project.kernel import kernel_schedule
from hclbuild.project.layout import BuildLayout
from hclbuild.project.lowering import lower_design
from hclbuild.project.manifest import DesignManifest, LoweredDesign, json_text, read_design_manifest
from hclbuild.project.report_files import write_project_report
from hclbuild.project.templates import keep_compiled_templates
from hclbuild.runtime.csim import CsimResult, run_csim
from hclbuild.runtime.isolate import run_isolated
from hclbuild.schedule.schedule import Schedule

# ---- compile ------------------------------------------------------------------------------


class CompiledFiles(NamedTuple):
    """What compile and the lowering wrote: ir/manifest.json and llvm/manifest.json."""

    design: DesignManifest
    lowered: LoweredDesign


def compile_project(project: Project, layout: BuildLayout) -> CompiledFiles:
    """write_project_ir, then lower_design (tests and notebooks)."""
    design = write_project_ir(project, layout)
    return CompiledFiles(design, lower_design(layout))


def compile_design(schedule: Schedule, layout: BuildLayout, name: str) -> CompiledFiles:
    """compile_project for a schedule in hand."""
    design = write_design_ir(schedule, layout, name)
    return CompiledFiles(design, lower_design(layout))


def write_project_ir(project: Project, layout: BuildLayout, announce: bool = True) -> DesignManifest:
    """Trace, build, outline, verify (the compile task runs it in a child process: compile_kernel)."""
    manifest = write_design_ir(kernel_schedule(project), layout, project.name, announce)
    check_interface_functions(project.config, manifest.functions)
    return manifest


def compile_kernel(project: Project, layout: BuildLayout) -> DesignManifest:
    """The compile task: write_project_ir in a child process (runtime.isolate), so an os._exit(),
    os.abort() or never-ending loop in kernel.py, or a thread it starts, ends that child in one line
    (a loop at [reference] timeout), never the build."""
    manifest: DesignManifest = run_isolated(
        functools.partial(write_project_ir, announce=False),
        project,
        layout,
        what=f"{project.name}: tracing kernel.py",
        timeout=project.config.reference_timeout,
    )
    # here, not in the child: what the child prints reaches the task's captured stdout (shown
    # only when it fails), while this process's stderr is the user's under hclbuild and doit
    print_warnings(manifest)
    return manifest


def print_warnings(manifest: DesignManifest) -> None:
    """The design's build-time warnings, one line each on stderr."""
    for warning in manifest.warnings:
        print(f"hclbuild: warning: {manifest.project}: {warning}", file=sys.stderr)
    sys.stderr.flush()


def write_design_ir(
    schedule: Schedule, layout: BuildLayout, name: str, announce: bool = True
) -> DesignManifest:
    """ir/top.mlir, ir/<func>.mlir and ir/manifest.json of a schedule: all that emit needs.

    Lowering for the reference run is the reference task's (project.lowering), so that on two
    cores the functions are emitted while the design is lowered and run. The pipelined loops
    that cannot meet their II (by an array's ports or a recurrence) go into the manifest's
    warnings, printed on stderr when `announce`.
    """
    try:
        design = compile_schedule(schedule)
    except HCLError as exc:
        raise type(exc)(f"{name}: {exc}") from None
    rename_reserved_top(design)  # a design named `main`: C++'s main() is the testbench's
    module = design.module
    # Vitis would settle at the higher II with a line in a log read after csynth: say it now
    warnings = [limit.message for limit in port_limited_loops(module)]
    warnings += [limit.message for limit in recurrence_limited_loops(module)]
    texts = function_modules(module)
    write_if_changed(layout.top_mlir, str(module))
    functions = [design.top] + list(dict.fromkeys(design.outlined))
    with module.context:
        by_name = symbols(module)
        graph = call_graph(module)
        signatures = {func: signature_of(by_name[func]) for func in functions}
        # the C names emit gives the arguments in ir/<func>.mlir (func and its callees): the
        # reference names the files of hls/<func>/data/ after them, without MLIR
        c_args = {
            func: [arg.name for arg in c_signature(by_name[func], set(callees_first(graph, func))).args]
            for func in functions
        }
        for func in functions[1:]:
            write_if_changed(layout.func_mlir(func), texts[func])
        writes = written_arguments(module)
        buffers = allocated_buffers(module)
        work = function_work(module)
        # the report draws the design from this, without MLIR
        graph = design_graph(module).to_json()
    manifest = DesignManifest(
        project=name,
        top=design.top,
        functions=functions,
        signatures=signatures,
        c_args=c_args,
        writes={func: writes[func] for func in functions},
        inputs=[t.name for t in schedule.inputs],
        outputs=[t.name for t in schedule.outputs],
        structs={
            t.name: [(field, dtype.name) for field, dtype in t.dtype.fields]
            for t in [*schedule.inputs, *schedule.outputs]
            if isinstance(t.dtype, Struct)
        },
        buffers=buffers,
        graph=graph,
        work={func: accesses if math.isfinite(accesses) else None for func, accesses in work.items()},
        warnings=warnings,
    )
    write_if_changed(layout.ir_manifest, json_text(manifest))
    if announce:
        print_warnings(manifest)
    return manifest


def _mlir_context() -> Any:
    """One MLIR context per process for emitting: creating one costs ~15 ms, once per function."""
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = new_context()
    return _CONTEXT


_CONTEXT: Any = None


# ---- emit -----------------------------------------------------------------------------------


def emit_function(project: Project, layout: BuildLayout, func: str) -> list[Path]:
    """Write hls/<func>/: the top file and header from the emitter, testbench, tcl, cfg, Makefile."""
    return emit_design_function(layout, project.config, func)


def emit_design_function(layout: BuildLayout, config: ProjectConfig, func: str) -> list[Path]:
    """emit_function given the project's configuration."""
    keep_compiled_templates(layout.template_cache)
    manifest = read_design_manifest(layout)
    if func not in manifest.functions:
        raise ConfigError(f"{config.name}: no function {func!r} (functions: {', '.join(manifest.functions)})")
    top = manifest.top
    blackboxes = blackboxes_of(config, func, manifest.functions, top)
    with _mlir_context(), ir.Location.unknown():
        module = ir.Module.parse(manifest.ir_path(layout, func).read_text(encoding="utf-8"))
        fn_op = symbols(module)[func]
        signature = c_signature(fn_op)
        interfaces = function_interfaces(config, func, top, signature)
        check_fifo_arrays(config, func, interfaces, signature, symbols(module))
        syntax = pragma_syntax(config.vitis_version)
        cpp, header = emit_function_files(module, func, interfaces, blackboxes, syntax)
    if manifest.c_args.get(func) != [arg.name for arg in signature.args]:
        raise CompileError(
            f"{config.name}/{func}: the emitted C arguments {[arg.name for arg in signature.args]} "
            f"are not the ones compile named its data files after; run compile again"
        )
    # data/ is the reference run's (reference.link_testbench_data)
    return write_function_project(
        layout.hls_dir(func),
        func,
        cpp,
        header,
        signature,
        config,
        blackboxes=blackboxes,
        as_blackbox=is_blackboxed(config, func, top),
    )


# ---- csim and report -------------------------------------------------------------------------


def csim_function(project: Project, layout: BuildLayout, func: str, runner: Any = None) -> CsimResult:
    """g++ the function's testbench and top file, run it on the golden data, write csim/<func>.json;
    CsimError unless it passed.

    `runner` has run_csim's signature (runtime.remote's runs it on a Dask worker); default run_csim."""
    return csim_design_function(layout, project.name, func, runner).check()


def csim_design_function(layout: BuildLayout, name: str, func: str, runner: Any = None) -> CsimResult:
    """csim_function of project `name`, passed or not (its CsimResult)."""
    outputs = _output_names(layout, func)
    if runner is not None:
        # objects and precompiled headers are a cache of this machine's compiler: not for a Dask worker's
        return runner(layout.hls_dir(func), layout.csim_json(func), project=name, outputs=outputs)
    return run_csim(
        layout.hls_dir(func),
        layout.csim_json(func),
        project=name,
        outputs=outputs,
        cache_root=layout.csim_cache,
        work=read_design_manifest(layout).work,
    )


def _output_names(layout: BuildLayout, func: str) -> list[str] | None:
    """The C names of the arguments `func` may write (IR manifest), or None when it does not say."""
    manifest = read_design_manifest(layout)
    writes = manifest.writes.get(func)
    if writes is None:
        return None
    ir_names = manifest.signatures[func].arg_names
    # the testbench's arguments are the signature's, in its order, under their C names
    c_names = [entry["name"] for entry in read_manifest(layout.hls_dir(func) / DATA_DIR)["in"]]
    return [c_name for ir_name, c_name in zip(ir_names, c_names) if ir_name in writes]


def write_report(
    project: Project, layout: BuildLayout, functions: list[str], pictures: bool = True
) -> list[Path]:
    """reports/summary.json and report.md: csim per function, plus csynth/cosim when Vitis made them,
    and (pictures) the design graph and csynth chart linked from report.md."""
    return write_project_report(project.name, layout, functions, pictures=pictures)
