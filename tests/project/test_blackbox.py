"""The RTL blackbox JSON of a synthesized function, from real csynth reports (../shared fixtures, each
read by hand) and from a hand-written one (tests/data/fidelity) in the form blackbox assembly asks for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shared_fixtures import real_report

from hclbuild.errors import HCLNotImplementedError, ToolError
from hclbuild.project.blackbox import (
    blackbox_json,
    c_parameters,
    common_signals,
    performance,
    resource_usage,
    verilog_files,
)
from hclbuild.runtime.report import RtlPort, parse_csynth_xml, parse_rtl_ports

CONV = Path(__file__).resolve().parents[1] / "data" / "fidelity" / "Stage_conv_csynth.xml"


# ---- the hand-written report of an outlined function ---------------------------------------------


def test_whole_json_of_a_block_level_function() -> None:
    ports = parse_rtl_ports(CONV)
    text = blackbox_json(
        "Stage_conv",
        ["A", "W", "B", "acc", "bias"],
        True,
        ports,
        parse_csynth_xml(CONV),
        "../Stage_conv/Stage_conv.cpp",
        ["../Stage_conv/x/Stage_conv.v"],
    )
    assert json.loads(text) == {
        "c_function_name": "Stage_conv",
        "rtl_top_module_name": "Stage_conv",
        "c_files": [{"c_file": "../Stage_conv/Stage_conv.cpp", "cflag": ""}],
        "rtl_files": ["../Stage_conv/x/Stage_conv.v"],
        "c_parameters": [
            {
                "c_name": "A",
                "c_port_direction": "in",
                "RAM_type": "RAM_T2P",
                "rtl_ports": {
                    "RAM_address": "A_address0",
                    "RAM_clock_enable": "A_ce0",
                    "RAM_data_read_in": "A_q0",
                    "RAM_address_snd": "A_address1",
                    "RAM_clock_enable_snd": "A_ce1",
                    "RAM_data_read_in_snd": "A_q1",
                },
            },
            {
                "c_name": "W",
                "c_port_direction": "in",
                "RAM_type": "RAM_1P",
                "rtl_ports": {
                    "RAM_address": "W_address0",
                    "RAM_clock_enable": "W_ce0",
                    "RAM_data_read_in": "W_q0",
                },
            },
            {
                "c_name": "B",
                "c_port_direction": "out",
                "RAM_type": "RAM_1P",
                "rtl_ports": {
                    "RAM_address": "B_address0",
                    "RAM_clock_enable": "B_ce0",
                    "RAM_write_enable": "B_we0",
                    "RAM_data_write_out": "B_d0",
                },
            },
            {
                "c_name": "acc",
                "c_port_direction": "inout",
                "RAM_type": "RAM_1P",
                "rtl_ports": {
                    "RAM_address": "acc_address0",
                    "RAM_clock_enable": "acc_ce0",
                    "RAM_write_enable": "acc_we0",
                    "RAM_data_write_out": "acc_d0",
                    "RAM_data_read_in": "acc_q0",
                },
            },
            {"c_name": "bias", "c_port_direction": "in", "rtl_ports": {"data_read_in": "bias"}},
        ],
        "c_return": {"c_port_direction": "out", "rtl_ports": {"data_write_out": "ap_return"}},
        "rtl_common_signal": {
            "module_clock": "ap_clk",
            "module_reset": "ap_rst",
            "module_clock_enable": "ap_ce",
            "ap_ctrl_chain_protocol_start": "ap_start",
            "ap_ctrl_chain_protocol_done": "ap_done",
            "ap_ctrl_chain_protocol_idle": "ap_idle",
            "ap_ctrl_chain_protocol_ready": "ap_ready",
            "ap_ctrl_chain_protocol_continue": "ap_continue",
        },
        "rtl_performance": {"latency": "2310", "II": "2311"},
        "rtl_resource_usage": {"FF": "612", "LUT": "845", "BRAM": "0", "URAM": "0", "DSP": "3"},
    }
    assert list(json.loads(text)) == [
        "c_function_name",
        "rtl_top_module_name",
        "c_files",
        "rtl_files",
        "c_parameters",
        "c_return",
        "rtl_common_signal",
        "rtl_performance",
        "rtl_resource_usage",
    ]


def test_an_argument_without_ports_is_an_error() -> None:
    with pytest.raises(ToolError, match=r"^Stage_conv: the csynth report has no RTL port for argument C$"):
        c_parameters("Stage_conv", parse_rtl_ports(CONV), ["A", "W", "B", "acc", "bias", "C"])


def test_ports_of_no_argument_are_an_error() -> None:
    # A partitioned argument turns into A_0, A_1 objects: one C argument, several RAMs
    with pytest.raises(
        ToolError, match=r"ports of acc, bias, which is no C argument .*must not be partitioned"
    ):
        c_parameters("Stage_conv", parse_rtl_ports(CONV), ["A", "W", "B"])


def test_return_value_needs_ap_return() -> None:
    ports = [p for p in parse_rtl_ports(CONV) if p.name != "ap_return"]
    with pytest.raises(ToolError, match="returns a value but its RTL has no ap_return port"):
        blackbox_json(
            "Stage_conv", ["A", "W", "B", "acc", "bias"], True, ports, parse_csynth_xml(CONV), "c", []
        )


def _control(*names: str, protocol: str = "ap_ctrl_chain") -> list[RtlPort]:
    return [RtlPort(name, "f", "return value", protocol, "in", 1) for name in names]


def test_ap_ctrl_hs_is_refused() -> None:
    with pytest.raises(ToolError, match="block protocol is ap_ctrl_hs; a blackbox needs ap_ctrl_chain"):
        common_signals(
            "f",
            _control(
                "ap_clk",
                "ap_rst",
                "ap_ce",
                "ap_start",
                "ap_done",
                "ap_idle",
                "ap_ready",
                protocol="ap_ctrl_hs",
            ),
        )


def test_active_low_reset_is_refused() -> None:
    with pytest.raises(ToolError, match=r"reset is active-Low \(ap_rst_n\)"):
        common_signals("f", _control("ap_clk", "ap_rst_n", "ap_ce"))


def test_ap_ctrl_none_keeps_empty_handshake_keys() -> None:
    signals = common_signals("f", _control("ap_clk", "ap_rst", "ap_ce", protocol="ap_ctrl_none"))
    assert signals["module_clock_enable"] == "ap_ce"
    assert signals["ap_ctrl_chain_protocol_start"] == "" and signals["ap_ctrl_chain_protocol_continue"] == ""


def test_wire_output_and_valid_ports() -> None:
    ports = [
        RtlPort("y", "y", "pointer", "ap_vld", "out", 32),
        RtlPort("y_ap_vld", "y", "pointer", "ap_vld", "out", 1),
        RtlPort("z_i", "z", "pointer", "ap_ovld", "in", 8),
        RtlPort("z_o", "z", "pointer", "ap_ovld", "out", 8),
        RtlPort("z_o_ap_vld", "z", "pointer", "ap_ovld", "out", 1),
    ]
    assert c_parameters("f", ports, ["y", "z"]) == [
        {
            "c_name": "y",
            "c_port_direction": "out",
            "rtl_ports": {"data_write_out": "y", "data_write_valid": "y_ap_vld"},
        },
        {
            "c_name": "z",
            "c_port_direction": "inout",
            "rtl_ports": {"data_read_in": "z_i", "data_write_out": "z_o", "data_write_valid": "z_o_ap_vld"},
        },
    ]


def test_verilog_files_are_listed_and_ip_cores_refused(tmp_path: Path) -> None:
    verilog = tmp_path / "verilog"
    with pytest.raises(ToolError, match="no Verilog from csynth"):
        verilog_files(verilog)
    verilog.mkdir()
    (verilog / "Stage_conv.v").write_text("module Stage_conv(); endmodule\n")
    (verilog / "Stage_conv_mul_32s_32s_32_2_1.v").write_text("\n")
    (verilog / "Stage_conv.vhd").write_text("\n")
    assert [p.name for p in verilog_files(verilog)] == ["Stage_conv.v", "Stage_conv_mul_32s_32s_32_2_1.v"]
    (verilog / "Stage_conv_fadd_32ns_32ns_32_5_full_dsp_1_ip.tcl").write_text("\n")
    with pytest.raises(
        HCLNotImplementedError, match="Vivado IP cores made by Stage_conv_fadd_32ns_32ns_32_5"
    ):
        verilog_files(verilog)


# ---- real reports of other designs ---------------------------------------------------------------


def test_real_fifo_and_wire_ports_of_sobel() -> None:
    ports = parse_rtl_ports(real_report("vivado2018.3_hls_sobel/csynth.xml"))
    assert len(ports) == 46
    names = sorted({p.object for p in ports if p.object != "hls_sobel"})
    params = {p["c_name"]: p for p in c_parameters("hls_sobel", ports, names)}
    assert params["input_V_data_V"] == {
        "c_name": "input_V_data_V",
        "c_port_direction": "in",
        "rtl_ports": {
            "FIFO_data_read_in": "input_V_data_V_dout",
            "FIFO_empty_flag": "input_V_data_V_empty_n",
            "FIFO_read_enable": "input_V_data_V_read",
        },
    }
    assert params["output_V_last_V"] == {
        "c_name": "output_V_last_V",
        "c_port_direction": "out",
        "rtl_ports": {
            "FIFO_data_write_out": "output_V_last_V_din",
            "FIFO_full_flag": "output_V_last_V_full_n",
            "FIFO_write_enable": "output_V_last_V_write",
        },
    }
    assert params["rows"] == {
        "c_name": "rows",
        "c_port_direction": "in",
        "rtl_ports": {"data_read_in": "rows"},
    }
    # ap_ctrl_none with ap_clk/ap_rst, but Vivado HLS gave it no clock enable
    with pytest.raises(ToolError, match=r"^hls_sobel: the RTL has no clock enable \(ap_ce\)"):
        common_signals("hls_sobel", ports)


def test_real_wire_ports_and_numbers_of_division() -> None:
    path = real_report("vitis2022.1_division_hls/csynth.xml")
    ports = parse_rtl_ports(path)
    assert c_parameters("division_hls", ports, ["a", "b", "c"]) == [
        {"c_name": "a", "c_port_direction": "in", "rtl_ports": {"data_read_in": "a"}},
        {"c_name": "b", "c_port_direction": "in", "rtl_ports": {"data_read_in": "b"}},
        {"c_name": "c", "c_port_direction": "out", "rtl_ports": {"data_write_out": "c"}},
    ]
    report = parse_csynth_xml(path)
    assert performance("division_hls", report) == {"latency": "15", "II": "16"}
    assert resource_usage(report) == {"FF": "16", "LUT": "81", "BRAM": "0", "URAM": "0", "DSP": "0"}


@pytest.mark.parametrize(
    ("relative", "top", "objects"),
    [
        ("vitis2023.2_nms/nms_csynth.xml", "nms", ["control", "gmem", "gmem0", "gmem1"]),
        ("vitis2024.1_weighted_rr_crlf/weighted_rr_csynth.xml", "weighted_rr", ["control", "gmem"]),
        ("vivado2019.1_unique_paths/csynth.xml", "unique_paths", ["AXILiteS"]),
    ],
)
def test_real_bus_interfaces_are_refused(relative: str, top: str, objects: list[str]) -> None:
    ports = parse_rtl_ports(real_report(relative))
    assert sorted({p.object for p in ports if p.object != top and p.name != "ap_return"}) == objects
    with pytest.raises(
        ToolError, match=rf"^{top}: argument {objects[0]} is a s_axi interface; a blackbox takes wire"
    ):
        c_parameters(top, ports, objects)
    if "gmem" in objects:
        with pytest.raises(ToolError, match=rf"^{top}: argument gmem is a m_axi interface"):
            c_parameters(top, [p for p in ports if p.object == "gmem"], ["gmem"])


def test_real_undef_latency_cannot_be_a_blackbox() -> None:
    report = parse_csynth_xml(real_report("vivado2019.1_unique_paths/csynth.xml"))
    with pytest.raises(ToolError, match="no latency or interval"):
        performance("unique_paths", report)


def test_every_real_csynth_report_lists_its_ports() -> None:
    counts = {
        rel: len(parse_rtl_ports(real_report(rel)))
        for rel in (
            "vivado2018.3_hls_sobel/csynth.xml",
            "vivado2019.1_unique_paths/csynth.xml",
            "vivado2020.1_vecdotproduct/csynth.xml",
            "vitis2020.2_gaussian/csynth.xml",
            "vitis2022.1_division_hls/csynth.xml",
            "vitis2022.1_topk_sort/csynth.xml",
            "vitis2023.2_nms/nms_csynth.xml",
            "vitis2024.1_weighted_rr_crlf/weighted_rr_csynth.xml",
        )
    }
    # counted with grep -c "<RtlPorts>" in each file
    assert list(counts.values()) == [46, 20, 172, 32, 5, 32, 155, 65]
