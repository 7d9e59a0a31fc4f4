"""An image pipeline of three outlined stages connected by streams in a dataflow region:
gray (RGB to 8-bit luma), blur (3x3 box blur through line and window buffers) and binarize
(a threshold), as Stage_gray -> Stage_blur -> Stage_binarize in `#pragma HLS dataflow`.

Schedule: `s.to(gray, s[blur])` and `s.to(blur, s[binarize])` make the two intermediate
images hls::streams of depth 2; blur reads its stream once per pixel, in order, through
`reuse_at` line and window buffers, so the three functions run concurrently as a streaming
pipeline. Expected II = 1 in every stage: gray reads one pixel of each colour plane, from three
RAMs (hclbuild partitions rgb along its plane dimension, as a loop pipelined at II=1 reads it at
three places an iteration), blur one stream value (its window is partitioned), binarize one
stream value.
"""

import numpy as np

import hclbuild as hcl


def schedule(sizes):
    """The algorithm and its schedule."""
    H, W, T = sizes.H, sizes.W, sizes.THRESHOLD
    hcl.init(hcl.UInt(8))
    rgb = hcl.placeholder((3, H, W), "rgb")

    def kernel(rgb):
        gray = hcl.compute((H, W), lambda y, x: (rgb[0, y, x] * 77 + rgb[1, y, x] * 150 + rgb[2, y, x] * 29) >> 8,
                           name="gray")
        r = hcl.reduce_axis(0, 3, "r")
        c = hcl.reduce_axis(0, 3, "c")
        blur = hcl.compute((H - 2, W - 2), lambda y, x: hcl.sum(
            gray[y + r, x + c], axis=[r, c], dtype=hcl.UInt(16)) / 9, name="blur")
        return hcl.compute((H - 2, W - 2), lambda y, x: hcl.select(blur[y, x] > T, 255, 0), name="binarize")

    s = hcl.create_schedule([rgb], kernel, name="top")
    blur = kernel.blur
    line = s.reuse_at(kernel.gray, s[blur], blur.axis[0], "LB")
    s.reuse_at(line, s[blur], blur.axis[1], "WB")
    for stage in (kernel.gray, blur, kernel.binarize):
        s[stage].pipeline(stage.axis[1])
    s.to(kernel.gray, s[blur], depth=2)
    s.to(blur, s[kernel.binarize], depth=2)
    s.outline(kernel.gray)
    s.outline(blur)
    s.outline(kernel.binarize)
    return s


def model(rgb):
    """numpy model of the binary image."""
    wide = rgb.astype(np.int64)
    gray = ((wide[0] * 77 + wide[1] * 150 + wide[2] * 29) >> 8) & 0xFF
    h, w = gray.shape
    box = sum(gray[r:r + h - 2, c:c + w - 2] for r in range(3) for c in range(3)) // 9
    return np.where(box > 100, 255, 0).astype(np.uint8)
