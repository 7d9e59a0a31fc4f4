"""Integers up to 2047 bits (HeteroCL's limit) on the LLVM backend against Python ints: host
containers of 128-bit multiples, shifts, arithmetic, division and remainder of both signs,
comparisons and conversions to and from floats; widths beyond are one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

import hclbuild as hcl
from hclbuild.errors import DTypeError


def wrap(value: int, bits: int, signed: bool = True) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if signed and value >> (bits - 1) else value


def tdiv(a: int, b: int) -> int:
    """C's division: toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


@pytest.mark.parametrize("bits", [200, 2047])
def test_host_containers_round_trip(bits):
    dtype = hcl.Int(bits)
    assert (
        dtype.storage_bits == -(-bits // 128) * 128 and dtype.np_storage.itemsize == dtype.storage_bits // 8
    )
    values = np.array(
        [0, -1, 2 ** (bits - 1) - 1, -(2 ** (bits - 1)), 3 ** (bits // 2), 2**bits + 5], dtype=object
    )
    got = hcl.asarray(values, dtype).asnumpy()
    assert [int(v) for v in got] == [wrap(int(v), bits) for v in values]


def test_widths_beyond_2047_bits_are_refused():
    with pytest.raises(DTypeError, match="out of range"):
        hcl.UInt(2048)
    with pytest.raises(DTypeError, match="out of range"):
        hcl.placeholder((4,), "A", dtype="int4000")


@pytest.mark.parametrize("bits, shift", [(200, 150), pytest.param(1100, 1000, marks=pytest.mark.slow)])
def test_shift_add_divide_and_compare(bits, shift, rng):
    hcl.init(hcl.UInt(32))
    A, B = hcl.placeholder((6,), "A"), hcl.placeholder((6,), "B")
    wide, swide = hcl.UInt(bits), hcl.Int(bits)

    def kernel(A, B):
        D = hcl.compute(A.shape, lambda x: (hcl.cast(wide, A[x]) << shift) + B[x], "D", dtype=wide)
        Q = hcl.compute(A.shape, lambda x: D[x] // (B[x] + 1) + D[x] % (A[x] + 3), "Q", dtype=wide)
        S = hcl.compute(
            A.shape, lambda x: hcl.cast(swide, D[x]) / -7 + hcl.cast(swide, D[x]) % 9, "S", dtype=swide
        )
        F = hcl.compute(
            A.shape, lambda x: hcl.cast(swide, D[x]) // -(hcl.cast(hcl.Int(64), B[x]) + 2), "F", dtype=swide
        )
        T = hcl.compute(A.shape, lambda x: hcl.select(D[x] > (hcl.cast(wide, 1) << (bits - 2)), 1, 0), "T")
        return D, Q, S, F, T

    a = rng.integers(0, 2**31, 6).astype(np.uint32)
    b = rng.integers(0, 2**31, 6).astype(np.uint32)
    outs = [hcl.asarray(np.zeros(6), dt) for dt in (wide, wide, swide, swide, hcl.UInt(32))]
    hcl.build(hcl.create_schedule([A, B], kernel))(a, b, *outs)
    d = [wrap((int(x) << shift) + int(y), bits, False) for x, y in zip(a, b)]
    q = [wrap(v // (int(y) + 1) + v % (int(x) + 3), bits, False) for v, x, y in zip(d, a, b)]
    sd = [wrap(v, bits) for v in d]
    s = [wrap(tdiv(v, -7) + (v - 9 * tdiv(v, 9)), bits) for v in sd]
    f = [wrap(v // -(int(y) + 2), bits) for v, y in zip(sd, b)]
    t = [int(v > (1 << (bits - 2))) for v in d]
    for got, want in zip(outs, (d, q, s, f, t)):
        assert [int(v) for v in got.asnumpy()] == want


@pytest.mark.slow
def test_2047_bit_values_convert_to_and_from_floats(rng):
    bits = 2047
    A = hcl.placeholder((5,), "A", dtype=hcl.Int(bits))
    F = hcl.placeholder((5,), "F", dtype=hcl.Float(64))

    def kernel(A, F):
        return (
            hcl.compute(A.shape, lambda x: hcl.cast(hcl.Float(64), A[x] >> 1900), "B", dtype=hcl.Float(64)),
            hcl.compute(A.shape, lambda x: hcl.cast(hcl.Int(bits), F[x]) * 3, "C", dtype=hcl.Int(bits)),
        )

    a = np.array([1, -5, 2**2040 + 12345, -(2**2000) - 7, 3**1200], dtype=object)
    f = np.array([1.5, -2.25, 1e30, -3.7e40, 2.0**1000])
    b, c = np.zeros(5), hcl.asarray(np.zeros(5), hcl.Int(bits))
    hcl.build(hcl.create_schedule([A, F], kernel))(hcl.asarray(a, hcl.Int(bits)), f, b, c)
    assert b.tolist() == [float(int(v) >> 1900) for v in a]
    assert [int(v) for v in c.asnumpy()] == [wrap(int(v) * 3, bits) for v in f]


@pytest.mark.parametrize("bits, container", [(24, 4), (96, 16), (200, 32), (5, 1)])
def test_odd_width_buffers_are_allocated_at_their_container_size(run, bits, container):
    # MLIR sized an i96 element as 12 bytes while LLVM strides by 16: the heap was overrun
    from hclbuild.compiler.pipeline import compile_schedule
    from hclbuild.compiler.to_llvm import lower_to_llvm_ir

    A = hcl.placeholder((100,), "A")

    def kernel(A):
        wide = hcl.compute((100,), lambda i: hcl.cast(hcl.Int(bits), A[i]) * 3, "wide", dtype=hcl.Int(bits))
        return hcl.compute((100,), lambda i: hcl.cast(hcl.Int(32), wide[99 - i]), "out")

    s = hcl.create_schedule([A], kernel)
    assert f"call ptr @malloc(i64 {100 * container})" in lower_to_llvm_ir(compile_schedule(s).module)
    a = np.arange(-50, 50, dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), [wrap(int(v) * 3, bits) for v in a[::-1]])
