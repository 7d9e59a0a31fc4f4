"""Replay the stream probes of a reference run as FIFOs (see compiler/passes/stream_check.py).

A stream is a memref in the IR; HLS reads it as hls::stream. The two agree exactly when every
read takes the oldest value written and not yet read, so the reference run records each write's
element index per buffer and checks each read against it. The write order is also the sequence
the stream carries: what a testbench pushes into or pops out of an hls::stream argument.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from hclbuild.probes import PHASE_STREAM_WRITE


def _element(flat: int, shape: tuple[int, ...]) -> str:
    return ", ".join(str(int(i)) for i in np.unravel_index(flat, shape)) if shape else str(flat)


class FifoReplay:
    """The FIFO of every stream buffer of one run, fed by the probe callback."""

    def __init__(self, checks: list[dict[str, Any]]):
        self.checks = checks
        self.pending: dict[int, deque[tuple[int, int]]] = {}  # address -> (element, write check)
        self.orders: dict[int, list[int]] = {}  # address -> elements in write order
        self.writers: dict[int, int] = {}  # address -> the check of its first write
        self.first_error: str | None = None
        self.last_read: dict[int, int] = {}  # address -> the element read last

    def event(self, check: int, phase: int, element: int, address: int) -> None:
        """One probe: a write appends, a read must take the oldest pending element."""
        info = self.checks[check]
        fifo = self.pending.setdefault(address, deque())
        if phase == PHASE_STREAM_WRITE:
            fifo.append((element, check))
            self.orders.setdefault(address, []).append(element)
            self.writers.setdefault(address, check)
            return
        if self.first_error is not None:
            return
        shape = tuple(info["shape"])
        where = f"stage {info['stage']} reads stream {info['tensor']}[{_element(element, shape)}]"
        if self.last_read.get(address) == element:
            # the compiler merges the reads of one element in one block; this one is elsewhere (in an if)
            self.first_error = (
                f"{where} a second time: a stream gives each value once (read it into an "
                "hcl.scalar and use that)"
            )
        elif not fifo:
            written = len(self.orders.get(address, []))
            self.first_error = (
                f"{where} but the FIFO is empty: its producer wrote {written} values and all "
                "were read (a stream is read once per value written)"
            )
        elif fifo[0][0] != element:
            expected, writer = fifo[0]
            self.first_error = (
                f"{where} out of order: the next value in the FIFO is "
                f"{info['tensor']}[{_element(expected, shape)}], as stage "
                f"{self.checks[writer]['stage']} wrote them (read in the order written)"
            )
        else:
            fifo.popleft()
            self.last_read[address] = element

    def events(self, events: np.ndarray) -> None:
        """Every probe of one call at once, as (check, phase, element, address) rows in order (the
        engine's native record, runtime.stream_events). A run that keeps FIFO order everywhere is
        checked with numpy; any other, or one after earlier events, is replayed event by event, so
        its error is the one `event` gives."""
        if self.first_error is not None or not len(events):
            return
        if self.pending or not self._in_order(events):
            for check, phase, element, address in events.tolist():
                self.event(check, phase, element, address)

    def _in_order(self, events: np.ndarray) -> bool:
        """Record a whole call's events when each buffer's k-th read takes its k-th write, after
        it, and no read repeats the one before it; False (nothing recorded) otherwise."""
        checks, phases, elements, addresses = events.T
        by_buffer = np.argsort(addresses, kind="stable")  # each buffer's events, in time order
        grouped = addresses[by_buffer]
        starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
        found: list[tuple[int, np.ndarray, int, np.ndarray]] = []
        for begin, end in zip(starts, np.r_[starts[1:], len(by_buffer)]):
            rows = by_buffer[begin:end]
            writing = phases[rows] == PHASE_STREAM_WRITE
            written, read = elements[rows][writing], elements[rows][~writing]
            if len(read) > len(written) or not np.array_equal(read, written[: len(read)]):
                return False
            if np.any(np.flatnonzero(writing)[: len(read)] > np.flatnonzero(~writing)):
                return False  # a read before the write it takes: the FIFO was empty then
            if len(read) > 1 and np.any(read[1:] == read[:-1]):
                return False  # an element read twice in a row
            write_checks = checks[rows][writing]
            found.append(
                (
                    int(addresses[rows[0]]),
                    written,
                    int(write_checks[0]) if len(written) else -1,
                    write_checks[len(read) :],
                )
            )
        for address, written, first_check, unread_checks in found:
            if len(written):
                self.orders[address] = written.tolist()
                self.writers[address] = first_check
            unread = written[len(written) - len(unread_checks) :]
            self.pending[address] = deque(zip(unread.tolist(), unread_checks.tolist()))
        return True

    def finish(self) -> str | None:
        """The first error of the run, including values written and never read."""
        if self.first_error is not None:
            return self.first_error
        for address, order in self.orders.items():
            fifo = self.pending[address]
            info = self.checks[self.writers[address]]
            if fifo:
                return (
                    f"stage {info['stage']} writes {len(order)} values into stream {info['tensor']} but "
                    f"only {len(order) - len(fifo)} are read; every value written into a stream must be read"
                )
            count = int(np.prod(info["shape"]))
            if len(order) != count or len(set(order)) != count:
                return (
                    f"stage {info['stage']} writes {len(order)} values into stream {info['tensor']} of "
                    f"{count} elements; a stream carries each element once"
                )
        return None

    def sequence(self, address: int, values: np.ndarray) -> np.ndarray:
        """`values` (the stream's memory, in its shape) in the order they went through the FIFO."""
        order = self.orders.get(address)
        flat = values.reshape(-1)
        if order is None or len(order) != flat.size:
            return values  # nothing went through (finish() reports a stream that is not whole)
        return flat[np.asarray(order)].reshape(values.shape)


__all__ = ["FifoReplay"]
