"""s.to(tensor, s[consumer]): FIFO streams between stages, dataflow regions, FIFO-order checks."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memory_helpers import csim_flow

import hclbuild as hcl
from hclbuild.errors import APIError, CsimError, HCLNotImplementedError
from hclbuild.project.config import ProjectConfig
from hclbuild.project.flow import compile_design
from hclbuild.project.golden import read_vectors
from hclbuild.project.layout import BuildLayout
from hclbuild.project.reference import reference_design


def _chain(outline: bool = True) -> tuple[Any, Any]:
    hcl.init()
    A = hcl.placeholder((4, 8), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((4, 8), lambda i, j: A[i, j] + 1, "B")
        C = hcl.compute((4, 8), lambda i, j: B[i, j] * 2, "C")
        return hcl.compute((4, 8), lambda i, j: C[i, j] - 3, "D")

    s = hcl.create_schedule([A], kernel)
    s.to(kernel.B, s[kernel.C], depth=4)
    s.to(kernel.C, s[kernel.D], fifo_depth=8)  # HeteroCL's spelling
    if outline:
        s.outline(kernel.B)
        s.outline(kernel.C)
        s.outline(kernel.D)
    return s, kernel


def _chain_np(a: np.ndarray) -> np.ndarray:
    return (a + 1) * 2 - 3


def test_streams_in_the_ir() -> None:
    s, _ = _chain()
    text = str(hcl.lower(s))
    assert re.search(r'hcl.name = "B", hcl.stream = 4 : i64\} : memref<4x8xi32>', text)
    assert re.search(r'hcl.name = "C", hcl.stream = 8 : i64\} : memref<4x8xi32>', text)
    assert 'hcl.arg_streams = ["", "write:4"]' in text  # Stage_B(A, B)
    assert 'hcl.arg_streams = ["read:4", "write:8"]' in text  # Stage_C(B, C)
    assert re.search(r"func.func @top\(.*\) attributes \{hcl.arg_names = .*, hcl.dataflow, hcl.top\}", text)


def test_streams_in_the_cpp() -> None:
    s, _ = _chain()
    code = hcl.build(s, target="vhls")
    assert '#include "hls_stream.h"' in code
    assert "void Stage_C(hls::stream<int32_t> &B, hls::stream<int32_t> &C);" in code
    top = code[code.index("void top(int32_t A[4][8], int32_t D[4][8]) {") :]
    assert top.splitlines()[1:4] == [
        "  #pragma HLS interface mode=ap_memory port=A",
        "  #pragma HLS interface mode=ap_memory port=D",
        "  #pragma HLS interface mode=ap_ctrl_hs port=return",
    ]
    assert top.splitlines()[4:9] == [
        "  #pragma HLS dataflow",
        "  hls::stream<int32_t> B;",
        "  #pragma HLS stream variable=B depth=4",
        "  hls::stream<int32_t> C;",
        "  #pragma HLS stream variable=C depth=8",
    ]
    assert "B.write(v0);" in code and "int32_t B_read = B.read();" in code and "C.read()" in code


def test_a_stream_inside_one_outlined_function_makes_it_a_dataflow_region() -> None:
    s, kernel = _chain(outline=False)
    s.outline([kernel.B, kernel.C])
    code = hcl.build(s, target="vhls")
    body = code[code.index("void Stage_B_C(int32_t A[4][8], hls::stream<int32_t> &C) {") :]
    assert body.splitlines()[2:5] == [
        "  #pragma HLS dataflow",
        "  hls::stream<int32_t> B;",
        "  #pragma HLS stream variable=B depth=4",
    ]


def test_streams_give_numpy_numbers_in_llvm(run: Any, rng: np.random.Generator) -> None:
    s, _ = _chain(outline=False)
    a = rng.integers(-100, 100, (4, 8)).astype(np.int32)
    np.testing.assert_array_equal(run(s, a), _chain_np(a))


@pytest.mark.slow
def test_three_outlined_functions_connected_by_streams_csim(tmp_path: Path) -> None:
    s, _ = _chain()
    results = csim_flow(s, tmp_path, "stream3", model=_chain_np)
    assert set(results) == {"top", "Stage_B", "Stage_C", "Stage_D"}


@pytest.mark.slow
def test_two_outlined_functions_and_a_window_on_a_stream_csim(tmp_path: Path) -> None:
    # the producer streams an image into a 3x3 convolution that reads it once, through line buffers
    hcl.init()
    A = hcl.placeholder((6, 10), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((6, 10), lambda y, x: A[y, x] * 2, "B")
        r, c = hcl.reduce_axis(0, 3, "r"), hcl.reduce_axis(0, 3, "c")
        return hcl.compute((4, 8), lambda y, x: hcl.sum(B[y + r, x + c], axis=[r, c]), "C")

    s = hcl.create_schedule([A], kernel)
    lb = s.reuse_at(kernel.B, s[kernel.C], kernel.C.axis[0], "LB")
    s.reuse_at(lb, s[kernel.C], kernel.C.axis[1], "WB")
    s[kernel.C].pipeline(kernel.C.axis[1])
    s.to(kernel.B, s[kernel.C], depth=2)
    s.dataflow()
    s.outline(kernel.B)
    s.outline(kernel.C)

    def model(a: np.ndarray) -> np.ndarray:
        b = a.astype(np.int64) * 2
        return sum(b[r : r + 4, c : c + 8] for r in range(3) for c in range(3)).astype(np.int32)

    results = csim_flow(s, tmp_path, "window_stream", model=model)
    assert set(results) == {"top", "Stage_B", "Stage_C"}


def _reference(s: Any, tmp_path: Path, name: str) -> BuildLayout:
    layout = BuildLayout(tmp_path, name)
    compile_design(s, layout, name)
    reference_design(layout, name, ProjectConfig(name=name, seed=2))
    return layout


def test_golden_vectors_of_a_stream_are_its_values_in_fifo_order(tmp_path: Path) -> None:
    # B is written column by column: the stream carries B's transpose, row after row
    hcl.init()
    A = hcl.placeholder((3, 5), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((3, 5), lambda i, j: A[i, j] * 10, "B")
        return hcl.compute((3, 5), lambda i, j: B[i, j] + 1, "C")

    s = hcl.create_schedule([A], kernel)
    s[kernel.B].reorder(kernel.B.axis[1], kernel.B.axis[0])
    s[kernel.C].reorder(kernel.C.axis[1], kernel.C.axis[0])
    s.to(kernel.B, s[kernel.C])
    s.outline(kernel.B)
    s.outline(kernel.C)
    layout = _reference(s, tmp_path, "order")
    a = read_vectors(layout.golden_dir("top")).inputs["A"][0]
    produced = read_vectors(layout.golden_dir("Stage_B")).outputs["B"][0]
    consumed = read_vectors(layout.golden_dir("Stage_C")).inputs["B"][0]
    np.testing.assert_array_equal(produced.reshape(-1), (a * 10).T.reshape(-1))
    np.testing.assert_array_equal(consumed, produced)
    assert "B" not in read_vectors(layout.golden_dir("Stage_C")).outputs  # consumed, not compared


def test_a_stream_read_out_of_order(tmp_path: Path) -> None:
    hcl.init()
    A = hcl.placeholder((4, 4), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((4, 4), lambda i, j: A[i, j] + 1, "B")
        return hcl.compute((4, 4), lambda i, j: B[j, i] * 2, "C")

    s = hcl.create_schedule([A], kernel)
    s.to(kernel.B, s[kernel.C])
    with pytest.raises(
        CsimError,
        match=r"stage C reads stream B\[1, 0\] out of order: the next value in the "
        r"FIFO is B\[0, 1\], as stage B wrote them",
    ):
        _reference(s, tmp_path, "transposed")


def test_a_stream_read_more_often_than_written(tmp_path: Path) -> None:
    hcl.init()
    A = hcl.placeholder((8,), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((8,), lambda i: A[i] + 1, "B")
        return hcl.compute((16,), lambda i: B[i % 8], "C")

    s = hcl.create_schedule([A], kernel)
    s.to(kernel.B, s[kernel.C])
    with pytest.raises(
        CsimError,
        match=r"stage C reads stream B\[0\] but the FIFO is empty: its producer "
        r"wrote 8 values",
    ):
        _reference(s, tmp_path, "twice")


def test_values_written_into_a_stream_and_never_read(tmp_path: Path) -> None:
    hcl.init()
    A = hcl.placeholder((8,), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((8,), lambda i: A[i] + 1, "B")
        return hcl.compute((4,), lambda i: B[i], "C")

    s = hcl.create_schedule([A], kernel)
    s.to(kernel.B, s[kernel.C])
    with pytest.raises(CsimError, match=r"stage B writes 8 values into stream B but only 4 are read"):
        _reference(s, tmp_path, "half")


def test_an_element_read_twice_is_popped_once(tmp_path: Path) -> None:
    """relu's select(B[i, j] > 0, B[i, j], 0) read the stream twice per element (and an if_ body
    reading B[i] once more): the reference failed ('reads stream B[0, 0] out of order: the next
    value in the FIFO is B[0, 1]'). The reads of one element are one FIFO read now."""
    hcl.init()
    A = hcl.placeholder((4, 6), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((4, 6), lambda i, j: A[i, j] - 2, "B")
        C = hcl.compute((4, 6), lambda i, j: hcl.select(B[i, j] > 0, B[i, j], 0) + B[i, j] * 3, "C")
        D = hcl.compute((4, 6), lambda i, j: 0, "D")
        with (
            hcl.Stage("S"),
            hcl.for_(0, 4, name="i") as i,
            hcl.for_(0, 6, name="j") as j,
            hcl.if_(C[i, j] > 1),
        ):
            D[i, j] = C[i, j]
        return D

    s = hcl.create_schedule([A], kernel)
    s.to(kernel.B, s[kernel.C])
    s.to(kernel.C, s[kernel.S])
    s.outline(kernel.C)
    code = hcl.build(s, target="vhls")
    assert code.count("B.read()") == 1 and code.count("C.read()") == 1

    def model(a: np.ndarray) -> np.ndarray:
        b = a - 2
        c = np.where(b > 0, b, 0) + b * 3
        return np.where(c > 1, c, 0)

    csim_flow(s, tmp_path, "twice", model=model)


def test_a_stream_element_read_again_in_another_branch(tmp_path: Path) -> None:
    hcl.init()
    A = hcl.placeholder((4,), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((4,), lambda i: A[i] + 1, "B")
        C = hcl.compute((4,), lambda i: 0, "C")
        with hcl.Stage("S"), hcl.for_(0, 4, name="i") as i:
            with hcl.if_(A[i] > 0):
                C[i] = B[i]
            with hcl.else_():
                C[i] = B[i] + B[i * 1]
        return C

    s = hcl.create_schedule([A], kernel)
    s.to(kernel.B, s[kernel.S])
    with pytest.raises(
        CsimError, match=r"stage S reads stream B\[\d\] (a second time|but the FIFO is empty)"
    ):
        _reference(s, tmp_path, "branches")


# ---- schedule errors ----------------------------------------------------------------------------


def _three() -> tuple[Any, Any]:
    hcl.init()
    A = hcl.placeholder((4,), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((4,), lambda i: A[i] + 1, "B")
        C = hcl.compute((4,), lambda i: A[i] * 2, "C")
        return hcl.compute((4,), lambda i: B[i] + C[i], "D")

    return hcl.create_schedule([A], kernel), kernel


def test_s_to_between_stages_that_are_not_producer_and_consumer() -> None:
    s, kernel = _three()
    with pytest.raises(APIError, match=r"s.to: stage 'C' does not read 'B' written by stage 'B'"):
        s.to(kernel.B, s[kernel.C])
    with pytest.raises(APIError, match=r"s.to: stage 'C' does not write 'B'"):
        s.to(kernel.B, s[kernel.D], src=s[kernel.C])


def test_s_to_of_a_design_input() -> None:
    s, kernel = _three()
    with pytest.raises(APIError, match=r"s.to: no stage produces 'A'"):
        s.to(s.inputs[0], s[kernel.B])


def test_s_to_of_a_tensor_two_stages_read() -> None:
    hcl.init()
    A = hcl.placeholder((4,), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((4,), lambda i: A[i] + 1, "B")
        C = hcl.compute((4,), lambda i: B[i] * 2, "C")
        return hcl.compute((4,), lambda i: B[i] + C[i], "D")

    s = hcl.create_schedule([A], kernel)
    with pytest.raises(
        APIError,
        match=r"s.to: stage 'D' also uses 'B'; a stream has one producer \('B'\) "
        r"and one consumer \('C'\)",
    ):
        s.to(kernel.B, s[kernel.C])


def test_s_to_several_stages_says_a_stream_has_one_consumer() -> None:
    """HeteroCL's fork, s.to(C, [D, E]): it had been refused as 'moving data to a device or the host'."""
    hcl.init()
    A = hcl.placeholder((4,), "A")

    def kernel(A: Any) -> Any:
        C = hcl.compute((4,), lambda i: A[i] + 1, "C")
        return hcl.compute((4,), lambda i: C[i] * 2, "D"), hcl.compute((4,), lambda i: C[i] + 3, "E")

    s = hcl.create_schedule([A], kernel)
    with pytest.raises(
        hcl.HCLNotImplementedError,
        match=r"s.to\(tensor, \[Stage\('D'\), Stage\('E'\)\]\): a stream to several stages is "
        r"not implemented; a stream has one consumer",
    ):
        s.to(kernel.C, [kernel.D, kernel.E])


def test_s_to_depths() -> None:
    s, kernel = _three()
    with pytest.raises(APIError, match=r"depth=2 and fifo_depth=3 disagree"):
        s.to(kernel.B, s[kernel.D], depth=2, fifo_depth=3)
    with pytest.raises(APIError, match=r"depth must be an int >= 1, got 0"):
        s.to(kernel.B, s[kernel.D], depth=0)


def test_s_to_a_device_is_not_a_stream() -> None:
    s, _ = _three()
    with pytest.raises(HCLNotImplementedError, match=r"moving data to a device or the host"):
        s.to(s.inputs[0], "xcel")
