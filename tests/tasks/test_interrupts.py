"""Ctrl-C and SIGKILL in the middle of a build: one line, exit 130, no orphans, no empty folders,
and the rerun finishes the work so that build/ is the same as after a clean build."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from kernels import TIMES_THREE_MINUS_ONE

from hclbuild.project.layout import PROJECT_OWNER_FILE
from hclbuild.tasks import SOURCES_STAMP

REPO = Path(__file__).resolve().parents[2]

KERNEL = TIMES_THREE_MINUS_ONE  # Y = 3 * A - 1 through an outlined Stage_X, with a numpy model

DODO = """
from pathlib import Path
from hclbuild.tasks import all_tasks, doit_config
ROOT = Path(__file__).resolve().parent
DOIT_CONFIG = doit_config(ROOT / "build")
def task_hclbuild():
    yield from all_tasks(ROOT / "projects", ROOT / "build")
"""
# how long, and whether the testbench ran or an earlier run of the same executable was reused (after
# a kill, the rerun reuses the run the killed build finished): not what the result says
TIMINGS = ("compile_seconds", "run_seconds", "run_reused")
# a precompiled header of csim and its prelude, or the note that one was asked for (not a temporary)
PRECOMPILED = re.compile(r"\.csim/pch/[0-9a-f]{24}(\.wanted|/hclbuild_prelude\.h(\.gch)?)")


def make_tree(root: Path) -> Path:
    (root / "projects" / "p").mkdir(parents=True)
    (root / "projects" / "p" / "kernel.py").write_text(KERNEL)
    (root / "dodo.py").write_text(DODO)
    return root


def _default_sigint() -> None:
    # a shell without job control starts `cmd &` with SIGINT ignored, and children inherit that:
    # the build under test must see Ctrl-C as a terminal's user would
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(root: Path, *command: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen(
        [sys.executable, "-m", *command],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_default_sigint,  # noqa: PLW1509 - the test starts no thread before this fork
    )


def finish(proc: subprocess.Popen) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=600)
    return proc.returncode, out, err


def ran(stdout: str) -> set[str]:
    return {m.group(1) for m in re.finditer(r"^\[\d+/\d+\] (\S+)$", stdout, re.M)}


def files(root: Path) -> list[Path]:
    build = root / "build"
    return [p for p in build.rglob("*") if p.is_file() and ".doit.db" not in p.name] if build.is_dir() else []


def tree(root: Path) -> dict[str, bytes]:
    """Every file below build/ but doit's database; csim timings and run reuse (in csim/, reports/ and the
    build's summary.json) dropped.
    A task plan (build/.plans/) is named by its project's absolute path: it counts by its content
    but its folder and file stats; the sources stamp (a cache of file stats) is left out, and so is
    csim's compile.log: it says whether this run compiled an object or reused one a killed run made.
    So are csim's precompiled headers (PRECOMPILED): whether one was made or only asked for depends
    on how many sources a csim had left to compile, and g++ 12 writes other .gch bytes (even another
    size) each time it precompiles the same header (address-space randomisation; with `setarch -R`
    the bytes repeat). The objects, named by their content, count, and so does any temporary.
    build/<name>/.hclbuild-project names its project folder, which is below root in each tree: it is
    compared with root's path replaced."""
    result = {}
    for path in sorted(files(root)):
        rel = path.relative_to(root / "build").as_posix()
        data = path.read_bytes()
        if rel == SOURCES_STAMP or rel.endswith("/out/compile.log") or PRECOMPILED.fullmatch(rel):
            continue
        if path.name == PROJECT_OWNER_FILE:
            data = data.replace(str(root.resolve()).encode(), b"<root>")
        if rel.startswith(".plans/"):
            rel = ".plans/" + path.name.rsplit("-", 1)[0]
            plan = {k: v for k, v in json.loads(data).items() if k not in ("folder", "stats")}
            data = json.dumps(plan, sort_keys=True).encode()
        elif path.suffix == ".json" and ("/" not in rel or rel.split("/")[1] in ("csim", "reports")):
            # build/summary.json gathers every project's reports/summary.json
            data = json.dumps(_without_timings(json.loads(data)), sort_keys=True).encode()
        result[rel] = data
    return result


def _without_timings(value):
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def empty_folders(root: Path) -> list[Path]:
    return [p for p in (root / "build").rglob("*") if p.is_dir() and not any(p.iterdir())]


def group_members(pgid: int) -> list[str]:
    """`pid command` of every live process of the group (zombies left to init do not count)."""
    listing = subprocess.run(
        ["ps", "-eo", "pid=,pgid=,stat=,args="], capture_output=True, text=True, check=False
    ).stdout
    return [
        line
        for line in listing.splitlines()
        if line.split()[1] == str(pgid) and not line.split()[2].startswith("Z")
    ]


def group_is_gone(pgid: int) -> bool:
    deadline = time.monotonic() + 5  # SIGINT reached every member; give each a moment to exit
    while group_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not group_members(pgid)


def _compiler_in_session(session: int) -> bool:
    """A g++ process (its driver or cc1plus) runs in the given session (Linux /proc)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            name, rest = stat.read_text().rsplit(")", 1)
        except OSError:
            continue
        fields = rest.split()
        if int(fields[3]) == session and name.split("(", 1)[1] in ("g++", "cc1plus", "c++"):
            return True
    return False


def wait_for_csim(root: Path, proc: subprocess.Popen) -> None:
    """Until csim of Stage_X runs, and (where /proc shows it) its g++ does: a loaded machine can be
    slow enough to see the status late, and a fixed sleep could then miss the compile."""
    status = root / "build" / "p" / "status" / "csim" / "Stage_X.json"
    deadline = time.monotonic() + 120
    while '"running"' not in (status.read_text() if status.exists() else ""):
        assert proc.poll() is None and time.monotonic() < deadline, "csim never started"
        time.sleep(0.005)
    if not Path("/proc/self/stat").exists():
        time.sleep(0.2)  # into g++
        return
    while not _compiler_in_session(proc.pid):
        assert proc.poll() is None and time.monotonic() < deadline, "csim ran no g++"
        time.sleep(0.005)


def rerun_passes(root: Path) -> set[str]:
    """`doit csim` after the interrupted run: it must finish and pass; the tasks it ran."""
    code, out, err = finish(start(root, "doit", "csim"))
    assert code == 0, out + err
    assert '"pass": true' in (root / "build" / "p" / "csim" / "Stage_X.json").read_text()
    return ran(out)


@pytest.mark.parametrize(
    "command, line",
    [
        (("hclbuild.cli", "csim", "projects"), "hclbuild: interrupted"),
        (("doit", "csim"), "doit: interrupted"),
    ],
)
def test_ctrl_c_is_one_line_exit_130_and_the_rerun_finishes(tmp_path: Path, command, line) -> None:
    root = make_tree(tmp_path)
    proc = start(root, *command)
    wait_for_csim(root, proc)
    os.killpg(proc.pid, signal.SIGINT)
    code, out, err = finish(proc)
    assert (code, err) == (130, line + "\n"), out
    assert group_is_gone(proc.pid), group_members(proc.pid)  # g++, testbench, reference child: all gone
    assert empty_folders(root) == []
    rerun = rerun_passes(root)
    assert "compile:p" not in rerun and "reference:p" not in rerun  # finished work is kept
    assert "csim:p/Stage_X" in rerun


@pytest.mark.parametrize(
    "command, line",
    [
        (("hclbuild.cli", "csim", "projects", "-n", "2"), "hclbuild: terminated (SIGTERM)"),
        (("doit", "-n", "2", "csim"), "doit: terminated (SIGTERM)"),
    ],
)
def test_sigterm_to_the_build_alone_stops_its_workers_too(tmp_path: Path, command, line) -> None:
    # `kill <pid>`, a cancelled CI job: SIGTERM reaches one process, not the group as Ctrl-C does.
    # The build died at once and its doit workers ran on, then idled forever as orphans
    root = make_tree(tmp_path)
    proc = start(root, *command)
    wait_for_csim(root, proc)
    os.kill(proc.pid, signal.SIGTERM)
    code, out, err = finish(proc)
    assert (code, err) == (128 + signal.SIGTERM, line + "\n"), out
    assert group_is_gone(proc.pid), group_members(proc.pid)
    assert empty_folders(root) == []
    rerun = rerun_passes(root)
    assert "compile:p" not in rerun and "csim:p/Stage_X" in rerun


@pytest.mark.slow
def test_sigkill_at_ten_points_then_rerun_equals_a_clean_build(tmp_path: Path) -> None:
    clean = make_tree(tmp_path / "clean")
    code, out, err = finish(start(clean, "doit", "csim"))
    assert code == 0, out + err
    expected = tree(clean)
    total = len(expected)
    rng = random.Random(9)
    # kill when the build has written k of its files, k spread over the whole build
    targets = sorted(rng.sample(range(1, total), 10))
    mid_build = 0
    for k in targets:
        root = make_tree(tmp_path / f"killed_at_{k}")
        proc = start(root, "doit", "csim")
        present = 0
        while proc.poll() is None:
            present = len(files(root))
            if present >= k:
                break
            time.sleep(0.002)
        finished = proc.poll() is not None
        if not finished:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        # the last files come within a poll of each other, so a kill meant for one of them may come
        # after them all; that too must rerun to a clean build, but most kills must be mid-build
        mid_build += not finished and 0 < present < total
        code, out, err = finish(start(root, "doit", "csim"))
        assert code == 0, f"rerun after a kill at {present} files: {out}{err}"
        assert tree(root) == expected, f"after a SIGKILL with {present} of {total} files written"
    assert mid_build >= len(targets) - 2, f"only {mid_build} of {len(targets)} kills came mid-build"


def test_a_forked_worker_dies_of_sigterm_without_a_traceback() -> None:
    # doit ends its -n workers with SIGTERM after a Ctrl-C; the handler they inherited raised
    # KeyboardInterrupt wherever they were, and one in its exit handlers printed "Process Process-2:"
    # and a traceback beside the build's one line
    script = (
        "import multiprocessing, os, signal, time\n"
        "from hclbuild.tasks import termination\n"
        "termination.install()\n"
        "def work():\n"
        "    time.sleep(60)\n"
        "worker = multiprocessing.get_context('fork').Process(target=work)\n"
        "worker.start()\n"
        "time.sleep(0.5)\n"
        "worker.terminate()\n"
        "worker.join(30)\n"
        "print('EXIT', worker.exitcode, termination.TERMINATED)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"EXIT {-signal.SIGTERM} []"]
    assert done.stderr == ""
