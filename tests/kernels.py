"""The kernels several test modules share, each written once: DSL schedules and kernel.py sources.

A kernel.py source is the text a test writes into a project folder; a DSL function returns a
fresh schedule (and its kernel, whose stages the test schedules further).
"""

from __future__ import annotations

from typing import Any

import hclbuild as hcl

# ---- kernel.py sources --------------------------------------------------------------------------

# Y = 3 * A - 1 through an outlined Stage_X, with a numpy model
TIMES_THREE_MINUS_ONE = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        X = hcl.compute((8,), lambda i: A[i] * 3, name="X")
        return hcl.compute((8,), lambda i: X[i] - 1, name="Y")

    s = hcl.create_schedule([A], kernel, name="top")
    s.outline(kernel.X)
    return s

def model(A):
    return (A * 3 - 1).astype(np.int32)
"""

# out = (2 * A + 3) - A through two outlined functions (Stage_doubled, Stage_shifted), no model
TWO_STAGES = """
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        doubled = hcl.compute((8,), lambda i: A[i] * 2, name="doubled")
        shifted = hcl.compute((8,), lambda i: doubled[i] + 3, name="shifted")
        return hcl.compute((8,), lambda i: shifted[i] - A[i], name="out")

    s = hcl.create_schedule([A], kernel, name="top")
    s.outline(kernel.doubled)
    s.outline(kernel.shifted)
    return s
"""


# ---- DSL schedules ------------------------------------------------------------------------------

# 2MM of HeteroCL's outlining proposal (projects/two_mm): E = (A @ B) @ C + D, float
TWO_MM_SIZES = (16, 22, 18, 24)  # P, Q, R, S: A is PxQ, B QxR, C RxS, D and E PxS


def two_mm() -> tuple[Any, Any]:
    """The 2MM schedule (nothing scheduled yet) and its kernel (stages out_AB, out_ABC, E)."""
    P, Q, R, S = TWO_MM_SIZES
    hcl.init(hcl.Float())
    A = hcl.placeholder((P, Q), "A")
    B = hcl.placeholder((Q, R), "B")
    C = hcl.placeholder((R, S), "C")
    D = hcl.placeholder((P, S), "D")

    def kernel(A, B, C, D):
        r = hcl.reduce_axis(0, Q, "r")
        k = hcl.reduce_axis(0, R, "k")
        out_AB = hcl.compute((P, R), lambda x, y: hcl.sum(A[x, r] * B[r, y], axis=r), name="out_AB")
        out_ABC = hcl.compute((P, S), lambda x, y: hcl.sum(out_AB[x, k] * C[k, y], axis=k), name="out_ABC")
        return hcl.compute((P, S), lambda x, y: out_ABC[x, y] + D[x, y], name="E")

    return hcl.create_schedule([A, B, C, D], kernel), kernel


def row_sum_times_b() -> tuple[Any, Any]:
    """P[i] = (sum over k of A[i, k]) * B[i], int32, A 16x8: stages S (a reduction) and P."""
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((16, 8), "A")
    B = hcl.placeholder((16,), "B")

    def kernel(A, B):
        k = hcl.reduce_axis(0, 8, "k")
        S = hcl.compute((16,), lambda i: hcl.sum(A[i, k], axis=k), name="S")
        return hcl.compute((16,), lambda i: S[i] * B[i], name="P")

    return hcl.create_schedule([A, B], kernel), kernel
