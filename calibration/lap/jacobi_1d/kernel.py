"""LAP_hls_benchmarks jacobi_1d (int, N = 100, 3 time steps), ported to the DSL for calibration.

The original: for t < 3 { for i in 1..98: B[i] = 3 * (A_1[i-1] + A_1[i] + A_1[i+1]);
for j in 1..98: A_2[j] = B[j] }, returning t (3). No directives (Vitis 2022.2 pipelined both inner
loops). The returned int is the one-element output `ret`.
"""

import numpy as np

import hclbuild as hcl

N = 100
TSTEPS = 3


def schedule():
    """The algorithm; no schedule primitives (the report is of default directives)."""
    hcl.init(hcl.Int(32))
    A_1 = hcl.placeholder((N,), "A_1")
    A_2 = hcl.placeholder((N,), "A_2")
    B = hcl.placeholder((N,), "B")

    def jacobi_1d(A_1, A_2, B):
        ret = hcl.scalar(0, "ret")
        with hcl.for_(0, TSTEPS, name="t") as _:
            with hcl.for_(1, N - 1, name="i") as i:
                B[i] = 3 * (A_1[i - 1] + A_1[i] + A_1[i + 1])
            with hcl.for_(1, N - 1, name="j") as j:
                A_2[j] = B[j]
        ret.v = TSTEPS
        return ret

    return hcl.create_schedule([A_1, A_2, B], jacobi_1d, name="jacobi_1d")


def inputs(rng):
    """Any int32 values near zero."""
    return [rng.integers(-1000, 1000, N), rng.integers(-1000, 1000, N), rng.integers(-1000, 1000, N)]


def model(A_1, A_2, B):
    """numpy: every time step computes the same B from A_1 and copies it to A_2."""
    A_1, A_2, B = (v.astype(np.int64).copy() for v in (A_1, A_2, B))
    B[1:-1] = 3 * (A_1[:-2] + A_1[1:-1] + A_1[2:])
    A_2[1:-1] = B[1:-1]
    return {"A_2": A_2, "B": B, "ret": np.array([TSTEPS])}
