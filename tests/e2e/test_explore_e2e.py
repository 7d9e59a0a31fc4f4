"""`hclbuild explore` end to end on a tiny project (a 64-element y = 3a + 1, unroll x II knobs), each
run a process of its own as a user starts it: the Pareto front is the one computed by hand from the
per-point estimate files, a rerun evaluates only new points, the seeded search repeats itself, an
interrupted run keeps what finished, --apply then build gives the chosen point's estimate, and Dask
workers give the local figures."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]

KERNEL = """\
import os
import signal
import time

import numpy as np

import hclbuild as hcl


def schedule(sizes, knobs):
    hcl.init(hcl.Float())
    A = hcl.placeholder((64,), "A")

    def kernel(A):
        return hcl.compute((64,), lambda i: A[i] * 3 + 1, name="B")

    s = hcl.create_schedule([A], kernel, name="top")
    i = s[kernel.B].axis[0]
    if knobs.unroll > 1:
        io, ii = s[kernel.B].split(i, knobs.unroll)
        s[kernel.B].pipeline(io, knobs.ii)
        s[kernel.B].unroll(ii)
        s.partition(A, hcl.Partition.Cyclic, factor=knobs.unroll)
    else:
        s[kernel.B].pipeline(i, knobs.ii)
    # the tests' faults, at the point TINY_FAULT names (the environment is no input of a point's digest)
    if os.environ.get("TINY_FAULT_AT") == f"{knobs.unroll},{knobs.ii}":
        if os.environ["TINY_FAULT"] == "crash":
            os.kill(os.getpid(), signal.SIGKILL)  # this point's compile dies
        os.kill(os.getppid(), signal.SIGINT)  # Ctrl-C reaches hclbuild while this point compiles
        time.sleep(60)
    return s


def model(A):
    return {"B": A * np.float32(3) + np.float32(1)}
"""

OBJECTIVES = ("latency", "DSP", "BRAM_18K", "LUT")


def make_project(root: Path, **space: list[Any]) -> Path:
    folder = root / "tiny"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.py").write_text(KERNEL)
    lines = [f"{name} = {json.dumps(values)}" for name, values in space.items()]
    (folder / "project.toml").write_text("[explore]\n" + "\n".join(lines) + "\n")
    return folder


def hclbuild(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hclbuild.cli", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        timeout=600,
        check=False,
        # Ctrl-C must reach the run as it reaches a terminal's (a shell without job control starts
        # children with SIGINT ignored)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def explore(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return hclbuild(root, "explore", "tiny", "--build-dir", "build", *args, env=env)


def evaluated(proc: subprocess.CompletedProcess) -> list[str]:
    """The points whose task ran, from doit's [k/N] lines."""
    return [line.split("explore:tiny@")[1] for line in proc.stdout.splitlines() if "] explore:tiny@" in line]


def point_files(root: Path) -> dict[str, dict[str, Any]]:
    return {
        path.stem: json.loads(path.read_text())
        for path in (root / "build" / "tiny" / "explore" / "points").glob("*.json")
    }


def pareto(root: Path) -> dict[str, Any]:
    return json.loads((root / "build" / "tiny" / "explore" / "pareto.json").read_text())


def figures(point: dict[str, Any]) -> tuple[int, ...]:
    return (point["latency"], *(point["resources"][name] for name in OBJECTIVES[1:]))


def front_by_hand(points: dict[str, dict[str, Any]]) -> list[str]:
    """The keys of the points no other point dominates, by latency: the definition, written out."""
    scored = {key: figures(point) for key, point in points.items()}

    def dominated(mine: tuple[int, ...]) -> bool:
        return any(all(o <= m for o, m in zip(other, mine)) and other != mine for other in scored.values())

    return sorted((key for key, mine in scored.items() if not dominated(mine)), key=lambda k: scored[k])


def test_a_sweep_gives_the_pareto_front_computed_from_the_point_files(tmp_path: Path) -> None:
    make_project(tmp_path, unroll=[1, 2, 4], ii=[1, 2])
    proc = explore(tmp_path, "-n", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    points = point_files(tmp_path)
    assert sorted(points) == sorted(f"unroll-{u},ii-{i}" for u in (1, 2, 4) for i in (1, 2))
    assert all(p["status"] == "estimated" and p["label"] == "estimated" for p in points.values())
    found = pareto(tmp_path)
    assert found["label"] == "estimated" and found["method"] == "exhaustive"
    assert [row["n"] for row in found["front"]] == list(range(1, len(found["front"]) + 1))
    assert [row["key"] for row in found["front"]] == front_by_hand(points)
    # what the model says of this kernel: unrolling by 4 at II 2 costs the DSPs of unrolling by 2
    # at II 1 for no fewer cycles, and II 2 without unrolling is slower for the same resources
    assert front_by_hand(points) == ["unroll-4,ii-1", "unroll-2,ii-1", "unroll-2,ii-2", "unroll-1,ii-1"]
    for row in found["front"]:
        assert (row["latency"], row["resources"]) == (
            points[row["key"]]["latency"],
            points[row["key"]]["resources"],
        )
    listed = json.loads((tmp_path / "build" / "tiny" / "explore" / "points.json").read_text())
    assert sorted(p["key"] for p in listed["points"]) == sorted(points)
    assert "estimated 6 design points in " in proc.stdout
    assert f"build folder {tmp_path / 'build'}" in proc.stdout
    table = (tmp_path / "build" / "tiny" / "explore" / "pareto.md").read_text()
    assert "| 1 | 4 | 1 | " in table and "(estimated)" in table


def test_a_rerun_evaluates_only_the_points_a_new_value_adds(tmp_path: Path) -> None:
    make_project(tmp_path, unroll=[1, 2], ii=[1, 2])
    first = explore(tmp_path, "-n", "2")
    assert first.returncode == 0, first.stdout + first.stderr
    assert sorted(evaluated(first)) == ["unroll-1,ii-1", "unroll-1,ii-2", "unroll-2,ii-1", "unroll-2,ii-2"]
    kept = {key: path.stat().st_mtime_ns for key, path in _point_paths(tmp_path).items()}
    again = explore(tmp_path, "-n", "2")
    assert evaluated(again) == [] and "4 of 4 points (every point), 0 evaluated now" in again.stdout
    assert again.stdout.startswith("up to date: 4 tasks checked in ")
    make_project(tmp_path, unroll=[1, 2, 4], ii=[1, 2])
    grown = explore(tmp_path, "-n", "2")
    assert grown.returncode == 0, grown.stdout + grown.stderr
    assert sorted(evaluated(grown)) == ["unroll-4,ii-1", "unroll-4,ii-2"]
    assert "6 of 6 points (every point), 2 evaluated now" in grown.stdout
    assert {
        key: path.stat().st_mtime_ns for key, path in _point_paths(tmp_path).items() if key in kept
    } == kept
    assert len(pareto(tmp_path)["front"]) == 4


def _point_paths(root: Path) -> dict[str, Path]:
    return {path.stem: path for path in (root / "build" / "tiny" / "explore" / "points").glob("*.json")}


@pytest.mark.slow
def test_a_seeded_search_repeats_itself_and_another_seed_differs(tmp_path: Path) -> None:
    # 5 x 4 = 20 points, 6 of them searched: NSGA-II, not enumeration
    space = {"unroll": [1, 2, 4, 8, 16], "ii": [1, 2, 3, 4]}
    runs = {}
    for name, seed in (("a", "7"), ("b", "7"), ("c", "8")):
        make_project(tmp_path / name, **space)
        proc = explore(tmp_path / name, "-n", "2", "--budget", "6", "--seed", seed)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        listed = json.loads((tmp_path / name / "build" / "tiny" / "explore" / "points.json").read_text())
        assert (listed["method"], listed["seed"], listed["space_size"]) == ("nsga2", int(seed), 20)
        runs[name] = [point["key"] for point in listed["points"]]
        assert len(runs[name]) == 6 == len(set(runs[name]))
    assert runs["a"] == runs["b"]
    assert runs["a"] != runs["c"]


@pytest.mark.parametrize("fault", ["crash", "interrupt"])
def test_an_interrupted_run_keeps_the_points_that_finished(tmp_path: Path, fault: str) -> None:
    make_project(tmp_path, unroll=[1, 2, 4], ii=[1, 2])
    # one point at a time, in the space's order: the fault comes at the fourth point
    proc = explore(tmp_path, "-n", "1", env={"TINY_FAULT": fault, "TINY_FAULT_AT": "2,2"})
    done = ["unroll-1,ii-1", "unroll-1,ii-2", "unroll-2,ii-1"]
    if fault == "crash":
        # the others go on; the point that died has no result (a crash is no lasting outcome of its
        # knobs), so the exploration is one line naming it and writes no front
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert sorted(point_files(tmp_path)) == [*done, "unroll-4,ii-1", "unroll-4,ii-2"]
        assert "tiny@unroll-2,ii-2: the point's task wrote no result" in proc.stderr
    else:
        assert proc.returncode == 130, proc.stdout + proc.stderr
        assert proc.stderr == "hclbuild: interrupted\n"
        assert sorted(point_files(tmp_path)) == done
    assert not (tmp_path / "build" / "tiny" / "explore" / "pareto.json").exists()
    rerun = explore(tmp_path, "-n", "1")
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    left = ["unroll-2,ii-2"] if fault == "crash" else ["unroll-2,ii-2", "unroll-4,ii-1", "unroll-4,ii-2"]
    assert evaluated(rerun) == left
    assert len(point_files(tmp_path)) == 6


def test_a_value_the_schedule_rejects_is_one_line_naming_its_point(tmp_path: Path) -> None:
    make_project(tmp_path, unroll=[1], ii=[1, 0])  # pipeline(II=0): the schedule raises
    proc = explore(tmp_path)
    assert proc.returncode == 1
    kernel = tmp_path / "tiny" / "kernel.py"
    line = KERNEL.splitlines().index("        s[kernel.B].pipeline(i, knobs.ii)") + 1
    assert proc.stderr.splitlines() == [
        f"hclbuild: error: tiny@unroll-1,ii-0: {kernel}:{line}: schedule() failed: APIError: "
        "pipeline: initiation_interval must be an int >= 1, got 0"
    ]
    assert "tiny: 2 of 2 points (every point), 2 evaluated now, 1 estimated, 1 failed" in proc.stdout
    assert [point["status"] for point in point_files(tmp_path).values()].count("estimated") == 1


def test_apply_then_build_gives_the_chosen_points_estimate(tmp_path: Path) -> None:
    folder = make_project(tmp_path, unroll=[1, 2, 4], ii=[1, 2])
    assert explore(tmp_path, "-n", "2").returncode == 0
    chosen = pareto(tmp_path)["front"][2]
    assert chosen["n"] == 3
    proc = explore(tmp_path, "--apply", "3")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (
        proc.stdout
        == f"{folder / 'project.toml'}: [knobs] {chosen['key']} (point 3 of the Pareto front, estimated)\n"
    )
    knobs = "".join(f"{name} = {value}\n" for name, value in chosen["knobs"].items())
    assert (folder / "project.toml").read_text().endswith(f"\n[knobs]\n{knobs}")
    built = hclbuild(tmp_path, "build", "tiny", "--build-dir", "build")
    assert built.returncode == 0, built.stdout + built.stderr
    estimate = json.loads((tmp_path / "build" / "tiny" / "estimate" / "top.json").read_text())
    assert (estimate["latency_max"], estimate["interval"], estimate["resources"]) == (
        chosen["latency"],
        chosen["interval"],
        chosen["resources"],
    )


@pytest.mark.slow
def test_dask_workers_give_the_points_of_a_local_run(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="the optional extra hclbuild[distributed] is not installed")
    from dask_helpers import WorkerSpec, start_local_dask

    local, remote = tmp_path / "local", tmp_path / "remote"
    for root in (local, remote):
        make_project(root, unroll=[1, 2, 4], ii=[1, 2])
    assert explore(local, "-n", "2").returncode == 0
    cluster = start_local_dask(tmp_path / "dask", [WorkerSpec("a"), WorkerSpec("b")])
    try:
        proc = explore(remote, "--scheduler", cluster.address)
        submitted = cluster.submitted()
    finally:
        cluster.stop()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "6 of 6 points (every point), 6 evaluated now" in proc.stdout
    assert submitted == 6  # each point a job of the workers', none estimated here

    def without_digest(points: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        # the digest hashes kernel.py's path, which differs between the two folders
        return {key: {k: v for k, v in point.items() if k != "digest"} for key, point in points.items()}

    assert without_digest(point_files(remote)) == without_digest(point_files(local))
    assert pareto(remote)["front"] == pareto(local)["front"]


def _project_points(root: Path, name: str) -> dict[str, dict[str, Any]]:
    proc = hclbuild(root, "explore", str(REPO / "projects" / name), "--build-dir", "build", "-n", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return {
        path.stem: json.loads(path.read_text())
        for path in (root / "build" / name / "explore" / "points").glob("*.json")
    }


def _loop(point: dict[str, Any], function: str, label: str) -> dict[str, Any]:
    estimate = next(f for f in point["functions"] if f["function"] == function)
    return next(loop for loop in estimate["loops"] if loop["label"] == label)


def test_conv_relu_explores_its_buffers_and_ii(tmp_path: Path) -> None:
    points = _project_points(tmp_path, "conv_relu")
    assert len(points) == 9 and all(p["status"] == "estimated" for p in points.values())
    # the knobs reach the design: with its line and window buffers the x loop keeps II 1; reading
    # the image nine times an iteration, it is bound by the image's ports (no single dimension of
    # img separates the 3x3 window into banks of 2 reads, so hclbuild partitions nothing at II 1)
    window = _loop(points["reuse-window,ii-1"], "Stage_conv", "l_conv_x")
    assert (window["ii"], window["limited_by"]) == (1, "requested II=1")
    direct = _loop(points["reuse-none,ii-1"], "Stage_conv", "l_conv_y")
    assert (
        direct["ii"] == 5 and direct["limited_by"] == "memory port of img: 9 reads per iteration on 2 ports"
    )
    # at II 2 a row partition in 3 leaves 3 reads a bank, within 2 ports x 2 cycles
    assert _loop(points["reuse-none,ii-2"], "Stage_conv", "l_conv_y")["ii"] == 2


@pytest.mark.slow
def test_gemms_partition_knob_moves_the_ii(tmp_path: Path) -> None:
    points = _project_points(tmp_path, "gemm")
    assert len(points) == 64 and all(p["status"] == "estimated" for p in points.values())

    def ii(key: str) -> int:
        return _loop(points[key], "Stage_prod", "l_prod_i")["ii"]

    # 8 lanes read and write 8 elements of prod an iteration: 2 banks give II 4, 4 banks II 2, 8 II 1;
    # no partition lets hclbuild partition for the lanes (parallel_reads): II 1 as with 8
    assert [ii(f"unroll-8,partition-{p},ii-1") for p in (2, 4, 8, 1)] == [4, 2, 1, 1]


def _synthesized_copies(calls: list[dict[str, Any]]) -> list[str]:
    """The front copy (build/tiny/explore/front/build/<copy>/hls/top) of every csynth call."""
    return sorted(Path(call["cwd"]).parents[1].name for call in calls if "csynth" in call["argv"])


def test_csynth_confirms_only_the_front_beside_the_estimate_and_a_rerun_synthesizes_nothing(
    tmp_path: Path, fake_vitis: Any
) -> None:
    fake_vitis.install("vitis_hls")
    make_project(tmp_path, unroll=[1, 2, 4], ii=[1, 2])
    proc = explore(tmp_path, "-n", "2", "--csynth")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    front = pareto(tmp_path)["front"]
    keys = [row["key"] for row in front]
    assert keys == ["unroll-4,ii-1", "unroll-2,ii-1", "unroll-2,ii-2", "unroll-1,ii-1"]
    # one csynth a front point, of its own copy of the project; none of the two points off the front
    copies = sorted(f"tiny.{key.replace(',', '.')}" for key in keys)
    assert _synthesized_copies(fake_vitis.calls()) == copies
    points = point_files(tmp_path)
    for row in front:
        # the estimate stays the point's own; csynth's figures are the stand-in report's, labelled so
        assert (row["latency"], row["resources"]) == (
            points[row["key"]]["latency"],
            points[row["key"]]["resources"],
        )
        csynth = row["csynth"]
        assert (csynth["label"], csynth["status"], csynth["vitis_version"]) == (
            "Vitis HLS csynth",
            "synthesized",
            "2025.1",
        )
        assert (csynth["latency"], csynth["interval"]) == (1234, 1235)
        assert csynth["resources"] == {"BRAM_18K": 2, "DSP": 5, "FF": 300, "LUT": 500, "URAM": 0}
        copy = f"tiny.{row['key'].replace(',', '.')}"
        assert csynth["report"] == str(tmp_path / "build/tiny/explore/front/build" / copy / "csynth/top.xml")
        # the copy builds the point: [knobs] is the point's
        toml = (tmp_path / "build/tiny/explore/front" / copy / "project.toml").read_text()
        assert toml.endswith(
            f'[project]\nname = "{copy}"\n\n[knobs]\n'
            + "".join(f"{name} = {value}\n" for name, value in row["knobs"].items())
        )
    table = (tmp_path / "build" / "tiny" / "explore" / "pareto.md").read_text()
    assert "| n | unroll | ii | latency (cycles, est.) | interval (est.) | DSP (est.) |" in table
    assert "| latency (cycles, csynth) | interval (csynth) | DSP (csynth) | BRAM_18K (csynth) |" in table
    # point 1 (unroll 4, II 1): its estimate, then the report's figures
    estimate = points["unroll-4,ii-1"]
    assert (
        f"| 1 | 4 | 1 | {estimate['latency']} | {estimate['interval']} | {estimate['resources']['DSP']} | "
        f"{estimate['resources']['BRAM_18K']} | {estimate['resources']['FF']} | {estimate['resources']['LUT']} "
        "| 1234 | 1235 | 5 | 2 | 300 | 500 |"
    ) in table
    assert "csynth (Vitis HLS 2025.1): latency 1234, DSP 5, BRAM_18K 2, LUT 500" in proc.stdout
    # a rerun: no point, no copy and no csynth runs again, and the table is the same
    calls = len(fake_vitis.calls())
    again = explore(tmp_path, "-n", "2", "--csynth")
    assert again.returncode == 0, again.stdout + again.stderr
    assert len(fake_vitis.calls()) == calls
    assert "] csynth:" not in again.stdout and "] compile:" not in again.stdout
    assert (tmp_path / "build" / "tiny" / "explore" / "pareto.md").read_text() == table


def test_csynth_without_a_vitis_tool_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XILINX_HLS", raising=False)
    monkeypatch.delenv("XILINX_VITIS", raising=False)
    # PATH without any Vitis tool (this test's python stays reachable: it is run by path)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    make_project(tmp_path, unroll=[1, 2], ii=[1])
    proc = explore(tmp_path, "--csynth")
    assert proc.returncode == 1
    assert proc.stderr == (
        "hclbuild: error: explore --csynth: no Vitis HLS tool (vitis_hls, vitis-run or v++) on PATH or "
        "under $XILINX_HLS/$XILINX_VITIS (or Dask workers with one: --scheduler)\n"
    )
    assert proc.stdout == "" and not (tmp_path / "build" / "tiny" / "explore").exists()


def test_a_failed_csynth_is_that_points_status_never_a_figure(tmp_path: Path, fake_vitis: Any) -> None:
    fake_vitis.install("vitis_hls", fail_with=3)
    make_project(tmp_path, unroll=[1, 2], ii=[1])
    proc = explore(tmp_path, "--csynth")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    front = pareto(tmp_path)["front"]
    assert [row["csynth"]["status"] for row in front] == ["failed"] * len(front)
    assert all("latency" not in row["csynth"] and "exit" in row["csynth"]["problem"] for row in front)
    table = (tmp_path / "build" / "tiny" / "explore" / "pareto.md").read_text()
    assert "| failed | - | - | - | - | - |" in table and "## Points without a csynth report" in table


def test_csim_of_the_front_builds_each_point_and_passes(tmp_path: Path) -> None:
    make_project(tmp_path, unroll=[1, 2], ii=[1])
    proc = explore(tmp_path, "--csim")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    front = pareto(tmp_path)["front"]
    assert [(row["key"], row["csim"]) for row in front] == [
        ("unroll-2,ii-1", "pass"),
        ("unroll-1,ii-1", "pass"),
    ]
    assert "csynth" not in front[0]
    for row in front:
        copy = tmp_path / "build/tiny/explore/front/build" / f"tiny.{row['key'].replace(',', '.')}"
        assert json.loads((copy / "csim" / "top.json").read_text())["pass"] is True
    table = (tmp_path / "build" / "tiny" / "explore" / "pareto.md").read_text()
    assert "| LUT (est.) | csim |" in table and "(csynth)" not in table


@pytest.mark.slow
def test_csynth_of_the_front_runs_on_the_dask_worker_with_vitis(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="the optional extra hclbuild[distributed] is not installed")
    from dask_helpers import WorkerSpec, start_local_dask

    from hclbuild.runtime.vitis import find_vitis

    if find_vitis() is not None:
        pytest.skip("a Vitis tool is installed here: this test shows the worker's stand-in runs")
    make_project(tmp_path, unroll=[1, 2], ii=[1])
    workers = [WorkerSpec("plain"), WorkerSpec("vitis", resources="vitis_hls=1", fake_tools=("vitis_hls",))]
    cluster = start_local_dask(tmp_path / "dask", workers)
    try:
        # no Vitis tool here: the workers' one counts
        proc = explore(tmp_path, "--csynth", "--scheduler", cluster.address)
        calls = cluster.fake_vitis_calls()
    finally:
        cluster.stop()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    front = pareto(tmp_path)["front"]
    assert [row["csynth"]["latency"] for row in front] == [1234, 1234]
    # each front point's top synthesized once, in the Vitis worker's job folder
    assert sorted(Path(call["cwd"]).name for call in calls) == ["top", "top"]
    assert all("hclbuild-job-" in call["cwd"] for call in calls)
    for row in front:
        copy = tmp_path / "build/tiny/explore/front/build" / f"tiny.{row['key'].replace(',', '.')}"
        record = json.loads((copy / "hls" / "top" / "remote_csynth.json").read_text())
        assert record["worker"] == cluster.addresses["vitis"]
