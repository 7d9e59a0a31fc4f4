"""A 3x3 convolution, bias and ReLU on a 2-D image: the convolution outlined alone, bias and ReLU
outlined together (a list of two stages), so the design has three functions.

Schedule: the output loop x is pipelined and the 3x3 window unrolls inside it, which needs
nine pixels a cycle. A line buffer of 3 image rows (`s.reuse_at(img, s[conv], y)`) and a 3x3
window buffer of registers on it (`s.reuse_at(line, s[conv], x)`) take one new pixel a cycle,
so the image is read once per pixel; the weights are registers. Expected II = 1 (one image
read a cycle; each iteration starts its own sum, so no add is carried across iterations).

Knobs (project.toml [explore]; `hclbuild explore projects/conv_relu`): `reuse`, the buffers on
the image (window: line and window buffers as above; line: the line buffer alone; none: the
image read nine times an iteration, which hclbuild partitions by rows where the II asked leaves
3 reads a bank within its ports, at II 2 and up), and the II asked of the pipelined x loop. The
build uses [knobs] (window, II 1: the schedule above).
"""

import numpy as np

import hclbuild as hcl


def schedule(sizes, knobs):
    """The algorithm and its schedule."""
    H, W = sizes.H, sizes.W
    hcl.init(hcl.Float())
    img = hcl.placeholder((H, W), "img")
    weight = hcl.placeholder((3, 3), "weight")
    bias = hcl.placeholder((1,), "bias")

    def kernel(img, weight, bias):
        r = hcl.reduce_axis(0, 3, "r")
        c = hcl.reduce_axis(0, 3, "c")
        conv = hcl.compute((H - 2, W - 2),
                           lambda y, x: hcl.sum(img[y + r, x + c] * weight[r, c], axis=[r, c]), name="conv")
        biased = hcl.compute((H - 2, W - 2), lambda y, x: conv[y, x] + bias[0], name="biased")
        return hcl.compute((H - 2, W - 2), lambda y, x: hcl.select(biased[y, x] > 0, biased[y, x], 0.0),
                           name="relu")

    s = hcl.create_schedule([img, weight, bias], kernel, name="top")
    s[kernel.conv].pipeline(kernel.conv.axis[1], knobs.ii)
    s.partition(weight, hcl.Partition.Complete)
    if knobs.reuse in ("line", "window"):
        line = s.reuse_at(img, s[kernel.conv], kernel.conv.axis[0], "line")
        if knobs.reuse == "window":
            s.reuse_at(line, s[kernel.conv], kernel.conv.axis[1], "window")
    s.outline(kernel.conv)
    s.outline([kernel.biased, kernel.relu])
    return s


def model(img, weight, bias):
    """numpy model of the ReLU output."""
    H, W = img.shape
    acc = np.zeros((H - 2, W - 2))
    for r in range(3):
        for c in range(3):
            acc += img[r:r + H - 2, c:c + W - 2].astype(np.float64) * weight[r, c]
    return np.maximum(acc + bias[0], 0)
