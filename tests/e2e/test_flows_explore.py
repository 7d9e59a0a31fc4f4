"""The hardware flow as a CI job or a workstation with Vitis runs it, end to end through doit, with
the stand-in tools of tests/fake_vitis (no Vitis runs): what the reports say after a broken, failed
or outdated csynth/cosim, and whether a generated CI pipeline passes its build folder along."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kernels import TIMES_THREE_MINUS_ONE as KERNEL

from hclbuild.cli import run_doit


def make_project(root: Path, toml: str = "", kernel: str = KERNEL) -> Path:
    folder = root / "projects" / "p"
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(kernel)
    (folder / "project.toml").write_text(toml)
    return folder


def doit(folder: Path, *command: str) -> int:
    return run_doit(list(command), [folder], folder.parent.parent / "build")


def report_md(folder: Path) -> str:
    return (folder.parent.parent / "build" / "p" / "reports" / "report.md").read_text()


def summary(folder: Path) -> dict:
    return json.loads((folder.parent.parent / "build" / "p" / "reports" / "summary.json").read_text())


@pytest.mark.slow
def test_a_broken_csynth_report_is_listed_and_csim_still_passes(tmp_path: Path) -> None:
    folder = make_project(tmp_path)
    assert doit(folder, "csim") == 0
    broken = tmp_path / "build" / "p" / "csynth" / "Stage_X.xml"
    broken.parent.mkdir(parents=True)
    broken.write_text("<profile><ReportVersion><Version>2023.2</Version>")  # a hand run, cut short
    (folder / "kernel.py").write_text(KERNEL.replace("A[i] * 3", "A[i] * 3 + 0"))
    # every csim rewrites the report: a report it cannot read had made each one fail with a traceback
    assert doit(folder, "csim") == 0
    assert "- Stage_X: pass" in report_md(folder)
    assert "## Reports that could not be read" in report_md(folder)
    assert summary(folder)["unreadable_reports"] == [
        f"{broken}: not an HLS csynth report (XML parse error: no element found: line 1, column 49)"
    ]


def table_row(folder: Path, func: str) -> list[str]:
    """The cells of `func`'s row in report.md's summary table."""
    line = next(line for line in report_md(folder).splitlines() if line.startswith(f"| {func} |"))
    return [cell.strip() for cell in line.strip("|").split("|")]


@pytest.mark.slow
def test_no_csynth_or_cosim_result_of_an_earlier_design_is_shown(
    fake_vitis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_vitis.install("vitis_hls")
    folder = make_project(tmp_path, "[hls]\nclock_period_ns = 4.0\n")
    assert doit(folder, "csim", "cosim", "report") == 0
    assert table_row(folder, "top")[2:4] == ["Pass", "1234"]
    # the next design's cosim fails: the last design's Pass and latency must not stand for it
    (folder / "project.toml").write_text("[hls]\nclock_period_ns = 3.0\n")
    monkeypatch.setenv("FAKE_VITIS_EXIT", "1")
    assert doit(folder, "--continue", "csim", "cosim") != 0
    assert table_row(folder, "top")[1:4] == ["pass", "-", "-"]
    # cosim runs on csynth:p/top's synthesis, so the failed csynth is the one that says why
    assert "- csynth:p/top: failed: vitis_hls exited with code 1 " in report_md(folder)
    assert summary(folder)["functions"]["top"]["cosim"] is None
    # a synthesis that passed, then a kernel change without one: its numbers are outdated
    monkeypatch.setenv("FAKE_VITIS_EXIT", "0")
    assert doit(folder, "csynth") == 0
    (folder / "kernel.py").write_text(KERNEL.replace("X[i] - 1", "X[i] - 2").replace("* 3 - 1", "* 3 - 2"))
    assert doit(folder, "csim") == 0  # (`doit report` would synthesize again: it reads csynth/*.xml)
    assert table_row(folder, "top")[1:4] == ["pass", "-", "-"]
    assert table_row(folder, "Stage_X")[3] == "1234"  # Stage_X's C++ did not change
    top_cpp = tmp_path / "build" / "p" / "hls" / "top" / "top.cpp"
    toml = folder / "project.toml"
    # the estimates were made for the 4 ns clock and not made again since (`doit csim` asks for none)
    assert sorted(summary(folder)["outdated_reports"]) == [
        f"{tmp_path / 'build' / 'p' / 'csynth' / 'top.xml'}: {top_cpp} changed after csynth:p/top ran",
        f"{tmp_path / 'build' / 'p' / 'estimate' / 'Stage_X.json'}: {toml} changed after estimate:p/Stage_X ran",
        f"{tmp_path / 'build' / 'p' / 'estimate' / 'top.json'}: {toml} changed after estimate:p/top ran",
    ]


@pytest.mark.slow
@pytest.mark.parametrize("where", ["hw/projects", "kernels"])
def test_the_pipelines_artifacts_are_where_its_commands_build(
    tmp_path: Path, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Projects below hw/projects/ (or in a folder not named projects) build beside that folder; the
    artifacts had said build/ at the repository root, so no build folder reached the Vitis jobs."""
    import shlex
    import subprocess
    import sys

    import yaml

    from hclbuild.cli.ci import github_workflow, gitlab_pipeline
    from hclbuild.tasks import plan

    folder = tmp_path / where / "p"
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(KERNEL)
    monkeypatch.chdir(tmp_path)
    workflow = yaml.safe_load(github_workflow(plan([folder]), root=tmp_path, install="pip install hclbuild"))
    steps = workflow["jobs"]["build-csim"]["steps"]
    # the build-csim step runs `hclbuild report PATHS --continue` (with --compare when a base exists)
    (command,) = [
        line.strip()
        for step in steps
        for line in str(step.get("run", "")).splitlines()
        if line.strip().startswith("hclbuild report") and "--compare" not in line
    ]
    (upload,) = [
        step["with"]["path"].split() for step in steps if step.get("uses") == "actions/upload-artifact@v4"
    ]
    hclbuild = [
        sys.executable,
        "-c",
        "import sys; from hclbuild.cli import main; sys.exit(main(sys.argv[1:]))",
    ]
    done = subprocess.run(
        hclbuild + shlex.split(command)[1:],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    built = upload[0]
    assert (tmp_path / built / "p" / "csim" / "top.json").is_file()
    csynth = workflow["jobs"]["csynth"]["steps"][-1]["with"]["path"].splitlines()
    assert csynth[0] == f"{built}${{{{ matrix.project }}}}/hls/${{{{ matrix.function }}}}/"
    gitlab = yaml.safe_load(gitlab_pipeline(plan([folder]), root=tmp_path, install="pip install hclbuild"))
    assert gitlab["build-csim"]["artifacts"]["paths"] == [built]
    assert gitlab["csynth"]["artifacts"]["paths"][0] == f"{built}$PROJECT/hls/$FUNCTION/"


@pytest.mark.slow
def test_report_reads_csynth_results_but_never_synthesizes(fake_vitis, tmp_path: Path) -> None:
    fake_vitis.install("vitis_hls")
    folder = make_project(tmp_path)
    # `hclbuild report` is csim, then a summary: it ran every function's C synthesis (hours each) when a
    # Vitis tool was on PATH, because the report task listed csynth/<f>.xml among its file_deps
    assert doit(folder, "report") == 0
    assert fake_vitis.calls() == []
    assert table_row(folder, "top")[3] == "-"
    assert doit(folder, "csynth") == 0
    assert len(fake_vitis.calls()) == 2
    assert table_row(folder, "top")[3] == "1234"  # csynth's end rewrote the report
    (tmp_path / "build" / "p" / "reports" / "csynth.png").unlink(missing_ok=True)
    assert doit(folder, "report") == 0  # new csynth results: report:p draws again
    assert len(fake_vitis.calls()) == 2
    assert table_row(folder, "top")[3] == "1234"
    pytest.importorskip("matplotlib")
    assert (tmp_path / "build" / "p" / "reports" / "csynth.png").is_file()


@pytest.mark.slow
def test_hclbuild_cosim_prints_the_cosim_verdict(
    fake_vitis, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from hclbuild.cli import main

    fake_vitis.install("vitis_hls")
    folder = make_project(tmp_path)
    assert main(["cosim", str(folder), "-n", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if line.startswith("project"))
    assert header.split() == ["project", "function", "csim", "cosim", "max_abs_err", "latency", "resources"]
    rows = [line.split()[:4] for line in lines if line.startswith("p ")]
    assert rows == [["p", "top", "not", "run"], ["p", "Stage_X", "not", "run"]]
    assert [line.split()[4] for line in lines if line.startswith("p ")] == ["Pass", "Pass"]


@pytest.mark.slow
def test_a_synthesis_holds_on_a_machine_with_other_ap_types_headers(fake_vitis, tmp_path: Path) -> None:
    """A CI job that receives hls/<f>/ and csynth/<f>.* from the job that synthesized <f> emits again
    first, and the Makefile it writes names that runner's ap_types folder: csynth had counted the
    Makefile among its inputs, so each such job synthesized every function again (hours each)."""
    fake_vitis.install("vitis_hls")
    folder = make_project(tmp_path)
    assert doit(folder, "csynth") == 0
    assert len(fake_vitis.calls()) == 2
    makefile = tmp_path / "build" / "p" / "hls" / "Stage_X" / "Makefile"
    makefile.write_text(
        makefile.read_text() + "AP_TYPES ?= /opt/other-runner/hls4ml/templates/vivado/ap_types\n"
    )
    assert doit(folder, "csynth") == 0
    assert len(fake_vitis.calls()) == 2
