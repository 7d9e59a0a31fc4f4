"""Shared fixtures of the DSL tests: a clean hcl.init() per test and a build-and-run helper."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hclbuild as hcl


@pytest.fixture(autouse=True)
def reset_default_dtype() -> Any:
    """Every test starts (and leaves) with hcl.init()'s default dtype, Int(32)."""
    hcl.init()
    yield
    hcl.init()


def _run(schedule: Any, *inputs: Any) -> Any:
    """Build `schedule` for LLVM, call it with `inputs` plus zeroed outputs, return the outputs.

    Outputs are plain numpy arrays of the output dtype's container (odd-width ints come back as
    numbers, see hclbuild.runtime.llvm); one output is returned bare, several as a list.
    """
    fn = hcl.build(schedule)
    specs = fn.signature.args[len(inputs) :]
    outputs = [np.zeros(spec.shape, dtype=spec.dtype.np_storage) for spec in specs]
    fn(*inputs, *outputs)
    if len(outputs) == 1:
        return outputs[0]
    return outputs


@pytest.fixture
def run() -> Callable[..., Any]:
    """run(schedule, *inputs) -> output array(s) of the LLVM build."""
    return _run


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)


@pytest.fixture
def fake_vitis(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Stand-in vitis_hls / vitis-run / v++ for this test: call .install(...) to put them on PATH
    (see tests/fake_vitis/__init__.py for what they record and write)."""
    from fake_vitis import FakeVitis

    return FakeVitis(tmp_path_factory.mktemp("fake_vitis"), monkeypatch)
