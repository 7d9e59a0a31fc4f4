"""HLSFactory mvt design point 218c2b88 (DeepLearningProject, PolyBench, float, N = 64),
ported to the DSL for calibration.

The original's loop nests, in order: lprd_1/lprd_2 copy A, x1, x2, y1, y2 into local buffers;
lp1/lp2: buff_x1[i] += buff_A[i][j] * buff_y1[j]; lp3/lp4: buff_x2[i] += buff_A[j][i] * buff_y2[j];
lpwr writes x1_out and x2_out. Each local buffer is a compute of its own here (the DSL makes a local
tensor only as a stage's output): see calibration/README.md.

Directives of this design point (what the run's log shows Vitis 2023.2 ran), as schedule primitives:
- pipeline lprd_2, unroll lprd_2 factor 2
- pipeline lpwr, unroll lpwr factor 2
- array_partition cyclic factor 2: A and buff_A dim 2, buff_x1, buff_x2, buff_y1, buff_y2 dim 1
- pipeline lp1 (unroll lp1 factor 1 is no unrolling: left out)
- unroll lp4 factor 2
"""

import numpy as np

import hclbuild as hcl

N = 64


def schedule():
    """The algorithm and this design point's directives."""
    hcl.init(hcl.Float())
    A = hcl.placeholder((N, N), "A")
    x1 = hcl.placeholder((N,), "x1")
    x2 = hcl.placeholder((N,), "x2")
    y1 = hcl.placeholder((N,), "y1")
    y2 = hcl.placeholder((N,), "y2")
    x1_out = hcl.placeholder((N,), "x1_out")
    x2_out = hcl.placeholder((N,), "x2_out")

    def mvt(A, x1, x2, y1, y2, x1_out, x2_out):
        buff_A = hcl.compute((N, N), lambda lprd_1, lprd_2: A[lprd_1, lprd_2], "buff_A")
        buff_x1 = hcl.compute((N,), lambda lprd_1: x1[lprd_1], "buff_x1")
        buff_x2 = hcl.compute((N,), lambda lprd_1: x2[lprd_1], "buff_x2")
        buff_y1 = hcl.compute((N,), lambda lprd_1: y1[lprd_1], "buff_y1")
        buff_y2 = hcl.compute((N,), lambda lprd_1: y2[lprd_1], "buff_y2")
        with hcl.Stage("S_lp1"):
            with hcl.for_(0, N, name="lp1") as i:
                with hcl.for_(0, N, name="lp2") as j:
                    buff_x1[i] = buff_x1[i] + buff_A[i, j] * buff_y1[j]
        with hcl.Stage("S_lp3"):
            with hcl.for_(0, N, name="lp3") as i:
                with hcl.for_(0, N, name="lp4") as j:
                    buff_x2[i] = buff_x2[i] + buff_A[j, i] * buff_y2[j]
        with hcl.Stage("S_lpwr"):
            with hcl.for_(0, N, name="lpwr") as i:
                x1_out[i] = buff_x1[i]
                x2_out[i] = buff_x2[i]

    s = hcl.create_schedule([A, x1, x2, y1, y2, x1_out, x2_out], mvt, name="mvt")
    k = s[mvt.buff_A]
    k.pipeline(k.axis[1])
    k.unroll(k.axis[1], factor=2)
    s[mvt.S_lpwr].pipeline(mvt.S_lpwr.lpwr)
    s[mvt.S_lpwr].unroll(mvt.S_lpwr.lpwr, factor=2)
    for tensor, dim in (
        (A, 2),
        (mvt.buff_A, 2),
        (mvt.buff_x1, 1),
        (mvt.buff_x2, 1),
        (mvt.buff_y1, 1),
        (mvt.buff_y2, 1),
    ):
        s.partition(tensor, hcl.Partition.Cyclic, dim=dim, factor=2)
    s[mvt.S_lp1].pipeline(mvt.S_lp1.lp1)
    s[mvt.S_lp3].unroll(mvt.S_lp3.lp4, factor=2)
    return s


def inputs(rng):
    """Values in [0, 1): no cancellation, so float32 sums agree closely in any order."""
    return [rng.random((N, N))] + [rng.random(N) for _ in range(4)] + [np.zeros(N), np.zeros(N)]


def model(A, x1, x2, y1, y2, x1_out, x2_out):
    """numpy: x1 + A y1 and x2 + A^T y2, in float32 and the C's order of additions."""
    A = A.astype(np.float32)
    x1, x2, y1, y2 = (v.astype(np.float32).copy() for v in (x1, x2, y1, y2))
    for j in range(N):
        x1 += A[:, j] * y1[j]
        x2 += A[j, :] * y2[j]
    return {"x1_out": x1, "x2_out": x2}
