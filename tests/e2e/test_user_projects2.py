"""HeteroCL programs written as a HeteroCL user writes them (its tutorials, its tests' PolyBench
kernels), through the real doit tasks: each broke `doit build` or `doit csim` before its fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from doit_helpers import doit, make_tree


def csim_passes(tmp_path: Path, name: str, kernel: str, functions: tuple[str, ...] = ("top",)) -> None:
    """The kernel as project `name`, through `doit csim`: every listed function's csim passes."""
    root = make_tree(tmp_path, {name: kernel})
    doit(root, "csim")
    for func in functions:
        result = json.loads((root / "build" / name / "csim" / f"{func}.json").read_text())
        assert result["pass"] is True and result["outputs_compared"] > 0, (func, result)


# HeteroCL's tests/mlir/polybench/floyd_warshall.py: the for_ loops of a mutate((1,)) body are
# the stage's axes after its own (L1.axis[1] is k), as HeteroCL's axis_list has them
FLOYD_WARSHALL = """
import numpy as np
import hclbuild as hcl

N = 6

def schedule():
    hcl.init(hcl.Int())
    path = hcl.placeholder((N, N), "path")
    def kernel_floyd_warshall(path):
        def loop_1():
            with hcl.for_(0, N, name="k") as k:
                with hcl.for_(0, N, name="i") as i:
                    with hcl.for_(0, N, name="j") as j:
                        path_ = hcl.scalar(path[i][k] + path[k][j])
                        with hcl.if_(path[i][j] >= path_.v):
                            path[i][j] = path_.v
        hcl.mutate((1,), lambda x: loop_1(), name="L1")
    s = hcl.create_schedule([path], kernel_floyd_warshall)
    L1 = kernel_floyd_warshall.L1
    assert [loop.name for loop in L1.axis] == ["x", "k", "i", "j"]
    s[L1].unroll(L1.axis[2])
    s[L1].pipeline(L1.axis[3])
    return s

def inputs(rng):
    return [rng.integers(0, 100, (N, N)).astype(np.int32)]

def model(path):
    path = path.copy()
    for k in range(N):
        for i in range(N):
            for j in range(N):
                path[i][j] = min(path[i][j], path[i][k] + path[k][j])
    return {"path": path}
"""

# HeteroCL's tests/mlir/polybench/correlation.py: hcl.update(mean, ..., name="mean") is
# kernel.mean (its stage is mean_0, the placeholder holds the name), and cov is computed at
# loop q of the imperative stage corrf, given as the handle corrf.axis[0]
CORRELATION = """
import numpy as np
import hclbuild as hcl

M = N = 6
EPSILON = 0.1

def schedule():
    dtype = hcl.Float(32)
    hcl.init(dtype)
    data = hcl.placeholder((N, M), "data")
    mean = hcl.placeholder((M,), "mean")
    stddev = hcl.placeholder((M,), "stddev")
    corr = hcl.placeholder((M, M), "corr")
    def kernel_correlation(data, mean, stddev, corr):
        k = hcl.reduce_axis(0, N, name="k")
        hcl.update(mean, lambda x: hcl.sum(data[k, x], axis=k, dtype=dtype) / N, name="mean")
        m = hcl.reduce_axis(0, N, name="m")
        hcl.update(stddev, lambda x: hcl.sum((data[m, x] - mean[x]) * (data[m, x] - mean[x]), axis=m,
                                             dtype=dtype), name="stddev")
        with hcl.Stage("stddevf"):
            with hcl.for_(0, M, name="n") as n:
                stddev[n] = hcl.sqrt(stddev[n] / N * 1.0)
                with hcl.if_(stddev[n] <= EPSILON):
                    stddev[n] = 1.0
        p = hcl.reduce_axis(0, N, name="p")
        cov = hcl.compute((M, M), lambda i, j: hcl.sum((data[p, i] - mean[i]) * (data[p, j] - mean[j]),
                                                       axis=p, dtype=dtype) / N, name="cov")
        with hcl.Stage("corrf"):
            with hcl.for_(0, M, name="q") as q:
                with hcl.for_(0, M, name="r") as r:
                    corr[q, r] = cov[q, r] / (stddev[q] * stddev[r])
    s = hcl.create_schedule([data, mean, stddev, corr], kernel_correlation)
    s[kernel_correlation.mean].pipeline(kernel_correlation.mean.axis[0])
    s[kernel_correlation.cov].compute_at(s[kernel_correlation.corrf], kernel_correlation.corrf.axis[0])
    return s

def model(data, mean, stddev, corr):
    d = data.astype(np.float64)
    mean = d.mean(axis=0)
    sd = np.sqrt(((d - mean) ** 2).sum(axis=0) / N)
    sd[sd <= EPSILON] = 1.0
    cov = ((d - mean).T @ (d - mean)) / N
    return {"mean": mean, "stddev": sd, "corr": cov / np.outer(sd, sd)}
"""


@pytest.mark.parametrize("kernel", [FLOYD_WARSHALL, CORRELATION], ids=["floyd-warshall", "correlation"])
def test_heterocl_polybench_kernels_build_and_csim(tmp_path: Path, kernel: str) -> None:
    csim_passes(tmp_path, "poly", kernel)


# a literal beside a fixed-point struct field: fb * 2 had negated fb (2 taken as a Fixed(13, 11)
# wraps to -2) in the LLVM reference and in the C++ alike, so only the numpy model saw it
STRUCT_FIXED = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init()
    stype = hcl.Struct({"fa": hcl.Int(8), "fb": hcl.Fixed(13, 11)})
    A = hcl.placeholder((10,), "A", dtype=hcl.Int(8))
    B = hcl.placeholder((10,), "B", dtype=hcl.Fixed(13, 11))
    def kernel(A, B):
        D = hcl.compute(A.shape, lambda x: (A[x], B[x]), "D", dtype=stype)
        return hcl.compute(A.shape, lambda x: D[x].fb * 2 + D[x].fa, "F", dtype=hcl.Fixed(16, 11))
    s = hcl.create_schedule([A, B], kernel)
    s.outline(kernel.D)
    return s

def inputs(rng):
    return [rng.integers(-4, 4, 10).astype(np.int8), rng.random(10) * 3 - 1.5]

def model(A, B):
    return np.floor(B * 2048) / 2048 * 2 + A
"""


@pytest.mark.slow
def test_a_literal_beside_a_fixed_point_struct_field_keeps_its_value(tmp_path: Path) -> None:
    csim_passes(tmp_path, "structfx", STRUCT_FIXED, ("top", "Stage_D"))


# HeteroCL's tutorial 2 as written: hcl.local is its older name of hcl.scalar (it had been
# "module 'hclbuild' has no attribute 'local'")
INSERTION_SORT = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init()
    A = hcl.placeholder((10,), "A")
    def insertion_sort(A):
        with hcl.Stage("S"):
            with hcl.for_(1, A.shape[0], name="i") as i:
                key = hcl.local(A[i], "key")
                j = hcl.local(i-1, "j")
                with hcl.while_(hcl.and_(j >= 0, key < A[j])):
                    A[j+1] = A[j]
                    j[0] -= 1
                A[j+1] = key[0]
    return hcl.create_schedule([A], insertion_sort)

def inputs(rng):
    return [rng.integers(0, 50, 10).astype(np.int32)]

def model(A):
    return {"A": np.sort(A)}
"""


def test_the_insertion_sort_tutorial_with_hcl_local(tmp_path: Path) -> None:
    csim_passes(tmp_path, "isort", INSERTION_SORT)


# shifts by the width or more: an Int(48) << 64 had been x in the reference (LLVM's poison shift,
# done modulo 64) and 0 in the C++ (ap_int), so csim failed on a correct design
SHIFTS = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8,), "A")
    S = hcl.placeholder((8,), "S")
    def kernel(A, S):
        d = hcl.compute((8,), lambda i: A[i] << S[i], "d")
        e = hcl.compute((8,), lambda i: A[i] >> S[i], "e")
        w = hcl.compute((8,), lambda i: hcl.cast(hcl.Int(48), A[i]) << S[i], "w", dtype=hcl.Int(64))
        return d, e, w
    return hcl.create_schedule([A, S], kernel)

def inputs(rng):
    return [np.array([1, -1, 7, 0x12345678, -5, 3, 100, -100], np.int32),
            np.array([0, 31, 32, 33, 40, 47, 64, -1], np.int32)]

def model(A, S):
    d, e, w = [], [], []
    for x, n in zip(A.tolist(), S.tolist()):
        d.append(((x << n) + (1 << 31)) % (1 << 32) - (1 << 31) if 0 <= n < 32 else 0)
        e.append(x >> n if 0 <= n < 32 else (-1 if x < 0 else 0))
        w.append(((x << n) + (1 << 47)) % (1 << 48) - (1 << 47) if 0 <= n < 48 else 0)
    return [np.array(d, np.int32), np.array(e, np.int32), np.array(w, np.int64)]
"""


def test_shifts_by_the_width_or_more_agree_in_the_reference_and_the_cpp(tmp_path: Path) -> None:
    csim_passes(tmp_path, "shifts", SHIFTS)


# a float NaN converted to UInt(64) or a wider integer: LLVM's i128 fptosi is poison there (the
# reference had 2**63), the C++'s ap_int conversion gives 0, and csim failed
FLOAT_TO_WIDE = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Float())
    A = hcl.placeholder((6,), "A")
    def kernel(A):
        return (hcl.compute((6,), lambda i: A[i], "u64", dtype=hcl.UInt(64)),
                hcl.compute((6,), lambda i: A[i], "i100", dtype=hcl.Int(100)))
    return hcl.create_schedule([A], kernel)

def inputs(rng):
    return [np.array([-1.5, 300.7, 3e9, 1e20, np.nan, 2.0], np.float32)]

def model(A):
    return [np.array([2**64 - 1, 300, 3000000000, 100000002004087734272 % 2**64, 0, 2], np.uint64),
            np.array([-1, 300, 3000000000, 100000002004087734272, 0, 2], dtype=object)]
"""


def test_a_nan_converted_to_a_wide_integer_is_0_in_the_reference_and_the_cpp(tmp_path: Path) -> None:
    csim_passes(tmp_path, "nanwide", FLOAT_TO_WIDE)


# inputs() and model() giving hcl.asarray Arrays, as a HeteroCL user holds data: np.asarray had
# made each a 0-d object array ("inputs() gave A shape (), expected (4,)")
ARRAYS_IO = """
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Fixed(12, 4))
    A = hcl.placeholder((4,), "A")
    B = hcl.placeholder((4,), "B", dtype=hcl.Int(8))
    return hcl.create_schedule([A, B], lambda A, B: hcl.compute((4,), lambda i: A[i] * B[i], "C"))

def inputs(rng):
    return [hcl.asarray(np.array([1.5, -2.25, 3.0, 0.0625]), hcl.Fixed(12, 4)),
            hcl.asarray(np.array([1, 2, -3, 4]), hcl.Int(8))]

def model(A, B):
    return hcl.asarray(A * B, hcl.Fixed(12, 4))
"""


def test_inputs_and_model_may_give_hcl_arrays(tmp_path: Path) -> None:
    csim_passes(tmp_path, "arrays", ARRAYS_IO)


NEVER_ENDS = """
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((4,), "A")
    def kernel(A):
        i = hcl.scalar(0, "i")
        with hcl.while_(i.v < 10):  # i never moves
            A[0] = A[0] + 1
        return hcl.compute((4,), lambda j: A[j] + 1, name="B")
    return hcl.create_schedule([A], kernel, name="top")
"""


def test_a_reference_run_that_never_ends_is_stopped_at_its_timeout(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"spin": NEVER_ENDS})
    (root / "projects" / "spin" / "project.toml").write_text("[reference]\ntimeout = 2\n")
    proc = doit(root, "build", check=False, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (
        "spin: the LLVM reference run did not finish within 2 s and was stopped" in proc.stdout + proc.stderr
    )
    status = json.loads((root / "build" / "spin" / "status" / "reference.json").read_text())
    assert status["state"] == "failed" and "within 2 s" in status["error"]
