"""LAP_hls_benchmarks if_loop_3 (int, up to 100 elements), ported to the DSL for calibration.

The original: sum = 1000; for i < n { dist = a[i] - b[i]; if (dist >= 0) sum = sum / dist },
returning sum; n is a scalar argument, so the trip count is unknown to Vitis (its report has no
latency). The division carries sum from one iteration to the next: Vitis 2022.2 pipelined the loop
at the divider's latency. The returned int is the one-element output `ret`.
"""

import numpy as np

import hclbuild as hcl

N = 100


def schedule():
    """The algorithm; no schedule primitives (the report is of default directives)."""
    hcl.init(hcl.Int(32))
    a = hcl.placeholder((N,), "a")
    b = hcl.placeholder((N,), "b")
    n = hcl.placeholder((), "n")

    def if_loop_3(a, b, n):
        ret = hcl.scalar(0, "ret")
        total = hcl.scalar(1000, "sum")
        with hcl.for_(0, n, name="i") as i:
            dist = hcl.scalar(a[i] - b[i], "dist")
            with hcl.if_(dist.v >= 0):
                total.v = total.v / dist.v
        ret.v = total.v
        return ret

    return hcl.create_schedule([a, b, n], if_loop_3, name="if_loop_3")


def inputs(rng):
    """a != b everywhere (the C divides by zero otherwise), a random n <= 100."""
    a = rng.integers(-100, 100, N)
    b = a - rng.choice([-3, -2, -1, 1, 2, 3], N)
    return [a, b, np.int32(rng.integers(50, N + 1))]


def model(a, b, n):
    """Python: C's truncating division, in order."""
    total = 1000
    for x, y in zip(a[: _value(n)], b[: _value(n)]):
        dist = int(x) - int(y)
        if dist >= 0:
            total = int(total / dist)
    return {"ret": np.array([total])}


def _value(scalar):
    """A scalar argument as the reference hands it to model() (a one-element array) as an int."""
    return int(np.asarray(scalar).reshape(-1)[0])
