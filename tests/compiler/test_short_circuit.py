"""hcl.and_ / hcl.or_ short-circuit as C's && and || do when a later operand reads memory, divides
or calls: HeteroCL's insertion sort (`while_(and_(j >= 0, A[j] > key))`) must never read A[-1].
Checked in hcl.build (bounds-checked: a read of A[-1] would raise), and numpy == LLVM == g++."""

from __future__ import annotations

import numpy as np
from flow_helpers import check_numpy_llvm_cpp

import hclbuild as hcl


def insertion_sort(n: int = 10):
    A = hcl.placeholder((n,), "A")

    def kernel(A):
        with hcl.Stage("S"), hcl.for_(1, n, name="i") as i:
            key = hcl.scalar(A[i], "key")
            j = hcl.scalar(i - 1, "j")
            with hcl.while_(hcl.and_(j.v >= 0, A[j.v] > key.v)):
                A[j.v + 1] = A[j.v]
                j.v -= 1
            A[j.v + 1] = key.v

    return hcl.create_schedule([A], kernel, name="top")


def left_positive(n: int = 8):
    """F[i] = 1 where i is 0 or the left neighbour is positive, by a lazily evaluated or_."""
    A = hcl.placeholder((n,), "A")

    def kernel(A):
        return hcl.compute((n,), lambda i: hcl.select(hcl.or_(i == 0, A[i - 1] > 0), 1, 0), name="F")

    return hcl.create_schedule([A], kernel, name="top")


def test_insertion_sort_never_reads_before_the_array():
    data = np.array([5, -3, 9, 9, -8, 0, 2, 7, -1, 4])
    a = hcl.asarray(data)
    hcl.build(insertion_sort())(a)  # bounds-checked: A[-1] would raise BoundsError
    assert a.asnumpy().tolist() == sorted(data.tolist())


def test_or_skips_its_second_operand_once_the_first_holds():
    data = np.array([-4, 3, 0, 5, -2, 1, 6, -7])
    a, f = hcl.asarray(data), hcl.asarray(np.zeros(8, dtype=np.int32))
    hcl.build(left_positive())(a, f)
    assert f.asnumpy().tolist() == [1] + [int(v > 0) for v in data[:-1]]


def test_pure_operands_stay_one_bitwise_op():
    A = hcl.placeholder((8,), "A")
    s = hcl.create_schedule(
        [A],
        lambda A: hcl.compute((8,), lambda i: hcl.select(hcl.and_(i > 1, i < 6), A[i], 0), name="F"),
        name="top",
    )
    text = str(hcl.lower(s))
    assert "arith.andi" in text and "scf.if" not in text


def test_the_lazy_operands_csim_like_the_reference(tmp_path):
    def sort_model(a):
        return {"A": np.sort(a)}  # A is sorted in place

    check_numpy_llvm_cpp(insertion_sort(), "sort", tmp_path / "sort", None, sort_model)

    def left_model(a):
        return [np.array([1] + [int(v > 0) for v in a[:-1]])]

    check_numpy_llvm_cpp(left_positive(), "left", tmp_path / "left", None, left_model)
