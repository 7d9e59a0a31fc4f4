"""What the outline pass reads from the IR: module queries and the memory accesses of ops.

`AccessAnalysis` answers, for any list of ops, which memrefs defined outside them they read and
write (following views to their base and calls into their callees, with unknown ops assumed to
do both). The planner (outline_plan) and the rewriter (outline) share it; so do verify,
instrument and split_functions for the small module queries.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir.ir import (
    Block,
    BlockArgument,
    FloatType,
    IndexType,
    IntegerType,
    MemRefType,
    Module,
    Operation,
    OpResult,
    Type,
    Value,
    WalkOrder,
    WalkResult,
)

from hclbuild.compiler import attrs
from hclbuild.compiler.upstream_attrs import callee as callee_name
from hclbuild.compiler.upstream_attrs import symbol_name
from hclbuild.errors import CompileError

# Ops whose result is a view of operand 0: accesses through the view are accesses of the base.
_VIEW_OPS = frozenset(
    {
        "memref.subview",
        "memref.cast",
        "memref.reinterpret_cast",
        "memref.collapse_shape",
        "memref.expand_shape",
        "memref.reshape",
        "memref.view",
        "memref.transpose",
        "memref.memory_space_cast",
    }
)
# operand index of the memref each op reads / writes
_READ_OPERAND = {"memref.load": 0, "affine.load": 0, "affine.vector_load": 0, "vector.load": 0}
_WRITE_OPERAND = {"memref.store": 1, "affine.store": 1, "affine.vector_store": 1, "vector.store": 1}
# ops that use a memref without touching its contents
_NO_ACCESS_OPS = frozenset(
    {
        "memref.dim",
        "memref.rank",
        "memref.dealloc",
        "memref.extract_aligned_pointer_as_index",
        "memref.extract_strided_metadata",
    }
)
ALLOC_OPS = frozenset({"memref.alloc", "memref.alloca"})

READ, WRITE = "read", "write"


# ---------------------------------------------------------------- module helpers


def functions(module: Module) -> list[Operation]:
    """The `func.func` ops at module level, in module order."""
    return [op.operation for op in module.body.operations if op.operation.name == "func.func"]


def find_top_function(module: Module, stage: str = "outline") -> Operation:
    """The function carrying `hcl.top`; CompileError naming `stage` if there is none or several."""
    tops = attrs.top_functions(module)
    if len(tops) != 1:
        raise CompileError(f"{stage}: expected one func.func with hcl.top, found {len(tops)}")
    return tops[0]


def dtype_of_type(ty: Type) -> str:
    """A DSL dtype name for an MLIR scalar type when no hcl.dtype says better (signless is int)."""
    if isinstance(ty, MemRefType):
        ty = ty.element_type
    if isinstance(ty, IntegerType):
        return "uint1" if ty.width == 1 else f"int{ty.width}"
    if isinstance(ty, IndexType):
        return "index"
    if isinstance(ty, FloatType) and str(ty) in ("f16", "f32", "f64"):
        return f"float{ty.width}"
    return str(ty)


def block_ops(block: Block) -> list[Operation]:
    """The ops of a block as Operations, in order."""
    return [op.operation for op in block.operations]


def entry_block(func_op: Operation) -> Block:
    """The first block of a function's body."""
    return func_op.regions[0].blocks[0]


def is_memref(value: Value) -> bool:
    """Whether the value is a memref."""
    return isinstance(value.type, MemRefType)


def defining_op(value: Value) -> Operation | None:
    """The op producing the value, or None for a block argument."""
    if isinstance(value, OpResult):
        return value.owner.operation
    return None


# ---------------------------------------------------------------- memory accesses


class AccessAnalysis:
    """Which memrefs defined outside an op the op reads and writes, following calls into callees."""

    def __init__(self, module: Module) -> None:
        self._funcs = {symbol_name(f): f for f in functions(module)}
        self._callee_cache: dict[str, list[tuple[int, str]]] = {}
        self._in_progress: set[str] = set()

    def events(self, roots: Sequence[Operation]) -> list[tuple[Value, str]]:
        """(outside memref, READ|WRITE) for every access in `roots` (pre-order, program order)."""
        inside = ops_inside(roots)
        base: dict[Value, Value] = {}  # inside view -> the outside memref it aliases
        out: list[tuple[Value, str]] = []

        def root_of(value: Value) -> Value | None:
            if value in base:
                return base[value]
            if is_memref(value) and not defined_inside(value, inside):
                return value
            return None

        def visit(op: Operation) -> WalkResult:
            name = op.name
            operands = list(op.operands)
            if name in _VIEW_OPS and operands:
                src = root_of(operands[0])
                if src is not None:
                    for res in op.results:
                        base[res] = src
                return WalkResult.ADVANCE
            if name in _READ_OPERAND:
                src = root_of(operands[_READ_OPERAND[name]])
                if src is not None:
                    out.append((src, READ))
                return WalkResult.ADVANCE
            if name in _WRITE_OPERAND:
                src = root_of(operands[_WRITE_OPERAND[name]])
                if src is not None:
                    out.append((src, WRITE))
                return WalkResult.ADVANCE
            if name in _NO_ACCESS_OPS:
                return WalkResult.ADVANCE
            effects = self._call_effects(op) if name == "func.call" else None
            for k, operand in enumerate(operands):
                src = root_of(operand)
                if src is None:
                    continue
                kinds: tuple[str, ...]
                if name == "memref.copy":
                    kinds = (READ,) if k == 0 else (WRITE,)
                elif effects is not None:
                    kinds = tuple(kind for idx, kind in effects if idx == k)
                else:
                    # unknown op: assume the worst so that no reordering is wrongly allowed
                    kinds = (READ, WRITE)
                out.extend((src, kind) for kind in kinds)
            return WalkResult.ADVANCE

        for root in roots:
            root.walk(visit, WalkOrder.PRE_ORDER)
        return out

    def reads_writes(self, roots: Sequence[Operation]) -> tuple[set[Value], set[Value]]:
        """The sets of outside memrefs read and written by `roots`."""
        reads: set[Value] = set()
        writes: set[Value] = set()
        for value, kind in self.events(roots):
            (reads if kind == READ else writes).add(value)
        return reads, writes

    def _call_effects(self, call: Operation) -> list[tuple[int, str]] | None:
        """(argument index, READ|WRITE) pairs of a call, or None when the callee is opaque."""
        name = callee_name(call)
        callee = self._funcs.get(name)
        if callee is None or not callee.regions[0].blocks or name in self._in_progress:
            return None
        if name not in self._callee_cache:
            self._in_progress.add(name)
            try:
                block = entry_block(callee)
                index = {arg: k for k, arg in enumerate(block.arguments)}
                effects = []
                for value, kind in self.events(block_ops(block)):
                    if value in index and (index[value], kind) not in effects:
                        effects.append((index[value], kind))
                self._callee_cache[name] = effects
            finally:
                self._in_progress.discard(name)
        return self._callee_cache[name]


def ops_inside(roots: Sequence[Operation]) -> set[Operation]:
    """Every op in `roots` and nested in them."""
    inside: set[Operation] = set()

    def add(op: Operation) -> WalkResult:
        inside.add(op)
        return WalkResult.ADVANCE

    for root in roots:
        root.walk(add, WalkOrder.PRE_ORDER)
    return inside


def defined_inside(value: Value, inside: set[Operation]) -> bool:
    """Whether the value is a result or block argument of an op in `inside`."""
    if isinstance(value, BlockArgument):
        return value.owner.owner.operation in inside
    return value.owner.operation in inside


__all__ = [
    "ALLOC_OPS",
    "READ",
    "WRITE",
    "AccessAnalysis",
    "block_ops",
    "callee_name",
    "defined_inside",
    "defining_op",
    "dtype_of_type",
    "entry_block",
    "find_top_function",
    "functions",
    "is_memref",
    "ops_inside",
    "symbol_name",
]
