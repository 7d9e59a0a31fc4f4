"""A crash in JIT code fails the reference task with a one-line reason; doit and other tasks live on."""

from __future__ import annotations

import os
import signal
import time

import pytest

from hclbuild.errors import ConfigError, CsimError
from hclbuild.runtime.isolate import IsolatedChild, run_isolated


def _divide(a: int, b: int) -> int:
    return a // b


def _raise_config() -> None:
    raise ConfigError("p: bad thing")


def _kill_self(sig: int) -> None:
    os.kill(os.getpid(), sig)


def test_result_comes_back() -> None:
    assert run_isolated(_divide, 7, 2, what="x") == 3


def test_hclbuild_errors_keep_their_class_and_message() -> None:
    with pytest.raises(ConfigError, match="^p: bad thing$"):
        run_isolated(_raise_config, what="x")


def test_other_exceptions_become_one_line() -> None:
    with pytest.raises(CsimError, match="^job failed: ZeroDivisionError: integer division or modulo by zero$"):
        run_isolated(_divide, 1, 0, what="job")


@pytest.mark.parametrize("sig, hint", [(signal.SIGFPE, "division by zero"), (signal.SIGSEGV, "outside a tensor")])
def test_a_fatal_signal_is_an_error_naming_it(sig: int, hint: str) -> None:
    with pytest.raises(CsimError, match=f"the reference died with {signal.Signals(sig).name} .*{hint}"):
        run_isolated(_kill_self, sig, what="the reference")


def _loaded(module: str) -> bool:
    import sys

    return module in sys.modules


def test_a_child_started_ahead_has_its_preload_imported_before_the_job() -> None:
    with IsolatedChild("x", preload=("colorsys",)) as child:
        assert child.run(_loaded, "colorsys") is True
    with IsolatedChild("x") as child:
        assert child.run(_loaded, "colorsys") is False


def test_a_child_given_no_job_exits_and_one_left_by_an_error_is_killed() -> None:
    with IsolatedChild("x") as idle:
        pass
    assert idle._proc.returncode == 0
    with pytest.raises(RuntimeError, match="lowering failed"):
        with IsolatedChild("x", preload=("numpy",)) as abandoned:
            raise RuntimeError("lowering failed")
    assert abandoned._proc.returncode == -signal.SIGKILL


def test_a_job_past_its_timeout_is_killed_with_a_one_line_error() -> None:
    with IsolatedChild("the run", timeout=0.5) as child:
        with pytest.raises(CsimError, match=r"^the run did not finish within 0.5 s$"):
            child.run(time.sleep, 30)
    assert child._proc.returncode == -signal.SIGKILL
