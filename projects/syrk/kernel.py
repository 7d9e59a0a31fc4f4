"""SYRK (PolyBench): C = alpha * A A^T + beta * C on the lower triangle of C (j <= i), in place.

As in PolyBench's C, the triangle is scaled by beta first, then the rank-M update runs in
i, k, j order; the update is an `hcl.mutate` with an `hcl.if_` keeping j <= i, and it is
outlined.

Schedule: in i, k, j order the pipelined j loop updates a different C[i, j] every iteration, so
no floating-point add is carried. Expected II = 1 on j in both stages: one read of A[j, k], one
read and one write of C[i, j] per iteration (A[i, k] is invariant in j); iterations outside the
triangle do nothing but still take their slot, as in the C loop with a constant bound.
"""

import numpy as np

import hclbuild as hcl

ALPHA, BETA = 1.5, 1.2


def schedule(sizes):
    """The algorithm and its schedule."""
    M, N = sizes.M, sizes.N
    hcl.init(hcl.Float())
    A = hcl.placeholder((N, M), "A")
    C = hcl.placeholder((N, N), "C")

    def kernel(A, C):
        hcl.update(C, lambda i, j: hcl.select(j <= i, BETA * C[i, j], C[i, j]), name="scale")

        def rank_update(i, k, j):
            with hcl.if_(j <= i):
                C[i, j] += ALPHA * A[i, k] * A[j, k]

        hcl.mutate((N, M, N), rank_update, name="rank_update")

    s = hcl.create_schedule([A, C], kernel, name="top")
    s[kernel.scale].pipeline(kernel.scale.axis[1])
    s[kernel.rank_update].pipeline(kernel.rank_update.axis[2])
    s.outline(kernel.rank_update)
    return s


def model(A, C):
    """numpy model of the updated C (the upper triangle is left as it was)."""
    lower = np.tril(np.ones(C.shape, dtype=bool))
    full = np.float32(BETA) * C + np.float32(ALPHA) * (A.astype(np.float64) @ A.T)
    return {"C": np.where(lower, full, C)}
