"""How a doit run loads hclbuild's tasks: the dodo creator found without tokenizing, and the results
the same as doit's own way."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

from hclbuild.tasks import doit_creator

REPO = Path(__file__).resolve().parents[2]


def test_a_doit_creator_is_placed_without_tokenizing_and_still_loads() -> None:
    def task_demo():
        """demo"""
        yield {"basename": "demo", "actions": None}

    assert doit_creator(task_demo) is task_demo
    assert inspect.getsourcelines(task_demo)[1] == 0  # doit's sort key, found without tokenize
    # the repository's dodo.py lists its tasks through it, in a fresh doit process
    done = subprocess.run(
        [sys.executable, "-m", "doit", "list"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()][:3] == ["build", "compile", "csim"]
