"""hcl.Platform: HeteroCL's build-to-project targets (aws_f1, xilinx_zc706, intel_vlab).

`target.config(compiler=..., mode=..., project=...)` then `hcl.build(s, target=target)`:
- "debug": the Vitis HLS C++ text (as HeteroCL returns it);
- "sw_sim": the LLVM-built function (the same as hcl.build(s));
- "csim": a function that, called with the arrays, runs the LLVM reference on them (the results
  land in the arrays), writes hclbuild's per-function HLS project tree into `project` with those
  arrays as golden data, and compiles and runs every function's testbench with g++;
- "csyn" / "cosim" / "impl": csim, then the Vitis steps in every function folder, only when a
  Vitis tool (vitis_hls, vitis-run, v++) is found; otherwise a ToolError says that none is.
`s.to(tensor, target.xcel | target.host, burst_len=...)` records where an argument's data moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hclbuild.dsl.array import Array
from hclbuild.errors import APIError, HCLNotImplementedError, ToolError
from hclbuild.project.config import TOP_INTERFACE, ProjectConfig
from hclbuild.project.in_process import hls_text, llvm_function, run_design
from hclbuild.project.layout import BuildLayout
from hclbuild.report import report_of
from hclbuild.runtime.host_args import convert_argument
from hclbuild.runtime.vitis import find_vitis, run_hls_steps

MODES = ("sw_sim", "debug", "csim", "csyn", "cosim", "impl")
_STEPS = {"csyn": ["csynth"], "cosim": ["csynth", "cosim"], "impl": ["csynth", "impl"]}
_COMPILERS = ("vitis", "vivado_hls", "vitis_hls", "aocl")


@dataclass(frozen=True)
class Device:
    """One side of a platform: the host (CPU) or the accelerator (FPGA)."""

    kind: str  # "host" | "xcel"
    vendor: str
    model: str

    def __repr__(self) -> str:
        return f"Device({self.kind}: {self.vendor} {self.model})"


class Platform:
    """A board: host and accelerator devices, the default HLS tool and part; configured by config()."""

    aws_f1: Platform
    xilinx_zc706: Platform
    intel_vlab: Platform

    def __init__(self, name: str, host: Device, xcel: Device, compiler: str, part: str):
        self.name = name
        self.host = host
        self.xcel = xcel
        self.devs = [host, xcel]
        self.part = part
        self.compiler = compiler
        self.mode = "sw_sim"
        self.project = f"{name}.prj"

    def config(
        self,
        compiler: str | None = None,
        mode: str | None = None,
        backend: str | None = None,
        script: str | None = None,
        project: str | None = None,
    ) -> Platform:
        """config(compiler="vitis"|"vivado_hls", mode="debug"|"csim"|"csyn"|"cosim"|"impl", project=dir)."""
        if compiler is not None:
            if compiler not in _COMPILERS:
                raise APIError(
                    f"{self.name}.config: unknown compiler {compiler!r} (expected {', '.join(_COMPILERS)})"
                )
            self.compiler = compiler
        if mode is not None:
            if mode not in MODES:
                raise APIError(f"{self.name}.config: unknown mode {mode!r} (expected {', '.join(MODES)})")
            self.mode = mode
        if project is not None:
            self.project = str(project)
        return self

    def __repr__(self) -> str:
        return f"Platform({self.name!r}, compiler={self.compiler!r}, mode={self.mode!r})"


Platform.aws_f1 = Platform(
    "aws_f1",
    Device("host", "intel", "e5"),
    Device("xcel", "xilinx", "xcvu9p"),
    "vitis",
    "xcvu9p-flgb2104-2-i",
)
Platform.xilinx_zc706 = Platform(
    "zc706", Device("host", "arm", "a9"), Device("xcel", "xilinx", "xc7z045"), "vivado_hls", "xc7z045ffg900-2"
)
Platform.intel_vlab = Platform(
    "vlab", Device("host", "intel", "e5"), Device("xcel", "intel", "arria10"), "aocl", "arria10"
)


def build_for_platform(schedule: Any, platform: Platform) -> Any:
    """hcl.build(s, target=platform): C++ text, an LLVM function, or a project-flow function."""
    if platform.compiler == "aocl":
        raise HCLNotImplementedError(
            f"{platform.name}: Intel OpenCL (aocl) projects are not generated; "
            "use a Xilinx platform (aws_f1, xilinx_zc706)"
        )
    if platform.mode == "debug":
        return hls_text(schedule)
    if platform.mode == "sw_sim":
        return llvm_function(schedule)
    return ProjectFunction(schedule, platform, llvm_function(schedule))


class ProjectFunction:
    """What hcl.build(s, target=platform) returns in the csim/csyn/cosim/impl modes."""

    def __init__(self, schedule: Any, platform: Platform, llvm_function: Any):
        self.schedule = schedule
        self.platform = platform
        self.mode = platform.mode
        self.project = Path(platform.project)
        self._llvm = llvm_function
        self.signature = llvm_function.signature
        self.csim: dict[str, Any] = {}
        self.functions: list[str] = []
        self.layout: Any = None

    def __call__(self, *args: Any) -> None:
        # the project's golden data is what the arrays hold before the call
        before = [a.storage.copy() if isinstance(a, Array) else a for a in args]
        self._llvm(*args)
        self._project_flow(before)
        if self.mode in _STEPS:
            self._vitis_steps()

    def _project_flow(self, before: list[Any]) -> None:
        params = list(self.schedule.inputs) + list(self.schedule.outputs)
        storages = []
        for param, value in zip(params, before):
            value = convert_argument(param, value)
            storages.append(value.storage if isinstance(value, Array) else value)
        name = self.schedule.name
        layout = BuildLayout(self.project, name)
        flow_target = "vitis" if self.platform.compiler == "vitis" else "vivado"
        config = ProjectConfig(
            name=name,
            top=name,
            part=self.platform.part,
            flow_target=flow_target,
            interfaces=_burst_interfaces(self.schedule, params, flow_target),
        )
        run = run_design(self.schedule, layout, config, lambda rng: storages[: len(self.schedule.inputs)])
        self.csim = run.csim
        self.functions = run.functions
        self.layout = layout

    def _vitis_steps(self) -> None:
        tools = find_vitis()
        if tools is None:
            raise ToolError(
                f"{self.platform.name}: mode {self.mode!r} runs Vitis HLS, but no vitis_hls, vitis-run or v++ "
                f"was found on PATH or under $XILINX_HLS; the projects and their passing csim are in "
                f"{self.layout.root}"
            )
        for func in self.functions:
            run_hls_steps(self.layout.hls_dir(func), func, _STEPS[self.mode], tools=tools)

    def report(self) -> Any:
        """The top function's csynth report as HeteroCL's displayer (needs a csyn run)."""
        if self.layout is None:
            raise APIError(
                f"{self.platform.name}: call the built function first; report() reads its csynth report"
            )
        return report_of(self.layout.hls_dir(self.schedule.name), self.schedule.name)


def _burst_interfaces(
    schedule: Any, params: list[Any], flow_target: str
) -> dict[str, dict[str, dict[str, Any]]]:
    """[interface] settings from `s.to(A, platform.xcel, burst_len=n)`: the m_axi port of A reads and
    writes bursts of up to n beats. Only the vitis flow has m_axi ports; vivado's ap_memory has no bursts."""
    if flow_target != "vitis":
        return {}
    bursts = {}
    for param in params:
        moved = schedule.data_movement.get(id(param))
        if moved is not None and moved[1] is not None:
            bursts[param.name] = {"max_read_burst_length": moved[1], "max_write_burst_length": moved[1]}
    return {TOP_INTERFACE: bursts} if bursts else {}
