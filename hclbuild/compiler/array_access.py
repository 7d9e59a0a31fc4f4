"""Where a function reads and writes one array argument: every load and store of it in program order,
across calls, with its subscripts as affine forms of loop variables and the loops around it.

Two questions of the HLS emitter's plan of local copies (emit_hls/local_copies.py) are answered here:

- `overwritten_before_read`: is every element written before anything reads one? Then a copy-in
  of the argument is dead traffic (gemm's `prod`, zeroed by its init nest before the product).
- `port_patterns`: how many reads and writes of the argument one iteration of each loop makes
  (a pipelined loop and the loops it unrolls count as one iteration; distinct subscripts count
  apart, and an unrolled loop's variable in a subscript multiplies it by the loop's trips).
  A burst of an m_axi argument needs at most one read and one write pattern a loop, and a loop
  that reads and writes it in place (`C[i][j] = f(C[i][j])`) defeats burst inference (UG1448).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream

_LOADS = frozenset({"memref.load", "affine.load"})
_STORES = frozenset({"memref.store", "affine.store"})
_LOOPS = frozenset({"affine.for", "scf.for", "scf.while"})
_PASS_THROUGH = frozenset(
    {"arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci"}
)


@dataclass(frozen=True)
class Form:
    """const + sum(coefficient * loop variable); loop variables named by their Loop's uid."""

    terms: tuple[tuple[int, int], ...] = ()  # (loop uid, coefficient), sorted, none zero
    const: int = 0

    def __add__(self, other: Form) -> Form:
        merged = dict(self.terms)
        for uid, coefficient in other.terms:
            merged[uid] = merged.get(uid, 0) + coefficient
        return Form(tuple(sorted((k, v) for k, v in merged.items() if v)), self.const + other.const)

    def scaled(self, factor: int) -> Form:
        return Form(tuple((k, v * factor) for k, v in self.terms if factor), self.const * factor)

    def loops(self) -> set[int]:
        return {uid for uid, _ in self.terms}


@dataclass(frozen=True)
class Loop:
    """A loop around an access: its bounds when constant, and the directives that shape it."""

    uid: int
    name: str
    stage: str  # the stage whose nest holds it ("" outside any)
    lower: int | None
    trips: int | None
    step: int | None
    ii: int | None  # hcl.pipeline_ii: the II the schedule asks, None when not pipelined
    unroll: int | None  # hcl.unroll: 0 full, n a factor, None not unrolled

    @property
    def pipelined(self) -> bool:
        return self.ii is not None

    @property
    def fully_unrolled(self) -> bool:
        return self.unroll == 0

    @property
    def label(self) -> str:
        """Its C label as the HLS emitter writes it (`l_<stage>_<loop>`, before any uniquing suffix)."""
        name = re.sub(r"\W", "_", self.name)
        stage = re.sub(r"\W", "_", self.stage)
        return f"l_{stage}_{name}" if stage else f"l_{name}"


@dataclass(frozen=True)
class Access:
    """One load (read) or store (write) of the argument."""

    kind: str  # "read" or "write"
    subscript: tuple[Form | None, ...]  # one form per dimension, None where not affine
    loops: tuple[Loop, ...]  # outermost first, across calls
    conditional: bool  # under an scf.if (or in a while loop's condition)
    # the load or store itself: what the recurrence check follows its value from (not compared)
    op: Any = field(default=None, compare=False, repr=False)


@dataclass
class ArgumentAccesses:
    """The accesses of one argument in program order; `opaque` when some use is neither (a
    reshape, a call to a function without a body): nothing can be concluded then."""

    accesses: list[Access] = field(default_factory=list)
    opaque: bool = False


@dataclass(frozen=True)
class LoopPatterns:
    """The reads and writes one iteration of a loop makes of an argument."""

    loop: Loop
    reads: int
    writes: int


def argument_accesses(
    functions: Mapping[str, ir.Operation], func: ir.Operation, index: int, follow_calls: bool = True
) -> ArgumentAccesses:
    """Every load and store of argument `index` of `func` (and of what calls receive it, unless not
    `follow_calls`: then only `func`'s own), in order."""
    return memref_accesses(functions, func, func.regions[0].blocks[0].arguments[index], follow_calls)


def memref_accesses(
    functions: Mapping[str, ir.Operation], func: ir.Operation, memref: ir.Value, follow_calls: bool = True
) -> ArgumentAccesses:
    """argument_accesses of any memref of `func`: an argument or a buffer it allocates."""
    found = ArgumentAccesses()
    _Walker(functions, found, follow_calls).function(func, {memref}, {}, (), False, frozenset())
    return found


class _Walker:
    def __init__(
        self, functions: Mapping[str, ir.Operation], found: ArgumentAccesses, follow_calls: bool = True
    ) -> None:
        self.functions = functions
        self.found = found
        self.follow_calls = follow_calls
        self.loop_ids: dict[ir.Operation, int] = {}

    def function(
        self,
        func: ir.Operation,
        targets: set[ir.Value],
        env: dict[ir.Value, Form | None],
        loops: tuple[Loop, ...],
        conditional: bool,
        active: frozenset[str],
    ) -> None:
        self.block(func.regions[0].blocks[0], targets, env, loops, conditional, active, "")

    def block(
        self, block: Any, targets: Any, env: Any, loops: Any, conditional: bool, active: Any, stage: str
    ) -> None:
        for child in block.operations:
            op = child.operation
            name = op.name
            if name in _LOOPS:
                self.loop(op, targets, env, loops, conditional, active, stage)
            elif name == "scf.if":
                for region in op.regions:
                    for inner in region.blocks:
                        self.block(inner, targets, env, loops, True, active, stage)
            elif name in _LOADS and op.operands[0] in targets:
                self.record("read", op, list(op.operands)[1:], env, loops, conditional)
            elif name in _STORES and op.operands[1] in targets:
                self.record("write", op, list(op.operands)[2:], env, loops, conditional)
            elif name == "func.call" and any(v in targets for v in op.operands):
                self.call(op, targets, env, loops, conditional, active)
            elif name != "memref.dealloc" and any(v in targets for v in op.operands):
                self.found.opaque = True
            else:
                for region in op.regions:
                    for inner in region.blocks:
                        self.block(inner, targets, env, loops, conditional, active, stage)

    def loop(
        self, op: Any, targets: Any, env: Any, loops: Any, conditional: bool, active: Any, stage: str
    ) -> None:
        uid = self.loop_ids.setdefault(op, len(self.loop_ids))
        directives = attrs.loop_directives(op)
        lower = trips = step = None
        if op.name == "affine.for":
            low, high = (
                _constant_bound(upstream.lower_bound_map(op)),
                _constant_bound(upstream.upper_bound_map(op)),
            )
            step = upstream.loop_step(op)
            if low is not None and high is not None:
                lower, trips = low, max(0, -(-(high - low) // step))
        stage = attrs.stage_name(op) or stage
        loop = Loop(
            uid,
            attrs.loop_name(op) or "loop",
            stage,
            lower,
            trips,
            step,
            directives.pipeline_ii,
            directives.unroll,
        )
        inner_env = dict(env)
        regions = list(op.regions)
        if op.name in ("affine.for", "scf.for"):
            inner_env[regions[0].blocks[0].arguments[0]] = Form(((uid, 1),), 0)
        for position, region in enumerate(regions):
            # a while loop's condition region runs once more than its body
            inside = conditional or (op.name == "scf.while" and position == 1)
            for block in region.blocks:
                self.block(block, targets, inner_env, loops + (loop,), inside, active, stage)

    def call(self, op: Any, targets: Any, env: Any, loops: Any, conditional: bool, active: Any) -> None:
        if not self.follow_calls:
            return
        callee = upstream.callee(op)
        func = self.functions.get(callee)
        if func is None or callee in active or not len(func.regions[0].blocks):
            self.found.opaque = True
            return
        arguments = func.regions[0].blocks[0].arguments
        inner_targets = {arguments[k] for k, v in enumerate(op.operands) if v in targets}
        inner_env = {arguments[k]: self.form(v, env) for k, v in enumerate(op.operands) if _is_integer(v)}
        self.function(func, inner_targets, inner_env, loops, conditional, active | {callee})

    def record(self, kind: str, op: Any, indices: Any, env: Any, loops: Any, conditional: bool) -> None:
        if op.name.startswith("affine."):
            affine_map = upstream.access_map(op)
            forms = [self.form(v, env) for v in indices]
            subscript = tuple(
                _expr_form(e, forms[: affine_map.n_dims], forms[affine_map.n_dims :])
                for e in affine_map.results
            )
        else:
            subscript = tuple(self.form(v, env) for v in indices)
        self.found.accesses.append(Access(kind, subscript, loops, conditional, op))

    def form(self, value: ir.Value, env: Mapping[ir.Value, Form | None]) -> Form | None:
        if value in env:
            return env[value]
        if not isinstance(value, ir.OpResult):
            return None
        op = value.owner
        name = op.name
        operands = list(op.operands)
        if name == "arith.constant":
            try:
                return Form((), ir.IntegerAttr(upstream.constant_value(op)).value)
            except (ValueError, TypeError):
                return None
        if name in _PASS_THROUGH:
            return self.form(operands[0], env)
        if name in ("arith.addi", "arith.subi", "arith.muli"):
            left, right = self.form(operands[0], env), self.form(operands[1], env)
            if left is None or right is None:
                return None
            if name == "arith.addi":
                return left + right
            if name == "arith.subi":
                return left + right.scaled(-1)
            if not left.terms:
                return right.scaled(left.const)
            if not right.terms:
                return left.scaled(right.const)
            return None
        if name == "affine.apply":
            affine_map = upstream.access_map(op)
            forms = [self.form(v, env) for v in operands]
            return _expr_form(affine_map.results[0], forms[: affine_map.n_dims], forms[affine_map.n_dims :])
        return None


def _is_integer(value: ir.Value) -> bool:
    return isinstance(value.type, (ir.IndexType, ir.IntegerType))


def _constant_bound(affine_map: ir.AffineMap) -> int | None:
    results = list(affine_map.results)
    if len(results) == 1 and isinstance(results[0], ir.AffineConstantExpr):
        return results[0].value
    return None


def _expr_form(expr: ir.AffineExpr, dims: list[Form | None], symbols: list[Form | None]) -> Form | None:
    if isinstance(expr, ir.AffineConstantExpr):
        return Form((), expr.value)
    if isinstance(expr, ir.AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, ir.AffineSymbolExpr):
        return symbols[expr.position]
    if isinstance(expr, (ir.AffineAddExpr, ir.AffineMulExpr)):
        left, right = _expr_form(expr.lhs, dims, symbols), _expr_form(expr.rhs, dims, symbols)
        if left is None or right is None:
            return None
        if isinstance(expr, ir.AffineAddExpr):
            return left + right
        if not left.terms:
            return right.scaled(left.const)
        if not right.terms:
            return left.scaled(right.const)
    return None


def value_form(value: ir.Value, env: Mapping[ir.Value, Form | None]) -> Form | None:
    """The affine form of an index value given forms of the values in `env` (loop variables), None
    where it is not affine: the same reading of subscripts as the access walk's (the estimator's)."""
    return _Walker({}, ArgumentAccesses()).form(value, env)


def access_subscript(op: ir.Operation, env: Mapping[ir.Value, Form | None]) -> tuple[Form | None, ...]:
    """The subscript of a load or store (memref or affine) as one form per dimension."""
    walker = _Walker({}, ArgumentAccesses())
    first = 1 if op.name in _LOADS else 2
    indices = list(op.operands)[first:]
    if op.name.startswith("affine."):
        affine_map = upstream.access_map(op)
        forms = [walker.form(v, env) for v in indices]
        return tuple(
            _expr_form(e, forms[: affine_map.n_dims], forms[affine_map.n_dims :]) for e in affine_map.results
        )
    return tuple(walker.form(v, env) for v in indices)


# ---- every element written before any read ----------------------------------------------------------


def overwritten_before_read(found: ArgumentAccesses, shape: tuple[int, ...]) -> bool:
    """Whether a store writes every element of an argument of `shape` before anything reads it:
    an unconditional store, before the first read in program order, whose subscripts walk every
    element (one loop variable a dimension, or a split loop's `outer * f + inner`) in loops that
    run, none of which the first read is also in."""
    if found.opaque:
        return False
    first_read = next((n for n, a in enumerate(found.accesses) if a.kind == "read"), len(found.accesses))
    for access in found.accesses[:first_read]:
        covering = _covering_loops(access, shape)
        if covering is None:
            continue
        if first_read < len(found.accesses):
            reader = {loop.uid for loop in found.accesses[first_read].loops}
            if reader & covering:
                continue  # the read runs between the store's iterations
        return True
    return False


def _covering_loops(access: Access, shape: tuple[int, ...]) -> set[int] | None:
    """The loops whose iterations make `access` (a store) write every element, None if they do not."""
    if access.kind != "write" or access.conditional or len(access.subscript) != len(shape):
        return None
    loops = {loop.uid: loop for loop in access.loops}
    if any(loop.trips is None or loop.trips < 1 for loop in access.loops):
        return None  # a loop that may not run leaves the store undone
    used: set[int] = set()
    for form, extent in zip(access.subscript, shape):
        if form is None or form.const != 0 or not form.terms or form.loops() & used:
            return None
        size = 1
        for uid, coefficient in sorted(form.terms, key=lambda term: term[1]):
            loop = loops.get(uid)
            if loop is None or coefficient != size or loop.lower != 0 or loop.step != 1:
                return None
            size *= loop.trips or 0
        if size != extent:
            return None
        used |= form.loops()
    return used


# ---- reads and writes an iteration --------------------------------------------------------------------


def access_loop(access: Access) -> tuple[Loop | None, tuple[Loop, ...]]:
    """The loop one of whose iterations holds the access, and the loops inside it that HLS unrolls:
    the outermost pipelined loop (it unrolls every loop in it), else the innermost loop that is not
    fully unrolled; None outside any such loop."""
    for position, loop in enumerate(access.loops):
        if loop.pipelined:
            return loop, access.loops[position + 1 :]
    for position in range(len(access.loops) - 1, -1, -1):
        if not access.loops[position].fully_unrolled:
            return access.loops[position], access.loops[position + 1 :]
    return None, access.loops


def _lanes(access: Access, unrolled: tuple[Loop, ...]) -> int:
    """How many elements one execution of the access's loop iteration touches through it."""
    used: set[int] = set()
    for form in access.subscript:
        used |= {loop.uid for loop in unrolled} if form is None else form.loops()
    return math.prod(loop.trips or 1 for loop in unrolled if loop.uid in used)


def lane_addresses(access: Access, unrolled: tuple[Loop, ...]) -> list[tuple[Form, ...]] | None:
    """The addresses of `access` in every lane of the unrolled loops its subscript moves with; None
    where a subscript is not affine or a loop it moves with has no constant bounds."""
    if any(form is None for form in access.subscript):
        return None
    forms: tuple[Form, ...] = tuple(form for form in access.subscript if form is not None)
    used = set().union(*(form.loops() for form in forms)) if forms else set()
    moving = [loop for loop in unrolled if loop.uid in used]
    if any(loop.trips is None or loop.lower is None or loop.step is None for loop in moving):
        return None
    lanes = []
    for values in itertools.product(*(range(loop.trips or 0) for loop in moving)):
        lane = forms
        for loop, k in zip(moving, values):
            lane = tuple(
                substitute(form, loop.uid, (loop.lower or 0) + (loop.step or 1) * k) for form in lane
            )
        lanes.append(lane)
    return lanes


def substitute(form: Form, uid: int, value: int) -> Form:
    """`form` with loop `uid` set to `value`."""
    coefficient = dict(form.terms).get(uid, 0)
    rest = tuple((k, v) for k, v in form.terms if k != uid)
    return Form(rest, form.const + coefficient * value)


def port_patterns(found: ArgumentAccesses) -> list[LoopPatterns]:
    """For every loop that reads or writes the argument: the accesses one iteration makes, distinct
    subscripts apart, times the trips of the unrolled loops each subscript moves with."""
    by_loop: dict[int, tuple[Loop, dict[str, dict[tuple, int]]]] = {}
    for access in found.accesses:
        loop, unrolled = access_loop(access)
        if loop is None:
            continue
        patterns = by_loop.setdefault(loop.uid, (loop, {"read": {}, "write": {}}))[1][access.kind]
        key = tuple(form if form is not None else ("opaque", id(access)) for form in access.subscript)
        patterns[key] = max(patterns.get(key, 0), _lanes(access, unrolled))
    return [
        LoopPatterns(loop, sum(kinds["read"].values()), sum(kinds["write"].values()))
        for loop, kinds in by_loop.values()
    ]


def burst_problem(found: ArgumentAccesses) -> str:
    """Why the argument's accesses cannot stream as AXI bursts ("" when they can): a loop with more
    than one read or write an iteration, or one that both reads and writes it."""
    if found.opaque:
        return "it is used other than by loads, stores and calls"
    for patterns in port_patterns(found):
        loop = patterns.loop.label
        if patterns.reads and patterns.writes:
            return f"loop {loop} reads and writes it in place"
        if patterns.reads > 1:
            return f"loop {loop} reads it at {patterns.reads} places an iteration"
        if patterns.writes > 1:
            return f"loop {loop} writes it at {patterns.writes} places an iteration"
    return ""
