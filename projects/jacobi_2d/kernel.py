"""Jacobi 2-D (PolyBench): TSTEPS time steps of B = 5-point average of A, then A = average of B.

The time loop is `hcl.mutate((TSTEPS,), ...)` holding two sweeps, each an `hcl.mutate` over the
interior points (PolyBench's loop nest and order of additions, so numpy agrees bit for bit), a
stage nested in the time loop (`kernel.time.sweep_B`) with a schedule of its own.

Schedule: each sweep is pipelined on its column loop and reads five neighbours a cycle: three of
row i (columns j-1, j, j+1) and column j of rows i-1 and i+1. `s.reuse_at(src, sweep, y)` keeps
three rows of src in a line buffer (3 x N, partitioned by row) and `s.reuse_at(LB, sweep, x)`
the 3 x 3 window around (i, j) in registers, so each iteration reads one new element of src,
shifts the line buffer's column and the window, and writes one element of dst (the other
array). Expected II = 1.
"""

import numpy as np

import hclbuild as hcl


def schedule(sizes):
    """The algorithm and its schedule."""
    TSTEPS, N = sizes.TSTEPS, sizes.N
    hcl.init(hcl.Float())
    A = hcl.placeholder((N, N), "A")
    B = hcl.placeholder((N, N), "B")

    def kernel(A, B):
        def sweep(dst, src, name):
            def point(y, x):
                i, j = y + 1, x + 1
                dst[i, j] = 0.2 * (src[i, j] + src[i, j - 1] + src[i, j + 1] + src[i + 1, j] + src[i - 1, j])

            hcl.mutate((N - 2, N - 2), point, name=name)

        def step(t):
            sweep(B, A, "sweep_B")
            sweep(A, B, "sweep_A")

        hcl.mutate((TSTEPS,), step, name="time")

    s = hcl.create_schedule([A, B], kernel, name="top")
    for sweep, src in ((kernel.time.sweep_B, A), (kernel.time.sweep_A, B)):
        line = s.reuse_at(src, s[sweep], sweep.axis[0], f"{src.name}_lines")
        s.reuse_at(line, s[sweep], sweep.axis[1], f"{src.name}_window")
        s[sweep].pipeline(sweep.axis[1])
    return s


def model(A, B, sizes):
    """numpy model: the same sweeps, in float32 and in the same order of additions."""
    A, B = A.copy(), B.copy()
    fifth = np.float32(0.2)

    def average(src):
        return fifth * (src[1:-1, 1:-1] + src[1:-1, :-2] + src[1:-1, 2:] + src[2:, 1:-1] + src[:-2, 1:-1])

    for _ in range(sizes.TSTEPS):
        B[1:-1, 1:-1] = average(A)
        A[1:-1, 1:-1] = average(B)
    return {"A": A, "B": B}
