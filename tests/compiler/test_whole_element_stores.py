"""Stores to fixed-point memory write the element whole: an ap_fixed value, or raw bits put into an
ap_fixed local first (`v.range(31, 0) = bits; Y[i] = v;`), never `Y[i].range(31, 0) = bits;`, which HLS makes a
read-modify-write of the element (a write-only port turns read/write; on m_axi it stops write
bursts). csim stays bit-exact."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from emitted_projects import REPO, emit_projects

from hclbuild.project.config import load_project
from hclbuild.project.flow import compile_project, emit_function
from hclbuild.project.layout import BuildLayout
from hclbuild.project.reference import run_reference
from hclbuild.runtime.csim import run_csim

# an assignment to a part-select of an array element: `name[...]...[...].range(hi, lo) = ...`
PART_SELECT_STORE = re.compile(r"\w+(?:\[[^\]]*\])+\.range\(\d+, \d+\) = ")


def test_the_pattern_finds_a_part_select_store() -> None:
    assert PART_SELECT_STORE.search("      Y[v4].range(31, 0) = v12;")
    assert PART_SELECT_STORE.search("conv1[co][y][x].range(15, 0) = v53;")
    assert not PART_SELECT_STORE.search("      v13.range(31, 0) = v12;")
    assert not PART_SELECT_STORE.search("      int32_t v8 = sum_acc[0].range(31, 0);")


@pytest.mark.slow
@pytest.mark.parametrize("flow", ["vivado", "vitis"])
def test_no_project_stores_part_of_an_array_element(flow: str, tmp_path: Path) -> None:
    folders = [REPO / "projects" / name for name in ("fir_fixed", "resnet20", "resnet_block")]
    emitted = emit_projects(tmp_path, folders, flow=flow)
    stores = [
        f"{f.project}/{f.func}: {line.strip()}"
        for f in emitted
        for line in f.cpp.splitlines()
        if PART_SELECT_STORE.search(line)
    ]
    assert stores == []
    fir = next(f for f in emitted if f.project == "fir_fixed").cpp.splitlines()
    # the output is stored whole (the line that read `Y[v6].range(31, 0) = v16;`): the ap_fixed
    # accumulator itself, as the MACs are ap_fixed arithmetic (emit_hls/fixed_plan.py)
    assert any(re.fullmatch(r"\s*Y\[n_m15\] = Y_sum;", line) for line in fir)
    conv1 = next(f for f in emitted if (f.project, f.func) == ("resnet20", "Stage_conv1")).cpp
    # (on m_axi, conv1 is partitioned for the next conv's window: it is stored into its local copy)
    assert re.search(r"\n\s*conv1(_local)?\[co\]\[y\]\[x\] = v\d+ \? v\d+ : ap_fixed<33, 19>\(0\);\n", conv1)


@pytest.mark.slow
def test_fir_fixed_stays_bit_exact(tmp_path: Path) -> None:
    project = load_project(REPO / "projects" / "fir_fixed")
    layout = BuildLayout(tmp_path, project.name)
    manifest = compile_project(project, layout)
    assert run_reference(project, layout).model_checked is True
    for func in manifest.design.functions:
        emit_function(project, layout, func)
        csim = run_csim(layout.hls_dir(func), layout.csim_json(func), project=project.name)
        assert csim.passed and csim.mismatches == 0 and csim.compared == 143 + 16 + 128, (
            csim.summary
        )  # X, H and Y
