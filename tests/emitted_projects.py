"""Test-only helper: the HLS C++ of every example project, emitted for a flow and a Vitis release.

Compile and emit only (no reference run, no csim): what tests of the emitted text read. Each
project is compiled once per folder; each (flow, release) emits every function of it again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from hclbuild.project.config import load_project
from hclbuild.project.flow import emit_design_function, write_project_ir
from hclbuild.project.layout import BuildLayout
from hclbuild.project.manifest import read_design_manifest

REPO = Path(__file__).resolve().parents[1]
PROJECTS = sorted(p for p in (REPO / "projects").iterdir() if (p / "kernel.py").is_file())


@dataclass(frozen=True)
class EmittedFunction:
    """One function's HLS project as emitted: its text files by name, and what it was built for."""

    project: str
    func: str
    flow: str
    files: dict[str, str]

    @property
    def cpp(self) -> str:
        return self.files[f"{self.func}.cpp"]

    @property
    def header(self) -> str:
        return self.files[f"{self.func}.h"]


def emit_projects(
    build_root: Path,
    folders: list[Path] = PROJECTS,
    flow: str | None = None,
    vitis_version: str | None = None,
) -> list[EmittedFunction]:
    """Every function of every project in `folders`, emitted for `flow` (None: each project's own)
    and `vitis_version` (None: each project's own); the IR is compiled once under `build_root`."""
    emitted = []
    for folder in folders:
        project = load_project(folder)
        config = project.config
        if flow is not None:
            config = replace(config, flow_target=flow)
        if vitis_version is not None:
            config = replace(config, vitis_version=vitis_version)
        ir_layout = BuildLayout(build_root / "ir", project.name)
        if not ir_layout.ir_manifest.is_file():
            write_project_ir(project, ir_layout)
        for func in read_design_manifest(ir_layout).functions:
            emit_design_function(ir_layout, config, func)
            folder = ir_layout.hls_dir(func)
            files = {p.name: p.read_text(encoding="utf-8") for p in folder.iterdir() if p.is_file()}
            emitted.append(EmittedFunction(project.name, func, config.flow_target, files))
    return emitted
