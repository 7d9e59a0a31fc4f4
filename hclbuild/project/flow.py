"""One project's flow as five steps with files in between; the doit tasks call exactly these.

    write_project_ir  kernel.py -> ir/top.mlir, ir/<func>.mlir, ir/manifest.json
    lower_design      ir/top.mlir -> llvm/top.ll, llvm/manifest.json (project.lowering)
    run_reference     llvm/top.ll (no MLIR) -> golden/<func>/ vectors at every outlined call,
                      linked into hls/<func>/data/
    emit_function     ir/<func>.mlir -> hls/<func>/ (C++, testbench, tcl, cfg, ...)
    csim_function     hls/<func>/ -> csim/<func>.json (g++ against the golden outputs)

Every file is written only when its bytes change, so doit's content check keeps unchanged
functions up to date.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from hclbuild.atomic import write_if_changed
from hclbuild.dsl.array import Array
from hclbuild.dsl.types import from_storage, parse_dtype, to_storage
from hclbuild.errors import CompileError, ConfigError, CsimError, DivisionError, HCLError
from hclbuild.project.config import Project
from hclbuild.project.kernel import call_optional, kernel_schedule, load_kernel
from hclbuild.project.layout import BuildLayout

MANIFEST_FORMAT = "hclbuild-ir"


# ---- compile ------------------------------------------------------------------------------


def compile_project(project: Project, layout: BuildLayout) -> dict[str, Any]:
    """write_project_ir, then lower_design (tests and notebooks): both manifests in one dict."""
    return _lowered_too(write_project_ir(project, layout), layout)


def compile_design(schedule: Any, layout: BuildLayout, name: str) -> dict[str, Any]:
    """compile_project for a schedule in hand."""
    return _lowered_too(write_design_ir(schedule, layout, name), layout)


def _lowered_too(ir_manifest: dict[str, Any], layout: BuildLayout) -> dict[str, Any]:
    from hclbuild.project.lowering import lower_design

    return {**lower_design(layout), **ir_manifest}


def write_project_ir(project: Project, layout: BuildLayout) -> dict[str, Any]:
    """The compile task: trace (or take the schedule planning traced), build, outline, verify."""
    from hclbuild.project.discovery import take_planned_schedule
    from hclbuild.project.interfaces import check_interface_functions

    schedule = take_planned_schedule(project)
    manifest = write_design_ir(
        schedule if schedule is not None else kernel_schedule(project), layout, project.name
    )
    check_interface_functions(project.config, manifest["functions"])
    return manifest


def write_design_ir(schedule: Any, layout: BuildLayout, name: str) -> dict[str, Any]:
    """ir/top.mlir, ir/<func>.mlir and ir/manifest.json of a schedule: all that emit needs.

    Lowering for the reference run is the reference task's (project.lowering), so that on two
    cores the functions are emitted while the design is lowered and run.
    """
    from hclbuild.compiler.design_graph import design_graph
    from hclbuild.compiler.emit_hls import c_signature
    from hclbuild.compiler.passes.split_functions import call_graph, callees_first, function_modules
    from hclbuild.compiler.pipeline import compile_schedule
    from hclbuild.compiler.signature import signature_of
    from hclbuild.compiler.upstream_attrs import symbols
    from hclbuild.compiler.work_estimate import function_work
    from hclbuild.compiler.written_args import written_arguments
    from hclbuild.project.memory import allocated_buffers

    try:
        design = compile_schedule(schedule)
    except HCLError as exc:
        raise type(exc)(f"{name}: {exc}") from None
    _rename_reserved_top(design)
    module = design.module
    texts = function_modules(module)
    write_if_changed(layout.top_mlir, str(module))
    functions = [design.top] + list(dict.fromkeys(design.outlined))
    signatures, c_args = {}, {}
    with module.context:
        by_name = symbols(module)
        graph = call_graph(module)
        for func in functions:
            signatures[func] = signature_of(by_name[func]).to_json()
            # the C names emit gives the arguments in ir/<func>.mlir (func and its callees): the
            # reference names the files of hls/<func>/data/ after them, without MLIR
            c_args[func] = [
                arg.name for arg in c_signature(by_name[func], set(callees_first(graph, func))).args
            ]
        for func in functions[1:]:
            write_if_changed(layout.func_mlir(func), texts[func])
        writes = written_arguments(module)
        buffers = allocated_buffers(module)
        work = function_work(module)
        # the report draws the design from this, without MLIR
        graph = design_graph(module).to_json()
    manifest = {
        "format": MANIFEST_FORMAT,
        "project": name,
        "top": design.top,
        "functions": functions,
        "signatures": signatures,
        "c_args": c_args,
        # the array arguments each function may write: its outputs, what csim can observe
        "writes": {func: writes[func] for func in functions},
        "inputs": [t.name for t in schedule.inputs],
        "outputs": [t.name for t in schedule.outputs],
        # the IR keeps a Struct as its packed integer; inputs() and model() take structured arrays
        "structs": {
            t.name: [[field, dtype.name] for field, dtype in t.dtype.fields]
            for t in [*schedule.inputs, *schedule.outputs]
            if t.dtype.is_struct
        },
        # what the reference run allocates besides the arguments (project.memory checks it fits)
        "buffers": buffers,
        # memory accesses of each defined function in one run of the design (None: not static):
        # csim compiles the functions doing little work unoptimised (runtime.csim.optimization_level)
        "work": {name: accesses if math.isfinite(accesses) else None for name, accesses in work.items()},
        "graph": graph,
    }
    write_if_changed(layout.ir_manifest, json.dumps(manifest, indent=2) + "\n")
    return manifest


def _rename_reserved_top(design: Any) -> None:
    """A schedule named `main` (HeteroCL's examples) becomes function `top`: C++'s main() is the testbench's."""
    from hclbuild.api import _rename_reserved_top as rename
    from hclbuild.compiler.attrs import top_functions
    from hclbuild.compiler.upstream_attrs import symbol_name

    with design.module.context:
        rename(design)
        design.top = symbol_name(top_functions(design.module)[0])


# one parsed manifest per file version: a doit process emits every function of a design, and
# re-reading a manifest that grows with the design once per function would be quadratic
_MANIFESTS: dict[Path, tuple[tuple[int, int, int], dict[str, Any]]] = {}


def read_ir_manifest(layout: BuildLayout) -> dict[str, Any]:
    path = layout.ir_manifest
    try:
        stat = path.stat()
        version = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        cached = _MANIFESTS.get(path)
        if cached is not None and cached[0] == version:
            return cached[1]
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: unreadable IR manifest ({exc}); run compile first") from None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise ConfigError(f"{path}: not an hclbuild IR manifest")
    _MANIFESTS[path] = (version, manifest)
    return manifest


def _mlir_context() -> Any:
    """One MLIR context per process for emitting: creating one costs ~15 ms, once per function."""
    global _CONTEXT
    if _CONTEXT is None:
        from hclbuild.compiler.context import new_context

        _CONTEXT = new_context()
    return _CONTEXT


_CONTEXT: Any = None


def func_ir_path(layout: BuildLayout, manifest: dict[str, Any], func: str) -> Path:
    """ir/top.mlir for the top (the whole design), ir/<func>.mlir for an outlined function."""
    return layout.top_mlir if func == manifest["top"] else layout.func_mlir(func)


# ---- reference ------------------------------------------------------------------------------


def random_inputs(signature: Any, seed: int) -> list[np.ndarray]:
    """Seeded values for every argument: small ints (no overflow surprises), floats in [-1, 1)."""
    rng = np.random.default_rng(seed)
    values = []
    for spec in signature.args:
        dt = spec.dtype
        shape = spec.shape
        if dt.is_float:
            data = rng.uniform(-1.0, 1.0, size=shape)
        elif dt.is_fixed:
            span = min(2.0 ** (dt.int_bits - 1 if dt.is_signed else dt.int_bits), 4.0)
            data = rng.uniform(-span if dt.is_signed else 0.0, span, size=shape)
        else:
            bits = min(dt.bits, 8)
            lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if dt.is_signed and bits > 1 else (0, 1 << bits)
            data = rng.integers(lo, hi, size=shape, dtype=np.int64)
        values.append(to_storage(data, dt))
    return values


def _user_inputs(
    name: str, config: Any, inputs_fn: Any, signature: Any, n_inputs: int
) -> list[np.ndarray] | None:
    rng = np.random.default_rng(config.seed)
    given = inputs_fn(rng) if inputs_fn is not None else None
    if given is None:
        return None
    if isinstance(given, dict):
        given = [given[spec.name] for spec in signature.args[:n_inputs] if spec.name in given]
    given = list(given)
    if len(given) != n_inputs:
        raise ConfigError(f"{name}: inputs() returned {len(given)} arrays, the design has {n_inputs} inputs")
    storages = []
    for spec, value in zip(signature.args, given):
        arr = _values(value)
        if arr.shape == () and spec.shape == (1,):
            arr = arr.reshape(
                1
            )  # a number for a placeholder of shape (), which is one element (as hcl.build takes)
        if arr.shape != tuple(spec.shape):
            raise ConfigError(f"{name}: inputs() gave {spec.name} shape {arr.shape}, expected {spec.shape}")
        storages.append(to_storage(arr, spec.dtype))
    for spec in signature.args[n_inputs:]:
        storages.append(to_storage(np.zeros(spec.shape), spec.dtype))
    return storages


def _values(value: Any) -> np.ndarray:
    """An array inputs() or model() gave, as values: an hcl.asarray Array too (a HeteroCL user keeps
    its data in them; np.asarray made one a 0-d object array, 'gave A shape (), expected (4,)')."""
    return value.asnumpy() if isinstance(value, Array) else np.asarray(value)


def _with_structs(signature: Any, structs: dict[str, list[list[str]]]) -> Any:
    """The top's signature with its Struct arguments' fields back (the IR has their packed width)."""
    import dataclasses

    from hclbuild.dsl.types import Struct

    args = [
        dataclasses.replace(spec, dtype=Struct({field: parse_dtype(dt) for field, dt in structs[spec.name]}))
        if spec.name in structs
        else spec
        for spec in signature.args
    ]
    return dataclasses.replace(signature, args=args)


def _check_model(
    name: str,
    config: Any,
    model_fn: Any,
    signature: Any,
    n_inputs: int,
    before: list[np.ndarray],
    after: list[np.ndarray],
) -> bool:
    """Compare the LLVM outputs with the kernel's numpy model, if it has one."""
    user_inputs = [from_storage(b, spec.dtype) for spec, b in zip(signature.args[:n_inputs], before)]
    expected = model_fn(*user_inputs) if model_fn is not None else None
    if expected is None:
        return False
    outputs = signature.args[n_inputs:]
    if isinstance(expected, dict):
        # a key naming no argument (a typo, a stage's name) would be compared with nothing: the
        # model check would pass without checking anything
        names = [spec.name for spec in signature.args]
        unknown = [key for key in expected if key not in names] or ([] if expected else ["(none)"])
        if unknown:
            raise ConfigError(
                f"{name}: model() returned {', '.join(map(str, unknown))}, not an argument of the "
                f"design (its arguments: {', '.join(names)})"
            )
        pairs = [(spec, k) for k, spec in enumerate(signature.args) if spec.name in expected]
        values = [expected[spec.name] for spec, _ in pairs]
    else:
        values = list(expected) if isinstance(expected, (list, tuple)) else [expected]
        pairs = [(spec, n_inputs + k) for k, spec in enumerate(outputs)]
        if len(values) != len(pairs):
            hint = "" if pairs else " (the design updates its arguments in place: return a dict naming them)"
            raise ConfigError(f"{name}: model() returned {len(values)} arrays for {len(pairs)} outputs{hint}")
    for (spec, index), want in zip(pairs, values):
        got = from_storage(after[index], spec.dtype)
        want = _values(want)
        if want.shape != got.shape:
            raise CsimError(
                f"{name}: model() output {spec.name} has shape {want.shape}, expected {got.shape}"
            )
        if spec.dtype.is_struct:  # field by field through the packed bits: every field bit-exact
            bad = to_storage(got, spec.dtype) != to_storage(want, spec.dtype)
        elif spec.dtype.is_float or spec.dtype.is_fixed:
            # NaN where the model has NaN agrees (sqrt or log of a negative); csim compares them so too
            bad = ~np.isclose(got, want, rtol=config.rtol, atol=config.atol, equal_nan=True)
        else:
            bad = got != want.astype(got.dtype)
        if bad.any():
            flat = int(np.flatnonzero(bad.reshape(-1))[0])
            raise CsimError(
                f"{name}: numpy model and LLVM reference disagree on {spec.name}[{flat}]: "
                f"model {want.reshape(-1)[flat]!r}, LLVM {got.reshape(-1)[flat]!r}"
            )
    return True


def run_reference(project: Project, layout: BuildLayout) -> dict[str, Any]:
    """Run llvm/top.ll on seeded (or kernel-supplied) inputs; record every outlined call's vectors."""
    module = load_kernel(project)
    return reference_design(
        layout,
        project.name,
        project.config,
        lambda rng: call_optional(project, module, "inputs", rng),
        lambda *inputs: call_optional(project, module, "model", *inputs),
    )


def _scalar_storage(bits: int, dtype: Any) -> np.ndarray:
    """The storage of a scalar argument from the raw bits a probe passed (index: a signed 64-bit value)."""
    width = 64 if dtype.is_index else dtype.bits
    value = bits & ((1 << width) - 1)
    if (dtype.is_index or dtype.is_signed) and value >> (width - 1):
        value -= 1 << width
    return to_storage(np.array(value), dtype)


def reference_design(
    layout: BuildLayout, name: str, config: Any, inputs_fn: Any = None, model_fn: Any = None
) -> dict[str, Any]:
    """run_reference with the kernel's inputs(rng) and model(*inputs) given as callables (or None)."""
    from hclbuild.probes import PHASE_DIVISION, PHASE_OUT_OF_BOUNDS, PHASE_STREAM_READ, PHASE_STREAM_WRITE
    from hclbuild.project.golden import write_golden
    from hclbuild.project.lowering import read_llvm_manifest
    from hclbuild.project.memory import check_reference_memory
    from hclbuild.runtime.fifo import FifoReplay
    from hclbuild.runtime.llvm import JITModule, read_buffer
    from hclbuild.runtime.signature import FunctionSignature

    manifest = {**read_llvm_manifest(layout), **read_ir_manifest(layout)}
    signature = FunctionSignature.from_json(manifest["signatures"][manifest["top"]])
    user_view = _with_structs(signature, manifest.get("structs", {}))
    n_inputs = len(manifest["inputs"])
    # before inputs(rng) or random values allocate anything: a MemoryError or an OOM kill midway said nothing
    check_reference_memory(name, manifest, getattr(config, "reference_memory_gb", None))
    storages = _user_inputs(name, config, inputs_fn, user_view, n_inputs)
    if storages is None:
        storages = random_inputs(signature, config.seed)
    before = [s.copy() for s in storages]
    sites = {int(site["site"]): site for site in manifest["probes"]}
    captured: dict[tuple[int, int, int], np.ndarray] = {}

    out_of_bounds: list[tuple[int, int, int]] = []
    bad_divisions: list[tuple[int, int]] = []
    fifos = FifoReplay(manifest.get("streams", []))
    addresses: dict[tuple[int, int], int] = {}  # (site, argument) -> buffer address

    def probe(site: int, phase: int, argidx: int, ptr: int) -> None:
        if (
            phase == PHASE_OUT_OF_BOUNDS
        ):  # a bounds check fired: (check, dimension, index); the access was skipped
            if not out_of_bounds:
                out_of_bounds.append((site, argidx, ptr))
            return
        if phase == PHASE_DIVISION:  # a division check fired: (check, kind); the division was skipped
            if not bad_divisions:
                bad_divisions.append((site, argidx))
            return
        if phase in (PHASE_STREAM_WRITE, PHASE_STREAM_READ):  # (check, phase, element, address)
            fifos.event(site, phase, argidx, ptr)
            return
        addresses.setdefault((site, argidx), ptr)
        spec = sites[site]["args"][argidx]
        # the first call of a function is its golden case; later calls are not recorded
        key = (site, phase, argidx)
        if key not in captured:
            dtype = parse_dtype(spec["dtype"])
            if not spec["shape"]:  # a scalar argument: the probe passes its bits by value
                captured[key] = _scalar_storage(ptr, dtype)
            else:
                captured[key] = read_buffer(ptr, dtype, tuple(spec["shape"]))

    probe.stream_events = fifos.events  # type: ignore[attr-defined] - a call's stream probes, all at once
    jit = JITModule(layout.top_ll.read_text(encoding="utf-8"), probe=probe, cache_dir=layout.llvm_objects_dir)
    function = jit.function(signature)
    arrays = [Array(s, spec.dtype) for s, spec in zip(storages, signature.args)]
    function(*arrays)
    after = [a.storage for a in arrays]
    if out_of_bounds:
        check, dim, index = out_of_bounds[0]
        from hclbuild.compiler.passes.bounds_check import out_of_bounds_message  # only when one fired

        raise CsimError(f"{name}: {out_of_bounds_message(manifest['bounds'][check], dim, index)}")
    if bad_divisions:
        check, kind = bad_divisions[0]
        raise DivisionError(f"{name}: {manifest['divisions'][check]['messages'][kind]}")
    stream_error = fifos.finish()
    if stream_error is not None:
        raise CsimError(f"{name}: {stream_error}")
    model_checked = _check_model(name, config, model_fn, user_view, n_inputs, before, after)

    written: dict[str, int] = {}
    top = manifest["top"]
    same_bytes: dict[str, Path] = {}  # a vector another function's folder holds becomes a link to it
    write_golden(
        layout.golden_dir(top),
        {spec.name: (b, spec.dtype) for spec, b in zip(signature.args, before)},
        {spec.name: (a, spec.dtype) for spec, a in zip(signature.args, after) if not spec.is_scalar},
        same_bytes,
    )
    written[top] = -1
    for site_id in sorted(sites):
        site = sites[site_id]
        callee = site["callee"]
        if callee in written:
            continue  # the first call is the golden case
        ins, outs = {}, {}
        streams = [spec.get("stream", "") for spec in manifest["signatures"][callee]["args"]]
        for k, arg in enumerate(site["args"]):
            if (site_id, 0, k) not in captured:
                raise CsimError(f"{name}/{callee}: the reference run never reached call site {site_id}")
            dt = parse_dtype(arg["dtype"])
            before_call, after_call = captured[(site_id, 0, k)], captured.get((site_id, 1, k))
            if streams[k]:  # a stream's vector is its values in FIFO order
                before_call = fifos.sequence(addresses[(site_id, k)], before_call)
                after_call = fifos.sequence(addresses[(site_id, k)], after_call)
            ins[arg["name"]] = (before_call, dt)
            if arg["shape"] and streams[k] != "read":
                outs[arg["name"]] = (after_call, dt)
        write_golden(layout.golden_dir(callee), ins, outs, same_bytes)
        written[callee] = site_id
    missing = [f for f in manifest["functions"] if f not in written]
    if missing:
        raise CsimError(f"{name}: the reference run never called {', '.join(missing)}")
    for func in manifest["functions"]:
        link_testbench_data(layout, manifest, func)
    return {"model_checked": model_checked, "functions": list(written)}


def link_testbench_data(layout: BuildLayout, manifest: dict[str, Any], func: str) -> list[Path]:
    """hls/<func>/data/: the golden vectors of golden/<func>/ under the C names of the arguments,
    as hard links. Written by the reference run, not by emit, so that emitting the C++ of every
    function needs no golden data and runs beside the reference."""
    from hclbuild.project.golden import link_golden, stored_vectors

    c_args = manifest.get("c_args", {}).get(func)
    ir_args = [arg["name"] for arg in manifest["signatures"][func]["args"]]
    if c_args is None or len(c_args) != len(ir_args):
        raise ConfigError(f"{layout.ir_manifest}: no C argument names of {func}; run compile again")
    c_names = dict(zip(ir_args, c_args))
    inputs, outputs = stored_vectors(layout.golden_dir(func))
    return link_golden(
        layout.hls_data_dir(func),
        {c_names[key]: vector for key, vector in inputs.items()},
        {c_names[key]: vector for key, vector in outputs.items()},
    )


# ---- emit -----------------------------------------------------------------------------------


def emit_function(project: Project, layout: BuildLayout, func: str) -> list[Path]:
    """Write hls/<func>/: the top file and header from the emitter, testbench, tcl, cfg, Makefile."""
    return emit_design_function(layout, project.config, func)


def emit_design_function(layout: BuildLayout, config: Any, func: str) -> list[Path]:
    """emit_function given the project's configuration."""
    from mlir import ir

    from hclbuild.compiler.emit_hls import c_signature, emit_function_files
    from hclbuild.compiler.upstream_attrs import symbols
    from hclbuild.project.hls_project import keep_compiled_templates, write_function_project
    from hclbuild.project.interfaces import blackboxes_of, function_interfaces, is_blackboxed

    keep_compiled_templates(layout.template_cache)
    manifest = read_ir_manifest(layout)
    if func not in manifest["functions"]:
        raise ConfigError(
            f"{config.name}: no function {func!r} (functions: {', '.join(manifest['functions'])})"
        )
    top = manifest["top"]
    blackboxes = blackboxes_of(config, func, manifest["functions"], top)
    with _mlir_context(), ir.Location.unknown():
        module = ir.Module.parse(func_ir_path(layout, manifest, func).read_text(encoding="utf-8"))
        fn_op = symbols(module)[func]
        signature = c_signature(fn_op)
        interfaces = function_interfaces(config, func, top, signature)
        cpp, header = emit_function_files(module, func, interfaces, blackboxes)
    if manifest.get("c_args", {}).get(func) != [arg.name for arg in signature.args]:
        raise CompileError(
            f"{config.name}/{func}: the emitted C arguments {[arg.name for arg in signature.args]} "
            f"are not the ones compile named its data files after; run compile again"
        )
    # data/ is the reference run's (link_testbench_data)
    return write_function_project(
        layout.hls_dir(func),
        func,
        cpp,
        header,
        signature,
        None,
        None,
        config,
        blackboxes=blackboxes,
        as_blackbox=is_blackboxed(config, func, top),
    )


# ---- csim and report -------------------------------------------------------------------------


def csim_function(project: Project, layout: BuildLayout, func: str, runner: Any = None) -> Any:
    """g++ the function's testbench and top file, run it on the golden data, write csim/<func>.json.

    `runner` has run_csim's signature (runtime.remote's runs it on a Dask worker); default run_csim."""
    from hclbuild.runtime.csim import run_csim

    # objects and precompiled headers are a cache of this machine's compiler: not for a Dask worker's
    local = {} if runner is not None else {"cache_root": layout.csim_cache, "work": _csim_work(layout)}
    result = (runner or run_csim)(
        layout.hls_dir(func),
        layout.csim_json(func),
        project=project.name,
        outputs=_output_names(layout, func),
        **local,
    )
    return result.check()


def _csim_work(layout: BuildLayout) -> dict[str, float | None] | None:
    """Each function's estimated memory accesses per run of the design (IR manifest; None where
    unknown), from which csim picks its -O level; None when the manifest does not say."""
    return read_ir_manifest(layout).get("work")


def _output_names(layout: BuildLayout, func: str) -> list[str] | None:
    """The C names of the arguments `func` may write (IR manifest), or None when it does not say."""
    from hclbuild.project.golden import read_manifest
    from hclbuild.project.hls_project import DATA_DIR

    manifest = read_ir_manifest(layout)
    writes = manifest.get("writes", {}).get(func)
    if writes is None:
        return None
    ir_names = [arg["name"] for arg in manifest["signatures"][func]["args"]]
    # the testbench's arguments are the signature's, in its order, under their C names
    c_names = [entry["name"] for entry in read_manifest(layout.hls_dir(func) / DATA_DIR)["in"]]
    return [c_name for ir_name, c_name in zip(ir_names, c_names) if ir_name in writes]


def write_report(
    project: Project, layout: BuildLayout, functions: list[str], pictures: bool = True
) -> list[Path]:
    """reports/summary.json and report.md: csim per function, plus csynth/cosim when Vitis made them,
    and (pictures) the design graph and csynth chart linked from report.md."""
    from hclbuild.project.report import write_project_report

    return write_project_report(project.name, layout, functions, pictures=pictures)
