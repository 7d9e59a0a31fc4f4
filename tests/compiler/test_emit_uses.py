"""The HLS emitter records what it writes (ap types and the widest, hls::stream, printf) and the
includes come from that record; a typed local for a constant operand is declared only when read.

The tests read the emitted text back on purpose: it is the independent witness that the record
and the text agree (the emitter itself never reads its output)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from emit_helpers import parse_module

import hclbuild as hcl
from hclbuild.compiler.emit_hls import emit_function_files, emit_module
from hclbuild.compiler.pipeline import compile_schedule
from hclbuild.project.config import load_project
from hclbuild.project.kernel import kernel_schedule, load_kernel

REPO = Path(__file__).resolve().parents[2]
_AP_WIDTH = re.compile(r"ap_u?(?:int|fixed)<(\d+)")


def _includes(text: str) -> list[str]:
    """The include block of a file: its lines from the first `#include` to the last include-related one."""
    lines = text.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("#include"))
    end = max(
        k
        for k, line in enumerate(lines)
        if line.startswith(("#include", "#endif", "#define")) and k < start + 12
    )
    return [
        line
        for line in lines[start : end + 1]
        if not line.startswith(("#define HCLBUILD_", "#ifndef HCLBUILD_"))
    ]


def _spelled(code: str) -> dict[str, Any]:
    """What the code spells that needs a header, read from its text."""
    return {
        "printf": "std::printf(" in code,
        "ap_int": "ap_int<" in code or "ap_uint<" in code,
        "ap_fixed": "ap_fixed<" in code or "ap_ufixed<" in code,
        "widest": max((int(w) for w in _AP_WIDTH.findall(code)), default=0),
        "stream": "hls::stream<" in code,
    }


def _included(includes: list[str]) -> dict[str, Any]:
    return {
        "printf": "#include <cstdio>" in includes,
        "ap_int": '#include "ap_int.h"' in includes,
        "ap_fixed": '#include "ap_fixed.h"' in includes,
        "wide": any(line.startswith("#define AP_INT_MAX_W 4096") for line in includes),
        "stream": '#include "hls_stream.h"' in includes,
    }


def _check_agree(code: str, includes: list[str]) -> None:
    spelled, included = _spelled(code), _included(includes)
    assert included == {
        "printf": spelled["printf"],
        "ap_int": spelled["ap_int"],
        "ap_fixed": spelled["ap_fixed"],
        "wide": spelled["widest"] > 1024,
        "stream": spelled["stream"],
    }


def _kernels() -> dict[str, Any]:
    def wide() -> Any:
        A = hcl.placeholder((4,), "A", hcl.UInt(2047))

        def kernel(A: Any) -> Any:
            return hcl.compute((4,), lambda i: (A[i] >> 3) + 1, "B", dtype=hcl.UInt(2047))

        return hcl.create_schedule([A], kernel)

    def fixed_print() -> Any:
        A = hcl.placeholder((4,), "A", hcl.Fixed(12, 4))

        def kernel(A: Any) -> Any:
            B = hcl.compute((4,), lambda i: A[i] * 2, "B", dtype=hcl.Fixed(12, 4))
            hcl.print(B[0], "%f\n")
            return B

        return hcl.create_schedule([A], kernel)

    def odd_ints() -> Any:
        A = hcl.placeholder((4,), "A", hcl.Int(33))

        def kernel(A: Any) -> Any:
            return hcl.compute((4,), lambda i: A[i] * 3 - 1, "B", dtype=hcl.Int(40))

        return hcl.create_schedule([A], kernel)

    def plain_float() -> Any:
        A = hcl.placeholder((4,), "A", hcl.Float())

        def kernel(A: Any) -> Any:
            return hcl.compute((4,), lambda i: A[i] * 2.0, "B", dtype=hcl.Float())

        return hcl.create_schedule([A], kernel)

    def streamed() -> Any:
        A = hcl.placeholder((4, 8), "A")

        def kernel(A: Any) -> Any:
            B = hcl.compute((4, 8), lambda i, j: A[i, j] + 1, "B")
            return hcl.compute((4, 8), lambda i, j: B[i, j] * 2, "C")

        s = hcl.create_schedule([A], kernel)
        s.to(kernel.B, s[kernel.C], depth=4)
        s.outline(kernel.B)
        s.outline(kernel.C)
        return s

    return {f.__name__: f for f in (wide, fixed_print, odd_ints, plain_float, streamed)}


@pytest.mark.parametrize("kernel", sorted(_kernels()))
def test_the_includes_of_a_design_are_what_its_code_spells(kernel: str) -> None:
    hcl.init()
    design = compile_schedule(_kernels()[kernel]())
    with design.module.context:
        code = emit_module(design.module)
        _check_agree(code, _includes(code))
        for name in [design.top, *design.outlined]:
            cpp, header = emit_function_files(design.module, name)
            _check_agree(cpp + header, _includes(header))


@pytest.mark.parametrize("name", ["fir_fixed", "stream_pipeline", "digitrec", "def_import"])
def test_the_includes_of_every_function_of_a_project_are_what_it_spells(name: str) -> None:
    project = load_project(REPO / "projects" / name)
    design = compile_schedule(kernel_schedule(project, load_kernel(project)))
    with design.module.context:
        for func in [design.top, *design.outlined]:
            cpp, header = emit_function_files(design.module, func)
            _check_agree(cpp + header, _includes(header))


# ---- a constant operand's local -------------------------------------------------------------------

FOLDS = """
func.func @top(%A: memref<2xi33>) attributes {hcl.top, hcl.arg_names = ["A"], hcl.arg_types = ["int33"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = arith.constant 4294967295 : i33
  %b = arith.constant -5 : i33
  %same = arith.cmpi slt, %a, %a : i33
  %wide = arith.extui %same : i1 to i33
  memref.store %wide, %A[%c0] : memref<2xi33>
  %or = arith.ori %a, %b : i33
  memref.store %or, %A[%c1] : memref<2xi33>
  return
}
"""


def test_a_constant_operand_gets_a_local_only_when_the_op_reads_it() -> None:
    module = parse_module(FOLDS)
    with module.context:
        code = emit_module(module)
    body = code[code.index("void top(ap_int<33> A[2]) {") :].splitlines()
    # `a < a` folds to false without reading a: no local; `a | b` computes at 33 bits from one
    assert body[1:] == [
        "  #pragma HLS interface mode=ap_memory port=A",
        "  #pragma HLS interface mode=ap_ctrl_hs port=return",
        "  A[0] = 0;",
        "  ap_int<33> v1 = 4294967295U;",
        "  ap_int<33> v2 = v1 | -5;",
        "  A[1] = v2;",
        "}",
    ]
