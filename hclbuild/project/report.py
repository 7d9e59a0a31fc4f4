"""A project's reports/summary.json and report.md, kept in step with every task attempt.

Each function's csim column is its verdict from project.attempts (pass, FAIL, or not run with
the reason), never a csim/<func>.json that a failed, interrupted or outdated run left behind;
the tasks that failed or did not finish are listed below the table. The task actions call
`start_attempt` (which removes the report) and `end_attempt` (which rewrites it after a csim or
a failure), so the report shows the latest attempt of every function even when doit skips
`report:<name>` because a task it depends on failed.
Without pictures it needs no numpy, MLIR or jinja2.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hclbuild.atomic import write_if_changed
from hclbuild.project.attempts import (
    FAIL,
    FAILED,
    NOT_RUN,
    PASS,
    Attempt,
    begin_attempt,
    failed_attempts,
    finish_attempt,
    function_states,
    known_functions,
    project_lock,
    read_attempt,
)
from hclbuild.project.layout import BuildLayout


def write_project_report(
    name: str, layout: BuildLayout, functions: list[str] | None = None, pictures: bool = False
) -> list[Path]:
    """Rewrite the report; `functions` defaults to those of the latest compiled design.

    With `pictures` the design graph and csynth chart are drawn too (project.report_pictures, which
    needs MLIR); without, report.md links the pictures an earlier report:<name> drew.
    """
    with project_lock(layout):
        return _write(name, layout, functions, pictures)


def hardware_digest(layout: BuildLayout, functions: list[str]) -> str:
    """sha256 over the csynth and cosim reports of `functions` the report reads (a missing one
    counts as missing): report:<name> reruns when it changes, without depending on the tasks that
    make them (a doit file_dep would run every synthesis for a `hclbuild report`)."""
    import hashlib

    from hclbuild.project.synthesis import function_reports

    digest = hashlib.sha256()
    for func in functions:
        for path in function_reports(layout, func):
            digest.update(f"{func}\0{path}\0".encode())
            if path is not None:
                try:
                    digest.update(path.read_bytes())
                except OSError:
                    digest.update(b"\0unreadable\0")
    return digest.hexdigest()


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
        layout.report_summary.unlink(missing_ok=True)
        layout.report_markdown.unlink(missing_ok=True)
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
    from hclbuild.project.report_pictures import picture_links, write_report_pictures
    from hclbuild.project.synthesis import current_reports
    from hclbuild.runtime.report import FunctionReport, render_summary_markdown

    states = function_states(layout, known_functions(layout) if functions is None else functions)
    rows = []
    summary: dict[str, Any] = {"project": name, "functions": {}}
    # a broken report (a hand run's, a killed tool's) is listed, not a crash of the task that
    # happened to rewrite this report (every csim does); so is one a changed design made stale
    unreadable: list[str] = []
    outdated: list[str] = []
    for state in states:
        reports = current_reports(layout, state.func)
        csynth, cosim = reports.csynth, reports.cosim
        unreadable += reports.unreadable
        outdated += reports.outdated
        verdict = {PASS: True, FAIL: False, NOT_RUN: None}[state.state]
        rows.append(FunctionReport(name=state.func, csim=verdict, csynth=csynth, cosim=cosim))
        summary["functions"][state.func] = {
            "state": state.state,
            "reason": state.reason,
            "csim": state.csim,
            "csynth": None if csynth is None else csynth.to_dict(),
            "cosim": None if cosim is None else cosim.to_dict(),
        }
    problems = failed_attempts(layout)
    summary["problems"] = [{"task": a.task, "state": a.state, "error": a.error} for a in problems]
    summary["unreadable_reports"] = unreadable
    summary["outdated_reports"] = outdated
    markdown = f"# {name}\n\n" + render_summary_markdown(rows)
    markdown += "\n## C simulation\n\n" + "".join(
        f"- {s.func}: {s.state}" + (f": {s.reason}" if s.reason else "") + "\n" for s in states
    )
    if problems:
        markdown += "\n## Tasks that failed or did not finish\n\n" + "".join(
            f"- {a.task}: " + (f"failed: {a.error}" if a.error else "did not finish") + "\n" for a in problems
        )
    if unreadable:
        markdown += "\n## Reports that could not be read\n\n" + "".join(f"- {line}\n" for line in unreadable)
    if outdated:
        markdown += "\n## Outdated reports (not shown)\n\n" + "".join(f"- {line}\n" for line in outdated)
    if pictures:
        write_report_pictures(name, layout, rows)
    markdown += picture_links(layout)
    write_if_changed(layout.report_summary, json.dumps(summary, indent=2, sort_keys=True) + "\n")
    write_if_changed(layout.report_markdown, markdown)
    return [layout.report_summary, layout.report_markdown]
