"""A function's folder copied to another machine (a Vitis host) builds there with `make csim`: the
Makefile takes the ap_types headers from $XILINX_HLS/include when that is set, else from $AP_TYPES,
else from the folder found when it was generated, and keeps -Werror out of the user's builds
(hclbuild's own csim keeps it: every line it compiles is generated, so a warning is a bug)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hclbuild.runtime.aptypes import ap_types_include_dir

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.skipif(shutil.which("make") is None, reason="make is not on PATH"),
    pytest.mark.skipif(ap_types_include_dir() is None, reason="no ap_types headers (scripts/setup.sh)"),
]

KERNEL = """
import numpy as np
import hclbuild as hcl

def schedule():
    A = hcl.placeholder((8,), "A", hcl.Fixed(16, 8))
    def kernel(A):
        B = hcl.compute((8,), lambda i: A[i] * 3, name="B", dtype=hcl.Fixed(20, 8))
        return hcl.compute((8,), lambda i: B[i] + 1, name="C", dtype=hcl.Fixed(20, 8))
    s = hcl.create_schedule([A], kernel)
    s.outline(kernel.B, name="triple")
    return s
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """hls/triple/ of a csim-passed project (its C++ includes ap_fixed.h)."""
    root = tmp_path_factory.mktemp("travel")
    (root / "p").mkdir()
    (root / "p" / "kernel.py").write_text(KERNEL)
    proc = subprocess.run(
        [sys.executable, "-m", "hclbuild.cli", "csim", "p"],
        cwd=root,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder = root / "build" / "p" / "hls" / "triple"
    assert '#include "ap_fixed.h"' in (folder / "triple.h").read_text() + (folder / "triple.cpp").read_text()
    return folder


def copied(built: Path, where: Path) -> Path:
    """The function's folder as another machine gets it (hard-linked data becomes files)."""
    target = where / "elsewhere" / "triple"
    shutil.copytree(built, target, ignore=shutil.ignore_patterns("out"))
    return target


def make_csim(folder: Path, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("XILINX_HLS", "AP_TYPES")}
    return subprocess.run(
        ["make", "--no-print-directory", "csim"],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**clean, **env},
        timeout=600,
        check=False,
    )


def passed(proc: subprocess.CompletedProcess) -> bool:
    summary = [line for line in proc.stdout.splitlines() if line.startswith("HCLBUILD_CSIM ")]
    return proc.returncode == 0 and bool(summary) and json.loads(summary[-1].split(" ", 1)[1])["pass"] is True


def headers_copy(where: Path) -> Path:
    folder = where / "ap_types_copy"
    shutil.copytree(ap_types_include_dir(), folder)
    return folder


def test_without_either_variable_the_headers_found_at_generation_time(built: Path, tmp_path: Path) -> None:
    folder = copied(built, tmp_path)
    proc = make_csim(folder)
    assert passed(proc), proc.stdout + proc.stderr
    assert f"-isystem {ap_types_include_dir()} " in proc.stdout


def test_ap_types_names_the_headers(built: Path, tmp_path: Path) -> None:
    folder, headers = copied(built, tmp_path), headers_copy(tmp_path)
    proc = make_csim(folder, AP_TYPES=str(headers))
    assert passed(proc), proc.stdout + proc.stderr
    assert f"-isystem {headers} " in proc.stdout and str(ap_types_include_dir()) not in proc.stdout


def test_a_vitis_installation_comes_first(built: Path, tmp_path: Path) -> None:
    folder = copied(built, tmp_path)
    vitis = tmp_path / "Vitis_HLS" / "2025.1"
    vitis.mkdir(parents=True)
    (vitis / "include").symlink_to(headers_copy(tmp_path), target_is_directory=True)
    proc = make_csim(folder, XILINX_HLS=str(vitis), AP_TYPES=str(tmp_path / "nowhere"))
    assert passed(proc), proc.stdout + proc.stderr
    assert f"-isystem {vitis}/include " in proc.stdout and "nowhere" not in proc.stdout


def test_a_warning_does_not_stop_the_users_build_but_stops_hclbuilds(built: Path, tmp_path: Path) -> None:
    folder = copied(built, tmp_path)
    assert "-Werror" not in (folder / "Makefile").read_text()
    with (folder / "triple.cpp").open("a") as cpp:
        cpp.write("\nstatic int left_unused;\n")  # -Wall: unused variable
    proc = make_csim(folder)
    assert passed(proc), proc.stdout + proc.stderr
    assert "warning: " in proc.stderr and "left_unused" in proc.stderr

    from hclbuild.errors import ToolError
    from hclbuild.runtime.csim import run_csim

    own = tmp_path / "own" / "triple"  # run_csim takes the function's name from its folder's
    shutil.copytree(folder, own, ignore=shutil.ignore_patterns("out"))
    with pytest.raises(ToolError, match=r"'left_unused' defined but not used \[-Werror=unused-variable\]"):
        run_csim(own, tmp_path / "triple.json", project="p")
    assert json.loads((tmp_path / "triple.json").read_text())["pass"] is False
