"""The RTL blackbox description of a synthesized function (UG1399 "JSON File for RTL Blackbox").

With `top_assembly = "blackbox"`, csynth of the top synthesizes only the top's own code and takes
each outlined function as the RTL its own csynth produced: `add_files -blackbox <func>.json`
(`syn.blackbox.file=` in the unified flow). This module writes that JSON from the function's own
csynth report:

    c_function_name, rtl_top_module_name   the function (Vitis names the RTL top after it)
    c_files                                the function's own .cpp: the C model for csim
    rtl_files                              every Verilog file csynth wrote (syn/verilog/*.v)
    c_parameters                           per C argument: c_port_direction and rtl_ports from
                                           the report's RtlPorts (ap_memory -> RAM_1P/RAM_T2P,
                                           ap_none -> wire, ap_vld/ap_ovld, ap_fifo -> FIFO)
    c_return                               ap_return, when the function returns a value
    rtl_common_signal                      ap_clk, ap_rst, ap_ce and the ap_ctrl_chain signals
    rtl_performance                        worst-case latency and interval of the report
    rtl_resource_usage                     FF, LUT, BRAM (18K), URAM, DSP of the report

A blackbox has a block protocol of ap_ctrl_chain or ap_ctrl_none, an active-High reset, a clock
enable, and only wire/ap_vld/ap_ovld/FIFO/RAM ports, and its RTL is Verilog files (UG1399); a report
that shows anything else (m_axi, s_axilite, ap_ctrl_hs, ap_rst_n, no ap_ce), or RTL that needs
Vivado IP cores generated first (floating-point operators), is refused with the reason, naming the
function. hclbuild's own projects of outlined functions ask for what a blackbox needs when
top_assembly = "blackbox" (project/interfaces.py), so these refusals catch hand edits and float
operators.
Paths in the JSON are relative to the top's HLS folder, where both flows run (Vitis resolves them
against its working directory).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mlir import ir

from hclbuild.atomic import write_if_changed
from hclbuild.compiler.context import new_context
from hclbuild.compiler.emit_hls import c_signature
from hclbuild.compiler.upstream_attrs import symbols
from hclbuild.errors import HCLNotImplementedError, ToolError
from hclbuild.project.config import Project
from hclbuild.project.layout import BuildLayout
from hclbuild.runtime.report import RtlPort, parse_csynth_xml, parse_rtl_ports
from hclbuild.runtime.vitis import report_dirs

# rtl_ports keys of UG1399's RTL port protocol table, by the Vitis port-name suffix they take
_RAM_KEYS = {
    "address": "RAM_address",
    "ce": "RAM_clock_enable",
    "we": "RAM_write_enable",
    "d": "RAM_data_write_out",
    "q": "RAM_data_read_in",
}
_FIFO_KEYS = {
    "dout": "FIFO_data_read_in",
    "empty_n": "FIFO_empty_flag",
    "read": "FIFO_read_enable",
    "din": "FIFO_data_write_out",
    "full_n": "FIFO_full_flag",
    "write": "FIFO_write_enable",
}
_CONTROL_KEYS = {
    "ap_clk": "module_clock",
    "ap_rst": "module_reset",
    "ap_ce": "module_clock_enable",
    "ap_idle": "ap_ctrl_chain_protocol_idle",
    "ap_start": "ap_ctrl_chain_protocol_start",
    "ap_ready": "ap_ctrl_chain_protocol_ready",
    "ap_done": "ap_ctrl_chain_protocol_done",
    "ap_continue": "ap_ctrl_chain_protocol_continue",
}
_HANDSHAKE = ("ap_start", "ap_done", "ap_idle", "ap_ready")
_RAM_PORT = re.compile(r"^(?P<object>.+)_(?P<role>address|ce|we|d|q)(?P<port>[01])$")
_BLOCK_PROTOCOLS = ("ap_ctrl_chain", "ap_ctrl_hs", "ap_ctrl_none")
_RESOURCES = (("FF", "FF"), ("LUT", "LUT"), ("BRAM", "BRAM_18K"), ("URAM", "URAM"), ("DSP", "DSP"))


def c_parameters(func: str, ports: Sequence[RtlPort], arg_names: Sequence[str]) -> list[dict[str, Any]]:
    """c_parameters of the blackbox JSON: one entry per C argument, in argument order."""
    by_object: dict[str, list[RtlPort]] = {}
    for port in ports:
        if port.object is not None and port.object != func and port.name != "ap_return":
            by_object.setdefault(port.object, []).append(port)
    unknown = [name for name in by_object if name not in arg_names]
    if unknown:
        # partitioned or renamed arguments split into several RTL objects: one C argument, one port map
        raise ToolError(
            f"{func}: the RTL has ports of {', '.join(sorted(unknown))}, which is no C argument "
            f"(arguments: {', '.join(arg_names)}); a blackbox maps each C argument to one "
            "RTL interface, so outlined functions' arguments must not be partitioned"
        )
    params = []
    for name in arg_names:
        if name not in by_object:
            raise ToolError(f"{func}: the csynth report has no RTL port for argument {name}")
        params.append(_parameter(func, name, by_object[name]))
    return params


def common_signals(func: str, ports: Sequence[RtlPort]) -> dict[str, str]:
    """rtl_common_signal: clock, active-High reset, clock enable and the ap_ctrl_chain handshake."""
    names = {port.name for port in ports}
    control = {port.protocol for port in ports if port.object == func and port.protocol in _BLOCK_PROTOCOLS}
    if "ap_rst_n" in names:
        raise ToolError(
            f"{func}: the RTL reset is active-Low (ap_rst_n); a blackbox needs an active-High "
            "reset (synthesize with flow_target vivado or config_rtl -reset_level high)"
        )
    missing = [name for name in ("ap_clk", "ap_rst") if name not in names]
    if missing:
        raise ToolError(f"{func}: the RTL has no {' or '.join(missing)} port")
    if "ap_ce" not in names:
        raise ToolError(
            f"{func}: the RTL has no clock enable (ap_ce), which a blackbox needs; synthesize "
            'it with config_interface -clock_enable (hclbuild does with top_assembly = "blackbox")'
        )
    if "ap_ctrl_hs" in control or ("ap_start" in names and "ap_continue" not in names):
        raise ToolError(
            f"{func}: the RTL's block protocol is ap_ctrl_hs; a blackbox needs ap_ctrl_chain or "
            "ap_ctrl_none (#pragma HLS interface mode=ap_ctrl_chain port=return)"
        )
    signals = {_CONTROL_KEYS[name]: name for name in ("ap_clk", "ap_rst", "ap_ce")}
    for name in (*_HANDSHAKE, "ap_continue"):
        # ap_ctrl_none has no handshake: the keys stay, empty, as in UG1399's template
        signals[_CONTROL_KEYS[name]] = name if name in names else ""
    return signals


def performance(func: str, report: Any) -> dict[str, str]:
    """rtl_performance from a CsynthReport: worst-case latency and interval in cycles."""
    latency = report.worst_latency if report.worst_latency is not None else report.best_latency
    interval = report.interval_max if report.interval_max is not None else report.interval_min
    if latency is None or interval is None:
        raise ToolError(
            f"{func}: the csynth report gives no latency or interval (data-dependent: undef); "
            "a blackbox needs numbers for rtl_performance"
        )
    return {"latency": str(latency), "II": str(interval)}


def resource_usage(report: Any) -> dict[str, str]:
    """rtl_resource_usage from a CsynthReport (a resource the report omits is 0)."""
    return {key: str(report.resources.get(name, 0)) for key, name in _RESOURCES}


def verilog_files(verilog_dir: Path) -> list[Path]:
    """The .v files csynth wrote, sorted; refuses RTL that needs Vivado IP cores generated first."""
    if not verilog_dir.is_dir():
        raise ToolError(f"{verilog_dir}: no Verilog from csynth (run csynth of the function first)")
    cores = sorted(path.name for path in verilog_dir.glob("*_ip.tcl"))
    if cores:
        # syn/verilog holds only the Tcl that has Vivado generate these cores (Vitis' floating-point
        # operators are Vivado floating_point IP) at export time: there is no complete Verilog to hand
        # over, and a blackbox is Verilog files only (UG1399)
        raise HCLNotImplementedError(
            f"{verilog_dir}: the RTL instantiates Vivado IP cores made by "
            f"{', '.join(cores)}; blackbox assembly of such RTL is not implemented "
            '(a blackbox takes Verilog files only): use top_assembly = "monolithic"'
        )
    files = sorted(verilog_dir.glob("*.v"))
    if not files:
        raise ToolError(f"{verilog_dir}: csynth wrote no .v files")
    return files


def blackbox_json(
    func: str,
    arg_names: Sequence[str],
    returns_value: bool,
    ports: Sequence[RtlPort],
    report: Any,
    c_file: str,
    rtl_files: Iterable[str],
    cflag: str = "",
) -> str:
    """The whole blackbox JSON text of one function (keys in UG1399's order)."""
    description: dict[str, Any] = {
        "c_function_name": func,
        "rtl_top_module_name": func,
        "c_files": [{"c_file": c_file, "cflag": cflag}],
        "rtl_files": list(rtl_files),
        "c_parameters": c_parameters(func, ports, arg_names),
    }
    if returns_value:
        if not any(port.name == "ap_return" for port in ports):
            raise ToolError(f"{func}: the function returns a value but its RTL has no ap_return port")
        description["c_return"] = {"c_port_direction": "out", "rtl_ports": {"data_write_out": "ap_return"}}
    description["rtl_common_signal"] = common_signals(func, ports)
    description["rtl_performance"] = performance(func, report)
    description["rtl_resource_usage"] = resource_usage(report)
    return json.dumps(description, indent=2) + "\n"


def _parameter(func: str, name: str, ports: list[RtlPort]) -> dict[str, Any]:
    protocols = {port.protocol for port in ports}
    if len(protocols) != 1:
        raise ToolError(
            f"{func}: argument {name} has ports of several protocols ({', '.join(sorted(map(str, protocols)))})"
        )
    protocol = protocols.pop()
    if protocol in ("ap_memory", "bram"):
        return _ram(func, name, ports)
    if protocol == "ap_fifo":
        return _fifo(func, name, ports)
    if protocol in ("ap_none", "ap_vld", "ap_ovld"):
        return _wire(func, name, protocol, ports)
    raise ToolError(
        f"{func}: argument {name} is a {protocol} interface; a blackbox takes wire, ap_vld, "
        "ap_ovld, FIFO and RAM ports only (UG1399), so synthesize outlined functions with "
        'block-level interfaces (top_assembly = "blackbox" does)'
    )


def _ram(func: str, name: str, ports: list[RtlPort]) -> dict[str, Any]:
    roles: dict[tuple[str, str], str] = {}
    for port in ports:
        match = _RAM_PORT.match(port.name)
        if match is None or match.group("object") != name:
            raise ToolError(f"{func}: RAM port {port.name} of argument {name} is not <arg>_<role><0|1>")
        roles[(match.group("role"), match.group("port"))] = port.name
    rtl_ports: dict[str, str] = {}
    for side, suffix in (("0", ""), ("1", "_snd")):
        for role, key in _RAM_KEYS.items():
            if (role, side) in roles:
                rtl_ports[key + suffix] = roles[(role, side)]
    if ("address", "0") not in roles:
        raise ToolError(f"{func}: RAM argument {name} has no {name}_address0 port")
    reads = any(role == "q" for role, _ in roles)
    writes = any(role in ("we", "d") for role, _ in roles)
    direction = "inout" if reads and writes else ("out" if writes else "in")
    ram_type = "RAM_T2P" if any(port == "1" for _, port in roles) else "RAM_1P"
    return {"c_name": name, "c_port_direction": direction, "RAM_type": ram_type, "rtl_ports": rtl_ports}


def _fifo(func: str, name: str, ports: list[RtlPort]) -> dict[str, Any]:
    rtl_ports = {}
    for port in ports:
        suffix = next((s for s in _FIFO_KEYS if port.name == f"{name}_{s}"), None)
        if suffix is None:
            raise ToolError(
                f"{func}: FIFO port {port.name} of argument {name} is not <arg>_<dout|empty_n|read|"
                "din|full_n|write>"
            )
        rtl_ports[_FIFO_KEYS[suffix]] = port.name
    reads = "FIFO_data_read_in" in rtl_ports
    writes = "FIFO_data_write_out" in rtl_ports
    if reads == writes:
        raise ToolError(
            f"{func}: FIFO argument {name} must be read or written, not {'both' if reads else 'neither'}"
        )
    return {"c_name": name, "c_port_direction": "in" if reads else "out", "rtl_ports": rtl_ports}


def _wire(func: str, name: str, protocol: str, ports: list[RtlPort]) -> dict[str, Any]:
    ins = [port.name for port in ports if port.direction == "in"]
    outs = [port.name for port in ports if port.direction == "out" and not port.name.endswith("_ap_vld")]
    valid = [port.name for port in ports if port.name.endswith("_ap_vld")]
    if protocol == "ap_none" and len(ins) + len(outs) == 1:
        if ins:
            return {"c_name": name, "c_port_direction": "in", "rtl_ports": {"data_read_in": ins[0]}}
        return {"c_name": name, "c_port_direction": "out", "rtl_ports": {"data_write_out": outs[0]}}
    if protocol == "ap_vld" and len(outs) == 1 and len(valid) == 1 and not ins:
        return {
            "c_name": name,
            "c_port_direction": "out",
            "rtl_ports": {"data_write_out": outs[0], "data_write_valid": valid[0]},
        }
    if protocol == "ap_ovld" and len(ins) == 1 and len(outs) == 1 and len(valid) == 1:
        return {
            "c_name": name,
            "c_port_direction": "inout",
            "rtl_ports": {"data_read_in": ins[0], "data_write_out": outs[0], "data_write_valid": valid[0]},
        }
    raise ToolError(
        f"{func}: the {protocol} ports of argument {name} ({', '.join(p.name for p in ports)}) "
        "do not form one wire interface"
    )


def publish_blackbox(project: Project, layout: BuildLayout, func: str, top: str) -> Path:
    """Write hls/<top>/<func>_blackbox.json from `func`'s published csynth report (csynth/<func>.xml)
    and its Verilog, with the C argument names of ir/<func>.mlir."""
    report_path = layout.csynth_result(func)
    if not report_path.is_file():
        raise ToolError(
            f"{project.name}/{func}: no csynth report at {report_path} (run csynth:{project.name}/{func})"
        )
    with new_context(), ir.Location.unknown():
        module = ir.Module.parse(layout.func_mlir(func).read_text(encoding="utf-8"))
        func_op = symbols(module)[func]
        signature = c_signature(func_op)
    top_dir = layout.hls_dir(top)
    verilog = verilog_files(_verilog_dir(layout.hls_dir(func), func))
    text = blackbox_json(
        func,
        [arg.name for arg in signature.args],
        signature.ret_c_type is not None,
        parse_rtl_ports(report_path),
        parse_csynth_xml(report_path),
        os.path.relpath(layout.hls_cpp(func), top_dir),
        [os.path.relpath(path, top_dir) for path in verilog],
    )
    target = layout.blackbox_json(top, func)
    write_if_changed(target, text)
    return target


def _verilog_dir(folder: Path, func: str) -> Path:
    """syn/verilog of the layout whose csynth report is newest (the run that was published)."""
    roots = [root for root in report_dirs(folder, func) if (root / "syn" / "verilog").is_dir()]
    if not roots:
        return folder / f"{func}_prj" / "solution1" / "syn" / "verilog"
    return max(roots, key=lambda root: (root / "syn").stat().st_mtime_ns) / "syn" / "verilog"
