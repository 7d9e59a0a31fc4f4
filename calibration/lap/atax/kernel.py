"""LAP_hls_benchmarks atax (PolyBench, int, N = 20), ported to the DSL for calibration.

The loop nest of the original, in its order: for i { t = tmp[i]; for j: t += A[i][j] * x[j];
for j: y[j] += A[i][j] * t; tmp[i] = t }, then the function returns i (20). No directives: Vitis
2022.2's defaults decide (it pipelined the i loop and unrolled both j loops completely).
The returned int is the one-element output `ret` here (an hclbuild top returns no scalar).
"""

import numpy as np

import hclbuild as hcl

N = 20


def schedule():
    """The algorithm; no schedule primitives (the report is of default directives)."""
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((N, N), "A")
    x = hcl.placeholder((N,), "x")
    y = hcl.placeholder((N,), "y")
    tmp = hcl.placeholder((N,), "tmp")

    def atax(A, x, y, tmp):
        ret = hcl.scalar(0, "ret")
        with hcl.for_(0, N, name="i") as i:
            t = hcl.scalar(tmp[i], "t")
            with hcl.for_(0, N, name="j") as j:
                t.v = t.v + A[i, j] * x[j]
            with hcl.for_(0, N, name="j2") as j:
                y[j] = y[j] + A[i, j] * t.v
            tmp[i] = t.v
        ret.v = N
        return ret

    return hcl.create_schedule([A, x, y, tmp], atax, name="atax")


def inputs(rng):
    """Small values keep the int32 products away from overflow (C's signed overflow is undefined)."""
    return [
        rng.integers(-20, 20, (N, N)),
        rng.integers(-20, 20, N),
        rng.integers(-20, 20, N),
        rng.integers(-20, 20, N),
    ]


def model(A, x, y, tmp):
    """numpy: the updated y and tmp, and the returned loop count."""
    A, x, y, tmp = (v.astype(np.int64) for v in (A, x, y, tmp))
    y = y.copy()
    t_all = tmp.copy()
    for i in range(N):
        t = tmp[i] + A[i] @ x
        y = y + A[i] * t
        t_all[i] = t
    return {"y": y, "tmp": t_all, "ret": np.array([N])}
