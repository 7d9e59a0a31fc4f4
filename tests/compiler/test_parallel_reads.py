"""Arguments a pipelined loop touches at more places an iteration than 2 x II are partitioned where
the accesses differ by constants (passes/parallel_reads.py): stream_pipeline's rgb planes, stencil
offsets, unrolled lanes; not where the ports suffice, the schedule partitions, or it is a stream."""

from __future__ import annotations

from pathlib import Path

import pytest
from emitted_projects import REPO, emit_projects

import hclbuild as hcl
from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.attrs import ArrayPartition
from hclbuild.compiler.pipeline import compile_schedule


def _arg_partitions(module, func: str = "top") -> dict[str, list[ArrayPartition]]:
    op = upstream.symbols(module)[func]
    names = attrs.arg_names(op) or []
    per_arg = attrs.arg_partitions(op) or [[] for _ in names]
    return dict(zip(names, per_arg))


def _planes(ii: int = 1, outline: bool = False, partition: bool = False):
    hcl.init(hcl.UInt(8))
    rgb = hcl.placeholder((3, 4, 6), "rgb")

    def kernel(rgb):
        return hcl.compute((4, 6), lambda y, x: rgb[0, y, x] + rgb[1, y, x] + rgb[2, y, x], name="gray")

    s = hcl.create_schedule([rgb], kernel)
    s[kernel.gray].pipeline(kernel.gray.axis[1], initiation_interval=ii)
    if partition:
        s.partition(rgb, hcl.Partition.Block, dim=2, factor=2)
    if outline:
        s.outline(kernel.gray)
    return compile_schedule(s).module


def test_three_planes_read_an_iteration_split_the_plane_dimension() -> None:
    assert _arg_partitions(_planes())["rgb"] == [ArrayPartition("complete", 1, 0)]


def test_the_partition_reaches_the_outlined_function_and_its_caller() -> None:
    module = _planes(outline=True)
    assert _arg_partitions(module, "Stage_gray")["rgb"] == [ArrayPartition("complete", 1, 0)]
    assert _arg_partitions(module)["rgb"] == [ArrayPartition("complete", 1, 0)]
    assert _arg_partitions(module)["gray"] == []


def test_an_ii_whose_ports_suffice_needs_no_partition() -> None:
    assert _arg_partitions(_planes(ii=2))["rgb"] == []  # 3 reads, 2 ports x II 2


def test_the_schedules_own_partition_is_kept() -> None:
    assert _arg_partitions(_planes(partition=True))["rgb"] == [ArrayPartition("block", 2, 2)]


def _window(taps: int):
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((16,), "A")

    def kernel(A):
        def total(i):
            value = A[i]
            for t in range(1, taps):
                value = value + A[i + t]
            return value

        return hcl.compute((16 - taps + 1,), total, name="B")

    s = hcl.create_schedule([A], kernel)
    s[kernel.B].pipeline(kernel.B.axis[0])
    return compile_schedule(s).module


@pytest.mark.parametrize(
    ("taps", "expected"),
    [(2, []), (3, [ArrayPartition("cyclic", 1, 2)]), (5, [ArrayPartition("cyclic", 1, 3)])],
)
def test_stencil_offsets_split_cyclically_by_the_fewest_banks(taps: int, expected) -> None:
    # i, i+1, i+2: banks i%2 and (i+1)%2 take two and one; five taps need three banks
    assert _arg_partitions(_window(taps))["A"] == expected


def test_unrolled_lanes_of_a_small_dimension_split_it_whole() -> None:
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8, 4), "A")

    def kernel(A):
        k = hcl.reduce_axis(0, 4, "k")
        return hcl.compute((8,), lambda i: hcl.sum(A[i, k], axis=k), name="S")

    s = hcl.create_schedule([A], kernel)
    s[kernel.S].pipeline(kernel.S.axis[0])
    assert _arg_partitions(compile_schedule(s).module)["A"] == [ArrayPartition("complete", 2, 0)]


def test_a_stream_is_never_partitioned() -> None:
    hcl.init(hcl.UInt(8))
    rgb = hcl.placeholder((3, 4, 6), "rgb")

    def kernel(rgb):
        planes = hcl.compute((3, 4, 6), lambda c, y, x: rgb[c, y, x] + 1, name="planes")
        return hcl.compute(
            (4, 6), lambda y, x: planes[0, y, x] + planes[1, y, x] + planes[2, y, x], name="gray"
        )

    s = hcl.create_schedule([rgb], kernel)
    s[kernel.gray].pipeline(kernel.gray.axis[1])
    s.to(kernel.planes, s[kernel.gray], depth=4)
    s.outline(kernel.planes)
    s.outline(kernel.gray)
    module = compile_schedule(s).module
    assert _arg_partitions(module, "Stage_gray")["planes"] == []


@pytest.mark.slow
@pytest.mark.parametrize("flow", ["vivado", "vitis"])
def test_stream_pipeline_gray_reads_its_three_planes_from_three_rams(flow: str, tmp_path: Path) -> None:
    emitted = emit_projects(tmp_path, [REPO / "projects" / "stream_pipeline"], flow=flow)
    gray = next(f for f in emitted if f.func == "Stage_gray").cpp
    if flow == "vivado":
        assert "  #pragma HLS array_partition variable=rgb type=complete dim=1\n" in gray
    else:  # no partition on an m_axi port: the local copy carries it
        assert "  #pragma HLS array_partition variable=rgb_local type=complete dim=1\n" in gray
        assert "      uint8_t rgb_local_0_y_x = rgb_local[0][y][x];\n" in gray
