"""hcl.local(shape, dtype, name): an uninitialised local buffer that the algorithm's own loops fill,
emitted as a C kernel declares one (`int32_t T[8][8];`, no initialising loop); the LLVM
reference, numpy and g++ csim agree on what is computed from it. hcl.local given a number stays
HeteroCL's older hcl.scalar."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hclbuild as hcl
from hclbuild.errors import APIError, DTypeError
from hclbuild.project.config import load_project
from hclbuild.project.flow import compile_project, emit_function
from hclbuild.project.layout import BuildLayout
from hclbuild.project.reference import run_reference
from hclbuild.runtime.csim import run_csim

KERNEL = """
import numpy as np
import hclbuild as hcl


def schedule(sizes):
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8, 8), "A")

    def kernel(A):
        T = hcl.local((8, 8), hcl.Int(32), "T")
        with hcl.for_(0, 8, name="i", tag="transpose") as i:
            with hcl.for_(0, 8, name="j") as j:
                T[j, i] = A[i, j] * 3
        return hcl.compute((8, 8), lambda i, j: T[i, j] - A[i, j], "B")

    return hcl.create_schedule([A], kernel, name="top")


def inputs(rng, sizes):
    return [rng.integers(-1000, 1000, (8, 8)).astype(np.int32)]


def model(A):
    return A.T * 3 - A
"""

BODY = """\
  int32_t T[8][8];
  l_transpose_i: for (int i = 0; i < 8; i++) {
    l_transpose_j: for (int j = 0; j < 8; j++) {
      int32_t A_i_j = A[i][j];
      T[j][i] = (uint32_t)A_i_j * 3;
    }
  }
"""


def _schedule() -> hcl.Schedule:
    namespace: dict = {}
    exec(KERNEL, namespace)
    return namespace["schedule"](None)


def test_a_local_is_declared_without_an_initialising_loop() -> None:
    code = hcl.build(_schedule(), target="vhls")
    assert BODY in code
    assert code.count(": for (") == 4  # the fill's two loops and B's: no loop writes T before them


def test_the_reference_computes_what_numpy_does() -> None:
    a = np.random.default_rng(3).integers(-1000, 1000, (8, 8)).astype(np.int32)
    out = np.zeros((8, 8), np.int32)
    hcl.build(_schedule())(a, out)
    assert np.array_equal(out, a.T * 3 - a)


@pytest.mark.slow
def test_a_local_csims_bit_exact(tmp_path: Path) -> None:
    folder = tmp_path / "transpose"
    folder.mkdir()
    (folder / "kernel.py").write_text(KERNEL)
    project = load_project(folder)
    layout = BuildLayout(tmp_path / "build", project.name)
    manifest = compile_project(project, layout)
    assert run_reference(project, layout).model_checked is True
    for func in manifest.design.functions:
        emit_function(project, layout, func)
        csim = run_csim(layout.hls_dir(func), layout.csim_json(func), project=project.name)
        assert csim.passed and csim.mismatches == 0 and csim.compared == 64 + 64, csim.summary


def test_local_given_a_number_is_heterocls_scalar() -> None:
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        acc = hcl.local(5, "acc")
        return hcl.compute((4,), lambda i: A[i] + acc.v, "B")

    out = np.zeros(4, np.int32)
    hcl.build(hcl.create_schedule([A], kernel))(np.arange(4, dtype=np.int32), out)
    assert out.tolist() == [5, 6, 7, 8]


def test_bad_locals_are_one_line_errors() -> None:
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((4,), "A")
    with pytest.raises(APIError, match="local T: a local buffer has a shape of at least one dimension"):
        hcl.create_schedule([A], lambda A: hcl.local((), hcl.Int(32), "T"))
    with pytest.raises(DTypeError):
        hcl.create_schedule([A], lambda A: hcl.local((4,), "T"))  # the dtype comes second
