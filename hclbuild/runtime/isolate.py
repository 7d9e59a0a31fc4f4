"""Run native code (the JIT-compiled reference) in a child process, so a crash is an error, not an exit.

An integer division by zero in a kernel raises SIGFPE inside JIT code; an index past the end of a
buffer can raise SIGSEGV. In-process that kills the build (or doit's worker) with no message. In
a child, the parent sees the signal and raises a one-line CsimError naming what was running.

The child is a fresh interpreter, not a fork: a doit process that already compiled MLIR holds
MLIR's worker threads, and a forked child can deadlock on a lock one of them held.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
from typing import Any, Callable

from hclbuild.errors import CsimError, HCLError

_HINTS = {
    signal.SIGFPE: "an integer division by zero in the kernel?",
    signal.SIGSEGV: "an index outside a tensor in the kernel?",
    signal.SIGBUS: "an index outside a tensor in the kernel?",
}
_CHILD = "from hclbuild.runtime.isolate import child_main; child_main()"


def child_main() -> None:
    """Child side: read (fn, args) pickled from stdin, write ("ok", result) or an error to stdout."""
    import faulthandler

    faulthandler.disable()  # the parent reports a fatal signal in one line; no traceback dump
    fn, args = pickle.loads(sys.stdin.buffer.read())
    try:
        payload = ("ok", fn(*args))
    except HCLError as exc:
        payload = ("hcl", type(exc), str(exc))
    except Exception as exc:  # noqa: BLE001 - anything must reach the parent as data
        payload = ("error", f"{type(exc).__name__}: {exc}")
    sys.stdout.flush()
    os.write(sys.stdout.fileno(), pickle.dumps(payload))


def run_isolated(fn: Callable[..., Any], *args: Any, what: str, timeout: float | None = None) -> Any:
    """fn(*args) in a child interpreter; its result or HCLError comes back, a fatal signal is a CsimError.

    fn and args must pickle (fn a module-level function). The child sees the parent's sys.path.
    """
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD], input=pickle.dumps((fn, args)),
                              capture_output=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CsimError(f"{what} did not finish within {timeout} s") from None
    if proc.returncode < 0:
        sig = signal.Signals(-proc.returncode)
        raise CsimError(f"{what} died with {sig.name} ({_HINTS.get(sig, 'a crash in native code')})")
    try:
        kind, *rest = pickle.loads(proc.stdout)
    except Exception:  # noqa: BLE001 - a child that printed no result
        tail = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise CsimError(f"{what} exited with status {proc.returncode}: {tail[0]}") from None
    if kind == "ok":
        return rest[0]
    if kind == "hcl":
        raise rest[0](rest[1])
    raise CsimError(f"{what} failed: {rest[0]}")
