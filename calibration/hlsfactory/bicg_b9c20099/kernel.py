"""HLSFactory bicg design point b9c20099 (DeepLearningProject, PolyBench, float, N = 64),
ported to the DSL for calibration.

The original's loop nests, in order: lprd_1/lprd_2 copy A, p, r into local buffers and zero
s_out's and q_out's; lp1/lp2: buff_s_out[j] += buff_A[i][j] * buff_r[i]; lp3/lp4: buff_q_out[i] +=
buff_A[i][j] * buff_p[j]; lpwr writes s_out and q_out. Each local buffer is a compute of its own here
(the DSL makes a local tensor only as a stage's output): see calibration/README.md.

Directives of this design point (what the run's log shows Vitis 2023.2 ran), as schedule primitives:
- pipeline lprd_2, unroll lprd_2 factor 2
- pipeline lpwr, unroll lpwr factor 2
- array_partition cyclic factor 2: A and buff_A dim 2, buff_p, buff_r, buff_s_out, buff_q_out dim 1
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
    p = hcl.placeholder((N,), "p")
    r = hcl.placeholder((N,), "r")
    s_out = hcl.placeholder((N,), "s_out")
    q_out = hcl.placeholder((N,), "q_out")

    def bicg(A, p, r, s_out, q_out):
        buff_A = hcl.compute((N, N), lambda lprd_1, lprd_2: A[lprd_1, lprd_2], "buff_A")
        buff_p = hcl.compute((N,), lambda lprd_1: p[lprd_1], "buff_p")
        buff_r = hcl.compute((N,), lambda lprd_1: r[lprd_1], "buff_r")
        buff_s_out = hcl.compute((N,), lambda lprd_1: 0, "buff_s_out")
        buff_q_out = hcl.compute((N,), lambda lprd_1: 0, "buff_q_out")
        with hcl.Stage("S_lp1"):
            with hcl.for_(0, N, name="lp1") as i:
                with hcl.for_(0, N, name="lp2") as j:
                    buff_s_out[j] = buff_s_out[j] + buff_A[i, j] * buff_r[i]
        with hcl.Stage("S_lp3"):
            with hcl.for_(0, N, name="lp3") as i:
                with hcl.for_(0, N, name="lp4") as j:
                    buff_q_out[i] = buff_q_out[i] + buff_A[i, j] * buff_p[j]
        with hcl.Stage("S_lpwr"):
            with hcl.for_(0, N, name="lpwr") as i:
                s_out[i] = buff_s_out[i]
                q_out[i] = buff_q_out[i]

    s = hcl.create_schedule([A, p, r, s_out, q_out], bicg, name="bicg")
    k = s[bicg.buff_A]
    k.pipeline(k.axis[1])
    k.unroll(k.axis[1], factor=2)
    s[bicg.S_lpwr].pipeline(bicg.S_lpwr.lpwr)
    s[bicg.S_lpwr].unroll(bicg.S_lpwr.lpwr, factor=2)
    for tensor, dim in (
        (A, 2),
        (bicg.buff_A, 2),
        (bicg.buff_p, 1),
        (bicg.buff_r, 1),
        (bicg.buff_s_out, 1),
        (bicg.buff_q_out, 1),
    ):
        s.partition(tensor, hcl.Partition.Cyclic, dim=dim, factor=2)
    s[bicg.S_lp1].pipeline(bicg.S_lp1.lp1)
    s[bicg.S_lp3].unroll(bicg.S_lp3.lp4, factor=2)
    return s


def inputs(rng):
    """Values in [0, 1): no cancellation, so float32 sums agree closely in any order."""
    return [rng.random((N, N)), rng.random(N), rng.random(N), np.zeros(N), np.zeros(N)]


def model(A, p, r, s_out, q_out):
    """numpy: s_out = A^T r, q_out = A p, in float32 and the C's order of additions."""
    A, p, r = A.astype(np.float32), p.astype(np.float32), r.astype(np.float32)
    s = np.zeros(N, np.float32)
    for i in range(N):
        s += A[i] * r[i]
    q = np.zeros(N, np.float32)
    for j in range(N):
        q += A[:, j] * p[j]
    return {"s_out": s, "q_out": q}
