"""DSL basics on the LLVM backend, checked against numpy: compute, update, mutate, reductions,
scalars, select, cast, logic, intrinsics, asarray, argument order, and the 2MM kernel."""

from __future__ import annotations

import numpy as np
import pytest
from kernels import TWO_MM_SIZES, two_mm

import hclbuild as hcl


@hcl.def_()
def scale_into(X, Y, k):
    """A def_ decorated at import time: HeteroCL lost such functions (issues #387, #406)."""
    with hcl.for_(0, X.shape[0]) as i:
        Y[i] = X[i] * k


# ---- init / placeholder / compute -------------------------------------------------------


def test_init_sets_default_dtype_of_placeholder_and_compute(run, rng):
    hcl.init(hcl.Float(32))
    A = hcl.placeholder((6,), "A")

    def kernel(A):
        return hcl.compute(A.shape, lambda i: A[i] * 0.5 + 1.25, "B")

    s = hcl.create_schedule([A], kernel)
    assert A.dtype == hcl.Float(32)
    assert kernel.B.stmt.output.dtype == hcl.Float(32)
    a = rng.standard_normal(6).astype(np.float32)
    out = run(s, a)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, a * 0.5 + 1.25, rtol=1e-6)


def test_init_with_dtype_string_and_reset():
    hcl.init("uint8")
    A = hcl.placeholder((4,), "A")
    assert A.dtype == hcl.UInt(8)
    hcl.init()
    assert hcl.placeholder((4,), "B").dtype == hcl.Int(32)


def test_init_default_makes_computes_wrap_at_that_width(run):
    hcl.init(hcl.Int(8))
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        return hcl.compute((4,), lambda i: A[i] * 2, "B")

    s = hcl.create_schedule([A], kernel)
    a = np.array([1, 63, 64, 127], dtype=np.int8)
    out = run(s, a)
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, (a.astype(np.int64) * 2).astype(np.int8))


def test_compute_2d_elementwise_int(run, rng):
    A = hcl.placeholder((5, 7), "A")
    B = hcl.placeholder((5, 7), "B")

    def kernel(A, B):
        return hcl.compute((5, 7), lambda i, j: A[i, j] * 3 - B[i][j] + i * 7 + j, "C")

    s = hcl.create_schedule([A, B], kernel)
    a = rng.integers(-1000, 1000, (5, 7), dtype=np.int32)
    b = rng.integers(-1000, 1000, (5, 7), dtype=np.int32)
    ii, jj = np.indices((5, 7))
    np.testing.assert_array_equal(run(s, a, b), a * 3 - b + ii * 7 + jj)


def test_compute_lambda_star_args(run, rng):
    A = hcl.placeholder((3, 4, 5), "A")

    def kernel(A):
        return hcl.compute(A.shape, lambda *args: A[args] + args[0] * 100 + args[2], "B")

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-50, 50, (3, 4, 5), dtype=np.int32)
    ii, _, kk = np.indices((3, 4, 5))
    np.testing.assert_array_equal(run(s, a), a + ii * 100 + kk)


def test_compute_empty_shape_is_one_element(run):
    A = hcl.placeholder((), "A")
    assert A.shape == (1,)

    def kernel(A):
        return hcl.compute((), lambda *args: A[args] * 5 + 1, "B")

    s = hcl.create_schedule([A], kernel)
    assert kernel.B.stmt.output.shape == (1,)
    np.testing.assert_array_equal(run(s, np.array([7], dtype=np.int32)), [36])


def test_compute_chain_of_stages_with_intermediate(run, rng):
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        B = hcl.compute((8,), lambda i: A[i] + 1, "B")
        C = hcl.compute((8,), lambda i: B[7 - i] * B[i], "C")
        return C

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-100, 100, 8, dtype=np.int32)
    b = a + 1
    np.testing.assert_array_equal(run(s, a), b[::-1] * b)


def test_update_in_place_on_placeholder(rng):
    A = hcl.placeholder((4, 6), "A")

    def kernel(A):
        hcl.update(A, lambda i, j: A[i, j] * 2 + j, "U")

    s = hcl.create_schedule([A], kernel)
    fn = hcl.build(s)
    assert fn.signature.arg_names == ["A"]
    a = rng.integers(-100, 100, (4, 6), dtype=np.int32)
    expected = a * 2 + np.arange(6)
    fn(a)
    np.testing.assert_array_equal(a, expected)


def test_update_of_compute_result(run, rng):
    A = hcl.placeholder((10,), "A")

    def kernel(A):
        B = hcl.compute((10,), lambda i: A[i] * A[i], "B")
        hcl.update(B, lambda i: B[i] - A[i], "U")
        return B

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-30, 30, 10, dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), a * a - a)


def test_mutate_writes_through_imperative_body(run, rng):
    A = hcl.placeholder((6, 4), "A")

    def kernel(A):
        B = hcl.compute((6,), lambda i: 0, "B")

        def body(i, j):
            B[i] = B[i] + A[i, j] * (j + 1)

        hcl.mutate((6, 4), body, "M")
        return B

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-20, 20, (6, 4), dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), (a * np.arange(1, 5)).sum(axis=1))


# ---- reductions ---------------------------------------------------------------------------


def test_sum_over_reduce_axis_with_offset_bounds(run, rng):
    A = hcl.placeholder((5, 9), "A")

    def kernel(A):
        r = hcl.reduce_axis(2, 7, "r")
        return hcl.compute((5,), lambda i: hcl.sum(A[i, r], axis=r), "B")

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-1000, 1000, (5, 9), dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), a[:, 2:7].sum(axis=1))


def test_sum_over_two_axes(run, rng):
    A = hcl.placeholder((3, 4, 5), "A")

    def kernel(A):
        r = hcl.reduce_axis(0, 4, "r")
        c = hcl.reduce_axis(0, 5, "c")
        return hcl.compute((3,), lambda i: hcl.sum(A[i, r, c], axis=[r, c]), "B")

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-1000, 1000, (3, 4, 5), dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), a.sum(axis=(1, 2)))


def test_sum_with_where(run, rng):
    A = hcl.placeholder((4, 10), "A")

    def kernel(A):
        r = hcl.reduce_axis(0, 10, "r")
        return hcl.compute((4,), lambda i: hcl.sum(A[i, r], axis=r, where=A[i, r] > 0), "B")

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-50, 50, (4, 10), dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), np.where(a > 0, a, 0).sum(axis=1))


def test_sum_of_uint8_does_not_wrap_at_8_bits(run, rng):
    A = hcl.placeholder((3, 16), "A", dtype=hcl.UInt(8))

    def kernel(A):
        r = hcl.reduce_axis(0, 16, "r")
        return hcl.compute((3,), lambda i: hcl.sum(A[i, r], axis=r), "B", dtype=hcl.Int(32))

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(200, 256, (3, 16), dtype=np.uint8)
    np.testing.assert_array_equal(run(s, a), a.astype(np.int64).sum(axis=1))


def test_sum_with_dtype_wraps_accumulator(run, rng):
    A = hcl.placeholder((3, 16), "A")

    def kernel(A):
        r = hcl.reduce_axis(0, 16, "r")
        return hcl.compute((3,), lambda i: hcl.sum(A[i, r], axis=r, dtype=hcl.Int(8)), "B")

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(0, 100, (3, 16), dtype=np.int32)
    # the Int(8) accumulator wraps on every step; the sum mod 256, read as int8, is the same
    np.testing.assert_array_equal(run(s, a), a.sum(axis=1).astype(np.int8).astype(np.int32))


def test_sum_float_with_float_dtype(run, rng):
    A = hcl.placeholder((4, 12), "A", dtype=hcl.Float(32))

    def kernel(A):
        r = hcl.reduce_axis(0, 12, "r")
        return hcl.compute(
            (4,), lambda i: hcl.sum(A[i, r] * 2, axis=r, dtype=hcl.Float(64)), "B", dtype=hcl.Float(64)
        )

    s = hcl.create_schedule([A], kernel)
    a = rng.standard_normal((4, 12)).astype(np.float32)
    np.testing.assert_allclose(run(s, a), (a.astype(np.float64) * 2).sum(axis=1), rtol=1e-6)


def test_max_and_min_signed(run, rng):
    A = hcl.placeholder((5, 8), "A")

    def kernel(A):
        r = hcl.reduce_axis(0, 8, "r")
        k = hcl.reduce_axis(0, 8, "k")
        mx = hcl.compute((5,), lambda i: hcl.max(A[i, r], axis=r), "MX")
        mn = hcl.compute((5,), lambda i: hcl.min(A[i, k], axis=k), "MN")
        return mx, mn

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-(10**6), 10**6, (5, 8), dtype=np.int32)
    mx, mn = run(s, a)
    np.testing.assert_array_equal(mx, a.max(axis=1))
    np.testing.assert_array_equal(mn, a.min(axis=1))


def test_max_unsigned_and_min_float_with_where(run, rng):
    A = hcl.placeholder((4, 9), "A", dtype=hcl.UInt(32))
    F = hcl.placeholder((4, 9), "F", dtype=hcl.Float(32))

    def kernel(A, F):
        r = hcl.reduce_axis(0, 9, "r")
        k = hcl.reduce_axis(0, 9, "k")
        mx = hcl.compute((4,), lambda i: hcl.max(A[i, r], axis=r), "MX", dtype=hcl.UInt(32))
        mn = hcl.compute(
            (4,), lambda i: hcl.min(F[i, k], axis=k, where=F[i, k] > 0), "MN", dtype=hcl.Float(32)
        )
        return mx, mn

    s = hcl.create_schedule([A, F], kernel)
    a = rng.integers(0, 2**32, (4, 9), dtype=np.uint32)
    a[0, 3] = 2**32 - 1  # above INT32_MAX: an unsigned compare is needed
    f = rng.standard_normal((4, 9)).astype(np.float32)
    f[:, 0] = 0.5  # every row has a positive element
    mx, mn = run(s, a, f)
    np.testing.assert_array_equal(mx, a.max(axis=1))
    np.testing.assert_array_equal(mn, np.where(f > 0, f, np.inf).min(axis=1))


def test_custom_reducer_product(run, rng):
    A = hcl.placeholder((4, 6), "A")

    def kernel(A):
        prod = hcl.reducer(1, lambda x, y: x * y)
        r = hcl.reduce_axis(0, 6, "r")
        return hcl.compute((4,), lambda i: prod(A[i, r], axis=r), "B")

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-9, 10, (4, 6), dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), a.prod(axis=1))


def test_custom_reducer_select_max_float_with_where(run, rng):
    A = hcl.placeholder((5, 7), "A", dtype=hcl.Float(32))

    def kernel(A):
        my_max = hcl.reducer(-1e30, lambda x, y: hcl.select(x > y, x, y), dtype=hcl.Float(32))
        r = hcl.reduce_axis(0, 7, "r")
        return hcl.compute((5,), lambda i: my_max(A[i, r], axis=r, where=r != 3), "B", dtype=hcl.Float(32))

    s = hcl.create_schedule([A], kernel)
    a = rng.standard_normal((5, 7)).astype(np.float32)
    np.testing.assert_array_equal(run(s, a), np.delete(a, 3, axis=1).max(axis=1))


# ---- scalars ----------------------------------------------------------------------------


def test_scalar_read_and_written_through_v(run, rng):
    A = hcl.placeholder((10,), "A")

    def kernel(A):
        total = hcl.scalar(5, "total")
        count = hcl.scalar(0, "count", dtype=hcl.UInt(8))

        def body(i):
            total.v = total.v + A[i]
            with hcl.if_(A[i] < 0):
                count.v = count.v + 1

        hcl.mutate((10,), body, "acc")
        return hcl.compute((2,), lambda i: hcl.select(i == 0, total.v, count.v), "R")

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-100, 100, 10, dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), [5 + a.sum(), (a < 0).sum()])


def test_scalar_compared_with_values_by_eq_and_ne(run, capfd):
    """HeteroCL's issue 450: `var == 0` on an hcl.scalar is a comparison of its value; it had been
    Python's identity test (False), so the if_ was dropped and its print never ran."""
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        var = hcl.scalar(1, "var")
        with hcl.if_(var == 0):
            hcl.print((), "never\n")
        with hcl.else_():
            var.v = var - 1
            with hcl.if_(var == 0):
                hcl.print((), "zero\n")
        return hcl.compute(
            (4,),
            lambda i: (
                hcl.select(var == A[i], 10, 0) + hcl.select(var != 0, 1, 2) + hcl.select(A[i] == var, 100, 0)
            ),
            "B",
        )

    s = hcl.create_schedule([A], kernel)
    np.testing.assert_array_equal(run(s, np.array([0, 3, 0, -1], dtype=np.int32)), [112, 2, 112, 2])
    assert capfd.readouterr().out == "zero\n"


def test_two_scalars_compared_by_their_values(run):
    """hcl.if_(a == b) on two hcl.scalar values compares the values (it had been identity: False)."""
    A = hcl.placeholder((3,), "A")

    def kernel(A):
        a, b = hcl.scalar(A[0], "a"), hcl.scalar(A[1], "b")
        with hcl.if_(a == b):
            A[2] = 1
        with hcl.else_():
            A[2] = 2
        with hcl.if_(a != b):
            A[2] = A[2] + 10

    fn = hcl.build(hcl.create_schedule([A], kernel))
    for values, expected in (([4, 4, 0], 1), ([4, 5, 0], 12)):
        data = np.array(values, dtype=np.int32)
        fn(data)
        assert data[2] == expected


def test_tensor_compared_with_a_value_must_be_indexed():
    A = hcl.placeholder((4, 4), "A")
    B = hcl.placeholder((4,), "B")
    with pytest.raises(hcl.APIError, match="tensor 'A' has 2 dimensions, indexed with 1 in 'eq'"):
        hcl.create_schedule(
            [A, B], lambda A, B: hcl.compute((4,), lambda i: hcl.select(A[i] == 0, 1, 0), "C")
        )
    with pytest.raises(hcl.APIError, match="tensor 'B' used as a value in 'ne': index it"):
        hcl.create_schedule([A, B], lambda A, B: hcl.compute((4,), lambda i: hcl.select(B != i, 1, 0), "C"))
    assert A in [B, A] and len({A, B, A}) == 2  # tensors among tensors: identity, hashable


def test_scalar_initialised_from_expression(run):
    A = hcl.placeholder((3,), "A")

    def kernel(A):
        x = hcl.scalar(A[1] * 10, "x")
        return hcl.compute((3,), lambda i: A[i] + x.v, "B")

    s = hcl.create_schedule([A], kernel)
    a = np.array([1, -4, 9], dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), a - 40)


# ---- select, cast, logic -----------------------------------------------------------------


def test_select_mixed_operand_types(run, rng):
    A = hcl.placeholder((12,), "A")

    def kernel(A):
        return hcl.compute((12,), lambda i: hcl.select(A[i] > 3, A[i] * 2, -1), "B")

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-10, 10, 12, dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), np.where(a > 3, a * 2, -1))


def test_select_float_branches_from_int_condition(run, rng):
    A = hcl.placeholder((8,), "A")
    F = hcl.placeholder((8,), "F", dtype=hcl.Float(64))

    def kernel(A, F):
        return hcl.compute(
            (8,), lambda i: hcl.select(A[i] % 2 == 0, F[i], F[i] * -3.0), "B", dtype=hcl.Float(64)
        )

    s = hcl.create_schedule([A, F], kernel)
    a = rng.integers(-10, 10, 8, dtype=np.int32)
    f = rng.standard_normal(8)
    np.testing.assert_array_equal(run(s, a, f), np.where(np.fmod(a, 2) == 0, f, f * -3.0))


def test_and_or_not(run, rng):
    A = hcl.placeholder((20,), "A")

    def kernel(A):
        return hcl.compute(
            (20,),
            lambda i: hcl.select(hcl.or_(hcl.and_(A[i] > -5, A[i] < 5, A[i] != 0), hcl.not_(A[i] < 8)), 1, 0),
            "B",
        )

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-10, 11, 20, dtype=np.int32)
    expected = (((a > -5) & (a < 5) & (a != 0)) | ~(a < 8)).astype(np.int32)
    np.testing.assert_array_equal(run(s, a), expected)


def test_cast_int_to_float_and_back(run, rng):
    A = hcl.placeholder((10,), "A")

    def kernel(A):
        F = hcl.compute((10,), lambda i: hcl.cast(hcl.Float(32), A[i]) / 4, "F", dtype=hcl.Float(32))
        back = hcl.compute((10,), lambda i: hcl.cast(hcl.Int(32), F[i]), "back")
        return F, back

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-100, 100, 10, dtype=np.int32)
    f, back = run(s, a)
    np.testing.assert_array_equal(f, a.astype(np.float32) / 4)
    # float -> int truncates toward zero, like C
    np.testing.assert_array_equal(back, np.trunc(a / 4).astype(np.int32))


def test_cast_between_widths(run):
    A = hcl.placeholder((6,), "A")

    def kernel(A):
        to_i8 = hcl.compute((6,), lambda i: hcl.cast(hcl.Int(8), A[i]), "to_i8", dtype=hcl.Int(32))
        to_u4 = hcl.compute((6,), lambda i: hcl.cast(hcl.UInt(4), A[i]), "to_u4", dtype=hcl.Int(32))
        # Int(8) -> UInt(16) sign-extends first, as C's (uint16_t)(int8_t)x
        sx = hcl.compute(
            (6,), lambda i: hcl.cast(hcl.UInt(16), hcl.cast(hcl.Int(8), A[i])), "sx", dtype=hcl.Int(32)
        )
        return to_i8, to_u4, sx

    s = hcl.create_schedule([A], kernel)
    a = np.array([0, 127, 128, 255, -129, 1000], dtype=np.int32)
    to_i8, to_u4, sx = run(s, a)
    np.testing.assert_array_equal(to_i8, a.astype(np.int8))
    np.testing.assert_array_equal(to_u4, a & 0xF)
    np.testing.assert_array_equal(sx, a.astype(np.int8).astype(np.uint16))


def test_float_to_unsigned_and_narrow_casts(run):
    F = hcl.placeholder((5,), "F", dtype=hcl.Float(64))

    def kernel(F):
        u8 = hcl.compute((5,), lambda i: hcl.cast(hcl.UInt(8), F[i]), "u8", dtype=hcl.UInt(8))
        f32 = hcl.compute((5,), lambda i: hcl.cast(hcl.Float(32), F[i]), "f32", dtype=hcl.Float(32))
        return u8, f32

    s = hcl.create_schedule([F], kernel)
    f = np.array([0.9, 1.5, 200.7, 255.99, 3.0e-9])
    u8, f32 = run(s, f)
    np.testing.assert_array_equal(u8, np.trunc(f).astype(np.uint8))
    np.testing.assert_array_equal(f32, f.astype(np.float32))


# ---- intrinsics ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, ref, low, high",
    [
        ("exp", np.exp, -3.0, 3.0),
        ("log", np.log, 0.1, 10.0),
        ("log2", np.log2, 0.1, 10.0),
        ("log10", np.log10, 0.1, 10.0),
        ("sqrt", np.sqrt, 0.0, 10.0),
        ("sin", np.sin, -3.0, 3.0),
        ("cos", np.cos, -3.0, 3.0),
        ("tanh", np.tanh, -3.0, 3.0),
        ("abs", np.abs, -3.0, 3.0),
    ],
)
def test_float_intrinsic(run, rng, name, ref, low, high):
    A = hcl.placeholder((16,), "A", dtype=hcl.Float(32))
    op = getattr(hcl, name)

    def kernel(A):
        return hcl.compute((16,), lambda i: op(A[i]), "B", dtype=hcl.Float(32))

    s = hcl.create_schedule([A], kernel)
    a = rng.uniform(low, high, 16).astype(np.float32)
    np.testing.assert_allclose(run(s, a), ref(a), rtol=1e-5, atol=1e-6)


def test_power_and_float64_intrinsics(run, rng):
    A = hcl.placeholder((10,), "A", dtype=hcl.Float(64))
    B = hcl.placeholder((10,), "B", dtype=hcl.Float(64))

    def kernel(A, B):
        P = hcl.compute((10,), lambda i: hcl.power(A[i], B[i]), "P", dtype=hcl.Float(64))
        E = hcl.compute((10,), lambda i: hcl.exp(A[i]) + hcl.sqrt(B[i]), "E", dtype=hcl.Float(64))
        return P, E

    s = hcl.create_schedule([A, B], kernel)
    a = rng.uniform(0.1, 4.0, 10)
    b = rng.uniform(-2.0, 2.0, 10)
    b_pos = np.abs(b)
    p, e = run(s, a, b_pos)
    np.testing.assert_allclose(p, np.power(a, b_pos), rtol=1e-12)
    np.testing.assert_allclose(e, np.exp(a) + np.sqrt(b_pos), rtol=1e-12)


def test_intrinsics_on_integer_arguments_convert_to_float(run):
    A = hcl.placeholder((5,), "A")

    def kernel(A):
        return hcl.compute((5,), lambda i: hcl.sqrt(A[i]) + hcl.power(A[i], 2), "B", dtype=hcl.Float(32))

    s = hcl.create_schedule([A], kernel)
    a = np.array([0, 1, 4, 9, 30], dtype=np.int32)
    np.testing.assert_allclose(run(s, a), np.sqrt(a) + a.astype(np.float64) ** 2, rtol=1e-5)


def test_power_of_integers_is_exact_in_double(run):
    """HeteroCL's pow_rule types a power of two integers Float(64): in float 5001 ** 2 had come out
    25010000 (24 mantissa bits), in the reference and the C++ alike."""
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        return hcl.compute((4,), lambda i: hcl.power(A[i], 2), "B")

    s = hcl.create_schedule([A], kernel)
    a = np.array([5001, 4097, -30001, 3], dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), a.astype(np.int64) ** 2)
    assert "double v3 = std::pow(v0, v2);" in hcl.build(s, target="vhls")


def test_abs_of_signed_integers(run):
    A = hcl.placeholder((5,), "A", dtype=hcl.Int(8))

    def kernel(A):
        return hcl.compute((5,), lambda i: hcl.abs(A[i]), "B", dtype=hcl.Int(16))

    s = hcl.create_schedule([A], kernel)
    a = np.array([-128, -7, 0, 5, 127], dtype=np.int8)
    # abs is taken in A's own type: abs(-128) wraps to -128 in Int(8)
    np.testing.assert_array_equal(run(s, a), [-128, 7, 0, 5, 127])


# ---- host arrays ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype, values, expected",
    [
        ("int8", [1, -2, 127, 128, -129], [1, -2, 127, -128, 127]),
        ("uint4", [0, 15, 16, 17, -1], [0, 15, 0, 1, 15]),
        (hcl.Int(12), [2047, 2048, -2049, 4095], [2047, -2048, 2047, -1]),
        (hcl.UInt(12), [4095, 4096, -1], [4095, 0, 4095]),
        ("int64", [2**63 - 1, -(2**63)], [2**63 - 1, -(2**63)]),
        ("uint64", [2**64 - 1, 0], [2**64 - 1, 0]),
    ],
)
def test_asarray_asnumpy_round_trip_wraps(dtype, values, expected):
    arr = hcl.asarray(np.array(values, dtype=object), dtype)
    out = arr.asnumpy()
    assert out.shape == (len(values),)
    assert [int(v) for v in out] == expected


def test_asarray_float_to_int_truncates_and_default_dtype():
    arr = hcl.asarray(np.array([1.9, -1.9, 2.5, -0.5]), hcl.Int(8))
    np.testing.assert_array_equal(arr.asnumpy(), [1, -1, 2, 0])
    hcl.init(hcl.UInt(4))
    assert hcl.asarray(np.array([17, 3])).dtype == hcl.UInt(4)
    np.testing.assert_array_equal(hcl.asarray(np.array([17, 3])).asnumpy(), [1, 3])


def test_built_function_with_asarray_arguments(rng):
    A = hcl.placeholder((4, 5), "A", dtype=hcl.Int(12))

    def kernel(A):
        return hcl.compute((4, 5), lambda i, j: A[i, j] + 1000, "B", dtype=hcl.Int(12))

    s = hcl.create_schedule([A], kernel)
    fn = hcl.build(s)
    a_np = rng.integers(-2048, 2048, (4, 5))
    a = hcl.asarray(a_np, hcl.Int(12))
    b = hcl.asarray(np.zeros((4, 5), dtype=np.int64), hcl.Int(12))
    fn(a, b)
    expected = (a_np + 1000 + 2048) % 4096 - 2048
    np.testing.assert_array_equal(b.asnumpy(), expected)
    np.testing.assert_array_equal(a.asnumpy(), a_np)  # inputs are not touched


def test_built_function_writes_plain_numpy_output_in_place(rng):
    A = hcl.placeholder((3, 3), "A", dtype=hcl.Float(64))

    def kernel(A):
        return hcl.compute((3, 3), lambda i, j: A[j, i], "T", dtype=hcl.Float(64))

    s = hcl.create_schedule([A], kernel)
    fn = hcl.build(s)
    a = rng.standard_normal((3, 3))
    out = np.full((3, 3), np.nan)
    same = out
    assert fn(a, out) is None
    assert same is out
    np.testing.assert_array_equal(out, a.T)


# ---- argument order and stage handles -------------------------------------------------------


def test_outputs_follow_inputs_in_argument_order(rng):
    A = hcl.placeholder((4,), "A")
    B = hcl.placeholder((4,), "B")

    def kernel(A, B):
        Y = hcl.compute((4,), lambda i: A[i] - B[i], "Y")
        X = hcl.compute((4,), lambda i: A[i] + B[i], "X")
        return X, Y

    s = hcl.create_schedule([A, B], kernel)
    fn = hcl.build(s)
    assert fn.signature.arg_names == ["A", "B", "X", "Y"]
    text = str(hcl.lower(s))
    assert 'hcl.arg_names = ["A", "B", "X", "Y"]' in text
    a = rng.integers(-10, 10, 4, dtype=np.int32)
    b = rng.integers(-10, 10, 4, dtype=np.int32)
    x = np.zeros(4, np.int32)
    y = np.zeros(4, np.int32)
    fn(a, b, x, y)
    np.testing.assert_array_equal(x, a + b)
    np.testing.assert_array_equal(y, a - b)


def test_stage_handles_kernel_attr_schedule_item_and_tensor():
    A = hcl.placeholder((4, 4), "A")
    made = {}

    def kernel(A):
        B = hcl.compute((4, 4), lambda i, j: A[i, j] + 1, "B")
        made["B"] = B
        return hcl.compute((4, 4), lambda i, j: B[i, j] * 2, "C")

    s = hcl.create_schedule([A], kernel)
    assert isinstance(kernel.B, hcl.Stage)
    assert s[kernel.B] is kernel.B
    assert s[made["B"]] is kernel.B
    assert s["C"] is kernel.C
    assert [ax.name for ax in kernel.B.axis] == ["i", "j"]


def test_two_mm_kernel_of_the_outlining_proposal(run, rng):
    P, Q, R, S = TWO_MM_SIZES
    s, _ = two_mm()
    assert set(s.stages) == {"out_AB", "out_ABC", "E"}
    a, b, c, d = (rng.random(shape, dtype=np.float32) for shape in [(P, Q), (Q, R), (R, S), (P, S)])
    np.testing.assert_allclose(run(s, a, b, c, d), a @ b @ c + d, rtol=1e-5)


# ---- more reductions and def_ -------------------------------------------------------------------


def test_reduce_axes_made_outside_the_algorithm_get_distinct_names(run):
    # unnamed axes made before tracing used to share the name "rx" and so one loop nest
    r = hcl.reduce_axis(0, 4)
    c = hcl.reduce_axis(0, 5)
    A = hcl.placeholder((3, 4, 5), "A")

    def kernel(A):
        return hcl.compute((3,), lambda i: hcl.sum(A[i, r, c], axis=[r, c]), "B")

    s = hcl.create_schedule([A], kernel)
    assert r.name != c.name
    a = np.arange(60, dtype=np.int32).reshape(3, 4, 5)
    np.testing.assert_array_equal(run(s, a), a.sum(axis=(1, 2)))


def test_sum_and_max_over_one_axis_in_one_expression(run, rng):
    A = hcl.placeholder((4, 7), "A")

    def kernel(A):
        r = hcl.reduce_axis(1, 7, "r")
        return hcl.compute((4,), lambda i: hcl.sum(A[i, r], axis=r) * 1000 + hcl.max(A[i, r], axis=r), "B")

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-99, 99, (4, 7), dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), a[:, 1:].sum(axis=1) * 1000 + a[:, 1:].max(axis=1))


def test_conv1d_with_reduction_in_index(run, rng):
    A = hcl.placeholder((20,), "A", dtype=hcl.Float(32))
    W = hcl.placeholder((5,), "W", dtype=hcl.Float(32))

    def kernel(A, W):
        r = hcl.reduce_axis(0, 5, "r")
        return hcl.compute(
            (16,),
            lambda i: hcl.sum(A[i + r] * W[r], axis=r, dtype=hcl.Float(32)),
            "conv",
            dtype=hcl.Float(32),
        )

    s = hcl.create_schedule([A, W], kernel)
    a = rng.standard_normal(20).astype(np.float32)
    w = rng.standard_normal(5).astype(np.float32)
    np.testing.assert_allclose(run(s, a, w), np.correlate(a, w, mode="valid"), rtol=1e-5, atol=1e-6)


def test_sum_in_scalar_init_and_in_imperative_loop(run):
    A = hcl.placeholder((4, 6), "A")

    def kernel(A):
        r = hcl.reduce_axis(0, 6, "r")
        first = hcl.scalar(hcl.sum(A[0, r], axis=r), "first")
        B = hcl.compute((4,), lambda i: 0, "B")
        k = hcl.reduce_axis(0, 6, "k")
        with hcl.for_(0, 4) as i:
            B[i] = hcl.sum(A[i, k] * 2, axis=k) + first.v
        return B

    s = hcl.create_schedule([A], kernel)
    a = np.arange(24, dtype=np.int32).reshape(4, 6) - 10
    np.testing.assert_array_equal(run(s, a), (a * 2).sum(axis=1) + a[0].sum())


def test_def_functions_with_scalar_return_and_tensor_arguments(run, rng):
    A = hcl.placeholder((6,), "A")

    def kernel(A):
        @hcl.def_([(), ()])
        def larger(x, y):
            with hcl.if_(x > y):
                hcl.return_(x)
            with hcl.else_():
                hcl.return_(y)

        @hcl.def_([(6,), (6,)])
        def double_into(X, Y):
            with hcl.for_(0, 6) as i:
                Y[i] = X[i] * 2

        B = hcl.compute((6,), lambda i: larger(A[i], 3), "B")
        C = hcl.compute((6,), lambda i: 0, "C")
        double_into(B, C)
        return C

    s = hcl.create_schedule([A], kernel)
    text = str(hcl.lower(s))
    assert "func.func private @larger" in text and "func.func private @double_into" in text
    a = rng.integers(-10, 10, 6, dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), np.maximum(a, 3) * 2)


def test_def_scalar_arguments_and_returns_keep_their_types(run):
    """As HeteroCL infers a def_ function's types from its arguments and returned values: a Float
    passed (or returned) under hcl.init()'s Int(32) had been converted to Int(32), [0, 1, -1, 0]."""
    A = hcl.placeholder((4,), "A", dtype=hcl.Float())
    stype = hcl.Struct({"a": hcl.Int(8), "b": hcl.UInt(4)})
    S = hcl.placeholder((4,), "S", dtype=stype)

    def kernel(A, S):
        @hcl.def_()
        def half(v):
            hcl.return_(v * 0.5)

        @hcl.def_()
        def fields(v):
            hcl.return_(v.a * 10 + v.b)

        @hcl.def_()
        def sign(v):
            with hcl.if_(v < 0):
                hcl.return_(-1)
            hcl.return_(v * 2.0)

        H = hcl.compute((4,), lambda i: half(A[i]) + sign(A[i]), "H", dtype=hcl.Float())
        return H, hcl.compute((4,), lambda i: fields(S[i]), "F")

    s = hcl.create_schedule([A, S], kernel)
    a = np.array([1.5, 2.7, -3.3, 0.25], np.float32)
    structs = np.array([(-3, 1), (4, 15), (5, 0), (-128, 7)], dtype=[("a", np.int8), ("b", np.uint8)])
    h, f = run(s, a, hcl.asarray(structs, stype))
    np.testing.assert_allclose(h, a * 0.5 + np.where(a < 0, -1, a * 2), rtol=1e-6)
    np.testing.assert_array_equal(f, [-29, 55, 50, -1273])


def test_stages_inside_if_and_for_at_algorithm_level(run):
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        C = hcl.compute((4,), lambda i: 0, "C")
        with hcl.if_(A[0] > 0):
            B = hcl.compute((4,), lambda i: A[i] * 2, "B")
            with hcl.for_(0, 4) as i:
                C[i] = B[i] + 1
        with hcl.else_(), hcl.for_(0, 4) as i:
            D = hcl.compute((2,), lambda j: A[i] + j, "D")
            C[i] = D[1]
        return C

    s = hcl.create_schedule([A], kernel)
    fn = hcl.build(s)
    for a in ([1, 2, 3, 4], [-1, 2, 3, 4]):
        a = np.array(a, dtype=np.int32)
        out = np.zeros(4, dtype=np.int32)
        fn(a, out)
        np.testing.assert_array_equal(out, a * 2 + 1 if a[0] > 0 else a + 1)


def test_unnamed_placeholders_and_stages_get_generated_names(run):
    A = hcl.placeholder((4,))

    def kernel(A):
        B = hcl.compute((4,), lambda i: A[i] + 1)
        return hcl.compute((4,), lambda i: B[i] * 2)

    s = hcl.create_schedule([A], kernel)
    assert list(s.stages) == ["compute_0", "compute_1"]
    assert hcl.build(s).signature.arg_names == ["placeholder_0", "compute_1"]
    np.testing.assert_array_equal(run(s, np.arange(4, dtype=np.int32)), (np.arange(4) + 1) * 2)


def test_index_from_tensor_values(run):
    A = hcl.placeholder((6,), "A", dtype=hcl.UInt(8))
    T = hcl.placeholder((256,), "T")

    def kernel(A, T):
        return hcl.compute((6,), lambda i: T[A[i]] + T[255 - A[i]], "B")

    s = hcl.create_schedule([A, T], kernel)
    a = np.array([0, 200, 255, 128, 1, 3], dtype=np.uint8)
    t = np.arange(256, dtype=np.int32) ** 2
    np.testing.assert_array_equal(run(s, a, t), t[a] + t[255 - a.astype(np.int64)])


def test_custom_reducer_gets_value_first_then_accumulator(run, rng):
    A = hcl.placeholder((6, 8), "A")

    def kernel(A):
        # not commutative: acc = acc * 2 + bit packs the row's bits, first element highest
        pack = hcl.reducer(0, lambda x, y: y * 2 + x)
        k = hcl.reduce_axis(0, 8, "k")
        return hcl.compute((6,), lambda i: pack(A[i, k], axis=k), "C")

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(0, 2, (6, 8), dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), a @ (2 ** np.arange(7, -1, -1)))


@pytest.mark.parametrize("n, dtype", [(4, hcl.Int(32)), (5, hcl.UInt(8))], ids=["int32", "uint8"])
def test_def_decorated_at_import_time_in_two_schedules(run, n, dtype):
    A = hcl.placeholder((n,), "A", dtype=dtype)

    def kernel(A):
        B = hcl.compute((n,), lambda i: 0, "B", dtype=dtype)
        C = hcl.compute((n + 1,), lambda i: 0, "C", dtype=dtype)
        D = hcl.compute((n + 1,), lambda i: A[i % n], "D", dtype=dtype)
        scale_into(A, B, 3)
        scale_into(D, C, 2)  # another signature: a second function
        return B, C

    s = hcl.create_schedule([A], kernel)
    text = str(hcl.lower(s))
    assert "func.func private @scale_into(" in text and "func.func private @scale_into_0(" in text
    a = np.arange(n).astype(dtype.np_storage)
    b, c = run(s, a)
    np.testing.assert_array_equal(b, a * 3)
    np.testing.assert_array_equal(c, np.append(a, a[0]) * 2)
