"""JIT-compiled designs free their intermediate buffers; the design module itself never does."""

from __future__ import annotations

import re

import hclbuild as hcl
from hclbuild.compiler.pipeline import compile_schedule
from hclbuild.compiler.to_llvm import lower_to_llvm_ir


def _schedule():
    hcl.init(hcl.Float())
    A = hcl.placeholder((64, 64), "A")

    def kernel(A):
        B = hcl.compute((64, 64), lambda i, j: A[i, j] * 2.0, "B")
        C = hcl.compute((64, 64), lambda i, j: B[i, j] + 1.0, "C")
        return hcl.compute((64, 64), lambda i, j: C[i, j] - A[i, j], "D")

    return hcl.create_schedule([A], kernel)


def test_every_malloc_of_the_top_is_freed() -> None:
    design = compile_schedule(_schedule())
    assert "memref.dealloc" not in str(design.module)  # HLS arrays are static: no frees there
    ll = lower_to_llvm_ir(design.module, opt_level=0)
    top = ll[ll.index("define void @top(") :]
    top = top[: top.index("\n}\n")]
    assert len(re.findall(r"call ptr @malloc", top)) == 2  # B and C
    assert len(re.findall(r"call void @free", top)) == 2
