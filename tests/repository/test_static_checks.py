"""The static checks: pre-commit runs what scripts/lint.sh (so CI) runs, and mypy's configuration refuses
what it is meant to refuse."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
# the folders and files lint.sh names for ruff; a pre-commit hook gets the changed files instead
_LINTED_PATHS = {"hclbuild", "tests", "bench", "scripts", "dodo.py"}


def _command(words: list[str]) -> tuple[str, ...]:
    """A check's tool and options: no environment assignment, no `env`, no paths."""
    words = [w for w in words if w != "env" and "=" not in w.split("-", 1)[0]]
    return tuple(w for w in words if w not in _LINTED_PATHS)


def _lint_sh_commands() -> set[tuple[str, ...]]:
    commands = set()
    for line in (ROOT / "scripts" / "lint.sh").read_text().splitlines():
        line = line.split("|", 1)[0].split("2>&1", 1)[0].strip()
        if not line or line.startswith("#") or line.split()[0] in {"set", "cd"}:
            continue
        commands.add(_command(shlex.split(line)))
    return commands


def _hooks() -> list[dict]:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    return [hook for repo in config["repos"] for hook in repo["hooks"]]


def test_pre_commit_runs_every_check_of_lint_sh_and_no_other() -> None:
    hooks = {_command(shlex.split(hook["entry"])) for hook in _hooks()}
    assert hooks == _lint_sh_commands()
    assert ("mypy",) in hooks


def test_pre_commit_hooks_are_local_tools_that_install_nothing() -> None:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    assert [repo["repo"] for repo in config["repos"]] == ["local"]
    assert {hook["language"] for hook in _hooks()} == {"system"}


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("mypy") is None, reason="mypy is not installed (scripts/setup.sh installs it)"
)
def test_the_project_mypy_configuration_refuses_what_it_should(tmp_path: Path) -> None:
    """Untyped functions, a wrong type, an ignore without its error code, an ignore left unused."""
    cases = {
        "[no-untyped-def]": "def half(x):\n    return x / 2\n",
        "[return-value]": "def name(n: int) -> str:\n    return n\n",
        "[ignore-without-code]": "def two() -> int:\n    return '2'  # type: ignore\n",
        "[unused-ignore]": "def one() -> int:\n    return 1  # type: ignore[return-value]\n",
    }
    module = tmp_path / "checked.py"
    module.write_text("\n\n".join(cases.values()))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "cache"),
            str(module),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert [code for code in cases if code not in done.stdout] == [], done.stdout
    assert "Found 4 errors in 1 file" in done.stdout
