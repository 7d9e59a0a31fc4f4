"""The latest attempt of every task, and which functions' csim verdicts still hold for the files on disk.

Every task action records its attempt in `build/<name>/status/`: "running" with the sha256 of each
file it depends on when it starts, then "ok" or "failed" with the one-line error when it ends. A
task killed mid-run stays "running". A function's csim verdict counts only when every task it comes
from (compile, reference, emit of the function, csim of the function) last succeeded on exactly the
files now on disk; otherwise the function is "not run", and the reason names the first task of that
chain that failed, did not finish, never ran, or whose input changed since. The report and the CLI
summary read verdicts through `function_states` only, so neither can show a pass that a failed,
interrupted or outdated run left behind.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hclbuild.atomic import write_text_atomic
from hclbuild.project.layout import BuildLayout

RUNNING, OK, FAILED = "running", "ok", "failed"
PASS, FAIL, NOT_RUN = "pass", "FAIL", "not run"
# the tasks a function's csim verdict comes from, upstream first, and whether each is per function
CHAIN: tuple[tuple[str, bool], ...] = (
    ("compile", False),
    ("reference", False),
    ("emit", True),
    ("csim", True),
)


def task_id(project: str, step: str, func: str | None = None) -> str:
    """doit's name of a task: `compile:<project>`, `csim:<project>/<func>`."""
    return f"{step}:{project}" if func is None else f"{step}:{project}/{func}"


# (path) -> ((mtime_ns, size, inode), sha256): a doit process checks the same inputs after every task
_DIGESTS: dict[Path, tuple[tuple[int, int, int], str]] = {}


def file_digest(path: Path) -> str | None:
    """sha256 of a file's bytes, or None when it does not exist (cached while the file's stat holds)."""
    try:
        stat = path.stat()
        version = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        cached = _DIGESTS.get(path)
        if cached is not None and cached[0] == version:
            return cached[1]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    _DIGESTS[path] = (version, digest)
    return digest


@dataclass
class Attempt:
    """One task's latest attempt: state, error line and the digests of its inputs when it started."""

    task: str
    state: str
    error: str | None = None
    # path relative to build/<name>/ (so two build trees of one project compare equal) -> sha256
    inputs: dict[str, str | None] = field(default_factory=dict)

    def to_json(self) -> str:
        data = {"task": self.task, "state": self.state, "error": self.error, "inputs": self.inputs}
        return json.dumps(data, indent=2, sort_keys=True) + "\n"


def begin_attempt(layout: BuildLayout, step: str, func: str | None, inputs: list[str]) -> Attempt:
    """Record that a task starts on the given input files (their digests now); returns the record."""
    attempt = Attempt(
        task=task_id(layout.project_name, step, func),
        state=RUNNING,
        inputs={_relative(layout, Path(p)): file_digest(Path(p)) for p in inputs},
    )
    write_text_atomic(layout.task_status(step, func), attempt.to_json())
    return attempt


def finish_attempt(
    layout: BuildLayout, step: str, func: str | None, attempt: Attempt, error: str | None
) -> None:
    """Record how the attempt ended: ok, or failed with its one-line error."""
    attempt.state, attempt.error = (OK, None) if error is None else (FAILED, error)
    write_text_atomic(layout.task_status(step, func), attempt.to_json())


def read_attempt(layout: BuildLayout, step: str, func: str | None = None) -> Attempt | None:
    """The recorded latest attempt of a task, or None when it never ran (or the record is unreadable)."""
    try:
        data = json.loads(layout.task_status(step, func).read_text(encoding="utf-8"))
        return Attempt(
            task=str(data["task"]),
            state=str(data["state"]),
            error=data.get("error"),
            inputs=dict(data.get("inputs") or {}),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def failed_attempts(layout: BuildLayout) -> list[Attempt]:
    """Every recorded attempt that failed or did not finish, in task-name order."""
    found = []
    if layout.status_dir.is_dir():
        for path in sorted(layout.status_dir.rglob("*.json")):
            rel = path.relative_to(layout.status_dir).with_suffix("")
            step, func = (rel.parts[0], None) if len(rel.parts) == 1 else (rel.parts[0], rel.parts[1])
            attempt = read_attempt(layout, step, func)
            if attempt is not None and attempt.state != OK:
                found.append(attempt)
    return found


@dataclass
class FunctionState:
    """What the report says about one function's C simulation."""

    func: str
    state: str  # PASS | FAIL | NOT_RUN
    reason: str | None = None
    csim: dict[str, Any] | None = None  # csim/<func>.json, when its verdict counts


def function_state(layout: BuildLayout, func: str) -> FunctionState:
    """The verdict of `func`'s latest csim, if every task it comes from holds for the files on disk."""
    for step, per_function in CHAIN:
        name = func if per_function else None
        attempt = read_attempt(layout, step, name)
        tid = task_id(layout.project_name, step, name)
        if attempt is None:
            return FunctionState(func, NOT_RUN, f"{tid} has not run")
        if attempt.state == RUNNING:
            return FunctionState(func, NOT_RUN, f"{tid} did not finish")
        if attempt.state == FAILED:
            if step == "csim":
                return FunctionState(func, FAIL, attempt.error, _read_json(layout.csim_json(func)))
            return FunctionState(func, NOT_RUN, f"{tid} failed: {attempt.error}")
        changed = changed_input(layout, attempt)
        if changed is not None:
            return FunctionState(func, NOT_RUN, f"{changed} changed after {tid} ran")
    if not layout.csim_json(func).exists():
        return FunctionState(func, NOT_RUN, f"{layout.csim_json(func)} is missing")
    csim = read_csim_result(layout.csim_json(func), func)
    if csim is None:
        return FunctionState(
            func, NOT_RUN, f"{layout.csim_json(func)} is not a csim result of {func} (rerun csim)"
        )
    if csim.get("pass") is not True:
        return FunctionState(func, FAIL, str(csim.get("error") or "csim failed"), csim)
    return FunctionState(func, PASS, None, csim)


def read_csim_result(path: Path | str, func: str) -> dict[str, Any] | None:
    """csim/<func>.json when it is a whole csim result of `func` (a dict with its name and a boolean
    pass), else None: a truncated, empty or foreign file is no verdict, and csim:<p>/<func> reruns."""
    data = _read_json(Path(path))
    if isinstance(data, dict) and data.get("func") == func and isinstance(data.get("pass"), bool):
        return data
    return None


def changed_input(layout: BuildLayout, attempt: Attempt) -> Path | None:
    """The first input of the attempt whose bytes differ from when it started (or that is gone)."""
    for rel, digest in attempt.inputs.items():
        path = Path(os.path.normpath(layout.root.resolve() / rel))
        if file_digest(path) != digest:
            return path
    return None


def function_states(layout: BuildLayout, functions: list[str]) -> list[FunctionState]:
    """function_state of each function, in the given order."""
    return [function_state(layout, func) for func in functions]


def known_functions(layout: BuildLayout) -> list[str]:
    """The functions of the latest compiled design (ir/manifest.json), or none before the first compile."""
    manifest = _read_json(layout.ir_manifest)
    functions = manifest.get("functions") if isinstance(manifest, dict) else None
    return [str(f) for f in functions] if isinstance(functions, list) else []


@contextmanager
def project_lock(layout: BuildLayout) -> Iterator[None]:
    """Hold an exclusive lock on build/<name>/ while reading every record and rewriting the report.

    Under `doit -n 2` two tasks of one project may end together; each writes its own record first
    and then takes the lock, so the report written last has read both records.
    """
    layout.root.mkdir(parents=True, exist_ok=True)
    fd = os.open(layout.root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _relative(layout: BuildLayout, path: Path) -> str:
    return os.path.relpath(path.resolve(), layout.root.resolve())


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
