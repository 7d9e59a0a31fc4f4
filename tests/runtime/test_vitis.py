"""The Vitis tool runner, tested with stand-in shell scripts: these test our runner, not Vitis.

The stand-ins record their argv and working directory and exit with a chosen code; they never
pretend to synthesize anything. The one test that needs the real vitis_hls is skipped without it.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from hclbuild.errors import ToolError
from hclbuild.runtime.vitis import VitisTools, find_vitis, run_cfg, run_tcl

pytestmark = pytest.mark.skipif(os.name != "posix", reason="stand-in tools are POSIX shell scripts")

# Writes one argument per line to argv.txt and the working directory to cwd.txt, prints a few log
# lines, then exits with $FAKE_EXIT (default 0).
RECORDING_TOOL = """#!/bin/sh
: > argv.txt
for arg in "$@"; do printf '%s\\n' "$arg" >> argv.txt; done
pwd > cwd.txt
echo "INFO: [HLS 200-10] stand-in tool started"
echo "ERROR: [HLS 200-70] stand-in failure detail" >&2
echo "INFO: [HLS 200-112] last line of the stand-in"
exit "${FAKE_EXIT:-0}"
"""

# Starts a long sleep in the background (recording its pid) and waits, to test the timeout.
SLEEPING_TOOL = """#!/bin/sh
echo "INFO: stand-in about to hang"
sleep 60 &
echo $! > sleep.pid
wait
"""


def make_tool(bin_dir: Path, name: str, body: str) -> Path:
    bin_dir.mkdir(parents=True, exist_ok=True)
    path = bin_dir / name
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "hls" / "Stage_B"
    work.mkdir(parents=True)
    (work / "run_hls.tcl").write_text("exit\n")
    (work / "hls_config.cfg").write_text("part=xc7z020clg484-1\n")
    return work


def recorded_argv(cwd: Path) -> list[str]:
    return (cwd / "argv.txt").read_text().splitlines()


# ---- find_vitis ----------------------------------------------------------------------------------


def test_find_vitis_returns_none_on_a_path_without_the_tools(tmp_path, monkeypatch):
    empty = tmp_path / "empty_bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("XILINX_HLS", raising=False)
    monkeypatch.delenv("XILINX_VITIS", raising=False)
    assert find_vitis() is None
    assert find_vitis({"PATH": str(empty)}) is None
    assert find_vitis({}) is None


def test_find_vitis_finds_tools_on_path(tmp_path):
    bin_dir = tmp_path / "bin"
    hls = make_tool(bin_dir, "vitis_hls", RECORDING_TOOL)
    vpp = make_tool(bin_dir, "v++", RECORDING_TOOL)
    tools = find_vitis({"PATH": str(bin_dir)})
    assert tools is not None
    assert (tools.path("vitis_hls"), tools.path("v++"), tools.path("vitis-run")) == (hls, vpp, None)
    assert tools.include_dir is None  # no include/ beside bin/


def test_find_vitis_uses_xilinx_hls_for_binary_and_include_dir(tmp_path):
    install = tmp_path / "Vitis_HLS" / "2024.1"
    hls = make_tool(install / "bin", "vitis_hls", RECORDING_TOOL)
    (install / "include").mkdir()
    empty = tmp_path / "empty_bin"
    empty.mkdir()
    tools = find_vitis({"PATH": str(empty), "XILINX_HLS": str(install)})
    assert tools is not None
    assert tools.path("vitis_hls") == hls
    assert tools.xilinx_hls == install
    assert tools.include_dir == install / "include"


def test_find_vitis_ignores_xilinx_hls_without_binaries(tmp_path):
    install = tmp_path / "Vitis_HLS"
    (install / "include").mkdir(parents=True)
    assert find_vitis({"PATH": "", "XILINX_HLS": str(install)}) is None


# ---- run_tcl -------------------------------------------------------------------------------------


def test_run_tcl_passes_argv_and_captures_log(tmp_path, project, monkeypatch):
    make_tool(tmp_path / "bin", "vitis_hls", RECORDING_TOOL)
    tools = find_vitis({"PATH": str(tmp_path / "bin")})
    monkeypatch.setenv("FAKE_EXIT", "0")
    run = run_tcl("run_hls.tcl", ["csim=1", "synth=0"], project, timeout=60, tools=tools)
    assert recorded_argv(project) == ["-f", "run_hls.tcl", "csim=1", "synth=0"]
    assert (project / "cwd.txt").read_text().strip() == str(project)
    assert run.returncode == 0
    assert run.argv == (str(tmp_path / "bin" / "vitis_hls"), "-f", "run_hls.tcl", "csim=1", "synth=0")
    assert run.log_path == project / "run_hls.log"
    log = run.log_path.read_text()
    assert "stand-in tool started" in log and "stand-in failure detail" in log  # stdout and stderr
    assert not (project / "run_hls.log.part").exists()


def test_run_tcl_finds_vitis_hls_on_path(tmp_path, project, monkeypatch):
    make_tool(tmp_path / "bin", "vitis_hls", RECORDING_TOOL)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    run = run_tcl(project / "run_hls.tcl", [], project, timeout=60, log_path=tmp_path / "logs" / "csynth.log")
    assert recorded_argv(project) == ["-f", str(project / "run_hls.tcl")]
    assert run.log_path.read_text().startswith("INFO: [HLS 200-10]")


def test_run_tcl_nonzero_exit_raises_with_log_tail(tmp_path, project, monkeypatch):
    make_tool(tmp_path / "bin", "vitis_hls", RECORDING_TOOL)
    tools = find_vitis({"PATH": str(tmp_path / "bin")})
    monkeypatch.setenv("FAKE_EXIT", "3")
    with pytest.raises(ToolError) as info:
        run_tcl("run_hls.tcl", ["csynth=1"], project, timeout=60, tools=tools)
    message = str(info.value)
    assert "exited with code 3" in message
    assert "stand-in failure detail" in message
    assert "last line of the stand-in" in message
    assert str(project / "run_hls.log") in message
    assert "\n" not in message
    assert recorded_argv(project) == ["-f", "run_hls.tcl", "csynth=1"]  # it did run
    assert (project / "run_hls.log").is_file()


def test_run_tcl_timeout_kills_the_tool_and_its_children(tmp_path, project):
    make_tool(tmp_path / "bin", "vitis_hls", SLEEPING_TOOL)
    tools = find_vitis({"PATH": str(tmp_path / "bin")})
    start = time.monotonic()
    with pytest.raises(ToolError) as info:
        run_tcl("run_hls.tcl", [], project, timeout=1, tools=tools)
    assert time.monotonic() - start < 30
    message = str(info.value)
    assert "timed out after 1 s" in message
    assert "stand-in about to hang" in message
    sleep_pid = int((project / "sleep.pid").read_text())
    assert _gone_or_zombie(sleep_pid, within=10.0), "the tool's child process survived the timeout"


def test_run_tcl_without_tools_raises_and_runs_nothing(tmp_path, project, monkeypatch):
    empty = tmp_path / "empty_bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("XILINX_HLS", raising=False)
    monkeypatch.delenv("XILINX_VITIS", raising=False)
    with pytest.raises(ToolError, match="neither vitis_hls nor vitis-run"):
        run_tcl("run_hls.tcl", [], project, timeout=60)
    assert not (project / "run_hls.log").exists()


def test_run_tcl_falls_back_to_vitis_run(tmp_path, project):
    make_tool(tmp_path / "bin", "vitis-run", RECORDING_TOOL)
    tools = find_vitis({"PATH": str(tmp_path / "bin")})
    assert tools is not None and tools.path("vitis_hls") is None
    run_tcl("run_hls.tcl", ["csim=1"], project, timeout=60, tools=tools)
    assert recorded_argv(project) == ["--mode", "hls", "--tcl", "run_hls.tcl", "csim=1"]


def test_run_tcl_missing_script_raises(tmp_path, project):
    tools = VitisTools({"vitis_hls": make_tool(tmp_path / "bin", "vitis_hls", RECORDING_TOOL)})
    with pytest.raises(ToolError, match="Tcl script not found"):
        run_tcl("absent.tcl", [], project, timeout=60, tools=tools)
    assert not (project / "argv.txt").exists()


# ---- run_cfg -------------------------------------------------------------------------------------


def test_run_cfg_passes_vpp_argv(tmp_path, project):
    make_tool(tmp_path / "bin", "v++", RECORDING_TOOL)
    tools = find_vitis({"PATH": str(tmp_path / "bin")})
    run = run_cfg("hls_config.cfg", project, timeout=60, tools=tools)
    assert recorded_argv(project) == ["-c", "--mode", "hls", "--config", "hls_config.cfg"]
    assert run.log_path == project / "hls_config.log"


def test_run_cfg_nonzero_exit_raises(tmp_path, project, monkeypatch):
    make_tool(tmp_path / "bin", "v++", RECORDING_TOOL)
    tools = find_vitis({"PATH": str(tmp_path / "bin")})
    monkeypatch.setenv("FAKE_EXIT", "3")
    with pytest.raises(ToolError, match=r"v\+\+ exited with code 3 .*stand-in failure detail"):
        run_cfg("hls_config.cfg", project, timeout=60, tools=tools, work_dir="w")
    assert recorded_argv(project)[-2:] == ["--work_dir", "w"]


def test_run_cfg_without_vpp_raises(tmp_path, project):
    tools = VitisTools({"vitis_hls": make_tool(tmp_path / "bin", "vitis_hls", RECORDING_TOOL)})
    with pytest.raises(ToolError, match="v\\+\\+ is not on PATH"):
        run_cfg("hls_config.cfg", project, timeout=60, tools=tools)


# ---- the real tool -------------------------------------------------------------------------------


@pytest.mark.vitis
def test_real_vitis_hls_runs_a_tcl_script(tmp_path):
    tools = find_vitis()
    if tools is None or tools.path("vitis_hls") is None:
        pytest.skip("vitis_hls is not on PATH and XILINX_HLS is unset")
    (tmp_path / "hello.tcl").write_text('puts "hclbuild-hello"\nexit\n')
    run = run_tcl("hello.tcl", [], tmp_path, timeout=300, tools=tools)
    assert "hclbuild-hello" in run.log_path.read_text()


def _gone_or_zombie(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError, IndexError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.1)
    return False
