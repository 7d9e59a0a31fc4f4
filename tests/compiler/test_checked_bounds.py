"""Bounds-checked hcl.build callables: a subscript outside a tensor raises BoundsError naming the
stage, tensor and subscript, where an unchecked build reads or writes past the buffer."""

from __future__ import annotations

import numpy as np
import pytest

import hclbuild as hcl
from hclbuild.errors import BoundsError


def shifted(offset: int, n: int = 8):
    """B[i] = A[i + offset] over 0 <= i < n."""
    A = hcl.placeholder((n,), "A")

    def kernel(A):
        return hcl.compute((n,), lambda i: A[i + offset] * 2, name="B")

    return hcl.create_schedule([A], kernel, name="top")


def scattered(n: int = 8):
    """B[A[i]] = i: the store's subscript is data, so only the run can tell it is outside B."""
    A = hcl.placeholder((n,), "A")

    def kernel(A):
        B = hcl.compute((n,), lambda i: 0, name="B")
        with hcl.Stage("scatter"), hcl.for_(0, n, name="i") as i:
            B[A[i]] = i
        return B

    return hcl.create_schedule([A], kernel, name="top")


def test_a_read_past_the_end_raises_naming_stage_tensor_and_subscript():
    f = hcl.build(shifted(1))
    a, b = hcl.asarray(np.arange(8)), hcl.asarray(np.zeros(8, dtype=np.int32))
    with pytest.raises(BoundsError) as info:
        f(a, b)
    assert str(info.value) == "stage B reads A outside its shape (8,): subscript 0 is 8"


def test_a_data_dependent_write_outside_raises_with_its_negative_subscript():
    f = hcl.build(scattered())
    a = hcl.asarray(np.array([0, 1, 2, -3, 4, 5, 6, 7]))
    b = hcl.asarray(np.zeros(8, dtype=np.int32))
    with pytest.raises(BoundsError) as info:
        f(a, b)
    assert str(info.value) == "stage scatter writes B outside its shape (8,): subscript 0 is -3"


def test_in_bounds_runs_give_the_same_numbers_checked_and_unchecked():
    data = np.array([3, 1, 4, 1, 5, 9, 2, 6])
    results = []
    for checked in (True, False):
        f = hcl.build(scattered(), checked_bounds=checked)
        b = hcl.asarray(np.zeros(8, dtype=np.int32))
        f(hcl.asarray(np.array([7, 6, 5, 4, 3, 2, 1, 0])), b)
        results.append(b.asnumpy().tolist())
        g = hcl.build(shifted(0), checked_bounds=checked)
        out = hcl.asarray(np.zeros(8, dtype=np.int32))
        g(hcl.asarray(data), out)
        assert out.asnumpy().tolist() == (data * 2).tolist()
    assert results == [[7, 6, 5, 4, 3, 2, 1, 0]] * 2
