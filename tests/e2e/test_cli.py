"""The hclbuild command: new, build/csim with a summary, list, ci github."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hclbuild.cli import main

REPO = Path(__file__).resolve().parents[2]


def run_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "hclbuild.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )


@pytest.mark.slow
def test_new_then_csim_prints_a_summary_table(tmp_path: Path) -> None:
    proc = run_cli(tmp_path, "new", "myproj")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "myproj" / "kernel.py").is_file()
    proc = run_cli(tmp_path, "csim", "myproj")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    # a [k/N] line per task, then the table
    assert "[1/6] compile:myproj" in lines and any(
        line.endswith("] csim:myproj/Stage_scaled") for line in lines
    )
    header = next(k for k, line in enumerate(lines) if line.startswith("project"))
    rows = [line.split() for line in lines[header + 2 : -1] if line.strip()]
    assert [r[:3] for r in rows] == [["myproj", "top", "pass"], ["myproj", "Stage_scaled", "pass"]]
    assert lines[-1] == f"report: {tmp_path / 'build' / 'myproj' / 'reports' / 'report.md'}"
    result = json.loads((tmp_path / "build" / "myproj" / "csim" / "top.json").read_text())
    assert result["pass"] is True and result["mismatches"] == 0
    # a second run is a no-op
    proc = run_cli(tmp_path, "csim", "myproj")
    assert proc.stdout.startswith("up to date: 6 tasks checked in ")


@pytest.mark.slow
def test_a_project_that_never_compiled_has_a_row_and_continue_exits_1(tmp_path: Path) -> None:
    """--continue past a kernel.py that raises: doit's status 2 had been hclbuild's exit status (its
    'bad command line'), and the table left the broken project out, as if it were not there."""
    assert run_cli(tmp_path, "new", "projects/good").returncode == 0
    (tmp_path / "projects" / "bad").mkdir()
    (tmp_path / "projects" / "bad" / "kernel.py").write_text("def schedule():\n    raise ValueError('x')\n")
    proc = run_cli(tmp_path, "csim", "--continue")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    header = next(k for k, line in enumerate(lines) if line.startswith("project"))
    rows = [
        line.split()[:3]
        for line in lines[header + 2 :]
        if line.strip() and not line.startswith(("bad/", "good/", "report: "))
    ]
    assert rows == [["bad", "top", "not"], ["good", "top", "pass"], ["good", "Stage_scaled", "pass"]]
    # the error once, where it happened; the table points at it
    kernel = tmp_path / "projects" / "bad" / "kernel.py"
    assert proc.stderr == f"hclbuild: error: {kernel}:2: schedule() failed: ValueError: x\n"
    assert "bad/top: not run: compile:bad failed (the error above)" in proc.stdout


def test_new_refuses_to_overwrite(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "kernel.py").write_text("# mine\n")
    assert main(["new", str(tmp_path / "p")]) == 1
    assert (tmp_path / "p" / "kernel.py").read_text() == "# mine\n"


def test_new_never_overwrites_a_project_toml(tmp_path: Path) -> None:
    # a folder holding only the user's project.toml had it replaced by the template, clock and all
    (tmp_path / "q").mkdir()
    mine = "[hls]\nclock_period_ns = 3.0\n"
    (tmp_path / "q" / "project.toml").write_text(mine)
    proc = run_cli(tmp_path, "new", "q")
    assert proc.returncode == 1
    assert (
        proc.stderr
        == "hclbuild: error: q: project.toml exists (hclbuild new writes its own); nothing written\n"
    )
    assert (tmp_path / "q" / "project.toml").read_text() == mine
    assert sorted(p.name for p in (tmp_path / "q").iterdir()) == ["project.toml"]


def test_new_writes_nothing_over_files_that_appear_while_it_runs(tmp_path: Path) -> None:
    from hclbuild.atomic import write_text_new

    (tmp_path / "taken.txt").write_text("first\n")
    try:
        write_text_new(tmp_path / "taken.txt", "second\n")
    except FileExistsError as exc:
        assert exc.filename == str(tmp_path / "taken.txt")
    else:
        raise AssertionError("write_text_new replaced an existing file")
    assert (tmp_path / "taken.txt").read_text() == "first\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken.txt"]  # no temporary left
    write_text_new(tmp_path / "fresh.txt", "new\n")
    assert (tmp_path / "fresh.txt").read_text() == "new\n"


def _closed_pipe_run(cwd: Path, *args: str) -> tuple[int, str]:
    """hclbuild with its stdout a pipe whose reader has gone (`hclbuild list | head` after head exits)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    reader, writer = os.pipe()
    os.close(reader)  # every write to `writer` now fails with EPIPE
    proc = subprocess.Popen(
        [sys.executable, "-m", "hclbuild.cli", *args], cwd=cwd, stdout=writer, stderr=subprocess.PIPE, env=env
    )
    os.close(writer)
    _, err = proc.communicate(timeout=300)
    return proc.returncode, err.decode()


def test_a_reader_that_goes_away_ends_hclbuild_quietly(tmp_path: Path) -> None:
    # `hclbuild list | head` printed doit's BrokenPipeError traceback
    for name in ("p1", "p2"):
        assert run_cli(tmp_path, "new", name).returncode == 0
    # with doit's -n 2 workers too: raising out of doit there had left them waiting, and hclbuild hung
    for args in (("list", "p1", "p2"), ("build", "p1", "-n", "2"), ("csim", "p2", "-n", "1")):
        code, err = _closed_pipe_run(tmp_path, *args)
        assert (code, err) == (141, ""), args
    # the run went on to its end with no one reading
    assert json.loads((tmp_path / "build" / "p2" / "csim" / "top.json").read_text())["pass"] is True
    assert _closed_pipe_run(tmp_path, "--help") == (0, "")  # argparse drops a help it cannot write


def test_missing_path_is_one_line_error(tmp_path: Path) -> None:
    proc = run_cli(tmp_path, "build", "nowhere")
    assert proc.returncode == 1
    assert proc.stderr.strip() == "hclbuild: error: nowhere: no such project or folder"


def test_list_shows_per_function_tasks(tmp_path: Path) -> None:
    run_cli(tmp_path, "new", "p1")
    proc = run_cli(tmp_path, "list", "p1")
    assert proc.returncode == 0, proc.stderr
    for task in (
        "compile:p1",
        "reference:p1",
        "emit:p1/top",
        "emit:p1/Stage_scaled",
        "csim:p1/Stage_scaled",
        "report:p1",
    ):
        assert task in proc.stdout


def test_ci_github_workflow_structure(tmp_path: Path) -> None:
    run_cli(tmp_path, "new", "p1")
    run_cli(tmp_path, "new", "p2")
    (tmp_path / "requirements.txt").write_text("hclbuild\n")
    proc = run_cli(tmp_path, "ci", "github", "p1", "p2", "--runner-label", "vitis-2024")
    assert proc.returncode == 0, proc.stderr
    workflow = yaml.safe_load((tmp_path / ".github" / "workflows" / "hclbuild.yml").read_text())
    jobs = workflow["jobs"]
    assert set(jobs) == {"build-csim", "csynth", "csynth-top", "report"}
    steps = {s.get("name"): s.get("run", "") for s in jobs["build-csim"]["steps"]}
    assert (
        steps["Install"] == "python -m pip install --upgrade pip\npython -m pip install -r requirements.txt\n"
    )
    assert (
        steps["Install the ap_types headers for C simulation"]
        == "python -m pip install --no-deps 'hls4ml==1.3.0'"
    )
    assert steps[
        "Build, C-simulate and report every function (against the target branch on a pull request)"
    ] == (
        "if [ -f .hclbuild-base/summary.json ]; then\n"
        "  hclbuild report p1 p2 --continue --compare .hclbuild-base/summary.json\n"
        "else\n"
        "  hclbuild report p1 p2 --continue\n"
        "fi\n"
    )
    csynth = jobs["csynth"]
    assert csynth["needs"] == "build-csim"
    assert csynth["runs-on"] == ["self-hosted", "vitis-2024"]
    # the matrix holds the outlined functions; the tops get their own job
    assert csynth["strategy"]["matrix"]["include"] == [
        {"project": "p1", "path": "p1", "function": "Stage_scaled"},
        {"project": "p2", "path": "p2", "function": "Stage_scaled"},
    ]
    run_steps = [s["run"] for s in csynth["steps"] if "run" in s]
    assert run_steps[-1] == "hclbuild csynth ${{ matrix.path }} --function ${{ matrix.function }}"
    tops = jobs["csynth-top"]
    assert tops["needs"] == "build-csim"
    assert tops["strategy"]["matrix"]["include"] == [
        {"project": "p1", "path": "p1", "function": "top"},
        {"project": "p2", "path": "p2", "function": "top"},
    ]


def test_every_subcommand_has_a_real_help(capsys) -> None:
    import pytest

    from hclbuild.cli import parser

    commands = ["new", "build", "csim", "report", "list", "csynth", "ci", "clean"]
    for command in commands:
        with pytest.raises(SystemExit) as info:
            parser().parse_args([command, "--help"])
        assert info.value.code == 0
        text = capsys.readouterr().out
        assert text.startswith(f"usage: hclbuild {command}")
        assert "exit status: 0 ok, 1 bad input" in text
        described = [line for line in text.split("\n\n")[1:2] if line.strip()]
        assert described, f"{command} --help has no description"


def test_n_goes_before_or_after_the_command() -> None:
    from hclbuild.cli import parser

    before = parser().parse_args(["-n", "2", "csim", "p"])
    after = parser().parse_args(["csim", "p", "-n", "3"])
    assert (before.top_processes, before.processes) == (2, None)
    assert (after.top_processes, after.processes) == (None, 3)


def test_new_prints_the_next_command_shell_quoted(tmp_path: Path) -> None:
    proc = run_cli(tmp_path, "new", "my dir/proj")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("run: hclbuild csim 'my dir/proj'")
    assert (tmp_path / "my dir" / "proj" / "kernel.py").is_file()


def test_one_build_folder_whatever_the_path_is_spelled_or_the_current_folder(tmp_path: Path) -> None:
    """Issue 34 section 2: a bare `hclbuild report` in a folder holding project sobel built in ../build
    (and mixed another sobel's build there) while `hclbuild csim sobel` built in ./build."""
    from hclbuild.cli import parser
    from hclbuild.cli.common import build_root_of, find_projects

    for project in ("work/sobel", "repo/projects/gemm", "repo/projects/conv"):
        (tmp_path / project).mkdir(parents=True)
        (tmp_path / project / "kernel.py").write_text("")
    cases = {
        "work": ([], ["sobel"], ["sobel/"], ["."], [str(tmp_path / "work" / "sobel")]),
        "work/sobel": ([], ["."], ["../sobel"]),
        "repo": ([], ["projects"], ["projects/gemm"], ["projects/gemm", "projects/conv"]),
        "repo/projects": ([], ["."], ["gemm"]),
        "repo/projects/gemm": ([], ["."]),
    }
    cwd = os.getcwd()
    try:
        for folder, spellings in cases.items():
            os.chdir(tmp_path / folder)
            want = tmp_path / folder.split("/")[0] / "build"
            for paths in spellings:
                args = parser().parse_args(["report", *paths])
                assert build_root_of(args, find_projects(args.paths)) == want, (folder, paths)
        args = parser().parse_args(["csim", "--build-dir", "out"])
        assert (
            build_root_of(args, find_projects(args.paths)) == tmp_path / "repo" / "projects" / "gemm" / "out"
        )
    finally:
        os.chdir(cwd)
    assert "build/ beside each project folder" in " ".join(parser().format_help().split())


@pytest.mark.slow
def test_clean_removes_what_hclbuild_wrote_and_names_what_it_kept(tmp_path: Path) -> None:
    assert run_cli(tmp_path, "new", "p").returncode == 0
    built = run_cli(tmp_path, "csim", "p")
    assert built.returncode == 0, built.stdout + built.stderr
    build = tmp_path / "build" / "p"
    (build / "notes.txt").write_text("mine\n")
    (build / "hls" / "Stage_scaled" / "tweak.h").write_text("// mine\n")
    proc = run_cli(tmp_path / "p", "clean")  # from inside the project: the same build folder
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{build}: removed ")
    assert lines[0].endswith("; kept 2 it did not write: hls/Stage_scaled/tweak.h, notes.txt")
    left = sorted(str(path.relative_to(build)) for path in build.rglob("*") if path.is_file())
    assert left == [".hclbuild-project", "hls/Stage_scaled/tweak.h", "notes.txt"]
    again = run_cli(tmp_path, "csim", "p")  # and a build after it makes everything again
    assert again.returncode == 0, again.stdout + again.stderr
    assert (build / "csim" / "Stage_scaled.json").is_file()


def test_run_doit_writes_to_the_current_stdout_not_the_one_doit_was_imported_under(tmp_path: Path) -> None:
    # doit binds its output stream when first imported; a caller that swapped sys.stdout since (as
    # pytest's capture does between tests) had every later run fail writing to a closed file
    script = f"""
import io, sys
captured = io.StringIO()
real, sys.stdout = sys.stdout, captured
import doit.cmd_run
sys.stdout = real
captured.close()
from pathlib import Path
from hclbuild.cli import run_doit
(Path({str(tmp_path)!r}) / "p").mkdir()
(Path({str(tmp_path)!r}) / "p" / "kernel.py").write_text("import hclbuild as hcl\\ndef schedule():\\n"
    "    A = hcl.placeholder((4,), 'A')\\n"
    "    return hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: A[i] + 1, name='B'))\\n")
sys.exit(run_doit(["compile"], [Path({str(tmp_path)!r}) / "p"], Path({str(tmp_path)!r}) / "build"))
"""
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "] compile:p\n" in proc.stdout
