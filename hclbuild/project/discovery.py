"""A project and its function names without tracing its kernel: a small JSON plan in build/.plans/.

Task discovery needs each project's functions (one emit/csim task each). Tracing kernel.py to
learn them imports numpy and the DSL and runs the user's code, which made a no-op `doit` cost
2.7 times a bare `import doit`. The names depend only on kernel.py, the project's sibling
modules, project.toml (its [sizes]) and hclbuild's own sources, so the plan stores them with

- the size and mtime of every input: while those and hclbuild's source fingerprint are the same,
  the stored plan (functions and validated configuration) is used as it is, as doit itself
  trusts an unchanged timestamp;
- a sha256 of the inputs' bytes: when only timestamps moved, the configuration is validated
  again but the kernel is not traced.

Anything else traces the kernel (in a child process: project.kernel.traced_functions) and stores a
new plan. A project that fails to load or trace is not stored: its error is found again on the next load.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from hclbuild.atomic import write_if_changed
from hclbuild.project.config import KERNEL_FILE, PROJECT_FILE, Project, ProjectConfig, load_project

PLAN_FORMAT = "hclbuild-plan-2"
PLANS_DIR = ".plans"

# the project folders whose kernel planning traced in this process run. The trace ran in a child
# process (kernel.py's code never runs in the build's own), so compile traces it again in its own.
_TRACED: set[Path] = set()


def plan_path(build_root: Path, folder: Path) -> Path:
    """`<build_root>/.plans/<folder>-<hash of its absolute path>.json` (folders in two places differ)."""
    real = os.path.realpath(folder)
    tag = hashlib.sha256(real.encode()).hexdigest()[:12]
    return Path(build_root) / PLANS_DIR / f"{os.path.basename(real)}-{tag}.json"


def input_paths(folder: Path | str) -> list[str]:
    """Files of a project folder its design depends on, as paths: its Python modules (sorted), then
    project.toml. Listed with os.scandir, not pathlib's glob: task discovery lists every project on
    every doit run, and the glob was a fifth of hclbuild's share of a no-op."""
    folder = os.fspath(folder)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    # what pathlib's glob("*.py") listed before: every name ending in .py, hidden ones too
    names = sorted(e.name for e in entries if e.name.endswith(".py"))
    if any(e.name == PROJECT_FILE and e.is_file() for e in entries):
        names.append(PROJECT_FILE)
    return [os.path.join(folder, name) for name in names]


def input_files(folder: Path) -> list[Path]:
    """input_paths as Path objects."""
    return [Path(path) for path in input_paths(folder)]


def _stats(files: list[Path] | list[str]) -> list[list[Any]]:
    stats = []
    for path in files:
        info = os.stat(path)
        stats.append([os.path.basename(path), info.st_size, info.st_mtime_ns])
    return stats


def _content_key(files: list[Path], fingerprint: str) -> str:
    digest = hashlib.sha256(fingerprint.encode())
    for path in files:
        digest.update(f"\0{path.name}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _read(path: Path) -> dict[str, Any]:
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return stored if isinstance(stored, dict) and stored.get("format") == PLAN_FORMAT else {}


def planned_project(folder: Path, build_root: Path, fingerprint: str) -> tuple[Project, list[str], list[str]]:
    """The project of `folder`, its functions (top first) and its input_paths, from the stored plan
    when it is current.

    Raises ConfigError like load_project and kernel_schedule when the project is broken.
    """
    folder = Path(folder)
    path = plan_path(build_root, folder)
    inputs = input_paths(folder)
    stats = _stats(inputs) if os.path.join(folder, KERNEL_FILE) in inputs else None
    stored = _read(path)
    if stats is not None and stored.get("fingerprint") == fingerprint and stored.get("stats") == stats:
        try:
            config = ProjectConfig(**stored["config"])
            project = Project(name=config.name, dir=folder, kernel_path=folder / KERNEL_FILE, config=config)
            return project, [str(name) for name in stored["functions"]], inputs
        except (KeyError, TypeError):
            pass  # a plan this version cannot read: load again
    project = load_project(folder)
    files = [Path(name) for name in inputs]
    key = _content_key(files, fingerprint)
    if stored.get("key") == key and isinstance(stored.get("functions"), list):
        functions = [str(name) for name in stored["functions"]]
    else:
        from hclbuild.project.kernel import traced_functions

        functions = traced_functions(project)
        _TRACED.add(folder.resolve())
    record = {
        "format": PLAN_FORMAT,
        "folder": str(folder.resolve()),
        "fingerprint": fingerprint,
        "stats": _stats(files),
        "key": key,
        "config": project.config.as_dict(),
        "functions": functions,
    }
    write_if_changed(path, json.dumps(record, indent=1) + "\n")
    return project, functions, inputs


def traced_here() -> bool:
    """Whether planning traced a kernel in this process run (so its compile will run)."""
    return bool(_TRACED)


__all__ = [
    "PLAN_FORMAT",
    "input_files",
    "input_paths",
    "plan_path",
    "planned_project",
    "traced_here",
]
