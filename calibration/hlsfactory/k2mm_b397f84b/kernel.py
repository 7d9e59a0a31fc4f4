"""HLSFactory k2mm design point b397f84b (DeepLearningProject, PolyBench, float, N = 64),
ported to the DSL for calibration.

The original's loop nests, in order: lprd_1/lprd_2 copy A, B, C, D into local buffers and zero
buff_E_out, tmp1, tmp2; lp1/lp2/lp3: tmp1[i][j] += alpha * buff_A[i][k] * buff_B[k][j]; lp4/lp5/lp6:
tmp2[i][j] += tmp1[i][k] * buff_C[k][j]; lp7/lp8: buff_E_out[i][j] = tmp2[i][j] + beta *
buff_D[i][j]; lpwr_1/lpwr_2 write E_out. Each local buffer is a compute of its own here (the DSL makes
a local tensor only as a stage's output): see calibration/README.md.

Directives of this design point (what the run's log shows Vitis 2023.2 ran), as schedule primitives:
- pipeline lprd_2
- pipeline lpwr_2
- pipeline lp3, unroll lp3 factor 4
- pipeline lp8, unroll lp8 factor 4
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
    C = hcl.placeholder((N, N), "C")
    D = hcl.placeholder((N, N), "D")
    E_out = hcl.placeholder((N, N), "E_out")

    def k2mm(alpha, beta, A, B, C, D, E_out):
        buff_A = hcl.compute((N, N), lambda lprd_1, lprd_2: A[lprd_1, lprd_2], "buff_A")
        buff_B = hcl.compute((N, N), lambda lprd_1, lprd_2: B[lprd_1, lprd_2], "buff_B")
        buff_C = hcl.compute((N, N), lambda lprd_1, lprd_2: C[lprd_1, lprd_2], "buff_C")
        buff_D = hcl.compute((N, N), lambda lprd_1, lprd_2: D[lprd_1, lprd_2], "buff_D")
        buff_E_out = hcl.compute((N, N), lambda lprd_1, lprd_2: 0, "buff_E_out")
        tmp1 = hcl.compute((N, N), lambda lprd_1, lprd_2: 0, "tmp1")
        tmp2 = hcl.compute((N, N), lambda lprd_1, lprd_2: 0, "tmp2")
        with hcl.Stage("S_lp1"):
            with hcl.for_(0, N, name="lp1") as i:
                with hcl.for_(0, N, name="lp2") as j:
                    with hcl.for_(0, N, name="lp3") as k:
                        tmp1[i, j] = tmp1[i, j] + alpha * buff_A[i, k] * buff_B[k, j]
        with hcl.Stage("S_lp4"):
            with hcl.for_(0, N, name="lp4") as i:
                with hcl.for_(0, N, name="lp5") as j:
                    with hcl.for_(0, N, name="lp6") as k:
                        tmp2[i, j] = tmp2[i, j] + tmp1[i, k] * buff_C[k, j]
        with hcl.Stage("S_lp7"):
            with hcl.for_(0, N, name="lp7") as i:
                with hcl.for_(0, N, name="lp8") as j:
                    buff_E_out[i, j] = tmp2[i, j] + beta * buff_D[i, j]
        with hcl.Stage("S_lpwr_1"):
            with hcl.for_(0, N, name="lpwr_1") as i:
                with hcl.for_(0, N, name="lpwr_2") as j:
                    E_out[i, j] = buff_E_out[i, j]

    s = hcl.create_schedule([alpha, beta, A, B, C, D, E_out], k2mm, name="k2mm")
    for copy in (
        k2mm.buff_A,
        k2mm.buff_B,
        k2mm.buff_C,
        k2mm.buff_D,
        k2mm.buff_E_out,
        k2mm.tmp1,
        k2mm.tmp2,
    ):  # lprd_2 writes all
        s[copy].pipeline(copy.axis[1])
    s[k2mm.S_lpwr_1].pipeline(k2mm.S_lpwr_1.lpwr_2)
    for stage, loop in ((k2mm.S_lp1, k2mm.S_lp1.lp3), (k2mm.S_lp7, k2mm.S_lp7.lp8)):
        s[stage].pipeline(loop)
        s[stage].unroll(loop, factor=4)
    return s


def inputs(rng):
    """Values in [0, 1): no cancellation, so float32 sums agree closely in any order."""
    mats = [rng.random((N, N)) for _ in range(4)]
    return [np.float32(1.5), np.float32(1.2), *mats, np.zeros((N, N))]


def model(alpha, beta, A, B, C, D, E_out):
    """numpy: E_out = (alpha A B) C + beta D, in float32 and the C's order of additions."""
    alpha, beta = _value(alpha), _value(beta)
    A, B, C, D = (m.astype(np.float32) for m in (A, B, C, D))
    tmp1 = np.zeros((N, N), np.float32)
    for k in range(N):
        tmp1 += alpha * A[:, k : k + 1] * B[k]
    tmp2 = np.zeros((N, N), np.float32)
    for k in range(N):
        tmp2 += tmp1[:, k : k + 1] * C[k]
    return {"E_out": tmp2 + beta * D}


def _value(scalar):
    """A scalar argument as the reference hands it to model() (a one-element array), as float32."""
    return np.float32(np.asarray(scalar).reshape(-1)[0])
