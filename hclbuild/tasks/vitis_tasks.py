"""doit tasks that need Vitis HLS: csynth:<p>/<func>, cosim:<p>/<func> (listed only where a tool is found).

Each runs the flow project.toml's `[hls] tool` picks (runtime.vitis.choose_flow) in the function's
hls/<func>/ folder and publishes the report at a fixed path (csynth/<func>.xml, cosim/<func>.rpt),
which is the task's target whichever flow wrote it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

from hclbuild.project.config import Project
from hclbuild.project.layout import BuildLayout
from hclbuild.tasks import may_run_remotely

Wrap = Callable[..., Callable[[], Any]]


@may_run_remotely
def _synthesize(project: Project, layout: BuildLayout, func: str, steps: list[str]) -> None:
    from hclbuild.project.vitis_flow import synthesize_function
    from hclbuild.runtime import remote

    if remote.requested():
        # on a Dask worker with the vitis_hls resource; the reports come back, then publish as usual
        runner = functools.partial(remote.run_hls_steps_remote, project=project.name)
        synthesize_function(project, layout, func, steps, runner=runner)
        return
    synthesize_function(project, layout, func, steps)


def function_vitis_tasks(project: Project, layout: BuildLayout, func: str, hls_files: list[str], stamp: Any,
                         wrap: Wrap) -> Iterator[dict]:
    """csynth and cosim of one function; `wrap(step, project, layout, *args)` makes the doit action."""
    name = project.name
    yield {
        "basename": "csynth", "name": f"{name}/{func}",
        "doc": f"{name}: Vitis HLS C synthesis of {func}",
        "actions": [wrap(_synthesize, project, layout, func, ["csynth"])],
        "file_dep": hls_files,
        "targets": [str(layout.csynth_result(func))],
        "uptodate": [stamp], "clean": True,
    }
    yield {
        "basename": "cosim", "name": f"{name}/{func}",
        "doc": f"{name}: Vitis HLS C/RTL co-simulation of {func}",
        "actions": [wrap(_synthesize, project, layout, func, ["csynth", "cosim"])],
        "file_dep": hls_files,
        "targets": [str(layout.cosim_result(func))],
        "uptodate": [stamp], "clean": True,
    }
