"""csim at the speed of the compiler: the harness split and the object cache against the old testbench.

Measured side by side in one run, each with the machine's load average beside it:

- per function: `run_csim` of one function from no result of its own (the build's harness object and
  precompiled headers present, as for every function after the first), over `g++ -c` of the same
  function's .cpp alone with the flags `make csim` uses; the median over the suite's functions;
- `doit csim` over every project of projects/ from no csim result and an empty object cache (the
  builds done), this checkout against the old path: the commit BASELINE of hclbuild (one whole
  testbench per function, objects per folder), unpacked with `git archive` and imported instead;
- the same for the 100-stage chain (compile_scaling.chain_kernel);
- -O0 against -O1: the suite's csim (compile + run, every function in turn from an empty cache)
  with every function at -O0, at -O1, and at the level its estimated work chooses
  (runtime.csim.optimization_level).

    python bench/csim_speed.py      # prints the rows; `bench/run_all.py csim` writes them to BENCHMARKS.md
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, doit, load_average, make_tree
from compile_scaling import chain_kernel

# main just before the harness split landed (issue 30): tb_<func>.cpp held the whole testbench, each
# folder its objects
BASELINE = "88c8fa1"
ROUNDS = 1  # old/new pairs of a whole csim; on a shared machine the pairs alternate, CPU seconds beside


def baseline_code(work: Path, commit: str = BASELINE) -> Path:
    """hclbuild as it was at `commit`, unpacked below work (import it with PYTHONPATH)."""
    folder = work / f"hclbuild-{commit}"
    if not (folder / "hclbuild").is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", commit, "hclbuild"], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def _clear_csim(build: Path) -> None:
    """No csim result, no testbench output, no compiled object or precompiled header (old or new)."""
    for path in [*build.glob("*/csim"), *build.glob("*/hls/*/out"), build / ".csim", build / ".pch"]:
        shutil.rmtree(path, ignore_errors=True)


def _results(build: Path) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(build.glob("*/csim/*.json"))]


def _paired_csim(trees: dict[str, tuple[Path, Path]], rounds: int = ROUNDS) -> dict:
    """`doit csim` in each tree (name -> (tree, hclbuild code)) from no csim state, the names
    alternating round by round; seconds per name and the load averages seen."""
    seconds: dict[str, list[float]] = {name: [] for name in trees}
    cpu: dict[str, list[float]] = {name: [] for name in trees}
    loads = [load_average()]
    for _ in range(rounds):
        for name, (tree, code) in trees.items():
            _clear_csim(tree / "build")
            timed = doit(tree, "--continue", "csim", check=False, code=code)
            results = _results(tree / "build")
            failed = [f"{r['project']}/{r['func']}" for r in results if not r["pass"]]
            if failed or not results:
                raise RuntimeError(
                    f"{name}: csim failed for {failed or 'every function'}:\n{timed.stdout[-2000:]}"
                )
            seconds[name].append(timed.wall)
            cpu[name].append(timed.cpu)
            loads.append(load_average())
    return {"seconds": seconds, "cpu": cpu, "functions": len(results), "loads": loads}


def _trees(work: Path, projects: dict[str, str | Path], old_code: Path) -> dict[str, tuple[Path, Path]]:
    """A doit tree per way, each built (not timed) by its own hclbuild."""
    trees = {"old": (work / "old", old_code), "new": (work / "new", REPO)}
    for tree, code in trees.values():
        make_tree(tree, projects)
        doit(tree, "--continue", "build", check=False, code=code)
    return trees


def suite_projects() -> dict[str, Path]:
    return {p.name: p for p in sorted((REPO / "projects").iterdir()) if (p / "kernel.py").is_file()}


def _copied_build(trees: dict[str, tuple[Path, Path]], folder: Path) -> Path:
    """A copy of the new tree's build folder (its own to clear), for the per-function figures."""
    shutil.copytree(trees["new"][0] / "build", folder, symlinks=True)
    return folder


def _make_flags(folder: Path, func: str) -> list[str]:
    """The flags `make csim` compiles the design file with (its Makefile's, ap_types included)."""
    from hclbuild.runtime.aptypes import ap_types_include_dir
    from hclbuild.runtime.csim import AP_GXX_FLAGS, GXX_FLAGS, needs_ap_include

    texts = [(folder / name).read_text() for name in (f"{func}.cpp", f"{func}.h")]
    ap = ["-isystem", str(ap_types_include_dir()), *AP_GXX_FLAGS] if needs_ap_include(*texts) else []
    return [*GXX_FLAGS, "-I.", *ap]


def _linked_cache(source: Path, target: Path) -> None:
    """A build cache holding only what every function of a build shares: the harness object and the
    precompiled headers (hard links to source's)."""
    for path in source.rglob("*"):
        relative = path.relative_to(source)
        shared = relative.parts[0] == "pch" or relative.name.startswith("hclbuild_tb-")
        if path.is_file() and shared:
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            os.link(path, target / relative)


def per_function(build: Path, attempts: int = 1) -> dict:
    """Per function: run_csim from no result of its own over `g++ -c` of its .cpp; min of `attempts`."""
    from hclbuild.runtime.csim import run_csim

    rows = []
    loads = [load_average()]
    with tempfile.TemporaryDirectory(dir=build) as tmp:
        for manifest in sorted(build.glob("*/ir/manifest.json")):
            ir = json.loads(manifest.read_text())
            project = manifest.parent.parent.name
            for func in ir["functions"]:
                folder = build / project / "hls" / func
                gxx, csim = [], []
                for attempt in range(attempts):
                    started = time.perf_counter()
                    subprocess.run(
                        ["g++", *_make_flags(folder, func), "-c", f"{func}.cpp", "-o", f"{tmp}/alone.o"],
                        cwd=folder,
                        check=True,
                    )
                    gxx.append(time.perf_counter() - started)
                    cache = Path(tmp) / f"{project}-{func}-{attempt}"
                    _linked_cache(build / ".csim", cache)
                    shutil.rmtree(folder / "out", ignore_errors=True)
                    started = time.perf_counter()
                    result = run_csim(
                        folder,
                        Path(tmp) / "result.json",
                        project=project,
                        cache_root=cache,
                        work=ir.get("work"),
                    )
                    csim.append(time.perf_counter() - started)
                    if not result.passed:
                        raise RuntimeError(result.summary)
                    shutil.rmtree(cache)
                rows.append({"function": f"{project}/{func}", "gxx": min(gxx), "csim": min(csim)})
    loads.append(load_average())
    ratios = [row["csim"] / row["gxx"] for row in rows]
    return {"rows": rows, "median_ratio": statistics.median(ratios), "loads": loads}


def levels(build: Path) -> dict:
    """The suite's csim, every function in turn from an empty cache, at -O0, at -O1, and as chosen."""
    from hclbuild.runtime.csim import run_csim

    modes: dict[str, dict[str, float]] = {}
    loads = [load_average()]
    manifests = [
        (m.parent.parent.name, json.loads(m.read_text())) for m in sorted(build.glob("*/ir/manifest.json"))
    ]
    for mode in ("-O0", "-O1", "chosen"):
        totals = {"compile": 0.0, "run": 0.0, "wall": 0.0}
        with tempfile.TemporaryDirectory(dir=build) as cache:
            for project, ir in manifests:
                work = ir.get("work") or {}
                if mode == "-O0":
                    work = dict.fromkeys(work, 0.0)
                elif mode == "-O1":
                    work = None
                for func in ir["functions"]:
                    folder = build / project / "hls" / func
                    shutil.rmtree(folder / "out", ignore_errors=True)
                    started = time.perf_counter()
                    result = run_csim(
                        folder, Path(cache) / "r.json", project=project, cache_root=cache, work=work
                    )
                    totals["wall"] += time.perf_counter() - started
                    totals["compile"] += result.compile_seconds
                    totals["run"] += result.run_seconds
                    if not result.passed:
                        raise RuntimeError(result.summary)
        modes[mode] = totals
        loads.append(load_average())
    return {"modes": modes, "loads": loads}


def csim_speed(work: Path, baseline: str = BASELINE, stages: int = 100) -> dict:
    """Every figure of the section, in one run: the trees built first (not timed), then the four
    measurements side by side, each in a tree of its own (the machine is shared anyway: every
    figure carries the load averages it saw, and the old/new pairs alternate within a measurement)."""
    work = work.resolve()
    old_code = baseline_code(work, baseline)
    print("csim: building the trees", flush=True)
    suite = _trees(work / "suite", suite_projects(), old_code)
    chain = _trees(work / "chain", {"chain": chain_kernel(stages)}, old_code)
    per_build = _copied_build(suite, work / "per_function" / "build")
    level_build = _copied_build(suite, work / "levels" / "build")
    print("csim: measuring the suite, the chain, per function, the levels", flush=True)
    with ThreadPoolExecutor(max_workers=4) as pool:
        jobs = {
            "suite": pool.submit(_paired_csim, suite),
            "chain": pool.submit(_paired_csim, chain),
            "per_function": pool.submit(per_function, per_build),
            "levels": pool.submit(levels, level_build),
        }
        out: dict = {"baseline": baseline, **{name: job.result() for name, job in jobs.items()}}
    out["suite"]["projects"] = len(suite_projects())
    return out


def _pair_row(what: str, figures: dict) -> str:
    old, new = (statistics.median(figures["seconds"][name]) for name in ("old", "new"))
    old_cpu, new_cpu = (statistics.median(figures["cpu"][name]) for name in ("old", "new"))
    return (
        f"| {what} | {figures['functions']} | {old:.1f} | {new:.1f} | **{new / old:.2f}** | "
        f"{old_cpu:.1f} | {new_cpu:.1f} | **{new_cpu / old_cpu:.2f}** | {' -> '.join(figures['loads'])} |"
    )


def csim_rows(figures: dict) -> list[str]:
    """The BENCHMARKS.md section."""
    per = figures["per_function"]
    ratios = sorted(row["csim"] / row["gxx"] for row in per["rows"])
    slowest = sorted(per["rows"], key=lambda row: row["csim"] / row["gxx"])[-3:]
    modes = figures["levels"]["modes"]
    base = figures["baseline"]
    return [
        "## csim: the harness, the object cache, the -O level",
        "",
        "The testbench is a fixed harness (hclbuild_tb.cpp: reading data/, comparing, the JSON line), "
        "compiled once per compiler and flags for the whole build, plus each function's small "
        "tb_<func>.cpp (its argument table and the call); objects are cached by content in build/.csim/, "
        "one per function definition, so a top links its outlined functions' objects. The old path is "
        f"hclbuild at commit {base} (one whole testbench per function, objects per folder), imported "
        "from a `git archive` of that commit in the same run. Both from no csim result and no compiled "
        f"object or precompiled header, builds done; `doit csim` (one task at a time), {ROUNDS} "
        f"round{'s' if ROUNDS != 1 else ''} of old then new; wall seconds, and the CPU seconds of doit "
        "and everything it ran (g++, the testbenches), which a shared machine's load moves much less; "
        "the load average (1 min / 5 / 15) before, and after each run. The four measurements of this "
        "section (the two below, the per-function figures and the -O levels) ran at the same time, "
        "each in a tree of its own.",
        "",
        "| csim of | functions | old (s) | new (s) | new / old | old CPU (s) | new CPU (s) | new / old CPU "
        "| load average |",
        "|---|---|---|---|---|---|---|---|---|",
        _pair_row(f"every project of projects/ ({figures['suite']['projects']})", figures["suite"]),
        _pair_row("the 100-stage chain", figures["chain"]),
        "",
        "One function's csim (`run_csim`: compile what its cache lacks, link, run, from no result of its "
        "own, the build's harness object and precompiled headers present) over `g++ -c` of its .cpp alone "
        "with the flags `make csim` uses, once each, over the suite's "
        f"{len(ratios)} functions: median **{per['median_ratio']:.2f}** (quartiles "
        f"{ratios[len(ratios) // 4]:.2f} / {ratios[3 * len(ratios) // 4]:.2f}; load "
        f"{' -> '.join(per['loads'])}). Highest: "
        + ", ".join(
            f"{row['function']} {row['csim']:.2f} s / {row['gxx']:.2f} s" for row in reversed(slowest)
        )
        + ".",
        "",
        "-O level of the design and testbench objects (the harness is -O1 always): the suite's csim, "
        "every function in turn from an empty cache; seconds summed over the functions "
        f"(load {' -> '.join(figures['levels']['loads'])}).",
        "",
        "| level | compile (s) | run (s) | csim wall (s) |",
        "|---|---|---|---|",
        *[
            f"| {'by estimated work' if mode == 'chosen' else 'all ' + mode} | {t['compile']:.1f} | "
            f"{t['run']:.1f} | {t['wall']:.1f} |"
            for mode, t in modes.items()
        ],
        "",
    ]


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-csim-", dir=REPO / "build") as tmp:
        print("\n".join(csim_rows(csim_speed(Path(tmp), *(sys.argv[1:2] or [BASELINE])))))
