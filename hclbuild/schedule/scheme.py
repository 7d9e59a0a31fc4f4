"""hcl.create_scheme / Scheme.downsize / Scheme.quantize / hcl.create_schedule_from_scheme.

HeteroCL's data-type customization: the algorithm is traced once to name its tensors, the
scheme records new dtypes for some of them, and create_schedule_from_scheme traces the algorithm
again with those dtypes, so every expression is typed as if the algorithm had been written with
them (nothing is patched after the fact).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hclbuild.dsl.functions import FunctionHandle
from hclbuild.dsl.stmt import StageStmt
from hclbuild.dsl.tensor import Tensor
from hclbuild.dsl.types import DType, parse_dtype
from hclbuild.errors import APIError
from hclbuild.schedule.schedule import Schedule
from hclbuild.schedule.stage import Stage
from hclbuild.schedule.tracing import ScheduleT, create_schedule, trace_schedule


class Scheme:
    """What hcl.create_scheme returns: a traced algorithm plus the dtype changes asked for."""

    def __init__(self, inputs: list[Tensor], func: Callable[..., Any], name: str | None):
        self.inputs = inputs
        self.func = func
        self.name = name
        self.input_dtypes = {id(t): t.dtype for t in inputs}
        self.dtypes: dict[str, DType] = {}  # tensor name -> new dtype (computed tensors)
        self.schedule = create_schedule(inputs, func, name, schedule_class=Schedule)

    def downsize(self, targets: object, dtype: object) -> None:
        """downsize(tensors, Int(n)|UInt(n)): integer tensors get a narrower integer type."""
        dt = parse_dtype(dtype)
        if not (dt.is_int and not dt.is_index):
            raise APIError(f"downsize: {dt!r} is not an integer type (use quantize for fixed point)")
        self._set(targets, dt, "downsize")

    def quantize(self, targets: object, dtype: object) -> None:
        """quantize(tensors, Fixed(w, f)|UFixed(w, f)): tensors get a fixed-point type."""
        dt = parse_dtype(dtype)
        if not dt.is_fixed:
            raise APIError(f"quantize: {dt!r} is not a fixed-point type (use downsize for integers)")
        self._set(targets, dt, "quantize")

    def _set(self, targets: object, dtype: DType, what: str) -> None:
        items = targets if isinstance(targets, (list, tuple)) else [targets]
        for item in items:
            if isinstance(item, FunctionHandle):  # a def_ function's return value or parameter
                self.dtypes[item.override_key] = dtype
                continue
            tensor = _tensor_of(item, what)
            if any(tensor is t for t in self.inputs):
                self.input_dtypes[id(tensor)] = dtype
            else:
                self.dtypes[tensor.name] = dtype


def _tensor_of(item: object, what: str) -> Tensor:
    if isinstance(item, Stage):
        item = item.stmt
    if isinstance(item, StageStmt):
        if item.output is None:
            raise APIError(f"{what}: stage {item.name!r} produces no tensor of its own")
        item = item.output
    if not isinstance(item, Tensor):
        raise APIError(f"{what}: expected a tensor or stage of the scheme, got {item!r}")
    return item


def create_scheme(inputs: object, func: Callable[..., Any] | None = None, name: str | None = None) -> Scheme:
    """hcl.create_scheme(inputs, func): a scheme for data-type customization of func's tensors."""
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    if not isinstance(inputs, (list, tuple)) or not all(isinstance(t, Tensor) for t in inputs):
        raise APIError("create_scheme: inputs must be a list of hcl.placeholder tensors")
    if func is None:
        raise APIError("create_scheme needs the algorithm function (a scheme traces it again)")
    return Scheme(list(inputs), func, name)


def create_schedule_from_scheme(
    scheme: Scheme, name: str | None = None, *, schedule_class: type[ScheduleT]
) -> ScheduleT:
    """hcl.create_schedule_from_scheme(scheme): the algorithm traced again with the scheme's dtypes
    (a `schedule_class`, as create_schedule makes)."""
    if not isinstance(scheme, Scheme):
        raise APIError(
            f"create_schedule_from_scheme: expected a scheme from hcl.create_scheme, got {scheme!r}"
        )
    for tensor in scheme.inputs:
        tensor.dtype = scheme.input_dtypes[id(tensor)]
    return trace_schedule(
        scheme.inputs, scheme.func, name or scheme.name, dict(scheme.dtypes), schedule_class
    )
