"""The reference run's bounds checks at the upper end: one past the last element, for loads and
stores, in 2-D tensors and inside an outlined function, is an error naming stage, tensor and
subscript (never garbage that becomes golden data). The reference runs in a child process, as
the reference task does, so a check that fails to fire cannot corrupt the test process."""

from __future__ import annotations

from pathlib import Path

import pytest

import hclbuild as hcl
from hclbuild.errors import CsimError
from hclbuild.project.config import ProjectConfig
from hclbuild.project.flow import compile_design
from hclbuild.project.layout import BuildLayout
from hclbuild.project.reference import reference_design
from hclbuild.runtime.isolate import run_isolated


def reference(tmp_path: Path, schedule) -> None:
    layout = BuildLayout(tmp_path / "build", "p")
    compile_design(schedule, layout, "p")
    run_isolated(reference_design, layout, "p", ProjectConfig(name="p"), what="p: the LLVM reference run")


def load_past_the_end(outline: bool = False):
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        S = hcl.compute((8,), lambda i: A[i] + A[i + 1], name="S")
        return hcl.compute((8,), lambda i: S[i] * 2, name="T")

    s = hcl.create_schedule([A], kernel)
    if outline:
        s.outline(kernel.S)
    return s


def test_load_one_past_the_end(tmp_path: Path) -> None:
    with pytest.raises(CsimError, match=r"^p: stage S reads A outside its shape \(8,\): subscript 0 is 8$"):
        reference(tmp_path, load_past_the_end())


def test_load_one_past_the_end_inside_an_outlined_function(tmp_path: Path) -> None:
    with pytest.raises(CsimError, match=r"^p: stage S reads A outside its shape \(8,\): subscript 0 is 8$"):
        reference(tmp_path, load_past_the_end(outline=True))


def test_store_one_past_the_end(tmp_path: Path) -> None:
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        B = hcl.compute((8,), lambda i: A[i], name="B")

        def shift(i):
            B[i + 1] = A[i]

        hcl.mutate((8,), shift, name="shift")
        return B

    with pytest.raises(
        CsimError, match=r"^p: stage shift writes B outside its shape \(8,\): subscript 0 is 8$"
    ):
        reference(tmp_path, hcl.create_schedule([A], kernel))


def test_2d_column_one_past_the_end(tmp_path: Path) -> None:
    A = hcl.placeholder((4, 6), "A")

    def kernel(A):
        return hcl.compute((4, 6), lambda i, j: A[i, j] - A[i, j + 1], name="D")

    with pytest.raises(CsimError, match=r"^p: stage D reads A outside its shape \(4, 6\): subscript 1 is 6$"):
        reference(tmp_path, hcl.create_schedule([A], kernel))


def test_last_element_itself_is_fine(tmp_path: Path) -> None:
    A = hcl.placeholder((8,), "A")
    s = hcl.create_schedule([A], lambda A: hcl.compute((7,), lambda i: A[i + 1] - A[i], name="diff"))
    reference(tmp_path, s)  # i + 1 reaches 7, the last element: no error
