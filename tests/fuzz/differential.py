"""Run one Program three ways and say whether they agree: the numpy model (program.evaluate), the
LLVM build (hcl.build) and csim of the generated HLS C++ through the project flow (compile_design,
reference_design, emit_design_function, csim_function: the reference run's golden outputs are a
fourth opinion, and csim checks every function against them).

Ints and fixed point must agree bit for bit; floats within FLOAT_RTOL/FLOAT_ATOL.
"""

from __future__ import annotations

import math
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from . import program as P
from .semantics import Ty
from .to_hcl import ModelTypeMismatch, build_schedule, hcl_type

FLOAT_RTOL = 1e-4
FLOAT_ATOL = 1e-4
PROJECT = "fuzz"


@dataclass
class Outcome:
    """kind: agree | rejected | model-type | crash | numpy!=llvm | llvm!=reference | csim-compile |
    csim-mismatch | reference-error; detail: one line saying what."""

    kind: str
    detail: str = ""
    functions: int = 0

    @property
    def ok(self) -> bool:
        return self.kind == "agree"

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}" if self.detail else self.kind


# ---- values in memory -------------------------------------------------------------------------


def _container_bytes(ty: Ty) -> int:
    if ty.is_float:
        return ty.bits // 8
    return next(n for n in (1, 2, 4, 8, 16) if ty.bits <= 8 * n)


def encode(values: np.ndarray, ty: Ty) -> np.ndarray:
    """Model values -> the container array hclbuild keeps in memory (raw bits, zero-extended)."""
    dtype = hcl_type(ty)
    if ty.is_float:
        return np.array(values, dtype=np.float32).reshape(values.shape)
    size = _container_bytes(ty)
    mask = (1 << ty.bits) - 1
    data = b"".join((int(v) & mask).to_bytes(size, "little") for v in values.reshape(-1))
    return np.frombuffer(data, dtype=dtype.np_storage).reshape(values.shape).copy()


def decode(storage: np.ndarray, ty: Ty) -> np.ndarray:
    """The container array back to model values (low `bits` bits, read with the type's sign)."""
    out = np.empty(storage.shape, dtype=object)
    flat = out.reshape(-1)
    if ty.is_float:
        for k, v in enumerate(np.asarray(storage, dtype=np.float32).reshape(-1)):
            flat[k] = np.float32(v)
        return out
    size = _container_bytes(ty)
    raw = np.ascontiguousarray(storage).tobytes()
    mask = (1 << ty.bits) - 1
    for k in range(flat.size):
        value = int.from_bytes(raw[k * size : (k + 1) * size], "little") & mask
        flat[k] = value - (1 << ty.bits) if ty.signed and value >> (ty.bits - 1) else value
    return out


def make_inputs(program: P.Program) -> dict[str, np.ndarray]:
    """Seeded input values: small numbers, the type's extremes, and anything in range."""
    rng = np.random.default_rng(program.seed)
    inputs = {}
    for tensor in program.inputs:
        ty = tensor.ty
        values = np.empty(tensor.shape, dtype=object)
        flat = values.reshape(-1)
        for k in range(flat.size):
            flat[k] = _one_value(rng, ty)
        inputs[tensor.name] = values
    return inputs


def _one_value(rng: np.random.Generator, ty: Ty) -> Any:
    if ty.is_float:
        return np.float32(
            [0.0, 1.0, -1.0, 0.5][int(rng.integers(0, 4))] if rng.random() < 0.2 else rng.uniform(-4, 4)
        )
    # fixed inputs reach the reference run as floats: keep their raw bits exact in a double
    lo, hi = ty.lowest(), ty.highest()
    if ty.is_fixed and ty.signed and ty.overflow == "AP_SAT_SYM":
        # the type's values are [-max, max]: inputs() reach the reference as floats, and -2**(w-1)
        # converted into the type is -max (as in ap_fixed), while the model and hcl.build, handed the
        # raw bits, kept -2**(w-1): the harness's own disagreement, not hclbuild's
        lo = -hi
    if ty.is_fixed:
        lo, hi = max(lo, -(1 << 52)), min(hi, (1 << 52) - 1)
    pick = rng.random()
    if pick < 0.2:
        edges = [lo, hi, 0, min(1, hi), max(-1, lo)]  # rng.choice would round big ints through float
        return edges[int(rng.integers(0, len(edges)))]
    if pick < 0.6:
        scale = 1 << ty.frac if ty.is_fixed else 1
        return int(np.clip(int(rng.integers(-8, 9)) * scale + int(rng.integers(0, scale)), lo, hi))
    span = hi - lo + 1
    return lo + int.from_bytes(rng.bytes(17), "little") % span


def _written_inputs(program: P.Program) -> list[str]:
    names = {t.name for t in program.inputs}
    written: list[str] = []

    def visit(stmts: tuple[Any, ...]) -> None:
        for stmt in stmts:
            if isinstance(stmt, P.Store) and stmt.tensor in names and stmt.tensor not in written:
                written.append(stmt.tensor)
            for child in ("then", "orelse", "body"):
                visit(getattr(stmt, child, ()))

    for stage in program.stages:
        visit(getattr(stage, "body", ()))
    return written


# ---- comparison -----------------------------------------------------------------------------


def first_difference(got: np.ndarray, want: np.ndarray, ty: Ty) -> str | None:
    """None when equal (floats: within tolerance), else where and what."""
    for k, (g, w) in enumerate(zip(got.reshape(-1), want.reshape(-1))):
        if ty.is_float:
            g, w = float(g), float(w)
            same = (
                (math.isnan(g) and math.isnan(w)) or g == w or abs(g - w) <= FLOAT_ATOL + FLOAT_RTOL * abs(w)
            )
        else:
            same = int(g) == int(w)
        if not same:
            return f"[{k}] {g!r} instead of {w!r}"
    return None


def _compare(
    what: str, results: dict[str, np.ndarray], expected: dict[str, np.ndarray], types: dict[str, Ty]
) -> str | None:
    for name, want in expected.items():
        diff = first_difference(results[name], want, types[name])
        if diff is not None:
            return f"{what}: {name}{diff}"
    return None


# ---- the three runs -------------------------------------------------------------------------


def run_program(program: P.Program, workdir: Path, csim: bool = True) -> Outcome:
    """Evaluate, build and simulate `program`; the first disagreement found is the outcome."""
    from hclbuild.errors import HCLError

    tensors = program.tensors()
    inputs = make_inputs(program)
    model = P.evaluate(program, {k: v.copy() for k, v in inputs.items()})
    observed = list(dict.fromkeys([*(t.name for t in program.inputs), *program.outputs]))
    expected = {name: model[name] for name in observed}
    types = {name: tensors[name].ty for name in observed}

    try:
        schedule = build_schedule(program)
        import hclbuild as hcl

        function = hcl.build(schedule)
    except ModelTypeMismatch as exc:
        return Outcome("model-type", str(exc))
    except HCLError as exc:
        return Outcome("rejected", f"{type(exc).__name__}: {_line(exc)}")
    except Exception as exc:
        return Outcome("crash", f"build: {type(exc).__name__}: {_line(exc)} at {_where(exc)}")
    from hclbuild.dsl.array import Array

    arrays = [Array(encode(inputs[t.name], t.ty), hcl_type(t.ty)) for t in program.inputs]
    outputs = [tensors[n] for n in program.outputs if n not in inputs]
    arrays += [
        Array(
            encode(np.zeros(t.shape, dtype=object) if not t.ty.is_float else np.zeros(t.shape), t.ty),
            hcl_type(t.ty),
        )
        for t in outputs
    ]
    try:
        function(*arrays)
    except HCLError as exc:
        return Outcome("crash", f"LLVM call: {type(exc).__name__}: {_line(exc)}")
    names = [t.name for t in program.inputs] + [t.name for t in outputs]
    llvm = {name: decode(array.storage, types[name]) for name, array in zip(names, arrays)}
    diff = _compare("numpy model vs hcl.build", llvm, expected, types)
    if diff is not None:
        return Outcome("numpy!=llvm", diff)
    if not csim:
        return Outcome("agree")
    return _csim(program, workdir, inputs, expected, types)


def _csim(
    program: P.Program,
    workdir: Path,
    inputs: dict[str, np.ndarray],
    expected: dict[str, np.ndarray],
    types: dict[str, Ty],
) -> Outcome:
    from hclbuild.errors import CsimError, HCLError
    from hclbuild.project.config import ProjectConfig
    from hclbuild.project.flow import compile_design, csim_function, emit_design_function
    from hclbuild.project.golden import read_vectors
    from hclbuild.project.layout import BuildLayout
    from hclbuild.project.reference import reference_design

    layout = BuildLayout(workdir, PROJECT)
    config = ProjectConfig(name=PROJECT, rtol=FLOAT_RTOL, atol=FLOAT_ATOL, seed=program.seed)

    def given(_rng: Any) -> list[np.ndarray]:
        return [_reference_input(inputs[t.name], t.ty) for t in program.inputs]

    try:
        manifest = compile_design(build_schedule(program), layout, PROJECT).design
        reference_design(layout, PROJECT, config, given)
    except HCLError as exc:
        return Outcome("reference-error", f"{type(exc).__name__}: {_line(exc)}")
    except Exception as exc:
        return Outcome("crash", f"flow: {type(exc).__name__}: {_line(exc)} at {_where(exc)}")
    golden = read_vectors(layout.golden_dir(manifest.top)).outputs
    reference = {name: decode(golden[name][0], types[name]) for name in expected if name in golden}
    diff = _compare("hcl.build vs the reference run", reference, {k: expected[k] for k in reference}, types)
    if diff is not None:
        return Outcome("llvm!=reference", diff)
    project = SimpleNamespace(name=PROJECT, config=config)
    for func in manifest.functions:
        try:
            emit_design_function(layout, config, func)
            csim_function(project, layout, func)
        except CsimError as exc:
            return Outcome("csim-mismatch", _line(exc), len(manifest.functions))
        except HCLError as exc:
            return Outcome("csim-compile", f"{type(exc).__name__}: {_line(exc)}", len(manifest.functions))
    return Outcome("agree", functions=len(manifest.functions))


def _reference_input(values: np.ndarray, ty: Ty) -> np.ndarray:
    """What project inputs() returns: ints as Python ints, fixed as exact floats, float32."""
    if ty.is_float:
        return np.array(values, dtype=np.float32).reshape(values.shape)
    if ty.is_fixed:
        return np.array([int(v) / 2**ty.frac for v in values.reshape(-1)], dtype=np.float64).reshape(
            values.shape
        )
    return values


def _line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    inside = [f for f in frames if "/hclbuild/" in f.filename] or frames
    last = inside[-1]
    return f"{Path(last.filename).name}:{last.lineno}"
