"""A project's reports/summary.json, report.md and report.html (and the build folder's index.html and
summary.json), kept in step with every task attempt.

Each function's csim column is its verdict from project.attempts (pass, FAIL, or not run with
the reason), never a csim/<func>.json that a failed, interrupted or outdated run left behind;
the tasks that failed or did not finish are listed below the table. The task actions call
`start_attempt` (which removes the report) and `end_attempt` (which rewrites it after a csim or
a failure), so the report shows the latest attempt of every function even when doit skips
`report:<name>` because a task it depends on failed.
What goes in is read from result files only (status records, csim/estimate JSON, csynth XML, and
the design graph the compile kept in ir/manifest.json); hclbuild.render draws it. Without pictures
it needs no numpy or MLIR.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hclbuild.atomic import write_if_changed
from hclbuild.errors import ToolError
from hclbuild.project.attempts import (
    FAIL,
    FAILED,
    NOT_RUN,
    PASS,
    Attempt,
    begin_attempt,
    changed_input,
    failed_attempts,
    finish_attempt,
    function_states,
    known_functions,
    project_lock,
    read_attempt,
)
from hclbuild.project.layout import REPORT_SUMMARY, REPORTS_DIR, BuildLayout
from hclbuild.project.synthesis import current_reports
from hclbuild.render.html import index_html, report_html
from hclbuild.render.markdown import FunctionReport, render_qor_markdown, render_summary_markdown
from hclbuild.render.pictures import picture_links, write_report_pictures
from hclbuild.render.summary import (
    FunctionSummary,
    ProjectSummary,
    build_summary_json,
    csynth_figures,
    estimate_figures,
    read_summaries,
    summary_to_json,
)
from hclbuild.runtime.report.estimate import EstimateReport, parse_estimate_json


def write_project_report(
    name: str, layout: BuildLayout, functions: list[str] | None = None, pictures: bool = False
) -> list[Path]:
    """Rewrite the report; `functions` defaults to those of the latest compiled design.

    With `pictures` the design graph and csynth chart are drawn too (hclbuild.render.pictures, which
    needs MLIR); without, report.md links the pictures an earlier report:<name> drew.
    """
    with project_lock(layout):
        return _write(name, layout, functions, pictures)


def start_attempt(
    layout: BuildLayout, step: str, func: str | None, inputs: list[str], verdicts: Iterable[str | Path] = ()
) -> Attempt:
    """Record that a task starts, first removing `verdicts` (csim's result) and the report.

    The removals come first and each is one unlink, so a process killed at any point of this
    leaves neither an earlier pass nor a report that still shows one. No report is written
    here: one rewrite per task start would make a build quadratic in its number of functions.
    """
    with project_lock(layout):
        for path in verdicts:
            Path(path).unlink(missing_ok=True)
        for path in (
            layout.report_summary,
            layout.report_markdown,
            layout.report_html,
            layout.build_summary,
            layout.build_index_html,
        ):
            path.unlink(missing_ok=True)
        return begin_attempt(layout, step, func, inputs)


def end_attempt(
    layout: BuildLayout, step: str, func: str | None, attempt: Attempt, error: str | None
) -> None:
    """Record how a task ended (error None: it succeeded); a csim or a failure rewrites the report.

    Those (and csynth, cosim) are the attempts that change what the report shows; after any other success the
    report stays removed until a csim or report:<name> rewrites it, so it is never stale. One
    exception: emit runs beside the reference, so an emit can end after the reference (or the
    compile) failed, whose report its start removed; it writes that report again.
    """
    with project_lock(layout):
        finish_attempt(layout, step, func, attempt, error)
        if step in ("csim", "csynth", "cosim") or error is not None or _design_failed(layout):
            _write(layout.project_name, layout, None, False)


def _design_failed(layout: BuildLayout) -> bool:
    """The project's latest compile or reference attempt failed (two small reads)."""
    return any(
        (record := read_attempt(layout, step)) is not None and record.state == FAILED
        for step in ("compile", "reference")
    )


def _write(name: str, layout: BuildLayout, functions: list[str] | None, pictures: bool) -> list[Path]:

    states = function_states(layout, known_functions(layout) if functions is None else functions)
    rows = []
    summary = ProjectSummary(project=name, graph=_design_graph(layout))
    details: dict[str, dict[str, Any]] = {}
    # a broken report (a hand run's, a killed tool's) is listed, not a crash of the task that
    # happened to rewrite this report (every csim does); so is one a changed design made stale
    for state in states:
        reports = current_reports(layout, state.func)
        csynth, cosim = reports.csynth, reports.cosim
        estimate = current_estimate(layout, state.func, summary.unreadable_reports, summary.outdated_reports)
        summary.unreadable_reports += reports.unreadable
        summary.outdated_reports += reports.outdated
        verdict = {PASS: True, FAIL: False, NOT_RUN: None}[state.state]
        rows.append(FunctionReport(name=state.func, csim=verdict, csynth=csynth, cosim=cosim))
        summary.functions.append(
            FunctionSummary(
                name=state.func,
                state=state.state,
                reason=state.reason,
                csim=state.csim,
                csynth=None if csynth is None else csynth_figures(csynth),
                estimate=None if estimate is None else estimate_figures(estimate),
                cosim=None if cosim is None else cosim.status,
                files=function_files(layout, state.func),
            )
        )
        details[state.func] = {
            "csynth": None if csynth is None else csynth.to_dict(),
            "cosim": None if cosim is None else cosim.to_dict(),
            "estimate": None if estimate is None else estimate.to_dict(),
        }
    problems = failed_attempts(layout)
    summary.problems = [{"task": a.task, "state": a.state, "error": a.error} for a in problems]
    if layout.pareto_png.is_file():
        summary.pareto = os.path.relpath(layout.pareto_png, layout.root)
    markdown = f"# {name}\n\n" + render_summary_markdown(rows)
    qor = render_qor_markdown(summary.functions)
    if qor:
        markdown += "\n## Estimated QoR\n\n" + qor
    remarks = [
        f"- {func}: " + (f"no estimate: {found['no_estimate']}" if found["no_estimate"] else found["note"])
        for func, entry in details.items()
        if (found := entry["estimate"]) is not None and (found["no_estimate"] or found["note"])
    ]
    if remarks:
        markdown += "\n## Estimate notes\n\n" + "".join(line + "\n" for line in remarks)
    markdown += "\n## C simulation\n\n" + "".join(
        f"- {s.func}: {s.state}" + (f": {s.reason}" if s.reason else "") + "\n" for s in states
    )
    if problems:
        markdown += "\n## Tasks that failed or did not finish\n\n" + "".join(
            f"- {a.task}: " + (f"failed: {a.error}" if a.error else "did not finish") + "\n" for a in problems
        )
    if summary.unreadable_reports:
        markdown += "\n## Reports that could not be read\n\n" + "".join(
            f"- {line}\n" for line in summary.unreadable_reports
        )
    if summary.outdated_reports:
        markdown += "\n## Outdated reports (not shown)\n\n" + "".join(
            f"- {line}\n" for line in summary.outdated_reports
        )
    if pictures:
        layout.reports_dir.mkdir(parents=True, exist_ok=True)
        write_report_pictures(layout.reports_dir, name, summary.graph, rows)
    markdown += picture_links(layout.reports_dir)
    pareto = layout.pareto_png.read_bytes() if summary.pareto else None
    write_if_changed(
        layout.report_summary, json.dumps(summary_to_json(summary, details), indent=2, sort_keys=True) + "\n"
    )
    write_if_changed(layout.report_markdown, markdown)
    write_if_changed(layout.report_html, report_html(summary, pareto))
    write_build_index(layout.build_root)
    return [layout.report_summary, layout.report_markdown, layout.report_html]


def current_estimate(
    layout: BuildLayout, func: str, unreadable: list[str], outdated: list[str]
) -> EstimateReport | None:
    """estimate/<func>.json parsed, unless the estimate task that wrote it read files changed since
    (then a line in `outdated`) or it does not parse (a line in `unreadable`)."""
    path = layout.estimate_json(func)
    if not path.is_file():
        return None
    attempt = read_attempt(layout, "estimate", func)
    changed = changed_input(layout, attempt) if attempt is not None else None
    if attempt is not None and changed is not None:
        outdated.append(f"{path}: {changed} changed after {attempt.task} ran")
        return None
    try:
        return parse_estimate_json(path)
    except ToolError as exc:
        unreadable.append(str(exc).splitlines()[0])
        return None


def function_files(layout: BuildLayout, func: str) -> list[str]:
    """The files of `func` a reader of its report opens, relative to build/<p>/: its HLS project,
    the logs of g++ and Vitis, and its csim, estimate, csynth and cosim results (those that exist)."""
    folder = layout.hls_dir(func)
    candidates = [
        *layout.hls_files(func),
        folder / "out" / "compile.log",
        *sorted(folder.glob("*.log")),
        layout.csim_json(func),
        layout.estimate_json(func),
        layout.csynth_result(func),
        layout.cosim_result(func),
    ]
    return [os.path.relpath(path, layout.root) for path in candidates if path.is_file()]


def _design_graph(layout: BuildLayout) -> dict[str, Any] | None:
    """The design graph the compile kept in ir/manifest.json, or None before a compile wrote one."""
    try:
        graph = json.loads(layout.ir_manifest.read_text(encoding="utf-8")).get("graph")
    except (OSError, ValueError, AttributeError):
        return None
    return graph if isinstance(graph, dict) else None


def write_build_index(build_root: Path) -> list[Path]:
    """build/index.html and build/summary.json from every build/<p>/reports/summary.json there."""

    layout = BuildLayout(build_root, "index")
    with build_lock(build_root):
        summaries = []
        for path in sorted(Path(build_root).glob(f"*/{REPORTS_DIR}/{REPORT_SUMMARY}")):
            try:
                summaries += read_summaries(path)
            except ToolError:
                continue  # one being rewritten, or an older hclbuild's: that project has no row
        write_if_changed(
            layout.build_summary, json.dumps(build_summary_json(summaries), indent=2, sort_keys=True) + "\n"
        )
        write_if_changed(layout.build_index_html, index_html(summaries, Path(build_root).resolve().name))
    return [layout.build_summary, layout.build_index_html]


@contextmanager
def build_lock(build_root: Path) -> Iterator[None]:
    """An exclusive lock on the build folder while build/index.html and build/summary.json are rewritten
    (taken inside a project's lock, never the other way round)."""
    Path(build_root).mkdir(parents=True, exist_ok=True)
    fd = os.open(build_root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
