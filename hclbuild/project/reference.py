"""The reference task's run: llvm/units/ (no MLIR) on seeded or kernel-supplied inputs, checked
against the kernel's numpy model, recording every outlined call's vectors as golden data.

    reference_design    inputs -> run with probes -> checks that fired -> model -> golden/<func>/,
                        linked into hls/<func>/data/ under the C names of the arguments

JIT code that divides by zero or indexes out of bounds reports it through a probe (the run skips
the access); the first one fails the run in one line naming the stage, as do a stream read of an
empty FIFO and an outlined function the run never called.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from hclbuild.compiler.passes.bounds_check import out_of_bounds_message
from hclbuild.dsl.array import Array
from hclbuild.dsl.storage import from_storage, to_storage
from hclbuild.dsl.types import DType, parse_dtype
from hclbuild.errors import ConfigError, CsimError, DivisionError
from hclbuild.probes import PHASE_DIVISION, PHASE_OUT_OF_BOUNDS, PHASE_STREAM_READ, PHASE_STREAM_WRITE
from hclbuild.project.config import Project, ProjectConfig
from hclbuild.project.golden import link_golden, stored_vectors, write_golden
from hclbuild.project.kernel import call_optional, load_kernel
from hclbuild.project.layout import BuildLayout
from hclbuild.project.lowering import read_llvm_units
from hclbuild.project.manifest import DesignManifest, LoweredDesign, read_design_manifest, read_lowered_design
from hclbuild.project.reference_memory import check_reference_memory
from hclbuild.runtime.fifo import FifoReplay
from hclbuild.runtime.llvm import JITModule, read_buffer


class ReferenceRun(NamedTuple):
    """What a reference run did: whether the model was checked, and the functions it recorded."""

    model_checked: bool
    functions: list[str]


def run_reference(project: Project, layout: BuildLayout) -> ReferenceRun:
    """Run llvm/units/ on seeded (or kernel-supplied) inputs; record every outlined call's vectors."""
    module = load_kernel(project)
    return reference_design(
        layout,
        project.name,
        project.config,
        lambda rng: call_optional(project, module, "inputs", rng),
        lambda *inputs: call_optional(project, module, "model", *inputs),
    )


def reference_design(
    layout: BuildLayout,
    name: str,
    config: ProjectConfig,
    inputs_fn: Callable[..., Any] | None = None,
    model_fn: Callable[..., Any] | None = None,
) -> ReferenceRun:
    """run_reference with the kernel's inputs(rng) and model(*inputs) given as callables (or None)."""
    manifest, lowered = read_design_manifest(layout), read_lowered_design(layout)
    signature, user_view = manifest.signatures[manifest.top], manifest.user_signature()
    n_inputs = len(manifest.inputs)
    # before inputs(rng) or random values allocate anything: a MemoryError or an OOM kill midway said nothing
    check_reference_memory(name, manifest, config.reference_memory_gb)
    storages = reference_inputs(name, config, manifest, inputs_fn)
    before = [storage.copy() for storage in storages]
    recorder = ProbeRecorder(lowered)
    jit = JITModule(read_llvm_units(layout, lowered), probe=recorder, cache_dir=layout.llvm_objects_dir)
    arrays = [Array(storage, spec.dtype) for storage, spec in zip(storages, signature.args)]
    jit.function(signature)(*arrays)
    after = [array.storage for array in arrays]
    recorder.raise_failures(name)
    model_checked = _check_model(name, config, model_fn, user_view, n_inputs, before, after)
    functions = _write_golden(layout, name, manifest, recorder, before, after)
    for func in manifest.functions:
        link_testbench_data(layout, manifest, func)
    return ReferenceRun(model_checked, functions)


def reference_inputs(
    name: str, config: ProjectConfig, manifest: DesignManifest, inputs_fn: Callable[..., Any] | None = None
) -> list[np.ndarray]:
    """The storage of every argument of the top for a reference run: what inputs_fn(rng) gives (the
    outputs zeroed), else seeded random values (random_inputs)."""
    storages = _user_inputs(name, config, inputs_fn, manifest.user_signature(), len(manifest.inputs))
    if storages is None:
        storages = random_inputs(manifest.signatures[manifest.top], config.seed)
    return storages


class ProbeRecorder:
    """The probe handler of a reference run: every outlined call's argument vectors before and after
    its first call, the first bounds or division check that fired, and the FIFO order of streams."""

    def __init__(self, lowered: LoweredDesign) -> None:
        self.lowered = lowered
        self.sites = {int(site["site"]): site for site in lowered.probes}
        self.captured: dict[tuple[int, int, int], np.ndarray] = {}  # (site, phase, argument)
        self.out_of_bounds: list[tuple[int, int, int]] = []  # (check, dimension, index)
        self.bad_divisions: list[tuple[int, int]] = []  # (check, kind)
        self.fifos = FifoReplay(lowered.streams)
        self.addresses: dict[tuple[int, int], int] = {}  # (site, argument) -> buffer address
        # a call's stream probes, all at once (runtime.jit_probes)
        self.stream_events = self.fifos.events

    def __call__(self, site: int, phase: int, argidx: int, ptr: int) -> None:
        """What the JIT code calls at a probe (runtime.llvm); the phase says what the others are."""
        if phase == PHASE_OUT_OF_BOUNDS:  # (check, dimension, index); the access was skipped
            if not self.out_of_bounds:
                self.out_of_bounds.append((site, argidx, ptr))
            return
        if phase == PHASE_DIVISION:  # (check, kind); the division was skipped
            if not self.bad_divisions:
                self.bad_divisions.append((site, argidx))
            return
        if phase in (PHASE_STREAM_WRITE, PHASE_STREAM_READ):  # (check, phase, element, address)
            self.fifos.event(site, phase, argidx, ptr)
            return
        self.addresses.setdefault((site, argidx), ptr)
        spec = self.sites[site]["args"][argidx]
        # the first call of a function is its golden case; later calls are not recorded
        key = (site, phase, argidx)
        if key not in self.captured:
            dtype = parse_dtype(spec["dtype"])
            if not spec["shape"]:  # a scalar argument: the probe passes its bits by value
                self.captured[key] = _scalar_storage(ptr, dtype)
            else:
                self.captured[key] = read_buffer(ptr, dtype, tuple(spec["shape"]))

    def raise_failures(self, name: str) -> None:
        """The first check that fired during the run, as its error; a stream's misuse likewise."""
        if self.out_of_bounds:
            check, dim, index = self.out_of_bounds[0]
            raise CsimError(f"{name}: {out_of_bounds_message(self.lowered.bounds[check], dim, index)}")
        if self.bad_divisions:
            check, kind = self.bad_divisions[0]
            raise DivisionError(f"{name}: {self.lowered.divisions[check]['messages'][kind]}")
        stream_error = self.fifos.finish()
        if stream_error is not None:
            raise CsimError(f"{name}: {stream_error}")

    def call_vectors(
        self, name: str, site_id: int, streams: list[str]
    ) -> tuple[dict[str, tuple[np.ndarray, DType]], dict[str, tuple[np.ndarray, DType]]]:
        """The inputs and outputs of the first call at `site_id`, by argument name (a stream's
        vector is its values in FIFO order; a stream the callee reads has no output)."""
        site = self.sites[site_id]
        ins, outs = {}, {}
        for k, arg in enumerate(site["args"]):
            if (site_id, 0, k) not in self.captured:
                raise CsimError(
                    f"{name}/{site['callee']}: the reference run never reached call site {site_id}"
                )
            dtype = parse_dtype(arg["dtype"])
            before_call, after_call = self.captured[(site_id, 0, k)], self.captured.get((site_id, 1, k))
            if streams[k]:
                before_call = self.fifos.sequence(self.addresses[(site_id, k)], before_call)
                if after_call is not None:
                    after_call = self.fifos.sequence(self.addresses[(site_id, k)], after_call)
            ins[arg["name"]] = (before_call, dtype)
            if arg["shape"] and streams[k] != "read":
                if after_call is None:
                    raise CsimError(
                        f"{name}/{site['callee']}: the reference run never returned from call site {site_id}"
                    )
                outs[arg["name"]] = (after_call, dtype)
        return ins, outs


def _write_golden(
    layout: BuildLayout,
    name: str,
    manifest: DesignManifest,
    recorder: ProbeRecorder,
    before: list[np.ndarray],
    after: list[np.ndarray],
) -> list[str]:
    """golden/<func>/ of the top (the run's own inputs and outputs) and of each outlined function
    (its first call); the functions written, the top first."""
    signature = manifest.signatures[manifest.top]
    # vectors are named after the C names of the arguments (a tensor may be named "A A" or "../x"),
    # which hls/<func>/data/ and the testbench use too
    c_names = {func: manifest.c_names(func, layout.ir_manifest) for func in manifest.functions}
    top_names = c_names[manifest.top]
    same_bytes: dict[str, Path] = {}  # a vector another function's folder holds becomes a link to it
    write_golden(
        layout.golden_dir(manifest.top),
        {top_names[spec.name]: (b, spec.dtype) for spec, b in zip(signature.args, before)},
        {
            top_names[spec.name]: (a, spec.dtype)
            for spec, a in zip(signature.args, after)
            if not spec.is_scalar
        },
        same_bytes,
    )
    written = [manifest.top]
    for site_id in sorted(recorder.sites):
        callee = recorder.sites[site_id]["callee"]
        if callee in written:
            continue  # the first call is the golden case
        streams = [spec.stream for spec in manifest.signatures[callee].args]
        ins, outs = recorder.call_vectors(name, site_id, streams)
        names = c_names[callee]
        write_golden(
            layout.golden_dir(callee),
            {names[key]: vector for key, vector in ins.items()},
            {names[key]: vector for key, vector in outs.items()},
            same_bytes,
        )
        written.append(callee)
    missing = [f for f in manifest.functions if f not in written]
    if missing:
        raise CsimError(f"{name}: the reference run never called {', '.join(missing)}")
    return written


def link_testbench_data(layout: BuildLayout, manifest: DesignManifest, func: str) -> list[Path]:
    """hls/<func>/data/: the golden vectors of golden/<func>/ (named after the C names of the
    arguments, as the testbench reads them), as hard links. Written by the reference run, not by
    emit, so that emitting the C++ of every function needs no golden data and runs beside the
    reference."""
    inputs, outputs = stored_vectors(layout.golden_dir(func))
    return link_golden(layout.hls_data_dir(func), inputs, outputs)


# ---- inputs and the model --------------------------------------------------------------------


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
            raise CsimError(
                f"{name}: numpy model and LLVM reference disagree on {spec.name}{_mismatch(bad, want, got)}"
            )
    return True


def _mismatch(bad: np.ndarray, want: np.ndarray, got: np.ndarray) -> str:
    """`[first flat index]: model v, LLVM w (n of m elements differ, max abs error e)`, as csim's
    line gives them: one differing element and a thousand read differently."""
    flat_bad = bad.reshape(-1)
    first = int(np.flatnonzero(flat_bad)[0])
    model, llvm = want.reshape(-1), got.reshape(-1)
    text = (
        f"[{first}]: model {model[first]!r}, LLVM {llvm[first]!r} "
        f"({int(flat_bad.sum())} of {flat_bad.size} elements differ"
    )
    if got.dtype.kind in "iuf" and want.dtype.kind in "iufb":
        # as Python numbers, so that the difference itself cannot wrap (254 against -2 is 256)
        errors = [abs(a - b) for a, b in zip(llvm[flat_bad].tolist(), model[flat_bad].tolist())]
        text += f", max abs error {_number(max(errors))}"
    return text + ")"


def _number(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{value:.6g}"


def _scalar_storage(bits: int, dtype: Any) -> np.ndarray:
    """The storage of a scalar argument from the raw bits a probe passed (index: a signed 64-bit value)."""
    width = 64 if dtype.is_index else dtype.bits
    value = bits & ((1 << width) - 1)
    if (dtype.is_index or dtype.is_signed) and value >> (width - 1):
        value -= 1 << width
    return to_storage(np.array(value), dtype)
