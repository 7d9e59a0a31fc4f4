"""project.toml [sizes]: common sizes, named datasets (SMALL, MEDIUM), and how kernel.py receives them."""

from __future__ import annotations

from pathlib import Path

import pytest

from hclbuild.errors import ConfigError
from hclbuild.project.config import Sizes, load_project
from hclbuild.project.kernel import call_optional, kernel_schedule, load_kernel

DATASETS = """
[sizes]
TSTEPS = 4

[sizes.SMALL]
N = 8
M = 6

[sizes.MEDIUM]
N = 32
M = 20
"""

KERNEL = """
import numpy as np
import hclbuild as hcl

def schedule(sizes):
    A = hcl.placeholder((sizes.N, sizes["M"]), "A")
    def kernel(A):
        return hcl.compute(A.shape, lambda i, j: A[i, j] * sizes.TSTEPS, name="B")
    return hcl.create_schedule([A], kernel)

def inputs(rng, sizes):
    return [np.full((sizes.N, sizes.M), 2)]

def model(A, sizes):
    return A * sizes.TSTEPS
"""


def make_project(root: Path, toml: str | None, kernel: str = "import hclbuild as hcl\n") -> Path:
    folder = root / "proj"
    folder.mkdir()
    (folder / "kernel.py").write_text(kernel)
    if toml is not None:
        (folder / "project.toml").write_text(toml)
    return folder


def test_first_dataset_is_the_default_and_common_sizes_join_it(tmp_path: Path) -> None:
    config = load_project(make_project(tmp_path, DATASETS)).config
    assert config.dataset == "SMALL"
    assert config.sizes == {"TSTEPS": 4, "N": 8, "M": 6}
    assert config.to_json()["dataset"] == "SMALL"


def test_dataset_key_chooses_the_table(tmp_path: Path) -> None:
    toml = DATASETS.replace("[sizes]\n", '[sizes]\ndataset = "MEDIUM"\n')
    config = load_project(make_project(tmp_path, toml)).config
    assert (config.dataset, config.sizes) == ("MEDIUM", {"TSTEPS": 4, "N": 32, "M": 20})


def test_load_project_dataset_overrides_the_file(tmp_path: Path) -> None:
    toml = DATASETS.replace("[sizes]\n", '[sizes]\ndataset = "SMALL"\n')
    project = load_project(make_project(tmp_path, toml), dataset="MEDIUM")
    assert project.config.sizes == {"TSTEPS": 4, "N": 32, "M": 20}
    assert project.sizes.dataset == "MEDIUM" and project.sizes.N == 32


def test_flat_sizes_have_no_dataset(tmp_path: Path) -> None:
    config = load_project(make_project(tmp_path, "[sizes]\nN = 3\n")).config
    assert (config.dataset, config.sizes) == ("", {"N": 3})


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            DATASETS.replace("[sizes]\n", '[sizes]\ndataset = "LARGE"\n'),
            "project.toml:3: there is no dataset [sizes.LARGE] (datasets: SMALL, MEDIUM)",
        ),
        (
            DATASETS.replace("[sizes]\n", "[sizes]\ndataset = 2\n"),
            "project.toml:3: sizes.dataset must be a string, got integer 2",
        ),
        (
            DATASETS.replace("M = 20\n", ""),
            "project.toml:9: [sizes.MEDIUM] and [sizes.SMALL] must set the same sizes (only one of them sets M)",
        ),
        (
            DATASETS.replace("M = 20\n", "M = 20\nTSTEPS = 2\n"),
            "project.toml:12: sizes.MEDIUM.TSTEPS is also set in [sizes]; set it in one place",
        ),
        (DATASETS.replace("M = 20\n", "M = -1\n"), "project.toml:11: sizes.MEDIUM.M must be > 0, got -1"),
        (
            "[sizes]\nN = 3\n[sizes.big-one]\nN = 4\n",
            "project.toml:3: [sizes.big-one]: dataset names must be C identifiers",
        ),
    ],
)
def test_invalid_sizes_message(tmp_path: Path, toml: str, message: str) -> None:
    folder = make_project(tmp_path, toml)
    with pytest.raises(ConfigError) as info:
        load_project(folder)
    assert str(info.value) == f"{folder}/{message}"


def test_asking_for_a_dataset_the_project_lacks_is_an_error(tmp_path: Path) -> None:
    folder = make_project(tmp_path, "[hls]\nclock_period_ns = 5\n")
    with pytest.raises(ConfigError) as info:
        load_project(folder, dataset="MEDIUM")
    assert str(info.value) == (
        f"{folder}/project.toml: dataset 'MEDIUM' was asked for, but the project has no [sizes.MEDIUM]"
    )


def test_missing_size_names_itself() -> None:
    sizes = Sizes({"N": 4}, "SMALL")
    with pytest.raises(ConfigError) as info:
        sizes.M
    assert str(info.value) == "project.toml [sizes.SMALL] or [sizes] sets no size 'M' (sizes: N)"
    assert dict(sizes) == {"N": 4} and sizes["N"] == 4


def test_kernel_entry_points_receive_the_sizes(tmp_path: Path) -> None:
    import numpy as np

    project = load_project(make_project(tmp_path, DATASETS, KERNEL), dataset="MEDIUM")
    schedule = kernel_schedule(project)
    assert schedule.inputs[0].shape == (32, 20)
    module = load_kernel(project)
    (given,) = call_optional(project, module, "inputs", np.random.default_rng(0))
    assert given.shape == (32, 20)
    assert (call_optional(project, module, "model", given) == 8).all()


def test_a_kernel_reading_an_unset_size_fails_in_one_line(tmp_path: Path) -> None:
    kernel = KERNEL.replace("sizes.TSTEPS", "sizes.STEPS")
    project = load_project(make_project(tmp_path, DATASETS, kernel))
    with pytest.raises(ConfigError) as info:
        kernel_schedule(project)
    assert str(info.value) == (
        f"{project.kernel_path}:8: schedule() failed: ConfigError: project.toml "
        "[sizes.SMALL] or [sizes] sets no size 'STEPS' (sizes: TSTEPS, N, M)"
    )
