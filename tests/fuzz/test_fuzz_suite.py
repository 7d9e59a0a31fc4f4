"""A bounded, reproducible run of the differential fuzzer in the normal suite (bench/fuzz.py runs
thousands): for each random program the numpy model, hcl.build and csim of every function agree."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings

import hclbuild as hcl

from .differential import _one_value, run_program
from .program import Program
from .semantics import Ty
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


def test_inputs_of_a_symmetric_saturating_type_are_values_of_it() -> None:
    # -2**(w-1) is no value of a signed AP_SAT_SYM type: hclbuild converts it into the type as
    # ap_fixed does (to -max) when inputs() hands it over as a float, while the model and hcl.build
    # took its raw bits, so the fuzzer reported its own input as a disagreement
    ty = Ty("fixed", 12, 8, overflow="AP_SAT_SYM")
    rng = np.random.default_rng(0)
    drawn = {_one_value(rng, ty) for _ in range(2000)}
    assert ty.lowest() not in drawn
    assert min(drawn) == -ty.highest() and max(drawn) == ty.highest()
    raw_min = np.array([ty.lowest() / 2**ty.frac])
    converted = hcl.asarray(raw_min, dtype=hcl.Fixed(12, 8, overflow="AP_SAT_SYM")).asnumpy()
    assert converted.tolist() == [-ty.highest() / 2**ty.frac]
    # a type without the symmetric mode keeps its most negative value
    assert hcl.asarray(raw_min, dtype=hcl.Fixed(12, 8)).asnumpy().tolist() == raw_min.tolist()
