"""Golden vector files of 65..127-bit integers keep the unused high bits of their 16-byte
containers zero, whatever the container held (a sign-extended negative value, for one)."""

from __future__ import annotations

import numpy as np
import pytest

from hclbuild.dsl.storage import to_storage
from hclbuild.dsl.types import Int, UInt
from hclbuild.project.golden import decode_vector, encode_vector


@pytest.mark.parametrize("bits", [65, 100, 127])
def test_high_bits_above_the_width_are_cleared(bits: int) -> None:
    all_ones = np.frombuffer(b"\xff" * 48, dtype="V16")  # three sign-extended -1s
    words = np.frombuffer(encode_vector(all_ones, Int(bits)), dtype="<u8").reshape(-1, 2)
    assert words[:, 0].tolist() == [2**64 - 1] * 3
    assert words[:, 1].tolist() == [(1 << (bits - 64)) - 1] * 3


def test_negative_wide_values_round_trip_as_raw_bits() -> None:
    dtype = Int(100)
    values = np.array([-1, -(2**99), 2**99 - 1, 5], dtype=object)
    data = encode_vector(to_storage(values, dtype), dtype)
    raw = [int.from_bytes(data[k : k + 16], "little") for k in range(0, len(data), 16)]
    assert raw == [v & ((1 << 100) - 1) for v in values]
    again = decode_vector(data, dtype, (4,))
    assert encode_vector(again, dtype) == data


def test_unsigned_127_bits_keep_only_127() -> None:
    full = np.frombuffer(b"\xff" * 16, dtype="V16")
    data = encode_vector(full, UInt(127))
    assert int.from_bytes(data, "little") == (1 << 127) - 1


@pytest.mark.parametrize(
    "array, dtype, expected",
    [
        (np.zeros(3, np.uint64), Int(100), "expected a 16-byte void container array for int100"),
        (np.zeros(3, dtype="V8"), Int(100), "expected a 16-byte void container array for int100"),
        (np.zeros(3, np.float32), Int(8), "expected a int8 container array for int8"),
        (np.zeros(3, np.int16), Int(8), "expected a int8 container array for int8"),
    ],
)
def test_a_container_of_the_wrong_kind_or_size_is_refused(array, dtype, expected) -> None:
    from hclbuild.errors import DTypeError

    with pytest.raises(DTypeError, match=expected):
        encode_vector(array, dtype, name="v")
