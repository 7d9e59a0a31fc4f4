"""project.lowering: ir/top.mlir -> llvm/units/ once per design, relowered when either changes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import hclbuild as hcl
from hclbuild.errors import CompileError, ConfigError
from hclbuild.project import lowering
from hclbuild.project.config import ProjectConfig
from hclbuild.project.flow import write_design_ir
from hclbuild.project.golden import read_vectors
from hclbuild.project.layout import BuildLayout
from hclbuild.project.lowering import lower_design
from hclbuild.project.manifest import read_lowered_design
from hclbuild.project.reference import reference_design


def _schedule(offset: int):
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((4, 4), "A")

    def kernel(A):
        B = hcl.compute((4, 4), lambda i, j: A[i, j] + offset, name="B")
        return hcl.compute((4, 4), lambda i, j: B[j, i] * 2, name="C")

    s = hcl.create_schedule([A], kernel)
    s.outline(s[kernel.B])
    return s


def _lowered(tmp_path: Path, offset: int = 1) -> BuildLayout:
    layout = BuildLayout(tmp_path, "low")
    write_design_ir(_schedule(offset), layout, "low")
    lower_design(layout)
    return layout


def test_lowering_records_its_source_and_the_reference_runs_from_it(tmp_path: Path) -> None:
    layout = _lowered(tmp_path)
    manifest = read_lowered_design(layout)
    assert [site["callee"] for site in manifest.probes] == ["Stage_B"]
    assert len(manifest.source) == 64
    # one file per function (the C-interface wrapper of the top is one), each defining just it
    assert [(unit["name"], unit["file"]) for unit in manifest.units] == [
        ("Stage_B", "Stage_B.ll"),
        ("top", "top.ll"),
        ("_mlir_ciface_top", "mlir_ciface_top.ll"),
    ]
    top = (layout.llvm_units_dir / "top.ll").read_text()
    assert (
        "define void @top(" in top and "declare void @Stage_B(" in top and "define void @Stage_B(" not in top
    )
    assert sorted(p.name for p in layout.llvm_units_dir.iterdir()) == [
        "Stage_B.ll",
        "mlir_ciface_top.ll",
        "top.ll",
    ]
    config = ProjectConfig(name="low", seed=3)
    reference_design(layout, "low", config)
    golden = read_vectors(layout.golden_dir("Stage_B"))
    (a, _), (b, _) = golden.inputs["A"], golden.outputs["B"]
    np.testing.assert_array_equal(b, a + 1)


def test_same_ir_is_not_lowered_again_and_a_changed_one_is(tmp_path: Path, monkeypatch) -> None:
    layout = _lowered(tmp_path)
    stage_b = layout.llvm_units_dir / "Stage_B.ll"
    source, text, low = (
        read_lowered_design(layout).source,
        stage_b.read_text(),
        (layout.llvm_units_dir / "top.ll"),
    )
    low_before = low.stat().st_mtime_ns
    calls = []
    real = lowering._instrument_and_lower
    monkeypatch.setattr(lowering, "_instrument_and_lower", lambda *args: calls.append(1) or real(*args))
    stage_b.touch()
    layout.top_mlir.touch()  # later mtimes: only the bytes count
    lower_design(layout)
    assert calls == []
    write_design_ir(_schedule(5), layout, "low")
    lower_design(layout)
    assert calls == [1]
    assert "5" in stage_b.read_text() and stage_b.read_text() != text
    assert low.stat().st_mtime_ns == low_before  # the unchanged function's unit is not rewritten
    assert read_lowered_design(layout).source != source


def test_a_damaged_or_missing_unit_is_lowered_again(tmp_path: Path) -> None:
    layout = _lowered(tmp_path)
    unit = layout.llvm_units_dir / "Stage_B.ll"
    good = unit.read_text()
    unit.write_text("garbage\n")
    lower_design(layout)
    assert unit.read_text() == good
    unit.unlink()
    lower_design(layout)
    assert unit.read_text() == good


def test_missing_or_broken_inputs_are_one_line_errors(tmp_path: Path) -> None:
    layout = BuildLayout(tmp_path, "none")
    with pytest.raises(ConfigError, match=r"top.mlir: unreadable .*run compile first"):
        lower_design(layout)
    with pytest.raises(ConfigError, match="unreadable LLVM manifest"):
        read_lowered_design(layout)
    layout.top_mlir.parent.mkdir(parents=True)
    layout.top_mlir.write_text("func.func @f( {\n")
    with pytest.raises(CompileError, match=r"top.mlir: does not parse \(.*\); run compile again"):
        lower_design(layout)
    layout.llvm_dir.mkdir(parents=True)
    layout.llvm_manifest.write_text(json.dumps({"format": "other"}))
    with pytest.raises(ConfigError, match="not an hclbuild LLVM manifest"):
        read_lowered_design(layout)
