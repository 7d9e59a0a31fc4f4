"""The reference run's tensors are checked against the memory there is before any is allocated: a
design too big for the machine is a one-line error naming its tensors, not a MemoryError traceback
or a child the OOM killer took without a word."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from hclbuild.cli import main
from hclbuild.compiler.buffers import AllocatedBuffer
from hclbuild.dsl.types import Int
from hclbuild.errors import ConfigError, CsimError
from hclbuild.project.manifest import DesignManifest
from hclbuild.project.reference_memory import available_memory, check_reference_memory
from hclbuild.runtime.isolate import run_isolated
from hclbuild.schedule.signature import ArgSpec, FunctionSignature

HUGE = """
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((200000, 200000), "A")

    def kernel(A):
        B = hcl.compute(A.shape, lambda i, j: A[i, j] + 1, name="B")
        return hcl.compute(A.shape, lambda i, j: B[i, j] * 2, name="C")

    s = hcl.create_schedule([A], kernel, name="top")
    s.outline(kernel.B)
    return s
"""


def manifest(shape: list[int], buffers: list[AllocatedBuffer] | None = None) -> DesignManifest:
    def arg(name: str, arg_shape: list[int] = shape) -> ArgSpec:
        return ArgSpec(name, Int(32), tuple(arg_shape))

    return DesignManifest(
        project="p",
        top="top",
        functions=["top", "Stage_B"],
        signatures={
            "top": FunctionSignature("top", [arg("A"), arg("C")]),
            "Stage_B": FunctionSignature("Stage_B", [arg("A"), arg("B"), arg("n", [])]),
        },
        c_args={},
        writes={},
        inputs=["A"],
        outputs=["C"],
        structs={},
        buffers=buffers if buffers is not None else [AllocatedBuffer("top", "B", shape, 4)],
        graph={},
    )


def test_the_estimate_and_the_message() -> None:
    # 1000x1000 int32 = 4 MB a tensor: the top's A and C twice (16 MB), Stage_B's A and B twice
    # (16 MB), the buffer B (4 MB), the random input's 8-byte temporary (8 MB): 44 MB
    check_reference_memory("p", manifest([1000, 1000]), memory_gb=0.044)
    with pytest.raises(ConfigError) as caught:
        check_reference_memory("p", manifest([1000, 1000]), memory_gb=0.04)
    assert str(caught.value) == (
        "p: the reference run needs about 44.0 MB for its tensors, more than the 40.0 MB [reference] memory_gb "
        "allows (A 1000x1000 int32 4.0 MB, C 1000x1000 int32 4.0 MB, B 1000x1000 4.0 MB (in top)); raise "
        "[reference] memory_gb or make the sizes smaller"
    )


def test_more_tensors_than_the_message_names() -> None:
    buffers = [AllocatedBuffer("top", f"T{k}", [10, k + 1], 8) for k in range(5)]
    with pytest.raises(
        ConfigError,
        match=r"\(A 1000x1000 int32 4\.0 MB, C 1000x1000 int32 4\.0 MB, T4 10x5 400 B "
        r"\(in top\), T3 10x4 320 B \(in top\), and 3 more\)",
    ):
        check_reference_memory("p", manifest([1000, 1000], buffers), memory_gb=0.001)


def test_without_a_setting_the_limit_is_the_memory_available(monkeypatch: pytest.MonkeyPatch) -> None:
    available = available_memory()
    assert available is not None and 0 < available <= os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    # a fixed figure: the machine's own changes while other processes run
    monkeypatch.setattr("hclbuild.project.reference_memory.available_memory", lambda: 40_000_000)
    check_reference_memory("p", manifest([900, 900]))
    with pytest.raises(
        ConfigError,
        match=r"^p: the reference run needs about 44\.0 MB for its tensors, more than the "
        r"40\.0 MB of memory available \(A .*; set \[reference\] memory_gb to allow "
        r"more, or make the sizes smaller$",
    ):
        check_reference_memory("p", manifest([1000, 1000]))


def test_a_design_too_big_fails_its_reference_in_one_line_before_allocating(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    folder = tmp_path / "projects" / "huge"
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(HUGE)
    (folder / "project.toml").write_text("[reference]\nmemory_gb = 64\n")
    started = time.monotonic()
    assert main(["csim", str(folder), "-n", "1"]) == 1
    assert time.monotonic() - started < 60  # 480 GB of arrays were never touched
    error = (
        "huge: the reference run needs about 1760.0 GB for its tensors, more than the "
        "64.0 GB [reference] memory_gb allows (A 200000x200000 int32 160.0 GB, C 200000x200000 int32 160.0 GB, "
        "B 200000x200000 160.0 GB (in top)); raise [reference] memory_gb or make the sizes smaller"
    )
    out, err = capsys.readouterr()
    assert err == f"hclbuild: error: {error}\n"  # once; the table points at it
    reason = "reference:huge failed (the error above)"
    assert f"huge/top: not run: {reason}" in out and f"huge/Stage_B: not run: {reason}" in out
    assert not (tmp_path / "build" / "huge" / "golden").exists()


def test_a_child_killed_from_outside_says_it_may_have_run_out_of_memory() -> None:
    def killed() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    with pytest.raises(
        CsimError,
        match=r"^p: the LLVM reference run died with SIGKILL \(killed from outside: out of "
        r"memory\? \[reference\] memory_gb caps what a run may take\)$",
    ):
        run_isolated(killed, what="p: the LLVM reference run")
