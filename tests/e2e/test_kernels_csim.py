"""The emitter's correctness suite: for every kernel, numpy, the LLVM reference and the g++-compiled
Vitis HLS C++ must agree. Each kernel goes through the real flow in-process: build + outline +
verify -> LLVM reference run (checked against the numpy model) -> golden vectors per function ->
emitted C++ + testbench compiled with `g++ -std=c++17 -Wall -Werror` -> run -> bit-exact compare
(ints and fixed point) or 1e-5 relative (floats), for the top and every outlined function."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flow_helpers import check_numpy_llvm_cpp

import hclbuild as hcl

N = 16
KERNELS: dict[str, Callable[[], tuple[Any, Callable | None, Callable | None]]] = {}


def kernel(fn: Callable[[], tuple[Any, Callable | None, Callable | None]]):
    KERNELS[fn.__name__] = fn
    return fn


def wrap(values: np.ndarray, bits: int, signed: bool) -> np.ndarray:
    """Two's complement wrap of int64 values to `bits` bits (numpy's side of ap_int)."""
    values = np.asarray(values, dtype=np.int64) & ((1 << bits) - 1)
    if signed:
        values = np.where(values >= 1 << (bits - 1), values - (1 << bits), values)
    return values


# ---- elementwise ---------------------------------------------------------------------------


@kernel
def vadd_int32():
    A, B = hcl.placeholder((N,), "A"), hcl.placeholder((N,), "B")
    s = hcl.create_schedule([A, B], lambda A, B: hcl.compute((N,), lambda i: A[i] + B[i], name="C"))
    return s, None, lambda a, b: a + b


@kernel
def saxpy_f32():
    hcl.init(hcl.Float())
    X, Y = hcl.placeholder((N,), "X"), hcl.placeholder((N,), "Y")
    s = hcl.create_schedule([X, Y], lambda X, Y: hcl.compute((N,), lambda i: 2.5 * X[i] + Y[i], name="Z"))
    return s, None, lambda x, y: np.float32(2.5) * x + y


@kernel
def int8_wraparound():
    A = hcl.placeholder((N,), "A", dtype=hcl.Int(8))
    s = hcl.create_schedule(
        [A], lambda A: hcl.compute((N,), lambda i: A[i] * 3 + 100, name="B", dtype=hcl.Int(8))
    )
    return s, None, lambda a: wrap(a.astype(np.int64) * 3 + 100, 8, True)


@kernel
def uint12_odd_width():
    A = hcl.placeholder((N,), "A", dtype=hcl.UInt(12))
    B = hcl.placeholder((N,), "B", dtype=hcl.UInt(12))
    s = hcl.create_schedule(
        [A, B], lambda A, B: hcl.compute((N,), lambda i: A[i] * B[i] - 7, name="C", dtype=hcl.UInt(12))
    )

    def inputs(rng):
        return [rng.integers(0, 4096, N), rng.integers(0, 4096, N)]

    return s, inputs, lambda a, b: wrap(a.astype(np.int64) * b - 7, 12, False)


@kernel
def int64_multiply():
    A = hcl.placeholder((N,), "A", dtype=hcl.Int(64))
    s = hcl.create_schedule(
        [A], lambda A: hcl.compute((N,), lambda i: A[i] * A[i] + 1, name="B", dtype=hcl.Int(64))
    )
    return s, lambda rng: [rng.integers(-(2**31), 2**31, N)], lambda a: a * a + 1


@kernel
def int128_arith():
    A = hcl.placeholder((4,), "A", dtype=hcl.Int(128))

    def algo(A):
        return hcl.compute((4,), lambda i: (A[i] << 70) + A[i] * 3, name="B", dtype=hcl.Int(128))

    s = hcl.create_schedule([A], algo)

    def model(a):
        out = np.empty(4, dtype=object)
        for k in range(4):
            v = ((int(a[k]) << 70) + int(a[k]) * 3) & ((1 << 128) - 1)
            out[k] = v - (1 << 128) if v >> 127 else v
        return out

    return s, lambda rng: [np.array([1, -5, 123456789, -(2**40)], dtype=object)], model


# ---- integer division semantics ----------------------------------------------------------------


@kernel
def signed_div_mod_floordiv():
    A, B = hcl.placeholder((N,), "A"), hcl.placeholder((N,), "B")

    def algo(A, B):
        return hcl.compute(
            (N,), lambda i: (A[i] / B[i]) * 10000 + (A[i] % B[i]) * 100 + A[i] // B[i], name="C"
        )

    s = hcl.create_schedule([A, B], algo)

    def inputs(rng):
        b = rng.integers(1, 9, N) * rng.choice([-1, 1], N)
        return [rng.integers(-60, 60, N), b]

    def model(a, b):
        trunc = np.trunc(a / b).astype(np.int64)
        return trunc * 10000 + np.fmod(a, b) * 100 + np.floor_divide(a, b)

    return s, inputs, model


@kernel
def unsigned_div_mod():
    A = hcl.placeholder((N,), "A", dtype=hcl.UInt(16))
    B = hcl.placeholder((N,), "B", dtype=hcl.UInt(16))
    s = hcl.create_schedule(
        [A, B],
        lambda A, B: hcl.compute((N,), lambda i: A[i] / B[i] + A[i] % B[i], name="C", dtype=hcl.UInt(16)),
    )
    return s, lambda rng: [rng.integers(0, 65536, N), rng.integers(1, 300, N)], lambda a, b: a // b + a % b


@kernel
def int96_floordiv():
    A = hcl.placeholder((8,), "A", dtype=hcl.Int(96))
    B = hcl.placeholder((8,), "B", dtype=hcl.Int(96))
    s = hcl.create_schedule(
        [A, B], lambda A, B: hcl.compute((8,), lambda i: A[i] // B[i], name="C", dtype=hcl.Int(96))
    )

    def inputs(rng):
        a = np.array([-1, 7, -7, 2**80 + 5, -(2**80) - 5, 100, -100, 0], dtype=object)
        b = np.array([3, -2, 2, -(2**41), 2**41 + 1, 7, 7, -5], dtype=object)
        return [a, b]

    def model(a, b):
        return np.array([int(x) // int(y) for x, y in zip(a, b)], dtype=object)

    return s, inputs, model


# ---- reductions ---------------------------------------------------------------------------


@kernel
def gemm_f32():
    hcl.init(hcl.Float())
    A, B = hcl.placeholder((8, 12), "A"), hcl.placeholder((12, 10), "B")

    def algo(A, B):
        k = hcl.reduce_axis(0, 12, "k")
        return hcl.compute((8, 10), lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k), name="C")

    s = hcl.create_schedule([A, B], algo)
    s[algo.C].pipeline(algo.C.axis[1])
    return s, None, lambda a, b: a.astype(np.float64) @ b


@kernel
def max_reduction_int():
    A = hcl.placeholder((N, 8), "A")

    def algo(A):
        r = hcl.reduce_axis(0, 8, "r")
        return hcl.compute((N,), lambda i: hcl.max(A[i, r], axis=r), name="M")

    return hcl.create_schedule([A], algo), None, lambda a: a.max(axis=1)


@kernel
def min_reduction_where():
    A = hcl.placeholder((N, 8), "A")

    def algo(A):
        r = hcl.reduce_axis(0, 8, "r")
        return hcl.compute((N,), lambda i: hcl.min(A[i, r], axis=r, where=A[i, r] > 0), name="M")

    def model(a):
        masked = np.where(a > 0, a, np.iinfo(np.int32).max)
        return masked.min(axis=1)

    return hcl.create_schedule([A], algo), None, model


@kernel
def custom_reducer_product():
    A = hcl.placeholder((N, 4), "A")
    prod = hcl.reducer(1, lambda x, y: x * y)

    def algo(A):
        r = hcl.reduce_axis(0, 4, "r")
        return hcl.compute((N,), lambda i: prod(A[i, r], axis=r), name="P")

    s = hcl.create_schedule([A], algo)
    return s, lambda rng: [rng.integers(-9, 9, (N, 4))], lambda a: a.prod(axis=1)


@kernel
def conv2d_relu_outlined():
    hcl.init(hcl.Float())
    A, W = hcl.placeholder((10, 10), "A"), hcl.placeholder((3, 3), "W")

    def algo(A, W):
        r, c = hcl.reduce_axis(0, 3, "r"), hcl.reduce_axis(0, 3, "c")
        conv = hcl.compute((8, 8), lambda y, x: hcl.sum(A[y + r, x + c] * W[r, c], axis=[r, c]), name="conv")
        return hcl.compute((8, 8), lambda y, x: hcl.select(conv[y, x] > 0, conv[y, x], 0.0), name="relu")

    s = hcl.create_schedule([A, W], algo)
    s.outline(algo.conv)

    def model(a, w):
        acc = np.zeros((8, 8))
        for r in range(3):
            for c in range(3):
                acc += a[r : r + 8, c : c + 8].astype(np.float64) * w[r, c]
        return np.maximum(acc, 0)

    return s, None, model


# ---- imperative code ---------------------------------------------------------------------------


@kernel
def if_elif_else_clamp():
    A = hcl.placeholder((N,), "A")

    def algo(A):
        def body(i):
            with hcl.if_(A[i] > 50):
                hcl.return_(50)
            with hcl.elif_(A[i] < -50):
                hcl.return_(-50)
            with hcl.else_():
                hcl.return_(A[i] * 2)

        return hcl.compute((N,), body, name="B")

    s = hcl.create_schedule([A], algo)
    return (
        s,
        lambda rng: [rng.integers(-100, 100, N)],
        lambda a: np.where(a > 50, 50, np.where(a < -50, -50, a * 2)),
    )


@kernel
def prefix_sum_for_loop():
    A = hcl.placeholder((N,), "A")
    B = hcl.placeholder((N,), "B")

    def algo(A, B):
        def body(_):
            acc = hcl.scalar(0, "acc")
            with hcl.for_(0, N, name="i") as i:
                acc.v = acc.v + A[i]
                B[i] = acc.v

        hcl.mutate((1,), body, "scan")

    s = hcl.create_schedule([A, B], algo)
    return s, None, lambda a, b: {"B": np.cumsum(a)}


@kernel
def reverse_negative_step():
    A = hcl.placeholder((N,), "A")
    B = hcl.placeholder((N,), "B")

    def algo(A, B):
        with hcl.for_(N - 1, -1, -1, name="i") as i:
            B[N - 1 - i] = A[i]

    s = hcl.create_schedule([A, B], algo)
    return s, None, lambda a, b: {"B": a[::-1]}


@kernel
def while_collatz_steps():
    A = hcl.placeholder((N,), "A")

    def algo(A):
        def body(i):
            x = hcl.scalar(A[i], "x")
            steps = hcl.scalar(0, "steps")
            with hcl.while_(x.v != 1):
                with hcl.if_(x.v % 2 == 0):
                    x.v = x.v / 2
                with hcl.else_():
                    x.v = x.v * 3 + 1
                steps.v = steps.v + 1
            hcl.return_(steps.v)

        return hcl.compute((N,), body, name="S")

    def model(a):
        out = []
        for v in a:
            n, steps = int(v), 0
            while n != 1:
                n = n // 2 if n % 2 == 0 else 3 * n + 1
                steps += 1
            out.append(steps)
        return np.array(out)

    return hcl.create_schedule([A], algo), lambda rng: [rng.integers(1, 60, N)], model


# ---- bits ---------------------------------------------------------------------------------


@kernel
def popcount_bits():
    A = hcl.placeholder((N,), "A", dtype=hcl.UInt(8))

    def algo(A):
        def body(i):
            count = hcl.scalar(0, "count")
            with hcl.for_(0, 8, name="b") as b:
                count.v = count.v + A[i][b]
            hcl.return_(count.v)

        return hcl.compute((N,), body, name="C")

    model = lambda a: np.array([bin(int(v)).count("1") for v in a])  # noqa: E731
    return hcl.create_schedule([A], algo), lambda rng: [rng.integers(0, 256, N)], model


@kernel
def bit_slice_swap_nibbles():
    A = hcl.placeholder((N,), "A", dtype=hcl.UInt(8))
    B = hcl.placeholder((N,), "B", dtype=hcl.UInt(8))

    def algo(A, B):
        def body(i):
            B[i][0:4] = A[i][4:8]
            B[i][4:8] = A[i][0:4]
            B[i][0] = 1

        hcl.mutate((N,), body, "swap")

    s = hcl.create_schedule([A, B], algo)
    model = lambda a, b: {"B": (((a >> 4) | ((a & 15) << 4)) | 1).astype(np.uint64)}  # noqa: E731
    return s, lambda rng: [rng.integers(0, 256, N), np.zeros(N)], model


@kernel
def shifts_masks_uint32():
    A = hcl.placeholder((N,), "A", dtype=hcl.UInt(32))

    def algo(A):
        return hcl.compute(
            (N,), lambda i: ((A[i] >> 3) ^ (A[i] << 5)) & 0xFFFF0F0F, name="B", dtype=hcl.UInt(32)
        )

    model = lambda a: ((a >> 3) ^ ((a << 5) & 0xFFFFFFFF)) & 0xFFFF0F0F  # noqa: E731
    return hcl.create_schedule([A], algo), lambda rng: [rng.integers(0, 2**32, N)], model


@kernel
def arithmetic_shift_signed():
    A = hcl.placeholder((N,), "A", dtype=hcl.Int(16))
    s = hcl.create_schedule(
        [A], lambda A: hcl.compute((N,), lambda i: A[i] >> 2, name="B", dtype=hcl.Int(16))
    )
    return s, lambda rng: [rng.integers(-30000, 30000, N)], lambda a: a >> 2


# ---- fixed point ---------------------------------------------------------------------------


@kernel
def fixed_add():
    F = hcl.Fixed(16, 8)
    A, B = hcl.placeholder((N,), "A", dtype=F), hcl.placeholder((N,), "B", dtype=F)
    s = hcl.create_schedule([A, B], lambda A, B: hcl.compute((N,), lambda i: A[i] + B[i], name="C", dtype=F))

    def model(a, b):
        raw = np.round((a + b) * 256).astype(np.int64)
        return wrap(raw, 16, True) / 256.0

    return s, lambda rng: [rng.uniform(-100, 100, N), rng.uniform(-100, 100, N)], model


@kernel
def fixed_multiply_truncates():
    F = hcl.Fixed(16, 8)
    A, B = hcl.placeholder((N,), "A", dtype=F), hcl.placeholder((N,), "B", dtype=F)
    s = hcl.create_schedule([A, B], lambda A, B: hcl.compute((N,), lambda i: A[i] * B[i], name="C", dtype=F))

    def model(a, b):
        raw = np.floor(np.round(a * 256) * np.round(b * 256) / 256).astype(np.int64)  # AP_TRN: floor
        return wrap(raw, 16, True) / 256.0

    return s, lambda rng: [rng.uniform(-8, 8, N), rng.uniform(-8, 8, N)], model


@kernel
def fixed_float_casts():
    A = hcl.placeholder((N,), "A", dtype=hcl.Float())

    def algo(A):
        q = hcl.compute((N,), lambda i: A[i], name="q", dtype=hcl.UFixed(12, 4))
        return hcl.compute((N,), lambda i: hcl.cast(hcl.Float(), q[i]) * 2.0, name="back", dtype=hcl.Float())

    def model(a):
        raw = wrap(np.floor(a.astype(np.float64) * 16).astype(np.int64), 12, False)
        return (raw / 16.0 * 2.0).astype(np.float32)

    return hcl.create_schedule([A], algo), lambda rng: [rng.uniform(0, 300, N).astype(np.float32)], model


# ---- floats ---------------------------------------------------------------------------------


@kernel
def float_intrinsics():
    hcl.init(hcl.Float())
    A = hcl.placeholder((N,), "A")
    s = hcl.create_schedule(
        [A], lambda A: hcl.compute((N,), lambda i: hcl.exp(A[i]) + hcl.sqrt(A[i]) * hcl.tanh(A[i]), name="B")
    )
    a_fn = lambda rng: [rng.uniform(0.1, 2.0, N).astype(np.float32)]  # noqa: E731
    return s, a_fn, lambda a: np.exp(a) + np.sqrt(a) * np.tanh(a)


@kernel
def float64_power_log():
    hcl.init(hcl.Float(64))
    A = hcl.placeholder((N,), "A")
    s = hcl.create_schedule(
        [A],
        lambda A: hcl.compute((N,), lambda i: hcl.power(A[i], 1.5) + hcl.log(A[i]) - hcl.abs(A[i]), name="B"),
    )
    return s, lambda rng: [rng.uniform(0.5, 4.0, N)], lambda a: a**1.5 + np.log(a) - np.abs(a)


@kernel
def select_abs_int():
    A = hcl.placeholder((N,), "A")
    s = hcl.create_schedule(
        [A], lambda A: hcl.compute((N,), lambda i: hcl.select(A[i] > 0, A[i], hcl.abs(A[i]) * 2), name="B")
    )
    return s, None, lambda a: np.where(a > 0, a, np.abs(a) * 2)


# ---- functions -------------------------------------------------------------------------------


@kernel
def def_with_return_max():
    A, B = hcl.placeholder((N,), "A"), hcl.placeholder((N,), "B")

    def algo(A, B):
        @hcl.def_([(N,), (N,), ()])
        def bigger(A, B, x):
            with hcl.if_(A[x] > B[x]):
                hcl.return_(A[x])
            hcl.return_(B[x])

        hcl.update(B, lambda x: bigger(A, B, x), "upd")

    return hcl.create_schedule([A, B], algo), None, lambda a, b: {"B": np.maximum(a, b)}


@kernel
def def_in_place_update_twice():
    A = hcl.placeholder((N,), "A")

    def algo(A):
        @hcl.def_()
        def inc(X):
            hcl.update(X, lambda i: X[i] * 2 + 1)

        inc(A)
        inc(A)

    return hcl.create_schedule([A], algo), None, lambda a: {"A": (a * 2 + 1) * 2 + 1}


@kernel
def outlined_range_and_single():
    A = hcl.placeholder((N,), "A")

    def algo(A):
        X = hcl.compute((N,), lambda i: A[i] + 1, name="X")
        Y = hcl.compute((N,), lambda i: X[i] * 2, name="Y")
        Z = hcl.compute((N,), lambda i: Y[i] - A[i], name="Z")
        return hcl.compute((N,), lambda i: Z[i] * Z[i], name="W")

    s = hcl.create_schedule([A], algo)
    s.outline(algo.X, algo.Y)
    s.outline(algo.Z)
    return s, None, lambda a: ((a + 1) * 2 - a) ** 2


@kernel
def outlined_independent_group():
    A = hcl.placeholder((N,), "A")

    def algo(A):
        X = hcl.compute((N,), lambda i: A[i] + 3, name="X")
        Y = hcl.compute((N,), lambda i: A[i] * 5, name="Y")
        return hcl.compute((N,), lambda i: X[i] - Y[i], name="D")

    s = hcl.create_schedule([A], algo)
    s.outline([algo.X, algo.Y])
    return s, None, lambda a: (a + 3) - a * 5


# ---- schedules ---------------------------------------------------------------------------------


@kernel
def split_reorder_unroll_pipeline():
    A = hcl.placeholder((12, 10), "A")

    def algo(A):
        return hcl.compute((12, 10), lambda i, j: A[i, j] * 3 - i + j, name="B")

    s = hcl.create_schedule([A], algo)
    io, ii = s[algo.B].split(algo.B.axis[0], factor=5)
    s[algo.B].reorder(ii, io)
    s[algo.B].unroll(ii, 2)
    s[algo.B].pipeline(algo.B.axis[1])
    model = lambda a: a * 3 - np.arange(12)[:, None] + np.arange(10)[None, :]  # noqa: E731
    return s, None, model


@kernel
def tile_fuse_partition():
    hcl.init(hcl.Float())
    A = hcl.placeholder((8, 8), "A")

    def algo(A):
        B = hcl.compute((8, 8), lambda i, j: A[i, j] * 2.0, name="B")
        return hcl.compute((8, 8), lambda i, j: B[j, i] + 1.0, name="C")

    s = hcl.create_schedule([A], algo)
    s[algo.B].tile(algo.B.axis[0], algo.B.axis[1], 4, 4)
    s[algo.C].fuse(algo.C.axis[0], algo.C.axis[1])
    s.partition(algo.B, hcl.Partition.Cyclic, dim=2, factor=4)
    return s, None, lambda a: (a * 2).T + 1


# ---- regressions found by the example suite ----------------------------------------------------


def _relu_of_sum_used_twice():
    """A fixed-point conv-like reduction whose value is used twice (ReLU): ResNet-20's layer form."""
    A = hcl.placeholder((6, 8), "A", dtype=hcl.Fixed(16, 8))
    W = hcl.placeholder((8,), "W", dtype=hcl.Fixed(8, 6))

    def algo(A, W):
        k = hcl.reduce_axis(0, 8, "k")

        def relu(i):
            v = hcl.sum(A[i, k] * W[k], axis=k, dtype=hcl.Fixed(32, 14))
            return hcl.select(v > 0, v, 0)

        return hcl.compute((6,), relu, name="B", dtype=hcl.Fixed(16, 8))

    s = hcl.create_schedule([A, W], algo)

    def model(a, w):
        raw = (np.round(a * 256).astype(np.int64) * np.round(w * 64).astype(np.int64)).sum(axis=1)
        return np.floor(np.maximum(raw, 0) / 64) / 256

    return s, None, model


@kernel
def reduction_used_twice_fixed():
    return _relu_of_sum_used_twice()


def test_a_reduction_used_twice_runs_its_loop_once() -> None:
    hcl.init()
    s, _, _ = _relu_of_sum_used_twice()
    assert str(hcl.lower(s)).count('loop_name = "k"') == 1


KERNEL_NAMES = sorted(KERNELS)


def test_the_suite_has_enough_kernels() -> None:
    assert len(KERNELS) >= 25


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_numpy_llvm_and_hls_cpp_agree(name: str, tmp_path: Path) -> None:
    hcl.init()
    schedule, inputs_fn, model_fn = KERNELS[name]()
    check_numpy_llvm_cpp(schedule, name, tmp_path, inputs_fn, model_fn)
