"""FifoReplay.events (a whole call's stream probes at once, checked with numpy) says exactly what
replaying them one by one says: the same error, the same write orders, the same finish()."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hclbuild.probes import PHASE_STREAM_READ, PHASE_STREAM_WRITE
from hclbuild.runtime.fifo import FifoReplay

CHECKS = [
    {"check": 0, "function": "top", "stage": "P", "tensor": "S", "shape": [6], "kind": "write"},
    {"check": 1, "function": "top", "stage": "C", "tensor": "S", "shape": [6], "kind": "read"},
    {"check": 2, "function": "top", "stage": "Q", "tensor": "T", "shape": [6], "kind": "write"},
    {"check": 3, "function": "top", "stage": "D", "tensor": "T", "shape": [6], "kind": "read"},
]
BUFFERS = {1000: (0, 1), 2000: (2, 3)}  # address -> (write check, read check)


def stream_run(rng: random.Random, faults: int) -> np.ndarray:
    """Two streams of 6 elements, written in order and read as they come, interleaved; then
    `faults` random changes (a read moved, dropped, repeated or of another element)."""
    events, pending = [], {address: [] for address in BUFFERS}
    writes = {address: list(range(6)) for address in BUFFERS}
    while any(writes.values()) or any(pending.values()):
        address = rng.choice(list(BUFFERS))
        write_check, read_check = BUFFERS[address]
        if writes[address] and (not pending[address] or rng.random() < 0.5):
            element = writes[address].pop(0)
            pending[address].append(element)
            events.append((write_check, PHASE_STREAM_WRITE, element, address))
        elif pending[address]:
            events.append((read_check, PHASE_STREAM_READ, pending[address].pop(0), address))
    for _ in range(faults):
        k = rng.randrange(len(events))
        check, phase, element, address = events[k]
        kind = rng.choice(("move", "drop", "repeat", "other"))
        if kind == "move":
            events.insert(rng.randrange(len(events)), events.pop(k))
        elif kind == "drop":
            events.pop(k)
        elif kind == "repeat":
            events.insert(k, events[k])
        else:
            events[k] = (check, phase, (element + 1) % 6, address)
    return np.array(events, dtype=np.int64).reshape(-1, 4)


def one_by_one(events: np.ndarray) -> FifoReplay:
    fifos = FifoReplay(CHECKS)
    for row in events.tolist():
        fifos.event(*row)
    return fifos


@pytest.mark.parametrize("seed", range(300))
def test_events_at_once_agree_with_one_by_one(seed: int) -> None:
    rng = random.Random(seed)
    events = stream_run(rng, faults=0 if seed % 3 == 0 else rng.randint(1, 3))
    expected, fifos = one_by_one(events), FifoReplay(CHECKS)
    fifos.events(events)
    assert fifos.finish() == expected.finish()
    assert fifos.first_error == expected.first_error
    assert fifos.orders == expected.orders
    assert {a: list(q) for a, q in fifos.pending.items()} == {a: list(q) for a, q in expected.pending.items()}
    values = np.arange(60, 66)
    for address in BUFFERS:
        assert fifos.sequence(address, values).tolist() == expected.sequence(address, values).tolist()


def test_a_run_in_order_is_taken_whole_and_a_later_call_event_by_event() -> None:
    events = stream_run(random.Random(1), faults=0)
    fifos = FifoReplay(CHECKS)
    fifos.events(events)
    assert fifos.finish() is None and fifos.orders == {1000: list(range(6)), 2000: list(range(6))}
    fifos.events(
        events[:1]
    )  # a second call writes S[0] again: that stream no longer carries each element once
    assert (
        fifos.finish() == "stage P writes 7 values into stream S but only 6 are read; every value written "
        "into a stream must be read"
    )
