"""GESUMMV (PolyBench): y = alpha * A x + beta * B x, the whole computation one outlined function.

`s.outline([kernel.tmp, kernel.Bx, kernel.y])` (a list of stages) makes Stage_tmp_Bx_y; tmp and
Bx live only inside it and become local arrays. (A start..end range, `s.outline(kernel.tmp,
kernel.y)`, would take only the stages on dataflow paths from tmp to y and leave Bx in the top.)

Schedule: both products put their reduction loop j outside the pipelined i loop, so each
iteration accumulates into a different element (no floating-point add carried across
iterations). Expected II = 1 on every i loop: one read of A (or B), one read and one write of
the accumulator element; the combining stage reads tmp[i] and Bx[i] once each.
"""

import numpy as np

import hclbuild as hcl

ALPHA, BETA = 1.5, 1.2


def schedule(sizes):
    """The algorithm and its schedule."""
    N = sizes.N
    hcl.init(hcl.Float())
    A = hcl.placeholder((N, N), "A")
    B = hcl.placeholder((N, N), "B")
    x = hcl.placeholder((N,), "x")

    def kernel(A, B, x):
        j = hcl.reduce_axis(0, N, "j")
        tmp = hcl.compute((N,), lambda i: hcl.sum(A[i, j] * x[j], axis=j), name="tmp")
        k = hcl.reduce_axis(0, N, "k")
        bx = hcl.compute((N,), lambda i: hcl.sum(B[i, k] * x[k], axis=k), name="Bx")
        return hcl.compute((N,), lambda i: ALPHA * tmp[i] + BETA * bx[i], name="y")

    s = hcl.create_schedule([A, B, x], kernel, name="top")
    for stage in (kernel.tmp, kernel.Bx):
        i, red = s[stage].axis
        s[stage].reorder(red, i)
        s[stage].pipeline(i)
    s[kernel.y].pipeline(kernel.y.axis[0])
    s.outline([kernel.tmp, kernel.Bx, kernel.y])
    return s


def model(A, B, x):
    """numpy model of y."""
    return np.float32(ALPHA) * (A.astype(np.float64) @ x) + np.float32(BETA) * (B.astype(np.float64) @ x)
