"""LLVM code units -> native code one function at a time, each object cached by the bytes it came from.

A design is hundreds of functions. Compiling the module as one unit makes every change
recompile everything, and O3 on functions that run a few hundred iterations costs more than
running them. So hclbuild.compiler.to_llvm splits the lowered module in MLIR into one unit per
function (hclbuild.code_units: the function, declarations of what it calls, its own copies of
local helpers and constants), and each unit becomes an object file on its own:

- a function marked `optnone` (hclbuild.compiler.to_llvm marks the ones doing little work) gets
  no optimisation passes and -O0 code generation (fast instruction selection);
- every other function gets the O1-O3 pipeline and code generation of the requested level.

Objects are kept in memory for the process and, given a cache folder, on disk under the sha256 of
(unit text, tier, target CPU and features, llvmlite version): the second reference run of a
design whose one function changed compiles that function only. One MCJIT engine loads all the
objects and resolves the calls between them.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm

from hclbuild.atomic import write_bytes_atomic
from hclbuild.code_units import CodeUnit
from hclbuild.errors import CompileError

_LOCK = threading.RLock()
_OBJECTS: dict[str, bytes] = {}  # cache key -> object file bytes, for the process


def _key(unit: CodeUnit, opt_level: int, cpu: str, features: str) -> str:
    tier = 0 if unit.light else opt_level
    stamp = f"{tier}\n{cpu}\n{features}\nllvmlite {llvmlite.__version__}\n"
    return hashlib.sha256((stamp + unit.text).encode()).hexdigest()


def _compile_unit(unit: CodeUnit, opt_level: int, machines: dict[int, llvm.TargetMachine]) -> bytes:
    level = 0 if unit.light else opt_level
    machine = machines[level]
    try:
        module = llvm.parse_assembly(unit.text)
        module.verify()
    except RuntimeError as err:
        raise CompileError(
            _one_line(f"LLVM IR does not parse or verify (@{unit.name})", err) + f"\n{err}"
        ) from None
    module.triple = machine.triple
    module.data_layout = str(machine.target_data)
    if level > 0:
        tuning = llvm.create_pipeline_tuning_options(speed_level=level)
        builder = llvm.create_pass_builder(machine, tuning)
        builder.getModulePassManager().run(module, builder)
    try:
        return machine.emit_object(module)
    except RuntimeError as err:
        raise CompileError(_one_line(f"LLVM code generation of {unit.name} failed", err)) from None


def compile_objects(
    units: Iterable[CodeUnit],
    opt_level: int,
    machines: dict[int, llvm.TargetMachine],
    cpu: str,
    features: str,
    cache_dir: Path | None = None,
) -> tuple[list[bytes], int]:
    """Object file bytes of every unit, from the caches where possible; also how many were compiled.

    With cache_dir, objects are read from and written to `<cache_dir>/<key>.o`, and objects there
    that these units no longer use are deleted (the folder holds one design's current objects).
    """
    objects, compiled, keys = [], 0, set()
    for unit in units:
        key = _key(unit, opt_level, cpu, features)
        keys.add(key)
        with _LOCK:
            data = _OBJECTS.get(key)
        path = None if cache_dir is None else Path(cache_dir) / f"{key}.o"
        if data is None and path is not None and path.is_file():
            data = path.read_bytes()
        if data is None:
            data = _compile_unit(unit, opt_level, machines)
            compiled += 1
            if path is not None:
                write_bytes_atomic(path, data)
        with _LOCK:
            _OBJECTS[key] = data
        objects.append(data)
    if cache_dir is not None and Path(cache_dir).is_dir():
        for stale in Path(cache_dir).glob("*.o"):
            if stale.stem not in keys:
                stale.unlink(missing_ok=True)
    return objects, compiled


def _one_line(summary: str, err: Exception) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    detail = next(
        (line for line in lines if "error" in line.lower() and line != lines[0]), lines[-1] if lines else ""
    )
    return f"{summary}: {detail}" if detail else summary


__all__ = ["CodeUnit", "compile_objects"]
