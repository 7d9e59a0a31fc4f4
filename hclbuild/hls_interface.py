"""Vitis HLS interface facts shared by project.config and the HLS emitter, outside hclbuild.compiler
so that reading project.toml (a no-op doit does) imports no compiler module:
the interface modes and options of UG1399 "pragma HLS interface" (project.toml's [interface]
table is checked against them when it is read; compiler.emit_hls.interfaces prints the pragmas),
and the macro that keeps blackboxed functions' bodies out of a top's synthesis source."""

from __future__ import annotations

FLOW_TARGETS = ("vivado", "vitis")  # [hls] flow_target: the IP catalog or a Vitis kernel (.xo)
ARRAY_MODES = ("m_axi", "ap_memory", "bram", "s_axilite")
# an array read or written strictly in order may be a FIFO port (checked on the IR: emit_hls.fifo_access)
ARRAY_FIFO_MODES = (*ARRAY_MODES, "ap_fifo")
SCALAR_MODES = ("s_axilite", "ap_none", "ap_vld", "ap_ack", "ap_hs")
# an hls::stream argument is a FIFO port or an AXI4-Stream; the Vitis kernel flow takes axis only
# (UG1399 "Vitis Flow (Kernel Mode)": axis is the one mode of an hls::stream there, and its default)
STREAM_MODES = ("ap_fifo", "axis")
STREAM_MODES_BY_FLOW = {"vivado": STREAM_MODES, "vitis": ("axis",)}
BLOCK_MODES = ("ap_ctrl_hs", "ap_ctrl_chain", "ap_ctrl_none", "s_axilite")
M_AXI_OFFSETS = ("off", "direct", "slave")
# each option and the modes that take it
OPTION_MODES = {
    "bundle": ("m_axi", "s_axilite"),
    "depth": ("m_axi",),
    "offset": ("m_axi",),
    "latency": ("m_axi", "ap_memory", "bram"),
    "max_widen_bitwidth": ("m_axi",),
    "max_read_burst_length": ("m_axi",),
    "max_write_burst_length": ("m_axi",),
    "storage_type": ("ap_memory", "bram"),
}
# the RAM an ap_memory / bram argument, or a local (bind_storage), is: one port, two (one read, one
# write), or two read/write ports (UG1399 "pragma HLS interface" storage_type, "pragma HLS bind_storage")
STORAGE_TYPES = ("ram_1p", "ram_2p", "ram_t2p")
MAX_AXI_BURST = 256  # beats of one AXI4 burst (UG1399: Vitis defaults to 16)
OVERRIDE_KEYS = ("protocol", *OPTION_MODES)

# Defined by run_hls.tcl / hls_config.cfg for a top assembled from RTL blackboxes: the bodies of the
# blackboxed functions in the top's .cpp sit under #ifndef of it, so Vitis (synthesis and its csim,
# which compiles each blackbox's own C model) never sees them, while plain g++ csim does.
RTL_BLACKBOX_MACRO = "HCLBUILD_RTL_BLACKBOX"
