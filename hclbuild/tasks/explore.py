"""The doit tasks of an exploration: `explore:<project>@<key>`, one per design point, each compiling
and estimating kernel.py's schedule at the point's knob values (hclbuild.project.explore_points)
into build/<project>/explore/points/<key>.json.

A point is up to date while its file holds a result of the same inputs (its digest): the cache is
by content, not doit's saved state, so it holds across --apply (which edits project.toml) and across
build folders copied elsewhere. Only the `hclbuild explore` command makes these tasks; a plain
`doit` never sees them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hclbuild.project.config import Project
from hclbuild.project.explore_points import evaluate_point, evaluate_point_in, read_point, write_point
from hclbuild.project.knobs import KnobValue, point_key
from hclbuild.project.layout import BuildLayout
from hclbuild.runtime import remote
from hclbuild.tasks.progress import BUILD_ROOTS

TASK_BASENAME = "explore"


class PointCurrent:
    """explore:<p>@<key>'s uptodate: its file holds the result of the inputs it has now."""

    __slots__ = ("digest", "path")

    def __init__(self, path: Path, digest: str) -> None:
        self.path, self.digest = path, digest

    def __call__(self) -> bool:
        found = read_point(self.path)
        return found is not None and found.digest == self.digest


class EvaluatePoint:
    """explore:<p>@<key>'s action: compile and estimate the point, here or on a Dask worker."""

    __slots__ = ("digest", "knobs", "path", "project")

    def __init__(self, project: Project, knobs: Mapping[str, KnobValue], digest: str, path: Path) -> None:
        self.project, self.knobs, self.digest, self.path = project, dict(knobs), digest, path

    def __call__(self) -> bool:
        session = remote.current() if remote.requested() else None
        if session is not None:
            result = remote.run_call_remote(
                evaluate_point_in,
                self.project,
                self.knobs,
                self.digest,
                where=f"{self.project.name}@{point_key(self.knobs)}",
                files=project_files(self.project),
                session=session,
            )
        else:
            result = evaluate_point(self.project, self.knobs, self.digest)
        write_point(self.path, result)
        # a point the schedule rejects is a result (its error line), kept like any other: the
        # command reports it, and it is not tried again until its inputs change
        return True

    def __repr__(self) -> str:
        return f"<explore {self.project.name}@{point_key(self.knobs)}>"


def project_files(project: Project) -> dict[str, bytes]:
    """kernel.py, project.toml and the Python modules beside them, by name: what a Dask worker
    needs to trace the kernel in a folder of its own."""
    return {
        path.name: path.read_bytes()
        for path in sorted(project.dir.iterdir())
        if path.is_file() and (path.suffix == ".py" or path == project.toml_path)
    }


def explore_tasks(
    project: Project, layout: BuildLayout, points: list[tuple[dict[str, KnobValue], str]]
) -> Iterator[dict[str, Any]]:
    """One task per (knobs, digest) point."""
    # the run's summary names this build folder, and an interrupt sweeps its temporaries
    BUILD_ROOTS.add(layout.build_root)
    for knobs, digest in points:
        key = point_key(knobs)
        path = layout.explore_point(key)
        yield {
            "basename": TASK_BASENAME,
            "name": f"{project.name}@{key}",
            "doc": f"{project.name}: compile and estimate the point {key}",
            "actions": [EvaluatePoint(project, knobs, digest, path)],
            "uptodate": [PointCurrent(path, digest)],
            "targets": [str(path)],
            "verbosity": 0,
        }
