"""HeteroCL's tensor operations: placeholder, compute, update, mutate, scalar, reductions, intrinsics."""

from __future__ import annotations

import inspect
import itertools
import math
import numbers
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from hclbuild.dsl.compound import AccRef, ImperativeValue, Logical, Reduce, Select, Var
from hclbuild.dsl.context import current_default_dtype
from hclbuild.dsl.expr import (
    Cast,
    Const,
    Expr,
    Intrinsic,
    absolute,
    as_expr,
    float_operand,
    to_bool,
)
from hclbuild.dsl.expr import power as expr_power
from hclbuild.dsl.imperative import inferred_max_trip
from hclbuild.dsl.promotion import promote
from hclbuild.dsl.stmt import (
    Alloc,
    ComputeLoops,
    For,
    Return,
    StageStmt,
    Store,
    contains_return,
)
from hclbuild.dsl.tensor import Tensor, check_name, normalize_shape
from hclbuild.dsl.trace import active_program, active_scope, at_scope_top, record, recording_into, tracing
from hclbuild.dsl.types import DType, Float, Index, UInt, parse_dtype
from hclbuild.errors import APIError, MLIRLimitationError


def _dtype_or_default(dtype: object) -> DType:
    return current_default_dtype() if dtype is None else parse_dtype(dtype)


def placeholder(shape: object, name: str | None = None, dtype: object = None) -> Tensor:
    """hcl.placeholder(shape, name=None, dtype=None): an input of the algorithm."""
    shape_t = normalize_shape(shape, f"placeholder {name or ''}".strip())
    if name is not None:
        check_name(name, "placeholder")
    # placeholders are made before tracing; their names are made unique per schedule later
    tensor = Tensor(name or "", shape_t, _dtype_or_default(dtype), "placeholder")
    tensor.zero_dim = shape == ()
    return tensor


def _axis_names(fcompute: Callable[..., Any], ndim: int, what: str) -> list[str]:
    """Loop names from fcompute's parameter names (lambda x, y -> x, y), checking its arity."""
    try:
        params = list(inspect.signature(fcompute).parameters.values())
    except (TypeError, ValueError):
        return [f"i{k}" for k in range(ndim)]
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    required = [p for p in positional if p.default is p.empty]
    if varargs and len(required) <= ndim:
        return [p.name for p in positional[:ndim]] + [f"i{k}" for k in range(len(positional), ndim)]
    if not (len(required) <= ndim <= len(positional)):
        raise APIError(
            f"{what}: fcompute takes {len(positional)} argument(s) but the shape has {ndim} dimension(s)"
        )
    return [p.name for p in positional[:ndim]]


def _register_stage(stage: StageStmt) -> None:
    program = active_program()
    record(stage)
    if at_scope_top() and active_scope() is program.top:
        program.stages[stage.name] = stage


def _new_tensor(name: str, shape: tuple[int, ...], dtype: DType, kind: str) -> Tensor:
    dtype = active_program().dtype_overrides.get(name, dtype)
    tensor = Tensor(name, shape, dtype, kind)
    scope = active_scope()
    if at_scope_top():
        scope.allocs.append(tensor)
    else:
        # created inside a loop or branch: the buffer still lives for the whole function
        scope.allocs.append(tensor)
        record(Alloc(tensor))
    return tensor


def _trace_body(
    axes: list[Var], fcompute: Callable[..., Any], out: Tensor | None, what: str
) -> tuple[list, bool]:
    """Run fcompute on the axes, recording its statements; a returned value is stored into out."""
    scope = active_scope()
    body: list = []
    scope.return_depth += 1
    try:
        with recording_into(body):
            value = fcompute(*axes)
            if value is not None:
                if out is None:
                    raise APIError(f"{what}: mutate's fcompute must not return a value")
                if isinstance(value, Tensor) and not value.is_scalar:
                    raise APIError(
                        f"{what}: fcompute returned tensor {value.name!r}, expected an element value"
                    )
                record(Store(out, tuple(axes), as_expr(value, out.dtype)))
    finally:
        scope.return_depth -= 1
    has_return = contains_return(body)
    if out is not None and value is None and not has_return:
        raise APIError(f"{what}: fcompute returned nothing (return a value or use hcl.return_)")
    return body, has_return


def compute(
    shape: object, fcompute: Callable[..., Any], name: str | None = None, dtype: object = None
) -> Tensor:
    """hcl.compute(shape, fcompute, name=None, dtype=None): a new tensor, element by element."""
    program = active_program()
    requested = name
    name = program.unique_name(check_name(name, "compute")) if name else program.auto_name("compute")
    shape_t = normalize_shape(shape, f"compute {name!r}")
    if not callable(fcompute):
        raise APIError(f"compute {name!r}: fcompute must be callable")
    dt = _dtype_or_default(dtype)
    names = _axis_names(fcompute, len(shape_t), f"compute {name!r}")
    out = _new_tensor(name, shape_t, dt, "compute")
    axes = [Var(n, 0, extent) for n, extent in zip(names, shape_t)]
    out.axis = axes
    body, has_return = _trace_body(axes, fcompute, out, f"compute {name!r}")
    stage = StageStmt(
        name,
        "compute",
        [ComputeLoops(axes, body)],
        output=out,
        has_return=has_return,
        alias=_alias(requested, name),
    )
    out.stage = stage
    _register_stage(stage)
    return out


def update(tensor: Tensor, fcompute: Callable[..., Any], name: str | None = None) -> None:
    """hcl.update(tensor, fcompute, name=None): overwrite every element of tensor in place."""
    if not isinstance(tensor, Tensor):
        raise APIError(f"update: the first argument must be a tensor, got {type(tensor).__name__}")
    tensor.check_writable("update")
    program = active_program()
    requested = name
    name = program.unique_name(check_name(name, "update")) if name else program.auto_name("update")
    names = _axis_names(fcompute, tensor.ndim, f"update {name!r}")
    axes = [Var(n, 0, extent) for n, extent in zip(names, tensor.shape)]
    body, has_return = _trace_body(axes, fcompute, tensor, f"update {name!r}")
    stage = StageStmt(
        name,
        "update",
        [ComputeLoops(axes, body)],
        output=tensor,
        has_return=has_return,
        alias=_alias(requested, name),
    )
    _register_stage(stage)
    return None


def mutate(domain: object, fcompute: Callable[..., Any], name: str | None = None) -> None:
    """hcl.mutate(domain, fcompute, name=None): run imperative fcompute at every point of domain."""
    program = active_program()
    requested = name
    name = program.unique_name(check_name(name, "mutate")) if name else program.auto_name("mutate")
    if isinstance(domain, (tuple, list)) and any(isinstance(d, (Tensor, Expr)) for d in domain):
        _register_stage(_runtime_mutate(program, name, tuple(domain), fcompute))
        return
    shape_t = normalize_shape(domain, f"mutate {name!r}")
    names = _axis_names(fcompute, len(shape_t), f"mutate {name!r}")
    axes = [Var(n, 0, extent) for n, extent in zip(names, shape_t)]
    body, _ = _trace_body(axes, fcompute, None, f"mutate {name!r}")
    _register_stage(StageStmt(name, "mutate", [ComputeLoops(axes, body)], alias=_alias(requested, name)))


def _alias(requested: str | None, name: str) -> str:
    """The name the user gave a stage when a tensor held it (hcl.update(mean, ..., name="mean"), a
    compute "B" beside a placeholder "B"): the stage is mean_0 / B_0, and kernel.mean reaches it."""
    return requested if requested and requested != name else ""


def _runtime_mutate(program: Any, name: str, domain: tuple, fcompute: Callable[..., Any]) -> StageStmt:
    """A mutate whose domain has a runtime extent (a 0-d placeholder, an expression): nested
    hcl.for_ loops with runtime bounds (scf.for), the stage's loops in domain order."""
    names = _axis_names(fcompute, len(domain), f"mutate {name!r}")
    loops: list[For] = []
    for axis_name, extent in zip(names, domain):
        if not isinstance(extent, (Tensor, Expr)) and (
            isinstance(extent, bool) or not isinstance(extent, int) or extent <= 0
        ):
            raise APIError(
                f"mutate {name!r}: domain extents must be positive ints or runtime values, got {extent!r}"
            )
        loop_name = program.unique_name(axis_name)
        hi = as_expr(extent, Index())
        loops.append(For(Var(loop_name, 0, hi), Const(0, Index()), hi, 1, name=loop_name))
    for outer, inner in itertools.pairwise(loops):
        outer.body.append(inner)
    body, _ = _trace_body([loop.var for loop in loops], fcompute, None, f"mutate {name!r}")
    loops[-1].body.extend(body)
    for loop in loops:
        if not isinstance(loop.hi, Const):
            loop.max_trip = inferred_max_trip(loop)
    return StageStmt(name, "mutate", [loops[0]])


def scalar(value: object, name: str | None = None, dtype: object = None) -> Tensor:
    """hcl.scalar(init, name=None, dtype=None): a one-element tensor read and written through .v."""
    program = active_program()
    name = program.unique_name(check_name(name, "scalar")) if name else program.auto_name("scalar")
    dt = _dtype_or_default(dtype)
    out = _new_tensor(name, (1,), dt, "scalar")
    axis = Var("x", 0, 1)
    init = value if isinstance(value, Expr) else as_expr(value, dt)
    stage = StageStmt(
        name, "scalar", [ComputeLoops([axis], [Store(out, (axis,), as_expr(init, dt))])], output=out
    )
    out.stage = stage
    _register_stage(stage)
    return out


def local(*args: object, **kwargs: object) -> Tensor:
    """hcl.local(shape, dtype=None, name=None): an uninitialised local buffer the algorithm's own
    loops fill element by element, declared as a C kernel declares one (`float buf[64][64];`, no
    initialising loop). Called with a number or an expression instead of a shape (a tuple or list),
    it is HeteroCL's hcl.local(init, name, dtype), the older name of hcl.scalar.

    Reading an element before the algorithm writes it reads an undefined value, as in C: every
    element a result depends on must be written first (the LLVM reference reads what C would)."""
    first = kwargs["shape"] if "shape" in kwargs else args[0] if args else None
    if not isinstance(first, (tuple, list)):
        return scalar(*args, **kwargs)  # type: ignore[arg-type]
    return _local_buffer(*args, **kwargs)  # type: ignore[arg-type]


def _local_buffer(shape: object, dtype: object = None, name: str | None = None) -> Tensor:
    if not tracing():
        raise APIError(
            "hcl.local(shape, ...): a local buffer is made inside the algorithm (the function create_schedule traces)"
        )
    what = f"local {name or ''}".strip()
    if not shape:  # () or []: a value, which hcl.scalar makes
        raise APIError(
            f"{what}: a local buffer has a shape of at least one dimension (hcl.scalar makes one value)"
        )
    shape_t = normalize_shape(shape, what)
    program = active_program()
    name = program.unique_name(check_name(name, "local")) if name else program.auto_name("local")
    return _new_tensor(name, shape_t, _dtype_or_default(dtype), "local")


def reduce_axis(lower: int, upper: int, name: str | None = None) -> Var:
    """hcl.reduce_axis(lo, hi, name=None): a reduction loop variable over [lo, hi)."""
    for bound in (lower, upper):
        if isinstance(bound, bool) or not isinstance(bound, int):
            raise APIError(f"reduce_axis bounds must be Python ints, got {bound!r}")
    if upper <= lower:
        raise APIError(f"reduce_axis: empty range [{lower}, {upper})")
    if name is not None:
        check_name(name, "reduce_axis")
    if name is None:
        # axes made before tracing (at module level) still need distinct names: the schedule and
        # the builder find a stage's reduction loops by name (HeteroCL numbers them globally too)
        name = active_program().auto_name("rx") if tracing() else f"axis_{next(_untraced_axis_ids)}"
    return Var(name, lower, upper, kind="reduce")


_untraced_axis_ids = itertools.count()


def _axes(axis: object) -> tuple[Var, ...]:
    axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    for ax in axes:
        if not isinstance(ax, Var) or ax.kind != "reduce":
            raise APIError(f"reduction axis must come from hcl.reduce_axis, got {ax!r}")
    return axes


def _acc_dtype(expr: Expr, dtype: object) -> DType:
    if dtype is not None:
        return parse_dtype(dtype)
    # accumulate ints at >= 32 bits (C promotion) so a sum of uint8 does not wrap at 8 bits
    return promote(expr.dtype, expr.dtype) if expr.dtype.is_int or expr.dtype.is_index else expr.dtype


def _extreme(dtype: DType, lowest: bool) -> Expr:
    if dtype.is_float:
        return Const(-math.inf if lowest else math.inf, dtype)
    if dtype.is_fixed:
        raw_lo = -(1 << (dtype.bits - 1)) if dtype.is_signed else 0
        raw_hi = (1 << (dtype.bits - 1)) - 1 if dtype.is_signed else (1 << dtype.bits) - 1
        # exact: raw / 2**frac as a float rounds beyond 53 bits, and the rounded extreme wraps
        return Const(Fraction(raw_lo if lowest else raw_hi, 2**dtype.frac), dtype)
    lo = -(1 << (dtype.bits - 1)) if dtype.is_signed else 0
    hi = (1 << (dtype.bits - 1)) - 1 if dtype.is_signed else (1 << dtype.bits) - 1
    return Const(lo if lowest else hi, dtype)


def _reduction(kind: str, expr: object, axis: object, where: object, dtype: object, name: str | None) -> Expr:
    value = as_expr(expr)
    dt = _acc_dtype(value, dtype)
    cond = None if where is True else to_bool(where)
    init = {
        "sum": lambda: Const(0.0 if dt.is_float or dt.is_fixed else 0, dt),
        "max": lambda: _extreme(dt, lowest=True),
        "min": lambda: _extreme(dt, lowest=False),
    }[kind]()
    acc_name = active_program().unique_name(name or f"{kind}_acc")
    return Reduce(kind, init, value, _axes(axis), cond, dt, acc_name, named=name is not None)


def sum(
    expr: object, axis: object = None, where: object = True, dtype: object = None, name: str | None = None
) -> Expr:
    """hcl.sum(expr, axis, where=True, dtype=None): sum over reduce axes."""
    return _reduction("sum", expr, axis, where, dtype, name)


def max(
    expr: object, axis: object = None, where: object = True, dtype: object = None, name: str | None = None
) -> Expr:
    """hcl.max(expr, axis, where=True, dtype=None): maximum over reduce axes."""
    return _reduction("max", expr, axis, where, dtype, name)


def min(
    expr: object, axis: object = None, where: object = True, dtype: object = None, name: str | None = None
) -> Expr:
    """hcl.min(expr, axis, where=True, dtype=None): minimum over reduce axes."""
    return _reduction("min", expr, axis, where, dtype, name)


def reducer(
    init: object, freduce: Callable[[Expr, Expr], Any], dtype: object = "int32", name: str | None = None
) -> Callable[..., Expr]:
    """hcl.reducer(init, freduce, dtype="int32"): a custom reduction; freduce(value, acc) -> new acc."""
    base_dtype = parse_dtype(dtype)

    def reduce_with(
        expr: object, axis: object = None, where: object = True, name: str | None = name, dtype: object = None
    ) -> Expr:
        dt = parse_dtype(dtype) if dtype is not None else base_dtype
        value = as_expr(expr)
        acc = AccRef(dt)
        combined = _reducer_body(freduce, value, acc, dt)
        cond = None if where is True else to_bool(where)
        acc_name = active_program().unique_name(name or "reducer_acc")
        return Reduce(
            "custom",
            as_expr(init, dt),
            value,
            _axes(axis),
            cond,
            dt,
            acc_name,
            combine=combined,
            named=name is not None,
        )

    return reduce_with


def _reducer_body(freduce: Callable[..., Any], value: Expr, acc: AccRef, dtype: DType) -> Expr:
    """The new accumulator of a custom reducer: freduce's returned expression, or, when freduce is
    imperative (hcl.if_ ... hcl.return_(...)), its statements as one value (HeteroCL's example 2)."""
    scope = active_scope()
    stmts: list = []
    scope.return_depth += 1
    try:
        with recording_into(stmts):
            result = freduce(value, acc)
    finally:
        scope.return_depth -= 1
    if not stmts:
        return as_expr(result, dtype)
    if result is not None:
        stmts.append(Return(as_expr(result, dtype)))
    elif not contains_return(stmts):
        raise APIError(
            "hcl.reducer: the reduction function returned nothing (return a value or use hcl.return_)"
        )
    return ImperativeValue(stmts, acc, dtype)


def select(cond: object, true_value: object, false_value: object) -> Expr:
    """hcl.select(cond, t, f): t where cond holds, else f."""
    tv = as_expr(true_value, _select_hint(false_value, true_value))
    fv = as_expr(false_value, _select_hint(tv, false_value))
    dt = tv.dtype if tv.dtype == fv.dtype else promote(tv.dtype, fv.dtype, "select")
    return Select(to_bool(cond), tv, fv, dt)


def _select_hint(other: object, value: object) -> DType | None:
    """The type a literal `value` takes beside `other` in a select. A float literal beside an
    integer is the narrowest float that holds every value of that integer exactly, so the integer
    passes through unchanged (in float32, 2**31 - 1 had come back as -2**31); elsewhere, as in
    arithmetic, the other value's type."""
    if not isinstance(other, Expr):
        return None
    kind = other.dtype
    fractional = isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral)
    if fractional and (kind.is_int or kind.is_index):
        value_bits = 32 if kind.is_index else kind.bits - (1 if kind.is_signed else 0)
        return Float(32) if value_bits <= 24 else Float(64)
    return kind


def cast(dtype: object, expr: object) -> Expr:
    """hcl.cast(dtype, expr): convert expr to dtype (ints wrap, fixed truncates and wraps)."""
    dt = parse_dtype(dtype)
    return Cast(dt, as_expr(expr, dt))


def and_(*args: object) -> Expr:
    """hcl.and_(a, b, ...): logical and of conditions; and_() is true, and_(a) is a as a condition."""
    if not args:
        return Const(1, UInt(1))
    if len(args) == 1:
        return to_bool(args[0])
    return Logical("and", tuple(to_bool(a) for a in args))


def or_(*args: object) -> Expr:
    """hcl.or_(a, b, ...): logical or of conditions; or_() is false, or_(a) is a as a condition."""
    if not args:
        return Const(0, UInt(1))
    if len(args) == 1:
        return to_bool(args[0])
    return Logical("or", tuple(to_bool(a) for a in args))


def all_of(*conditions: object) -> Expr:
    """hcl.all(a, b, ...): true when every condition holds (HeteroCL refuses hcl.all() of nothing)."""
    if not conditions:
        raise APIError("hcl.all needs at least one condition (hcl.and_() of nothing is true)")
    return and_(*conditions)


def any_of(*conditions: object) -> Expr:
    """hcl.any(a, b, ...): true when some condition holds (HeteroCL refuses hcl.any() of nothing)."""
    if not conditions:
        raise APIError("hcl.any needs at least one condition (hcl.or_() of nothing is false)")
    return or_(*conditions)


def not_(arg: object) -> Expr:
    """hcl.not_(a): logical negation."""
    return Logical("not", (to_bool(arg),))


def _unary(name: str) -> Callable[[object], Expr]:
    def intrinsic(x: object) -> Expr:
        value = float_operand(x)
        return Intrinsic(name, (value,), value.dtype)

    intrinsic.__name__ = name
    intrinsic.__doc__ = f"hcl.{name}(x): elementwise {name} (integer arguments are converted to float)."
    return intrinsic


exp = _unary("exp")
log = _unary("log")
log2 = _unary("log2")
log10 = _unary("log10")
sqrt = _unary("sqrt")
sin = _unary("sin")
cos = _unary("cos")
tanh = _unary("tanh")


# hcl.abs and hcl.power are the intrinsics that `abs(x)` and `x ** y` build (hclbuild.dsl.expr)
abs = absolute
power = expr_power


def tan(x: object) -> Expr:
    """hcl.tan is not available (as in HeteroCL's MLIR flow)."""
    raise MLIRLimitationError("hcl.tan is not supported (as in HeteroCL); use hcl.sin(x) / hcl.cos(x)")
