"""Stale temporaries of killed writers are swept; a live writer's are kept."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hclbuild.atomic import sweep_stale_temps, write_bytes_atomic


def _zombie() -> subprocess.Popen:
    """A child that has exited but is not reaped yet (what a SIGKILLed build's writer can be)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    stat = Path(f"/proc/{child.pid}/stat")
    deadline = time.monotonic() + 30
    while stat.read_text().rsplit(")", 1)[-1].split()[0] != "Z":
        assert time.monotonic() < deadline, "the child never exited"
        time.sleep(0.01)
    return child


def test_a_dead_writers_temporary_goes_and_a_live_ones_stays(tmp_path):
    write_bytes_atomic(tmp_path / "sub" / "kept.bin", b"data")
    live = tmp_path / "sub" / f".x.bin.{os.getpid()}.1.tmp"
    live.write_bytes(b"")
    assert sweep_stale_temps(tmp_path) == []
    assert (tmp_path / "sub" / "kept.bin").read_bytes() == b"data" and live.exists()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs procfs to see a zombie")
def test_an_unreaped_writers_temporary_is_swept(tmp_path):
    child = _zombie()
    try:
        stale = tmp_path / f".out_X.bin.{child.pid}.13.tmp"
        stale.write_bytes(b"half")
        assert sweep_stale_temps(tmp_path) == [stale]
        assert not stale.exists()
    finally:
        child.wait()
