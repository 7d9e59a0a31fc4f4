"""hcl.build(s, target="vhls") from the DSL: pragmas land where the schedule put them (exact lines)."""

from __future__ import annotations

from kernels import row_sum_times_b as _kernel

import hclbuild as hcl


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def test_pipeline_unroll_partition_dataflow_lines() -> None:
    s, kernel = _kernel()
    s[kernel.S].pipeline(kernel.S.axis[0], initiation_interval=2)
    s[kernel.S].unroll(kernel.S.axis[1], 4)
    s[kernel.P].unroll(kernel.P.axis[0])
    s.partition(kernel.S, hcl.Partition.Cyclic, dim=1, factor=4)
    s.partition(s.inputs[0], hcl.Partition.Block, dim=2, factor=2)
    s.dataflow()
    lines = _lines(hcl.build(s, target="vhls"))
    top = lines.index("void top(int32_t A[16][8], int32_t B[16], int32_t P[16]) {")
    assert lines[top + 1 : top + 6] == [
        "#pragma HLS interface mode=ap_memory port=A",
        "#pragma HLS interface mode=ap_memory port=B",
        "#pragma HLS interface mode=ap_memory port=P",
        "#pragma HLS interface mode=ap_ctrl_hs port=return",
        "#pragma HLS dataflow",
    ]
    assert "#pragma HLS array_partition variable=A type=block factor=2 dim=2" in lines
    decl = lines.index("int32_t S[16];")
    assert lines[decl + 1] == "#pragma HLS array_partition variable=S type=cyclic factor=4 dim=1"
    loop_i = lines.index("l_S_i: for (int i = 0; i < 16; i++) {")
    assert lines[loop_i + 1] == "#pragma HLS pipeline II=2"
    loop_k = lines.index("l_S_k: for (int k = 0; k < 8; k++) {")
    assert lines[loop_k + 1] == "#pragma HLS unroll factor=4"
    loop_p = lines.index("l_P_i: for (int i = 0; i < 16; i++) {")
    assert lines[loop_p + 1] == "#pragma HLS unroll"


def test_outlined_stage_is_its_own_function_before_the_top() -> None:
    s, kernel = _kernel()
    s[kernel.S].pipeline(kernel.S.axis[0])
    s.outline(kernel.S)
    text = hcl.build(s, target="vhls")
    lines = _lines(text)
    assert "void Stage_S(int32_t A[16][8], int32_t S[16]) {" in lines
    assert lines.index("void Stage_S(int32_t A[16][8], int32_t S[16]) {") < lines.index(
        "void top(int32_t A[16][8], int32_t B[16], int32_t P[16]) {"
    )
    assert "Stage_S(A, S);" in lines
    # the pragma travelled with the stage into its function, which keeps its own hierarchy level
    stage = text[
        text.index("void Stage_S(int32_t A[16][8], int32_t S[16]) {") : text.index(
            "void top(int32_t A[16][8], int32_t B[16], int32_t P[16]) {"
        )
    ]
    assert "#pragma HLS pipeline II=1" in stage
    assert _lines(stage)[1] == "#pragma HLS inline off"
    assert "interface" not in stage  # INTERFACE is for the top function only (UG1399)


def test_split_and_fuse_loop_labels() -> None:
    s, kernel = _kernel()
    s[kernel.P].split(kernel.P.axis[0], factor=4)
    text = hcl.build(s, target="vhls")
    assert "l_P_i_outer: for (int i_outer = 0; i_outer < 4; i_outer++) {" in _lines(text)
    assert "l_P_i_inner: for (int i_inner = 0; i_inner < 4; i_inner++) {" in _lines(text)
