"""`hclbuild ci github`: a GitHub Actions workflow with a build+csim job and a csynth matrix."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hclbuild.errors import ConfigError


def github_workflow(plans: list[Any], runner_label: str = "vitis", root: Path | None = None,
                    install: str = "pip install hclbuild") -> str:
    """Workflow YAML: one job for build + csim, then one csynth job per (project, function)."""
    from hclbuild.project.hls_project import render_template

    if not runner_label.replace("-", "").replace("_", "").isalnum():
        raise ConfigError(f"runner label {runner_label!r}: use letters, digits, '-' and '_'")
    root = root or Path.cwd()
    paths = " ".join(sorted(os.path.relpath(p.folder, root) for p in plans))
    jobs = [{"project": p.name, "function": f} for p in plans for f in p.functions]
    return render_template("github_workflow.yml.j2", runner_label=runner_label, jobs=jobs, paths=paths,
                           install=install)
