"""Parse the result files of a function: Vitis / Vivado HLS reports (csynth XML, cosim rpt, csim log)
and hclbuild's own QoR estimate. Rendering them (markdown, HTML, pictures, comparison) is
hclbuild.render's.

    values     readers of report values (numbers, "1 ~ 99" spans, "2.627 ms", undef -> None)
    csynth     <top>_csynth.xml -> CsynthReport; InterfaceSummary/RtlPorts -> RtlPort
    sim        <top>_cosim.rpt -> CosimReport, <top>_csim.log -> CsimLog
    estimate   estimate/<func>.json -> EstimateReport (a model's figures, not a tool's)

The parsers use the standard library only.
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
from hclbuild.runtime.report.estimate import (
    EstimatedLoop,
    EstimateReport,
    estimate_from_dict,
    parse_estimate_json,
)
from hclbuild.runtime.report.sim import CosimReport, CosimRun, CsimLog, parse_cosim_rpt, parse_csim_log
from hclbuild.runtime.report.values import Number, Span

__all__ = [
    "RESOURCE_ORDER",
    "CosimReport",
    "CosimRun",
    "CsimLog",
    "CsynthReport",
    "EstimateReport",
    "EstimatedLoop",
    "LoopReport",
    "ModuleReport",
    "Number",
    "RtlPort",
    "Span",
    "estimate_from_dict",
    "parse_cosim_rpt",
    "parse_csim_log",
    "parse_csynth_xml",
    "parse_estimate_json",
    "parse_rtl_ports",
]
