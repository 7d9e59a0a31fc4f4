"""A bounded, reproducible run of the differential fuzzer in the normal suite (bench/fuzz.py runs
thousands): for each random program the numpy model, hcl.build and csim of every function agree."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from .differential import run_program
from .program import Program
from .stages import programs

# derandomize: CI sees the same programs every run; no shrinking (each step is a csim run):
# a failure prints its program, which bench/fuzz.py's saved files and tests/e2e/test_fuzz_regressions.py
# take from there; the budget keeps the suite's share small
SUITE = settings(
    max_examples=6,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)


@pytest.mark.slow
@SUITE
@given(programs(max_stages=3))
def test_numpy_llvm_and_csim_agree_on_random_programs(program: Program) -> None:
    with tempfile.TemporaryDirectory(prefix="hclbuild-fuzz-") as folder:
        outcome = run_program(program, Path(folder))
    assert outcome.ok, f"{outcome}\n{program!r}"


@settings(
    max_examples=40,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
@given(programs(max_stages=4))
def test_numpy_and_llvm_agree_on_random_programs(program: Program) -> None:
    outcome = run_program(program, Path("."), csim=False)
    assert outcome.ok, f"{outcome}\n{program!r}"
