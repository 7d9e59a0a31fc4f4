"""A 16-tap FIR filter in fixed point (ap_fixed<16,4> samples and taps, ap_fixed<32,8> accumulator)."""

import numpy as np

import hclbuild as hcl

N, TAPS = 128, 16
SAMPLE = hcl.Fixed(16, 12)
ACC = hcl.Fixed(32, 24)


def schedule():
    """The algorithm and its schedule."""
    X = hcl.placeholder((N + TAPS - 1,), "X", dtype=SAMPLE)
    H = hcl.placeholder((TAPS,), "H", dtype=SAMPLE)

    def kernel(X, H):
        t = hcl.reduce_axis(0, TAPS, "t")
        return hcl.compute((N,), lambda n: hcl.sum(X[n + t] * H[t], axis=t, dtype=ACC), name="Y", dtype=ACC)

    s = hcl.create_schedule([X, H], kernel, name="top")
    s[kernel.Y].pipeline(kernel.Y.axis[0])
    s[kernel.Y].unroll(kernel.Y.axis[1])
    s.partition(H, hcl.Partition.Complete)
    return s


def inputs(rng):
    """Samples in [-1, 1) and a low-pass set of taps."""
    taps = np.hanning(TAPS) / np.hanning(TAPS).sum()
    return [rng.uniform(-1, 1, N + TAPS - 1), taps]


def model(X, H):
    """Exact: 12+12 fraction bits fit the 24 of the accumulator, so nothing is truncated."""
    return np.array([np.dot(X[n:n + TAPS], H) for n in range(N)])
