"""hcl.asarray: host arrays holding raw bits of an hclbuild dtype (HeteroCL's Array)."""

from __future__ import annotations

import numpy as np

from hclbuild.dsl.context import current_default_dtype
from hclbuild.dsl.storage import from_storage, to_storage
from hclbuild.dsl.types import DType, parse_dtype
from hclbuild.errors import APIError


class Array:
    """A host buffer of `dtype` elements stored as raw bits (see hclbuild.dsl.types)."""

    def __init__(self, storage: np.ndarray, dtype: DType):
        self.storage = np.ascontiguousarray(storage)
        self.dtype = dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.storage.shape)

    def asnumpy(self) -> np.ndarray:
        """Values as numpy: ints as int64/uint64 (object beyond 64 bits), fixed as float64."""
        return from_storage(self.storage, self.dtype)

    def __repr__(self) -> str:
        return f"hcl.Array({self.asnumpy()!r}, dtype={self.dtype!r})"


def asarray(values: object, dtype: object = None) -> Array:
    """hcl.asarray(np_array, dtype=None): convert values (floats too, for fixed types) to `dtype`."""
    if isinstance(values, Array):
        values = values.asnumpy()
    arr = np.asarray(values)
    if arr.dtype == object and dtype is None:
        raise APIError("asarray: give a dtype for an object array")
    if dtype is None:
        # HeteroCL: an untyped asarray takes the hcl.init dtype, not the numpy one
        dt = current_default_dtype()
    else:
        dt = parse_dtype(dtype)
    return Array(to_storage(arr, dt), dt)
