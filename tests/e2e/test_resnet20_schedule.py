"""ResNet-20's schedule (projects/resnet20): each 3x3 conv pipelines its input-channel loop with the
3x3 window unrolled inside, its weights and input map partitioned to match, so that no pipelined
loop is limited by ports or a recurrence; its csim stays bit-exact (tests/e2e/test_examples.py)."""

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
from hclbuild.project.kernel import kernel_schedule

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def design():
    return compile_schedule(kernel_schedule(load_project(REPO / "projects" / "resnet20")))


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
        "s1b3_b": ["cyclic:2:3", "cyclic:3:3"],  # y*2 + r - 1 and x*2 + c - 1: nine banks
        "w_s2b1_a": ["complete:3:0", "complete:4:0"],  # the window's nine weights: nine registers
        "b_s2b1_a": [],
        "s2b1_a": ["cyclic:2:3", "cyclic:3:3"],  # read by s2b1_b's window in turn
    }
    # the one pipelined loop is ci; r and c inside it are unrolled by the pipeline
    assert re.findall(r'hcl.loop_name = "(\w+)", hcl.pipeline_ii = 1', text) == ["ci"]
