"""A ResNet basic block (conv3x3 -> ReLU -> conv3x3 -> + skip -> ReLU) on 8 channels, each conv outlined.

The motivating case for outlining: a ResNet-20 is ~100 such stages, and synthesizing it as one
flat function took an hour. Here every conv is its own Vitis HLS project that builds, simulates
and synthesizes separately (and in parallel with `doit -n N`).

Schedule: each conv accumulates into its output with the spatial z loop innermost (loops co,
ci, r, s, y, z), so the pipelined z loop updates a different output element every iteration and
carries no floating-point add. Expected II = 1: one input read, one read and one write of the
output element per iteration; the weight is invariant in z.
"""

import numpy as np

import hclbuild as hcl


def schedule(sizes):
    """The algorithm and its schedule."""
    C, H, W = sizes.C, sizes.H, sizes.W
    hcl.init(hcl.Float())
    x = hcl.placeholder((C, H + 2, W + 2), "x")  # zero-padded input
    w1 = hcl.placeholder((C, C, 3, 3), "w1")
    w2 = hcl.placeholder((C, C, 3, 3), "w2")

    def kernel(x, w1, w2):
        def conv(src, weight, name):
            ci = hcl.reduce_axis(0, C, "ci")
            r = hcl.reduce_axis(0, 3, "r")
            s = hcl.reduce_axis(0, 3, "s")
            return hcl.compute(
                (C, H, W),
                lambda co, y, z: hcl.sum(src[ci, y + r, z + s] * weight[co, ci, r, s], axis=[ci, r, s]),
                name=name)

        c1 = conv(x, w1, "conv1")

        def relu_pad(c, y, z):
            # an if_, not a select: select evaluates both sides, and c1[c, -1, ...] is outside c1
            # (the bounds-checked reference run reports exactly that)
            with hcl.if_(hcl.and_(y > 0, y <= H, z > 0, z <= W)):
                hcl.return_(hcl.select(c1[c, y - 1, z - 1] > 0, c1[c, y - 1, z - 1], 0.0))
            hcl.return_(0.0)

        a1 = hcl.compute((C, H + 2, W + 2), relu_pad, name="relu1_pad")
        c2 = conv(a1, w2, "conv2")
        return hcl.compute((C, H, W), lambda c, y, z: hcl.select(
            c2[c, y, z] + x[c, y + 1, z + 1] > 0, c2[c, y, z] + x[c, y + 1, z + 1], 0.0), name="out")

    s = hcl.create_schedule([x, w1, w2], kernel, name="top")
    for stage in (kernel.conv1, kernel.conv2):
        co, y, z, ci, r, t = s[stage].axis
        s[stage].reorder(co, ci, r, t, y, z)
        s[stage].pipeline(z)
        s.outline(stage)
    return s


def model(x, w1, w2):
    """numpy model of the block."""
    C, H, W = x.shape[0], x.shape[1] - 2, x.shape[2] - 2

    def conv(src, weight):
        out = np.zeros((C, H, W))
        for r in range(3):
            for s in range(3):
                out += np.einsum("oc,chw->ohw", weight[:, :, r, s], src[:, r:r + H, s:s + W])
        return out

    a1 = np.pad(np.maximum(conv(x.astype(np.float64), w1), 0), ((0, 0), (1, 1), (1, 1)))
    return np.maximum(conv(a1, w2) + x[:, 1:H + 1, 1:W + 1], 0)
