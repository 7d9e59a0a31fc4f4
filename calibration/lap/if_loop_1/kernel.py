"""LAP_hls_benchmarks if_loop_1 (int, up to 100 elements), ported to the DSL for calibration.

The original: for i < n { tmp = a[i] * 5; if (tmp > 10) sum += tmp }, returning sum; n is a
scalar argument, so the trip count is unknown to Vitis (its report has no latency). No
directives (Vitis 2022.2 pipelined the loop at II = 1). The returned int is the one-element
output `ret`.
"""

import numpy as np

import hclbuild as hcl

N = 100


def schedule():
    """The algorithm; no schedule primitives (the report is of default directives)."""
    hcl.init(hcl.Int(32))
    a = hcl.placeholder((N,), "a")
    n = hcl.placeholder((), "n")

    def if_loop_1(a, n):
        ret = hcl.scalar(0, "ret")
        total = hcl.scalar(0, "sum")
        with hcl.for_(0, n, name="i") as i:
            tmp = hcl.scalar(a[i] * 5, "tmp")
            with hcl.if_(tmp.v > 10):
                total.v = tmp.v + total.v
        ret.v = total.v
        return ret

    return hcl.create_schedule([a, n], if_loop_1, name="if_loop_1")


def inputs(rng):
    """A random n <= 100 and small values."""
    return [rng.integers(-100, 100, N), np.int32(rng.integers(50, N + 1))]


def model(a, n):
    """numpy: the sum of 5 a[i] over the first n elements where it exceeds 10."""
    t = 5 * a[: _value(n)].astype(np.int64)
    return {"ret": np.array([t[t > 10].sum()])}


def _value(scalar):
    """A scalar argument as the reference hands it to model() (a one-element array) as an int."""
    return int(np.asarray(scalar).reshape(-1)[0])
