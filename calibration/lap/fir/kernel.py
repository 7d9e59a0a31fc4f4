"""LAP_hls_benchmarks fir (int, 1000 taps), ported to the DSL for calibration.

The original: one loop (labelled For_Loop) accumulating idx[i] * d_i[999 - i] into a scalar that
the function returns. No directives (Vitis 2022.2 pipelined the loop at II = 1). The returned int
is the one-element output `ret`.
"""

import numpy as np

import hclbuild as hcl

N = 1000


def schedule():
    """The algorithm; no schedule primitives (the report is of default directives)."""
    hcl.init(hcl.Int(32))
    d_i = hcl.placeholder((N,), "d_i")
    idx = hcl.placeholder((N,), "idx")

    def fir(d_i, idx):
        ret = hcl.scalar(0, "ret")
        acc = hcl.scalar(0, "acc")
        with hcl.for_(0, N, name="For_Loop") as i:
            acc.v = acc.v + idx[i] * d_i[N - 1 - i]
        ret.v = acc.v
        return ret

    return hcl.create_schedule([d_i, idx], fir, name="fir")


def inputs(rng):
    """Small values keep int32 from overflowing (C's signed overflow is undefined)."""
    return [rng.integers(-100, 100, N), rng.integers(-100, 100, N)]


def model(d_i, idx):
    """numpy: the dot product of idx with d_i reversed."""
    return {"ret": np.array([int(idx.astype(np.int64) @ d_i[::-1].astype(np.int64))])}
