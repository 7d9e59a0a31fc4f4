"""The csynth XML report: `<top>_csynth.xml` / `csynth.xml` -> CsynthReport, and its RTL ports.

The XML layout drifted between Vivado HLS 2018.3 and Vitis HLS 2024.1 (flat vs indented, DSP48E vs
DSP, URAM or not, loop tables flat with `<range>` or per module with "1 ~ 99" strings), so every
reader here tolerates a missing element: it yields None, never a crash. Only a file that is not a
report at all raises ToolError, naming the file.
"""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hclbuild.errors import ToolError
from hclbuild.runtime.report.values import (
    Span,
    _float,
    _int,
    _load_xml,
    _span,
    _text,
    _time_ns,
    _time_span,
)

# The tools spell the DSP slice after the device generation; one name makes designs comparable.
_RESOURCE_ALIASES = {"DSP48E": "DSP", "DSP48E1": "DSP", "DSP48E2": "DSP", "DSP58": "DSP"}
RESOURCE_ORDER = ("BRAM_18K", "DSP", "FF", "LUT", "URAM")

# Sections of which a csynth report has at least one; a <profile> without any is some other file.
_CSYNTH_SECTIONS = ("ReportVersion", "UserAssignments", "PerformanceEstimates", "AreaEstimates")

# Children of a loop element that are fields; any other child holding loop fields is a sub-loop.
_LOOP_FIELDS = frozenset(
    {
        "Name",
        "Slack",
        "TripCount",
        "Latency",
        "AbsoluteTimeLatency",
        "IterationLatency",
        "PipelineII",
        "PipelineDepth",
        "PipelineType",
        "InstanceList",
    }
)
_LOOP_MARKERS = ("TripCount", "Latency", "IterationLatency", "PipelineII")
_FILLABLE_LOOP_FIELDS = (
    "trip_count",
    "latency",
    "iteration_latency",
    "pipeline_ii",
    "pipeline_depth",
    "pipelined",
)
_ESTIMATED_CLOCK = "PerformanceEstimates/SummaryOfTimingAnalysis/EstimatedClockPeriod"


@dataclass
class LoopReport:
    """One row of a csynth loop table; `sub_loops` holds the loops nested in it."""

    name: str
    trip_count: Span | None = None
    latency: Span | None = None  # cycles, best ~ worst
    latency_ns: Span | None = None  # AbsoluteTimeLatency
    iteration_latency: Span | None = None
    pipeline_ii: Span | None = None
    pipeline_depth: Span | None = None
    pipelined: bool | None = None
    slack_ns: float | None = None
    sub_loops: list[LoopReport] = field(default_factory=list)


@dataclass
class ModuleReport:
    """One entry of ModuleInformation (Vitis 2022+): a synthesized sub-function or pipeline."""

    name: str
    estimated_clock: float | None = None
    best_latency: int | None = None
    average_latency: int | None = None
    worst_latency: int | None = None
    interval: Span | None = None
    resources: dict[str, int] = field(default_factory=dict)
    loops: list[LoopReport] = field(default_factory=list)


@dataclass
class CsynthReport:
    """The top-level content of a `<top>_csynth.xml` / `csynth.xml` report."""

    source: str
    version: str | None = None
    product_family: str | None = None
    part: str | None = None
    top: str | None = None
    flow_target: str | None = None
    clock_unit: str | None = None
    target_clock: float | None = None
    clock_uncertainty: float | None = None
    estimated_clock: float | None = None
    pipeline_type: str | None = None
    best_latency: int | None = None
    average_latency: int | None = None
    worst_latency: int | None = None
    best_latency_ns: float | None = None
    average_latency_ns: float | None = None
    worst_latency_ns: float | None = None
    interval_min: int | None = None
    interval_max: int | None = None
    dataflow_throughput: Span | None = None
    resources: dict[str, int] = field(default_factory=dict)
    available: dict[str, int] = field(default_factory=dict)
    utilization: dict[str, float | None] = field(default_factory=dict)  # percent of available
    loops: list[LoopReport] = field(default_factory=list)
    modules: list[ModuleReport] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of every field (Spans become {"min", "max"})."""
        return dataclasses.asdict(self)

    def iter_loops(self) -> Iterator[tuple[int, LoopReport]]:
        """Every loop of the top-level table, depth first, with its nesting depth (0 = outermost)."""
        yield from _walk_loops(self.loops, 0)

    @property
    def latency(self) -> Span | None:
        """Best ~ worst latency in cycles, or None when the report gives neither."""
        if self.best_latency is None and self.worst_latency is None:
            return None
        return Span(self.best_latency, self.worst_latency)

    @property
    def interval(self) -> Span | None:
        """Interval min ~ max in cycles, or None when the report gives neither."""
        if self.interval_min is None and self.interval_max is None:
            return None
        return Span(self.interval_min, self.interval_max)

    @property
    def loop_ii(self) -> Span | None:
        """Smallest ~ largest pipeline II over all pipelined loops, or None when no loop states one.

        Vitis 2022+ moves each pipelined loop into a module of its own (`<top>_Pipeline_<loop>`),
        listed only under ModuleInformation: the top-level table then holds just the loops around
        it, so the modules' loops count too (else every pipelined design showed no II at all)."""
        loops = [loop for _, loop in self.iter_loops()]
        loops += [loop for module in self.modules for _, loop in _walk_loops(module.loops, 0)]
        values = [
            end
            for loop in loops
            if loop.pipeline_ii is not None
            for end in (loop.pipeline_ii.min, loop.pipeline_ii.max)
            if end is not None
        ]
        return Span(min(values), max(values)) if values else None


# ---- csynth XML ------------------------------------------------------------------------------


def parse_csynth_xml(path: str | Path) -> CsynthReport:
    """Parse a Vivado HLS / Vitis HLS csynth XML report (2018.3 .. 2024.1) into a CsynthReport."""
    path = Path(path)
    root = _load_xml(path)
    if root.tag != "profile":
        raise ToolError(f"{path}: not an HLS csynth report (root element <{root.tag}>, expected <profile>)")
    if not any(root.find(name) is not None for name in _CSYNTH_SECTIONS):
        raise ToolError(
            f"{path}: not an HLS csynth report (<profile> has none of {', '.join(_CSYNTH_SECTIONS)})"
        )

    unit = _text(root, "UserAssignments/unit") or "ns"
    overall = root.find("PerformanceEstimates/SummaryOfOverallLatency")
    report = CsynthReport(
        source=str(path),
        version=_text(root, "ReportVersion/Version"),
        product_family=_text(root, "UserAssignments/ProductFamily"),
        part=_text(root, "UserAssignments/Part"),
        top=_text(root, "UserAssignments/TopModelName"),
        flow_target=_text(root, "UserAssignments/FlowTarget"),
        clock_unit=_text(root, "UserAssignments/unit"),
        target_clock=_float(_text(root, "UserAssignments/TargetClockPeriod")),
        clock_uncertainty=_float(_text(root, "UserAssignments/ClockUncertainty")),
        estimated_clock=_float(_text(root, _ESTIMATED_CLOCK)),
        pipeline_type=_text(root, "PerformanceEstimates/PipelineType"),
    )
    if overall is not None:
        report.best_latency = _int(_text(overall, "Best-caseLatency"))
        report.average_latency = _int(_text(overall, "Average-caseLatency"))
        report.worst_latency = _int(_text(overall, "Worst-caseLatency"))
        report.best_latency_ns = _time_ns(_text(overall, "Best-caseRealTimeLatency"), unit)
        report.average_latency_ns = _time_ns(_text(overall, "Average-caseRealTimeLatency"), unit)
        report.worst_latency_ns = _time_ns(_text(overall, "Worst-caseRealTimeLatency"), unit)
        report.interval_min = _int(_text(overall, "Interval-min"))
        report.interval_max = _int(_text(overall, "Interval-max"))
        report.dataflow_throughput = _span(overall.find("DataflowPipelineThroughput"))

    report.resources = _resources(root.find("AreaEstimates/Resources"))
    report.available = _resources(root.find("AreaEstimates/AvailableResources"))
    report.utilization = {
        name: (round(100.0 * used / report.available[name], 2) if report.available.get(name) else None)
        for name, used in report.resources.items()
    }
    report.loops = _loops(root.find("PerformanceEstimates/SummaryOfLoopLatency"), unit)
    report.modules = [_module(module, unit) for module in root.findall("ModuleInformation/Module")]
    for module in report.modules:
        if module.name == report.top:
            _fill_loops(report.loops, module.loops)
    return report


def _fill_loops(loops: list[LoopReport], detailed: list[LoopReport]) -> None:
    """Fill the top-level loop table's gaps from the top module's ModuleInformation loops."""
    # Vitis 2022+ omits PipelineDepth (and PipelineType) from the top-level table but not from there.
    by_name = {loop.name: loop for loop in detailed}
    for loop in loops:
        other = by_name.get(loop.name)
        if other is None:
            continue
        for name in _FILLABLE_LOOP_FIELDS:
            if getattr(loop, name) is None:
                setattr(loop, name, getattr(other, name))
        _fill_loops(loop.sub_loops, other.sub_loops)


def _module(elem: ET.Element, unit: str) -> ModuleReport:
    overall = elem.find("PerformanceEstimates/SummaryOfOverallLatency")
    module = ModuleReport(
        name=_text(elem, "Name") or "",
        estimated_clock=_float(_text(elem, _ESTIMATED_CLOCK)),
        resources=_resources(elem.find("AreaEstimates/Resources")),
        loops=_loops(elem.find("PerformanceEstimates/SummaryOfLoopLatency"), unit),
    )
    if overall is not None:
        module.best_latency = _int(_text(overall, "Best-caseLatency"))
        module.average_latency = _int(_text(overall, "Average-caseLatency"))
        module.worst_latency = _int(_text(overall, "Worst-caseLatency"))
        module.interval = _span(overall.find("PipelineInitiationInterval"))
    return module


def _resources(elem: ET.Element | None) -> dict[str, int]:
    """Used or available resource counts, DSP names merged, in RESOURCE_ORDER then document order."""
    if elem is None:
        return {}
    found: dict[str, int] = {}
    for child in elem:
        # ModuleInformation interleaves AVAIL_*/UTIL_* with the counts; those are not resources.
        if child.tag.startswith(("AVAIL_", "UTIL_")):
            continue
        value = _int(child.text)
        name = _RESOURCE_ALIASES.get(child.tag, child.tag)
        if value is not None and name not in found:
            found[name] = value
    ordered = {name: found[name] for name in RESOURCE_ORDER if name in found}
    ordered.update((name, value) for name, value in found.items() if name not in ordered)
    return ordered


def _loops(elem: ET.Element | None, unit: str) -> list[LoopReport]:
    if elem is None:
        return []
    return [_loop(child, unit) for child in elem if _is_loop(child)]


def _is_loop(elem: ET.Element) -> bool:
    return elem.tag not in _LOOP_FIELDS and any(elem.find(marker) is not None for marker in _LOOP_MARKERS)


def _loop(elem: ET.Element, unit: str) -> LoopReport:
    ii = _span(elem.find("PipelineII"))
    pipeline_type = (_text(elem, "PipelineType") or "").lower()
    if pipeline_type in ("yes", "no"):
        pipelined: bool | None = pipeline_type == "yes"
    else:
        # Older flat tables list PipelineII only for pipelined loops and have no PipelineType.
        pipelined = True if ii is not None else None
    return LoopReport(
        name=_text(elem, "Name") or elem.tag,
        trip_count=_span(elem.find("TripCount")),
        latency=_span(elem.find("Latency")),
        latency_ns=_time_span(elem.find("AbsoluteTimeLatency"), unit),
        iteration_latency=_span(elem.find("IterationLatency")),
        pipeline_ii=ii,
        pipeline_depth=_span(elem.find("PipelineDepth")),
        pipelined=pipelined,
        slack_ns=_float(_text(elem, "Slack")),
        sub_loops=[_loop(child, unit) for child in elem if _is_loop(child)],
    )


def _walk_loops(loops: list[LoopReport], depth: int) -> Iterator[tuple[int, LoopReport]]:
    for loop in loops:
        yield depth, loop
        yield from _walk_loops(loop.sub_loops, depth + 1)


# ---- RTL ports ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RtlPort:
    """One Verilog port of a synthesized function, from one `<RtlPorts>` element: `name` (ap_clk,
    A_address0), `Object` (the C argument, or the function for block control), `Type` (scalar, array,
    pointer, return value), `IOProtocol` (ap_memory, ap_none, ap_fifo, ap_ctrl_chain, m_axi...), `Dir`,
    `Bits`; a missing field is None."""

    name: str
    object: str | None
    type: str | None
    protocol: str | None
    direction: str | None  # "in" | "out"
    bits: int | None


def parse_rtl_ports(path: str | Path) -> list[RtlPort]:
    """Every RtlPorts entry of a csynth XML, in document order; ToolError when it has none."""
    path = Path(path)
    root = _load_xml(path)
    ports = []
    for elem in root.findall("InterfaceSummary/RtlPorts"):
        name = _text(elem, "name")
        if name is None:
            continue
        bits = _text(elem, "Bits")
        ports.append(
            RtlPort(
                name=name,
                object=_text(elem, "Object"),
                type=_text(elem, "Type"),
                protocol=_text(elem, "IOProtocol"),
                direction=_text(elem, "Dir"),
                bits=int(bits) if bits is not None and bits.isdigit() else None,
            )
        )
    if not ports:
        raise ToolError(f"{path}: the csynth report lists no RTL ports (no InterfaceSummary/RtlPorts)")
    return ports
