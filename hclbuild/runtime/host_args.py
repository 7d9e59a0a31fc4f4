"""HeteroCL's leniencies for the arguments of a built function, applied before the strict checks.

- a Python (or numpy) number for a placeholder declared with shape () (`f(10, A, B)`);
- an integer numpy array (or hcl.Array) of the argument's width but the other signedness is
  reinterpreted in place (a view of the same bits), so outputs still land in the caller's array.
Everything else goes unchanged to the JIT function, whose checks stay strict.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from hclbuild.dsl.array import Array, asarray
from hclbuild.dsl.tensor import Tensor
from hclbuild.errors import APIError


class HostFunction:
    """What hcl.build(s) returns for LLVM: the JIT function, called with HeteroCL's argument rules."""

    def __init__(self, jit_function: Any, params: list[Any], unlisted_outputs: list[str] | None = None):
        self._function = jit_function
        self._params = params
        # a module-level algorithm's computed tensors that create_schedule did not list
        self._unlisted = unlisted_outputs or []
        self.signature = jit_function.signature
        self.__name__ = getattr(jit_function, "__name__", "top")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_function"], name)

    def __repr__(self) -> str:
        return repr(self._function)

    def __call__(self, *args: Any) -> Any:
        if len(args) > len(self._params) and self._unlisted:
            listed = ", ".join(p.name for p in self._params)
            raise APIError(
                f"{self.signature.name}: expected {len(self._params)} arguments ({listed}), got {len(args)}: "
                f"the design's arguments are the tensors create_schedule lists, outputs too, for an algorithm "
                f"written at module level (hcl.create_schedule([{', '.join([listed, *self._unlisted])}]))"
            )
        if len(args) == len(self._params):
            args = tuple(convert_argument(param, value) for param, value in zip(self._params, args))
        return self._function(*args)


def convert_argument(param: Any, value: Any) -> Any:
    """A value given for `param` with HeteroCL's leniencies applied (the module docstring), else unchanged."""
    if not isinstance(param, Tensor):
        return value
    dtype = param.dtype
    if param.zero_dim and _is_number(value):
        number = value.item() if isinstance(value, np.ndarray) else value
        return asarray(np.array([number], dtype=object if not dtype.is_float else np.float64), dtype)
    if not (dtype.is_int and not dtype.is_index) or dtype.storage_bits > 64:
        return value
    want = dtype.np_storage
    if (
        isinstance(value, np.ndarray)
        and value.dtype.kind in "iu"
        and value.dtype != want
        and value.dtype.itemsize == want.itemsize
    ):
        return value.view(want)
    if (
        isinstance(value, Array)
        and value.dtype != dtype
        and value.dtype.is_int
        and value.dtype.bits == dtype.bits
        and value.storage.dtype.itemsize == want.itemsize
    ):
        return Array(value.storage.view(want), dtype)
    return value


def _is_number(value: Any) -> bool:
    if isinstance(value, np.ndarray):
        return value.shape in ((), (1,)) and value.dtype.kind in "iuf"
    return isinstance(value, (numbers.Integral, numbers.Real, np.integer, np.floating)) and not isinstance(
        value, bool
    )
