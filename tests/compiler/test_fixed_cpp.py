"""Fixed-point arithmetic in the emitted C++ reads as ap_fixed arithmetic where that gives the IR's
bits (emit_hls/fixed_plan.py), and as raw bits, with a comment saying why, where it does not; the
C++ is bit-exact with the LLVM reference either way (exact lines, then g++ against LLVM)."""

from __future__ import annotations

import operator
from fractions import Fraction

import numpy as np
from emit_helpers import Call, func_op, run_calls, run_llvm

import hclbuild as hcl
from hclbuild.compiler.emit_hls import c_signature, emit_module
from hclbuild.compiler.emit_hls.fixed_plan import converts_through, exact_result, fixed, holds
from hclbuild.compiler.pipeline import compile_schedule

ACT, WEIGHT, ACC = hcl.Fixed(16, 8), hcl.Fixed(8, 6), hcl.Fixed(32, 14)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def _conv() -> hcl.Schedule:
    """resnet20's first conv at a small size: a 3x3 window with zero padding, a Fixed(32, 14) sum
    of Fixed(16, 8) x Fixed(8, 6) products, plus a bias, ReLU, truncated into Fixed(16, 8)."""
    image = hcl.placeholder((2, 6, 6), "image", dtype=ACT)
    w = hcl.placeholder((4, 2, 3, 3), "w", dtype=WEIGHT)
    b = hcl.placeholder((4,), "b", dtype=ACT)

    def kernel(image, w, b):
        ci = hcl.reduce_axis(0, 2, "ci")
        r = hcl.reduce_axis(0, 3, "r")
        c = hcl.reduce_axis(0, 3, "c")

        def pixel(co, y, x):
            iy, ix = y + r - 1, x + c - 1
            inside = hcl.and_(iy >= 0, iy < 6, ix >= 0, ix < 6)
            total = hcl.sum(image[ci, iy, ix] * w[co, ci, r, c], axis=[ci, r, c], where=inside, dtype=ACC)
            value = total + b[co]
            return hcl.select(value > 0, value, 0)

        return hcl.compute((4, 6, 6), pixel, name="conv", dtype=ACT)

    return hcl.create_schedule([image, w, b], kernel, name="top")


def _shifted() -> hcl.Schedule:
    """A DSL shift of a fixed value (resnet20's average pool), and a bit slice of one."""
    a = hcl.placeholder((4,), "A", dtype=hcl.Fixed(24, 8))

    def kernel(a):
        b = hcl.compute((4,), lambda i: a[i] >> 2, name="B", dtype=ACT)
        c = hcl.compute((4,), lambda i: a[i][0:4] + a[i], name="C", dtype=ACT)
        return b, c

    return hcl.create_schedule([a], kernel, name="top")


def _mixed() -> hcl.Schedule:
    """Signed and unsigned operands, literals, a negation under a select, a max of products with an
    integer, a narrowing cast, a fixed value read as a float."""
    a = hcl.placeholder((8,), "A", dtype=hcl.Fixed(12, 6))
    b = hcl.placeholder((8,), "B", dtype=hcl.UFixed(10, 4))
    n = hcl.placeholder((8,), "N", dtype=hcl.Int(8))

    def kernel(a, b, n):
        gx = hcl.compute(
            (8,), lambda i: a[i] - b[i] + a[(i + 1) % 8] * 0.75, name="gx", dtype=hcl.Fixed(16, 8)
        )
        ab = hcl.compute(
            (8,), lambda i: hcl.select(gx[i] < 0, -gx[i], gx[i]), name="ab", dtype=hcl.Fixed(16, 8)
        )
        m = hcl.reduce_axis(0, 8, "m")
        mx = hcl.compute(
            (1,),
            lambda i: hcl.max(a[m] * n[m], axis=m, dtype=hcl.Fixed(20, 6)),
            name="mx",
            dtype=hcl.Fixed(20, 6),
        )
        c = hcl.compute(
            (8,),
            lambda i: hcl.select(a[i] > 1.5, hcl.cast(hcl.Fixed(8, 2), a[i]), 0),
            name="c",
            dtype=hcl.Fixed(8, 2),
        )
        f = hcl.compute((8,), lambda i: a[i] * 2.0 + 1, name="f", dtype=hcl.Float(32))
        return gx, ab, mx, c, f

    return hcl.create_schedule([a, b, n], kernel, name="top")


def _emitted(schedule: hcl.Schedule) -> tuple[object, str]:
    module = compile_schedule(schedule).module
    return module, emit_module(module)


def _agree(module: object, code: str, inputs: dict[str, object], tmp_path) -> None:
    signature = c_signature(func_op(module, "top"))
    (csim,) = run_calls(code, [Call(signature, inputs)], tmp_path)
    llvm = run_llvm(module, "top", inputs)
    for name, want in llvm.items():
        assert np.array_equal(np.asarray(csim[name]), np.asarray(want)), name


def test_a_fixed_multiply_accumulate_is_ap_fixed_arithmetic(tmp_path) -> None:
    module, code = _emitted(_conv())
    lines = _lines(code)
    init = lines.index("ap_fixed<32, 18> conv_sum = 0;")
    guard = lines.index("if (v6) {", init)
    assert lines[guard + 1 : guard + 3] == [
        "conv_sum = conv_sum + image[ci][y_p_r_m1][x_p_c_m1] * w[co][ci][r][c];",
        "}",
    ]
    epilogue = lines.index("}", guard + 5) + 1
    assert lines[epilogue : epilogue + 3] == [
        "ap_fixed<33, 19> v7 = conv_sum + b[co];",
        "bool v8 = v7 > 0;",
        "conv[co][y][x] = v8 ? v7 : ap_fixed<33, 19>(0);",
    ]
    assert ".range(" not in code
    rng = np.random.default_rng(29)
    inputs = {
        "image": rng.integers(-(2**15), 2**15, (2, 6, 6)),
        "w": rng.integers(-(2**7), 2**7, (4, 2, 3, 3)),
        "b": rng.integers(-(2**15), 2**15, 4),
        "conv": np.zeros((4, 6, 6), dtype=np.int64),
    }
    _agree(module, code, inputs, tmp_path)


def test_mixed_fixed_arithmetic_reads_as_ap_fixed_and_is_bit_exact(tmp_path) -> None:
    module, code = _emitted(_mixed())
    lines = _lines(code)
    assert "gx[i] = A[i] - B[i] + A[v0] * ap_fixed<7, 1>(0.75);" in lines
    assert "ab[i] = v0 ? ap_fixed<17, 9>(0 - gx_i) : ap_fixed<17, 9>(gx_i);" in lines
    assert "mx_max = v1 ? v0 : mx_max;" in lines
    assert "c[i] = v0 ? ap_fixed<8, 6>(A_i) : ap_fixed<8, 6>(0);" in lines
    assert (
        "ap_int<25> v0_bits = v0.range(24, 0);  // raw bits: the conversion to a float scales them" in lines
    )
    rng = np.random.default_rng(3)
    inputs = {
        "A": rng.integers(-(2**11), 2**11, 8),
        "B": rng.integers(0, 2**10, 8),
        "N": rng.integers(-128, 128, 8),
        **{
            name: np.zeros(size, dtype=np.int64) for name, size in (("gx", 8), ("ab", 8), ("mx", 1), ("c", 8))
        },
        "f": np.zeros(8, dtype=np.float32),
    }
    _agree(module, code, inputs, tmp_path)


def test_a_literal_beyond_a_doubles_precision_is_exact(tmp_path) -> None:
    a = hcl.placeholder((4,), "A", dtype=hcl.Fixed(64, 8))

    def kernel(a):
        return hcl.compute((4,), lambda i: a[i] + 12345678901234567.5, name="B", dtype=hcl.Fixed(64, 8))

    module, code = _emitted(hcl.create_schedule([a], kernel, name="top"))
    # 12345678901234568 (the double nearest) * 256 has 62 significant bits
    assert "B[i] = A[i] + (ap_fixed<71, 63>(3160493798716049408LL) >> 8);" in _lines(code)
    inputs = {"A": [-(2**63), 2**63 - 1, -5, 1027], "B": np.zeros(4, dtype=np.int64)}
    _agree(module, code, inputs, tmp_path)
    # raw bits of 2**63 and more (an unsigned 64-bit literal) are spelled as one (ULL; found by the fuzzer)
    u = hcl.placeholder((4,), "U", dtype=hcl.UFixed(64, 4))

    def unsigned(u):
        return hcl.compute((4,), lambda i: u[i] + 2.0**59, name="V", dtype=hcl.UFixed(64, 4))

    module, code = _emitted(hcl.create_schedule([u], unsigned, name="top"))
    assert "V[i] = U[i] + (ap_ufixed<68, 64>(9223372036854775808ULL) >> 4);" in _lines(code)
    _agree(module, code, {"U": [0, 2**64 - 1, 2**63, 5], "V": np.zeros(4, dtype=np.uint64)}, tmp_path)
    # beyond 64 bits (a min's start, the largest UFixed(67, 2)): an ap_uint of its bits (found by the fuzzer)
    w = hcl.placeholder((4,), "W", dtype=hcl.UFixed(67, 2))

    def smallest(w):
        m = hcl.reduce_axis(0, 4, "m")
        return hcl.compute(
            (1,), lambda i: hcl.min(w[m], axis=m, dtype=hcl.UFixed(67, 2)), name="L", dtype=hcl.UFixed(67, 2)
        )

    module, code = _emitted(hcl.create_schedule([w], smallest, name="top"))
    start = "ap_ufixed<67, 65> L_min = (ap_ufixed<69, 67>(((ap_uint<67>)0xffffffffffffffffULL | ((ap_uint<67>)0x7ULL << 64))) >> 2);"
    assert start in _lines(code)
    _agree(
        module, code, {"W": [2**67 - 1, 2**66, 2**67 - 2, 2**65], "L": np.zeros(1, dtype=object)}, tmp_path
    )


def test_an_unsigned_value_compares_with_a_signed_one_as_signed(tmp_path) -> None:
    """ap_fixed compares a signed and an unsigned value wrongly for some widths (0 > -1.5 is false
    for an unsigned 32-bit int and an ap_fixed<43, 33>); the emitter makes the unsigned side signed."""
    n = hcl.placeholder((4,), "N", dtype=hcl.UInt(32))
    a = hcl.placeholder((4,), "A", dtype=hcl.Fixed(43, 10))

    def kernel(n, a):
        return hcl.compute((4,), lambda i: hcl.select(n[i] > a[i], 1, 0), name="G", dtype=hcl.Int(8))

    module, code = _emitted(hcl.create_schedule([n, a], kernel, name="top"))
    assert "bool v0 = ap_fixed<33, 33>(N_i) > A[i];" in _lines(code)
    inputs = {
        "N": [0, 0, 7, 2**32 - 1],
        "A": [-1536, 1536, 7 << 10, -(2**42)],
        "G": np.zeros(4, dtype=np.int64),
    }
    _agree(module, code, inputs, tmp_path)


def test_a_widened_value_compared_with_itself_declares_nothing_unread(tmp_path) -> None:
    """`a > a` on a UInt(29) compares a widened copy with itself: the emitter knows the answer, and
    the copy, read by nothing, is not declared (g++ -Werror stopped on it; the fuzzer found it)."""
    a = hcl.placeholder((4,), "A", dtype=hcl.UInt(29))
    f = hcl.placeholder((4,), "F", dtype=hcl.Fixed(12, 4))

    def kernel(a, f):
        return hcl.compute(
            (4,), lambda i: hcl.select(a[i] > a[i], f[i], a[i] + f[i]), name="G", dtype=hcl.Fixed(40, 4)
        )

    module, code = _emitted(hcl.create_schedule([a, f], kernel, name="top"))
    assert "uint32_t v0 = A_i;" not in _lines(code)
    inputs = {"A": [0, 1, 2**29 - 1, 5], "F": [-2048, 2047, 3, 0], "G": np.zeros(4, dtype=np.int64)}
    _agree(module, code, inputs, tmp_path)


def test_a_shift_is_ap_fixeds_and_a_bit_slice_keeps_raw_bits_with_the_reason(tmp_path) -> None:
    module, code = _emitted(_shifted())
    lines = _lines(code)
    # x >> 2 in x's type, then truncated into Fixed(16, 8) by the assignment
    assert "B[i] = A[i] >> 2;" in lines
    # the slice reads A's low 4 bits: raw bits, and the comment says why
    at = lines.index(
        "ap_int<24> A_i_bits = A_i.range(23, 0);  // raw bits: a bit slice, mask or shift works on them"
    )
    assert lines[at - 1 : at + 3] == [
        "ap_fixed<24, 16> A_i = A[i];",
        "ap_int<24> A_i_bits = A_i.range(23, 0);  // raw bits: a bit slice, mask or shift works on them",
        "ap_int<4> v0 = A_i_bits;",
        "C[i] = (ap_uint<4>)v0 + A_i;",
    ]
    inputs = {
        "A": [-(2**23), 2**23 - 1, -5, 1027],
        "B": np.zeros(4, dtype=np.int64),
        "C": np.zeros(4, dtype=np.int64),
    }
    _agree(module, code, inputs, tmp_path)


def _convert(raw: int, src: hcl.DType, dst: hcl.DType) -> int:
    """ap_fixed's AP_TRN, AP_WRAP conversion of src's raw bits into dst's (floor, then wrap)."""
    shift = dst.frac - src.frac
    value = raw << shift if shift >= 0 else raw >> -shift
    value &= (1 << dst.bits) - 1
    return value - (1 << dst.bits) if dst.is_signed and value >> (dst.bits - 1) else value


def _small_types() -> list[hcl.DType]:
    return [
        fixed(signed, bits, frac)
        for signed in (True, False)
        for bits in range(1, 6)
        for frac in range(bits + 1)
    ]


def test_the_conversion_rules_hold_for_every_value_of_small_types() -> None:
    """holds and converts_through (the emitter's license to skip a conversion) against every value."""
    types = _small_types()
    lossy_first = 0  # the cases the rule is for: `first` floors or wraps, and `then` does not notice
    for exact in types:
        lo = -(1 << (exact.bits - 1)) if exact.is_signed else 0
        raws = range(lo, lo + (1 << exact.bits))
        for first in types:
            once = {raw: _convert(raw, exact, first) for raw in raws}
            if holds(first, exact):
                assert all(_convert(once[r], first, exact) == r for r in raws), (exact, first)
            for then in types:
                if converts_through(exact, first, then):
                    lossy_first += not holds(first, exact)
                    assert all(_convert(once[r], first, then) == _convert(r, exact, then) for r in raws), (
                        exact,
                        first,
                        then,
                    )
    assert lossy_first > 1000


def test_the_exact_result_types_hold_every_sum_difference_and_product() -> None:
    types = _small_types()
    for a in types:
        for b in types:
            for symbol, apply in (("+", operator.add), ("-", operator.sub), ("*", operator.mul)):
                result = exact_result(symbol, a, b)
                lo = -(1 << (result.bits - 1)) if result.is_signed else 0
                hi = lo + (1 << result.bits)
                for x in _values(a):
                    for y in _values(b):
                        value = apply(Fraction(x, 1 << a.frac), Fraction(y, 1 << b.frac)) * (1 << result.frac)
                        assert value.denominator == 1 and lo <= value < hi, (a, symbol, b)


def _values(dtype: hcl.DType) -> range:
    lo = -(1 << (dtype.bits - 1)) if dtype.is_signed else 0
    return range(lo, lo + (1 << dtype.bits))
