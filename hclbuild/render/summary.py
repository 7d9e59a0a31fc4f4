"""The records every renderer reads: a project's summary.json, each function's csim verdict and its QoR
figures from two sources, csynth (a Vitis report) and hclbuild's estimate (a model, never a tool).

summary.json is the one file `report --compare` and report.html need, so a build folder (or a saved
summary) renders without recompiling anything. Written by project.report_files, read here:

    {"format": 2, "project": str, "order": [func, ...],
     "functions": {func: {"state", "reason", "csim", "csynth", "cosim", "estimate",
                          "qor": {"csynth": Figures | null, "estimate": Figures | null},
                          "files": [path relative to build/<p>/, ...]}},
     "graph": compiler.design_graph's dict | null, "pareto": "explore/pareto.png" | null,
     "problems": [...], "unreadable_reports": [...], "outdated_reports": [...]}

A build folder's summary.json holds {"format": 2, "projects": {name: <a project's summary>}}.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hclbuild.errors import ToolError
from hclbuild.runtime.report import CsynthReport, EstimateReport

SUMMARY_FORMAT = 2
PASS, FAIL, NOT_RUN = "pass", "FAIL", "not run"
CSYNTH, ESTIMATE = "csynth", "estimate"
# the resources every figure names, in the order tables show them
RESOURCES = ("DSP", "BRAM_18K", "FF", "LUT")


@dataclass(frozen=True)
class LoopFigures:
    """One loop: its trip count, the II asked for and the II reached, and what limited it."""

    label: str
    trip_count: int | None = None
    ii_requested: int | None = None
    ii: int | None = None
    limited_by: str | None = None
    latency: int | None = None


@dataclass(frozen=True)
class Figures:
    """A function's latency, interval, resources and loops from one source (CSYNTH or ESTIMATE)."""

    source: str
    latency_min: int | None = None
    latency_max: int | None = None
    interval: int | None = None
    resources: dict[str, int | float] = field(default_factory=dict)
    loops: list[LoopFigures] = field(default_factory=list)

    @property
    def label(self) -> str:
        """How a table names the source: "estimated" or "csynth"."""
        return "estimated" if self.source == ESTIMATE else "csynth"

    def metric(self, name: str) -> int | float | None:
        """ "latency" (worst case), "interval", or a resource of RESOURCES."""
        if name == "latency":
            return self.latency_max
        if name == "interval":
            return self.interval
        return self.resources.get(name)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Figures:
        """Figures back from asdict()."""
        return cls(
            source=str(data["source"]),
            latency_min=data.get("latency_min"),
            latency_max=data.get("latency_max"),
            interval=data.get("interval"),
            resources=dict(data.get("resources") or {}),
            loops=[LoopFigures(**loop) for loop in data.get("loops") or []],
        )


def csynth_figures(report: CsynthReport) -> Figures:
    """The Figures of a parsed csynth report; loops flattened depth first with their achieved II."""
    loops = [
        LoopFigures(
            label=loop.name,
            trip_count=_end(loop.trip_count),
            ii=_end(loop.pipeline_ii),
            latency=_end(loop.latency),
        )
        for _, loop in report.iter_loops()
    ]
    return Figures(
        source=CSYNTH,
        latency_min=report.best_latency,
        latency_max=report.worst_latency,
        interval=report.interval_max,
        resources={name: report.resources[name] for name in RESOURCES if name in report.resources},
        loops=loops,
    )


def estimate_figures(report: EstimateReport) -> Figures:
    """The Figures of hclbuild's estimate of a function."""
    return Figures(
        source=ESTIMATE,
        latency_min=report.latency_min,
        latency_max=report.latency_max,
        interval=report.interval,
        resources={name: report.resources[name] for name in RESOURCES if name in report.resources},
        loops=[
            LoopFigures(
                label=loop.label,
                trip_count=loop.trip_count,
                ii_requested=loop.ii_requested,
                ii=loop.ii,
                limited_by=loop.limited_by,
                latency=loop.latency,
            )
            for loop in report.loops
        ],
    )


def _end(span: Any) -> int | None:
    # a csynth span "1 ~ 99" compares by its worst case
    if span is None:
        return None
    value = span.max if span.max is not None else span.min
    return int(value) if isinstance(value, int | float) and float(value).is_integer() else None


@dataclass
class FunctionSummary:
    """One function of a project's summary."""

    name: str
    state: str  # PASS | FAIL | NOT_RUN
    reason: str | None = None
    csim: dict[str, Any] | None = None  # csim/<func>.json, when its verdict counts
    csynth: Figures | None = None
    estimate: Figures | None = None
    cosim: str | None = None  # the cosim report's status (Pass, Fail, NA)
    files: list[str] = field(default_factory=list)  # relative to build/<p>/

    @property
    def best(self) -> Figures | None:
        """The csynth figures where Vitis ran, else the estimate."""
        return self.csynth or self.estimate


@dataclass
class ProjectSummary:
    """A project's summary.json, as the renderers read it."""

    project: str
    functions: list[FunctionSummary] = field(default_factory=list)
    graph: dict[str, Any] | None = None
    pareto: str | None = None  # relative to build/<p>/
    problems: list[dict[str, Any]] = field(default_factory=list)
    unreadable_reports: list[str] = field(default_factory=list)
    outdated_reports: list[str] = field(default_factory=list)

    def function(self, name: str) -> FunctionSummary | None:
        """The function called `name`, or None."""
        return next((f for f in self.functions if f.name == name), None)


def summary_to_json(
    summary: ProjectSummary, details: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """summary.json's dict; `details` adds each function's full csynth/cosim/estimate report dicts."""
    functions = {}
    for func in summary.functions:
        extra = (details or {}).get(func.name, {})
        functions[func.name] = {
            "state": func.state,
            "reason": func.reason,
            "csim": func.csim,
            "csynth": extra.get("csynth"),
            "cosim": extra.get("cosim"),
            "estimate": extra.get("estimate"),
            "qor": {
                CSYNTH: None if func.csynth is None else asdict(func.csynth),
                ESTIMATE: None if func.estimate is None else asdict(func.estimate),
            },
            "files": func.files,
        }
    return {
        "format": SUMMARY_FORMAT,
        "project": summary.project,
        "order": [func.name for func in summary.functions],
        "functions": functions,
        "graph": summary.graph,
        "pareto": summary.pareto,
        "problems": summary.problems,
        "unreadable_reports": summary.unreadable_reports,
        "outdated_reports": summary.outdated_reports,
    }


def summary_from_json(data: Any, source: str) -> ProjectSummary:
    """A ProjectSummary from summary.json's dict; ToolError naming `source` when it is not one."""
    if not isinstance(data, dict) or data.get("format") != SUMMARY_FORMAT or "functions" not in data:
        raise ToolError(
            f"{source}: not an hclbuild summary.json of format {SUMMARY_FORMAT} "
            "(rerun `hclbuild report` with this hclbuild to write one)"
        )
    try:
        functions = []
        for name in data.get("order") or sorted(data["functions"]):
            entry = data["functions"][name]
            qor = entry.get("qor") or {}
            cosim = entry.get("cosim")
            functions.append(
                FunctionSummary(
                    name=name,
                    state=str(entry["state"]),
                    reason=entry.get("reason"),
                    csim=entry.get("csim"),
                    csynth=Figures.from_dict(qor[CSYNTH]) if qor.get(CSYNTH) else None,
                    estimate=Figures.from_dict(qor[ESTIMATE]) if qor.get(ESTIMATE) else None,
                    cosim=cosim.get("status") if isinstance(cosim, dict) else None,
                    files=[str(path) for path in entry.get("files") or []],
                )
            )
        return ProjectSummary(
            project=str(data["project"]),
            functions=functions,
            graph=data.get("graph"),
            pareto=data.get("pareto"),
            problems=list(data.get("problems") or []),
            unreadable_reports=list(data.get("unreadable_reports") or []),
            outdated_reports=list(data.get("outdated_reports") or []),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ToolError(f"{source}: a damaged hclbuild summary.json ({type(exc).__name__}: {exc})") from None


def build_summary_json(summaries: list[ProjectSummary]) -> dict[str, Any]:
    """A build folder's summary.json: every project's summary under its name."""
    return {"format": SUMMARY_FORMAT, "projects": {s.project: summary_to_json(s) for s in summaries}}


def read_summaries(path: Path) -> list[ProjectSummary]:
    """The project summaries of one summary.json, a project's or a build folder's."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ToolError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ToolError(f"{path}: not JSON ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("projects"), dict):
        if data.get("format") != SUMMARY_FORMAT:
            raise ToolError(f"{path}: not an hclbuild summary.json of format {SUMMARY_FORMAT}")
        return [
            summary_from_json(entry, f"{path} (project {name})") for name, entry in data["projects"].items()
        ]
    return [summary_from_json(data, str(path))]
