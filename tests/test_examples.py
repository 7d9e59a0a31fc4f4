"""The example projects stay green: numpy model, LLVM reference and g++ csim agree for every function."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_every_example_project_passes_csim(tmp_path: Path) -> None:
    shutil.copytree(REPO / "projects", tmp_path / "projects")
    shutil.copyfile(REPO / "dodo.py", tmp_path / "dodo.py")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "doit", "-n", "2", "csim"], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    names = sorted(p.name for p in (REPO / "projects").iterdir() if (p / "kernel.py").is_file())
    assert len(names) >= 6
    for name in names:
        results = sorted((tmp_path / "build" / name / "csim").glob("*.json"))
        assert results, name
        for result in results:
            data = json.loads(result.read_text())
            assert data["pass"] is True and data["mismatches"] == 0 and data["compared"] > 0, (name, result.name)
