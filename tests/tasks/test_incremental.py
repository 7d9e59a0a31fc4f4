"""Exactly what reruns when project.toml or a sibling module of kernel.py changes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

KERNEL = """
import numpy as np
import hclbuild as hcl
from helper import SCALE

def schedule():
    hcl.init(hcl.Float())
    A = hcl.placeholder((8,), "A")
    def kernel(A):
        X = hcl.compute((8,), lambda i: A[i] * SCALE, name="X")
        return hcl.compute((8,), lambda i: X[i] + 1.0, name="Y")
    s = hcl.create_schedule([A], kernel, name="top")
    s.outline(kernel.X)
    return s
"""
TOML = '[hls]\nclock_period_ns = 10.0\npart = "xcu250-figd2104-2L-e"\n\n[csim]\nrtol = 1e-5\natol = 1e-6\n'
DODO = """
from pathlib import Path
from hclbuild.tasks import all_tasks, doit_config
ROOT = Path(__file__).resolve().parent
DOIT_CONFIG = doit_config(ROOT / "build")
def task_hclbuild():
    yield from all_tasks(ROOT / "projects", ROOT / "build")
"""
EMITS = {"emit:p/top", "emit:p/Stage_X"}
CSIMS = {"csim:p/top", "csim:p/Stage_X"}


def doit(root: Path, *args: str) -> set[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [sys.executable, "-m", "doit", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return {m.group(1) for m in re.finditer(r"^\[\d+/\d+\] (\S+)$", proc.stdout, re.M)}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A passing `doit csim` tree, built once, and a copy of it."""
    root = tmp_path_factory.mktemp("incremental")
    work = root / "work"
    folder = work / "projects" / "p"
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(KERNEL)
    (folder / "helper.py").write_text("SCALE = 3.0\n")
    (folder / "project.toml").write_text(TOML)
    (work / "dodo.py").write_text(DODO)
    doit(work, "csim")
    shutil.copytree(work, root / "saved", symlinks=True)
    return work, root / "saved"


@pytest.fixture
def built(template: tuple[Path, Path]) -> Path:
    """The passing tree restored in place (same paths and mtimes: doit's state still holds)."""
    work, saved = template
    shutil.rmtree(work)
    shutil.copytree(saved, work, symlinks=True)
    assert doit(work, "csim") == set()
    return work


def edit(root: Path, name: str, old: str, new: str) -> None:
    path = root / "projects" / "p" / name
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def hls(root: Path, func: str, name: str) -> str:
    return (root / "build" / "p" / "hls" / func / name).read_text()


def test_clock_change_reemits_every_function_and_csims_none(built: Path) -> None:
    edit(built, "project.toml", "clock_period_ns = 10.0", "clock_period_ns = 4.0")
    # compile and reference read project.toml too; the C++ and data are unchanged, so csim is up to date
    assert doit(built, "csim") == {"compile:p", "reference:p"} | EMITS
    for func in ("top", "Stage_X"):
        assert "create_clock -period 4" in hls(built, func, "run_hls.tcl")
        assert "clock=4" in hls(built, func, "hls_config.cfg").replace(" ", "")


def test_part_change_reaches_the_tcl(built: Path) -> None:
    edit(built, "project.toml", 'part = "xcu250-figd2104-2L-e"', 'part = "xc7z020-clg400-1"')
    assert doit(built, "csim") == {"compile:p", "reference:p"} | EMITS
    assert "xc7z020-clg400-1" in hls(built, "Stage_X", "run_hls.tcl")


@pytest.mark.slow
def test_tolerance_change_reruns_csim(built: Path) -> None:
    edit(built, "project.toml", "rtol = 1e-5", "rtol = 1e-3")
    assert doit(built, "csim") == {"compile:p", "reference:p"} | EMITS | CSIMS


@pytest.mark.slow
def test_sibling_module_change_recompiles_and_reruns_what_changed(built: Path) -> None:
    edit(built, "helper.py", "SCALE = 3.0", "SCALE = 5.0")
    # X's IR holds the constant; the top's ir/top.mlir is the whole design
    assert doit(built, "csim") == {"compile:p", "reference:p"} | EMITS | CSIMS
    assert "5.0" in hls(built, "Stage_X", "Stage_X.cpp") or "5.000000e+00" in hls(
        built, "Stage_X", "Stage_X.cpp"
    )
