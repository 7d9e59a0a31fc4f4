"""Where the QoR estimate shows up (issue 26): every function of projects/ after `doit build`,
`hclbuild estimate PATHS [--json]`, and hcl.build(s, target="estimate") / hcl.estimate(s)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from doit_helpers import REPO, doit

import hclbuild as hcl
from hclbuild.cli import main
from hclbuild.project import estimation

KEYS = {"kind", "model_version", "function", "part", "clock_ns", "latency_min", "latency_max", "interval",
        "loops", "resources"}  # fmt: skip
LOOP_KEYS = {"label", "trip_count", "ii_requested", "ii", "limited_by", "iteration_latency", "latency"}
KERNEL = """
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((16,), "A")

    def kernel(A):
        X = hcl.compute((16,), lambda i: A[i] * 3, name="X")
        return hcl.compute((16,), lambda i: X[i] + 1, name="Y")

    s = hcl.create_schedule([A], kernel, name="top")
    s.outline(kernel.X)
    return s
"""


def fixture_estimate(func: str, latency: tuple[int, int], note: str | None = None) -> dict:
    record = {
        "kind": "estimate", "model_version": "fixture", "function": func, "part": "xcu250-figd2104-2L-e",
        "clock_ns": 10.0, "latency_min": latency[0], "latency_max": latency[1], "interval": latency[1] + 1,
        "loops": [], "resources": {"DSP": 3, "BRAM_18K": 0, "FF": 120, "LUT": 240},
    }  # fmt: skip
    return record if note is None else {**record, "note": note}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "kernel.py").write_text(KERNEL)
    return folder


def test_cli_table_and_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", str(project)]) == 0
    capsys.readouterr()
    # the files as the estimate tasks left them, replaced by known figures: the tasks stay up to date
    folder = project.parent / "build" / "p" / "estimate"
    records = {
        "top": fixture_estimate("top", (40, 52)),
        "Stage_X": fixture_estimate("Stage_X", (17, 17), note="m_axi argument A estimated as ap_memory"),
    }
    for func, record in records.items():
        (folder / f"{func}.json").write_text(json.dumps(record))
    assert main(["estimate", str(project)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "QoR estimated by hclbuild's model (not a synthesis result; Vitis csynth reports the real figures)",
        "",
        "project  function  latency (cycles)  interval  DSP  BRAM_18K  FF   LUT",
        "-------  --------  ----------------  --------  ---  --------  ---  ---",
        "p        top       40..52            53        3    0         120  240",
        "p        Stage_X   17                18        3    0         120  240",
        "",
        "p/Stage_X: m_axi argument A estimated as ap_memory",
    ]
    assert main(["estimate", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"p": records}


def test_cli_without_an_estimate_says_why(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", str(project)]) == 0
    capsys.readouterr()
    # a function the model refused: its file says why, every figure null
    target = estimation.EstimateTarget("xcu250-figd2104-2L-e", 10.0, None)
    refusal = "the QoR model does not know the operation math.erf"
    for func in ("top", "Stage_X"):
        record = estimation.refused_record(func, target, refusal)
        (project.parent / "build" / "p" / "estimate" / f"{func}.json").write_text(json.dumps(record))
    assert main(["estimate", str(project)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[4:] == [
        "p        top       -                 -         -    -         -   -",
        "p        Stage_X   -                 -         -    -         -   -",
        "",
        f"p/top: no estimate: {refusal}",
        f"p/Stage_X: no estimate: {refusal}",
    ]


def test_cli_bad_paths_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", str(tmp_path / "nowhere")]) == 1
    assert capsys.readouterr().err == f"hclbuild: error: {tmp_path / 'nowhere'}: no such project or folder\n"
    (tmp_path / "empty").mkdir()
    assert main(["estimate", str(tmp_path / "empty")]) == 1
    err = capsys.readouterr().err
    assert (
        err.startswith("hclbuild: error: no project (a folder with kernel.py) under ")
        and err.count("\n") == 1
    )
    with pytest.raises(SystemExit) as stop:
        main(["estimate", "--jsn"])
    assert stop.value.code == 2


def _schedule() -> hcl.Schedule:
    namespace: dict = {}
    exec(KERNEL, namespace)
    return namespace["schedule"]()


def test_build_target_estimate() -> None:
    s = _schedule()
    records = hcl.build(s, target="estimate")
    assert set(records) == {"top", "Stage_X"}
    assert records == hcl.estimate(s)
    for func, record in records.items():
        assert KEYS <= set(record) and record["function"] == func and record["kind"] == "estimate"
    assert hcl.estimate(s, part="xc7k160t-fbg484-1", clock_ns=5.0)["top"]["clock_ns"] == 5.0


def _cpp_labels(cpp: Path) -> set[str]:
    """The loop labels of an emitted top file (`l_i: for (...)`)."""
    return set(re.findall(r"^\s*(\w+):\s*for\s*\(", cpp.read_text(), re.MULTILINE))


@pytest.mark.slow
def test_every_function_of_the_projects_has_a_consistent_estimate(tmp_path: Path) -> None:
    shutil.copytree(REPO / "projects", tmp_path / "projects", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(REPO / "dodo.py", tmp_path / "dodo.py")
    doit(tmp_path, "-n", "2", "build", timeout=1200)
    checked = 0
    for manifest in sorted((tmp_path / "build").glob("*/ir/manifest.json")):
        root = manifest.parent.parent
        for func in json.loads(manifest.read_text())["functions"]:
            record = json.loads((root / "estimate" / f"{func}.json").read_text())
            where = f"{root.name}/{func}"
            assert KEYS <= set(record) and record["kind"] == "estimate" and record["function"] == func, where
            checked += 1
            if record.get("no_estimate"):
                assert record["latency_min"] is None, where
                continue
            low, high = record["latency_min"], record["latency_max"]
            assert low is None or high is None or 0 <= low <= high, where
            labels = _cpp_labels(root / "hls" / func / f"{func}.cpp")
            for loop in record["loops"]:
                assert set(loop) >= LOOP_KEYS, where
                assert loop["label"] in labels, (
                    f"{where}: loop {loop['label']} is not in the C++ {sorted(labels)}"
                )
            assert set(record["resources"]) >= {"DSP", "BRAM_18K", "FF", "LUT"}, where
    assert checked >= 60
