"""Report parsers on real Vivado/Vitis HLS reports (shared/fixtures/vitis_reports) and on edge cases.

Every expected number below was read by hand from the fixture files, not produced by the parser.
A user's clone has no ../shared: the tests that read it skip with the reason, and
tests/runtime/test_report_data.py runs every parser branch on the hand-written reports in tests/data/.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from shared_fixtures import FIXTURES

from hclbuild.errors import HCLError, ToolError
from hclbuild.render.markdown import (
    FunctionReport,
    render_function_markdown,
    render_summary_markdown,
)
from hclbuild.runtime.report import (
    Span,
    parse_cosim_rpt,
    parse_csim_log,
    parse_csynth_xml,
)

# CI clones the repository elsewhere with a copy of shared/ beside it; never copy fixtures into the repo.

SOBEL = "vivado2018.3_hls_sobel/csynth.xml"
UNIQUE_PATHS = "vivado2019.1_unique_paths/csynth.xml"
VECDOT = "vivado2020.1_vecdotproduct/csynth.xml"
VECDOT_COSIM = "vivado2020.1_vecdotproduct/VecDotProduct_cosim.rpt"
VECDOT_CSIM = "vivado2020.1_vecdotproduct/VecDotProduct_csim.log"
GAUSSIAN = "vitis2020.2_gaussian/csynth.xml"
DIVISION = "vitis2022.1_division_hls/csynth.xml"
TOPK = "vitis2022.1_topk_sort/csynth.xml"
VIT_COSIM_FAIL = "vitis2022.2_vit_act_cosim_fail/ViT_act_cosim.rpt"
NMS = "vitis2023.2_nms/nms_csynth.xml"
NMS_COSIM = "vitis2023.2_nms/nms_cosim.rpt"
NMS_CSIM = "vitis2023.2_nms/nms_csim.log"
WEIGHTED_RR = "vitis2024.1_weighted_rr_crlf/weighted_rr_csynth.xml"

COVERED = {
    SOBEL,
    UNIQUE_PATHS,
    VECDOT,
    VECDOT_COSIM,
    VECDOT_CSIM,
    GAUSSIAN,
    DIVISION,
    TOPK,
    VIT_COSIM_FAIL,
    NMS,
    NMS_COSIM,
    NMS_CSIM,
    WEIGHTED_RR,
}


def _require_fixtures() -> None:
    if not FIXTURES.is_dir():
        pytest.skip(f"{FIXTURES} is absent (real Vitis reports; only CI and the dev machine have ../shared)")


def fixture(relative: str) -> Path:
    _require_fixtures()
    path = FIXTURES / relative
    # With shared/ present a missing file is a defect, not a reason to skip.
    assert path.is_file(), f"missing fixture {path} (shared/ must sit beside the repository)"
    return path


def test_every_fixture_file_is_covered():
    _require_fixtures()
    on_disk = {
        path.relative_to(FIXTURES).as_posix()
        for path in FIXTURES.rglob("*")
        if path.is_file() and path.name != "SOURCES.md"
    }
    assert on_disk, f"no fixtures found under {FIXTURES}"
    assert on_disk == COVERED


# ---- csynth: one test per fixture ---------------------------------------------------------------


def test_vivado2018_sobel_flat_dataflow_dsp48e_no_uram():
    report = parse_csynth_xml(fixture(SOBEL))
    assert report.version == "2018.3"
    assert report.product_family == "aartix7"
    assert report.part == "xa7a12tcsg325-1q"
    assert report.top == "hls_sobel"
    assert report.flow_target is None
    assert report.clock_unit == "ns"
    assert report.target_clock == 10.0
    assert report.clock_uncertainty == 1.25
    assert report.estimated_clock == 8.144
    assert report.pipeline_type == "dataflow"
    assert (report.best_latency, report.average_latency, report.worst_latency) == (160, None, 2089114)
    assert (report.interval_min, report.interval_max) == (159, 2089113)
    assert report.dataflow_throughput == Span(159, 2089113)
    assert report.best_latency_ns is None and report.worst_latency_ns is None  # no RealTimeLatency tags
    assert report.resources == {"BRAM_18K": 9, "DSP": 0, "FF": 1680, "LUT": 4546}
    assert report.available == {"BRAM_18K": 40, "DSP": 40, "FF": 16000, "LUT": 8000}
    assert "URAM" not in report.resources
    assert report.utilization["BRAM_18K"] == 22.5  # 9 / 40
    assert report.utilization["FF"] == 10.5  # 1680 / 16000
    assert report.utilization["LUT"] == pytest.approx(56.825, abs=0.005)  # 4546 / 8000
    assert report.loops == []
    assert report.modules == []


def test_vivado2019_unique_paths_undef_latency_nested_loops():
    report = parse_csynth_xml(fixture(UNIQUE_PATHS))
    assert report.version == "2019.1"
    assert report.part == "xc7z020-clg484-1"
    assert report.top == "unique_paths"
    assert report.estimated_clock == 8.356
    assert report.best_latency is None and report.average_latency is None and report.worst_latency is None
    assert report.interval_min is None and report.interval_max is None
    assert report.resources == {"BRAM_18K": 200, "DSP": 0, "FF": 1942, "LUT": 10919, "URAM": 0}
    assert report.available["URAM"] == 0
    assert report.utilization["URAM"] is None  # nothing available: no percentage
    assert [loop.name for loop in report.loops] == ["Loop1", "Loop2", "Loop3"]
    loop1, loop2, loop3 = report.loops
    assert loop1.trip_count is None and loop1.latency is None  # TripCount/Latency undef
    assert (loop1.pipeline_ii, loop1.pipeline_depth) == (Span(2, 2), Span(2, 2))
    assert loop2.pipeline_ii == Span(1, 1)
    assert loop3.pipeline_ii is None and loop3.iteration_latency is None
    assert [sub.name for sub in loop3.sub_loops] == ["Loop3.1"]
    assert loop3.sub_loops[0].pipeline_ii == Span(6, 6)
    assert loop3.sub_loops[0].pipeline_depth == Span(6, 6)
    assert [(depth, loop.name) for depth, loop in report.iter_loops()] == [
        (0, "Loop1"),
        (0, "Loop2"),
        (0, "Loop3"),
        (1, "Loop3.1"),
    ]
    assert report.loop_ii == Span(1, 6)


def test_vivado2020_vecdotproduct_dsp_name_and_undef_throughput():
    report = parse_csynth_xml(fixture(VECDOT))
    assert report.version == "2020.1"
    assert report.product_family == "zynquplus"
    assert report.part == "xczu7ev-ffvc1156-2-e"
    assert report.top == "VecDotProduct"
    assert report.flow_target == "vivado"
    assert report.clock_uncertainty == 2.7
    assert report.estimated_clock == 7.3
    assert report.pipeline_type == "dataflow"
    assert report.best_latency is None and report.best_latency_ns is None
    assert report.dataflow_throughput is None
    assert report.resources == {"BRAM_18K": 34, "DSP": 0, "FF": 3726, "LUT": 5322, "URAM": 0}
    assert report.available == {"BRAM_18K": 624, "DSP": 1728, "FF": 460800, "LUT": 230400, "URAM": 96}
    assert report.loops == []


def test_vitis2020_gaussian_loops_and_real_time_latency():
    report = parse_csynth_xml(fixture(GAUSSIAN))
    assert report.version == "2020.2"
    assert report.part == "xczu7ev-ffvc1156-2-e"
    assert report.top == "gaussian"
    assert report.estimated_clock == 6.427
    assert (report.best_latency, report.average_latency, report.worst_latency) == (262673, 262673, 262673)
    assert report.best_latency_ns == 2_627_000.0  # "2.627 ms"
    assert (report.interval_min, report.interval_max) == (262674, 262674)
    assert report.resources == {"BRAM_18K": 3, "DSP": 0, "FF": 973, "LUT": 1870, "URAM": 0}
    assert report.available["URAM"] == 96
    rows = [
        (
            loop.name,
            loop.trip_count,
            loop.latency,
            loop.latency_ns,
            loop.pipeline_ii,
            loop.pipeline_depth,
        )
        for loop in report.loops
    ]
    assert rows == [
        ("buf_x1", Span(2, 2), Span(2, 2), Span(20.0, 20.0), Span(1, 1), Span(1, 1)),
        ("buf_x2", Span(512, 512), Span(512, 512), Span(5120.0, 5120.0), Span(1, 1), Span(1, 1)),
        ("win_y_win_x", Span(4, 4), Span(5, 5), Span(50.0, 50.0), Span(1, 1), Span(2, 2)),
        (
            "for_y_for_x",
            Span(262144, 262144),
            Span(262146, 262146),
            Span(2621460.0, 2621460.0),
            Span(1, 1),
            Span(4, 4),
        ),
    ]
    assert all(loop.pipelined for loop in report.loops)


def test_vitis2022_division_indented_with_module_information():
    report = parse_csynth_xml(fixture(DIVISION))
    assert report.version == "2022.1"
    assert report.part == "xc7z020-clg484-1"
    assert report.top == "division_hls"
    assert report.estimated_clock == 6.075
    assert report.pipeline_type == "no"
    assert (report.best_latency, report.average_latency, report.worst_latency) == (15, 15, 15)
    assert report.worst_latency_ns == 150.0  # "0.150 us"
    assert (report.interval_min, report.interval_max) == (16, 16)
    assert report.resources == {"BRAM_18K": 0, "DSP": 0, "FF": 16, "LUT": 81, "URAM": 0}
    assert report.loops == []
    assert [module.name for module in report.modules] == ["division_hls"]
    module = report.modules[0]
    assert (module.best_latency, module.interval) == (15, Span(16, 16))
    # AVAIL_FF / UTIL_FF ("~0") sit among the counts in ModuleInformation and are not resources.
    assert module.resources == {"BRAM_18K": 0, "DSP": 0, "FF": 16, "LUT": 81, "URAM": 0}


def test_vitis2022_topk_sort_crlf_ranges_and_string_latencies():
    path = fixture(TOPK)
    assert b"\r\n" in path.read_bytes()  # the point of this fixture
    report = parse_csynth_xml(path)
    assert report.version == "2022.1"
    assert report.part == "xck26-sfvc784-2LV-c"
    assert report.top == "topk_sort"
    assert report.estimated_clock == 2.598
    assert (report.best_latency, report.average_latency, report.worst_latency) == (105704, None, 115406)
    assert (report.best_latency_ns, report.worst_latency_ns) == (1_057_000.0, 1_154_000.0)
    assert (report.interval_min, report.interval_max) == (105705, 115407)
    assert report.resources == {"BRAM_18K": 0, "DSP": 0, "FF": 13040, "LUT": 11733, "URAM": 0}
    assert report.available == {"BRAM_18K": 288, "DSP": 1248, "FF": 234240, "LUT": 117120, "URAM": 64}
    outer, inner = report.loops
    assert outer.name == "VITIS_LOOP_30_2"
    assert outer.trip_count == Span(1000, 1000)
    assert outer.latency == Span(105000, 105000)
    assert outer.iteration_latency == Span(105, 105)
    assert outer.latency_ns == Span(1_050_000.0, 1_050_000.0)
    assert inner.name == "VITIS_LOOP_57_4"
    assert inner.trip_count == Span(99, 99)
    assert inner.latency == Span(495, 10197)
    assert inner.iteration_latency == Span(5, 103)
    # PipelineDepth only appears in the top module's ModuleInformation ("105", "5 ~ 103").
    assert outer.pipeline_depth == Span(105, 105)
    assert inner.pipeline_depth == Span(5, 103)
    assert outer.pipelined is False
    assert [module.name for module in report.modules] == [
        "topk_sort_Pipeline_VITIS_LOOP_20_1",
        "topk_sort_Pipeline_VITIS_LOOP_36_3",
        "topk_sort_Pipeline_VITIS_LOOP_58_5",
        "topk_sort_Pipeline_VITIS_LOOP_70_6",
        "topk_sort",
    ]
    sort_loop = report.modules[2]
    assert (sort_loop.best_latency, sort_loop.average_latency, sort_loop.worst_latency) == (3, None, 101)
    assert sort_loop.interval == Span(3, 101)  # "3 ~ 101"
    assert (sort_loop.resources["FF"], sort_loop.resources["LUT"]) == (67, 3646)
    (loop,) = sort_loop.loops
    assert loop.name == "VITIS_LOOP_58_5"
    assert loop.trip_count == Span(1, 99)  # <range><min>1</min><max>99</max></range>
    assert loop.latency == Span(1, 99)  # "1 ~ 99"
    assert loop.latency_ns == Span(10.0, 990.0)  # "10.000 ns ~ 0.990 us"
    assert (loop.pipeline_ii, loop.pipeline_depth, loop.pipelined) == (Span(1, 1), Span(1, 1), True)


def test_vitis2023_nms_nested_loops_with_range_trip_counts():
    report = parse_csynth_xml(fixture(NMS))
    assert report.version == "2023.2"
    assert report.part == "xc7z020-clg400-1"
    assert report.top == "nms"
    assert report.estimated_clock == 7.3
    assert report.best_latency is None and report.interval_max is None
    assert report.resources == {"BRAM_18K": 38, "DSP": 27, "FF": 8709, "LUT": 19329, "URAM": 0}
    assert report.utilization["DSP"] == pytest.approx(100 * 27 / 220, abs=0.005)
    assert [(depth, loop.name) for depth, loop in report.iter_loops()] == [
        (0, "VITIS_LOOP_25_2"),
        (1, "VITIS_LOOP_27_3"),
        (0, "VITIS_LOOP_63_6"),
        (0, "VITIS_LOOP_85_8"),
        (1, "VITIS_LOOP_89_9"),
    ]
    first, second, third = report.loops
    assert (first.trip_count, first.latency, first.slack_ns) == (Span(6, 6), None, 7.3)
    assert first.sub_loops[0].trip_count == Span(0, 65535)
    assert second.trip_count == Span(99, 99)
    assert second.latency == Span(6237, 15939)
    assert second.latency_ns == Span(62370.0, 159390.0)
    assert second.iteration_latency == Span(63, 161)
    assert (third.latency, third.iteration_latency) == (Span(1188, 88506), Span(12, 894))
    nested = third.sub_loops[0]
    assert nested.trip_count == Span(0, 98)
    assert (nested.latency, nested.iteration_latency) == (Span(0, 882), Span(9, 9))
    assert report.loop_ii is None


def test_vitis2024_weighted_rr_crlf_dataflow():
    path = fixture(WEIGHTED_RR)
    assert b"\r\n" in path.read_bytes()
    report = parse_csynth_xml(path)
    assert report.version == "2024.1"
    assert report.part == "xc7z020-clg400-1"
    assert report.top == "weighted_rr"
    assert report.pipeline_type == "dataflow"
    assert (report.best_latency, report.average_latency, report.worst_latency) == (11, 52, 143)
    assert report.best_latency_ns == 110.0  # "0.110 us"
    assert report.average_latency_ns == 520.0
    assert report.worst_latency_ns == 1430.0
    assert (report.interval_min, report.interval_max) == (12, 144)
    assert report.dataflow_throughput == Span(12, 144)
    assert report.resources == {"BRAM_18K": 5, "DSP": 0, "FF": 1751, "LUT": 2496, "URAM": 0}
    assert report.loops == []


def test_csynth_report_is_json_serializable():
    report = parse_csynth_xml(fixture(NMS))
    data = json.loads(json.dumps(report.to_dict()))
    assert data["top"] == "nms"
    assert data["best_latency"] is None
    assert data["loops"][1]["latency"] == {"min": 6237, "max": 15939}
    assert data["loops"][0]["sub_loops"][0]["name"] == "VITIS_LOOP_27_3"


# ---- csynth: errors and synthetic edge cases -----------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        '<?xml version="1.0"?>\n<project name="demo"><file>a.cpp</file></project>\n',
        "<profile><Something/></profile>",
        "<profile><ReportVersion><Version>2022.1</Version>",  # truncated
        "",
        "this is not xml",
    ],
    ids=["other-xml", "profile-without-sections", "truncated", "empty", "text"],
)
def test_non_report_raises_one_line_tool_error_naming_the_file(tmp_path, content):
    path = tmp_path / "odd.xml"
    path.write_text(content)
    with pytest.raises(ToolError) as info:
        parse_csynth_xml(path)
    message = str(info.value)
    assert str(path) in message
    assert "\n" not in message
    assert isinstance(info.value, HCLError)


def test_missing_csynth_file_raises_tool_error(tmp_path):
    with pytest.raises(ToolError, match="cannot read"):
        parse_csynth_xml(tmp_path / "absent.xml")


def test_profile_with_missing_sections_gives_none_fields(tmp_path):
    path = tmp_path / "csynth.xml"
    path.write_text("<profile><ReportVersion><Version>2021.1</Version></ReportVersion></profile>")
    report = parse_csynth_xml(path)
    assert report.version == "2021.1"
    assert report.part is None and report.target_clock is None and report.best_latency is None
    assert report.resources == {} and report.utilization == {} and report.loops == []
    assert report.latency is None and report.interval is None and report.loop_ii is None


CSYNTH_FIXTURES = [SOBEL, UNIQUE_PATHS, VECDOT, GAUSSIAN, DIVISION, TOPK, NMS, WEIGHTED_RR]


@pytest.mark.parametrize("relative", CSYNTH_FIXTURES)
@pytest.mark.parametrize("section", ["UserAssignments", "PerformanceEstimates", "AreaEstimates"])
def test_real_report_with_a_section_removed_parses_with_none_fields(tmp_path, relative, section):
    root = ET.parse(fixture(relative)).getroot()
    root.remove(root.find(section))
    path = tmp_path / "csynth.xml"
    ET.ElementTree(root).write(path)
    report = parse_csynth_xml(path)
    assert report.version is not None  # ReportVersion is still there
    if section == "UserAssignments":
        assert report.part is None and report.top is None and report.target_clock is None
    elif section == "PerformanceEstimates":
        assert report.best_latency is None and report.estimated_clock is None and report.loops == []
    else:
        assert report.resources == {} and report.available == {} and report.utilization == {}
    render_function_markdown("f", report)  # rendering copes with the gaps too


def test_dsp_variants_ranges_and_namespaces(tmp_path):
    path = tmp_path / "csynth.xml"
    path.write_text(
        """<profile xmlns="urn:example">
  <UserAssignments><unit>ns</unit><TargetClockPeriod>4.00</TargetClockPeriod></UserAssignments>
  <PerformanceEstimates>
    <SummaryOfOverallLatency>
      <Best-caseLatency>undef</Best-caseLatency><Worst-caseLatency>40</Worst-caseLatency>
    </SummaryOfOverallLatency>
    <SummaryOfLoopLatency>
      <L1>
        <TripCount><min>1</min><max>10</max></TripCount>
        <Latency>2 ~ 20</Latency>
        <AbsoluteTimeLatency>8 ~ 80</AbsoluteTimeLatency>
        <PipelineII>2</PipelineII>
      </L1>
    </SummaryOfLoopLatency>
  </PerformanceEstimates>
  <AreaEstimates>
    <Resources><LUT>10</LUT><DSP48E2>3</DSP48E2></Resources>
    <AvailableResources><DSP48E1>12</DSP48E1><LUT>100</LUT></AvailableResources>
  </AreaEstimates>
</profile>"""
    )
    report = parse_csynth_xml(path)
    assert report.target_clock == 4.0
    assert (report.best_latency, report.worst_latency) == (None, 40)
    assert report.latency == Span(None, 40)
    assert report.resources == {"DSP": 3, "LUT": 10}
    assert report.available == {"DSP": 12, "LUT": 100}
    assert report.utilization == {"DSP": 25.0, "LUT": 10.0}
    (loop,) = report.loops
    assert (loop.name, loop.trip_count, loop.latency) == ("L1", Span(1, 10), Span(2, 20))
    assert loop.latency_ns == Span(8.0, 80.0)
    assert loop.pipeline_ii == Span(2, 2) and loop.pipelined is True


# ---- cosim ---------------------------------------------------------------------------------------


def test_cosim_vecdotproduct_verilog_pass():
    report = parse_cosim_rpt(fixture(VECDOT_COSIM))
    assert report.report_time == "Tue Sep 14 14:09:38 SEAST 2021"
    assert report.solution == "solution1"
    assert report.simulation_tool == "xsim"
    assert list(report.runs) == ["VHDL", "Verilog"]
    verilog = report.runs["Verilog"]
    assert verilog.status == "Pass"
    assert (verilog.latency_min, verilog.latency_avg, verilog.latency_max) == (10099, 10099, 10099)
    assert (verilog.interval_min, verilog.interval_avg, verilog.interval_max) == (None, None, None)
    assert verilog.total_execution_time == 10099
    assert report.runs["VHDL"].status == "NA" and report.runs["VHDL"].latency_max is None
    assert report.status == "Pass" and report.passed


def test_cosim_nms_verilog_pass():
    report = parse_cosim_rpt(fixture(NMS_COSIM))
    assert report.report_time == "Tue 26 Mar 2024 11:46:50 AM CST"
    verilog = report.runs["Verilog"]
    assert (verilog.status, verilog.latency_min, verilog.latency_avg, verilog.latency_max) == (
        "Pass",
        66215,
        66215,
        66215,
    )
    assert verilog.total_execution_time == 66215
    assert report.passed
    assert json.loads(json.dumps(report.to_dict()))["status"] == "Pass"


def test_cosim_vit_act_failed_run():
    report = parse_cosim_rpt(fixture(VIT_COSIM_FAIL))
    assert report.report_time == "Wed Jul 31 17:25:36 2024"
    verilog = report.runs["Verilog"]
    assert verilog.status == "Fail"
    assert verilog.latency_min is None and verilog.total_execution_time is None
    assert report.runs["VHDL"].status == "NA"
    assert report.status == "Fail" and not report.passed


def test_cosim_parser_rejects_a_csynth_report():
    with pytest.raises(ToolError, match="not an HLS cosim report"):
        parse_cosim_rpt(fixture(DIVISION))


# ---- csim ----------------------------------------------------------------------------------------


def test_csim_log_vecdotproduct_passes():
    log = parse_csim_log(fixture(VECDOT_CSIM))
    assert (log.passed, log.finished, log.error_count) == (True, True, 0)
    assert log.return_value is None
    assert log.error_lines == [] and log.mismatch_lines == []


def test_csim_log_nms_with_testbench_output_passes():
    log = parse_csim_log(fixture(NMS_CSIM))
    assert (log.passed, log.finished, log.error_count) == (True, True, 0)
    assert log.mismatch_lines == []  # "1 0 0 1 ..." and "threshold_tb:0.14" are not mismatches
    assert json.loads(json.dumps(log.to_dict()))["passed"] is True


def test_csim_log_nonzero_return_value_fails(tmp_path):
    path = tmp_path / "top_csim.log"
    path.write_text(
        "INFO: [SIM 2] *************** CSIM start ***************\n"
        "Mismatch at index 4: expected 1 got 2\n"
        "@E Simulation failed: Function 'main' returns nonzero value '1'.\n"
        "ERROR: [SIM 211-100] 'csim_design' failed: nonzero return value.\n"
        "INFO: [SIM 3] *************** CSIM finish ***************\n"
    )
    log = parse_csim_log(path)
    assert (log.passed, log.finished, log.return_value) == (False, True, 1)
    assert log.mismatch_lines == ["Mismatch at index 4: expected 1 got 2"]
    assert len(log.error_lines) == 2


def test_csim_log_error_count_fails(tmp_path):
    path = tmp_path / "top_csim.log"
    path.write_text("INFO: [SIM 1] CSim done with 3 errors.\n")
    log = parse_csim_log(path)
    assert (log.passed, log.finished, log.error_count) == (False, True, 3)


def test_truncated_csim_log_is_not_a_pass(tmp_path):
    path = tmp_path / "top_csim.log"
    path.write_text("INFO: [SIM 2] *************** CSIM start ***************\n   Compiling tb.cpp\n")
    log = parse_csim_log(path)
    assert (log.passed, log.finished, log.error_count) == (False, False, None)


# ---- rendering -----------------------------------------------------------------------------------


def test_function_markdown_exact_for_division():
    text = render_function_markdown("division_hls", parse_csynth_xml(fixture(DIVISION)), csim=True)
    assert text == (
        "### division_hls\n"
        "\n"
        "| Metric | Value |\n"
        "|---|---|\n"
        "| HLS version | 2022.1 |\n"
        "| Part | xc7z020-clg484-1 (zynq) |\n"
        "| Top | division_hls |\n"
        "| Target clock (ns) | 10 |\n"
        "| Clock uncertainty (ns) | 1.25 |\n"
        "| Estimated clock (ns) | 6.075 |\n"
        "| Latency best / avg / worst (cycles) | 15 / 15 / 15 |\n"
        "| Latency best / avg / worst (time) | 150 ns / 150 ns / 150 ns |\n"
        "| Interval min / max (cycles) | 16 / 16 |\n"
        "| Pipeline type | no |\n"
        "| C simulation | pass |\n"
        "\n"
        "| Resource | Used | Available | Utilization (%) |\n"
        "|---|---|---|---|\n"
        "| BRAM_18K | 0 | 280 | 0 |\n"
        "| DSP | 0 | 220 | 0 |\n"
        "| FF | 16 | 106400 | 0.02 |\n"
        "| LUT | 81 | 53200 | 0.15 |\n"
        "| URAM | 0 | 0 | - |\n"
    )


def test_function_markdown_rows_for_nms_with_cosim_and_csim():
    text = render_function_markdown(
        "nms",
        parse_csynth_xml(fixture(NMS)),
        cosim=parse_cosim_rpt(fixture(NMS_COSIM)),
        csim=parse_csim_log(fixture(NMS_CSIM)),
    )
    lines = text.splitlines()
    assert "| Latency best / avg / worst (cycles) | undef / undef / undef |" in lines
    assert "| C simulation | pass |" in lines
    assert "| Co-simulation | Pass |" in lines
    assert "| BRAM_18K | 38 | 280 | 13.57 |" in lines
    assert "| DSP | 27 | 220 | 12.27 |" in lines
    assert "| Loop | Trip count | Latency (cycles) | Iteration latency | II | Depth |" in lines
    assert "| VITIS_LOOP_25_2 | 6 | - | - | - | - |" in lines
    assert "| \u00a0\u00a0VITIS_LOOP_27_3 | 0 ~ 65535 | - | - | - | - |" in lines
    assert "| VITIS_LOOP_63_6 | 99 | 6237 ~ 15939 | 63 ~ 161 | - | - |" in lines
    assert "| \u00a0\u00a0VITIS_LOOP_89_9 | 0 ~ 98 | 0 ~ 882 | 9 | - | - |" in lines
    assert "| Verilog | Pass | 66215 / 66215 / 66215 | - / - / - | 66215 |" in lines
    assert "| VHDL | NA | - / - / - | - / - / - | - |" in lines


def test_function_markdown_loop_rows_for_unique_paths():
    lines = render_function_markdown("unique_paths", parse_csynth_xml(fixture(UNIQUE_PATHS))).splitlines()
    assert "| Loop1 | - | - | - | 2 | 2 |" in lines
    assert "| Loop3 | - | - | - | - | - |" in lines
    assert "| \u00a0\u00a0Loop3.1 | - | - | - | 6 | 6 |" in lines
    assert "| C simulation | - |" in lines


def test_summary_markdown_rows():
    rows = [
        FunctionReport("hls_sobel", parse_csynth_xml(fixture(SOBEL)), csim=True),
        FunctionReport(
            "nms",
            parse_csynth_xml(fixture(NMS)),
            cosim=parse_cosim_rpt(fixture(NMS_COSIM)),
            csim=parse_csim_log(fixture(NMS_CSIM)),
        ),
        FunctionReport("topk_sort", parse_csynth_xml(fixture(TOPK)), csim=False),
        FunctionReport("unique_paths", parse_csynth_xml(fixture(UNIQUE_PATHS))),
        FunctionReport("Stage_C", None, csim=True),
    ]
    assert render_summary_markdown(rows).splitlines() == [
        "| Function | Csim | Cosim | Latency (cycles) | Interval (cycles) | Loop II "
        "| BRAM_18K | DSP | FF | LUT | URAM | Clock est / target (ns) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        "| hls_sobel | pass | - | 160 ~ 2089114 | 159 ~ 2089113 | - | 9 (22.5%) | 0 (0%) | 1680 (10.5%) "
        "| 4546 (56.83%) | - | 8.144 / 10 |",
        "| nms | pass | Pass | undef | undef | - | 38 (13.57%) | 27 (12.27%) | 8709 (8.19%) "
        "| 19329 (36.33%) | 0 | 7.3 / 10 |",
        "| topk_sort | fail | - | 105704 ~ 115406 | 105705 ~ 115407 | 1 | 0 (0%) | 0 (0%) "
        "| 13040 (5.57%) | 11733 (10.02%) | 0 (0%) | 2.598 / 10 |",
        "| unique_paths | - | - | undef | undef | 1 ~ 6 | 200 (71.43%) | 0 (0%) | 1942 (1.83%) "
        "| 10919 (20.52%) | 0 | 8.356 / 10 |",
        "| Stage_C | pass | - | - | - | - | - | - | - | - | - | - |",
    ]


def test_function_report_to_dict_is_json_serializable():
    row = FunctionReport("nms", parse_csynth_xml(fixture(NMS)), csim=parse_csim_log(fixture(NMS_CSIM)))
    data = json.loads(json.dumps(row.to_dict()))
    assert data["name"] == "nms"
    assert data["csynth"]["resources"]["LUT"] == 19329
    assert data["csim"]["passed"] is True
    assert data["cosim"] is None


def test_markdown_escapes_pipes_in_names():
    text = render_summary_markdown([FunctionReport("a|b")])
    assert "| a\\|b |" in text
