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
_CHILD = "from hclbuild.runtime.isolate import child_main; import sys; child_main(sys.argv[1:])"


def child_main(preload: list[str]) -> None:
    """Child side: import `preload`, then read (fn, args) pickled from stdin and write ("ok", result)
    or an error to stdout. Empty stdin (the parent gave up before sending a job) ends it quietly."""
    import faulthandler
    import importlib

    faulthandler.disable()  # the parent reports a fatal signal in one line; no traceback dump
    for module in preload:
        importlib.import_module(module)
    job = sys.stdin.buffer.read()
    if not job:
        return
    fn, args = pickle.loads(job)
    try:
        payload = ("ok", fn(*args))
    except HCLError as exc:
        payload = ("hcl", type(exc), str(exc))
    except Exception as exc:  # noqa: BLE001 - anything must reach the parent as data
        payload = ("error", f"{type(exc).__name__}: {exc}")
    sys.stdout.flush()
    os.write(sys.stdout.fileno(), pickle.dumps(payload))


class IsolatedChild:
    """A child interpreter started before its job is ready, importing `preload` meanwhile.

    The reference task starts one, then lowers the design, then runs the JIT in it: the child's
    start-up (Python, numpy, llvmlite: about 0.35 s) overlaps the lowering. Use it as a context
    manager; leaving the block by an exception (Ctrl-C included) kills and reaps the child.
    """

    def __init__(self, what: str, preload: tuple[str, ...] = (), timeout: float | None = None):
        self.what = what
        self.timeout = timeout
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self._proc = subprocess.Popen([sys.executable, "-c", _CHILD, *preload], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)

    def __enter__(self) -> "IsolatedChild":
        return self

    def __exit__(self, kind: Any, value: Any, trace: Any) -> None:
        proc = self._proc
        if proc.returncode is None:
            if kind is not None:
                proc.kill()
            elif not proc.stdin.closed:
                proc.stdin.close()  # never given a job: the child reads empty stdin and exits
            proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            pipe.close()

    def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """fn(*args) in the child; its result or HCLError comes back, a fatal signal is a CsimError."""
        try:
            stdout, stderr = self._proc.communicate(pickle.dumps((fn, args)), timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.communicate()
            raise CsimError(f"{self.what} did not finish within {self.timeout} s") from None
        return _outcome(self.what, self._proc.returncode, stdout, stderr)


def run_isolated(fn: Callable[..., Any], *args: Any, what: str, timeout: float | None = None) -> Any:
    """fn(*args) in a child interpreter; its result or HCLError comes back, a fatal signal is a CsimError.

    fn and args must pickle (fn a module-level function). The child sees the parent's sys.path.
    """
    with IsolatedChild(what, timeout=timeout) as child:
        return child.run(fn, *args)


def _outcome(what: str, returncode: int, stdout: bytes, stderr: bytes) -> Any:
    if returncode < 0:
        sig = signal.Signals(-returncode)
        raise CsimError(f"{what} died with {sig.name} ({_HINTS.get(sig, 'a crash in native code')})")
    try:
        kind, *rest = pickle.loads(stdout)
    except Exception:  # noqa: BLE001 - a child that printed no result
        tail = stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise CsimError(f"{what} exited with status {returncode}: {tail[0]}") from None
    if kind == "ok":
        return rest[0]
    if kind == "hcl":
        raise rest[0](rest[1])
    raise CsimError(f"{what} failed: {rest[0]}")
