"""gaussian (hashi0203/Vitis_HLS_Gaussian: Vitis HLS 2020.2, xczu7ev, 10 ns), ported to the DSL. Held
out at first (a kernel from outside the calibration sources), it showed that the model did not fold
reads of a constant table at constant addresses; the model was changed for it, so it is now a
calibration case.

The original filters a 512 x 512 image streamed in raster order through an AXI4-Stream with the 3x3
Gaussian 1 2 1 / 2 4 2 / 1 2 1, zero outside the image, and rounds the sum's shift right by 4 (up
when bit 3 is set); one output pixel streams out per input position. It keeps two image rows in a
local line buffer linebuf[2][512] (partitioned completely on dim 1) and the 3x3 window in
window[3][3] (partitioned completely): buf_x1 reads the first 2 pixels into linebuf[0][510..511],
buf_y/buf_x2 the next 512 into linebuf[1] (buf_y runs once), win_y/win_x copy linebuf's last two
columns into the window's lower right 2x2, and for_y/for_x (512 x 512) computes one output from the
window (the 3x3 taps as two C loops that the pipeline unrolls, each tap guarded by bounds_ok), reads
the next input while read_cnt (from 514) is below 512 * 512, shifts the window left, and moves
linebuf's column px up into the window's right column. Its directives, pragmas all: pipeline II=1 in
buf_x1, buf_x2, win_x and for_x; the two partitions; axis ports for both streams, s_axilite for the
block (bundle CONTROL_BUS). The sizes, coeff, shift and the helpers bounds_ok and bitshift come from
src/gaussian.h. Vitis removed buf_y (one iteration): its report's loop buf_x2 is the port's inner
loop alone.

Not the same: the DSL's top takes no stream, so in_strm is an array in memory (ap_memory) read at
the position each read of the stream has (the first 514 reads are fixed positions of the setup loops,
the main loop's read is in_strm[read_cnt]), and out_strm an array of the image's shape written in
order, as an ap_fifo port. The AXI4-Stream side channels are not ported: TKEEP/TSTRB (copied from the
last input) and TLAST (set on the last output). The block protocol is ap_ctrl_hs, not s_axilite.
"""

# the nested with statements are the original's nested loops, as in every port
# ruff: noqa: SIM117

import numpy as np

import hclbuild as hcl

HEIGHT = 512
WIDTH = 512
D = 3  # the filter's diameter
R = D // 2  # its radius
COEFF = [[1, 2, 1], [2, 4, 2], [1, 2, 1]]  # the Gaussian, scaled by 2**SHIFT
SHIFT = 4


def schedule():
    """The algorithm and the original's directives."""
    hcl.init(hcl.Int(32))
    in_strm = hcl.placeholder((HEIGHT * WIDTH,), "in_strm")
    out_strm = hcl.placeholder((HEIGHT, WIDTH), "out_strm")

    def gaussian(in_strm, out_strm):
        coeff = hcl.const_tensor(COEFF, "coeff", hcl.Int(32))
        linebuf = hcl.local((D - 1, WIDTH), hcl.Int(32), "linebuf")
        window = hcl.local((D, D), hcl.Int(32), "window")
        # the first WIDTH * R + R + 1 reads fill linebuf (the stream's reads 0, 1, then 2..513)
        with hcl.for_(WIDTH - R - 1, WIDTH, name="buf_x1") as px:
            linebuf[R - 1, px] = in_strm[px - (WIDTH - R - 1)]
        with hcl.for_(R, D - 1, name="buf_y") as py:
            with hcl.for_(0, WIDTH, name="buf_x2") as px:
                linebuf[py, px] = in_strm[(R + 1) + (py - R) * WIDTH + px]
        with hcl.for_(R, D, name="win_y") as wy:
            with hcl.for_(R, D, name="win_x") as wx:
                window[wy, wx] = linebuf[wy - 1, wx + WIDTH - D]
        read_cnt = hcl.scalar(WIDTH * R + R + 1, "read_cnt")
        with hcl.for_(0, HEIGHT, name="for_y") as py:
            with hcl.for_(0, WIDTH, name="for_x") as px:
                val_out = hcl.scalar(0, "val_out")
                with hcl.for_(-R, R + 1, name="wy") as wy:
                    with hcl.for_(-R, R + 1, name="wx") as wx:
                        y, x = py + wy, px + wx
                        with hcl.if_(hcl.and_(0 <= y, y < HEIGHT, 0 <= x, x < WIDTH)):
                            val_out.v = val_out.v + window[wy + R, wx + R] * coeff[wy + R, wx + R]
                # bitshift(val_out, SHIFT): shift right, rounding up when the last bit shifted out is set
                shifted = hcl.scalar(val_out.v, "shifted")
                with hcl.if_((shifted.v & (1 << (SHIFT - 1))) != 0):
                    shifted.v = (shifted.v >> SHIFT) + 1
                with hcl.else_():
                    shifted.v = shifted.v >> SHIFT
                out_strm[py, px] = shifted.v
                val_in = hcl.scalar(0, "val_in")
                with hcl.if_(read_cnt.v < HEIGHT * WIDTH):
                    val_in.v = in_strm[read_cnt.v]
                    read_cnt.v = read_cnt.v + 1
                # shift the window one column left
                with hcl.for_(0, D, name="sy") as sy:
                    with hcl.for_(0, D - 1, name="sx") as sx:
                        window[sy, sx] = window[sy, sx + 1]
                # linebuf's column px into the window's right column, and one row up in linebuf
                window[0, D - 1] = linebuf[0, px]
                with hcl.for_(1, D - 1, name="ry") as ry:
                    window[ry, D - 1] = linebuf[ry, px]
                    linebuf[ry - 1, px] = linebuf[ry, px]
                window[D - 1, D - 1] = val_in.v
                linebuf[D - 2, px] = val_in.v

    s = hcl.create_schedule([in_strm, out_strm], gaussian, name="gaussian")
    s[gaussian.buf_x1].pipeline(gaussian.buf_x1.buf_x1)
    s[gaussian.buf_y].pipeline(gaussian.buf_y.buf_x2)
    s[gaussian.win_y].pipeline(gaussian.win_y.win_x)
    s[gaussian.for_y].pipeline(gaussian.for_y.for_x)
    s.partition(gaussian.linebuf, hcl.Partition.Complete, dim=1)
    s.partition(gaussian.window, hcl.Partition.Complete, dim=0)
    return s


def inputs(rng):
    """An 8-bit grey image in raster order (the original streams lena-gray.png's pixels); out_strm
    is only written."""
    image = rng.integers(0, 256, HEIGHT * WIDTH).astype(np.int32)
    return [image, np.zeros((HEIGHT, WIDTH), dtype=np.int32)]


def model(in_strm, out_strm):
    """numpy: the 3x3 Gaussian with zeros outside the image, the sum shifted right by SHIFT and
    rounded up when bit SHIFT - 1 is set (the original's testbench reference, gaussian_test)."""
    image = np.pad(np.asarray(in_strm, dtype=np.int64).reshape(HEIGHT, WIDTH), R)
    total = sum(
        COEFF[dy][dx] * image[dy : dy + HEIGHT, dx : dx + WIDTH] for dy in range(D) for dx in range(D)
    )
    rounded = (total >> SHIFT) + ((total >> (SHIFT - 1)) & 1)
    return {"out_strm": rounded.astype(np.int32)}
