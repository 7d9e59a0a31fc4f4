"""Stream probes recorded in native code, handed to Python once the JIT call returns.

The reference run calls `hcl_probe(check, phase, element, address)` before every read and write
of a stream (compiler/passes/stream_check.py): one a pixel a stage, millions on a video frame. Each
call into Python costs about 0.35 us, so a 720p pipeline spent over a second there. A module whose
IR calls hcl_probe gets this unit as well: it defines hcl_probe, appends the stream phases to a
buffer (grown with realloc) and forwards every other phase to `hcl_probe_py`, the Python
trampoline, at once. `EventRecord.take` returns the buffer as an (n, 4) int64 array and empties it.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

import numpy as np

from hclbuild.code_units import CodeUnit
from hclbuild.errors import CsimError
from hclbuild.probes import PHASE_STREAM_WRITE, PROBE_FUNCTION

FORWARD_FUNCTION = "hcl_probe_py"  # the Python trampoline, for every phase that is not a stream's
MAX_EVENTS = 1 << 26  # 2 GiB of buffer: a run past it stops recording and fails, never exhausts memory
_FIELDS = 4


def recorder_ir(max_events: int = MAX_EVENTS) -> str:
    """The recorder unit's LLVM IR: it holds up to `max_events` stream events, then sets the overflow flag."""
    slots = max_events * _FIELDS  # the buffer's capacity counts i64 fields, four an event
    return f"""
@hcl_events = internal global ptr null
@hcl_events_used = global i64 0
@hcl_events_capacity = internal global i64 0
@hcl_events_overflow = global i64 0
@hcl_events_limit = global i64 {max_events}

declare ptr @realloc(ptr, i64)
declare void @{FORWARD_FUNCTION}(i64, i64, i64, i64)

define void @{PROBE_FUNCTION}(i64 %check, i64 %phase, i64 %a, i64 %b) {{
entry:
  %stream = icmp sge i64 %phase, {PHASE_STREAM_WRITE}
  br i1 %stream, label %record, label %forward
forward:
  call void @{FORWARD_FUNCTION}(i64 %check, i64 %phase, i64 %a, i64 %b)
  ret void
record:
  %used = load i64, ptr @hcl_events_used
  %capacity = load i64, ptr @hcl_events_capacity
  %needed = add i64 %used, {_FIELDS}
  %full = icmp ugt i64 %needed, %capacity
  br i1 %full, label %grow, label %store
grow:
  %at_limit = icmp uge i64 %capacity, {slots}
  br i1 %at_limit, label %overflow, label %size
size:
  %doubled = shl i64 %capacity, 1
  %small = icmp ult i64 %doubled, 65536
  %wanted = select i1 %small, i64 65536, i64 %doubled
  %past = icmp ugt i64 %wanted, {slots}
  %grown = select i1 %past, i64 {slots}, i64 %wanted
  br label %realloc
realloc:
  %old = load ptr, ptr @hcl_events
  %bytes = mul i64 %grown, 8
  %new = call ptr @realloc(ptr %old, i64 %bytes)
  %failed = icmp eq ptr %new, null
  br i1 %failed, label %overflow, label %keep
keep:
  store ptr %new, ptr @hcl_events
  store i64 %grown, ptr @hcl_events_capacity
  br label %store
overflow:
  store i64 1, ptr @hcl_events_overflow
  ret void
store:
  %buffer = load ptr, ptr @hcl_events
  %slot0 = getelementptr i64, ptr %buffer, i64 %used
  store i64 %check, ptr %slot0
  %slot1 = getelementptr i64, ptr %slot0, i64 1
  store i64 %phase, ptr %slot1
  %slot2 = getelementptr i64, ptr %slot0, i64 2
  store i64 %a, ptr %slot2
  %slot3 = getelementptr i64, ptr %slot0, i64 3
  store i64 %b, ptr %slot3
  store i64 %needed, ptr @hcl_events_used
  ret void
}}

define ptr @hcl_events_buffer() {{
  %buffer = load ptr, ptr @hcl_events
  ret ptr %buffer
}}
"""


RECORDER_IR = recorder_ir()


def recorder_unit(text: str = RECORDER_IR) -> CodeUnit:
    """The recorder as a code unit: it defines hcl_probe and the buffer's accessor."""
    return CodeUnit(
        "<stream events>",
        text,
        light=True,
        defines=(PROBE_FUNCTION, "hcl_events_buffer"),
        externals=("realloc", FORWARD_FUNCTION),
    )


class EventRecord:
    """One engine's record of stream probes (its addresses resolved once, when it is compiled).
    The record is one per engine: calls that record into it take turns on `lock`."""

    def __init__(self, engine: Any):
        self._used = ctypes.c_int64.from_address(engine.get_global_value_address("hcl_events_used"))
        self._overflow = ctypes.c_int64.from_address(engine.get_global_value_address("hcl_events_overflow"))
        self._limit = ctypes.c_int64.from_address(engine.get_global_value_address("hcl_events_limit")).value
        self._buffer = ctypes.CFUNCTYPE(ctypes.c_void_p)(engine.get_function_address("hcl_events_buffer"))
        self.lock = threading.Lock()

    def take(self) -> np.ndarray:
        """The events recorded since the last take, as (check, phase, element, address) rows in the
        order they happened; the record is emptied (its memory kept for the next call)."""
        if self._overflow.value:
            self._used.value, self._overflow.value = 0, 0
            raise CsimError(
                f"the reference run made more than {self._limit} stream reads and writes (or memory "
                "ran out recording them): a stream is read once per value written"
            )
        count = self._used.value
        if count == 0:
            return np.zeros((0, _FIELDS), np.int64)
        events = np.ctypeslib.as_array((ctypes.c_int64 * count).from_address(self._buffer())).reshape(
            -1, _FIELDS
        )
        events = events.copy()
        self._used.value = 0
        return events


__all__ = ["FORWARD_FUNCTION", "MAX_EVENTS", "RECORDER_IR", "EventRecord", "recorder_ir", "recorder_unit"]
