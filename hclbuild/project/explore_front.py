"""The Pareto front's points confirmed by a build of their own: `hclbuild explore --csim` and
`--csynth` copy the project once per front point, with [knobs] set to it, and run the build's own
tasks on the copies (csim:<copy>/<func>, csynth:<copy>/<top>), so a confirmed point is exactly what
`--apply` then `hclbuild build` / `csynth` of that point gives.

    build/<p>/explore/front/<copy>/   the copy: kernel.py, its sibling modules, project.toml with
                                      [project] name = <copy> and [knobs] = the point
    build/<p>/explore/front/build/    the copies' one build folder (each copy is a project of it)

A copy's name is `<p>.<key>` with the key's commas as dots (`gemm.unroll-4.partition-2.ii-1`), so
the copies of all front points are distinct projects of one build folder and their tasks run in one
doit run, in parallel or on Dask workers. The copies are rewritten only where their bytes change:
a rerun finds the tasks of unchanged points up to date, and csynth's own check (its inputs' digest,
project.synthesis) keeps a synthesized point from being synthesized again.

What a copy's build says is read back here, never made up: a csynth figure is the published
csynth/<top>.xml of a csynth attempt that passed on the files now there (the report Vitis wrote),
and its absence is said with the reason (not run, failed: its error line).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hclbuild.atomic import write_if_changed
from hclbuild.project.attempts import (
    OK,
    PASS,
    failed_attempts,
    function_states,
    known_functions,
    read_attempt,
)
from hclbuild.project.config import Project
from hclbuild.project.explore_points import PointResult
from hclbuild.project.explore_results import SYNTHESIZED, CsynthFigures, with_table
from hclbuild.project.layout import BuildLayout, is_project_name
from hclbuild.project.synthesis import current_reports

FRONT_FOLDER = "front"


@dataclass(frozen=True)
class FrontCopy:
    """One front point's copy of the project: its name (a project name of the copies' build
    folder), its folder, and the point it holds."""

    name: str
    folder: Path
    point: PointResult


def copy_name(project: str, key: str) -> str:
    """`gemm.unroll-4,ii-1` -> `gemm.unroll-4.ii-1`; a key no project name can spell (a value with
    '+') is named by its digest instead, still one name a point."""
    name = f"{project}.{key.replace(',', '.')}"
    if is_project_name(name) and len(name) <= 200:
        return name
    return f"{project}.point-{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def front_root(layout: BuildLayout) -> Path:
    """`explore/front/`: the copies and their build folder."""
    return layout.explore_dir / FRONT_FOLDER


def copies_build_root(layout: BuildLayout) -> Path:
    """`explore/front/build/`: the build folder of every copy."""
    return front_root(layout) / "build"


def write_copies(
    project: Project, inputs: Sequence[str], layout: BuildLayout, front: Sequence[PointResult]
) -> list[FrontCopy]:
    """Each front point's copy of the project (kernel.py, its sibling modules, project.toml with the
    copy's name and the point's [knobs]), each file rewritten only when its bytes change."""
    copies = []
    for point in front:
        name = copy_name(project.name, point.key)
        folder = front_root(layout) / name
        toml_written = False
        for path in map(Path, inputs):
            text = path.read_bytes()
            if path == project.toml_path:
                text = _copy_toml(text.decode("utf-8"), name, point).encode()
                toml_written = True
            write_if_changed(folder / os.path.relpath(path, project.dir), text)
        if not toml_written:  # the project has no project.toml: the copy's holds its name and knobs
            write_if_changed(folder / project.toml_path.name, _copy_toml("", name, point))
        copies.append(FrontCopy(name, folder, point))
    return copies


def _copy_toml(text: str, name: str, point: PointResult) -> str:
    return with_table(with_table(text, "project", {"name": name}), "knobs", point.knobs)


def csim_verdict(build_root: Path, copy: FrontCopy, top: str) -> str:
    """ "pass", or the first function's state and reason: the copy's csim as its report says."""
    layout = BuildLayout(build_root, copy.name)
    states = function_states(layout, known_functions(layout) or [top])
    bad = [state for state in states if state.state != PASS]
    if not bad:
        return PASS
    reason = f" ({bad[0].reason})" if bad[0].reason else ""
    return f"{bad[0].func}: {bad[0].state}{reason}"


def csynth_figures(build_root: Path, copy: FrontCopy, top: str) -> CsynthFigures:
    """The copy's csynth figures of `top` from the report its csynth task published, when that
    task's latest attempt passed on the files now there; else the reason there are none."""
    layout = BuildLayout(build_root, copy.name)
    attempt = read_attempt(layout, "csynth", top)
    if attempt is None:
        failed = failed_attempts(layout)
        why = (
            f"{failed[0].task} failed: {failed[0].error}"
            if failed
            else f"csynth:{copy.name}/{top} did not run"
        )
        return CsynthFigures("not run", problem=why)
    if attempt.state != OK:
        return CsynthFigures("failed", problem=attempt.error or f"{attempt.task} did not finish")
    found = current_reports(layout, top)
    report = found.csynth
    if report is None:
        reasons = [*found.outdated, *found.unreadable] or [f"{layout.csynth_result(top)} is missing"]
        return CsynthFigures("not run", problem=reasons[0])
    return CsynthFigures(
        SYNTHESIZED,
        latency=report.worst_latency,
        interval=report.interval_max,
        resources={
            name: report.resources[name]
            for name in ("DSP", "BRAM_18K", "FF", "LUT", "URAM")
            if name in report.resources
        },
        version=report.version,
        report=str(layout.csynth_result(top)),
    )


__all__ = [
    "FrontCopy",
    "copies_build_root",
    "copy_name",
    "csim_verdict",
    "csynth_figures",
    "front_root",
    "write_copies",
]
