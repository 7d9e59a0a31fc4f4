"""The QoR estimate's BRAM of a function's local arrays (issue 33): a user's partitions are the
banks Vitis builds, each bank as deep as its shape's rounded-up parts; an array the function only
passes from one call to the next is one RAM (Vitis has no access of its own to partition it by)."""

from __future__ import annotations

import hclbuild as hcl
from hclbuild.compiler.estimate import estimate_module
from hclbuild.compiler.pipeline import compile_schedule

PART = "xczu9eg-ffvb1156-2-i"


def _top_bram(partition: tuple[int, int] | None) -> int:
    """A top computing a 32x16x16 int16 map (an outlined stage) that another stage reduces."""
    hcl.init(hcl.Int(16))
    a = hcl.placeholder((32, 16, 16), "a")

    def top(a):
        fmap = hcl.compute((32, 16, 16), lambda c, y, x: a[c, y, x] + 1, "fmap")
        k = hcl.reduce_axis(0, 16, "k")
        return hcl.compute((32, 16), lambda c, y: hcl.sum(fmap[c, y, k], axis=k), "rows")

    s = hcl.create_schedule([a], top, name="top")
    if partition:
        s.partition(top.fmap, hcl.Partition.Cyclic, dim=2, factor=partition[0])
        s.partition(top.fmap, hcl.Partition.Cyclic, dim=3, factor=partition[1])
    s.outline(top.fmap)
    s.outline(top.rows)
    module = compile_schedule(s).module
    return estimate_module(module, part=PART, clock_ns=5.0, vitis_version="2023.2")["top"].resources.BRAM_18K


def test_a_buffer_passed_between_calls_is_one_ram() -> None:
    # 8192 x 16 bits: 8 blocks of 1024 x 18, not 32 rows of 256 words as if Vitis split it (rows,
    # the result, is an argument: a port)
    assert _top_bram(None) == 8


def test_a_partitioned_buffer_has_the_users_banks_at_their_rounded_up_depth() -> None:
    # cyclic 3 x 3: nine banks of 32 x 6 x 6 = 1152 words (a third of 16 is 6 rows at most), two
    # blocks each; 8192 / 9 = 911 words would have fit one
    assert _top_bram((3, 3)) == 9 * 2
    # cyclic 3 x 2: six banks of 32 x 6 x 8 = 1536 words, two blocks each
    assert _top_bram((3, 2)) == 6 * 2
