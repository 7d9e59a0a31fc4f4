"""The estimate step: ir/<func>.mlir -> estimate/<func>.json, hclbuild's QoR model of one function.

The model is hclbuild.compiler.estimate (`estimate_module(module, part=, clock_ns=, vitis_version=)`,
one record a function); this module runs it on the file emit reads (the function and its callees),
with project.toml's part, clock and Vitis version, and writes what it says. The file is the model's
record (the keys hclbuild.runtime.report.estimate reads) plus two of the flow's own:

    note         why a figure is less than the model's word: an m_axi argument estimated as the
                 ap_memory port it is not (AXI latency and bursts are not modelled)
    no_estimate  why there is none (the model refused the function, or failed on it); then every
                 figure is null

A function always gets a file: a refusal is a reason to read, never a missing file or a failed build.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

from mlir import ir

from hclbuild.atomic import write_if_changed
from hclbuild.compiler.context import new_context
from hclbuild.compiler.emit_hls import c_signature
from hclbuild.compiler.estimate import estimate_module
from hclbuild.compiler.upstream_attrs import symbols
from hclbuild.errors import ConfigError, HCLError
from hclbuild.project.config import ProjectConfig
from hclbuild.project.interfaces import function_interfaces
from hclbuild.project.layout import BuildLayout
from hclbuild.project.manifest import read_design_manifest
from hclbuild.runtime.report.estimate import ESTIMATE_KIND


@dataclass(frozen=True)
class EstimateTarget:
    """What a model estimates for: the part, the clock period and the Vitis release's defaults."""

    part: str
    clock_ns: float
    vitis_version: str | None

    @classmethod
    def of(cls, config: ProjectConfig) -> EstimateTarget:
        """project.toml's [hls] part, clock_period_ns and vitis_version."""
        return cls(config.part, config.clock_period_ns, config.vitis_version)


def estimate_records(module: Any, target: EstimateTarget) -> dict[str, dict[str, Any]]:
    """Every function of an MLIR module (after outlining) -> its estimate's JSON record, each with
    "kind": "estimate"; the model's HCLError when it refuses one of them."""
    estimates = estimate_module(
        module, part=target.part, clock_ns=target.clock_ns, vitis_version=target.vitis_version
    )
    return {func: {"kind": ESTIMATE_KIND, **record.to_json()} for func, record in estimates.items()}


def refused_record(func: str, target: EstimateTarget, reason: str) -> dict[str, Any]:
    """The file of a function without an estimate: every figure null, and why."""
    return {
        "kind": ESTIMATE_KIND,
        "model_version": None,
        "function": func,
        "part": target.part,
        "clock_ns": target.clock_ns,
        "latency_min": None,
        "latency_max": None,
        "interval": None,
        "loops": [],
        "resources": {},
        "no_estimate": reason,
    }


def estimate_function(config: ProjectConfig, layout: BuildLayout, func: str) -> dict[str, Any]:
    """Estimate `func` from the MLIR emit reads and write estimate/<func>.json (only when its bytes
    change); returns the record written."""
    manifest = read_design_manifest(layout)
    if func not in manifest.functions:
        raise ConfigError(f"{config.name}: no function {func!r} (functions: {', '.join(manifest.functions)})")
    target = EstimateTarget.of(config)
    with _context(), ir.Location.unknown():
        module = ir.Module.parse(manifest.ir_path(layout, func).read_text(encoding="utf-8"))
        record = _estimate_or_reason(module, func, target, config.name)
        if record.get("no_estimate") is None:
            m_axi = _m_axi_arguments(config, module, func, manifest.top)
            if m_axi:
                record["note"] = (
                    f"m_axi argument{'s' if len(m_axi) > 1 else ''} {', '.join(m_axi)} estimated as "
                    "ap_memory (on-chip RAM ports): AXI latency and bursts are not modelled"
                )
    write_if_changed(layout.estimate_json(func), json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


def _estimate_or_reason(module: Any, func: str, target: EstimateTarget, project: str) -> dict[str, Any]:
    try:
        records = estimate_records(module, target)
    except HCLError as exc:
        # a refusal (an operation or interface the model does not know) is the estimate's answer
        return refused_record(func, target, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    except Exception as exc:
        # a bug of the model must not fail the build it only informs: the file names it, and so
        # does stderr, so it gets reported rather than hidden
        reason = f"the QoR model failed ({type(exc).__name__}: {exc}); this is a bug of hclbuild"
        print(f"hclbuild: warning: {project}/{func}: {reason}", file=sys.stderr)
        return refused_record(func, target, reason.splitlines()[0])
    if func not in records:
        return refused_record(func, target, f"the QoR model returned no estimate of {func}")
    return records[func]


def _m_axi_arguments(config: ProjectConfig, module: Any, func: str, top: str) -> list[str]:
    """The C arguments of `func` that its project gives an m_axi interface."""
    signature = c_signature(symbols(module)[func])
    interfaces = function_interfaces(config, func, top, signature)
    return [arg.port for arg in interfaces.args if arg.mode == "m_axi"]


def _context() -> Any:
    """One MLIR context per process for estimating (creating one costs about 15 ms)."""
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = new_context()
    return _CONTEXT


_CONTEXT: Any = None
