"""`hclbuild ci github|gitlab`: a CI pipeline that installs what exists, C-simulates every function,
synthesizes each outlined function in its own job, then each top: whole, as soon as csim is done
(csynth-top), or, when the project says `top_assembly = "blackbox"`, from the RTL of its functions,
after their jobs and with their artifacts (assemble-top).

The install step is the checkout itself (`pip install -e .`) when the repository is hclbuild, else
its requirements.txt, else the pyproject.toml project that depends on hclbuild; `--install` gives
the commands instead. The ap_types headers for g++ C simulation come from the hls4ml wheel,
installed without its dependencies (the same as scripts/setup.sh).

The build folder is cached between runs (GitHub: actions/cache keyed by hclbuild's version and a
hash of the projects' folders; GitLab: cache: per branch, falling back to the default branch's), so
doit reruns only what changed. `hclbuild report` writes build/summary.json; a push saves it as the
branch's QoR baseline, and a pull (merge) request compares with its target branch's baseline,
failing on the thresholds of each project's [ci] table. A final report job merges the csynth
matrix jobs' csynth.xml into the report, where real figures replace estimates in the comparison.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

from hclbuild import package_version
from hclbuild.errors import ConfigError
from hclbuild.project.layout import default_build_root
from hclbuild.project.templates import render_template

AP_TYPES_INSTALL = "python -m pip install --no-deps 'hls4ml==1.3.0'"
_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_PATH = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_./-]*$")


def install_commands(root: Path, install: str | None = None) -> list[str]:
    """The shell lines that install hclbuild and the project's dependencies in a fresh checkout."""
    if install is not None:
        lines = [line.strip() for line in install.splitlines() if line.strip()]
        if not lines:
            raise ConfigError("--install is empty")
        return lines
    pyproject = root / "pyproject.toml"
    name = None
    if pyproject.is_file():
        try:
            name = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {}).get("name")
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{pyproject}: invalid TOML: {exc}") from None
    upgrade = "python -m pip install --upgrade pip"
    if name == "hclbuild":
        return [upgrade, "python -m pip install -e ."]
    if (root / "requirements.txt").is_file():
        return [upgrade, "python -m pip install -r requirements.txt"]
    if name is not None:
        return [upgrade, "python -m pip install ."]
    raise ConfigError(
        f"{root}: no pyproject.toml or requirements.txt says how to install hclbuild; "
        "give the commands with --install"
    )


def pipeline_values(
    plans: list[Any], runner_label: str, root: Path, install: str | None, github: bool
) -> dict[str, Any]:
    """What both templates print: install lines, project paths, outlined-function and top jobs."""
    if not _LABEL.match(runner_label):
        raise ConfigError(f"runner label {runner_label!r}: use letters, digits, '.', '-' and '_'")
    root = Path(root)
    paths = {p.name: os.path.relpath(p.folder, root) for p in plans}
    for path in paths.values():
        if not _PATH.match(Path(path).as_posix()):
            # the jobs' shell lines, the YAML and GitHub's ${{ matrix.path }} carry it unquoted
            raise ConfigError(
                f"{path}: the pipeline names project folders in shell commands as they are; use "
                "folder names of letters, digits, '.', '-' and '_'"
            )
    # the artifacts are the build folder the jobs' `hclbuild csim|csynth <project>` commands use
    builds = sorted({default_build_root(Path(p.folder).resolve()) for p in plans})
    if len(builds) > 1:
        raise ConfigError(
            f"the projects build in different folders ({', '.join(map(str, builds))}), which one "
            "`hclbuild csim` of them all refuses: keep the projects in one folder"
        )
    build = os.path.relpath(builds[0], root.resolve()) if builds else "build"
    if build == ".." or build.startswith(".." + os.sep):
        raise ConfigError(
            f"{builds[0]}: the projects' build folder is outside {root}, where the pipeline runs"
        )
    jobs = [{"project": p.name, "path": paths[p.name], "function": f} for p in plans for f in p.functions[1:]]
    tops = [
        {"project": p.name, "path": paths[p.name], "function": p.functions[0]} for p in plans if p.functions
    ]
    groups = [
        {"project": p.name, "path": paths[p.name], "functions": p.functions[1:]}
        for p in plans
        if len(p.functions) > 1
    ]
    # a blackbox top needs its functions' RTL: it waits for their jobs; a project with no outlined
    # function synthesizes its top whole whatever top_assembly says (as its csynth task does)
    assembled = {p.name for p in plans if p.blackbox_top}
    top_jobs = []
    whole = [top for top in tops if top["project"] not in assembled]
    if whole:
        top_jobs.append(
            {
                "name": "csynth-top" if github else "top",
                "assemble": False,
                "tops": whole,
                "doc": "each top, synthesized whole",
            }
        )
    if assembled:
        top_jobs.append(
            {
                "name": "assemble-top",
                "assemble": True,
                "tops": [top for top in tops if top["project"] in assembled],
                "doc": 'each top_assembly = "blackbox" top, from its functions\' RTL',
            }
        )

    return {
        "runner_label": runner_label,
        "version": package_version(),
        "build": Path(build).as_posix(),
        # the projects' folders, the inputs a cached build folder is keyed by (GitHub's hashFiles)
        "hash_patterns": ", ".join(f"'{path}/**'" for path in sorted(paths.values())),
        "projects": sorted(paths),
        "report_needs": ["build-csim"] + (["csynth"] if jobs else []) + [job["name"] for job in top_jobs],
        "install": install_commands(root, install),
        # as YAML strings: a line is any shell command, and `a: b` or a leading `-` is YAML syntax
        "install_yaml": [json.dumps(line) for line in install_commands(root, install)],
        "ap_types": AP_TYPES_INSTALL,
        "paths": " ".join(sorted(paths.values())),
        "jobs": jobs,
        "job_groups": groups,
        "top_jobs": top_jobs,
    }


def github_workflow(
    plans: list[Any], runner_label: str = "vitis", root: Path | None = None, install: str | None = None
) -> str:
    """GitHub Actions YAML: build+csim, a csynth matrix of outlined functions, then the tops."""

    values = pipeline_values(plans, runner_label, root or Path.cwd(), install, github=True)
    return render_template("github_workflow.yml.j2", **values)


def gitlab_pipeline(
    plans: list[Any], runner_label: str = "vitis", root: Path | None = None, install: str | None = None
) -> str:
    """.gitlab-ci.yml: a csim stage, a `parallel: matrix:` csynth stage per function, then the tops."""

    values = pipeline_values(plans, runner_label, root or Path.cwd(), install, github=False)
    return render_template("gitlab_ci.yml.j2", **values)
