"""hclbuild's own QoR estimate of a function, `build/<p>/estimate/<func>.json` -> EstimateReport.

The estimate task writes it from the function's MLIR, without Vitis (compiler/estimate). Its figures
are a model's, never a synthesis result: every renderer labels them "estimated". The file's keys:

    kind="estimate", model_version, function, part, clock_ns, latency_min, latency_max, interval,
    loops: [{label, trip_count, ii_requested, ii, limited_by, iteration_latency, latency}],
    resources: {DSP, BRAM_18K, FF, LUT}

and, from the estimate task (project.estimation): `note` (what a figure leaves out: an m_axi argument
estimated as ap_memory) and `no_estimate` (why every figure is null).

A missing key reads as None (a newer or older model may leave one out); a file that is not JSON, or
whose `kind` is not "estimate", raises ToolError naming it.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hclbuild.errors import ToolError
from hclbuild.runtime.report.values import Number, _read_text

ESTIMATE_KIND = "estimate"


def read_estimate_record(path: Path) -> dict[str, Any] | None:
    """estimate/<func>.json as written, or None when it is missing or not an estimate."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("kind") == ESTIMATE_KIND else None


@dataclass(frozen=True)
class EstimatedLoop:
    """One loop of an estimate: its II as asked for and as modelled, and what limited it."""

    label: str
    trip_count: int | None = None
    ii_requested: int | None = None
    ii: int | None = None
    limited_by: str | None = None
    iteration_latency: int | None = None
    latency: int | None = None


@dataclass(frozen=True)
class EstimateReport:
    """The estimated latency, interval, loops and resources of one function."""

    source: str
    function: str
    model_version: str | None = None
    part: str | None = None
    clock_ns: float | None = None
    latency_min: int | None = None
    latency_max: int | None = None
    interval: int | None = None
    loops: list[EstimatedLoop] = field(default_factory=list)
    resources: dict[str, Number] = field(default_factory=dict)
    note: str | None = None
    no_estimate: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of every field, with kind="estimate" as the file has it."""
        return {"kind": ESTIMATE_KIND, **dataclasses.asdict(self)}


def parse_estimate_json(path: str | Path) -> EstimateReport:
    """Read an estimate file (see the module docstring); ToolError when it is not one."""
    path = Path(path)
    try:
        data = json.loads(_read_text(path, "estimate"))
    except ValueError as exc:
        raise ToolError(f"{path}: not an hclbuild estimate (invalid JSON: {exc})") from None
    return estimate_from_dict(data, str(path))


def estimate_from_dict(data: Any, source: str) -> EstimateReport:
    """An EstimateReport from the dict of an estimate file or of EstimateReport.to_dict."""
    if not isinstance(data, dict) or data.get("kind") != ESTIMATE_KIND:
        raise ToolError(f'{source}: not an hclbuild estimate (no "kind": "estimate")')
    loops = [
        EstimatedLoop(
            label=str(loop.get("label", "")),
            trip_count=_whole(loop.get("trip_count")),
            ii_requested=_whole(loop.get("ii_requested")),
            ii=_whole(loop.get("ii")),
            limited_by=_text(loop.get("limited_by")),
            iteration_latency=_whole(loop.get("iteration_latency")),
            latency=_whole(loop.get("latency")),
        )
        for loop in data.get("loops") or []
        if isinstance(loop, dict)
    ]
    resources = data.get("resources") or {}
    return EstimateReport(
        source=source,
        function=str(data.get("function", "")),
        model_version=_text(data.get("model_version")),
        part=_text(data.get("part")),
        clock_ns=_real(data.get("clock_ns")),
        latency_min=_whole(data.get("latency_min")),
        latency_max=_whole(data.get("latency_max")),
        interval=_whole(data.get("interval")),
        loops=loops,
        resources={
            str(name): value
            for name, value in (resources.items() if isinstance(resources, dict) else ())
            if isinstance(value, int | float) and not isinstance(value, bool)
        },
        note=_text(data.get("note")),
        no_estimate=_text(data.get("no_estimate")),
    )


def _whole(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if float(value).is_integer() else None


def _real(value: Any) -> float | None:
    return None if isinstance(value, bool) or not isinstance(value, int | float) else float(value)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)
