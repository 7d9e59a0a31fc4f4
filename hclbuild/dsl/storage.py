"""Host values <-> raw-bit containers: what the runtime passes to compiled code, what asarray holds
and what golden files store, for every dtype of hclbuild.dsl.types.

A container is the smallest numpy unsigned integer (or float, for floats) holding the bits; beyond
64 bits, 64-bit words. Struct values come in as numpy structured arrays (one named field per struct
field) or plain integers (the packed bits) and go out as numpy structured arrays.
"""

from __future__ import annotations

import numpy as np

from hclbuild.dsl.types import DType, Struct, UInt
from hclbuild.errors import DTypeError


def _contiguous(array: np.ndarray) -> np.ndarray:
    """C-contiguous without np.ascontiguousarray's promotion of 0-d arrays to shape (1,)."""
    array = np.asarray(array)
    return array if array.flags.c_contiguous else array.copy(order="C")


def to_storage(values: np.ndarray | object, dtype: DType) -> np.ndarray:
    """Convert values (numbers, or floats for fixed types) to the raw-bit container array.

    Integers wrap to the type's width; fixed-point values are truncated toward minus infinity
    (AP_TRN) and wrap (AP_WRAP), as Vitis ap_fixed does on assignment from float.
    The low `bits` of each container hold the raw bits, the rest is zero.
    """
    if dtype.is_float:
        return _contiguous(np.asarray(values, dtype=dtype.np_storage))
    arr = np.asarray(values)
    if isinstance(dtype, Struct):
        return _pack_ints(packed_struct_ints(arr, dtype), dtype)
    if dtype.is_fixed:
        if arr.dtype.kind == "f":
            raw = np.floor(arr.astype(np.float64) * float(2**dtype.frac))
            as_int = np.vectorize(int, otypes=[object])(raw) if raw.size else raw.astype(object)
        else:
            as_int = (
                np.vectorize(lambda v: int(v) << dtype.frac, otypes=[object])(arr)
                if arr.size
                else arr.astype(object)
            )
        return _pack_ints(np.asarray(as_int, dtype=object), dtype)
    if arr.dtype.kind == "f":
        # float -> int casts truncate toward zero, like C
        arr = np.trunc(arr)
        as_int = np.vectorize(int, otypes=[object])(arr) if arr.size else arr.astype(object)
        return _pack_ints(np.asarray(as_int, dtype=object), dtype)
    if arr.dtype == object or dtype.bits > 64 or arr.dtype.kind in "iub":
        return _pack_ints(arr, dtype)
    raise DTypeError(f"cannot convert numpy {arr.dtype} to {dtype.name}")


def _pack_ints(arr: np.ndarray, dtype: DType) -> np.ndarray:
    mask = (1 << dtype.bits) - 1
    store = dtype.np_storage
    if dtype.words:
        return _pack_words([int(v) & mask for v in arr.reshape(-1)], dtype).reshape(arr.shape)
    if arr.dtype != object and dtype.bits <= 64:
        raw = (
            arr.astype(np.int64, copy=False).view(np.uint64)
            if arr.dtype.kind != "u"
            else arr.astype(np.uint64)
        )
        if arr.dtype.kind == "b":
            raw = arr.astype(np.uint64)
        raw = raw & np.uint64(mask)
        return _contiguous(raw.astype(np.dtype(f"u{store.itemsize}")).view(store))
    flat = [int(v) & mask for v in arr.reshape(-1)]
    raw = np.array(flat, dtype=np.uint64).astype(np.dtype(f"u{store.itemsize}"))
    return _contiguous(raw.view(store).reshape(arr.shape))


def _pack_words(values: list[int], dtype: DType) -> np.ndarray:
    """Non-negative Python ints as containers of `dtype.words` little-endian 64-bit words."""
    words = dtype.words
    out = np.zeros((len(values), words), dtype=np.uint64)
    for k, raw in enumerate(values):
        for w in range(words):
            out[k, w] = (raw >> (64 * w)) & 0xFFFFFFFFFFFFFFFF
            if raw >> (64 * (w + 1)) == 0:
                break
    return out.view(dtype.np_storage).reshape(len(values))


def word_ints(storage: np.ndarray, dtype: DType) -> list[int]:
    """The unsigned raw bits (masked to the width) of multi-word containers, flattened."""
    words = _contiguous(storage).reshape(-1).view(np.uint64).reshape(-1, dtype.words)
    mask = (1 << dtype.bits) - 1
    values = []
    for row in words:
        raw = 0
        for w in reversed(range(dtype.words)):
            raw = (raw << 64) | int(row[w])
        values.append(raw & mask)
    return values


def raw_ints(storage: np.ndarray, dtype: DType) -> np.ndarray:
    """Raw container array -> the signed/unsigned integer values of the low `bits` bits.

    Returns int64/uint64 for widths up to 64 and an object array of Python ints beyond.
    """
    bits = dtype.bits
    if dtype.words:
        out = np.empty(storage.shape, dtype=object)
        flat_out = out.reshape(-1)
        for k, raw in enumerate(word_ints(storage, dtype)):
            flat_out[k] = dtype.wrap_int(raw)
        return out
    unsigned = _contiguous(storage).view(np.dtype(f"u{storage.dtype.itemsize}")).astype(np.uint64)
    if bits < 64:
        unsigned = unsigned & np.uint64((1 << bits) - 1)
    if not dtype.is_signed:
        return unsigned
    shift = np.uint64(64 - bits)
    # shift the sign bit to bit 63, then an arithmetic shift back sign-extends
    signed = (unsigned << shift).view(np.int64) >> np.int64(64 - bits)
    return signed


def from_storage(storage: np.ndarray, dtype: DType) -> np.ndarray:
    """Raw container array -> user values: ints as int64/uint64 (object beyond 64 bits),
    fixed-point as float64, floats as they are, structs as numpy structured arrays."""
    if dtype.is_float:
        return np.array(storage, dtype=dtype.np_storage, copy=True)
    if isinstance(dtype, Struct):
        return struct_values(storage, dtype)
    ints = raw_ints(storage, dtype)
    if dtype.is_fixed:
        scale = float(2**dtype.frac)
        return (
            np.asarray(ints, dtype=object).astype(np.float64) / scale
            if ints.dtype == object
            else ints.astype(np.float64) / scale
        )
    if ints.dtype == object:
        return ints
    if dtype.bits <= 64 and dtype.is_signed:
        return ints.astype(np.int64)
    return ints


# ---- structs ----------------------------------------------------------------------------


def _field_raw(values: np.ndarray, dtype: DType) -> list[int]:
    """The raw bits (unsigned) of one field's values converted to the field's dtype."""
    storage = to_storage(values, dtype)
    if dtype.is_float:
        storage = storage.view(np.dtype(f"u{dtype.bits // 8}"))
        return [int(v) for v in storage.reshape(-1)]
    return [int(v) & ((1 << dtype.bits) - 1) for v in raw_ints(storage, dtype).reshape(-1)]


def packed_struct_ints(values: np.ndarray, dtype: Struct) -> np.ndarray:
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


def struct_values(storage: np.ndarray, dtype: Struct) -> np.ndarray:
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
