"""How much work each function of a module does per run: memory accesses times static trip counts.

The LLVM reference compiles every function of a design once and usually runs it once. LLVM's
O2/O3 pipeline costs 5-20 ms per function even when the function's loops run 256 iterations,
which is most of a 200-function build; a function doing that little work runs in microseconds
unoptimised. to_llvm marks such functions `optnone` (compiled like -O0, fast instruction
selection) and leaves the rest to O3: compile effort follows the work.

The estimate counts loads and stores (affine and memref) weighted by the constant trip counts of
the loops around them, and by how often the function is called (call sites in loops of callers,
from every public function). A loop whose trip count is not a constant, a while loop, or a
recursive call makes the work unknown, which counts as large.
"""

from __future__ import annotations

import math

from mlir import ir

from hclbuild.compiler import upstream_attrs as upstream

UNKNOWN = math.inf
_ACCESS_OPS = frozenset(
    {
        "affine.load",
        "affine.store",
        "memref.load",
        "memref.store",
        "affine.vector_load",
        "affine.vector_store",
        "vector.load",
        "vector.store",
    }
)


def _constant_index(value: ir.Value) -> int | None:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return None
    attr = upstream.constant_value(owner)
    return ir.IntegerAttr(attr).value if isinstance(attr, ir.IntegerAttr) else None


def _constant_bound(bound: ir.AffineMap) -> int | None:
    if bound.n_dims or bound.n_symbols or len(bound.results) != 1:
        return None
    result = bound.results[0]
    return result.value if isinstance(result, ir.AffineConstantExpr) else None


def constant_loop_bounds(loop: ir.Operation) -> tuple[int, int, int] | None:
    """(lower, upper, step) of an affine.for or scf.for whose bounds and step are constants, else None."""
    lo: int | None
    hi: int | None
    step: int | None
    if loop.name == "affine.for":
        lo = _constant_bound(upstream.lower_bound_map(loop))
        hi = _constant_bound(upstream.upper_bound_map(loop))
        step = upstream.loop_step(loop)
    elif loop.name == "scf.for":
        lo, hi, step = (_constant_index(v) for v in list(loop.operands)[:3])
    else:
        return None
    if lo is None or hi is None or step is None or step <= 0:
        return None
    return lo, hi, step


def trip_count(loop: ir.Operation) -> float:
    """Iterations of an affine.for or scf.for with constant bounds and step, else UNKNOWN."""
    bounds = constant_loop_bounds(loop)
    if bounds is None:
        return UNKNOWN
    lo, hi, step = bounds
    return max(0, -(-(hi - lo) // step))


def _own_work(func_op: ir.Operation) -> tuple[float, dict[str, float]]:
    """(accesses per call, {callee: calls per call}) of one function body."""
    work = 0.0
    calls: dict[str, float] = {}

    def visit(op: ir.Operation, times: float) -> None:
        nonlocal work
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    inner = inner.operation
                    name = inner.name
                    if name in _ACCESS_OPS:
                        work += times
                    elif name == "func.call":
                        callee = upstream.callee(inner)
                        calls[callee] = calls.get(callee, 0.0) + times
                    inside = times
                    if name in ("affine.for", "scf.for"):
                        inside = times * trip_count(inner)
                    elif name in ("scf.while", "affine.parallel", "scf.parallel"):
                        inside = UNKNOWN
                    if inner.regions:
                        visit(inner, inside)

    visit(func_op, 1.0)
    return work, calls


def function_work(module: ir.Module) -> dict[str, float]:
    """Accesses per run of every defined function, public functions called once (UNKNOWN if not static)."""
    bodies: dict[str, ir.Operation] = {}
    public: list[str] = []
    for op in module.body.operations:
        op = op.operation
        if op.name != "func.func" or not op.regions[0].blocks:
            continue
        name = upstream.symbol_name(op)
        bodies[name] = op
        if upstream.is_public(op):
            public.append(name)
    own = {name: _own_work(op) for name, op in bodies.items()}
    runs: dict[str, float] = dict.fromkeys(bodies, 0.0)
    for name in public:
        runs[name] = 1.0
    # callers before callees; a call cycle (recursion) makes every function on it UNKNOWN
    for name in _callers_first(own):
        for callee, count in own[name][1].items():
            if callee in runs:
                runs[callee] += runs[name] * count
    return {name: own[name][0] * runs[name] if runs[name] else 0.0 for name in bodies}


def _callers_first(own: dict[str, tuple[float, dict[str, float]]]) -> list[str]:
    order: list[str] = []
    state: dict[str, int] = {}

    def visit(name: str) -> None:
        state[name] = 1
        for callee in own[name][1]:
            if callee not in own:
                continue
            if state.get(callee) == 1:
                own[callee] = (UNKNOWN, own[callee][1])  # recursion: no static count
            elif callee not in state:
                visit(callee)
        state[name] = 2
        order.append(name)

    for name in own:
        if name not in state:
            visit(name)
    return order[::-1]


__all__ = ["UNKNOWN", "constant_loop_bounds", "function_work", "trip_count"]
