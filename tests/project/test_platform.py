"""hcl.Platform: HeteroCL's build-to-project API (debug C++, csim through the project flow, Vitis
steps only where a tool is found) and s.to(tensor, platform device).

The Vitis stand-in records its argv and copies a checked-in csynth report; it tests our runner and
report reader, never pretends that a real synthesis ran.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest

import hclbuild as hcl
from hclbuild.errors import HCLNotImplementedError, ToolError

REPORT = Path(__file__).resolve().parents[1] / "data" / "reports" / "flat_undef_loops.csynth.xml"


def _schedule():
    A = hcl.placeholder((6, 4), "A")

    def kernel(A):
        B = hcl.compute((6, 4), lambda i, j: A[i, j] * 3, "B")
        return hcl.compute((6, 4), lambda i, j: B[i, j] + 1, "C")

    s = hcl.create_schedule([A], kernel)
    s[kernel.C].pipeline(kernel.C.axis[1])
    return s, kernel


@pytest.fixture
def no_vitis(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", os.path.dirname(os.path.realpath(os.sys.executable)) + ":/usr/bin:/bin")
    for var in ("XILINX_HLS", "XILINX_VITIS"):
        monkeypatch.delenv(var, raising=False)


def test_debug_mode_returns_the_hls_cpp():
    s, _ = _schedule()
    target = hcl.Platform.aws_f1
    target.config(compiler="vitis", mode="debug")
    code = hcl.build(s, target=target)
    assert code == hcl.build(s, target="vhls")
    assert "#pragma HLS pipeline II=1" in code


def test_sw_sim_mode_is_the_llvm_function(rng):
    s, _ = _schedule()
    f = hcl.build(s, target=hcl.Platform.xilinx_zc706.config(mode="sw_sim"))
    a = rng.integers(-9, 9, (6, 4), dtype=np.int32)
    c = np.zeros((6, 4), np.int32)
    f(a, c)
    np.testing.assert_array_equal(c, a * 3 + 1)


def test_csim_mode_writes_the_project_and_runs_gpp(tmp_path, rng):
    s, _ = _schedule()
    target = hcl.Platform.xilinx_zc706
    target.config(compiler="vivado_hls", mode="csim", project=str(tmp_path / "out.prj"))
    f = hcl.build(s, target=target)
    a = rng.integers(-9, 9, (6, 4), dtype=np.int32)
    c = np.zeros((6, 4), np.int32)
    f(a, c)
    np.testing.assert_array_equal(c, a * 3 + 1)
    top = tmp_path / "out.prj" / "top"
    assert (top / "hls" / "top" / "run_hls.tcl").is_file()
    result = json.loads((top / "csim" / "top.json").read_text())
    assert result["pass"] is True and result["compared"] == 48 and f.csim["top"].compared == 48


def test_csyn_mode_without_vitis_says_so(tmp_path, rng, no_vitis):
    s, _ = _schedule()
    target = hcl.Platform.xilinx_zc706
    target.config(compiler="vivado_hls", mode="csyn", project=str(tmp_path / "p"))
    f = hcl.build(s, target=target)
    a = rng.integers(-9, 9, (6, 4), dtype=np.int32)
    c = np.zeros((6, 4), np.int32)
    with pytest.raises(ToolError, match="no vitis_hls, vitis-run or v\\+\\+ was found"):
        f(a, c)
    np.testing.assert_array_equal(c, a * 3 + 1)  # csim ran and passed before
    with pytest.raises(ToolError, match="no csynth report"):
        f.report()


def test_csyn_mode_runs_the_tool_and_reads_its_report(tmp_path, rng, no_vitis, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "vitis_hls"
    tool.write_text(f"""#!/bin/sh
printf '%s\\n' "$@" > argv.txt
func=$(basename "$PWD")
mkdir -p "${{func}}_prj/solution1/syn/report"
cp {REPORT} "${{func}}_prj/solution1/syn/report/${{func}}_csynth.xml"
""")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    s, _ = _schedule()
    target = hcl.Platform.xilinx_zc706
    target.config(compiler="vivado_hls", mode="csyn", project=str(tmp_path / "p"))
    f = hcl.build(s, target=target)
    f(rng.integers(-9, 9, (6, 4), dtype=np.int32), np.zeros((6, 4), np.int32))
    argv = (tmp_path / "p" / "top" / "hls" / "top" / "argv.txt").read_text().split()
    assert argv == ["-f", "run_hls.tcl", "-tclargs", "csynth"]
    text = f.report().display(cols=["Pipeline II"])
    assert "Pipeline II" in text.splitlines()[0] and "3" in text


def test_s_to_a_device_records_data_movement():
    s, kernel = _schedule()
    target = hcl.Platform.aws_f1
    A = s.inputs[0]
    assert s.to(A, target.xcel, burst_len=16) is A
    moved = s.to([kernel.C], target.host)
    assert moved == [s["C"].stmt.output]
    assert s.data_movement[id(A)] == ("xcel", 16)
    assert s.data_movement[id(moved[0])] == ("host", None)


def test_burst_len_sets_the_m_axi_burst_lengths_in_the_vitis_flow(tmp_path, rng):
    s, kernel = _schedule()
    target = hcl.Platform.aws_f1
    target.config(compiler="vitis", mode="csim", project=str(tmp_path / "out.prj"))
    s.to(s.inputs[0], target.xcel, burst_len=64)
    s.to(kernel.C, target.host)  # no burst length: Vitis keeps its default
    f = hcl.build(s, target=target)
    a = rng.integers(-9, 9, (6, 4), dtype=np.int32)
    c = np.zeros((6, 4), np.int32)
    f(a, c)
    np.testing.assert_array_equal(c, a * 3 + 1)
    cpp = (tmp_path / "out.prj" / "top" / "hls" / "top" / "top.cpp").read_text()
    pragmas = [line.strip() for line in cpp.splitlines() if "interface" in line]
    assert pragmas == [
        "#pragma HLS interface mode=m_axi port=A bundle=gmem_A depth=24 offset=slave max_read_burst_length=64 "
        "max_write_burst_length=64",
        "#pragma HLS interface mode=m_axi port=C bundle=gmem_C depth=24 offset=slave",
        "#pragma HLS interface mode=s_axilite port=return",
    ]


def test_a_burst_longer_than_one_axi_burst_is_refused():
    s, _ = _schedule()
    with pytest.raises(
        hcl.APIError, match=r"s.to: burst_len 512 is longer than one AXI4 burst \(256 beats\)"
    ):
        s.to(s.inputs[0], hcl.Platform.aws_f1.xcel, burst_len=512)


def test_unsupported_targets_are_named():
    s, _ = _schedule()
    with pytest.raises(HCLNotImplementedError, match="'ihls'"):
        hcl.build(s, target="ihls")
    with pytest.raises(HCLNotImplementedError, match="aocl"):
        hcl.build(s, target=hcl.Platform.intel_vlab)
