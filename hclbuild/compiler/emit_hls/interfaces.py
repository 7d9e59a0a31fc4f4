"""Interfaces of a top function: one `#pragma HLS interface` per argument and one for the return.

A function is the top of its own Vitis HLS project, so its arguments become RTL ports (UG1399
"Defining Interfaces"; the INTERFACE pragma is only valid on the top function). What each argument
becomes follows the flow target:

    flow_target   arrays                                     scalars       return (block control)
    vitis         m_axi, one bundle per argument (gmem_<a>),  s_axilite     s_axilite
                  depth = element count, offset=slave;
                  an hls::stream: axis
    vivado        ap_memory; an hls::stream: ap_fifo         ap_none       ap_ctrl_hs

A project.toml [interface] table overrides an argument's protocol, bundle, depth, latency,
max_widen_bitwidth and max_read/write_burst_length (and offset); the result is checked against what UG1399 lets each mode take.
A function synthesized to be an RTL blackbox of its caller (top_assembly = "blackbox") gets
block-level ports only: ap_memory arrays, ap_none scalars and ap_ctrl_chain, which is what a
blackbox may have (UG1399 "Adding RTL Blackbox Functions").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from hclbuild.compiler.emit_hls.c_types import CArg, CSignature
from hclbuild.errors import ConfigError
from hclbuild.hls_interface import (
    ARRAY_FIFO_MODES,
    FLOW_TARGETS,
    OPTION_MODES,
    OVERRIDE_KEYS,
    SCALAR_MODES,
    STREAM_MODES,
)


@dataclass(frozen=True)
class ArgInterface:
    """The RTL interface of one C argument: a mode and the options UG1399 allows for it."""

    port: str
    mode: str
    bundle: str | None = None
    depth: int | None = None
    offset: str | None = None
    latency: int | None = None
    max_widen_bitwidth: int | None = None
    max_read_burst_length: int | None = None
    max_write_burst_length: int | None = None
    storage_type: str | None = None

    def pragma(self) -> str:
        """`#pragma HLS interface mode=m_axi port=A bundle=gmem_A depth=352 offset=slave`."""
        words = [f"#pragma HLS interface mode={self.mode} port={self.port}"]
        for option in OPTION_MODES:
            value = getattr(self, option)
            if value is not None:
                words.append(f"{option}={value}")
        return " ".join(words)


@dataclass(frozen=True)
class FunctionInterfaces:
    """Every port of a top function: its arguments in order, then the block-level control.

    single_ram_arrays: each array argument must stay one RAM (a blackbox maps one C argument to
    one RTL RAM port), so partitioned arguments are copied into partitioned local buffers, as
    m_axi arguments always are.
    """

    args: tuple[ArgInterface, ...]
    block: str
    single_ram_arrays: bool = False

    def pragmas(self) -> list[str]:
        """The interface pragmas opening the function body: arguments, then `port=return`."""
        return [arg.pragma() for arg in self.args] + [f"#pragma HLS interface mode={self.block} port=return"]

    def of(self, port: str) -> ArgInterface:
        """The interface of argument `port`."""
        for arg in self.args:
            if arg.port == port:
                return arg
        raise KeyError(port)


def default_interfaces(signature: CSignature, flow_target: str = "vivado") -> FunctionInterfaces:
    """The interfaces a flow target gives each argument of a top function (table above)."""
    if flow_target not in FLOW_TARGETS:
        raise ConfigError(
            f"@{signature.name}: unknown flow target {flow_target!r} (expected vivado or vitis)"
        )
    return FunctionInterfaces(
        tuple(_default_arg(arg, flow_target) for arg in signature.args),
        "s_axilite" if flow_target == "vitis" else "ap_ctrl_hs",
    )


def blackbox_interfaces(signature: CSignature) -> FunctionInterfaces:
    """Block-level ports for a function synthesized as the RTL blackbox of its caller."""
    args = tuple(
        ArgInterface(arg.name, "ap_fifo" if arg.stream else "ap_memory" if arg.is_array else "ap_none")
        for arg in signature.args
    )
    return FunctionInterfaces(args, "ap_ctrl_chain", single_ram_arrays=True)


def override_interfaces(
    interfaces: FunctionInterfaces,
    signature: CSignature,
    overrides: Mapping[str, Mapping[str, Any]],
    where: str,
    stream_modes: tuple[str, ...] = STREAM_MODES,
    array_modes: tuple[str, ...] = ARRAY_FIFO_MODES,
) -> FunctionInterfaces:
    """`interfaces` with the project.toml [interface] settings of each named argument applied.

    `stream_modes` are the protocols an hls::stream argument may take (the flow's, or a blackbox's),
    `array_modes` an array argument's (ap_fifo only where fifo_access finds it accessed in order).

    `where` starts each message (`demo: project.toml [interface]`); an argument the function
    does not have, a protocol that cannot carry it, or an option its mode does not take is a
    ConfigError. The values themselves were checked when project.toml was read (project.config).
    """
    # by the names the user gave the tensors: [interface.int] is the placeholder "int" (int_1 in C)
    by_name = {arg.source or arg.name: arg for arg in signature.args}
    args = list(interfaces.args)
    for name, settings in overrides.items():
        if name not in by_name:
            known = ", ".join(by_name) or "none"
            raise ConfigError(f"{where}: @{signature.name} has no argument {name!r} (arguments: {known})")
        index = list(by_name).index(name)
        at = f"{where}, argument {name} of @{signature.name}"
        args[index] = _override(args[index], by_name[name], settings, at, stream_modes, array_modes)
    return replace(interfaces, args=tuple(args))


def _default_arg(arg: CArg, flow_target: str) -> ArgInterface:
    if arg.stream:
        # an hls::stream argument: a FIFO port in the Vivado IP flow, an AXI4-Stream in the Vitis
        # kernel flow, each flow's default (UG1399 "HLS Stream Library")
        return ArgInterface(arg.name, "axis" if flow_target == "vitis" else "ap_fifo")
    if not arg.is_array:
        return ArgInterface(arg.name, "s_axilite" if flow_target == "vitis" else "ap_none")
    if flow_target == "vivado":
        return ArgInterface(arg.name, "ap_memory")
    return _m_axi(arg)


def _m_axi(arg: CArg) -> ArgInterface:
    # depth sizes the cosim model of the AXI memory: the whole array, element by element
    return ArgInterface(
        arg.name, "m_axi", bundle=f"gmem_{arg.name}", depth=math.prod(arg.shape), offset="slave"
    )


def _override(
    current: ArgInterface,
    arg: CArg,
    settings: Mapping[str, Any],
    where: str,
    stream_modes: tuple[str, ...],
    array_modes: tuple[str, ...],
) -> ArgInterface:
    unknown = [key for key in settings if key not in OVERRIDE_KEYS]
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (expected {', '.join(OVERRIDE_KEYS)})")
    mode = settings.get("protocol", current.mode)
    allowed = stream_modes if arg.stream else array_modes if arg.is_array else SCALAR_MODES
    if mode not in allowed:
        kind = "an hls::stream" if arg.stream else "an array" if arg.is_array else "a scalar"
        raise ConfigError(
            f"{where}: protocol {mode!r} cannot carry {kind} argument (expected one of {', '.join(allowed)})"
        )
    if mode == current.mode:
        base = current
    elif mode == "m_axi":
        base = _m_axi(arg)
    else:
        base = ArgInterface(arg.name, mode)
    values: dict[str, Any] = {}
    for option, modes in OPTION_MODES.items():
        if option not in settings:
            values[option] = getattr(base, option)
            continue
        if mode not in modes:
            raise ConfigError(f"{where}: {option} applies to {' and '.join(modes)} interfaces, not {mode}")
        values[option] = settings[option]
    elements = math.prod(arg.shape)
    if mode == "m_axi" and arg.is_array and values["depth"] is not None and values["depth"] < elements:
        # depth sizes cosim's model of the memory behind the port: a smaller one is read past its end
        raise ConfigError(
            f"{where}: m_axi depth {values['depth']} is less than the {elements} elements "
            f"of {arg.declaration()} (cosim would access past the end of its memory)"
        )
    return ArgInterface(arg.name, mode, **values)
