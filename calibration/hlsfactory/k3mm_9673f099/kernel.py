"""HLSFactory k3mm design point 9673f099 (DeepLearningProject, PolyBench, float, N = 64),
ported to the DSL for calibration.

The original's loop nests, in order: lprd_1/lprd_2 copy A, B, C, D into local buffers and zero
buff_E_out, tmp1, tmp2; lp1/lp2/lp3: tmp1[i][j] += buff_A[i][k] * buff_B[k][j]; lp4/lp5/lp6:
tmp2[i][j] += buff_C[i][k] * buff_D[k][j]; lp7/lp8/lp9: buff_E_out[i][j] += tmp1[i][k] * tmp2[k][j];
lpwr_1/lpwr_2 write E_out. Each local buffer is a compute of its own here (the DSL makes a local
tensor only as a stage's output): see calibration/README.md.

Directives of this design point (what the run's log shows Vitis 2023.2 ran), as schedule primitives:
- pipeline lprd_2, unroll lprd_2 factor 2
- pipeline lpwr_2, unroll lpwr_2 factor 2
- array_partition cyclic factor 2 dim 2: A, B, C, D, E_out, every buff_* and tmp1, tmp2
- pipeline lp2 (unroll lp2 factor 1 is no unrolling: left out)
- unroll lp8 factor 2
"""

import numpy as np

import hclbuild as hcl

N = 64


def schedule():
    """The algorithm and this design point's directives."""
    hcl.init(hcl.Float())
    A = hcl.placeholder((N, N), "A")
    B = hcl.placeholder((N, N), "B")
    C = hcl.placeholder((N, N), "C")
    D = hcl.placeholder((N, N), "D")
    E_out = hcl.placeholder((N, N), "E_out")

    def k3mm(A, B, C, D, E_out):
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
                        tmp1[i, j] = tmp1[i, j] + buff_A[i, k] * buff_B[k, j]
        with hcl.Stage("S_lp4"):
            with hcl.for_(0, N, name="lp4") as i:
                with hcl.for_(0, N, name="lp5") as j:
                    with hcl.for_(0, N, name="lp6") as k:
                        tmp2[i, j] = tmp2[i, j] + buff_C[i, k] * buff_D[k, j]
        with hcl.Stage("S_lp7"):
            with hcl.for_(0, N, name="lp7") as i:
                with hcl.for_(0, N, name="lp8") as j:
                    with hcl.for_(0, N, name="lp9") as k:
                        buff_E_out[i, j] = buff_E_out[i, j] + tmp1[i, k] * tmp2[k, j]
        with hcl.Stage("S_lpwr_1"):
            with hcl.for_(0, N, name="lpwr_1") as i:
                with hcl.for_(0, N, name="lpwr_2") as j:
                    E_out[i, j] = buff_E_out[i, j]

    s = hcl.create_schedule([A, B, C, D, E_out], k3mm, name="k3mm")
    for copy in (
        k3mm.buff_A,
        k3mm.buff_B,
        k3mm.buff_C,
        k3mm.buff_D,
        k3mm.buff_E_out,
        k3mm.tmp1,
        k3mm.tmp2,
    ):  # lprd_2 writes all
        s[copy].pipeline(copy.axis[1])
        s[copy].unroll(copy.axis[1], factor=2)
    s[k3mm.S_lpwr_1].pipeline(k3mm.S_lpwr_1.lpwr_2)
    s[k3mm.S_lpwr_1].unroll(k3mm.S_lpwr_1.lpwr_2, factor=2)
    for tensor in (
        A,
        B,
        C,
        D,
        E_out,
        k3mm.buff_A,
        k3mm.buff_B,
        k3mm.buff_C,
        k3mm.buff_D,
        k3mm.buff_E_out,
        k3mm.tmp1,
        k3mm.tmp2,
    ):
        s.partition(tensor, hcl.Partition.Cyclic, dim=2, factor=2)
    s[k3mm.S_lp1].pipeline(k3mm.S_lp1.lp2)
    s[k3mm.S_lp7].unroll(k3mm.S_lp7.lp8, factor=2)
    return s


def inputs(rng):
    """Values in [0, 1): no cancellation, so float32 sums agree closely in any order."""
    return [rng.random((N, N)) for _ in range(4)] + [np.zeros((N, N))]


def model(A, B, C, D, E_out):
    """numpy: E_out = (A B)(C D), in float32 and the C's order of additions."""
    A, B, C, D = (m.astype(np.float32) for m in (A, B, C, D))

    def product(X, Y):
        out = np.zeros((N, N), np.float32)
        for k in range(N):
            out += X[:, k : k + 1] * Y[k]
        return out

    return {"E_out": product(product(A, B), product(C, D))}
