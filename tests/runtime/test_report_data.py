"""Report parsers on hand-written reports in tests/data/reports (present in every clone).

The files copy the shapes of real Vivado HLS 2018.3/2019.1 and Vitis HLS 2022.1 output: flat and
indented XML, CRLF line endings, `undef` latencies, `<range>` and "a ~ b" values, DSP48E vs DSP,
URAM absent or zero, nested loops, ModuleInformation with AVAIL_/UTIL_ entries, pass/fail cosim
tables and csim logs. Every expected value below was read by hand from those files.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from hclbuild.errors import ToolError
from hclbuild.render.markdown import (
    FunctionReport,
    render_function_markdown,
    render_summary_markdown,
)
from hclbuild.runtime.report import (
    CsynthReport,
    Span,
    parse_cosim_rpt,
    parse_csim_log,
    parse_csynth_xml,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "reports"
FLAT_UNDEF = DATA / "flat_undef_loops.csynth.xml"
FLAT_DATAFLOW = DATA / "flat_dataflow_no_uram.csynth.xml"
INDENTED_CRLF = DATA / "indented_modules_crlf.csynth.xml"
CSYNTH_FILES = [FLAT_UNDEF, FLAT_DATAFLOW, INDENTED_CRLF]


# ---- csynth XML ----------------------------------------------------------------------------------


def test_flat_report_with_undef_latency_dsp48e_and_nested_loops():
    report = parse_csynth_xml(FLAT_UNDEF)
    assert (report.version, report.product_family, report.part) == ("2019.1", "zynq", "xc7z020-clg484-1")
    assert (report.top, report.flow_target, report.clock_unit) == ("walk", None, "ns")
    assert (report.target_clock, report.clock_uncertainty, report.estimated_clock) == (10.0, 1.25, 8.125)
    assert report.pipeline_type == "none"
    assert (report.best_latency, report.average_latency, report.worst_latency) == (None, None, None)
    assert (report.interval_min, report.interval_max) == (None, None)
    assert report.latency is None and report.interval is None and report.dataflow_throughput is None
    assert report.resources == {"BRAM_18K": 12, "DSP": 5, "FF": 900, "LUT": 2100, "URAM": 0}
    assert report.available == {"BRAM_18K": 280, "DSP": 220, "FF": 106400, "LUT": 53200, "URAM": 0}
    # 12/280, 5/220, 900/106400, 2100/53200; nothing available of URAM: no percentage
    assert report.utilization == {"BRAM_18K": 4.29, "DSP": 2.27, "FF": 0.85, "LUT": 3.95, "URAM": None}
    assert report.modules == []


def test_flat_loops_nest_and_pipelined_is_inferred_from_ii():
    report = parse_csynth_xml(FLAT_UNDEF)
    assert [(depth, loop.name) for depth, loop in report.iter_loops()] == [
        (0, "Row"),
        (0, "Scan"),
        (1, "Scan.1"),
        (1, "Scan.2"),
    ]
    row, scan = report.loops
    assert (row.trip_count, row.latency) == (None, None)
    assert (row.pipeline_ii, row.pipeline_depth) == (Span(3, 3), Span(4, 4))
    assert row.pipelined is True  # no PipelineType in old flat tables: an II means pipelined
    assert (scan.trip_count, scan.iteration_latency) == (None, None)
    assert (scan.pipeline_ii, scan.pipelined) == (None, None)
    first, second = scan.sub_loops
    assert (first.trip_count, first.latency) == (Span(16, 16), Span(32, 32))
    assert first.iteration_latency == Span(2, 2)
    assert first.pipelined is None
    assert (second.pipeline_ii, second.pipeline_depth, second.pipelined) == (Span(1, 1), Span(5, 5), True)
    assert report.loop_ii == Span(1, 3)


def test_flat_dataflow_report_without_uram():
    report = parse_csynth_xml(FLAT_DATAFLOW)
    assert (report.version, report.product_family, report.part) == ("2018.3", "artix7", "xc7a35t-cpg236-1")
    assert (report.top, report.target_clock, report.clock_uncertainty) == ("stream_top", 5.0, 0.62)
    assert (report.estimated_clock, report.pipeline_type) == (4.375, "dataflow")
    assert (report.best_latency, report.average_latency, report.worst_latency) == (40, None, 1000)
    assert (report.interval_min, report.interval_max) == (41, 1001)
    assert report.latency == Span(40, 1000) and report.interval == Span(41, 1001)
    assert report.dataflow_throughput == Span(41, 1001)  # <range><min>41</min><max>1001</max></range>
    assert report.best_latency_ns is None  # no RealTimeLatency tags before 2020
    assert report.resources == {"BRAM_18K": 4, "DSP": 0, "FF": 300, "LUT": 750}
    assert "URAM" not in report.available
    assert report.utilization == {"BRAM_18K": 4.0, "DSP": 0.0, "FF": 0.72, "LUT": 3.61}
    assert report.loops == [] and report.loop_ii is None


def test_indented_crlf_report_top_level_values():
    assert b"\r\n" in INDENTED_CRLF.read_bytes()  # the point of this file
    report = parse_csynth_xml(INDENTED_CRLF)
    assert (report.version, report.part, report.top) == ("2022.1", "xck26-sfvc784-2LV-c", "sorter")
    assert (report.flow_target, report.target_clock, report.estimated_clock) == ("vitis", 4.0, 2.92)
    assert (report.best_latency, report.average_latency, report.worst_latency) == (2050, None, 26050)
    # "8.200 us", undef, "0.104 ms"
    assert report.best_latency_ns == 8200.0
    assert (report.average_latency_ns, report.worst_latency_ns) == (None, 104000.0)
    assert report.resources == {"BRAM_18K": 2, "DSP": 3, "FF": 1500, "LUT": 3300, "URAM": 0}
    assert report.available["URAM"] == 64
    assert report.utilization == {"BRAM_18K": 0.69, "DSP": 0.24, "FF": 0.64, "LUT": 2.82, "URAM": 0.0}


def test_indented_loops_read_ranges_and_fill_gaps_from_the_top_module():
    report = parse_csynth_xml(INDENTED_CRLF)
    load, sort = report.loops
    assert (load.trip_count, load.latency) == (Span(1024, 1024), Span(2048, 2048))
    assert load.iteration_latency == Span(2, 2)
    assert load.latency_ns == Span(8192.0, 8192.0)  # a bare number in the report's unit
    assert sort.latency == Span(0, 24000)  # <range>
    assert sort.latency_ns == Span(0.0, 96000.0)
    assert sort.iteration_latency == Span(0, 3000)
    # PipelineDepth and PipelineType exist only in ModuleInformation's top module
    assert (load.pipeline_depth, load.pipelined) == (Span(2, 2), False)
    assert (sort.pipeline_depth, sort.pipelined) == (Span(0, 3000), False)
    (inner,) = sort.sub_loops
    assert (inner.name, inner.trip_count, inner.latency) == ("SORT_INNER", Span(0, 1000), Span(0, 3000))
    assert (inner.pipeline_depth, inner.pipelined) == (Span(3, 3), False)
    # LOAD is pipelined (II 1) in its own module sorter_Pipeline_LOAD, as Vitis 2022+ reports it
    assert report.loop_ii == Span(1, 1)


def test_indented_module_information():
    report = parse_csynth_xml(INDENTED_CRLF)
    pipeline, top = report.modules
    assert (pipeline.name, pipeline.estimated_clock) == ("sorter_Pipeline_LOAD", 2.1)
    assert (pipeline.best_latency, pipeline.average_latency, pipeline.worst_latency) == (1, None, 1026)
    assert pipeline.interval == Span(1, 1027)  # "1 ~ 1027"
    assert pipeline.resources == {"DSP": 0, "FF": 40, "LUT": 90}  # AVAIL_* / UTIL_* ("~0") skipped
    (loop,) = pipeline.loops
    assert (loop.trip_count, loop.latency) == (Span(1, 1024), Span(1, 1024))
    assert loop.latency_ns == Span(4.0, 4096.0)  # "4.000 ns ~ 4.096 us"
    assert (loop.pipeline_ii, loop.pipeline_depth, loop.pipelined) == (Span(1, 1), Span(2, 2), True)
    assert top.name == "sorter" and top.interval == Span(2051, 26051)
    assert top.resources == {"BRAM_18K": 2, "DSP": 3, "FF": 1500, "LUT": 3300, "URAM": 0}
    assert [loop.name for loop in top.loops] == ["LOAD", "SORT", "NOT_IN_TOP"]


def test_hand_written_report_is_json_serializable():
    data = json.loads(json.dumps(parse_csynth_xml(INDENTED_CRLF).to_dict()))
    assert data["loops"][1]["latency"] == {"min": 0, "max": 24000}
    assert data["loops"][1]["sub_loops"][0]["name"] == "SORT_INNER"
    assert data["modules"][0]["interval"] == {"min": 1, "max": 1027}


@pytest.mark.parametrize("path", CSYNTH_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("section", ["UserAssignments", "PerformanceEstimates", "AreaEstimates"])
def test_hand_written_report_with_a_section_removed_parses_with_none_fields(tmp_path, path, section):
    root = ET.parse(path).getroot()
    root.remove(root.find(section))
    trimmed = tmp_path / "csynth.xml"
    ET.ElementTree(root).write(trimmed)
    report = parse_csynth_xml(trimmed)
    assert report.version is not None
    if section == "UserAssignments":
        assert report.part is None and report.top is None and report.target_clock is None
        assert report.modules == [] or all(loop.pipeline_depth is None for loop in report.loops)
    elif section == "PerformanceEstimates":
        assert report.best_latency is None and report.estimated_clock is None and report.loops == []
    else:
        assert report.resources == {} and report.available == {} and report.utilization == {}
    render_function_markdown("f", report)


def _write(tmp_path: Path, text: str, name: str = "csynth.xml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_resource_cells_that_are_not_counts_duplicates_and_extra_kinds(tmp_path):
    path = _write(
        tmp_path,
        "<profile><AreaEstimates><Resources>"
        "<SRL>7</SRL><LUT>-</LUT><DSP>4</DSP><DSP48E>9</DSP48E><FF>12.0</FF><BRAM_18K>1.5</BRAM_18K>"
        "</Resources></AreaEstimates></profile>",
    )
    report = parse_csynth_xml(path)
    # "-" and "1.5" are no counts; "12.0" is 12; the first DSP spelling wins; SRL follows the known kinds
    assert list(report.resources.items()) == [("DSP", 4), ("FF", 12), ("SRL", 7)]
    assert report.utilization == {"DSP": None, "FF": None, "SRL": None}


def test_odd_latency_and_loop_values(tmp_path):
    path = _write(
        tmp_path,
        """<profile>
  <UserAssignments><unit>us</unit><TopModelName>t</TopModelName></UserAssignments>
  <PerformanceEstimates>
    <SummaryOfOverallLatency>
      <Best-caseLatency>12.5</Best-caseLatency><Worst-caseLatency>1 ~ 5</Worst-caseLatency>
      <Best-caseRealTimeLatency>2</Best-caseRealTimeLatency>
      <Average-caseRealTimeLatency>5 fs</Average-caseRealTimeLatency>
      <Worst-caseRealTimeLatency>e ns</Worst-caseRealTimeLatency>
      <Interval-min>soon</Interval-min>
      <DataflowPipelineThroughput><range><min>undef</min><max>undef</max></range></DataflowPipelineThroughput>
    </SummaryOfOverallLatency>
    <SummaryOfLoopLatency>
      <unit>clock cycles</unit>
      <A>
        <TripCount><min>3</min></TripCount>
        <Latency>1 ~ 2 ~ 3</Latency>
        <AbsoluteTimeLatency>1 ~ 2 ~ 3</AbsoluteTimeLatency>
        <IterationLatency>undef ~ 9</IterationLatency>
        <PipelineII>undef</PipelineII>
        <PipelineType>maybe</PipelineType>
        <Slack>-0.25</Slack>
      </A>
      <B>
        <Latency>4</Latency>
        <AbsoluteTimeLatency><range><min>undef</min><max>1.5 ms</max></range></AbsoluteTimeLatency>
      </B>
      <C><Latency>undef</Latency><AbsoluteTimeLatency>undef</AbsoluteTimeLatency></C>
    </SummaryOfLoopLatency>
  </PerformanceEstimates>
  <ModuleInformation><Module><Name>t</Name><PerformanceEstimates><SummaryOfLoopLatency>
    <B><Name>B</Name><Latency>4</Latency><PipelineDepth>2</PipelineDepth></B>
  </SummaryOfLoopLatency></PerformanceEstimates></Module></ModuleInformation>
</profile>""",
    )
    report = parse_csynth_xml(path)
    assert report.best_latency is None  # 12.5 cycles is no count
    assert report.worst_latency is None  # a range where one number belongs
    assert report.best_latency_ns == 2000.0  # bare number in the report's unit (us)
    assert report.average_latency_ns is None and report.worst_latency_ns is None  # unknown unit, no number
    assert report.interval_min is None and report.dataflow_throughput is None
    a, b, c = report.loops  # <unit> in the loop table is not a loop
    assert a.trip_count == Span(3, None)
    assert a.latency is None and a.latency_ns is None  # three ends: not a span
    assert a.iteration_latency == Span(None, 9)
    assert str(a.iteration_latency) == "undef ~ 9"
    assert (a.pipeline_ii, a.pipelined, a.slack_ns) == (None, None, -0.25)
    assert b.latency_ns == Span(None, 1_500_000.0)
    assert b.pipeline_depth == Span(2, 2)  # filled from module t; A has no counterpart there
    assert a.pipeline_depth is None
    assert c.latency is None and c.latency_ns is None
    (module,) = report.modules
    assert module.best_latency is None and module.interval is None and module.resources == {}


def test_module_without_performance_estimates(tmp_path):
    path = _write(
        tmp_path,
        "<profile><ReportVersion><Version>2023.1</Version></ReportVersion>"
        "<ModuleInformation><Module><Name>m</Name></Module></ModuleInformation></profile>",
    )
    (module,) = parse_csynth_xml(path).modules
    assert (module.name, module.best_latency, module.interval, module.loops) == ("m", None, None, [])


# ---- cosim ---------------------------------------------------------------------------------------


def test_cosim_pass_with_intervals():
    report = parse_cosim_rpt(DATA / "pass.cosim.rpt")
    assert report.report_time == "Mon 14 Jul 2025 09:05:11 AM UTC"
    assert (report.solution, report.simulation_tool) == ("solution1", "xsim")
    assert list(report.runs) == ["VHDL", "Verilog"]
    for run in report.runs.values():
        assert run.status == "Pass"
        assert (run.latency_min, run.latency_avg, run.latency_max) == (2050, 14050, 26050)
        assert (run.interval_min, run.interval_avg, run.interval_max) == (2051, 14051, 26051)
        assert run.total_execution_time == 42153
    assert report.status == "Pass" and report.passed


def test_cosim_fail():
    report = parse_cosim_rpt(DATA / "fail.cosim.rpt")
    assert report.report_time == "Fri Mar 7 16:40:02 2025"  # runs of spaces collapsed
    assert report.runs["Verilog"].status == "Fail" and report.runs["Verilog"].latency_min is None
    assert report.runs["VHDL"].status == "NA"
    assert report.status == "Fail" and not report.passed
    assert json.loads(json.dumps(report.to_dict()))["status"] == "Fail"


def test_cosim_all_na_and_short_rows(tmp_path):
    path = _write(tmp_path, "|  |Pass|\n| Verilog | NA |\n| VHDL | na | 5 |\n", "t_cosim.rpt")
    report = parse_cosim_rpt(path)
    assert list(report.runs) == ["Verilog", "VHDL"]  # a row without an RTL name is skipped
    assert report.runs["VHDL"].latency_min == 5 and report.runs["VHDL"].total_execution_time is None
    assert report.status == "NA" and not report.passed


def test_cosim_without_rows_or_file_is_a_tool_error(tmp_path):
    with pytest.raises(ToolError, match="not an HLS cosim report"):
        parse_cosim_rpt(FLAT_UNDEF)
    with pytest.raises(ToolError, match="cannot read cosim report"):
        parse_cosim_rpt(tmp_path / "absent.rpt")


# ---- csim log ------------------------------------------------------------------------------------


def test_csim_log_pass_with_testbench_output():
    log = parse_csim_log(DATA / "pass.csim.log")
    assert (log.passed, log.finished, log.error_count, log.return_value) == (True, True, 0, None)
    assert log.error_lines == [] and log.mismatch_lines == []


def test_csim_log_crlf_nonzero_return_value():
    path = DATA / "fail_return_crlf.csim.log"
    assert b"\r\n" in path.read_bytes()
    log = parse_csim_log(path)
    assert (log.passed, log.finished, log.error_count, log.return_value) == (False, True, None, 3)
    assert log.error_lines == [
        "@E Simulation failed: Function 'main' returns nonzero value '3'.",
        "ERROR: [SIM 211-100] 'csim_design' failed: nonzero return value.",
    ]
    # the tool's own WARNING line says "differs" too, but it is not testbench output
    assert log.mismatch_lines == ["key 17: expected 301 but got 300"]


def test_csim_log_failed_with_count():
    log = parse_csim_log(DATA / "failed_count.csim.log")
    assert (log.passed, log.finished, log.error_count) == (False, True, 2)


def test_csim_log_compile_error():
    log = parse_csim_log(DATA / "compile_error.csim.log")
    assert (log.passed, log.finished, log.return_value) == (False, True, None)
    assert log.error_lines == ["ERROR: [SIM 211-100] 'csim_design' failed: compilation error(s)."]


def test_csim_log_truncated_or_missing():
    log = parse_csim_log(DATA / "truncated.csim.log")
    assert (log.passed, log.finished, log.error_count) == (False, False, None)
    with pytest.raises(ToolError, match="cannot read csim log"):
        parse_csim_log(DATA / "absent.csim.log")


# ---- markdown ------------------------------------------------------------------------------------


def test_function_markdown_exact_for_flat_dataflow():
    text = render_function_markdown("stream_top", parse_csynth_xml(FLAT_DATAFLOW), csim=False)
    assert text == (
        "### stream_top\n"
        "\n"
        "| Metric | Value |\n"
        "|---|---|\n"
        "| HLS version | 2018.3 |\n"
        "| Part | xc7a35t-cpg236-1 (artix7) |\n"
        "| Top | stream_top |\n"
        "| Target clock (ns) | 5 |\n"
        "| Clock uncertainty (ns) | 0.62 |\n"
        "| Estimated clock (ns) | 4.375 |\n"
        "| Latency best / avg / worst (cycles) | 40 / undef / 1000 |\n"
        "| Interval min / max (cycles) | 41 / 1001 |\n"
        "| Pipeline type | dataflow |\n"
        "| C simulation | fail |\n"
        "\n"
        "| Resource | Used | Available | Utilization (%) |\n"
        "|---|---|---|---|\n"
        "| BRAM_18K | 4 | 100 | 4 |\n"
        "| DSP | 0 | 90 | 0 |\n"
        "| FF | 300 | 41600 | 0.72 |\n"
        "| LUT | 750 | 20800 | 3.61 |\n"
    )


def test_function_markdown_rows_for_indented_with_cosim_and_csim_log():
    lines = render_function_markdown(
        "sorter",
        parse_csynth_xml(INDENTED_CRLF),
        cosim=parse_cosim_rpt(DATA / "pass.cosim.rpt"),
        csim=parse_csim_log(DATA / "fail_return_crlf.csim.log"),
    ).splitlines()
    assert "| Latency best / avg / worst (cycles) | 2050 / undef / 26050 |" in lines
    assert "| Latency best / avg / worst (time) | 8.2 us / - / 104 us |" in lines
    assert "| C simulation | fail |" in lines
    assert "| Co-simulation | Pass |" in lines
    assert "| URAM | 0 | 64 | 0 |" in lines
    assert "| LOAD | 1024 | 2048 | 2 | - | 2 |" in lines
    assert "| SORT | 8 | 0 ~ 24000 | 0 ~ 3000 | - | 0 ~ 3000 |" in lines
    assert "| \u00a0\u00a0SORT_INNER | 0 ~ 1000 | 0 ~ 3000 | 3 | - | 3 |" in lines
    assert "| VHDL | Pass | 2050 / 14050 / 26050 | 2051 / 14051 / 26051 | 42153 |" in lines


def test_function_markdown_without_csynth_and_with_sparse_fields():
    assert render_function_markdown("f", None) == (
        "### f\n\n| Metric | Value |\n|---|---|\n| C simulation | - |\n"
    )
    sparse = CsynthReport(source="x", target_clock=123456789012345678.0, best_latency_ns=2.5e9)
    lines = render_function_markdown("g", sparse, csim=parse_csim_log(DATA / "pass.csim.log")).splitlines()
    assert "| Part | - |" in lines
    assert "| Target clock (ns) | 1.2345678901234568e+17 |" in lines  # huge floats keep every digit
    assert "| Latency best / avg / worst (time) | 2.5 s / - / - |" in lines
    assert "| Latency best / avg / worst (cycles) | undef / undef / undef |" in lines
    assert "| C simulation | pass |" in lines
    assert not any(line.startswith("| Pipeline type") for line in lines)
    times = CsynthReport(source="x", best_latency_ns=3.5e6, average_latency_ns=250.0, worst_latency_ns=0.5)
    assert (
        "| Latency best / avg / worst (time) | 3.5 ms / 250 ns / 0.5 ns |"
        in render_function_markdown("h", times).splitlines()
    )


def test_summary_markdown_rows_for_hand_written_reports():
    rows = [
        FunctionReport("walk", parse_csynth_xml(FLAT_UNDEF), csim=True),
        FunctionReport(
            "stream_top",
            parse_csynth_xml(FLAT_DATAFLOW),
            cosim=parse_cosim_rpt(DATA / "fail.cosim.rpt"),
            csim=parse_csim_log(DATA / "failed_count.csim.log"),
        ),
        FunctionReport(
            "sorter",
            parse_csynth_xml(INDENTED_CRLF),
            cosim=parse_cosim_rpt(DATA / "pass.cosim.rpt"),
            csim=parse_csim_log(DATA / "pass.csim.log"),
        ),
        FunctionReport("Stage_x"),
    ]
    assert render_summary_markdown(rows).splitlines()[2:] == [
        "| walk | pass | - | undef | undef | 1 ~ 3 | 12 (4.29%) | 5 (2.27%) | 900 (0.85%) | 2100 (3.95%) "
        "| 0 | 8.125 / 10 |",
        "| stream_top | fail | Fail | 40 ~ 1000 | 41 ~ 1001 | - | 4 (4%) | 0 (0%) | 300 (0.72%) "
        "| 750 (3.61%) | - | 4.375 / 5 |",
        "| sorter | pass | Pass | 2050 ~ 26050 | 2051 ~ 26051 | 1 | 2 (0.69%) | 3 (0.24%) | 1500 (0.64%) "
        "| 3300 (2.82%) | 0 (0%) | 2.92 / 4 |",
        "| Stage_x | - | - | - | - | - | - | - | - | - | - | - |",
    ]
    data = json.loads(json.dumps(rows[2].to_dict()))
    assert data["csim"]["passed"] is True and data["cosim"]["status"] == "Pass"
    assert data["csynth"]["modules"][1]["name"] == "sorter"
    assert json.loads(json.dumps(rows[0].to_dict()))["csim"] is True


# ---- RTL ports -----------------------------------------------------------------------------------


def test_rtl_ports_of_hand_written_reports(tmp_path):
    from hclbuild.runtime.report import RtlPort, parse_rtl_ports

    clock = RtlPort("ap_clk", "sorter", "return value", "ap_ctrl_hs", "in", 1)
    assert parse_rtl_ports(INDENTED_CRLF) == [clock]
    flat_clock = RtlPort("ap_clk", "walk", "return value", "ap_ctrl_hs", None, None)  # no Dir/Bits in 2019.1
    assert parse_rtl_ports(FLAT_UNDEF) == [flat_clock]
    odd = _write(
        tmp_path,
        "<profile><InterfaceSummary><RtlPorts><Object>x</Object></RtlPorts>"
        "<RtlPorts><name>a_q0</name><Dir>in</Dir><Bits>wide</Bits></RtlPorts></InterfaceSummary></profile>",
    )
    assert parse_rtl_ports(odd) == [RtlPort("a_q0", None, None, None, "in", None)]  # nameless entry skipped
    with pytest.raises(ToolError, match="lists no RTL ports"):
        parse_rtl_ports(FLAT_DATAFLOW)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("<project/>", "root element <project>, expected <profile>"),
        (
            "<profile><Something/></profile>",
            "<profile> has none of ReportVersion, UserAssignments, PerformanceEstimates, AreaEstimates",
        ),
    ],
    ids=["other-root", "profile-without-sections"],
)
def test_a_non_csynth_xml_says_what_is_wrong_with_it(tmp_path, content, reason):
    path = tmp_path / "odd.xml"
    path.write_text(content)
    with pytest.raises(ToolError) as info:
        parse_csynth_xml(path)
    assert str(info.value) == f"{path}: not an HLS csynth report ({reason})"
