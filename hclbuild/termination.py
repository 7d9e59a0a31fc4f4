"""SIGTERM ends a build the way Ctrl-C does: the tasks' own clean-up runs, and no worker is left.

Ctrl-C reaches every process of the terminal's process group, doit's workers included. SIGTERM
(`kill <pid>`, a CI job being cancelled, a batch scheduler's time limit) reaches only the process
it is sent to: the hclbuild process died at once and left its `-n N` doit workers running their
tasks, then idle forever, as orphans. With this handler the process that gets SIGTERM passes an
interrupt to its own child processes (doit's workers, which then stop their g++ or reference
child) and raises KeyboardInterrupt itself, so it ends through the interrupt path: one line,
an exit status, the next run redoing only the unfinished tasks.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from types import FrameType

from hclbuild import tool_processes

TERMINATED: list[int] = []  # the signal that ended this process's build, for its last line
# the process that installed the handler. doit's -n workers fork with it, and doit ends them with
# SIGTERM after a Ctrl-C: raising KeyboardInterrupt there, wherever the worker was (its exit
# handlers, say), printed a traceback beside the build's one line, so a worker dies as before
_INSTALLED_IN: list[int] = []


def install() -> None:
    """Handle SIGTERM as above (a no-op where signals cannot be set: not the main thread)."""
    try:
        signal.signal(signal.SIGTERM, _on_term)
    except ValueError:
        return
    _INSTALLED_IN[:] = [os.getpid()]


def _on_term(signum: int, frame: FrameType | None) -> None:
    if _INSTALLED_IN != [os.getpid()]:  # a forked worker: SIGTERM's default action, death
        # after its tools (a g++, a testbench, the reference child), which ran on as orphans
        tool_processes.kill_all()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    TERMINATED.append(signum)
    if "multiprocessing" in sys.modules:
        import multiprocessing

        for child in multiprocessing.active_children():
            with contextlib.suppress(ProcessLookupError, TypeError):
                os.kill(child.pid, signal.SIGINT)
    raise KeyboardInterrupt
