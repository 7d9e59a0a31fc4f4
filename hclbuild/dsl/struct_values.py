"""Host values of Struct dtypes: numpy structured arrays (one named field per struct field) or
plain integers (the packed bits) in, numpy structured arrays out; see hclbuild.dsl.types."""

from __future__ import annotations

import numpy as np

from hclbuild.dsl.types import DType, UInt, from_storage, raw_ints, to_storage
from hclbuild.errors import DTypeError


def _field_raw(values: np.ndarray, dtype: DType) -> list[int]:
    """The raw bits (unsigned) of one field's values converted to the field's dtype."""
    storage = to_storage(values, dtype)
    if dtype.is_float:
        storage = storage.view(np.dtype(f"u{dtype.bits // 8}"))
        return [int(v) for v in storage.reshape(-1)]
    return [int(v) & ((1 << dtype.bits) - 1) for v in raw_ints(storage, dtype).reshape(-1)]


def packed_struct_ints(values: np.ndarray, dtype: DType) -> np.ndarray:
    """An object array of the packed unsigned integers of struct values (first field lowest)."""
    names = values.dtype.names
    if names is None:
        # whole numbers are packed bits (np.zeros for an output included); fractions are a mistake
        if values.dtype.kind == "f" and not np.all(np.isfinite(values) & (values == np.trunc(values))):
            raise DTypeError(
                f"{dtype!r}: give a numpy structured array with fields "
                f"{[n for n, _ in dtype.fields]}, or the packed integers"
            )
        if values.dtype.kind == "f":
            return np.vectorize(int, otypes=[object])(values) if values.size else values.astype(object)
        return np.asarray(values, dtype=object)
    missing = [n for n, _ in dtype.fields if n not in names]
    if missing:
        raise DTypeError(f"{dtype!r}: the structured array has no field {missing[0]!r}")
    packed = [0] * values.size
    offset = 0
    for name, field_dtype in dtype.fields:
        for k, raw in enumerate(_field_raw(np.asarray(values[name]).reshape(-1), field_dtype)):
            packed[k] |= raw << offset
        offset += field_dtype.bits
    return np.array(packed, dtype=object).reshape(values.shape)


def _numpy_field(dtype: DType) -> np.dtype:
    if dtype.is_float:
        return dtype.np_storage
    if dtype.is_fixed:
        return np.dtype(np.float64)
    if dtype.is_struct or dtype.bits > 64:
        return np.dtype(object)
    return np.dtype(np.int64 if dtype.is_signed else np.uint64)


def struct_values(storage: np.ndarray, dtype: DType) -> np.ndarray:
    """The structured array of struct values held as packed bits in `storage`."""
    packed = [int(v) for v in raw_ints(storage, UInt(dtype.bits)).reshape(-1)]
    out = np.zeros(len(packed), dtype=[(n, _numpy_field(d)) for n, d in dtype.fields])
    offset = 0
    for name, field_dtype in dtype.fields:
        raw = [(v >> offset) & ((1 << field_dtype.bits) - 1) for v in packed]
        if field_dtype.is_float:
            column = np.array(raw, dtype=np.uint64).astype(np.dtype(f"u{field_dtype.bits // 8}"))
            out[name] = column.view(field_dtype.np_storage)
        elif field_dtype.is_struct:
            for k, v in enumerate(raw):
                out[name][k] = v  # a nested struct stays packed
        else:
            # the field's raw bits in its own container (signed or not, same bytes), then its values
            bits = to_storage(np.array(raw, dtype=object), UInt(field_dtype.bits))
            out[name] = from_storage(bits.view(field_dtype.np_storage), field_dtype)
        offset += field_dtype.bits
    return out.reshape(storage.shape)
