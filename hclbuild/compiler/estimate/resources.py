"""A function's resources, roughly: DSP from its operators, BRAM_18K from its local arrays, FF and
LUT from per-operator figures plus pipeline registers.

DSP: every operator instance of a pipelined loop (its unrolled lanes replicated) is a core of its
own; a sequential block's operators are counted once (Vitis shares them across states).
BRAM_18K: each bank of a local array (partitions split it; a local array the user did not partition
and Vitis partitions by itself is split along its first dimension, what the unrolled accesses of the
calibration kernels move along; a user's partition pragma is what Vitis implements) takes the fewest
18 Kb blocks of one of their shapes (16K x 1 ... 512 x 36) that hold it; a bank of fewer than 1024
bits is LUTs. A constant table only ever read at constant addresses (its reads folded into
constants, schedule.py) takes none: Vitis removes it. A bank's words are its shape's: a dimension of n split in f cyclic or block parts
holds ceil(n / f) of them in its largest bank (a 64x8x8 map cyclic by 3 in y and x has banks of
64x3x3 = 576 words, not 4096 / 9 = 456, and 576 x 16 bits still fit one block). Arguments are
ports: their memory is outside the function.
FF/LUT: per-core figures of the Floating-Point Operator and multiplier cores (UG1399 / the
calibration reports, orders of magnitude only) plus 32 bits of registers per pipeline stage.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Iterable

from hclbuild.compiler.estimate.records import Resources
from hclbuild.compiler.estimate.structure import Memory

_BRAM_SHAPES = ((16384, 1), (8192, 2), (4096, 4), (2048, 9), (1024, 18), (512, 36))
_CORE_LUT_FF = {
    "fadd": (210, 320), "fmul": (80, 150), "fdiv": (760, 1400), "fsqrt": (480, 850), "fexp": (900, 1000),
    "dadd": (700, 1100), "dmul": (200, 450), "ddiv": (3200, 6000), "dsqrt": (1900, 3500),
    "dexp": (2000, 2500), "fcvt": (200, 300), "fcmp": (70, 60),
}  # fmt: skip


def bram_18k(depth: int, width: int) -> int:
    """18 Kb blocks for one RAM of `depth` words of `width` bits; 0 for a small one (LUT RAM)."""
    if depth * width < 1024:
        return 0
    return min(math.ceil(depth / d) * math.ceil(width / w) for d, w in _BRAM_SHAPES)


def _parts_per_dim(memory: Memory, auto_partitioned: bool) -> list[int]:
    """How many parts each dimension is split in: the user's partitions, else Vitis' own split of
    the first dimension (when it partitions the array by itself), else none."""
    parts = [1] * len(memory.shape)
    if not memory.partitions:
        if auto_partitioned and parts:
            parts[0] = memory.shape[0]
        return parts
    for partition in memory.partitions:
        dims = range(len(memory.shape)) if partition.dim == 0 else [partition.dim - 1]
        for dim in dims:
            if dim < len(memory.shape):
                extent = memory.shape[dim]
                parts[dim] = extent if partition.kind == "complete" else min(partition.factor, extent)
    return parts


def memory_banks(memory: Memory, auto_partitioned: bool) -> int:
    return math.prod(_parts_per_dim(memory, auto_partitioned))


def bank_words(memory: Memory, auto_partitioned: bool) -> int:
    """Words of the largest bank: each dimension's extent over its parts, rounded up."""
    parts = _parts_per_dim(memory, auto_partitioned)
    return math.prod(math.ceil(extent / n) for extent, n in zip(memory.shape, parts)) if parts else 1


def local_bram(
    memories: Iterable[Memory], auto_partitioned: Callable[[Memory], bool], folded: Collection[Memory] = ()
) -> int:
    total = 0
    for memory in memories:
        if memory.argument or memory.registers or memory.stream or memory in folded:
            continue
        auto = auto_partitioned(memory)
        total += memory_banks(memory, auto) * bram_18k(bank_words(memory, auto), memory.width)
    return total


def core_lut_ff(operators: Counter[str]) -> tuple[int, int]:
    lut = ff = 0
    for kind, count in operators.items():
        if kind.startswith("mul"):
            core = (40, 90)
        elif kind.startswith("div"):
            width = int(kind[3:] or 32)
            core = (width * width + 100, width * width * 2)
        else:
            core = _CORE_LUT_FF.get(kind, (50, 50))
        lut += core[0] * count
        ff += core[1] * count
    return lut, ff


def function_resources(
    dsp: int,
    operators: Counter[str],
    memories: Iterable[Memory],
    auto_partitioned: Callable[[Memory], bool],
    pipeline_depths: list[int],
    loops: int,
    folded: Collection[Memory] = (),
) -> Resources:
    lut, ff = core_lut_ff(operators)
    ff += sum(32 * depth for depth in pipeline_depths) + 40 * loops + 60
    lut += 60 * loops + 80
    return Resources(DSP=dsp, BRAM_18K=local_bram(memories, auto_partitioned, folded), FF=ff, LUT=lut)


__all__ = ["bank_words", "bram_18k", "function_resources", "local_bram", "memory_banks"]
