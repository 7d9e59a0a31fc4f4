"""Pipelined loops whose II a loop-carried recurrence forbids, found when the design compiles.

A value an iteration stores and a later iteration loads back closes a cycle: the next load cannot
start before the store, so iterations d apart cannot start closer than the cycle's latency / d
cycles. Vitis settles at that II with a violation in its log; this says so at compile time:

    top: loop l_time_x asks II=1; the recurrence through A (fadd 4 + fdiv 12 + store/load 3 = 19 cycles) gives II=19

For every array (argument or local buffer) a pipelined loop both loads and stores, each load is
matched with each store: the distance d is the number of iterations of the pipelined loop
between the store's write and the load's read of one element, from their affine subscripts (the
loops the pipeline unrolls expanded into lanes, loops around it the same for both). Only
recurrences that certainly exist are named (no false alarm on what may be independent):

- a dimension where either subscript is not affine, or the two move with other loops or at
  other rates, makes the pair unknown, and it is skipped;
- a load that an earlier store of the same iteration covers (an accumulator set to its initial
  value at the top of every iteration) reads this iteration's value, not the last one's;
- the chain is followed from the load's value through arithmetic to the stored value only
  (not through other loads); its latency is the operators' (compiler/operator_latency.py) plus a
  store/load round trip where the array is a RAM. A one-element array, or one partitioned
  completely, is registers: no round trip, so an integer accumulator there meets II=1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler.array_access import Access, Form, Loop, access_loop, memref_accesses, substitute
from hclbuild.compiler.attrs import ArrayPartition
from hclbuild.compiler.operator_latency import MEMORY_ROUND_TRIP, operator_latency
from hclbuild.compiler.passes.constant_values import defined_functions
from hclbuild.compiler.passes.stream import stream_depth

_LOADS = frozenset({"memref.load", "affine.load"})


@dataclass(frozen=True)
class RecurrenceLimit:
    """A pipelined loop whose carried chain through one array is longer than its II allows."""

    function: str
    loop: str  # the loop's C label
    requested: int
    achievable: int
    through: str  # the array (or scalar) the chain goes through
    steps: tuple[tuple[str, int], ...]  # (operation, cycles) along the chain, in order
    distance: int  # iterations between the store and the load that reads it

    @property
    def cycles(self) -> int:
        return sum(cycles for _, cycles in self.steps)

    @property
    def message(self) -> str:
        chain = " + ".join(f"{name} {cycles}" for name, cycles in self.steps)
        over = "" if self.distance == 1 else f" over {self.distance} iterations"
        return (
            f"{self.function}: loop {self.loop} asks II={self.requested}; the recurrence through "
            f"{self.through} ({chain} = {self.cycles} cycles{over}) gives II={self.achievable}"
        )


def recurrence_limited_loops(module: ir.Module) -> list[RecurrenceLimit]:
    """Every pipelined loop of every function whose II a recurrence forbids: the longest one a loop."""
    found: list[RecurrenceLimit] = []
    with module.context:
        functions = {name: fn.operation for fn, name in defined_functions(module)}
        for name, func in functions.items():
            worst: dict[int, RecurrenceLimit] = {}
            for memref, label, register in _memrefs(func):
                accesses = memref_accesses(functions, func, memref, follow_calls=False)
                if accesses.opaque:
                    continue
                for uid, limit in _limits(name, label, register, accesses.accesses):
                    if uid not in worst or limit.achievable > worst[uid].achievable:
                        worst[uid] = limit
            found.extend(worst.values())
    return found


def _memrefs(func: ir.Operation) -> list[tuple[ir.Value, str, bool]]:
    """(memref, its name, whether it is registers) of the function's array arguments and buffers."""
    found = []
    names = attrs.arg_names(func) or []
    partitions = attrs.arg_partitions(func) or []
    for index, value in enumerate(func.regions[0].blocks[0].arguments):
        if not isinstance(value.type, ir.MemRefType) or stream_depth(value) is not None:
            continue
        given = partitions[index] if index < len(partitions) else []
        label = names[index] if index < len(names) else f"arg{index}"
        found.append((value, label, _registers(value, given)))
    for op in _walk(func):
        if op.name == "memref.alloc" and stream_depth(op.results[0]) is None:
            value = op.results[0]
            label = attrs.buffer_name(op) or "a buffer"
            found.append((value, label, _registers(value, attrs.buffer_partitions(op))))
    return found


def _walk(op: ir.Operation) -> list[ir.Operation]:
    found = []
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                found.append(child.operation)
                found.extend(_walk(child.operation))
    return found


def _registers(value: ir.Value, partitions: list[ArrayPartition]) -> bool:
    shape = ir.MemRefType(value.type).shape
    complete = {p.dim for p in partitions if p.kind == "complete"}
    return math.prod(shape) <= 1 or 0 in complete or complete >= set(range(1, len(shape) + 1))


def _limits(
    function: str, label: str, register: bool, accesses: list[Access]
) -> list[tuple[int, RecurrenceLimit]]:
    by_loop: dict[int, list[tuple[int, Access, tuple[Loop, ...]]]] = {}
    pipelined: dict[int, Loop] = {}
    for position, access in enumerate(accesses):
        loop, unrolled = access_loop(access)
        if loop is None or loop.ii is None:
            continue
        pipelined[loop.uid] = loop
        by_loop.setdefault(loop.uid, []).append((position, access, unrolled))
    limits = []
    for uid, inside in by_loop.items():
        loop = pipelined[uid]
        best: RecurrenceLimit | None = None
        for read_at, read, read_unrolled in inside:
            if read.kind != "read" or read.op is None:
                continue
            read_lanes = _lanes(read, read_unrolled)
            if read_lanes is None or _covered(read_at, read, read_lanes, inside):
                continue
            for _, write, write_unrolled in inside:
                if write.kind != "write" or write.op is None:
                    continue
                write_lanes = _lanes(write, write_unrolled)
                distance = None if write_lanes is None else _distance(write_lanes, read_lanes, loop)
                if distance is None:
                    continue
                chain = _chain(read.op.results[0], write.op.operands[0], {})
                if chain is None:
                    continue
                steps = tuple(chain) + (() if register else (("store/load", MEMORY_ROUND_TRIP),))
                cycles = sum(c for _, c in steps)
                achievable = max(1, -(-cycles // distance))
                requested = loop.ii or 1
                if achievable > requested and (best is None or achievable > best.achievable):
                    best = RecurrenceLimit(
                        function, loop.label, requested, achievable, label, steps, distance
                    )
        if best is not None:
            limits.append((uid, best))
    return limits


Lane = tuple[Form | None, ...]


def _lanes(access: Access, unrolled: tuple[Loop, ...]) -> list[Lane] | None:
    """The access's subscripts in every lane of the unrolled loops they move with (a dimension that
    is not affine stays None); None when such a loop has no constant bounds."""
    used: set[int] = set()
    for form in access.subscript:
        if form is not None:
            used |= form.loops()
    moving = [loop for loop in unrolled if loop.uid in used]
    if any(loop.trips is None or loop.lower is None or loop.step is None for loop in moving):
        return None
    lanes: list[Lane] = [access.subscript]
    for loop in moving:
        lanes = [
            tuple(
                None if form is None else substitute(form, loop.uid, (loop.lower or 0) + (loop.step or 1) * k)
                for form in lane
            )
            for lane in lanes
            for k in range(loop.trips or 0)
        ]
    return lanes


def _covered(
    read_at: int, read: Access, read_lanes: list[Lane], inside: list[tuple[int, Access, Any]]
) -> bool:
    """Whether a store before the read, in the same iteration and whenever the read runs (in the
    read's block or one around it), writes every element the read's lanes read: then the read sees
    this iteration's value (conv_relu's sum_acc, set to 0 under the same `if` as its reads)."""
    wanted = set(read_lanes)
    if any(form is None for lane in wanted for form in lane):
        return False
    around = _enclosing(read.op)
    for position, access, unrolled in inside:
        if position >= read_at or access.kind != "write" or access.op is None:
            continue
        if not any(access.op.parent == op for op in around):
            continue
        lanes = _lanes(access, unrolled)
        if lanes is not None and wanted <= set(lanes):
            return True
    return False


def _enclosing(op: ir.Operation) -> list[ir.Operation]:
    """The operations around `op`, innermost first, up to its function."""
    found = []
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        found.append(parent)
        parent = parent.parent
    if parent is not None:
        found.append(parent)
    return found


def _distance(write_lanes: list[Lane], read_lanes: list[Lane], loop: Loop) -> int | None:
    """The smallest number of iterations d >= 1 of the pipelined loop after which a read lane
    certainly reads what a write lane wrote; None when no pair certainly depends that way."""
    step = loop.step or 1
    found: int | None = None
    for write in write_lanes:
        for read in read_lanes:
            distance = _pair_distance(write, read, loop.uid, step)
            if distance is not None and distance >= 1 and (found is None or distance < found):
                found = distance
    return found


def _pair_distance(write: Lane, read: Lane, uid: int, step: int) -> int | None:
    """d such that the write at iteration n and the read at n + d reach one element in every
    dimension; None when they never do or it cannot be told."""
    distance: int | None = None
    for w, r in zip(write, read):
        if w is None or r is None:
            return None  # not affine: cannot be told
        w_rate, r_rate = dict(w.terms).get(uid, 0), dict(r.terms).get(uid, 0)
        w_rest = tuple(t for t in w.terms if t[0] != uid)
        r_rest = tuple(t for t in r.terms if t[0] != uid)
        if w_rate != r_rate or w_rest != r_rest:
            return None  # they move apart with some loop: no one distance
        gap = w.const - r.const
        if w_rate == 0:
            if gap:
                return None  # never one element
            continue
        if gap % (w_rate * step):
            return None
        this = gap // (w_rate * step)
        if distance is not None and this != distance:
            return None
        distance = this
    return 1 if distance is None else distance  # one element every iteration: the next one reads it


def _chain(
    source: ir.Value, value: ir.Value, memo: dict[Any, list[tuple[str, int]] | None]
) -> list[tuple[str, int]] | None:
    """The longest chain of operations (name, cycles) from `source` to `value`, None if none."""
    if value == source:
        return []
    if not isinstance(value, ir.OpResult):
        return None
    key = value
    if key in memo:
        return memo[key]
    memo[key] = None  # a cycle in SSA form cannot occur; this guards the walk anyway
    op = value.owner
    best: list[tuple[str, int]] | None = None
    if op.name not in _LOADS:  # an address computed from the value is another load's, not this chain
        for operand in op.operands:
            sub = _chain(source, operand, memo)
            if sub is not None and (best is None or sum(c for _, c in sub) > sum(c for _, c in best)):
                best = sub
    if best is not None:
        name, cycles = operator_latency(op)
        best = best + [(name, cycles)] if cycles else best
    memo[key] = best
    return best


__all__ = ["RecurrenceLimit", "recurrence_limited_loops"]
