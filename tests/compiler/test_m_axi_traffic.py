"""m_axi traffic that can burst and is not dead (vitis flow): no copy-in of an argument the function
overwrites before reading it, loop-invariant loads out of pipelined loops, an argument read and
written in place (or at several places an iteration) streamed through a local copy; checked on the
emitted C++ of gemm and of every example project, and by csim."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from axi_traffic import axi_traffic, burst_violations
from emit_helpers import Call, func_op, parse_module, run_calls
from emitted_projects import PROJECTS, REPO, emit_projects

import hclbuild as hcl
from hclbuild.compiler.emit_hls import c_signature, default_interfaces, emit_function_files
from hclbuild.compiler.passes.hoist_invariant_loads import hoist_invariant_loads
from hclbuild.compiler.pipeline import compile_schedule
from hclbuild.project.config import load_project
from hclbuild.project.flow import compile_project, emit_function
from hclbuild.project.layout import BuildLayout
from hclbuild.project.reference import run_reference
from hclbuild.runtime.csim import run_csim


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def _vitis_files(module, func: str = "top") -> tuple[str, str]:
    signature = c_signature(func_op(module, func))
    return emit_function_files(module, func, default_interfaces(signature, "vitis"))


@pytest.fixture(scope="module")
def gemm_vitis(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("gemm") / "gemm"
    shutil.copytree(REPO / "projects" / "gemm", folder)
    toml = folder / "project.toml"
    toml.write_text(toml.read_text().replace("[hls]\n", '[hls]\nflow_target = "vitis"\n'))
    emitted = emit_projects(folder.parent / "build", [folder])
    return {f.func: f.cpp for f in emitted}


# ---- gemm ----------------------------------------------------------------------------------------


def test_gemm_prod_is_not_copied_in_since_its_init_nest_overwrites_it(gemm_vitis) -> None:
    lines = _lines(gemm_vitis["Stage_prod"])
    assert not any("l_prod_copy_in" in line for line in lines)  # 4,200 dead beats before
    assert "prod[i0_1][i1_1] = prod_local[i0_1][i1_1];" in lines  # written back whole
    assert "B_local[i0][i1] = B[i0][i1];" in lines  # B is read: still copied in


def test_gemm_reads_a_once_per_run_of_its_pipelined_loop(gemm_vitis) -> None:
    lines = _lines(gemm_vitis["Stage_prod"])
    pipelined = lines.index("l_prod_j_outer: for (int j_outer = 0; j_outer < 35; j_outer++) {")
    assert lines[pipelined - 1] == "float A_i_k = A[i][k];"
    assert [line for line in lines if re.search(r"= A\[", line)] == ["float A_i_k = A[i][k];"]
    assert "float v2 = A_i_k * B_local_k_v1;" in lines[pipelined:]


def test_gemm_c_streams_through_a_local_copy(gemm_vitis) -> None:
    lines = _lines(gemm_vitis["top"])
    assert "// C streams through C_local in bursts: loop l_scale_j reads and writes it in place" in lines
    scale = lines[lines.index("l_scale_j: for (int j = 0; j < 70; j++) {") :]
    assert "float C_local_i_j = C_local[i][j];" in scale and "C_local[i][j] = v0 + v1;" in scale
    assert not any("C[i][j]" in line for line in scale)
    assert "C_local[i0_1][i1_1] = C[i0_1][i1_1];" in lines and "C[i0_2][i1_2] = C_local[i0_2][i1_2];" in lines


def test_gemm_m_axi_ports_each_see_one_read_or_one_write_a_loop_iteration(gemm_vitis) -> None:
    for func, code in gemm_vitis.items():
        assert burst_violations(code, func) == []
    traffic = axi_traffic(gemm_vitis["Stage_prod"], "Stage_prod")
    assert {loop.label: loop.reads for loop in traffic["A"]} == {"l_prod_k": {"[i][k]": 1}}
    assert {loop.label for loop in traffic["prod"]} == {"l_prod_copy_out_1"}


def test_the_traffic_reader_sees_what_gemm_was_before() -> None:
    """The checker on the C++ the emitter wrote before this change: C in place, A in the pipeline."""
    before = """void top(float A[4][4], float C[4][4]) {
  #pragma HLS interface mode=m_axi port=A bundle=gmem_A depth=16 offset=slave
  #pragma HLS interface mode=m_axi port=C bundle=gmem_C depth=16 offset=slave
  l_s_i: for (int i = 0; i < 4; i++) {
    l_s_j: for (int j = 0; j < 2; j++) {
      #pragma HLS pipeline II=1
      l_s_u: for (int u = 0; u < 2; u++) {
        #pragma HLS unroll
        float v0 = A[i][0];
        float v1 = C[i][j * 2 + u];
        C[i][j * 2 + u] = v1 + v0;
      }
    }
  }
}
"""
    assert burst_violations(before, "top") == [
        "top: m_axi C in top/l_s_j: reads {'[i][j * 2 + u]': 2} writes {'[i][j * 2 + u]': 2}"
    ]


@pytest.mark.slow
def test_gemm_vitis_stays_bit_exact_to_the_reference(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "gemm"
    shutil.copytree(REPO / "projects" / "gemm", folder)
    toml = folder / "project.toml"
    toml.write_text(toml.read_text().replace("[hls]\n", '[hls]\nflow_target = "vitis"\n'))
    project = load_project(folder)
    layout = BuildLayout(tmp_path / "build", project.name)
    manifest = compile_project(project, layout)
    assert run_reference(project, layout).model_checked is True
    for func in manifest.design.functions:
        emit_function(project, layout, func)
        csim = run_csim(layout.hls_dir(func), layout.csim_json(func), project=project.name)
        assert csim.passed and csim.mismatches == 0 and csim.compared > 0, csim.summary


# ---- every project ------------------------------------------------------------------------------


@pytest.mark.slow
def test_no_m_axi_port_of_any_project_is_read_or_written_at_two_places_a_loop_iteration(
    tmp_path: Path,
) -> None:
    emitted = emit_projects(tmp_path, flow="vitis")
    assert {f.project for f in emitted} == {p.name for p in PROJECTS}
    problems = [p for f in emitted for p in burst_violations(f.cpp, f.func)]
    assert problems == []
    copies = sum(f.cpp.count("streams through") for f in emitted)
    assert copies > 5  # in-place updates (jacobi, seidel, gemm's C...) take the copies


# ---- copy-in kept where it is needed ----------------------------------------------------------------


def _partly_written():
    """B's first 8 elements are written, the other 8 keep what the caller passed."""
    A = hcl.placeholder((8,), "A")
    B = hcl.placeholder((16,), "B")

    def kernel(A, B):
        with hcl.for_(0, 8, name="i") as i:
            B[i] = A[i] + 1

    s = hcl.create_schedule([A, B], kernel)
    s.partition(B, hcl.Partition.Cyclic, dim=1, factor=2)
    return compile_schedule(s).module


def test_a_partly_written_output_is_still_copied_in(tmp_path: Path) -> None:
    module = _partly_written()
    cpp, header = _vitis_files(module)
    lines = _lines(cpp)
    assert "B_local[i0] = B[i0];" in lines and "B[i0_1] = B_local[i0_1];" in lines
    (tmp_path / "top.h").write_text(header)
    a, b = np.arange(8) * 3, np.arange(16) - 100
    (result,) = run_calls(cpp, [Call(c_signature(func_op(module, "top")), {"A": a, "B": b})], tmp_path)
    np.testing.assert_array_equal(result["B"], np.concatenate([a + 1, b[8:]]))


def _read_then_written():
    A = hcl.placeholder((8,), "A")
    B = hcl.placeholder((8,), "B")

    def kernel(A, B):
        hcl.update(B, lambda i: B[i] + A[i], name="acc")
        hcl.update(B, lambda i: A[i], name="over")

    s = hcl.create_schedule([A, B], kernel)
    s.partition(B, hcl.Partition.Cyclic, dim=1, factor=2)
    return compile_schedule(s).module


def test_an_argument_read_before_it_is_overwritten_is_copied_in() -> None:
    lines = _lines(_vitis_files(_read_then_written())[0])
    assert "B_local[i0] = B[i0];" in lines


# ---- the hoisting pass ----------------------------------------------------------------------------

HOIST = """
module {
  func.func @top(%A: memref<4x8xf32>, %W: memref<4x8xf32>, %F: memref<4xf32>) attributes {hcl.top, hcl.arg_names = ["A", "W", "F"], hcl.arg_types = ["float32", "float32", "float32"]} {
    affine.for %i = 0 to 4 {
      affine.for %j = 0 to 8 {
        %c1 = arith.constant 1 : index
        %k = arith.addi %i, %c1 : index
        %m = arith.subi %k, %c1 : index
        %a = memref.load %A[%m, %c1] : memref<4x8xf32>
        %w = memref.load %W[%i, %c1] : memref<4x8xf32>
        %b = memref.load %A[%i, %j] : memref<4x8xf32>
        %c = arith.cmpi sgt, %j, %c1 : index
        scf.if %c {
          %g = memref.load %A[%i, %c1] : memref<4x8xf32>
          memref.store %g, %F[%i] : memref<4xf32>
        }
        %s = arith.addf %a, %b : f32
        %t = arith.addf %s, %w : f32
        memref.store %t, %W[%i, %j] : memref<4x8xf32>
      } {hcl.loop_name = "j", hcl.pipeline_ii = 1 : i32}
    } {hcl.loop_name = "i", hcl.op_name = "S"}
    return
  }
}
"""


def test_only_invariant_loads_of_read_only_memory_leave_the_pipelined_loop() -> None:
    module = parse_module(HOIST)
    assert hoist_invariant_loads(module) == 1
    text = str(module)
    outer, pipelined = text.split("affine.for %arg4 = 0 to 8")
    # A[i][1] (through i + 1 - 1) moved with its index arithmetic; W is written, A[i][j] varies,
    # and the guarded load stays under its scf.if
    assert "memref.load %arg0[%1, %c1]" in outer
    assert pipelined.count("memref.load %arg0") == 2 and pipelined.count("memref.load %arg1") == 1
    assert module.operation.verify()


def test_a_pipelined_stage_root_keeps_its_loads() -> None:
    module = parse_module(
        HOIST.replace(
            '{hcl.loop_name = "i", hcl.op_name = "S"}',
            '{hcl.loop_name = "i", hcl.op_name = "S", hcl.pipeline_ii = 1 : i32}',
        ).replace('{hcl.loop_name = "j", hcl.pipeline_ii = 1 : i32}', '{hcl.loop_name = "j"}')
    )
    assert hoist_invariant_loads(module) == 0
