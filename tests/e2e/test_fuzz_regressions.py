"""Bugs the differential fuzzer (tests/fuzz, bench/fuzz.py) found, each as its shrunk example.

Each test says what went wrong before the fix; numbers are checked against numpy.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import hclbuild as hcl


def test_an_intermediate_of_65_to_96_bits_gets_16_bytes_an_element() -> None:
    """Found as heap corruption ('corrupted double-linked list') after hcl.build calls: the
    alloc of a UInt(65) buffer was folded with LLVM's default data layout (12 bytes an element)
    while the JIT indexed it with x86-64's (16), so every call wrote past its malloc."""
    from hclbuild.compiler.pipeline import compile_schedule
    from hclbuild.compiler.to_llvm import lower_to_llvm_ir

    X = hcl.placeholder((3, 4), "X", dtype=hcl.Float())
    A = hcl.placeholder((4, 3), "A", dtype=hcl.Int(16))

    def kernel(X, A):
        B = hcl.compute((4, 3), lambda i, j: X[j, i], name="B", dtype=hcl.UInt(65))
        return hcl.compute((4, 3), lambda i, j: A[i, j] > B[j, j], name="C", dtype=hcl.Int(1))

    s = hcl.create_schedule([X, A], kernel)
    ll = lower_to_llvm_ir(compile_schedule(s).module)
    assert "@malloc(i64 192)" in ll  # 12 elements of a 16-byte container


@pytest.mark.slow
def test_many_calls_with_a_65_bit_intermediate_leave_the_heap_intact() -> None:
    """The same design called in a child process that checks the heap on every free."""
    script = textwrap.dedent("""
        import gc, numpy as np, hclbuild as hcl
        X = hcl.placeholder((3, 4), "X", dtype=hcl.Float())
        A = hcl.placeholder((4, 3), "A", dtype=hcl.Int(16))
        def kernel(X, A):
            B = hcl.compute((4, 3), lambda i, j: X[j, i], name="B", dtype=hcl.UInt(65))
            return hcl.compute((4, 3), lambda i, j: A[i, j] > B[j, j], name="C", dtype=hcl.Int(1))
        f = hcl.build(hcl.create_schedule([X, A], kernel))
        rng = np.random.default_rng(0)
        for _ in range(200):
            x = rng.uniform(-4, 4, (3, 4)).astype(np.float32)
            a = rng.integers(-3, 3, (4, 3)).astype(np.int16)
            c = hcl.asarray(np.zeros((4, 3)), dtype=hcl.Int(1))
            f(x, a, c)
            gc.collect()
        b = [[int(np.trunc(v)) % (1 << 65) for v in row] for row in x.T]
        want = np.array([[int(a[i, j]) > b[j][j] for j in range(3)] for i in range(4)])
        assert ((c.asnumpy() != 0) == want).all()
        print("intact")
    """)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MALLOC_CHECK_": "3"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "intact"


def test_a_literal_shift_of_a_fixed_point_value_shifts_by_that_many_bits() -> None:
    """`A[i] << 3` on a Fixed(12, 10) took 3 in A's own format (3.0 wraps to -1.0 there) and
    shifted by the converted -1: poison in LLVM, zeros here."""
    A = hcl.placeholder((3,), "A", dtype=hcl.Fixed(12, 10))

    def kernel(A):
        return hcl.compute((3,), lambda i: A[i] << 3, name="B", dtype=hcl.Fixed(16, 10))

    f = hcl.build(hcl.create_schedule([A], kernel))
    a = hcl.asarray(np.array([-0.5, 0.25, 0.125]), dtype=hcl.Fixed(12, 10))
    b = hcl.asarray(np.zeros(3), dtype=hcl.Fixed(16, 10))
    f(a, b)
    raw = np.array([-512, 256, 128]) << 3  # raw bits shifted, wrapped at A's 12 bits
    wrapped = ((raw + 2048) % 4096) - 2048
    np.testing.assert_array_equal(b.asnumpy(), wrapped / 1024)
    assert list(b.asnumpy()) == [0.0, -2.0, 1.0]


def test_min_over_nothing_of_a_wide_fixed_type_is_its_largest_value() -> None:
    """hcl.min's start value of a Fixed(80, 12) went through a float: (2**79 - 1) / 2**12 rounds
    up to 2**67, whose raw bits wrap to the smallest value; a min whose where= never holds (and
    any min) started from -2**67 instead of the largest value."""
    A = hcl.placeholder((4,), "A", dtype=hcl.Fixed(80, 12))

    def kernel(A):
        r = hcl.reduce_axis(0, 4, "r")
        return hcl.compute(
            (2,), lambda i: hcl.min(A[r], axis=r, where=r > 10), name="B", dtype=hcl.Fixed(80, 12)
        )

    f = hcl.build(hcl.create_schedule([A], kernel))
    b = hcl.asarray(np.zeros(2), dtype=hcl.Fixed(80, 12))
    f(hcl.asarray(np.array([1.0, -2.0, 3.0, 0.5]), dtype=hcl.Fixed(80, 12)), b)
    raw = [int.from_bytes(bytes(v), "little") for v in b.storage]
    assert raw == [(1 << 79) - 1] * 2


def test_max_of_a_wide_fixed_type_starts_below_every_value() -> None:
    A = hcl.placeholder((4,), "A", dtype=hcl.Fixed(72, 4))

    def kernel(A):
        r = hcl.reduce_axis(0, 4, "r")
        return hcl.compute((1,), lambda i: hcl.max(A[r], axis=r), name="B", dtype=hcl.Fixed(72, 4))

    f = hcl.build(hcl.create_schedule([A], kernel))
    b = hcl.asarray(np.zeros(1), dtype=hcl.Fixed(72, 4))
    f(hcl.asarray(np.array([-7.5, -2.25, -3.0, -9.0]), dtype=hcl.Fixed(72, 4)), b)
    np.testing.assert_array_equal(b.asnumpy(), [-2.25])


def test_a_negative_fraction_cast_to_a_wide_integer_is_zero_in_csim(tmp_path) -> None:
    """Found by the differential fuzzer: Float -> Int(100) of a value in (-1, 0) gave 1 in csim
    (ap_int<100>'s conversion from a double does not truncate toward zero) where LLVM's fptosi and
    numpy give 0; the emitter now truncates before the conversion."""
    from flow_helpers import check_numpy_llvm_cpp

    X = hcl.placeholder((6,), "X", dtype=hcl.Float())

    def kernel(X):
        wide = hcl.compute((6,), lambda i: X[i], name="wide", dtype=hcl.Int(100))
        return hcl.compute((6,), lambda i: wide[i] + 1, name="out", dtype=hcl.Int(32))

    def inputs(rng):
        return [np.array([-0.25, -0.75, -1.5, 0.5, -3.7, 2.25], dtype=np.float32)]

    def model(x):
        return [np.trunc(x).astype(np.int64) + 1]

    check_numpy_llvm_cpp(hcl.create_schedule([X], kernel), "wide_cast", tmp_path, inputs, model)
