"""The RTL interfaces of each function's HLS project, from project.toml ([hls] flow_target and
top_assembly, [interface] tables).

    the design's top       the flow target's interfaces (emit_hls.interfaces), then [interface.<arg>]
                           and [interface.<top>.<arg>]
    an outlined function   the same, with [interface.<function>.<arg>]; with top_assembly =
                           "blackbox" it is synthesized to be a blackbox of the top, so it gets
                           block-level ports (ap_memory, ap_none, ap_ctrl_chain, a clock enable)
                           whatever the flow target, and only the protocols a blackbox takes
"""

from __future__ import annotations

from typing import Any

from hclbuild.compiler.emit_hls import blackbox_interfaces, default_interfaces, override_interfaces
from hclbuild.compiler.emit_hls.fifo_access import fifo_order
from hclbuild.errors import ConfigError
from hclbuild.hls_interface import ARRAY_FIFO_MODES, ARRAY_MODES, STREAM_MODES_BY_FLOW
from hclbuild.project.config import TOP_INTERFACE, ProjectConfig

# what an RTL blackbox's C arguments may be (UG1399: wire, ap_vld, RAM, and a FIFO for a stream)
BLACKBOX_PROTOCOLS = ("ap_memory", "ap_none", "ap_vld", "ap_fifo")
# what a Vitis kernel's arguments may be (the streams' axis is already its flow's one stream mode)
VITIS_KERNEL_MODES = ("m_axi", "s_axilite", "axis")


def is_blackboxed(config: ProjectConfig, func: str, top: str) -> bool:
    """Whether `func` is synthesized as an RTL blackbox of the top (top_assembly = "blackbox")."""
    return config.top_assembly == "blackbox" and func != top


def blackboxes_of(config: ProjectConfig, func: str, functions: list[str], top: str) -> list[str]:
    """The functions whose RTL the project of `func` takes as blackboxes: the outlined ones, for the top."""
    return [f for f in functions if f != top] if config.top_assembly == "blackbox" and func == top else []


def check_interface_functions(config: ProjectConfig, functions: list[str]) -> None:
    """ConfigError when an [interface.<function>.<arg>] table names no function of the design: its
    settings would apply to nothing, and the design be synthesized with the defaults instead."""
    unknown = [func for func in config.interfaces if func != TOP_INTERFACE and func not in functions]
    if unknown:
        args = ", ".join(config.interfaces[unknown[0]]) or "?"
        raise ConfigError(
            f"{config.name}: project.toml [interface.{unknown[0]}.{args.split(', ')[0]}]: the design "
            f"has no function {unknown[0]!r} (functions: {', '.join(functions)}; an argument of the "
            f"top is [interface.<arg>])"
        )


def function_interfaces(config: ProjectConfig, func: str, top: str, signature: Any) -> Any:
    """The FunctionInterfaces of `func` as the top of its own project (signature: its CSignature)."""

    blackboxed = is_blackboxed(config, func, top)
    interfaces = (
        blackbox_interfaces(signature) if blackboxed else default_interfaces(signature, config.flow_target)
    )
    own = config.interfaces.get(func, {})
    overrides = dict(config.interfaces.get(TOP_INTERFACE, {})) if func == top else {}
    for arg, settings in own.items():
        if arg in overrides:
            raise ConfigError(
                f"{config.name}: project.toml sets argument {arg} of {func} in both [interface.{arg}] "
                f"and [interface.{func}.{arg}]; set it in one place"
            )
        overrides[arg] = settings
    if blackboxed:
        for arg, settings in overrides.items():
            protocol = settings.get("protocol")
            if protocol is not None and protocol not in BLACKBOX_PROTOCOLS:
                raise ConfigError(
                    f"{config.name}: project.toml [interface.{func}.{arg}] protocol {protocol!r}: with "
                    f'top_assembly = "blackbox", {func} is an RTL blackbox of the top, whose ports can '
                    f"only be {', '.join(BLACKBOX_PROTOCOLS)} (UG1399)"
                )
    # a blackbox's streams are FIFO ports whatever the flow
    stream_modes = ("ap_fifo",) if blackboxed else STREAM_MODES_BY_FLOW[config.flow_target]
    where = f"{config.name}: project.toml [interface]"
    # a blackbox's array ports are RAM ports (its RTL wrapper maps one C array to one)
    array_modes = ARRAY_MODES if blackboxed else ARRAY_FIFO_MODES
    result = override_interfaces(interfaces, signature, overrides, where, stream_modes, array_modes)
    if config.flow_target == "vitis" and not blackboxed:
        _check_vitis_kernel(result, f"{where}, argument {{}} of @{func}")
    return result


def check_fifo_arrays(
    config: ProjectConfig, func: str, interfaces: Any, signature: Any, functions: Any
) -> None:
    """Every array argument given ap_fifo is read, or written, strictly in order (fifo_access);
    `functions`: the module's func.func ops by name."""
    for index, (arg, port) in enumerate(zip(signature.args, interfaces.args)):
        if port.mode != "ap_fifo" or not arg.is_array or arg.stream:
            continue
        direction, why = fifo_order(functions, func, index)
        if not direction:
            raise ConfigError(
                f"{config.name}: project.toml [interface], argument {arg.source or arg.name} of @{func}: "
                f"protocol 'ap_fifo' needs each element read, or written, once and in order, but {why}"
            )


def _check_vitis_kernel(interfaces: Any, where: str) -> None:
    """A Vitis kernel's ports are AXI only: m_axi and axis for data, one s_axilite interface
    (`control`) for registers, through which the host (XRT) also gives each m_axi buffer's address
    (UG1702 "HLS Kernel Interface Requirements", UG1399 "Offset and Modes of Operation")."""
    use_vivado = '; flow_target = "vivado" (a Vivado IP) takes it'
    for arg in interfaces.args:
        at = where.format(arg.port)
        if arg.mode not in VITIS_KERNEL_MODES:
            raise ConfigError(
                f'{at}: protocol {arg.mode!r}: a Vitis kernel (flow_target = "vitis") has only '
                f"{', '.join(VITIS_KERNEL_MODES)} ports{use_vivado}"
            )
        if arg.mode == "m_axi" and arg.offset not in (None, "slave"):
            raise ConfigError(
                f'{at}: offset {arg.offset!r}: a Vitis kernel (flow_target = "vitis") takes m_axi '
                f"offset=slave only{use_vivado}"
            )
        if arg.mode == "s_axilite" and arg.bundle not in (None, "control"):
            raise ConfigError(
                f'{at}: s_axilite bundle {arg.bundle!r}: a Vitis kernel (flow_target = "vitis") has '
                f"one AXI4-Lite interface, control{use_vivado}"
            )
