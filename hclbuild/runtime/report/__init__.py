"""Parse Vitis / Vivado HLS reports (csynth XML, cosim rpt, csim log), render them as markdown, and
draw the pictures of report:<project> (design graph, per-function csynth chart).

    values     readers of report values (numbers, "1 ~ 99" spans, "2.627 ms", undef -> None)
    csynth     <top>_csynth.xml -> CsynthReport; InterfaceSummary/RtlPorts -> RtlPort
    sim        <top>_cosim.rpt -> CosimReport, <top>_csim.log -> CsimLog
    markdown   FunctionReport rows -> report.md tables
    graph      a design graph -> DOT, SVG (Graphviz dot) or PNG (matplotlib)
    charts     csynth latency and utilization per function -> PNG (matplotlib)

The parsers use the standard library only; the pictures need matplotlib (the `[plot]` extra) unless
Graphviz `dot` draws the graph.
"""

from hclbuild.runtime.report.csynth import (
    RESOURCE_ORDER,
    CsynthReport,
    LoopReport,
    ModuleReport,
    RtlPort,
    parse_csynth_xml,
    parse_rtl_ports,
)
from hclbuild.runtime.report.markdown import (
    SUMMARY_COLUMNS,
    FunctionReport,
    render_function_markdown,
    render_summary_markdown,
)
from hclbuild.runtime.report.sim import CosimReport, CosimRun, CsimLog, parse_cosim_rpt, parse_csim_log
from hclbuild.runtime.report.values import Number, Span

__all__ = [
    "RESOURCE_ORDER",
    "SUMMARY_COLUMNS",
    "CosimReport",
    "CosimRun",
    "CsimLog",
    "CsynthReport",
    "FunctionReport",
    "LoopReport",
    "ModuleReport",
    "Number",
    "RtlPort",
    "Span",
    "parse_cosim_rpt",
    "parse_csim_log",
    "parse_csynth_xml",
    "parse_rtl_ports",
    "render_function_markdown",
    "render_summary_markdown",
]
