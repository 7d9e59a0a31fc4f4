"""Benchmarks: ratios measured side by side in one run, written to BENCHMARKS.md.

    python bench/run_all.py                 # everything (about half an hour on 2 busy cores)
    python bench/run_all.py compile noop    # only some sections (still rewrites BENCHMARKS.md)

Sections: compile (scaling of `hclbuild build` with N outlined stages), incremental (one changed
stage of the 100-stage chain and of resnet20, `doit -n 2` vs `-n 1`), noop (no-op `doit build`
and `doit csim` over every project vs a bare `import doit`, csim seconds per function with and
without ap_types), csim (the harness split and object cache against the old testbench, one
function's csim against g++ -c of its .cpp, -O0 vs -O1), reference (the LLVM reference vs numpy at
MEDIUM sizes), distributed (csim of the chain on one local process vs two Dask workers), cluster (a
simulated 1,000-function csynth on 1-256 workers, bench/cluster_sim.py), calibration
(the QoR estimate against the real Vitis reports of calibration/, bench/calibration.py), estimate
(what the estimate tasks add to a clean `doit build` of projects/, bench/estimate_share.py), explore
(gemm's 64-point sweep cold, rerun and with one value added, bench/explore_speed.py; the seeded
search on 125 and 10,000 points against enumeration, bench/explore_search_large.py). Naming
sections reruns only those: the other
sections of BENCHMARKS.md are kept, and the header says which. Every figure is a
median of repeated runs in this one session; compare the ratios, not the seconds.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, SINGLE_THREAD, load_average, machine
from sections import merge_sections, sections_of

os.environ.update(SINGLE_THREAD)  # before numpy is imported (reference section)
sys.path.insert(0, str(REPO))

SECTIONS = (
    "compile",
    "incremental",
    "noop",
    "csim",
    "reference",
    "distributed",
    "cluster",
    "calibration",
    "estimate",
    "explore",
)

# why a kernel's reference is slower than numpy: filled in from reading the kernels and their IR
SLOWER_BECAUSE = {
    "gemm": "numpy's A @ B is OpenBLAS (blocked, packed, FMA); the reference runs the schedule's "
    "i-k-j loops, which LLVM vectorises but does not block for the cache",
    "two_mm": "two matrix products: numpy calls BLAS, the reference runs the scheduled loops",
    "two_mm_range": "as two_mm",
    "three_mm": "three matrix products: numpy calls BLAS",
    "syrk": "numpy's A @ A.T is BLAS; the reference's reduction loop is innermost (a serial "
    "float chain LLVM may not reorder)",
    "atax": "numpy's two matrix-vector products are BLAS gemv",
    "bicg": "numpy's two matrix-vector products are BLAS gemv",
    "mvt": "numpy's two matrix-vector products are BLAS gemv",
    "gesummv": "numpy's two matrix-vector products are BLAS gemv",
    "stream_pipeline": "every write and read of its two 720x1280 streams (about 3.7 M) is recorded for the FIFO-order "
    "check and the sequence the testbench replays: four stores in native code each, then numpy "
    "(it was one Python call each, 150x numpy)",
    "conv_relu": "numpy adds 9 shifted whole-image slices (vectorised); the reference runs the 3x3 window "
    "per pixel with its bounds checks",
    "resnet_block": "numpy's einsum contracts the channels with BLAS-like kernels; the reference runs the "
    "scheduled loop nest",
}


def _section_compile(work: Path) -> list[str]:
    from compile_scaling import compile_scaling, disk_rows, disk_share, scaling_rows

    print("compile scaling", flush=True)
    rows = [
        "## Compile scaling",
        "",
        "`hclbuild build` of a chain of N outlined stages (16x16 float, each pipelined, each differing "
        "by a constant): from kernel.py to every function's HLS folder written, a fresh build folder "
        "each run, median of 3 rounds over all N. `hclbuild build` runs one task per core (here "
        f"{os.cpu_count()}).",
        "",
        *scaling_rows(*compile_scaling(work / "compile")),
        "",
    ]
    print("compile: disk vs memory", flush=True)
    return rows + disk_rows(disk_share(work / "compile_disk")) + [""]


def _section_incremental(work: Path) -> list[str]:
    from doit_flow import chain_incremental, resnet_incremental

    print("incremental: chain", flush=True)
    chain = chain_incremental(work / "incremental")
    rows = [
        "## Incremental and parallel csim",
        "",
        "Full `doit csim` from a clean build folder; then one stage's pipeline II changed and `doit csim` "
        "again; then that stage's outer loop split as well and `doit csim` again. Neither change moves a "
        "value, so the golden data stay. The II is a `#pragma HLS` line, which g++ ignores: csim compiles "
        "nothing and takes the earlier passing run of the same executable on the same data "
        "(`\"run_reused\": true`). The split changes the C++ that g++ compiles: the stage's and the top's "
        "csim compile and run again.",
        "",
        "| design | functions | change | full csim (s) | after the change (s) | incremental / full | tasks rerun |",
        "|---|---|---|---|---|---|---|",
    ]

    def change_rows(name: str, result: dict) -> list[str]:
        return [
            f"| {name} | {result['functions']} | {kind} | {result['full']:.1f} | {changed['wall']:.1f} | "
            f"**{changed['wall'] / result['full']:.3f}** | {', '.join(changed['ran'])} |"
            for kind, changed in result["changes"].items()
        ]

    rows += change_rows("100-stage chain", chain)
    print("incremental: resnet20", flush=True)
    resnet = resnet_incremental(work / "incremental")
    if resnet is not None:
        rows += change_rows("resnet20", resnet)
    else:
        rows.append("| resnet20 | - | - | - | - | not measured: projects/resnet20 does not exist yet | |")
    rows += [
        "",
        f"`doit -n 2 csim` over `doit -n 1 csim`, clean, 100-stage chain: **{chain['parallel'] / chain['full']:.2f}** "
        f"({chain['parallel']:.1f} s vs {chain['full']:.1f} s; the machine has {os.cpu_count()} cores).",
        "",
    ]
    return rows


def _section_noop(work: Path) -> list[str]:
    from doit_flow import suite_flow

    print("no-op and csim over the suite", flush=True)
    s = suite_flow(work / "noop")
    rows = [
        "## No-op runs and csim over every project",
        "",
        f"All {s['projects']} projects of projects/: `doit build` from an empty build folder took "
        f"{s['build_full']:.1f} s, then `doit csim` {s['full']:.0f} s. Then {s['pairs']} paired "
        'runs: a bare `python -c "import doit"` next to each no-op; medians of the per-pair ratios.',
        "",
        "| run | median (ms) | vs `import doit` |",
        "|---|---|---|",
        f'| `python -c "import doit"` | {1e3 * s["import"]:.0f} | 1.00 |',
        f"| `doit` over a dodo.py of one up-to-date task | {1e3 * s['bare']:.0f} | {s['ratio_bare']:.2f} |",
        f"| no-op `doit build` | {1e3 * s['build']:.0f} | **{s['ratio_build']:.2f}** |",
        f"| no-op `doit csim` | {1e3 * s['csim']:.0f} | **{s['ratio_csim']:.2f}** |",
        "",
        "The second row is doit's own start in this environment (its command line, and its scans of "
        "every installed distribution's entry points for plugins, which grow with the extras installed); "
        "hclbuild's share of a no-op is the rest, the median over the rounds of each no-op less doit's "
        f"start in the same round: {1e3 * s['share_build']:.0f} ms of `doit build` and "
        f"{1e3 * s['share_csim']:.0f} ms of `doit csim` (its imports, the plans and tasks of "
        f"{s['projects']} projects, their status).",
        "",
    ]
    if s["failed"]:
        rows += [
            "Tasks that failed in that build or csim (so they rerun in every 'no-op' csim):",
            "",
            *[f"- `{line.strip()}`" for line in s["failed"]],
            "",
        ]
    ap, plain = s["csim_ap"], s["csim_plain"]
    if ap and plain:
        mean_ap, mean_plain = sum(ap) / len(ap), sum(plain) / len(plain)
        rows += [
            "csim seconds per function (g++ compile + run of the testbench), from that csim:",
            "",
            "| functions | count | mean seconds | vs plain C types |",
            "|---|---|---|---|",
            f"| plain C types only | {len(plain)} | {mean_plain:.2f} | 1.00 |",
            f"| with ap_types headers | {len(ap)} | {mean_ap:.2f} | **{mean_ap / mean_plain:.2f}** |",
            "",
        ]
    return rows


def _section_csim(work: Path) -> list[str]:
    from csim_speed import csim_rows, csim_speed

    figures = csim_speed(work / "csim")
    (REPO / "build" / "csim_speed.json").write_text(json.dumps(figures, indent=1))  # the raw figures
    return csim_rows(figures)


def _section_reference(work: Path) -> list[str]:
    from reference_speed import measure, reference_rows

    print("reference vs numpy", flush=True)
    results = []
    for folder in sorted((REPO / "projects").iterdir()):
        if (folder / "kernel.py").is_file():
            result = measure(folder, work / "reference")
            if result is not None:
                results.append(result)
                print(
                    f"  {result['project']}: {1e3 * result['reference']:.2f} ms vs numpy "
                    f"{1e3 * result['numpy']:.2f} ms",
                    flush=True,
                )
    return [
        "## LLVM reference vs numpy at MEDIUM sizes",
        "",
        "Every project with a `[sizes.MEDIUM]` table and a numpy model. The reference is the build's own: "
        "instrumented and bounds-checked llvm/units/ (one LLVM module per function), compiled one at a time (functions doing "
        "little work unoptimised, the others at O3), called with probes recording the first call of each "
        "function. numpy runs with one BLAS thread, like the reference (both medians of up to 5 runs).",
        "",
        *reference_rows(results, SLOWER_BECAUSE),
        "",
    ]


def _section_distributed(work: Path) -> list[str]:
    try:
        import distributed  # noqa: F401
        from distributed_csim import distributed_csim, distributed_rows
    except ImportError:
        return [
            "## csim on Dask workers",
            "",
            "Not measured: Dask's distributed is not installed (`pip install -e '.[distributed]'`).",
            "",
        ]
    print("csim on Dask workers", flush=True)
    return distributed_rows(distributed_csim(work / "distributed"))


def _section_cluster(work: Path) -> list[str]:
    from cluster_sim import cluster_section

    print("cluster makespan, simulated", flush=True)
    return cluster_section()


def _section_calibration(work: Path) -> list[str]:
    from calibration import calibration_section

    print("QoR estimate vs Vitis reports", flush=True)
    return calibration_section()


def _section_estimate(work: Path) -> list[str]:
    from estimate_share import estimate_rows, estimate_share

    print("estimate tasks' share of a build", flush=True)
    return estimate_rows(estimate_share(work / "estimate"))


def _section_explore(work: Path) -> list[str]:
    from explore_search_large import search_large_rows, search_quality_large
    from explore_speed import explore_rows, explore_speed, search_quality, search_rows

    print("design-space exploration of gemm", flush=True)
    speed = explore_rows(explore_speed(work / "explore"))
    print("the seeded search against enumeration", flush=True)
    quality = search_rows(search_quality(work / "explore"))
    print("--budget 50 on a 10,000-point space", flush=True)
    return speed + quality + search_large_rows(search_quality_large(work / "explore"))


def main(argv: list[str]) -> None:
    chosen = [s for s in argv if s in SECTIONS] or list(SECTIONS)
    unknown = [s for s in argv if s not in SECTIONS]
    if unknown:
        raise SystemExit(f"unknown sections {unknown}; choose from {SECTIONS}")
    info = machine()
    load_before = load_average()
    builds = REPO / "build"
    builds.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-", dir=builds) as tmp:
        work = Path(tmp)
        body: list[str] = []
        for section in SECTIONS:
            if section in chosen:
                body += globals()[f"_section_{section}"](work)
    load_after = load_average()
    command = " ".join(["python bench/run_all.py", *argv])
    sections = sections_of(body)
    kept: list[str] = []
    if len(chosen) < len(SECTIONS) and (REPO / "BENCHMARKS.md").is_file():
        sections, kept = merge_sections(sections, (REPO / "BENCHMARKS.md").read_text().splitlines())
    header = [
        "# Benchmarks",
        "",
        f"Written by `{command}` on {info['date']}, commit "
        f"{info['commit']}: {info['cpu']}, {info['cores']} cores, {info['memory']}, Python {info['python']}.",
        f"Load average {load_before} (1/5/15 min) at the start and {load_after} at the end (the benchmarks' "
        "own processes count, and on a shared machine other agents' builds and tests too). This VM's "
        "speed, its disk's above all, swings from one minute to the next, so seconds are noisy; each "
        "ratio is measured side by side in this one run. Subprocesses run with bytecode caching on "
        "(a user's default) and one BLAS thread.",
        "",
    ]
    if kept:
        header += ["Kept from earlier runs (not rerun this time): " + ", ".join(kept) + ".", ""]
    (REPO / "BENCHMARKS.md").write_text(
        "\n".join(header + [line for lines in sections.values() for line in lines]).rstrip("\n") + "\n"
    )
    print("wrote BENCHMARKS.md")


if __name__ == "__main__":
    main(sys.argv[1:])
