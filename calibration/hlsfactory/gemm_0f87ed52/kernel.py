"""HLSFactory gemm design point 0f87ed52 (DeepLearningProject, PolyBench, float, N = 64),
ported to the DSL for calibration.

The original's loop nests, in order: lprd_1/lprd_2 copy A, B, C into local buffers and zero tmp1;
lp1/lp2/lp3: tmp1[i][j] = alpha * buff_A[i][k] * buff_B[k][j] + tmp1[i][j]; lp4/lp5: buff_C[i][j] =
beta * buff_C[i][j] + tmp1[i][j]; lpwr_1/lpwr_2 write D_out. Each local buffer is a compute of its own
here (the DSL makes a local tensor only as a stage's output): see calibration/README.md.

Directives of this design point (what the run's log shows Vitis 2023.2 ran), as schedule primitives:
- none: the run's log shows its opt.tcl was not sourced (hls_template.tcl has `# source [opt_tcl]`),
- so Vitis synthesized the default directives, as it did for design point c7900a90 (the same report)
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
    D_out = hcl.placeholder((N, N), "D_out")

    def gemm(alpha, beta, A, B, C, D_out):
        buff_A = hcl.compute((N, N), lambda lprd_1, lprd_2: A[lprd_1, lprd_2], "buff_A")
        buff_B = hcl.compute((N, N), lambda lprd_1, lprd_2: B[lprd_1, lprd_2], "buff_B")
        buff_C = hcl.compute((N, N), lambda lprd_1, lprd_2: C[lprd_1, lprd_2], "buff_C")
        tmp1 = hcl.compute((N, N), lambda lprd_1, lprd_2: 0, "tmp1")
        with hcl.Stage("S_lp1"):
            with hcl.for_(0, N, name="lp1") as i:
                with hcl.for_(0, N, name="lp2") as j:
                    with hcl.for_(0, N, name="lp3") as k:
                        tmp1[i, j] = alpha * buff_A[i, k] * buff_B[k, j] + tmp1[i, j]
        with hcl.Stage("S_lp4"):
            with hcl.for_(0, N, name="lp4") as i:
                with hcl.for_(0, N, name="lp5") as j:
                    buff_C[i, j] = beta * buff_C[i, j] + tmp1[i, j]
        with hcl.Stage("S_lpwr_1"):
            with hcl.for_(0, N, name="lpwr_1") as i:
                with hcl.for_(0, N, name="lpwr_2") as j:
                    D_out[i, j] = buff_C[i, j]

    s = hcl.create_schedule([alpha, beta, A, B, C, D_out], gemm, name="gemm")
    # default directives: no schedule primitive
    return s


def inputs(rng):
    """Values in [0, 1): no cancellation, so float32 sums agree closely in any order."""
    return [
        np.float32(1.5),
        np.float32(1.2),
        rng.random((N, N)),
        rng.random((N, N)),
        rng.random((N, N)),
        np.zeros((N, N)),
    ]


def model(alpha, beta, A, B, C, D_out):
    """numpy: D_out = alpha A B + beta C, in float32 and the C's order of additions."""
    alpha, beta = _value(alpha), _value(beta)
    A, B, C = A.astype(np.float32), B.astype(np.float32), C.astype(np.float32)
    tmp1 = np.zeros((N, N), np.float32)
    for k in range(N):
        tmp1 = alpha * A[:, k : k + 1] * B[k] + tmp1
    return {"D_out": beta * C + tmp1}


def _value(scalar):
    """A scalar argument as the reference hands it to model() (a one-element array), as float32."""
    return np.float32(np.asarray(scalar).reshape(-1)[0])
