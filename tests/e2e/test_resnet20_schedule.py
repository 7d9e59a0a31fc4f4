"""ResNet-20's schedule (projects/resnet20): each 3x3 conv pipelines its input-channel loop with the
3x3 window unrolled inside, its weights and input map partitioned to match, so that no pipelined
loop is limited by ports or a recurrence; the top reuses 6 map buffers for its 21 convs; its csim
stays bit-exact (tests/e2e/test_examples.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler.pipeline import compile_schedule
from hclbuild.compiler.port_limits import port_limited_loops
from hclbuild.compiler.recurrence_limits import recurrence_limited_loops
from hclbuild.project.config import load_project
from hclbuild.project.estimation import EstimateTarget, estimate_records
from hclbuild.project.kernel import kernel_schedule

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def config():
    return load_project(REPO / "projects" / "resnet20")


@pytest.fixture(scope="module")
def design(config):
    return compile_schedule(kernel_schedule(config))


def _function(design, name: str) -> ir.Operation:
    with design.module.context:
        return next(
            op.operation
            for op in design.module.body.operations
            if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name
        )


@pytest.mark.slow
def test_every_pipelined_loop_of_resnet20_meets_its_ii(design) -> None:
    assert len(design.outlined) == 23  # 21 convs, the pool and the dense layer, besides the top
    assert port_limited_loops(design.module) == []
    assert recurrence_limited_loops(design.module) == []


@pytest.mark.slow
def test_a_3x3_conv_pipelines_ci_with_its_window_unrolled_and_partitioned(design) -> None:
    func = _function(design, "Stage_s2b1_a")
    text = str(func)
    with design.module.context:
        partitions = [[attrs.format_partition(p) for p in arg] for arg in attrs.arg_partitions(func) or []]
    names = attrs.arg_names(func)
    assert dict(zip(names or [], partitions)) == {
        # s1b3_b's map, in the buffer conv1 first wrote: y*2 + r - 1 in three banks, x*2 + c - 1
        # in two (x*2 - 1 and x*2 + 1 share one, on its two ports): six banks
        "conv1": ["cyclic:2:3", "cyclic:3:2"],
        "w_s2b1_a": ["complete:3:0", "complete:4:0"],  # the window's nine weights: nine registers
        "b_s2b1_a": [],
        "s2b1_a": ["cyclic:2:3", "cyclic:3:2"],  # read by s2b1_b's window in turn
    }
    # the one pipelined loop is ci; r and c inside it are unrolled by the pipeline
    assert re.findall(r'hcl.loop_name = "(\w+)", hcl.pipeline_ii = 1', text) == ["ci"]


@pytest.mark.slow
def test_the_top_keeps_six_map_buffers_for_its_21_convs(design) -> None:
    text = str(_function(design, "top"))
    maps = re.findall(
        r'hcl.name = "(\w+)", hcl.partition = \["cyclic:2:3", "cyclic:3:2"\]\} : memref<(\w+)xi16>', text
    )
    assert maps == [
        ("conv1", "16x32x32"), ("s1b1_a", "16x32x32"),
        ("s2b1_a", "32x16x16"), ("s2b1_proj", "32x16x16"),
        ("s3b1_a", "64x8x8"), ("s3b1_proj", "64x8x8"),
    ]  # fmt: skip
    # s1b1_b adds conv1 (its shortcut) in place; s1b2_a writes over s1b1_a's map, read by s1b1_b
    assert re.search(r"call @Stage_s1b1_b\(%alloc_0, %arg\d+, %arg\d+, %alloc\)", text)
    assert re.search(r"call @Stage_s1b2_a\(%alloc, %arg\d+, %arg\d+, %alloc_0\)", text)


@pytest.mark.slow
def test_resnet20s_estimate_latency_and_bram(config, design) -> None:
    records = estimate_records(design.module, EstimateTarget.of(config.config))
    top = records["top"]
    # issue 33: 43,248,693 cycles and 197 BRAM18 before the schedule; 16,215,093 and 296 with the
    # conv schedule alone (21 maps in 9 banks each); the 6 reused buffers in 6 banks: 73
    # (2 x 6 x 3 blocks of 16x11x16 words, 2 x 6 x 2 of 32x6x8, 2 x 6 x 1 of 64x3x4, and pool's 1)
    assert top["latency_max"] == 16_215_093
    assert top["resources"]["BRAM_18K"] == 73
    assert top["resources"]["DSP"] == 60
