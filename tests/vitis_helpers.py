"""What the Vitis-facing tests share: a 4-element vadd HLS folder (emitted by hand, not by the
emitter), a project folder with the stand-in tools on PATH, and which stand-in calls synthesized."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hclbuild.dsl.types import Int
from hclbuild.project.config import Project, ProjectConfig
from hclbuild.project.golden import write_golden
from hclbuild.project.hls_project import FunctionArg, write_function_project
from hclbuild.project.layout import BuildLayout

CPP = '#include "vadd.h"\nvoid vadd(int32_t a[4], int32_t b[4]) {\n  for (int i = 0; i < 4; ++i) b[i] = a[i] + 1;\n}\n'
HEADER = "#pragma once\n#include <cstdint>\nvoid vadd(int32_t a[4], int32_t b[4]);\n"


def write_vadd(folder: Path, config: ProjectConfig, **kwargs) -> list[Path]:
    """The HLS folder of a 4-element vadd, with the golden data the reference run would link there."""
    t = Int(32)
    a = np.arange(4, dtype=np.int32)
    args = [FunctionArg("a", "int32_t", "int32", (4,)), FunctionArg("b", "int32_t", "int32", (4,))]
    written = write_function_project(folder, "vadd", CPP, HEADER, args, config, **kwargs)
    return written + write_golden(
        folder / "data", {"a": (a, t), "b": (np.zeros(4, np.int32), t)}, {"a": (a, t), "b": (a + 1, t)}
    )


def vadd_folder(tmp_path: Path, **config) -> Path:
    """An emitted HLS folder of a 4-element vadd (the emitter's output is not under test here)."""
    folder = tmp_path / "hls" / "vadd"
    write_vadd(folder, ProjectConfig(name="demo", **config))
    return folder


def vadd_project(tmp_path: Path) -> tuple[Project, BuildLayout]:
    """A project `demo` whose build folder holds the emitted vadd function."""
    config = ProjectConfig(name="demo")
    layout = BuildLayout(tmp_path / "build", "demo")
    write_vadd(layout.hls_dir("vadd"), config)
    return Project("demo", tmp_path, tmp_path / "kernel.py", config), layout


def stand_in_project(fake_vitis, folder: Path, kernel: str, toml: str) -> Path:
    """A project folder with kernel.py and project.toml, and every stand-in tool on PATH."""
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(kernel)
    (folder / "project.toml").write_text(toml)
    fake_vitis.install("vitis_hls", "vitis-run", "v++")
    return folder


def synthesized(calls: list[dict]) -> list[str]:
    """The function folder of every call that ran C synthesis (vitis_hls' tclargs, or v++ -c), in
    the order of the calls."""
    names = []
    for call in calls:
        steps = call["argv"][call["argv"].index("-tclargs") + 1 :] if "-tclargs" in call["argv"] else []
        if call["tool"] == "v++" or (call["tool"] == "vitis_hls" and "csynth" in steps):
            names.append(Path(call["cwd"]).name)
    return names
