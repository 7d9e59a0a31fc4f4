"""Pipelined loops whose II an argument's ports forbid are named when the design compiles
(compiler/port_limits.py), in one line: function, loop, requested and achievable II, the reason."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from emitted_projects import PROJECTS
from mlir import ir

import hclbuild as hcl
from hclbuild.compiler.context import new_context
from hclbuild.compiler.pipeline import compile_schedule
from hclbuild.compiler.port_limits import port_limited_loops
from hclbuild.project.config import load_project
from hclbuild.project.flow import compile_design, write_project_ir
from hclbuild.project.layout import BuildLayout


def _limits(s) -> list[str]:
    return [limit.message for limit in port_limited_loops(compile_schedule(s).module)]


def _planes(ii: int = 1, partition: bool = False):
    hcl.init(hcl.UInt(8))
    rgb = hcl.placeholder((3, 4, 6), "rgb")

    def kernel(rgb):
        return hcl.compute((4, 6), lambda y, x: rgb[0, y, x] + rgb[1, y, x] + rgb[2, y, x], name="gray")

    s = hcl.create_schedule([rgb], kernel)
    s[kernel.gray].pipeline(kernel.gray.axis[1], initiation_interval=ii)
    if partition:
        s.partition(rgb, hcl.Partition.Block, dim=2, factor=2)
    s.outline(kernel.gray)
    return s


def _transpose_sum(ii: int = 1):
    """A[i][j] + A[j][i] + A[j][j]: three reads an iteration that no one dimension separates."""
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((6, 6), "A")

    def kernel(A):
        return hcl.compute((6, 6), lambda i, j: A[i, j] + A[j, i] + A[j, j], name="sym")

    s = hcl.create_schedule([A], kernel)
    s[kernel.sym].pipeline(kernel.sym.axis[1], initiation_interval=ii)
    return s


def _stencil(factor: int | None):
    """A 3x3 average in place: nine reads and a write of A an iteration, at offsets -1..1."""
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8, 8), "A")

    def kernel(A):
        def point(y, x):
            i, j = y + 1, x + 1
            A[i, j] = sum(A[i + r, j + c] for r in (-1, 0, 1) for c in (-1, 0, 1))

        hcl.mutate((6, 6), point, name="sweep")

    s = hcl.create_schedule([A], kernel)
    s[kernel.sweep].pipeline(s[kernel.sweep].axis[1])
    if factor is not None:
        s.partition(A, hcl.Partition.Cyclic, dim=0, factor=factor)
    return s


def test_the_three_colour_planes_meet_ii_1_once_split() -> None:
    # passes/parallel_reads.py split rgb along its planes: one read of each RAM an iteration
    assert _limits(_planes()) == []


def test_a_partition_that_does_not_separate_the_reads_is_named() -> None:
    assert _limits(_planes(partition=True)) == [
        "Stage_gray: loop l_gray_x asks II=1; 3 reads of rgb per iteration on 2 ports give II=2"
    ]


def test_reads_no_dimension_separates_give_the_ii_the_ports_allow() -> None:
    assert _limits(_transpose_sum()) == [
        "top: loop l_sym_j asks II=1; 3 reads of A per iteration on 2 ports give II=2"
    ]
    assert _limits(_transpose_sum(ii=2)) == []  # 3 accesses, 2 ports x II 2


def test_a_cyclic_partition_by_the_stencil_width_separates_its_offsets() -> None:
    assert _limits(_stencil(None)) == [
        "top: loop l_sweep_x asks II=1; 9 reads and 1 write of A per iteration on 2 ports give II=5"
    ]
    # A[i+r][j+c] for r, c in -1..1 are nine banks of a cyclic-3 partition in both dimensions; the
    # write A[i][j] shares the bank of the read A[i][j]: 2 accesses, 2 ports
    assert _limits(_stencil(3)) == []
    # by 2 the offsets -1 and 1 meet in one bank of each dimension: the four corners share a RAM
    assert _limits(_stencil(2)) == [
        "top: loop l_sweep_x asks II=1; 4 reads of A per iteration on 2 ports give II=2"
    ]


def test_the_compile_step_prints_each_limited_loop_as_one_warning_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    compile_design(_transpose_sum(), BuildLayout(tmp_path, "sym"), "sym")
    assert capsys.readouterr().err == (
        "hclbuild: warning: sym: top: loop l_sym_j asks II=1; 3 reads of A per iteration on 2 ports give II=2\n"
    )


@pytest.mark.slow
def test_every_example_loop_gets_its_ii_from_its_argument_ports() -> None:
    """Over every example project, no pipelined loop reaches one RAM of an argument at more places
    than its II allows (digitrec's knn_mat had been partitioned along its columns only: the rows
    of a column stayed one RAM, read five times and written once an iteration, II=3)."""
    found: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as build:
        for folder in PROJECTS:
            project = load_project(folder)
            layout = BuildLayout(Path(build), project.name)
            write_project_ir(project, layout)
            with new_context():
                module = ir.Module.parse(layout.top_mlir.read_text(encoding="utf-8"))
                limits = [limit.message for limit in port_limited_loops(module)]
            if limits:
                found[project.name] = limits
    assert found == {}


def test_a_column_partition_leaves_knn_mats_rows_on_one_ram_a_column() -> None:
    hcl.init(hcl.UInt(6))
    knn_mat = hcl.placeholder((10, 3), "knn_mat")
    dist = hcl.placeholder((10, 4), "dist")

    def kernel(knn_mat, dist):
        def update(x, y):
            max_id = hcl.scalar(0, "max_id", dtype=hcl.Int(32))
            with hcl.for_(0, 3, name="cand") as k, hcl.if_(knn_mat[x, k] > knn_mat[x, max_id.v]):
                max_id.v = k
            with hcl.if_(dist[x, y] < knn_mat[x, max_id.v]):
                knn_mat[x, max_id.v] = dist[x, y]

        hcl.mutate((10, 4), update, "knn_update")

    def limits(dim: int) -> list[str]:
        s = hcl.create_schedule([knn_mat, dist], kernel)
        x, y = s[kernel.knn_update].axis[:2]
        s[kernel.knn_update].reorder(y, x)
        s[kernel.knn_update].pipeline(x)
        s.partition(knn_mat, hcl.Partition.Complete, dim=dim)
        return _limits(s)

    assert limits(2) == [
        "top: loop l_knn_update_x asks II=1; 5 reads and 1 write of knn_mat per iteration on 2 ports give II=3"
    ]
    assert limits(0) == []  # registers
