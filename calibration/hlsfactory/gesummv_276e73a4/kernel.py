"""HLSFactory gesummv design point 276e73a4 (DeepLearningProject, PolyBench, float, N = 64),
ported to the DSL for calibration.

The original's loop nests, in order: lprd_1/lprd_2 copy A, B, x into local buffers and zero tmp1,
tmp2, y_out's; lp1/lp2: tmp1[i] += alpha * buff_A[i][j] * buff_x[j]; lp3/lp4: tmp2[i] += beta *
buff_B[i][j] * buff_x[j]; lp5: buff_y_out[i] = tmp1[i] + tmp2[i]; lpwr writes y_out. Each local buffer
is a compute of its own here (the DSL makes a local tensor only as a stage's output): see
calibration/README.md.

Directives of this design point (what the run's log shows Vitis 2023.2 ran), as schedule primitives:
- pipeline lprd_2, unroll lprd_2 factor 2
- pipeline lpwr, unroll lpwr factor 2
- array_partition cyclic factor 2: A, B, buff_A, buff_B dim 2; buff_x, buff_y_out, tmp1, tmp2 dim 1
- pipeline lp1 (unroll lp1 factor 1 is no unrolling: left out)
- unroll lp4 factor 2
"""

import numpy as np

import hclbuild as hcl

N = 64


def schedule():
    """The algorithm and this design point's directives."""
    hcl.init(hcl.Float())
    alpha = hcl.placeholder((), "alpha")
    beta = hcl.placeholder((), "beta")
    A = hcl.placeholder((N, N), "A")
    B = hcl.placeholder((N, N), "B")
    x = hcl.placeholder((N,), "x")
    y_out = hcl.placeholder((N,), "y_out")

    def gesummv(alpha, beta, A, B, x, y_out):
        buff_A = hcl.compute((N, N), lambda lprd_1, lprd_2: A[lprd_1, lprd_2], "buff_A")
        buff_B = hcl.compute((N, N), lambda lprd_1, lprd_2: B[lprd_1, lprd_2], "buff_B")
        buff_x = hcl.compute((N,), lambda lprd_1: x[lprd_1], "buff_x")
        tmp1 = hcl.compute((N,), lambda lprd_1: 0, "tmp1")
        tmp2 = hcl.compute((N,), lambda lprd_1: 0, "tmp2")
        buff_y_out = hcl.compute((N,), lambda lprd_1: 0, "buff_y_out")
        with hcl.Stage("S_lp1"):
            with hcl.for_(0, N, name="lp1") as i:
                with hcl.for_(0, N, name="lp2") as j:
                    tmp1[i] = tmp1[i] + alpha * buff_A[i, j] * buff_x[j]
        with hcl.Stage("S_lp3"):
            with hcl.for_(0, N, name="lp3") as i:
                with hcl.for_(0, N, name="lp4") as j:
                    tmp2[i] = tmp2[i] + beta * buff_B[i, j] * buff_x[j]
        with hcl.Stage("S_lp5"):
            with hcl.for_(0, N, name="lp5") as i:
                buff_y_out[i] = tmp1[i] + tmp2[i]
        with hcl.Stage("S_lpwr"):
            with hcl.for_(0, N, name="lpwr") as i:
                y_out[i] = buff_y_out[i]

    s = hcl.create_schedule([alpha, beta, A, B, x, y_out], gesummv, name="gesummv")
    for copy in (gesummv.buff_A, gesummv.buff_B):  # lprd_2 writes both
        s[copy].pipeline(copy.axis[1])
        s[copy].unroll(copy.axis[1], factor=2)
    s[gesummv.S_lpwr].pipeline(gesummv.S_lpwr.lpwr)
    s[gesummv.S_lpwr].unroll(gesummv.S_lpwr.lpwr, factor=2)
    for tensor, dim in ((A, 2), (B, 2), (gesummv.buff_A, 2), (gesummv.buff_B, 2)):
        s.partition(tensor, hcl.Partition.Cyclic, dim=dim, factor=2)
    for tensor in (gesummv.buff_x, gesummv.buff_y_out, gesummv.tmp1, gesummv.tmp2):
        s.partition(tensor, hcl.Partition.Cyclic, dim=1, factor=2)
    s[gesummv.S_lp1].pipeline(gesummv.S_lp1.lp1)
    s[gesummv.S_lp3].unroll(gesummv.S_lp3.lp4, factor=2)
    return s


def inputs(rng):
    """Values in [0, 1): no cancellation, so float32 sums agree closely in any order."""
    return [
        np.float32(1.5),
        np.float32(1.2),
        rng.random((N, N)),
        rng.random((N, N)),
        rng.random(N),
        np.zeros(N),
    ]


def model(alpha, beta, A, B, x, y_out):
    """numpy: y_out = alpha A x + beta B x, in float32 and the C's order of additions."""
    alpha, beta = _value(alpha), _value(beta)
    A, B, x = A.astype(np.float32), B.astype(np.float32), x.astype(np.float32)
    tmp1 = np.zeros(N, np.float32)
    tmp2 = np.zeros(N, np.float32)
    for j in range(N):
        tmp1 += alpha * A[:, j] * x[j]
        tmp2 += beta * B[:, j] * x[j]
    return {"y_out": tmp1 + tmp2}


def _value(scalar):
    """A scalar argument as the reference hands it to model() (a one-element array), as float32."""
    return np.float32(np.asarray(scalar).reshape(-1)[0])
