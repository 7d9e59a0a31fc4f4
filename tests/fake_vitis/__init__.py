"""Stand-ins for the Vitis HLS executables on PATH, for tests that run csynth/cosim without Vitis.

Use the `fake_vitis` pytest fixture (tests/conftest.py):

    def test_csynth_then_report(fake_vitis, tmp_path):
        fake_vitis.install("vitis_hls")             # or "vitis-run", "v++" (any subset), version="2024.2"
        ...run hclbuild's csynth task / runtime.vitis.run_hls_steps...
        assert fake_vitis.calls()[0]["argv"] == ["-f", "run_hls.tcl", "-tclargs", "csynth"]

`install` puts a bin/ folder with the chosen tools first on PATH (through monkeypatch, so it is undone
after the test) and clears XILINX_HLS/XILINX_VITIS, so only the stand-ins are found. Every call is
appended to `fake_vitis.log` (JSON lines: tool, argv, cwd, HCLBUILD_STEPS). The environment is
inherited by child processes, so doit workers, `subprocess` runs and Dask workers started *after*
`install` see the same tools (a worker started before it does not).

What the stand-ins write, and where (see fake_tool.py): a csynth report built from
csynth_template.xml (fixed numbers, RtlPorts from the function's header: ap_memory for arrays,
ap_none for scalars, ap_ctrl_chain/ap_ce when the sources ask for them) plus one stub Verilog file
in `<func>_prj/solution1/syn/` (Tcl flows) or `<work_dir>/hls/syn/` (v++); a cosim report
(Verilog Pass, 1234 cycles) and a csim log likewise. Every file says no Vitis ran. They are for
testing hclbuild's plumbing, never a claim about synthesis results.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FAKE_TOOL = HERE / "fake_tool.py"
TOOLS = ("vitis_hls", "vitis-run", "v++")


@dataclass
class FakeVitis:
    """The stand-in tools of one test: which are installed, and what they were asked to do."""

    root: Path
    monkeypatch: Any

    @property
    def bin_dir(self) -> Path:
        """The folder put first on PATH."""
        return self.root / "bin"

    @property
    def log(self) -> Path:
        """JSON lines, one per tool call."""
        return self.root / "calls.jsonl"

    def install(self, *tools: str, version: str = "2025.1", fail_with: int = 0) -> Path:
        """Put the named stand-ins (default: all three) on PATH; returns the bin folder."""
        chosen = tools or TOOLS
        unknown = [tool for tool in chosen if tool not in TOOLS]
        if unknown:
            raise ValueError(f"no stand-in for {unknown} (have {TOOLS})")
        self.bin_dir.mkdir(parents=True, exist_ok=True)
        for tool in chosen:
            link = self.bin_dir / tool
            if not link.exists():
                link.symlink_to(FAKE_TOOL)
        self.monkeypatch.setenv("PATH", f"{self.bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
        self.monkeypatch.delenv("XILINX_HLS", raising=False)
        self.monkeypatch.delenv("XILINX_VITIS", raising=False)
        self.monkeypatch.setenv("FAKE_VITIS_LOG", str(self.log))
        self.monkeypatch.setenv("FAKE_VITIS_VERSION", version)
        self.monkeypatch.setenv("FAKE_VITIS_EXIT", str(fail_with))
        return self.bin_dir

    def calls(self) -> list[dict[str, Any]]:
        """Every recorded call, oldest first."""
        if not self.log.is_file():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines() if line]
