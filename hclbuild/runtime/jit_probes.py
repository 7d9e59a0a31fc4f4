"""How a JIT call reports its probes to Python (runtime.llvm makes every call through here).

IR built for golden-vector capture calls `hcl_probe(i64 site, i64 phase, i64 argidx, i64 ptr)`.
Each engine defines it (runtime.stream_events): stream reads and writes go to the engine's native
record, handed to the handler when the call returns; every other phase goes at once to one ctypes
trampoline, bound for the whole process, which forwards to the handler of the call running in the
current thread. A probe's exception never unwinds through JIT frames: it is kept and returned.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable

import llvmlite.binding as llvm
import numpy as np

from hclbuild.runtime.stream_events import FORWARD_FUNCTION, EventRecord

ProbeHandler = Callable[[int, int, int, int], None]


class _ProbeState(threading.local):
    """The handler of the JIT call running in this thread, and the first error it raised."""

    handler: ProbeHandler | None = None
    error: BaseException | None = None


_PROBE_STATE = _ProbeState()
_PROBE_CFUNC_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)


def _probe_trampoline(site: int, phase: int, argidx: int, ptr: int) -> None:
    state = _PROBE_STATE
    if state.handler is None or state.error is not None:
        return
    try:
        state.handler(site, phase, argidx, ptr)
    except BaseException as err:
        # an exception must not unwind through JIT frames; keep it for the caller
        state.error = err


# kept alive for the process: JIT code holds its address
_PROBE_CALLBACK = _PROBE_CFUNC_TYPE(_probe_trampoline)
_PROBE_BOUND = False


def bind_forward_symbol() -> None:
    """Bind hcl_probe_py, where each engine's hcl_probe forwards the phases it does not record."""
    global _PROBE_BOUND
    if not _PROBE_BOUND:
        llvm.add_symbol(FORWARD_FUNCTION, ctypes.cast(_PROBE_CALLBACK, ctypes.c_void_p).value)
        _PROBE_BOUND = True


def _deliver_stream_events(handler: ProbeHandler, events: np.ndarray) -> None:
    """A call's stream probes, in order: all at once to a handler that takes them
    (`handler.stream_events(events)`, as the reference run's FIFO replay does), else one by one."""
    take_all = getattr(handler, "stream_events", None)
    if take_all is not None:
        take_all(events)
        return
    for check, phase, element, address in events.tolist():
        handler(check, phase, element, address)


def call_with_probes(
    native: Callable[[], None], handler: ProbeHandler | None, record: EventRecord | None
) -> BaseException | None:
    """Run native() with its probes going to `handler` (None: dropped); `record` is the engine's
    stream record, None when its IR has no probe. Returns the first error a probe raised, for the
    caller to raise once the call's buffers are written back, or None."""
    state = _PROBE_STATE
    saved = (state.handler, state.error)
    state.handler, state.error = handler, None
    try:
        events = None
        if record is None:
            native()
        else:
            with record.lock:
                native()
                events = record.take()
        probe_error = state.error
        if probe_error is None and events is not None and len(events) and handler is not None:
            try:
                _deliver_stream_events(handler, events)
            except BaseException as err:
                probe_error = err
    finally:
        state.handler, state.error = saved
    return probe_error


__all__ = ["ProbeHandler", "bind_forward_symbol", "call_with_probes"]
