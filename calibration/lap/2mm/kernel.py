"""LAP_hls_benchmarks 2mm (PolyBench, int, N = 10), ported to the DSL for calibration.

The original's two nests, in order: for i, j { tmp[i][j] = 0; for k: tmp[i][j] += alpha * A[i][k]
* B[k][j] } and for i, j { D[i][j] *= beta; for k: D[i][j] += tmp[i][k] * C[k][j] }, every
accumulation read from and written to the array as the C does. alpha and beta are scalar
arguments. No directives (Vitis 2022.2 flattened each i, j pair, pipelined it and unrolled k).
"""

import numpy as np

import hclbuild as hcl

N = 10


def schedule():
    """The algorithm; no schedule primitives (the report is of default directives)."""
    hcl.init(hcl.Int(32))
    alpha = hcl.placeholder((), "alpha")
    beta = hcl.placeholder((), "beta")
    tmp = hcl.placeholder((N, N), "tmp")
    A = hcl.placeholder((N, N), "A")
    B = hcl.placeholder((N, N), "B")
    C = hcl.placeholder((N, N), "C")
    D = hcl.placeholder((N, N), "D")

    def kernel_2mm(alpha, beta, tmp, A, B, C, D):
        with hcl.for_(0, N, name="i") as i:
            with hcl.for_(0, N, name="j") as j:
                tmp[i, j] = 0
                with hcl.for_(0, N, name="k") as k:
                    tmp[i, j] = tmp[i, j] + alpha * A[i, k] * B[k, j]
        with hcl.for_(0, N, name="i2") as i:
            with hcl.for_(0, N, name="j2") as j:
                D[i, j] = D[i, j] * beta
                with hcl.for_(0, N, name="k2") as k:
                    D[i, j] = D[i, j] + tmp[i, k] * C[k, j]

    return hcl.create_schedule([alpha, beta, tmp, A, B, C, D], kernel_2mm, name="kernel_2mm")


def inputs(rng):
    """Small values keep int32 from overflowing (C's signed overflow is undefined)."""
    mats = [rng.integers(-10, 10, (N, N)) for _ in range(5)]
    return [np.int32(3), np.int32(2)] + mats


def model(alpha, beta, tmp, A, B, C, D):
    """numpy: tmp = alpha A B, D = beta D + tmp C."""
    A, B, C, D = (v.astype(np.int64) for v in (A, B, C, D))
    tmp = _value(alpha) * A @ B
    return {"tmp": tmp, "D": _value(beta) * D + tmp @ C}


def _value(scalar):
    """A scalar argument as the reference hands it to model() (a one-element array) as an int."""
    return int(np.asarray(scalar).reshape(-1)[0])
