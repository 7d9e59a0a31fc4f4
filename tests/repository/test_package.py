"""`import hclbuild as hcl`: every public name resolves, and the import itself stays light."""

from __future__ import annotations

import subprocess
import sys

import hclbuild as hcl


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
