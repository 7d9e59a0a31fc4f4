"""A project as task discovery knows it, and its JSON plan in build/.plans/.

Task discovery needs each project's functions (one emit/csim task each). Tracing kernel.py to
learn them imports numpy and the DSL and runs the user's code, which made a no-op `doit` cost
2.7 times a bare `import doit`. The names depend only on kernel.py, the project's sibling
modules, project.toml (its [sizes]) and hclbuild's own sources, so a plan stores them with

- the size and mtime of every input: while those and hclbuild's source fingerprint are the same,
  the stored plan (functions and validated configuration) is used as it is (current_plan), as
  doit itself trusts an unchanged timestamp;
- a sha256 of the inputs' bytes: when only timestamps moved, hclbuild.project.discovery validates
  the configuration again but does not trace the kernel.

This module is what a no-op `doit` reads its projects with, so it imports nothing but the standard
library and the layout's names; discovery (which loads and traces projects) writes the plans.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from hclbuild.project.layout import KERNEL_FILE, PROJECT_FILE

PLAN_FORMAT = "hclbuild-plan-3"
PLANS_DIR = ".plans"


class ProjectPlan(NamedTuple):
    """A discovered project: its folder, name, functions (top first), the files its design depends
    on (input_paths) and its validated configuration (ProjectConfig.to_json); or, for a project
    that cannot be planned, the one-line reason."""

    folder: Path
    name: str
    functions: list[str]
    inputs: list[str]
    config: dict[str, Any]
    error: str | None = None

    @property
    def blackbox_top(self) -> bool:
        """Whether the top is synthesized from its outlined functions' RTL (top_assembly = "blackbox")."""
        return len(self.functions) > 1 and self.config.get("top_assembly") == "blackbox"

    def to_json(self, fingerprint: str, key: str) -> dict[str, Any]:
        """The stored plan: this project plus what says whether it is still current (see module doc)."""
        return {
            "format": PLAN_FORMAT,
            "folder": str(Path(self.folder).resolve()),
            "fingerprint": fingerprint,
            "stats": input_stats(self.inputs),
            "key": key,
            "name": self.name,
            "config": self.config,
            "functions": self.functions,
        }


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


def input_stats(inputs: list[str]) -> list[list[Any]]:
    """[name, size, mtime] of each input: a plan is current while these are (see module doc)."""
    stats = []
    for path in inputs:
        info = os.stat(path)
        stats.append([os.path.basename(path), info.st_size, info.st_mtime_ns])
    return stats


def read_plan(path: Path) -> dict[str, Any]:
    """The stored plan at `path`, or {} when there is none this version reads."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return stored if isinstance(stored, dict) and stored.get("format") == PLAN_FORMAT else {}


def current_plan(folder: Path, build_root: Path, fingerprint: str) -> ProjectPlan | None:
    """The stored plan of `folder` while its inputs and hclbuild's sources are as it recorded them,
    else None (hclbuild.project.discovery.plan_project plans it again)."""
    inputs = input_paths(folder)
    if os.path.join(folder, KERNEL_FILE) not in inputs:
        return None
    stored = read_plan(plan_path(build_root, folder))
    if stored.get("fingerprint") != fingerprint or stored.get("stats") != input_stats(inputs):
        return None
    try:
        return ProjectPlan(
            Path(folder),
            str(stored["name"]),
            [str(f) for f in stored["functions"]],
            inputs,
            dict(stored["config"]),
        )
    except (KeyError, TypeError, ValueError):
        return None  # a plan this version cannot read: plan again
