"""A CNN layer stack as a framework draws it: conv2d (3x3, valid), ReLU with bias, 2x2 max-pool,
one outlined function a layer (Stage_conv, Stage_relu, Stage_pool), on CI x H x W images.

Schedule: the convolution accumulates into its output with the spatial x loop innermost
(loops co, ci, r, c, y, x), so the pipelined x loop updates a different conv[co, y, x] every
iteration and carries no floating-point add. Expected II = 1: one image read, one read and one
write of the output element; the weight is invariant in x. ReLU: II = 1 (one read, one write).
Max-pool: the 2x2 window unrolls inside the pipelined x loop and reads four relu elements a
cycle; relu is partitioned cyclically by 2 on its row and column dimensions, so the four lie
in four different banks and the expected II is 1.
"""

import numpy as np

import hclbuild as hcl


def schedule(sizes):
    """The algorithm and its schedule."""
    CI, CO, H, W = sizes.CI, sizes.CO, sizes.H, sizes.W
    OH, OW = H - 2, W - 2
    hcl.init(hcl.Float())
    img = hcl.placeholder((CI, H, W), "img")
    weight = hcl.placeholder((CO, CI, 3, 3), "weight")
    bias = hcl.placeholder((CO,), "bias")

    def kernel(img, weight, bias):
        ci = hcl.reduce_axis(0, CI, "ci")
        r = hcl.reduce_axis(0, 3, "r")
        c = hcl.reduce_axis(0, 3, "c")
        conv = hcl.compute((CO, OH, OW), lambda co, y, x: hcl.sum(
            img[ci, y + r, x + c] * weight[co, ci, r, c], axis=[ci, r, c]), name="conv")
        relu = hcl.compute((CO, OH, OW), lambda co, y, x: hcl.select(
            conv[co, y, x] + bias[co] > 0, conv[co, y, x] + bias[co], 0.0), name="relu")
        py = hcl.reduce_axis(0, 2, "py")
        px = hcl.reduce_axis(0, 2, "px")
        return hcl.compute((CO, OH // 2, OW // 2), lambda co, y, x: hcl.max(
            relu[co, 2 * y + py, 2 * x + px], axis=[py, px]), name="pool")

    s = hcl.create_schedule([img, weight, bias], kernel, name="top")
    co, y, x, ci, r, c = s[kernel.conv].axis
    s[kernel.conv].reorder(co, ci, r, c, y, x)
    s[kernel.conv].pipeline(x)
    s[kernel.relu].pipeline(kernel.relu.axis[2])
    s[kernel.pool].pipeline(kernel.pool.axis[2])
    s.partition(kernel.relu, hcl.Partition.Cyclic, dim=2, factor=2)
    s.partition(kernel.relu, hcl.Partition.Cyclic, dim=3, factor=2)
    s.outline([kernel.conv], [kernel.relu], [kernel.pool])
    return s


def model(img, weight, bias):
    """numpy model of the pooled output."""
    _, h, w = img.shape
    conv = np.zeros((weight.shape[0], h - 2, w - 2))
    for r in range(3):
        for c in range(3):
            conv += np.einsum("oc,chw->ohw", weight[:, :, r, c], img[:, r:r + h - 2, c:c + w - 2].astype(np.float64))
    relu = np.maximum(conv + bias[:, None, None], 0)
    co, oh, ow = relu.shape
    return relu.reshape(co, oh // 2, 2, ow // 2, 2).max(axis=(2, 4))
