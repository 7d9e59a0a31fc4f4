"""Run csim and Vitis HLS jobs on Dask workers: one self-contained job folder in, its result files back.

    start(scheduler=ADDRESS | cluster=KIND)   connect to a Dask scheduler, or start a cluster
                                              (dask-jobqueue's slurm/pbs/lsf/sge from Dask's own
                                              config, or a LocalCluster); checked before any task
    current()                                 the session this process uses ($HCLBUILD_SCHEDULER /
                                              $HCLBUILD_CLUSTER start one on first use), or None
    run_csim_remote(func_dir, out_json, ...)  runtime.csim.run_csim on a worker
    run_hls_steps_remote(folder, func, ...)   runtime.vitis.run_hls_steps on a worker that
                                              advertises the `vitis_hls` resource
    run_call_remote(fn, *args, files=...)     fn(folder, *args) on a worker, `files` written to a
                                              temporary folder there (an exploration's points)

A job carries the function's HLS folder as bytes (and, for a top assembled from blackboxes, the
files its blackbox JSON names), so workers need no shared file system: the worker writes it to a
temporary folder, runs g++ or the Vitis tool there and sends back what the tool wrote (csim's
out/, the reports, logs and RTL); the submitting side writes those files atomically into the
function's folder. Each result records the worker's address and the tool versions seen there.

Faults: a worker that dies mid-job makes Dask run the job on another worker, at most
`distributed.scheduler.allowed-failures` times (Dask's KilledWorker ends it); a tool error is
data, not an exception on the worker, so Dask never retries it and the task fails with the
worker's one-line reason; a Vitis job goes only to workers started with `--resources
vitis_hls=N` (N: how many Vitis runs at once, e.g. licenses), and is refused before it is
submitted when no worker advertises it. Workers need hclbuild (with g++, or a Vitis tool) installed;
`distributed` itself is imported only here, and only when a session is asked for.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hclbuild import tool_processes
from hclbuild.atomic import write_text_atomic
from hclbuild.errors import ConfigError, HCLError, ToolError
from hclbuild.runtime import CLUSTER_ENV, SCHEDULER_ENV
from hclbuild.runtime.dask_clusters import (
    CLUSTERS,
    DEFAULT_WORKER_TIMEOUT,
    WORKER_TIMEOUT_ENV,
    BatchWorkers,
    import_distributed,
    make_cluster,
)
from hclbuild.runtime.dask_connection import TlsFiles, client_security, one_line, probe, warn_plain_text
from hclbuild.runtime.remote_jobs import (
    RECORD_PREFIX,
    VITIS_RESOURCE,
    Job,
    JobResult,
    blackbox_inputs,
    current_key,
    pack_folder,
    run_job,
    stop_jobs,
    write_files,
)
from hclbuild.runtime.vitis import ToolRun, ordered_steps

__all__ = ["VITIS_RESOURCE", "Job", "JobResult", "RemoteSession"]

WORKERS_ENV = "HCLBUILD_WORKERS"  # how many workers HCLBUILD_CLUSTER starts
WATCH_SECONDS = 2.0  # how often a waiting job looks at the workers


# ---- the submitting side -----------------------------------------------------------------------


class RemoteSession:
    """A Dask client (and the cluster this process started, if any) that runs jobs and waits for them."""

    def __init__(
        self,
        client: Any,
        address: str,
        cluster: Any = None,
        expected_workers: int = 0,
        worker_timeout: float = DEFAULT_WORKER_TIMEOUT,
        tls: TlsFiles | None = None,
    ) -> None:
        self.client = client
        self.address = address
        self.cluster = cluster  # a LocalCluster or BatchWorkers this session started, closed with it
        self.expected_workers = expected_workers
        self.worker_timeout = worker_timeout
        self.tls = tls  # the command line's TLS files, for a forked process's own connection
        self.pid = os.getpid()
        # the jobs submitted and not yet back: what close() stops on the workers when the build is
        # interrupted while threads wait for them
        self._waiting: dict[str, Any] = {}  # key -> future
        # the waiting threads take turns to look at the workers; the first failure ends them all
        self._watch_lock = threading.Lock()
        self._no_worker_since: float | None = None
        self._failure: str | None = None

    def workers(self) -> dict[str, dict[str, Any]]:
        """The scheduler's workers: address -> {"nthreads", "resources", ...}."""
        return dict(self.client.scheduler_info(n_workers=-1)["workers"])

    def slots(self) -> int:
        """How many jobs the cluster runs at once (its workers' threads; at least 1): doit's -n."""
        threads = sum(int(info.get("nthreads", 1)) for info in self.workers().values())
        return max(1, threads, self.expected_workers)

    def run(self, job: Job) -> JobResult:
        """Submit the job and block until its result; ToolError when Dask cannot run it."""
        resources = None
        if job.kind == "vitis":
            resources = {VITIS_RESOURCE: 1}
            self._require_resource(job)
        result: JobResult = self._submit_and_wait(
            job.where, f"the {job.kind} job", f"{job.kind}-{job.where}", run_job, (job,), resources
        )
        return result

    def call(self, where: str, fn: Any, *args: Any) -> Any:
        """fn(*args) on a worker, blocking until it returns; its HCLError comes back as it was raised,
        anything else Dask says is a one-line ToolError naming `where`."""
        return self._submit_and_wait(where, "the job", f"call-{where}", fn, args, None)

    def _submit_and_wait(
        self, where: str, what: str, name: str, fn: Any, args: tuple[Any, ...], resources: Any
    ) -> Any:
        """fn(*args) as a Dask task keyed `hclbuild-<name>-<random>`, waited for while watching the
        workers; Dask's own failures become one ToolError line naming `where` and `what` ran."""
        import uuid

        from distributed import KilledWorker

        if isinstance(self.cluster, BatchWorkers):
            self.cluster.ask()
        key = f"hclbuild-{name}-{uuid.uuid4().hex[:12]}"
        future = self.client.submit(fn, *args, key=key, pure=False, resources=resources, retries=0)
        self._waiting[key] = future
        try:
            return self._result(future)
        except KilledWorker as exc:
            raise ToolError(f"{where}: {what} was given up after its workers died: {one_line(exc)}") from None
        except HCLError:
            raise
        except Exception as exc:
            raise ToolError(
                f"{where}: {what} failed on the Dask cluster at {self.address}: "
                f"{type(exc).__name__}: {one_line(exc)}"
            ) from None
        finally:
            if not future.done():
                future.cancel()
            future.release()
            self._waiting.pop(key, None)

    def _result(self, future: Any) -> Any:
        """future.result(), looking at the workers every WATCH_SECONDS while it waits."""
        while True:
            try:
                return future.result(timeout=WATCH_SECONDS)
            except TimeoutError:
                self._watch_workers()

    def _watch_workers(self) -> None:
        """Raise ToolError when no worker can run the jobs: the queue refused the worker jobs, or no
        worker has been connected for the worker timeout."""
        with self._watch_lock:
            if self._failure is None:
                try:
                    self._check_workers()
                except ToolError as exc:
                    self._failure = str(exc)
            if self._failure is not None:
                raise ToolError(self._failure)

    def _check_workers(self) -> None:
        connected = len(self.workers())
        if connected:
            self._no_worker_since = None
        elif self._no_worker_since is None:
            self._no_worker_since = time.monotonic()
        if isinstance(self.cluster, BatchWorkers):
            self.cluster.check(connected, self._no_worker_since)
        elif (
            self._no_worker_since is not None
            and time.monotonic() - self._no_worker_since > self.worker_timeout
        ):
            raise ToolError(
                f"the Dask scheduler at {self.address} has had no worker for {self.worker_timeout:g} s "
                f"(start some with `dask worker {self.address}`; see --worker-timeout)"
            )

    def _stop_waiting_jobs(self) -> None:
        waiting = dict(self._waiting)
        if not waiting:
            return
        keys = list(waiting)
        self.client.cancel(list(waiting.values()), force=True)
        # bounded: a worker that does not answer must not keep an interrupted build from ending
        stopping = threading.Thread(
            target=self.client.run, args=(stop_jobs, keys), kwargs={"on_error": "ignore"}, daemon=True
        )
        stopping.start()
        stopping.join(timeout=15)

    def _require_resource(self, job: Job) -> None:
        if self.cluster is not None and not self.workers():
            return  # a batch cluster's workers may still be queued; the job waits for them
        if not any(info.get("resources", {}).get(VITIS_RESOURCE, 0) >= 1 for info in self.workers().values()):
            raise ToolError(
                f"{job.where}: no worker of the Dask scheduler at {self.address} advertises the "
                f"{VITIS_RESOURCE} resource, so nothing can run Vitis (start Vitis workers with "
                f"`dask worker {self.address} --resources {VITIS_RESOURCE}=1`)"
            )

    def close(self) -> None:
        """Disconnect, and stop the cluster this session started. Jobs still running (the build was
        interrupted while waiting for them) are cancelled and their tools stopped on the workers."""
        try:
            self._stop_waiting_jobs()
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()


_SESSION: RemoteSession | None = None
_SESSION_LOCK = threading.Lock()


def requested() -> bool:
    """True when this process runs jobs on Dask: a session was started or the environment asks for one."""
    return _SESSION is not None or bool(os.environ.get(SCHEDULER_ENV) or os.environ.get(CLUSTER_ENV))


def current() -> RemoteSession | None:
    """The process's session; started from $HCLBUILD_SCHEDULER or $HCLBUILD_CLUSTER on first use.

    A forked process (doit -P process) gets its own client: a parent's cannot cross a fork."""
    global _SESSION
    with _SESSION_LOCK:
        if _SESSION is not None and _SESSION.pid == os.getpid():
            return _SESSION
        if _SESSION is not None:  # inherited through fork: reconnect to the same scheduler
            _SESSION = _connect(
                _SESSION.address, None, _SESSION.expected_workers, _SESSION.worker_timeout, _SESSION.tls
            )
            return _SESSION
        scheduler, cluster = os.environ.get(SCHEDULER_ENV), os.environ.get(CLUSTER_ENV)
        if not (scheduler or cluster):
            return None
        workers = os.environ.get(WORKERS_ENV)
        if workers is not None and not workers.isdigit():
            raise ConfigError(f"${WORKERS_ENV} = {workers!r}: expected a number of workers")
        _SESSION = _open(scheduler, cluster, int(workers) if workers else None, None, None)
        return _SESSION


def start(
    scheduler: str | None = None,
    cluster: str | None = None,
    workers: int | None = None,
    worker_timeout: float | None = None,
    tls: TlsFiles | None = None,
) -> RemoteSession:
    """Connect to `scheduler` or start `cluster` (see CLUSTERS) for this process; one-line errors.

    `worker_timeout`: how long jobs may wait while no worker is connected (default
    $HCLBUILD_WORKER_TIMEOUT, else DEFAULT_WORKER_TIMEOUT seconds); `tls`: the client's TLS files for
    a tls:// scheduler, over Dask's distributed.comm.tls.* settings."""
    global _SESSION
    with _SESSION_LOCK:
        if _SESSION is not None:
            _SESSION.close()
            _SESSION = None
        _SESSION = _open(scheduler, cluster, workers, worker_timeout, tls)
        return _SESSION


def stop() -> None:
    """Close the process's session, if any (and the cluster it started)."""
    global _SESSION
    with _SESSION_LOCK:
        if _SESSION is not None and _SESSION.pid == os.getpid():
            _SESSION.close()
        _SESSION = None


def _open(
    scheduler: str | None,
    cluster: str | None,
    workers: int | None,
    worker_timeout: float | None,
    tls: TlsFiles | None,
) -> RemoteSession:
    if scheduler and cluster:
        raise ConfigError("give a Dask scheduler address or a cluster to start, not both")
    if not (scheduler or cluster):
        raise ConfigError("no Dask scheduler address and no cluster to start")
    if workers is not None and workers < 1:
        raise ConfigError(f"{workers} workers: a cluster needs at least one")
    timeout = _worker_timeout(worker_timeout)
    import_distributed()
    if scheduler:
        return _connect(scheduler, None, 0, timeout, tls)
    if tls is not None and tls.given():
        raise ConfigError("--tls-* are for a tls:// --scheduler; a --cluster takes Dask's jobqueue settings")
    if cluster == "local":
        started: Any = make_cluster(cluster, workers)
    elif cluster in CLUSTERS:
        # its jobs are submitted with the first job: a build with nothing to do submits none
        started = BatchWorkers(cluster, workers or 1, timeout)
    else:
        raise ConfigError(f"unknown cluster {cluster!r} (expected {', '.join(CLUSTERS)})")
    try:
        return _connect(started.scheduler_address, started, workers or 0, timeout, None)
    except BaseException:
        started.close()
        raise


def _worker_timeout(given: float | None) -> float:
    if given is not None:
        return given
    text = os.environ.get(WORKER_TIMEOUT_ENV)
    if not text:
        return DEFAULT_WORKER_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise ConfigError(f"${WORKER_TIMEOUT_ENV} = {text!r}: expected a number of seconds above 0")
    return seconds


def _connect(
    address: str, cluster: Any, expected_workers: int, worker_timeout: float, tls: TlsFiles | None
) -> RemoteSession:
    import dask
    from distributed import Client

    timeout = dask.config.get("distributed.comm.timeouts.connect")
    security = client_security(address, tls)
    warn_plain_text(address)
    probe(address, timeout, security)
    # the probe answered, so a failure here is the scheduler's own; still one line
    try:
        client = Client(address, timeout=timeout, set_as_default=False, security=security)
    except (OSError, ValueError, TimeoutError) as exc:
        raise ToolError(f"cannot connect to the Dask scheduler at {address}: {one_line(exc)}") from None
    session = RemoteSession(client, address, cluster, expected_workers, worker_timeout, tls)
    if cluster is None:
        try:
            client.wait_for_workers(1, timeout=dask.utils.parse_timedelta(timeout))
        except (TimeoutError, OSError):
            client.close()
            raise ToolError(
                f"the Dask scheduler at {address} has no workers (waited {timeout}; "
                f"start some with `dask worker {address}`)"
            ) from None
    return session


# ---- the jobs the tasks run --------------------------------------------------------------------


def run_csim_remote(
    func_dir: str | Path,
    out_json: str | Path,
    timeout: float | None = None,
    *,
    project: str,
    outputs: Sequence[str] | None = None,
    session: RemoteSession | None = None,
) -> Any:
    """runtime.csim.run_csim on a Dask worker: the same CsimResult, out/ files and csim JSON, plus
    the worker's address and tool versions in the JSON; ToolError (the worker's reason) on a tool error."""
    folder = Path(func_dir)
    session = session or _required_session()
    job = Job(
        "csim",
        project,
        folder.name,
        pack_folder(folder),
        timeout=timeout,
        outputs=None if outputs is None else tuple(outputs),
    )
    result = session.run(job)
    write_files(folder, result.files)
    if result.document is not None:
        document = {**json.loads(result.document), "worker": result.worker, "tools": result.tools}
        write_text_atomic(Path(out_json), json.dumps(document, indent=2) + "\n")
    if result.error is not None or result.csim is None:
        raise ToolError(_local_reason(result, folder, job))
    return result.csim


def run_hls_steps_remote(
    folder: str | Path,
    func: str,
    steps: Sequence[str],
    *,
    project: str,
    flow: str = "auto",
    timeout: float | None = None,
    extra_files: Sequence[str | Path] = (),
    session: RemoteSession | None = None,
    reuse_synthesis: bool = False,
) -> list[Any]:
    """runtime.vitis.run_hls_steps on a Dask worker with the `vitis_hls` resource: the reports, logs
    and RTL come back into `folder`, with remote_<steps>.json saying where and with which tools.

    A job carries no synthesized project (gigabytes), so the worker synthesizes before a cosim even
    with `reuse_synthesis`; then only the cosim's results come back, and the RTL here stays the one
    the function's csynth made (a blackbox top's synthesis read it)."""

    folder = Path(folder)
    order = tuple(ordered_steps(steps))
    session = session or _required_session()
    files = pack_folder(folder, [*extra_files, *blackbox_inputs(folder)])
    job = Job("vitis", project, func, files, steps=order, flow=flow, timeout=timeout)
    result = session.run(job)
    if reuse_synthesis:
        result.files = {name: data for name, data in result.files.items() if "/syn/" not in f"/{name}"}
    write_files(folder, result.files)
    record = {
        "worker": result.worker,
        "tools": result.tools,
        "steps": list(order),
        "argv": result.argv,
        "seconds": result.seconds,
        "error": result.error and _local_reason(result, folder, job),
    }
    write_text_atomic(folder / f"{RECORD_PREFIX}{'_'.join(order)}.json", json.dumps(record, indent=2) + "\n")
    if result.error is not None:
        raise ToolError(_local_reason(result, folder, job))
    logs = sorted(folder.glob("*.log"))
    return [
        ToolRun(tuple(argv), folder, 0, logs[0] if logs else folder, result.seconds) for argv in result.argv
    ]


def run_call_remote(
    fn: Any, *args: Any, where: str, files: dict[str, bytes], session: RemoteSession | None = None
) -> Any:
    """fn(folder, *args) on a Dask worker, `files` (relative names -> bytes) written to a temporary
    folder there first: Python work that needs a project's files and no tool, such as an
    exploration's point (compile and estimate). fn and its result must pickle; workers need hclbuild."""
    session = session or _required_session()
    return session.call(where, _call_in_folder, fn, files, args)


def _call_in_folder(fn: Any, files: dict[str, bytes], args: tuple[Any, ...]) -> Any:
    """On the worker: the files in a temporary folder, fn(folder, *args), the folder removed."""
    import tempfile

    with (
        tool_processes.job_tools(current_key()),
        tempfile.TemporaryDirectory(prefix="hclbuild-call-") as tmp,
    ):
        folder = Path(tmp)
        write_files(folder, files)
        return fn(folder, *args)


def _required_session() -> RemoteSession:
    session = current()
    if session is None:
        raise ConfigError(f"no Dask scheduler: pass --scheduler/--cluster or set ${SCHEDULER_ENV}")
    return session


def _local_reason(result: JobResult, folder: Path, job: Job) -> str:
    """The worker's one-line reason, naming the local copies of its files and the worker."""
    reason = (result.error or f"{job.where}: the worker sent no result").replace(
        result.worker_folder, str(folder)
    )
    return f"{reason} (on worker {result.worker})"
