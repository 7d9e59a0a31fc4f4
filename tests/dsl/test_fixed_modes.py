"""ap_fixed's quantization and overflow modes (hcl.Fixed(16, 8, quantization="AP_RND_CONV",
overflow="AP_SAT")): checked against ap_fixed itself. g++ converts every value of small types and
random values of wide ones with every mode; hclbuild's Python rules, the fuzzer's numpy model, the
LLVM reference and the emitted C++ (csim) must give the same bits."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from ap_fixed_reference import Conversion, ap_fixed_results
from flow_helpers import check_numpy_llvm_cpp
from fuzz.semantics import Ty, exact_double, to_fixed

import hclbuild as hcl
from hclbuild.dsl.array import Array
from hclbuild.dsl.fixed_point import OVERFLOW_MODES, QUANTIZATION_MODES
from hclbuild.dsl.storage import raw_ints, to_storage
from hclbuild.dsl.types import DType, parse_dtype
from hclbuild.errors import DTypeError
from hclbuild.project.config import ProjectConfig
from hclbuild.project.flow import compile_design
from hclbuild.project.golden import read_manifest
from hclbuild.project.layout import BuildLayout
from hclbuild.project.reference import reference_design
from hclbuild.runtime.aptypes import ap_types_include_dir

needs_ap_types = pytest.mark.skipif(ap_types_include_dir() is None, reason="no ap_types headers (hls4ml)")

MODE_PAIRS = [(q, o) for q in QUANTIZATION_MODES for o in OVERFLOW_MODES]
# a few pairs for the wide groups beyond the two that take all 28 (each pair is a template g++ compiles)
SOME_PAIRS = [
    ("AP_TRN", "AP_WRAP"),
    ("AP_RND_CONV", "AP_SAT"),
    ("AP_RND_ZERO", "AP_SAT_SYM"),
    ("AP_TRN_ZERO", "AP_SAT_ZERO"),
    ("AP_RND_MIN_INF", "AP_WRAP"),
    ("AP_RND_INF", "AP_SAT"),
]


def _moded(base: DType, quantization: str, overflow: str) -> DType:
    make = hcl.Fixed if base.kind == "fixed" else hcl.UFixed
    return make(base.bits, base.frac, quantization=quantization, overflow=overflow)


def _every_raw(dtype: DType) -> tuple[int, ...]:
    if dtype.is_signed:
        return tuple(range(-(1 << (dtype.bits - 1)), 1 << (dtype.bits - 1)))
    return tuple(range(1 << dtype.bits))


def _random_raws(dtype: DType, count: int, rng: np.random.Generator) -> tuple[int, ...]:
    """Random raw values over the whole range, small ones (where the rounding ties are), the extremes."""
    lowest = -(1 << (dtype.bits - 1)) if dtype.is_signed else 0
    highest = lowest + (1 << dtype.bits) - 1
    anywhere = [lowest + int.from_bytes(rng.bytes(dtype.bits // 8 + 2), "little") % (1 << dtype.bits)]
    anywhere += [
        lowest + int.from_bytes(rng.bytes(dtype.bits // 8 + 2), "little") % (1 << dtype.bits)
        for _ in range(count // 2)
    ]
    small = [int(v) for v in rng.integers(max(lowest, -(1 << 20)), 1 << 20, count // 2)]
    return (*anywhere, *small, lowest, highest)


def _doubles(rng: np.random.Generator) -> tuple[float, ...]:
    grid = [k / 64 for k in range(-330, 331)]  # every tie and near-tie of 2 fraction bits
    special = [math.inf, -math.inf, math.nan, -math.nan, 1e300, -1e300, 5e-324, -5e-324, 0.0, -0.0]
    special += [2.0**-60, -(2.0**-60), 2.0**60 + 2**8, -(2.0**70), 2.0**-300, 1.5 * 2.0**80]
    scaled = [float(m) * 2.0 ** int(e) for m, e in zip(rng.uniform(-1, 1, 200), rng.integers(-40, 110, 200))]
    return tuple(grid + special + scaled)


# source, destination base type, the mode pairs: every value of the small sources; random wide ones
SMALL = [
    (hcl.Fixed(6, 3), hcl.Fixed(4, 2), MODE_PAIRS),
    (hcl.Fixed(6, 3), hcl.Fixed(4, 0), MODE_PAIRS),
    (hcl.UFixed(6, 3), hcl.Fixed(4, 2), MODE_PAIRS),
    (hcl.Fixed(6, 3), hcl.UFixed(4, 2), MODE_PAIRS),
    (hcl.UFixed(6, 3), hcl.UFixed(4, 1), MODE_PAIRS),
    (hcl.Fixed(6, 3), hcl.Fixed(8, 5), MODE_PAIRS),  # more fraction bits, fewer integer bits
    (hcl.Int(5), hcl.Fixed(4, 1), MODE_PAIRS),
    (hcl.Float(64), hcl.Fixed(4, 2), MODE_PAIRS),
    (hcl.Float(64), hcl.UFixed(4, 2), MODE_PAIRS),
]
WIDE = [
    (hcl.Fixed(100, 40), hcl.Fixed(70, 13), MODE_PAIRS),
    (hcl.Float(64), hcl.Fixed(80, 30), MODE_PAIRS),
    (hcl.UFixed(90, 60), hcl.Fixed(65, 20), SOME_PAIRS),
    (hcl.Fixed(40, 8), hcl.Fixed(40, 30), SOME_PAIRS),
    (hcl.Int(70), hcl.Fixed(64, 10), SOME_PAIRS),
    (hcl.Float(64), hcl.UFixed(20, 4), SOME_PAIRS),
]


def _groups() -> list[tuple[DType, list[Conversion]]]:
    rng = np.random.default_rng(29)
    doubles = _doubles(rng)
    groups = []
    for src, base, pairs in SMALL + WIDE:
        if src.is_float:
            inputs = doubles
        elif (src, base, pairs) in SMALL:
            inputs = _every_raw(src)
        else:
            inputs = _random_raws(src, 120, rng)
        groups.append((src, [Conversion(src, _moded(base, q, o), inputs) for q, o in pairs]))
    return groups


GROUPS = _groups()


@pytest.fixture(scope="module")
def ap_fixed(tmp_path_factory: pytest.TempPathFactory) -> list[list[list[int]]]:
    """ap_fixed's results, per group and conversion (one g++ program for all)."""
    flat = [c for _, conversions in GROUPS for c in conversions]
    results = iter(ap_fixed_results(flat, tmp_path_factory.mktemp("ap_fixed")))
    return [[next(results) for _ in conversions] for _, conversions in GROUPS]


def _exact(value: float | int, src: DType) -> Fraction:
    return exact_double(value) if src.is_float else Fraction(value, 2**src.frac)


def _ty(dtype: DType) -> Ty:
    return Ty(dtype.kind, dtype.bits, dtype.frac, dtype.quantization, dtype.overflow)


@needs_ap_types
@pytest.mark.slow
def test_python_rules_and_the_fuzzers_model_give_ap_fixeds_bits(ap_fixed) -> None:
    checked = 0
    for (src, conversions), results in zip(GROUPS, ap_fixed):
        for conversion, want in zip(conversions, results):
            dst = conversion.dst
            # hclbuild's host-side conversion (hcl.asarray, golden data, constants)
            values = (
                np.array(conversion.inputs, dtype=np.float64)
                if src.is_float
                else np.array([Fraction(v, 2**src.frac) for v in conversion.inputs], dtype=object)
            )
            host = [int(v) for v in raw_ints(to_storage(values, dst), dst)]
            model = [to_fixed(_exact(v, src), _ty(dst)) for v in conversion.inputs]
            assert host == want, f"{src!r} -> {dst!r}: hclbuild {_first_difference(host, want, conversion)}"
            assert model == want, (
                f"{src!r} -> {dst!r}: fuzzer model {_first_difference(model, want, conversion)}"
            )
            checked += len(want)
    assert checked > 60000


def _first_difference(got: list[int], want: list[int], conversion: Conversion) -> str:
    k = next(k for k, (a, b) in enumerate(zip(got, want)) if a != b)
    return f"input {conversion.inputs[k]!r} gives {got[k]}, ap_fixed {want[k]}"


def _group_schedule(src: DType, conversions: list[Conversion]):
    """One stage per conversion: stores into the moded type, or (every other one) an hcl.cast."""
    n = len(conversions[0].inputs)
    A = hcl.placeholder((n,), "A", dtype=src)

    def kernel(A):
        outputs = []
        for k, conversion in enumerate(conversions):
            dst = conversion.dst
            if k % 2:
                outputs.append(hcl.compute((n,), lambda i, d=dst: hcl.cast(d, A[i]), f"cast{k}", dtype=dst))
            else:
                outputs.append(hcl.compute((n,), lambda i: A[i], f"store{k}", dtype=dst))
        return outputs

    return hcl.create_schedule([A], kernel)


def _source_array(src: DType, inputs: tuple) -> Array:
    if src.is_float:
        return hcl.asarray(np.array(inputs, dtype=np.float64), dtype=src)
    # raw bits: a double cannot hold a wide type's values
    storage = to_storage(np.array(inputs, dtype=object), DType("int" if src.is_signed else "uint", src.bits))
    return Array(storage.view(src.np_storage), src)


@needs_ap_types
@pytest.mark.slow
def test_the_llvm_reference_gives_ap_fixeds_bits(ap_fixed) -> None:
    for (src, conversions), results in zip(GROUPS, ap_fixed):
        fn = hcl.build(_group_schedule(src, conversions))
        outputs = [hcl.asarray(np.zeros(len(c.inputs)), dtype=c.dst) for c in conversions]
        fn(_source_array(src, conversions[0].inputs), *outputs)
        for conversion, out, want in zip(conversions, outputs, results):
            got = [int(v) for v in raw_ints(out.storage, conversion.dst)]
            assert got == want, (
                f"{src!r} -> {conversion.dst!r}: LLVM {_first_difference(got, want, conversion)}"
            )


@needs_ap_types
@pytest.mark.slow
@pytest.mark.parametrize(
    "group", [0, 7, 9, 10], ids=["fixed6_3", "float_fixed4_2", "fixed100_40", "float_fixed80_30"]
)
def test_csim_of_the_emitted_cpp_gives_the_llvm_bits(group: int, tmp_path: Path) -> None:
    src, conversions = GROUPS[group]
    inputs = conversions[0].inputs

    def inputs_fn(rng):
        if src.is_float:
            return [np.array(inputs, dtype=np.float64)]
        return [np.array([Fraction(v, 2**src.frac) for v in inputs], dtype=object)]

    def model_fn(values):
        return [
            np.array([float(Fraction(to_fixed(_exact(v, src), _ty(c.dst)), 2**c.dst.frac)) for v in inputs])
            for c in conversions
        ]

    check_numpy_llvm_cpp(_group_schedule(src, conversions), f"modes{group}", tmp_path, inputs_fn, model_fn)


# ---- the type: names, errors, where the modes show ----------------------------------------------


def test_modes_are_keywords_and_the_defaults_are_unchanged() -> None:
    moded = hcl.Fixed(16, 8, quantization="AP_RND_CONV", overflow="AP_SAT")
    assert (moded.bits, moded.frac, moded.quantization, moded.overflow) == (16, 8, "AP_RND_CONV", "AP_SAT")
    assert moded == hcl.Fixed(16, 8, "AP_RND_CONV", "AP_SAT")  # ap_fixed's order, positionally
    assert hcl.Fixed(16, 8) == hcl.Fixed(16, 8, quantization="AP_TRN", overflow="AP_WRAP")
    assert hcl.Fixed(16, 8) != moded
    assert (hcl.Fixed(16, 8).name, repr(hcl.Fixed(16, 8)), hcl.UFixed(8, 4).name) == (
        "fixed16_8",
        "Fixed(16, 8)",
        "ufixed8_4",
    )
    assert moded.name == "fixed16_8_rnd_conv_sat"
    assert repr(moded) == "Fixed(16, 8, quantization='AP_RND_CONV', overflow='AP_SAT')"
    assert moded.without_modes == hcl.Fixed(16, 8)


@pytest.mark.parametrize("quantization, overflow", MODE_PAIRS)
def test_every_mode_pairs_name_reads_back(quantization: str, overflow: str) -> None:
    for base in (hcl.Fixed(12, 5), hcl.UFixed(9, 9)):
        dtype = _moded(base, quantization, overflow)
        assert parse_dtype(dtype.name) == dtype
        assert parse_dtype(dtype.name.upper()) == dtype


def test_a_wrong_mode_is_one_line_naming_the_valid_ones() -> None:
    with pytest.raises(DTypeError) as bad_quantization:
        hcl.Fixed(16, 8, quantization="AP_ROUND")
    message = str(bad_quantization.value)
    assert "\n" not in message
    assert "'AP_ROUND'" in message
    assert all(mode in message for mode in QUANTIZATION_MODES)
    with pytest.raises(
        DTypeError,
        match=r"unknown overflow mode 'SAT'; the overflow modes are "
        r"AP_WRAP, AP_SAT, AP_SAT_ZERO, AP_SAT_SYM",
    ):
        hcl.UFixed(8, 4, overflow="SAT")
    # the spelling: an overflow mode where the quantization mode goes
    with pytest.raises(DTypeError, match=r"AP_SAT is an overflow mode"):
        hcl.Fixed(16, 8, "AP_SAT")
    with pytest.raises(DTypeError, match="unknown data type"):
        parse_dtype("fixed16_8_rnd")
    with pytest.raises(DTypeError, match="only fixed types take"):
        parse_dtype("int8_rnd_sat")


def _moded_kernel():
    dtype = hcl.Fixed(16, 8, quantization="AP_RND_CONV", overflow="AP_SAT")
    A = hcl.placeholder((4,), "A", dtype=hcl.Float())
    return hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: A[i] * 3, "B", dtype=dtype))


def test_the_ir_and_the_cpp_carry_the_modes() -> None:
    s = _moded_kernel()
    ir_text = str(hcl.lower(s))
    assert '"fixed16_8_rnd_conv_sat"' in ir_text
    code = hcl.build(s, target="vhls")
    assert "ap_fixed<16, 8, AP_RND_CONV, AP_SAT> B[4]" in code
    plain = hcl.placeholder((4,), "P", dtype=hcl.Fixed(16, 8))
    plain_code = hcl.build(
        hcl.create_schedule([plain], lambda P: hcl.compute((4,), lambda i: P[i] + 1, "Q")), target="vhls"
    )
    assert "ap_fixed<16, 8> P[4]" in plain_code


def test_golden_metadata_keeps_the_modes(tmp_path: Path) -> None:
    layout = BuildLayout(tmp_path, "modes")
    compile_design(_moded_kernel(), layout, "modes")
    reference_design(layout, "modes", ProjectConfig(name="modes"), None, None)
    manifest = read_manifest(layout.golden_dir("top"))
    dtypes = {entry["name"]: parse_dtype(entry["dtype"]) for entry in manifest["out"]}
    assert dtypes["B"] == hcl.Fixed(16, 8, quantization="AP_RND_CONV", overflow="AP_SAT")


# ---- the values, worked by hand -------------------------------------------------------------------

# x * 4 for x = -0.625, -0.375, 0.375, 0.625, 0.875, -0.875: ties at +-2.5, +-1.5 and non-ties
TIES = [-0.625, -0.375, 0.375, 0.625, 0.875, -0.875, 0.5, -0.5]
ROUNDED = {  # into Fixed(8, 2): steps of 1/4
    "AP_TRN": [-0.75, -0.5, 0.25, 0.5, 0.75, -1.0, 0.5, -0.5],
    "AP_TRN_ZERO": [-0.5, -0.25, 0.25, 0.5, 0.75, -0.75, 0.5, -0.5],
    "AP_RND": [-0.5, -0.25, 0.5, 0.75, 1.0, -0.75, 0.5, -0.5],
    "AP_RND_ZERO": [-0.5, -0.25, 0.25, 0.5, 0.75, -0.75, 0.5, -0.5],
    "AP_RND_INF": [-0.75, -0.5, 0.5, 0.75, 1.0, -1.0, 0.5, -0.5],
    "AP_RND_MIN_INF": [-0.75, -0.5, 0.25, 0.5, 0.75, -1.0, 0.5, -0.5],
    "AP_RND_CONV": [-0.5, -0.5, 0.5, 0.5, 1.0, -1.0, 0.5, -0.5],
}


@pytest.mark.parametrize("quantization", QUANTIZATION_MODES)
def test_each_rounding_of_floats_stored_into_fixed(quantization: str) -> None:
    dtype = hcl.Fixed(8, 2, quantization=quantization)
    A = hcl.placeholder((len(TIES),), "A", dtype=hcl.Float(64))
    s = hcl.create_schedule([A], lambda A: hcl.compute(A.shape, lambda i: A[i], "B", dtype=dtype))
    out = hcl.asarray(np.zeros(len(TIES)), dtype=dtype)
    hcl.build(s)(hcl.asarray(np.array(TIES), dtype=hcl.Float(64)), out)
    assert out.asnumpy().tolist() == ROUNDED[quantization]
    assert hcl.asarray(np.array(TIES), dtype=dtype).asnumpy().tolist() == ROUNDED[quantization]


SATURATED = {  # -9, -8.5, -8, 7.75, 8, 300 into Fixed(6, 2) (from -8 to 7.75), int -> fixed
    "AP_WRAP": [7.0, 7.5, -8.0, 7.75, -8.0, -4.0],
    "AP_SAT": [-8.0, -8.0, -8.0, 7.75, 7.75, 7.75],
    "AP_SAT_ZERO": [0.0, 0.0, -8.0, 7.75, 0.0, 0.0],
    "AP_SAT_SYM": [-7.75, -7.75, -7.75, 7.75, 7.75, 7.75],
}


@pytest.mark.parametrize("overflow", OVERFLOW_MODES)
def test_each_overflow_of_a_cast_and_a_store(overflow: str) -> None:
    dtype = hcl.Fixed(6, 2, overflow=overflow)
    values = np.array([-36, -34, -32, 31, 32, 1200])  # quarters: -9, -8.5, -8, 7.75, 8, 300
    A = hcl.placeholder((6,), "A", dtype=hcl.Int(16))

    def kernel(A):
        as_fixed = hcl.compute(
            (6,), lambda i: hcl.cast(hcl.Fixed(14, 2), A[i]) / 4, "Q", dtype=hcl.Fixed(14, 2)
        )
        stored = hcl.compute((6,), lambda i: as_fixed[i], "S", dtype=dtype)
        cast = hcl.compute((6,), lambda i: hcl.cast(dtype, as_fixed[i]), "C", dtype=dtype)
        return stored, cast

    s = hcl.create_schedule([A], kernel)
    outs = [hcl.asarray(np.zeros(6), dtype=dtype) for _ in range(2)]
    hcl.build(s)(hcl.asarray(values, dtype=hcl.Int(16)), *outs)
    for out in outs:
        assert out.asnumpy().tolist() == SATURATED[overflow]


def test_an_int_into_a_saturating_fixed_saturates() -> None:
    A = hcl.placeholder((4,), "A", dtype=hcl.Int(32))
    dtype = hcl.UFixed(8, 4, overflow="AP_SAT")
    s = hcl.create_schedule([A], lambda A: hcl.compute((4,), lambda i: A[i], "B", dtype=dtype))
    out = hcl.asarray(np.zeros(4), dtype=dtype)
    hcl.build(s)(np.array([-3, 0, 15, 16], dtype=np.int32), out)
    assert out.asnumpy().tolist() == [0.0, 0.0, 15.0, 15.9375]


def test_a_saturating_accumulator_saturates_and_a_wrapping_one_wraps() -> None:
    A = hcl.placeholder((8,), "A", dtype=hcl.Fixed(8, 4))
    k = hcl.reduce_axis(0, 8, "k")
    saturating = hcl.Fixed(8, 4, overflow="AP_SAT")

    def kernel(A):
        sat = hcl.compute((1,), lambda _: hcl.sum(A[k], axis=k, dtype=saturating), "sat", dtype=saturating)
        wrap = hcl.compute(
            (1,), lambda _: hcl.sum(A[k], axis=k, dtype=hcl.Fixed(8, 4)), "wrap", dtype=hcl.Fixed(8, 4)
        )
        return sat, wrap

    s = hcl.create_schedule([A], kernel)
    sat, wrap = hcl.asarray(np.zeros(1), dtype=saturating), hcl.asarray(np.zeros(1), dtype=hcl.Fixed(8, 4))
    # 3 + 3 + 3 = 9 passes 7.9375, then -6 * 5 comes back down
    values = [3.0, 3.0, 3.0, -1.0, -1.0, -1.0, -1.0, -1.0]
    hcl.build(s)(hcl.asarray(np.array(values), dtype=hcl.Fixed(8, 4)), sat, wrap)
    assert sat.asnumpy().tolist() == [7.9375 - 5]
    assert wrap.asnumpy().tolist() == [4.0]


def test_an_array_of_the_plain_type_is_accepted_for_a_moded_argument() -> None:
    dtype = hcl.Fixed(10, 8, quantization="AP_TRN_ZERO")
    A = hcl.placeholder((3,), "A", dtype=hcl.Float())
    s = hcl.create_schedule([A], lambda A: hcl.compute((3,), lambda i: A[i], "B", dtype=dtype))
    out = hcl.asarray(np.zeros(3), dtype=hcl.Fixed(10, 8))
    hcl.build(s)(hcl.asarray(np.array([-0.3, 0.3, -1.999]), dtype=hcl.Float()), out)
    assert out.asnumpy().tolist() == [-76 / 256, 76 / 256, -511 / 256]
