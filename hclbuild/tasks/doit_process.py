"""The doit process around hclbuild's tasks: DOIT_CONFIG, dodo.py's creator decorator, and how an
interrupted or terminated doit ends (one line, its workers gone, no empty folders left).

A dodo file imports these through hclbuild.tasks; they run once per doit process, before any task.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hclbuild import tool_processes
from hclbuild.atomic import sweep_stale_temps
from hclbuild.errors import HCLError
from hclbuild.runtime import dask_requested
from hclbuild.tasks import termination
from hclbuild.tasks.progress import BUILD_ROOTS, BuildReporter

_WORKERS_GRACE = 10.0  # seconds doit's terminated workers have to end before they are killed


def after_interrupt() -> None:
    """After Ctrl-C or SIGTERM: stop every tool still running (those of `-P thread` task threads, and
    the Dask jobs waited for), wait for doit's worker processes to end, then remove the temporaries
    and the empty folders they left.

    Under `-n N` doit terminates its workers when the interrupt reaches it, which can cut a task's
    own clean-up short (the action's KeyboardInterrupt branch), so the parent cleans up too."""
    tool_processes.kill_all()
    if "hclbuild.runtime.remote" in sys.modules:
        sys.modules["hclbuild.runtime.remote"].stop()
    if "multiprocessing" in sys.modules:
        import multiprocessing
        import signal
        import time

        deadline = time.monotonic() + _WORKERS_GRACE
        for child in multiprocessing.active_children():
            child.join(timeout=max(0.0, deadline - time.monotonic()))
        for child in multiprocessing.active_children():
            # a worker that SIGTERM did not end: its tools first, then itself (a worker left alive
            # also kept this process from exiting: multiprocessing joins its children at exit)
            if child.pid is None:  # never started: nothing runs
                continue
            tool_processes.kill_groups_below(child.pid)
            with contextlib.suppress(ProcessLookupError):
                os.kill(child.pid, signal.SIGKILL)
            child.join(timeout=10)
    for root in sorted(BUILD_ROOTS):
        # this process writes nothing more either: its own temporaries go too (a precompiled header
        # half made, 80 MB, had stayed until the next run's sweep)
        sweep_stale_temps(root, including_mine=True)
        for project in root.iterdir() if root.is_dir() else ():
            if project.is_dir():
                prune_empty_folders(project)


def _interrupt_hook(kind: type[BaseException], value: BaseException, trace: Any) -> None:
    """sys.excepthook: Ctrl-C is one line and exit status 130, not a traceback."""

    if issubclass(kind, KeyboardInterrupt):
        # doit's runner has already saved the state of every finished task (its finally: clause)

        after_interrupt()
        terminated = termination.TERMINATED
        sys.stderr.write("doit: terminated (SIGTERM)\n" if terminated else "doit: interrupted\n")
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(128 + terminated[0] if terminated else 130)
    sys.__excepthook__(kind, value, trace)


def doit_creator(creator: Callable[[], Iterator[dict]]) -> Callable[[], Iterator[dict]]:
    """Decorate dodo.py's task creator (`@doit_creator` over `def task_hclbuild()`).

    doit orders a dodo file's creators by the line inspect.getsourcelines finds for each. That
    tokenizes the creator's source, and the first tokenization in a process compiles tokenize's
    regular expressions: 16 M instructions, about a twentieth of a no-op `doit` over projects/.
    getsourcelines follows `__wrapped__` and places a module at line 0 without tokenizing it,
    so a creator that names this module there is found at once. With one creator per dodo
    file, as ours have, the order is the same.
    """

    # a function takes any attribute, but Callable declares none: [attr-defined] for __wrapped__
    creator.__wrapped__ = sys.modules[__name__]  # type: ignore[attr-defined]
    return creator


def doit_config(build_root: Path) -> dict:
    """DOIT_CONFIG for a dodo file: `doit` alone runs `build`; state lives in the build folder.

    Loading it also makes an interrupted `doit` end in one line with status 130 (_interrupt_hook):
    a dodo file is the only code of ours that `doit` runs before the tasks.

    With $HCLBUILD_SCHEDULER (or $HCLBUILD_CLUSTER) set, csim/csynth/cosim run on Dask workers and
    doit runs threads, one per worker thread of the cluster by default; a scheduler that cannot be
    reached stops doit here, in one line, before any task starts.

    It also moves everything imported so far (doit, hclbuild's task modules, the standard library)
    out of the garbage collector's sight (gc.freeze): those objects live as long as the process,
    and the collections that a no-op `doit` triggers while it makes its 200 tasks went through all
    of them, 28 M instructions, an eighth of what a no-op adds to `import doit`. Later objects are
    collected as before; the workers `doit -n` forks also share those pages instead of copying them.
    """

    gc.freeze()
    sys.excepthook = _interrupt_hook

    termination.install()  # a `kill` of doit ends it as Ctrl-C does, workers and all
    check_build_folder(Path(build_root))
    config = {
        "default_tasks": ["build"],
        "dep_file": str(Path(build_root) / ".doit.db"),
        "backend": "sqlite3",
        "verbosity": 1,
        # [k/N] lines, each error once, a summary naming the build folder (`--reporter console`: doit's)
        "reporter": BuildReporter,
        # `doit clean` removes what every task made, not only the default (build) tasks
        "cleanall": True,
    }
    config.update(_remote_config())
    return config


def check_build_folder(build_root: Path) -> None:
    """Make the build folder, or stop in one line (status 1) when it cannot be made or written:
    doit's own state file there had failed with sqlite3's traceback ("unable to open database file"),
    and hclbuild's first write with an error naming its temporary file."""
    try:
        build_root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(
            f"hclbuild: error: {build_root}: cannot make the build folder: {exc.strerror or exc}",
            file=sys.stderr,
        )
        raise SystemExit(1) from None
    if not os.access(build_root, os.W_OK | os.X_OK):
        why = "a read-only file system" if os.statvfs(build_root).f_flag & os.ST_RDONLY else "no permission"
        print(f"hclbuild: error: {build_root}: the build folder cannot be written ({why})", file=sys.stderr)
        raise SystemExit(1)


def _remote_config() -> dict:

    if not dask_requested():
        return {}
    # only where a Dask scheduler or cluster is asked for: its client is no part of a local build
    from hclbuild.runtime import remote

    try:
        session = remote.current()
    except HCLError as exc:
        print(f"hclbuild: error: {str(exc).splitlines()[0]}", file=sys.stderr)
        raise SystemExit(1) from None
    if session is None:
        return {}
    # each Dask-bound task blocks its thread on a future; doit's state and order are unchanged
    return {"par_type": "thread", "num_process": session.slots()}


def prune_empty_folders(root: Path) -> None:
    """Remove the folders below root (deepest first) that an interrupted task left empty."""

    if not root.is_dir():
        return
    for folder, _, _ in sorted(os.walk(root), key=lambda entry: -len(entry[0])):
        with contextlib.suppress(OSError):
            os.rmdir(folder)  # only succeeds when empty
