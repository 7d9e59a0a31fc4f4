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
import threading
import time
from types import FrameType

from hclbuild import tool_processes

TERMINATED: list[int] = []  # the signal that ended this process's build, for its last line
# the process that installed the handler. doit's -n workers fork with it, and doit ends them with
# SIGTERM after a Ctrl-C: raising KeyboardInterrupt there, wherever the worker was (its exit
# handlers, say), printed a traceback beside the build's one line, so a worker dies as before
_INSTALLED_IN: list[int] = []
_RELAY_IN: list[int] = []  # the process whose signal relay thread runs (relay_signals)
_FORK_HOOKED: list[bool] = []
# how often this process's main thread ran the handler of each signal (the relay compares)
_HANDLED: dict[int, int] = {signal.SIGINT: 0, signal.SIGTERM: 0}
_RELAY_GRACE = 0.2  # seconds the main thread has to run a handler before the relay wakes it


def install() -> None:
    """Handle SIGTERM as above, count SIGINTs, and relay both to the main thread (a no-op where
    signals cannot be set: not the main thread)."""
    try:
        signal.signal(signal.SIGTERM, _on_term)
    except ValueError:
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not where SIGINT is ignored
        signal.signal(signal.SIGINT, _on_int)
    _INSTALLED_IN[:] = [os.getpid()]
    if not _FORK_HOOKED:
        os.register_at_fork(after_in_child=_after_fork)
        _FORK_HOOKED.append(True)
    relay_signals()


def relay_signals() -> None:
    """Start, once per process and from its main thread, the thread that hands SIGINT and SIGTERM on
    to the main thread when another thread took them.

    The kernel gives a signal sent to a process to any of its threads (a queue feeder, a BLAS or
    Dask thread). Python then runs the handler in the main thread at its next bytecode, but a main
    thread asleep in a system call (waiting for a testbench's output, or for doit's next job) is not
    woken: a doit worker that doit ended with SIGTERM ran on, its testbench too, until the
    testbench's own end, and an idle one never ended at all. Every signal with a Python handler is
    also written to the wakeup fd; the relay reads it, and when the main thread has not run the
    handler soon after, sends the signal to the main thread itself (pthread_kill), which wakes it."""
    if _RELAY_IN == [os.getpid()]:
        return
    read, write = os.pipe()
    os.set_blocking(write, False)
    try:
        signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    except ValueError:  # not the main thread
        os.close(read)
        os.close(write)
        return
    _RELAY_IN[:] = [os.getpid()]
    threading.Thread(target=_relay, args=(read,), name="hclbuild-signal-relay", daemon=True).start()


def _relay(read: int) -> None:
    main = threading.main_thread().ident
    seen = dict.fromkeys(_HANDLED, 0)
    echoes = dict.fromkeys(_HANDLED, 0)  # the relay's own sends, which the wakeup fd reports again
    while True:
        try:
            data = os.read(read, 64)
        except OSError:
            return
        if not data:
            return
        for signum in data:
            if signum not in seen or main is None:
                continue
            if echoes[signum]:
                echoes[signum] -= 1
                continue
            seen[signum] += 1
            deadline = time.monotonic() + _RELAY_GRACE
            while _HANDLED[signum] < seen[signum] and time.monotonic() < deadline:
                time.sleep(0.01)
            if _HANDLED[signum] < seen[signum]:
                echoes[signum] += 1
                with contextlib.suppress(ProcessLookupError, OSError):
                    signal.pthread_kill(main, signum)


def _after_fork() -> None:
    """In a forked child (a doit worker, the reference run): the parent's relay reads the inherited
    wakeup pipe, so this process must not write to it (the parent would take the child's signals for
    its own); it gets a relay of its own."""
    _RELAY_IN.clear()
    with contextlib.suppress(ValueError):
        signal.set_wakeup_fd(-1)
    for signum in _HANDLED:
        _HANDLED[signum] = 0
    # a doit worker waiting for its next job, forever once doit is gone, must still hear SIGTERM
    relay_signals()


def _on_int(signum: int, frame: FrameType | None) -> None:
    _HANDLED[signum] += 1
    raise KeyboardInterrupt


def _on_term(signum: int, frame: FrameType | None) -> None:
    _HANDLED[signum] += 1
    if _INSTALLED_IN != [os.getpid()]:  # a forked worker: SIGTERM's default action, death
        # after its tools (a g++, a testbench, the reference child), which ran on as orphans
        tool_processes.kill_all()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    if TERMINATED:  # a second SIGTERM while the build ends: one interrupt is enough
        return
    TERMINATED.append(signum)
    if "multiprocessing" in sys.modules:
        import multiprocessing

        for child in multiprocessing.active_children():
            if child.pid is None:  # not started: nothing to interrupt
                continue
            with contextlib.suppress(ProcessLookupError):
                os.kill(child.pid, signal.SIGINT)
    raise KeyboardInterrupt
