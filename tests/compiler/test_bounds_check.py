"""Bounds checks of the reference: provably safe subscripts are not guarded, the others still fire."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hclbuild as hcl
from hclbuild.compiler.passes.bounds_check import bounds_check
from hclbuild.compiler.pipeline import compile_schedule
from hclbuild.errors import CsimError
from hclbuild.project.config import ProjectConfig
from hclbuild.project.flow import compile_design
from hclbuild.project.layout import BuildLayout
from hclbuild.project.reference import reference_design


def _checks(s):
    design = compile_schedule(s)
    with design.module.context:
        checks = bounds_check(design.module)
        return checks, str(design.module)


def test_affine_subscripts_inside_the_shape_are_not_guarded() -> None:
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((10, 10), "A")

    def kernel(A):
        return hcl.compute(
            (8, 8), lambda i, j: A[i + 2, j * 1] + A[i, 9 - j] + A[i + j // 1 * 1, 0], name="B"
        )

    s = hcl.create_schedule([A], kernel)
    s[kernel.B].split(kernel.B.axis[0], 4)
    checks, text = _checks(s)
    # i+j reaches 14 > 9: that subscript alone stays guarded; everything else is proven
    assert [(c.tensor, c.kind) for c in checks] == [("A", "load")]
    assert text.count("scf.if") == 2  # the guard and its report of dimension 0


def test_a_guard_reports_the_original_dimension(tmp_path: Path) -> None:
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8, 8), "A")
    s = hcl.create_schedule([A], lambda A: hcl.compute((8, 8), lambda i, j: A[j, i + 1], name="shift"))
    layout = BuildLayout(tmp_path, "shift")
    compiled = compile_design(s, layout, "shift")
    assert len(compiled.lowered.bounds) == 1  # only A's second subscript can leave the shape
    config = ProjectConfig(name="shift")
    with pytest.raises(CsimError, match=r"stage shift reads A outside its shape \(8, 8\): subscript 1 is 8"):
        reference_design(layout, "shift", config)


def test_in_bounds_reference_matches_numpy(tmp_path: Path) -> None:
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8, 8), "A")
    s = hcl.create_schedule(
        [A], lambda A: hcl.compute((7, 8), lambda i, j: A[i + 1, 7 - j] - A[i, j], name="d")
    )
    layout = BuildLayout(tmp_path, "diff")
    assert compile_design(s, layout, "diff").lowered.bounds == []
    a = np.arange(64, dtype=np.int32).reshape(8, 8)
    result = reference_design(
        layout,
        "diff",
        ProjectConfig(name="diff"),
        inputs_fn=lambda rng: [a],
        model_fn=lambda A: A[1:, ::-1] - A[:-1],
    )
    assert result.model_checked
