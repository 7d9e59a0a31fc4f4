"""Subscripts as affine functions of loop variables, and the IR lookups the memory passes share.

The builder computes every subscript with `arith` ops on `index` values (docs/IR.md); for
reuse_at, compute_at and buffer_at a subscript such as `y + r - 1` is read back as
{y: 1, r: 1} + (-1), and a new one is built from such a form. Anything else (a subscript loaded
from memory, a product of two loop variables) is not affine: the passes then refuse with an
error naming the stage and the tensor.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import arith, memref, scf

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.attrs import ArrayPartition
from hclbuild.errors import APIError, CompileError, HCLNotImplementedError

_PASS_THROUGH = frozenset(
    {"arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci"}
)
_LOOPS = frozenset({"affine.for", "scf.for"})


@dataclass
class Linear:
    """sum(coefficient * loop variable) + const: one subscript, read from the IR."""

    terms: dict[ir.Value, int] = field(default_factory=dict)
    const: int = 0

    def plus(self, other: Linear, sign: int = 1) -> Linear:
        terms = dict(self.terms)
        for value, coefficient in other.terms.items():
            terms[value] = terms.get(value, 0) + sign * coefficient
        return Linear({v: c for v, c in terms.items() if c}, self.const + sign * other.const)

    def scaled(self, factor: int) -> Linear:
        if factor == 0:
            return Linear()
        return Linear({v: c * factor for v, c in self.terms.items()}, self.const * factor)

    def only(self, keep: set[ir.Value]) -> Linear:
        """The terms on the loop variables in `keep`, without the constant."""
        return Linear({v: c for v, c in self.terms.items() if v in keep})

    def without(self, drop: set[ir.Value]) -> Linear:
        return Linear({v: c for v, c in self.terms.items() if v not in drop}, self.const)

    def same_terms(self, other: Linear) -> bool:
        return self.terms == other.terms


def _constant(value: ir.Value) -> int | None:
    owner = value.owner if isinstance(value, ir.OpResult) else None
    if owner is None or owner.name != "arith.constant":
        return None
    attr = upstream.constant_value(owner)
    return ir.IntegerAttr(attr).value if isinstance(attr, ir.IntegerAttr) else None


def is_loop_variable(value: ir.Value) -> bool:
    if not isinstance(value, ir.BlockArgument):
        return False
    owner = value.owner.owner
    # .operation: an OpView's `name` can be an attribute (a func.func's sym_name), not its op name
    return owner is not None and owner.operation.name in _LOOPS and value.arg_number == 0


def linear(value: ir.Value, symbol: Callable[[ir.Value], bool] | None = None) -> Linear | None:
    """The subscript `value` as a Linear form of loop variables, or None when it is not affine.

    A part that is not affine but for which `symbol` holds (e.g. `fused / 20 % 10` of outer loops
    only) becomes a term of its own: the passes treat it as fixed while their loop runs.
    """
    constant = _constant(value)
    if constant is not None:
        return Linear({}, constant)
    if is_loop_variable(value):
        return Linear({value: 1})
    found = _affine_op(value, symbol) if isinstance(value, ir.OpResult) else None
    if found is None and symbol is not None and symbol(value):
        return Linear({value: 1})
    return found


def _affine_op(value: ir.OpResult, symbol: Callable[[ir.Value], bool] | None) -> Linear | None:
    op = value.owner
    operands = list(op.operands)
    if op.name in _PASS_THROUGH:
        return linear(operands[0], symbol)
    if op.name in ("arith.addi", "arith.subi"):
        lhs, rhs = linear(operands[0], symbol), linear(operands[1], symbol)
        if lhs is None or rhs is None:
            return None
        return lhs.plus(rhs, 1 if op.name == "arith.addi" else -1)
    if op.name == "arith.muli":
        lhs, rhs = linear(operands[0], symbol), linear(operands[1], symbol)
        if lhs is None or rhs is None:
            return None
        if not rhs.terms:
            return lhs.scaled(rhs.const)
        if not lhs.terms:
            return rhs.scaled(lhs.const)
    return None


def computed_from(loop_variables: set[ir.Value]) -> Callable[[ir.Value], bool]:
    """A `symbol` test for `linear`: values that arith ops compute from these loop variables alone."""

    def test(value: ir.Value) -> bool:
        todo, seen = [value], set()
        while todo:
            item = todo.pop()
            if item in seen:
                continue
            seen.add(item)
            if is_loop_variable(item):
                if item not in loop_variables:
                    return False
                continue
            if not isinstance(item, ir.OpResult) or not item.owner.name.startswith("arith."):
                return False
            todo.extend(item.owner.operands)
        return True

    return test


def _recompute(value: ir.Value, memo: dict[ir.Value, ir.Value]) -> ir.Value:
    """`value` computed again at the insertion point (a symbol's arith ops may come later in its block)."""
    if is_loop_variable(value):
        return value
    if value not in memo:
        op = value.owner
        operands = [_recompute(v, memo) for v in op.operands]
        clone = op.clone(ip=ir.InsertionPoint.current)
        for old, new in zip(list(op.operands), operands):
            if old != new:
                clone.operation.replace_uses_of_with(old, new)
        memo[value] = clone.results[value.result_number]
    return memo[value]


def index_const(value: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), int(value)).result


def materialize(form: Linear) -> ir.Value:
    """An index value computing `form` (at the current insertion point)."""
    result: ir.Value | None = None
    memo: dict[ir.Value, ir.Value] = {}
    if form.const > 0 and all(c < 0 for c in form.terms.values()):
        result, form = index_const(form.const), Linear(form.terms)  # 5 - j rather than 0 - j + 5
    for value, coefficient in sorted(form.terms.items(), key=lambda item: item[1] < 0):
        term = _recompute(value, memo)
        if coefficient not in (1, -1):
            term = arith.MulIOp(term, index_const(abs(coefficient))).result
        if result is None:
            result = term if coefficient > 0 else arith.SubIOp(index_const(0), term).result
        elif coefficient > 0:
            result = arith.AddIOp(result, term).result
        else:
            result = arith.SubIOp(result, term).result
    if result is None:
        return index_const(form.const)
    if form.const > 0:
        return arith.AddIOp(result, index_const(form.const)).result
    if form.const < 0:
        return arith.SubIOp(result, index_const(-form.const)).result
    return result


def value_range(form: Linear, extents: dict[ir.Value, int]) -> tuple[int, int]:
    """(min, max) of `form` over loop variables v in [0, extents[v])."""
    low = high = form.const
    for value, coefficient in form.terms.items():
        top = coefficient * (extents[value] - 1)
        low += min(0, top)
        high += max(0, top)
    return low, high


# ---- loops -----------------------------------------------------------------------------------


def loop_name(op: ir.Operation) -> str | None:
    return attrs.loop_name(op)


def constant_extent(loop: ir.Operation) -> int | None:
    """N for `affine.for 0 to N step 1` with constant bounds, else None."""
    if loop.name != "affine.for" or upstream.loop_step(loop) != 1:
        return None
    lower = upstream.lower_bound_map(loop)
    upper = upstream.upper_bound_map(loop)
    if lower.n_inputs or upper.n_inputs or len(lower.results) != 1 or len(upper.results) != 1:
        return None
    low, high = lower.results[0], upper.results[0]
    if not isinstance(low, ir.AffineConstantExpr) or not isinstance(high, ir.AffineConstantExpr) or low.value:
        return None
    return int(high.value)


def set_extent(loop: ir.Operation, extent: int) -> None:
    """Make a constant-bound affine.for run 0..extent."""
    with loop.context:
        upstream.set_upper_bound_map(loop, ir.AffineMap.get_constant(int(extent)))


def loop_variable(loop: ir.Operation) -> ir.Value:
    return loop.regions[0].blocks[0].arguments[0]


def body_block(op: ir.Operation) -> ir.Block:
    return op.regions[0].blocks[0]


def body_ops(block: ir.Block) -> list[ir.Operation]:
    """The ops of a loop or if body, without its terminator."""
    ops = [op.operation for op in block.operations]
    return ops[:-1] if ops and ops[-1].name in ("affine.yield", "scf.yield") else ops


def walk(root: ir.Operation) -> Iterator[ir.Operation]:
    """root and every op nested in it, in program order."""
    yield root
    for region in root.regions:
        for block in region.blocks:
            for op in block.operations:
                yield from walk(op.operation)


def enclosing(op: ir.Operation, stop: ir.Operation) -> list[ir.Operation]:
    """The ops enclosing `op` strictly inside `stop` (stop included), outermost first."""
    chain = []
    node = op.parent
    while node is not None:
        node = node.operation
        chain.append(node)
        if node == stop:
            break
        node = node.parent
    return list(reversed(chain))


def stage_root(func_op: ir.Operation, stage: str, what: str) -> ir.Operation:
    """The top-level op of `func_op` whose op_name is `stage`."""
    for op in body_ops(body_block(func_op)):
        if attrs.stage_name(op) == stage:
            return op
    raise APIError(
        f"{what}: stage {stage!r} is not a stage of @{upstream.symbol_name(func_op)} "
        "(was it moved by compute_at or outlined?)"
    )


def loop_named(root: ir.Operation, name: str, stage: str, what: str) -> ir.Operation:
    """The one loop of `root` named `name`."""
    found = [op for op in walk(root) if op.name in _LOOPS and loop_name(op) == name]
    if not found:
        raise APIError(f"{what}: stage {stage!r} has no loop {name!r}")
    if len(found) > 1:
        raise APIError(f"{what}: stage {stage!r} has {len(found)} loops named {name!r}")
    return found[0]


def memref_named(func_op: ir.Operation, name: str) -> ir.Value | None:
    """The argument (by hcl.arg_names) or entry-block alloc (by `name`) called `name`."""
    block = body_block(func_op)
    for arg, arg_name in zip(block.arguments, attrs.arg_names(func_op) or []):
        if arg_name == name and isinstance(arg.type, ir.MemRefType):
            return arg
    for op in body_ops(block):
        if op.name == "memref.alloc" and attrs.buffer_name(op) == name:
            return op.results[0]
    return None


def memref_dtype(func_op: ir.Operation, value: ir.Value) -> str:
    """The DSL dtype name of a memref: its alloc's hcl.dtype or the function's hcl.arg_types."""
    if isinstance(value, ir.BlockArgument):
        return (attrs.arg_types(func_op) or [])[value.arg_number]
    dtype = attrs.buffer_dtype(value.owner)
    if dtype is None:
        raise CompileError(f"@{upstream.symbol_name(func_op)}: a buffer has no {attrs.DTYPE} attribute")
    return dtype


def insert_alloc(
    func_op: ir.Operation,
    name: str,
    dtype: str,
    element: ir.Type,
    shape: list[int],
    partitions: Sequence[ArrayPartition],
) -> ir.Value:
    """A named buffer after the allocs at the top of the function (docs/IR.md: buffers come first)."""
    block = body_block(func_op)
    ops = body_ops(block)
    allocs = [op for op in ops if op.name == "memref.alloc"]
    point = ir.InsertionPoint.after(allocs[-1]) if allocs else ir.InsertionPoint.at_block_begin(block)
    with point:
        op = memref.AllocOp(ir.MemRefType.get(list(shape), element), [], [])
    attrs.set_buffer_name(op, name)
    attrs.set_buffer_dtype(op, dtype)
    attrs.set_buffer_partitions(op, partitions)
    return op.result


@dataclass
class Access:
    """One memref.load or memref.store of the buffer the pass works on."""

    op: ir.Operation
    is_store: bool
    indices: list[ir.Value]
    forms: list[Linear | None]

    @property
    def affine(self) -> list[Linear]:
        """The forms of a pass that has checked each subscript is affine (access_ranges does)."""
        affine = [form for form in self.forms if form is not None]
        if len(affine) != len(self.forms):
            raise CompileError(f"{self.op.name}: a subscript that is not affine reached an affine rewrite")
        return affine

    @property
    def result(self) -> ir.Value:
        return self.op.results[0]


def accesses(
    root: ir.Operation,
    buffer: ir.Value,
    stage: str,
    tensor: str,
    what: str,
    symbol: Callable[[ir.Value], bool] | None = None,
) -> list[Access]:
    """Every load and store of `buffer` inside root, with its subscripts read as Linear forms."""
    found = []
    for op in walk(root):
        if op.name == "memref.load" and op.operands[0] == buffer:
            indices = list(op.operands)[1:]
            found.append(Access(op, False, indices, [linear(v, symbol) for v in indices]))
        elif op.name == "memref.store" and op.operands[1] == buffer:
            indices = list(op.operands)[2:]
            found.append(Access(op, True, indices, [linear(v, symbol) for v in indices]))
        elif op != root and any(operand == buffer for operand in op.operands):
            raise APIError(
                f"{what}: stage {stage!r} passes {tensor!r} to {op.name}; only loads and stores "
                "of it can be rewritten"
            )
    return found


def loop_extents(root: ir.Operation, stage: str, what: str) -> dict[ir.Value, int]:
    """Loop variable -> trip count of every constant-bound loop in root (root included)."""
    extents = {}
    for op in walk(root):
        if op.name in _LOOPS:
            extent = constant_extent(op)
            if extent is not None:
                extents[loop_variable(op)] = extent
    return extents


def guard(cond: ir.Value) -> scf.IfOp:
    """An `scf.if cond` with an empty then-block (terminated), at the current insertion point."""
    op = scf.IfOp(cond)
    with ir.InsertionPoint(op.then_block):
        scf.YieldOp([])
    return op


def replace_in(
    ops: list[ir.Operation], old: ir.Value, new: ir.Value, keep: tuple[ir.Operation, ...] = ()
) -> None:
    """Every use of `old` inside `ops` (nested ones too), except by the ops in `keep`, now uses `new`."""
    for root in ops:
        for op in walk(root):
            if op not in keep and any(operand == old for operand in op.operands):
                op.replace_uses_of_with(old, new)


def erase_dead_arith(root: ir.Operation) -> None:
    """Drop the arith ops under root whose results nothing uses (subscripts of replaced accesses)."""
    for op in reversed(list(walk(root))):
        if (
            op.name.startswith("arith.")
            and len(op.results)
            and all(not any(True for _ in result.uses) for result in op.results)
        ):
            op.erase()


def memrefs_touched(root: ir.Operation) -> tuple[set[ir.Value], set[ir.Value]]:
    """(memrefs root loads from, memrefs it stores to); a call's memref operands count as both."""
    reads: set[ir.Value] = set()
    writes: set[ir.Value] = set()
    for op in walk(root):
        if op.name == "memref.load":
            reads.add(op.operands[0])
        elif op.name == "memref.store":
            writes.add(op.operands[1])
        elif op.name == "func.call":
            for value in op.operands:
                if isinstance(value.type, ir.MemRefType):
                    reads.add(value)
                    writes.add(value)
    return reads, writes


def symbols_of(found: list[Access]) -> set[ir.Value]:
    """The non-loop-variable terms (symbols) of the accesses' subscripts."""
    return {v for a in found for f in a.forms if f is not None for v in f.terms if not is_loop_variable(v)}


def access_ranges(
    found: list[Access],
    outer: set[ir.Value],
    extents: dict[ir.Value, int],
    what: str,
    tensor: str,
    stage: str,
) -> list[tuple[Linear, int, int]]:
    """Per dimension of `tensor`: the part of its subscripts fixed by the `outer` loops (the same in
    every access) and the (low, high) range the other loops and the constants add to it."""
    ranges = []
    for d in range(len(found[0].forms)):
        forms = [f for f in (a.forms[d] for a in found) if f is not None]
        if len(forms) != len(found) or any(
            v not in outer and v not in extents for f in forms for v in f.terms
        ):
            raise HCLNotImplementedError(
                f"{what}: subscript {d} of an access of {tensor!r} in stage {stage!r} "
                "is not an affine function of its loops"
            )
        fixed = [f.only(outer) for f in forms]
        if any(not o.same_terms(fixed[0]) for o in fixed):
            raise HCLNotImplementedError(
                f"{what}: the accesses of {tensor!r} in stage {stage!r} differ in "
                f"subscript {d} by more than the loops inside the chosen one"
            )
        spans = [value_range(f.without(outer), extents) for f in forms]
        ranges.append((fixed[0], min(r[0] for r in spans), max(r[1] for r in spans)))
    return ranges
