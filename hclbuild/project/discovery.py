"""Planning a project whose stored plan is missing or stale (hclbuild.project.plans): load it,
trace its kernel to learn its functions, and store the new plan.

When only timestamps moved (the inputs' bytes hash to the stored key), the configuration is
validated again but the kernel is not traced. A project that fails to load or trace is not
stored: its error is found again on the next load.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from hclbuild.atomic import write_if_changed
from hclbuild.project.config import Project, load_project
from hclbuild.project.kernel import design_functions, kernel_schedule
from hclbuild.project.plans import ProjectPlan, input_paths, plan_path, read_plan

# folder -> (digest of its inputs and configuration, the schedule traced to plan it). The compile
# task of the same doit process takes it instead of tracing the kernel again (doit's -n workers
# fork from the process that planned); the digest is checked, so an edited kernel is traced anew.
_PLANNED: dict[Path, tuple[str, Any]] = {}


def trace_project(folder: Path) -> ProjectPlan:
    """The plan of `folder` from its kernel traced now (nothing stored). Raises ConfigError like
    load_project and kernel_schedule when the project is broken."""
    project = load_project(folder)
    functions = design_functions(kernel_schedule(project), project.name)
    return ProjectPlan(Path(folder), project.name, functions, input_paths(folder), project.config.to_json())


def plan_project(folder: Path, build_root: Path, fingerprint: str) -> ProjectPlan:
    """Plan `folder` again and store its plan below build_root (see the module docstring)."""
    folder = Path(folder)
    inputs = input_paths(folder)
    project = load_project(folder)
    files = [Path(name) for name in inputs]
    key = _content_key(files, fingerprint)
    path = plan_path(build_root, folder)
    stored = read_plan(path)
    if stored.get("key") == key and isinstance(stored.get("functions"), list):
        functions = [str(name) for name in stored["functions"]]
    else:
        schedule = kernel_schedule(project)
        functions = design_functions(schedule, project.name)
        _PLANNED[folder.resolve()] = (_trace_key(project, files), schedule)
    plan = ProjectPlan(folder, project.name, functions, inputs, project.config.to_json())
    write_if_changed(path, json.dumps(plan.to_json(fingerprint, key), indent=1) + "\n")
    return plan


def _content_key(files: list[Path], fingerprint: str) -> str:
    digest = hashlib.sha256(fingerprint.encode())
    for path in files:
        digest.update(f"\0{path.name}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _trace_key(project: Project, files: list[Path]) -> str:
    return _content_key(files, json.dumps(project.config.to_json(), sort_keys=True))


def traced_here() -> bool:
    """Whether planning traced a kernel in this process (whose compile will then run)."""
    return bool(_PLANNED)


def take_planned_schedule(project: Project) -> Any | None:
    """The schedule planning traced for `project` in this process, once, if its kernel, sibling
    modules and configuration are still what was traced; else None (trace it again)."""
    kept = _PLANNED.pop(Path(project.dir).resolve(), None)
    if kept is None:
        return None
    key, schedule = kept
    try:
        current = _trace_key(project, [Path(path) for path in input_paths(project.dir)])
    except OSError:
        return None
    return schedule if current == key else None


__all__ = ["plan_project", "take_planned_schedule", "trace_project", "traced_here"]
