"""Find and run the AMD Vitis HLS tools (vitis_hls, vitis-run, v++).

    front_ends   one class per way to drive Vitis HLS (vitis_hls, vitis-run --tcl, v++), the order
                 `[hls] tool = "auto"` prefers them in, find_vitis
    tools        where the executables and headers are (VitisTools), which release they are
    run          the steps of one function's HLS folder with a front end; one tool run with its log,
                 timeout and one-line errors

Everything is importable from here (standard library only underneath, so task planning may ask
find_vitis without paying for more than it uses).
"""

from hclbuild.runtime.vitis.front_ends import (
    FRONT_ENDS,
    GOLDEN_DATA_DIR,
    NAMES,
    FrontEnd,
    ToolCommand,
    choose_front_end,
    find_vitis,
    front_end,
)
from hclbuild.runtime.vitis.run import (
    STEPS,
    STEPS_ENV,
    TAIL_LINES,
    ToolRun,
    find_csynth_report,
    log_tail,
    ordered_steps,
    report_dirs,
    run_cfg,
    run_hls_steps,
    run_tcl,
    run_tool,
)
from hclbuild.runtime.vitis.tools import (
    PACKAGE_FORMAT_SINCE,
    Executable,
    VitisTools,
    output_format_key,
    version_of,
)

__all__ = [
    "FRONT_ENDS",
    "GOLDEN_DATA_DIR",
    "NAMES",
    "PACKAGE_FORMAT_SINCE",
    "STEPS",
    "STEPS_ENV",
    "TAIL_LINES",
    "Executable",
    "FrontEnd",
    "ToolCommand",
    "ToolRun",
    "VitisTools",
    "choose_front_end",
    "find_csynth_report",
    "find_vitis",
    "front_end",
    "log_tail",
    "ordered_steps",
    "output_format_key",
    "report_dirs",
    "run_cfg",
    "run_hls_steps",
    "run_tcl",
    "run_tool",
    "version_of",
]
