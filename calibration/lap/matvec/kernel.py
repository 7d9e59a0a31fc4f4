"""LAP_hls_benchmarks matvec (int, 30 x 30), ported to the DSL for calibration.

The original: for i { tmp = 0; for j: tmp += V[j] * M[i][j]; Out[i] = tmp }, returning the last
tmp. No directives (Vitis 2022.2 pipelined the i loop and unrolled j completely). The returned
int is the one-element output `ret`.
"""

import numpy as np

import hclbuild as hcl

N = 30


def schedule():
    """The algorithm; no schedule primitives (the report is of default directives)."""
    hcl.init(hcl.Int(32))
    M = hcl.placeholder((N, N), "M")
    V = hcl.placeholder((N,), "V")
    Out = hcl.placeholder((N,), "Out")

    def matvec(M, V, Out):
        ret = hcl.scalar(0, "ret")
        tmp = hcl.scalar(0, "tmp")
        with hcl.for_(0, N, name="i") as i:
            tmp.v = 0
            with hcl.for_(0, N, name="j") as j:
                tmp.v = tmp.v + V[j] * M[i, j]
            Out[i] = tmp.v
        ret.v = tmp.v
        return ret

    return hcl.create_schedule([M, V, Out], matvec, name="matvec")


def inputs(rng):
    """Small values keep int32 from overflowing (C's signed overflow is undefined)."""
    return [rng.integers(-100, 100, (N, N)), rng.integers(-100, 100, N), np.zeros(N)]


def model(M, V, Out):
    """numpy: Out = M V and its last element."""
    out = M.astype(np.int64) @ V.astype(np.int64)
    return {"Out": out, "ret": out[-1:]}
