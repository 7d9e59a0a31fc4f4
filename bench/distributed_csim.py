"""csim of the 100-stage chain: one local process vs two Dask workers on this machine.

The chain is built once (compile, reference, emit); then only its 101 csim tasks run, three ways,
each from no csim result: `hclbuild csim -n 1` (one local process), `hclbuild csim -n 2` (two local
processes) and `hclbuild csim --scheduler` with a LocalCluster of two worker processes (one thread
each) started beforehand, so its start-up is not counted. The workers and the submitting process
share this machine's cores, so the ratio shows the cost of shipping each job (its HLS folder out,
its out/ files back) against the parallelism gained.

    python bench/distributed_csim.py     # prints the rows; bench/run_all.py puts them in BENCHMARKS.md
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import load_average, run
from compile_scaling import chain_kernel

STAGES = 100


def _csim(build: Path, project: Path, *options: str) -> float:
    """Wall seconds of `hclbuild csim` with every csim result removed first (only csim tasks run), and
    every function's out/ and the build's compiled objects and precompiled headers (build/.csim/)
    too: each way compiles and runs everything, none reuses the objects or the passing runs of the
    way before it."""
    shutil.rmtree(build / "chain" / "csim", ignore_errors=True)
    shutil.rmtree(build / ".csim", ignore_errors=True)
    for out in (build / "chain" / "hls").glob("*/out"):
        shutil.rmtree(out)
    timed = run(
        [sys.executable, "-m", "hclbuild.cli", "csim", str(project), "--build-dir", str(build), *options],
        project.parent,
    )
    results = [json.loads(path.read_text()) for path in (build / "chain" / "csim").glob("*.json")]
    if len(results) != STAGES + 1 or not all(result["pass"] for result in results):
        raise RuntimeError(f"csim of the chain: {len(results)} results, expected {STAGES + 1} passing ones")
    return timed.wall


def distributed_csim(work: Path) -> dict:
    """Seconds of the three csim runs, and how many jobs each Dask worker ran."""
    from distributed import LocalCluster

    work = work.resolve()
    result: dict = {"load_before": load_average()}
    project = work / "chain"
    project.mkdir(parents=True, exist_ok=True)
    (project / "kernel.py").write_text(chain_kernel(STAGES))
    build = work / "build"
    run([sys.executable, "-m", "hclbuild.cli", "build", str(project), "--build-dir", str(build)], work)
    result["local_1"] = _csim(build, project, "-n", "1")
    result["local_2"] = _csim(build, project, "-n", "2")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        result["dask_2"] = _csim(build, project, "--scheduler", cluster.scheduler_address)
    workers: dict[str, int] = {}
    for path in (build / "chain" / "csim").glob("*.json"):
        worker = json.loads(path.read_text())["worker"]
        workers[worker] = workers.get(worker, 0) + 1
    result["jobs_per_worker"] = sorted(workers.values())
    result["load_after"] = load_average()
    return result


def distributed_rows(result: dict) -> list[str]:
    """The BENCHMARKS.md section."""
    one = result["local_1"]
    return [
        "## csim on Dask workers",
        "",
        f"The {STAGES}-stage chain built once, then only its {STAGES + 1} csim tasks (g++ and the testbench "
        "per function), each way from no csim result and no compiled object. The two Dask workers are processes of a LocalCluster "
        f"(one thread each) on this same {os.cpu_count()}-core machine, started before the timing; every job "
        "ships its HLS folder to a worker and its out/ files back.",
        "",
        "| csim of the chain | seconds | vs one local process |",
        "|---|---|---|",
        f"| one local process (`-n 1`) | {one:.1f} | 1.00 |",
        f"| two local processes (`-n 2`) | {result['local_2']:.1f} | {result['local_2'] / one:.2f} |",
        f"| two Dask workers (`--scheduler`) | {result['dask_2']:.1f} | **{result['dask_2'] / one:.2f}** |",
        "",
        f"Jobs per worker: {' and '.join(map(str, result['jobs_per_worker']))}. Measured once (load average "
        f"{result['load_before']} before and {result['load_after']} after): the workers and the submitting "
        f"process share the same {os.cpu_count()} cores, so take the ratio as this machine's, not a cluster's.",
        "",
    ]


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory(prefix="hclbuild-bench-") as scratch:
        print("\n".join(distributed_rows(distributed_csim(Path(scratch)))))
