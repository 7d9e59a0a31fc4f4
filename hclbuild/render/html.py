"""report.html of a project and index.html of a build folder, from summary records only.

Self-contained pages: styles, the table-sorting script and the function graph (SVG) inline, the
explore Pareto plot embedded as a data: URI; nothing is fetched from a network. The templates
(hclbuild/templates/report/) print the rows prepared here and hold no logic beyond loops.
Estimated figures are always labelled "estimated"; where csynth ran too, its cell shows the
estimate's relative error against it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from hclbuild.render.function_graph import STATUS_CLASSES, function_graph_svg
from hclbuild.render.summary import FunctionSummary, ProjectSummary

TEMPLATES = Path(__file__).resolve().parent.parent / "templates" / "report"
# (column title, Figures.metric name) of the per-function table, estimated first, then csynth
METRICS = (("latency", "Latency"), ("interval", "II"), ("DSP", "DSP"), ("BRAM_18K", "BRAM"))


@dataclass(frozen=True)
class Cell:
    """One table cell: its text, the value it sorts by, and an optional note under it."""

    text: str
    sort: str
    note: str = ""


@dataclass(frozen=True)
class Link:
    """A link to a file of the build folder, relative to the page."""

    text: str
    href: str


@dataclass
class LoopRow:
    """One loop of a function: estimated II (asked, reached, what limited it) and csynth's II."""

    label: str
    trip_count: str
    ii_requested: str
    ii_estimated: str
    limited_by: str
    ii_csynth: str
    latency_estimated: str
    latency_csynth: str


@dataclass
class FunctionView:
    """A function's row of the table and its section below it."""

    name: str
    anchor: str
    status: str
    status_class: str
    reason: str
    cells: list[Cell]
    loops: list[LoopRow] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    max_abs_err: str = ""


def _number(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.3g}"
    return f"{int(value):,}".replace(",", "\u2009")  # thin space: 12 345 reads on a phone too


def relative_error(estimate: float | None, actual: float | None) -> float | None:
    """(estimate - actual) / actual in percent, or None when either is missing or actual is 0."""
    if estimate is None or actual is None or actual == 0:
        return None
    return 100.0 * (estimate - actual) / actual


def _percent(value: float | None) -> str:
    return "" if value is None else f"{value:+.1f}%"


def _function_view(func: FunctionSummary, link_prefix: str, sources: tuple[str, ...]) -> FunctionView:
    cells = [Cell(func.name, func.name), Cell(func.state, func.state, func.reason or "")]
    for source in (getattr(func, name) for name in sources):
        for metric, _ in METRICS:
            value = None if source is None else source.metric(metric)
            note = ""
            if source is func.csynth and func.estimate is not None and value is not None:
                error = relative_error(func.estimate.metric(metric), value)
                note = f"estimate {_percent(error)}" if error is not None else ""
            cells.append(Cell(_number(value), "" if value is None else repr(value), note))
    loops: dict[str, LoopRow] = {}
    for loop in func.estimate.loops if func.estimate else []:
        loops[loop.label] = LoopRow(
            loop.label,
            _number(loop.trip_count),
            _number(loop.ii_requested),
            _number(loop.ii),
            loop.limited_by or "-",
            "-",
            _number(loop.latency),
            "-",
        )
    for loop in func.csynth.loops if func.csynth else []:
        row = loops.setdefault(loop.label, LoopRow(loop.label, _number(loop.trip_count), *["-"] * 6))
        row.ii_csynth, row.latency_csynth = _number(loop.ii), _number(loop.latency)
    error = (func.csim or {}).get("max_abs_err") if (func.csim or {}).get("compared") else None
    return FunctionView(
        name=func.name,
        anchor=f"fn-{func.name}",
        status=func.state,
        status_class=STATUS_CLASSES.get(func.state, "notrun"),
        reason=func.reason or "",
        cells=cells,
        loops=list(loops.values()),
        links=[Link(path, link_prefix + path) for path in func.files],
        max_abs_err="" if error is None else f"{error:.3g}",
    )


def report_html(summary: ProjectSummary, pareto_png: bytes | None = None) -> str:
    """report.html of one project (written to build/<p>/reports/, so links start with ../)."""
    states = {f.name: f.state for f in summary.functions}
    reasons = {f.name: f.reason or "" for f in summary.functions}
    graph = function_graph_svg(summary.graph, states, reasons) if summary.graph else ""
    counts = {
        state: sum(f.state == state for f in summary.functions) for state in ("pass", "FAIL", "not run")
    }
    # a source no function has would only add columns of dashes
    sources = tuple(
        name for name in ("estimate", "csynth") if any(getattr(f, name) for f in summary.functions)
    )
    columns = ["Function", "csim"]
    for name in sources:
        columns += [f"{title} ({'estimated' if name == 'estimate' else name})" for _, title in METRICS]
    return _template("report.html.j2").render(
        project=summary.project,
        columns=columns,
        functions=[_function_view(f, "../", sources) for f in summary.functions],
        counts=counts,
        any_estimate="estimate" in sources,
        any_csynth="csynth" in sources,
        graph_svg=graph,
        pareto=None
        if pareto_png is None
        else "data:image/png;base64," + base64.b64encode(pareto_png).decode(),
        problems=[
            f"{p['task']}: " + (f"failed: {p['error']}" if p.get("error") else "did not finish")
            for p in summary.problems
        ],
        unreadable=summary.unreadable_reports,
        outdated=summary.outdated_reports,
        style=_static("report.css"),
        script=_static("report.js"),
    )


@dataclass(frozen=True)
class ProjectRow:
    """One project of index.html."""

    name: str
    href: str
    cells: list[Cell]
    status_class: str


def index_html(summaries: list[ProjectSummary], title: str) -> str:
    """index.html of a build folder: one row per project, linking its report.html."""
    rows = []
    for summary in sorted(summaries, key=lambda s: s.project):
        counts = [sum(f.state == state for f in summary.functions) for state in ("pass", "FAIL", "not run")]
        top = summary.functions[0] if summary.functions else None
        best = top.best if top is not None else None
        latency = best.metric("latency") if best is not None else None
        worst = "fail" if counts[1] else "notrun" if counts[2] else "pass"
        rows.append(
            ProjectRow(
                name=summary.project,
                href=f"{summary.project}/reports/report.html",
                cells=[
                    Cell(str(len(summary.functions)), str(len(summary.functions))),
                    *(Cell(str(n), str(n)) for n in counts),
                    Cell(
                        _number(latency)
                        + (f" ({best.label})" if best is not None and latency is not None else ""),
                        "" if latency is None else repr(latency),
                    ),
                ],
                status_class=worst,
            )
        )
    return _template("index.html.j2").render(
        title=title,
        columns=["Project", "Functions", "csim pass", "csim FAIL", "not run", "Top latency (cycles)"],
        projects=rows,
        style=_static("report.css"),
        script=_static("report.js"),
    )


@cache
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def _template(name: str) -> Any:
    return _environment().get_template(name)


@cache
def _static(name: str) -> str:
    return (TEMPLATES / name).read_text(encoding="utf-8")
