"""Behaviours HeteroCL's own tests check, written here from what they check (issue 29): each passes
in hclbuild, or, where HeteroCL's test expects an exception for something hclbuild does
correctly (conditional returns, downsized def_ arguments, several returns in a compute), the
results are checked instead."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memory_helpers import csim_flow
from mlir import ir
from mlir.dialects import memref

import hclbuild as hcl
from hclbuild.errors import DTypeError

# ---- hcl.print ------------------------------------------------------------------------------------


def test_hcl_print_reaches_a_piped_stdout_in_order_with_pythons_prints(tmp_path: Path) -> None:
    script = tmp_path / "prints.py"
    script.write_text(
        textwrap.dedent(
            """
            import numpy as np
            import hclbuild as hcl

            A = hcl.placeholder((3,), "A")
            f = hcl.build(hcl.create_schedule([A], lambda A: hcl.print(A[1], "kernel %d\\n")))
            print("python before")
            f(np.array([5, 7, 9], dtype=np.int32))
            print("python after")
            """
        )
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout == "python before\nkernel 7\npython after\n"


def test_hcl_stage_is_deprecated_and_still_works(run: Any) -> None:
    A = hcl.placeholder((10,), "A")

    def kernel(A):
        with hcl.Stage("B"), hcl.for_(0, 10) as i:
            A[i] = A[i] + 1

    with pytest.warns(DeprecationWarning, match="hcl.Stage is deprecated") as caught:
        s = hcl.create_schedule([A], kernel)
    assert len(caught) == 1
    a = np.arange(10, dtype=np.int32)
    hcl.build(s)(a)
    np.testing.assert_array_equal(a, np.arange(1, 11))


# ---- types ----------------------------------------------------------------------------------------


def test_a_float_or_fixed_index_is_a_dtype_error() -> None:
    def float_index(A):
        power = hcl.power(hcl.scalar(2).v, hcl.scalar(0).v)  # a float
        return hcl.compute((1,), lambda _: A[power], "B")

    def fixed_index(A):
        return hcl.compute((1,), lambda _: A[hcl.cast(hcl.Fixed(8, 2), 1)], "B")

    def float_slice(A):
        lo, hi = hcl.scalar(0, dtype=hcl.Float()), hcl.scalar(2, dtype=hcl.Float())
        return hcl.compute((1,), lambda _: A[0][lo.v : hi.v], "B")

    for kernel in (float_index, fixed_index):
        A = hcl.placeholder((2,), "A")
        with pytest.raises(DTypeError, match=r"tensor 'A': index 0 is .*; an index must be an integer"):
            hcl.create_schedule([A], kernel)
    A = hcl.placeholder((1,), "A", dtype=hcl.UInt(32))
    with pytest.raises(DTypeError, match="must be an integer or index expression"):
        hcl.create_schedule([A], float_slice)


def test_a_slice_width_read_through_a_compute_definition(run: Any) -> None:
    """HeteroCL's simplifier reads A[4] - A[0] through A's definition: x[A[0] : A[4]] is UInt(4)."""
    widths = []

    def kernel(V):
        A = hcl.compute((10,), lambda x: x, "A")
        fixed, through, same = V[0][0:4], V[0][A[0] : A[4]], V[0][A[1] : A[1] + 4]
        widths.extend([fixed.dtype, through.dtype, same.dtype, V[0][A[2] : A[7]].dtype])
        return hcl.compute((3,), lambda i: hcl.select(i == 0, fixed, hcl.select(i == 1, through, same)), "B")

    V = hcl.placeholder((1,), "V")
    s = hcl.create_schedule([V], kernel)
    assert widths == [hcl.UInt(4), hcl.UInt(4), hcl.UInt(4), hcl.UInt(5)]
    out = run(s, np.array([0b1011_0110_1101], dtype=np.int32))
    assert out.tolist() == [0b1101, 0b1101, 0b0110]


def test_a_slice_width_from_a_definition_another_stage_overwrites_is_an_error() -> None:
    def kernel(V):
        A = hcl.compute((10,), lambda x: x, "A")
        B = hcl.compute((1,), lambda _: V[0][A[0] : A[4]], "B")
        hcl.update(A, lambda x: 2 * x, "A2")
        return B

    V = hcl.placeholder((1,), "V")
    with pytest.raises(DTypeError, match=r"by the definition of 'A'.*stage 'A2' writes 'A' too"):
        hcl.create_schedule([V], kernel)


def test_bitcast_of_uint32_to_float_reinterprets_the_bits(run: Any) -> None:
    A = hcl.placeholder((4, 4), "A", dtype=hcl.UInt(32))
    s = hcl.create_schedule([A], lambda A: hcl.bitcast(A, hcl.Float(32)))
    bits = np.arange(16, dtype=np.uint32).reshape(4, 4) * 0x01020304
    np.testing.assert_array_equal(run(s, bits), bits.view(np.float32))
    assert "union { uint32_t from; float to;}" in hcl.build(s, target="vhls")


def test_operation_copy_and_const_tensors_of_odd_widths(run: Any) -> None:
    values = np.arange(-15, 15, dtype=np.int32).reshape(5, 3, 2)  # doubled, they fit 6 bits

    def copies():
        first, second = hcl.operation.copy(values), hcl.operation.copy(values.tolist())
        return hcl.compute(values.shape, lambda *x: first[x] + second[x], "O")

    np.testing.assert_array_equal(run(hcl.create_schedule([], copies)), values * 2)
    for bits in (6, 37):
        dtype = hcl.Int(bits)
        hcl.init(dtype)

        def constants(dtype=dtype):
            first = hcl.const_tensor(values, dtype=dtype)
            second = hcl.const_tensor(values.tolist(), dtype=dtype)
            return hcl.compute(values.shape, lambda *x: first[x] + second[x], "O")

        s = hcl.create_schedule([], constants)
        globals_ = [op for op in s.module.body.operations if isinstance(op, memref.GlobalOp)]
        assert len(globals_) == 2
        for op in globals_:
            element = ir.MemRefType(op.type_.value).element_type
            assert ir.IntegerType(element).width == bits
        out = hcl.asarray(np.zeros(values.shape), dtype=dtype)
        hcl.build(s)(out)
        np.testing.assert_array_equal(out.asnumpy(), values * 2)


# ---- compute_at -----------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [8, 10, 12])
def test_compute_at_of_a_stage_the_consumer_does_not_read(size: int, run: Any) -> None:
    """HeteroCL fuses the two nests; a producer of another shape computes all of its elements."""
    A = hcl.compute((size, size), lambda y, x: y + x, "A")
    B = hcl.compute((10, 10), lambda y, x: y - x, "B")
    s = hcl.create_schedule([A, B])
    s[A].compute_at(s[B], B.axis[1])
    a, b = run(s)
    np.testing.assert_array_equal(a, np.add.outer(np.arange(size), np.arange(size)))
    np.testing.assert_array_equal(b, np.subtract.outer(np.arange(10), np.arange(10)))


@pytest.mark.slow
def test_fused_stages_of_different_shapes_in_csim(tmp_path: Path) -> None:
    A = hcl.placeholder((12, 12), "A")

    def kernel(A):
        B = hcl.compute((12, 12), lambda y, x: A[y, x] * 3, "B")
        C = hcl.compute((10, 10), lambda y, x: A[y, x] - 1, "C")
        return B, C

    s = hcl.create_schedule([A], kernel)
    s[kernel.B].compute_at(s[kernel.C], kernel.C.axis[1])
    csim_flow(s, tmp_path, "fused", model=lambda a: [a * 3, a[:10, :10] - 1])


@pytest.mark.parametrize("two_d", [False, True])
def test_compute_at_with_reuse_through_the_algorithms_stage_handles(two_d: bool, run: Any) -> None:
    """`kernel.A` is the stage; its shape is its tensor's (HeteroCL's _kernel.A.shape)."""

    def kernel():
        A = hcl.compute((10, 10), lambda y, x: x + y, "A")
        if two_d:
            return hcl.compute((8, 8), lambda y, x: A[y, x] + A[y + 1, x + 1] + A[y + 2, x + 2], "B")
        return hcl.compute((10, 8), lambda y, x: A[y, x] + A[y, x + 1] + A[y, x + 2], "B")

    s = hcl.create_schedule([], kernel)
    A, B = kernel.A, kernel.B
    assert (A.shape, A.dtype) == ((10, 10), hcl.Int(32))
    s[A].compute_at(s[B], B.axis[1])
    assert len(hcl.get_affine_loop_nests(s.top_func)) == 1
    a = np.add.outer(np.arange(10), np.arange(10))
    if two_d:
        want = a[:8, :8] + a[1:9, 1:9] + a[2:, 2:]
    else:
        want = a[:, :8] + a[:, 1:9] + a[:, 2:]
    np.testing.assert_array_equal(run(s), want)


def _popcount(with_compute_at: bool):
    A = hcl.placeholder((10, 20), "A")
    B = hcl.placeholder((10, 20), "B")

    def popcount(A, B):
        hcl.compute(A.shape, lambda xx, yy: A[xx, yy] + 1, "C")
        with hcl.for_(0, 10, tag="Out") as x, hcl.for_(0, 20) as y:
            B[x, y] = 0
            with hcl.for_(0, 32) as i:
                B[x, y] += A[x, y][i]

    s = hcl.create_schedule([A, B], popcount)
    if with_compute_at:
        s[popcount.C].compute_at(s[popcount.Out], popcount.Out.axis[1])
    return s


def test_compute_at_into_an_imperative_stage_that_does_not_read_it() -> None:
    s = _popcount(True)
    nests = hcl.get_affine_loop_nests(s.top_func)
    assert len(nests) == 1  # C's loops now run inside Out's x and y loops
    a = np.random.default_rng(3).integers(0, 2**31, (10, 20), dtype=np.int64).astype(np.int32)
    b = np.zeros((10, 20), dtype=np.int32)
    hcl.build(s)(a, b)
    np.testing.assert_array_equal(b, [[bin(v).count("1") for v in row] for row in a.astype(np.uint32)])


# ---- reuse_at with a stride --------------------------------------------------------------------


def _strided_conv():
    A = hcl.placeholder((10, 10), "A")
    r = hcl.reduce_axis(0, 3, "r")
    c = hcl.reduce_axis(0, 3, "c")

    def kernel(A):
        return hcl.compute((4, 4), lambda y, x: hcl.sum(A[y * 2 + r, x * 2 + c], axis=[r, c]), "B")

    s = hcl.create_schedule([A], kernel)
    line = s.reuse_at(A, s[kernel.B], kernel.B.axis[0], "LB")
    s.reuse_at(line, s[kernel.B], kernel.B.axis[1], "WB")
    return s


def _strided_model(a: np.ndarray) -> np.ndarray:
    return np.array([[a[2 * y : 2 * y + 3, 2 * x : 2 * x + 3].sum() for x in range(4)] for y in range(4)])


def test_a_line_and_window_buffer_with_stride_2(run: Any) -> None:
    s = _strided_conv()
    text = str(hcl.lower(s))
    assert re.search(r'hcl.name = "LB".*: memref<3x9xi32>', text)  # three rows of the nine columns read
    assert re.search(r'hcl.name = "WB".*: memref<3x3xi32>', text)
    a = np.random.default_rng(2).integers(0, 10, (10, 10)).astype(np.int32)
    np.testing.assert_array_equal(run(s, a), _strided_model(a))


@pytest.mark.slow
def test_a_line_and_window_buffer_with_stride_2_in_csim(tmp_path: Path) -> None:
    csim_flow(_strided_conv(), tmp_path, "stride2", model=lambda a: _strided_model(a.astype(np.int64)))


# ---- what HeteroCL refuses and hclbuild computes ------------------------------------------------


def _update_with(function_body) -> np.ndarray:
    values = np.array([0, 3, 4, 5, 6, 7, 8, 9, 12, 2], dtype=np.int32)
    A = hcl.placeholder((10,), "A")
    B = hcl.placeholder((10,), "B")

    def algorithm(A, B):
        update = hcl.def_([A.shape, ()])(function_body)
        hcl.update(B, lambda x: update(A, x))

    out = np.zeros(10, dtype=np.int32)
    hcl.build(hcl.create_schedule([A, B], algorithm))(values, out)
    return values, out


def test_a_def_function_with_conditional_returns() -> None:
    def if_only(A, x):
        with hcl.if_(A[x] > 5):
            hcl.return_(-1)
        hcl.return_(A[x] + 1)

    def if_else(A, x):
        with hcl.if_(A[x] > 5):
            hcl.return_(-1)
        with hcl.else_():
            hcl.return_(A[x] + 1)

    def nested(A, x):
        with hcl.if_(A[x] > 5):
            with hcl.if_(A[x] > 7):
                hcl.return_(-2)
            hcl.return_(-1)
        with hcl.else_(), hcl.if_(A[x] > 3):
            hcl.return_(-3)
        hcl.return_(A[x] + 1)

    def in_a_loop(A, x):
        with hcl.for_(0, 10) as i, hcl.if_(A[x] == i):
            hcl.return_(1)
        hcl.return_(A[x])

    def nested_model(v: int) -> int:
        if v > 5:
            return -2 if v > 7 else -1
        return -3 if v > 3 else v + 1

    for body, model in [
        (if_only, lambda v: -1 if v > 5 else v + 1),
        (if_else, lambda v: -1 if v > 5 else v + 1),
        (nested, nested_model),
        (in_a_loop, lambda v: 1 if v < 10 else v),
    ]:
        values, out = _update_with(body)
        assert out.tolist() == [model(int(v)) for v in values], body.__name__


def test_downsized_def_function_return_and_arguments() -> None:
    a = np.random.default_rng(4).integers(0, 100, 10)
    b = np.random.default_rng(5).integers(0, 100, 10)

    def algorithm(A, B):
        @hcl.def_([A.shape, B.shape, ()])
        def add(A, B, x):
            hcl.return_(A[x] + B[x])

        return hcl.compute(A.shape, lambda x: add(A, B, x), "C")

    A, B = hcl.placeholder((10,), "A"), hcl.placeholder((10,), "B")
    scheme = hcl.create_scheme([A, B], algorithm)
    scheme.downsize([algorithm.add, algorithm.C], hcl.UInt(2))
    out = hcl.asarray(np.zeros(10), dtype=hcl.UInt(2))
    hcl.build(hcl.create_schedule_from_scheme(scheme))(hcl.asarray(a), hcl.asarray(b), out)
    assert out.asnumpy().tolist() == ((a + b) % 4).tolist()

    A, B = hcl.placeholder((10,), "A", dtype=hcl.UInt(2)), hcl.placeholder((10,), "B")
    scheme = hcl.create_scheme([A, B], algorithm)
    scheme.downsize([algorithm.add.A], hcl.UInt(2))
    out = hcl.asarray(np.zeros(10))
    hcl.build(hcl.create_schedule_from_scheme(scheme))(hcl.asarray(a, hcl.UInt(2)), hcl.asarray(b), out)
    assert out.asnumpy().tolist() == (a % 4 + b).tolist()


@pytest.mark.parametrize("shape", [(10,), (4, 5, 6)])
def test_a_compute_whose_body_returns_in_both_branches(shape: tuple[int, ...], run: Any) -> None:
    A = hcl.placeholder(shape, "A")

    def kernel(A):
        def body(*index):
            with hcl.if_(A[index] > 5):
                hcl.return_(index[0])
            with hcl.else_():
                hcl.return_(0)

        return hcl.compute(A.shape, body, "B")

    a = np.random.default_rng(6).integers(0, 10, shape).astype(np.int32)
    first = np.indices(shape)[0]
    np.testing.assert_array_equal(run(hcl.create_schedule([A], kernel), a), np.where(a > 5, first, 0))
