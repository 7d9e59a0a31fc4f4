"""LAP_hls_benchmarks getTanh (int, 1000 elements), ported to the DSL for calibration.

The original: for i { beta = A[addr[i]]; result = beta >= 1 ? 1 : (beta*beta + 19)*beta*beta +
3*beta; A[addr[i]] = result }, returning the last result: an indirect read-modify-write of A
(the address comes from memory, so the next iteration may read what this one wrote). No directives
(Vitis 2022.2 pipelined the loop; the possible dependence through A set its II). The returned int
is the one-element output `ret`.
"""

import numpy as np

import hclbuild as hcl

N = 1000


def schedule():
    """The algorithm; no schedule primitives (the report is of default directives)."""
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((N,), "A")
    addr = hcl.placeholder((N,), "addr")

    def getTanh(A, addr):
        ret = hcl.scalar(0, "ret")
        result = hcl.scalar(0, "result")
        with hcl.for_(0, N, name="i") as i:
            address = hcl.scalar(addr[i], "address")
            beta = hcl.scalar(A[address.v], "beta")
            with hcl.if_(beta.v >= 1):
                result.v = 1
            with hcl.else_():
                result.v = (beta.v * beta.v + 19) * beta.v * beta.v + 3 * beta.v
            A[address.v] = result.v
        ret.v = result.v
        return ret

    return hcl.create_schedule([A, addr], getTanh, name="getTanh")


def inputs(rng):
    """Values in [-10, 10] (the polynomial stays inside int32) and addresses with repeats."""
    return [rng.integers(-10, 11, N), rng.integers(0, N, N)]


def model(A, addr):
    """numpy/Python: the same sequential updates."""
    A = A.astype(np.int64).copy()
    result = 0
    for address in addr:
        beta = int(A[address])
        result = 1 if beta >= 1 else (beta * beta + 19) * beta * beta + 3 * beta
        A[address] = result
    return {"A": A, "ret": np.array([result])}
