"""`hclbuild ci github|gitlab`: the install step, the job structure (parsed as YAML), and the build-csim
job's commands run the way a runner runs them, in a fresh virtual environment of a checkout."""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hclbuild.cli.ci import AP_TYPES_INSTALL, github_workflow, gitlab_pipeline, install_commands
from hclbuild.errors import ConfigError
from hclbuild.tasks import plan

REPO = Path(__file__).resolve().parents[2]
# frozen copies of two examples: the examples in projects/ evolve, these tests must not follow them
PROJECTS = REPO / "tests" / "data" / "projects"


def test_install_is_the_checkout_of_hclbuild_itself() -> None:
    assert install_commands(REPO) == ["python -m pip install --upgrade pip", "python -m pip install -e ."]


def test_install_from_requirements_then_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mykernels"\ndependencies = ["hclbuild"]\n')
    assert install_commands(tmp_path)[-1] == "python -m pip install ."
    (tmp_path / "requirements.txt").write_text("hclbuild\n")
    assert install_commands(tmp_path)[-1] == "python -m pip install -r requirements.txt"


def test_install_option_overrides_and_nothing_known_is_an_error(tmp_path: Path) -> None:
    assert install_commands(tmp_path, "pip install ./wheels/hclbuild.whl\n\npip install numpy") == [
        "pip install ./wheels/hclbuild.whl",
        "pip install numpy",
    ]
    with pytest.raises(ConfigError, match="give the commands with --install"):
        install_commands(tmp_path)


def test_gitlab_pipeline_structure() -> None:
    plans = plan([PROJECTS / "two_mm", PROJECTS / "gemm"])
    pipeline = yaml.safe_load(gitlab_pipeline(plans, runner_label="vitis-2025", root=REPO))
    assert pipeline["stages"] == ["csim", "csynth", "top", "report"]
    build = pipeline["build-csim"]
    assert build["stage"] == "csim"
    assert build["script"][:3] == [
        "python -m pip install --upgrade pip",
        "python -m pip install -e .",
        AP_TYPES_INSTALL,
    ]
    report = build["script"][3]
    assert "/jobs/artifacts/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME/download?job=build-csim" in report
    assert (
        "hclbuild report tests/data/projects/gemm tests/data/projects/two_mm --continue "
        "--compare .hclbuild-base/tests/data/build/summary.json"
    ) in report
    assert build["cache"]["paths"] == ["tests/data/build/"]
    assert build["artifacts"]["reports"] == {"metrics": "metrics.txt"}
    # `hclbuild csim tests/data/projects/gemm` builds beside tests/data/projects: that is the artifact
    assert build["artifacts"]["paths"] == ["tests/data/build/"]
    # precompiled ap_types headers are this runner's cache, about 80 MB each: not an artifact
    assert build["artifacts"]["exclude"] == ["tests/data/build/.csim/pch/**/*"]
    csynth = pipeline["csynth"]
    assert (csynth["stage"], csynth["tags"], csynth["needs"]) == ("csynth", ["vitis-2025"], ["build-csim"])
    assert csynth["parallel"]["matrix"] == [
        {
            "PROJECT": "two_mm",
            "PROJECT_PATH": "tests/data/projects/two_mm",
            "FUNCTION": ["Stage_out_AB", "Stage_out_ABC"],
        },
        {"PROJECT": "gemm", "PROJECT_PATH": "tests/data/projects/gemm", "FUNCTION": ["Stage_prod"]},
    ]
    assert csynth["script"][-1] == 'hclbuild csynth "$PROJECT_PATH" --function "$FUNCTION"'
    # the report travels with the digest of its inputs, so the top's job does not synthesize it again
    assert csynth["artifacts"]["paths"] == [
        "tests/data/build/$PROJECT/hls/$FUNCTION/",
        "tests/data/build/$PROJECT/csynth/$FUNCTION.xml",
        "tests/data/build/$PROJECT/csynth/$FUNCTION.inputs",
    ]
    top = pipeline["top"]
    assert top["needs"] == ["build-csim"]
    assert top["parallel"]["matrix"] == [
        {"PROJECT": "two_mm", "PROJECT_PATH": "tests/data/projects/two_mm", "FUNCTION": "top"},
        {"PROJECT": "gemm", "PROJECT_PATH": "tests/data/projects/gemm", "FUNCTION": "top"},
    ]


def blackbox_two_mm_and_gemm(root: Path) -> list:
    """Plans of two_mm with top_assembly = "blackbox" and of gemm as it is, both below root."""
    folder = root / "two_mm"
    shutil.copytree(PROJECTS / "two_mm", folder)
    toml = folder / "project.toml"
    toml.write_text(toml.read_text().replace("[hls]\n", '[hls]\ntop_assembly = "blackbox"\n'))
    shutil.copytree(PROJECTS / "gemm", root / "gemm")
    return plan([folder, root / "gemm"])


def test_only_blackbox_tops_wait_for_their_functions(tmp_path: Path) -> None:
    plans = blackbox_two_mm_and_gemm(tmp_path)
    jobs = yaml.safe_load(github_workflow(plans, root=tmp_path, install="pip install hclbuild"))["jobs"]
    uploads = [
        step["with"]
        for step in jobs["build-csim"]["steps"]
        if step.get("uses") == "actions/upload-artifact@v4"
    ]
    assert uploads[0]["path"].split() == ["build/", "!build/.csim/pch/"]  # not the precompiled headers
    # gemm's top is synthesized whole, as soon as csim is done
    whole = jobs["csynth-top"]
    assert whole["needs"] == "build-csim"
    assert whole["strategy"]["matrix"]["include"] == [{"project": "gemm", "path": "gemm", "function": "top"}]
    assert [s for s in whole["steps"] if s.get("with", {}).get("pattern")] == []
    # two_mm's top takes the RTL of its functions: it waits for their jobs and downloads their artifacts
    assemble = jobs["assemble-top"]
    assert assemble["needs"] == ["build-csim", "csynth"]
    assert assemble["strategy"]["matrix"]["include"] == [
        {"project": "two_mm", "path": "two_mm", "function": "top"}
    ]
    downloads = [
        step["with"] for step in assemble["steps"] if step.get("uses") == "actions/download-artifact@v4"
    ]
    # the function jobs' artifacts are csynth-<project>+<function>; '+' is in no project name, so
    # csynth-gemm-* had also matched (and merged over gemm's) the artifacts of a project gemm-opt
    uploaded = [
        step["with"]["name"]
        for step in jobs["csynth"]["steps"]
        if step.get("uses") == "actions/upload-artifact@v4"
    ]
    assert uploaded == ["csynth-${{ matrix.project }}+${{ matrix.function }}"]
    pattern = downloads[1]["pattern"].replace("${{ matrix.project }}", "gemm")
    assert fnmatch.fnmatchcase("csynth-gemm+Stage_prod", pattern)
    assert not fnmatch.fnmatchcase("csynth-gemm-opt+Stage_prod", pattern)
    assert downloads[1] == {
        "pattern": "csynth-${{ matrix.project }}+*",
        "path": "build/${{ matrix.project }}/",
        "merge-multiple": True,
    }
    assert (
        assemble["steps"][-2]["run"] == "hclbuild csynth ${{ matrix.path }} --function ${{ matrix.function }}"
    )
    gitlab = yaml.safe_load(gitlab_pipeline(plans, root=tmp_path, install="pip install hclbuild"))
    assert (gitlab["top"]["needs"], gitlab["assemble-top"]["needs"]) == (
        ["build-csim"],
        ["build-csim", "csynth"],
    )
    assert [entry["PROJECT"] for entry in gitlab["assemble-top"]["parallel"]["matrix"]] == ["two_mm"]
    assert gitlab["assemble-top"]["stage"] == "top"


def test_a_blackbox_project_without_outlined_functions_synthesizes_its_top_whole(tmp_path: Path) -> None:
    folder = tmp_path / "single"
    folder.mkdir()
    (folder / "kernel.py").write_text(
        "import hclbuild as hcl\n\n\n"
        "def schedule():\n"
        "    A = hcl.placeholder((8,), 'A')\n"
        "    return hcl.create_schedule([A], lambda A: hcl.compute(A.shape, lambda i: A[i] + 1, name='B'), name='top')\n"
    )
    (folder / "project.toml").write_text('[hls]\ntop_assembly = "blackbox"\n')
    jobs = yaml.safe_load(github_workflow(plan([folder]), root=tmp_path, install="pip install hclbuild"))[
        "jobs"
    ]
    assert set(jobs) == {"build-csim", "csynth-top", "report"}
    assert jobs["report"]["needs"] == ["build-csim", "csynth-top"]


def test_bad_runner_label_is_refused() -> None:
    with pytest.raises(ConfigError, match="runner label 'a b'"):
        github_workflow(plan([PROJECTS / "gemm"]), runner_label="a b", root=REPO)


def test_projects_in_folders_that_build_apart_are_refused(tmp_path: Path) -> None:
    for name in ("a", "b"):
        shutil.copytree(PROJECTS / "gemm", tmp_path / name / "gemm")
    with pytest.raises(
        ConfigError, match=r"^the projects build in different folders \(.*/a/build, .*/b/build\)"
    ):
        github_workflow(plan([tmp_path / "a" / "gemm", tmp_path / "b" / "gemm"]), root=tmp_path, install="x")
    with pytest.raises(ConfigError, match=r"a/build: the projects' build folder is outside .*/a/gemm, where"):
        gitlab_pipeline(plan([tmp_path / "a" / "gemm"]), root=tmp_path / "a" / "gemm", install="x")


def test_every_github_job_sets_up_the_python_hclbuild_needs(tmp_path: Path) -> None:
    # self-hosted Vitis runners run RHEL 8 (Python 3.6) or Ubuntu 22.04 (3.10): `pip install` of
    # hclbuild (requires-python >= 3.11) failed there without it
    jobs = yaml.safe_load(github_workflow(blackbox_two_mm_and_gemm(tmp_path), root=tmp_path, install="x"))[
        "jobs"
    ]
    assert set(jobs) == {"build-csim", "csynth", "csynth-top", "assemble-top", "report"}
    for name, job in jobs.items():
        uses = [step.get("uses") for step in job["steps"]]
        assert uses[:2] == ["actions/checkout@v4", "actions/setup-python@v5"], name
        assert job["steps"][1]["with"] == {"python-version": "3.11"}, name


def test_ci_from_a_subfolder_writes_the_workflow_at_the_top_of_the_repository(tmp_path: Path) -> None:
    # GitHub reads .github/workflows/ at the top of the repository and runs the jobs there; written
    # below the subfolder it was run in, the workflow was never read, its paths relative to the wrong folder
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mychip"\n')
    shutil.copytree(PROJECTS / "gemm", tmp_path / "hw" / "projects" / "gemm")
    proc = subprocess.run(
        [sys.executable, "-m", "hclbuild.cli", "ci", "github", "projects"],
        cwd=tmp_path / "hw",
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "wrote ../.github/workflows/hclbuild.yml\n"
    assert not (tmp_path / "hw" / ".github").exists()
    text = (tmp_path / ".github" / "workflows" / "hclbuild.yml").read_text()
    assert "python -m pip install ." in text and "hw/projects/gemm" in text and "hw/build" in text


def gitlab_python_setup(tmp_path: Path) -> tuple[dict, list[str]]:
    """The GitLab pipeline of the blackbox two_mm and gemm, and the before_script its jobs share."""
    pipeline = yaml.safe_load(gitlab_pipeline(blackbox_two_mm_and_gemm(tmp_path), root=tmp_path, install="x"))
    return pipeline, pipeline[".hclbuild-python"]["before_script"]


def test_every_gitlab_job_sets_up_the_python_hclbuild_needs(tmp_path: Path) -> None:
    # the Vitis jobs ran `pip install` with the runner's own python: RHEL 8's 3.6, Ubuntu 22.04's 3.10
    pipeline, _ = gitlab_python_setup(tmp_path)
    jobs = {
        name: job
        for name, job in pipeline.items()
        if name not in ("stages", "workflow") and not name.startswith(".")
    }
    assert set(jobs) == {"build-csim", "csynth", "top", "assemble-top", "report"}
    assert {name: job["extends"] for name, job in jobs.items()} == dict.fromkeys(jobs, ".hclbuild-python")
    assert pipeline[".hclbuild-python"]["variables"] == {"HCLBUILD_PYTHON": "python3.11"}


def run_before_script(lines: list[str], tmp_path: Path, python: str | None) -> subprocess.CompletedProcess:
    """The before_script and a `python` line, in one bash as a GitLab shell runner runs them, on a
    PATH whose python3.11 is `python` (a shell script's text, or a path to link) or absent."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    if python is not None and python.startswith("/"):
        (bin_dir / "python3.11").symlink_to(python)
    elif python is not None:
        (bin_dir / "python3.11").write_text(python)
        (bin_dir / "python3.11").chmod(0o755)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env["PATH"] = str(bin_dir)  # the lines need only bash's builtins and python3.11
    env["HCLBUILD_PYTHON"] = "python3.11"
    script = "\n".join([*lines, 'python -c "import sys; print(sys.prefix)"'])
    return subprocess.run(
        [shutil.which("bash") or "/bin/bash", "-e", "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
def test_gitlab_jobs_run_in_a_venv_of_python_3_11(tmp_path: Path) -> None:
    _, lines = gitlab_python_setup(tmp_path / "p")
    base = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    done = run_before_script(lines, tmp_path, str(base))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / ".hclbuild-venv")


@pytest.mark.parametrize("python", [None, "#!/bin/sh\nexit 1\n"])
def test_gitlab_jobs_without_python_3_11_stop_in_one_line(tmp_path: Path, python: str | None) -> None:
    _, lines = gitlab_python_setup(tmp_path / "p")
    done = run_before_script(lines, tmp_path, python)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "hclbuild: error: HCLBUILD_PYTHON=python3.11 is not a Python 3.11 or newer on "
        "this runner: install one, or set the CI/CD variable HCLBUILD_PYTHON to one"
    )
    assert not (tmp_path / ".hclbuild-venv").exists()


def test_install_lines_are_yaml_strings_whatever_they_hold(tmp_path: Path) -> None:
    # `echo "done: ok"` was a YAML mapping and `- x` a nested list: GitLab got another pipeline
    lines = 'pip install "hclbuild>=0.1"\n- evil: 1\necho "done: ok" # note\n{a}'
    pipeline = yaml.safe_load(
        gitlab_pipeline(blackbox_two_mm_and_gemm(tmp_path), root=tmp_path, install=lines)
    )
    expected = ['pip install "hclbuild>=0.1"', "- evil: 1", 'echo "done: ok" # note', "{a}"]
    for job in ("build-csim", "csynth", "top", "assemble-top"):
        assert pipeline[job]["script"][:4] == expected, job
    jobs = yaml.safe_load(github_workflow(plan([PROJECTS / "gemm"]), root=REPO, install=lines))["jobs"]
    assert jobs["build-csim"]["steps"][2]["run"] == "\n".join(expected) + "\n"


def test_a_project_folder_the_shell_would_split_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "my kernels" / "gemm"
    shutil.copytree(PROJECTS / "gemm", folder)
    with pytest.raises(
        ConfigError, match=r"^my kernels/gemm: the pipeline names project folders in shell commands "
    ):
        github_workflow(plan([folder]), root=tmp_path, install="x")


def test_ci_output_that_is_a_folder_or_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from hclbuild.cli import main

    monkeypatch.chdir(tmp_path)
    shutil.copytree(PROJECTS / "gemm", tmp_path / "gemm")
    (tmp_path / "out").mkdir()
    assert main(["ci", "github", "gemm", "--install", "x", "--output", "out"]) == 1
    assert main(["ci", "github", "gemm", "--install", "x", "--output", "/proc/hclbuild.yml"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "hclbuild: error: --output out: is a folder; name the file to write",
        "hclbuild: error: /proc/hclbuild.yml: cannot write it: No such file or directory",
    ]
