"""The hclbuild command: the same doit tasks as dodo.py, for projects anywhere.

hclbuild new DIR                 scaffold a project (kernel.py + project.toml)
hclbuild build|csim|report [PATHS] [-n N] [--build-dir DIR] [--continue]
hclbuild list [PATHS]
hclbuild estimate [PATHS] [--json]  the per-function QoR estimate (a model, not Vitis) of a build
hclbuild csynth|cosim [PATHS] [--function F]   Vitis C synthesis / co-simulation (a Vitis tool on PATH)
hclbuild csim|report|csynth|cosim ... --scheduler tcp://HOST:8786 | --cluster slurm|pbs|lsf|sge|local
                                 the csim/csynth/cosim jobs on Dask workers (hclbuild[distributed])
hclbuild ci github|gitlab [PATHS] [--runner-label LABEL] [--install CMDS] [--output FILE]
hclbuild explore [PATHS] [-n N] [--budget K] [--seed S] [--objective latency,DSP,...] [--csim] [--csynth]
                 [--scheduler ADDR | --cluster KIND]   design-space exploration over schedule knobs
hclbuild explore PATH --apply N                       point N of the Pareto front into [knobs]
hclbuild clean [PATHS] [--build-dir DIR]   remove what hclbuild wrote in build/<project>/, nothing else
"""

from __future__ import annotations

import os
import signal
import sys

from hclbuild.cli.arguments import parser
from hclbuild.cli.common import ReaderGuard, run_doit, summary_rows
from hclbuild.errors import HCLError
from hclbuild.tasks import termination
from hclbuild.warning_modes import WARNINGS_ENV


def main(argv: list[str] | None = None) -> int:
    """The hclbuild command; returns the exit status (see EXIT_CODES)."""
    try:
        try:
            code = _main(argv)
        finally:
            sys.stdout.flush()  # a closed pipe shows here, not as Python's warning at exit
        if not ReaderGuard.closed:
            return code
    except BrokenPipeError:
        pass
    # as a shell reports a process that SIGPIPE ended; later flushes must not fail again
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + signal.SIGPIPE


def _main(argv: list[str] | None) -> int:

    args = parser().parse_args(argv)
    termination.install()
    if args.warnings is not None:
        # the environment reaches the kernel's tracing in the task processes too
        os.environ[WARNINGS_ENV] = args.warnings
    if getattr(args, "processes", None) is None:
        args.processes = args.top_processes
    try:
        return int(args.run(args) or 0)
    except HCLError as exc:
        print(
            f"hclbuild: error: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
            file=sys.stderr,
        )
        return 1
    except BrokenPipeError:
        raise  # our output's reader went away: main ends quietly
    except OSError as exc:
        # the file system said no (permissions, a full disk, a file where a folder should be)
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"hclbuild: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if "hclbuild.tasks" in sys.modules:
            sys.modules["hclbuild.tasks"].after_interrupt()
        if termination.TERMINATED:
            # 128 + SIGTERM, as a shell reports a process that SIGTERM ended
            print("hclbuild: terminated (SIGTERM)", file=sys.stderr)
            return 128 + termination.TERMINATED[0]
        print("hclbuild: interrupted", file=sys.stderr)
        return 130


__all__ = ["main", "parser", "run_doit", "summary_rows"]
