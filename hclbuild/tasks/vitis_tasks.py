"""doit tasks that need Vitis HLS: csynth:<p>/<func>, cosim:<p>/<func>, and with top_assembly =
"blackbox" blackbox:<p>/<func> (listed only where a tool is found).

Each runs the flow project.toml's `[hls] tool` picks (runtime.vitis.choose_flow) in the function's
hls/<func>/ folder and publishes the report at a fixed path (csynth/<func>.xml, cosim/<func>.rpt),
which is the task's target whichever flow wrote it.

csynth is up to date when csynth/<func>.inputs holds the digest of the files it would read now
(not through doit's own state), so a function synthesized in another CI job, whose artifacts bring
hls/<func>/ and csynth/<func>.*, is not synthesized again where the top is assembled.

With top_assembly = "blackbox", blackbox:<p>/<func> turns each outlined function's csynth report
and Verilog into hls/<top>/<func>_blackbox.json, and csynth:<p>/<top> reads those JSON files: it
synthesizes only the top's own code.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from hclbuild.project.config import Project
from hclbuild.project.layout import BuildLayout
from hclbuild.tasks import may_run_remotely

Wrap = Callable[..., Callable[[], Any]]


@may_run_remotely
def _synthesize(
    project: Project,
    layout: BuildLayout,
    func: str,
    steps: list[str],
    inputs: list[Path],
    reuse_synthesis: bool = False,
) -> None:
    from hclbuild.project.vitis_flow import synthesize_function
    from hclbuild.runtime import remote

    if remote.requested():
        # on a Dask worker with the vitis_hls resource; the reports come back, then publish as usual
        runner = functools.partial(remote.run_hls_steps_remote, project=project.name)
        synthesize_function(
            project, layout, func, steps, inputs=inputs, runner=runner, reuse_synthesis=reuse_synthesis
        )
        return
    synthesize_function(project, layout, func, steps, inputs=inputs, reuse_synthesis=reuse_synthesis)


def _blackbox(project: Project, layout: BuildLayout, func: str, top: str) -> None:
    from hclbuild.project.vitis_flow import publish_blackbox

    publish_blackbox(project, layout, func, top)


def _current(project: Project, layout: BuildLayout, func: str, inputs: list[Path]) -> Callable[[], bool]:
    def check() -> bool:
        from hclbuild.project.vitis_flow import csynth_is_current

        return csynth_is_current(project, layout, func, inputs)

    return check


def function_vitis_tasks(
    project: Project,
    layout: BuildLayout,
    func: str,
    hls_files: list[str],
    fingerprint_dep: list[str],
    wrap: Wrap,
    functions: Sequence[str] = (),
) -> Iterator[dict]:
    """csynth and cosim of one function (and its blackbox JSON); `wrap(step, project, layout, *args)`
    makes the doit action; `functions` are the design's functions, top first; `fingerprint_dep`
    holds the fingerprint file that blackbox and cosim depend on."""
    name = project.name
    top = functions[0] if functions else func
    blackbox_mode = project.config.top_assembly == "blackbox" and len(functions) > 1
    # not data/ (hls_files' last, the reference's): synthesis reads no golden vector, so new
    # ones (another seed) rerun cosim, not csynth, and csynth need not wait for the reference;
    # nor the Makefile and README, which Vitis never reads: the Makefile names this machine's
    # ap_types folder, so another CI runner's emit made every function's csynth look outdated
    inputs = [Path(path) for path in hls_files[:-1] if Path(path).name not in ("Makefile", "README.md")]
    task_dep = [f"emit:{name}/{func}"]
    if blackbox_mode and func == top:
        inputs += [layout.blackbox_json(top, f) for f in functions[1:]]
        task_dep += [f"blackbox:{name}/{f}" for f in functions[1:]]
    # attempts are recorded (project.attempts) so that the report shows no csynth/cosim result of
    # files that changed since, and lists a failed run; the published reports go when one starts
    published = [
        str(layout.csynth_result(func)),
        str(layout.csynth_inputs(func)),
        str(layout.cosim_result(func)),
    ]
    yield {
        "basename": "csynth",
        "name": f"{name}/{func}",
        "doc": f"{name}: Vitis HLS C synthesis of {func}"
        + (" (outlined functions as RTL blackboxes)" if blackbox_mode and func == top else ""),
        "actions": [
            wrap(
                _synthesize,
                project,
                layout,
                func,
                ["csynth"],
                inputs,
                attempt=("csynth", func, [str(path) for path in inputs]),
                verdicts=published,
            )
        ],
        "task_dep": task_dep,
        "targets": [str(layout.csynth_result(func)), str(layout.csynth_inputs(func))],
        "uptodate": [_current(project, layout, func, inputs)],
        "clean": True,
    }
    if blackbox_mode and func != top:
        yield {
            "basename": "blackbox",
            "name": f"{name}/{func}",
            "doc": f"{name}: {func} as an RTL blackbox of {top} (its csynth report and Verilog -> JSON)",
            "actions": [wrap(_blackbox, project, layout, func, top)],
            "file_dep": [str(layout.csynth_result(func)), str(layout.func_mlir(func)), *fingerprint_dep],
            "targets": [str(layout.blackbox_json(top, func))],
            "clean": True,
        }
    # cosim runs on csynth:<p>/<func>'s synthesis: one of its own rewrote the RTL that the blackbox
    # JSON names after the top's synthesis had read it, and took a second synthesis of every function
    yield {
        "basename": "cosim",
        "name": f"{name}/{func}",
        "doc": f"{name}: Vitis HLS C/RTL co-simulation of {func}",
        "actions": [
            wrap(
                _synthesize,
                project,
                layout,
                func,
                ["cosim"],
                inputs,
                True,
                attempt=("cosim", func, [*map(str, inputs), hls_files[-1]]),
                verdicts=published[2:],
            )
        ],
        "file_dep": [*hls_files, *fingerprint_dep],
        "task_dep": [f"csynth:{name}/{func}"],
        "targets": [str(layout.cosim_result(func))],
        "clean": True,
    }
