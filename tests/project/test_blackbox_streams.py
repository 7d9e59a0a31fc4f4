"""A top assembled from blackboxes (top_assembly = "blackbox") whose functions pass a stream: the
whole path compile -> reference -> csim -> csynth of each function -> blackbox JSON with FIFO ports
-> csynth and cosim of the top, with the stand-in tools of tests/fake_vitis (no Vitis runs)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from vitis_helpers import stand_in_project, synthesized

from hclbuild.cli import run_doit
from hclbuild.project.layout import BuildLayout

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the stand-in tools are POSIX executables")

STREAMED = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        doubled = hcl.compute((8,), lambda i: A[i] * 2, name="doubled")
        return hcl.compute((8,), lambda i: doubled[i] + 3, name="shifted")

    s = hcl.create_schedule([A], kernel, name="top")
    s.to(kernel.doubled, s[kernel.shifted], depth=4)
    s.outline(kernel.doubled)
    s.outline(kernel.shifted)
    return s

def model(A):
    return (A * 2 + 3).astype(np.int32)
"""


@pytest.mark.slow
@pytest.mark.parametrize("tool", ["vitis_hls", "v++"])
def test_blackbox_functions_joined_by_a_stream(fake_vitis, tmp_path: Path, tool: str) -> None:
    folder = stand_in_project(
        fake_vitis,
        tmp_path / "projects" / "fifo",
        STREAMED,
        f'[hls]\ntool = "{tool}"\ntop_assembly = "blackbox"\n',
    )
    build = tmp_path / "build"
    assert run_doit(["csim", "cosim", "report"], [folder], build) == 0
    layout = BuildLayout(build, "fifo")
    for func in ("top", "Stage_doubled", "Stage_shifted"):
        assert json.loads(layout.csim_json(func).read_text())["pass"] is True
        assert layout.cosim_result(func).is_file()
    # the stream is a FIFO of each blackbox: written by one, read by the other
    writer = json.loads(layout.blackbox_json("top", "Stage_doubled").read_text())["c_parameters"]
    reader = json.loads(layout.blackbox_json("top", "Stage_shifted").read_text())["c_parameters"]
    assert (
        writer[0]["c_name"] == "A" and writer[0]["RAM_type"] == "RAM_1P"
    )  # (the stand-in's RAMs are read-write)
    assert writer[1:] == [
        {
            "c_name": "doubled",
            "c_port_direction": "out",
            "rtl_ports": {
                "FIFO_data_write_out": "doubled_din",
                "FIFO_full_flag": "doubled_full_n",
                "FIFO_write_enable": "doubled_write",
            },
        }
    ]
    assert reader[0] == {
        "c_name": "doubled",
        "c_port_direction": "in",
        "rtl_ports": {
            "FIFO_data_read_in": "doubled_dout",
            "FIFO_empty_flag": "doubled_empty_n",
            "FIFO_read_enable": "doubled_read",
        },
    }
    # the top holds the stream between the two RTL modules, in a dataflow region
    top_cpp = layout.hls_cpp("top").read_text()
    assert "  hls::stream<int32_t> doubled;\n  #pragma HLS stream variable=doubled depth=4\n" in top_cpp
    assert "#pragma HLS dataflow" in top_cpp and top_cpp.count("#ifndef HCLBUILD_RTL_BLACKBOX") == 2
    for func in ("Stage_doubled", "Stage_shifted"):
        assert "#pragma HLS interface mode=ap_fifo port=doubled" in layout.hls_cpp(func).read_text()
    # each function synthesized once, before the top (the stand-in refuses a top without their JSON)
    synthesizing = synthesized(fake_vitis.calls())
    assert sorted(synthesizing) == ["Stage_doubled", "Stage_shifted", "top"] and synthesizing[-1] == "top"
