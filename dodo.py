"""doit entry point: every project below projects/ becomes compile/reference/emit/csim/report tasks.

`doit` (= `doit build`) emits the Vitis HLS projects; `doit csim` checks every function with g++
against the LLVM reference; `doit list` shows the tasks. Loading this file imports no MLIR.
"""

from pathlib import Path

from hclbuild.tasks import all_tasks, doit_config, doit_creator

ROOT = Path(__file__).resolve().parent
PROJECTS = ROOT / "projects"
BUILD = ROOT / "build"

DOIT_CONFIG = doit_config(BUILD)


@doit_creator
def task_hclbuild():
    """All tasks of all projects (see `doit list`)."""
    yield from all_tasks(PROJECTS, BUILD)
