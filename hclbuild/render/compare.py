"""`hclbuild report --compare BASE`: every function's csim verdict and QoR, old -> new, from two sets of
summaries; the thresholds a change crosses; the comparison as markdown (GitHub's step summary) and
the new figures as a metrics report (GitLab's metrics.txt).

A metric compares csynth figures where both builds have them (real figures replace estimates),
else the estimates where both have them; each row says which ("csynth" or "estimated").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from hclbuild.errors import HCLError
from hclbuild.render.summary import FAIL, PASS, RESOURCES, Figures, FunctionSummary, ProjectSummary
from hclbuild.render.thresholds import CSIM, Threshold

METRICS = ("latency", "interval", *RESOURCES)
TITLES = {"latency": "Latency", "interval": "II", "DSP": "DSP", "BRAM_18K": "BRAM", "FF": "FF", "LUT": "LUT"}


@dataclass(frozen=True)
class MetricChange:
    """One metric of one function, old -> new, from `source` ("csynth" or "estimated")."""

    metric: str
    source: str
    old: float | None
    new: float | None

    @property
    def percent(self) -> float | None:
        """The change in percent of the old value (inf from 0 to more), None when either is missing."""
        if self.old is None or self.new is None:
            return None
        if self.old == 0:
            return 0.0 if self.new == 0 else math.inf
        return 100.0 * (self.new - self.old) / self.old


@dataclass
class FunctionChange:
    """One function in either build: its csim verdicts and its metrics."""

    project: str
    function: str
    old_state: str | None  # None: the function is new
    new_state: str | None  # None: the function is gone
    new_reason: str | None = None
    changes: list[MetricChange] = field(default_factory=list)

    @property
    def name(self) -> str:
        """project/function."""
        return f"{self.project}/{self.function}"


def _figures(
    old: FunctionSummary | None, new: FunctionSummary | None
) -> tuple[Figures | None, Figures | None]:
    for source in ("csynth", "estimate"):
        pair = (getattr(old, source, None), getattr(new, source, None))
        if all(pair):
            return pair
    return (old.best if old else None, new.best if new else None)


def compare_summaries(base: Iterable[ProjectSummary], new: Iterable[ProjectSummary]) -> list[FunctionChange]:
    """Every function of the new summaries (in their order), then those only the base has."""
    old_by_project = {summary.project: summary for summary in base}
    rows: list[FunctionChange] = []
    seen: set[tuple[str, str]] = set()
    for summary in new:
        old_project = old_by_project.get(summary.project)
        for func in summary.functions:
            old = old_project.function(func.name) if old_project else None
            rows.append(_change(summary.project, old, func))
            seen.add((summary.project, func.name))
    for summary in old_by_project.values():
        for func in summary.functions:
            if (summary.project, func.name) not in seen:
                rows.append(_change(summary.project, func, None))
    return rows


def _change(project: str, old: FunctionSummary | None, new: FunctionSummary | None) -> FunctionChange:
    before, after = _figures(old, new)
    named = new or old
    if named is None:
        raise HCLError("a function change needs the function's old or new summary")
    row = FunctionChange(project, named.name, old.state if old else None, new.state if new else None)
    row.new_reason = new.reason if new else None
    for metric in METRICS:
        old_value = before.metric(metric) if before else None
        new_value = after.metric(metric) if after else None
        figures = after or before
        if figures is None or (old_value is None and new_value is None):
            continue
        row.changes.append(MetricChange(metric, figures.label, old_value, new_value))
    return row


def crossings(rows: Iterable[FunctionChange], thresholds: Mapping[str, tuple[Threshold, ...]]) -> list[str]:
    """One line per threshold a function crosses (thresholds by project); a failed csim always counts."""
    found = []
    for row in rows:
        limits = thresholds.get(row.project, ())
        if row.new_state == FAIL:
            found.append(f"{row.name}: csim FAIL" + (f": {row.new_reason}" if row.new_reason else ""))
        elif row.new_state not in (None, PASS) and any(t.metric == CSIM for t in limits):
            found.append(
                f"{row.name}: csim {row.new_state}, and csim is in fail-on"
                + (f": {row.new_reason}" if row.new_reason else "")
            )
        for limit in limits:
            for change in row.changes:
                percent = change.percent
                if change.metric == limit.metric and percent is not None and percent > limit.percent:
                    found.append(
                        f"{row.name}: {TITLES[change.metric]} ({change.source}) {_number(change.old)} -> "
                        f"{_number(change.new)} ({_percent(percent)}) crosses {limit.text}"
                    )
    return found


def comparison_markdown(rows: list[FunctionChange], base: str, crossed: list[str]) -> str:
    """The comparison as a markdown table, then the functions added or removed and the crossings."""
    lines = [
        f"## hclbuild QoR: this build against {base}",
        "",
        "Estimated figures are hclbuild's QoR model, not a synthesis result; csynth figures come from Vitis HLS.",
        "",
        "| Function | csim | Figures | " + " | ".join(TITLES[m] for m in METRICS) + " |",
        "|---|---|---|" + "---|" * len(METRICS),
    ]
    for row in rows:
        if row.old_state is None or row.new_state is None:
            continue
        by_metric = {change.metric: change for change in row.changes}
        source = row.changes[0].source if row.changes else "-"
        csim = row.new_state if row.old_state == row.new_state else f"{row.old_state} -> {row.new_state}"
        cells = [_cell(by_metric.get(metric)) for metric in METRICS]
        lines.append(f"| {row.name} | {csim} | {source} | " + " | ".join(cells) + " |")
    added = [row.name for row in rows if row.old_state is None]
    removed = [row.name for row in rows if row.new_state is None]
    if added:
        lines += ["", "New functions: " + ", ".join(added)]
    if removed:
        lines += ["", "Removed functions: " + ", ".join(removed)]
    if crossed:
        lines += ["", "**Thresholds crossed:**", ""] + [f"- {line}" for line in crossed]
    return "\n".join(lines) + "\n"


def metrics_text(summaries: Iterable[ProjectSummary]) -> str:
    """GitLab's metrics report (OpenMetrics text): each function's figures, its source a label."""
    lines = []
    for summary in summaries:
        for func in summary.functions:
            labels = f'project="{summary.project}",function="{func.name}"'
            lines.append(f"hclbuild_csim_pass{{{labels}}} {int(func.state == PASS)}")
            for figures in (func.csynth, func.estimate):
                if figures is None:
                    continue
                for metric in METRICS:
                    value = figures.metric(metric)
                    if value is not None:
                        name = "bram" if metric == "BRAM_18K" else metric.lower()
                        lines.append(f'hclbuild_{name}{{{labels},source="{figures.label}"}} {value}')
    return "\n".join(lines) + "\n"


def _cell(change: MetricChange | None) -> str:
    if change is None:
        return "-"
    if change.old == change.new:
        return _number(change.new)
    percent = change.percent
    return f"{_number(change.old)} -> {_number(change.new)}" + (
        f" ({_percent(percent)})" if percent is not None else ""
    )


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _percent(value: float) -> str:
    return "+inf%" if value == math.inf else f"{value:+.1f}%"
