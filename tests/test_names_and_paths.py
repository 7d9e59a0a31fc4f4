"""A stage or schedule named `main` and a project folder whose path has spaces and shell/Tcl
metacharacters go through compile, reference, emit and csim like any other."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

OUTLINED_MAIN = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8,), "A")
    def kernel(A):
        main = hcl.compute((8,), lambda i: A[i] * 2, name="main")
        return hcl.compute((8,), lambda i: main[i] + 1, name="out")
    s = hcl.create_schedule([A], kernel, name="top")
    s.outline(kernel.main)
    return s

def model(A):
    return (A * 2 + 1).astype(np.int32)
"""
# HeteroCL's examples name the schedule "main"; here the top's output stage is "main" too
MAIN_SCHEDULE = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8,), "A")
    def kernel(A):
        X = hcl.compute((8,), lambda i: A[i] * 2, name="X")
        return hcl.compute((8,), lambda i: X[i] + 1, name="main")
    s = hcl.create_schedule([A], kernel, name="main")
    s.outline(kernel.X)
    return s

def model(A):
    return (A * 2 + 1).astype(np.int32)
"""


def test_main_names_csim_in_a_path_with_metacharacters(tmp_path: Path) -> None:
    where = tmp_path / "a dir $HOME [exec x] 'q'; &"
    for name, text in (("outlined_main", OUTLINED_MAIN), ("main_schedule", MAIN_SCHEDULE)):
        (where / name).mkdir(parents=True)
        (where / name / "kernel.py").write_text(text)
    (where / "main_schedule" / "project.toml").write_text('[project]\ntop = "main"\n')
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [sys.executable, "-m", "hclbuild.cli", "csim", "outlined_main", "main_schedule"],
        cwd=where,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    build = where / "build"
    for project, functions in (
        ("outlined_main", ["top", "Stage_main"]),
        ("main_schedule", ["top", "Stage_X"]),
    ):
        summary = json.loads((build / project / "reports" / "summary.json").read_text())
        assert {f: s["state"] for f, s in summary["functions"].items()} == dict.fromkeys(functions, "pass")
        assert sorted(p.name for p in (build / project / "hls").iterdir()) == sorted(functions)
    # the C++ top of the "main" schedule is top(); main() is the testbench's alone
    top_cpp = (build / "main_schedule" / "hls" / "top" / "top.cpp").read_text()
    assert "void top(" in top_cpp and "main(" not in top_cpp.replace("main[", "")
    assert (
        "void Stage_main(" in (build / "outlined_main" / "hls" / "Stage_main" / "Stage_main.cpp").read_text()
    )


def test_task_files_are_the_strings_of_the_layout_paths(tmp_path: Path) -> None:
    # task discovery joins these without pathlib; they must name exactly what the Path methods name
    from hclbuild.project.layout import BuildLayout

    layout = BuildLayout(tmp_path / "build", "proj")
    for func, is_top in (("top", True), ("Stage_conv", False)):
        files = layout.task_files(func, is_top=is_top)
        assert files.mlir == str(layout.top_mlir if is_top else layout.func_mlir(func))
        assert files.golden_dir == str(layout.golden_dir(func))
        assert files.golden_manifest == str(layout.golden_dir(func) / "manifest.json")
        assert files.hls_dir == str(layout.hls_dir(func))
        assert list(files.hls) == [str(path) for path in layout.hls_files(func)]
        assert files.csim_json == str(layout.csim_json(func))
        assert files.data_dir == str(layout.hls_data_dir(func))
    assert layout.hls_files("top")[-1] == layout.hls_data_dir("top") / "manifest.json"
    paths = layout.project_task_files()
    for name in (
        "ir_dir",
        "top_mlir",
        "ir_manifest",
        "llvm_dir",
        "llvm_manifest",
        "reports_dir",
        "report_summary",
        "report_markdown",
        "status_dir",
    ):
        assert getattr(paths, name) == str(getattr(layout, name)), name


def test_function_names_with_a_trailing_newline_are_refused(tmp_path: Path) -> None:
    # the old check was a regex ending in `$`, which also matches before a final newline
    from hclbuild.errors import CompileError
    from hclbuild.project.layout import BuildLayout

    layout = BuildLayout(tmp_path / "build", "proj")
    for bad in ("Stage_x\n", "Stage-x", "1x", "", "Stagé"):
        with pytest.raises(CompileError, match="is not a C identifier"):
            layout.task_files(bad, is_top=False)
    assert layout.task_files("_Stage_x1", is_top=False).hls_dir == str(layout.hls_dir("_Stage_x1"))


def test_project_inputs_are_what_a_glob_of_py_files_lists(tmp_path: Path) -> None:
    # input_paths lists with os.scandir; it must name what Path.glob("*.py") did, then project.toml
    from hclbuild.project.plans import input_paths

    for name in ("kernel.py", "weights.py", ".hidden.py", "notes.txt", "a.pyc", "project.toml"):
        (tmp_path / name).write_text("x = 1\n")
    (tmp_path / "pkg.py").mkdir()
    expected = [str(path) for path in sorted(tmp_path.glob("*.py"))] + [str(tmp_path / "project.toml")]
    assert input_paths(tmp_path) == expected
    assert [Path(p).name for p in expected] == [
        ".hidden.py",
        "kernel.py",
        "pkg.py",
        "weights.py",
        "project.toml",
    ]
    (tmp_path / "project.toml").unlink()
    (tmp_path / "project.toml").mkdir()  # a folder of that name is no configuration
    assert input_paths(tmp_path) == expected[:-1]
    assert input_paths(tmp_path / "absent") == []


def test_two_folders_of_one_project_name_are_refused_naming_both(tmp_path: Path) -> None:
    # they would share build/<name>/; doit had said "duplicated definition of 'compile:same'"
    for folder in ("a", "b"):
        (tmp_path / "kernels" / folder).mkdir(parents=True)
        (tmp_path / "kernels" / folder / "kernel.py").write_text(OUTLINED_MAIN)
        (tmp_path / "kernels" / folder / "project.toml").write_text('[project]\nname = "same"\n')
    for argv in (
        ["-m", "hclbuild.cli", "csim", "kernels"],
        ["-m", "hclbuild.cli", "ci", "github", "kernels", "--install", "x"],
    ):
        done = subprocess.run(
            [sys.executable, *argv],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            check=False,
        )
        assert done.returncode == 1, done.stdout + done.stderr
        assert done.stderr.splitlines() == [
            f"hclbuild: error: {tmp_path / 'kernels' / 'a'} and {tmp_path / 'kernels' / 'b'} are both project 'same' "
            "(they would share build/same/ and its tasks): give one another [project] name"
        ]
        assert not (tmp_path / "build" / "same").exists()
