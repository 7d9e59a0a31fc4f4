"""ATAX (PolyBench): y = A^T (A x), two matrix-vector products, each outlined.

Schedule: a dot product pipelined along its own reduction would carry the floating-point sum
from one iteration to the next (II = the adder latency, several cycles). Instead each product
moves its reduction loop outside: tmp in j, i order (tmp[i] += A[i, j] * x[j]) and y in i, j
order (y[j] += A[i, j] * tmp[i]), so the pipelined inner loop updates a different element every
iteration. Expected II = 1 on both inner loops: one read of A, one read and one write of the
accumulator element per iteration (one dual-port BRAM each); the vector element is invariant.
"""

import numpy as np

import hclbuild as hcl


def schedule(sizes):
    """The algorithm and its schedule."""
    M, N = sizes.M, sizes.N
    hcl.init(hcl.Float())
    A = hcl.placeholder((M, N), "A")
    x = hcl.placeholder((N,), "x")

    def kernel(A, x):
        j = hcl.reduce_axis(0, N, "j")
        tmp = hcl.compute((M,), lambda i: hcl.sum(A[i, j] * x[j], axis=j), name="tmp")
        r = hcl.reduce_axis(0, M, "r")
        return hcl.compute((N,), lambda c: hcl.sum(A[r, c] * tmp[r], axis=r), name="y")

    s = hcl.create_schedule([A, x], kernel, name="top")
    i, j = s[kernel.tmp].axis
    s[kernel.tmp].reorder(j, i)
    s[kernel.tmp].pipeline(i)
    c, r = s[kernel.y].axis
    s[kernel.y].reorder(r, c)
    s[kernel.y].pipeline(c)
    s.outline(kernel.tmp)
    s.outline(kernel.y)
    return s


def model(A, x):
    """numpy model of y."""
    return A.T.astype(np.float64) @ (A.astype(np.float64) @ x)
