"""MVT (PolyBench): x1 += A y1 and x2 += A^T y2, in place, written as HeteroCL mutates.

Each product is an `hcl.mutate` over (j, i) whose body does x[i] += ... (imperative code, as
PolyBench's C loops), and each is outlined on its own.

Schedule: the loop order puts the reduction index j outside, so the pipelined i loop
accumulates into a different x[i] every iteration and no floating-point add is carried.
Expected II = 1 on both i loops: one read of A (A[i, j] walks a column, A[j, i] a row, either
is one BRAM read) and one read plus one write of x[i] per iteration.
"""

import numpy as np

import hclbuild as hcl


def schedule(sizes):
    """The algorithm and its schedule."""
    N = sizes.N
    hcl.init(hcl.Float())
    A = hcl.placeholder((N, N), "A")
    y1 = hcl.placeholder((N,), "y1")
    y2 = hcl.placeholder((N,), "y2")
    x1 = hcl.placeholder((N,), "x1")
    x2 = hcl.placeholder((N,), "x2")

    def kernel(A, y1, y2, x1, x2):
        def ax(j, i):
            x1[i] += A[i, j] * y1[j]

        def atx(j, i):
            x2[i] += A[j, i] * y2[j]

        hcl.mutate((N, N), ax, name="x1_update")
        hcl.mutate((N, N), atx, name="x2_update")

    s = hcl.create_schedule([A, y1, y2, x1, x2], kernel, name="top")
    for stage in (kernel.x1_update, kernel.x2_update):
        s[stage].pipeline(stage.axis[1])
        s.outline(stage)
    return s


def model(A, y1, y2, x1, x2):
    """numpy model of the updated x1 and x2."""
    A64 = A.astype(np.float64)
    return {"x1": x1 + A64 @ y1, "x2": x2 + A64.T @ y2}
