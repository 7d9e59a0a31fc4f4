"""Planning a project whose stored plan is missing or stale (hclbuild.project.plans): load it,
trace its kernel to learn its functions, and store the new plan.

The kernel is traced in a child process (project.kernel.traced_functions): kernel.py's code never
runs in the build's own process. When only timestamps moved (the inputs' bytes hash to the stored
key), the configuration is validated again but the kernel is not traced. A project that fails to
load or trace is not stored: its error is found again on the next load.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from hclbuild.atomic import write_if_changed
from hclbuild.project.config import load_project
from hclbuild.project.kernel import traced_functions
from hclbuild.project.plans import ProjectPlan, input_paths, plan_path, read_plan

# the project folders whose kernel planning traced in this process run. The trace ran in a child
# process, so compile traces it again in its own.
_TRACED: set[Path] = set()


def trace_project(folder: Path) -> ProjectPlan:
    """The plan of `folder` from its kernel traced now (nothing stored). Raises ConfigError like
    load_project and kernel_schedule when the project is broken."""
    project = load_project(folder)
    functions = traced_functions(project)
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
        functions = traced_functions(project)
        _TRACED.add(folder.resolve())
    plan = ProjectPlan(folder, project.name, functions, inputs, project.config.to_json())
    write_if_changed(path, json.dumps(plan.to_json(fingerprint, key), indent=1) + "\n")
    return plan


def _content_key(files: list[Path], fingerprint: str) -> str:
    digest = hashlib.sha256(fingerprint.encode())
    for path in files:
        digest.update(f"\0{path.name}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def traced_here() -> bool:
    """Whether planning traced a kernel in this process run (so its compile will run)."""
    return bool(_TRACED)


__all__ = ["plan_project", "trace_project", "traced_here"]
