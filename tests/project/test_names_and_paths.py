"""A stage or schedule named `main` and a project folder whose path has spaces and shell/Tcl
metacharacters go through compile, reference, emit and csim like any other."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

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


@pytest.mark.slow
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


# HeteroCL issue 454: a tensor name is any printable string (Python keywords too); the C++ needs
# identifiers, the golden files safe names, and none of them may meet another
ODD_NAMES = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8,), "A A")
    B = hcl.placeholder((8,), "A_A")
    C = hcl.placeholder((8,), "lambda")
    D = hcl.placeholder((8,), 'q"uo\\\\te/../x')

    def kernel(A, B, C, D):
        X = hcl.compute((8,), lambda i: A[i] + B[i], name="for")
        Y = hcl.compute((8,), lambda i: X[i] * C[i], name="x y!")
        Z = hcl.compute((8,), lambda i: Y[i] - D[i], name="x_y_")
        k = hcl.reduce_axis(0, 8, "in")
        return hcl.compute((8,), lambda i: Z[i] + hcl.sum(A[k], axis=k), name="#include <out>")

    s = hcl.create_schedule([A, B, C, D], kernel)
    s.outline(s["for"])
    s.outline(s["x y!"], s["x_y_"])
    return s

def model(A, B, C, D):
    return ((A + B) * C - D + A.sum()).astype(np.int32)
"""


def test_any_printable_tensor_name_builds_and_simulates(tmp_path: Path) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "kernel.py").write_text(ODD_NAMES)
    # project.toml names arguments as kernel.py did
    (folder / "project.toml").write_text('[interface."A A"]\nprotocol = "m_axi"\n')
    proc = subprocess.run(
        [sys.executable, "-m", "hclbuild.cli", "csim", "odd"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    build = tmp_path / "build" / "odd"
    functions = ["top", "Stage_for", "Stage_x_y__x_y_"]
    summary = json.loads((build / "reports" / "summary.json").read_text())
    assert {f: s["state"] for f, s in summary["functions"].items()} == dict.fromkeys(functions, "pass")
    top_cpp = (build / "hls" / "top" / "top.cpp").read_text()
    assert "void top(int32_t A_A[8], int32_t A_A_1[8], int32_t lambda[8], int32_t q_uo_te____x[8]," in top_cpp
    assert "#pragma HLS interface mode=m_axi port=A_A " in top_cpp
    # every golden and testbench file is named after the C names: one folder level, no quote, no space
    c_names = ["A_A", "A_A_1", "lambda", "q_uo_te____x", "_include__out_"]
    expected = sorted(
        [*(f"in_{c}.bin" for c in c_names), *(f"out_{c}.bin" for c in c_names), "manifest.json"]
    )
    for data in (build / "golden" / "top", build / "hls" / "top" / "data"):
        assert sorted(p.name for p in data.iterdir()) == expected
    assert not (build / "golden" / "x").exists() and not (tmp_path / "build" / "x").exists()


@pytest.mark.parametrize("bad", ["", "a\nb", "tab\there", "\x00", 3, b"A"])
def test_a_tensor_name_must_be_a_printable_string(bad: object) -> None:
    import hclbuild as hcl
    from hclbuild.errors import APIError

    with pytest.raises(
        APIError, match=r"^placeholder: name .* must be a non-empty string of printable characters$"
    ):
        hcl.placeholder((4,), bad)
