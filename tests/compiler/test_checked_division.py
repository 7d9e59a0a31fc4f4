"""Checked division in hcl.build callables, and build-time errors for a constant 0 divisor or a
constant subscript outside its tensor. Division results are checked against numpy with negative
divisors that do not divide evenly (C truncation for `/` and `%`, floor for `//`)."""

from __future__ import annotations

import numpy as np
import pytest

import hclbuild as hcl
from hclbuild.errors import CompileError, DivisionError

DIVIDENDS = np.array([7, -7, 7, -7, 9, -9, 1, 0], dtype=np.int64)
DIVISORS = np.array([2, 2, -2, -2, -4, -4, -3, 5], dtype=np.int64)


def binary(op, dtype: str = "int32", n: int = 8, name: str = "C", outline: bool = False):
    hcl.init(hcl.Int(32) if dtype == "int32" else dtype)
    A = hcl.placeholder((n,), "A", dtype)
    B = hcl.placeholder((n,), "B", dtype)

    def kernel(A, B):
        C = hcl.compute((n,), lambda i: op(A[i], B[i]), name=name, dtype=dtype)
        return hcl.compute((n,), lambda i: C[i] + 0, name="D", dtype=dtype)

    s = hcl.create_schedule([A, B], kernel, name="top")
    if outline:
        s.outline(getattr(kernel, name))
    return s


def run(schedule, *arrays, **build_options):
    f = hcl.build(schedule, **build_options)
    out = np.zeros_like(arrays[0])
    f(*arrays, out)
    return out


@pytest.mark.parametrize("dtype, np_type", [("int32", np.int32), ("int64", np.int64)])
def test_truncating_division_and_remainder_with_negative_divisors(dtype, np_type):
    a, b = DIVIDENDS.astype(np_type), DIVISORS.astype(np_type)
    quotient = run(binary(lambda x, y: x / y, dtype), a, b)
    assert quotient.tolist() == np.trunc(a / b).astype(np_type).tolist() == [3, -3, -3, 3, -2, 2, 0, 0]
    remainder = run(binary(lambda x, y: x % y, dtype), a, b)
    assert remainder.tolist() == np.fmod(a, b).tolist() == [1, -1, 1, -1, 1, -1, 1, 0]


def test_floor_division_with_negative_divisors():
    a, b = DIVIDENDS.astype(np.int32), DIVISORS.astype(np.int32)
    assert (
        run(binary(lambda x, y: x // y), a, b).tolist()
        == np.floor_divide(a, b).tolist()
        == [3, -4, -4, 3, -3, 2, -1, 0]
    )


def test_division_by_zero_raises_naming_function_and_stage():
    a = np.array([1, 2, 3, 4, 5, 6, 7, 8], np.int32)
    b = np.array([1, 1, 1, 0, 1, 1, 1, 1], np.int32)
    with pytest.raises(DivisionError, match=r"^function top, stage C divides by zero$"):
        run(binary(lambda x, y: x / y), a, b)
    with pytest.raises(ArithmeticError):  # like Python's own ZeroDivisionError
        run(binary(lambda x, y: x % y), a, b)


def test_division_by_zero_inside_an_outlined_function_names_it():
    a = np.ones(8, np.int32)
    b = np.zeros(8, np.int32)
    with pytest.raises(DivisionError, match=r"^function Stage_Q, stage Q divides by zero$"):
        run(binary(lambda x, y: x // y, name="Q", outline=True), a, b)


def test_remainder_overflow_of_the_minimum_by_minus_one_is_reported():
    a = np.full(8, np.iinfo(np.int64).min, np.int64)
    b = np.full(8, -1, np.int64)
    with pytest.raises(DivisionError, match="takes a remainder the most negative 64-bit integer by -1"):
        run(binary(lambda x, y: x % y, "int64"), a, b)


def test_wide_and_unsigned_division_by_zero_are_reported():
    with pytest.raises(DivisionError, match="divides by zero"):
        s = binary(lambda x, y: x / y, "uint16")
        run(s, np.ones(8, np.uint16), np.zeros(8, np.uint16))
    s = binary(lambda x, y: x / y, "int100")
    f = hcl.build(s)
    values = hcl.asarray(np.full(8, 5), "int100")
    zeros = hcl.asarray(np.zeros(8), "int100")
    with pytest.raises(DivisionError, match="stage C divides by zero"):
        f(values, zeros, hcl.asarray(np.zeros(8), "int100"))


def test_unchecked_build_gives_the_same_results():
    a, b = DIVIDENDS.astype(np.int32), DIVISORS.astype(np.int32)
    s = binary(lambda x, y: x / y)
    assert run(s, a, b, checked_division=False).tolist() == run(s, a, b).tolist()


@pytest.mark.parametrize(
    "op, kind",
    [(lambda x, y: x / 0, "division"), (lambda x, y: x // 0, "division"), (lambda x, y: x % 0, "remainder")],
)
def test_constant_zero_divisor_is_a_build_time_error(op, kind):
    with pytest.raises(CompileError, match=rf"^stage C: {kind} by the constant 0$"):
        hcl.build(binary(op))


@pytest.mark.parametrize("subscript, value", [(lambda A, i: A[8], 8), (lambda A, i: A[-1], -1)])
def test_constant_subscript_outside_a_tensor_is_a_build_time_error(subscript, value):
    A = hcl.placeholder((8,), "A")
    s = hcl.create_schedule([A], lambda A: hcl.compute((8,), lambda i: subscript(A, i) + i, name="C"))
    with pytest.raises(
        CompileError,
        match=rf"^stage C reads A outside its shape \(8,\): subscript 0 is "
        rf"the constant {value} \(valid 0..7\)$",
    ):
        hcl.build(s)


def test_constant_store_subscript_outside_a_2d_tensor_is_a_build_time_error():
    A = hcl.placeholder((3, 4), "A")

    def kernel(A):
        def body():
            A[1, 4] = 0

        hcl.mutate((1,), lambda _: body(), name="poke")

    s = hcl.create_schedule([A], kernel)
    with pytest.raises(
        CompileError,
        match=r"^stage poke writes A outside its shape \(3, 4\): subscript 1 is "
        r"the constant 4 \(valid 0..3\)$",
    ):
        hcl.lower(s)


def test_constant_zero_divisor_behind_casts_is_a_build_time_error():
    hcl.init(hcl.Int(8))
    A = hcl.placeholder((4,), "A", "int8")
    s = hcl.create_schedule(
        [A], lambda A: hcl.compute((4,), lambda i: A[i] / hcl.cast(hcl.Int(8), 0), name="C")
    )
    with pytest.raises(CompileError, match=r"^stage C: division by the constant 0$"):
        hcl.lower(s)
