"""Simulation reports: the cosim `<top>_cosim.rpt` table and the Vitis csim log."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hclbuild.errors import ToolError
from hclbuild.runtime.report.values import Number, _number, _read_text


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


# ---- cosim report ----------------------------------------------------------------------------

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


# ---- csim log --------------------------------------------------------------------------------

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
