"""3x3 Gaussian blur (weights 1 2 1 / 2 4 2 / 1 2 1, divided by 16) of an H x W 8-bit image,
valid output of (H-2) x (W-2), through a line buffer and a window buffer, outlined as Stage_blur.

Schedule: `reuse_at(img, blur, y)` keeps three image rows in LB (3 x W), `reuse_at(LB, blur, x)`
the 3x3 window in WB; the row loop then runs H times and the column loop W times, and each
column iteration shifts LB's column, loads one pixel, shifts the window, and from the third row
and column on writes one output. Expected II = 1 on the pipelined x loop: one read of img, one
read and one write per LB row bank (LB is partitioned by row), and the nine window taps in
registers (WB is completely partitioned).
"""

import numpy as np

import hclbuild as hcl


def schedule(sizes):
    """The algorithm and its schedule."""
    H, W = sizes.H, sizes.W
    hcl.init(hcl.UInt(8))
    img = hcl.placeholder((H, W), "img")

    def kernel(img):
        r = hcl.reduce_axis(0, 3, "r")
        c = hcl.reduce_axis(0, 3, "c")
        # weight (1 + r % 2) * (1 + c % 2): 1 2 1 / 2 4 2 / 1 2 1
        return hcl.compute((H - 2, W - 2), lambda y, x: hcl.sum(
            img[y + r, x + c] * ((1 + r % 2) * (1 + c % 2)), axis=[r, c], dtype=hcl.UInt(16)) >> 4,
            name="blur", dtype=hcl.UInt(8))

    s = hcl.create_schedule([img], kernel, name="top")
    y, x = kernel.blur.axis[0], kernel.blur.axis[1]
    line = s.reuse_at(img, s[kernel.blur], y, "LB")
    s.reuse_at(line, s[kernel.blur], x, "WB")
    s[kernel.blur].pipeline(x)
    s.outline(kernel.blur)
    return s


def model(img):
    """numpy model of the blurred image."""
    h, w = img.shape
    weights = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]])
    total = sum(weights[r, c] * img[r:r + h - 2, c:c + w - 2].astype(np.int64) for r in range(3) for c in range(3))
    return (total >> 4).astype(np.uint8)
