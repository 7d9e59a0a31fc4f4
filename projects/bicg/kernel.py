"""BiCG sub-kernel (PolyBench): s = A^T r and q = A p, both in one outlined function.

`s.outline([kernel.s, kernel.q])` puts the two independent products in one function,
Stage_s_q, that reads A twice.

Schedule: each product keeps its reduction loop outside its pipelined loop (s in i, j order:
s[j] += r[i] * A[i, j]; q in j, i order: q[i] += A[i, j] * p[j]), so consecutive iterations
update different elements and no floating-point add is carried. Expected II = 1 on both inner
loops: one read of A and one read plus one write of the output element per iteration.
"""

import numpy as np

import hclbuild as hcl


def schedule(sizes):
    """The algorithm and its schedule."""
    M, N = sizes.M, sizes.N
    hcl.init(hcl.Float())
    A = hcl.placeholder((N, M), "A")
    r = hcl.placeholder((N,), "r")
    p = hcl.placeholder((M,), "p")

    def kernel(A, r, p):
        i = hcl.reduce_axis(0, N, "i")
        s = hcl.compute((M,), lambda j: hcl.sum(r[i] * A[i, j], axis=i), name="s")
        j = hcl.reduce_axis(0, M, "j")
        q = hcl.compute((N,), lambda i: hcl.sum(A[i, j] * p[j], axis=j), name="q")
        return s, q

    s = hcl.create_schedule([A, r, p], kernel, name="top")
    col, row = s[kernel.s].axis
    s[kernel.s].reorder(row, col)
    s[kernel.s].pipeline(col)
    row, col = s[kernel.q].axis
    s[kernel.q].reorder(col, row)
    s[kernel.q].pipeline(row)
    s.outline([kernel.s, kernel.q])
    return s


def model(A, r, p):
    """numpy model of s and q."""
    A64 = A.astype(np.float64)
    return A64.T @ r, A64 @ p
