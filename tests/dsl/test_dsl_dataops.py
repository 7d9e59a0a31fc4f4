"""HeteroCL's data operations on the LLVM backend against numpy: hcl.pack / hcl.unpack along an
axis, hcl.bitcast of tensors and values, hcl.const_tensor / hcl.copy, hcl.cast_np, hcl.and_ /
hcl.or_ with zero or one condition and hcl.select on mixed types."""

from __future__ import annotations

import numpy as np
import pytest

import hclbuild as hcl
from hclbuild.errors import APIError, DTypeError

# ---- pack / unpack --------------------------------------------------------------------------------


def test_pack_bits_like_numpy_packbits_little(run, rng):
    A = hcl.placeholder((3, 32), "A", dtype=hcl.UInt(1))

    def kernel(A):
        return (
            hcl.pack(A, axis=1, factor=8, dtype=hcl.UInt(8), name="bytes"),
            hcl.pack(A, axis=1, dtype=hcl.UInt(32), name="words"),
        )

    a = rng.integers(0, 2, (3, 32)).astype(np.uint8)
    packed8, packed32 = run(hcl.create_schedule([A], kernel), a)
    np.testing.assert_array_equal(packed8, np.packbits(a, axis=1, bitorder="little"))
    np.testing.assert_array_equal(packed32, np.packbits(a, axis=1, bitorder="little").view("<u4"))


def test_pack_along_axis_0_keeps_signedness(run, rng):
    A = hcl.placeholder((8, 3), "A", dtype=hcl.Int(4))
    s = hcl.create_schedule([A], lambda A: hcl.pack(A, axis=0, factor=4, name="P"))
    assert s.stages["P"].stmt.output.dtype == hcl.Int(16) and s.stages["P"].stmt.output.shape == (2, 3)
    a = rng.integers(-8, 8, (8, 3)).astype(np.int8)
    out = run(s, a)
    raw = (a.astype(np.int64) & 0xF).reshape(2, 4, 3)
    packed = sum(raw[:, k, :] << (4 * k) for k in range(4))
    np.testing.assert_array_equal(out, np.where(packed >= 1 << 15, packed - (1 << 16), packed))


def test_unpack_is_the_inverse_of_pack(run, rng):
    A = hcl.placeholder((4, 2), "A", dtype=hcl.UInt(32))

    def kernel(A):
        nibbles = hcl.unpack(A, axis=0, factor=8, name="nibbles")
        halves = hcl.unpack(A, axis=1, dtype=hcl.Int(16), name="halves")
        again = hcl.pack(nibbles, axis=0, factor=8, name="again")
        return nibbles, halves, again

    a = rng.integers(0, 2**32, (4, 2), dtype=np.uint64).astype(np.uint32)
    nibbles, halves, again = run(hcl.create_schedule([A], kernel), a)
    expected = np.array([[(int(a[i // 8, j]) >> (4 * (i % 8))) & 0xF for j in range(2)] for i in range(32)])
    np.testing.assert_array_equal(nibbles, expected)
    np.testing.assert_array_equal(halves, a.view(np.int16).reshape(4, 4))
    np.testing.assert_array_equal(again, a)


def test_pack_and_unpack_errors():
    A = hcl.placeholder((6,), "A", dtype=hcl.UInt(4))
    with pytest.raises(APIError, match="not a multiple of the factor 4"):
        hcl.create_schedule([A], lambda A: hcl.pack(A, factor=4))
    with pytest.raises(DTypeError, match="2 elements of UInt\\(4\\) take 8 bits, UInt\\(16\\) has 16"):
        hcl.create_schedule([A], lambda A: hcl.pack(A, factor=2, dtype=hcl.UInt(16)))
    with pytest.raises(DTypeError, match="does not split into 3 equal parts"):
        hcl.create_schedule([A], lambda A: hcl.unpack(A, factor=3))
    with pytest.raises(APIError, match="axis 1 is not a dimension"):
        hcl.create_schedule([A], lambda A: hcl.pack(A, axis=1, factor=2))


# ---- bitcast ---------------------------------------------------------------------------------------


def test_bitcast_tensors_between_float_and_uint(run, rng):
    U = hcl.placeholder((10, 10), "U", dtype=hcl.UInt(32))
    F = hcl.placeholder((10, 10), "F", dtype=hcl.Float(64))

    def kernel(U, F):
        return hcl.bitcast(U, hcl.Float(32)), hcl.bitcast(F, "int64")

    s = hcl.create_schedule([U, F], kernel)
    assert {"U_float32", "F_int64"} <= set(s.stages)  # HeteroCL's names: <tensor>_<dtype>
    u = rng.integers(0, 2**32, (10, 10), dtype=np.uint64).astype(np.uint32)
    f = rng.standard_normal((10, 10))
    floats, ints = run(s, u, f)
    np.testing.assert_array_equal(floats.view(np.uint32), u)  # NaN payloads too
    np.testing.assert_array_equal(ints, f.view(np.int64))


def test_bitcast_of_a_value_and_of_fixed_point(run):
    A = hcl.placeholder((4,), "A", dtype=hcl.Float(32))
    B = hcl.placeholder((4,), "B", dtype=hcl.Fixed(12, 4))

    def kernel(A, B):
        sign = hcl.compute((4,), lambda i: hcl.bitcast(A[i] * 1.0, hcl.UInt(32)) >> 31, "sign")
        raw = hcl.compute((4,), lambda i: hcl.bitcast(B[i], hcl.Int(12)), "raw", dtype=hcl.Int(12))
        return sign, raw

    s = hcl.create_schedule([A, B], kernel)
    assert "arith.bitcast" in str(hcl.lower(s))
    sign, raw = run(
        s,
        np.array([1.5, -2.0, -0.0, 3.0], dtype=np.float32),
        hcl.asarray([1.25, -0.5, 100.0, -128.0], hcl.Fixed(12, 4)),
    )
    np.testing.assert_array_equal(sign, [0, 1, 1, 0])
    np.testing.assert_array_equal(raw, [20, -8, 1600, -2048])
    with pytest.raises(DTypeError, match="Float\\(32\\) has 32 bits, Int\\(16\\) has 16"):
        hcl.create_schedule(
            [A, B], lambda A, B: hcl.compute((4,), lambda i: hcl.bitcast(A[i], hcl.Int(16)), "x")
        )


# ---- const_tensor / copy / cast_np ----------------------------------------------------------------


def test_const_tensor_values_of_every_kind(run):
    A = hcl.placeholder((2, 3), "A")

    def kernel(A):
        ints = hcl.const_tensor([[1, 2, 3], [4, 5, -6]], "ints")
        fixed = hcl.const_tensor([0.5, -1.25, 3.0], "fixed", dtype=hcl.Fixed(8, 4))
        narrow = hcl.const_tensor([1, 0, 7, 9], "narrow", dtype=hcl.UInt(3))  # 9 wraps to 1
        wide = hcl.const_tensor([2**150 + 3, -5, 7], "wide", dtype=hcl.Int(200))
        floats = hcl.const_tensor(np.array([1.5, -2.5, 0.25], dtype=np.float32), "floats", dtype=hcl.Float())
        return hcl.compute(
            (2, 3),
            lambda i, j: (
                A[i, j]
                + ints[i, j] * 10
                + hcl.cast(hcl.Int(32), fixed[j] * 4)
                + narrow[j + 1]
                + hcl.cast(hcl.Int(32), wide[j] >> 148)
                + hcl.cast(hcl.Int(32), floats[j] * 4)
            ),
            "B",
        )

    s = hcl.create_schedule([A], kernel)
    text = str(hcl.lower(s))
    assert (
        'memref.global "private" constant @hcl_const_ints : memref<2x3xi32> = dense<[[1, 2, 3], [4, 5, -6]]>'
        in text
    )
    assert "memref.get_global @hcl_const_narrow : memref<4xi3>" in text
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = run(s, a)
    expected = (
        a
        + np.array([[1, 2, 3], [4, 5, -6]]) * 10
        + np.array([2, -5, 12])
        + np.array([0, 7, 1])
        + np.array([4, -1, 0])
        + np.array([6, -10, 1])
    )  # -5 >> 148 is -1: an arithmetic shift
    np.testing.assert_array_equal(out, expected)


def test_const_tensor_is_read_only_and_copy_is_writable(run):
    def writes():
        c = hcl.const_tensor([1, 2], "c")
        c[0] = 5
        return hcl.compute((2,), lambda i: c[i], "out")

    with pytest.raises(APIError, match=r"is an hcl.const_tensor and cannot be written"):
        hcl.create_schedule([], writes)

    @hcl.def_()
    def bump(X):
        X[0] = X[0] + 1

    def passes():
        c = hcl.const_tensor([1, 2], "c")
        bump(c)
        return hcl.compute((2,), lambda i: c[i], "out")

    with pytest.raises(APIError, match=r"writes its argument 0, which is passed the hcl.const_tensor 'c'"):
        hcl.build(hcl.create_schedule([], passes))

    def copies():
        w = hcl.copy([7, 8, 9], "w")
        w[0] = 70
        bump(w)
        return hcl.compute((3,), lambda i: w[i] * 2, "out")

    np.testing.assert_array_equal(run(hcl.create_schedule([], copies)), [142, 16, 18])


def test_copy_of_a_tensor_is_a_writable_stage_of_its_elements(run):
    # HeteroCL's hcl.copy(tensor): compute(tensor.shape, lambda *i: tensor[i]) in the tensor's dtype
    A = hcl.placeholder((2, 3), "A", hcl.Int(8))

    def kernel(A):
        B = hcl.copy(A, "B")
        assert B.dtype == A.dtype and B.shape == (2, 3)
        B[0, 0] = B[0, 0] + 100  # an Int(8) wraps
        C = hcl.copy(A, "C", hcl.Int(16))
        return hcl.compute((2, 3), lambda i, j: B[i, j] * 1000 + C[i, j] * 2, "out", hcl.Int(32))

    a = np.array([[50, -3, 7], [1, 2, -128]], np.int8)
    b = a.astype(np.int32)
    b[0, 0] = np.int8(np.int16(50) + 100 - 256)
    np.testing.assert_array_equal(run(hcl.create_schedule([A], kernel), a), b * 1000 + a.astype(np.int32) * 2)


def test_cast_np_gives_the_values_a_dtype_holds():
    np.testing.assert_array_equal(hcl.cast_np(np.array([300, -129, 5]), hcl.Int(8)), [44, 127, 5])
    np.testing.assert_array_equal(hcl.cast_np(np.array([0.3, -0.3]), "fixed8_4"), [0.25, -0.3125])
    with pytest.raises(APIError, match="expected a numpy array"):
        hcl.cast_np([1, 2], hcl.Int(8))


# ---- and_ / or_ / select ---------------------------------------------------------------------------


@pytest.mark.parametrize("op, identity", [(hcl.and_, all), (hcl.or_, any)])
def test_logic_with_zero_one_two_and_three_conditions(run, rng, op, identity):
    A, B, C = (hcl.placeholder((10,), n) for n in "ABC")

    def kernel(A, B, C):
        return [
            hcl.compute(
                (10,), lambda x, k=k: hcl.select(op(*[t[x] > 5 for t in (A, B, C)[:k]]), 0, 1), f"n{k}"
            )
            for k in range(4)
        ]

    a, b, c = (rng.integers(0, 10, 10).astype(np.int32) for _ in range(3))
    outs = run(hcl.create_schedule([A, B, C], kernel), a, b, c)
    for k, out in enumerate(outs):
        conds = [t > 5 for t in (a, b, c)[:k]]
        expected = [0 if identity([cond[i] for cond in conds]) else 1 for i in range(10)]
        np.testing.assert_array_equal(out, expected)


def test_select_on_mixed_types():
    A = hcl.placeholder((4,), "A", dtype=hcl.Int(8))
    B = hcl.placeholder((4,), "B", dtype=hcl.Fixed(8, 4))
    U = hcl.placeholder((4,), "U", dtype=hcl.UInt(8))

    def kernel(A, B, U):
        return (
            hcl.compute((4,), lambda i: hcl.select(A[i] > 0, A[i], B[i]), "fix", dtype=hcl.Fixed(12, 4)),
            hcl.compute((4,), lambda i: hcl.select(A[i] > 0, 1, 0.5), "flt", dtype=hcl.Float()),
            hcl.compute((4,), lambda i: hcl.select(A[i], U[i], A[i]), "int", dtype=hcl.Int(16)),
            hcl.compute((4,), lambda i: hcl.select(i > 1, i, A[i]), "idx"),
        )

    a = np.array([1, -2, 3, -4], dtype=np.int8)
    u = np.array([200, 7, 255, 0], dtype=np.uint8)
    fix = hcl.asarray(np.zeros(4), "fixed12_4")
    flt, ints, idx = np.zeros(4, np.float32), np.zeros(4, np.int16), np.zeros(4, np.int32)
    hcl.build(hcl.create_schedule([A, B, U], kernel))(
        a, hcl.asarray([0.5, 1.25, -2, 3], "fixed8_4"), u, fix, flt, ints, idx
    )
    np.testing.assert_array_equal(fix.asnumpy(), [1, 1.25, 3, 3])
    np.testing.assert_array_equal(flt, [1.0, 0.5, 1.0, 0.5])
    np.testing.assert_array_equal(ints, [200, 7, 255, 0])
    np.testing.assert_array_equal(idx, [1, -2, 2, 3])
