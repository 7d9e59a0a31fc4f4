"""LAP_hls_benchmarks bicg (PolyBench, int, N = 30), ported to the DSL for calibration.

The original's loop nest: for i { tmp_q = q[i]; for j { a = A[i][j]; s[j] += r[i] * a;
tmp_q += a * p[j] } q[i] = tmp_q }, returning the last tmp_q. No directives (Vitis 2022.2's
defaults: it pipelined the i loop and unrolled the j loop completely). The returned int is the
one-element output `ret`.
"""

import numpy as np

import hclbuild as hcl

N = 30


def schedule():
    """The algorithm; no schedule primitives (the report is of default directives)."""
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((N, N), "A")
    s = hcl.placeholder((N,), "s")
    q = hcl.placeholder((N,), "q")
    p = hcl.placeholder((N,), "p")
    r = hcl.placeholder((N,), "r")

    def bicg(A, s, q, p, r):
        ret = hcl.scalar(0, "ret")
        tmp_q = hcl.scalar(0, "tmp_q")
        with hcl.for_(0, N, name="i") as i:
            tmp_q.v = q[i]
            with hcl.for_(0, N, name="j") as j:
                a = hcl.scalar(A[i, j], "a")
                s[j] = s[j] + r[i] * a.v
                tmp_q.v = tmp_q.v + a.v * p[j]
            q[i] = tmp_q.v
        ret.v = tmp_q.v
        return ret

    return hcl.create_schedule([A, s, q, p, r], bicg, name="bicg")


def inputs(rng):
    """Small values keep int32 from overflowing (C's signed overflow is undefined)."""
    return [rng.integers(-20, 20, (N, N))] + [rng.integers(-20, 20, N) for _ in range(4)]


def model(A, s, q, p, r):
    """numpy: s += A^T r, q += A p, and the last q."""
    A, s, q, p, r = (v.astype(np.int64) for v in (A, s, q, p, r))
    q_new = q + A @ p
    return {"s": s + A.T @ r, "q": q_new, "ret": q_new[-1:]}
