"""doit tasks of projects/<name>/: compile, reference, emit, csim, report (+ csynth, cosim).

What dodo.py and the hclbuild command import. Caching is doit's own: real files in
`file_dep`/`targets`, one of them build/.hclbuild-fingerprint (the digest of hclbuild's sources),
so a compiler change reruns what it affects and nothing else reruns.

A doit run that finds every task up to date (a no-op) stays within 1.5 times a bare `import doit`
(bench/, BENCHMARKS.md) by what it imports, not by tricks: these modules, hclbuild.project.plans
(each project's functions from its JSON plan in build/.plans/) and the build layout's names, nothing
of the DSL, the compiler, numpy, MLIR or jinja2. Each task's action names its step in
hclbuild.tasks.steps, imported when a task runs; a project whose plan is missing or stale is
planned by hclbuild.project.discovery, which traces its kernel. What else a no-op saves, each with
its figure where it is done:

- dodo.py's creator found without tokenizing it (doit_process.doit_creator: 16 M instructions);
- what is imported before the tasks are made moved out of the garbage collector's sight
  (doit_process.doit_config: 28 M instructions);
- the source fingerprint a file every task depends on, not an uptodate callable, and groups that
  are up to date without actions (tasks.definitions.NO_ACTION: 8-30 ms of state writes);
- the sources' digest kept while their sizes and times are (source_fingerprint: 19 ms of reading
  every source, 0.7 ms of stating them).
- csim's check that its result file is whole a stamp saved with the task's state, not a read of
  the file (tasks.result_stamps: about 7 ms over projects/' 71 functions).

doit's saved states are read the way doit reads them, one task at a time: reading them all in one
query through doit's private attributes saved 3 M instructions of a no-op `doit csim` over
projects/ (0.6 %), too little for that coupling.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from hclbuild import tool_processes
from hclbuild.atomic import sweep_stale_temps, write_if_changed
from hclbuild.errors import HCLError
from hclbuild.project.layout import (
    KERNEL_FILE,
    PROJECT_FILE,
    PROJECT_OWNER_FILE,
    build_folder_problem,
    default_build_root,
    is_project_name,
    project_owner_problem,
    unnamed_project_error,
)
from hclbuild.project.plans import ProjectPlan, current_plan
from hclbuild.runtime import dask_requested
from hclbuild.runtime.vitis import find_vitis
from hclbuild.tasks.definitions import group_tasks, project_tasks
from hclbuild.tasks.doit_process import after_interrupt, doit_config, doit_creator
from hclbuild.tasks.progress import BUILD_ROOTS

PACKAGE_DIR = Path(__file__).resolve().parent.parent
SOURCES_STAMP = ".hclbuild-sources.json"  # in the build root: source_fingerprint's cache
# in the build root: the fingerprint alone, a file_dep of every task. A file instead of doit's
# config_changed: doit checks a file with one stat, but calls and inspects an uptodate callable
# per task, a fifth of a no-op's own time over the suite's 200 tasks
FINGERPRINT_FILE = ".hclbuild-fingerprint"


def discover(projects_root: Path) -> list[Path]:
    """Folders below projects_root that hold a kernel.py, sorted by name."""
    root = Path(projects_root)
    if (root / KERNEL_FILE).is_file():
        return [root]
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / KERNEL_FILE).is_file())


def plan(
    folders: list[Path], build_root: Path | None = None, fingerprint: str | None = None
) -> list[ProjectPlan]:
    """Every project's plan: its functions, or the one-line error that keeps it from being planned.

    With build_root, a project's stored plan in build/.plans/ is used while kernel.py, its sibling
    modules, project.toml and hclbuild's sources are unchanged (hclbuild.project.plans), so a no-op
    `doit` imports neither numpy nor the DSL; else the kernel is loaded and traced.
    """
    fingerprint = fingerprint or source_fingerprint()
    plans = []
    for folder in folders:
        found = current_plan(folder, Path(build_root), fingerprint) if build_root is not None else None
        if found is None:
            try:
                found = _plan_again(folder, build_root, fingerprint)
            except HCLError as exc:
                found = ProjectPlan(folder, folder.name, [], [], {}, str(exc).splitlines()[0])
        plans.append(found)
    _check_names(plans)
    _check_unique_names(plans, build_root)
    return plans


# whether planning traced a kernel in this process, so a compile will run (_preload_steps)
_TRACED: list[bool] = []


def _plan_again(folder: Path, build_root: Path | None, fingerprint: str) -> ProjectPlan:
    # only for a project without a current plan: discovery loads project.toml and traces kernel.py,
    # which imports the DSL, numpy and the compiler
    from hclbuild.project import discovery

    if build_root is None:
        return discovery.trace_project(folder)
    planned = discovery.plan_project(folder, Path(build_root), fingerprint)
    if discovery.traced_here():
        _TRACED.append(True)
    return planned


def _refuse(message: str) -> None:
    """Stop before any task exists: one line, exit status 1 (under `hclbuild` and plain `doit`)."""
    print(f"hclbuild: error: {message}", file=sys.stderr)
    raise SystemExit(1)


def _check_names(plans: list[ProjectPlan]) -> None:
    """A project named after a folder that is no project name (`my sobel`) is refused up front, as
    `hclbuild new` refuses it: its tasks had been named `compile:my sobel` and failed one by one.
    Only a project that could not be planned has such a name (a plan's name was validated)."""
    unnamed = [entry for entry in plans if entry.error is not None and not is_project_name(entry.name)]
    if unnamed:
        _refuse(unnamed_project_error(unnamed[0].folder, unnamed[0].name))


def _check_unique_names(plans: list[ProjectPlan], build_root: Path | None) -> None:
    """Two folders that are one project name of one build folder would share build/<name>/ and every
    task name: doit refused them as "duplicated definition of 'compile:<name>'", naming neither."""
    first: dict[tuple[Path, str], Path] = {}
    for entry in plans:
        root = (
            Path(build_root) if build_root is not None else default_build_root(Path(entry.folder).resolve())
        )
        other = first.setdefault((root, entry.name), entry.folder)
        if other != entry.folder:
            _refuse(
                f"{other} and {entry.folder} are both project {entry.name!r} (they would share "
                f"build/{entry.name}/ and its tasks): give one another [project] name"
            )


def _source_files(folder: str, prefix: str = "") -> Iterator[tuple[str, os.DirEntry]]:
    for entry in os.scandir(folder):
        if entry.is_dir() and entry.name != "__pycache__":
            yield from _source_files(entry.path, f"{prefix}{entry.name}/")
        elif entry.name.endswith((".py", ".j2")):
            yield f"{prefix}{entry.name}", entry


def source_fingerprint(cache: Path | None = None) -> str:
    """sha256 of hclbuild's own sources and templates: any change to the compiler reruns tasks.

    With `cache` (a JSON file), the digest is reused while every source keeps its size and
    mtime, so a no-op doit stats the sources instead of reading them (0.7 ms instead of 19 ms
    here); the digest is of contents.
    """
    files = sorted(_source_files(str(PACKAGE_DIR)))
    stamp = hashlib.sha256(repr([(rel, e.stat().st_size, e.stat().st_mtime_ns) for rel, e in files]).encode())
    if cache is not None:
        try:
            stored = json.loads(cache.read_text(encoding="utf-8"))
            if stored.get("stamp") == stamp.hexdigest():
                return str(stored["fingerprint"])
        except (OSError, ValueError, AttributeError, KeyError):
            pass
    digest = hashlib.sha256()
    for rel, entry in files:
        digest.update(rel.encode())
        with open(entry.path, "rb") as handle:
            digest.update(handle.read())
    if cache is not None:
        record = {"stamp": stamp.hexdigest(), "fingerprint": digest.hexdigest()}
        write_if_changed(cache, json.dumps(record) + "\n")
    return digest.hexdigest()


def write_fingerprint(build_root: Path, fingerprint: str) -> str:
    """build_root/.hclbuild-fingerprint holding `fingerprint` (rewritten only when it changes): the
    file every task depends on, so a change of hclbuild's sources reruns every task."""
    path = Path(build_root) / FINGERPRINT_FILE
    write_if_changed(path, fingerprint + "\n")
    return str(path)


def tasks_for(folders: list[Path], build_root: Path) -> Iterator[dict]:
    """Every task of the given project folders, plus the group descriptions (the Vitis ones where a
    tool is found, or where a Dask scheduler is configured: its workers may have one)."""
    problem = build_folder_problem(Path(build_root), folders)
    if problem is not None:
        _refuse(problem)
    vitis = find_vitis() is not None or dask_requested()
    BUILD_ROOTS.add(Path(build_root))
    # the tools a SIGKILLed run left running (a g++ writing an object) die before the sweep below
    # and before any task: one would have written its temporary after the sweep
    tool_processes.record_groups_in(Path(build_root))
    # what a killed run left beside the files below (the sources stamp's temporary); one listing of
    # the build folder, not a walk of it (each task's action sweeps its project's folder)
    sweep_stale_temps(build_root, recursive=False)
    fingerprint = source_fingerprint(Path(build_root) / SOURCES_STAMP)
    fingerprint_file = write_fingerprint(Path(build_root), fingerprint)
    yield from group_tasks(vitis)
    plans = plan(folders, build_root, fingerprint)
    _claim_project_builds(plans, Path(build_root))
    _preload_steps()
    for entry in plans:
        yield from project_tasks(entry, build_root, fingerprint_file, vitis)


def _claim_project_builds(plans: list[ProjectPlan], build_root: Path) -> None:
    """Refuse a project whose build/<name>/ another folder's project of that name built; record
    each project's folder in its build/<name>/.hclbuild-project (before any of its tasks runs)."""
    for entry in plans:
        problem = project_owner_problem(build_root, entry.name, Path(entry.folder))
        if problem is not None:
            _refuse(problem)
    for entry in plans:
        marker = build_root / entry.name / PROJECT_OWNER_FILE
        marker.parent.mkdir(parents=True, exist_ok=True)
        write_if_changed(marker, os.path.abspath(entry.folder) + "\n")


def _preload_steps() -> None:
    """When planning traced a kernel, so a compile will run, import the steps (MLIR, the emitter,
    the runtimes) here, before doit forks its workers: the worker that does not compile then starts
    its first emit or lowering with them, instead of spending about 0.2 s importing them. The serial
    part is no longer: compile would import them first thing. A no-op run traces no kernel."""
    if _TRACED:
        # a compile will run (see above)
        import hclbuild.tasks.steps  # noqa: F401


def all_tasks(projects_root: Path, build_root: Path) -> Iterator[dict]:
    """Every task of every project below projects_root (what dodo.py yields)."""
    yield from tasks_for(discover(projects_root), build_root)


__all__ = [
    "PROJECT_FILE",
    "ProjectPlan",
    "after_interrupt",
    "all_tasks",
    "discover",
    "doit_config",
    "doit_creator",
    "group_tasks",
    "plan",
    "project_tasks",
    "source_fingerprint",
    "tasks_for",
]
