"""The doit tasks of one planned project: compile, reference, emit, estimate, csim, report, and where a Vitis
tool is found csynth, cosim and (top_assembly = "blackbox") blackbox.

A task's action is a StepAction, which names its step in hclbuild.tasks.steps; that module (and
with it the compiler, the runtimes and numpy) is imported only when a task runs, so making the
tasks of a doit run that finds them all up to date needs this module and plain data only.

csynth and cosim run the flow project.toml's `[hls] tool` picks in the function's hls/<func>/
folder and publish its report at a fixed path (csynth/<func>.xml, cosim/<func>.rpt), the task's
target whichever flow wrote it. csynth is up to date when csynth/<func>.inputs holds the digest of
the files it would read now (not through doit's own state), so a function synthesized in another CI
job, whose artifacts bring hls/<func>/ and csynth/<func>.*, is not synthesized again where the top
is assembled. With top_assembly = "blackbox", blackbox:<p>/<func> turns each outlined function's
csynth report and Verilog into hls/<top>/<func>_blackbox.json, which csynth:<p>/<top> reads: it
synthesizes only the top's own code.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from hclbuild.project.layout import PROJECT_FILE, BuildLayout, HlsFiles, ProjectTaskFiles, TaskFiles
from hclbuild.project.plans import ProjectPlan
from hclbuild.tasks.result_stamps import result_untouched
from hclbuild.tasks.synthesis_order import longest_estimated_first

GROUP_DOCS = {
    "build": "compile every project, run its reference, emit and estimate every function's HLS project "
    "(the default)",
    "compile": "kernel.py -> MLIR (built, outlined, verified), one file per function",
    "reference": "MLIR lowered to LLVM IR and run -> golden vectors at every outlined call",
    "emit": "one Vitis HLS project per function: C++, testbench, tcl, cfg, Makefile",
    "estimate": "hclbuild's QoR estimate of every function (latency, II, resources; a model, not Vitis)",
    "csim": "g++ C simulation of every function against the LLVM golden vectors",
    "report": "csim, estimate (and csynth when present) summary per project",
    "csynth": "Vitis HLS C synthesis per function (only where vitis_hls, vitis-run or v++ is found)",
    "cosim": "Vitis HLS C/RTL co-simulation per function (only where vitis_hls, vitis-run or v++ is found)",
    "blackbox": 'outlined functions\' RTL as blackboxes of the top (top_assembly = "blackbox", with Vitis)',
}
VITIS_GROUPS = ("csynth", "cosim", "blackbox")

# A task without actions is up to date: doit runs a task with no dependencies every time and saves
# its state, so four groups made every no-op `doit build` write the state database, and sqlite's
# commit waits for the disk (8-30 ms here). A group still runs the tasks it depends on first.
NO_ACTION = {"actions": None, "uptodate": [True]}


class Attempt(NamedTuple):
    """A task attempt to record (project.attempts): its step, its function (None: the project's) and
    the files it reads, whose digests say later whether its result still holds."""

    step: str
    func: str | None
    inputs: list[str]


class StepAction:
    """A doit python-action: step `name` of hclbuild.tasks.steps on the planned project, with `args`,
    recording `attempt` (removing `verdicts` first) when one is given. With `stamped`, a run that
    succeeds saves that file's stamp and digest as doit values (result_stamps.result_values)."""

    __slots__ = ("args", "attempt", "build_root", "name", "plan", "stamped", "verdicts")

    def __init__(
        self,
        name: str,
        plan: ProjectPlan,
        build_root: Path,
        *args: Any,
        attempt: Attempt | None = None,
        verdicts: Sequence[str] = (),
        stamped: str | None = None,
    ) -> None:
        self.name, self.plan, self.build_root, self.args = name, plan, build_root, args
        self.attempt, self.verdicts, self.stamped = attempt, tuple(verdicts), stamped

    def __call__(self) -> Any:
        # here, when a task runs: the steps import the compiler, the runtimes, numpy and MLIR
        from hclbuild.tasks import steps

        if self.plan.error is not None:
            return steps.fail(self, self.plan.error)
        return steps.run(self)

    def __repr__(self) -> str:
        return f"<{self.name} step of {self.plan.name}>"


class CleanAction:
    """A doit clean action: removes what build/<name>/.hclbuild-written.json lists under the task's
    keys (`<step>` or `<step>/<func>`; steps.clean_task), never a file hclbuild did not write."""

    __slots__ = ("build_root", "keys", "name")

    def __init__(self, build_root: Path, name: str, *keys: str) -> None:
        self.build_root, self.name, self.keys = build_root, name, list(keys)

    def __call__(self) -> None:
        # here, when `doit clean` runs (see StepAction)
        from hclbuild.tasks import steps

        steps.clean_task(self.build_root, self.name, self.keys)


class HardwareUnchanged:
    """report:<name>'s uptodate: the csynth/cosim reports are those its last run read."""

    __slots__ = ("functions", "layout")

    def __init__(self, layout: BuildLayout, functions: list[str]) -> None:
        self.layout, self.functions = layout, functions

    def __call__(self) -> bool:
        # here, when doit checks the report task: the digest reads the reports' files
        from hclbuild.project.synthesis import hardware_digest

        try:
            recorded = self.layout.report_hardware_stamp.read_text(encoding="utf-8").strip()
        except OSError:
            return False
        return recorded == hardware_digest(self.layout, self.functions)


class CsynthCurrent:
    """csynth:<p>/<func>'s uptodate: csynth/<func>.inputs is the digest of the files it reads now."""

    __slots__ = ("func", "inputs", "layout", "plan")

    def __init__(self, plan: ProjectPlan, layout: BuildLayout, func: str, inputs: list[str]) -> None:
        self.plan, self.layout, self.func, self.inputs = plan, layout, func, inputs

    def __call__(self) -> bool:
        # here, when doit checks a csynth task (only where a Vitis tool is found)
        from hclbuild.project.config import Project
        from hclbuild.project.synthesis import csynth_is_current

        project = Project.from_plan(self.plan)
        return csynth_is_current(project, self.layout, self.func, [Path(path) for path in self.inputs])


def group_tasks(vitis: bool) -> Iterator[dict]:
    """The group tasks' descriptions for `doit list` (doit makes the groups from the subtasks)."""
    for group, doc in GROUP_DOCS.items():
        if group == "build":
            # the reference writes every function's data/, so a built HLS folder is a complete one
            yield {
                "basename": "build",
                **NO_ACTION,
                "task_dep": ["compile", "reference", "emit", "estimate"],
                "doc": doc,
            }
        elif vitis or group not in VITIS_GROUPS:
            yield {"basename": group, "name": None, "doc": doc, **NO_ACTION}


def project_tasks(plan: ProjectPlan, build_root: Path, fingerprint_file: str, vitis: bool) -> Iterator[dict]:
    """Every task of one project; fingerprint_file (tasks.write_fingerprint's) is a dependency of each."""
    if plan.error is not None:
        yield from _unplanned_tasks(plan, Path(build_root), vitis)
        return
    layout = BuildLayout(Path(build_root), plan.name)
    fingerprint_dep = [fingerprint_file]
    top = plan.functions[0]
    # every path as a string joined without pathlib: this runs for every task of every doit run
    paths = layout.project_task_files()
    task_files = {f: layout.task_files(f, is_top=f == top) for f in plan.functions}
    yield _compile_task(plan, layout, paths, task_files, fingerprint_dep)
    yield _reference_task(plan, layout, paths, task_files, fingerprint_dep)
    # a small emit first (the top's holds every function), see _function_tasks
    gate = plan.functions[1] if len(plan.functions) > 1 else top
    synthesis_order = longest_estimated_first(layout, plan.functions) if vitis else None
    for func in plan.functions:
        yield from _function_tasks(plan, layout, func, task_files[func], gate, fingerprint_dep)
        if vitis and synthesis_order is None:
            yield from synthesis_tasks(plan, layout, func, task_files[func].hls, fingerprint_dep)
    # with an estimate of every function, the csynth tasks start longest first (tasks.synthesis_order)
    for func in synthesis_order or ():
        yield from synthesis_tasks(plan, layout, func, task_files[func].hls, fingerprint_dep)
    yield _report_task(
        plan,
        layout,
        paths,
        [task_files[f].csim_json for f in plan.functions],
        [task_files[f].estimate_json for f in plan.functions],
        fingerprint_dep,
    )


def _unplanned_tasks(plan: ProjectPlan, build_root: Path, vitis: bool) -> Iterator[dict]:
    """A broken project fails its own task; others still run under `doit --continue`."""
    name = plan.name
    yield {
        "basename": "compile",
        "name": name,
        "actions": [StepAction("compile", plan, build_root)],
        "doc": f"{name}: cannot be planned: {plan.error}",
        "uptodate": [False],
    }
    for group in ("reference", "emit", "estimate", "csim", "report") + (("csynth", "cosim") if vitis else ()):
        # so that `doit csim` (not only `doit compile`) reports the broken project
        yield {
            "basename": group,
            "name": name,
            **NO_ACTION,
            "task_dep": [f"compile:{name}"],
            "doc": f"{name}: cannot be planned (see compile:{name})",
        }


def _compile_task(
    plan: ProjectPlan,
    layout: BuildLayout,
    paths: ProjectTaskFiles,
    task_files: dict[str, TaskFiles],
    fingerprint_dep: list[str],
) -> dict:
    inputs = plan.inputs  # kernel.py, its sibling modules, project.toml
    return {
        "basename": "compile",
        "name": plan.name,
        "doc": f"{plan.name}: kernel.py -> ir/*.mlir (one per function)",
        "actions": [StepAction("compile", plan, layout.build_root, attempt=Attempt("compile", None, inputs))],
        "file_dep": inputs + fingerprint_dep,
        "targets": [task_files[f].mlir for f in plan.functions] + [paths.ir_manifest],
        "clean": [
            CleanAction(layout.build_root, plan.name, "compile", *(f"compile/{f}" for f in plan.functions))
        ],
    }


def _reference_task(
    plan: ProjectPlan,
    layout: BuildLayout,
    paths: ProjectTaskFiles,
    task_files: dict[str, TaskFiles],
    fingerprint_dep: list[str],
) -> dict:
    # the reference lowers ir/top.mlir to llvm/, writes golden/<func>/ and links hls/<func>/data/ to
    # it; emit needs neither, so it runs beside
    deps = [paths.top_mlir, paths.ir_manifest] + plan.inputs
    files = [task_files[f] for f in plan.functions]
    return {
        "basename": "reference",
        "name": plan.name,
        "doc": f"{plan.name}: ir/top.mlir -> llvm/units/, run -> golden vectors per function, hls/<func>/data/",
        "actions": [
            StepAction("reference", plan, layout.build_root, attempt=Attempt("reference", None, deps))
        ],
        "file_dep": deps + fingerprint_dep,
        "targets": [paths.llvm_manifest]
        + [f.golden_manifest for f in files]
        + [f.hls.data_manifest for f in files],
        "clean": [
            CleanAction(
                layout.build_root, plan.name, "reference", *(f"reference/{f}" for f in plan.functions)
            )
        ],
    }


def _function_tasks(
    plan: ProjectPlan,
    layout: BuildLayout,
    func: str,
    task_files: TaskFiles,
    gate: str,
    fingerprint_dep: list[str],
) -> Iterator[dict]:
    """emit, estimate and csim of one function."""
    name, files = plan.name, task_files.hls
    toml = [
        path for path in plan.inputs if os.path.basename(path) == PROJECT_FILE
    ]  # input_paths' last, if any
    emit_deps = [task_files.mlir] + toml
    yield {
        "basename": "emit",
        "name": f"{name}/{func}",
        "doc": f"{name}: Vitis HLS project of {func} (C++, testbench, tcl, cfg, Makefile)",
        "actions": [
            StepAction("emit", plan, layout.build_root, func, attempt=Attempt("emit", func, emit_deps))
        ],
        "file_dep": emit_deps + fingerprint_dep,
        # order only: doit -n releases what waited for compile in no fixed order, and the reference
        # (the longest task) could queue behind every emit; now it starts beside the first one
        "task_dep": [] if func == gate else [f"emit:{name}/{gate}"],
        "targets": files.emitted,
        "clean": [CleanAction(layout.build_root, name, f"emit/{func}")],
    }
    # the model reads the MLIR emit reads, and project.toml's part, clock and Vitis version; after
    # emit (order only), so that a failed emit is the error a build shows first
    estimate_json = task_files.estimate_json
    yield {
        "basename": "estimate",
        "name": f"{name}/{func}",
        "doc": f"{name}: QoR estimate of {func} (latency, II, resources; a model, not Vitis)",
        "actions": [
            StepAction(
                "estimate",
                plan,
                layout.build_root,
                func,
                attempt=Attempt("estimate", func, emit_deps),
            )
        ],
        "file_dep": emit_deps + fingerprint_dep,
        "task_dep": [f"emit:{name}/{func}"],
        "targets": [estimate_json],
        "clean": [CleanAction(layout.build_root, name, f"estimate/{func}")],
    }
    csim_json = task_files.csim_json
    yield {
        "basename": "csim",
        "name": f"{name}/{func}",
        "doc": f"{name}: g++ C simulation of {func} against the LLVM golden vectors",
        "actions": [
            StepAction(
                "csim",
                plan,
                layout.build_root,
                func,
                attempt=Attempt("csim", func, files.compiled),
                verdicts=[csim_json],
                stamped=csim_json,
            )
        ],
        "file_dep": files.compiled + fingerprint_dep,
        "uptodate": [result_untouched],
        "targets": [csim_json],
        "clean": [CleanAction(layout.build_root, name, f"csim/{func}")],
    }


def _report_task(
    plan: ProjectPlan,
    layout: BuildLayout,
    paths: ProjectTaskFiles,
    csim_results: list[str],
    estimates: list[str],
    fingerprint_dep: list[str],
) -> dict:
    return {
        "basename": "report",
        "name": plan.name,
        "doc": f"{plan.name}: summary of csim (and csynth when present) across functions",
        "actions": [StepAction("report", plan, layout.build_root, plan.functions)],
        # csynth/cosim reports are read when present, never made here: as file_deps (targets of the
        # csynth tasks) they had `hclbuild report` synthesize every function, hours each, in parallel
        # the estimates are made by a build, cheaply: the report shows them beside csynth's figures
        "file_dep": csim_results + estimates + fingerprint_dep,
        "uptodate": [HardwareUnchanged(layout, plan.functions)],
        "targets": [paths.report_summary, paths.report_markdown],
        "clean": [CleanAction(layout.build_root, plan.name, "report")],
    }


def synthesis_tasks(
    plan: ProjectPlan, layout: BuildLayout, func: str, files: HlsFiles, fingerprint_dep: list[str]
) -> Iterator[dict]:
    """csynth and cosim of one function (and its blackbox JSON); see the module docstring."""
    name, functions, build_root = plan.name, plan.functions, layout.build_root
    top = functions[0]
    assembled = plan.blackbox_top
    inputs = files.synthesized
    task_dep = [f"emit:{name}/{func}"]
    if assembled and func == top:
        inputs += [str(layout.blackbox_json(top, f)) for f in functions[1:]]
        task_dep += [f"blackbox:{name}/{f}" for f in functions[1:]]
    # attempts are recorded (project.attempts) so that the report shows no csynth/cosim result of
    # files that changed since, and lists a failed run; the published reports go when one starts
    csynth_result, csynth_inputs = str(layout.csynth_result(func)), str(layout.csynth_inputs(func))
    cosim_result = str(layout.cosim_result(func))
    yield {
        "basename": "csynth",
        "name": f"{name}/{func}",
        "doc": f"{name}: Vitis HLS C synthesis of {func}"
        + (" (outlined functions as RTL blackboxes)" if assembled and func == top else ""),
        "actions": [
            StepAction(
                "synthesize",
                plan,
                build_root,
                func,
                ["csynth"],
                inputs,
                attempt=Attempt("csynth", func, inputs),
                verdicts=[csynth_result, csynth_inputs, cosim_result],
            )
        ],
        "task_dep": task_dep,
        "targets": [csynth_result, csynth_inputs],
        "uptodate": [CsynthCurrent(plan, layout, func, inputs)],
        "clean": [CleanAction(build_root, name, f"csynth/{func}")],
    }
    if assembled and func != top:
        yield {
            "basename": "blackbox",
            "name": f"{name}/{func}",
            "doc": f"{name}: {func} as an RTL blackbox of {top} (its csynth report and Verilog -> JSON)",
            "actions": [StepAction("blackbox", plan, build_root, func, top)],
            "file_dep": [csynth_result, str(layout.func_mlir(func)), *fingerprint_dep],
            "targets": [str(layout.blackbox_json(top, func))],
            "clean": [CleanAction(build_root, name, f"blackbox/{func}")],
        }
    # cosim runs on csynth:<p>/<func>'s synthesis: one of its own rewrote the RTL that the blackbox
    # JSON names after the top's synthesis had read it, and took a second synthesis of every function
    yield {
        "basename": "cosim",
        "name": f"{name}/{func}",
        "doc": f"{name}: Vitis HLS C/RTL co-simulation of {func}",
        "actions": [
            StepAction(
                "synthesize",
                plan,
                build_root,
                func,
                ["cosim"],
                inputs,
                True,
                attempt=Attempt("cosim", func, [*inputs, files.data_manifest]),
                verdicts=[cosim_result],
            )
        ],
        "file_dep": [*files, *fingerprint_dep],
        "task_dep": [f"csynth:{name}/{func}"],
        "targets": [cosim_result],
        "clean": [CleanAction(build_root, name, f"cosim/{func}")],
    }
