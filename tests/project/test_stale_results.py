"""No result that a failed, interrupted or outdated run left behind may show as a pass.

Each test first builds a project whose csim passes, then breaks one thing the way a user does:
g++ or the ap_types headers go missing, a generated .cpp is edited, the kernel changes so that
its numpy model disagrees, or csim is killed. csim/<func>.json, reports/report.md,
reports/summary.json and the CLI summary must then say FAIL or "not run" with the reason.
The tasks run in-process through the CLI's own doit runner (`hclbuild.cli.run_doit`).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hclbuild.cli import run_doit, summary_rows

REPO = Path(__file__).resolve().parents[2]

KERNEL = """
import numpy as np
import hclbuild as hcl

N = 8

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((N,), "A")

    def kernel(A):
        X = hcl.compute((N,), lambda i: A[i] * 3, name="X")
        return hcl.compute((N,), lambda i: X[i] + 1, name="Y")

    s = hcl.create_schedule([A], kernel, name="top")
    s.outline(kernel.X)
    return s

def model(A):
    return (A * 3 + 1).astype(np.int32)
"""


def make_project(root: Path, kernel: str = KERNEL, name: str = "p") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(kernel)
    return folder


def doit(folder: Path, *command: str) -> int:
    return run_doit(list(command), [folder], folder.parent / "build")


def csim_json(folder: Path, func: str) -> dict:
    return json.loads((folder.parent / "build" / folder.name / "csim" / f"{func}.json").read_text())


def report_lines(folder: Path) -> list[str]:
    return (folder.parent / "build" / folder.name / "reports" / "report.md").read_text().splitlines()


def summary(folder: Path) -> dict:
    return json.loads((folder.parent / "build" / folder.name / "reports" / "summary.json").read_text())


def cli_rows(folder: Path) -> dict[str, dict]:
    return {row["function"]: row for row in summary_rows([folder], folder.parent / "build")}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A project whose `doit csim report` passed for both functions, and a copy of that tree."""
    root = tmp_path_factory.mktemp("stale")
    folder = make_project(root / "work")
    assert doit(folder, "csim", "report") == 0
    shutil.copytree(root / "work", root / "saved", symlinks=True)
    return folder, root / "saved"


@pytest.fixture
def passed(built: tuple[Path, Path]) -> Path:
    """The passing project, restored in place (same paths, same mtimes: doit's state still holds)."""
    folder, saved = built
    shutil.rmtree(folder.parent)
    shutil.copytree(saved, folder.parent, symlinks=True)
    assert doit(folder, "csim") == 0
    assert {row["csim"] for row in cli_rows(folder).values()} == {"pass"}
    assert "- Stage_X: pass" in report_lines(folder)
    return folder


def test_missing_gxx_writes_a_failed_result(passed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert doit(passed, "forget", "csim:p/Stage_X") in (0, None)
    monkeypatch.setenv("PATH", str(passed.parent / "no-tools-here"))
    assert doit(passed, "--continue", "csim", "report") != 0
    result = csim_json(passed, "Stage_X")
    assert result["pass"] is False
    assert result["error"] == "g++ not found on PATH (C simulation needs a C++ compiler)"
    message = "p/Stage_X: g++ not found on PATH (C simulation needs a C++ compiler)"
    assert f"- Stage_X: FAIL: {message}" in report_lines(passed)
    assert summary(passed)["functions"]["Stage_X"]["state"] == "FAIL"
    rows = cli_rows(passed)
    assert (rows["Stage_X"]["csim"], rows["top"]["csim"]) == ("FAIL", "pass")
    assert (rows["Stage_X"]["max_abs_err"], rows["top"]["max_abs_err"]) == ("-", "0")  # nothing was compared


def test_missing_ap_types_headers_write_a_failed_result(
    passed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cpp = passed.parent / "build" / "p" / "hls" / "top" / "top.cpp"
    cpp.write_text('#include "ap_int.h"\n' + cpp.read_text())  # as an emitted ap_int<12> design has
    monkeypatch.setattr("hclbuild.runtime.csim.ap_types_include_dir", lambda: None)
    assert doit(passed, "--continue", "csim", "report") != 0
    result = csim_json(passed, "top")
    assert result["pass"] is False and "no ap_types headers were found" in result["error"]
    assert cli_rows(passed)["top"]["csim"] == "FAIL"
    assert summary(passed)["functions"]["top"]["state"] == "FAIL"
    assert summary(passed)["functions"]["Stage_X"]["state"] == "pass"


def test_sabotaged_cpp_fails_in_json_report_and_summary(passed: Path) -> None:
    cpp = passed.parent / "build" / "p" / "hls" / "Stage_X" / "Stage_X.cpp"
    cpp.write_text(cpp.read_text().replace(" * 3", " * 4", 1))
    # before csim reruns, the old pass no longer describes the .cpp on disk
    assert cli_rows(passed)["Stage_X"]["csim"] == "not run"
    assert cli_rows(passed)["Stage_X"]["reason"] == f"{cpp} changed after csim:p/Stage_X ran"
    assert doit(passed, "--continue", "csim", "report") != 0
    assert csim_json(passed, "Stage_X")["pass"] is False
    lines = report_lines(passed)
    assert any(line.startswith("| Stage_X | fail |") for line in lines)
    verdict = "- Stage_X: FAIL: p/Stage_X: csim failed: 8 of 16 elements differ; first X[0]"
    assert any(line.startswith(verdict) for line in lines)
    assert "- top: pass" in lines  # the other function's verdict is unaffected
    assert summary(passed)["functions"]["Stage_X"]["state"] == "FAIL"
    assert cli_rows(passed)["Stage_X"]["csim"] == "FAIL"


def test_kernel_change_that_breaks_the_model_leaves_no_pass(passed: Path) -> None:
    kernel = passed / "kernel.py"
    kernel.write_text(kernel.read_text().replace("A[i] * 3", "A[i] * 5"))
    assert doit(passed, "--continue", "csim", "report") != 0
    reason = "reference:p failed: p: numpy model and LLVM reference disagree on Y[0]"
    lines = report_lines(passed)
    for func in ("top", "Stage_X"):
        assert any(line.startswith(f"- {func}: not run: {reason}") for line in lines), lines
        assert any(line.startswith(f"| {func} | - |") for line in lines)
        state = summary(passed)["functions"][func]
        assert (state["state"], state["csim"]) == ("not run", None)
        row = cli_rows(passed)[func]
        assert row["csim"] == "not run" and row["reason"].startswith(reason)
    assert summary(passed)["problems"][0]["task"] == "reference:p"


def test_killed_csim_is_not_run_not_pass(passed: Path) -> None:
    cpp = passed.parent / "build" / "p" / "hls" / "Stage_X" / "Stage_X.cpp"
    cpp.write_text(cpp.read_text() + "\n// edited: csim must run again\n")
    status = passed.parent / "build" / "p" / "status" / "csim" / "Stage_X.json"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    command = [sys.executable, "-m", "hclbuild.cli", "csim", str(passed)]
    proc = subprocess.Popen(
        command,
        cwd=passed.parent,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while '"running"' not in (status.read_text() if status.exists() else ""):
        assert proc.poll() is None and time.monotonic() < deadline, "csim of Stage_X never started"
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    result = passed.parent / "build" / "p" / "csim" / "Stage_X.json"
    assert not result.exists() or json.loads(result.read_text())["pass"] is False
    row = cli_rows(passed)["Stage_X"]
    assert (row["csim"], row["reason"]) == ("not run", "csim:p/Stage_X did not finish")
    # killed between removing the report and rewriting it, there is none; else it has the verdict
    report = passed.parent / "build" / "p" / "reports" / "report.md"
    if report.exists():
        assert "- Stage_X: not run: csim:p/Stage_X did not finish" in report_lines(passed)
        assert summary(passed)["functions"]["Stage_X"]["csim"] is None
    # the rerun redoes the unfinished csim and the verdict is a pass again
    assert doit(passed, "csim") == 0
    assert cli_rows(passed)["Stage_X"]["csim"] == "pass"


@pytest.mark.parametrize(
    "damage",
    ['{"pass": tr', "", "[true]", "top"],
    ids=["truncated", "empty", "not a record", "another function's"],
)
def test_a_corrupt_csim_result_is_rerun_not_trusted(passed: Path, damage: str) -> None:
    # doit checks only that a target exists: a damaged csim/<func>.json stayed, and the summary said
    # it was missing while every task reported up to date
    result = passed.parent / "build" / "p" / "csim" / "Stage_X.json"
    if damage == "top":
        damage = (passed.parent / "build" / "p" / "csim" / "top.json").read_text()
    result.write_text(damage)
    row = cli_rows(passed)["Stage_X"]
    assert (row["csim"], row["reason"]) == (
        "not run",
        f"{result} is not a csim result of Stage_X (rerun csim)",
    )
    assert doit(passed, "csim") == 0
    assert csim_json(passed, "Stage_X")["pass"] is True and csim_json(passed, "Stage_X")["func"] == "Stage_X"
    assert cli_rows(passed)["Stage_X"]["csim"] == "pass"
