"""The LLVM reference against the kernel's numpy model, for every project at its MEDIUM sizes.

The reference is what `doit` runs: the instrumented, bounds-checked llvm/units/, compiled per
function (light functions unoptimised, the rest at O3), called with the probes recording the
first call of every function as the reference run does. Its compile time is reported apart;
the ratio compares one run of the compiled design with one run of model().
"""

from __future__ import annotations

import math
import statistics
import time
from pathlib import Path
from typing import Any

from hclbuild.dsl.array import Array
from hclbuild.dsl.storage import from_storage
from hclbuild.errors import ConfigError
from hclbuild.project.config import load_project
from hclbuild.project.flow import compile_design
from hclbuild.project.kernel import call_optional, kernel_schedule, load_kernel
from hclbuild.project.layout import BuildLayout
from hclbuild.project.lowering import read_llvm_units
from hclbuild.project.reference import ProbeRecorder, reference_inputs
from hclbuild.runtime.llvm import JITModule

DATASET = "MEDIUM"


def _timed(fn: Any, repeat: int, budget: float = 20.0) -> float:
    """Median seconds of fn() over `repeat` runs (fewer when one run takes longer than budget/repeat)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        if sum(times) > budget:
            break
    return statistics.median(times)


def measure(folder: Path, work: Path, repeat: int = 5) -> dict | None:
    """LLVM reference and numpy model seconds of one project at MEDIUM; None when it has no MEDIUM or model."""
    try:
        project = load_project(folder, dataset=DATASET)
    except ConfigError:
        return None
    if project.config.dataset != DATASET:
        return None
    module = load_kernel(project)
    if getattr(module, "model", None) is None:
        return None
    layout = BuildLayout(work, project.name)
    start = time.perf_counter()
    compiled = compile_design(kernel_schedule(project, module), layout, project.name)
    compile_s = time.perf_counter() - start
    manifest = compiled.design
    signature = manifest.signatures[manifest.top]
    n_inputs = len(manifest.inputs)
    storages = reference_inputs(
        project.name, project.config, manifest, lambda rng: call_optional(project, module, "inputs", rng)
    )
    start = time.perf_counter()
    jit = JITModule(read_llvm_units(layout, compiled.lowered), cache_dir=layout.llvm_objects_dir)
    function = jit.function(signature)
    jit_s = time.perf_counter() - start

    def reference() -> float:
        """Seconds of one reference call on fresh copies of the inputs (made before the clock starts),
        its probes handled as the reference run handles them."""
        recorder = ProbeRecorder(compiled.lowered)
        arrays = [Array(s.copy(), spec.dtype) for s, spec in zip(storages, signature.args)]
        start = time.perf_counter()
        with jit.probing(recorder):
            function(*arrays)
        seconds = time.perf_counter() - start
        recorder.raise_failures(project.name)
        return seconds

    runs = [reference()]
    while len(runs) < repeat and sum(runs) < 20.0:
        runs.append(reference())
    reference_s = statistics.median(runs)
    user_inputs = [from_storage(s, spec.dtype) for spec, s in zip(signature.args[:n_inputs], storages)]
    numpy_s = _timed(lambda: call_optional(project, module, "model", *user_inputs), repeat)
    return {
        "project": project.name,
        "compile": compile_s,
        "jit": jit_s,
        "reference": reference_s,
        "numpy": numpy_s,
        "sizes": dict(project.config.sizes),
        "functions": len(manifest.functions),
    }


def reference_rows(results: list[dict], reasons: dict[str, str]) -> list[str]:
    rows = [
        "| project | MEDIUM sizes | compile + JIT (s) | LLVM reference (ms) | numpy model (ms) | LLVM / numpy |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        sizes = ", ".join(f"{k}={v}" for k, v in r["sizes"].items())
        ratio = r["reference"] / r["numpy"]
        rows.append(
            f"| {r['project']} | {sizes} | {r['compile'] + r['jit']:.2f} | {1e3 * r['reference']:.2f} | "
            f"{1e3 * r['numpy']:.2f} | {ratio:.2f} |"
        )
    if results:
        geomean = math.exp(sum(math.log(r["reference"] / r["numpy"]) for r in results) / len(results))
        rows += [
            "",
            f"Geometric mean of LLVM / numpy over {len(results)} kernels: **{geomean:.2f}** (target <= 1.5).",
        ]
        slower = [r for r in results if r["reference"] > r["numpy"]]
        if slower:
            rows += ["", "Slower than numpy:"]
            for r in sorted(slower, key=lambda r: -r["reference"] / r["numpy"]):
                why = reasons.get(r["project"], "not analysed")
                rows.append(f"- {r['project']} ({r['reference'] / r['numpy']:.1f}x): {why}")
    return rows
