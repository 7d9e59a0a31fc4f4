"""What a build prints, under `hclbuild` and plain `doit`: a `[k/N] task` line per task that runs (a
progress bar on a terminal), each error once as `hclbuild: error: <file>:<line>: <what>`, then one
summary line (functions built, csim pass/fail, seconds, the build folder); a no-op is one line."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest
from kernels import TIMES_THREE_MINUS_ONE

REPO = Path(__file__).resolve().parents[2]

KERNEL = TIMES_THREE_MINUS_ONE  # Y = 3 * A - 1 through an outlined Stage_X, with a numpy model

DODO = """
from pathlib import Path
from hclbuild.tasks import all_tasks, doit_config, doit_creator
ROOT = Path(__file__).resolve().parent
DOIT_CONFIG = doit_config(ROOT / "build")
@doit_creator
def task_hclbuild():
    yield from all_tasks(ROOT / "projects", ROOT / "build")
"""

TASK_LINE = re.compile(r"^\[(\d+)/(\d+)\] (\S+)$")


def environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    return {**env, "PYTHONPATH": str(REPO)}


def run(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *argv],
        cwd=cwd,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def tree(root: Path, projects: dict[str, dict[str, str]]) -> Path:
    (root / "dodo.py").write_text(DODO)
    for name, files in projects.items():
        folder = root / "projects" / name
        folder.mkdir(parents=True)
        for file_name, text in files.items():
            (folder / file_name).write_text(text)
    return root


def task_lines(stdout: str) -> list[tuple[int, int, str]]:
    return [(int(m[1]), int(m[2]), m[3]) for m in map(TASK_LINE.match, stdout.splitlines()) if m]


def the_one_error(proc: subprocess.CompletedProcess, message: str) -> None:
    """Exit 1, and `message` once in all the output: stderr is the error line alone."""
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert proc.stderr == f"hclbuild: error: {message}\n", out
    assert out.count(message) == 1, out
    assert "TaskFailed" not in out and "<stdout>" not in out and "#####" not in out and "Traceback" not in out


@pytest.mark.parametrize("runner", ["hclbuild", "doit"])
def test_a_bad_project_toml_is_one_error_line(tmp_path: Path, runner: str) -> None:
    root = tree(
        tmp_path, {"p": {"kernel.py": KERNEL, "project.toml": "[hls]\nclock_period_ns = 5\nspeed = 1\n"}}
    )
    toml = root / "projects" / "p" / "project.toml"
    proc = (
        run(root, "hclbuild.cli", "csim", "projects") if runner == "hclbuild" else run(root, "doit", "csim")
    )
    the_one_error(
        proc,
        f"{toml}:3: unknown key hls.speed (expected part, clock_period_ns, clock_uncertainty_ns, "
        "flow_target, tool, vitis_version, top_assembly)",
    )


@pytest.mark.parametrize("runner", ["hclbuild", "doit"])
def test_invalid_toml_and_a_raising_kernel_name_the_file_and_line(tmp_path: Path, runner: str) -> None:
    root = tree(tmp_path, {"p": {"kernel.py": KERNEL, "project.toml": "[hls\n"}})
    command = ("hclbuild.cli", "build", "projects") if runner == "hclbuild" else ("doit",)
    proc = run(root, *command)
    toml = root / "projects" / "p" / "project.toml"
    assert proc.stderr.startswith(f"hclbuild: error: {toml}:1: invalid TOML: "), proc.stderr
    the_one_error(proc, proc.stderr.removeprefix("hclbuild: error: ").rstrip("\n"))
    (root / "projects" / "p" / "project.toml").unlink()
    (root / "projects" / "p" / "kernel.py").write_text(
        "import hclbuild\n\ndef schedule():\n    raise ValueError('boom')\n"
    )
    proc = run(root, *command)
    the_one_error(proc, f"{root / 'projects' / 'p' / 'kernel.py'}:4: schedule() failed: ValueError: boom")


@pytest.mark.slow
def test_a_missing_stage_handle_says_what_the_stage_name_says(tmp_path: Path) -> None:
    by_handle = KERNEL.replace("s.outline(kernel.X)", "s.outline(kernel.edges)")
    by_name = KERNEL.replace("s.outline(kernel.X)", 's.outline("edges")')
    root = tree(tmp_path, {"handle": {"kernel.py": by_handle}, "name": {"kernel.py": by_name}})
    messages = []
    for name in ("handle", "name"):
        proc = run(root, "hclbuild.cli", "build", f"projects/{name}")
        kernel = root / "projects" / name / "kernel.py"
        assert proc.returncode == 1 and proc.stderr.startswith(f"hclbuild: error: {kernel}:14: "), proc.stderr
        messages.append(proc.stderr.split(":14: ", 1)[1])
    assert (
        messages[0]
        == messages[1]
        == "schedule() failed: APIError: schedule 'top' has no stage 'edges' (stages: X, Y)\n"
    )


@pytest.mark.slow
def test_continue_past_a_broken_project_prints_its_error_once(tmp_path: Path) -> None:
    bad = "def schedule():\n    raise ValueError('x')\n"
    root = tree(tmp_path, {"bad": {"kernel.py": bad}, "good": {"kernel.py": KERNEL}})
    proc = run(root, "hclbuild.cli", "csim", "projects", "--continue")
    message = f"{root / 'projects' / 'bad' / 'kernel.py'}:2: schedule() failed: ValueError: x"
    assert proc.returncode == 1
    assert (proc.stdout + proc.stderr).count(message) == 1, proc.stdout + proc.stderr
    assert "bad/top: not run: compile:bad failed (the error above)" in proc.stdout
    assert re.search(r"^good +Stage_X +pass", proc.stdout, re.M), proc.stdout


@pytest.mark.slow
def test_a_run_prints_k_of_n_lines_then_a_summary_and_a_noop_one_line(tmp_path: Path) -> None:
    root = tree(tmp_path, {"p": {"kernel.py": KERNEL}})
    proc = run(root, "doit", "csim")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    tasks = task_lines(proc.stdout)
    assert sorted(name for _, _, name in tasks) == sorted(
        ["compile:p", "reference:p", "emit:p/top", "emit:p/Stage_X", "csim:p/top", "csim:p/Stage_X"]
    )
    assert [k for k, _, _ in tasks] == [1, 2, 3, 4, 5, 6] and {n for _, n, _ in tasks} == {6}
    summary = re.fullmatch(
        r"built 2 functions in (\d+\.\d) s; csim 2 pass, 0 FAIL; build folder (.+)", lines[-1]
    )
    assert summary and summary[2] == str(root / "build"), lines[-1]
    assert len(lines) == len(tasks) + 1 and proc.stderr == ""
    noop = run(root, "doit", "csim")
    assert re.fullmatch(
        rf"up to date: 6 tasks checked in \d+\.\d s; build folder {re.escape(str(root / 'build'))}\n",
        noop.stdout,
    ), noop.stdout
    assert noop.stderr == ""


@pytest.mark.slow
def test_a_failed_csim_counts_as_fail(tmp_path: Path) -> None:
    root = tree(tmp_path, {"p": {"kernel.py": KERNEL}})
    assert run(root, "doit", "build").returncode == 0
    cpp = root / "build" / "p" / "hls" / "Stage_X" / "Stage_X.cpp"
    cpp.write_text(cpp.read_text().replace(" * 3", " * 4", 1))
    proc = run(root, "doit", "--continue", "csim")
    assert proc.returncode != 0  # 2 under --continue: report:p did not run, which doit calls an error
    assert proc.stdout.splitlines()[-1].startswith("built 0 functions (2 up to date) in ")
    assert "; csim 1 pass, 1 FAIL; 1 task failed; build folder " in proc.stdout.splitlines()[-1]
    assert proc.stderr.count("hclbuild: error: p/Stage_X: csim failed") == 1, proc.stderr


@pytest.mark.slow
def test_hclbuild_csim_and_report_print_where_report_md_is(tmp_path: Path) -> None:
    root = tree(tmp_path, {"p": {"kernel.py": KERNEL}})
    for command in ("csim", "report"):
        proc = run(root, "hclbuild.cli", command, "projects")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        report = root / "build" / "p" / "reports" / "report.md"
        assert f"report: {report}" in proc.stdout.splitlines() and report.is_file()


def test_on_a_terminal_the_lines_are_one_progress_bar(tmp_path: Path) -> None:
    root = tree(tmp_path, {"p": {"kernel.py": KERNEL}})
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "doit", "build"],
        cwd=root,
        env=environment(),
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
    )
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        assert ready, "no output for two minutes"
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal is gone once the build exits
            break
        if not chunk:
            break
        chunks.append(chunk)
    assert proc.wait(timeout=60) == 0
    os.close(leader)
    text = b"".join(chunks).decode()
    assert (
        "\r\x1b[K[" in text and "] 6/6 " in text
    )  # redrawn in place: [####....] k/N task (compile, reference, 2 emits, 2 estimates)
    assert not TASK_LINE.search(text.replace("\r\n", "\n"))  # no [k/N] line of its own
    assert text.rstrip().splitlines()[-1].lstrip("\r\x1b[K").startswith("built 2 functions in ")
