"""The emitted C++ names values after the design (issue 29 section 3): loads after their tensor and
subscripts, accumulators after their stage, results stored straight into the stage's tensor, a
one-element local as a C scalar, a one-trip loop as its body; `v<n>` only for anonymous
temporaries, numbered per stage so that one stage's change does not rename another's."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from emit_helpers import compile_cpp

import hclbuild as hcl
from hclbuild.compiler.emit_hls.value_names import index_name, load_name


def _body(code: str, head: str) -> list[str]:
    start = code.index(head)
    return code[start:].splitlines()


def _sobel(rows: int = 8) -> hcl.Schedule:
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((rows, 8), "A")

    def kernel(A):
        def edge(y, x):
            gx = A[y, x + 2] - A[y, x] + 2 * A[y + 1, x + 2] - 2 * A[y + 1, x] + A[y + 2, x + 2] - A[y + 2, x]
            return hcl.select(gx < 0, -gx, gx)

        return hcl.compute((rows - 2, 6), edge, "E")

    return hcl.create_schedule([A], kernel)


SOBEL_BODY = """\
  l_E_y: for (int y = 0; y < 6; y++) {
    l_E_x: for (int x = 0; x < 6; x++) {
      int x_p2 = x + 2;
      int32_t A_y_x_p2 = A[y][x_p2];
      int32_t A_y_x = A[y][x];
      int32_t v0 = (uint32_t)A_y_x_p2 - (uint32_t)A_y_x;
      int y_p1 = y + 1;
      int32_t A_y_p1_x_p2 = A[y_p1][x_p2];
      int32_t v1 = 2 * (uint32_t)A_y_p1_x_p2;
      int32_t v2 = (uint32_t)v0 + (uint32_t)v1;
      int32_t A_y_p1_x = A[y_p1][x];
      int32_t v3 = 2 * (uint32_t)A_y_p1_x;
      int32_t v4 = (uint32_t)v2 - (uint32_t)v3;
      int y_p2 = y + 2;
      int32_t A_y_p2_x_p2 = A[y_p2][x_p2];
      int32_t v5 = (uint32_t)v4 + (uint32_t)A_y_p2_x_p2;
      int32_t A_y_p2_x = A[y_p2][x];
      int32_t v6 = (uint32_t)v5 - (uint32_t)A_y_p2_x;
      bool v7 = v6 < 0;
      int32_t v8 = 0 - (uint32_t)v6;
      E[y][x] = v7 ? v8 : v6;
    }
  }
}"""


def test_a_select_heavy_kernel_reads_each_window_element_once_under_its_own_name() -> None:
    code = hcl.build(_sobel(), target="vhls")
    body = "\n".join(_body(code, "  l_E_y:"))
    assert body == SOBEL_BODY
    # six loads of A an iteration (not 18: gx is computed once, and |gx| selects on that one copy)
    assert len(re.findall(r"= A\[[^\]]+\]\[[^\]]+\];", code)) == 6


def test_the_named_cpp_computes_what_the_reference_does(tmp_path: Path) -> None:
    s = _sobel()
    code = hcl.build(s, target="vhls")
    (tmp_path / "top.cpp").write_text(code)
    compile_cpp([tmp_path / "top.cpp"], tmp_path / "top.o", needs_ap=False, extra=("-c", "-Wextra"))
    f = hcl.build(s)
    a = np.random.default_rng(5).integers(-500, 500, (8, 8), dtype=np.int32)
    out = hcl.asarray(np.zeros((6, 6), dtype=np.int32))
    f(hcl.asarray(a), out)
    w = a.astype(np.int64)
    gx = w[:6, 2:] - w[:6, :6] + 2 * w[1:7, 2:] - 2 * w[1:7, :6] + w[2:, 2:] - w[2:, :6]
    np.testing.assert_array_equal(out.asnumpy(), np.abs(gx))


def _sum_scalar_kernel(extra_stage: bool) -> str:
    hcl.init(hcl.Float())
    A = hcl.placeholder((4, 6), "A")
    n = hcl.placeholder((), "n", hcl.Int(32))

    def kernel(A, n):
        if extra_stage:
            A = hcl.compute((4, 6), lambda i, j: A[i, j] * 2 + 1, "pre")
        r = hcl.reduce_axis(0, 6, "r")
        rows = hcl.compute((4,), lambda i: hcl.sum(A[i, r], axis=r), "rows")
        total = hcl.scalar(0, "total", hcl.Int(32))
        with hcl.for_(0, n.v, name="i") as i:
            total.v = total.v + i
        return hcl.compute((4,), lambda i: rows[i] * 3 + total.v, "out")

    return hcl.build(hcl.create_schedule([A, n], kernel), target="vhls")


def test_accumulators_and_hcl_scalar_are_c_scalars_without_one_trip_loops() -> None:
    lines = [line.strip() for line in _sum_scalar_kernel(False).splitlines()]
    rows = lines.index("l_rows_i: for (int i = 0; i < 4; i++) {")
    assert lines[rows + 1 : rows + 8] == [
        "float rows_sum = 0.0f;",
        "l_rows_r: for (int r = 0; r < 6; r++) {",
        "float A_i_r = A[i][r];",
        "rows_sum = rows_sum + A_i_r;",
        "}",
        "rows[i] = rows_sum;",
        "}",
    ]
    # hcl.scalar: a scalar set once, no `int32_t total[1]` nor `for (int x = 0; x < 1; x++)`
    assert lines[rows + 8 : rows + 10] == ["// stage total", "int32_t total = 0;"]
    # the imperative stage with runtime bounds: a C block around its loop, no one-trip loop
    assert lines[rows + 10 : rows + 12] == ["// stage i", "{"]
    assert "total = (uint32_t)total + (uint32_t)v8;" in lines
    assert not any("[1];" in line or "< 1;" in line or "_acc" in line for line in lines)


def test_a_change_in_one_stage_renames_nothing_in_another() -> None:
    def stage_out(code: str) -> list[str]:
        lines = code.splitlines()
        start = next(k for k, line in enumerate(lines) if "l_out_i:" in line)
        return lines[start:]

    before, after = _sum_scalar_kernel(False), _sum_scalar_kernel(True)
    assert "l_pre_i" in after and "l_pre_i" not in before
    assert stage_out(before) == stage_out(after)
    assert [line.strip() for line in stage_out(after)[1:4]] == [
        "float rows_i = rows[i];",
        "float v0 = rows_i * 3.0f;",
        "float v1 = (float)total;",
    ]


def test_names_are_c_identifiers_from_the_subscripts() -> None:
    assert load_name("img", ["y", "x"]) == "img_y_x"
    assert load_name("img", ["0", "x"]) == "img_0_x"
    assert load_name("img", ["(y * 6)", "x"]) == "img"  # an expression: the tensor's name alone
    assert index_name("x + 2") == "x_p2" and index_name("(y - 1)") == "y_m1"
    assert index_name("y + ry") == "y_p_ry"
    assert index_name("v3 + 1") is None and index_name("y * 2") is None and index_name("x + 0") is None
