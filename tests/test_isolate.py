"""A crash in JIT code fails the reference task with a one-line reason; doit and other tasks live on."""

from __future__ import annotations

import os
import signal

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
    with pytest.raises(ConfigError, match="^p: bad thing$"):
        run_isolated(_raise_config, what="x")


def test_other_exceptions_become_one_line() -> None:
    with pytest.raises(CsimError, match="^job failed: ZeroDivisionError: integer division or modulo by zero$"):
        run_isolated(_divide, 1, 0, what="job")


@pytest.mark.parametrize("sig, hint", [(signal.SIGFPE, "division by zero"), (signal.SIGSEGV, "outside a tensor")])
def test_a_fatal_signal_is_an_error_naming_it(sig: int, hint: str) -> None:
    with pytest.raises(CsimError, match=f"the reference died with {signal.Signals(sig).name} .*{hint}"):
        run_isolated(_kill_self, sig, what="the reference")
