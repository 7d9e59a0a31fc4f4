"""Knobs in project.toml ([explore], [knobs]): one-line errors, --apply's exact text change, the
Pareto front and hypervolume of hand-made points."""

from __future__ import annotations

from pathlib import Path

import pytest

from hclbuild.errors import ConfigError
from hclbuild.project.config import load_config
from hclbuild.project.explore_points import ESTIMATED, PointResult
from hclbuild.project.explore_results import with_knobs
from hclbuild.project.explore_search import hypervolume, pareto_front
from hclbuild.project.knobs import point_key


def config(tmp_path: Path, text: str):
    path = tmp_path / "p" / "project.toml"
    path.parent.mkdir()
    path.write_text(text)
    return load_config(path)


def test_explore_and_knobs_are_read(tmp_path: Path) -> None:
    loaded = config(tmp_path, "[explore]\nunroll = [1, 2]\nii = [1, 2]\n[knobs]\nunroll = 2\n")
    assert loaded.explore == {"unroll": [1, 2], "ii": [1, 2]}
    assert loaded.knobs == {"unroll": 2}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[explore]\nunroll = []\n",
            "project.toml:2: explore.unroll must be a non-empty list of values, got []",
        ),
        ("[explore]\nunroll = [1, 1]\n", "project.toml:2: explore.unroll lists 1 twice"),
        ("[explore]\nunroll = [1, true]\n", "project.toml:2: explore.unroll values must all be of one type"),
        (
            "[explore]\nunroll = [1, 2]\n[knobs]\nunrol = 2\n",
            "project.toml:4: knobs.unrol is no knob of [explore] (knobs: unroll)",
        ),
        (
            "[explore]\nunroll = [1, 2]\n[knobs]\nunroll = 3\n",
            "project.toml:4: knobs.unroll = 3 is not one of [explore] unroll = [1, 2]",
        ),
    ],
)
def test_a_bad_knob_is_one_line_naming_its_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        config(tmp_path, text)
    assert str(error.value).startswith(
        str(tmp_path / "p" / message.split(":")[0]) + ":" + message.split(":", 1)[1]
    )
    assert "\n" not in str(error.value)


def test_apply_changes_only_the_knob_lines() -> None:
    text = "[hls]\nclock_period_ns = 4.0\n\n[knobs]  # chosen\nunroll = 2  # the default\nii = 1\n\n[csim]\nrtol = 1e-4\n"
    assert with_knobs(text, {"unroll": 8, "ii": 1}) == text.replace("unroll = 2", "unroll = 8")
    added = with_knobs(text, {"unroll": 2, "ii": 1, "partition": 4})
    assert added == text.replace("ii = 1\n", "ii = 1\npartition = 4\n")


def test_apply_adds_a_knobs_table() -> None:
    assert with_knobs('[hls]\npart = "x"\n', {"unroll": 4, "fast": True}) == (
        '[hls]\npart = "x"\n\n[knobs]\nunroll = 4\nfast = true\n'
    )


def point(latency: int, dsp: int) -> PointResult:
    knobs = {"l": latency, "d": dsp}
    return PointResult(point_key(knobs), knobs, "", ESTIMATED, latency=latency, resources={"DSP": dsp})


def test_the_pareto_front_of_hand_made_points() -> None:
    points = [point(100, 10), point(50, 20), point(60, 20), point(100, 12), point(20, 40), point(50, 20)]
    front = pareto_front(points, ["latency", "DSP"])
    assert [(p.latency, p.resources["DSP"]) for p in front] == [(20, 40), (50, 20), (100, 10)]


def test_the_front_is_the_definitions_on_many_points_with_ties() -> None:
    import random

    rng = random.Random(5)
    points = []
    for n in range(600):
        latency, dsp, bram = rng.randint(1, 30), rng.randint(1, 30), rng.randint(1, 6)
        knobs = {"n": n}  # each point its own key; equal figures recur (ties)
        resources = {"DSP": dsp, "BRAM_18K": bram}
        points.append(
            PointResult(point_key(knobs), knobs, "", ESTIMATED, latency=latency, resources=resources)
        )
    objectives = ["latency", "DSP", "BRAM_18K"]

    def figures(p: PointResult) -> tuple[int, ...]:
        return (p.latency or 0, p.resources["DSP"], p.resources["BRAM_18K"])

    def dominated(mine: tuple[int, ...]) -> bool:
        return any(all(o <= m for o, m in zip(figures(q), mine)) and figures(q) != mine for q in points)

    # written out: the undominated, the first evaluated of equal figures, by figures
    first = {}
    for p in points:
        first.setdefault(figures(p), p.key)
    expected = sorted((f, key) for f, key in first.items() if not dominated(f))
    assert [(figures(p), p.key) for p in pareto_front(points, objectives)] == expected


def test_hypervolume_of_two_points() -> None:
    # (0.2, 0.6) and (0.5, 0.1) up to (1, 1): 0.8 * 0.4 + 0.5 * 0.9 - 0.5 * 0.4 = 0.57
    assert hypervolume([(0.2, 0.6), (0.5, 0.1)], (1.0, 1.0)) == pytest.approx(0.57)


def test_a_front_copy_is_named_after_its_point_or_its_digest() -> None:
    from hclbuild.project.explore_front import copy_name
    from hclbuild.project.layout import is_project_name

    assert copy_name("gemm", "unroll-4,partition-2,ii-1") == "gemm.unroll-4.partition-2.ii-1"
    # '+' spells no project name: the key's digest names the copy, one name a key
    plus, other = copy_name("gemm", "scale-1e+3"), copy_name("gemm", "scale-1e+4")
    assert plus.startswith("gemm.point-") and len(plus) == len("gemm.point-") + 16
    assert is_project_name(plus) and plus != other


def test_with_table_sets_the_project_name_beside_the_knobs() -> None:
    from hclbuild.project.explore_results import with_table

    text = '[project]\nname = "gemm"  # the folder\ntop = "top"\n'
    assert with_table(text, "project", {"name": "gemm.ii-1"}) == (
        '[project]\nname = "gemm.ii-1"  # the folder\ntop = "top"\n'
    )
