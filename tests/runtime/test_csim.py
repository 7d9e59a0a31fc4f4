"""Generated HLS folders for hand-written C++ functions: `make csim` and run_csim against numpy golden data."""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from hclbuild.dsl.storage import raw_ints, to_storage
from hclbuild.dsl.types import DType, Fixed, Float, Int, UInt
from hclbuild.errors import CsimError, ToolError
from hclbuild.project.config import ProjectConfig
from hclbuild.project.golden import RETURN_NAME, write_golden
from hclbuild.project.hls_project import FunctionArg, write_function_project
from hclbuild.runtime.aptypes import ap_types_include_dir
from hclbuild.runtime.csim import run_csim

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")
needs_ap = pytest.mark.skipif(
    ap_types_include_dir() is None, reason="no ap_types headers (hls4ml or XILINX_HLS)"
)

PROJECT = "demo"


@dataclass
class Case:
    """One hand-written function with its signature and numpy golden data."""

    func: str
    cpp: str
    header: str
    args: list[FunctionArg]
    golden_in: dict
    golden_out: dict
    ret_c_type: str = "void"


@dataclass
class Signature:
    """Stand-in for compiler.emit_hls.CSignature."""

    name: str
    args: list[FunctionArg]
    ret_c_type: str
    ret_dtype: DType | None = None


def write_case(tmp_path: Path, case: Case, config: ProjectConfig | None = None) -> Path:
    """The function's HLS folder, and its golden data where the reference run would link it."""
    func_dir = tmp_path / "build" / PROJECT / "hls" / case.func
    returned = case.golden_out.get(RETURN_NAME)
    signature = Signature(case.func, case.args, case.ret_c_type, returned[1] if returned else None)
    write_function_project(
        func_dir, case.func, case.cpp, case.header, signature, config or ProjectConfig(name=PROJECT)
    )
    write_golden(func_dir / "data", case.golden_in, case.golden_out)
    return func_dir


def csim_json(tmp_path: Path, func: str) -> Path:
    return tmp_path / "build" / PROJECT / "csim" / f"{func}.json"


def wrap_raw(values: np.ndarray, dtype: DType) -> np.ndarray:
    """Python-int raw bits (any sign) -> the zero-extended container array of dtype."""
    mask = (1 << dtype.bits) - 1
    flat = np.array([int(v) & mask for v in np.asarray(values, dtype=object).reshape(-1)], dtype=np.uint64)
    return flat.astype(f"u{dtype.storage_bits // 8}").view(dtype.np_storage).reshape(np.shape(values))


# ---- the functions ------------------------------------------------------------------------------


def case_int32_vadd(b0_zero: bool = False) -> Case:
    t = Int(32)
    rng = np.random.default_rng(1)
    a = rng.integers(-(2**31), 2**31, size=8, dtype=np.int64).astype(np.int32)
    b = rng.integers(-(2**31), 2**31, size=8, dtype=np.int64).astype(np.int32)
    if b0_zero:
        b[0] = 0
    c = (a.astype(np.int64) + b.astype(np.int64)).astype(np.int32)  # wraps like -fwrapv
    cpp = """#include "vadd.h"

void vadd(int32_t a[8], int32_t b[8], int32_t c[8]) {
loop_i:
  for (int i = 0; i < 8; ++i) {
#pragma HLS pipeline II=1
    c[i] = a[i] + b[i];
  }
}
"""
    header = "#pragma once\n#include <cstdint>\nvoid vadd(int32_t a[8], int32_t b[8], int32_t c[8]);\n"
    args = [FunctionArg(n, "int32_t", "int32", (8,)) for n in "abc"]
    zeros = np.zeros(8, np.int32)
    return Case(
        "vadd",
        cpp,
        header,
        args,
        {"a": (a, t), "b": (b, t), "c": (zeros, t)},
        {"a": (a, t), "b": (b, t), "c": (c, t)},
    )


def case_float_saxpy(expected_scale: float = 1.0) -> Case:
    t = Float(32)
    rng = np.random.default_rng(2)
    x = rng.standard_normal(16).astype(np.float32)
    y = rng.standard_normal(16).astype(np.float32)
    out = (np.float32(2.5) * x + y).astype(np.float32)
    out = (out.astype(np.float64) * expected_scale).astype(np.float32)
    cpp = """#include "saxpy.h"

void saxpy(float x[16], float y[16], float out[16]) {
  for (int i = 0; i < 16; ++i) {
    out[i] = 2.5f * x[i] + y[i];
  }
}
"""
    header = "#pragma once\nvoid saxpy(float x[16], float y[16], float out[16]);\n"
    args = [FunctionArg(n, "float", "float32", (16,)) for n in ("x", "y", "out")]
    return Case(
        "saxpy",
        cpp,
        header,
        args,
        {"x": (x, t), "y": (y, t), "out": (np.zeros(16, np.float32), t)},
        {"x": (x, t), "y": (y, t), "out": (out, t)},
    )


def case_fixed_mul() -> Case:
    t = Fixed(16, 8)
    rng = np.random.default_rng(3)
    a = to_storage(rng.uniform(-20, 20, size=(4, 4)), t)
    b = to_storage(rng.uniform(-20, 20, size=(4, 4)), t)
    # full product has 16 fraction bits; ap_fixed<16,8> keeps 8 (AP_TRN: floor) and wraps (AP_WRAP)
    product = (raw_ints(a, t).astype(np.int64) * raw_ints(b, t).astype(np.int64)) >> 8
    c = wrap_raw(product, t)
    cpp = """#include "fxmul.h"

void fxmul(ap_fixed<16, 8> a[4][4], ap_fixed<16, 8> b[4][4], ap_fixed<16, 8> c[4][4]) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) c[i][j] = a[i][j] * b[i][j];
}
"""
    header = (
        "#pragma once\n#include <ap_fixed.h>\n"
        "void fxmul(ap_fixed<16, 8> a[4][4], ap_fixed<16, 8> b[4][4], ap_fixed<16, 8> c[4][4]);\n"
    )
    args = [FunctionArg(n, "ap_fixed<16, 8>", "fixed16_8", (4, 4)) for n in "abc"]
    zeros = to_storage(np.zeros((4, 4)), t)
    return Case(
        "fxmul",
        cpp,
        header,
        args,
        {"a": (a, t), "b": (b, t), "c": (zeros, t)},
        {"a": (a, t), "b": (b, t), "c": (c, t)},
    )


def case_int12_add() -> Case:
    t = Int(12)
    rng = np.random.default_rng(4)
    a = to_storage(rng.integers(-2048, 2048, size=10), t)
    b = to_storage(rng.integers(-2048, 2048, size=10), t)
    c = wrap_raw(raw_ints(a, t).astype(np.int64) + raw_ints(b, t).astype(np.int64), t)
    cpp = """#include "add12.h"

void add12(ap_int<12> a[10], ap_int<12> b[10], ap_int<12> c[10]) {
  for (int i = 0; i < 10; ++i) c[i] = a[i] + b[i];
}
"""
    header = "#pragma once\n#include <ap_int.h>\nvoid add12(ap_int<12> a[10], ap_int<12> b[10], ap_int<12> c[10]);\n"
    args = [FunctionArg(n, "ap_int<12>", "int12", (10,)) for n in "abc"]
    zeros = to_storage(np.zeros(10, np.int64), t)
    return Case(
        "add12",
        cpp,
        header,
        args,
        {"a": (a, t), "b": (b, t), "c": (zeros, t)},
        {"a": (a, t), "b": (b, t), "c": (c, t)},
    )


def case_wide() -> Case:
    t100, t128 = Int(100), UInt(128)
    a_vals = np.array([2**99 - 1, -(2**99), 12345678901234567890123, -1], dtype=object)
    b_vals = np.array([-5, 7, -(2**98), 2**70], dtype=object)
    d_vals = np.array([2**128 - 1, 0, 2**64 - 1, 2**127], dtype=object)
    a, b, d = to_storage(a_vals, t100), to_storage(b_vals, t100), to_storage(d_vals, t128)
    c = to_storage(np.array([t100.wrap_int(x * 3 - y) for x, y in zip(a_vals, b_vals)], dtype=object), t100)
    d_out = to_storage(np.array([(x + 1) & (2**128 - 1) for x in d_vals], dtype=object), t128)
    cpp = """#include "wide.h"

void wide(ap_int<100> a[4], ap_int<100> b[4], ap_int<100> c[4], ap_uint<128> d[4]) {
  for (int i = 0; i < 4; ++i) {
    c[i] = a[i] * 3 - b[i];
    d[i] = d[i] + 1;
  }
}
"""
    header = (
        "#pragma once\n#include <ap_int.h>\n"
        "void wide(ap_int<100> a[4], ap_int<100> b[4], ap_int<100> c[4], ap_uint<128> d[4]);\n"
    )
    args = [FunctionArg(n, "ap_int<100>", "int100", (4,)) for n in "abc"] + [
        FunctionArg("d", "ap_uint<128>", "uint128", (4,))
    ]
    zeros = to_storage(np.zeros(4, dtype=object), t100)
    return Case(
        "wide",
        cpp,
        header,
        args,
        {"a": (a, t100), "b": (b, t100), "c": (zeros, t100), "d": (d, t128)},
        {"a": (a, t100), "b": (b, t100), "c": (c, t100), "d": (d_out, t128)},
    )


def case_inplace_scale() -> Case:
    t16, t32 = Int(16), Int(32)
    x = np.array([1, -2, 300, -32768, 32767, 0, 1000, -1000, 7, 12000], dtype=np.int16)
    k = np.array(3, dtype=np.int32)
    new_x = wrap_raw(x.astype(np.int64) * 3 + 1, t16)
    total = np.array(int(raw_ints(new_x, t16).astype(np.int64).sum()), dtype=np.int32)
    cpp = """#include "scale.h"

int32_t scale(int32_t k, int16_t x[10]) {
  int32_t total = 0;
  for (int i = 0; i < 10; ++i) {
    x[i] = x[i] * k + 1;
    total += x[i];
  }
  return total;
}
"""
    header = "#pragma once\n#include <cstdint>\nint32_t scale(int32_t k, int16_t x[10]);\n"
    args = [
        FunctionArg("k", "int32_t", "int32", (), is_array=False),
        FunctionArg("x", "int16_t", "int16", (10,)),
    ]
    return Case(
        "scale",
        cpp,
        header,
        args,
        {"k": (k, t32), "x": (x, t16)},
        {"x": (new_x, t16), "return": (total, t32)},
        ret_c_type="int32_t",
    )


def case_bool_gt() -> Case:
    t8, t1 = Int(8), UInt(1)
    a = np.array([1, -5, 7, 0, 127, -128], dtype=np.int8)
    b = np.array([0, -4, 7, -1, -128, 127], dtype=np.int8)
    c = (a > b).astype(np.uint8)
    cpp = '#include "gt.h"\n\nvoid gt(int8_t a[6], int8_t b[6], bool c[6]) {\n  for (int i = 0; i < 6; ++i) c[i] = a[i] > b[i];\n}\n'
    header = "#pragma once\n#include <cstdint>\nvoid gt(int8_t a[6], int8_t b[6], bool c[6]);\n"
    args = [
        FunctionArg("a", "int8_t", "int8", (6,)),
        FunctionArg("b", "int8_t", "int8", (6,)),
        FunctionArg("c", "bool", "uint1", (6,)),
    ]
    return Case(
        "gt",
        cpp,
        header,
        args,
        {"a": (a, t8), "b": (b, t8), "c": (np.zeros(6, np.uint8), t1)},
        {"a": (a, t8), "b": (b, t8), "c": (c, t1)},
    )


# the ap_types cases are slow (g++ on the ap_types headers); the others take about 2 s
CASES = {
    "int32": (case_int32_vadd, []),
    "float": (case_float_saxpy, []),
    "fixed16_8": (case_fixed_mul, [needs_ap, pytest.mark.slow]),
    "int12": (case_int12_add, [needs_ap, pytest.mark.slow]),
    "int100_uint128": (case_wide, [needs_ap, pytest.mark.slow]),
    "inplace_scalar_return": (case_inplace_scale, []),
    "bool": (case_bool_gt, []),
}


def run_make_csim(func_dir: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "--no-print-directory", "csim"],
        cwd=func_dir,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


# ---- tests --------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not on PATH")
@pytest.mark.parametrize("name", [pytest.param(n, marks=m) for n, (_, m) in CASES.items()])
def test_generated_project_passes_make_csim_and_run_csim(tmp_path: Path, name: str) -> None:
    case = CASES[name][0]()
    func_dir = write_case(tmp_path, case)

    made = run_make_csim(func_dir)
    assert made.returncode == 0, made.stdout + made.stderr
    summary = [line for line in made.stdout.splitlines() if line.startswith("HCLBUILD_CSIM ")]
    assert json.loads(summary[-1].split(" ", 1)[1])["pass"] is True
    assert "MISMATCH" not in made.stdout

    result = run_csim(func_dir, csim_json(tmp_path, case.func))
    assert result.passed, result.summary
    assert result.mismatches == 0 and result.error is None
    array_args = [a for a in case.args if a.is_array]
    assert result.compared == sum(int(np.prod(a.shape)) for a in array_args) + (case.ret_c_type != "void")
    written = json.loads(csim_json(tmp_path, case.func).read_text())
    assert written["pass"] is True and written["func"] == case.func and written["project"] == PROJECT
    assert written["compile_seconds"] > 0

    # the testbench wrote back exactly the golden containers
    for arg in array_args:
        expected = (func_dir / "data" / f"out_{arg.name}.bin").read_bytes()
        assert (func_dir / "out" / f"actual_{arg.name}.bin").read_bytes() == expected


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not on PATH")
def test_make_csim_after_a_change_to_the_design_file_recompiles_that_file_alone(tmp_path: Path) -> None:
    case = case_int32_vadd()
    func_dir = write_case(tmp_path, case)
    first = run_make_csim(func_dir)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "-c tb_vadd.cpp -o out/tb_vadd.o" in first.stdout and "-c vadd.cpp -o out/vadd.o" in first.stdout
    design = func_dir / "vadd.cpp"
    design.write_text(design.read_text() + "// a pragma change\n")
    again = run_make_csim(func_dir)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "-c vadd.cpp" in again.stdout and "tb_vadd.cpp" not in again.stdout
    summary = [line for line in again.stdout.splitlines() if line.startswith("HCLBUILD_CSIM ")]
    assert json.loads(summary[-1].split(" ", 1)[1])["pass"] is True


def test_mutated_operator_reports_first_mismatch(tmp_path: Path) -> None:
    case = case_int32_vadd(b0_zero=True)
    func_dir = write_case(tmp_path, case)
    top = func_dir / "vadd.cpp"
    top.write_text(top.read_text().replace("a[i] + b[i]", "a[i] - b[i]"))

    result = run_csim(func_dir, csim_json(tmp_path, "vadd"))

    a, b = case.golden_in["a"][0].astype(np.int64), case.golden_in["b"][0].astype(np.int64)
    expected_c = ((a + b + 2**31) % 2**32) - 2**31
    actual_c = ((a - b + 2**31) % 2**32) - 2**31
    assert not result.passed and result.error is None
    # b[0] == 0 makes a[0] + b[0] == a[0] - b[0]: the first difference is index 1
    assert result.first_mismatch is not None
    assert (result.first_mismatch.arg, result.first_mismatch.index) == ("c", 1)
    assert result.first_mismatch.expected == int(expected_c[1])
    assert result.first_mismatch.actual == int(actual_c[1])
    assert result.mismatches == int(np.count_nonzero(expected_c != actual_c))
    assert result.mismatch_lines[0] == f"MISMATCH c[1] expected={expected_c[1]} actual={actual_c[1]}"
    written = json.loads(csim_json(tmp_path, "vadd").read_text())
    assert written["pass"] is False
    assert written["first_mismatch"] == {
        "arg": "c",
        "index": 1,
        "expected": int(expected_c[1]),
        "actual": int(actual_c[1]),
    }
    with pytest.raises(CsimError) as info:
        result.check()
    assert str(info.value) == (
        f"demo/vadd: csim failed: {result.mismatches} of 24 elements differ; "
        f"first c[1] expected={expected_c[1]} actual={actual_c[1]}"
    )


def test_float_within_tolerance_passes(tmp_path: Path) -> None:
    # expected values 2e-6 relative away: inside rtol 1e-5
    func_dir = write_case(tmp_path, case_float_saxpy(expected_scale=1 + 2e-6))
    result = run_csim(func_dir, csim_json(tmp_path, "saxpy"))
    assert result.passed, result.summary
    assert 0 < result.max_rel_err < 1e-5


def test_float_outside_tolerance_fails(tmp_path: Path) -> None:
    case = case_float_saxpy(expected_scale=1 + 1e-3)
    func_dir = write_case(tmp_path, case, ProjectConfig(name=PROJECT, rtol=1e-5, atol=1e-6))
    result = run_csim(func_dir, csim_json(tmp_path, "saxpy"))
    assert not result.passed
    assert result.first_mismatch is not None and result.first_mismatch.arg == "out"
    assert result.first_mismatch.index == 0
    assert result.first_mismatch.expected == pytest.approx(float(case.golden_out["out"][0][0]), rel=1e-7)
    assert result.max_rel_err == pytest.approx(1e-3, rel=1e-2)


def test_tolerances_come_from_the_config(tmp_path: Path) -> None:
    # the same 1e-3 error passes when project.toml allows it
    func_dir = write_case(
        tmp_path, case_float_saxpy(expected_scale=1 + 1e-3), ProjectConfig(name=PROJECT, rtol=1e-2, atol=0.0)
    )
    assert run_csim(func_dir, csim_json(tmp_path, "saxpy")).passed


@needs_ap
def test_fixed_mismatch_prints_values(tmp_path: Path) -> None:
    case = case_fixed_mul()
    t = Fixed(16, 8)
    c = case.golden_out["c"][0].copy()
    c.reshape(-1)[5] = to_storage(np.array([1.5]), t)[0]  # a wrong golden value, exactly 1.5
    case.golden_out["c"] = (c, t)
    func_dir = write_case(tmp_path, case)
    result = run_csim(func_dir, csim_json(tmp_path, "fxmul"))
    true_raw = int(raw_ints(case_fixed_mul().golden_out["c"][0], t).reshape(-1)[5])
    assert not result.passed and result.mismatches == 1
    assert result.first_mismatch.arg == "c" and result.first_mismatch.index == 5
    assert result.first_mismatch.expected == 1.5
    assert result.first_mismatch.actual == true_raw / 256


@needs_ap
def test_wide_mismatch_prints_exact_integers(tmp_path: Path) -> None:
    case = case_wide()
    t = Int(100)
    wrong = to_storage(np.array([-(2**99), 0, 0, 0], dtype=object), t)
    case.golden_out["c"] = (wrong, t)
    func_dir = write_case(tmp_path, case)
    result = run_csim(func_dir, csim_json(tmp_path, "wide"))
    assert result.first_mismatch.index == 0
    assert result.first_mismatch.expected == -(2**99)
    assert result.first_mismatch.actual == t.wrap_int((2**99 - 1) * 3 + 5)


def test_compile_error_is_tool_error_with_gxx_line(tmp_path: Path) -> None:
    case = case_int32_vadd()
    case.cpp = case.cpp.replace("a[i] + b[i]", "a[i] + missing_value")
    func_dir = write_case(tmp_path, case)
    with pytest.raises(ToolError) as info:
        run_csim(func_dir, csim_json(tmp_path, "vadd"))
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(
        "demo/vadd: g++ failed (exit 1): vadd.cpp:7:19: error: 'missing_value' was not declared in this scope"
    )
    assert message.endswith(f"full output in {func_dir / 'out' / 'compile.log'}")
    written = json.loads(csim_json(tmp_path, "vadd").read_text())
    assert written["pass"] is False
    assert "vadd.cpp:7:19: error: 'missing_value' was not declared" in written["error"]


def test_missing_data_file_fails_with_error(tmp_path: Path) -> None:
    func_dir = write_case(tmp_path, case_int32_vadd())
    (func_dir / "data" / "out_c.bin").unlink()
    result = run_csim(func_dir, csim_json(tmp_path, "vadd"))
    assert not result.passed
    assert result.exit_code == 2
    assert result.error == "cannot open data/out_c.bin"
    with pytest.raises(CsimError, match=r"^demo/vadd: csim failed: cannot open data/out_c.bin$"):
        result.check()


def test_truncated_data_file_fails(tmp_path: Path) -> None:
    func_dir = write_case(tmp_path, case_int32_vadd())
    path = func_dir / "data" / "in_a.bin"
    path.write_bytes(path.read_bytes()[:-4])
    result = run_csim(func_dir, csim_json(tmp_path, "vadd"))
    assert not result.passed
    assert result.error == "data/in_a.bin: 28 bytes, expected 32"


def test_crash_is_reported_not_ignored(tmp_path: Path) -> None:
    case = case_int32_vadd()
    case.cpp = case.cpp.replace(
        "c[i] = a[i] + b[i];", "c[i] = a[i] + b[i];\n    if (i == 7) __builtin_trap();"
    )
    func_dir = write_case(tmp_path, case)
    result = run_csim(func_dir, csim_json(tmp_path, "vadd"))
    assert not result.passed
    assert result.error == "testbench killed by SIGILL"


@pytest.mark.skipif(
    resource.getrlimit(resource.RLIMIT_STACK)[1] not in (resource.RLIM_INFINITY,)
    and resource.getrlimit(resource.RLIMIT_STACK)[1] < 64 << 20,
    reason="hard stack limit < 64 MB",
)
def test_local_arrays_larger_than_the_default_stack(tmp_path: Path) -> None:
    """A top's intermediates live on the stack (two 1024 x 1024 int32 arrays are 8 MB): the
    testbench had died by SIGSEGV under the usual 8 MB limit, in run_csim and in make csim."""
    case = case_int32_vadd()
    case.cpp = case.cpp.replace(
        "loop_i:",
        "  volatile int32_t big[4 << 20];  // 16 MB\n"
        "  for (int k = 0; k < (4 << 20); k += 1024) big[k] = k;\nloop_i:",
    )
    case.cpp = case.cpp.replace("c[i] = a[i] + b[i];", "c[i] = a[i] + b[i] + big[i * 1024] - i * 1024;")
    func_dir = write_case(tmp_path, case)
    result = run_csim(func_dir, csim_json(tmp_path, "vadd"))
    assert result.passed, result.summary
    if shutil.which("make") is not None:
        made = run_make_csim(func_dir)
        assert made.returncode == 0, made.stdout + made.stderr


def test_exit_status_must_agree_with_a_passing_summary(tmp_path: Path) -> None:
    func_dir = write_case(tmp_path, case_int32_vadd())
    harness = func_dir / "hclbuild_tb.cpp"
    text = harness.read_text()
    assert "return pass ? 0 : 1;" in text
    harness.write_text(text.replace("return pass ? 0 : 1;", "return 1;"))  # prints pass, exits 1
    result = run_csim(func_dir, csim_json(tmp_path, "vadd"))
    assert not result.passed
    assert result.error == "testbench summary says pass=True but it exited with status 1"
    assert json.loads(csim_json(tmp_path, "vadd").read_text())["pass"] is False


def test_exit_status_must_agree_with_a_failing_summary(tmp_path: Path) -> None:
    case = case_int32_vadd()
    case.cpp = case.cpp.replace("c[i] = a[i] + b[i];", "c[i] = a[i] - b[i];")
    func_dir = write_case(tmp_path, case)
    harness = func_dir / "hclbuild_tb.cpp"
    harness.write_text(
        harness.read_text().replace("return pass ? 0 : 1;", "return 0;")
    )  # prints fail, exits 0
    result = run_csim(func_dir, csim_json(tmp_path, "vadd"))
    assert not result.passed
    assert result.error == "testbench summary says pass=False but it exited with status 0"


# ---- objects of unchanged sources are reused --------------------------------------------------


OBJECTS = Path("out") / "cache" / "objects"  # a folder's own object cache, without the build's


def _objects(func_dir: Path) -> dict[str, str]:
    """stem -> object file name, of the objects in the folder's object cache."""
    return {path.name.rsplit("-", 1)[0]: path.name for path in (func_dir / OBJECTS).glob("*.o")}


def test_unchanged_testbench_object_is_reused_and_a_changed_design_recompiled(tmp_path: Path) -> None:
    case = case_int32_vadd(b0_zero=True)
    func_dir = write_case(tmp_path, case)
    assert run_csim(func_dir, csim_json(tmp_path, "vadd")).passed
    first = _objects(func_dir)
    assert sorted(first) == ["hclbuild_tb", "tb_vadd", "vadd"]

    # a change of the design's code: the design is recompiled, the testbench and harness reused
    top = func_dir / "vadd.cpp"
    top.write_text(top.read_text().replace("a[i] + b[i]", "b[i] + a[i]"))
    assert run_csim(func_dir, csim_json(tmp_path, "vadd")).passed
    second = _objects(func_dir)
    assert second["tb_vadd"] == first["tb_vadd"] and second["vadd"] != first["vadd"]
    assert second["hclbuild_tb"] == first["hclbuild_tb"]
    log = (func_dir / "out" / "compile.log").read_text()
    assert f"# tb_vadd.cpp: unchanged, {OBJECTS / first['tb_vadd']} reused" in log
    assert f"# hclbuild_tb.cpp: unchanged, {OBJECTS / first['hclbuild_tb']} reused" in log
    assert f"-c vadd.cpp -o {OBJECTS / second['vadd']}\n" in log
    assert len(list((func_dir / OBJECTS).glob("vadd-*.o"))) == 1  # the old design object is gone

    # the reused testbench is linked with the new design: a wrong operator is still caught
    top.write_text(top.read_text().replace("b[i] + a[i]", "a[i] - b[i]"))
    result = run_csim(func_dir, csim_json(tmp_path, "vadd"))
    assert not result.passed and result.first_mismatch is not None and result.first_mismatch.index == 1
    assert _objects(func_dir)["tb_vadd"] == first["tb_vadd"]


def test_a_pragma_change_compiles_nothing_and_reuses_the_passing_run(tmp_path: Path) -> None:
    func_dir = write_case(tmp_path, case_int32_vadd(b0_zero=True))
    first = run_csim(func_dir, csim_json(tmp_path, "vadd"))
    assert first.passed and not first.run_reused
    objects = _objects(func_dir)
    top = func_dir / "vadd.cpp"
    assert "#pragma HLS pipeline II=1" in top.read_text()
    top.write_text(top.read_text().replace("II=1", "II=2").replace("{\n", "{\n  #pragma HLS inline off\n", 1))
    again = run_csim(func_dir, csim_json(tmp_path, "vadd"))
    # g++ ignores `#pragma HLS`: the same objects, the same executable, the same data
    assert (
        _objects(func_dir) == objects and "-c vadd.cpp" not in (func_dir / "out" / "compile.log").read_text()
    )
    assert again.passed and again.run_reused and again.compared == first.compared == 24
    written = json.loads(csim_json(tmp_path, "vadd").read_text())
    assert written["pass"] is True and written["run_reused"] is True
    # other data: the testbench runs again, and catches what differs
    expected = func_dir / "data" / "out_c.bin"
    old = expected.read_bytes()
    expected.write_bytes(bytes([old[0] ^ 1]) + old[1:])
    changed = run_csim(func_dir, csim_json(tmp_path, "vadd"))
    assert not changed.passed and not changed.run_reused and changed.first_mismatch.index == 0


def test_a_damaged_run_record_runs_the_testbench_again(tmp_path: Path) -> None:
    func_dir = write_case(tmp_path, case_int32_vadd())
    assert run_csim(func_dir, csim_json(tmp_path, "vadd")).passed
    (record,) = (func_dir / "out").glob("run-*.json")
    summary = json.loads(record.read_text())["stdout"].replace('"pass":true', '"pass":false')
    record.write_text(json.dumps({"stdout": summary, "stderr": "", "returncode": 0}))
    result = run_csim(func_dir, csim_json(tmp_path, "vadd"))
    assert result.passed and not result.run_reused
    record.write_text("{not json")
    result = run_csim(func_dir, csim_json(tmp_path, "vadd"))
    assert result.passed and not result.run_reused
    assert len(list((func_dir / "out").glob("run-*.json"))) == 1


def test_a_failing_run_is_not_recorded(tmp_path: Path) -> None:
    case = case_int32_vadd()
    case.cpp = case.cpp.replace("c[i] = a[i] + b[i];", "c[i] = a[i] - b[i];")
    func_dir = write_case(tmp_path, case)
    assert not run_csim(func_dir, csim_json(tmp_path, "vadd")).passed
    assert not list((func_dir / "out").glob("run-*.json"))


def test_a_changed_header_recompiles_both_sources(tmp_path: Path) -> None:
    func_dir = write_case(tmp_path, case_int32_vadd())
    assert run_csim(func_dir, csim_json(tmp_path, "vadd")).passed
    first = _objects(func_dir)
    header = func_dir / "vadd.h"
    header.write_text(header.read_text() + "// a comment changes the bytes both sources include\n")
    assert run_csim(func_dir, csim_json(tmp_path, "vadd")).passed
    second = _objects(func_dir)
    assert second["tb_vadd"] != first["tb_vadd"] and second["vadd"] != first["vadd"]
    # the harness does not include the function's header: it stays
    assert second["hclbuild_tb"] == first["hclbuild_tb"]
    log = (func_dir / "out" / "compile.log").read_text()
    assert [line for line in log.splitlines() if "unchanged" in line] == [
        f"# hclbuild_tb.cpp: unchanged, {OBJECTS / first['hclbuild_tb']} reused"
    ]


def test_a_failed_compile_leaves_no_object_to_reuse(tmp_path: Path) -> None:
    case = case_int32_vadd()
    func_dir = write_case(tmp_path, case)
    top = func_dir / "vadd.cpp"
    good = top.read_text()
    top.write_text(good.replace("a[i] + b[i]", "a[i] + missing_value"))
    with pytest.raises(ToolError):
        run_csim(func_dir, csim_json(tmp_path, "vadd"))
    assert "vadd" not in _objects(func_dir)
    assert not list((func_dir / OBJECTS).glob(".*.tmp"))
    top.write_text(good)
    assert run_csim(func_dir, csim_json(tmp_path, "vadd")).passed


def _generated_style(case: Case) -> Case:
    """The case with a header shaped like the emitter's: an HCLBUILD_ include guard, then the includes."""
    case.header = (
        "// Generated by hclbuild.compiler.emit_hls from MLIR; do not edit.\n"
        "#ifndef HCLBUILD_FXMUL_H\n#define HCLBUILD_FXMUL_H\n\n#include <cstdint>\n"
        '#include "ap_int.h"\n#include "ap_fixed.h"\n\n'
        "void fxmul(ap_fixed<16, 8> a[4][4], ap_fixed<16, 8> b[4][4], ap_fixed<16, 8> c[4][4]);\n\n"
        "#endif  // HCLBUILD_FXMUL_H\n"
    )
    return case


@pytest.mark.slow
@needs_ap
def test_ap_types_headers_are_precompiled_once_and_shared(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    folders = [
        write_case(tmp_path / name, _generated_style(case_fixed_mul())) for name in ("one", "two", "three")
    ]
    # the first function compiles one source with the headers (its testbench joined with its
    # definition): precompiling would cost more than it saves, so it only leaves word; the second
    # function with the same headers precompiles them; the third reuses that
    assert run_csim(folders[0], tmp_path / "one.json", cache_root=cache).passed
    [wanted] = list((cache / "pch").iterdir())
    assert wanted.suffix == ".wanted"
    assert "-include" not in (folders[0] / "out" / "compile.log").read_text()
    for folder in folders[1:]:
        (folder / "fxmul.h").write_text(
            (folder / "fxmul.h").read_text() + f"// {folder.parents[3].name}'s own\n"
        )
    assert run_csim(folders[1], tmp_path / "two.json", cache_root=cache).passed
    [made] = [path for path in (cache / "pch").iterdir() if path.is_dir()]
    assert made.name == wanted.stem
    assert (
        made / "hclbuild_prelude.h"
    ).read_text() == '#include <cstdint>\n#include "ap_int.h"\n#include "ap_fixed.h"\n'
    assert (made / "hclbuild_prelude.h.gch").stat().st_size > 0
    assert (
        f"-x c++-header hclbuild_prelude.h -o hclbuild_prelude.h.gch  # in {made.resolve()}\n"
        in (folders[1] / "out" / "compile.log").read_text()
    )
    assert run_csim(folders[2], tmp_path / "three.json", cache_root=cache).passed
    log = (folders[2] / "out" / "compile.log").read_text()
    assert f"# headers: precompiled in {made.resolve()}\n" in log
    assert f"-include {made.resolve() / 'hclbuild_prelude.h'} " in log
    assert "c++-header" not in log
    assert sorted((cache / "pch").iterdir()) == sorted([made, wanted])


@needs_ap
def test_a_header_asked_for_once_is_precompiled_the_second_time(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    func_dir = write_case(tmp_path, _generated_style(case_fixed_mul()))
    assert run_csim(func_dir, csim_json(tmp_path, "fxmul"), cache_root=cache).passed
    shutil.rmtree(cache / "pch")
    design, log = func_dir / "fxmul.cpp", func_dir / "out" / "compile.log"
    # one source to compile: precompiling would cost more than it saves, so it only leaves word
    design.write_text(design.read_text().replace("a[i][j] * b[i][j]", "b[i][j] * a[i][j]"))
    assert run_csim(func_dir, csim_json(tmp_path, "fxmul"), cache_root=cache).passed
    [wanted] = list((cache / "pch").iterdir())
    assert wanted.suffix == ".wanted" and "-include" not in log.read_text()
    design.write_text(design.read_text().replace("b[i][j] * a[i][j]", "(b[i][j]) * a[i][j]"))
    assert run_csim(func_dir, csim_json(tmp_path, "fxmul"), cache_root=cache).passed
    assert "-include" in log.read_text()
    assert sorted(path.name for path in (cache / "pch").iterdir()) == [wanted.stem, wanted.name]


@pytest.mark.slow
@needs_ap
def test_a_damaged_precompiled_header_is_dropped_and_the_result_still_right(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    func_dir = write_case(tmp_path, _generated_style(case_fixed_mul()))
    assert run_csim(func_dir, csim_json(tmp_path, "fxmul"), cache_root=cache).passed
    # the first run only asks for the precompiled headers (one source); the second makes them
    shutil.rmtree(cache / "objects")
    assert run_csim(func_dir, csim_json(tmp_path, "fxmul"), cache_root=cache).passed
    [made] = [path for path in (cache / "pch").iterdir() if path.is_dir()]
    gch = made / "hclbuild_prelude.h.gch"
    gch.write_bytes(gch.read_bytes()[:4096])
    shutil.rmtree(cache / "objects")
    result = run_csim(func_dir, csim_json(tmp_path, "fxmul"), cache_root=cache)
    assert result.passed and result.compared == 48
    assert not made.exists()
    assert "-include" not in (func_dir / "out" / "compile.log").read_text()


@needs_ap
def test_an_unwritable_precompiled_header_folder_only_costs_time(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "pch").write_text("a file where the folder should be\n")
    func_dir = write_case(tmp_path, _generated_style(case_fixed_mul()))
    assert run_csim(func_dir, csim_json(tmp_path, "fxmul"), cache_root=cache).passed
    assert "# headers: not precompiled (" in (func_dir / "out" / "compile.log").read_text()
