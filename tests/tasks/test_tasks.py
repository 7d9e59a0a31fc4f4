"""The doit flow end to end: which tasks run, caching, -n 2, interrupted builds, per-task errors."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from doit_helpers import doit, make_tree

from hclbuild.project.layout import PROJECT_OWNER_FILE

REPO = Path(__file__).resolve().parents[2]

KERNEL = """
import numpy as np
import hclbuild as hcl

N = 8

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((N,), "A")
    B = hcl.placeholder((N,), "B")

    def kernel(A, B):
        X = hcl.compute((N,), lambda i: A[i] * 3, name="X")
        Y = hcl.compute((N,), lambda i: X[i] + B[i], name="Y")
        return hcl.compute((N,), lambda i: Y[i] - 1, name="Z")

    s = hcl.create_schedule([A, B], kernel, name="top")
    s[kernel.X].pipeline(kernel.X.axis[0], initiation_interval=1)
    s[kernel.Y].pipeline(kernel.Y.axis[0], initiation_interval=1)
    s.outline(kernel.X)
    s.outline(kernel.Y)
    return s

def model(A, B):
    return (A * 3 + B - 1).astype(np.int32)
"""


def ran(proc: subprocess.CompletedProcess) -> set[str]:
    """Tasks doit executed (lines '[k/N] name'; the up-to-date ones are not listed)."""
    return {m.group(1) for m in re.finditer(r"^\[\d+/\d+\] (\S+)$", proc.stdout, re.M)}


def tree(root: Path) -> dict[str, bytes]:
    """Every generated file under build/ except the state of doit and of task discovery (build/.*),
    csim timings, and build/<name>/.hclbuild-project: it records the project folder's absolute path,
    which differs between the two trees compared here (it is the same for the same folder)."""
    files = {}
    for path in sorted((root / "build").rglob("*")):
        rel = path.relative_to(root / "build").as_posix()
        if path.name == PROJECT_OWNER_FILE:
            continue
        if path.is_file() and not rel.startswith(".") and "/csim/" not in rel:
            files[rel] = path.read_bytes()
    return files


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_tree(tmp_path_factory.mktemp("flow"), {"tri": KERNEL})
    doit(root, "csim")
    return root


def test_csim_runs_every_task_and_passes(built: Path) -> None:
    hls = built / "build" / "tri" / "hls"
    assert sorted(p.name for p in hls.iterdir()) == ["Stage_X", "Stage_Y", "top"]
    for func in ("top", "Stage_X", "Stage_Y"):
        result = (built / "build" / "tri" / "csim" / f"{func}.json").read_text()
        assert '"pass": true' in result


def test_second_run_runs_nothing_and_writes_no_state(built: Path) -> None:
    state = built / "build" / ".doit.db"
    before = state.stat().st_mtime_ns, state.read_bytes()
    proc = doit(built, "csim")
    assert ran(proc) == set()
    assert proc.stdout.startswith("up to date: ")  # the tasks were checked, and nothing ran
    # groups are up to date too: a group doit runs is saved, and sqlite's commit waits for the disk
    assert (state.stat().st_mtime_ns, state.read_bytes()) == before


NOOP_LOAD = (
    "import sys\n"
    "from doit.cmd_base import ModuleTaskLoader\n"
    "from doit.doit_cmd import DoitMain\n"
    "sys.path.insert(0, '.')\n"
    "import dodo\n"
    "code = DoitMain(ModuleTaskLoader(vars(dodo))).run(['csim'])\n"
    "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('mlir', 'llvmlite', 'jinja2', 'numpy', 'dask',\n"
    "                                                              'distributed')\n"
    "               or m.startswith(('hclbuild.dsl', 'hclbuild.schedule', 'hclbuild.compiler')))\n"
    "print('HEAVY', heavy, 'CODE', code)\n"
)


def python_in(root: Path, code: str) -> str:
    """What `python -c code` prints (stdout and stderr) run in the tree, with this hclbuild."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    return proc.stdout + proc.stderr


def noop_load(root: Path) -> str:
    return python_in(root, NOOP_LOAD)


def test_noop_load_imports_no_mlir_numpy_or_dsl(built: Path) -> None:
    out = noop_load(built)
    assert "HEAVY [] CODE 0" in out, out


PLAN_LOAD = (
    "import sys\n"
    "from pathlib import Path\n"
    "from hclbuild.tasks import all_tasks\n"
    "tasks = list(all_tasks(Path('projects'), Path('build')))\n"
    "print('EMITTER', 'hclbuild.compiler.emit_hls' in sys.modules, 'mlir.ir' in sys.modules)\n"
)


def test_a_planning_that_traced_a_kernel_imports_the_emitter_before_doit_forks(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"tri": KERNEL})
    traced = python_in(root, PLAN_LOAD)
    assert "EMITTER True True" in traced, traced
    planned = python_in(root, PLAN_LOAD)
    assert "EMITTER False False" in planned, planned  # the stored plan: nothing traced, nothing to compile


def test_a_changed_kernel_is_traced_again_and_its_new_function_planned(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"tri": KERNEL})
    assert "emit:tri/Stage_Y" in doit(root, "list", "--all").stdout
    (plan,) = (root / "build" / ".plans").glob("tri-*.json")
    assert json.loads(plan.read_text())["functions"] == ["top", "Stage_X", "Stage_Y"]
    kernel = root / "projects" / "tri" / "kernel.py"
    kernel.write_text(
        KERNEL.replace("    s.outline(kernel.Y)\n", "    s.outline(kernel.Y)\n    s.outline(kernel.Z)\n")
    )
    assert "emit:tri/Stage_Z" in doit(root, "list", "--all").stdout
    assert json.loads(plan.read_text())["functions"] == ["top", "Stage_X", "Stage_Y", "Stage_Z"]


def test_a_changed_sibling_module_is_traced_again(tmp_path: Path) -> None:
    kernel = KERNEL.replace(
        "import hclbuild as hcl\n", "import hclbuild as hcl\nfrom helper import OUTLINE_Z\n"
    )
    kernel = kernel.replace(
        "    s.outline(kernel.Y)\n",
        "    s.outline(kernel.Y)\n    if OUTLINE_Z:\n        s.outline(kernel.Z)\n",
    )
    root = make_tree(tmp_path, {"tri": kernel})
    helper = root / "projects" / "tri" / "helper.py"
    helper.write_text("OUTLINE_Z = False\n")
    assert "emit:tri/Stage_Z" not in doit(root, "list", "--all").stdout
    helper.write_text("OUTLINE_Z = True\n")
    assert "emit:tri/Stage_Z" in doit(root, "list", "--all").stdout


@pytest.mark.slow
def test_changing_one_pipeline_ii_reruns_only_that_function(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"tri": KERNEL})
    doit(root, "csim")
    kernel = root / "projects" / "tri" / "kernel.py"
    kernel.write_text(
        kernel.read_text().replace(
            "pipeline(kernel.Y.axis[0], initiation_interval=1)",
            "pipeline(kernel.Y.axis[0], initiation_interval=2)",
        )
    )
    proc = doit(root, "csim")
    # top.mlir holds the whole design, so the top's project follows any change; Stage_X stays
    assert ran(proc) == {
        "compile:tri",
        "reference:tri",
        "emit:tri/Stage_Y",
        "csim:tri/Stage_Y",
        "emit:tri/top",
        "csim:tri/top",
    }
    cpp = (root / "build" / "tri" / "hls" / "Stage_Y" / "Stage_Y.cpp").read_text()
    assert "#pragma HLS pipeline II=2" in cpp
    # the pragma is all that changed, which g++ ignores: both csims reuse their passing runs
    for func in ("Stage_Y", "top"):
        result = json.loads((root / "build" / "tri" / "csim" / f"{func}.json").read_text())
        assert result["pass"] is True and result["run_reused"] is True


def test_parallel_build_is_byte_identical_to_serial(tmp_path: Path) -> None:
    kernels = {"tri": KERNEL, "tri2": KERNEL.replace("* 3", "* 5").replace("A * 3", "A * 5")}
    serial = make_tree(tmp_path / "serial", kernels)
    parallel = make_tree(tmp_path / "parallel", kernels)
    doit(serial, "build")
    doit(parallel, "-n", "2", "build")
    assert tree(serial) == tree(parallel)
    assert len(tree(serial)) > 30


@pytest.mark.slow
def test_interrupted_build_then_rebuild_equals_clean_build(tmp_path: Path) -> None:
    clean = make_tree(tmp_path / "clean", {"tri": KERNEL})
    doit(clean, "build")
    expected = tree(clean)
    for delay in (0.6, 1.2, 2.0):
        root = make_tree(tmp_path / f"killed{delay}", {"tri": KERNEL})
        env = dict(os.environ, PYTHONPATH=str(REPO))
        proc = subprocess.Popen(
            [sys.executable, "-m", "doit", "build"],
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        doit(root, "build")
        assert tree(root) == expected, f"after a SIGKILL at {delay}s"


def test_errors_fail_their_own_task_and_others_continue(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path,
        {
            "good": KERNEL,
            "raises": "def schedule():\n    raise ValueError('boom in the kernel')\n",
        },
    )
    bad_toml = root / "projects" / "badtoml"
    bad_toml.mkdir()
    (bad_toml / "kernel.py").write_text(KERNEL)
    (bad_toml / "project.toml").write_text("[hls]\nclock_period_ns = 'fast'\n")
    proc = doit(root, "--continue", "csim", check=False)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "raises/kernel.py:2: schedule() failed: ValueError: boom in the kernel" in out
    assert "clock_period_ns" in out and "badtoml" in out
    assert (root / "build" / "good" / "csim" / "top.json").exists()
    assert '"pass": true' in (root / "build" / "good" / "csim" / "Stage_X.json").read_text()


def test_failing_csim_names_project_and_function(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"tri": KERNEL})
    doit(root, "build")
    cpp = root / "build" / "tri" / "hls" / "Stage_X" / "Stage_X.cpp"
    text = cpp.read_text()
    assert " * " in text
    cpp.write_text(text.replace(" * ", " + ", 1))
    proc = doit(root, "csim:tri/Stage_X", check=False)
    assert proc.returncode != 0
    assert "tri/Stage_X" in proc.stdout + proc.stderr


def test_doit_list_shows_docs_and_no_vitis_tasks(built: Path) -> None:
    proc = doit(built, "list", "--all")
    assert "emit:tri/Stage_X" in proc.stdout and "Vitis HLS project of Stage_X" in proc.stdout
    if subprocess.run(["which", "vitis_hls"], capture_output=True, check=False).returncode != 0:
        assert not any(line.startswith(("csynth", "cosim")) for line in proc.stdout.splitlines())


@pytest.mark.slow
def test_clean_removes_targets(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"tri": KERNEL})
    doit(root, "build")
    assert (root / "build" / "tri" / "llvm" / "units" / "top.ll").exists()
    doit(root, "csim")
    doit(root, "clean")
    left = [p for p in (root / "build" / "tri").rglob("*") if p.is_file()]
    # the ownership record stays: after a clean, another project named tri is still refused there
    assert left == [root / "build" / "tri" / PROJECT_OWNER_FILE]
    doit(root, "forget")
    assert ran(doit(root, "build")) >= {"compile:tri", "emit:tri/top"}


DIVIDE = """
import numpy as np
import hclbuild as hcl

def schedule():
    A = hcl.placeholder((4,), "A")
    B = hcl.placeholder((4,), "B")
    return hcl.create_schedule([A, B], lambda A, B: hcl.compute((4,), lambda i: A[i] / B[i], name="C"))

def inputs(rng):
    return [np.array([1, 2, 3, 4]), np.array([1, 0, 1, 1])]
"""


def test_a_crash_in_the_reference_fails_that_task_only(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"divide": DIVIDE, "tri": KERNEL})
    proc = doit(root, "--continue", "csim", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "divide: function top, stage C divides by zero" in out  # checked division in the reference
    assert (root / "build" / "tri" / "csim" / "top.json").exists()


OFF_BY_ONE = """
import hclbuild as hcl

def schedule():
    A = hcl.placeholder((8,), "A")
    def kernel(A):
        return hcl.compute((8,), lambda i: A[i] + A[i - 1], name="pairs")
    return hcl.create_schedule([A], kernel)
"""


def test_an_index_outside_a_tensor_is_reported_not_executed(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"off": OFF_BY_ONE})
    proc = doit(root, "csim", check=False)
    assert proc.returncode != 0
    assert "off: stage pairs reads A outside its shape (8,): subscript 0 is -1" in proc.stdout + proc.stderr
    assert not (root / "build" / "off" / "golden" / "top").exists()  # no golden data from a broken run


def test_planning_and_compile_run_the_kernel_in_child_processes_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kernel.py's code never runs in the build's own process (an os._exit() there ended the build,
    a thread it left running kept it from exiting): planning and compile each trace it in a child."""
    import hclbuild.project.kernel as kernel_module
    from hclbuild.project.config import Project
    from hclbuild.project.flow import compile_kernel
    from hclbuild.project.layout import BuildLayout
    from hclbuild.tasks import plan

    traces = []  # every call of a kernel's schedule() in this process (a fork's calls are its own)
    call_entry = kernel_module._call_entry

    def counted(project, fn, *args, **kwargs):
        traces.append(fn.__name__)
        return call_entry(project, fn, *args, **kwargs)

    monkeypatch.setattr(kernel_module, "_call_entry", counted)
    root = make_tree(tmp_path, {"tri": KERNEL})
    kernel, layout = root / "projects" / "tri" / "kernel.py", BuildLayout(root / "build", "tri")
    (entry,) = plan([kernel.parent], root / "build")
    assert entry.functions == ["top", "Stage_X", "Stage_Y"], entry.error
    assert compile_kernel(Project.from_plan(entry), layout).functions == ["top", "Stage_X", "Stage_Y"]
    # planned, then edited before compile: compile traces the kernel on disk
    kernel.write_text(
        KERNEL.replace("    s.outline(kernel.Y)\n", "    s.outline(kernel.Y)\n    s.outline(kernel.Z)\n")
    )
    assert compile_kernel(Project.from_plan(entry), layout).functions == [
        "top",
        "Stage_X",
        "Stage_Y",
        "Stage_Z",
    ]
    assert traces == []
    assert not [name for name in sys.modules if name.startswith("hclbuild_kernel_tri")]


PRINTS = """
import numpy as np
import hclbuild as hcl

def schedule():
    A = hcl.placeholder((2, 3), "A", hcl.Int(32))
    def kernel(A):
        hcl.print((A[0, 1], A[1, 2]), "A01=%d A12=%d\\n")
        return hcl.compute((2, 3), lambda i, j: A[i, j] + 1, "B")
    return hcl.create_schedule([A], kernel)

def inputs(rng):
    return [np.arange(6, dtype=np.int32).reshape(2, 3)]
"""


def test_a_kernel_that_prints_builds_and_its_reference_run_shows_the_print(tmp_path: Path) -> None:
    # the child's printf output once came back in front of its result, which then failed to decode
    root = make_tree(tmp_path, {"prints": PRINTS})
    proc = doit(root, "-v", "2", "csim")
    assert "A01=1 A12=5\n" in proc.stdout
    assert '"pass": true' in (root / "build" / "prints" / "csim" / "top.json").read_text()
