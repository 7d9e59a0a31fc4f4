"""`hclbuild report ... --compare BASE [--fail-on SPEC]`: this build's summaries against a base build's,
the comparison printed and, in CI, appended to GitHub's step summary or written as GitLab's metrics
report; exit 1 naming each function that crosses a threshold (a failed csim always does).

PATHS and BASE may each be a build folder, a project's build folder, or a saved summary.json
(a project's reports/summary.json or a build folder's summary.json): nothing is compiled for them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hclbuild.atomic import write_text_atomic
from hclbuild.errors import HCLError
from hclbuild.project.layout import KERNEL_FILE, REPORT_SUMMARY, REPORTS_DIR
from hclbuild.render.compare import compare_summaries, comparison_markdown, crossings, metrics_text
from hclbuild.render.summary import ProjectSummary, read_summaries
from hclbuild.render.thresholds import Threshold, parse_thresholds


def is_result_path(path: Path) -> bool:
    """A summary.json, or a folder holding summaries and no project: what --compare may take as PATHS."""
    if path.is_file():
        return path.suffix == ".json"
    if not path.is_dir() or (path / KERNEL_FILE).is_file():
        return False
    return bool(summary_files(path, must=False))


def summary_files(path: Path, must: bool = True) -> list[Path]:
    """The summary.json files a path stands for: itself, a build folder's one file, a project build
    folder's reports/summary.json, or every build/<p>/reports/summary.json."""
    if path.is_file():
        return [path]
    for candidate in (path / REPORT_SUMMARY, path / REPORTS_DIR / REPORT_SUMMARY):
        if candidate.is_file():
            return [candidate]
    found = sorted(path.glob(f"*/{REPORTS_DIR}/{REPORT_SUMMARY}"))
    if not found and must:
        raise HCLError(f"{path}: no summary.json there (a build folder after `hclbuild report`, or the file)")
    return found


def load(path: Path) -> list[ProjectSummary]:
    """Every project summary a path stands for."""
    if not path.exists():
        raise HCLError(f"{path}: no such build folder or summary.json")
    summaries: list[ProjectSummary] = []
    for file in summary_files(path):
        summaries += read_summaries(file)
    return summaries


def gate(
    new: list[ProjectSummary],
    base_path: Path,
    fail_on: str | None,
    project_fail_on: dict[str, str],
    metrics_path: Path | None = None,
) -> int:
    """Compare, print, publish for CI; 1 when a threshold is crossed (each printed), else 0."""
    base = load(base_path)
    thresholds: dict[str, tuple[Threshold, ...]] = {}
    for summary in new:
        spec = fail_on if fail_on is not None else project_fail_on.get(summary.project, "")
        thresholds[summary.project] = parse_thresholds(spec) if spec else ()
    rows = compare_summaries(base, new)
    crossed = crossings(rows, thresholds)
    markdown = comparison_markdown(rows, str(base_path), crossed)
    print(markdown)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as out:
            out.write(markdown + "\n")
    if metrics_path is None and os.environ.get("GITLAB_CI"):
        metrics_path = Path("metrics.txt")
    if metrics_path is not None:
        write_text_atomic(metrics_path, metrics_text(new))
    for line in crossed:
        print(f"hclbuild: QoR: {line}", file=sys.stderr)
    return 1 if crossed else 0
