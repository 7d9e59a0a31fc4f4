"""One iteration of a loop body (or a straight-line block) scheduled as soon as possible.

Times are in cycles, a fraction being the part of the (effective) clock period a combinational
chain has used: a combinational op chains after its inputs while the period lasts, else starts at
the next edge; a core of latency L delivers L edges after its inputs' edge; a block-RAM read
delivers one edge after its address plus the RAM's clock-to-out; a write needs its data a setup
time before an edge. Loops inside the scheduled body are unrolled lane by lane (they are inside a
pipelined loop, or unrolled by a directive), so their operators are replicated and their
subscripts become distinct addresses.

Ports: a RAM bank (an argument's or a buffer's, split by its partitions as compiler/port_limits
splits them) serves RAM_PORTS accesses a cycle; in a pipelined loop at II n, a cycle's slot is
its cycle mod n (a modulo reservation). Registers (scalars, small or completely partitioned
arrays) have no ports. A local array Vitis partitions by itself (`auto_partitioned`) has none.

Constant tables: a load from a constant global (an hcl.const_tensor) at an address that is constant
in the lane being scheduled (its subscripts constants, or the variables of loops unrolled here) is
the table's element: a wire, no port, no cycle, and an operator it feeds is costed as one fed by an
arith.constant (a multiply by 1, 2 or 4 is a shift: no DSP). Vitis folds such reads (the gaussian
held-out case: coeff[3][3] read at the unrolled taps, II 1 and DSP 0 in its 2020.2 report). At a
run-time address the table is a ROM with ports, as any array.

Recurrences: a load of an address the iteration later stores, where the address does not move with
the pipelined loop's own variable, is a loop-carried dependence (a reduction into `sum`, into
`tmp1[i][j]` while k runs): the next iteration cannot read it before this one has computed it,
so the II is at least the cycles from the load's data to the stored value (Vitis forwards the
value rather than waiting for the RAM).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from mlir import ir

from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.array_access import Form, access_subscript, value_form
from hclbuild.compiler.estimate.devices import OperatorTable
from hclbuild.compiler.estimate.operators import operator_cost
from hclbuild.compiler.estimate.structure import LOADS, STORES, IfNode, LoopNode, Memory, Node
from hclbuild.compiler.port_limits import RAM_PORTS, bank_of, may_share

MAX_LANES = 1 << 16  # replicated ops beyond this are counted, not scheduled one by one


@dataclass
class BodyResult:
    """What scheduling one iteration found."""

    depth: int = 0
    recurrence: int = 0
    recurrence_reason: str = ""
    port_ii: int = 1
    port_reason: str = ""
    operators: Counter[str] = field(default_factory=Counter)
    dsp: int = 0
    dsp_per_core: dict[str, int] = field(default_factory=dict)  # kind -> DSPs of one core
    calls: Counter[str] = field(default_factory=Counter)
    loads: int = 0
    stores: int = 0
    bank_ii: int = 1
    bank_reason: str = ""
    tables_folded: set[Memory] = field(default_factory=set)  # constant tables read at constant addresses
    tables_read: set[Memory] = field(default_factory=set)  # ... and at run-time addresses (a ROM)


@dataclass
class _Access:
    memory: Memory
    kind: str
    address: tuple[Form | None, ...]


class BodyScheduler:
    """Schedules one iteration of `nodes` (see the module docstring)."""

    def __init__(
        self,
        table: OperatorTable,
        memories: dict[ir.Value, Memory],
        callee_latency: Callable[[str], int],
        auto_partitioned: Callable[[Memory], bool],
        carried_uid: int | None,
        ii: int | None,
        forms: dict[ir.Value, Form | None],
    ) -> None:
        self.table = table
        self.memories = memories
        self.callee_latency = callee_latency
        self.auto_partitioned = auto_partitioned
        self.carried_uid = carried_uid
        self.ii = ii
        self.forms = dict(forms)
        self.ready: dict[ir.Value, float] = {}
        # when each array a call touched is free again: a call reads and writes its array arguments,
        # so a later call on the same array waits for it (Vitis orders them; only dataflow overlaps)
        self.array_free: dict[ir.Value, float] = {}
        self.slots: dict[tuple[int, int], list[tuple[object, ...]]] = {}
        self.stored: dict[tuple[int, tuple], float] = {}
        self.first_load: dict[tuple[int, object], float] = {}
        # value -> {load key: cycles from that load's data to this value} (the recurrence paths)
        self.paths: dict[ir.Value, dict[tuple, float]] = {}
        # the same paths' cores by kind, for the reason a recurrence gives ("fadd 4 cycles")
        self.path_cores: dict[ir.Value, dict[tuple, Counter[str]]] = {}
        self.reserved: dict[tuple[int, str, tuple], int] = {}
        self.stored_value: dict[tuple[int, tuple], ir.Value] = {}
        self.loaded: set[tuple[int, tuple]] = set()
        self.accesses: list[_Access] = []
        # the integer values of loads folded from constant tables in the current lane (operator_cost
        # reads them; a float element is folded too, but a float core costs the same whatever it gets)
        self.constants: dict[ir.Value, int] = {}
        self.finish = 0.0
        self.result = BodyResult()
        self.ops = 0

    # ---- entry points ---------------------------------------------------------------------------
    def run(self, nodes: list[Node]) -> BodyResult:
        self.nodes(nodes, 0.0)
        self.result.depth = max(1, math.ceil(self.finish - 1e-9)) if self.ops else 0
        self.result.port_ii, self.result.port_reason = self.port_limit()
        return self.result

    def port_limit(self) -> tuple[int, str]:
        """The II the busiest RAM bank's ports allow, and which memory that is."""
        best, reason = 1, ""
        by_memory: dict[int, tuple[Memory, set[tuple[str, tuple]]]] = {}
        for access in self.accesses:
            key = (
                access.kind,
                access.address if all(f is not None for f in access.address) else (id(access),),
            )
            by_memory.setdefault(id(access.memory), (access.memory, set()))[1].add(key)
        for memory, addresses in by_memory.values():
            listed = sorted(addresses, key=str)
            banks = [self.bank(memory, address) for _, address in listed]
            for bank in dict.fromkeys(banks):
                counts = [0, 0]
                for (kind, _), other in zip(listed, banks):
                    if all(may_share(a, b) for a, b in zip(bank, other)):
                        counts[kind == "write"] += 1
                ii = -(-(counts[0] + counts[1]) // RAM_PORTS)
                if ii > best:
                    parts = [
                        f"{n} {w}{'s' if n != 1 else ''}" for n, w in zip(counts, ("read", "write")) if n
                    ]
                    banks_text = "" if not memory.partitions else " (one bank)"
                    best = ii
                    reason = (
                        f"memory port of {memory.name}{banks_text}: {' and '.join(parts)} per iteration "
                        f"on {RAM_PORTS} ports"
                    )
        return best, reason

    def bank(self, memory: Memory, address: tuple) -> tuple[object, ...]:
        if not address or not all(isinstance(f, Form) for f in address):
            return tuple("any" for _ in memory.partitions)
        return bank_of(address, memory.shape, list(memory.partitions))

    # ---- walking --------------------------------------------------------------------------------
    def nodes(self, nodes: list[Node], floor: float) -> None:
        for node in nodes:
            if isinstance(node, LoopNode):
                self.unrolled_loop(node, floor)
            elif isinstance(node, IfNode):
                for branch in node.branches:
                    self.nodes(branch, floor)
            else:
                self.op(node, floor)

    def unrolled_loop(self, loop: LoopNode, floor: float) -> None:
        trips = loop.trips[1] if loop.trips is not None else 1
        lower = loop.lower if loop.lower is not None else 0
        step = loop.step or 1
        iv = loop.iv
        for k in range(max(trips, 0)):
            if self.ops > MAX_LANES:
                break
            if iv is not None:
                self.forms[iv] = Form((), lower + k * step)
                self.ready[iv] = floor
            self.nodes(loop.children, floor)

    def time_of(self, value: ir.Value, floor: float) -> float:
        return max(self.ready.get(value, floor), floor)

    def op(self, op: ir.Operation, floor: float) -> None:
        name = op.name
        if name in ("arith.constant", "scf.yield", "affine.yield", "func.return", "memref.dealloc"):
            return
        self.ops += 1
        start: float = max([self.time_of(v, floor) for v in op.operands], default=floor)
        if name in LOADS:
            self.load(op, start)
            return
        if name in STORES:
            self.store(op, start)
            return
        if name == "scf.if":
            self.if_op(op, start)
            return
        if name == "func.call":
            callee = upstream.callee(op)
            self.result.calls[callee] += 1
            arrays = [v for v in op.operands if isinstance(v.type, ir.MemRefType)]
            start = max([start, *(self.array_free.get(v, floor) for v in arrays)])
            end = float(math.ceil(start) + self.callee_latency(callee))
            for array in arrays:
                self.array_free[array] = end
            self.set_results(op, end)
            return
        if op.results and isinstance(op.results[0].type, ir.IndexType):
            for result in op.results:
                # an earlier lane of an unrolled loop left this value's form: value_form would
                # return it (a value it knows is not derived again), so every lane had lane 0's address
                self.forms.pop(result, None)
                self.forms[result] = value_form(result, self.forms)
            self.set_results(op, start)
            return
        cost = operator_cost(op, self.table, self.constants)
        self.extend_paths(op, cost.kind, cost.timing.latency, cost.timing.delay_ns / self.table.period_ns)
        if cost.kind:
            self.result.operators[cost.kind] += 1
            self.result.dsp += cost.dsp
            self.result.dsp_per_core[cost.kind] = cost.dsp
        timing = cost.timing
        delay = timing.delay_ns / self.table.period_ns
        if timing.latency == 0:
            if delay and math.floor(start) != math.floor(start + delay - 1e-9) and start % 1:
                start = float(math.ceil(start))
            end = start + delay
        else:
            end = float(math.floor(start) + timing.latency) + min(delay, 0.2)
        self.set_results(op, end)

    def extend_paths(self, op: ir.Operation, kind: str, latency: int, delay: float) -> None:
        """Carry the recurrence paths through an op: a core adds its latency, logic its delay."""
        merged: dict[tuple, float] = {}
        cores: dict[tuple, Counter[str]] = {}
        for value in op.operands:
            for key, length in self.paths.get(value, {}).items():
                if key not in merged or length > merged[key]:
                    merged[key] = length
                    cores[key] = self.path_cores.get(value, {}).get(key, Counter())
        if merged:
            step = float(latency) if latency else delay
            for key in cores:
                cores[key] = cores[key] + Counter({kind: 1}) if kind and latency else Counter(cores[key])
            for result in op.results:
                self.paths[result] = {key: length + step for key, length in merged.items()}
                self.path_cores[result] = cores
        else:
            for result in op.results:
                self.paths.pop(result, None)
                self.path_cores.pop(result, None)

    def set_results(self, op: ir.Operation, end: float) -> None:
        for result in op.results:
            self.ready[result] = end
        self.finish = max(self.finish, end)

    def if_op(self, op: ir.Operation, start: float) -> None:
        before = self.finish
        self.finish = start
        ends = []
        for region in op.regions:
            for block in region.blocks:
                self.nodes([child.operation for child in block.operations], start)
                terminator = list(block.operations)[-1] if len(block.operations) else None
                if terminator is not None and terminator.operation.name == "scf.yield":
                    ends.append(max([self.time_of(v, start) for v in terminator.operands], default=start))
                    for result, value in zip(op.results, terminator.operation.operands):
                        for key, length in self.paths.get(value, {}).items():
                            merged = self.paths.setdefault(result, {})
                            merged[key] = max(merged.get(key, 0.0), length + 0.1)
        end = (
            max(ends, default=start) + self.table.combinational("select", 32).delay_ns / self.table.period_ns
        )
        self.finish = max(before, self.finish)
        for result in op.results:
            self.ready[result] = end

    # ---- memory -----------------------------------------------------------------------------------
    def memory_of(self, value: ir.Value) -> Memory | None:
        return self.memories.get(value)

    def address(self, op: ir.Operation) -> tuple[Form | None, ...]:
        return access_subscript(op, self.forms)

    def key(self, memory: Memory, address: tuple[Form | None, ...]) -> tuple[int, tuple] | None:
        if any(f is None for f in address):
            return None
        return (id(memory), address)

    def varies(self, address: tuple[Form | None, ...]) -> bool:
        """Whether an address moves with the pipelined loop's own variable."""
        return any(f is None or (self.carried_uid in f.loops()) for f in address)

    def reserve(self, memory: Memory, address: tuple, cycle: int) -> int:
        """The first cycle from `cycle` on where the address's bank has a free port."""
        bank = self.bank(memory, address)
        first = cycle
        while True:
            if self.ii and cycle - first >= self.ii:
                return first  # every slot full (an access counted twice): take the first
            slot = cycle % self.ii if self.ii else cycle
            taken = self.slots.setdefault((id(memory), slot), [])
            if sum(all(may_share(a, b) for a, b in zip(bank, other)) for other in taken) < RAM_PORTS:
                taken.append(bank)
                return cycle
            cycle += 1

    def run_time_bank(self, memory: Memory, address: tuple[Form | None, ...]) -> bool:
        """A user-partitioned local array Vitis also partitions, at a bank that moves with the
        pipelined loop's own variable."""
        if memory.argument or not memory.partitions or not self.auto_partitioned(memory):
            return False
        if self.carried_uid is None:
            return False
        for part in self.bank(memory, address):
            if part == "any":
                return True
            moving = part[0] if isinstance(part, tuple) else ()
            if any(uid == self.carried_uid for uid, _ in moving):
                return True
        return False

    def ported(self, memory: Memory) -> bool:
        return not memory.registers and not memory.stream and not self.auto_partitioned(memory)

    def load(self, op: ir.Operation, start: float) -> None:
        memory = self.memory_of(op.operands[0])
        self.result.loads += 1
        if memory is None:
            self.set_results(op, start)
            return
        address = self.address(op)
        self.constants.pop(op.results[0], None)  # an earlier lane's element
        if memory.table is not None:
            if all(isinstance(f, Form) and not f.terms for f in address):
                self.fold(op, memory, address, start)
                return
            self.result.tables_read.add(memory)
        key = self.key(memory, address)
        if key is not None and key in self.stored:
            self.set_results(op, self.stored[key])  # forwarded from this iteration's store
            carried = self.paths.get(self.stored_value[key])
            if carried:
                self.paths[op.results[0]] = dict(carried)
                self.path_cores[op.results[0]] = dict(self.path_cores.get(self.stored_value[key], {}))
            else:
                self.paths.pop(op.results[0], None)
            return
        if memory.registers or memory.stream:
            end = start if memory.registers else math.floor(start) + 1.0
        else:
            if self.ported(memory):
                self.accesses.append(_Access(memory, "read", address))
                seen = (id(memory), "read", address) if key is not None else None
                if seen is not None and seen in self.reserved:
                    cycle = max(self.reserved[seen], math.floor(start))
                else:
                    cycle = self.reserve(memory, address, math.floor(start))
                    if seen is not None:
                        self.reserved[seen] = cycle
            else:
                cycle = math.floor(start)
            read = self.table.bram_read
            end = cycle + read.latency + read.delay_ns / self.table.period_ns
        if key is not None:
            self.loaded.add(key)
        tracked = key if key is not None else (id(memory), "any address")
        if (key is None or not self.varies(address)) and tracked not in self.first_load:
            self.first_load[tracked] = end
            self.paths[op.results[0]] = {tracked: 0.0}
            self.path_cores[op.results[0]] = {tracked: Counter()}
        else:
            self.paths.pop(op.results[0], None)
        self.set_results(op, end)

    def fold(self, op: ir.Operation, memory: Memory, address: tuple[Form | None, ...], start: float) -> None:
        """A constant table's element at a constant address: its value, at once (module docstring)."""
        assert memory.table is not None
        self.result.tables_folded.add(memory)
        index = tuple(f.const for f in address if f is not None)
        if memory.table.dtype.kind != "f" and all(0 <= i < n for i, n in zip(index, memory.table.shape)):
            self.constants[op.results[0]] = int(memory.table[index])
        self.paths.pop(op.results[0], None)
        self.set_results(op, start)

    def store(self, op: ir.Operation, start: float) -> None:
        memory = self.memory_of(op.operands[1])
        self.result.stores += 1
        data = self.time_of(op.operands[0], 0.0)
        if memory is None:
            self.finish = max(self.finish, math.ceil(start))
            return
        address = self.address(op)
        key = self.key(memory, address)
        if memory.registers or memory.stream:
            end = float(math.ceil(start - 1e-9)) if memory.registers else math.floor(start) + 1.0
        else:
            setup = self.table.bram_setup_ns / self.table.period_ns
            cycle = math.floor(start) if (start % 1) + setup <= 1 else math.floor(start) + 1
            if self.ported(memory):
                self.accesses.append(_Access(memory, "write", address))
                cycle = self.reserve(memory, address, cycle)
            end = cycle + 1.0
        if key is not None:
            self.stored[key] = data
            self.stored_value[key] = op.operands[0]
            if key in self.loaded and self.run_time_bank(memory, address):
                # Vitis (2023 on) reads and writes an element of a partitioned local array whose
                # bank the pipelined loop's variable selects in different cycles
                self.result.bank_ii = 2
                self.result.bank_reason = (
                    f"read and write of {memory.name} in one iteration at a bank chosen at run time"
                )
        paths = self.paths.get(op.operands[0], {})
        for tracked in (key, (id(memory), "any address")):
            if tracked is None or tracked not in paths:
                continue
            # through a RAM at a run-time address the store itself must finish before the next read
            closing = 1.0 if key is None and not memory.registers else 0.0
            cycles = max(1, math.ceil(paths[tracked] + closing - 1e-9))
            if cycles > self.result.recurrence:
                self.result.recurrence = cycles
                cores = self.path_cores.get(op.operands[0], {}).get(tracked, Counter())
                named = ", ".join(f"{n} {kind}" if n > 1 else kind for kind, n in sorted(cores.items()))
                self.result.recurrence_reason = (
                    f"recurrence through {memory.name}: {named + ' ' if named else ''}{cycles} cycles"
                )
        self.finish = max(self.finish, end)


__all__ = ["BodyResult", "BodyScheduler"]
