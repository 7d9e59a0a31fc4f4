"""build/<name>/.hclbuild-written.json: what hclbuild wrote in a project's build folder, by task.

Every clean (`doit clean`, `hclbuild clean`) and the removal of a function that is no longer
outlined delete only what this manifest lists, so a file of the user's own in build/<name>/ (or a
build folder pointed at the wrong place) survives them. A task records its entries when it starts,
before it writes anything, so what an interrupted or failed task left is listed too.

An entry is a path relative to build/<name>/: a file (`ir/top.mlir`) or, ending in `/`, a folder
that only hclbuild or the tools it runs fill (`hls/<func>/data/`, `hls/<func>/<func>_prj/`), which
goes whole. Entries are grouped under task keys, `<step>` for a project's task and `<step>/<func>`
for one function's (compile and the reference write some files of each function too), so that
removing a function removes exactly the keys of that function.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hclbuild.atomic import temporary_beside, write_text_atomic
from hclbuild.errors import ConfigError
from hclbuild.project.attempts import project_lock
from hclbuild.project.layout import (
    CSIM_DIR,
    DATA_DIR,
    ESTIMATE_DIR,
    GOLDEN_DIR,
    HLS_DIR,
    IR_DIR,
    IR_MANIFEST,
    LLVM_DIR,
    LLVM_MANIFEST,
    LLVM_UNITS,
    REPORT_MARKDOWN,
    REPORT_SUMMARY,
    REPORTS_DIR,
    STATUS_DIR,
    TOP_MLIR,
    BuildLayout,
    HlsFiles,
    blackbox_file_name,
)

WRITTEN_FORMAT = "hclbuild-written"
# what report:<name> writes in reports/ (project.report_files, render.pictures)
_REPORT_FILES = (
    REPORT_SUMMARY,
    REPORT_MARKDOWN,
    "report.html",
    "hardware.sha256",
    "design.dot",
    "design.svg",
    "design.png",
    "csynth.png",
    "pictures.txt",
)
# what the Vitis tools write in hls/<func>/ besides the two project folders (runtime.vitis)
_VITIS_LOGS = ("run_hls.log", "vitis_hls.log", "v++_csynth.log", "vitis-run_cosim.log", "vitis-run_csim.log")
_VITIS_FOLDERS = (".Xil/", "logs/")


def _status(step: str, func: str | None) -> str:
    return f"{STATUS_DIR}/{step}.json" if func is None else f"{STATUS_DIR}/{step}/{func}.json"


def task_entries(step: str, func: str | None, functions: list[str]) -> dict[str, list[str]]:
    """The manifest keys and entries of one task (`step` as its attempt names it: compile,
    reference, emit, estimate, csim, report, csynth, cosim, blackbox, explore) of a design whose
    functions are `functions` (the top first)."""
    top = functions[0] if functions else None
    if step == "compile":
        return {
            "compile": [f"{IR_DIR}/{TOP_MLIR}", f"{IR_DIR}/{IR_MANIFEST}", _status(step, None)],
            **{f"compile/{f}": [f"{IR_DIR}/{f}.mlir"] for f in functions[1:]},
        }
    if step == "reference":
        return {
            "reference": [
                f"{LLVM_DIR}/{LLVM_MANIFEST}",
                f"{LLVM_DIR}/{LLVM_UNITS}/",
                f"{LLVM_DIR}/objects/",
                f"{LLVM_DIR}/top.ll",
                _status(step, None),
            ],
            **{f"reference/{f}": [f"{GOLDEN_DIR}/{f}/", f"{HLS_DIR}/{f}/{DATA_DIR}/"] for f in functions},
        }
    if step == "report":
        return {"report": [f"{REPORTS_DIR}/{name}" for name in _REPORT_FILES]}
    if step == "explore":
        return {"explore": ["explore/"]}
    if func is None:
        raise ValueError(f"task {step!r} of no function")
    hls = f"{HLS_DIR}/{func}"
    entries = {
        "emit": [*HlsFiles.below(hls, func).emitted, _status(step, func)],
        "estimate": [f"{ESTIMATE_DIR}/{func}.json", _status(step, func)],
        "csim": [f"{CSIM_DIR}/{func}.json", f"{hls}/out/", _status(step, func)],
        "csynth": [
            f"csynth/{func}.xml",
            f"csynth/{func}.inputs",
            f"{hls}/{func}_prj/",
            f"{hls}/{func}_comp/",
            *(f"{hls}/{name}" for name in (*_VITIS_LOGS, *_VITIS_FOLDERS)),
            _status(step, func),
        ],
        "cosim": [f"cosim/{func}.rpt", _status(step, func)],
        "blackbox": [f"{HLS_DIR}/{top}/{blackbox_file_name(func)}"],
    }.get(step)
    if entries is None:
        raise ValueError(f"no written files known of task {step!r}")
    return {f"{step}/{func}": entries}


def _function_of(key: str) -> str | None:
    return key.split("/", 1)[1] if "/" in key else None


def read_written(layout: BuildLayout) -> dict[str, list[str]]:
    """The manifest's task keys and entries ({} when none was written); ConfigError when it cannot be
    read, so that nothing is deleted on a guess."""
    path = layout.written_manifest
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"{path}: unreadable list of what hclbuild wrote ({exc}); nothing removed"
        ) from None
    tasks = data.get("tasks") if isinstance(data, dict) and data.get("format") == WRITTEN_FORMAT else None
    if not isinstance(tasks, dict) or not all(
        isinstance(entries, list) and all(isinstance(e, str) and _is_entry(e) for e in entries)
        for entries in tasks.values()
    ):
        raise ConfigError(f"{path}: not hclbuild's list of what it wrote; nothing removed")
    return {str(key): list(entries) for key, entries in tasks.items()}


def _is_entry(entry: str) -> bool:
    # a relative path below build/<name>/, never one that leaves it
    parts = entry.rstrip("/").split("/")
    return bool(entry) and not entry.startswith("/") and all(part not in ("", ".", "..") for part in parts)


def _write(layout: BuildLayout, tasks: dict[str, list[str]]) -> None:
    path = layout.written_manifest
    if not tasks:
        path.unlink(missing_ok=True)
        return
    data = {
        "format": WRITTEN_FORMAT,
        "project": layout.project_name,
        "about": "what hclbuild wrote here, by task; every clean removes only these "
        "(a path ending in / is a folder that only hclbuild and its tools fill)",
        "tasks": {key: sorted(set(entries)) for key, entries in sorted(tasks.items())},
    }
    write_text_atomic(path, json.dumps(data, indent=1) + "\n")


def record_written(layout: BuildLayout, entries: dict[str, list[str]]) -> None:
    """Add a task's entries (task_entries) to the manifest, before the task writes them."""
    try:
        known = read_written(layout)
    except ConfigError:
        known = {}
    if all(set(found) <= set(known.get(key, ())) for key, found in entries.items()):
        return  # a rebuild: listed already, and the manifest is not rewritten
    with project_lock(layout):
        try:
            known = read_written(layout)
        except ConfigError:
            # an unreadable list is replaced: what it named is then never removed, the safe way
            known = {}
        for key, found in entries.items():
            known[key] = sorted({*known.get(key, ()), *found})
        _write(layout, known)


def remove_written(layout: BuildLayout, keys: Iterable[str] | None = None) -> list[str]:
    """Delete what the manifest lists under `keys` (every key: None), and those keys; returns the
    entries that existed and were removed. Files of anyone else stay, and so do their folders."""
    if not layout.root.is_dir():
        return []
    with project_lock(layout):
        known = read_written(layout)
        chosen = set(known) if keys is None else {key for key in keys if key in known}
        kept = {entry for key, entries in known.items() if key not in chosen for entry in entries}
        doomed = sorted({entry for key in chosen for entry in known[key]} - kept)
        removed = _remove_entries(layout.root, doomed)
        _write(layout, {key: entries for key, entries in known.items() if key not in chosen})
    return removed


def remove_stale_functions(layout: BuildLayout, functions: list[str]) -> list[str]:
    """After a compile: remove what hclbuild wrote for functions the design no longer has (one that
    stops being outlined left hls/<old>/ and csim/<old>.json, which a CI loop over hls/* built)."""
    try:
        known = read_written(layout)
    except ConfigError:
        return []  # unreadable: nothing is removed on a guess (`hclbuild clean` names the file)
    current = set(functions)
    stale = [key for key in known if (func := _function_of(key)) is not None and func not in current]
    return remove_written(layout, stale) if stale else []


def _remove_entries(root: Path, entries: list[str]) -> list[str]:
    """Remove `entries` below root. A folder below the top ones (hls/<func>/, golden/<func>/) that
    holds nothing but listed entries goes in one rename first, so no half of it is ever seen in its
    place (the renamed folder is a temporary that the next run sweeps if this one is killed)."""
    files = {entry for entry in entries if not entry.endswith("/")}
    trees = {entry.rstrip("/") for entry in entries if entry.endswith("/")}
    existing = [entry for entry in entries if os.path.lexists(root / entry.rstrip("/"))]
    gone: list[str] = []  # folders removed whole
    for folder in sorted(_folders_of(entries, shallowest=2), key=lambda folder: (folder.count("/"), folder)):
        if folder in trees or any(folder.startswith(f"{g}/") for g in gone):
            continue
        path = root / folder
        if path.is_dir() and not path.is_symlink() and _only_listed(root, folder, files, trees):
            _remove_tree(path)
            gone.append(folder)
    for entry in existing:
        bare = entry.rstrip("/")
        path = root / bare
        if any(bare.startswith(f"{g}/") for g in gone):
            continue
        if bare in trees and path.is_dir() and not path.is_symlink():
            _remove_tree(path)
        elif not path.is_dir() or path.is_symlink():
            path.unlink(missing_ok=True)
    _prune(root, entries)
    return existing


def _folders_of(entries: list[str], shallowest: int) -> set[str]:
    """The folders that hold the entries, from `shallowest` parts deep (1: ir/, 2: hls/<func>/)."""
    found: set[str] = set()
    for entry in entries:
        parts = entry.rstrip("/").split("/")
        found.update("/".join(parts[:depth]) for depth in range(shallowest, len(parts)))
    return found


def _only_listed(root: Path, folder: str, files: set[str], trees: set[str]) -> bool:
    """Whether everything below root/folder is a listed file or inside a listed folder."""
    for current, dirnames, filenames in os.walk(root / folder):
        rel = os.path.relpath(current, root).replace(os.sep, "/")
        for name in filenames:
            if f"{rel}/{name}" not in files:
                return False
        for name in list(dirnames):
            if f"{rel}/{name}" in trees:
                dirnames.remove(name)  # hclbuild's whole: not looked into
            elif os.path.islink(os.path.join(current, name)):
                return False
    return True


def _remove_tree(path: Path) -> None:
    temp = temporary_beside(path)
    os.rename(path, temp)
    shutil.rmtree(temp, ignore_errors=True)


def _prune(root: Path, entries: list[str]) -> None:
    """Remove the folders of the removed entries that are now empty, deepest first, up to root."""
    folders = _folders_of(entries, shallowest=1)
    for folder in sorted(folders, key=lambda f: -f.count("/")):
        with contextlib.suppress(OSError):
            os.rmdir(root / folder)  # only when empty: anyone else's file keeps its folder
