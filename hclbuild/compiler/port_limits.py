"""Pipelined loops whose II the ports of an array argument forbid, found when the design compiles.

A block RAM serves two accesses a cycle. A loop pipelined at II=n that reads or writes one RAM at
more than 2 x n places an iteration cannot start an iteration every n cycles: Vitis settles at
II = ceil(accesses / 2) with a warning in its log, which no one reads before csynth has run. This
says so when the design compiles, in one line a loop:

    Stage_gray: loop l_gray_x asks II=1; 3 reads of rgb per iteration on 2 ports give II=2

An iteration's accesses are counted as passes/parallel_reads.py counts them (the loops the
pipeline unrolls expanded into their lanes, one address read twice counted once), then split over
the RAMs the argument's partitions make of it: an access whose bank is known when compiling (a
constant subscript along the partitioned dimension, or one that moves by multiples of a cyclic
factor) counts against its bank; one whose bank changes at run time reaches every bank through a
multiplexer and counts against each. Only function arguments are checked: they are the ports of
each HLS project (every outlined function is the top of its own), where Vitis partitions nothing
by itself; a local array is partitioned by Vitis for throughput (2023.1 on). Arguments partitioned
completely in every dimension are registers, read anywhere at once. Streams and arguments
whose accesses cannot be read as affine forms (a reshape, an opaque call) are not checked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler.array_access import Form, Loop, access_loop, argument_accesses, lane_addresses
from hclbuild.compiler.attrs import ArrayPartition
from hclbuild.compiler.passes.constant_values import defined_functions
from hclbuild.compiler.passes.stream import stream_depth

RAM_PORTS = 2  # a dual-port block RAM: two accesses a cycle
_ANY_BANK = "any"  # a bank chosen at run time


@dataclass(frozen=True)
class PortLimit:
    """A pipelined loop that touches one RAM of an argument at more places than its II allows."""

    function: str
    loop: str  # the loop's C label
    requested: int  # the II the schedule asks
    achievable: int  # the smallest II the busiest RAM's ports allow
    argument: str
    reads: int  # of the busiest RAM, one iteration
    writes: int

    @property
    def message(self) -> str:
        parts = [
            f"{n} {what}{'s' if n != 1 else ''}"
            for n, what in ((self.reads, "read"), (self.writes, "write"))
            if n
        ]
        return (
            f"{self.function}: loop {self.loop} asks II={self.requested}; {' and '.join(parts)} of "
            f"{self.argument} per iteration on {RAM_PORTS} ports give II={self.achievable}"
        )


def port_limited_loops(module: ir.Module) -> list[PortLimit]:
    """Every pipelined loop of every function whose II an argument's ports forbid, in program order."""
    found: list[PortLimit] = []
    with module.context:
        functions = {name: fn.operation for fn, name in defined_functions(module)}
        for name, func in functions.items():
            names = attrs.arg_names(func) or []
            partitions = attrs.arg_partitions(func) or []
            for index, value in enumerate(func.regions[0].blocks[0].arguments):
                if not isinstance(value.type, ir.MemRefType) or stream_depth(value) is not None:
                    continue
                shape = tuple(ir.MemRefType(value.type).shape)
                if math.prod(shape) <= 1:
                    continue  # one element: a register
                argument = names[index] if index < len(names) else f"arg{index}"
                given = partitions[index] if index < len(partitions) else []
                if _registers(given, len(shape)):
                    continue  # every element a register of its own: no RAM, no port to share
                found.extend(_limits(functions, func, index, name, argument, shape, given))
    return found


def _registers(partitions: list[ArrayPartition], rank: int) -> bool:
    complete = {p.dim for p in partitions if p.kind == "complete"}
    return 0 in complete or complete >= set(range(1, rank + 1))


def _limits(
    functions: dict[str, ir.Operation],
    func: ir.Operation,
    index: int,
    name: str,
    argument: str,
    shape: tuple[int, ...],
    partitions: list[ArrayPartition],
) -> list[PortLimit]:
    accesses = argument_accesses(functions, func, index, follow_calls=False)
    if accesses.opaque:
        return []
    # (kind, address) of each access an iteration makes; an address is None where not affine
    per_loop: dict[int, tuple[Loop, set[tuple[str, tuple]]]] = {}
    for access in accesses.accesses:
        loop, unrolled = access_loop(access)
        if loop is None or loop.ii is None:
            continue
        addresses = per_loop.setdefault(loop.uid, (loop, set()))[1]
        lanes = lane_addresses(access, unrolled)
        if lanes is None:  # not affine: an address of its own, in whichever bank
            addresses.add((access.kind, (None, id(access))))
        else:
            addresses.update((access.kind, lane) for lane in lanes)
    limits = []
    for loop, addresses in per_loop.values():
        requested = loop.ii or 1
        busiest = _busiest_bank(addresses, shape, partitions)
        achievable = -(-(busiest[0] + busiest[1]) // RAM_PORTS)
        if achievable > requested:
            limits.append(PortLimit(name, loop.label, requested, achievable, argument, *busiest))
    return limits


def _busiest_bank(
    addresses: set[tuple[str, tuple]], shape: tuple[int, ...], partitions: list[ArrayPartition]
) -> tuple[int, int]:
    """(reads, writes) that may reach the bank the iteration's accesses load most."""
    listed = sorted(addresses, key=str)
    banks = [bank_of(address, shape, partitions) for _, address in listed]
    best = (0, 0)
    for bank in dict.fromkeys(banks):
        counts = [0, 0]
        for (kind, _), other in zip(listed, banks):
            if all(may_share(mine, theirs) for mine, theirs in zip(bank, other)):
                counts[kind == "write"] += 1
        if sum(counts) > sum(best):
            best = (counts[0], counts[1])
    return best


def may_share(a: object, b: object) -> bool:
    """Whether two accesses may reach one bank along a dimension: a bank is (the loop variables
    it moves with, a constant); two banks are apart only where they move with the same ones."""
    if a == _ANY_BANK or b == _ANY_BANK:
        return True
    return a == b or a[0] != b[0]  # type: ignore[index]


def bank_of(address: tuple, shape: tuple[int, ...], partitions: list[ArrayPartition]) -> tuple[object, ...]:
    """The bank of an address along each partitioned dimension, or _ANY_BANK."""
    bank: list[object] = []
    for partition in partitions:
        dims = range(len(shape)) if partition.dim == 0 else [partition.dim - 1]
        for dim in dims:
            form = address[dim] if isinstance(address[0], Form) else None
            bank.append(_bank_along(form, shape[dim], partition))
    return tuple(bank)


def _bank_along(form: Form | None, extent: int, partition: ArrayPartition) -> object:
    if form is None:
        return _ANY_BANK
    if partition.kind == "cyclic":
        # x + c is in bank (x + c) mod factor: apart from x + c' when c - c' is not a multiple of
        # the factor, whatever x is (the stencil offsets parallel_reads partitions for)
        moving = tuple((uid, c % partition.factor) for uid, c in form.terms if c % partition.factor)
        return (moving, form.const % partition.factor)
    if form.terms:
        return _ANY_BANK
    if partition.kind == "block":
        return ((), form.const // -(-extent // max(partition.factor, 1)))
    return ((), form.const)  # complete: one register an element


__all__ = ["RAM_PORTS", "PortLimit", "bank_of", "may_share", "port_limited_loops"]
