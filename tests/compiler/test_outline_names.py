"""s.outline(..., name=...): the user names an outlined function, and that name is the function's
everywhere (the C++ function, its task names, its [interface.<func>.<arg>] table, the CI matrix);
an unnamed group's function is Stage_<stages>, made a C identifier and unique."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

import hclbuild as hcl
from hclbuild.errors import APIError
from hclbuild.project.config import load_project
from hclbuild.project.kernel import design_functions, kernel_schedule

REPO = Path(__file__).resolve().parents[2]

MLP = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    x = hcl.placeholder((8,), "x")
    W1 = hcl.placeholder((8, 8), "W1")
    W2 = hcl.placeholder((8, 8), "W2")

    def kernel(x, W1, W2):
        k = hcl.reduce_axis(0, 8, "k")
        fc1 = hcl.compute((8,), lambda i: hcl.sum(W1[i, k] * x[k], axis=k), name="fc1")
        h = hcl.compute((8,), lambda i: hcl.select(fc1[i] > 0, fc1[i], 0), name="h")
        m = hcl.reduce_axis(0, 8, "m")
        fc2 = hcl.compute((8,), lambda i: hcl.sum(W2[i, m] * h[m], axis=m), name="fc2")
        return hcl.compute((8,), lambda i: hcl.select(fc2[i] > 0, fc2[i], 0), name="y")

    s = hcl.create_schedule([x, W1, W2], kernel)
    s.outline([kernel.fc1, kernel.h], [kernel.fc2, kernel.y], name=["layer1", "layer2"])
    return s

def inputs(rng):
    return [rng.integers(-4, 5, 8).astype(np.int32), rng.integers(-4, 5, (8, 8)).astype(np.int32),
            rng.integers(-4, 5, (8, 8)).astype(np.int32)]

def model(x, W1, W2):
    h = np.maximum(W1 @ x, 0)
    return np.maximum(W2 @ h, 0).astype(np.int32)
"""


def run_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hclbuild.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        timeout=600,
        check=False,
    )


@pytest.mark.slow
def test_a_named_function_is_that_name_in_the_cpp_tasks_interfaces_and_ci(tmp_path: Path) -> None:
    folder = tmp_path / "mlp"
    folder.mkdir()
    (folder / "kernel.py").write_text(MLP)
    (folder / "project.toml").write_text('[interface.layer1.W1]\nprotocol = "m_axi"\nbundle = "w1"\n')
    proc = run_cli(tmp_path, "csim", "mlp")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    build = tmp_path / "build" / "mlp"
    manifest = json.loads((build / "ir" / "manifest.json").read_text())
    assert manifest["functions"] == ["top", "layer1", "layer2"]
    assert "void layer1(" in (build / "hls" / "layer1" / "layer1.cpp").read_text()
    top_cpp = (build / "hls" / "top" / "top.cpp").read_text()
    assert "  layer1(" in top_cpp and "  layer2(" in top_cpp and "Stage_" not in top_cpp
    pragma = "#pragma HLS interface mode=m_axi port=W1 bundle=w1"
    assert pragma in (build / "hls" / "layer1" / "layer1.cpp").read_text()
    for func in ("top", "layer1", "layer2"):
        assert json.loads((build / "csim" / f"{func}.json").read_text())["pass"] is True
    listed = run_cli(tmp_path, "list", "mlp").stdout
    assert "csim:mlp/layer1" in listed and "emit:mlp/layer2" in listed and "Stage_" not in listed
    (tmp_path / "requirements.txt").write_text("hclbuild\n")
    assert run_cli(tmp_path, "ci", "github", "mlp").returncode == 0
    workflow = yaml.safe_load((tmp_path / ".github" / "workflows" / "hclbuild.yml").read_text())
    matrix = workflow["jobs"]["csynth"]["strategy"]["matrix"]["include"]
    assert [row["function"] for row in matrix] == ["layer1", "layer2"]


def test_planning_names_what_compile_makes(tmp_path: Path) -> None:
    folder = tmp_path / "mlp"
    folder.mkdir()
    (folder / "kernel.py").write_text(MLP)
    project = load_project(folder)
    schedule = kernel_schedule(project)
    assert design_functions(schedule, "mlp") == ["top", "layer1", "layer2"]
    from hclbuild.compiler.pipeline import compile_schedule

    assert compile_schedule(kernel_schedule(project)).outlined == ["layer1", "layer2"]


def three_stages():
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        B = hcl.compute((8,), lambda i: A[i] + 1, "B")
        C = hcl.compute((8,), lambda i: B[i] * 2, "C")
        return hcl.compute((8,), lambda i: C[i] - 3, "D")

    return hcl.create_schedule([A], kernel), kernel


def built_functions(s) -> list[str]:
    text = str(hcl.lower(s))
    return [line.split("@")[1].split("(")[0] for line in text.splitlines() if "func.func" in line]


def test_each_form_of_outline_takes_a_name(rng) -> None:
    s, k = three_stages()
    handle = s.outline(k.B, name="first")
    assert handle.name == "first"
    assert s.outline(k.C, k.D, name="rest").name == "rest"  # a start..end range
    assert built_functions(s) == ["first", "rest", "top"]
    a = rng.integers(0, 9, 8, dtype=np.int32)
    out = np.zeros(8, np.int32)
    hcl.build(s)(a, out)
    np.testing.assert_array_equal(out, (a + 1) * 2 - 3)

    s, k = three_stages()
    assert s[k.C].outline(axis=k.C.axis[0], name="body").name == "body"
    assert s.outline(k.D, axis=k.D.axis[0], name="tail").name == "tail"
    assert sorted(built_functions(s)) == ["body", "tail", "top"]


def test_unnamed_functions_are_c_identifiers_and_unique() -> None:
    # stage names need not be C identifiers; the function names made from them must, and two
    # stages whose names differ only in such characters must not share one
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        B = hcl.compute((8,), lambda i: A[i] + 1, "x y!")
        C = hcl.compute((8,), lambda i: B[i] * 2, "x_y_")
        return hcl.compute((8,), lambda i: C[i] - 3, "for")

    s = hcl.create_schedule([A], kernel)
    names = [s.outline(s[stage]).name for stage in ("x y!", "x_y_", "for")]
    assert names == ["Stage_x_y_", "Stage_x_y__1", "Stage_for"]
    assert sorted(built_functions(s)) == ["Stage_for", "Stage_x_y_", "Stage_x_y__1", "top"]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "2fast",
            "outline: name '2fast' must be a C identifier (letters, digits and '_', not first a digit)",
        ),
        ("fc-1", "outline: name 'fc-1' must be a C identifier"),
        ("", "outline: name '' must be a C identifier"),
        (7, "outline: name 7 must be a C identifier"),
        ("für", "outline: name 'für' must be a C identifier"),
        ("for", "outline: name 'for' is a C++ keyword or a name the generated code uses"),
        ("main", "outline: name 'main' is a C++ keyword or a name the generated code uses"),
        ("int32_t", "outline: name 'int32_t' is a C++ keyword or a name the generated code uses"),
        ("top", "outline: name 'top' is already the design's top function"),
    ],
)
def test_a_bad_name_is_refused_in_one_line(name: object, message: str) -> None:
    s, k = three_stages()
    with pytest.raises(APIError) as info:
        s.outline(k.B, name=name)
    assert str(info.value).startswith(message)
    assert s.outlines == [] and s.outlined == set()  # nothing recorded


def test_a_name_is_unique_in_the_design() -> None:
    s, k = three_stages()
    s.outline(k.B, name="f")
    with pytest.raises(APIError, match=r"^outline: name 'f' is already the function of stage\(s\) B$"):
        s.outline(k.C, name="f")
    with pytest.raises(APIError, match=r"^outline: name 'f' is already the function of stage\(s\) B$"):
        s[k.D].outline(axis=k.D.axis[0], name="f")
    with pytest.raises(APIError, match=r"^outline: name 'g' is given to two groups$"):
        s.outline([k.C], [k.D], name=["g", "g"])

    A = hcl.placeholder((8,), "A")

    @hcl.def_([(8,), (8,)])
    def helper(A, B):
        with hcl.for_(0, 8) as i:
            B[i] = A[i] + 1

    def kernel(A):
        B = hcl.compute((8,), lambda i: 0, "B")
        helper(A, B)
        return hcl.compute((8,), lambda i: B[i] * 2, "C")

    s = hcl.create_schedule([A], kernel)
    with pytest.raises(APIError, match=r"^outline: name 'helper' is already a def_ function$"):
        s.outline(kernel.C, name="helper")


def test_names_for_several_groups_come_as_a_list_of_as_many() -> None:
    s, k = three_stages()
    with pytest.raises(APIError, match=r"^outline: 2 groups need a list of 2 names, got 'one'$"):
        s.outline([k.B], [k.C], name="one")
    with pytest.raises(APIError, match=r"^outline: 2 groups need a list of 2 names, got \['a'\]$"):
        s.outline([k.B], [k.C], name=["a"])
    handles = s.outline([k.B], [k.C], name=["b", None])  # None: the default name
    assert [h.name for h in handles] == ["b", "Stage_C"]
