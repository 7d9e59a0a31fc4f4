"""A crash in JIT code fails the reference task with a one-line reason; doit and other tasks live on."""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from hclbuild.errors import ConfigError, CsimError
from hclbuild.runtime.isolate import run_isolated


def _divide(a: int, b: int) -> int:
    return a // b


def _raise_config() -> None:
    raise ConfigError("p: bad thing")


def _kill_self(sig: int) -> None:
    os.kill(os.getpid(), sig)


def test_result_comes_back() -> None:
    assert run_isolated(_divide, 7, 2, what="x") == 3


def test_hclbuild_errors_keep_their_class_and_message() -> None:
    with pytest.raises(ConfigError, match=r"^p: bad thing$"):
        run_isolated(_raise_config, what="x")


def test_other_exceptions_become_one_line() -> None:
    with pytest.raises(
        CsimError, match=r"^job failed: ZeroDivisionError: integer division or modulo by zero$"
    ):
        run_isolated(_divide, 1, 0, what="job")


@pytest.mark.parametrize(
    "sig, hint", [(signal.SIGFPE, "division by zero"), (signal.SIGSEGV, "outside a tensor")]
)
def test_a_fatal_signal_is_an_error_naming_it(sig: int, hint: str) -> None:
    with pytest.raises(CsimError, match=f"the reference died with {signal.Signals(sig).name} .*{hint}"):
        run_isolated(_kill_self, sig, what="the reference")


def _loaded(module: str) -> bool:
    import sys

    return module in sys.modules


def test_the_child_is_a_fork_holding_what_the_caller_imported() -> None:
    import colorsys  # noqa: F401 - the fork has it without importing it again; a fresh interpreter would not

    assert run_isolated(_loaded, "colorsys", what="x") is True


def _print_everywhere(count: int) -> int:
    import ctypes

    print("python stdout")
    print("python stderr", file=sys.stderr)
    os.write(1, b"fd 1\n")
    libc = ctypes.CDLL(None)
    libc.printf(b"printf %d\n", count)  # what the JIT's hcl.print calls
    libc.fflush(None)
    os.write(1, b"x" * 200_000)  # more than a pipe holds: the result cannot be behind it
    return count + 1


def test_what_the_child_prints_comes_back_beside_its_result(capsys: pytest.CaptureFixture) -> None:
    assert run_isolated(_print_everywhere, 41, what="x") == 42
    out = capsys.readouterr().out
    assert out.startswith("python stdout\npython stderr\nfd 1\nprintf 41\n")
    assert out.endswith("x" * 200_000)


def _unpicklable() -> object:
    return lambda: None


def test_a_result_that_does_not_pickle_is_a_one_line_error() -> None:
    with pytest.raises(CsimError, match=r"^job failed: its result does not pickle: "):
        run_isolated(_unpicklable, what="job")


def _write_pid_and_sleep(path: str) -> None:
    with open(path, "w") as handle:
        handle.write(str(os.getpid()))
    time.sleep(30)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_job_past_its_timeout_is_killed_with_a_one_line_error(tmp_path) -> None:
    pid_file = tmp_path / "pid"
    started = time.monotonic()
    with pytest.raises(CsimError, match=r"^the run did not finish within 0.5 s and was stopped$"):
        run_isolated(_write_pid_and_sleep, str(pid_file), what="the run", timeout=0.5)
    assert time.monotonic() - started < 10
    assert _gone(int(pid_file.read_text()))  # killed and reaped, no zombie


def test_an_interrupted_caller_kills_its_child(tmp_path) -> None:
    pid_file = tmp_path / "pid"

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        with pytest.raises(KeyboardInterrupt):
            run_isolated(_write_pid_and_sleep, str(pid_file), what="the run")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert _gone(int(pid_file.read_text()))
