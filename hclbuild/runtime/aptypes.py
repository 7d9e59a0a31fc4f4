"""Locate the Apache-2.0 ap_types headers (ap_int.h, ap_fixed.h) without copying them."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path


def ap_types_include_dir() -> Path | None:
    """`$XILINX_HLS/include` when Vitis is installed, else the copy in the hls4ml wheel, else None.

    hls4ml is located with importlib.util.find_spec and never imported (importing it pulls in
    its whole ML stack).
    """
    xilinx = os.environ.get("XILINX_HLS")
    if xilinx and (Path(xilinx) / "include" / "ap_int.h").is_file():
        return Path(xilinx) / "include"
    spec = importlib.util.find_spec("hls4ml")
    if spec is None or spec.origin is None:
        return None
    candidate = Path(spec.origin).parent / "templates" / "vivado" / "ap_types"
    return candidate if (candidate / "ap_int.h").is_file() else None
