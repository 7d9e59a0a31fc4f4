"""`import hclbuild as hcl`: every public name resolves, and the import itself stays light."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import hclbuild as hcl

ROOT = Path(__file__).resolve().parents[2]


def test_every_public_name_resolves() -> None:
    assert [name for name in hcl.__all__ if getattr(hcl, name, None) is None] == []
    assert hcl.customize is hcl.create_schedule


def test_importing_the_package_imports_no_numpy_or_dsl() -> None:
    code = (
        "import sys, hclbuild\n"
        "print(sorted(m for m in sys.modules if m == 'numpy' or m.startswith('hclbuild.dsl')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    ).stdout
    assert out.strip() == "[]"


def test_the_license_is_an_spdx_string_with_its_files() -> None:
    """Issue 34 section 4: a `license = {text = ...}` table made setuptools (>= 77) print its
    "project.license as a TOML table is deprecated" banner three times in scripts/setup.sh."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE", "NOTICE"]
    assert all((ROOT / name).is_file() for name in project["license-files"])
    assert "Apache License" in (ROOT / "LICENSE").read_text(encoding="utf-8")


def test_python_dash_m_hclbuild_is_the_command() -> None:
    # an environment whose scripts are not on PATH (a helper found `python -m hclbuild` refused)
    version = subprocess.run(
        [sys.executable, "-m", "hclbuild", "--version"], capture_output=True, text=True, check=False
    )
    assert (version.returncode, version.stdout.strip()) == (0, f"hclbuild {hcl.__version__}")
    wrong = subprocess.run(
        [sys.executable, "-m", "hclbuild", "no-such-command"], capture_output=True, text=True, check=False
    )
    assert wrong.returncode == 2 and "invalid choice: 'no-such-command'" in wrong.stderr
