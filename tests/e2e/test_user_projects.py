"""Features a HeteroCL user puts in a project, through the real doit tasks (not the in-process APIs):
each kernel here once built and passed its unit tests but broke `doit build` or `doit csim`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from doit_helpers import doit, make_tree

AXIS_OUTLINE = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((4, 6), "A")
    def kernel(A):
        return hcl.compute((4, 6), lambda i, j: A[i, j] * 3 + i, name="B")
    s = hcl.create_schedule([A], kernel, name="top")
    s[kernel.B].outline(axis=kernel.B.axis[0])
    return s

def model(A):
    return (A * 3 + np.arange(4)[:, None]).astype(np.int32)
"""

UNIFY_SET = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8,), "A")
    def kernel(A):
        B = hcl.compute((8,), lambda i: A[i] + 1, name="B")
        return hcl.compute((8,), lambda i: B[i] + 1, name="C")
    s = hcl.create_schedule([A], kernel, name="top")
    s.outline([kernel.B], [kernel.C], unify=True)
    return s

def model(A):
    return (A + 2).astype(np.int32)
"""

UNIFY_AXIS = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((4, 6), "A")
    def kernel(A):
        B = hcl.compute((4, 6), lambda i, j: A[i, j] + 1, name="B")
        return hcl.compute((4, 6), lambda i, j: B[i, j] + 1, name="C")
    s = hcl.create_schedule([A], kernel, name="top")
    s[kernel.B].outline(axis=kernel.B.axis[0])
    s[kernel.C].outline(axis=kernel.C.axis[0], unify=True)
    return s

def model(A):
    return (A + 2).astype(np.int32)
"""


def _tasks(root: Path) -> set[str]:
    return {line.split()[0] for line in doit(root, "list", "--all").stdout.splitlines() if line.strip()}


def _functions(root: Path, project: str) -> list[str]:
    return json.loads((root / "build" / project / "ir" / "manifest.json").read_text())["functions"]


@pytest.mark.slow
def test_outline_at_an_axis_gets_its_own_project_and_csim(tmp_path: Path) -> None:
    """s[B].outline(axis=...) had no emit or csim task: doit csim exited 0 with Stage_B 'not run'."""
    root = make_tree(tmp_path, {"rows": AXIS_OUTLINE})
    doit(root, "csim")
    assert {"emit:rows/Stage_B", "csim:rows/Stage_B"} <= _tasks(root)
    for func in ("top", "Stage_B"):
        result = json.loads((root / "build" / "rows" / "csim" / f"{func}.json").read_text())
        assert result["pass"] is True and result["outputs_compared"] == 24


@pytest.mark.parametrize("kernel", [UNIFY_SET, UNIFY_AXIS], ids=["outline-lists", "outline-axis"])
def test_unified_outlines_plan_the_one_function_they_share(tmp_path: Path, kernel: str) -> None:
    """unify=True makes C call Stage_B: planning had listed a Stage_C that compile never made."""
    root = make_tree(tmp_path, {"uni": kernel})
    doit(root, "build")
    assert _functions(root, "uni") == ["top", "Stage_B"]
    tasks = _tasks(root)
    assert "emit:uni/Stage_B" in tasks and "emit:uni/Stage_C" not in tasks
    assert (root / "build" / "uni" / "hls" / "Stage_B" / "data").is_dir()


UNIFY_REFUSED = """
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((4, 4), "A")
    def kernel(A):
        B = hcl.compute((4, 4), lambda i, j: A[i, j] + 1, name="B")
        return hcl.compute((4, 4), lambda i, j: B[i, j] * 2, name="C")
    s = hcl.create_schedule([A], kernel, name="top")
    s.to(kernel.B, s[kernel.C])
    s[kernel.C].outline(axis=kernel.C.axis[0], unify=True)
    return s
"""


def test_a_unified_schedule_that_does_not_compile_fails_naming_its_project(tmp_path: Path) -> None:
    """Planning compiles a unify=True schedule; its error had come without the project's name."""
    root = make_tree(tmp_path, {"unibad": UNIFY_REFUSED})
    proc = doit(root, "build", check=False)
    assert proc.returncode != 0
    assert (
        "unibad: s.to: a stream reaches @Stage_C, a loop body outlined with axis=; outline the whole "
        "stage instead" in proc.stdout + proc.stderr
    )


NAN_MODEL = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Float())
    A = hcl.placeholder((8,), "A")
    s = hcl.create_schedule([A], lambda A: hcl.compute((8,), lambda i: hcl.sqrt(A[i]), name="B"), name="top")
    return s

def inputs(rng):
    return [np.array([4, -1, 0, 2.25, -9, 1, 16, -0.5], np.float32)]

def model(A):
    with np.errstate(invalid="ignore"):
        return np.sqrt(A)
"""

ZERO_DIM_INPUT = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A, N = hcl.placeholder((8,), "A"), hcl.placeholder((), "N")
    def kernel(A, N):
        total = hcl.scalar(0, "total")
        with hcl.for_(0, 8) as i:
            total.v = total.v + A[i] * N
        return total
    return hcl.create_schedule([A, N], kernel, name="top")

def inputs(rng):
    return [np.arange(8) - 3, 3]

def model(A, N):
    return np.array([int((A * N).sum())])
"""


def test_nan_where_the_model_has_nan_agrees(tmp_path: Path) -> None:
    """sqrt of a negative is NaN in numpy and in LLVM: the model check had called that a disagreement."""
    root = make_tree(tmp_path, {"roots": NAN_MODEL})
    doit(root, "build")
    got = np.fromfile(root / "build" / "roots" / "golden" / "top" / "out_B.bin", np.float32)
    np.testing.assert_array_equal(got, [2, np.nan, 0, 1.5, np.nan, 1, 4, np.nan])


def test_a_zero_dim_placeholder_takes_a_number_from_inputs(tmp_path: Path) -> None:
    """inputs() giving 3 for a placeholder of shape () had failed: 'gave N shape (), expected (1,)'."""
    root = make_tree(tmp_path, {"dot": ZERO_DIM_INPUT})
    proc = doit(root, "build", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    golden = root / "build" / "dot" / "golden" / "top"
    assert np.fromfile(golden / "in_N.bin", np.int32).tolist() == [3]
    assert np.fromfile(golden / "out_total.bin", np.int32).tolist() == [3 * sum(range(-3, 5))]


SIBLING_FACTOR = """
import numpy as np
import hclbuild as hcl
from helpers import FACTOR

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((4,), "A")
    return hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: A[i] * FACTOR, name="B"), name="top")

def model(A):
    return A * {factor}
"""


def test_projects_with_a_sibling_module_of_the_same_name_each_import_their_own(tmp_path: Path) -> None:
    """Two projects, each with its own helpers.py: the second had run with the first one's module."""
    root = make_tree(
        tmp_path,
        {
            name: SIBLING_FACTOR.replace("{factor}", str(factor))
            for name, factor in (("alpha", 2), ("beta", 5))
        },
    )
    for name, factor in (("alpha", 2), ("beta", 5)):
        (root / "projects" / name / "helpers.py").write_text(f"FACTOR = {factor}\n")
    doit(root, "build")
    for name, factor in (("alpha", 2), ("beta", 5)):
        golden = root / "build" / name / "golden" / "top"
        assert (
            np.fromfile(golden / "out_B.bin", np.int32) == np.fromfile(golden / "in_A.bin", np.int32) * factor
        ).all()


STRUCT_IO = """
import numpy as np
import hclbuild as hcl

ST = hcl.Struct({"fa": hcl.Int(8), "fb": hcl.Fixed(13, 11), "fc": hcl.Float()})

def schedule():
    A = hcl.placeholder((4,), "A", dtype=ST)
    def kernel(A):
        B = hcl.compute((4,), lambda x: (A[x].fa + 1, A[x].fb, A[x].fc * 2.0), dtype=ST, name="B")
        return B, hcl.compute((4,), lambda x: B[x].fc + B[x].fa, dtype=hcl.Float(), name="C")
    s = hcl.create_schedule([A], kernel, name="top")
    s.outline(kernel.B)
    return s

def inputs(rng):
    a = np.zeros(4, dtype=[("fa", np.int64), ("fb", np.float64), ("fc", np.float32)])
    a["fa"], a["fb"], a["fc"] = [1, -3, 126, 127], [0.5, -0.25, 1.75, -2.0], [1.5, 2.5, -3.0, 0.125]
    return [a]

def model(A):
    B = A.copy()
    B["fa"] = (A["fa"] + 1 + 128) % 256 - 128
    B["fc"] = A["fc"] * 2
    return {"B": B, "C": (B["fc"] + B["fa"]).astype(np.float32)}
"""


def test_struct_arguments_are_structured_arrays_in_inputs_and_model(tmp_path: Path) -> None:
    """inputs() and model() see a Struct argument as a numpy structured array (as hcl.asarray does):
    the flow had kept only its packed width ('cannot convert numpy [...] to uint53')."""
    root = make_tree(tmp_path, {"rec": STRUCT_IO})
    doit(root, "build")
    got = np.fromfile(root / "build" / "rec" / "golden" / "top" / "out_C.bin", np.float32)
    np.testing.assert_array_equal(got, [5.0, 3.0, 121.0, -127.75])


def test_csim_that_leaves_a_function_without_a_result_exits_1(tmp_path: Path, monkeypatch, capsys) -> None:
    """When every task succeeds but a function has no csim result (a function the task list missed,
    as outline(axis=...) had been), `hclbuild csim` had exited 0 under a 'not run' row."""
    from hclbuild import cli
    from hclbuild.cli import commands

    make_tree(tmp_path, {"rows": AXIS_OUTLINE})
    row = {
        "project": "rows",
        "function": "Stage_B",
        "csim": "not run",
        "max_abs_err": "-",
        "latency": "-",
        "resources": "-",
        "reason": "emit:rows/Stage_B has not run",
    }
    monkeypatch.setattr(commands, "run_doit", lambda *args: 0)
    monkeypatch.setattr(commands, "summary_rows", lambda projects, build_root: [row])
    assert cli.main(["csim", str(tmp_path / "projects" / "rows"), "-n", "1"]) == 1
    assert capsys.readouterr().err == (
        "hclbuild: error: rows/Stage_B has no passing csim although every task "
        "succeeded: emit:rows/Stage_B has not run\n"
    )
    monkeypatch.setattr(
        commands, "summary_rows", lambda projects, build_root: [dict(row, csim="pass", reason="")]
    )
    assert cli.main(["csim", str(tmp_path / "projects" / "rows"), "-n", "1"]) == 0
