"""What `hclbuild estimate PATHS [--json]` prints from the estimate files the estimate tasks wrote:
a per-function table (every figure labelled estimated), or one JSON object
{project: {function: estimate}} whose estimates are the files as written."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hclbuild.project.layout import BuildLayout

# the record reader, not project.estimation: `hclbuild` loads this module on doit's no-op path,
# which must not import the compiler
from hclbuild.runtime.report.estimate import read_estimate_record

COLUMNS = ("project", "function", "latency (cycles)", "interval", "DSP", "BRAM_18K", "FF", "LUT")
TITLE = "QoR estimated by hclbuild's model (not a synthesis result; Vitis csynth reports the real figures)"


@dataclass(frozen=True)
class ProjectEstimates:
    """One project's functions, in the design's order, and their estimate records (None: no file)."""

    project: str
    layout: BuildLayout
    records: dict[str, dict[str, Any] | None]

    @classmethod
    def read(cls, layout: BuildLayout, functions: list[str]) -> ProjectEstimates:
        """estimate/<func>.json of every function of the project."""
        return cls(
            layout.project_name,
            layout,
            {func: read_estimate_record(layout.estimate_json(func)) for func in functions},
        )


def estimates_json(projects: list[ProjectEstimates]) -> str:
    """{project: {function: estimate}}: each estimate the file as written, null where there is none."""
    return json.dumps({p.project: p.records for p in projects}, indent=1, sort_keys=True)


def estimates_table(projects: list[ProjectEstimates]) -> list[str]:
    """The table's lines: a title saying the figures are estimated, a row a function, then a line a
    function without an estimate (why) or with a note."""
    rows, notes = [], []
    for entry in projects:
        for func, record in entry.records.items():
            rows.append([entry.project, func, *_figures(record)])
            reason = _why_none(entry, func, record)
            if reason:
                notes.append(f"{entry.project}/{func}: no estimate: {reason}")
            elif record is not None and record.get("note"):
                notes.append(f"{entry.project}/{func}: {record['note']}")
    widths = [max(len(column), *(len(row[i]) for row in rows)) for i, column in enumerate(COLUMNS)]
    lines = [TITLE, ""]
    lines.append("  ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)).rstrip())
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    if notes:
        lines += ["", *notes]
    return lines


def _figures(record: dict[str, Any] | None) -> list[str]:
    if record is None or record.get("no_estimate"):
        return ["-"] * (len(COLUMNS) - 2)
    low, high = record.get("latency_min"), record.get("latency_max")
    latency = _cell(low) if low == high else f"{_cell(low)}..{_cell(high)}"
    resources = record.get("resources") or {}
    return [
        latency,
        _cell(record.get("interval")),
        *(_cell(resources.get(name)) for name in ("DSP", "BRAM_18K", "FF", "LUT")),
    ]


def _why_none(entry: ProjectEstimates, func: str, record: dict[str, Any] | None) -> str:
    if record is None:
        return f"{entry.layout.estimate_json(func)} is missing or unreadable (see the estimate task's error)"
    return str(record.get("no_estimate") or "")


def _cell(value: Any) -> str:
    return "?" if value is None else str(value)
