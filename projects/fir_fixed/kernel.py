"""A FIR filter in fixed point: ap_fixed<16,4> samples and taps, an ap_fixed<32,8> accumulator.

Schedule: the output loop n is pipelined and the tap loop unrolled into TAPS multipliers, so
every cycle needs TAPS consecutive samples X[n .. n+TAPS-1] and all TAPS coefficients. The taps
are partitioned completely (registers); the samples go through a shift register of TAPS
registers (`s.reuse_at(X, s[Y], n)`) that takes one new sample a cycle, so X is read once per
element. Expected II = 1 (one read of X a cycle; the taps are registers).
"""

import numpy as np

import hclbuild as hcl

SAMPLE = hcl.Fixed(16, 12)
ACC = hcl.Fixed(32, 24)


def schedule(sizes):
    """The algorithm and its schedule."""
    N, TAPS = sizes.N, sizes.TAPS
    X = hcl.placeholder((N + TAPS - 1,), "X", dtype=SAMPLE)
    H = hcl.placeholder((TAPS,), "H", dtype=SAMPLE)

    def kernel(X, H):
        t = hcl.reduce_axis(0, TAPS, "t")
        return hcl.compute((N,), lambda n: hcl.sum(X[n + t] * H[t], axis=t, dtype=ACC), name="Y", dtype=ACC)

    s = hcl.create_schedule([X, H], kernel, name="top")
    s[kernel.Y].pipeline(kernel.Y.axis[0])
    s[kernel.Y].unroll(kernel.Y.axis[1])
    s.partition(H, hcl.Partition.Complete)
    s.reuse_at(X, s[kernel.Y], kernel.Y.axis[0], "X_window")
    return s


def inputs(rng, sizes):
    """Samples in [-1, 1) and a low-pass set of taps."""
    N, TAPS = sizes.N, sizes.TAPS
    taps = np.hanning(TAPS) / np.hanning(TAPS).sum()
    return [rng.uniform(-1, 1, N + TAPS - 1), taps]


def model(X, H):
    """Exact: 12+12 fraction bits fit the 24 of the accumulator, so nothing is truncated."""
    taps = len(H)
    return np.array([np.dot(X[n:n + taps], H) for n in range(len(X) - taps + 1)])
