"""`hclbuild report --compare BASE --fail-on ...` on two real builds of one small project: the new build
unrolls stage X (more multipliers), makes stage Y slower (a second pass over its data), and its
stage Z's generated C++ is edited so that its real g++ csim fails.

The QoR figures come from estimate/<func>.json: the real estimator's where this hclbuild has one;
otherwise the test writes estimate files itself (the fixture test below), so the comparison, the
thresholds and the CI outputs run on real builds either way.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from hclbuild.cli import main

KERNEL = """
import numpy as np
import hclbuild as hcl

N = 32

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((N,), "A")

    def kernel(A):
        X = hcl.compute((N,), lambda i: A[i] * 3, name="X")
        Y = hcl.compute((N,), lambda i: X[i] + 1, name="Y")
        return hcl.compute((N,), lambda i: Y[i] - 2, name="Z")

    s = hcl.create_schedule([A], kernel, name="top")
    s[kernel.X].UNROLL
    s[kernel.Y].pipeline(kernel.Y.axis[0], initiation_interval=II)
    s.outline(kernel.X)
    s.outline(kernel.Y)
    s.outline(kernel.Z)
    return s

def model(A):
    return (A * 3 + 1 - 2).astype(np.int32)
"""
pytestmark = pytest.mark.slow
FUNCTIONS = ("top", "Stage_X", "Stage_Y", "Stage_Z")


def write_project(folder: Path, unroll: int, ii: int, kernel: str = KERNEL) -> Path:
    folder.mkdir(parents=True)
    unrolled = f"unroll(kernel.X.axis[0], factor={unroll})" if unroll > 1 else "pipeline(kernel.X.axis[0])"
    (folder / "kernel.py").write_text(kernel.replace("UNROLL", unrolled).replace("II", str(ii)))
    (folder / "project.toml").write_text('[ci]\nfail_on = "latency>+5%,DSP>+10%,csim"\n')
    return folder


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(base project, new project), each built and reported in its own folder."""
    root = tmp_path_factory.mktemp("compare")
    base = write_project(root / "base" / "p", unroll=1, ii=1)
    new = write_project(root / "new" / "p", unroll=4, ii=4)
    assert main(["report", str(base)]) == 0
    assert main(["report", str(new)]) == 0
    # the csim failure: a hand edit of the generated code, which the next csim compiles and runs
    cpp = root / "new" / "build" / "p" / "hls" / "Stage_Z" / "Stage_Z.cpp"
    cpp.write_text(cpp.read_text().replace("- 2", "- 3", 1))
    return base, new


def summary(project: Path) -> dict:
    return json.loads((project.parent / "build" / project.name / "reports" / "summary.json").read_text())


def estimate(project: Path, func: str, latency: int, dsp: int) -> None:
    path = project.parent / "build" / project.name / "estimate" / f"{func}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "kind": "estimate",
        "model_version": "test fixture",
        "function": func,
        "part": "xcu250-figd2104-2L-e",
        "clock_ns": 10.0,
        "latency_min": latency,
        "latency_max": latency,
        "interval": latency + 1,
        "loops": [],
        "resources": {"DSP": dsp, "BRAM_18K": 0, "FF": 100, "LUT": 200},
    }
    path.write_text(json.dumps(data))


def check_crossings(capsys, base: Path, new: Path, *extra: str) -> tuple[str, str]:
    code = main(["report", str(new), "--compare", str(base.parent / "build"), *extra])
    out, err = capsys.readouterr()
    assert code == 1
    return out, err


def test_compare_names_every_crossing_with_fixture_estimates(
    builds: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, new = builds
    for func in FUNCTIONS:
        estimate(base, func, latency=40, dsp=3 if func == "Stage_X" else 0)
        estimate(new, func, latency=160 if func == "Stage_Y" else 40, dsp=12 if func == "Stage_X" else 0)
    assert main(["report", str(base)]) == 0  # the report task reads the new estimate files
    step_summary = tmp_path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    out, err = check_crossings(capsys, base, new)
    lines = [line for line in err.splitlines() if line.startswith("hclbuild: QoR: ")]
    assert lines == [
        "hclbuild: QoR: p/Stage_X: DSP (estimated) 3 -> 12 (+300.0%) crosses DSP>+10%",
        "hclbuild: QoR: p/Stage_Y: Latency (estimated) 40 -> 160 (+300.0%) crosses latency>+5%",
        "hclbuild: QoR: p/Stage_Z: csim FAIL: p/Stage_Z: csim failed: 32 of 64 elements differ; "
        "first Z[0] expected=266 actual=265",
    ]
    assert "| p/Stage_X | pass | estimated | 40 | 41 | 3 -> 12 (+300.0%) | 0 | 100 | 200 |" in out
    assert "| p/Stage_Z | pass -> FAIL | estimated |" in out
    assert step_summary.read_text().startswith("## hclbuild QoR: this build against ")
    # a looser threshold on the command line replaces the project's [ci] one; the csim failure stays
    out, err = check_crossings(capsys, base, new, "--fail-on", "latency>+500%,DSP>+500%")
    assert [line for line in err.splitlines() if "QoR" in line] == [lines[2]]


def test_compare_of_saved_summaries_builds_nothing(
    builds: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, new = builds
    assert main(["report", str(new)]) == 1  # Stage_Z's csim runs and fails
    saved = tmp_path / "base-summary.json"
    shutil.copyfile(base.parent / "build" / "summary.json", saved)
    monkeypatch.setenv("GITLAB_CI", "true")
    monkeypatch.chdir(tmp_path)
    before = {path: path.stat().st_mtime_ns for path in (new.parent / "build").rglob("*") if path.is_file()}
    code = main(["report", str(new.parent / "build"), "--compare", str(saved), "--fail-on", "csim"])
    assert code == 1
    assert {
        path: path.stat().st_mtime_ns for path in (new.parent / "build").rglob("*") if path.is_file()
    } == before
    metrics = (tmp_path / "metrics.txt").read_text().splitlines()
    assert 'hclbuild_csim_pass{project="p",function="Stage_X"} 1' in metrics
    assert summary(new)["functions"]["Stage_Z"]["state"] == "FAIL"
    assert 'hclbuild_csim_pass{project="p",function="Stage_Z"} 0' in metrics


def test_bad_fail_on_is_one_line(builds: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    base, new = builds
    assert (
        main(
            [
                "report",
                str(new.parent / "build"),
                "--compare",
                str(base.parent / "build"),
                "--fail-on",
                "DSP>10",
            ]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert (
        err.startswith("hclbuild: error: fail-on item 'DSP>10': expected METRIC>+N%") and err.count("\n") == 1
    )
    assert main(["report", str(new.parent / "build"), "--fail-on", "csim"]) == 1
    assert "--fail-on needs --compare BASE" in capsys.readouterr().err


@pytest.mark.skipif(
    importlib.util.find_spec("hclbuild.compiler.estimate") is None,
    reason="the QoR estimator (hclbuild.compiler.estimate) is not in this hclbuild yet: "
    "the fixture-estimate test covers the comparison",
)
def test_compare_names_every_crossing_with_real_estimates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # X multiplies two variables: a product by the constant 3 is shifts and adds (no DSP) in Vitis
    # and in the model, so unrolling it would cross no DSP threshold
    squares = KERNEL.replace("A[i] * 3", "A[i] * A[i]").replace("A * 3", "A * A")
    base = write_project(tmp_path / "base" / "p", unroll=1, ii=1, kernel=squares)
    new = write_project(tmp_path / "new" / "p", unroll=4, ii=4, kernel=squares)
    assert main(["report", str(base)]) == 0
    assert (tmp_path / "base" / "build" / "p" / "estimate" / "Stage_X.json").is_file()
    code = main(["report", str(new), "--compare", str(tmp_path / "base" / "build")])
    err = capsys.readouterr().err
    assert code == 1
    assert "hclbuild: QoR: p/Stage_X: DSP (estimated) " in err
    assert "hclbuild: QoR: p/Stage_Y: Latency (estimated) " in err
