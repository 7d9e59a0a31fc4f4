"""A full disk (or any file-system refusal) while the flow writes: every task that hits it fails in
one line, doit's own state that cannot be saved is one line too, never a traceback, and the next run
once there is room finishes the work. (Measured on a 4 MB tmpfs build folder: the same messages.)"""

from __future__ import annotations

import errno
import json
import sqlite3
from pathlib import Path

import pytest
from kernels import TIMES_THREE_MINUS_ONE as KERNEL

from hclbuild.cli import main


def project(tmp_path: Path) -> Path:
    folder = tmp_path / "projects" / "p"
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(KERNEL)
    return folder


def no_space(*args, **kwargs) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")  # as a write() to an open file says it


@pytest.mark.slow
def test_a_task_that_finds_the_disk_full_fails_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    folder = project(tmp_path)
    monkeypatch.setattr("hclbuild.tasks.steps.emit_function", no_space)  # what the emit task calls
    assert main(["csim", str(folder), "-n", "1"]) == 1
    out, err = capsys.readouterr()
    build = tmp_path / "build" / "p"
    assert err.startswith(f"hclbuild: error: No space left on device (writing below {build})\n")
    assert "Traceback" not in out + err
    monkeypatch.undo()
    assert main(["csim", str(folder), "-n", "1"]) == 0  # room again: the run finishes
    assert json.loads((build / "csim" / "top.json").read_text())["pass"] is True


@pytest.mark.slow
def test_a_doit_state_that_cannot_be_saved_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from doit.dependency import SqliteDB

    folder = project(tmp_path)

    def full(self) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(SqliteDB, "dump", full)
    assert main(["build", str(folder), "-n", "1"]) == 1
    out, err = capsys.readouterr()
    assert err.strip().splitlines() == [
        f"hclbuild: error: {tmp_path / 'build' / '.doit.db'}: doit could not record which tasks ran (database or "
        "disk is full); the next run checks them again"
    ]
    assert "Traceback" not in out
