"""Names of the C locals the HLS emitter declares, taken from the design where it has one.

Vitis HLS names operations in its schedule viewer and binding reports by the C++ variables they
compute, so a local is named after what it is: a load after its tensor and subscripts
(`img_y_x`, `A_y_x_p2`), an index offset after its variable (`x_p2` for `x + 2`); `v<n>` is left
for anonymous temporaries, numbered from 0 in each stage so that a change in one stage does not
renumber another stage's temporaries (generated-code diffs stay small).

A one-element local that is only loaded and stored (a reduction accumulator, an hcl.scalar) is a
C scalar (`float conv_sum = 0.0f;`), not `float conv_sum[1]`: `is_scalar_buffer` says which.
"""

from __future__ import annotations

import math
import re

from mlir import ir

_LOADS = frozenset({"memref.load", "affine.load"})
_STORES = frozenset({"memref.store", "affine.store"})
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OFFSET = re.compile(r"\(?([A-Za-z_][A-Za-z0-9_]*) ([+-]) (\d+|[A-Za-z_][A-Za-z0-9_]*)\)?")
_TEMPORARY = re.compile(r"v\d+(_\d+)?")


def subscript_part(text: str) -> str | None:
    """How one subscript reads in a load's name: a variable or a literal as itself, else None."""
    if _IDENTIFIER.fullmatch(text):
        return text
    if text.isdigit():
        return text
    return None


def load_name(memory: str, subscripts: list[str]) -> str:
    """`img_y_x` for img[y][x]; the tensor's name alone when a subscript is an expression."""
    parts = [subscript_part(text) for text in subscripts]
    if not parts or any(part is None for part in parts):
        return memory
    return "_".join([memory, *(part for part in parts if part is not None)])


def index_name(expr: str) -> str | None:
    """`x_p2` for the index `x + 2` (`x_m1` for `x - 1`, `y_p_ry` for `y + ry`); None for any other
    expression, or one of temporaries."""
    match = _OFFSET.fullmatch(expr)
    if match is None:
        return None
    variable, sign, amount = match.groups()
    if _TEMPORARY.fullmatch(variable) or _TEMPORARY.fullmatch(amount) or amount == "0":
        return None
    if not amount.isdigit():
        amount = f"_{amount}"
    return f"{variable}_{'p' if sign == '+' else 'm'}{amount}"


def is_scalar_buffer(value: ir.Value) -> bool:
    """A one-element local loaded and stored only (never passed to a call, nor a stream): a C scalar.

    One never loaded (a debugging leftover) stays an array: a scalar set but never read is an
    error under -Werror (-Wunused-but-set-variable), an array is not."""
    shape = ir.MemRefType(value.type).shape
    if math.prod(shape) != 1:
        return False
    loaded = False
    for use in value.uses:
        owner = use.owner.operation
        if owner.name == "memref.dealloc":
            continue
        if owner.name in _LOADS and use.operand_number == 0:
            loaded = True
            continue
        if owner.name in _STORES and use.operand_number == 1:
            continue
        return False
    return loaded


def writes(op: ir.Operation, memory: ir.Value) -> bool:
    """Whether `op` or an op nested in it stores to `memory`."""
    if op.name in _STORES and op.operands[1] == memory:
        return True
    return any(
        writes(inner.operation, memory)
        for region in op.regions
        for block in region.blocks
        for inner in block.operations
    )


def ancestor_in(op: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """The op of `block` that is `op` or holds it; None when `op` is not inside `block`."""
    current: ir.Operation | None = op
    while current is not None:
        if current.block == block:
            return current
        parent = current.parent
        current = parent.operation if parent is not None and parent.name != "func.func" else None
    return None


def readable_in_place(load: ir.Operation, memory: ir.Value) -> bool:
    """Whether the scalar `memory` can stand for the value `load` read: every use of the value is
    in the load's block (or nested in it) before any store to `memory` after the load."""
    block = load.block
    ancestors = []
    for use in load.results[0].uses:
        ancestor = ancestor_in(use.owner.operation, block)
        if ancestor is None:
            return False
        ancestors.append(ancestor)
    if not ancestors:
        return True
    after = False
    remaining = set(ancestors)
    for inner in block.operations:
        operation = inner.operation
        if operation == load:
            after = True
            continue
        if not after:
            continue
        remaining.discard(operation)
        if not remaining:
            # the last reader: a store of the value itself reads before it writes
            return operation.name in _STORES or not writes(operation, memory)
        if writes(operation, memory):
            return False
    return not remaining


__all__ = ["ancestor_in", "index_name", "is_scalar_buffer", "load_name", "readable_in_place", "writes"]
