"""ResNet-20's schedule (projects/resnet20): each 3x3 conv pipelines its input-channel loop with the
3x3 window unrolled inside, its weights and input map partitioned to match, so that no pipelined
loop is limited by ports or a recurrence; the top reuses 6 map buffers for its 21 convs; its csim
stays bit-exact (tests/e2e/test_examples.py). Its knobs ([explore]: input-channel lanes per map
width, a function per conv or per block) each reach the design, and a small sweep runs end to end."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler.pipeline import compile_schedule
from hclbuild.compiler.port_limits import port_limited_loops
from hclbuild.compiler.recurrence_limits import recurrence_limited_loops
from hclbuild.project.config import load_project
from hclbuild.project.estimation import EstimateTarget, estimate_records
from hclbuild.project.explore_points import at_point
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


def _estimate_at(project, **knobs) -> dict:
    """The top's estimate with the given knobs over project.toml's [knobs] (as explore's points)."""
    point = at_point(project, {**project.config.knobs, **knobs})
    design = compile_schedule(kernel_schedule(point))
    records = estimate_records(design.module, EstimateTarget.of(point.config))
    return {"functions": len(records) - 1, **records["top"]}


@pytest.mark.slow
def test_each_resnet20_knob_reaches_the_design(config) -> None:
    # [knobs] is the schedule above: one input channel an iteration, a function per conv
    assert config.config.knobs == {"lanes_16": 1, "lanes_32": 1, "lanes_64": 1, "outline": "layer"}
    base = _estimate_at(config)
    assert (base["latency_max"], base["functions"], base["resources"]["BRAM_18K"]) == (16_215_093, 23, 73)
    # two lanes of a map width: its convs take half the ci iterations a pixel (each pixel's fill
    # and drain stay), from maps and weights cut into twice the channel banks (the 32-channel maps'
    # 12 banks of 32x6x8 words round to the BRAM18 count of 6 banks of twice that)
    moved = {knob: _estimate_at(config, **{knob: 2}) for knob in ("lanes_16", "lanes_32", "lanes_64")}
    assert {
        knob: (top["latency_max"], top["resources"]["DSP"], top["resources"]["BRAM_18K"])
        for knob, top in moved.items()
    } == {
        "lanes_16": (15_297_589, 68, 85),
        "lanes_32": (15_428_661, 67, 73),
        "lanes_64": (15_559_733, 65, 85),
    }
    # a function per residual block: conv1, 9 blocks, the pool and fc; the same cycles
    blocks = _estimate_at(config, outline="block")
    assert blocks["functions"] == 12 and blocks["latency_max"] == base["latency_max"]
    assert blocks["resources"]["LUT"] != base["resources"]["LUT"]


@pytest.mark.slow
def test_a_small_resnet20_sweep_end_to_end(tmp_path: Path) -> None:
    folder = tmp_path / "resnet20"
    shutil.copytree(REPO / "projects" / "resnet20", folder)
    toml = (folder / "project.toml").read_text()
    explore_table = toml[toml.index("[explore]") : toml.index("[knobs]")]
    small = '[explore]\nlanes_16 = [1]\nlanes_32 = [1]\nlanes_64 = [1, 2]\noutline = ["layer", "block"]\n\n'
    (folder / "project.toml").write_text(toml.replace(explore_table, small))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "hclbuild.cli",
            "explore",
            str(folder),
            "--build-dir",
            str(tmp_path / "build"),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "resnet20: 4 of 4 points (every point), 4 evaluated now, 4 estimated, 0 failed" in proc.stdout
    points = json.loads((tmp_path / "build" / "resnet20" / "explore" / "points.json").read_text())["points"]
    latency = {point["key"]: point["latency"] for point in points}
    assert latency["lanes_16-1,lanes_32-1,lanes_64-1,outline-layer"] == 16_215_093  # the build's schedule
    assert latency["lanes_16-1,lanes_32-1,lanes_64-2,outline-layer"] < 16_215_093
    front = json.loads((tmp_path / "build" / "resnet20" / "explore" / "pareto.json").read_text())["front"]
    assert front[0]["knobs"]["lanes_64"] == 2  # the fastest point takes two channels a cycle
