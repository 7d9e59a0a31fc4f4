"""Bit operations on the LLVM backend against Python's integer semantics: slices with expression
bounds (loop variables, tensor elements, scalars), their widths, assignment to them, bits of
temporaries, .reverse(), out-of-range positions, TensorSlice.shape and get_bitwidth."""

from __future__ import annotations

import numpy as np
import pytest
from dsl_helpers import bits_of, reversed_bits

import hclbuild as hcl
from hclbuild.errors import APIError, DTypeError

# ---- widths -----------------------------------------------------------------------------------


def test_slice_width_is_constant_when_the_bounds_differ_by_a_constant():
    def kernel(A):
        B = hcl.compute((4,), lambda i: A[i], "B")
        assert A[0][0:4].dtype == hcl.UInt(4)
        assert A[1][A[0] : A[0] + 4].dtype == hcl.UInt(4)
        assert A[1][2 * A[0] + 1 : A[0] * 2 + 7].dtype == hcl.UInt(6)
        assert A[1][A[0] : A[1]].dtype == hcl.UInt(32)  # not known: the value's width
        return B

    hcl.create_schedule([hcl.placeholder((4,), "A")], kernel)


def test_slice_bounds_in_the_wrong_order_or_beyond_the_width_are_errors():
    A = hcl.placeholder((4,), "A", dtype=hcl.UInt(8))

    with pytest.raises(APIError, match=r"lower bound is above the upper one \(use .reverse\(\)"):
        hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: A[i][5:2], "B"))
    with pytest.raises(APIError, match="bit slice of width 9"):
        hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: A[i][i : i + 9], "B"))
    with pytest.raises(DTypeError, match="must be an integer or index expression"):
        hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: A[i][0 : hcl.sqrt(4.0)], "B"))


@pytest.mark.parametrize("bounds", [(3, 3), (0, 0), (8, 8), ("i", "i"), ("i+2", "i+2")])
def test_an_empty_slice_says_it_is_empty_and_how_to_name_one_bit(bounds):
    A = hcl.placeholder((4,), "A", dtype=hcl.UInt(8))
    lo, hi = bounds

    def bound(i, text):
        return text if isinstance(text, int) else eval(text, {"i": i})

    def read(A):
        return hcl.compute((4,), lambda i: A[i][bound(i, lo) : bound(i, hi)], "B")

    def write(A):
        with hcl.for_(0, 4) as i:
            A[i][bound(i, lo) : bound(i, hi)] = 1

    for kernel in (read, write):
        with pytest.raises(
            APIError,
            match=r"bit slice \[.*\].* is empty: hi is exclusive, so x\[k:k\+1\] \(or x\[k\]\) is bit k",
        ):
            hcl.create_schedule([A], kernel)


# ---- reads with expression bounds ------------------------------------------------------------


def test_slice_from_a_loop_variable_nibble_by_nibble(run, rng):
    A = hcl.placeholder((6,), "A", dtype=hcl.UInt(32))

    def kernel(A):
        return hcl.compute((6, 8), lambda i, j: A[i][4 * j : 4 * j + 4], "N", dtype=hcl.UInt(4))

    a = rng.integers(0, 2**32, 6, dtype=np.uint64).astype(np.uint32)
    out = run(hcl.create_schedule([A], kernel), a)
    expected = [[bits_of(v, 4 * j, 4 * j + 4, 32) for j in range(8)] for v in a]
    np.testing.assert_array_equal(out, expected)


def test_slice_bounds_read_from_tensors_including_out_of_range_ones(run, rng):
    A = hcl.placeholder((8,), "A", dtype=hcl.UInt(16))
    L = hcl.placeholder((8,), "L")
    H = hcl.placeholder((8,), "H")

    def kernel(A, L, H):
        fixed = hcl.compute((8,), lambda i: A[i][L[i] : L[i] + 3], "fixed", dtype=hcl.UInt(3))
        free = hcl.compute((8,), lambda i: A[i][L[i] : H[i]], "free", dtype=hcl.UInt(16))
        bit = hcl.compute((8,), lambda i: A[i][L[i]], "bit", dtype=hcl.UInt(1))
        return fixed, free, bit

    a = rng.integers(0, 2**16, 8).astype(np.uint16)
    lo = np.array([0, 3, 13, 14, 15, 16, 40, -2], dtype=np.int32)
    hi = np.array([16, 9, 12, 20, 16, 18, 41, 3], dtype=np.int32)
    fixed, free, bit = run(hcl.create_schedule([A, L, H], kernel), a, lo, hi)
    np.testing.assert_array_equal(fixed, [bits_of(v, x, x + 3, 16) for v, x in zip(a, lo)])
    np.testing.assert_array_equal(free, [bits_of(v, x, y, 16) for v, x, y in zip(a, lo, hi)])
    np.testing.assert_array_equal(bit, [bits_of(v, x, x + 1, 16) for v, x in zip(a, lo)])


def test_slice_bounds_from_scalar_arithmetic(run):
    # HeteroCL's simplifier tests: bounds from shifts, bitwise ops, comparisons and select
    A = hcl.placeholder((2,), "A")

    def kernel(A):
        a, b, c = hcl.scalar(21, "a"), hcl.scalar(13, "b"), hcl.scalar(2, "c")
        shl = hcl.compute((2,), lambda x: A[x][0 : (1 << c.v)], "shl")
        band = hcl.compute((2,), lambda x: A[x][(1 & a.v) : (a.v & b.v)], "band")
        cmp = hcl.compute((2,), lambda x: A[x][0 : (8 > a.v) + 1], "cmp")
        sel = hcl.compute((2,), lambda x: A[x][0 : hcl.select(5 < a.v, c.v, 6)], "sel")
        return shl, band, cmp, sel

    a = np.array([0b101101, 0b01100101], dtype=np.int32)
    shl, band, cmp, sel = run(hcl.create_schedule([A], kernel), a)
    np.testing.assert_array_equal(shl, [v & 0b1111 for v in a])
    np.testing.assert_array_equal(band, [(v >> 1) & 0b1111 for v in a])
    np.testing.assert_array_equal(cmp, [v & 1 for v in a])
    np.testing.assert_array_equal(sel, [v & 0b11 for v in a])


def test_bits_of_a_temporary_and_of_a_struct_free_expression(run, rng):
    A = hcl.placeholder((10,), "A")

    def kernel(A):
        return (
            hcl.compute((10,), lambda x: (A[x] + 1)[0], "bit"),
            hcl.compute((10,), lambda x: (A[x] + 1)[0:2], "low"),
        )

    a = rng.integers(-50, 50, 10).astype(np.int32)
    bit, low = run(hcl.create_schedule([A], kernel), a)
    np.testing.assert_array_equal(bit, (a + 1) & 1)
    np.testing.assert_array_equal(low, (a + 1) & 0b11)


# ---- reverse ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, lo, hi", [(hcl.UInt(8), 0, 8), (hcl.UInt(16), 2, 7), (hcl.Int(37), 3, 36)])
def test_reverse_of_a_value_and_of_a_slice(run, rng, dtype, lo, hi):
    A = hcl.placeholder((8,), "A", dtype=dtype)

    def kernel(A):
        return (
            hcl.compute((8,), lambda i: A[i].reverse(), "whole", dtype=dtype),
            hcl.compute((8,), lambda i: A[i][lo:hi].reverse(), "part", dtype=hcl.UInt(hi - lo)),
        )

    raw = [int(v) for v in rng.integers(0, 2 ** min(dtype.bits, 62), 8)]
    whole, part = run(hcl.create_schedule([A], kernel), hcl.asarray(np.array(raw), dtype).storage.copy())
    expected_whole = [dtype.wrap_int(reversed_bits(v, dtype.bits)) for v in raw]
    np.testing.assert_array_equal(whole.astype(object), expected_whole)
    np.testing.assert_array_equal(part, [reversed_bits(bits_of(v, lo, hi, dtype.bits), hi - lo) for v in raw])


# ---- writes ---------------------------------------------------------------------------------------


def test_setting_bits_and_slices_with_expression_bounds(run, rng):
    A = hcl.placeholder((8,), "A", dtype=hcl.UInt(16))
    L = hcl.placeholder((8,), "L")

    def kernel(A, L):
        with hcl.for_(0, 8) as i:
            A[i][L[i] : L[i] + 3] = 0b101
            A[i][L[i] + 5] = 1
            A[i][i:16] = A[i][i:16]  # a width known only when the loop runs: rewrites itself

    a = rng.integers(0, 2**16, 8).astype(np.uint16)
    lo = np.array([0, 2, 11, 13, 14, 16, -1, 7], dtype=np.int32)
    expected = []
    for v, x in zip(a, lo):
        v = int(v)
        if 0 <= x < 16:
            mask = (0b111 << x) & 0xFFFF
            v = (v & ~mask & 0xFFFF) | ((0b101 << x) & mask)
        if 0 <= x + 5 < 16:
            v |= 1 << (x + 5)
        expected.append(v)
    hcl.build(hcl.create_schedule([A, L], kernel))(a, lo)
    np.testing.assert_array_equal(a, expected)


def test_setting_a_bit_of_a_temporary_changes_nothing(run, rng):
    # HeteroCL: "B[i] is never written to"
    A = hcl.placeholder((10,), "A", dtype=hcl.Int(1))
    B = hcl.placeholder((10,), "B")

    def kernel(A, B):
        with hcl.for_(0, 10) as i:
            (B[i] + 1)[0] = A[i]
            (B[i] + 1)[0:2] = A[i]

    b = rng.integers(0, 5, 10).astype(np.int32)
    before = b.copy()
    hcl.build(hcl.create_schedule([A, B], kernel))(np.ones(10, dtype=np.int8), b)
    np.testing.assert_array_equal(b, before)


def test_set_slice_to_the_reverse_of_another_value(run, rng):
    hcl.init(hcl.UInt(8))
    A, B = hcl.placeholder((10,), "A"), hcl.placeholder((10,), "B")

    def kernel(A, B):
        with hcl.for_(0, 10) as i:
            B[i][0:8] = A[i].reverse()

    a = rng.integers(0, 256, 10).astype(np.uint8)
    b = np.zeros(10, dtype=np.uint8)
    hcl.build(hcl.create_schedule([A, B], kernel))(a, b)
    np.testing.assert_array_equal(b, [reversed_bits(v, 8) for v in a])


# ---- slices of tensors ----------------------------------------------------------------------------


def test_tensor_slice_shape_dtype_and_get_bitwidth(run):
    def kernel():
        z = hcl.compute((2, 3, 4), lambda x, y, k: 0, "z", dtype=hcl.Int(32))
        part = z[1]
        assert part.shape == (3, 4) and z[1][2].shape == (4,)
        assert hcl.get_bitwidth(part.dtype) == 32 and hcl.get_bitwidth("fixed12_4") == 12
        assert hcl.get_fractional_bitwidth(hcl.Fixed(12, 4)) == 4

        def body(i, j, k):
            z[i][j][k] = hcl.get_bitwidth(z[0][0].dtype) + i

        hcl.mutate(z.shape, body, "fill")
        return z

    out = run(hcl.create_schedule([], kernel))
    np.testing.assert_array_equal(out, np.broadcast_to(32 + np.arange(2)[:, None, None], (2, 3, 4)))
