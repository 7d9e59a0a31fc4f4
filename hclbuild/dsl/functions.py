"""@hcl.def_: user functions that become their own func.func, wherever they are defined.

HeteroCL appended the function to whatever AST scope was current at decoration time, so a
function decorated at import time landed in a scratch scope that was thrown away: a call with
no definition (segfault on LLVM, silent omission on HLS). Here decoration records nothing at
all; the body is traced at its first call, into the Program being traced *now*, keyed by the
argument signature. The verifier then guarantees every call has its definition.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, overload

from hclbuild.dsl.compound import Call
from hclbuild.dsl.context import current_default_dtype
from hclbuild.dsl.expr import Expr, as_expr
from hclbuild.dsl.promotion import promote
from hclbuild.dsl.stmt import CallStmt, Return, StageStmt, contains_return
from hclbuild.dsl.tensor import Tensor, normalize_shape
from hclbuild.dsl.trace import Scope, active_program, function_scope, record
from hclbuild.dsl.types import DType, parse_dtype
from hclbuild.errors import APIError


@dataclass(eq=False)
class ScalarParam:
    """A scalar parameter of a def_ function; inside the body it is an expression."""

    name: str
    dtype: DType


@dataclass(eq=False)
class ScalarRef(Expr):
    """The value of a scalar parameter inside the function body."""

    param: ScalarParam

    # read-only, derived from what it reads; Expr declares a plain attribute, so [override]
    @property
    def dtype(self) -> DType:  # type: ignore[override]
        return self.param.dtype


@dataclass(eq=False)
class TracedFunction:
    """One func.func made from a def_ function for one argument signature."""

    name: str
    scope: Scope
    ret_dtype: DType | None
    key: tuple = field(default_factory=tuple)


def override_key(function: str, param: str | None = None) -> str:
    """The dtype_overrides key of a def_ function's return value, or of one of its parameters."""
    return f"def_ {function}" + ("" if param is None else f".{param}")


class FunctionHandle:
    """kernel.<def_ name> after create_schedule, as in HeteroCL: what a scheme downsizes or
    quantizes (the function's return value), and `.<parameter>` one of its parameters."""

    def __init__(self, name: str, params: tuple[str, ...], param: str | None = None):
        self.name, self.params, self.param = name, params, param

    @property
    def override_key(self) -> str:
        return override_key(self.name, self.param)

    def __getattr__(self, attr: str) -> FunctionHandle:
        if attr.startswith("_") or self.param is not None or attr not in self.params:
            raise AttributeError(f"def_ function {self.name!r} has no parameter {attr!r}")
        return FunctionHandle(self.name, self.params, attr)

    def __repr__(self) -> str:
        return f"FunctionHandle({self.name}{'' if self.param is None else '.' + self.param})"


class DefFunction:
    """What @hcl.def_ returns: calling it inside an algorithm emits a call of its func.func."""

    def __init__(self, fn: Callable[..., Any], shapes: Any, dtypes: Any, ret_dtype: Any, name: str | None):
        self.fn = fn
        self.shapes = shapes
        self.dtypes = dtypes
        self.ret_dtype = ret_dtype
        self.name = name or fn.__name__
        params = list(inspect.signature(fn).parameters.values())
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
            raise APIError(f"def_ function {self.name!r}: *args/**kwargs parameters are not supported")
        self.param_names = [p.name for p in params]
        if shapes is not None and len(shapes) != len(self.param_names):
            raise APIError(
                f"def_ function {self.name!r}: {len(shapes)} shapes given for {len(self.param_names)} parameters"
            )
        functools.update_wrapper(self, fn)

    def _param_dtype(self, k: int, arg: object) -> DType:
        override = active_program().dtype_overrides.get(override_key(self.name, self.param_names[k]))
        if override is not None:
            return override  # a scheme's downsize/quantize of this parameter
        if self.dtypes is not None:
            spec = self.dtypes[k] if isinstance(self.dtypes, (list, tuple)) else self.dtypes
            return parse_dtype(spec)
        if isinstance(arg, Tensor):
            return arg.dtype
        if isinstance(arg, Expr) and not arg.dtype.is_index:
            # the value's own type, as HeteroCL's FuncOp infers it: a Float converted to the
            # hcl.init() dtype (Int(32)) had lost its fraction
            return arg.dtype
        return current_default_dtype()

    def _signature(self, args: tuple[Any, ...]) -> tuple[tuple, list[Any]]:
        if len(args) != len(self.param_names):
            raise APIError(
                f"def_ function {self.name!r} takes {len(self.param_names)} arguments, got {len(args)}"
            )
        key: list[tuple] = []
        converted: list[Any] = []
        for k, (pname, arg) in enumerate(zip(self.param_names, args)):
            want = None if self.shapes is None else self.shapes[k]
            dtype = self._param_dtype(k, arg)
            if isinstance(arg, Tensor) and not (want is not None and tuple(want) == () and arg.shape == (1,)):
                if want is not None and normalize_shape(want, self.name) != arg.shape:
                    raise APIError(
                        f"def_ function {self.name!r}: argument {pname!r} has shape {arg.shape}, "
                        f"declared {tuple(want)}"
                    )
                if dtype != arg.dtype:
                    raise APIError(
                        f"def_ function {self.name!r}: argument {pname!r} has dtype {arg.dtype!r}, declared {dtype!r}"
                    )
                key.append(("tensor", arg.shape, dtype))  # the DType itself: a Struct keeps its fields
                converted.append(arg)
            else:
                if want is not None and tuple(want) != ():
                    raise APIError(
                        f"def_ function {self.name!r}: argument {pname!r} is a scalar, declared shape {tuple(want)}"
                    )
                key.append(("scalar", dtype))
                converted.append(as_expr(arg, dtype))
        return tuple(key), converted

    def __call__(self, *args: Any) -> Any:
        program = active_program()
        key, converted = self._signature(args)
        full_key = (id(self.fn), key)
        if full_key in program.in_progress:
            raise APIError(
                f"def_ function {self.name!r} calls itself: recursion is not supported in hardware"
            )
        traced = program.function_keys.get(full_key)
        if traced is None:
            traced = self._trace(program, full_key, key)
        if traced.ret_dtype is not None:
            return Call(traced, tuple(converted), traced.ret_dtype)
        record(CallStmt(traced, tuple(converted)))
        return None

    def _trace(self, program: Any, full_key: tuple, key: tuple) -> TracedFunction:
        base = self.name
        name = program.unique_name(base)
        scope = Scope(name)
        body_args: list[Any] = []
        for pname, (kind, *rest) in zip(self.param_names, key):
            if kind == "tensor":
                shape, dtype = rest
                tensor = Tensor(pname, shape, dtype, "param")
                scope.params.append(tensor)
                body_args.append(tensor)
            else:
                param = ScalarParam(pname, rest[0])
                scope.params.append(param)
                body_args.append(ScalarRef(param))
        program.in_progress.add(full_key)
        scope.return_depth = 1
        try:
            with function_scope(scope):
                result = self.fn(*body_args)
        finally:
            program.in_progress.discard(full_key)
        if result is not None and not isinstance(result, Tensor):
            raise APIError(f"def_ function {self.name!r}: use hcl.return_(value) to return a value")
        ret = None
        if contains_return(scope.body):
            ret = program.dtype_overrides.get(override_key(self.name))  # a scheme's, else the declared
            if ret is None:
                ret = (
                    parse_dtype(self.ret_dtype) if self.ret_dtype is not None else _returned_dtype(scope.body)
                )
        program.def_handles.setdefault(self.name, FunctionHandle(self.name, tuple(self.param_names)))
        traced = TracedFunction(name, scope, ret, key)
        program.function_keys[full_key] = traced
        program.functions.append(traced)
        return traced


def _returned_dtype(stmts: list[Any]) -> DType:
    """The type of what a def_ function returns, as HeteroCL infers it from the returned value: the
    common type of its hcl.return_ values (promoted as arithmetic does), else the hcl.init() dtype."""
    found: list[DType] = []

    def visit(items: list[Any]) -> None:
        for stmt in items:
            if isinstance(stmt, Return) and isinstance(stmt.value, Expr) and not stmt.value.dtype.is_index:
                found.append(stmt.value.dtype)
            for child in (getattr(stmt, "body", None), getattr(stmt, "orelse", None)):
                if isinstance(child, list) and not isinstance(stmt, StageStmt):
                    visit(child)

    visit(stmts)
    if not found or any(d.is_struct for d in found):
        return found[0] if found and all(d == found[0] for d in found) else current_default_dtype()
    common = found[0]
    for dtype in found[1:]:
        common = common if dtype == common else promote(common, dtype)
    return common


# bare `@hcl.def_` is the function itself; `@hcl.def_(shapes, ...)` a decorator that makes one
@overload
def def_(shapes: Callable[..., Any], dtypes: None = None, ret_dtype: None = None) -> DefFunction: ...
@overload
def def_(
    shapes: Any = None,
    dtypes: Any = None,
    ret_dtype: Any = None,
    name: str | None = None,
    arg_names: Any = None,
) -> Callable[[Callable[..., Any]], DefFunction]: ...
def def_(
    shapes: Any = None,
    dtypes: Any = None,
    ret_dtype: Any = None,
    name: str | None = None,
    arg_names: Any = None,
) -> DefFunction | Callable[[Callable[..., Any]], DefFunction]:
    """@hcl.def_(shapes=None, dtypes=None, ret_dtype=None, name=None): make fn its own function."""
    if callable(shapes) and dtypes is None and ret_dtype is None:
        return DefFunction(shapes, None, None, None, None)

    def decorate(fn: Callable[..., Any]) -> DefFunction:
        return DefFunction(fn, shapes, dtypes, ret_dtype, name)

    return decorate
