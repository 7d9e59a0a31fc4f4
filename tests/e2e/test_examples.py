"""The example projects stay green: numpy model, LLVM reference and g++ csim agree for every function."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import chromium, console_errors, needs_chromium, open_page

from hclbuild.project.config import load_project
from hclbuild.project.flow import compile_project
from hclbuild.project.kernel import design_functions, kernel_schedule, load_kernel
from hclbuild.project.layout import BuildLayout
from hclbuild.project.reference import run_reference

REPO = Path(__file__).resolve().parents[2]
PROJECTS = sorted(p for p in (REPO / "projects").iterdir() if (p / "kernel.py").is_file())
# the showcase has a test of its own, so that a failure there is named as such
SHOWCASE = REPO / "projects" / "resnet20"


def _doit(root: Path, *commands: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "doit", "-n", "2", *commands],
        cwd=root,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        timeout=1800,
        check=False,
    )


def _csim_all(tmp_path: Path, folders: list[Path]) -> None:
    """`doit -n 2 csim` over copies of the given projects; every function's csim must pass."""
    for folder in folders:
        shutil.copytree(folder, tmp_path / "projects" / folder.name)
    shutil.copyfile(REPO / "dodo.py", tmp_path / "dodo.py")
    proc = _doit(tmp_path, "csim")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for folder in folders:
        functions = _functions(folder)
        results = {
            p.stem: json.loads(p.read_text())
            for p in (tmp_path / "build" / folder.name / "csim").glob("*.json")
        }
        assert sorted(results) == sorted(functions), folder.name
        for func, data in results.items():
            assert data["pass"] is True and data["mismatches"] == 0 and data["compared"] > 0, (
                folder.name,
                func,
            )


def _functions(folder: Path) -> list[str]:
    project = load_project(folder)
    return design_functions(kernel_schedule(project), project.name)


def test_the_suite_has_fifteen_projects_each_with_a_numpy_model() -> None:
    assert len(PROJECTS) >= 15
    for folder in PROJECTS:
        module = load_kernel(load_project(folder))
        assert callable(getattr(module, "model", None)), f"{folder.name} has no model()"
        assert "II" in (module.__doc__ or ""), f"{folder.name}: the docstring says no expected II"


@pytest.mark.parametrize("folder", PROJECTS, ids=[p.name for p in PROJECTS])
def test_every_dataset_traces(folder: Path) -> None:
    """SMALL and MEDIUM (where a project has datasets) give a schedule; only SMALL runs in csim."""
    project = load_project(folder)
    if not project.config.dataset:
        pytest.skip(f"{folder.name} has fixed sizes")
    for dataset in ("SMALL", "MEDIUM"):
        schedule = kernel_schedule(load_project(folder, dataset=dataset))
        assert schedule.name == project.config.top


# MEDIUM takes over 5 s for these two; the others run in about a second
SLOW_MEDIUM = ("seidel_2d", "stream_pipeline")


@pytest.mark.parametrize(
    "folder",
    [
        pytest.param(p, id=p.name, marks=[pytest.mark.slow] if p.name in SLOW_MEDIUM else [])
        for p in PROJECTS
        if load_project(p).config.dataset
    ],
)
def test_medium_dataset_reference_agrees_with_the_numpy_model(folder: Path, tmp_path: Path) -> None:
    """MEDIUM (benchmarked, never simulated in CI) still builds, runs and matches numpy."""
    project = load_project(folder, dataset="MEDIUM")
    layout = BuildLayout(tmp_path, project.name)
    compile_project(project, layout)
    assert run_reference(project, layout).model_checked is True


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every example project but the showcase, simulated (the tests below share the build)."""
    root = tmp_path_factory.mktemp("examples")
    _csim_all(root, [p for p in PROJECTS if p != SHOWCASE])
    return root


@pytest.mark.slow
def test_every_example_project_passes_csim(examples: Path) -> None:
    assert sorted(
        p.name for p in (examples / "build").iterdir() if p.is_dir() and p.name[0] != "."
    ) == sorted(p.name for p in PROJECTS if p != SHOWCASE)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):
    yield from chromium(tmp_path_factory.mktemp("chromium-profile"))


def _reports_in_chromium(root: Path, folders: list[Path], browser: Any) -> None:
    """`doit report` over a simulated tree, then each project's report.html and build/index.html read
    in the browser: a row per function of the design, each passing, no console error."""
    from selenium.webdriver.common.by import By

    proc = _doit(root, "report")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for folder in folders:
        open_page(browser, root / "build" / folder.name / "reports" / "report.html", 1280, 900)
        rows = browser.find_elements(By.CSS_SELECTOR, "#function-table tbody tr")
        shown = sorted(row.get_attribute("data-function") for row in rows)
        assert shown == sorted(_functions(folder)), folder.name
        assert {row.find_element(By.CSS_SELECTOR, "td").text for row in rows} == {"pass"}, folder.name
        assert console_errors(browser) == [], folder.name
    open_page(browser, root / "build" / "index.html", 1024, 700)
    rows = browser.find_elements(By.CSS_SELECTOR, "#project-table tbody tr")
    assert sorted(row.get_attribute("data-project") for row in rows) == sorted(f.name for f in folders)
    assert console_errors(browser) == []


@pytest.mark.slow
@needs_chromium
def test_every_example_projects_report_html_in_chromium(examples: Path, browser: Any) -> None:
    """Issue 28: report.html of every project of projects/ and build/index.html, in a real browser."""
    _reports_in_chromium(examples, [p for p in PROJECTS if p != SHOWCASE], browser)


@pytest.fixture(scope="module")
def showcase(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("showcase")
    _csim_all(root, [SHOWCASE])
    return root


@pytest.mark.slow
def test_resnet20_passes_csim_in_every_function(showcase: Path) -> None:
    """ResNet-20: 21 convs, the pool and the dense layer, each its own HLS project, all bit-exact."""
    assert len(list((showcase / "build" / SHOWCASE.name / "csim").glob("*.json"))) >= 21


@pytest.mark.slow
@needs_chromium
def test_resnet20_report_html_in_chromium(showcase: Path, browser: Any) -> None:
    _reports_in_chromium(showcase, [SHOWCASE], browser)
