"""A real one-node Slurm cluster on localhost for the tests: munged, slurmctld and slurmd (Debian's
`munge` and `slurm-wlm`), each started in the foreground with files of its own in a temporary folder
(slurm.conf with this machine's CPUs and memory as `slurmd -C` reports them, a munge key made here),
so that nothing of the system's own Slurm or munge configuration is read or changed.

The daemons must run as root (slurmd starts jobs as their users), which CI does; elsewhere the
fixture skips with the reason. Plugins are the ones that work in a container without cgroups:
proctrack/linuxproc, task/none, no accounting storage (the controller's job counter, `sdiag`,
counts submissions instead of sacct).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

COMMANDS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo", "sdiag")
NODE = "hclnode"
PARTITION = "debug"  # the default partition: the node's cores
CLOSED_PARTITION = "closed"  # State=DOWN: jobs are accepted and never started
STARTUP_TIMEOUT = 60.0


def why_not_available() -> str | None:
    """Why a Slurm cluster cannot be started here, or None when it can be."""
    missing = [name for name in COMMANDS if shutil.which(name) is None]
    if missing:
        return (
            f"Slurm and munge are not installed ({', '.join(missing)} not on PATH): "
            "`apt-get install slurm-wlm munge` (scripts/setup.sh does this as root)"
        )
    if os.geteuid() != 0:
        return f"the Slurm daemons must run as root (slurmd starts jobs as their users); this is uid {os.geteuid()}"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _node_line() -> str:
    """This machine as `slurmd -C` describes it (CPUs, sockets, cores, RealMemory), named NODE."""
    described = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True, timeout=60)
    words = described.stdout.splitlines()[0].split()
    assert words[0].startswith("NodeName="), described.stdout
    return " ".join([f"NodeName={NODE}", "NodeAddr=127.0.0.1", *words[1:]])


@dataclass
class LocalSlurm:
    """The daemons of one cluster and the commands the tests run against it."""

    root: Path
    socket_dir: Path  # munged wants every folder above its socket open to all: one in /tmp of its own
    conf: Path
    daemons: dict[str, subprocess.Popen] = field(default_factory=dict)

    @property
    def env(self) -> dict[str, str]:
        """What Slurm's commands need to find this cluster."""
        return {"SLURM_CONF": str(self.conf)}

    @property
    def spool(self) -> Path:
        return self.root / "spool"

    def command(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run one of Slurm's commands against this cluster."""
        return subprocess.run(
            argv, capture_output=True, text=True, check=check, timeout=60, env={**os.environ, **self.env}
        )

    def submitted(self) -> int:
        """How many jobs the controller has been given since it started (sdiag's counter)."""
        for line in self.command("sdiag").stdout.splitlines():
            if line.strip().startswith("Jobs submitted:"):
                return int(line.split(":")[1])
        raise AssertionError("sdiag printed no 'Jobs submitted' line")

    def queue(self) -> list[tuple[str, str, str]]:
        """(job id, state, partition) of every job the controller still knows as pending or running."""
        listed = self.command("squeue", "-h", "-o", "%i %T %P").stdout
        return [tuple(line.split()) for line in listed.splitlines() if line.strip()]  # type: ignore[misc]

    def cancel(self, job_id: str) -> None:
        self.command("scancel", job_id)

    def node_state(self) -> str:
        return self.command(
            "sinfo", "-h", "-n", NODE, "-p", PARTITION, "-o", "%T", check=False
        ).stdout.strip()

    def wait_for_empty_queue(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while self.queue():
            if time.monotonic() > deadline:
                raise AssertionError(f"jobs still queued after {timeout:g} s: {self.queue()}")
            time.sleep(0.5)

    def step_sockets(self) -> list[Path]:
        """The sockets slurmstepd (one per running job step) keeps in the spool folder."""
        return sorted(path for path in self.spool.glob(f"{NODE}_*") if path.is_socket())

    def leftovers(self) -> list[str]:
        """What of this cluster still runs: daemons, job steps (none after stop())."""
        left = [
            f"{name} (pid {process.pid})" for name, process in self.daemons.items() if process.poll() is None
        ]
        left += [f"job step socket {path.name}" for path in self.step_sockets()]
        return left

    def logs(self) -> str:
        return "\n".join(
            f"--- {path.name}:\n" + "\n".join(path.read_text(errors="replace").splitlines()[-15:])
            for path in sorted((self.root / "log").glob("*.log"))
        )

    def stop(self) -> None:
        """Cancel every job, wait for their steps to end, then stop slurmd, slurmctld and munged."""
        if "slurmctld" in self.daemons and self.daemons["slurmctld"].poll() is None:
            self.command("scancel", "--user", str(os.getuid()), check=False)
            deadline = time.monotonic() + 30
            while (self.queue() or self.step_sockets()) and time.monotonic() < deadline:
                time.sleep(0.5)
        for name in ("slurmd", "slurmctld", "munged"):
            process = self.daemons.get(name)
            if process is None or process.poll() is not None:
                continue
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(self.socket_dir, ignore_errors=True)


def _write_conf(root: Path, munge_socket: Path) -> Path:
    for sub in ("state", "spool", "log", "jobs"):
        (root / sub).mkdir(exist_ok=True)
    host = socket.gethostname()
    lines = [
        f"ClusterName=hcl{os.getpid()}",
        f"SlurmctldHost={host}(127.0.0.1)",
        f"SlurmctldPort={_free_port()}",
        f"SlurmdPort={_free_port()}",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={munge_socket}",
        f"StateSaveLocation={root / 'state'}",
        f"SlurmdSpoolDir={root / 'spool'}",
        f"SlurmctldPidFile={root / 'slurmctld.pid'}",
        f"SlurmdPidFile={root / 'slurmd.pid'}",
        f"SlurmctldLogFile={root / 'log' / 'slurmctld.log'}",
        f"SlurmdLogFile={root / 'log' / 'slurmd.log'}",
        # what works in a container: no cgroups, no accounting daemon
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "JobCompType=jobcomp/none",
        "MpiDefault=none",
        # one job a core, so that two one-core worker jobs run side by side
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core",
        "SchedulerType=sched/backfill",
        "ReturnToService=2",
        "SlurmdTimeout=60",
        "InactiveLimit=0",
        "KillWait=5",
        "MinJobAge=30",
        f"{_node_line()} State=UNKNOWN",
        f"PartitionName={PARTITION} Nodes={NODE} Default=YES MaxTime=INFINITE State=UP",
        f"PartitionName={CLOSED_PARTITION} Nodes={NODE} MaxTime=INFINITE State=DOWN",
    ]
    conf = root / "slurm.conf"
    conf.write_text("\n".join(lines) + "\n")
    return conf


def start_local_slurm(root: Path) -> LocalSlurm:
    """Start munged, slurmctld and slurmd on localhost; wait until the node is idle."""
    socket_dir = Path(tempfile.mkdtemp(prefix="hclbuild-munge-"))
    socket_dir.chmod(0o755)
    munge_socket = socket_dir / "munge.socket"
    slurm = LocalSlurm(root, socket_dir, _write_conf(root, munge_socket))
    key = root / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    log = root / "log"
    env = {**os.environ, **slurm.env}
    try:
        munged = [
            "munged",
            "--foreground",
            f"--key-file={key}",
            f"--socket={munge_socket}",
            f"--pid-file={root / 'munged.pid'}",
            f"--log-file={log / 'munged.log'}",
            f"--seed-file={root / 'munged.seed'}",
        ]
        for name, argv in (
            ("munged", munged),
            ("slurmctld", ["slurmctld", "-D", "-i", "-f", str(slurm.conf)]),
            ("slurmd", ["slurmd", "-D", "-f", str(slurm.conf), "-N", NODE]),
        ):
            with open(log / f"{name}.stderr.log", "wb") as stderr:
                slurm.daemons[name] = subprocess.Popen(
                    argv, stdout=subprocess.DEVNULL, stderr=stderr, env=env
                )
            if name == "munged":
                _wait(munge_socket.is_socket, slurm, "munged made no socket")
        _wait(lambda: slurm.node_state() == "idle", slurm, "the node did not become idle")
    except BaseException:
        slurm.stop()
        raise
    return slurm


def _wait(ready: Callable[[], bool], slurm: LocalSlurm, what: str) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while not ready():
        dead = [name for name, process in slurm.daemons.items() if process.poll() is not None]
        if dead or time.monotonic() > deadline:
            raise RuntimeError(f"Slurm did not start ({what}; exited: {dead or 'none'}):\n{slurm.logs()}")
        time.sleep(0.3)
