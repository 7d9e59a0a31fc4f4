"""Run native code (the JIT-compiled reference) in a child process, so a crash is an error, not an exit.

An integer division by zero in a kernel raises SIGFPE inside JIT code; an index past the end of a
buffer can raise SIGSEGV. In-process that kills the build (or doit's worker) with no message. In
a child, the parent sees the signal and raises a one-line CsimError naming what was running.

The child is a fork of the calling process, so it starts with what that process imported (numpy,
llvmlite, hclbuild): a fresh interpreter spent about 0.45 s importing them, on every reference
run. Forking is safe here because nothing the child needs can be held by another thread:
MLIR contexts are single-threaded (hclbuild.compiler.context), OpenBLAS re-creates its threads
across a fork, and the thread a doit worker keeps is multiprocessing's queue feeder, which waits
between tasks holding nothing. The child runs the job, writes its result to its own pipe and
leaves by os._exit: it never returns into the caller's code, nor runs its atexit handlers.

What the child prints (the kernel's hcl.print, which calls printf, and Python's own output) goes
to a file of its own, never into the result; the caller gets it on its sys.stdout after the
child ends (under doit, the task's captured output).
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import select
import signal
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from typing import Any, NoReturn

from hclbuild import tool_processes
from hclbuild.errors import CsimError, HCLError

_HINTS = {
    signal.SIGFPE: "an integer division by zero in the kernel?",
    signal.SIGSEGV: "an index outside a tensor in the kernel?",
    signal.SIGBUS: "an index outside a tensor in the kernel?",
    signal.SIGABRT: "abort(): os.abort() or a failed assertion in native code",
    # nothing in the child sends it: the kernel's OOM killer does, or a user's kill -9
    signal.SIGKILL: "killed from outside: out of memory? [reference] memory_gb caps what a run may take",
}


def run_isolated(fn: Callable[..., Any], *args: Any, what: str, timeout: float | None = None) -> Any:
    """fn(*args) in a forked child; its result or HCLError comes back, a fatal signal is a CsimError.

    The result must pickle. Past `timeout` seconds the child is killed and a CsimError raised.
    """
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # else the child inherits, and prints again, what is still buffered
    with tempfile.TemporaryFile() as printed:
        reader, writer = os.pipe()
        with warnings.catch_warnings():
            # Python 3.12+ warns on any fork of a process with threads; the module docstring says
            # why this one's threads hold nothing the child takes
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            _child(reader, writer, printed.fileno(), fn, args)
        # a group of its own, like every tool: a doit worker that SIGTERM ends stops it first
        tool_processes.adopt(pid)
        os.close(writer)
        payload = None
        try:
            payload = _read_result(reader, timeout)
        finally:
            os.close(reader)
            if payload is None:  # past the timeout, or the caller interrupted (Ctrl-C): no child outlives it
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
            returncode = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
            tool_processes.release(pid)
        printed.seek(0)
        output = printed.read().decode("utf-8", errors="replace")
    if output:
        sys.stdout.write(output)
    if payload is None:
        raise CsimError(f"{what} did not finish within {timeout:g} s and was stopped")
    return _outcome(what, returncode, payload, output)


def _read_result(reader: int, timeout: float | None) -> bytes | None:
    """Everything the child writes to its result pipe, up to its end; None past the timeout."""
    deadline = None if timeout is None else time.monotonic() + timeout
    chunks: list[bytes] = []
    while True:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([reader], [], [], left)[0]:
                return None
        chunk = os.read(reader, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _child(reader: int, writer: int, printed: int, fn: Callable[..., Any], args: tuple) -> NoReturn:
    """The forked side: run fn, write ("ok", result) or the error to `writer`, and exit."""
    status = 1
    try:
        os.setpgid(0, 0)  # as the parent does (tool_processes.adopt), whichever runs first
        import faulthandler

        faulthandler.disable()  # the parent reports a fatal signal in one line; no traceback dump
        os.close(reader)
        os.dup2(printed, 1)
        os.dup2(printed, 2)
        # the caller's sys.stdout may be doit's capture, which this process would print into unseen
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), write_through=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), write_through=True)
        try:
            payload: tuple = ("ok", fn(*args))
        except HCLError as exc:
            payload = ("hcl", type(exc), str(exc))
        except Exception as exc:
            payload = ("error", f"{type(exc).__name__}: {exc}")
        try:
            data = memoryview(pickle.dumps(payload))
        except Exception as exc:
            data = memoryview(
                pickle.dumps(("error", f"its result does not pickle: {type(exc).__name__}: {exc}"))
            )
        while data:
            data = data[os.write(writer, data) :]
        status = 0
    finally:
        os._exit(status)


def _outcome(what: str, returncode: int, payload: bytes, output: str) -> Any:
    if returncode < 0:
        sig = signal.Signals(-returncode)
        raise CsimError(f"{what} died with {sig.name} ({_HINTS.get(sig, 'a crash in native code')})")
    try:
        kind, *rest = pickle.loads(payload)
    except Exception:
        # no result at all: the child ended itself (os._exit, in any of its threads) before it returned
        tail = output.strip().splitlines()[-1:]
        said = f": {tail[0]}" if tail else ""
        raise CsimError(
            f"{what} exited with status {returncode} before it returned (os._exit() in kernel.py?){said}"
        ) from None
    if kind == "ok":
        return rest[0]
    if kind == "hcl":
        raise rest[0](rest[1])
    raise CsimError(f"{what} failed: {rest[0]}")


__all__ = ["run_isolated"]
