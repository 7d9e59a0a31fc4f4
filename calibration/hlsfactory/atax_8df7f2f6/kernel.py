"""HLSFactory atax design point 8df7f2f6 (DeepLearningProject, PolyBench, float, N = 64),
ported to the DSL for calibration.

The original's loop nests, in order: lprd_1/lprd_2 copy A, x into local buffers and zero y_out's
and tmp1's; lp1/lp2: tmp1[i] += buff_A[i][j] * buff_x[j]; lp3/lp4: buff_y_out[j] += buff_A[i][j] *
tmp1[i]; lpwr_1 writes y_out. Each local buffer is a compute of its own here (the DSL makes a local
tensor only as a stage's output): see calibration/README.md.

Directives of this design point (what the run's log shows Vitis 2023.2 ran), as schedule primitives:
- pipeline lprd_2
- pipeline lpwr_1
- pipeline lp2, unroll lp2 factor 4
- pipeline lp4, unroll lp4 factor 4
"""

import numpy as np

import hclbuild as hcl

N = 64


def schedule():
    """The algorithm and this design point's directives."""
    hcl.init(hcl.Float())
    A = hcl.placeholder((N, N), "A")
    x = hcl.placeholder((N,), "x")
    y_out = hcl.placeholder((N,), "y_out")

    def atax(A, x, y_out):
        buff_A = hcl.compute((N, N), lambda lprd_1, lprd_2: A[lprd_1, lprd_2], "buff_A")
        buff_x = hcl.compute((N,), lambda lprd_1: x[lprd_1], "buff_x")
        buff_y_out = hcl.compute((N,), lambda lprd_1: 0, "buff_y_out")
        tmp1 = hcl.compute((N,), lambda lprd_1: 0, "tmp1")
        with hcl.Stage("S_lp1"):
            with hcl.for_(0, N, name="lp1") as i:
                with hcl.for_(0, N, name="lp2") as j:
                    tmp1[i] = tmp1[i] + buff_A[i, j] * buff_x[j]
        with hcl.Stage("S_lp3"):
            with hcl.for_(0, N, name="lp3") as i:
                with hcl.for_(0, N, name="lp4") as j:
                    buff_y_out[j] = buff_y_out[j] + buff_A[i, j] * tmp1[i]
        with hcl.Stage("S_lpwr_1"):
            with hcl.for_(0, N, name="lpwr_1") as i:
                y_out[i] = buff_y_out[i]

    s = hcl.create_schedule([A, x, y_out], atax, name="atax")
    s[atax.buff_A].pipeline(atax.buff_A.axis[1])
    s[atax.S_lpwr_1].pipeline(atax.S_lpwr_1.lpwr_1)
    for stage, loop in ((atax.S_lp1, atax.S_lp1.lp2), (atax.S_lp3, atax.S_lp3.lp4)):
        s[stage].pipeline(loop)
        s[stage].unroll(loop, factor=4)
    return s


def inputs(rng):
    """Values in [0, 1): no cancellation, so float32 sums agree closely in any order."""
    return [rng.random((N, N)), rng.random(N), np.zeros(N)]


def model(A, x, y_out):
    """numpy: y_out = A^T (A x), in float32 and the C's order of additions."""
    A, x = A.astype(np.float32), x.astype(np.float32)
    tmp1 = np.zeros(N, np.float32)
    for j in range(N):
        tmp1 += A[:, j] * x[j]
    y = np.zeros(N, np.float32)
    for i in range(N):
        y += A[i] * tmp1[i]
    return {"y_out": y}
