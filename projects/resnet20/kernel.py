"""ResNet-20 for CIFAR-10 (He et al. 2016, section 4.2) in fixed point, every conv its own function.

Network: conv1 (3 -> 16) and 3 stages of 3 basic blocks (16, 32, 64 channels on 32x32, 16x16,
8x8 maps); a block is conv3x3 -> ReLU -> conv3x3 -> + shortcut -> ReLU. The first block of
stages 2 and 3 halves the map with stride 2 and projects its shortcut with a 1x1 conv of
stride 2 (option B of the paper). Then a global 8x8 average pool and a dense 64 -> 10 layer.
Batch norm is folded into each conv (weights and a per-channel bias), as deployed networks do.
Weights are random (He-scaled, from the project's seed), the input is one 32x32x3 image.

Number formats (ap_fixed, truncation and wrap-around as Vitis' defaults AP_TRN/AP_WRAP):
- activations and biases Fixed(16, 8): range [-128, 128), step 1/256;
- weights Fixed(8, 6): range [-2, 2), step 1/64 (folded BN scales stay below 2);
- accumulators Fixed(32, 14): the exact product format (8 + 6 fraction bits) with 18 integer
  bits, so a 576-term 3x3x64 sum never wraps; bias and shortcut are added at full precision, ReLU
  is applied, and the result is truncated (floor) to Fixed(16, 8) when stored.
- average pool: a Fixed(24, 8) sum of the 64 values, shifted right by 6 (floor of the mean).
The numpy model is the same integer arithmetic (raw bits in int64), so it is bit-exact.

Functions: Stage_<layer> for each of the 21 convs (`conv1`, `s1b1_a`, `s1b1_b`, ...,
`s2b1_proj`, ...), Stage_pool and Stage_fc, each outlined alone (the ~100-stage design that took
an hour to synthesize flat becomes 23 small HLS projects that build in parallel).

Schedule: every conv pipelines its input-channel loop ci, and a 3x3 conv's window loops r and c
unroll inside it: 9 MACs an iteration, CIN iterations per output pixel (it had pipelined the
kernel column c, which Vitis flattened into CIN * 9 iterations of one MAC: 9x the cycles). The
window's nine weights come from nine RAMs (w partitioned completely on r and c) and its nine
activations from six banks of two ports (each map that a 3x3 conv reads is partitioned
cyclically by 3 in y, which separates y * stride + r - 1 for r = 0, 1, 2 at stride 1 and 2, and
by 2 in x, where x * stride - 1 and x * stride + 1 share a bank and its two ports), so
hclbuild's port and recurrence checks pass: expected II = 1 (the accumulator is a register and a
fixed-point add chains within the cycle). By arithmetic, the convs' pipelined iterations fall
from 40.8 M to 4.77 M (plus each output pixel's fill and drain, 200,704 pixels, in both). The 1x1
projections pipeline ci with one MAC an iteration, as before. The pool and the dense layer
pipeline their reductions (II = 1, one read a cycle).

Buffers: the top calls the convs one after another, so a map is dead once its last reader has
run (the next conv, and the block's second conv for the shortcut). `buffer_plan` gives each conv
the buffer of a dead map of its shape (`hcl.update` writes over it) or a new one (`hcl.compute`),
and a block's second conv its shortcut's buffer (it reads the shortcut only at the pixel it
writes): 2 buffers per stage, 6 for the 21 maps, each named after its first writer (conv1,
s1b1_a, s2b1_a, s2b1_proj, s3b1_a, s3b1_proj). The top's BRAM18 estimated by `hclbuild
estimate`: 197 for the first schedule's 21 maps, 296 for 21 maps in 9 banks each, 73 for these
6 buffers in 6 banks.
"""

from dataclasses import dataclass

import numpy as np

import hclbuild as hcl

ACT = hcl.Fixed(16, 8)
WEIGHT = hcl.Fixed(8, 6)
ACC = hcl.Fixed(32, 14)
POOL_ACC = hcl.Fixed(24, 8)
ACT_FRAC, WEIGHT_FRAC, ACC_FRAC = 8, 6, 14
IMAGE = (3, 32, 32)
CLASSES = 10


@dataclass(frozen=True)
class Conv:
    """One conv layer with its folded batch norm: src -> name, optionally + shortcut, then ReLU."""

    name: str
    src: str
    cin: int
    cout: int
    size: int  # input map height = width
    stride: int
    kernel: int  # 3 (padding 1) or 1 (no padding)
    relu: bool
    shortcut: str | None = None  # tensor added before the ReLU

    @property
    def out_size(self) -> int:
        return self.size // self.stride


def layers() -> list[Conv]:
    """The 21 convs of ResNet-20, in program order."""
    convs = [Conv("conv1", "image", 3, 16, 32, 1, 3, True)]
    src, cin, size = "conv1", 16, 32
    for stage, cout in enumerate((16, 32, 64), start=1):
        for block in range(1, 4):
            stride = 2 if stage > 1 and block == 1 else 1
            prefix = f"s{stage}b{block}"
            convs.append(Conv(f"{prefix}_a", src, cin, cout, size, stride, 3, True))
            shortcut = src
            if stride == 2:
                convs.append(Conv(f"{prefix}_proj", src, cin, cout, size, 2, 1, False))
                shortcut = f"{prefix}_proj"
            size //= stride
            convs.append(Conv(f"{prefix}_b", f"{prefix}_a", cout, cout, size, 1, 3, True, shortcut))
            src, cin = f"{prefix}_b", cout
    return convs


def buffer_plan(convs: list[Conv]) -> dict[str, str]:
    """Which conv's map each conv writes into: its own (a new buffer) or that of an earlier conv
    of the same shape whose map is no longer read.

    The top calls the convs one after the other, so a map is dead once its last reader (the next
    conv, and the block's second conv for a shortcut) has run. A block's second conv reads its
    shortcut only at the pixel it writes, so it writes over the shortcut in place when nothing
    reads it later: each stage needs two buffers of its map shape (the block's input and output,
    its first conv's output), 6 in all for 21 maps."""
    last_read = {}
    for k, layer in enumerate(convs):
        for name in (layer.src, layer.shortcut):
            if name:
                last_read[name] = k
    last_read[convs[-1].name] = len(convs)  # the pool reads it after every conv
    holder: dict[str, str] = {}  # conv -> the buffer (named after its first writer) it writes
    free: dict[tuple, list[str]] = {}  # map shape -> buffers whose map is dead
    shape = {layer.name: (layer.cout, layer.out_size) for layer in convs}
    for k, layer in enumerate(convs):
        pool = free.setdefault(shape[layer.name], [])
        shortcut = layer.shortcut
        if shortcut and shortcut != layer.src and last_read[shortcut] == k:
            holder[layer.name] = holder[shortcut]  # out[co, y, x] = ... + shortcut[co, y, x], in place
        else:
            holder[layer.name] = pool.pop(0) if pool else layer.name
        for done in convs[:k]:  # maps whose last reader is this conv are free for the next one
            if last_read.get(done.name) == k and holder[done.name] != holder[layer.name]:
                free.setdefault(shape[done.name], []).append(holder[done.name])
    return holder


def _conv(layer: Conv, tensors: dict, w, b, into=None):
    """The DSL stage of one conv: a Fixed(32, 14) sum over ci (and r, c), plus bias (and shortcut),
    ReLU; a new map, or written over `into` (hcl.update) when that map is dead."""
    src = tensors[layer.src]
    shortcut = tensors[layer.shortcut] if layer.shortcut else None
    ci = hcl.reduce_axis(0, layer.cin, "ci")
    if layer.kernel == 3:
        r = hcl.reduce_axis(0, 3, "r")
        c = hcl.reduce_axis(0, 3, "c")

        def total(co, y, x):
            iy, ix = y * layer.stride + r - 1, x * layer.stride + c - 1
            inside = hcl.and_(iy >= 0, iy < layer.size, ix >= 0, ix < layer.size)  # zero padding
            return hcl.sum(src[ci, iy, ix] * w[co, ci, r, c], axis=[ci, r, c], where=inside, dtype=ACC)
    else:
        def total(co, y, x):
            return hcl.sum(src[ci, y * layer.stride, x * layer.stride] * w[co, ci, 0, 0], axis=ci, dtype=ACC)

    def pixel(co, y, x):
        value = total(co, y, x) + b[co]
        if shortcut is not None:
            value = value + shortcut[co, y, x]
        return hcl.select(value > 0, value, 0) if layer.relu else value

    if into is not None:
        hcl.update(into, pixel, name=layer.name)
        return into
    return hcl.compute((layer.cout, layer.out_size, layer.out_size), pixel, name=layer.name, dtype=ACT)


def schedule(knobs):
    """The algorithm and its schedule at the knob values (project.toml's [explore] and [knobs])."""
    convs = layers()
    plan = buffer_plan(convs)
    image = hcl.placeholder(IMAGE, "image", dtype=ACT)
    params = []
    for layer in convs:
        params.append(hcl.placeholder((layer.cout, layer.cin, layer.kernel, layer.kernel), f"w_{layer.name}",
                                      dtype=WEIGHT))
        params.append(hcl.placeholder((layer.cout,), f"b_{layer.name}", dtype=ACT))
    fc_w = hcl.placeholder((CLASSES, 64), "w_fc", dtype=WEIGHT)
    fc_b = hcl.placeholder((CLASSES,), "b_fc", dtype=ACT)

    def resnet20(image, *weights):
        tensors = {"image": image}
        for k, layer in enumerate(convs):
            buffer = plan[layer.name]
            into = tensors[buffer] if buffer != layer.name else None
            tensors[layer.name] = _conv(layer, tensors, weights[2 * k], weights[2 * k + 1], into)
        last = tensors[convs[-1].name]
        i = hcl.reduce_axis(0, 8, "i")
        j = hcl.reduce_axis(0, 8, "j")
        pool = hcl.compute((64,), lambda ch: hcl.sum(last[ch, i, j], axis=[i, j], dtype=POOL_ACC) >> 6,
                           name="pool", dtype=ACT)
        w, b = weights[-2], weights[-1]
        k = hcl.reduce_axis(0, 64, "k")
        return hcl.compute((CLASSES,), lambda o: hcl.sum(pool[k] * w[o, k], axis=k, dtype=ACC) + b[o],
                           name="fc", dtype=ACT)

    s = hcl.create_schedule([image, *params, fc_w, fc_b], resnet20, name="top")
    for k, layer in enumerate(convs):
        stage = getattr(resnet20, layer.name)
        lanes = ci_lanes(knobs, layer.cin)
        # axes co, y, x, ci (, r, c): pipeline ci, so a 3x3 conv's window r, c unrolls inside it;
        # with lanes > 1, ci splits and `lanes` channels' windows unroll inside the pipeline
        if lanes > 1:
            ci_outer, ci_inner = s[stage].split(stage.axis[3], lanes)
            s[stage].pipeline(ci_outer)
            s[stage].unroll(ci_inner)
            # the lanes' weights from `lanes` banks (channel ci lands in bank ci % lanes)
            s.partition(params[2 * k], hcl.Partition.Cyclic, dim=2, factor=lanes)
        else:
            s[stage].pipeline(stage.axis[3])
        if layer.kernel == 3:
            # the window's nine weights from nine RAMs, as the unrolled r and c read them
            s.partition(params[2 * k], hcl.Partition.Complete, dim=3)
            s.partition(params[2 * k], hcl.Partition.Complete, dim=4)
        if knobs.outline == "layer":
            s.outline(stage)
    if knobs.outline == "block":
        # a residual block's convs (and its projection) one function each: Stage_conv1, Stage_s1b1, ...
        blocks: dict[str, list] = {}
        for layer in convs:
            blocks.setdefault(layer.name.split("_")[0], []).append(getattr(resnet20, layer.name))
        s.outline(*blocks.values(), name=[f"Stage_{block}" for block in blocks])
    # the window's nine reads of a map land in six banks, at most two (its two ports) in one:
    # cyclic by 3 in y separates y*stride + r - 1 for r = 0, 1, 2 (stride 1 or 2 alike), cyclic by
    # 2 in x puts x*stride - 1 and x*stride + 1 together (9 banks would round up to more BRAM)
    # (a reused buffer once: the partition is the buffer's, whichever conv's map it holds); with
    # lanes > 1 the convs that read it take `lanes` channels at once, from as many channel banks
    windowed = {"image" if layer.src == "image" else plan[layer.src] for layer in convs if layer.kernel == 3}
    for name in sorted(windowed):
        source = image if name == "image" else getattr(resnet20, name)
        s.partition(source, hcl.Partition.Cyclic, dim=2, factor=3)
        s.partition(source, hcl.Partition.Cyclic, dim=3, factor=2)
        channels = IMAGE[0] if name == "image" else next(c.cout for c in convs if c.name == name)
        if ci_lanes(knobs, channels) > 1:
            s.partition(source, hcl.Partition.Cyclic, dim=1, factor=ci_lanes(knobs, channels))
    for stage in (resnet20.pool, resnet20.fc):
        s[stage].pipeline(stage.axis[-1])
        s.outline(stage)
    return s


def ci_lanes(knobs, cin: int) -> int:
    """The input channels a conv reading a `cin`-channel map takes per pipeline iteration: the knob
    of its map width (lanes_16, lanes_32, lanes_64); conv1 reads the 3-channel image one at a time."""
    return knobs[f"lanes_{cin}"] if cin in (16, 32, 64) else 1


def inputs(rng):
    """An image in [-1, 1) and random folded conv + BN parameters (He-scaled), all on the fixed grid."""
    def on_grid(values, frac, bits):
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        return np.clip(np.floor(values * 2**frac), lo, hi) / 2**frac

    arrays = [on_grid(rng.uniform(-1, 1, IMAGE), ACT_FRAC, 16)]
    for layer in layers():
        fan_in = layer.cin * layer.kernel * layer.kernel
        # the second conv of a block starts smaller, so the residual sum stays in range
        scale = 0.5 if layer.name.endswith("_b") else 1.0
        std = scale * np.sqrt(2.0 / fan_in)
        arrays.append(on_grid(rng.normal(0, std, (layer.cout, layer.cin, layer.kernel, layer.kernel)),
                              WEIGHT_FRAC, 8))
        arrays.append(on_grid(rng.normal(0, 0.1, layer.cout), ACT_FRAC, 16))
    arrays.append(on_grid(rng.normal(0, np.sqrt(1.0 / 64), (CLASSES, 64)), WEIGHT_FRAC, 8))
    arrays.append(on_grid(rng.normal(0, 0.1, CLASSES), ACT_FRAC, 16))
    return arrays


# ---- the numpy model: raw fixed-point bits in int64 ------------------------------------------


def _raw(values, frac):
    return np.round(np.asarray(values, dtype=np.float64) * 2**frac).astype(np.int64)


def _wrap(raw, bits):
    return ((raw + (1 << (bits - 1))) & ((1 << bits) - 1)) - (1 << (bits - 1))


def _conv_raw(layer: Conv, src, w, b, shortcut):
    """Integer conv: Fixed(32, 14) sum (wraps at 32 bits), + bias and shortcut, ReLU, floor to Fixed(16, 8)."""
    pad = layer.kernel // 2
    padded = np.pad(src, ((0, 0), (pad, pad), (pad, pad)))
    n, s = layer.out_size, layer.stride
    acc = np.zeros((layer.cout, n, n), dtype=np.int64)
    for r in range(layer.kernel):
        for c in range(layer.kernel):
            window = padded[:, r:r + s * n:s, c:c + s * n:s]
            acc += np.einsum("oc,chw->ohw", w[:, :, r, c], window)
    value = _wrap(acc, 32) + (b << (ACC_FRAC - ACT_FRAC))[:, None, None]
    if shortcut is not None:
        value = value + (shortcut << (ACC_FRAC - ACT_FRAC))
    if layer.relu:
        value = np.where(value > 0, value, 0)
    return _wrap(value >> (ACC_FRAC - ACT_FRAC), 16)


def model(image, *weights):
    """numpy model of the logits, bit-exact: the same integer arithmetic as ap_fixed."""
    tensors = {"image": _raw(image, ACT_FRAC)}
    for k, layer in enumerate(layers()):
        w, b = _raw(weights[2 * k], WEIGHT_FRAC), _raw(weights[2 * k + 1], ACT_FRAC)
        shortcut = tensors[layer.shortcut] if layer.shortcut else None
        tensors[layer.name] = _conv_raw(layer, tensors[layer.src], w, b, shortcut)
    last = tensors[layers()[-1].name]
    pool = _wrap(_wrap(last.sum(axis=(1, 2)), 24) >> 6, 16)
    w, b = _raw(weights[-2], WEIGHT_FRAC), _raw(weights[-1], ACT_FRAC)
    logits = _wrap(w @ pool, 32) + (b << (ACC_FRAC - ACT_FRAC))
    return _wrap(logits >> (ACC_FRAC - ACT_FRAC), 16) / 2**ACT_FRAC
