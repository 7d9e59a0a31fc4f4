"""What a build of hclbuild's tasks prints, under `hclbuild` and plain `doit` alike (doit's reporter).

    [3/12] emit:p/top                    a line per task that runs: k of the N tasks checked
    hclbuild: error: <the one line>      a failed task, once, on stderr (no TaskFailed block)
    built 2 functions in 4.1 s; csim 2 pass, 0 FAIL; build folder /abs/build

On a terminal (and not under CI, where $CI is set) the task lines are one progress bar redrawn in
place. A run that ran nothing says `up to date` in one line. A task that raised (a bug, not bad
input) still gets its traceback; a task's captured output is shown when it failed and said anything.

Imported by every doit run through doit_config, so it imports nothing heavy.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any, TextIO

from doit.exceptions import BaseFail, TaskFailed, UnmetDependency
from doit.reporter import ConsoleReporter

ERROR_PREFIX = "hclbuild: error: "
# the one-line errors printed in this process, so `hclbuild csim`'s table does not repeat them
PRINTED_ERRORS: list[str] = []
_BAR_WIDTH = 24


# the build folders tasks_for was given in this process: the summary names them, and after an
# interrupt doit_process.after_interrupt cleans them
BUILD_ROOTS: set[Path] = set()


def build_folders() -> list[str]:
    """The build folders this process's tasks were made for."""
    return [str(root) for root in sorted(BUILD_ROOTS)]


class BuildReporter(ConsoleReporter):
    """doit's reporter for hclbuild's tasks (DOIT_CONFIG["reporter"], see the module docstring)."""

    desc = "hclbuild: [k/N] task lines (a bar on a terminal), one line per error, a summary"

    def __init__(self, outstream: TextIO, options: dict[str, Any]) -> None:
        super().__init__(outstream, options)
        self.started = time.monotonic()
        self.total = 0
        self.counted: set[str] = set()  # tasks run or found up to date, so far
        self.ran: list[str] = []
        self.up_to_date: list[str] = []
        self.failed: list[str] = []
        self.errors: list[tuple[Any, BaseFail]] = []  # (task, its failure)
        self.lock = threading.Lock()  # doit -P thread calls the reporter from every task thread
        interactive = getattr(outstream, "isatty", lambda: False)()
        self.bar = bool(interactive) and not os.environ.get("CI")
        self.bar_shown = False

    # ---- doit's calls ------------------------------------------------------------------
    def initialize(self, tasks: dict[str, Any], selected_tasks: list[str]) -> None:
        """N: the tasks with actions that the selected ones depend on (doit has added the implicit
        dependencies of file_dep on targets to task_dep by now)."""
        seen: set[str] = set()
        todo = list(selected_tasks)
        while todo:
            name = todo.pop()
            if name in seen or name not in tasks:
                continue
            seen.add(name)
            todo += tasks[name].task_dep + tasks[name].setup_tasks
        self.total = sum(1 for name in seen if _shown(tasks[name]))

    def execute_task(self, task: Any) -> None:
        if not _shown(task):
            return
        with self.lock:
            number = self._count(task)
            if self.bar:
                self._draw(number, task.name)
            else:
                self.write(f"[{number}/{self.total}] {task.name}\n")
                self.outstream.flush()

    def skip_uptodate(self, task: Any) -> None:
        if not _shown(task):
            return
        with self.lock:
            number = self._count(task)
            self.up_to_date.append(task.name)
            if self.bar:
                self._draw(number, task.name)

    def skip_ignore(self, task: Any) -> None:
        """`doit ignore`d tasks are counted, not listed."""
        if _shown(task):
            with self.lock:
                self._count(task)

    def add_success(self, task: Any) -> None:
        if _shown(task):
            with self.lock:
                self.ran.append(task.name)

    def add_failure(self, task: Any, fail: BaseFail) -> None:
        with self.lock:
            if isinstance(fail, UnmetDependency) or not fail.report:
                return  # not run: the failure it depends on is printed
            self.failed.append(task.name)
            self._clear_bar()
            if type(fail) is TaskFailed:  # hclbuild's one-line errors: bad input, a tool's failure
                line = fail.message.strip().splitlines()[0] if fail.message.strip() else task.name
                PRINTED_ERRORS.append(line)
                sys.stderr.write(f"{ERROR_PREFIX}{line}\n")
            else:  # an exception the task raised: a bug, whose traceback says where
                sys.stderr.write(f"{ERROR_PREFIX}{task.name}: {fail.get_name()}\n{fail.get_msg()}")
            sys.stderr.flush()
            self.errors.append((task, fail))

    def runtime_error(self, msg: str) -> None:
        with self.lock:
            self._clear_bar()
            sys.stderr.write(f"{ERROR_PREFIX}{msg.strip()}\n")
            sys.stderr.flush()

    def cleanup_error(self, exception: Any) -> None:
        self.runtime_error(exception.get_msg())

    def complete_run(self) -> None:
        # bounded: an interrupt that came between another call's acquire and its `with` block would
        # leave the lock held, and the summary must not wait for it
        held = self.lock.acquire(timeout=5)
        try:
            self._clear_bar()
            self._failed_output()
            self.write(self.summary() + "\n")
            self.outstream.flush()
        finally:
            if held:
                self.lock.release()

    # ---- the summary ---------------------------------------------------------------------------
    def summary(self) -> str:
        """One line: what ran and how csim went, how long it took, where the build folder is."""
        seconds = time.monotonic() - self.started
        where = ", ".join(build_folders()) or os.getcwd()
        if not self.ran and not self.failed:
            return (
                f"up to date: {len(self.up_to_date)} tasks checked in {seconds:.1f} s; build folder {where}"
            )
        emitted = _count_of(self.ran, "emit")
        kept = _count_of(self.up_to_date, "emit")
        explored = _count_of(self.ran, "explore")
        if explored and not emitted:  # hclbuild explore builds no function: it estimates points
            parts = [f"estimated {explored} design point{'s' if explored != 1 else ''}"]
        else:
            parts = [f"built {emitted} function{'s' if emitted != 1 else ''}"]
        if kept:
            parts[0] += f" ({kept} up to date)"
        parts[0] += f" in {seconds:.1f} s"
        csim_failed = _count_of([task.name for task, fail in self.errors if type(fail) is TaskFailed], "csim")
        csim_passed = _count_of(self.ran, "csim") + _count_of(self.up_to_date, "csim")
        if csim_passed or csim_failed:
            parts.append(f"csim {csim_passed} pass, {csim_failed} FAIL")
        if self.failed:
            parts.append(f"{len(self.failed)} task{'s' if len(self.failed) != 1 else ''} failed")
        return "; ".join(parts) + f"; build folder {where}"

    # ---- helpers ------------------------------------------------------------------------------
    def _count(self, task: Any) -> int:
        self.counted.add(task.name)
        return len(self.counted)

    def _draw(self, number: int, name: str) -> None:
        width = shutil.get_terminal_size((80, 24)).columns
        done = _BAR_WIDTH * number // max(self.total, 1)
        text = f"[{'#' * done}{'.' * (_BAR_WIDTH - done)}] {number}/{self.total} {name}"
        self.write("\r\033[K" + text[: width - 1])
        self.outstream.flush()
        self.bar_shown = True

    def _clear_bar(self) -> None:
        if self.bar_shown:
            self.write("\r\033[K")
            self.outstream.flush()
            self.bar_shown = False

    def _failed_output(self) -> None:
        """What a failed task printed (a reference run's hcl.print), when it printed anything."""
        for task, _ in self.errors:
            if not task.executed:
                continue
            output = "".join(action.out or "" for action in task.actions)
            output += "".join(action.err or "" for action in task.actions)
            if output.strip():
                self.write(f"output of {task.name}:\n{output.rstrip()}\n")


def _shown(task: Any) -> bool:
    """A task of hclbuild's that does something (not a group, not hidden)."""
    return bool(task.actions) and not task.name.startswith("_")


def _count_of(names: list[str], basename: str) -> int:
    return sum(1 for name in names if name.startswith(basename + ":"))


__all__ = ["ERROR_PREFIX", "PRINTED_ERRORS", "BuildReporter"]
