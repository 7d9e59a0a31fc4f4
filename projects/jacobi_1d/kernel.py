"""Jacobi 1-D (PolyBench): TSTEPS time steps of B = 3-point average of A, then A = average of B.

As in PolyBench (and HeteroCL's own polybench port), the time loop is `hcl.mutate((TSTEPS,), ...)`
holding two sweeps; each sweep is an `hcl.mutate` over the interior points, a stage nested in
the time loop (`kernel.time.sweep_B`) with a schedule of its own.

Schedule: each sweep is pipelined on its point loop and reads three neighbours src[i .. i+2].
`s.reuse_at(src, sweep, i)` keeps them in a 3-element shift register (completely partitioned),
so each iteration reads one new element of src and writes one of dst, in another array: one
BRAM port each. The point loop runs N - 2 + 2 iterations (two to fill the register) in every
time step. Expected II = 1.
"""

import numpy as np

import hclbuild as hcl


def schedule(sizes):
    """The algorithm and its schedule."""
    TSTEPS, N = sizes.TSTEPS, sizes.N
    hcl.init(hcl.Float())
    A = hcl.placeholder((N,), "A")
    B = hcl.placeholder((N,), "B")

    def kernel(A, B):
        def sweep(dst, src, name):
            def point(i):
                dst[i + 1] = 0.33333 * (src[i] + src[i + 1] + src[i + 2])

            hcl.mutate((N - 2,), point, name=name)

        def step(t):
            sweep(B, A, "sweep_B")
            sweep(A, B, "sweep_A")

        hcl.mutate((TSTEPS,), step, name="time")

    s = hcl.create_schedule([A, B], kernel, name="top")
    for sweep, src in ((kernel.time.sweep_B, A), (kernel.time.sweep_A, B)):
        s.reuse_at(src, s[sweep], sweep.axis[0], f"{src.name}_taps")
        s[sweep].pipeline(sweep.axis[0])
    return s


def model(A, B, sizes):
    """numpy model: the same sweeps, in float32 and in the same order of additions."""
    A, B = A.copy(), B.copy()
    third = np.float32(0.33333)
    for _ in range(sizes.TSTEPS):
        B[1:-1] = third * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = third * (B[:-2] + B[1:-1] + B[2:])
    return {"A": A, "B": B}
