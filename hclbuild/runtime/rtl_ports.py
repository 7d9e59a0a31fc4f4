"""The RTL ports of a synthesized function, from its csynth XML's `InterfaceSummary/RtlPorts`.

Each `<RtlPorts>` element names one Verilog port: `name` (ap_clk, A_address0), `Object` (the C
argument it belongs to, or the function itself for block control), `Type` (scalar, array, pointer,
return value), `IOProtocol` (ap_memory, ap_none, ap_fifo, ap_ctrl_chain, m_axi, ...), `Dir`, `Bits`.
Vivado HLS 2018.3 and Vitis HLS 2024.1 write the same fields (the older ones flat, the newer
indented; some without `<Scope>`/`<IOConfig>`); a missing field is None.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hclbuild.errors import ToolError


@dataclass(frozen=True)
class RtlPort:
    """One Verilog port of a synthesized function."""

    name: str
    object: str | None
    type: str | None
    protocol: str | None
    direction: str | None  # "in" | "out"
    bits: int | None


def parse_rtl_ports(path: str | Path) -> list[RtlPort]:
    """Every RtlPorts entry of a csynth XML, in document order; ToolError when it has none."""
    from hclbuild.runtime.report import _load_xml, _text

    path = Path(path)
    root = _load_xml(path)
    ports = []
    for elem in root.findall("InterfaceSummary/RtlPorts"):
        name = _text(elem, "name")
        if name is None:
            continue
        bits = _text(elem, "Bits")
        ports.append(RtlPort(name=name, object=_text(elem, "Object"), type=_text(elem, "Type"),
                             protocol=_text(elem, "IOProtocol"), direction=_text(elem, "Dir"),
                             bits=int(bits) if bits is not None and bits.isdigit() else None))
    if not ports:
        raise ToolError(f"{path}: the csynth report lists no RTL ports (no InterfaceSummary/RtlPorts)")
    return ports
