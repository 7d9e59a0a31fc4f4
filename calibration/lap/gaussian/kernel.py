"""LAP_hls_benchmarks gaussian (int, 20 x 20), ported to the DSL for calibration.

The original's triangular nest: for j in 1..18 { for i in j+1..18 { for k in 1..19:
A[i][k] -= c[j] * A[j][k] } }; the i loop's lower bound depends on j (a loop with a variable trip
count). No directives (Vitis 2022.2 flattened i and k into one pipelined loop inside j).
"""

import numpy as np

import hclbuild as hcl

N = 20


def schedule():
    """The algorithm; no schedule primitives (the report is of default directives)."""
    hcl.init(hcl.Int(32))
    c = hcl.placeholder((N,), "c")
    A = hcl.placeholder((N, N), "A")

    def gaussian(c, A):
        with hcl.for_(1, N - 1, name="j") as j:
            with hcl.for_(j + 1, N - 1, name="i") as i:
                with hcl.for_(1, N, name="k") as k:
                    A[i, k] = A[i, k] - c[j] * A[j, k]

    return hcl.create_schedule([c, A], gaussian, name="gaussian")


def inputs(rng):
    """Values in {-1, 0, 1}: 17 rounds of elimination stay far inside int32."""
    return [rng.integers(-1, 2, N), rng.integers(-1, 2, (N, N))]


def model(c, A):
    """numpy: the same updates in the same order (row j is final before rows below it use it)."""
    A = A.astype(np.int64).copy()
    for j in range(1, N - 1):
        for i in range(j + 1, N - 1):
            A[i, 1:] -= c[j] * A[j, 1:]
    return {"A": A}
