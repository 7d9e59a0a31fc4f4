"""Markdown of the reports: one section per function, the summary table of a design, and the table of
estimated figures beside csynth's (each estimate labelled as one, with its error where csynth ran)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hclbuild.render.summary import FunctionSummary
from hclbuild.runtime.report.csynth import RESOURCE_ORDER, CsynthReport
from hclbuild.runtime.report.sim import CosimReport, CsimLog
from hclbuild.runtime.report.values import Span, _format_number


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


QOR_METRICS = (("latency", "Latency"), ("interval", "II"), ("DSP", "DSP"), ("BRAM_18K", "BRAM"))


def render_qor_markdown(functions: Iterable[FunctionSummary]) -> str:
    """The estimated latency / II / DSP / BRAM of each function, and csynth's with the estimate's
    error against it where Vitis ran; "" when no function has an estimate."""
    functions = list(functions)
    if not any(func.estimate for func in functions):
        return ""
    header = ("Function", *(f"{title} (estimated)" for _, title in QOR_METRICS))
    synthesized = any(func.csynth for func in functions)
    if synthesized:
        header += tuple(f"{title} (csynth; estimate error)" for _, title in QOR_METRICS)
    rows = []
    for func in functions:
        cells = [func.name]
        for metric, _ in QOR_METRICS:
            cells.append(_format_number(func.estimate.metric(metric) if func.estimate else None))
        if synthesized:
            for metric, _ in QOR_METRICS:
                actual = func.csynth.metric(metric) if func.csynth else None
                estimate = func.estimate.metric(metric) if func.estimate else None
                cell = _format_number(actual)
                if actual and estimate is not None:
                    cell += f" ({100.0 * (estimate - actual) / actual:+.1f}%)"
                cells.append(cell)
        rows.append(tuple(cells))
    note = "Estimated figures are hclbuild's QoR model, not a synthesis result."
    return "\n".join([note, "", *_table(header, rows)]) + "\n"


def _table(header: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return lines


def _cell(value: str) -> str:
    # A literal pipe would split the markdown cell.
    return value.replace("|", "\\|").replace("\n", " ")


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
