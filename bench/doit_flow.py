"""The doit flow: incremental vs full csim, no-op runs vs `import doit`, csim per function, -n 2 vs -n 1."""

from __future__ import annotations

import json
import random
import re
import shutil
import sys
from pathlib import Path

from common import REPO, doit, make_tree, median, ran_tasks, run
from compile_scaling import chain_kernel

# doit alone: one task that has a file dependency and is up to date after its first run
BARE_DODO = """def task_bare():
    return {"actions": None, "file_dep": ["dodo.py"], "uptodate": [True]}
"""

AP_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](?:ap_\w+|hls_\w+)\.h[>"]', re.MULTILINE)


def incremental(root: Path, project: str, kernel: Path, changes: dict[str, tuple[str, str]]) -> dict:
    """Full `doit csim` from clean, then each schedule change in turn, each followed by `doit csim`."""
    full = doit(root, "csim")
    result: dict = {
        "full": full.wall,
        "full_cpu": full.cpu,
        "changes": {},
        "functions": len(list((root / "build" / project / "hls").iterdir())),
    }
    for kind, (old, new) in changes.items():
        text = kernel.read_text()
        if old not in text:
            raise RuntimeError(f"{kernel}: cannot apply the benchmark's {kind} change ({old!r} not found)")
        kernel.write_text(text.replace(old, new, 1))
        changed = doit(root, "csim")
        result["changes"][kind] = {"wall": changed.wall, "cpu": changed.cpu, "ran": ran_tasks(changed.stdout)}
    return result


def chain_incremental(work: Path, stages: int = 100) -> dict:
    """The 100-stage chain: change stage S50's pipeline II, then split its outer loop (its values stay,
    so only it and top rerun)."""
    root = make_tree(work.resolve() / "chain_flow", {"chain": chain_kernel(stages)})
    result = incremental(
        root,
        "chain",
        root / "projects" / "chain" / "kernel.py",
        {"pipeline II": ("II = {}", "II = {50: 2}"), "loop split": ("SPLIT = {}", "SPLIT = {50: 4}")},
    )
    # -n 2 over -n 1 on the same clean build
    shutil.rmtree(root / "build")
    result["parallel"] = doit(root, "-n", "2", "csim").wall
    return result


def resnet_incremental(work: Path) -> dict | None:
    """ResNet-20 (when the project exists): change one conv's pipeline II."""
    source = REPO / "projects" / "resnet20"
    if not (source / "kernel.py").is_file():
        return None
    work = work.resolve()
    copy = work / "resnet_src" / "resnet20"  # a project is named by its folder (the link's target)
    shutil.copytree(source, copy)
    root = make_tree(work / "resnet_flow", {"resnet20": copy})
    schedule_loop = "        stage = getattr(resnet20, layer.name)\n"
    changes = {
        "pipeline II": (
            "s[stage].pipeline(stage.axis[3])\n",
            "s[stage].pipeline(stage.axis[3], initiation_interval=2 if layer.name == 's2b2_a' else 1)\n",
        ),
        "loop split": (
            schedule_loop,
            schedule_loop + "        if layer.name == 's2b2_a':\n"
            "            s[stage].split(stage.axis[0], 4)\n",
        ),
    }
    return incremental(root, "resnet20", copy / "kernel.py", changes)


def suite_flow(work: Path, pairs: int = 31) -> dict:
    """Every project of projects/: a fresh build, then csim, then no-op build and csim vs a bare `import doit`."""
    projects = {p.name: p for p in sorted((REPO / "projects").iterdir()) if (p / "kernel.py").is_file()}
    root = make_tree(work.resolve() / "suite_flow", projects)
    built = doit(root, "--continue", "build", check=False)  # the README's main job, from nothing
    full = doit(root, "--continue", "csim", check=False)
    failed = [
        line for line in built.stdout.splitlines() + full.stdout.splitlines() if "failed" in line.lower()
    ][:5]
    # doit's own start: a dodo.py of one task that is always up to date, in the same environment
    bare = work.resolve() / "bare_doit"
    bare.mkdir(parents=True, exist_ok=True)
    (bare / "dodo.py").write_text(BARE_DODO, encoding="utf-8")
    doit(bare, "run")
    commands = {
        "import": lambda: run([sys.executable, "-c", "import doit"], root),
        "bare": lambda: doit(bare, "run"),
        "build": lambda: doit(root, "build"),
        "csim": lambda: doit(root, "csim", check=False),
    }
    noop: dict[str, list[float]] = {kind: [] for kind in commands}
    order = random.Random(0)
    for _ in range(pairs):  # paired: each no-op next to an `import doit` of the same minute
        # in a shuffled order each round: run last, csim had been slower by the position alone
        for kind in order.sample(list(commands), len(commands)):
            noop[kind].append(commands[kind]().wall)
    ratios = {
        kind: median([b / a for a, b in zip(noop["import"], noop[kind])])
        for kind in ("bare", "build", "csim")
    }
    # hclbuild's share: each no-op less doit's own start of the same round (a difference of two
    # medians mixes rounds of different machine speed)
    shares = {kind: median([b - a for a, b in zip(noop["bare"], noop[kind])]) for kind in ("build", "csim")}
    csim_seconds: dict[bool, list[float]] = {True: [], False: []}
    for csim_json in sorted((root / "build").glob("*/csim/*.json")):
        record = json.loads(csim_json.read_text())
        func = csim_json.stem
        hls = csim_json.parent.parent / "hls" / func
        sources = [
            p.read_text(errors="replace") for p in (hls / f"{func}.cpp", hls / f"{func}.h") if p.is_file()
        ]
        uses_ap = any(AP_INCLUDE.search(text) for text in sources)
        csim_seconds[uses_ap].append(
            float(record.get("compile_seconds", 0)) + float(record.get("run_seconds", 0))
        )
    return {
        "projects": len(projects),
        "pairs": pairs,
        "build_full": built.wall,
        "full": full.wall,
        "failed": failed,
        "import": median(noop["import"]),
        "bare": median(noop["bare"]),
        "build": median(noop["build"]),
        "csim": median(noop["csim"]),
        "ratio_bare": ratios["bare"],
        "ratio_build": ratios["build"],
        "ratio_csim": ratios["csim"],
        "share_build": shares["build"],
        "share_csim": shares["csim"],
        "csim_ap": csim_seconds[True],
        "csim_plain": csim_seconds[False],
    }
