"""Data types on the LLVM backend against numpy: widths 1..64, wrap-around, signedness, C division,
promotion, floats, dtype strings, bit access and bit assignment."""

from __future__ import annotations

import numpy as np
import pytest

import hclbuild as hcl
from hclbuild.dsl.types import parse_dtype


def wrap(values, bits: int, signed: bool) -> list[int]:
    """Python ints wrapped to a two's-complement width."""
    out = []
    for v in values:
        v = int(v) & ((1 << bits) - 1)
        if signed and v >> (bits - 1):
            v -= 1 << bits
        out.append(v)
    return out


def random_ints(rng: np.random.Generator, bits: int, signed: bool, count: int) -> list[int]:
    lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
    values = [
        int(rng.integers(lo, hi))
        if hi - lo <= 2**63
        else int(rng.integers(0, 2**63)) * 2 + int(rng.integers(0, 2)) + lo
        for _ in range(count - 2)
    ]
    return values + [lo, hi - 1]  # both extremes, so every width overflows somewhere


# ---- widths 1..64 ------------------------------------------------------------------------


@pytest.mark.parametrize("signed", [True, False], ids=["Int", "UInt"])
@pytest.mark.parametrize("bits", list(range(1, 65)))
def test_integer_width_add_mul_compare_wrap(run, bits, signed):
    dtype = hcl.Int(bits) if signed else hcl.UInt(bits)
    n = 8
    A = hcl.placeholder((n,), "A", dtype=dtype)
    B = hcl.placeholder((n,), "B", dtype=dtype)

    def kernel(A, B):
        S = hcl.compute((n,), lambda i: A[i] + B[i], "S", dtype=dtype)
        P = hcl.compute((n,), lambda i: A[i] * B[i] - 1, "P", dtype=dtype)
        L = hcl.compute((n,), lambda i: A[i] < B[i], "L", dtype=hcl.UInt(1))
        return S, P, L

    s = hcl.create_schedule([A, B], kernel)
    rng = np.random.default_rng(bits * 2 + signed)
    a = random_ints(rng, bits, signed, n)
    b = random_ints(rng, bits, signed, n)[::-1]
    store = dtype.np_storage
    out_s, out_p, out_l = run(
        s, np.array(a, dtype=object).astype(store), np.array(b, dtype=object).astype(store)
    )
    assert [int(v) for v in out_s] == wrap([x + y for x, y in zip(a, b)], bits, signed)
    assert [int(v) for v in out_p] == wrap([x * y - 1 for x, y in zip(a, b)], bits, signed)
    assert [int(v) for v in out_l] == [int(x < y) for x, y in zip(a, b)]


def test_int12_wraps_2047_plus_1_to_minus_2048(run):
    A = hcl.placeholder((4,), "A", dtype=hcl.Int(12))

    def kernel(A):
        return hcl.compute((4,), lambda i: A[i] + 1, "B", dtype=hcl.Int(12))

    s = hcl.create_schedule([A], kernel)
    out = run(s, np.array([2047, -2048, -1, 100], dtype=np.int16))
    np.testing.assert_array_equal(out, [-2048, -2047, 0, 101])


def test_uint12_wraps_both_ways(run):
    A = hcl.placeholder((3,), "A", dtype=hcl.UInt(12))

    def kernel(A):
        up = hcl.compute((3,), lambda i: A[i] + 1, "up", dtype=hcl.UInt(12))
        down = hcl.compute((3,), lambda i: A[i] - 1, "down", dtype=hcl.UInt(12))
        return up, down

    s = hcl.create_schedule([A], kernel)
    up, down = run(s, np.array([4095, 0, 7], dtype=np.uint16))
    np.testing.assert_array_equal(up, [0, 1, 8])
    np.testing.assert_array_equal(down, [4094, 4095, 6])


def test_int12_asarray_in_and_out(rng):
    A = hcl.placeholder((6,), "A", dtype="int12")

    def kernel(A):
        return hcl.compute((6,), lambda i: A[i] * 3, "B", dtype="int12")

    s = hcl.create_schedule([A], kernel)
    fn = hcl.build(s)
    a_np = rng.integers(-2048, 2048, 6)
    a = hcl.asarray(a_np, "int12")
    b = hcl.asarray(np.zeros(6, dtype=np.int64), "int12")
    fn(a, b)
    assert b.asnumpy().tolist() == wrap(a_np * 3, 12, True)


def test_intermediate_tensor_wraps_at_its_own_width(run):
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        narrow = hcl.compute((4,), lambda i: A[i] * 16, "narrow", dtype=hcl.Int(6))
        return hcl.compute((4,), lambda i: narrow[i] + 0, "B")

    s = hcl.create_schedule([A], kernel)
    a = np.array([1, 2, 3, -1], dtype=np.int32)
    # 16, 32, 48, -16 in six bits: 16, -32, -16, -16
    np.testing.assert_array_equal(run(s, a), [16, -32, -16, -16])


def test_uint64_and_int64_extremes(run):
    U = hcl.placeholder((3,), "U", dtype=hcl.UInt(64))
    S = hcl.placeholder((3,), "S", dtype=hcl.Int(64))

    def kernel(U, S):
        u = hcl.compute((3,), lambda i: U[i] + 1, "u", dtype=hcl.UInt(64))
        d = hcl.compute((3,), lambda i: U[i] / 3, "d", dtype=hcl.UInt(64))
        s_ = hcl.compute((3,), lambda i: S[i] - 1, "s_", dtype=hcl.Int(64))
        return u, d, s_

    s = hcl.create_schedule([U, S], kernel)
    uv = np.array([2**64 - 1, 2**63, 5], dtype=np.uint64)
    sv = np.array([-(2**63), 0, 2**63 - 1], dtype=np.int64)
    u, d, s_ = run(s, uv, sv)
    assert [int(x) for x in u] == [0, 2**63 + 1, 6]
    assert [int(x) for x in d] == [(2**64 - 1) // 3, 2**63 // 3, 1]
    assert [int(x) for x in s_] == [2**63 - 1, -1, 2**63 - 2]


# ---- division ----------------------------------------------------------------------------


def _division_kernel(dtype):
    A = hcl.placeholder((16,), "A", dtype=dtype)
    B = hcl.placeholder((16,), "B", dtype=dtype)

    def kernel(A, B):
        q = hcl.compute((16,), lambda i: A[i] / B[i], "q", dtype=dtype)
        r = hcl.compute((16,), lambda i: A[i] % B[i], "r", dtype=dtype)
        f = hcl.compute((16,), lambda i: A[i] // B[i], "f", dtype=dtype)
        return q, r, f

    return hcl.create_schedule([A, B], kernel)


@pytest.mark.parametrize("dtype", [hcl.Int(32), hcl.Int(8), hcl.Int(64)], ids=str)
def test_signed_division_truncates_mod_is_c_floordiv_floors(run, rng, dtype):
    s = _division_kernel(dtype)
    store = dtype.np_storage
    a = rng.integers(-100, 100, 16).astype(store)
    b = rng.integers(1, 9, 16).astype(store) * rng.choice([-1, 1], 16).astype(store)
    a[:4] = [-7, 7, -7, 7]
    b[:4] = [2, -2, -2, 2]
    q, r, f = run(s, a, b)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    np.testing.assert_array_equal(q, np.trunc(a64 / b64).astype(np.int64))
    np.testing.assert_array_equal(r, np.fmod(a64, b64))
    np.testing.assert_array_equal(f, np.floor_divide(a64, b64))
    np.testing.assert_array_equal(q[:4], [-3, -3, 3, 3])
    np.testing.assert_array_equal(r[:4], [-1, 1, -1, 1])
    np.testing.assert_array_equal(f[:4], [-4, -4, 3, 3])


def test_unsigned_division_and_mod(run, rng):
    s = _division_kernel(hcl.UInt(32))
    a = rng.integers(0, 2**32, 16, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(1, 1000, 16, dtype=np.uint64).astype(np.uint32)
    a[0] = 2**32 - 1  # would be -1 if divided as signed
    q, r, f = run(s, a, b)
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_array_equal(r, a % b)
    np.testing.assert_array_equal(f, a // b)


def test_division_by_negative_literals(run):
    A = hcl.placeholder((6,), "A")

    def kernel(A):
        q = hcl.compute((6,), lambda i: A[i] / -4, "q")
        r = hcl.compute((6,), lambda i: A[i] % -4, "r")
        f = hcl.compute((6,), lambda i: A[i] // -4, "f")
        rr = hcl.compute((6,), lambda i: 17 % A[i], "rr")
        return q, r, f, rr

    s = hcl.create_schedule([A], kernel)
    a = np.array([-9, -8, -1, 1, 8, 9], dtype=np.int32)
    q, r, f, rr = run(s, a)
    np.testing.assert_array_equal(q, np.trunc(a / -4).astype(np.int64))
    np.testing.assert_array_equal(r, np.fmod(a, -4))
    np.testing.assert_array_equal(f, np.floor_divide(a, -4))
    np.testing.assert_array_equal(rr, np.fmod(17, a))


def test_float_division_mod_and_floordiv(run, rng):
    A = hcl.placeholder((10,), "A", dtype=hcl.Float(64))
    B = hcl.placeholder((10,), "B", dtype=hcl.Float(64))

    def kernel(A, B):
        q = hcl.compute((10,), lambda i: A[i] / B[i], "q", dtype=hcl.Float(64))
        r = hcl.compute((10,), lambda i: A[i] % B[i], "r", dtype=hcl.Float(64))
        f = hcl.compute((10,), lambda i: A[i] // B[i], "f", dtype=hcl.Float(64))
        return q, r, f

    s = hcl.create_schedule([A, B], kernel)
    a = rng.uniform(-10, 10, 10)
    b = rng.uniform(0.5, 3, 10) * rng.choice([-1, 1], 10)
    q, r, f = run(s, a, b)
    np.testing.assert_allclose(q, a / b, rtol=1e-12)
    np.testing.assert_allclose(r, np.fmod(a, b), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(f, np.floor(a / b))


# ---- promotion, bitwise, shifts ------------------------------------------------------------


def test_mixed_signed_unsigned_promotion(run):
    A = hcl.placeholder((4,), "A", dtype=hcl.Int(8))
    B = hcl.placeholder((4,), "B", dtype=hcl.UInt(8))

    def kernel(A, B):
        s_ = hcl.compute((4,), lambda i: A[i] + B[i], "s_")
        lt = hcl.compute((4,), lambda i: A[i] < B[i], "lt", dtype=hcl.UInt(1))
        return s_, lt

    s = hcl.create_schedule([A, B], kernel)
    a = np.array([-1, -128, 127, 0], dtype=np.int8)
    b = np.array([255, 255, 1, 0], dtype=np.uint8)
    out, lt = run(s, a, b)
    np.testing.assert_array_equal(out, a.astype(np.int64) + b.astype(np.int64))
    np.testing.assert_array_equal(lt, (a.astype(np.int64) < b.astype(np.int64)).astype(np.uint8))


def test_literal_does_not_wrap_at_narrow_operand_width(run):
    A = hcl.placeholder((3,), "A", dtype=hcl.UInt(8))

    def kernel(A):
        return hcl.compute((3,), lambda i: A[i] + 300, "B")

    s = hcl.create_schedule([A], kernel)
    a = np.array([0, 200, 255], dtype=np.uint8)
    np.testing.assert_array_equal(run(s, a), a.astype(np.int64) + 300)


def test_literal_does_not_wrap_at_a_fixed_operands_width():
    """A literal beside a Fixed(13, 11) (range [-2, 2)) had taken that type: 2 became -2, 3 became
    -1, so B * 2 negated B and B < 3 was false everywhere."""
    fx, wide = hcl.Fixed(13, 11), hcl.Fixed(16, 11)
    B = hcl.placeholder((4,), "B", dtype=fx)
    U = hcl.placeholder((4,), "U", dtype=hcl.UFixed(6, 4))

    def kernel(B, U):
        return (
            hcl.compute((4,), lambda i: B[i] * 2, "F", dtype=wide),
            hcl.compute((4,), lambda i: B[i] + 3, "G", dtype=wide),
            hcl.compute((4,), lambda i: B[i] * 2.5, "H", dtype=wide),
            hcl.compute((4,), lambda i: hcl.select(B[i] < 3, 1, 0), "C"),
            hcl.compute((4,), lambda i: U[i] - 5, "D", dtype=hcl.Fixed(8, 4)),
        )

    fn = hcl.build(hcl.create_schedule([B, U], kernel))
    b, u = np.array([0.5, -0.25, 1.0, -1.5]), np.array([0.5, 1.25, 3.0, 0.0625])
    outs = [hcl.asarray(np.zeros(4), wide) for _ in range(3)] + [
        np.zeros(4, np.int32),
        hcl.asarray(np.zeros(4), hcl.Fixed(8, 4)),
    ]
    fn(hcl.asarray(b, fx), hcl.asarray(u, hcl.UFixed(6, 4)), *outs)
    for out, want in zip(outs, (b * 2, b + 3, b * 2.5, np.ones(4), u - 5)):
        np.testing.assert_array_equal(out if isinstance(out, np.ndarray) else out.asnumpy(), want)


def test_narrow_arithmetic_promotes_to_32_bits_before_storing(run):
    A = hcl.placeholder((3,), "A", dtype=hcl.UInt(8))

    def kernel(A):
        # (A * 4) / 4 in 32 bits gives A back; an 8-bit product would have lost the top bits
        return hcl.compute((3,), lambda i: A[i] * 4 / 4, "B", dtype=hcl.UInt(8))

    s = hcl.create_schedule([A], kernel)
    a = np.array([1, 100, 255], dtype=np.uint8)
    np.testing.assert_array_equal(run(s, a), a)


def test_bitwise_and_shifts_signed_vs_unsigned(run, rng):
    A = hcl.placeholder((8,), "A")
    U = hcl.placeholder((8,), "U", dtype=hcl.UInt(32))

    def kernel(A, U):
        bits = hcl.compute((8,), lambda i: (A[i] & 0xFF0) | (A[i] ^ 0x5), "bits")
        inv = hcl.compute((8,), lambda i: ~A[i], "inv")
        shl = hcl.compute((8,), lambda i: A[i] << 3, "shl")
        sra = hcl.compute((8,), lambda i: A[i] >> 4, "sra")
        srl = hcl.compute((8,), lambda i: U[i] >> 4, "srl", dtype=hcl.UInt(32))
        return bits, inv, shl, sra, srl

    s = hcl.create_schedule([A, U], kernel)
    a = rng.integers(-(2**31), 2**31, 8, dtype=np.int64).astype(np.int32)
    u = rng.integers(0, 2**32, 8, dtype=np.uint64).astype(np.uint32)
    u[0] = 0xF0000000
    bits, inv, shl, sra, srl = run(s, a, u)
    np.testing.assert_array_equal(bits, (a & 0xFF0) | (a ^ 0x5))
    np.testing.assert_array_equal(inv, ~a)
    np.testing.assert_array_equal(shl, (a.astype(np.int64) << 3).astype(np.int32))
    np.testing.assert_array_equal(sra, a >> 4)
    np.testing.assert_array_equal(srl, u >> 4)


def test_shifts_by_the_width_or_more_shift_everything_out(run):
    """As ap_int: x << n and unsigned x >> n are 0 for n >= the width (or n < 0), signed x >> n the
    sign. LLVM's shift is poison there: the reference had shifted by n % 64, so an Int(48) << 64
    gave x, and the C++ 0 (or, for int32_t, x << (n & 31))."""
    A = hcl.placeholder((8,), "A")
    S = hcl.placeholder((8,), "S")

    def kernel(A, S):
        return (
            hcl.compute((8,), lambda i: A[i] << 40, "c40"),
            hcl.compute((8,), lambda i: A[i] >> 33, "c33"),
            hcl.compute((8,), lambda i: A[i] << S[i], "d"),
            hcl.compute((8,), lambda i: A[i] >> S[i], "e"),
            hcl.compute((8,), lambda i: hcl.cast(hcl.Int(48), A[i]) << S[i], "w", dtype=hcl.Int(64)),
        )

    s = hcl.create_schedule([A, S], kernel)
    a = np.array([1, -1, 7, 0x12345678, -5, 3, 100, -100], np.int32)
    n = np.array([0, 31, 32, 33, 40, 63, 64, -1], np.int32)
    c40, c33, d, e, w = run(s, a, n)
    inside = (n >= 0) & (n < 32)
    np.testing.assert_array_equal(c40, 0)
    np.testing.assert_array_equal(c33, np.where(a < 0, -1, 0))
    np.testing.assert_array_equal(
        d, np.where(inside, (a.astype(np.int64) << np.where(inside, n, 0)).astype(np.int32), 0)
    )
    np.testing.assert_array_equal(e, np.where(inside, a >> np.where(inside, n, 0), np.where(a < 0, -1, 0)))
    in48 = (n >= 0) & (n < 48)
    shifted = [
        ((int(x) << int(k)) + (1 << 47)) % (1 << 48) - (1 << 47) if ok else 0 for x, k, ok in zip(a, n, in48)
    ]
    np.testing.assert_array_equal(w, shifted)


# ---- floats and dtype strings ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", [hcl.Float(32), hcl.Float(64), "float32", "float64"], ids=str)
def test_float_arithmetic(run, rng, dtype):
    dt = parse_dtype(dtype)
    A = hcl.placeholder((3, 4), "A", dtype=dtype)
    B = hcl.placeholder((3, 4), "B", dtype=dtype)

    def kernel(A, B):
        return hcl.compute(
            (3, 4), lambda i, j: (A[i, j] - B[i, j]) * A[i, j] / (B[i, j] + 10.0), "C", dtype=dtype
        )

    s = hcl.create_schedule([A, B], kernel)
    a = rng.standard_normal((3, 4)).astype(dt.np_storage)
    b = rng.standard_normal((3, 4)).astype(dt.np_storage)
    out = run(s, a, b)
    assert out.dtype == dt.np_storage
    np.testing.assert_allclose(
        out, (a - b) * a / (b + dt.np_storage.type(10.0)), rtol=1e-6 if dt.bits == 32 else 1e-13
    )


def test_float32_plus_float64_computes_in_float64(run):
    A = hcl.placeholder((2,), "A", dtype=hcl.Float(32))
    B = hcl.placeholder((2,), "B", dtype=hcl.Float(64))

    def kernel(A, B):
        return hcl.compute((2,), lambda i: A[i] + B[i], "C", dtype=hcl.Float(64))

    s = hcl.create_schedule([A, B], kernel)
    a = np.array([1.0, 2.0], dtype=np.float32)
    b = np.array([1e-12, -1e-12])
    np.testing.assert_array_equal(run(s, a, b), a.astype(np.float64) + b)


def test_int_plus_float_is_float(run):
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        return hcl.compute((4,), lambda i: A[i] + 0.5, "B", dtype=hcl.Float(32))

    s = hcl.create_schedule([A], kernel)
    a = np.array([-3, 0, 1, 7], dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), a + np.float32(0.5))


@pytest.mark.parametrize(
    "text, dtype",
    [
        ("int8", hcl.Int(8)),
        ("uint4", hcl.UInt(4)),
        ("float32", hcl.Float(32)),
        ("int", hcl.Int(32)),
        ("uint33", hcl.UInt(33)),
    ],
)
def test_dtype_strings_parse(text, dtype):
    assert parse_dtype(text) == dtype
    assert hcl.placeholder((2,), dtype=text).dtype == dtype


def test_dtype_strings_in_placeholder_and_compute(run):
    A = hcl.placeholder((5,), "A", dtype="int8")

    def kernel(A):
        return hcl.compute((5,), lambda i: A[i] + 3, "B", dtype="uint4")

    s = hcl.create_schedule([A], kernel)
    a = np.array([-4, -3, 0, 12, 127], dtype=np.int8)
    out = run(s, a)
    np.testing.assert_array_equal(out, (a.astype(np.int64) + 3) & 0xF)
    text = str(hcl.lower(s))
    assert 'hcl.arg_types = ["int8", "uint4"]' in text


# ---- bits --------------------------------------------------------------------------------


def test_get_bit_of_signed_and_unsigned(run, rng):
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        return hcl.compute((8, 32), lambda i, b: A[i][b], "B", dtype=hcl.UInt(1))

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-(2**31), 2**31, 8, dtype=np.int64).astype(np.int32)
    expected = (a.view(np.uint32)[:, None] >> np.arange(32, dtype=np.uint32)) & 1
    np.testing.assert_array_equal(run(s, a), expected)


def test_get_bit_constant_index(run):
    A = hcl.placeholder((4,), "A", dtype=hcl.UInt(8))

    def kernel(A):
        return hcl.compute((4,), lambda i: A[i][7] * 10 + A[i][0], "B")

    s = hcl.create_schedule([A], kernel)
    a = np.array([0x80, 0x01, 0x81, 0x7E], dtype=np.uint8)
    np.testing.assert_array_equal(run(s, a), [10, 1, 11, 0])


def test_bit_slice_hi_exclusive(run, rng):
    A = hcl.placeholder((10,), "A")

    def kernel(A):
        low = hcl.compute((10,), lambda i: A[i][0:4], "low")
        mid = hcl.compute((10,), lambda i: A[i][4:12], "mid")
        top = hcl.compute((10,), lambda i: A[i][28:32], "top")
        return low, mid, top

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-(2**31), 2**31, 10, dtype=np.int64).astype(np.int32)
    u = a.view(np.uint32).astype(np.int64)
    low, mid, top = run(s, a)
    np.testing.assert_array_equal(low, u & 0xF)
    np.testing.assert_array_equal(mid, (u >> 4) & 0xFF)
    np.testing.assert_array_equal(top, (u >> 28) & 0xF)


def test_bit_slice_dtype_is_unsigned_of_slice_width():
    A = hcl.placeholder((2,), "A", dtype=hcl.Int(16))
    seen = {}

    def kernel(A):
        def body(i):
            seen["slice"] = A[i][3:8].dtype
            seen["bit"] = A[i][2].dtype
            return A[i]

        return hcl.compute((2,), body, "B")

    hcl.create_schedule([A], kernel)
    assert seen == {"slice": hcl.UInt(5), "bit": hcl.UInt(1)}


def test_set_bit_in_mutate(run, rng):
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        B = hcl.compute((8,), lambda i: A[i], "B")

        def body(i):
            B[i][3] = 1
            B[i][0] = 0
            B[i][31] = A[i][0]

        hcl.mutate((8,), body, "setbits")
        return B

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(-(2**31), 2**31, 8, dtype=np.int64).astype(np.int32)
    u = a.view(np.uint32).astype(np.int64)
    expected = ((u | 0x8) & ~0x1 & 0x7FFFFFFF) | ((u & 1) << 31)
    np.testing.assert_array_equal(run(s, a).view(np.uint32), expected.astype(np.uint32))


def test_set_bit_with_dynamic_index(run):
    A = hcl.placeholder((6,), "A", dtype=hcl.UInt(8))

    def kernel(A):
        B = hcl.compute((6,), lambda i: 0, "B", dtype=hcl.UInt(8))

        def body(i):
            B[i][A[i]] = 1

        hcl.mutate((6,), body, "onehot")
        return B

    s = hcl.create_schedule([A], kernel)
    a = np.array([0, 1, 2, 5, 7, 3], dtype=np.uint8)
    np.testing.assert_array_equal(run(s, a), 1 << a.astype(np.int64))


def test_set_bit_slice(run, rng):
    A = hcl.placeholder((8,), "A")
    V = hcl.placeholder((8,), "V")

    def kernel(A, V):
        B = hcl.compute((8,), lambda i: A[i], "B")

        def body(i):
            B[i][0:4] = V[i]
            B[i][8:16] = 0xAB

        hcl.mutate((8,), body, "slices")
        return B

    s = hcl.create_schedule([A, V], kernel)
    a = rng.integers(-(2**31), 2**31, 8, dtype=np.int64).astype(np.int32)
    v = rng.integers(-100, 100, 8, dtype=np.int32)  # only the low 4 bits land
    u = a.view(np.uint32).astype(np.int64)
    expected = (u & ~0xFF0F) | (v.astype(np.int64) & 0xF) | (0xAB << 8)
    np.testing.assert_array_equal(run(s, a, v).view(np.uint32), (expected & 0xFFFFFFFF).astype(np.uint32))


def test_set_bits_of_scalar_v(run):
    A = hcl.placeholder((1,), "A")

    def kernel(A):
        x = hcl.scalar(0, "x", dtype=hcl.UInt(16))
        x.v[2] = 1
        x.v[8:12] = A[0]
        return hcl.compute((1,), lambda i: x.v, "B")

    s = hcl.create_schedule([A], kernel)
    np.testing.assert_array_equal(run(s, np.array([0x1F], dtype=np.int32)), [0x4 | (0xF << 8)])


def test_set_bit_on_odd_width_element(run):
    A = hcl.placeholder((4,), "A", dtype=hcl.Int(12))

    def kernel(A):
        B = hcl.compute((4,), lambda i: A[i], "B", dtype=hcl.Int(12))

        def body(i):
            B[i][11] = 1  # the sign bit
            B[i][0:2] = 3

        hcl.mutate((4,), body, "m")
        return B

    s = hcl.create_schedule([A], kernel)
    a = np.array([0, 5, -1, 2047], dtype=np.int16)
    expected = wrap([(int(x) & 0xFFF) | 0x800 | 0x3 for x in a], 12, True)
    np.testing.assert_array_equal(run(s, a), expected)


# ---- wide integers, float conversions at 64 bits, fixed point --------------------------------------


def test_float_to_uint64_above_int64_max(run):
    F = hcl.placeholder((4,), "F", dtype=hcl.Float(64))

    def kernel(F):
        return hcl.compute((4,), lambda i: hcl.cast(hcl.UInt(64), F[i]), "B", dtype=hcl.UInt(64))

    s = hcl.create_schedule([F], kernel)
    f = np.array([2.0**63 + 4096, 2.0**64 - 2048, 5.5, 2.0**63])
    assert [int(v) for v in run(s, f)] == [2**63 + 4096, 2**64 - 2048, 5, 2**63]


def test_int128_arithmetic_and_float_conversion_through_asarray():
    F = hcl.placeholder((3,), "F", dtype=hcl.Float(64))
    A = hcl.placeholder((3,), "A", dtype=hcl.Int(128))

    def kernel(F, A):
        B = hcl.compute((3,), lambda i: hcl.cast(hcl.Int(128), F[i]) + A[i] * 3, "B", dtype=hcl.Int(128))
        C = hcl.compute((3,), lambda i: hcl.cast(hcl.Float(64), B[i]), "C", dtype=hcl.Float(64))
        return B, C

    s = hcl.create_schedule([F, A], kernel)
    fn = hcl.build(s)
    f = np.array([1e30, -2.5e20, 7.9])
    a_vals = [2**100, -(2**120), 2**127 - 1]
    a = hcl.asarray(np.array(a_vals, dtype=object), hcl.Int(128))
    b = hcl.asarray(np.zeros(3, dtype=object), hcl.Int(128))
    c = np.zeros(3)
    fn(f, a, b, c)
    expected = wrap([int(x) + v * 3 for x, v in zip(f, a_vals)], 128, True)
    assert list(b.asnumpy()) == expected
    np.testing.assert_allclose(c, [float(v) for v in expected], rtol=1e-15)


def test_uint100_division_and_mod():
    A = hcl.placeholder((3,), "A", dtype=hcl.UInt(100))

    def kernel(A):
        return hcl.compute((3,), lambda i: A[i] // 7 + A[i] % 5, "B", dtype=hcl.UInt(100))

    s = hcl.create_schedule([A], kernel)
    fn = hcl.build(s)
    values = [2**99 + 12345, 2**100 - 1, 77]
    a = hcl.asarray(np.array(values, dtype=object), hcl.UInt(100))
    b = hcl.asarray(np.zeros(3, dtype=object), hcl.UInt(100))
    fn(a, b)
    assert list(b.asnumpy()) == [v // 7 + v % 5 for v in values]


def test_fixed_point_add_mul_and_cast_to_float():
    fx = hcl.Fixed(16, 8)
    A = hcl.placeholder((4,), "A", dtype=fx)
    B = hcl.placeholder((4,), "B", dtype=fx)

    def kernel(A, B):
        S = hcl.compute((4,), lambda i: A[i] + B[i], "S", dtype=fx)
        P = hcl.compute((4,), lambda i: A[i] * B[i], "P", dtype=fx)
        F = hcl.compute((4,), lambda i: hcl.cast(hcl.Float(32), A[i]), "F", dtype=hcl.Float(32))
        return S, P, F

    s = hcl.create_schedule([A, B], kernel)
    fn = hcl.build(s)
    av = np.array([1.5, -2.25, 3.125, -0.00390625])
    bv = np.array([0.5, 1.75, -2.5, 100.0])
    out_s, out_p = hcl.asarray(np.zeros(4), fx), hcl.asarray(np.zeros(4), fx)
    out_f = np.zeros(4, dtype=np.float32)
    fn(hcl.asarray(av, fx), hcl.asarray(bv, fx), out_s, out_p, out_f)
    np.testing.assert_array_equal(out_s.asnumpy(), av + bv)
    # the product keeps 16 fraction bits, then truncates (floors) to 8 on the store
    np.testing.assert_array_equal(out_p.asnumpy(), np.floor(av * bv * 256) / 256)
    np.testing.assert_array_equal(out_f, av.astype(np.float32))


# ---- a float literal compared with a fixed-point value ------------------------------------------

COMPARISONS = {
    "lt": lambda x, v: x < v,
    "le": lambda x, v: x <= v,
    "gt": lambda x, v: x > v,
    "ge": lambda x, v: x >= v,
    "eq": lambda x, v: x == v,
    "ne": lambda x, v: x != v,
}
# on the grid of 1/256 and off it (0.3 lies between 76/256 and 77/256), outside the type's range,
# and the values a double can be beyond any number
LITERALS = [0.3, -0.3, 0.25, -0.296875, 1e-9, 200.7, -300.5, float("inf"), float("-inf"), float("nan")]


def fixed_comparisons(dtype: hcl.types.DType, literal: float):
    X = hcl.placeholder((16,), "X", dtype)

    def kernel(X):
        return tuple(
            hcl.compute((16,), lambda i, f=f: hcl.select(f(X[i], literal), 1, 0), op, dtype=hcl.Int(8))
            for op, f in COMPARISONS.items()
        )

    return hcl.create_schedule([X], kernel)


@pytest.mark.parametrize("dtype", [hcl.Fixed(16, 8), hcl.UFixed(8, 4)], ids=["fixed16_8", "ufixed8_4"])
@pytest.mark.parametrize("literal", LITERALS, ids=repr)
def test_a_float_literal_compares_with_a_fixed_value_exactly_as_ap_fixed_does(dtype, literal) -> None:
    # ap_fixed compares with a double as to_double() <op> d: 0.3 stays 0.3. The literal had been
    # rounded down to the value's grid first, so x >= 0.3 held for x = 76/256 = 0.296875 and x == 0.3
    # for the same x, in the LLVM reference and the C++ alike (csim passed)
    scale = 2**dtype.fracs
    raw = np.array([75, 76, 77, 78, 0, 1, 127, 128, -76, -77, -78, -1, -128, 255, 64, -64])
    if not dtype.is_signed:
        raw = np.abs(raw) % 256
    values = raw / scale
    outs = [np.zeros(16, np.int8) for _ in COMPARISONS]
    hcl.build(fixed_comparisons(dtype, literal))(hcl.asarray(values, dtype), *outs)
    for out, (op, f) in zip(outs, COMPARISONS.items()):
        np.testing.assert_array_equal(out, [int(f(float(v), literal)) for v in values], err_msg=op)


@pytest.mark.parametrize("literal", [np.float32(0.3), np.float32(-0.3), np.float16(0.5)], ids=repr)
def test_a_numpy_float_literal_compares_with_a_fixed_value_exactly(literal) -> None:
    # found by mypy (Fraction() of a numbers.Real): a numpy float that is no Python float (float32,
    # float16) was a TypeError from fractions.Fraction; it compares at its exact value as a float does
    dtype = hcl.Fixed(16, 8)
    values = np.array([75, 76, 77, 78, 0, 1, 127, 128, -76, -77, -78, -1, -128, 255, 64, -64]) / 256
    outs = [np.zeros(16, np.int8) for _ in COMPARISONS]
    hcl.build(fixed_comparisons(dtype, literal))(hcl.asarray(values, dtype), *outs)
    for out, (op, f) in zip(outs, COMPARISONS.items()):
        np.testing.assert_array_equal(out, [int(f(float(v), float(literal))) for v in values], err_msg=op)


AP_FIXED_PROGRAM = """
#include <cstdio>
#include <cmath>
#include "ap_fixed.h"
int main() {
  const double literals[] = {%(literals)s};
  for (double v : literals) {
    for (int raw = -32768; raw < 32768; raw++) {
      ap_fixed<16, 8> x;
      x.range(15, 0) = raw;
      printf("%%d %%d %%d %%d %%d %%d\\n", x < v, x <= v, x > v, x >= v, x == v, x != v);
    }
  }
}
"""


@pytest.mark.slow
def test_the_comparisons_are_those_of_the_ap_fixed_headers(tmp_path) -> None:
    import subprocess

    from hclbuild.runtime.aptypes import ap_types_include_dir

    include = ap_types_include_dir()
    if include is None:
        pytest.skip("no ap_types headers (scripts/setup.sh installs them with the hls4ml wheel)")
    finite = [v for v in LITERALS if np.isfinite(v)]
    source = tmp_path / "cmp.cpp"
    source.write_text(AP_FIXED_PROGRAM % {"literals": ", ".join(repr(v) for v in finite)})
    subprocess.run(
        ["g++", "-std=c++17", "-O1", "-isystem", str(include), str(source), "-o", str(tmp_path / "cmp")],
        check=True,
    )
    lines = subprocess.run([str(tmp_path / "cmp")], capture_output=True, text=True, check=True).stdout.split(
        "\n"
    )
    raw = np.arange(-32768, 32768)
    dtype = hcl.Fixed(16, 8)
    for k, literal in enumerate(finite):
        outs = [np.zeros(raw.size, np.int8) for _ in COMPARISONS]
        X = hcl.placeholder((raw.size,), "X", dtype)

        def kernel(X, literal=literal):
            return tuple(
                hcl.compute(X.shape, lambda i, f=f: hcl.select(f(X[i], literal), 1, 0), op, dtype=hcl.Int(8))
                for op, f in COMPARISONS.items()
            )

        hcl.build(hcl.create_schedule([X], kernel))(hcl.asarray(raw / 256, dtype), *outs)
        ours = np.stack(outs, axis=1)
        theirs = np.array(
            [[int(b) for b in line.split()] for line in lines[k * raw.size : (k + 1) * raw.size]]
        )
        np.testing.assert_array_equal(ours, theirs, err_msg=f"literal {literal}")


# ---- hcl.select with a float literal -------------------------------------------------------------


@pytest.mark.parametrize(
    ("dtype", "values", "float_type"),
    [
        (hcl.Int(32), [2**31 - 1, -(2**31), 16777217, -3], "f64"),
        (hcl.UInt(32), [2**32 - 1, 16777217, 5, 0], "f64"),
        (hcl.Int(25), [2**24 - 1, -(2**24), 7, -3], "f32"),  # every Int(25) is exact in a float
        (hcl.UInt(8), [255, 1, 0, 128], "f32"),
        (hcl.Int(54), [2**53 - 1, -(2**53), 3, -3], "f64"),
    ],
    ids=str,
)
def test_select_passes_an_integer_through_a_float_literal_unchanged(run, dtype, values, float_type) -> None:
    # hcl.select(A[i] > 0, A[i], 0.5) computed in float32: 2**31 - 1 came back as -2**31 and 16777217
    # as 16777216 (HeteroCL's float literal is a double, as C's 0.5 is)
    A = hcl.placeholder((4,), "A", dtype)
    for literal_first in (False, True):

        def pick(a, literal_first=literal_first):
            return hcl.select(a < 1, 0.5, a) if literal_first else hcl.select(a >= 1, a, 0.5)

        s = hcl.create_schedule(
            [A], lambda A, pick=pick: hcl.compute((4,), lambda i: pick(A[i]), "B", dtype=dtype)
        )
        selected = next(line for line in str(hcl.lower(s)).splitlines() if "arith.select" in line)
        assert selected.endswith(f": {float_type}"), selected  # the narrowest float that holds them all
        a = np.array(values, dtype=dtype.np_storage)
        np.testing.assert_array_equal(run(s, a), [v if v >= 1 else 0 for v in values])


def test_select_of_a_float_and_a_float_literal_stays_in_that_float(run) -> None:
    A = hcl.placeholder((4,), "A", hcl.Float(32))
    s = hcl.create_schedule(
        [A], lambda A: hcl.compute((4,), lambda i: hcl.select(A[i] > 0, A[i], 0.1), "B", dtype=hcl.Float(32))
    )
    assert "arith.select" in str(hcl.lower(s)) and ": f64" not in str(hcl.lower(s))
    np.testing.assert_array_equal(
        run(s, np.array([1.5, -2, 0, 3], np.float32)), np.float32([1.5, 0.1, 0.1, 3])
    )
