"""The generated pipelines proven, not only parsed: GitHub's workflow schema and GitLab's CI schema
(check-jsonschema's built-in copies, no network) for github/gitlab x vivado/vitis flows, actionlint
where installed, and the GitHub build-csim job's run: steps executed in order, as a runner would,
on a fresh copy of a small design repository whose requirements.txt points at this checkout."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hclbuild.cli.ci import github_workflow, gitlab_pipeline
from hclbuild.tasks import plan

REPO = Path(__file__).resolve().parents[2]
PROJECTS = REPO / "tests" / "data" / "projects"
CHECK_JSONSCHEMA = shutil.which(
    "check-jsonschema", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
)
SCHEMAS = {"github": "vendor.github-workflows", "gitlab": "vendor.gitlab-ci"}
needs_check_jsonschema = pytest.mark.skipif(
    CHECK_JSONSCHEMA is None, reason="check-jsonschema (the [test] extra) is not installed"
)


def design_repository(root: Path, flow_target: str, blackbox: bool) -> list:
    """A repository of two projects (two_mm with its flow target, gemm) and their plans."""
    (root / ".git").mkdir(parents=True)
    for name in ("two_mm", "gemm"):
        shutil.copytree(PROJECTS / name, root / "projects" / name)
    toml = root / "projects" / "two_mm" / "project.toml"
    text = toml.read_text() if toml.exists() else ""
    text = re.sub(r"(?m)^flow_target = .*\n", "", text)
    hls = f'flow_target = "{flow_target}"\n' + ('top_assembly = "blackbox"\n' if blackbox else "")
    text = text.replace("[hls]\n", "[hls]\n" + hls) if "[hls]\n" in text else text + "\n[hls]\n" + hls
    toml.write_text(text + '\n[ci]\nfail_on = "latency>+5%,DSP>+10%,csim"\n')
    return plan([root / "projects" / "two_mm", root / "projects" / "gemm"])


@needs_check_jsonschema
@pytest.mark.parametrize("provider", ["github", "gitlab"])
@pytest.mark.parametrize(("flow_target", "blackbox"), [("vivado", False), ("vitis", True)])
def test_pipeline_passes_its_providers_schema(
    tmp_path: Path, provider: str, flow_target: str, blackbox: bool
) -> None:
    plans = design_repository(tmp_path, flow_target, blackbox)
    write = github_workflow if provider == "github" else gitlab_pipeline
    path = tmp_path / ("hclbuild.yml" if provider == "github" else ".gitlab-ci.yml")
    path.write_text(
        write(plans, runner_label="vitis", root=tmp_path, install="pip install -r requirements.txt")
    )
    done = subprocess.run(
        [CHECK_JSONSCHEMA, "--builtin-schema", SCHEMAS[provider], str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok -- validation done" in done.stdout
    pipeline = yaml.safe_load(path.read_text())
    jobs = pipeline["jobs"] if provider == "github" else pipeline
    assert "report" in jobs  # the job that merges the csynth results into the report
    if blackbox:
        assert "assemble-top" in jobs


@needs_check_jsonschema
def test_the_schema_check_fails_a_broken_pipeline(tmp_path: Path) -> None:
    """The check can fail: a job without runs-on is not a GitHub workflow."""
    plans = design_repository(tmp_path, "vivado", False)
    workflow = yaml.safe_load(github_workflow(plans, root=tmp_path, install="x"))
    del workflow["jobs"]["build-csim"]["runs-on"]
    path = tmp_path / "broken.yml"
    path.write_text(yaml.safe_dump(workflow))
    done = subprocess.run(
        [CHECK_JSONSCHEMA, "--builtin-schema", SCHEMAS["github"], str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1 and "runs-on" in done.stdout + done.stderr


@pytest.mark.skipif(
    shutil.which("actionlint") is None,
    reason="actionlint is not installed (no Debian or PyPI build of it here)",
)
def test_actionlint_accepts_the_workflow(tmp_path: Path) -> None:
    plans = design_repository(tmp_path, "vitis", True)
    path = tmp_path / ".github" / "workflows" / "hclbuild.yml"
    path.parent.mkdir(parents=True)
    path.write_text(github_workflow(plans, root=tmp_path, install="pip install -r requirements.txt"))
    done = subprocess.run(["actionlint", str(path)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def runs(step: dict, event: str) -> bool:
    """Whether a step runs on `event`: its `if:` is one of the forms the workflow uses, or absent."""
    condition = step.get("if")
    if condition is None or condition == "${{ !cancelled() }}":
        return True
    match = re.fullmatch(r"github\.event_name == '(\w+)'", condition)
    assert match is not None, f"a condition this test cannot evaluate: {condition}"
    return match.group(1) == event


@pytest.mark.slow
def test_build_csim_job_runs_on_a_fresh_design_repository(tmp_path: Path) -> None:
    """The job's run: steps in order in a fresh venv, on a push (the QoR baseline is kept), then on a
    pull request (compared with that baseline, as the restored cache gives it)."""
    checkout = tmp_path / "design"
    (checkout / "projects").mkdir(parents=True)
    shutil.copytree(REPO / "projects" / "stream_pipeline", checkout / "projects" / "stream_pipeline")
    # this checkout's files as they are (pip's build writes a build/ folder into the tree it builds)
    source = tmp_path / "hclbuild-checkout"
    ignored = shutil.ignore_patterns(
        ".git", ".venv", "build", "site", "test-artifacts", "*.egg-info", "__pycache__"
    )
    shutil.copytree(REPO, source, ignore=ignored)
    (checkout / "requirements.txt").write_text(f"hclbuild @ {source.as_uri()}\n")
    workflow = yaml.safe_load(
        github_workflow(plan([checkout / "projects" / "stream_pipeline"]), root=checkout)
    )
    steps = workflow["jobs"]["build-csim"]["steps"]
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    for event in ("push", "pull_request"):
        env.update(
            GITHUB_EVENT_NAME=event,
            GITHUB_OUTPUT=str(tmp_path / f"{event}.output"),
            GITHUB_STEP_SUMMARY=str(tmp_path / f"{event}.summary.md"),
        )
        for step in steps:
            if "run" not in step or not runs(step, event):
                continue
            done = subprocess.run(
                ["bash", "-e", "-c", step["run"]],
                cwd=checkout,
                env=env,
                capture_output=True,
                text=True,
                timeout=1200,
                check=False,
            )
            assert done.returncode == 0, f"{step['run']}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    build = checkout / "build"
    for func in ("top", "Stage_gray", "Stage_blur", "Stage_binarize"):
        assert json.loads((build / "stream_pipeline" / "csim" / f"{func}.json").read_text())["pass"] is True
    assert (tmp_path / "push.output").read_text().startswith("version=")
    baseline = json.loads((checkout / ".hclbuild-base" / "summary.json").read_text())
    assert set(baseline["projects"]) == {"stream_pipeline"}
    assert (build / "index.html").is_file() and (
        build / "stream_pipeline" / "reports" / "report.html"
    ).is_file()
    comparison = (tmp_path / "pull_request.summary.md").read_text()
    assert "| stream_pipeline/Stage_blur | pass |" in comparison
    assert "Thresholds crossed" not in comparison
