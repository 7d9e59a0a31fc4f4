"""Interface pragmas of a top file, local copies of arguments whose port cannot be partitioned,
`inline off` on outlined callees and the guard around RTL-blackboxed bodies (exact C++ text, and
the C++ compiled and run against numpy)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from emit_helpers import Call, compile_cpp, func_op, parse_module, run_calls
from kernels import row_sum_times_b

import hclbuild as hcl
from hclbuild.compiler.emit_hls import (
    blackbox_interfaces,
    c_signature,
    default_interfaces,
    emit_function_files,
    override_interfaces,
)
from hclbuild.compiler.emit_hls.c_types import CArg, CSignature
from hclbuild.compiler.pipeline import compile_schedule
from hclbuild.errors import ConfigError, HCLNotImplementedError
from hclbuild.hls_interface import STREAM_MODES_BY_FLOW
from hclbuild.project.config import ProjectConfig
from hclbuild.project.interfaces import function_interfaces


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def _design(partition_a: bool = False, outline: bool = False):
    """P[i] = sum_k A[i, k] * B[i], with S = the row sums (outlined when asked)."""
    s, kernel = row_sum_times_b()
    if partition_a:
        s.partition(s.inputs[0], hcl.Partition.Cyclic, dim=2, factor=2)
    if outline:
        s.outline(kernel.S)
    return compile_schedule(s).module


def _top_files(module, flow_target: str = "vivado", blackboxes=(), overrides=None) -> tuple[str, str]:
    signature = c_signature(func_op(module, "top"))
    interfaces = default_interfaces(signature, flow_target)
    if overrides:
        interfaces = override_interfaces(interfaces, signature, overrides, "demo: project.toml [interface]")
    return emit_function_files(module, "top", interfaces, blackboxes)


def _body(code: str, prototype: str) -> list[str]:
    lines = _lines(code)
    start = lines.index(prototype + " {")
    return lines[start + 1 :]


def _run_top(cpp: str, header: str, module, tmp_path: Path, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    (tmp_path / "top.h").write_text(header)
    signature = c_signature(func_op(module, "top"))
    (result,) = run_calls(cpp, [Call(signature, {"A": a, "B": b, "P": np.zeros(16, np.int64)})], tmp_path)
    return result["P"]


A_VALUES = np.arange(128).reshape(16, 8) % 7 - 3
B_VALUES = np.arange(16) % 5 - 2
P_EXPECTED = A_VALUES.sum(axis=1) * B_VALUES

TOP = "void top(int32_t A[16][8], int32_t B[16], int32_t P[16])"


def test_vivado_top_gets_ap_memory_ports_and_ap_ctrl_hs() -> None:
    cpp, _ = _top_files(_design())
    assert _body(cpp, TOP)[:4] == [
        "#pragma HLS interface mode=ap_memory port=A",
        "#pragma HLS interface mode=ap_memory port=B",
        "#pragma HLS interface mode=ap_memory port=P",
        "#pragma HLS interface mode=ap_ctrl_hs port=return",
    ]


def test_vitis_top_gets_one_m_axi_bundle_per_argument_sized_for_cosim() -> None:
    cpp, _ = _top_files(_design(), "vitis")
    assert _body(cpp, TOP)[:4] == [
        "#pragma HLS interface mode=m_axi port=A bundle=gmem_A depth=128 offset=slave",
        "#pragma HLS interface mode=m_axi port=B bundle=gmem_B depth=16 offset=slave",
        "#pragma HLS interface mode=m_axi port=P bundle=gmem_P depth=16 offset=slave",
        "#pragma HLS interface mode=s_axilite port=return",
    ]


SCALAR_MODULE = """
module {
  func.func @scale(%x: memref<4xf32>, %k: f32) attributes {hcl.top, hcl.arg_names = ["x", "k"],
      hcl.arg_types = ["float32", "float32"]} {
    affine.for %i = 0 to 4 {
      %v = affine.load %x[%i] : memref<4xf32>
      %w = arith.mulf %v, %k : f32
      affine.store %w, %x[%i] : memref<4xf32>
    } {hcl.loop_name = "i", hcl.op_name = "x"}
    return
  }
}
"""


@pytest.mark.parametrize(
    ("flow_target", "expected"),
    [
        (
            "vivado",
            [
                "#pragma HLS interface mode=ap_memory port=x",
                "#pragma HLS interface mode=ap_none port=k",
                "#pragma HLS interface mode=ap_ctrl_hs port=return",
            ],
        ),
        (
            "vitis",
            [
                "#pragma HLS interface mode=m_axi port=x bundle=gmem_x depth=4 offset=slave",
                "#pragma HLS interface mode=s_axilite port=k",
                "#pragma HLS interface mode=s_axilite port=return",
            ],
        ),
    ],
)
def test_scalar_arguments_follow_the_flow_target(flow_target: str, expected: list[str]) -> None:
    module = parse_module(SCALAR_MODULE)
    signature = c_signature(func_op(module, "scale"))
    cpp, _ = emit_function_files(module, "scale", default_interfaces(signature, flow_target))
    assert _body(cpp, "void scale(float x[4], float k)")[:3] == expected


def test_project_overrides_change_one_argument_each() -> None:
    cpp, _ = _top_files(
        _design(),
        "vivado",
        overrides={
            "A": {"protocol": "m_axi", "bundle": "shared", "max_widen_bitwidth": 256, "latency": 8},
            "B": {"protocol": "m_axi", "bundle": "shared", "depth": 64},
            "P": {"protocol": "bram", "latency": 2},
        },
    )
    assert _body(cpp, TOP)[:4] == [
        (
            "#pragma HLS interface mode=m_axi port=A bundle=shared depth=128 offset=slave latency=8 "
            "max_widen_bitwidth=256"
        ),
        "#pragma HLS interface mode=m_axi port=B bundle=shared depth=64 offset=slave",
        "#pragma HLS interface mode=bram port=P latency=2",
        "#pragma HLS interface mode=ap_ctrl_hs port=return",
    ]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            {"C": {"latency": 1}},
            r"^demo: project.toml \[interface\]: @top has no argument 'C' \(arguments: A, B, P\)$",
        ),
        ({"A": {"depth": 4}}, r"argument A of @top: depth applies to m_axi interfaces, not ap_memory$"),
        (
            {"B": {"protocol": "ap_none"}},
            r"argument B of @top: protocol 'ap_none' cannot carry an array argument",
        ),
        (
            {
                "P": {"protocol": "m_axi", "offset": "direct", "bundle": "x"},
                "A": {"protocol": "s_axilite", "latency": 1},
            },
            r"argument A of @top: latency applies to m_axi and ap_memory and bram interfaces, not s_axilite$",
        ),
    ],
)
def test_overrides_that_do_not_fit_are_config_errors(overrides: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _top_files(_design(), overrides=overrides)


def test_overrides_name_the_arguments_as_the_user_did_when_c_renames_them() -> None:
    """A placeholder "int" is int_1 in C: [interface.int] had been refused ("@top has no argument
    'int' (arguments: int_1, float_1)"), names the user never wrote."""
    A = hcl.placeholder((4,), "int")
    s = hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: A[i] + 1, "float"))
    module = compile_schedule(s).module
    cpp, _ = _top_files(module, "vitis", overrides={"int": {"bundle": "gmemx"}, "float": {"bundle": "gout"}})
    assert "#pragma HLS interface mode=m_axi port=int_1 bundle=gmemx depth=4 offset=slave" in _lines(cpp)
    assert "#pragma HLS interface mode=m_axi port=float_1 bundle=gout depth=4 offset=slave" in _lines(cpp)
    with pytest.raises(ConfigError, match=r"@top has no argument 'int_1' \(arguments: int, float\)$"):
        _top_files(module, "vitis", overrides={"int_1": {"bundle": "x"}})


def test_scalar_cannot_be_m_axi() -> None:
    module = parse_module(SCALAR_MODULE)
    signature = c_signature(func_op(module, "scale"))
    with pytest.raises(
        ConfigError, match="argument k of @scale: protocol 'm_axi' cannot carry a scalar argument"
    ):
        override_interfaces(default_interfaces(signature), signature, {"k": {"protocol": "m_axi"}}, "p")


def test_partitioned_m_axi_argument_is_read_into_a_partitioned_local_copy(tmp_path: Path) -> None:
    module = _design(partition_a=True)
    cpp, header = _top_files(module, "vitis")
    body = _body(cpp, TOP)
    assert body[4:11] == [
        "int32_t A_local[16][8];",
        "#pragma HLS array_partition variable=A_local type=cyclic factor=2 dim=2",
        "l_A_copy_in_0: for (int i0 = 0; i0 < 16; i0++) {",
        "l_A_copy_in_1: for (int i1 = 0; i1 < 8; i1++) {",
        "#pragma HLS pipeline II=1",
        "A_local[i0][i1] = A[i0][i1];",
        "}",
    ]
    assert not any("array_partition variable=A " in line for line in body)
    assert "int32_t A_local_i_k = A_local[i][k];" in body
    assert not any("copy_out" in line for line in body)  # A is only read
    assert (_run_top(cpp, header, module, tmp_path, A_VALUES, B_VALUES) == P_EXPECTED).all()


def test_partitioned_ap_memory_argument_stays_partitioned_in_place() -> None:
    body = _body(_top_files(_design(partition_a=True))[0], TOP)
    assert body[4] == "#pragma HLS array_partition variable=A type=cyclic factor=2 dim=2"
    assert not any("A_local" in line for line in body)


def _in_place():
    hcl.init(hcl.Float())
    C = hcl.placeholder((6, 4), "C")

    def kernel(C):
        hcl.update(C, lambda i, j: C[i, j] * 2.0 + 1.0, name="scale")

    s = hcl.create_schedule([C], kernel)
    s[kernel.scale].pipeline(kernel.scale.axis[1])
    s.partition(C, hcl.Partition.Cyclic, dim=2, factor=2)
    return compile_schedule(s).module


def test_written_m_axi_argument_is_copied_back_after_the_body(tmp_path: Path) -> None:
    module = _in_place()
    signature = c_signature(func_op(module, "top"))
    cpp, header = emit_function_files(module, "top", default_interfaces(signature, "vitis"))
    body = _body(cpp, "void top(float C[6][4])")
    copy_out = body.index("l_C_copy_out_0: for (int i0_1 = 0; i0_1 < 6; i0_1++) {")
    assert body.index("l_C_copy_in_0: for (int i0 = 0; i0 < 6; i0++) {") < copy_out
    assert body[copy_out + 3] == "C[i0_1][i1_1] = C_local[i0_1][i1_1];"
    (tmp_path / "top.h").write_text(header)
    values = np.linspace(-1, 1, 24, dtype=np.float32).reshape(6, 4)
    (result,) = run_calls(cpp, [Call(signature, {"C": values})], tmp_path)
    np.testing.assert_array_equal(result["C"], values * np.float32(2) + np.float32(1))


def test_outlined_callee_keeps_its_hierarchy_and_gets_no_interface() -> None:
    cpp, _ = _top_files(_design(outline=True), "vitis")
    stage = _body(cpp, "void Stage_S(int32_t A[16][8], int32_t S[16])")
    assert stage[0] == "#pragma HLS inline off"
    assert not any("interface" in line for line in stage[: stage.index("}")])


def test_blackboxed_body_is_the_csim_model_only(tmp_path: Path) -> None:
    module = _design(outline=True)
    cpp, header = _top_files(module, "vivado", blackboxes=["Stage_S"])
    lines = _lines(cpp)
    start = lines.index("#ifndef HCLBUILD_RTL_BLACKBOX")
    assert lines[start + 1 : start + 3] == [
        "// the C model of Stage_S for csim: synthesis takes its RTL (an RTL blackbox)",
        "void Stage_S(int32_t A[16][8], int32_t S[16]) {",
    ]
    assert lines.index("#endif  // HCLBUILD_RTL_BLACKBOX") < lines.index(TOP + " {")
    assert "void Stage_S(int32_t A[16][8], int32_t S[16]);" in lines  # the prototype the top calls
    # plain g++ (our csim) sees the body and computes the right answer
    assert (_run_top(cpp, header, module, tmp_path, A_VALUES, B_VALUES) == P_EXPECTED).all()
    # with the macro Vitis defines, the top's file leaves Stage_S to the RTL (here: undefined)
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm is not installed")
    compile_cpp(
        [tmp_path / "kernel.cpp"],
        tmp_path / "top.o",
        needs_ap=False,
        extra=("-c", "-DHCLBUILD_RTL_BLACKBOX", f"-I{tmp_path}"),
    )
    symbols = subprocess.run(
        [nm, "-C", str(tmp_path / "top.o")], capture_output=True, text=True, check=True
    ).stdout
    kinds = re.findall(r"^\s*[0-9a-f]*\s+([A-Za-z])\s+Stage_S\(", symbols, re.MULTILINE)
    assert kinds == ["U"], symbols


def test_blackbox_function_has_block_ports_and_copies_its_partitioned_argument() -> None:
    module = _design(partition_a=True, outline=True)
    signature = c_signature(func_op(module, "Stage_S"))
    cpp, _ = emit_function_files(module, "Stage_S", blackbox_interfaces(signature))
    body = _body(cpp, "void Stage_S(int32_t A[16][8], int32_t S[16])")
    assert body[:5] == [
        "#pragma HLS interface mode=ap_memory port=A",
        "#pragma HLS interface mode=ap_memory port=S",
        "#pragma HLS interface mode=ap_ctrl_chain port=return",
        "int32_t A_local[16][8];",
        "#pragma HLS array_partition variable=A_local type=cyclic factor=2 dim=2",
    ]


def test_arrays_passed_to_a_blackbox_stay_one_ram_in_the_top() -> None:
    module = _design(partition_a=True, outline=True)
    body = _body(_top_files(module, "vivado", blackboxes=["Stage_S"])[0], TOP)
    assert body[4] == (
        "// A is not partitioned here: it goes whole to the RTL blackbox Stage_S, one RAM port (UG1399)"
    )
    assert not any(line.startswith("#pragma HLS array_partition") for line in body)
    vitis = _body(_top_files(module, "vitis", blackboxes=["Stage_S"])[0], TOP)
    # an m_axi argument reaches the blackbox through a local copy, unpartitioned
    assert vitis[4:6] == [
        "int32_t A_local[16][8];",
        "// A_local is not partitioned here: it goes whole to the RTL blackbox Stage_S",
    ]
    assert "Stage_S(A_local, S);" in vitis


SHARED_MODULE = """
module {
  func.func private @helper(%x: memref<4xi32>) attributes {hcl.def, hcl.arg_names = ["x"], hcl.arg_types = ["int32"]} {
    return
  }
  func.func private @Stage_X(%x: memref<4xi32>) attributes {hcl.outlined, hcl.stages = ["X"],
      hcl.arg_names = ["x"], hcl.arg_types = ["int32"]} {
    func.call @helper(%x) : (memref<4xi32>) -> ()
    return
  }
  func.func @top(%x: memref<4xi32>) attributes {hcl.top, hcl.arg_names = ["x"], hcl.arg_types = ["int32"]} {
    func.call @Stage_X(%x) {hcl.stages = ["X"]} : (memref<4xi32>) -> ()
    func.call @helper(%x) : (memref<4xi32>) -> ()
    return
  }
}
"""


def test_callee_shared_by_the_top_and_a_blackbox_is_refused() -> None:
    module = parse_module(SHARED_MODULE)
    with pytest.raises(
        HCLNotImplementedError, match="@helper is called both by the top's own code and by an RTL"
    ):
        emit_function_files(module, "top", blackboxes=["Stage_X"])
    cpp, _ = emit_function_files(module, "top")  # without blackboxes nothing is shared
    assert _lines(cpp).count("void helper(int32_t x[4]) {") == 1


STREAMED = CSignature(
    "Stage_blur",
    [
        CArg("gray", "int32_t", "int32", (8,), True, stream="read"),
        CArg("blur", "int32_t", "int32", (8,), True, stream="write"),
        CArg("k", "int32_t", "int32", (), False),
    ],
    None,
)


@pytest.mark.parametrize(("flow_target", "mode"), [("vivado", "ap_fifo"), ("vitis", "axis")])
def test_stream_arguments_get_their_flows_default_port(flow_target: str, mode: str) -> None:
    pragmas = default_interfaces(STREAMED, flow_target).pragmas()
    assert pragmas[:2] == [
        f"#pragma HLS interface mode={mode} port=gray",
        f"#pragma HLS interface mode={mode} port=blur",
    ]


def test_a_stream_argument_takes_the_stream_protocols_of_its_flow_only() -> None:
    vivado = override_interfaces(default_interfaces(STREAMED), STREAMED, {"blur": {"protocol": "axis"}}, "p")
    assert [arg.mode for arg in vivado.args] == ["ap_fifo", "axis", "ap_none"]
    vitis = default_interfaces(STREAMED, "vitis")
    with pytest.raises(
        ConfigError,
        match=r"^p, argument gray of @Stage_blur: protocol 'ap_fifo' cannot carry an "
        r"hls::stream argument \(expected one of axis\)$",
    ):
        override_interfaces(
            vitis, STREAMED, {"gray": {"protocol": "ap_fifo"}}, "p", STREAM_MODES_BY_FLOW["vitis"]
        )
    with pytest.raises(
        ConfigError,
        match=r"protocol 'ap_memory' cannot carry an hls::stream argument "
        r"\(expected one of ap_fifo, axis\)$",
    ):
        override_interfaces(default_interfaces(STREAMED), STREAMED, {"gray": {"protocol": "ap_memory"}}, "p")


def test_a_blackboxed_functions_stream_stays_a_fifo_port_in_the_vitis_flow() -> None:
    config = ProjectConfig(
        name="demo",
        flow_target="vitis",
        top_assembly="blackbox",
        interfaces={"Stage_blur": {"gray": {"protocol": "ap_fifo"}}},
    )
    interfaces = function_interfaces(config, "Stage_blur", "top", STREAMED)
    assert [arg.mode for arg in interfaces.args] == ["ap_fifo", "ap_fifo", "ap_none"]
    refused = ProjectConfig(
        name="demo",
        flow_target="vitis",
        top_assembly="blackbox",
        interfaces={"Stage_blur": {"gray": {"protocol": "axis"}}},
    )
    with pytest.raises(ConfigError, match="RTL blackbox of the top, whose ports can only be"):
        function_interfaces(refused, "Stage_blur", "top", STREAMED)


def test_an_m_axi_depth_below_the_element_count_is_refused() -> None:
    # cosim sizes the memory behind an m_axi port by its depth: 8 of A's 128 elements would be read past
    with pytest.raises(
        ConfigError,
        match=r"argument A of @top: m_axi depth 8 is less than the 128 elements of "
        r"int32_t A\[16\]\[8\] \(cosim would access past the end of its memory\)$",
    ):
        _top_files(_design(), overrides={"A": {"protocol": "m_axi", "depth": 8}})
    cpp, _ = _top_files(_design(), "vitis", overrides={"A": {"depth": 128}, "B": {"depth": 100}})
    assert "#pragma HLS interface mode=m_axi port=A bundle=gmem_A depth=128 offset=slave" in _lines(cpp)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"offset": "off"},
            "offset 'off': a Vitis kernel \\(flow_target = \"vitis\"\\) takes m_axi offset=slave only",
        ),
        ({"offset": "direct"}, "offset 'direct': a Vitis kernel"),
        (
            {"protocol": "ap_memory"},
            "protocol 'ap_memory': a Vitis kernel \\(flow_target = \"vitis\"\\) has only "
            "m_axi, s_axilite, axis ports",
        ),
        ({"protocol": "bram"}, "protocol 'bram': a Vitis kernel"),
        (
            {"protocol": "s_axilite", "bundle": "regs"},
            "s_axilite bundle 'regs': a Vitis kernel \\(flow_target = "
            '"vitis"\\) has one AXI4-Lite interface, control',
        ),
    ],
)
def test_a_vitis_kernel_takes_axi_ports_only(settings: dict, message: str) -> None:
    # XRT drives a kernel through one s_axilite interface and reaches its data over m_axi or axis
    signature = c_signature(func_op(_design(), "top"))
    vitis = ProjectConfig(name="demo", flow_target="vitis", interfaces={"top": {"A": settings}})
    with pytest.raises(
        ConfigError, match=rf"^demo: project.toml \[interface\], argument A of @top: {message}"
    ):
        function_interfaces(vitis, "top", "top", signature)
    vivado = ProjectConfig(name="demo", interfaces={"top": {"A": {"protocol": "m_axi", **settings}}})
    assert function_interfaces(vivado, "top", "top", signature).of("A").mode == settings.get(
        "protocol", "m_axi"
    )
    kernel = {"A": {"protocol": "s_axilite", "bundle": "control"}, "B": {"max_widen_bitwidth": 512}}
    ok = function_interfaces(
        ProjectConfig(name="demo", flow_target="vitis", interfaces={"top": kernel}), "top", "top", signature
    )
    assert [arg.mode for arg in ok.args] == ["s_axilite", "m_axi", "m_axi"]
