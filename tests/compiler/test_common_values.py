"""A value the DSL computes once is computed once (passes/common_values.py): a select over a sum of
six window reads reads the window six times an iteration, in the IR and in the emitted C++."""

from __future__ import annotations

import re

import numpy as np

import hclbuild as hcl
from hclbuild.compiler.pipeline import compile_schedule


def _gradient_magnitude():
    """|gx| with gx a Sobel-like sum of six reads of A, written as HeteroCL users write it."""
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8, 8), "A")

    def kernel(A):
        def edge(y, x):
            gx = A[y, x + 2] - A[y, x] + 2 * A[y + 1, x + 2] - 2 * A[y + 1, x] + A[y + 2, x + 2] - A[y + 2, x]
            return hcl.select(gx < 0, -gx, gx)

        return hcl.compute((6, 6), edge, "E")

    return hcl.create_schedule([A], kernel)


def test_the_window_is_read_six_times_an_iteration_not_eighteen() -> None:
    s = _gradient_magnitude()
    assert str(compile_schedule(s).module).count("memref.load") == 6
    code = hcl.build(s, target="vhls")
    reads = re.findall(r"= A\[[^\]]+\]\[[^\]]+\];", code)
    assert len(reads) == 6, code
    assert code.count(" ? ") == 1  # one select, on one copy of gx


def test_the_merged_reads_compute_the_same_values() -> None:
    s = _gradient_magnitude()
    f = hcl.build(s)
    a = np.random.default_rng(3).integers(-1000, 1000, (8, 8), dtype=np.int32)
    out = hcl.asarray(np.zeros((6, 6), dtype=np.int32))
    f(hcl.asarray(a), out)
    w = a.astype(np.int64)
    gx = w[:6, 2:] - w[:6, :6] + 2 * w[1:7, 2:] - 2 * w[1:7, :6] + w[2:, 2:] - w[2:, :6]
    np.testing.assert_array_equal(out.asnumpy(), np.abs(gx))


def test_a_store_between_two_reads_keeps_both() -> None:
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        with hcl.for_(0, 4, name="i") as i:
            first = hcl.scalar(A[0], "first")
            A[0] = first.v + i
            A[i] = A[0] * 2

    s = hcl.create_schedule([A], kernel)
    text = str(compile_schedule(s).module)
    # A[0] read before the store and again after it: two loads of A at [0]
    assert len(re.findall(r"memref\.load %arg0\[%c0", text)) == 2, text
