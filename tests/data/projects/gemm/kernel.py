"""GEMM (PolyBench): C = alpha * A @ B + beta * C, in place on C, pipelined with a partitioned B."""

import numpy as np

import hclbuild as hcl

NI, NJ, NK = 32, 32, 32
ALPHA, BETA = 1.5, 1.2


def schedule():
    """The algorithm and its schedule."""
    hcl.init(hcl.Float())
    A = hcl.placeholder((NI, NK), "A")
    B = hcl.placeholder((NK, NJ), "B")
    C = hcl.placeholder((NI, NJ), "C")

    def kernel(A, B, C):
        k = hcl.reduce_axis(0, NK, "k")
        prod = hcl.compute((NI, NJ), lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k), name="prod")
        hcl.update(C, lambda i, j: ALPHA * prod[i, j] + BETA * C[i, j], name="scale")

    s = hcl.create_schedule([A, B, C], kernel, name="top")
    s[kernel.prod].pipeline(kernel.prod.axis[1])
    s.partition(B, hcl.Partition.Cyclic, dim=1, factor=4)
    s.outline(kernel.prod)
    return s


def model(A, B, C):
    """numpy model: the updated C."""
    return {"C": np.float32(ALPHA) * (A @ B) + np.float32(BETA) * C}
