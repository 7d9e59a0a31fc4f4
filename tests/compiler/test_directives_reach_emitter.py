"""Every directive a schedule can record reaches the HLS emitter as a pragma or a C++ construct, or
is refused with an error naming it: nothing a user asks for vanishes (issue 25's `parallel`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

import numpy as np
import pytest

import hclbuild as hcl
from hclbuild.errors import HCLNotImplementedError
from hclbuild.schedule.directives import LoopDirectives
from hclbuild.schedule.schedule import Schedule, Stage


def _gemm() -> tuple[Schedule, Any]:
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8, 6), "A")
    B = hcl.placeholder((6, 4), "B")

    def kernel(A: Any, B: Any) -> Any:
        k = hcl.reduce_axis(0, 6, "k")
        C = hcl.compute((8, 4), lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k), "C")
        return hcl.compute((7, 4), lambda i, j: C[i, j] + C[i + 1, j], "D")

    return hcl.create_schedule([A, B], kernel), kernel


def _cpp(apply: Callable[[Schedule, Any], Any]) -> str:
    s, kernel = _gemm()
    apply(s, kernel)
    return hcl.build(s, target="vhls")


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def _after(lines: list[str], header: str) -> str:
    return lines[lines.index(header) + 1]


def _split(s: Schedule, k: Any) -> None:
    s[k.C].split(k.C.axis[1], factor=2)


def _reorder(s: Schedule, k: Any) -> None:
    s[k.D].reorder(k.D.axis[1], k.D.axis[0])


def _fuse(s: Schedule, k: Any) -> None:
    s[k.D].fuse(k.D.axis[0], k.D.axis[1])


def _tile(s: Schedule, k: Any) -> None:
    s[k.D].tile(k.D.axis[0], k.D.axis[1], 4, 2)


def _unroll(s: Schedule, k: Any) -> None:
    s[k.C].unroll(k.C.axis[2], 3)


def _pipeline(s: Schedule, k: Any) -> None:
    s[k.C].pipeline(k.C.axis[1], 2)


def _parallel(s: Schedule, k: Any) -> None:
    s[k.C].parallel(k.C.axis[0])


def _stage_dataflow(s: Schedule, k: Any) -> None:
    s[k.C].dataflow(k.C.axis[0])


def _compute_at(s: Schedule, k: Any) -> None:
    s[k.C].compute_at(s[k.D], k.D.axis[0])


def _systolic(s: Schedule, k: Any) -> None:
    s[k.C].systolic()


def _stage_outline(s: Schedule, k: Any) -> None:
    s[k.C].outline(axis=k.C.axis[0])


def _partition(s: Schedule, k: Any) -> None:
    s.partition(k.C, hcl.Partition.Cyclic, dim=2, factor=2)


def _bind_storage(s: Schedule, k: Any) -> None:
    s.bind_storage(k.C, "RAM_2P")


def _reshape(s: Schedule, k: Any) -> None:
    s.reshape(k.C, (32,))


def _top_dataflow(s: Schedule, k: Any) -> None:
    s.dataflow()


def _stream(s: Schedule, k: Any) -> None:
    s.to(k.C, s[k.D], depth=3)


def _reuse_at(s: Schedule, k: Any) -> None:
    s.reuse_at(k.C, s[k.D], k.D.axis[0], "CR")


def _buffer_at(s: Schedule, k: Any) -> None:
    s.buffer_at(k.C, s[k.D], k.D.axis[0], "CB")


def _outline(s: Schedule, k: Any) -> None:
    s.outline(k.C)


def _check_split(lines: list[str]) -> None:
    assert "l_C_j_outer: for (int j_outer = 0; j_outer < 2; j_outer++) {" in lines
    assert "l_C_j_inner: for (int j_inner = 0; j_inner < 2; j_inner++) {" in lines


def _check_reorder(lines: list[str]) -> None:
    assert _after(lines, "l_D_j: for (int j = 0; j < 4; j++) {") == "l_D_i: for (int i = 0; i < 7; i++) {"


def _check_fuse(lines: list[str]) -> None:
    assert "l_D_i_j_fused: for (int i_j_fused = 0; i_j_fused < 28; i_j_fused++) {" in lines


def _check_tile(lines: list[str]) -> None:
    outer = "l_D_i_outer: for (int i_outer = 0; i_outer < 2; i_outer++) {"
    assert _after(lines, outer) == "l_D_j_outer: for (int j_outer = 0; j_outer < 2; j_outer++) {"


def _check_unroll(lines: list[str]) -> None:
    assert _after(lines, "l_C_k: for (int k = 0; k < 6; k++) {") == "#pragma HLS unroll factor=3"


def _check_pipeline(lines: list[str]) -> None:
    assert _after(lines, "l_C_j: for (int j = 0; j < 4; j++) {") == "#pragma HLS pipeline II=2"


def _check_stage_dataflow(lines: list[str]) -> None:
    assert _after(lines, "l_C_i: for (int i = 0; i < 8; i++) {") == "#pragma HLS dataflow"


def _check_compute_at(lines: list[str]) -> None:
    # C's nest now sits in D's loop i, computing the two rows of C that iteration reads
    assert "int32_t C[2][4];" in lines
    assert (
        _after(lines, "l_D_i: for (int i = 0; i < 7; i++) {")
        == "l_D_i_1: for (int i_1 = 0; i_1 < 2; i_1++) {"
    )


def _check_stage_outline(lines: list[str]) -> None:
    assert any(line.startswith("void Stage_C(") for line in lines)
    assert any(line.startswith("Stage_C(") for line in lines)


def _check_partition(lines: list[str]) -> None:
    assert (
        _after(lines, "int32_t C[8][4];")
        == "#pragma HLS array_partition variable=C type=cyclic factor=2 dim=2"
    )


def _check_bind_storage(lines: list[str]) -> None:
    assert _after(lines, "int32_t C[8][4];") == "#pragma HLS bind_storage variable=C type=ram_2p"


def _check_reshape(lines: list[str]) -> None:
    assert "int32_t C[32];" in lines


def _check_top_dataflow(lines: list[str]) -> None:
    top = next(k for k, line in enumerate(lines) if line.startswith("void top("))
    assert "#pragma HLS dataflow" in lines[top : top + 8]


def _check_stream(lines: list[str]) -> None:
    assert _after(lines, "hls::stream<int32_t> C;") == "#pragma HLS stream variable=C depth=3"


def _check_reuse_at(lines: list[str]) -> None:
    assert _after(lines, "int32_t CR[2][4];") == "#pragma HLS array_partition variable=CR type=complete dim=1"


def _check_buffer_at(lines: list[str]) -> None:
    assert "int32_t CB[2][4];" in lines and "int32_t CB_0_j = CB[0][j];" in lines


def _check_outline(lines: list[str]) -> None:
    assert "void Stage_C(int32_t A[8][6], int32_t B[6][4], int32_t C[8][4]) {" in lines


# primitive -> (apply it, check the C++) or (apply it, the error that refuses it)
EMITTED: dict[str, tuple[Callable[[Schedule, Any], Any], Callable[[list[str]], None]]] = {
    "Stage.split": (_split, _check_split),
    "Stage.reorder": (_reorder, _check_reorder),
    "Stage.fuse": (_fuse, _check_fuse),
    "Stage.tile": (_tile, _check_tile),
    "Stage.unroll": (_unroll, _check_unroll),
    "Stage.pipeline": (_pipeline, _check_pipeline),
    "Stage.dataflow": (_stage_dataflow, _check_stage_dataflow),
    "Stage.compute_at": (_compute_at, _check_compute_at),
    "Stage.outline": (_stage_outline, _check_stage_outline),
    "Schedule.partition": (_partition, _check_partition),
    "Schedule.reshape": (_reshape, _check_reshape),
    "Schedule.bind_storage": (_bind_storage, _check_bind_storage),
    "Schedule.dataflow": (_top_dataflow, _check_top_dataflow),
    "Schedule.to": (_stream, _check_stream),
    "Schedule.reuse_at": (_reuse_at, _check_reuse_at),
    "Schedule.buffer_at": (_buffer_at, _check_buffer_at),
    "Schedule.outline": (_outline, _check_outline),
}
REFUSED: dict[str, tuple[Callable[[Schedule, Any], Any], str]] = {
    "Stage.parallel": (_parallel, r"@top: stage C: parallel\(i\) has no Vitis HLS pragma; use unroll\(i\)"),
    "Stage.systolic": (_systolic, "systolic is not implemented"),
}
# public names of Stage and Schedule that record nothing for the hardware
QUERIES = {
    "Stage.axis",
    "Stage.op",
    "Stage.leaf_names",
    "Stage.reduction_loop_names",
    "Stage.current_loop",
    "Stage.spatial_loop",
    "Stage.shape",  # the stage's tensor's, as HeteroCL's stage handles have them
    "Stage.dtype",
    "Schedule.ast",
    "Schedule.module",
    "Schedule.top_func",
    "Schedule.device_module",
    "Schedule.device_top",
    "Schedule.DataflowGraph",
    "Schedule.stage_of",
    "Schedule.record_compute_at",  # what Stage.compute_at calls
    "Schedule.record_axis_outline",  # what Stage.outline(axis=) calls
}
# LoopDirectives field -> the primitive that sets it
DIRECTIVE_FIELDS = {
    "pipeline_ii": "Stage.pipeline",
    "unroll": "Stage.unroll",
    "parallel": "Stage.parallel",
    "dataflow": "Stage.dataflow",
}


def test_every_primitive_is_emitted_refused_or_a_query() -> None:
    # hcl.Schedule, what hcl.create_schedule makes: the schedule's records and s.module, s.top_func
    public = {
        f"{cls.__name__}.{name}"
        for cls in (Stage, hcl.Schedule)
        for name in dir(cls)
        if not name.startswith("_")
    }
    assert public == set(EMITTED) | set(REFUSED) | QUERIES


def test_every_loop_directive_field_has_its_primitive() -> None:
    assert {f.name for f in fields(LoopDirectives)} == set(DIRECTIVE_FIELDS)
    assert set(DIRECTIVE_FIELDS.values()) <= set(EMITTED) | set(REFUSED)


def test_nothing_scheduled_changes_nothing() -> None:
    lines = _lines(_cpp(lambda s, k: None))
    assert not any(line.startswith("#pragma HLS") and "interface" not in line for line in lines)


@pytest.mark.parametrize("primitive", sorted(EMITTED))
def test_a_recorded_directive_reaches_the_cpp(primitive: str) -> None:
    apply, check = EMITTED[primitive]
    check(_lines(_cpp(apply)))


@pytest.mark.parametrize("primitive", sorted(REFUSED))
def test_a_directive_without_a_vitis_meaning_is_refused_by_name(primitive: str) -> None:
    apply, message = REFUSED[primitive]
    with pytest.raises(HCLNotImplementedError, match=message):
        _cpp(apply)


def test_parallel_still_runs_on_the_llvm_reference(run: Any) -> None:
    s, kernel = _gemm()
    s[kernel.C].parallel(kernel.C.axis[0])
    a = np.arange(48, dtype=np.int32).reshape(8, 6) % 7
    b = np.arange(24, dtype=np.int32).reshape(6, 4) % 5
    c = a @ b
    np.testing.assert_array_equal(run(s, a, b), c[:-1] + c[1:])
