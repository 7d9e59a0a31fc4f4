"""Parse Vitis / Vivado HLS reports (csynth XML, cosim rpt, csim log) and render them as markdown.

Standard library only. The csynth XML layout drifted between Vivado HLS 2018.3 and Vitis HLS 2024.1
(flat vs indented, DSP48E vs DSP, URAM or not, loop tables flat with `<range>` or per module with
"1 ~ 99" strings), so every reader here tolerates a missing element: it yields None, never a crash.
Only a file that is not a report at all raises ToolError, naming the file.

A value the tool reports as `undef` (data-dependent latency, unknown trip count) is None.
"""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hclbuild.errors import ToolError

Number = int | float

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

_TIME_UNITS_NS = {"ps": 1e-3, "ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
_UNDEF_WORDS = {"", "undef", "-", "na", "n/a"}


@dataclass(frozen=True)
class Span:
    """A value reported as one number or as a min..max range; an end that is undef is None."""

    min: Number | None
    max: Number | None

    def __str__(self) -> str:
        if self.min == self.max:
            return _format_number(self.min, "undef")
        return f"{_format_number(self.min, 'undef')} ~ {_format_number(self.max, 'undef')}"


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
        """Smallest ~ largest pipeline II over all pipelined loops, or None when no loop states one."""
        values = [
            end
            for _, loop in self.iter_loops()
            if loop.pipeline_ii is not None
            for end in (loop.pipeline_ii.min, loop.pipeline_ii.max)
            if end is not None
        ]
        return Span(min(values), max(values)) if values else None


@dataclass
class CosimRun:
    """One RTL row of a cosim report."""

    language: str
    status: str  # "Pass" | "Fail" | "NA"
    latency_min: Number | None = None
    latency_avg: Number | None = None
    latency_max: Number | None = None
    interval_min: Number | None = None
    interval_avg: Number | None = None
    interval_max: Number | None = None
    total_execution_time: Number | None = None  # cycles


@dataclass
class CosimReport:
    """A `<top>_cosim.rpt`: one CosimRun per RTL language (Verilog, VHDL)."""

    source: str
    report_time: str | None = None
    solution: str | None = None
    simulation_tool: str | None = None
    runs: dict[str, CosimRun] = field(default_factory=dict)

    @property
    def status(self) -> str:
        """Fail if any language failed, else Pass if any passed, else NA."""
        statuses = {run.status for run in self.runs.values()}
        if "Fail" in statuses:
            return "Fail"
        return "Pass" if "Pass" in statuses else "NA"

    @property
    def passed(self) -> bool:
        """True when at least one language ran and none failed."""
        return self.status == "Pass"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of every field plus the overall status."""
        return {**dataclasses.asdict(self), "status": self.status}


@dataclass
class CsimLog:
    """What a Vitis `<top>_csim.log` says about a C simulation run.

    `passed` comes from the tool's verdict lines only; `mismatch_lines` are testbench lines that look
    like a comparison failure, kept to show the user, not to decide.
    """

    source: str
    passed: bool
    finished: bool  # the tool printed its "CSim done/failed" verdict
    error_count: int | None = None
    return_value: int | None = None
    error_lines: list[str] = field(default_factory=list)
    mismatch_lines: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of every field."""
        return dataclasses.asdict(self)


@dataclass
class FunctionReport:
    """One function of a design: its reports, any of which may be missing; a row of the summary.

    `csim` is a parsed Vitis csim log or the pass/fail of hclbuild's own g++ csim.
    """

    name: str
    csynth: CsynthReport | None = None
    cosim: CosimReport | None = None
    csim: CsimLog | bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict with each present report as its own dict."""
        csim: Any = self.csim.to_dict() if isinstance(self.csim, CsimLog) else self.csim
        return {
            "name": self.name,
            "csynth": self.csynth.to_dict() if self.csynth else None,
            "cosim": self.cosim.to_dict() if self.cosim else None,
            "csim": csim,
        }


# ---- csynth XML ------------------------------------------------------------------------------


def parse_csynth_xml(path: str | Path) -> CsynthReport:
    """Parse a Vivado HLS / Vitis HLS csynth XML report (2018.3 .. 2024.1) into a CsynthReport."""
    path = Path(path)
    root = _load_xml(path)
    if root.tag != "profile" or not any(root.find(name) is not None for name in _CSYNTH_SECTIONS):
        raise ToolError(f"{path}: not an HLS csynth report (root element <{root.tag}>, expected <profile>)")

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


def _load_xml(path: Path) -> ET.Element:
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ToolError(f"{path}: cannot read HLS report ({err.strerror or err})") from None
    try:
        root = ET.fromstring(data)
    except ET.ParseError as err:
        raise ToolError(f"{path}: not an HLS csynth report (XML parse error: {err})") from None
    # Reports carry no namespaces today; stripping any keeps the plain paths below valid if one appears.
    for elem in root.iter():
        if isinstance(elem.tag, str) and "}" in elem.tag:
            elem.tag = elem.tag.split("}", 1)[1]
    return root


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


# ---- value readers -----------------------------------------------------------------------------


def _text(elem: ET.Element, path: str) -> str | None:
    found = elem.find(path)
    if found is None or found.text is None:
        return None
    text = found.text.strip()
    return text or None


def _number(text: str | None) -> Number | None:
    if text is None or text.strip().lower() in _UNDEF_WORDS:
        return None
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def _int(text: str | None) -> int | None:
    value = _number(text)
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    return value


def _float(text: str | None) -> float | None:
    value = _number(text)
    return None if value is None else float(value)


def _range_ends(elem: ET.Element) -> tuple[ET.Element | None, ET.Element | None] | None:
    """The <min>/<max> children of a value written as <range><min/><max/></range> or bare min/max."""
    holder = elem.find("range")
    if holder is None:
        holder = elem
    low, high = holder.find("min"), holder.find("max")
    if low is None and high is None:
        return None
    return low, high


def _span(elem: ET.Element | None) -> Span | None:
    """A count written as "7", "1 ~ 99", <range><min/><max/></range> or undef."""
    if elem is None:
        return None
    ends = _range_ends(elem)
    if ends is not None:
        low, high = (_number(end.text) if end is not None else None for end in ends)
    else:
        text = (elem.text or "").strip()
        parts = text.split("~")
        if len(parts) > 2:
            return None
        low, high = _number(parts[0]), _number(parts[-1])
    if low is None and high is None:
        return None
    return Span(low, high)


def _time_ns(text: str | None, default_unit: str) -> float | None:
    """A duration such as "2.627 ms", "0.150 us" or a bare number in the report's unit, in ns."""
    if text is None:
        return None
    match = re.fullmatch(r"\s*([-+0-9.eE]+)\s*([a-zA-Z]*)\s*", text)
    if match is None:
        return None
    factor = _TIME_UNITS_NS.get((match.group(2) or default_unit).lower())
    value = _number(match.group(1))
    if factor is None or value is None:
        return None
    # Rounding keeps "2.627 ms" as 2627000.0 instead of a binary-fraction neighbour.
    return round(float(value) * factor, 6)


def _time_span(elem: ET.Element | None, default_unit: str) -> Span | None:
    if elem is None:
        return None
    ends = _range_ends(elem)
    if ends is not None:
        low, high = (_time_ns(end.text, default_unit) if end is not None else None for end in ends)
    else:
        parts = (elem.text or "").split("~")
        if len(parts) > 2:
            return None
        low, high = _time_ns(parts[0], default_unit), _time_ns(parts[-1], default_unit)
    if low is None and high is None:
        return None
    return Span(low, high)


# ---- cosim report ------------------------------------------------------------------------------

_COSIM_STATUS = {"pass": "Pass", "fail": "Fail", "na": "NA"}
_COSIM_HEADER_FIELDS = {
    "Report time": "report_time",
    "Solution": "solution",
    "Simulation tool": "simulation_tool",
}
_COSIM_HEADER = re.compile(r"^\s*(Report time|Solution|Simulation tool)\s*:\s*(.*?)\s*$")


def parse_cosim_rpt(path: str | Path) -> CosimReport:
    """Parse a `<top>_cosim.rpt` table into per-language status, latency, interval and total cycles."""
    path = Path(path)
    text = _read_text(path, "cosim report")
    report = CosimReport(source=str(path))
    for line in text.splitlines():
        header = _COSIM_HEADER.match(line)
        if header:
            # Values end with a period ("solution1."), and the time has runs of spaces.
            value = " ".join(header.group(2).rstrip(".").split()) or None
            setattr(report, _COSIM_HEADER_FIELDS[header.group(1)], value)
            continue
        if not line.lstrip().startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0] or cells[1].lower() not in _COSIM_STATUS:
            continue  # a header row of the table
        numbers = [_number(cell) for cell in cells[2:9]]
        numbers += [None] * (7 - len(numbers))
        report.runs[cells[0]] = CosimRun(cells[0], _COSIM_STATUS[cells[1].lower()], *numbers)
    if not report.runs:
        raise ToolError(f"{path}: not an HLS cosim report (no RTL status rows found)")
    return report


def _read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise ToolError(f"{path}: cannot read {what} ({err.strerror or err})") from None


# ---- csim log ----------------------------------------------------------------------------------

_CSIM_DONE = re.compile(r"CSim done with (\d+) errors?", re.IGNORECASE)
_CSIM_FAILED_COUNT = re.compile(r"CSim failed with (\d+) errors?", re.IGNORECASE)
_CSIM_RETURN = re.compile(r"nonzero (?:return )?value\s*'?(-?\d+)?", re.IGNORECASE)
_CSIM_FAILURE = re.compile(
    r"@E Simulation failed|CSim failed|csim_design' failed|nonzero return value|returns nonzero value"
    r"|compilation error",
    re.IGNORECASE,
)
_TOOL_LINE = re.compile(r"^\s*(INFO|WARNING|ERROR|CRITICAL WARNING)\s*:|^\s*@[IWE]\s")
_MISMATCH = re.compile(
    r"\bmismatch(es|ed)?\b|\bdiffers?\b|\bfail(s|ed|ure)?\b|\bexpected\b.*\b(got|but|actual)\b",
    re.IGNORECASE,
)


def parse_csim_log(path: str | Path) -> CsimLog:
    """Parse a Vitis csim log: verdict, error count, return value, error and mismatch lines."""
    path = Path(path)
    text = _read_text(path, "csim log")
    finished = False
    failed = False
    error_count: int | None = None
    return_value: int | None = None
    error_lines: list[str] = []
    mismatch_lines: list[str] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if match := _CSIM_DONE.search(line):
            finished, error_count = True, int(match.group(1))
        if match := _CSIM_FAILED_COUNT.search(line):
            finished, failed, error_count = True, True, int(match.group(1))
        if _CSIM_FAILURE.search(line):
            # "@E Simulation failed" / "'csim_design' failed" are the tool's last word on the run.
            finished, failed = True, True
            match = _CSIM_RETURN.search(line)
            if match and match.group(1) is not None:
                return_value = int(match.group(1))
        if re.match(r"^\s*(ERROR\s*:|@E\s)", line):
            error_lines.append(line.strip())
        elif not _TOOL_LINE.match(line) and _MISMATCH.search(line):
            mismatch_lines.append(line.strip())
    passed = finished and not failed and error_count == 0 and not error_lines
    return CsimLog(
        source=str(path),
        passed=passed,
        finished=finished,
        error_count=error_count,
        return_value=return_value,
        error_lines=error_lines,
        mismatch_lines=mismatch_lines,
    )


# ---- markdown ----------------------------------------------------------------------------------


def render_function_markdown(
    name: str,
    csynth: CsynthReport | None,
    cosim: CosimReport | None = None,
    csim: CsimLog | bool | None = None,
) -> str:
    """Markdown for one function: overview table, then resources, loops and cosim tables."""
    parts = [f"### {_cell(name)}", ""]
    rows: list[tuple[str, str]] = []
    if csynth is not None:
        unit = csynth.clock_unit or "ns"
        rows += [
            ("HLS version", _format_number(csynth.version)),
            ("Part", _join(csynth.part, f"({csynth.product_family})" if csynth.product_family else None)),
            ("Top", _format_number(csynth.top)),
            (f"Target clock ({unit})", _format_number(csynth.target_clock)),
            (f"Clock uncertainty ({unit})", _format_number(csynth.clock_uncertainty)),
            (f"Estimated clock ({unit})", _format_number(csynth.estimated_clock)),
            (
                "Latency best / avg / worst (cycles)",
                _slash(csynth.best_latency, csynth.average_latency, csynth.worst_latency, none="undef"),
            ),
        ]
        times = (csynth.best_latency_ns, csynth.average_latency_ns, csynth.worst_latency_ns)
        if any(value is not None for value in times):
            rows.append(("Latency best / avg / worst (time)", " / ".join(_format_time(v) for v in times)))
        rows.append(
            ("Interval min / max (cycles)", _slash(csynth.interval_min, csynth.interval_max, none="undef"))
        )
        if csynth.pipeline_type:
            rows.append(("Pipeline type", csynth.pipeline_type))
    rows.append(("C simulation", _csim_cell(csim)))
    if cosim is not None:
        rows.append(("Co-simulation", cosim.status))
    parts += _table(("Metric", "Value"), rows)

    if csynth is not None and (csynth.resources or csynth.available):
        names = list(csynth.resources) + [n for n in csynth.available if n not in csynth.resources]
        parts += [""] + _table(
            ("Resource", "Used", "Available", "Utilization (%)"),
            [
                (
                    n,
                    _format_number(csynth.resources.get(n)),
                    _format_number(csynth.available.get(n)),
                    _format_number(csynth.utilization.get(n)),
                )
                for n in names
            ],
        )
    if csynth is not None and csynth.loops:
        parts += [""] + _table(
            ("Loop", "Trip count", "Latency (cycles)", "Iteration latency", "II", "Depth"),
            [
                (
                    # Non-breaking spaces keep the nesting visible; markdown collapses plain ones.
                    "\u00a0\u00a0" * depth + loop.name,
                    _format_span(loop.trip_count),
                    _format_span(loop.latency),
                    _format_span(loop.iteration_latency),
                    _format_span(loop.pipeline_ii),
                    _format_span(loop.pipeline_depth),
                )
                for depth, loop in csynth.iter_loops()
            ],
        )
    if cosim is not None:
        parts += [""] + _table(
            ("RTL", "Status", "Latency min / avg / max", "Interval min / avg / max", "Total cycles"),
            [
                (
                    run.language,
                    run.status,
                    _slash(run.latency_min, run.latency_avg, run.latency_max),
                    _slash(run.interval_min, run.interval_avg, run.interval_max),
                    _format_number(run.total_execution_time),
                )
                for run in cosim.runs.values()
            ],
        )
    return "\n".join(parts) + "\n"


SUMMARY_COLUMNS = (
    "Function",
    "Csim",
    "Cosim",
    "Latency (cycles)",
    "Interval (cycles)",
    "Loop II",
    *RESOURCE_ORDER,
    "Clock est / target (ns)",
)


def render_summary_markdown(rows: Iterable[FunctionReport]) -> str:
    """One markdown table row per function of a design; resources show used (utilization %)."""
    table_rows = []
    for row in rows:
        csynth = row.csynth
        cells = [row.name, _csim_cell(row.csim), row.cosim.status if row.cosim else "-"]
        if csynth is None:
            cells += ["-"] * (len(SUMMARY_COLUMNS) - len(cells))
        else:
            cells += [
                _format_span(csynth.latency, none="undef"),
                _format_span(csynth.interval, none="undef"),
                _format_span(csynth.loop_ii),
            ]
            for resource in RESOURCE_ORDER:
                used, percent = csynth.resources.get(resource), csynth.utilization.get(resource)
                cell = _format_number(used)
                if used is not None and percent is not None:
                    cell += f" ({_format_number(percent)}%)"
                cells.append(cell)
            cells.append(f"{_format_number(csynth.estimated_clock)} / {_format_number(csynth.target_clock)}")
        table_rows.append(tuple(cells))
    return "\n".join(_table(SUMMARY_COLUMNS, table_rows)) + "\n"


def _table(header: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return lines


def _cell(value: str) -> str:
    # A literal pipe would split the markdown cell.
    return value.replace("|", "\\|").replace("\n", " ")


def _format_number(value: Any, none: str = "-") -> str:
    # Latency cells pass none="undef": with a csynth report present, a missing latency is data-dependent.
    if value is None:
        return none
    if isinstance(value, float):
        return f"{value:g}" if abs(value) < 1e15 else str(value)
    return str(value)


def _format_span(span: Span | None, none: str = "-") -> str:
    return none if span is None else str(span)


def _format_time(ns: float | None) -> str:
    if ns is None:
        return "-"
    for unit, factor in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(ns) >= factor:
            return f"{round(ns / factor, 6):g} {unit}"
    return f"{round(ns, 6):g} ns"


def _slash(*values: Any, none: str = "-") -> str:
    return " / ".join(_format_number(value, none) for value in values)


def _join(*values: str | None) -> str:
    present = [value for value in values if value]
    return " ".join(present) if present else "-"


def _csim_cell(csim: CsimLog | bool | None) -> str:
    if csim is None:
        return "-"
    passed = csim.passed if isinstance(csim, CsimLog) else bool(csim)
    return "pass" if passed else "fail"
