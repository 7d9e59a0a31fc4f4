"""The Dask clusters hclbuild starts: worker processes on this machine, or workers as batch jobs
through dask-jobqueue (Slurm, PBS, LSF, SGE), configured by Dask's own `jobqueue.<kind>.*` settings.

A batch cluster (BatchWorkers) asks the queue for its workers only when the first job is
submitted, so a build with nothing to do submits no batch job, and it watches them while jobs
wait: a submission the queue refuses (an unknown partition: sbatch's own error line) and a
queue that starts no worker within the worker timeout end the build with one line instead of
waiting forever; workers the queue takes away (scancel, a wall-time limit) are asked for again,
at most REPLACEMENTS times each.

`distributed` and `dask_jobqueue` are imported only when a cluster is asked for.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from typing import Any

from hclbuild import tool_processes
from hclbuild.errors import ConfigError, ToolError
from hclbuild.runtime import local_cores

CLUSTERS = ("slurm", "pbs", "lsf", "sge", "local")
_JOBQUEUE_CLASSES = {"slurm": "SLURMCluster", "pbs": "PBSCluster", "lsf": "LSFCluster", "sge": "SGECluster"}
INSTALL_HINT = "pip install 'hclbuild[distributed]'"
WORKER_TIMEOUT_ENV = "HCLBUILD_WORKER_TIMEOUT"  # seconds; the default of --worker-timeout
DEFAULT_WORKER_TIMEOUT = 600.0  # a busy queue may take minutes to start a job; raise it for hours
REPLACEMENTS = 3  # how often a worker the queue took away is asked for again (as allowed-failures)
_STATE_COMMANDS = {"slurm": ("squeue", "-h", "-o", "%i %T %r", "-j")}  # job id, state, reason


def import_distributed() -> None:
    """Dask's distributed package, or a one-line error saying how to install it."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ToolError(f"distributed execution needs Dask's distributed package: {INSTALL_HINT}") from None


def make_cluster(kind: str, workers: int | None = None, *, scale: bool = True) -> Any:
    """A Dask cluster: `local` (worker processes on this machine, one thread each) or a batch queue
    through dask-jobqueue, configured by Dask's own `jobqueue.<kind>.*` settings, then scaled to
    `workers` (default: this machine's cores for local, 1 for a queue) unless `scale` is False."""
    if kind not in CLUSTERS:
        raise ConfigError(f"unknown cluster {kind!r} (expected {', '.join(CLUSTERS)})")
    import_distributed()
    if kind == "local":
        from distributed import LocalCluster

        # the cores this process may use, like `hclbuild build -n`: an affinity-restricted job
        # (taskset, a batch slot) must not start a worker per core of the whole machine
        return LocalCluster(
            n_workers=workers or local_cores(), threads_per_worker=1, processes=True, dashboard_address=None
        )
    return _jobqueue_cluster(kind, workers, scale, [], submits=scale)


def _jobqueue_cluster(
    kind: str, workers: int | None, scale: bool, refusals: list[str], *, submits: bool = True
) -> Any:
    """`submits`: the cluster will submit jobs, so the queue's submit command must be on PATH (a
    cluster made only to write its job script does not need it)."""
    try:
        import dask_jobqueue
    except ImportError:
        raise ToolError(f"--cluster {kind} needs dask-jobqueue: {INSTALL_HINT}") from None
    cluster_class = getattr(dask_jobqueue, _JOBQUEUE_CLASSES[kind])
    submit = cluster_class.job_cls.submit_command.split()[0]
    if submits and shutil.which(submit) is None:
        raise ToolError(f"--cluster {kind}: {submit} is not on PATH (this machine cannot submit {kind} jobs)")
    try:
        cluster = cluster_class(job_cls=_recording_job_class(cluster_class.job_cls, refusals))
    except ValueError as exc:
        raise ConfigError(
            f"--cluster {kind}: {_one_line(exc)} (set jobqueue.{kind}.* in "
            f"~/.config/dask/jobqueue.yaml or DASK_JOBQUEUE__{kind.upper()}__* variables)"
        ) from None
    if scale:
        cluster.scale(n=workers or 1)
    return cluster


def _recording_job_class(job_class: type, refusals: list[str]) -> type:
    """dask-jobqueue's job class for this cluster, but a submission the queue refuses is recorded in
    `refusals` (the submit command's error lines) instead of raised inside Dask's event loop, where
    it would be printed as a traceback and the build would wait for a worker that never comes."""
    from distributed.deploy.spec import ProcessInterface

    class RecordingJob(job_class):
        async def start(self) -> None:
            try:
                await super().start()
            except (RuntimeError, ValueError, OSError) as exc:
                refusals.append(_submission_error(str(exc)))
                # a job that will never run: BatchWorkers.check raises the refusal in the build
                await ProcessInterface.start(self)

    RecordingJob.__name__ = RecordingJob.__qualname__ = job_class.__name__
    return RecordingJob


def _submission_error(text: str) -> str:
    """The submit command's own error lines (dask-jobqueue wraps them in a many-line message)."""
    stderr = text.split("stderr:", 1)[1] if "stderr:" in text else text
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return "; ".join(dict.fromkeys(lines)) or _one_line(RuntimeError(text))


class BatchWorkers:
    """The workers of a dask-jobqueue cluster: asked for on the first job, then watched."""

    def __init__(self, kind: str, workers: int, timeout: float, *, cluster: Any = None) -> None:
        self.kind = kind
        self.wanted = workers
        self.timeout = timeout
        self.refusals: list[str] = []
        self.cluster = (
            cluster if cluster is not None else _jobqueue_cluster(kind, workers, False, self.refusals)
        )
        self.asked_at: float | None = None  # when the queue was first asked for workers
        self.replaced = 0
        self._lock = threading.Lock()

    @property
    def scheduler_address(self) -> str:
        return str(self.cluster.scheduler_address)

    def ask(self) -> None:
        """Submit the worker jobs, once (every job calls this before it is submitted)."""
        with self._lock:
            if self.asked_at is None:
                self.asked_at = time.monotonic()
                self.cluster.scale(n=self.wanted)

    def check(self, connected: int, waited_since: float | None) -> None:
        """Raise ToolError when the queue refused a worker job or started none within the timeout
        (`waited_since`: since when no worker has been connected, None while one is); ask again for
        workers the queue took away."""
        with self._lock:
            if self.refusals:
                raise ToolError(
                    f"--cluster {self.kind}: the queue refused the worker job: {self.refusals[0]} "
                    f"(Dask's jobqueue.{self.kind}.* settings make the job script)"
                )
            if self.asked_at is None:
                return
            if (
                connected + len(self._waiting_jobs()) < self.wanted
                and self.replaced < REPLACEMENTS * self.wanted
            ):
                self.replaced += self.wanted - connected - len(self._waiting_jobs())
                self.cluster.scale(n=self.wanted)  # dask-jobqueue submits the jobs it lost
            if waited_since is None:
                return
            waited = time.monotonic() - max(waited_since, self.asked_at)
            if waited > self.timeout:
                raise ToolError(
                    f"--cluster {self.kind}: no worker started within {self.timeout:g} s "
                    f"({self._queue_states()}); see --worker-timeout or ${WORKER_TIMEOUT_ENV}"
                )

    def _waiting_jobs(self) -> list[str]:
        """Ids of the worker jobs submitted and not (yet) connected, or gone without a goodbye."""
        connected = {info.get("name") for info in self.cluster.scheduler_info.get("workers", {}).values()}
        return [
            str(job.job_id)
            for name, job in list(self.cluster.workers.items())
            if getattr(job, "job_id", None) and name not in connected
        ]

    def _queue_states(self) -> str:
        """What the queue says of the waiting jobs, e.g. `job 12 PENDING (PartitionDown)`."""
        jobs = self._waiting_jobs()
        if not jobs:
            return "no worker job is in the queue"
        command = _STATE_COMMANDS.get(self.kind)
        if command is not None:
            try:
                done = tool_processes.run([*command, ",".join(jobs)], timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                done = None
            states = []
            for line in done.stdout.splitlines() if done is not None and done.returncode == 0 else []:
                job_id, state, reason = (line.split(maxsplit=2) + ["", ""])[:3]
                states.append(
                    f"job {job_id} {state}" + (f" ({reason})" if reason and reason != "None" else "")
                )
            if states:
                return ", ".join(states)
        return f"jobs {', '.join(jobs)} submitted"

    def close(self) -> None:
        """Cancel the worker jobs and stop the cluster's scheduler."""
        self.cluster.close()


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
