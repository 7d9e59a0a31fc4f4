"""Whether a function reads or writes an array argument strictly in order, as an ap_fifo port needs.

An ap_fifo interface on an array argument (UG1399 "pragma HLS interface": ap_fifo) is a FIFO: the
function must read each element once, first to last, or write each once, first to last, and never
both. Vitis trusts the C++ to do so, and a kernel that does not would read the wrong elements in
hardware while csim passes. Checked here on the IR, strictly: one access, a load or a store, whose
subscripts are the loop variables of the loops around it, outermost first, each loop running
0..extent of its dimension in steps of 1 with nothing but those loops between the access and the
function body; or one call, not in a loop, passing the argument to a function that accesses it so.
"""

from __future__ import annotations

from typing import Any

from mlir import ir

from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.passes.affine_access import constant_extent

_LOADS = ("memref.load", "affine.load")
_STORES = ("memref.store", "affine.store")


def fifo_order(functions: dict[str, Any], func: str, index: int) -> tuple[str, str]:
    """("read" | "write", "") when @func accesses argument `index` in FIFO order, else ("", why)."""
    fn = functions[func]
    body = fn.regions[0].blocks[0]
    argument = body.arguments[index]
    uses = [use for use in argument.uses if use.owner.operation.name != "memref.dealloc"]
    if len(uses) != 1:
        return "", f"it is accessed by {len(uses)} operations (a FIFO port takes one read or one write loop)"
    use = uses[0]
    owner = use.owner.operation
    if owner.name == "func.call":
        callee = upstream.callee(owner)
        if owner.parent.operation != fn.operation or callee not in functions:
            return "", f"it is passed to @{callee} inside a loop or branch"
        return fifo_order(functions, callee, use.operand_number)
    if owner.name in _LOADS and use.operand_number == 0:
        direction, subscripts = "read", list(owner.operands)[1:]
    elif owner.name in _STORES and use.operand_number == 1:
        direction, subscripts = "write", list(owner.operands)[2:]
    else:
        return "", f"it is used by {owner.name}"
    shape = list(ir.MemRefType(argument.type).shape)
    loops = _enclosing_loops(owner, fn)
    if loops is None:
        return "", "its access sits in a branch or a loop that is not affine 0..N step 1"
    if owner.name.startswith("affine.") and not _identity(upstream.access_map(owner)):
        return "", "its subscripts are not the loop variables in order"
    variables = [loop.regions[0].blocks[0].arguments[0] for loop in loops]
    extents = [constant_extent(loop) for loop in loops]
    if len(variables) != len(shape) or any(a != b for a, b in zip(subscripts, variables)):
        return "", "its subscripts are not the loop variables of the loops around it, outermost first"
    if extents != shape:
        return "", f"its loops run {extents}, not the array's shape {shape}"
    return direction, ""


def _enclosing_loops(op: ir.Operation, fn: Any) -> list[ir.Operation] | None:
    """The affine.for loops from the function body down to `op`, None if anything else is between."""
    loops: list[ir.Operation] = []
    parent = op.parent.operation
    while parent != fn.operation:
        if parent.name != "affine.for" or constant_extent(parent) is None or len(parent.results):
            return None
        loops.append(parent)
        parent = parent.parent.operation
    return loops[::-1]


def _identity(affine_map: ir.AffineMap) -> bool:
    results = list(affine_map.results)
    return (
        affine_map.n_symbols == 0
        and affine_map.n_dims == len(results)
        and all(
            isinstance(expr, ir.AffineDimExpr) and ir.AffineDimExpr(expr).position == k
            for k, expr in enumerate(results)
        )
    )
